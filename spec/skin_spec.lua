-- animator:skin (issue 39): skinning matrices, world(joint) x
-- inverse_bind(joint) with an optional root in front, checked against
-- matrices composed here in Lua from the animator's local transforms (4x4
-- products, parent first); the layouts, offsets and targets; the bounds
-- and the options refused with their messages; anim.rig's inverse_binds
-- and the glTF rigs' own.
local anim = require "anim"
local H = require "spec.helper"
local gltf_file = require "anim.import.gltf.file"
local compat = require "anim.base.compat"
local raises_here = H.raises_here
local binary = require "spec.bytes"
-- x rounded to a 32-bit float
local function f32(x) return (binary.unpack("<f", binary.pack("<f", x))) end

-- 4x4 column-major helpers -----------------------------------------------------------

local function mul(a, b)
  local c = {}
  for j = 0, 3 do
    for r = 0, 3 do
      local s = 0
      for k = 0, 3 do s = s + a[4 * k + r + 1] * b[4 * j + k + 1] end
      c[4 * j + r + 1] = s
    end
  end
  return c
end

-- T x R x S from a position, a quaternion (x, y, z, w) and a scale.
local function trs(p, q, s)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local R = {
    1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
    2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
    2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) }
  local m = {}
  for c = 0, 2 do
    for r = 0, 2 do m[4 * c + r + 1] = R[3 * c + r + 1] * s[c + 1] end
    m[4 * c + 4] = 0
  end
  m[13], m[14], m[15], m[16] = p[1], p[2], p[3], 1
  return m
end

-- The world matrices of an animator's pose, joint by joint (rig order).
local function worlds(a, rig)
  local joints, idx, out = rig:joints(), {}, {}
  for i, j in ipairs(joints) do
    idx[j.name] = i
    local v = { a:local_transform(i) }
    local m = trs({ v[1], v[2], v[3] }, { v[4], v[5], v[6], v[7] }, { v[8], v[9], v[10] })
    out[i] = j.parent and mul(out[idx[j.parent]], m) or m
  end
  return out
end

local function translation(x, y, z) return { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1 } end

-- the numbers of a matrix a layout writes
local function laid(m, layout)
  if layout == "mat4" then return m end
  local out = {}
  for e = 1, 16 do if e % 4 ~= 0 then out[#out + 1] = m[e] end end
  return out
end

local function near_list(got, from, want, tol, what)
  for e = 1, #want do
    local g = got[from + e]
    if not (math.abs(g - want[e]) <= tol * (1 + math.abs(want[e]))) then -- luacheck: ignore 581 (nan fails)
      error(string.format("%s: element %d is %.17g, expected %.17g", what, e, g, want[e]), 2)
    end
  end
end

-- A rig with a non-uniform scale above a turned joint (a shear the TRS
-- triples of world_transform cannot hold), its joints given child first.
local IB = {
  translation(0, -1, 0),
  { 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0.5, 0.25, -2, 1 },
  translation(-1, -2, -3),
}
local function shear_rig(ibm)
  return assert(anim.rig {
    joints = {
      { name = "hand", parent = "arm", translation = { 0.5, 0, 0.25 }, scale = { 1, 3, 1 }, rotation = { 0, 0, 0, 1 } },
      { name = "arm", parent = "root", translation = { 0, 1, 0 }, rotation = { 0, 0, 0.4226182617, 0.906307787 } },
      { name = "root", translation = { 1, 2, 3 }, scale = { 2, 1, 0.5 }, rotation = { 0.2588190451, 0, 0, 0.9659258263 } },
    },
    inverse_binds = ibm,
  })
end
local function turning_clip()
  return assert(anim.clip { length = 1, loop = "loop", joints = {
    arm = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 30, 60, 90 } } } },
    hand = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, -1, 2 } } } },
  } })
end

-- the expected matrices of every joint (rig order), inverse binds by name
local function expected(a, rig, ibm_by_name, root)
  local w, out = worlds(a, rig), {}
  for i, j in ipairs(rig:joints()) do
    local m = mul(w[i], ibm_by_name[j.name] or translation(0, 0, 0))
    out[i] = root and mul(root, m) or m
  end
  return out
end

