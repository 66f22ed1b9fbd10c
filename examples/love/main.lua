-- examples/love/main.lua: the module in a LÖVE 11 game (`make love`).
--
-- The blocky player rig runs a state machine (examples/clips/hero.animgraph,
-- as examples/statemachine.lua does): the arrow keys set its `speed`
-- parameter (idle, walk, run: it moves across the screen at that speed),
-- space fires its `jump` trigger (buffered 0.15 s: pressed just before a
-- landing it jumps again; a few lines of physics keep it 0.85 s in the air)
-- and W its `wave` trigger (a layer above, on the right arm).  The graph
-- plays the clips; the script sets parameters, fires triggers and prints
-- the transitions.  Each `step` marker of the walk and the run plays a
-- short tone through love.audio, made here with love.sound.newSoundData.
-- A critter read from
-- a glTF file (examples/clips/critter.gltf, made by make_critter.lua)
-- trots beside it, and a slime from an Aseprite sprite sheet's data
-- (examples/clips/slime.json: a clip per tag, each a `frame` property)
-- idles and hops now and then, drawn frame by frame with quads of the
-- sheet.  The player and the critter are drawn with love.graphics from
-- animator:world_transform, in a side view.
--
-- The module is the checkout's: lua/ for the Lua files and build/luajit/
-- for the core built for LÖVE's LuaJIT (`make love` builds it).
--
-- Test mode (spec/love_spec.lua): ANIM_LOVE_TEST=DIR presses W at 0.3 s,
-- space at 0.8 s and the right arrow at 1.0 s, writes screenshots to DIR at ANIM_LOVE_SHOTS (seconds, comma
-- separated; default 0.5,1.5) as PNG (for a person) and as raw RGBA
-- (shot-<i>.rgba, for the spec), writes what it heard to DIR/log.txt and
-- quits after ANIM_LOVE_SECONDS (default 2).  ANIM_LOVE_NODRAW=1 draws no
-- figure (the spec checks that its check sees the difference).
local root = love.filesystem.getSource() .. "/../.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = root .. "/build/luajit/?.so;" .. package.cpath

local anim = require "anim"

