-- The 3D LÖVE example (examples/love3d/, issue 39): the Fox of
-- ../shared/data/gltf skinned on the GPU.
--
-- First, with no GPU: the vertex shader's arithmetic (examples/love3d/
-- fox.glsl) mirrored here in Lua, reading the matrices as the shader
-- does — a uniform mat4 array sent "column" from the ByteData that
-- animator:skin(data, { layout = "mat4" }) wrote, and the crowd's RGBA32F
-- texture (a row a fox, a texel a column) that one anim.update(list, dt,
-- { skin = data, skin_layout = "mat4" }) wrote — gives anim.skin_vertices'
-- positions and normals (the CPU reference, itself checked against
-- three.js by spec/skin_vertices_spec.lua).
--
-- Then, tagged long (as spec/love_spec.lua; make love3d-test and make
-- test-long run it), the example in a real LÖVE 11 under Xvfb in its check
-- mode: the fox at Walk 0.2 s and 0.55 s (shot-1, shot-2), the 0.55 s pose
-- skinned by anim.skin_vertices and drawn with identity bones (shot-3),
-- the keys 3 (shot-5 during its cross-fade), space and C, the crowd
-- (shot-4 and its mean frame time).
-- The checks: the fox is drawn (its texture's orange), the two poses
-- differ, the GPU's picture is the CPU's (shot-2 = shot-3 within
-- rounding), the keys did what they say, the crowd reported a frame time;
-- and each check fails when the example draws no fox
-- (ANIM_LOVE3D_NODRAW) or skins wrongly (ANIM_LOVE3D_WRONG: each vertex on
-- its first joint alone).  The screenshots stay in build/love3d/.
local anim = require "anim"
local H = require "spec.helper"
local love_run = require "spec.love_run"

local FOX = H.shared .. "/data/gltf/Fox/glTF-Binary/Fox.glb"
local OUT = H.root .. "/build/love3d"
local geometry = dofile(H.root .. "/examples/love3d/geometry.lua")

-- The shader's `position`: the blended matrix sum w_i * bone(j_i) (bone(j)
-- a function giving GLSL's m[col][row] as m(col, row)), applied to the
-- position (w = 1) and, by its 3x3 part, to the normal.
local function shader_skin(bone, mesh, v)
  local skin = {}
  for c = 0, 3 do
    for r = 0, 3 do
      local s = 0
      for i = 1, 4 do
        local w = mesh.weights[4 * v + i]
        s = s + w * bone(mesh.joints[4 * v + i], c, r)
      end
      skin[4 * c + r + 1] = s
    end
  end
  local p, n, pos, nor = mesh.positions, mesh.normals, {}, {}
  for r = 1, 3 do
    pos[r] = skin[r] * p[3 * v + 1] + skin[4 + r] * p[3 * v + 2] + skin[8 + r] * p[3 * v + 3] + skin[12 + r]
    nor[r] = skin[r] * n[3 * v + 1] + skin[4 + r] * n[3 * v + 2] + skin[8 + r] * n[3 * v + 3]
  end
  return pos, { geometry.normalize(nor[1], nor[2], nor[3]) }
end

-- Whether the shader's positions and normals of vertices 0, 7, 14...
-- are skin_vertices' (positions within 1e-4 of the model's size, ~170);
-- the shader given shader_mesh when there is one (the spec's wrong ones).
local function compare(bone, mesh, mats, shader_mesh)
  local pos, nor = anim.skin_vertices(mesh, mats, nil, { layout = "mat4", normals = true })
  local checked = 0
  for v = 0, #mesh.positions / 3 - 1, 7 do
    local p, n = shader_skin(bone, shader_mesh or mesh, v)
    for c = 1, 3 do
      assert(math.abs(p[c] - pos[3 * v + c]) < 0.017, string.format("vertex %d position[%d]: %.6g, CPU %.6g", v, c,
        p[c], pos[3 * v + c]))
      assert(math.abs(n[c] - nor[3 * v + c]) < 1e-5, string.format("vertex %d normal[%d]: %.6g, CPU %.6g", v, c,
        n[c], nor[3 * v + c]))
    end
    checked = checked + 1
  end
  return checked
end

describe("the 3D LÖVE example's skinning shader, mirrored in Lua", function()
  local ok_bd, bd = pcall(require, "bytedata")
  if not ok_bd then
    it("needs build/bytedata.so (make test builds it)", function() error(bd) end)
    return
  end
  local res = io.open(FOX) and assert(anim.import_gltf(FOX, { meshes = true }))
  if not res then
    it("needs ../shared/data/gltf/Fox", function() pending("no shared data here") end)
    return
  end
  local fox = res.meshes[1]
  local joints = #fox.skin:skin_joints()
  -- the mesh as the example draws it: the Fox has no normals, flat ones
  local mesh = { positions = fox.positions, joints = fox.joints, weights = fox.weights,
    normals = geometry.flat_normals(fox, anim.buffer) }

  it("one fox: bones[j] from the ByteData animator:skin wrote, sent \"column\"", function()
    local a = anim.animator(fox.skin)
    a:play(res.clips.Walk, { fade = 0 })
    a:update(0.2)
    local data, mats = bd.new(joints * 64), anim.buffer(joints * 16)
    a:skin(data, { layout = "mat4" })
    a:skin(mats, { layout = "mat4" })
    -- "column": the floats of matrix j are its columns one after the other
    local function bone(j, c, r) return data:float(16 * j + 4 * c + r) end
    assert.is_true(compare(bone, mesh, mats) >= 240)
  end)

  it("the crowd: row i of the RGBA32F texture (texel 4j + c) from one anim.update's skin", function()
    local names, list = { "Survey", "Walk", "Run" }, {}
    for i = 1, 3 do
      list[i] = anim.animator(fox.skin)
      list[i]:play(res.clips[names[i]], { fade = 0 })
      list[i]:update(0.1 * i)
    end
    local data = bd.new(#list * joints * 64)
    anim.update(list, 0.25, { skin = data, skin_layout = "mat4" })
    for i, a in ipairs(list) do
      local mats = anim.buffer(joints * 16)
      a:skin(mats, { layout = "mat4" })
      -- texelFetch(bone_tex, ivec2(4 * j + c, instance), 0)[r]: 4 floats a
      -- texel, 4 * joints texels a row
      local function bone(j, c, r) return data:float(((i - 1) * 4 * joints + 4 * j + c) * 4 + r) end
      assert.is_true(compare(bone, mesh, mats) >= 240)
    end
  end)

  it("sees a wrong skinning (each vertex on its first joint alone, or the matrices read by rows)", function()
    local a = anim.animator(fox.skin)
    a:play(res.clips.Walk, { fade = 0 })
    a:update(0.2)
    local mats = anim.buffer(joints * 16)
    a:skin(mats, { layout = "mat4" })
    local first = anim.buffer(#fox.weights)
    for v = 0, #fox.weights / 4 - 1 do first[4 * v + 1] = 1 end
    local wrong = { positions = mesh.positions, joints = mesh.joints, weights = first, normals = mesh.normals }
    local function bone(j, c, r) return mats[16 * j + 4 * c + r + 1] end
    local function by_rows(j, c, r) return mats[16 * j + 4 * r + c + 1] end
    assert.has_error(function() compare(bone, mesh, mats, wrong) end)
    assert.has_error(function() compare(by_rows, mesh, mats) end)
    assert.is_true(compare(bone, mesh, mats) >= 240)
  end)
end)


-- Runs the example's check mode, its output in dir; returns ok, output.
local function run(dir, env)
  return love_run.run("love3d", "ANIM_LOVE3D_TEST", dir, string.format("ANIM_SHARED=%q %s", H.shared, env or ""))
end
local shot, differ = love_run.shot, love_run.differ

-- Pixels of the fox's fur: its texture's orange, lit or shaded (red well
-- above blue, green between); the sky (158, 191, 224) and the ground
-- (115, 140, 107) are not.
local function fox_pixels(bytes)
  local n = 0
  for i = 1, #bytes, 8 do
    local r, g, b = bytes:byte(i, i + 2)
    if r > 90 and r - b > 60 and g > b and g < r then n = n + 1 end
  end
  return n
end

-- The checks of a check mode's shots: ok, what they saw.
local function check(dir)
  local s1, s2, s3 = shot(dir, 1), shot(dir, 2), shot(dir, 3)
  local f1, f2 = fox_pixels(s1), fox_pixels(s2)
  local moved, gpu_cpu = differ(s1, s2, 0), differ(s2, s3, 24)
  local seen = string.format("fox pixels %d and %d, %d changed between the poses, %d between GPU and CPU skinning",
    f1, f2, moved, gpu_cpu)
  return f1 > 1500 and f2 > 1500 and moved > 2000 and gpu_cpu <= 50, seen
end

describe("#long the 3D LÖVE example", function()
  if not love_run.ready("love3d-test") then return end
  if not io.open(FOX) then
    it("needs ../shared/data/gltf/Fox", function() pending("no shared data here") end)
    return
  end

  it("draws the textured fox in two poses, the GPU's skinning the CPU's, and times the crowd", function()
    local ok, out = run(OUT)
    assert(ok, out)
    local good, seen = check(OUT)
    assert(good, seen .. "\n" .. out)
    print("\n" .. seen)
    local log = H.read(OUT .. "/log.txt")
    assert.truthy(log:find("LuaJIT", 1, true), log)
    -- the keys: 3 cross-faded Walk into Run over 0.3 s (16 frames of 1/60 s
    -- later, when space paused: Run's fade 0.267 / 0.3, Walk's the rest),
    -- space paused, C the crowd
    assert.truthy(log:find("\n3: walk -> run (cross-fade 0.3 s)\n", 1, true), log)
    assert.truthy(log:find("\ntrack Walk fade 0.111\ntrack Run fade 0.889\nspace: paused\n", 1, true), log)
    assert.truthy(log:find("\nc: crowd on\n", 1, true), log)
    local ms = tonumber(log:match("crowd: 500 foxes, mean frame ([%d.]+) ms over 60 frames"))
    assert(ms and ms > 0, log)
    print(log:match("crowd: [^\n]*"))
    assert.truthy(fox_pixels(shot(OUT, 4)) > 1500) -- the crowd is drawn
    assert.truthy(fox_pixels(shot(OUT, 5)) > 1500) -- the fox during the cross-fade to Run
    for i = 1, 5 do assert.truthy(io.open(string.format("%s/shot-%d.png", OUT, i))) end
  end)

  it("has checks that fail when the example draws no fox or skins wrongly", function()
    local dir = OUT .. "-nodraw"
    local ok, out = run(dir, "ANIM_LOVE3D_NODRAW=1 ANIM_LOVE3D_FRAMES=0")
    assert(ok, out)
    local good, seen = check(dir)
    assert.is_false(good, seen)
    assert.are.equal(0, fox_pixels(shot(dir, 1)))
    dir = OUT .. "-wrong"
    ok, out = run(dir, "ANIM_LOVE3D_WRONG=1 ANIM_LOVE3D_FRAMES=0")
    assert(ok, out)
    good, seen = check(dir)
    assert.is_false(good, seen)
    assert.is_true(differ(shot(dir, 2), shot(dir, 3), 24) > 50, seen)
  end)

  it("says so and exits when the Fox is not there", function()
    local dir = OUT .. "-nofox"
    local ok, out = love_run.run("love3d", "ANIM_LOVE3D_TEST", dir, string.format("ANIM_SHARED=%q", dir .. "/none"), 60)
    assert.is_false(ok, out)
    assert.truthy(out:find("love3d: the Fox model is not there: " .. dir .. "/none/data/gltf/Fox/glTF-Binary/Fox.glb",
      1, true), out)
  end)
end)
