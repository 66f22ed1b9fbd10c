-- anim.decode_gltf(bytes [, name [, options]]): anim.import_gltf from the
-- asset's bytes, for a game that reads its files through love.filesystem
-- (a fused .love archive has no paths io.open can open).  Every sample
-- model of ../shared/data/gltf (.glb, .gltf with data: URIs, .gltf with its
-- buffers in files read by options.read) gives what import_gltf gives of
-- its file; the buffers' files are read only through options.read, and
-- what it gives back is checked and counted in anim.limits.bytes.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local GLTF = H.shared .. "/data/gltf/"

-- Every model file of the samples: { path, folder }.
local function models()
  local out = {}
  for _, m in ipairs(H.ls(GLTF, "^[%w]+$")) do
    for _, sub in ipairs { "", "/glTF", "/glTF-Binary", "/glTF-Embedded" } do
      local d = GLTF .. m .. sub
      for _, f in ipairs(H.ls(d, "%.gl[tb]f?$")) do out[#out + 1] = { d .. "/" .. f, d } end
    end
  end
  table.sort(out, function(a, b) return a[1] < b[1] end)
  return out
end

-- A read function for the folder d, which counts its calls and what it was asked.
local function reader(d)
  local asked = {}
  return function(uri)
    asked[#asked + 1] = uri
    local f = io.open(d .. "/" .. uri, "rb")
    if not f then return nil, "no file " .. uri end
    local t = f:read("*a")
    f:close()
    return t
  end, asked
end

-- The joints of a rig as tables, for comparison.
local function joints(rig) return rig and rig:joints() end

-- a and b (import_gltf's and decode_gltf's results) hold the same clips,
-- rigs, warnings and (when asked) meshes.
local function same_result(a, b, what)
  local names = {}
  for n in pairs(a.clips) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    assert(b.clips[n], what .. ": clip " .. n .. " missing")
    assert.are.same(anim.table(a.clips[n]), anim.table(b.clips[n]), what .. ": clip " .. n)
  end
  for n in pairs(b.clips) do assert(a.clips[n], what .. ": clip " .. n .. " more") end
  for n, r in pairs(a.rigs) do assert.are.same(joints(r), joints(b.rigs[n]), what .. ": rig " .. n) end
  for n in pairs(b.rigs) do assert(a.rigs[n], what .. ": rig " .. n .. " more") end
  assert.are.same(joints(a.rig), joints(b.rig), what .. ": rig")
  assert.are.same(joints(a.scene), joints(b.scene), what .. ": scene")
  assert.are.same(a.warnings, b.warnings, what .. ": warnings")
  assert.are.equal(a.meshes == nil, b.meshes == nil, what .. ": meshes")
  for i, m in ipairs(a.meshes or {}) do
    local o = b.meshes[i]
    for _, k in ipairs { "node", "path", "count" } do assert.are.equal(m[k], o[k], what .. ": mesh " .. i .. " " .. k) end
    assert.are.same(m.transform, o.transform)
    assert.are.same(m.material.base_color, o.material.base_color)
    assert.are.same(m.material.texture, o.material.texture)
    assert.are.same(joints(m.skin), joints(o.skin))
    for _, k in ipairs { "positions", "normals", "uvs", "joints", "weights", "indices" } do
      local x, y = m[k], o[k]
      assert.are.equal(x == nil, y == nil, what .. ": mesh " .. i .. " " .. k)
      if x then
        assert.are.equal(#x, #y)
        for e = 1, #x do
          if x[e] ~= y[e] then error(string.format("%s: mesh %d %s[%d]: %s ~= %s", what, i, k, e, x[e], y[e])) end
        end
      end
    end
  end
end

describe("anim.decode_gltf", function()
  local list = models()

  it("reads every sample model's bytes as import_gltf reads its file (meshes too), its buffers' files by options.read",
    function()
      if #list == 0 then return pending("no shared data here") end
      local external = 0
      for _, m in ipairs(list) do
        local path, d = m[1], m[2]
        for _, meshes in ipairs { false, true } do
          local want = assert(anim.import_gltf(path, { meshes = meshes }))
          local read, asked = reader(d)
          local got = assert(anim.decode_gltf(H.read(path), path, { read = read, meshes = meshes }))
          same_result(want, got, path)
          if meshes and #asked > 0 then external = external + 1 end
        end
      end
      -- (some samples keep their buffers in files: RiggedSimple, AnimatedCube...)
      assert.is_true(external >= 3, external .. " samples read buffers through options.read")
    end)

  it("reads a .glb and data: URIs without options.read, and names the file a buffer needs without it", function()
    local fox = GLTF .. "Fox/glTF-Binary/Fox.glb"
    if not io.open(fox) then return pending("no shared data here") end
    local a = assert(anim.decode_gltf(H.read(fox)))
    assert.are.same(anim.table(assert(anim.import_gltf(fox)).clips.Run), anim.table(a.clips.Run))
    assert(anim.decode_gltf(H.read(GLTF .. "SimpleSkin/glTF-Embedded/SimpleSkin.gltf"), "skin.gltf"))
    local r, err = anim.decode_gltf(H.read(GLTF .. "RiggedSimple/glTF/RiggedSimple.gltf"), "models/rigged.gltf")
    assert.is_nil(r)
    assert.are.equal("models/rigged.gltf: buffers[0].uri: the buffer is the file 'RiggedSimple0.bin': "
      .. "anim.decode_gltf reads no file itself (options.read can)", err)
    -- (no name: "gltf")
    err = select(2, anim.decode_gltf("{"))
    assert.truthy(err:find("^gltf: "), err)
  end)

  it("passes options.read the uri percent-decoded, and refuses what it gives back that is not bytes", function()
    local doc = '{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"my%20data.bin"}],'
      .. '"bufferViews":[{"buffer":0,"byteLength":4}],"accessors":[{"bufferView":0,"componentType":5126,"count":1,'
      .. '"type":"SCALAR"}],"nodes":[{"name":"n"}],"animations":[{"channels":[{"sampler":0,"target":{"node":0,'
      .. '"path":"weights"}}],"samplers":[{"input":0,"output":0}]}]}'
    local asked
    local ok = anim.decode_gltf(doc, "a.gltf", { read = function(u) asked = u; return "\0\0\0\0" end })
    assert.is_table(ok)
    assert.are.equal("my data.bin", asked)
    local _, err = anim.decode_gltf(doc, "a.gltf", { read = function() return nil, "not in the archive" end })
    assert.are.equal("a.gltf: buffers[0].uri: cannot read 'my data.bin': not in the archive", err)
    _, err = anim.decode_gltf(doc, "a.gltf", { read = function() return nil end })
    assert.are.equal("a.gltf: buffers[0].uri: cannot read 'my data.bin': options.read gave nil", err)
    _, err = anim.decode_gltf(doc, "a.gltf", { read = function() return {} end })
    assert.are.equal("a.gltf: buffers[0].uri: options.read must give the bytes of 'my data.bin' as a string, got empty table",
      err)
    -- (what it gives counts in anim.limits.bytes with the document's)
    local old = anim.set_limits { bytes = #doc + 100 }
    _, err = anim.decode_gltf(doc, "a.gltf", { read = function() return ("\0"):rep(200) end })
    anim.set_limits(old)
    assert.truthy(err and err:find("^a%.gltf: buffers%[0%]%.uri: too large: "), err)
    -- (a uri of a scheme is refused before any read)
    local web = doc:gsub("my%%20data%.bin", "https://example.com/x.bin")
    _, err = anim.decode_gltf(web, "a.gltf", { read = function() error("read") end })
    assert.are.equal("a.gltf: buffers[0].uri: refused: only relative paths and data: URIs are read, not a 'https:' URI",
      err)
  end)

  it("checks its arguments and options, naming import_gltf's root as having no use here", function()
    local function refused(...)
      local ok, e = pcall(anim.decode_gltf, ...)
      assert.is_false(ok)
      return e
    end
    assert.truthy(refused(1):find("bad argument #1 to 'decode_gltf' (string expected, got number)", 1, true))
    assert.truthy(refused("{}", {}):find("bad argument #2 to 'decode_gltf' (string expected, got table)", 1, true))
    assert.truthy(refused("{}", "x", 1):find("bad argument #3 to 'decode_gltf' (table expected, got number)", 1, true))
    local e = refused("{}", "x", { raed = print })
    assert.truthy(e:find("bad argument #3 to 'decode_gltf' (unknown option 'raed'; did you mean 'read'?)", 1, true), e)
    e = refused("{}", "x", { root = "." })
    assert.truthy(e:find("option 'root' is import_gltf's: the bytes have no folder (options.read reads the files "
      .. "the buffers name)", 1, true), e)
    e = refused("{}", "x", { read = "f" })
    assert.truthy(e:find("bad argument #3 to 'decode_gltf' (option 'read' must be a function, got string)", 1, true), e)
    e = refused("{}", "x", { meshes = 1 })
    assert.truthy(e:find("bad argument #3 to 'decode_gltf' (option 'meshes' must be a boolean, got number)", 1, true), e)
    e = refused("{}", "x", { loop = "twice" })
    assert.truthy(e:find("bad argument #3 to 'decode_gltf' (option 'loop' must be once, loop, hold or pingpong, "
      .. "got 'twice')", 1, true), e)
  end)
end)
