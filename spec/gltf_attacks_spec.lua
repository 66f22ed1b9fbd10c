-- glTF files whose claims would size an allocation or a loop (issue 35,
-- defect 6; docs/robustness.md, "No claim in a file sizes an allocation or
-- a loop").  A count in a glTF file sizes nothing unless the file's bytes
-- back it: an accessor without a bufferView is zeros (legal glTF), so its
-- count is bounded by the sampler's input times, which must be in the file;
-- the keys of all the file's clips count against anim.limits.keys; the
-- nodes above a clip's channels or a skin's joints (not in their bytes)
-- are bounded for the file as a whole.  Each input is refused (or imported,
-- with a warning naming what was left out) within a count of Lua
-- instructions and of bytes the import allocates, measured with the
-- collector stopped: before, the first three took 1.09 GB, 391 MB and
-- 3.8 s.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local compat = require "anim.base.compat"
local binary = require "spec.bytes"

local dir = H.tmpdir()
local n = 0

-- Writes doc as a .gltf, its buffer 0 (bin) in a file beside it; returns
-- the path and the file's size with its buffer.
local function write(doc, bin)
  n = n + 1
  local file = dir .. "/a" .. n .. ".gltf"
  if bin then
    H.write(dir .. "/a" .. n .. ".bin", bin)
    doc.buffers = { { byteLength = #bin, uri = "a" .. n .. ".bin" } }
  end
  local text = cjson.encode(doc)
  H.write(file, text)
  return file, #text + (bin and #bin or 0)
end

local function floats(...) return binary.pack("<" .. string.rep("f", select("#", ...)), ...) end

-- Runs f with the collector stopped and an instruction-count hook that
-- fails it past `millions` million Lua instructions: its results, after
-- the KiB it allocated (every allocation: an upper bound of its peak) and
-- the thousands of instructions it ran.
local function measured(millions, f)
  return H.without_jit(function()
    collectgarbage()
    collectgarbage()
    local before, ticks = collectgarbage("count"), 0
    collectgarbage("stop")
    debug.sethook(function()
      ticks = ticks + 1
      if ticks > millions * 1000 then error("more than " .. millions .. " million instructions: not bounded", 2) end
    end, "", 1000)
    local r = compat.pack(pcall(f))
    debug.sethook()
    local grown = collectgarbage("count") - before
    collectgarbage("restart")
    if not r[1] then error(r[2], 0) end
    return grown, ticks, compat.unpack(r, 2, r.n)
  end)
end

-- nil, message of an import: the message after the file's name it starts
-- with, and the KiB allocated.
local function refused(file, millions)
  local kb, _, r, err = measured(millions or 2, function() return anim.import_gltf(file) end)
  assert.is_nil(r)
  assert.are.equal("string", type(err))
  assert.are.equal(file .. ": ", err:sub(1, #file + 2))
  return err:sub(#file + 3), kb
end

-- The warnings of an import, each without the file's name it starts with.
local function warnings(file, r)
  local out = {}
  for i, w in ipairs(r.warnings) do
    assert.are.equal(file .. ": ", w:sub(1, #file + 2))
    out[i] = w:sub(#file + 3)
  end
  return out
end

-- A node "a" and one animation of it whose sampler reads accessors 0 (the
-- input) and 1 (the output), at `path`.
local function animated(accessors, path, interp)
  return { asset = { version = "2.0" }, nodes = { { name = "a" } }, accessors = accessors,
    animations = { { samplers = { { input = 0, output = 1, interpolation = interp } },
      channels = { { sampler = 0, target = { node = 0, path = path or "translation" } } } } } }
end

-- Three input times in the file's bytes, at 0, 1 and 2 (bufferViews[0]).
local TIMES = { bufferView = 0, componentType = 5126, count = 3, type = "SCALAR" }
local function with_times(doc)
  doc.bufferViews = { { buffer = 0, byteLength = 12 } }
  return doc, floats(0, 1, 2)
end

-- A chain of n nodes (node i the parent of i + 1), named n0, n1, ...; the
-- JSON text of its "nodes" array.
local function chain(count)
  local parts = {}
  for i = 0, count - 2 do parts[#parts + 1] = string.format('{"name":"n%d","children":[%d]}', i, i + 1) end
  parts[#parts + 1] = string.format('{"name":"n%d"}', count - 1)
  return "[" .. table.concat(parts, ",") .. "]"
end

describe("glTF counts the file does not back", function()
  it("an accessor without a bufferView sizes nothing: 3,000,000 MAT4 zeros are refused before one is made", function()
    -- the 338-byte file of the issue (it reached 1.09 GB before it was refused)
    local file, size = write(animated({ { componentType = 5126, count = 3000000, type = "MAT4" },
      { componentType = 5126, count = 3000000, type = "VEC3" } }))
    assert.is_true(size < 400)
    local err, kb = refused(file)
    assert.are.equal("accessors[0].type: animation input times must be SCALAR, got MAT4", err)
    assert.is_true(kb < 1024, kb .. " KiB")
    -- as an output, of three times in the file: its type, then its count
    local doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 3000000, type = "MAT4" } }))
    err, kb = refused(write(doc, bin))
    assert.are.equal("accessors[1].type: the output of a translation channel must be VEC3, got MAT4", err)
    assert.is_true(kb < 1024, kb .. " KiB")
    doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 3000000, type = "VEC3" } }))
    err, kb = refused(write(doc, bin))
    assert.are.equal("animations[0].samplers[0].output: accessors[1] has 3000000 elements, LINEAR with 3"
      .. " input times needs 3", err)
    assert.is_true(kb < 1024, kb .. " KiB")
  end)

  it("input times must be in the file's bytes: a 300-byte file of 1,000,000 zero times is refused", function()
    -- (it made a clip of 1,000,000 keys, 391 MB)
    local file, size = write(animated({ { componentType = 5126, count = 1000000, type = "SCALAR" },
      { componentType = 5126, count = 1000000, type = "VEC3" } }))
    assert.is_true(size < 400)
    local err, kb = refused(file)
    assert.are.equal("accessors[0].count: 1000000 animation input times, of which the file's bytes give 0:"
      .. " the others would be zeros (no bufferView), and input times increase: one at most can be", err)
    assert.is_true(kb < 1024, kb .. " KiB")
    -- one time may be left to zeros: a key at 0, besides those the sparse
    -- substitution gives (times 0, 1, 2 from indices 1, 2 and values 1, 2)
    local one = assert(anim.import_gltf((write(animated({ { componentType = 5126, count = 1, type = "SCALAR" },
      { componentType = 5126, count = 1, type = "VEC3" } })))))
    assert.are.same({ 0, 0, 0 }, one.clips.animation0:sample(0).a.position)
    local bin = binary.pack("<BBxx", 1, 2) .. floats(1, 2) .. floats(0, 0, 0, 1, 1, 1, 2, 2, 2)
    local doc = animated({ { componentType = 5126, count = 3, type = "SCALAR", sparse = { count = 2,
      indices = { bufferView = 0, componentType = 5121 }, values = { bufferView = 1 } } },
      { bufferView = 2, componentType = 5126, count = 3, type = "VEC3" } })
    doc.bufferViews = { { buffer = 0, byteLength = 2 }, { buffer = 0, byteOffset = 4, byteLength = 8 },
      { buffer = 0, byteOffset = 12, byteLength = 36 } }
    local sparse = assert(anim.import_gltf((write(doc, bin))))
    assert.are.equal(2, sparse.clips.animation0.length)
    assert.are.same({ 1.5, 1.5, 1.5 }, sparse.clips.animation0:sample(1.5).a.position)
    -- two times left to zeros are refused
    doc.accessors[1].count = 4
    doc.accessors[2].count = 4
    doc.bufferViews[3].byteLength = 48
    bin = bin .. floats(3, 3, 3)
    local err2 = refused(write(doc, bin))
    assert.are.equal("accessors[0].count: 4 animation input times, of which the file's bytes give 2: the"
      .. " others would be zeros (no bufferView), and input times increase: one at most can be", err2)
  end)

  it("an output without a bufferView is the zeros its input's times call for, and no more", function()
    local doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 3, type = "VEC4" } }, "rotation"))
    -- (a zero quaternion: zeros are read, then refused as keys)
    local err = refused(write(doc, bin))
    assert.are.equal("accessors[1]: element 0 is a zero quaternion (a rotation key needs a non-zero"
      .. " [x, y, z, w])", err)
    doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 9, type = "VEC3" } }, "scale", "CUBICSPLINE"))
    local r = assert(anim.import_gltf((write(doc, bin))))
    assert.are.same({ 0, 0, 0 }, r.clips.animation0:sample(1.5).a.scale)
    -- morph weights: a million weights a key from three times is refused
    -- before one is made (at most 1,024 components a property)
    doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 3000000, type = "SCALAR" } }, "weights"))
    local kb
    err, kb = refused(write(doc, bin))
    assert.are.equal("animations[0].samplers[0].output: accessors[1] has 1000000 weights for each input time"
      .. " (at most 1024)", err)
    assert.is_true(kb < 1024, kb .. " KiB")
    doc, bin = with_times(animated({ TIMES, { componentType = 5126, count = 6, type = "SCALAR" } }, "weights"))
    r = assert(anim.import_gltf((write(doc, bin))))
    assert.are.same({ 0, 0 }, r.clips.animation0:sample(1).properties["a.weights"])
  end)

  it("checks every number of the file that becomes an integer before it is used", function()
    -- (a count, index, offset, length, stride or component type of 2^53,
    -- 2^63, 1e300, -1 or 0.5: each refused naming the field, never a Lua
    -- error, never a loop or an allocation of that size)
    local function model()
      local doc, bin = with_times(animated({ TIMES, { bufferView = 1, componentType = 5126, count = 3, type = "VEC3" } }))
      doc.bufferViews[2] = { buffer = 0, byteOffset = 12, byteLength = 36 }
      doc.skins = { { joints = { 0 } } }
      return doc, bin .. floats(0, 0, 0, 1, 1, 1, 2, 2, 2)
    end
    local fields = {
      { "accessors[1].byteOffset", function(d, v) d.accessors[2].byteOffset = v end },
      { "accessors[1].count", function(d, v) d.accessors[2].count = v end },
      { "accessors[1].bufferView", function(d, v) d.accessors[2].bufferView = v end },
      { "bufferViews[1].byteOffset", function(d, v) d.bufferViews[2].byteOffset = v end },
      { "bufferViews[1].byteLength", function(d, v) d.bufferViews[2].byteLength = v end },
      { "bufferViews[1].byteStride", function(d, v) d.bufferViews[2].byteStride = v end },
      { "bufferViews[1].buffer", function(d, v) d.bufferViews[2].buffer = v end },
      { "buffers[0].byteLength", function(d, v) d.buffers[1].byteLength = v end },
      { "animations[0].channels[0].sampler", function(d, v) d.animations[1].channels[1].sampler = v end },
      { "animations[0].channels[0].target.node", function(d, v) d.animations[1].channels[1].target.node = v end },
      { "animations[0].samplers[0].output", function(d, v) d.animations[1].samplers[1].output = v end },
      { "skins[0].joints[0]", function(d, v) d.skins[1].joints[1] = v end },
    }
    local names = { byteOffset = "byteOffset", count = "count", byteLength = "byteLength", byteStride = "byteStride",
      sampler = "sampler" }
    for _, f in ipairs(fields) do
      local what = names[f[1]:match("([%a]+)$")] or "index"
      for _, c in ipairs { { 2 ^ 53, what .. " is out of range: 9.007199254741e+15 (at most 9007199254740991)" },
        { 2 ^ 63, what .. " is out of range: 9.2233720368548e+18 (at most 9007199254740991)" },
        { 1e300, what .. " is out of range: 1e+300 (at most 9007199254740991)" },
        { -1, what .. " must be at least " .. ((what == "count" or what:match("^byte[LS]")) and 1 or 0) .. ", got -1" },
        { 0.5, what .. " must be a whole number, got 0.5" } } do
        local doc, bin = model()
        -- (the buffer as it is: its byteLength is set after write)
        local file = write(doc, bin)
        doc.buffers[1].uri = file:match("[^/]+$"):gsub("gltf$", "bin")
        f[2](doc, c[1])
        H.write(file, cjson.encode(doc))
        local ok, r, err = pcall(anim.import_gltf, file)
        assert(ok, r)
        assert.is_nil(r)
        assert.are.equal(file .. ": " .. f[1] .. ": " .. c[2], err)
      end
    end
  end)

  it("anim.limits.keys bounds the keys of the file's clips together", function()
    -- three animations of 3 keys, sharing their sampler's accessors
    local doc, bin = with_times(animated({ TIMES, { bufferView = 1, componentType = 5126, count = 3, type = "VEC3" } }))
    doc.bufferViews[2] = { buffer = 0, byteOffset = 12, byteLength = 36 }
    bin = bin .. floats(0, 0, 0, 1, 1, 1, 2, 2, 2)
    doc.animations[2] = doc.animations[1]
    doc.animations[3] = doc.animations[1]
    local file = write(doc, bin)
    local r = assert(anim.import_gltf(file))
    assert.are.same({ "animation0", "animation1", "animation2" }, (function()
      local names = {}
      for k in pairs(r.clips) do names[#names + 1] = k end
      table.sort(names)
      return names
    end)())
    H.with_limits({ keys = 8 }, function()
      assert.are.equal("animations[2].samplers[0].input: too many keys: the file's clips would have 9 (at most"
        .. " 8, anim.limits.keys)", refused(file))
    end)
    H.with_limits({ keys = 2 }, function()
      assert.are.equal("animations[0].samplers[0].input: too many keys: the clip would have 3 (at most 2,"
        .. " anim.limits.keys)", refused(file))
    end)
  end)

  it("the skeletons of a file's clips hold at most 32,768 nodes together: the clips past it have none", function()
    -- a chain of 1,024 nodes and 100 animations of its last node, one key
    -- each: 100 skeletons of 1,024 nodes (102,400) from a 30 KB file
    local anims = {}
    for i = 1, 100 do
      anims[i] = '{"samplers":[{"input":0,"output":1}],"channels":[{"sampler":0,"target":{"node":1023,'
        .. '"path":"translation"}}]}'
    end
    local bin = floats(0, 1, 2, 3)
    n = n + 1
    local file = dir .. "/a" .. n .. ".gltf"
    H.write(dir .. "/a" .. n .. ".bin", bin)
    H.write(file, '{"asset":{"version":"2.0"},"nodes":' .. chain(1024) .. ',"buffers":[{"byteLength":16,"uri":"a'
      .. n .. '.bin"}],"bufferViews":[{"buffer":0,"byteLength":4},{"buffer":0,"byteOffset":4,"byteLength":12}],'
      .. '"accessors":[{"bufferView":0,"componentType":5126,"count":1,"type":"SCALAR"},{"bufferView":1,'
      .. '"componentType":5126,"count":1,"type":"VEC3"}],"animations":[' .. table.concat(anims, ",") .. "]}")
    local kb, ticks, r = measured(40, function() return anim.import_gltf(file) end)
    assert(r)
    local with = 0
    for i = 0, 99 do
      local c = r.clips["animation" .. i]
      assert.are.same({ 1, 2, 3 }, c:sample(0).n1023.position)
      local info = require("anim.format.clip").info(c)
      if info.skeleton then
        with = with + 1
        assert.are.equal("n1022", info.skeleton.n1023.parent)
      end
      assert.are.equal(i < 32, info.skeleton ~= nil, i)
    end
    assert.are.equal(32, with)
    assert.are.same({ "animations[32]: imported without a skeleton, as are 67 animations after it: the skeletons"
      .. " of the file's clips would hold more than 32768 nodes together" }, warnings(file, r))
    -- (before: 102,400 skeleton nodes, 2.5 s and 360 MB for the 100 of a 4,096-node chain)
    -- (17 million instructions and 31 MiB here)
    assert.is_true(ticks < 35000 and kb < 64 * 1024, ticks .. " thousand instructions, " .. kb .. " KiB")
  end)

  it("the rigs of a file's skins hold at most 65,536 joints together: the skins past it are left out", function()
    -- a chain of 4,096 nodes and 40 skins of its last node: 16 rigs fit
    local skins = {}
    for i = 1, 40 do skins[i] = '{"joints":[4095]}' end
    skins[41] = '{"joints":[0]}'
    n = n + 1
    local file = dir .. "/a" .. n .. ".gltf"
    H.write(file, '{"asset":{"version":"2.0"},"nodes":' .. chain(4096) .. ',"skins":[' .. table.concat(skins, ",") .. "]}")
    local kb, ticks, r = measured(40, function() return anim.import_gltf(file) end)
    assert(r)
    local count = 0
    for _, rig in pairs(r.rigs) do
      count = count + 1
      assert.are.equal(4096, #rig:joints())
    end
    assert.are.equal(16, count)
    assert.is_truthy(r.rigs.skin15)
    assert.is_nil(r.rigs.skin16)
    assert.is_nil(r.rigs.skin40) -- (after the first left out, every skin is)
    assert.are.same({ "skins[16]: skin left out, as are the 24 skins after it: the rigs of the file's skins would"
      .. " hold more than 65536 joints together" }, warnings(file, r))
    -- (before: 40 rigs of 4,096 joints, 167,000 joints, each made through anim.rig)
    -- (3.4 million instructions and 72 MiB here: a rig's joints take 1.1 KiB each)
    assert.is_true(ticks < 8000 and kb < 128 * 1024, ticks .. " thousand instructions, " .. kb .. " KiB")
  end)

  it("a chain of nodes with a skin imports in work and memory linear in its nodes, one rig for skin and scene", function()
    local function import_chain(count)
      n = n + 1
      local js = {}
      for i = 1, count do js[i] = count - i end
      local file = dir .. "/a" .. n .. ".gltf"
      H.write(file, '{"asset":{"version":"2.0"},"nodes":' .. chain(count) .. ',"skins":[{"joints":['
        .. table.concat(js, ",") .. "]}]}")
      local kb, ticks, r = measured(count / 1000, function() return anim.import_gltf(file) end)
      assert(r)
      assert.are.equal(count, #r.rig:joints())
      assert.are.equal("n" .. (count - 2), r.rig:joints()[count].parent)
      assert.are.equal(r.rig, r.scene)
      return kb, ticks
    end
    -- (before: 2,200 instructions and 7.8 KiB a node; the 65,536-node chain of the
    -- issue, 3 MB, took 3.8 s and 360 MB)
    local kb4, t4 = import_chain(4096)
    local kb16, t16 = import_chain(16384)
    assert.is_true(t16 < 16384 * 0.6, t16 .. " thousand instructions")
    assert.is_true(kb16 < 16384 * 3, kb16 .. " KiB")
    assert.is_true(t16 / t4 < 4.5 and kb16 / kb4 < 4.5, string.format("%d, %d thousand instructions; %.0f, %.0f KiB",
      t4, t16, kb4, kb16))
  end)
end)
