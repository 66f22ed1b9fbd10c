-- anim.skin_vertices (issue 39): linear blend skinning on the CPU.  First
-- its contract on two vertices: layouts, out, normals, and each error's
-- message.  Then against three.js: for CesiumMan, Fox and RiggedFigure
-- (the glTF sample models, ../shared/data/gltf, their .glb), each clip at
-- 5 times: the clip plays on an animator of the skin's rig
-- (anim.import_gltf's), the joints' matrices are world(joint) x
-- inverseBind(joint) (glTF 2.0, "Skins"), the world matrices composed here
-- in Lua as 4x4 matrices from the animator's local transforms, parent
-- first, the inverse binds read from the file; anim.skin_vertices skins
-- the imported mesh, and every vertex three.js sampled
-- (tools/skin-reference: mesh.matrixWorld * SkinnedMesh.getVertexPosition,
-- world space, spec/data/skinned_*_three.json) is within 1e-4 of the
-- model's size (its bind box diagonal).
local anim = require "anim"

-- Two vertices, two joints: the identity and a quarter turn about z then
-- 10 along x (mat3x4 and mat4 of each).
local function two()
  local m = { positions = anim.buffer(6), joints = anim.buffer(8), weights = anim.buffer(8), normals = anim.buffer(6) }
  local p = { 1, 0, 0, 2, 3, 0 }
  local n = { 1, 0, 0, 0, 1, 0 }
  local j = { 0, 0, 0, 0, 0, 1, 0, 0 }
  local w = { 1, 0, 0, 0, 0.5, 0.5, 0, 0 }
  for k = 1, 6 do m.positions[k], m.normals[k] = p[k], n[k] end
  for k = 1, 8 do m.joints[k], m.weights[k] = j[k], w[k] end
  return m
end
local M34 = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1, 10, 0, 0 }
local M4 = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1 }

local function list(b)
  local t = {}
  for k = 1, #b do t[k] = b[k] end
  return t
end

local function err(fn)
  local ok, msg = pcall(fn)
  assert.is_false(ok)
  return tostring(msg)
end