local test_dir = os.getenv("ANIM_LOVE_TEST")
local nodraw = os.getenv("ANIM_LOVE_NODRAW") == "1"
local shots = {}
for t in (os.getenv("ANIM_LOVE_SHOTS") or "0.5,1.5"):gmatch("[^,]+") do shots[#shots + 1] = tonumber(t) end
local quit_at = tonumber(os.getenv("ANIM_LOVE_SECONDS") or "2")
local log = {}
local function say(fmt, ...)
  local line = string.format(fmt, ...)
  log[#log + 1] = line
  print(line)
end

-- The player's body parts in blocks, in each joint's frame (as anim sheet
-- draws them), and the colours.
local PARTS = {
  { joint = "leftLeg", min = { -0.125, -0.75, -0.125 }, max = { 0.125, 0, 0.125 }, colour = { 0.36, 0.44, 0.77 } },
  { joint = "leftArm", min = { -0.125, -0.625, -0.125 }, max = { 0.125, 0.125, 0.125 }, colour = { 0.88, 0.65, 0.49 } },
  { joint = "torso", min = { -0.25, 0, -0.125 }, max = { 0.25, 0.75, 0.125 }, colour = { 0.16, 0.62, 0.56 } },
  { joint = "head", min = { -0.25, 0, -0.25 }, max = { 0.25, 0.5, 0.25 }, colour = { 0.91, 0.73, 0.56 } },
  { joint = "rightLeg", min = { -0.125, -0.75, -0.125 }, max = { 0.125, 0, 0.125 }, colour = { 0.25, 0.32, 0.64 } },
  { joint = "rightArm", min = { -0.125, -0.625, -0.125 }, max = { 0.125, 0.125, 0.125 }, colour = { 0.79, 0.55, 0.39 } },
}

local function rotate(q, v)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local tx, ty, tz = 2 * (y * v[3] - z * v[2]), 2 * (z * v[1] - x * v[3]), 2 * (x * v[2] - y * v[1])
  return { v[1] + w * tx + (y * tz - z * ty), v[2] + w * ty + (z * tx - x * tz), v[3] + w * tz + (x * ty - y * tx) }
end

-- The outline of a box (min, max in a joint's frame) placed by the world
-- transform w, projected on (across, y): the hull of its 8 corners.
local function outline(part, w, across, sx, sy, scale)
  local q = { w[4], w[5], w[6], w[7] }
  local pts = {}
  for i = 0, 7 do
    local c = { i % 2 == 0 and part.min[1] or part.max[1], i % 4 < 2 and part.min[2] or part.max[2],
      i < 4 and part.min[3] or part.max[3] }
    local r = rotate(q, { c[1] * w[8], c[2] * w[9], c[3] * w[10] })
    pts[#pts + 1] = { sx + (w[across] + r[across]) * scale, sy - (w[2] + r[2]) * scale }
  end
  table.sort(pts, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local function cross(o, a, b) return (a[1] - o[1]) * (b[2] - o[2]) - (a[2] - o[2]) * (b[1] - o[1]) end
  local lower, upper = {}, {}
  for _, p in ipairs(pts) do
    while #lower >= 2 and cross(lower[#lower - 1], lower[#lower], p) <= 0 do lower[#lower] = nil end
    lower[#lower + 1] = p
  end
  for i = #pts, 1, -1 do
    local p = pts[i]
    while #upper >= 2 and cross(upper[#upper - 1], upper[#upper], p) <= 0 do upper[#upper] = nil end
    upper[#upper + 1] = p
  end
  lower[#lower], upper[#upper] = nil, nil
  local flat = {}
  for _, p in ipairs(lower) do flat[#flat + 1], flat[#flat + 2] = p[1], p[2] end
  for _, p in ipairs(upper) do flat[#flat + 1], flat[#flat + 2] = p[1], p[2] end
  return flat
end

local player, controller, critter, critter_rig, tone
local slime, slime_clips, sheet_image, quads, hop_at = nil, nil, nil, {}, 1.2
local clock, shot, x_walk = 0, 1, -3
-- the speeds the arrow keys step through (blocks a second: idle, walk, run)
local SPEEDS, speed_step = { 0, 1.2, 4 }, 2
-- the jump: in the air AIR seconds from the instant the jump state starts,
-- HEIGHT blocks high at the top
local AIR, HEIGHT, airborne_since = 0.85, 0.8, nil

-- A short tone: 60 ms of a sine at 660 Hz, fading out.
local function make_tone()
  local rate, n = 44100, 2646
  local data = love.sound.newSoundData(n, rate, 16, 1)
  for i = 0, n - 1 do
    data:setSample(i, math.sin(2 * math.pi * 660 * i / rate) * 0.4 * (1 - i / n))
  end
  return love.audio.newSource(data, "static")
end

function love.load()
  local clips = root .. "/examples/clips/"
  -- the graph names its clips: each is the .anim file of that name
  local graph = assert(anim.graph(clips .. "hero.animgraph", function(name) return anim.load(clips .. name .. ".anim") end))
  player = anim.animator(anim.rig("player"))
  controller = player:control(graph)
  controller:set("speed", SPEEDS[speed_step])
  controller:on_transition(function(layer, from, to, late)
    say("%.2f %s: %s -> %s", clock - late, layer, from, to)
  end)
  controller:on_enter(function(_, state, late)
    if state == "jump" then airborne_since = clock - late end
  end)
  tone = make_tone()
  player:on_marker(function(_, name, value)
    if name == "step" then
      tone:stop()
      tone:play()
      say("%.2f step %s", clock, tostring(value))
    end
  end)
  local imported = assert(anim.import_gltf(clips .. "critter.gltf"))
  critter_rig = imported.rig
  critter = anim.animator(critter_rig)
  critter:play(imported.clips.trot, { fade = 0 })
  -- the slime: its sheet's picture is painted here (the data names
  -- slime.png, which the example does not ship): frame i a blob that
  -- squashes as i goes, on the rectangle the sheet gives
  local sheet
  slime_clips, sheet = assert(anim.import_aseprite(clips .. "slime.json"))
  local data = love.image.newImageData(sheet.w, sheet.h)
  for i, r in ipairs(sheet.frames) do
    local squash = ({ 1, 0.85, 0.7, 1.25, 1.4, 0.8 })[i] or 1
    local rx, ry = 7 / math.sqrt(squash), 7 * math.sqrt(squash)
    for y = 0, r.h - 1 do
      for x = 0, r.w - 1 do
        local dx, dy = (x + 0.5 - r.w / 2) / rx, (y + 0.5 - (r.h - ry)) / ry
        if dx * dx + dy * dy <= 1 and y + 0.5 <= r.h then data:setPixel(r.x + x, r.y + y, 0.3, 0.7, 0.25, 1) end
      end
    end
  end
  sheet_image = love.graphics.newImage(data)
  sheet_image:setFilter("nearest", "nearest")
  for i, r in ipairs(sheet.frames) do quads[i] = love.graphics.newQuad(r.x, r.y, r.w, r.h, sheet.w, sheet.h) end
  slime = anim.animator(assert(anim.rig{ joints = { { name = "root" } } }))
  slime:play(slime_clips.idle, { fade = 0 })
  say("anim %s on %s, %s", anim._VERSION, _VERSION, jit and jit.version or "no JIT")
end

-- The keys set the graph's parameters and fire its triggers; it does the rest
-- in the next update.
function love.keypressed(key)
  if key == "space" then
    controller:fire("jump", { buffer = 0.15 })
    say("%.2f jump", clock)
  elseif key == "w" then
    controller:fire("wave")
    say("%.2f wave", clock)
  elseif key == "right" or key == "up" or key == "left" or key == "down" then
    local up = key == "right" or key == "up"
    speed_step = math.max(1, math.min(#SPEEDS, speed_step + (up and 1 or -1)))
    controller:set("speed", SPEEDS[speed_step])
    say("%.2f speed %g", clock, SPEEDS[speed_step])
  elseif key == "escape" then
    love.event.quit()
  end
end

-- The player's height above the ground, blocks.
local function height()
  if not airborne_since then return 0 end
  local u = (clock - airborne_since) / AIR
  return 4 * HEIGHT * u * (1 - u)
end

-- The test mode's key presses: { seconds, key }
local TEST_KEYS = { { 0.3, "w" }, { 0.8, "space" }, { 1.0, "right" } }
local next_key = 1

function love.update(dt)
  dt = math.min(dt, 0.1)
  if test_dir and TEST_KEYS[next_key] and clock >= TEST_KEYS[next_key][1] then
    love.keypressed(TEST_KEYS[next_key][2])
    next_key = next_key + 1
  end
  -- the physics: on the ground again AIR seconds after the jump started
  if airborne_since and clock >= airborne_since + AIR then airborne_since = nil end
  local grounded = airborne_since == nil or clock <= airborne_since
  if grounded ~= controller:get("grounded") then controller:set("grounded", grounded) end
  clock = clock + dt
  x_walk = x_walk + dt * SPEEDS[speed_step]
  if x_walk > 6 then x_walk = -6 end
  if clock >= hop_at then
    -- a hop over the idle: an action takes the whole frame while it plays
    hop_at = hop_at + 2.5
    slime:play(slime_clips.hop, { fade = 0, priority = "action" })
    say("%.2f slime hops", clock)
  end
  anim.update({ player, critter, slime }, dt)
  if test_dir then
    if shots[shot] and clock >= shots[shot] then
      local i = shot
      shot = shot + 1
      love.graphics.captureScreenshot(function(img)
        local png = img:encode("png"):getString()
        local f = assert(io.open(string.format("%s/shot-%d.png", test_dir, i), "wb"))
        f:write(png)
        f:close()
        f = assert(io.open(string.format("%s/shot-%d.rgba", test_dir, i), "wb"))
        f:write(img:getString())
        f:close()
        say("%.2f screenshot %d (%dx%d)", clock, i, img:getWidth(), img:getHeight())
      end)
    end
    if clock >= quit_at then
      local f = assert(io.open(test_dir .. "/log.txt", "w"))
      f:write(table.concat(log, "\n"), "\n")
      f:close()
      love.event.quit()
    end
  end
end

-- The world transform of a joint as a table of ten numbers.
local function world(a, joint) return { a:world_transform(joint) } end

function love.draw()
  love.graphics.clear(0.95, 0.95, 0.9)
  local ground = 400
  love.graphics.setColor(0.6, 0.6, 0.55)
  love.graphics.line(0, ground, 800, ground)
  if nodraw then return end
  -- the player, side view: z across (it walks toward +z), y up
  local scale, sx = 110, 400 + x_walk * 40
  local sy = ground - height() * scale
  for _, part in ipairs(PARTS) do
    local poly = outline(part, world(player, part.joint), 3, sx, sy, scale)
    love.graphics.setColor(part.colour)
    love.graphics.polygon("fill", poly)
    love.graphics.setColor(0.2, 0.2, 0.2)
    love.graphics.polygon("line", poly)
  end
  -- the critter, side view: x across (it faces +x), its bones from joint to child
  local cx = 150
  love.graphics.setLineWidth(6)
  for _, j in ipairs(critter_rig:joints()) do
    if j.parent then
      local a, b = world(critter, j.parent), world(critter, j.name)
      love.graphics.setColor(0.55, 0.35, 0.2)
      love.graphics.line(cx + a[1] * 80, ground - a[2] * 80, cx + b[1] * 80, ground - b[2] * 80)
    end
  end
  for _, j in ipairs(critter_rig:joints()) do
    local w = world(critter, j.name)
    local leg = j.name:find("Leg")
    love.graphics.setColor(0.35, 0.22, 0.12)
    if leg then
      -- a leg hangs from its joint: its foot half a unit down, turned with it
      local foot = rotate({ w[4], w[5], w[6], w[7] }, { 0, -0.5, 0 })
      love.graphics.line(cx + w[1] * 80, ground - w[2] * 80, cx + (w[1] + foot[1]) * 80, ground - (w[2] + foot[2]) * 80)
    else
      love.graphics.circle("fill", cx + w[1] * 80, ground - w[2] * 80, j.name == "head" and 14 or 9)
    end
  end
  love.graphics.setLineWidth(1)
  -- the slime: the quad of the frame its clip shows, four times its size
  love.graphics.setColor(1, 1, 1)
  love.graphics.draw(sheet_image, quads[slime:property("frame") + 1], 640, ground - 64, 0, 4, 4)
  love.graphics.setColor(0.2, 0.2, 0.2)
  love.graphics.print("arrows: speed    space: jump    W: wave    esc: quit", 10, 10)
  love.graphics.print(string.format("speed %g    base: %s    upper: %s", SPEEDS[speed_step], controller:current("base"),
    controller:current("upper")), 10, 28)
end
