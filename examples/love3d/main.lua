-- examples/love3d/main.lua: a skinned glTF character in LÖVE 11 (`make love3d`).
--
-- The Fox of ../shared/data/gltf (its mesh, skin, clips and embedded PNG
-- texture, read by anim.import_gltf with { meshes = true }) skinned on the
-- GPU: a Mesh holds the positions, uvs, normals, joint indices and weights
-- as vertex attributes; each frame animator:skin writes the skin's
-- matrices (mat4, column-major) straight into a love.data ByteData, which
-- Shader:send("bones", data, "column") uploads: no Lua number per matrix.
-- The vertex shader (fox.glsl) blends them (linear blend skinning), the
-- pixel shader lights the texture with a directional light; a depth buffer
-- (conf.lua) and an orbiting camera (the matrices made here in Lua).
--
-- Keys: 1 survey, 2 walk, 3 run (a game state: the new clip cross-fades
-- in over 0.3 s), space pauses, C switches to the crowd and back, esc quits.
-- The crowd (C, or `love examples/love3d --crowd`): 500 foxes on a grid,
-- each its own animator (clip and phase of its own), one anim.update(list,
-- dt, { skin = imageData }) a frame writing every fox's matrices into one
-- RGBA32F ImageData (it has getPointer/getSize), one replacePixels upload,
-- one love.graphics.drawInstanced; the vertex shader reads its fox's row of the
-- texture by love_InstanceID.  The frame's cost is shown in both modes.
--
-- Check mode (spec/love3d_spec.lua): ANIM_LOVE3D_TEST=DIR draws the fox
-- at Walk 0.2 s (shot-1) and 0.55 s (shot-2), then the 0.55 s pose again
-- skinned on the CPU by anim.skin_vertices (shot-3: the same picture as
-- shot-2 if the shader does the same arithmetic), each as PNG and raw RGBA,
-- then presses 3 (Run; shot-5 is taken during the cross-fade, the costs on
-- screen), space and C (the log says what each did), runs the
-- crowd for ANIM_LOVE3D_FRAMES frames (default 60, after 5 to warm up;
-- shot-4 is the 5th) and writes its mean frame time to DIR/log.txt and
-- stdout, then quits (ANIM_LOVE3D_FRAMES=0: no crowd).
-- For the spec to check that its checks can fail: ANIM_LOVE3D_NODRAW=1
-- draws no fox, ANIM_LOVE3D_WRONG=1 skins with each vertex's first joint
-- alone (fox.glsl's WRONG: not the CPU's picture).
local root = love.filesystem.getSource() .. "/../.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = root .. "/build/luajit/?.so;" .. package.cpath

local anim = require "anim"

local FOX = (os.getenv("ANIM_SHARED") or (root .. "/../shared")) .. "/data/gltf/Fox/glTF-Binary/Fox.glb"
local test_dir = os.getenv("ANIM_LOVE3D_TEST")
local nodraw = os.getenv("ANIM_LOVE3D_NODRAW") == "1"
local test_frames = tonumber(os.getenv("ANIM_LOVE3D_FRAMES") or "60")
local SHOT_TIMES = { 0.2, 0.55 }
local CROWD, COLUMNS, SPACING = 500, 25, 170