describe("anim.skin_vertices", function()
  it("sums each vertex's weighted joint matrices times [p, 1]: mat3x4 by default, mat4 when asked", function()
    local m = two()
    local want = { 1, 0, 0, 4.5, 2.5, 0 }
    assert.are.same(want, list(anim.skin_vertices(m, M34)))
    assert.are.same(want, list(anim.skin_vertices(m, M4, nil, { layout = "mat4" })))
    assert.are.same(want, list(anim.skin_vertices(m, M34, nil, { layout = "mat3x4" })))
    -- the matrices in a module buffer, float or double
    for _, kind in ipairs { "float", "double" } do
      local b = anim.buffer(#M34, kind)
      for k = 1, #M34 do b[k] = M34[k] end
      assert.are.same(want, list(anim.skin_vertices(m, b)))
    end
  end)

  it("writes into out when given (float or double, at least 3 numbers a vertex) and returns it", function()
    local m = two()
    local out = anim.buffer(7, "double")
    out[7] = 42
    assert.are.equal(out, anim.skin_vertices(m, M34, out))
    assert.are.same({ 1, 0, 0, 4.5, 2.5, 0, 42 }, list(out))
    assert.are.equal("float", anim.skin_vertices(m, M34).kind)
  end)

  it("skins normals with the matrices' 3x3 part, made unit, when options.normals asks", function()
    local m = two()
    local p, n = anim.skin_vertices(m, M34, nil, { normals = true })
    assert.are.same({ 1, 0, 0, 4.5, 2.5, 0 }, list(p))
    local s = math.sqrt(0.5)
    local want = { 1, 0, 0, -s, s, 0 }
    for k = 1, 6 do assert(math.abs(n[k] - want[k]) < 1e-7, k .. ": " .. n[k]) end
    local into = anim.buffer(6)
    local _, n2 = anim.skin_vertices(m, M34, nil, { normals = into })
    assert.are.equal(into, n2)
    assert.is_nil(select(2, anim.skin_vertices(m, M34)))
  end)

  it("refuses what does not fit, naming the field and the numbers", function()
    local m = two()
    assert.truthy(err(function() anim.skin_vertices(nil, M34) end):find("table expected, got nil", 1, true))
    assert.truthy(err(function() anim.skin_vertices({ joints = m.joints, weights = m.weights }, M34) end)
      :find("bad argument #1 to 'skin_vertices' (mesh.positions must be an anim.buffer, got nil)", 1, true))
    assert.truthy(err(function() anim.skin_vertices({ positions = anim.buffer(5), joints = m.joints, weights = m.weights }, M34) end)
      :find("#mesh.positions is 5, not a whole number of vertices (3 numbers each)", 1, true))
    assert.truthy(err(function() anim.skin_vertices({ positions = m.positions, joints = anim.buffer(4), weights = m.weights }, M34) end)
      :find("#mesh.joints is 4, the 2 vertices of mesh.positions need 8 (4 a vertex)", 1, true))
    assert.truthy(err(function() anim.skin_vertices({ positions = m.positions, joints = m.joints, weights = {} }, M34) end)
      :find("mesh.weights must be an anim.buffer, got table", 1, true))
    assert.truthy(err(function() anim.skin_vertices({ positions = m.positions, joints = m.joints, weights = m.weights }, M34,
      nil, { normals = true }) end):find("mesh.normals must be an anim.buffer, got nil", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, { 1, 2, 3 }) end)
      :find("bad argument #2 to 'skin_vertices' (3 numbers are not a whole number of mat3x4 matrices (12 numbers each))", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, nil, { layout = "mat4" }) end)
      :find("24 numbers are not a whole number of mat4 matrices (16 numbers each)", 1, true))
    local bad = {}
    for k = 1, #M34 do bad[k] = M34[k] end
    bad[5] = "1"
    assert.truthy(err(function() anim.skin_vertices(m, bad) end):find("matrices[5] must be a number, got string", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, "M") end)
      :find("anim.buffer or table of numbers expected, got string", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, anim.buffer(5)) end)
      :find("bad argument #3 to 'skin_vertices' (out holds 5 numbers, the 2 vertices need 6 (3 a vertex))", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, {}) end):find("out must be an anim.buffer, got table", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, nil, { layout = "mat44" }) end)
      :find("bad argument #4 to 'skin_vertices' (unknown layout 'mat44'; did you mean 'mat4'?)", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, nil, { normals = 1 }) end)
      :find("option 'normals' must be true or an anim.buffer, got number", 1, true))
    assert.truthy(err(function() anim.skin_vertices(m, M34, nil, { normals = anim.buffer(2) }) end)
      :find("options.normals holds 2 numbers, the 2 vertices need 6 (3 a vertex)", 1, true))
  end)

  it("refuses a joint index out of range of the matrices or not an integer, before writing anything", function()
    local m = two()
    local out = anim.buffer(6)
    out[1] = 7
    m.joints[6] = 2
    assert.truthy(err(function() anim.skin_vertices(m, M34, out) end)
      :find("bad argument #1 to 'skin_vertices' (mesh.joints[6] (vertex 1) is 2: not a joint of the 2 matrices (0..1))", 1, true))
    assert.are.equal(7, out[1])
    m.joints[6] = 0.5
    assert.truthy(err(function() anim.skin_vertices(m, M34) end):find("mesh.joints[6] (vertex 1) is 0.5: not a joint", 1, true))
    m.joints[6] = -1
    assert.truthy(err(function() anim.skin_vertices(m, M34) end):find("is -1: not a joint", 1, true))
    -- (a joint of weight 0 is checked all the same: the specification's joints are all valid)
    m.joints[6], m.joints[8] = 1, 9
    assert.truthy(err(function() anim.skin_vertices(m, M34) end):find("mesh.joints[8] (vertex 1) is 9", 1, true))
  end)
end)

-- Against three.js ------------------------------------------------------------------------

local H = require "spec.helper"
local cjson = require "cjson"
local F = require "anim.import.gltf.file"
local A = require "anim.import.gltf.accessor"

local GLTF = H.shared .. "/data/gltf/"

-- 4x4 column-major product
local function mul(a, b)
  local r = {}
  for c = 0, 3 do
    for row = 1, 4 do
      r[c * 4 + row] = a[row] * b[c * 4 + 1] + a[4 + row] * b[c * 4 + 2] + a[8 + row] * b[c * 4 + 3]
        + a[12 + row] * b[c * 4 + 4]
    end
  end
  return r
end

