-- glTF input the sample models do not show: every accessor layout the
-- specification allows (component types, normalized integers, strides,
-- sparse substitution, padded matrices), and every kind of bad input,
-- each giving nil, "file: json.path: why" (glTF's own 0-based indices, a
-- byte offset in a .glb), never a Lua error, never a file read outside the
-- model's folder.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local compat = require "anim.base.compat"
local binary = require "spec.bytes"

-- Base64, written here (not the module's).
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = {}
    for k = 3, 0, -1 do q[#q + 1] = B64:sub(math.floor(n / 2 ^ (6 * k)) % 64 + 1, math.floor(n / 2 ^ (6 * k)) % 64 + 1) end
    if not b then q[3], q[4] = "=", "=" elseif not c then q[4] = "=" end
    out[#out + 1] = table.concat(q)
  end
  return table.concat(out)
end

local function pad4(s, with) return s .. string.rep(with or "\0", (4 - #s % 4) % 4) end

local function floats(...) return binary.pack("<" .. string.rep("f", select("#", ...)), ...) end

-- A small model: node 0 "root" with child 1 "arm" (a skin's joint), one
-- animation "move" of arm: translation (LINEAR) and rotation (LINEAR) on
-- times 0, 1, 2.  Returns the JSON table and the binary buffer; the
-- buffer goes in a data: URI unless the caller says otherwise.
local function model()
  local S = math.sqrt(0.5)
  local bin = floats(0, 1, 2) .. floats(0, 0, 0, 1, 2, 3, 4, 5, 6) .. floats(0, 0, 0, 1, 0, 0, S, S, 0, 0, 1, 0)
  local doc = {
    asset = { version = "2.0" },
    nodes = { { name = "root", children = { 1 } }, { name = "arm", translation = { 1, 0, 0 } } },
    skins = { { joints = { 1 } } },
    buffers = { { byteLength = #bin } },
    bufferViews = { { buffer = 0, byteOffset = 0, byteLength = 12 }, { buffer = 0, byteOffset = 12, byteLength = 36 },
      { buffer = 0, byteOffset = 48, byteLength = 48 } },
    accessors = {
      { bufferView = 0, componentType = 5126, count = 3, type = "SCALAR", min = { 0 }, max = { 2 } },
      { bufferView = 1, componentType = 5126, count = 3, type = "VEC3" },
      { bufferView = 2, componentType = 5126, count = 3, type = "VEC4" },
    },
    animations = { { name = "move",
      samplers = { { input = 0, output = 1 }, { input = 0, output = 2 } },
      channels = { { sampler = 0, target = { node = 1, path = "translation" } },
        { sampler = 1, target = { node = 1, path = "rotation" } } } } },
  }
  return doc, bin
end

local dir = H.tmpdir()
local n = 0
local function name(ext)
  n = n + 1
  return dir .. "/m" .. n .. (ext or ".gltf")
end

-- Writes doc (its buffer 0 embedded unless it has a uri) as a .gltf.
local function gltf(doc, bin, file)
  file = file or name()
  if bin and not doc.buffers[1].uri then doc.buffers[1].uri = "data:application/octet-stream;base64," .. b64(bin) end
  H.write(file, cjson.encode(doc))
  return file
end

-- A .glb of doc (buffer 0 in the BIN chunk) or of the given chunks.
local function glb_bytes(doc, bin)
  local js = pad4(cjson.encode(doc), " ")
  local body = binary.pack("<I4I4", #js, 0x4E4F534A) .. js
  if bin then
    local b = pad4(bin)
    body = body .. binary.pack("<I4I4", #b, 0x004E4942) .. b
  end
  return binary.pack("<I4I4I4", 0x46546C67, 2, 12 + #body) .. body
end

local function glb(doc, bin)
  local file = name(".glb")
  H.write(file, glb_bytes(doc, bin))
  return file
end

local function import(file, opts)
  local r, err = anim.import_gltf(file, opts)
  return r, err and err:gsub("^" .. dir:gsub("%p", "%%%0") .. "/", "")
end

local function fails(file, want, opts)
  local r, err = import(file, opts)
  assert.is_nil(r)
  assert.are.equal(want, err)
end

local function sample(r, t) return r.clips.move:sample(t).arm end

describe("glTF accessors", function()
  it("a .gltf with its buffer in a data: URI, a .glb with its BIN chunk, and a .bin beside it read alike", function()
    local doc, bin = model()
    local a = assert(import(gltf(doc, bin)))
    doc = model()
    local b = assert(import(glb(doc, bin)))
    doc = model()
    doc.buffers[1].uri = "model%20data.bin"
    H.write(dir .. "/model data.bin", bin)
    local c = assert(import(gltf(doc)))
    -- a .gltf starting with a UTF-8 byte order mark
    doc = model()
    doc.buffers[1].uri = "data:application/octet-stream;base64," .. b64(bin)
    local bom = name()
    H.write(bom, "\239\187\191" .. cjson.encode(doc))
    local d = assert(import(bom))
    for _, r in ipairs { a, b, c, d } do
      assert.are.same({ 2.5, 3.5, 4.5 }, sample(r, 1.5).position)
      assert.are.equal(2, r.clips.move.length)
      assert.are.same({}, r.warnings)
    end
  end)

  it("decode normalized integers as the specification says, for every component type", function()
    local cases = {
      -- componentType, packing, the stored components, the value of each
      { 5120, "b", { 127, -127, -128, 0 }, { 1, -1, -1, 0 } },
      { 5121, "B", { 255, 0, 51, 0 }, { 1, 0, 0.2, 0 } },
      { 5122, "h", { 32767, -32768, 0, 16384 }, { 1, -1, 0, 16384 / 32767 } },
      { 5123, "H", { 65535, 0, 0, 13107 }, { 1, 0, 0, 0.2 } },
    }
    for _, c in ipairs(cases) do
      local doc, bin = model()
      local q = binary.pack("<" .. c[2]:rep(4), compat.unpack(c[3]))
      local rot = pad4(q) -- one key's worth, repeated
      bin = bin:sub(1, 48) .. rot .. rot .. rot
      doc.buffers[1].byteLength = #bin
      doc.bufferViews[3] = { buffer = 0, byteOffset = 48, byteLength = 3 * #rot, byteStride = #rot }
      doc.accessors[3] = { bufferView = 2, componentType = c[1], normalized = true, count = 3, type = "VEC4" }
      local r = assert(import(gltf(doc, bin)))
      local v = c[4]
      local len = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2 + v[4] ^ 2)
      assert.is_true(H.maxdiff(sample(r, 0.5).rotation, { v[1] / len, v[2] / len, v[3] / len, v[4] / len }) < 1e-15,
        "componentType " .. c[1])
    end
  end)

  it("read integer components as their values when not normalized (KHR_mesh_quantization layouts)", function()
    for _, c in ipairs { { 5120, "b" }, { 5121, "B" }, { 5122, "h" }, { 5123, "H" }, { 5125, "I4" } } do
      local doc, bin = model()
      local v = binary.pack("<" .. c[2]:rep(3), 1, 2, 3)
      local stride = math.floor((#v + 3) / 4) * 4
      local data = pad4(binary.pack("<" .. c[2]:rep(3), 0, 0, 0)) .. pad4(v) .. pad4(binary.pack("<" .. c[2]:rep(3), 4, 5, 6))
      bin = bin .. data
      doc.buffers[1].byteLength = #bin
      doc.bufferViews[2] = { buffer = 0, byteOffset = 96, byteLength = #data, byteStride = stride }
      doc.accessors[2] = { bufferView = 1, componentType = c[1], count = 3, type = "VEC3" }
      local r = assert(import(gltf(doc, bin)))
      assert.are.same({ 2.5, 3.5, 4.5 }, sample(r, 1.5).position, "componentType " .. c[1])
    end
  end)

  it("follow byte strides, byte offsets of views and accessors, and interleaved data", function()
    local doc = model()
    -- time and translation interleaved: [t, x, y, z] per key, after 8 bytes of padding
    local bin = "12345678" .. floats(0, 0, 0, 0, 1, 1, 2, 3, 2, 4, 5, 6)
    local S = math.sqrt(0.5)
    bin = bin .. floats(0, 0, 0, 0, 1, 0, 0, S, S, 0, 0, 1, 0)
    doc.buffers[1].byteLength = #bin
    doc.bufferViews = { { buffer = 0, byteOffset = 8, byteLength = 48, byteStride = 16 },
      { buffer = 0, byteOffset = 56, byteLength = 52 } }
    doc.accessors = {
      { bufferView = 0, componentType = 5126, count = 3, type = "SCALAR" },
      { bufferView = 0, byteOffset = 4, componentType = 5126, count = 3, type = "VEC3" },
      { bufferView = 1, byteOffset = 4, componentType = 5126, count = 3, type = "VEC4" },
    }
    local r = assert(import(gltf(doc, bin)))
    assert.are.same({ 2.5, 3.5, 4.5 }, sample(r, 1.5).position)
    assert.is_true(H.quatdiff(sample(r, 1).rotation, { 0, 0, S, S }) < 1e-7)
  end)

  it("substitute sparse elements over the data, or over zeros without a bufferView", function()
    local doc, bin = model()
    -- replace key 1 of the translation by (7, 8, 9): indices as unsigned bytes
    bin = bin .. pad4(binary.pack("<B", 1)) .. floats(7, 8, 9)
    doc.buffers[1].byteLength = #bin
    doc.bufferViews[4] = { buffer = 0, byteOffset = 96, byteLength = 1 }
    doc.bufferViews[5] = { buffer = 0, byteOffset = 100, byteLength = 12 }
    doc.accessors[2].sparse = { count = 1, indices = { bufferView = 3, componentType = 5121 }, values = { bufferView = 4 } }
    local r = assert(import(gltf(doc, bin)))
    assert.are.same({ 7, 8, 9 }, sample(r, 1).position)
    assert.are.same({ 5.5, 6.5, 7.5 }, sample(r, 1.5).position)
    -- over zeros, indices as unsigned shorts and ints
    for _, ct in ipairs { { 5123, "H" }, { 5125, "I4" } } do
      doc, bin = model()
      bin = bin .. pad4(binary.pack("<" .. ct[2], 2)) .. floats(7, 8, 9)
      doc.buffers[1].byteLength = #bin
      local il = #pad4(binary.pack("<" .. ct[2], 2))
      doc.bufferViews[4] = { buffer = 0, byteOffset = 96, byteLength = il }
      doc.bufferViews[5] = { buffer = 0, byteOffset = 96 + il, byteLength = 12 }
      doc.accessors[2] = { componentType = 5126, count = 3, type = "VEC3",
        sparse = { count = 1, indices = { bufferView = 3, componentType = ct[1] }, values = { bufferView = 4 } } }
      r = assert(import(gltf(doc, bin)))
      assert.are.same({ 0, 0, 0 }, sample(r, 1).position)
      assert.are.same({ 3.5, 4, 4.5 }, sample(r, 1.5).position)
    end
  end)

  it("lay out matrix columns on 4-byte boundaries (MAT2 and MAT3 of bytes and shorts)", function()
    local A = require "anim.import.gltf.accessor"
    local F = require "anim.import.gltf.file"
    -- MAT3 of unsigned bytes: each 3-byte column padded to 4; MAT2 of shorts: no padding
    local m3 = binary.pack("<BBBxBBBxBBBx", 1, 2, 3, 4, 5, 6, 7, 8, 9)
    local m2 = binary.pack("<hhhh", -1, 2, -3, 4)
    local bin = m3 .. m2
    local doc = { asset = { version = "2.0" }, buffers = { { byteLength = #bin } },
      bufferViews = { { buffer = 0, byteLength = 12 }, { buffer = 0, byteOffset = 12, byteLength = 8 } },
      accessors = { { bufferView = 0, componentType = 5121, count = 1, type = "MAT3" },
        { bufferView = 1, componentType = 5122, count = 1, type = "MAT2", normalized = true } } }
    local file = gltf(doc, bin)
    local ctx = F.open(file)
    assert.are.same({ 1, 2, 3, 4, 5, 6, 7, 8, 9 }, A.read(ctx, 0).values)
    assert.are.same({ -1 / 32767, 2 / 32767, -3 / 32767, 4 / 32767 }, A.read(ctx, 1).values)
  end)

  it("do not trust min and max", function()
    local doc, bin = model()
    doc.accessors[1].min, doc.accessors[1].max = { 5 }, { -3 }
    doc.accessors[2].min, doc.accessors[2].max = { 100, 100, 100 }, { 0, 0, 0 }
    local r = assert(import(gltf(doc, bin)))
    assert.are.equal(2, r.clips.move.length)
    assert.are.same({ 4, 5, 6 }, sample(r, 2).position)
  end)

  it("hold the first value before input times that start after 0, STEP and CUBICSPLINE samplers", function()
    local doc, bin = model()
    bin = bin .. floats(0.5, 1.5)
      .. floats(0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0)
    doc.buffers[1].byteLength = #bin
    doc.bufferViews[4] = { buffer = 0, byteOffset = 96, byteLength = 8 }
    doc.bufferViews[5] = { buffer = 0, byteOffset = 104, byteLength = 72 }
    doc.accessors[4] = { bufferView = 3, componentType = 5126, count = 2, type = "SCALAR" }
    doc.accessors[5] = { bufferView = 4, componentType = 5126, count = 6, type = "VEC3" }
    doc.animations[1].samplers[1] = { input = 3, output = 4, interpolation = "CUBICSPLINE" }
    doc.animations[1].samplers[2].interpolation = "STEP"
    local r = assert(import(gltf(doc, bin)))
    assert.are.same({ 1, 1, 1 }, sample(r, 0.2).position)
    -- Hermite from 1 (out-tangent 1, 0, 0) to 3 (in-tangent 0) over 1 s, at s = 0.5
    assert.are.same({ 0.5 * 1 + 0.125 * 1 + 0.5 * 3, 2, 2 }, sample(r, 1).position)
    local S = math.sqrt(0.5)
    assert.are.same({ 0, 0, 0, 1 }, sample(r, 0.999).rotation)
    assert.is_true(H.quatdiff(sample(r, 1).rotation, { 0, 0, S, S }) < 1e-7)
  end)
end)

describe("bad glTF input", function()
  it("a truncated .glb, bad chunk lengths, a first chunk that is not JSON", function()
    local doc, bin = model()
    local bytes = glb_bytes(doc, bin)
    local function with(b)
      local f = name(".glb")
      H.write(f, b)
      return f
    end
    local f = with(bytes:sub(1, 10))
    fails(f, f:match("[^/]+$") .. ": byte 0: truncated .glb: 10 bytes, the header alone is 12")
    f = with(bytes:sub(1, 100))
    fails(f, f:match("[^/]+$") .. ": byte 8: the header says the .glb is " .. #bytes .. " bytes, the file has 100 (truncated)")
    -- the JSON chunk claims more than the file holds
    local jlen = binary.unpack("<I4", bytes, 13)
    local bad = bytes:sub(1, 12) .. binary.pack("<I4", jlen + 1000) .. bytes:sub(17)
    f = with(bad)
    fails(f, string.format("%s: byte 12: chunk 0 says it holds %d bytes, only %d are left in the file",
      f:match("[^/]+$"), jlen + 1000, #bytes - 20))
    -- the BIN chunk's header cut short
    bad = bytes:sub(1, 20 + jlen + 4)
    bad = bad:sub(1, 8) .. binary.pack("<I4", #bad) .. bad:sub(13)
    f = with(bad)
    fails(f, f:match("[^/]+$") .. ": byte " .. (20 + jlen) .. ": truncated .glb: 4 bytes left, a chunk header is 8")
    bad = bytes:sub(1, 16) .. binary.pack("<I4", 0x004E4942) .. bytes:sub(21)
    f = with(bad)
    fails(f, f:match("[^/]+$") .. ": byte 16: the first chunk must be JSON (type 0x4E4F534A), got 0x004E4942")
    bad = bytes:sub(1, 4) .. binary.pack("<I4", 1) .. bytes:sub(9)
    f = with(bad)
    fails(f, f:match("[^/]+$") .. ": byte 4: unsupported .glb version 1 (expected 2)")
    -- a .glb whose JSON is not JSON
    f = with(binary.pack("<I4I4I4I4I4", 0x46546C67, 2, 24, 4, 0x4E4F534A) .. "{x  ")
    local _, err = import(f)
    assert.matches("^m%d+%.glb: byte 20: not valid JSON", err)
  end)

  it("views and accessors out of their buffer's bounds, counts larger than the data", function()
    local doc, bin = model()
    doc.bufferViews[2].byteLength = 200
    fails(gltf(doc, bin), "m" .. n .. ".gltf: bufferViews[1].byteLength: bytes 12 to 212 run past the end of buffers[0] (96 bytes)")
    doc, bin = model()
    doc.accessors[2].count = 4
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[1].count: 4 elements of 12 bytes from byte 0 of bufferViews[1] need 48 bytes, it has 36")
    doc, bin = model()
    doc.accessors[2].byteOffset = 4
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[1].count: 3 elements of 12 bytes from byte 4 of bufferViews[1] need 40 bytes, it has 36")
    doc, bin = model()
    doc.buffers[1].byteLength = 200
    fails(gltf(doc, bin), "m" .. n .. ".gltf: buffers[0].byteLength: the buffer holds 96 bytes, byteLength says 200")
    doc, bin = model()
    doc.bufferViews[2].byteStride = 8
    fails(gltf(doc, bin), "m" .. n .. ".gltf: bufferViews[1].byteStride: byteStride 8 is less than an element of accessors[1] (12 bytes)")
    doc, bin = model()
    doc.accessors[2].count = 1e9
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[1].count: too many elements (1000000000; at most 3000000)")
    doc, bin = model()
    doc.accessors[2].sparse = { count = 5, indices = { bufferView = 0, componentType = 5121 }, values = { bufferView = 1 } }
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[1].sparse.count: 5 elements replaced, the accessor has 3")
  end)

  it("input times that decrease or are not finite, outputs that are NaN or infinite", function()
    local doc, bin = model()
    bin = floats(0, 2, 1) .. bin:sub(13)
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[0]: element 2 (1) comes before element 1 (2): animation input times must not decrease")
    doc, bin = model()
    bin = floats(0, 0 / 0, 1) .. bin:sub(13)
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[0]: element 1 holds nan (glTF data must be finite numbers)")
    doc, bin = model()
    bin = bin:sub(1, 24) .. floats(math.huge) .. bin:sub(29)
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[1]: element 1 holds inf (glTF data must be finite numbers)")
    doc, bin = model()
    bin = bin:sub(1, 48) .. floats(0, 0, 0, 0) .. bin:sub(65)
    fails(gltf(doc, bin), "m" .. n .. ".gltf: accessors[2]: element 0 is a zero quaternion (a rotation key needs a non-zero [x, y, z, w])")
  end)

  it("indices out of range, wrong types and counts", function()
    local cases = {
      { function(d) d.animations[1].samplers[1].input = 7 end, "animations[0].samplers[0].input: index 7 out of range: the file has 3 accessors" },
      { function(d) d.animations[1].channels[1].sampler = 2 end, "animations[0].channels[0].sampler: index 2 out of range: the animation has 2 samplers" },
      { function(d) d.animations[1].channels[1].target.node = 2 end, "animations[0].channels[0].target.node: index 2 out of range: the file has 2 nodes" },
      { function(d) d.accessors[2].bufferView = 9 end, "accessors[1].bufferView: index 9 out of range: the file has 3 bufferViews" },
      { function(d) d.bufferViews[1].buffer = 1 end, "bufferViews[0].buffer: index 1 out of range: the file has 1 buffers" },
      { function(d) d.skins[1].joints[1] = -1 end, "skins[0].joints[0]: index must be at least 0, got -1" },
      { function(d) d.nodes[1].children = { 5 } end, "nodes[0].children[0]: index 5 out of range: the file has 2 nodes" },
      { function(d) d.accessors[1].componentType = 5124 end, "accessors[0].componentType: unknown componentType 5124 (expected 5120, 5121, 5122, 5123, 5125 or 5126)" },
      { function(d) d.accessors[2].type = "VEC2" end, "accessors[1].type: the output of a translation channel must be VEC3, got VEC2" },
      { function(d) d.accessors[1].type = "VEC2"; d.accessors[1].count = 1 end, "accessors[0].type: animation input times must be SCALAR, got VEC2" },
      { function(d) d.accessors[2].count = 2 end, "animations[0].samplers[0].output: accessors[1] has 2 elements, LINEAR with 3 input times needs 3" },
      { function(d) d.animations[1].samplers[1].interpolation = "SMOOTH" end, "animations[0].samplers[0].interpolation: unknown interpolation 'SMOOTH' (expected LINEAR, STEP or CUBICSPLINE)" },
      { function(d) d.animations[1].channels[2].target.path = "translation" end, "animations[0].channels[1]: the translation of node 1 is already animated by channels[0] (a target is animated once per animation)" },
      { function(d) d.accessors[1].normalized = true end, "accessors[0].normalized: only byte and short components can be normalized, not componentType 5126" },
      { function(d) d.accessors[1].count = 1.5 end, "accessors[0].count: count must be a whole number, got 1.5" },
      { function(d) d.nodes[2].rotation = { 0, 0, 0, 0 } end, "nodes[1].rotation: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])" },
      { function(d) d.nodes[2].translation = { 1, 2 } end, "nodes[1].translation: translation must be an array of 3 numbers, got an array of 2" },
      { function(d) d.nodes[2].matrix = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 } end, "nodes[1].matrix: the matrix cannot be decomposed into translation, rotation and scale (a column has no length)" },
      { function(d) d.asset.version = "1.0" end, "asset.version: unsupported glTF version \"1.0\" (expected \"2.0\")" },
      { function(d) d.asset = nil end, "asset: asset must be an object, got nil" },
      { function(d) d.skins[1].joints = { [1] = 0 }; d.skins[1].joints[1] = nil; d.skins[1].joints = cjson.empty_array or {} end, nil },
    }
    for i, c in ipairs(cases) do
      if c[2] then
        local doc, bin = model()
        c[1](doc)
        fails(gltf(doc, bin), "m" .. n .. ".gltf: " .. c[2])
      else
        assert.is_truthy(i)
      end
    end
  end)

  it("a node tree with a cycle, or a node with two parents", function()
    local doc, bin = model()
    doc.nodes[2].children = { 0 }
    fails(gltf(doc, bin), "m" .. n .. ".gltf: nodes[1].children: the node tree has a cycle through node 0")
    doc, bin = model()
    doc.nodes[2].children = { 1 }
    fails(gltf(doc, bin), "m" .. n .. ".gltf: nodes[1].children[0]: node 1 is its own child (the node tree must have no cycle)")
    doc, bin = model()
    doc.nodes[3] = { children = { 1 } }
    fails(gltf(doc, bin), "m" .. n .. ".gltf: nodes[2].children[0]: node 1 is already a child of node 0 (a node has one parent)")
  end)

  it("a data: URI that is not base64, a missing or unreadable .bin", function()
    local doc, bin = model()
    doc.buffers[1].uri = "data:application/octet-stream," .. bin:gsub(".", "x")
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: a data: URI of a buffer must be base64 "
      .. "(\"data:application/octet-stream;base64,...\"), got \"data:application/octet-stream,...\"")
    doc = model()
    doc.buffers[1].uri = "data:application/octet-stream;base64,AAAA$AAA"
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: the data: URI is not valid base64 (at character 42 of the uri)")
    doc = model()
    doc.buffers[1].uri = "nowhere.bin"
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: cannot open 'nowhere.bin': No such file or directory")
    doc = model()
    doc.buffers[1].uri = "http://example.com/x.bin"
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: refused: only relative paths and data: URIs are read, not a 'http:' URI")
    doc = model()
    doc.buffers[1].uri = nil
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0]: a buffer without a uri is the .glb's BIN chunk, and this file has none")
    doc = model()
    doc.buffers[1].uri = "bad%zzescape.bin"
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: bad percent-escape '%zz' in the uri")
  end)

  it("refuses a folder or a FIFO as a buffer without reading it", function()
    os.execute("mkdir -p '" .. dir .. "/folder.bin' && mkfifo '" .. dir .. "/fifo.bin'")
    local doc = model()
    doc.buffers[1].uri = "folder.bin"
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: 'folder.bin': refused: it is a directory, not a file")
    doc = model()
    doc.buffers[1].uri = "fifo.bin"
    -- (a read would block here: the spec would hang)
    fails(gltf(doc), "m" .. n .. ".gltf: buffers[0].uri: 'fifo.bin': refused: not a regular file (a FIFO)")
    -- the model itself
    fails(dir .. "/fifo.bin", "fifo.bin: refused: not a regular file (a FIFO)")
  end)

  it("reads nothing outside the model's folder unless options.root holds it", function()
    local _, bin = model()
    os.execute("mkdir -p '" .. dir .. "/inner/sub' '" .. dir .. "/elsewhere'")
    H.write(dir .. "/outside.bin", bin)
    H.write(dir .. "/elsewhere/real.bin", bin)
    os.execute("ln -sf '" .. dir .. "/elsewhere/real.bin' '" .. dir .. "/inner/link.bin'")
    os.execute("ln -sf '../elsewhere' '" .. dir .. "/inner/dirlink'")
    H.write(dir .. "/inner/sub/ok.bin", bin)
    local function at_inner(uri)
      local doc = model()
      doc.buffers[1].uri = uri
      local f = dir .. "/inner/m" .. n .. ".gltf"
      n = n + 1
      return gltf(doc, nil, f)
    end
    local hint = " (options.root can name a folder that holds it)"
    local f = at_inner("../outside.bin")
    local shown = f:sub(#dir + 2)
    fails(f, shown .. ": buffers[0].uri: refused: '../outside.bin' leaves the model's folder" .. hint)
    f = at_inner(dir .. "/outside.bin")
    fails(f, f:sub(#dir + 2) .. ": buffers[0].uri: refused: '" .. dir .. "/outside.bin' leaves the model's folder" .. hint)
    f = at_inner("link.bin")
    fails(f, f:sub(#dir + 2) .. ": buffers[0].uri: refused: 'link.bin' leaves the model's folder" .. hint)
    f = at_inner("dirlink/real.bin")
    fails(f, f:sub(#dir + 2) .. ": buffers[0].uri: refused: 'dirlink/real.bin' leaves the model's folder" .. hint)
    f = at_inner("%2E%2E/outside.bin")
    fails(f, f:sub(#dir + 2) .. ": buffers[0].uri: refused: '../outside.bin' leaves the model's folder" .. hint)
    -- inside: a sub-folder, percent-escapes decoded
    assert.is_truthy(import(at_inner("sub/ok.bin")))
    assert.is_truthy(import(at_inner("./sub/%6Fk.bin")))
    -- options.root names a folder that holds them
    for _, uri in ipairs { "../outside.bin", dir .. "/outside.bin", "link.bin", "dirlink/real.bin" } do
      local r, err = import(at_inner(uri), { root = dir })
      assert.is_truthy(r, err)
    end
    f = at_inner("../outside.bin")
    fails(f, f:sub(#dir + 2) .. ": buffers[0].uri: refused: '../outside.bin' leaves the model's folder and options.root",
      { root = dir .. "/inner/sub" })
  end)

  it("JSON nested too deep, and the limits on bytes, keys and joints", function()
    local doc, bin = model()
    doc.extras = {}
    local t = doc.extras
    for _ = 1, 200 do t.x = {}; t = t.x end
    local f = gltf(doc, bin)
    local _, err = import(f)
    assert.matches("^m%d+%.gltf: not valid JSON: nested deeper than 128 levels %(anim%.limits%.depth%)", err)
    -- the JSON and the buffers together
    doc, bin = model()
    doc.buffers[1].uri = "lim.bin"
    H.write(dir .. "/lim.bin", bin)
    f = gltf(doc)
    local size = #H.read(f)
    assert.is_truthy(import(f))
    local old = anim.set_limits { bytes = size + #bin - 1 }
    local r2, err2 = import(f)
    anim.set_limits(old)
    assert.is_nil(r2)
    assert.are.equal("m" .. n .. ".gltf: buffers[0].uri: too large: the file and its buffers would be "
      .. (size + #bin) .. " bytes (at most " .. (size + #bin - 1) .. ", anim.limits.bytes)", err2)
    old = anim.set_limits { keys = 5 }
    r2, err2 = import(gltf(model()))
    anim.set_limits(old)
    assert.is_nil(r2)
    assert.are.equal("m" .. n .. ".gltf: animations[0].samplers[1].input: too many keys: the clip would have 6 (at most 5, anim.limits.keys)", err2)
  end)

  it("skips what it cannot play with a warning: unknown paths, channels without a node, extensions", function()
    local doc, bin = model()
    doc.extensionsUsed = { "KHR_materials_unlit", "KHR_mesh_quantization", "EXT_meshopt_compression" }
    doc.extensionsRequired = { "EXT_meshopt_compression" }
    doc.animations[1].channels[3] = { sampler = 0, target = { path = "pointer", extensions = { KHR_animation_pointer = { pointer = "/x" } } } }
    doc.animations[1].channels[4] = { sampler = 1, target = { path = "scale" } }
    local f = gltf(doc, bin)
    local r = assert(import(f))
    local w = {}
    for i, s in ipairs(r.warnings) do w[i] = s:sub(#dir + 2) end
    local m = f:sub(#dir + 2)
    assert.are.same({
      m .. ": extensionsRequired[0]: extension EXT_meshopt_compression is not supported: ignored (the file requires it: what it changes is not read)",
      m .. ": extensionsUsed[0]: extension KHR_materials_unlit is not supported: ignored",
      m .. ": animations[0].channels[2].target.path: channel skipped: target path 'pointer' is not one the module plays",
      m .. ": animations[0].channels[3].target: channel skipped: it targets no node",
    }, w)
    -- a weights channel is a property, whose output must be SCALAR
    doc.extensionsRequired, doc.extensionsUsed = nil, nil
    doc.animations[1].channels = { { sampler = 0, target = { node = 1, path = "weights" } } }
    local bad, err = import(gltf(doc, bin))
    assert.is_nil(bad)
    assert.truthy(err:find(": accessors%[1%]%.type: the output of a weights channel must be SCALAR, got VEC3$"), err)
  end)

  it("never raises a Lua error on mangled files (a fuzz of bytes and of JSON values)", function()
    local doc, bin = model()
    local bytes = glb_bytes(doc, bin)
    local seed = 12345
    local function rnd(k)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % k
    end
    -- (in memory where there is a tmpfs: a thousand files written to a disk
    -- take seconds on a loaded machine)
    local mk = assert(io.popen("mktemp -d -p /dev/shm 2>/dev/null || mktemp -d"))
    local fdir = mk:read("*l")
    mk:close()
    local f = fdir .. "/fuzz.glb"
    for _ = 1, 1000 do
      local b = { bytes:byte(1, -1) }
      for _ = 1, 1 + rnd(4) do b[1 + rnd(#b)] = rnd(256) end
      local s = string.char(compat.unpack(b))
      if rnd(4) == 0 then s = s:sub(1, rnd(#s)) end
      H.write(f, s)
      local ok, r = pcall(anim.import_gltf, f)
      assert(ok, r)
    end
    -- values of the JSON replaced by values of other types
    local kinds = { 0, -1, 1e300, 0.5, "x", true, cjson.null, {}, { 1, 2 }, { a = 1 } }
    local function paths(t, prefix, out)
      for k, v in pairs(t) do
        out[#out + 1] = { t, k }
        if type(v) == "table" then paths(v, prefix, out) end
      end
      return out
    end
    for i = 1, 1000 do
      local d = model()
      d.buffers[1].uri = "data:application/octet-stream;base64," .. b64(bin)
      local all = paths(d, "", {})
      local p = all[1 + rnd(#all)]
      p[1][p[2]] = kinds[1 + (i + rnd(#kinds)) % #kinds]
      local ok, r = pcall(anim.import_gltf, gltf(d, nil, fdir .. "/fuzz.gltf"))
      assert(ok, r)
    end
    os.execute("rm -rf '" .. fdir .. "'")
  end)
end)