local log = {}
local function say(fmt, ...)
  local line = string.format(fmt, ...)
  log[#log + 1] = line
  print(line)
end

local geometry = require "geometry"
local mul, normalize = geometry.mul, geometry.normalize

-- The camera `distance` from (0, height, 0), turned `angle` around y, `rise` above it.
local function camera(angle, distance, height, rise, far)
  local w, h = love.graphics.getDimensions()
  local view = geometry.look_at(math.sin(angle) * distance, height + rise, math.cos(angle) * distance, 0, height, 0)
  return mul(geometry.perspective(math.rad(45), w / h, 10, far), view)
end

local fox, clips, image, joints          -- the imported model
local with_normals                       -- fox's buffers and normals (the Fox has none: flat ones)
local mesh, cpu_mesh, ground             -- love Meshes
local shader, crowd_shader, ground_shader
local bones                              -- ByteData: one fox's matrices
local animator, track                    -- the single fox
local state = "walk"                     -- the game's state: survey, walk or run
local crowd, crowd_data, crowd_image     -- the crowd's animators, ImageData, Image
local crowd_mode, clock, orbit = false, 0, 0.6
local cost = { update = 0, skin = 0, draw = 0, frame = 0 } -- ms, running averages
local failed                             -- a message instead of a picture

local STATES = { survey = "Survey", walk = "Walk", run = "Run" }
local KEYS = { ["1"] = "survey", ["2"] = "walk", ["3"] = "run" }

-- A running average of a cost in ms (the last ~30 frames count most;
-- the first frame's value to begin with).
local function average(name, seconds)
  local ms = seconds * 1000
  cost[name] = cost[name] == 0 and ms or cost[name] + (ms - cost[name]) * 0.05
end

-- The vertex format: LÖVE's own position and uv, ours for the rest (bound
-- by name in fox.glsl).
local FORMAT = {
  { "VertexPosition", "float", 3 }, { "VertexTexCoord", "float", 2 }, { "VertexNormal", "float", 3 },
  { "VertexJoints", "float", 4 }, { "VertexWeights", "float", 4 },
}

-- The vertices of a love Mesh: positions and normals given (buffers or
-- tables), uvs, joints and weights the model's; `rigid` = every vertex on
-- joint 0 alone (for positions skinned already).
local function vertices(m, positions, normals, rigid)
  local list = {}
  local j, w, uv = m.joints, m.weights, m.uvs
  for v = 0, m.count - 1 do
    list[v + 1] = { positions[3 * v + 1], positions[3 * v + 2], positions[3 * v + 3], uv and uv[2 * v + 1] or 0,
      uv and uv[2 * v + 2] or 0,
      normals[3 * v + 1], normals[3 * v + 2], normals[3 * v + 3],
      rigid and 0 or j[4 * v + 1], rigid and 0 or j[4 * v + 2], rigid and 0 or j[4 * v + 3], rigid and 0 or j[4 * v + 4],
      rigid and 1 or w[4 * v + 1], rigid and 0 or w[4 * v + 2], rigid and 0 or w[4 * v + 3], rigid and 0 or w[4 * v + 4] }
  end
  return list
end

local function new_mesh(m, list)
  local lm = love.graphics.newMesh(FORMAT, list, "triangles", "static")
  if m.indices then
    local map = {}
    for i = 1, #m.indices do map[i] = m.indices[i] + 1 end
    lm:setVertexMap(map)
  end
  lm:setTexture(image)
  return lm
end

local function fail(message)
  failed = message
  print(message)
  if test_dir then
    local f = io.open(test_dir .. "/log.txt", "w")
    if f then f:write(message, "\n") f:close() end
  end
  love.event.quit(1)
end

local function shader_code(defines)
  local code = assert(love.filesystem.read("fox.glsl"))
  if os.getenv("ANIM_LOVE3D_WRONG") == "1" then defines = defines .. "#define WRONG 1\n" end
  return (code:gsub("^(#pragma language glsl3\n)", "%1" .. defines, 1))
end

-- The crowd: CROWD animators on the fox's rig, each a clip and a phase of
-- its own, and the RGBA32F image their matrices go to (a row a fox).
local function make_crowd()
  if not love.graphics.getImageFormats().rgba32f then
    say("crowd mode: this renderer has no RGBA32F textures")
    return
  end
  local names = { "Survey", "Walk", "Run" }
  crowd = {}
  for i = 1, CROWD do
    local a = anim.animator(fox.skin)
    a:play(clips[names[i % 3 + 1]], { fade = 0, speed = 0.8 + 0.4 * ((i * 37) % 100) / 100 })
    a:update(((i * 0.618) % 1) * clips[names[i % 3 + 1]].length)
    crowd[i] = a
  end
  crowd_data = love.image.newImageData(4 * joints, CROWD, "rgba32f")
  anim.update(crowd, 0, { skin = crowd_data, skin_layout = "mat4" })
  crowd_image = love.graphics.newImage(crowd_data)
  crowd_image:setFilter("nearest", "nearest")
  crowd_shader = love.graphics.newShader(shader_code(string.format("#define JOINTS %d\n#define CROWD 1\n", joints)))
  crowd_shader:send("bone_tex", crowd_image)
  crowd_shader:send("columns", COLUMNS)
  crowd_shader:send("spacing", SPACING)
  crowd_shader:send("light_dir", { normalize(-0.4, -1, -0.6) })
end

function love.load(args)
  if not io.open(FOX, "rb") then
    return fail(string.format("love3d: the Fox model is not there: %s\n(the example reads ../shared/data beside "
      .. "the repository, or $ANIM_SHARED/data)", FOX))
  end
  local result = assert(anim.import_gltf(FOX, { meshes = true }))
  fox, clips = result.meshes[1], result.clips
  joints = #fox.skin:skin_joints()
  image = love.graphics.newImage(love.filesystem.newFileData(fox.material.texture.bytes, "fox.png"))
  local normals = fox.normals or geometry.flat_normals(fox, anim.buffer)
  -- the model with those normals, for anim.skin_vertices
  with_normals = { positions = fox.positions, joints = fox.joints, weights = fox.weights, normals = normals }
  mesh = new_mesh(fox, vertices(fox, fox.positions, normals))
  cpu_mesh = new_mesh(fox, vertices(fox, fox.positions, normals, true))
  shader = love.graphics.newShader(shader_code(string.format("#define JOINTS %d\n", joints)))
  shader:send("light_dir", { normalize(-0.4, -1, -0.6) })
  bones = love.data.newByteData(joints * 16 * 4)
  animator = anim.animator(fox.skin)
  track = animator:play(clips.Walk, { fade = 0 })
  -- the ground: a square of 1200 units (times `size`), drawn with a plain shader
  ground = love.graphics.newMesh({ { "VertexPosition", "float", 3 } },
    { { -600, 0, -600 }, { 600, 0, -600 }, { 600, 0, 600 }, { -600, 0, 600 } }, "fan", "static")
  ground_shader = love.graphics.newShader([[
    uniform mat4 view_proj;
    uniform float size;
    #ifdef VERTEX
    vec4 position(mat4 tp, vec4 p) { return view_proj * vec4(p.xyz * size, 1.0); }
    #endif
    #ifdef PIXEL
    vec4 effect(vec4 c, Image t, vec2 uv, vec2 s) { return vec4(0.45, 0.55, 0.42, 1.0); }
    #endif
  ]])
  for _, a in ipairs(args or {}) do
    if a == "--crowd" then
      crowd_mode = true
      say("--crowd: %d foxes", CROWD)
    end
  end
  if crowd_mode or test_dir then make_crowd() end
  local r = { love.graphics.getRendererInfo() }
  say("anim %s on %s, %s; renderer %s %s (%s)", anim._VERSION, _VERSION, jit and jit.version or "no JIT", r[1], r[2], r[4])
end

-- In the check mode an error ends the run (LÖVE's error screen would wait
-- for a key).
if test_dir then
  function love.errorhandler(message)
    print(debug.traceback("love3d: " .. tostring(message), 2))
    os.exit(1)
  end
end

function love.keypressed(key)
  if KEYS[key] and KEYS[key] ~= state then
    say("%s: %s -> %s (cross-fade 0.3 s)", key, state, KEYS[key])
    state = KEYS[key]
    track = track:crossfade(clips[STATES[state]], 0.3)
  elseif key == "space" then
    animator.paused = not animator.paused
    say("space: %s", animator.paused and "paused" or "playing")
  elseif key == "c" then
    crowd_mode = not crowd_mode
    if crowd_mode and not crowd then make_crowd() end
    say("c: crowd %s", crowd_mode and "on" or "off")
  elseif key == "escape" then
    love.event.quit()
  end
end

-- The check mode's script: a frame a step.
local step, crowd_frames, crowd_started = 0, 0, nil
-- after the shots, the keys pressed at these steps (frames)
local TEST_KEYS = { [4] = "3", [20] = "space", [22] = "c" }

local function capture(i)
  love.graphics.captureScreenshot(function(img)
    local f = assert(io.open(string.format("%s/shot-%d.png", test_dir, i), "wb"))
    f:write(img:encode("png"):getString())
    f:close()
    f = assert(io.open(string.format("%s/shot-%d.rgba", test_dir, i), "wb"))
    f:write(img:getString())
    f:close()
    say("screenshot %d (%dx%d)", i, img:getWidth(), img:getHeight())
  end)
end

local function finish()
  local f = assert(io.open(test_dir .. "/log.txt", "w"))
  f:write(table.concat(log, "\n"), "\n")
  f:close()
  love.event.quit()
end

local function test_update()
  step = step + 1
  if step <= 3 then
    -- a fresh animator at the shot's time on Walk, the camera still
    orbit = 0.9
    animator = anim.animator(fox.skin)
    track = animator:play(clips.Walk, { fade = 0 })
    animator:update(SHOT_TIMES[math.min(step, 2)])
    if step == 3 then
      -- the same pose skinned on the CPU: the positions and normals
      -- anim.skin_vertices gives, on a mesh whose vertices are on joint 0
      -- alone, drawn with every bone the identity
      local mats = anim.buffer(joints * 16)
      animator:skin(mats, { layout = "mat4" })
      local pos, nor = anim.skin_vertices(with_normals, mats, nil, { layout = "mat4", normals = true })
      cpu_mesh:setVertices(vertices(fox, pos, nor, true))
    end
    capture(step)
    return
  end
  -- the keys: 3 cross-fades to Run, 16 frames on, space pauses (the
  -- tracks at that instant logged), C shows the crowd
  if step == 12 then capture(5) end -- mid cross-fade, with the costs on screen
  if TEST_KEYS[step] then
    if TEST_KEYS[step] == "space" then
      for _, t in ipairs(animator:tracks()) do say("track %s fade %.3f", t.clip.name, t.fade) end
    end
    love.keypressed(TEST_KEYS[step])
  end
  if not crowd_mode then return end
  -- the crowd: 5 frames to warm up (shot-4 the 5th), then test_frames measured
  if not crowd or test_frames == 0 then return finish() end
  crowd_frames = crowd_frames + 1
  if crowd_frames == 5 then capture(4) end
  if crowd_frames == 6 then crowd_started = love.timer.getTime() end
  if crowd_frames == 6 + test_frames then
    local ms = (love.timer.getTime() - crowd_started) * 1000 / test_frames
    local r = { love.graphics.getRendererInfo() }
    say("crowd: %d foxes, mean frame %.2f ms over %d frames (update+skin %.2f ms, upload %.2f ms, draw %.2f ms); "
      .. "renderer %s", CROWD, ms, test_frames, cost.update, cost.skin, cost.draw, r[4])
    finish()
  end
end

function love.update(dt)
  if failed then return end
  average("frame", dt)
  dt = math.min(dt, 0.1)
  clock = clock + dt
  if test_dir then
    test_update()
    -- the shots and the keys on a fixed clock (the log's fades the same
    -- on any machine), the crowd on the real one
    if not crowd_mode then dt = step <= 3 and 0 or 1 / 60 end
  else
    orbit = orbit + dt * 0.25
  end
  local t0 = love.timer.getTime()
  if crowd_mode and crowd then
    -- every fox's update and its matrices into the ImageData: one call
    anim.update(crowd, dt, { skin = crowd_data, skin_layout = "mat4" })
    local t1 = love.timer.getTime()
    crowd_image:replacePixels(crowd_data)
    average("update", t1 - t0)
    average("skin", love.timer.getTime() - t1)
  else
    if dt > 0 then animator:update(dt) end
    local t1 = love.timer.getTime()
    animator:skin(bones, { layout = "mat4" })
    shader:send("bones", bones, "column")
    average("update", t1 - t0)
    average("skin", love.timer.getTime() - t1)
  end
end

function love.draw()
  if failed then return end
  local t0 = love.timer.getTime()
  love.graphics.clear(0.62, 0.75, 0.88)
  local vp
  if crowd_mode and crowd then
    vp = camera(orbit * 0.3, 4600, 0, 3000, 20000)
    -- the camera turns around the grid's middle
    vp = mul(vp, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, SPACING * (CROWD / COLUMNS - 1) / 2, 1 })
    ground_shader:send("size", 6)
  else
    vp = camera(orbit, 260, 35, 60, 3000)
    ground_shader:send("size", 1)
  end
  love.graphics.setDepthMode("lequal", true)
  ground_shader:send("view_proj", "column", vp)
  love.graphics.setShader(ground_shader)
  love.graphics.draw(ground)
  love.graphics.setColor(1, 1, 1)
  if not nodraw then
    if crowd_mode and crowd then
      crowd_shader:send("view_proj", "column", vp)
      love.graphics.setShader(crowd_shader)
      love.graphics.drawInstanced(mesh, CROWD)
    else
      shader:send("view_proj", "column", vp)
      love.graphics.setShader(shader)
      if test_dir and step == 3 then
        shader:send("bones", love.data.newByteData(string.rep(love.data.pack("string",
          "ffffffffffffffff", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1), joints)), "column")
        love.graphics.draw(cpu_mesh)
      else
        love.graphics.draw(mesh)
      end
    end
  end
  love.graphics.setShader()
  love.graphics.setDepthMode("always", false)
  average("draw", love.timer.getTime() - t0)
  if test_dir and step <= 3 then return end -- the shots: the fox alone
  love.graphics.setColor(0.1, 0.1, 0.15)
  if crowd_mode then
    love.graphics.print(string.format("crowd: %d foxes    update+skin %.2f ms    upload %.2f ms    draw %.2f ms    "
      .. "frame %.1f ms", CROWD, cost.update, cost.skin, cost.draw, cost.frame), 10, 10)
  else
    love.graphics.print(string.format("%s%s    update %.3f ms    skin %.3f ms    draw %.3f ms    frame %.1f ms",
      STATES[state], animator.paused and " (paused)" or "", cost.update, cost.skin, cost.draw, cost.frame), 10, 10)
  end
  love.graphics.print("1 survey   2 walk   3 run   space pause   C crowd   esc quit", 10, 28)
  love.graphics.setColor(1, 1, 1)
end