-- T * R * S of ten numbers (position, quaternion, scale)
local function trs(px, py, pz, x, y, z, w, sx, sy, sz)
  local xx, yy, zz, xy, xz, yz, wx, wy, wz = x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z
  return {
    (1 - 2 * (yy + zz)) * sx, 2 * (xy + wz) * sx, 2 * (xz - wy) * sx, 0,
    2 * (xy - wz) * sy, (1 - 2 * (xx + zz)) * sy, 2 * (yz + wx) * sy, 0,
    2 * (xz + wy) * sz, 2 * (yz - wx) * sz, (1 - 2 * (xx + yy)) * sz, 0,
    px, py, pz, 1 }
end

-- The skin's joints (node names, in the skin's order) and inverse binds
-- (16 numbers each), read from the file with the importer's own readers.
local function skin_of(path, si)
  local ctx = F.open(path)
  local skin = ctx.doc.skins[si + 1]
  local names, ibm = {}, {}
  local vals = A.read(ctx, skin.inverseBindMatrices).values
  for k, node in ipairs(skin.joints) do
    names[k] = ctx.doc.nodes[node + 1].name
    local m = {}
    for c = 1, 16 do m[c] = vals[(k - 1) * 16 + c] end
    ibm[k] = m
  end
  return names, ibm
end

-- The joints' matrices (mat3x4, 12 numbers a joint, in the skin's order)
-- of the animator's pose.
local function matrices(animator, rig, names, ibm)
  local world, out = {}, {}
  for _, j in ipairs(rig:joints()) do
    local m = trs(animator:local_transform(j.name))
    world[j.name] = j.parent and mul(world[j.parent], m) or m
  end
  for k, name in ipairs(names) do
    local m = mul(world[name], ibm[k])
    for c = 0, 3 do
      for r = 1, 3 do out[#out + 1] = m[c * 4 + r] end
    end
  end
  return out
end

local MODELS = {
  { "CesiumMan/glTF-Binary/CesiumMan.glb", "skinned_cesium_man_three.json" },
  { "Fox/glTF-Binary/Fox.glb", "skinned_fox_three.json" },
  { "RiggedFigure/glTF-Binary/RiggedFigure.glb", "skinned_rigged_figure_three.json" },
}

describe("anim.skin_vertices against three.js", function()
  for _, model in ipairs(MODELS) do
    local path = GLTF .. model[1]
    local have = io.open(path)
    if not have then
      it(model[1], function() pending("no shared data here") end)
    else
      have:close()
      it(model[1] .. ": every clip at 5 times, within 1e-4 of the model's size", function()
        local ref = cjson.decode(H.read(H.root .. "/spec/data/" .. model[2]))
        local res = assert(anim.import_gltf(path, { meshes = true }))
        assert.are.equal(1, #res.meshes)
        local mesh = res.meshes[1]
        assert.are.equal(ref.meshes[1].count, mesh.count)
        local rig = mesh.skin
        local names, ibm = skin_of(path, 0)
        local tol = 1e-4 * ref.bind_box_diagonal
        local out = anim.buffer(#mesh.positions)
        local checked, worst = 0, 0
        local doc = F.open(path).doc
        for _, rc in ipairs(ref.clips) do
          -- (by the file's index: three.js names an unnamed animation animation_<i>, the importer animation<i>)
          local clip = res.clips[doc.animations[rc.index + 1].name or string.format("animation%d", rc.index)]
          assert(clip, "no clip " .. rc.index)
          for _, s in ipairs(rc.samples) do
            local a = anim.animator(rig)
            a:play(clip, { fade = 0 })
            a:update(s.time)
            local got = anim.skin_vertices(mesh, matrices(a, rig, names, ibm), out)
            assert.are.equal(out, got)
            local want = s.positions[1]
            for k = 0, #want / 3 - 1 do
              local v = k * ref.every
              for c = 1, 3 do
                local d = math.abs(got[3 * v + c] - want[3 * k + c])
                if d > worst then worst = d end
                assert(d <= tol, string.format("%s, clip %s at %.4f s, vertex %d, %s: %.9g, three.js %.9g (tolerance %.3g)",
                  model[1], rc.name, s.time, v, ("xyz"):sub(c, c), got[3 * v + c], want[3 * k + c], tol))
              end
              checked = checked + 1
            end
          end
        end
        assert.is_true(checked >= 5 * 100, tostring(checked))
      end)
    end
  end
end)
