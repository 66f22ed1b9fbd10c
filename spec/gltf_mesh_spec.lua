-- glTF meshes (issue 39): anim.import_gltf(path, { meshes = true }) gives
-- result.meshes, one entry per primitive of every node with a mesh, its
-- attributes in module buffers (docs/api.md, import_gltf; docs/formats.md,
-- "glTF meshes").  The sample models of ../shared/data/gltf, checked
-- against their bytes read here by hand; small .gltf files built here
-- (JSON with a data: URI buffer) for KHR_mesh_quantization's types,
-- primitives of other modes, and files that break the specification's
-- rules or claim more than their bytes hold.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local core = require "anim.core"
local compat = require "anim.base.compat"
local binary = require "spec.bytes"

local GLTF = H.shared .. "/data/gltf/"
local dir = H.tmpdir()
local nfile = 0

-- Writes doc as a .gltf with bin as buffer 0 in a data: URI; its path.
local function write(doc, bin)
  nfile = nfile + 1
  doc.asset = doc.asset or { version = "2.0" }
  if bin then
    doc.buffers = { { byteLength = #bin, uri = "data:application/octet-stream;base64," .. core.base64_encode(bin) } }
  end
  local file = dir .. "/m" .. nfile .. ".gltf"
  H.write(file, cjson.encode(doc))
  return file
end

local function pack(fmt, list) return binary.pack("<" .. fmt:rep(#list), compat.unpack(list)) end

-- The message after "file: ".
local function refused(file, opts)
  local r, err = anim.import_gltf(file, opts or { meshes = true })
  assert.is_nil(r)
  assert.are.equal(file .. ": ", err:sub(1, #file + 2))
  return err:sub(#file + 3)
end

local function warnings(file, r)
  local out = {}
  for i, w in ipairs(r.warnings) do out[i] = w:sub(#file + 3) end
  return out
end

local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-6) end

-- A one-node, one-mesh document over the accessors and views given.
local function one_mesh(primitives, accessors, views, extra)
  local doc = { nodes = { { name = "n", mesh = 0 } }, meshes = { { name = "m", primitives = primitives } },
    accessors = accessors, bufferViews = views }
  for k, v in pairs(extra or {}) do doc[k] = v end
  return doc
end

-- A triangle: POSITION floats in view 0 (36 bytes).
local TRI = pack("f", { 0, 0, 0, 1, 0, 0, 0, 1, 0 })
local TRI_ACC = { bufferView = 0, componentType = 5126, count = 3, type = "VEC3" }

describe("glTF meshes of the sample models", function()
  local function import(rel)
    local path = GLTF .. rel
    if not io.open(path) then return nil end
    return assert(anim.import_gltf(path, { meshes = true })), path
  end

  it("CesiumMan: every attribute, 0-based joints and indices, weights that sum to 1, its texture's bytes", function()
    local r = import("CesiumMan/glTF-Binary/CesiumMan.glb")
    if not r then return pending("no shared data here") end
    assert.are.equal(1, #r.meshes)
    local m = r.meshes[1]
    assert.are.equal("Cesium_Man", m.node)
    assert.are.equal("meshes[0].primitives[0]", m.path)
    assert.are.equal(3273, m.count)
    assert.are.equal(3 * 3273, #m.positions)
    assert.are.equal(3 * 3273, #m.normals)
    assert.are.equal(2 * 3273, #m.uvs)
    assert.are.equal(4 * 3273, #m.joints)
    assert.are.equal(4 * 3273, #m.weights)
    assert.are.equal(14016, #m.indices)
    for _, k in ipairs { "positions", "normals", "uvs", "joints", "weights" } do assert.are.equal("float", m[k].kind) end
    assert.are.equal("double", m.indices.kind)
    local lo, hi = math.huge, -1
    for k = 1, #m.joints do lo, hi = math.min(lo, m.joints[k]), math.max(hi, m.joints[k]) end
    assert.are.equal(0, lo)
    assert.is_true(hi <= 18) -- 19 joints in the skin
    for v = 0, 3272 do
      local s = m.weights[4 * v + 1] + m.weights[4 * v + 2] + m.weights[4 * v + 3] + m.weights[4 * v + 4]
      assert(near(s, 1, 1e-6), "vertex " .. v .. " weights sum to " .. s)
    end
    lo, hi = math.huge, -1
    for k = 1, #m.indices do lo, hi = math.min(lo, m.indices[k]), math.max(hi, m.indices[k]) end
    assert.are.same({ 0, 3272 }, { lo, hi })
    assert.are.equal(r.rigs.Armature, m.skin)
    -- the node's world matrix: Z_UP's matrix x Armature's (the file's own, composed)
    local want = { 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 }
    for k = 1, 16 do assert(near(m.transform[k], want[k], 1e-7), k .. ": " .. m.transform[k]) end
    assert.are.same({ 1, 1, 1, 1 }, m.material.base_color)
    assert.are.equal("image/jpeg", m.material.texture.mime)
    assert.are.equal("\255\216\255", m.material.texture.bytes:sub(1, 3)) -- a JPEG's start
    assert.is_nil(m.targets)
  end)

  it("Fox: no indices (nil), no normals, a PNG texture; RiggedFigure: a base colour factor, no texture", function()
    local r = import("Fox/glTF-Binary/Fox.glb")
    if not r then return pending("no shared data here") end
    local m = r.meshes[1]
    assert.are.equal("fox", m.node)
    assert.is_nil(m.indices)
    assert.is_nil(m.normals)
    assert.are.equal(1728 * 3, #m.positions)
    assert.are.equal("\137PNG", m.material.texture.bytes:sub(1, 4))
    assert.are.equal("image/png", m.material.texture.mime)
    r = import("RiggedFigure/glTF-Binary/RiggedFigure.glb")
    m = r.meshes[1]
    assert(near(m.material.base_color[1], 0.8))
    assert.are.equal(1, m.material.base_color[4])
    assert.is_nil(m.material.texture)
    assert.is_nil(m.uvs)
  end)

  it("AnimatedMorphCube: each target's position and normal deltas, the mesh's default weights", function()
    local r, path = import("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    if not r then return pending("no shared data here") end
    local gltf = cjson.decode(H.read(path))
    local bin = H.read(GLTF .. "AnimatedMorphCube/glTF/" .. gltf.buffers[1].uri)
    local function floats(i)
      local acc, out = gltf.accessors[i + 1], {}
      local view = gltf.bufferViews[acc.bufferView + 1]
      local at = (view.byteOffset or 0) + (acc.byteOffset or 0) + 1
      for k = 1, acc.count * 3 do out[k], at = binary.unpack("<f", bin, at) end
      return out
    end
    local m = r.meshes[1]
    assert.are.equal(2, #m.targets)
    assert.are.same({ 0, 0 }, m.target_weights)
    for t, target in ipairs(gltf.meshes[1].primitives[1].targets) do
      local pos, nrm = floats(target.POSITION), floats(target.NORMAL)
      assert.are.equal(#pos, #m.targets[t].positions)
      for k = 1, #pos do
        assert.are.equal(pos[k], m.targets[t].positions[k])
        assert.are.equal(nrm[k], m.targets[t].normals[k])
      end
    end
    assert.is_nil(m.skin)
    assert.is_nil(m.joints)
  end)

  it("only when asked: without { meshes = true } there is no result.meshes; a bad option is refused", function()
    local r = assert(anim.import_gltf(write(one_mesh({ { attributes = { POSITION = 0 } } }, { TRI_ACC },
      { { buffer = 0, byteLength = 36 } }), TRI)))
    assert.is_nil(r.meshes)
    local ok, err = pcall(anim.import_gltf, "x.gltf", { meshes = 1 })
    assert.is_false(ok)
    assert.truthy(err:find("option 'meshes' must be a boolean, got number", 1, true), err)
    ok, err = pcall(anim.import_gltf, "x.gltf", { mesh = true })
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #2 to 'import_gltf' (unknown option 'mesh'; did you mean 'meshes'?)", 1, true),
      err)
    ok, err = pcall(anim.import_gltf, "x.gltf", { speed = 1 })
    assert.is_false(ok)
    assert.truthy(err:find("(unknown option 'speed'; expected one of root, loop, meshes)", 1, true), err)
  end)
end)

describe("glTF mesh attributes decoded as the specification says", function()
  it("KHR_mesh_quantization: normalized and plain bytes and shorts for positions, normals and uvs", function()
    -- positions: SHORT normalized (view 0), uvs: UNSIGNED_BYTE normalized (view 1),
    -- normals: BYTE normalized (view 2, padded to 4 bytes an element),
    -- a second primitive's positions: UNSIGNED_SHORT plain, uvs BYTE plain
    local pos = pack("h", { 32767, -32768, 0, -32767, 16384, 1 })
    local uv = pack("B", { 0, 255, 51, 102 })
    local nrm = pack("b", { 127, 0, -128, 0, 0, -127, 64, 0 })
    local pos2 = pack("H", { 0, 1, 65535, 7, 8, 9 })
    local uv2 = pack("b", { -3, 4, 5, -6 })
    local bin = pos .. uv .. nrm .. pos2 .. uv2
    local views = { { buffer = 0, byteLength = 12 }, { buffer = 0, byteOffset = 12, byteLength = 4 },
      { buffer = 0, byteOffset = 16, byteLength = 8, byteStride = 4 }, { buffer = 0, byteOffset = 24, byteLength = 12 },
      { buffer = 0, byteOffset = 36, byteLength = 4 } }
    local accessors = {
      { bufferView = 0, componentType = 5122, normalized = true, count = 2, type = "VEC3" },
      { bufferView = 1, componentType = 5121, normalized = true, count = 2, type = "VEC2" },
      { bufferView = 2, componentType = 5120, normalized = true, count = 2, type = "VEC3" },
      { bufferView = 3, componentType = 5123, count = 2, type = "VEC3" },
      { bufferView = 4, componentType = 5120, count = 2, type = "VEC2" },
    }
    local file = write(one_mesh({ { attributes = { POSITION = 0, TEXCOORD_0 = 1, NORMAL = 2 } },
      { attributes = { POSITION = 3, TEXCOORD_0 = 4 } } }, accessors, views,
      { extensionsUsed = { "KHR_mesh_quantization" }, extensionsRequired = { "KHR_mesh_quantization" } }), bin)
    local r = assert(anim.import_gltf(file, { meshes = true }))
    assert.are.same({}, r.warnings)
    local m = r.meshes[1]
    -- signed: max(c / 32767, -1); unsigned: c / 255 (Specification.adoc, "Animations", the table)
    local want = { 1, -1, 0, -1, 16384 / 32767, 1 / 32767 }
    for k = 1, 6 do assert(near(m.positions[k], want[k], 1e-7), k .. ": " .. m.positions[k]) end
    want = { 0, 1, 51 / 255, 102 / 255 }
    for k = 1, 4 do assert(near(m.uvs[k], want[k], 1e-7), k .. ": " .. m.uvs[k]) end
    want = { 1, 0, -1, 0, -1, 64 / 127 }
    for k = 1, 6 do assert(near(m.normals[k], want[k], 1e-7), k .. ": " .. m.normals[k]) end
    local m2 = r.meshes[2]
    assert.are.same({ 0, 1, 65535, 7, 8, 9 }, { m2.positions[1], m2.positions[2], m2.positions[3], m2.positions[4],
      m2.positions[5], m2.positions[6] })
    assert.are.same({ -3, 4, 5, -6 }, { m2.uvs[1], m2.uvs[2], m2.uvs[3], m2.uvs[4] })
  end)

  it("weights of unsigned bytes normalized, made to sum to 1; a vertex whose weights are all 0 is said", function()
    local bin = TRI .. pack("B", { 255, 0, 0, 0, 100, 100, 0, 0, 0, 0, 0, 0 }) .. pack("B", { 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 })
    local file = write({ nodes = { { name = "n", mesh = 0, skin = 0 }, { name = "j0" }, { name = "j1" } },
      skins = { { joints = { 1, 2 } } },
      meshes = { { primitives = { { attributes = { POSITION = 0, WEIGHTS_0 = 1, JOINTS_0 = 2 } } } } },
      accessors = { TRI_ACC, { bufferView = 1, componentType = 5121, normalized = true, count = 3, type = "VEC4" },
        { bufferView = 2, componentType = 5121, count = 3, type = "VEC4" } },
      bufferViews = { { buffer = 0, byteLength = 36 }, { buffer = 0, byteOffset = 36, byteLength = 12 },
        { buffer = 0, byteOffset = 48, byteLength = 12 } } }, bin)
    local r = assert(anim.import_gltf(file, { meshes = true }))
    local m = r.meshes[1]
    assert.are.same({ 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 0, 0, 0 }, { m.weights[1], m.weights[2], m.weights[3], m.weights[4],
      m.weights[5], m.weights[6], m.weights[7], m.weights[8], m.weights[9], m.weights[10], m.weights[11], m.weights[12] })
    assert.are.same({ "meshes[0].primitives[0].attributes.WEIGHTS_0: 1 vertices have weights that sum to 0 (left at 0)" },
      warnings(file, r))
    assert.are.equal(r.rigs.skin0, m.skin)
    assert.are.equal(1, m.joints[2])
  end)

  it("a primitive of another mode is refused with a warning naming it, the others kept", function()
    local file = write({ nodes = { { name = "a", mesh = 0 }, { name = "b", mesh = 1 } },
      meshes = { { primitives = { { attributes = { POSITION = 0 } } } },
        { primitives = { { attributes = { POSITION = 0 }, mode = 1 }, { attributes = { POSITION = 0 }, mode = 4 },
          { attributes = { POSITION = 0 }, mode = 6 }, { attributes = { NORMAL = 0 } } } } },
      accessors = { TRI_ACC }, bufferViews = { { buffer = 0, byteLength = 36 } } }, TRI)
    local r = assert(anim.import_gltf(file, { meshes = true }))
    assert.are.equal(2, #r.meshes)
    assert.are.same({ "a", "b" }, { r.meshes[1].node, r.meshes[2].node })
    assert.are.equal("meshes[1].primitives[1]", r.meshes[2].path)
    -- (primitives sharing an accessor share its buffer)
    assert.are.equal(r.meshes[1].positions, r.meshes[2].positions)
    assert.are.same({
      "meshes[1].primitives[0]: mode 1 (LINES) is not triangles (4): primitive skipped",
      "meshes[1].primitives[2]: mode 6 (TRIANGLE_FAN) is not triangles (4): primitive skipped",
      "meshes[1].primitives[3].attributes: no POSITION: primitive skipped",
    }, warnings(file, r))
  end)

  it("the node's world matrix composes the parents' matrices (a non-uniform scale under a turn shears)", function()
    local s = math.sqrt(0.5)
    local file = write({ nodes = { { name = "p", children = { 1 }, rotation = { 0, 0, s, s }, scale = { 2, 1, 1 } },
      { name = "c", mesh = 0, rotation = { 0, 0, s, s }, translation = { 1, 0, 0 } } },
      meshes = { { primitives = { { attributes = { POSITION = 0 } } } } },
      accessors = { TRI_ACC }, bufferViews = { { buffer = 0, byteLength = 36 } } }, TRI)
    local m = assert(anim.import_gltf(file, { meshes = true })).meshes[1]
    -- P = R90z * S(2,1,1): columns (0,2,0), (-1,0,0), (0,0,1); C = T(1,0,0) * R90z
    -- P * C: columns P*(0,1,0) = (-1,0,0), P*(-1,0,0) = (0,-2,0), (0,0,1), translation P*(1,0,0) = (0,2,0)
    local want = { -1, 0, 0, 0, 0, -2, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1 }
    for k = 1, 16 do assert(near(m.transform[k], want[k], 1e-12), k .. ": " .. m.transform[k]) end
  end)
end)

describe("glTF meshes that break the rules or claim more than their bytes", function()
  local VIEW = { { buffer = 0, byteLength = 36 } }

  it("attribute counts that differ from POSITION's", function()
    local file = write(one_mesh({ { attributes = { POSITION = 0, NORMAL = 1 } } },
      { TRI_ACC, { bufferView = 0, componentType = 5126, count = 2, type = "VEC3" } }, VIEW), TRI)
    assert.are.equal("meshes[0].primitives[0].attributes.NORMAL: accessors[1] has 2 elements, the primitive's POSITION"
      .. " has 3 (all attributes of a primitive have the same count)", refused(file))
  end)

  it("a count beyond the buffer, as for animations", function()
    local file = write(one_mesh({ { attributes = { POSITION = 0 } } },
      { { bufferView = 0, componentType = 5126, count = 1000000, type = "VEC3" } }, VIEW), TRI)
    assert.are.equal("accessors[0].count: 1000000 elements of 12 bytes from byte 0 of bufferViews[0] need 12000000 bytes,"
      .. " it has 36", refused(file))
    -- without a bufferView: zeros the bytes do not back
    file = write(one_mesh({ { attributes = { POSITION = 0 } } },
      { { componentType = 5126, count = 1000000, type = "VEC3" } }, VIEW), TRI)
    assert.truthy(refused(file):find("^accessors%[0%]%.count: 1000000 elements, of which the file's bytes give 0"))
  end)

  it("an index out of the vertices, a joint out of the skin", function()
    local bin = TRI .. pack("H", { 0, 1, 3, 0 })
    local file = write(one_mesh({ { attributes = { POSITION = 0 }, indices = 1 } },
      { TRI_ACC, { bufferView = 1, componentType = 5123, count = 3, type = "SCALAR" } },
      { { buffer = 0, byteLength = 36 }, { buffer = 0, byteOffset = 36, byteLength = 8 } }), bin)
    assert.are.equal("meshes[0].primitives[0].indices: element 2 holds 3: out of range of the 3 vertices of the primitive",
      refused(file))
    bin = TRI .. pack("B", { 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0 })
    file = write({ nodes = { { name = "n", mesh = 0, skin = 0 }, { name = "j0" }, { name = "j1" } },
      skins = { { joints = { 1, 2 } } }, meshes = { { primitives = { { attributes = { POSITION = 0, JOINTS_0 = 1 } } } } },
      accessors = { TRI_ACC, { bufferView = 1, componentType = 5121, count = 3, type = "VEC4" } },
      bufferViews = { { buffer = 0, byteLength = 36 }, { buffer = 0, byteOffset = 36, byteLength = 12 } } }, bin)
    assert.are.equal("meshes[0].primitives[0].attributes.JOINTS_0: element 2 holds 2: out of range of the 2 joints of"
      .. " skins[0]", refused(file))
  end)

  it("an accessor of a type or component type the attribute cannot have", function()
    local file = write(one_mesh({ { attributes = { POSITION = 0 } } },
      { { bufferView = 0, componentType = 5126, count = 4, type = "VEC2" } }, VIEW), TRI)
    assert.are.equal("meshes[0].primitives[0].attributes.POSITION: accessors[0] is VEC2, POSITION must be VEC3",
      refused(file))
    file = write(one_mesh({ { attributes = { POSITION = 0, NORMAL = 1 } } },
      { TRI_ACC, { bufferView = 0, componentType = 5122, count = 3, type = "VEC3" } }, VIEW), TRI)
    assert.are.equal("meshes[0].primitives[0].attributes.NORMAL: accessors[1] has componentType 5122 (SHORT), which"
      .. " NORMAL cannot have", refused(file))
    file = write(one_mesh({ { attributes = { POSITION = 0 }, indices = 1 } },
      { TRI_ACC, { bufferView = 0, componentType = 5126, count = 3, type = "SCALAR" } }, VIEW), TRI)
    assert.are.equal("meshes[0].primitives[0].indices: accessors[1] has componentType 5126 (FLOAT), which indices"
      .. " cannot have", refused(file))
  end)

  it("morph target weights that do not match the targets; a texture path that leaves the folder", function()
    local file = write(one_mesh({ { attributes = { POSITION = 0 }, targets = { { POSITION = 0 } } } }, { TRI_ACC }, VIEW,
      { meshes = { { weights = { 0.5, 0.5 }, primitives = { { attributes = { POSITION = 0 }, targets = { { POSITION = 0 } } } } } } }), TRI)
    assert.are.equal("meshes[0].weights: 2 weights for 1 morph targets", refused(file))
    file = write(one_mesh({ { attributes = { POSITION = 0 }, material = 0 } }, { TRI_ACC }, VIEW,
      { materials = { { pbrMetallicRoughness = { baseColorTexture = { index = 0 } } } }, textures = { { source = 0 } },
        images = { { uri = "../../etc/passwd.png" } } }), TRI)
    local r = assert(anim.import_gltf(file, { meshes = true }))
    assert.is_nil(r.meshes[1].material.texture)
    assert.are.same({ "images[0].uri: the path '../../etc/passwd.png' leaves the model's folder: texture left out" },
      warnings(file, r))
    file = write(one_mesh({ { attributes = { POSITION = 0 }, material = 0 } }, { TRI_ACC }, VIEW,
      { materials = { { pbrMetallicRoughness = { baseColorTexture = { index = 0 } } } }, textures = { { source = 0 } },
        images = { { uri = "tex%20ture.png" } } }), TRI)
    r = assert(anim.import_gltf(file, { meshes = true }))
    assert.are.same({ path = dir .. "/tex ture.png" }, r.meshes[1].material.texture)
  end)

  it("a small file whose accessors overlap: the meshes' numbers are bounded by anim.limits.bytes", function()
    -- 100 accessors over one view of 3,000 bytes, each 1,000 UNSIGNED_BYTE
    -- VEC3 positions, one primitive each: 300,000 numbers from a 5 KB file
    local accessors, prims = {}, {}
    for i = 1, 100 do
      accessors[i] = { bufferView = 0, componentType = 5121, count = 1000, type = "VEC3" }
      prims[i] = { attributes = { POSITION = i - 1 } }
    end
    local file = write(one_mesh(prims, accessors, { { buffer = 0, byteLength = 3000 } }), ("\1"):rep(3000))
    local err
    H.with_limits({ bytes = 100000 }, function() err = refused(file) end)
    assert.are.equal("meshes[0].primitives[33].attributes.POSITION: too much mesh data: the meshes' buffers would hold"
      .. " 102000 numbers (at most 100000, anim.limits.bytes)", err)
    local r = assert(anim.import_gltf(file, { meshes = true }))
    assert.are.equal(100, #r.meshes)
  end)
end)