describe("animator:skin", function()
  local rig = shear_rig(IB)
  local by_name = { hand = IB[1], arm = IB[2], root = IB[3] }
  local a = anim.animator(rig)
  a:play(turning_clip())
  a:update(0.4)
  local ROOT = { 0, 0, -2, 0, 0, 3, 0, 0, 1, 0, 0, 0, 5, 6, 7, 1 }

  it("writes world x inverse bind per joint in the rig's joint order (mat3x4, a table)", function()
    local out = {}
    assert.are.equal(36, a:skin(out))
    assert.are.equal(36, #out)
    for i, m in ipairs(expected(a, rig, by_name)) do near_list(out, 12 * (i - 1), laid(m, "mat3x4"), 1e-12, "joint " .. i) end
  end)

  it("composes matrices: a non-uniform scale above a turned joint shears it (not world_transform's TRS)", function()
    local out = {}
    a:skin(out, { layout = "mat4" })
    -- the hand's world matrix from world_transform's ten numbers differs
    local v = { a:world_transform("hand") }
    local w = worlds(a, rig)[3]
    local from_trs = trs({ v[1], v[2], v[3] }, { v[4], v[5], v[6], v[7] }, { v[8], v[9], v[10] })
    local differs = 0
    for e = 1, 16 do differs = math.max(differs, math.abs(from_trs[e] - w[e])) end
    assert.is_true(differs > 0.01)
    near_list(out, 32, mul(w, IB[1]), 1e-12, "hand")
  end)

  it("puts a root matrix in front, in both layouts, from an offset", function()
    for _, layout in ipairs { "mat3x4", "mat4" } do
      local out, size = { "keep", "keep", "keep" }, layout == "mat4" and 16 or 12
      assert.are.equal(3 * size, a:skin(out, { layout = layout, offset = 3, root = ROOT }))
      assert.are.same({ "keep", "keep", "keep" }, { out[1], out[2], out[3] })
      assert.are.equal(3 + 3 * size, #out)
      for i, m in ipairs(expected(a, rig, by_name, ROOT)) do
        near_list(out, 3 + size * (i - 1), laid(m, layout), 1e-12, layout .. " joint " .. i)
      end
    end
  end)

  it("without inverse binds writes the world matrices", function()
    local plain = shear_rig(nil)
    local b = anim.animator(plain)
    b:play(turning_clip())
    b:update(0.4)
    local out = {}
    b:skin(out, { layout = "mat4" })
    for i, m in ipairs(worlds(b, plain)) do near_list(out, 16 * (i - 1), m, 1e-12, "joint " .. i) end
  end)

  it("refuses misspelt options, layouts and bad roots and offsets, naming them", function()
    local out = {}
    raises_here(function() a:skin(out, { layuot = "mat4" }) end,
      "bad argument #2 to 'skin' (unknown option 'layuot'; did you mean 'layout'?)")
    raises_here(function() a:skin(out, { layout = "mat44" }) end,
      "bad argument #2 to 'skin' (layout must be \"mat3x4\" or \"mat4\", got 'mat44'; did you mean 'mat4'?)")
    raises_here(function() a:skin(out, { layout = 4 }) end,
      "bad argument #2 to 'skin' (layout must be \"mat3x4\" or \"mat4\", got number)")
    raises_here(function() a:skin(out, { offset = -1 }) end,
      "bad argument #2 to 'skin' (offset must be an integer >= 0, got -1)")
    raises_here(function() a:skin(out, { offset = 1.5 }) end,
      "bad argument #2 to 'skin' (offset must be an integer >= 0, got 1.5)")
    raises_here(function() a:skin(out, { root = { 1, 2 } }) end,
      "bad argument #2 to 'skin' (root must be a table of 16 numbers (a column-major 4x4), got a table of 2)")
    local bad = translation(0, 0, 0)
    bad[7] = 0 / 0
    raises_here(function() a:skin(out, { root = bad }) end,
      "bad argument #2 to 'skin' (root[7] must be a finite number, got nan)")
    raises_here(function() a:skin(out, 5) end, "bad argument #2 to 'skin' (table of options expected, got number)")
    raises_here(function() a:skin(42) end, "bad argument #1 to 'skin' (a module buffer, an object with"
      .. " getPointer and getSize (a ByteData) or a table expected, got number)")
  end)

  it("refuses an object whose getPointer or getSize gives nonsense", function()
    local fake = { getPointer = function() return 5 end, getSize = function() return 1000 end }
    raises_here(function() a:skin(fake) end,
      "bad argument #1 to 'skin' (getPointer() must give a pointer (a light userdata), got number)")
    fake.getPointer = function() return io.stdout end
    fake.getSize = function() return -4 end
    raises_here(function() a:skin(fake) end,
      "bad argument #1 to 'skin' (getSize() must give a size in bytes (an integer >= 0), got -4)")
    -- too small: refused before anything is written (io.stdout's block is
    -- only a pointer here: nothing may be written into it)
    fake.getSize = function() return 143 end
    raises_here(function() a:skin(fake) end,
      "bad argument #1 to 'skin' (too small: 144 bytes needed (36 floats from float 0), it holds 140)")
    fake.getSize = function() return 144 end
    raises_here(function() a:skin(fake, { offset = 1 }) end,
      "bad argument #1 to 'skin' (too small: 148 bytes needed (36 floats from float 1), it holds 144)")
  end)
end)

describe("anim.rig's inverse_binds", function()
  it("go with the definition's joints, and rig:inverse_binds() gives them in the skin's order", function()
    local rig = shear_rig(IB)
    assert.are.same({ "root", "arm", "hand" }, rig:skin_joints())
    local ib = rig:inverse_binds()
    assert.is_true(anim.is_buffer(ib))
    assert.are.equal("double", ib.kind)
    local want = {}
    for _, m in ipairs { IB[3], IB[2], IB[1] } do for e = 1, 16 do want[#want + 1] = m[e] end end
    assert.are.equal(48, #ib)
    for e = 1, 48 do assert.are.equal(want[e], ib[e]) end
    -- absent: identities
    local id = shear_rig(nil):inverse_binds()
    for e = 1, 48 do assert.are.equal(((e - 1) % 16) % 5 == 0 and 1 or 0, id[e]) end
  end)

  it("are checked: count, length, finite numbers, with their paths", function()
    local id = translation(0, 0, 0)
    local function try(ibm) return anim.rig { joints = { { name = "a" }, { name = "b", parent = "a" } }, inverse_binds = ibm } end
    local _, err = try { id }
    assert.are.equal("rig: inverse_binds: 2 matrices expected (one a joint), got 1", err)
    _, err = anim.rig { joints = { { name = "a" } }, inverse_binds = { id, id } }
    assert.are.equal("rig: inverse_binds: 1 matrix expected (one a joint), got 2", err)
    _, err = try { id, { 1, 2, 3 } }
    assert.are.equal("rig: inverse_binds[2]: a matrix must be an array of 16 numbers (a column-major 4x4), got an array of 3", err)
    _, err = try { id, "m" }
    assert.are.equal("rig: inverse_binds[2]: a matrix must be an array of 16 numbers (a column-major 4x4), got string", err)
    local bad = translation(0, 0, 0)
    bad[7] = "x"
    _, err = try { bad, id }
    assert.are.equal("rig: inverse_binds[1][7]: a matrix component must be a finite number, got string", err)
    bad[7] = math.huge
    _, err = try { id, bad }
    assert.are.equal("rig: inverse_binds[2][7]: a matrix component must be a finite number, got inf", err)
    _, err = try { x = id }
    assert.are.equal("rig: inverse_binds: inverse_binds must be an array, got object", err)
  end)
end)

-- The glTF rigs: at the bind pose (the nodes' rests) each joint's world
-- matrix x its inverse bind is the world matrix of the node that holds the
-- skinned mesh (identity for Fox; CesiumMan's and RiggedFigure's mesh
-- nodes hang under a node turning Z up to Y up): the mesh is where the
-- file draws it.
local function node_matrix(n)
  if n.matrix then return n.matrix end
  return trs(n.translation or { 0, 0, 0 }, n.rotation or { 0, 0, 0, 1 }, n.scale or { 1, 1, 1 })
end
local function mesh_world(doc, skin)
  local parent = {}
  for i, n in ipairs(doc.nodes) do for _, c in ipairs(n.children or {}) do parent[c + 1] = i end end
  for i, n in ipairs(doc.nodes) do
    if n.skin == skin then
      local m, k = translation(0, 0, 0), i
      while k do m = mul(node_matrix(doc.nodes[k]), m); k = parent[k] end
      return m
    end
  end
end

describe("glTF rigs carry their skins' inverse binds", function()
  for _, name in ipairs { "Fox", "CesiumMan", "RiggedFigure" } do
    it("for " .. name .. ": world x inverse bind at the bind pose is the mesh node's world matrix", function()
      local path = H.shared .. "/data/gltf/" .. name .. "/glTF-Binary/" .. name .. ".glb"
      local r = assert(anim.import_gltf(path))
      local doc = gltf_file.open(path).doc
      local rig = r.rig
      assert.are.equal(#doc.skins[1].joints, #rig:skin_joints())
      for k, node in ipairs(doc.skins[1].joints) do assert.are.equal(doc.nodes[node + 1].name, rig:skin_joints()[k]) end
      local a = anim.animator(rig)
      a:update(0)
      local out = {}
      local n = a:skin(out, { layout = "mat4" })
      assert.are.equal(16 * #doc.skins[1].joints, n)
      local want = mesh_world(doc, 0)
      for k = 1, n / 16 do near_list(out, 16 * (k - 1), want, 1e-5, name .. " joint " .. k) end
    end)
  end
end)

describe("a glTF skin's inverse bind matrices that cannot be read", function()
  local cjson = require "cjson"
  local dir = H.tmpdir()
  local n = 0
  -- a skin of nodes a (root) and b, its inverse binds at accessor 0
  local function import(acc, bin)
    n = n + 1
    local file = dir .. "/s" .. n .. ".gltf"
    H.write(dir .. "/s" .. n .. ".bin", bin)
    local doc = { asset = { version = "2.0" },
      nodes = { { name = "a", children = { 1 } }, { name = "b", translation = { 0, 1, 0 } } },
      skins = { { joints = { 0, 1 }, inverseBindMatrices = 0 } }, accessors = { acc },
      bufferViews = { { buffer = 0, byteLength = #bin } }, buffers = { { byteLength = #bin, uri = "s" .. n .. ".bin" } } }
    H.write(file, cjson.encode(doc))
    return file, assert(anim.import_gltf(file))
  end
  local function mats(count)
    local v = {}
    for k = 1, count do
      for e = 1, 16 do v[#v + 1] = ((e - 1) % 5 == 0) and 1 or 0 end
      v[#v - 2] = -(k - 1) -- translation y of matrix k: -(k - 1)
    end
    return binary.pack("<" .. string.rep("f", #v), compat.unpack(v))
  end

  it("are read into the rig, in the skin's order", function()
    local _, r = import({ bufferView = 0, componentType = 5126, count = 2, type = "MAT4" }, mats(2))
    local ib = r.rig:inverse_binds()
    assert.are.equal(0, ib[14])
    assert.are.equal(-1, ib[16 + 14])
    local a = anim.animator(r.rig)
    a:update(0)
    local out = {}
    a:skin(out)
    -- b's world (0, 1, 0) x its inverse bind (0, -1, 0): no translation
    assert.are.same({ 0, 0, 0 }, { out[22], out[23], out[24] })
    assert.are.same({}, r.warnings)
  end)

  it("are left out with a warning when not MAT4 or fewer than the joints", function()
    local file, r = import({ bufferView = 0, componentType = 5126, count = 8, type = "VEC4" }, mats(2))
    assert.are.same({ file .. ": accessors[0].type: inverse bind matrices must be MAT4, got VEC4: the skin's inverse"
      .. " bind matrices are left out (identities)" }, r.warnings)
    assert.are.equal(0, r.rig:inverse_binds()[16 + 14])
    file, r = import({ bufferView = 0, componentType = 5126, count = 1, type = "MAT4" }, mats(2))
    assert.are.same({ file .. ": accessors[0].count: 1 inverse bind matrices for 2 joints: one a joint is needed: the"
      .. " skin's inverse bind matrices are left out (identities)" }, r.warnings)
  end)
end)

describe("skinning into memory (a stand-in for LÖVE's ByteData: build/bytedata.so)", function()
  local ok_bd, bd = pcall(require, "bytedata")
  if not ok_bd then
    it("needs build/bytedata.so (make test builds it)", function() error(bd) end)
    return
  end
  local rigs = { shear_rig(IB), assert(anim.rig { joints = { { name = "arm" }, { name = "hand", parent = "arm",
    translation = { 0, 2, 0 }, scale = { 0.5, 1, 2 } } } }) }
  -- n animators, alternately on the two rigs, each at its own time
  local function crowd(n)
    local list = {}
    for i = 1, n do
      local a = anim.animator(rigs[1 + i % 2])
      a:play(turning_clip())
      a:update(0.05 * i)
      list[i] = a
    end
    return list
  end
  local function floats(list, layout)
    local n = 0
    for _, a in ipairs(list) do n = n + #a.rig:skin_joints() * (layout == "mat4" and 16 or 12) end
    return n
  end

  it("animator:skin writes 32-bit floats, bounded by getSize(), from a float offset", function()
    local a = crowd(2)[2] -- (on the shear rig: 3 joints)
    local d, t = bd.new(4 * (2 + 48)), {}
    d:fill(-7)
    assert.are.equal(48, a:skin(d, { layout = "mat4", offset = 2, root = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1 } }))
    a:skin(t, { layout = "mat4", root = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1 } })
    assert.are.same({ -7, -7 }, { d:float(0), d:float(1) })
    for e = 1, 48 do assert.are.equal(f32(t[e]), d:float(1 + e)) end
    -- without a root, on both rigs (inverse binds and none: the writers'
    -- shortcuts), both layouts: the table's numbers rounded to floats
    for _, b in ipairs(crowd(2)) do
      for _, layout in ipairs { "mat3x4", "mat4" } do
        local tb, db = {}, bd.new(4 * 48)
        local count = b:skin(db, { layout = layout })
        assert.are.equal(count, b:skin(tb, { layout = layout }))
        for e = 1, count do assert.are.equal(f32(tb[e]), db:float(e - 1)) end
      end
    end
    -- one float short: refused, nothing written
    local small = bd.new(4 * 47)
    small:fill(-7)
    raises_here(function() a:skin(small, { layout = "mat4" }) end,
      "bad argument #1 to 'skin' (too small: 192 bytes needed (48 floats from float 0), it holds 188)")
    assert.are.equal(-7, small:float(0))
  end)

  for _, threads in ipairs { 1, 2 } do
    for _, layout in ipairs { "mat3x4", "mat4" } do
      it("anim.update's skin is each animator's skin after its update, bit for bit (" .. threads .. " threads, "
        .. layout .. ")", function()
        local batch, one = crowd(7), crowd(7)
        local n = floats(batch, layout)
        local d, ref = bd.new(4 * n), bd.new(4 * n)
        for frame = 1, 5 do
          local dt = frame / 37
          anim.update(batch, dt, { skin = d, skin_layout = layout, threads = threads })
          local at = 0
          for _, a in ipairs(one) do
            a:update(dt)
            at = at + a:skin(ref, { layout = layout, offset = at })
          end
          assert.are.equal(n, at)
          for f = 0, n - 1 do
            if d:bits(f) ~= ref:bits(f) then error(string.format("frame %d: float %d differs", frame, f)) end
          end
        end
      end)
    end
  end

  it("anim.update writes each animator's own skin_target when given no skin; skin wins over them", function()
    local list = crowd(3)
    local targets = {}
    for i, a in ipairs(list) do
      targets[i] = bd.new(4 * (1 + floats({ a }, "mat4")))
      targets[i]:fill(-7)
      a:skin_target(targets[i], 1, "mat4")
    end
    anim.update(list, 0.1, { threads = 2 })
    for i, a in ipairs(list) do
      local t = {}
      a:skin(t, { layout = "mat4" })
      assert.are.equal(-7, targets[i]:float(0))
      for e = 1, #t do assert.are.equal(f32(t[e]), targets[i]:float(e)) end
    end
    -- with skin, the animators' own targets are left alone
    local shared = bd.new(4 * floats(list, "mat3x4"))
    for i = 1, 3 do targets[i]:fill(-7) end
    anim.update(list, 0.1, { skin = shared })
    for i = 1, 3 do assert.are.equal(-7, targets[i]:float(1)) end
    assert.are_not.equal(0, shared:float(0))
    -- cleared: written no more
    list[1]:skin_target(nil)
    anim.update(list, 0.1)
    assert.are.equal(-7, targets[1]:float(1))
    assert.are_not.equal(-7, targets[2]:float(1))
  end)

  it("refuses a batch target too small before any animator is updated", function()
    local list = crowd(4)
    local n = floats(list, "mat3x4")
    local d = bd.new(4 * n - 1)
    d:fill(-7)
    local before = list[1]:tracks()[1].time
    raises_here(function() anim.update(list, 0.1, { skin = d, threads = 2 }) end,
      string.format("bad argument #3 to 'update' (skin too small: %d bytes needed (%d floats), it holds %d)",
        4 * n, n, 4 * (n - 1)))
    local buf = anim.buffer(n - 1)
    raises_here(function() anim.update(list, 0.1, { skin = buf }) end,
      string.format("bad argument #3 to 'update' (skin too small: %d floats needed, the buffer holds %d)", n, n - 1))
    assert.are.equal(before, list[1]:tracks()[1].time)
    assert.are.equal(-7, d:float(0))
    raises_here(function() anim.update(list, 0.1, { skin = {} }) end, "bad argument #3 to 'update' (skin must be a"
      .. " module buffer or an object with getPointer and getSize (a ByteData), got table (a table cannot be written by the batch's threads))")
    raises_here(function() anim.update(list, 0.1, { skin = d, skin_layout = "mat44" }) end,
      "bad argument #3 to 'update' (skin_layout must be \"mat3x4\" or \"mat4\", got 'mat44'; did you mean 'mat4'?)")
    raises_here(function() anim.update(list, 0.1, { skni = d }) end,
      "bad argument #3 to 'update' (unknown option 'skni'; did you mean 'skin'?)")
  end)

  it("refuses a skin_target too small, or a table", function()
    local a = crowd(2)[2] -- (on the shear rig: 3 joints)
    raises_here(function() a:skin_target(bd.new(4 * 35)) end,
      "bad argument #1 to 'skin_target' (too small: 144 bytes needed (36 floats from float 0), it holds 140)")
    raises_here(function() a:skin_target(bd.new(4 * 36), 1) end,
      "bad argument #1 to 'skin_target' (too small: 148 bytes needed (36 floats from float 1), it holds 144)")
    raises_here(function() a:skin_target({}) end, "bad argument #1 to 'skin_target' (a module buffer or an object with"
      .. " getPointer and getSize expected (the batch writes it on its threads), got a table)")
    raises_here(function() a:skin_target(bd.new(400), 0, "mat") end,
      "bad argument #3 to 'skin_target' (layout must be \"mat3x4\" or \"mat4\", got 'mat'; did you mean 'mat4'?)")
  end)
end)

describe("skinning into module buffers", function()
  local rig = shear_rig(IB)
  local function animators(n)
    local list = {}
    for i = 1, n do
      local a = anim.animator(rig)
      a:play(turning_clip())
      a:update(0.07 * i)
      list[i] = a
    end
    return list
  end

  it("animator:skin writes floats or doubles from an offset, bounded by the buffer", function()
    local a = animators(1)[1]
    local t = {}
    a:skin(t, { layout = "mat4" })
    local f, d = anim.buffer(50), anim.buffer(50, "double")
    assert.are.equal(48, a:skin(f, { layout = "mat4", offset = 2 }))
    assert.are.equal(48, a:skin(d, { layout = "mat4", offset = 1 }))
    assert.are.same({ 0, 0, 0 }, { f[1], f[2], d[1] })
    for e = 1, 48 do
      assert.are.equal(f32(t[e]), f[2 + e])
      assert.are.equal(t[e], d[1 + e])
    end
    raises_here(function() a:skin(anim.buffer(47), { layout = "mat4" }) end,
      "bad argument #1 to 'skin' (too small: 48 floats needed (48 from offset 0), it holds 47)")
    raises_here(function() a:skin(anim.buffer(40, "double"), { offset = 5 }) end,
      "bad argument #1 to 'skin' (too small: 41 doubles needed (36 from offset 5), it holds 40)")
  end)

  it("writes a number beyond a float's range as an infinity (doubles keep it)", function()
    local a = animators(1)[1]
    local root = { 1e300, 0, 0, 0, 0, 1e300, 0, 0, 0, 0, 1e300, 0, 0, 0, 0, 1 }
    local f, d = anim.buffer(48), anim.buffer(48, "double")
    a:skin(f, { layout = "mat4", root = root })
    a:skin(d, { layout = "mat4", root = root })
    assert.are.equal(math.huge, math.abs(f[13]))
    assert.is_true(math.abs(d[13]) > 1e299 and math.abs(d[13]) < math.huge)
  end)

  for _, threads in ipairs { 1, 2 } do
    it("anim.update's skin into a buffer is each animator's skin, bit for bit (" .. threads .. " threads)", function()
      local batch, one = animators(5), animators(5)
      local buf, ref = anim.buffer(5 * 36), anim.buffer(5 * 36)
      for frame = 1, 4 do
        anim.update(batch, frame / 29, { skin = buf, threads = threads })
        for i, a in ipairs(one) do
          a:update(frame / 29)
          a:skin(ref, { offset = 36 * (i - 1) })
        end
        assert.are.equal(ref:string(), buf:string())
      end
    end)
  end

  it("skin_target takes a buffer, doubles too", function()
    local list = animators(2)
    local b1, b2 = anim.buffer(36), anim.buffer(2 + 48, "double")
    list[1]:skin_target(b1)
    list[2]:skin_target(b2, 2, "mat4")
    anim.update(list, 0.1)
    local t1, t2 = {}, {}
    list[1]:skin(t1)
    list[2]:skin(t2, { layout = "mat4" })
    for e = 1, 36 do assert.are.equal(f32(t1[e]), b1[e]) end
    for e = 1, 48 do assert.are.equal(t2[e], b2[2 + e]) end
    -- a restore keeps the target (it is not part of the state)
    local st = list[1]:state()
    for e = 1, 36 do b1[e] = 0 end
    assert(list[1]:restore(st, function() return turning_clip() end))
    anim.update(list, 0.1)
    assert.are_not.equal(0, b1[1])
    raises_here(function() list[1]:skin_target(anim.buffer(35)) end,
      "bad argument #1 to 'skin_target' (too small: 36 floats needed (36 from offset 0), it holds 35)")
  end)
end)

-- The whole path a renderer takes: animator:skin's matrices (into a module
-- buffer) skin the imported meshes of CesiumMan, Fox and RiggedFigure where
-- three.js puts their vertices (spec/data/skinned_*_three.json, the
-- references of spec/skin_vertices_spec.lua: SkinnedMesh.getVertexPosition
-- after mixer.setTime, world space), within 1e-4 of the model's size, for
-- every clip at the references' first and last times.
describe("animator:skin's matrices skin glTF meshes as three.js does", function()
  local cjson = require "cjson"
  for _, model in ipairs {
    { "CesiumMan", "skinned_cesium_man_three.json" }, { "Fox", "skinned_fox_three.json" },
    { "RiggedFigure", "skinned_rigged_figure_three.json" } } do
    it(model[1], function()
      local path = H.shared .. "/data/gltf/" .. model[1] .. "/glTF-Binary/" .. model[1] .. ".glb"
      local ref = cjson.decode(H.read(H.root .. "/spec/data/" .. model[2]))
      local res = assert(anim.import_gltf(path, { meshes = true }))
      local mesh, doc = res.meshes[1], gltf_file.open(path).doc
      local mats = anim.buffer(12 * #mesh.skin:skin_joints())
      local out = anim.buffer(#mesh.positions)
      local tol, checked = 1e-4 * ref.bind_box_diagonal, 0
      for _, rc in ipairs(ref.clips) do
        local clip = res.clips[doc.animations[rc.index + 1].name or string.format("animation%d", rc.index)]
        for _, s in ipairs { rc.samples[1], rc.samples[#rc.samples] } do
          local a = anim.animator(mesh.skin)
          a:play(clip, { fade = 0 })
          a:update(s.time)
          a:skin(mats)
          anim.skin_vertices(mesh, mats, out)
          local want = s.positions[1]
          for k = 0, #want / 3 - 1 do
            local v = k * ref.every
            for c = 1, 3 do
              local d = math.abs(out[3 * v + c] - want[3 * k + c])
              assert(d <= tol, string.format("%s, clip %s at %.4f s, vertex %d: off by %.3g (tolerance %.3g)", model[1],
                rc.name, s.time, v, d, tol))
            end
            checked = checked + 1
          end
        end
      end
      assert.is_true(checked >= 200, tostring(checked))
    end)
  end
end)
