-- examples/love2d/main.lua: a 2D character from a Spine JSON export in
-- LÖVE 11 (`make love2d`).
--
-- The hero (hero/: a Spine 4.1 JSON export, its atlas and page, made by
-- tools/make-love2d-hero.lua) read by anim.decode_spine through
-- love.filesystem (so it also reads them from a fused .love), played by one
-- animator under a state machine (idle, walk, wave) and drawn by anim.love
-- (one mesh per atlas page, filled in C each frame).  Its right arm aims
-- at the mouse: a two-bone IK constraint whose target bone follows the
-- pointer (an override of its position); the wave clip turns the IK's
-- mix to 0 while it waves.  The scarf is a weighted mesh that the idle
-- clip deforms; the skins "blue" and "gold" switch its head and torso.
--
-- Keys: left/right walk (the `speed` parameter), W waves (a trigger), S
-- switches the skin, space pauses, esc quits.  Events (the steps, with
-- their int and audio path; the blinks) are printed and shown.
--
-- Check mode (spec/love2d_spec.lua): ANIM_LOVE2D_TEST=DIR draws the hero
-- at chosen instants (idle, walking, waving, the gold skin, the aim at a
-- pointer) as DIR/shot-N.png (and its raw RGBA, shot-N.rgba), writes what
-- happened to DIR/log.txt and quits.  ANIM_LOVE2D_NODRAW=1 draws no hero
-- (for the spec to check that its checks can fail).
local root = love.filesystem.getSource() .. "/../.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = root .. "/build/luajit/?.so;" .. package.cpath

local anim = require "anim"
local draw2d = require "anim.love"

local test_dir = os.getenv("ANIM_LOVE2D_TEST")

local log = {}
local function say(fmt, ...)
  local line = string.format(fmt, ...)
  log[#log + 1] = line
  print(line)
  if #log > 200 then table.remove(log, 1) end
end

local hero, ctl, images, aim
local ground_x, ground_y, speed, paused, skin = 400, 440, 0, false, "blue"
local clock = 0

local GRAPH = {
  version = 1,
  parameters = { speed = { type = "float" }, wave = { type = "trigger" } },
  layers = { {
    name = "base", entry = "idle",
    states = { idle = { clip = "idle" }, walk = { clip = "walk" }, wave = { clip = "wave", loop = "once" } },
    transitions = {
      { from = "idle", to = "walk", when = { { "speed", ">", 0.1 } }, duration = 0.2 },
      { from = "walk", to = "idle", when = { { "speed", "<=", 0.1 } }, duration = 0.25 },
      { from = "idle", to = "wave", when = { { "wave" } }, duration = 0.15 },
      { from = "walk", to = "wave", when = { { "wave" } }, duration = 0.15 },
      { from = "wave", to = "idle", exit_time = 1, duration = 0.2 },
    },
  } },
}

function love.load()
  local result = assert(anim.decode_spine(love.filesystem.read("hero/hero.json"), "hero/hero.json",
    love.filesystem.read("hero/hero.atlas"), "hero/hero.atlas"))
  for _, w in ipairs(result.warnings or {}) do say("warning: %s", w) end
  images = { ["hero.png"] = love.graphics.newImage("hero/hero.png") }
  hero = anim.animator(result.skeleton)
  hero:skin(skin)
  ctl = hero:control(assert(anim.graph(GRAPH, result.clips)))
  ctl:on_enter(function(_, state, late) say("%7.3f enter %s", clock - late, state) end)
  hero:on_event(function(_, name, payload, late)
    local extra = {}
    for _, k in ipairs({ "int", "float", "string", "audio" }) do
      if payload and payload[k] ~= nil and payload[k] ~= 0 and payload[k] ~= "" then
        extra[#extra + 1] = k .. "=" .. tostring(payload[k])
      end
    end
    say("%7.3f event %s %s", clock - late, name, table.concat(extra, " "))
  end)
  -- the IK's target follows the pointer: an override of the "aim" bone's
  -- position (an offset from its setup place, 90, 150)
  aim = hero:override("aim", { position = { 0, 0, 0 } })
end

-- The pointer in the skeleton's axes (y up, its root at the ground mark).
local function aim_at(mx, my)
  aim.position = { mx - ground_x - 90, (ground_y - my) - 150, 0 }
end

function love.update(dt)
  if paused then return end
  clock = clock + dt
  if not test_dir then aim_at(love.mouse.getPosition()) end
  local want = (love.keyboard.isDown("right") and 1 or 0) - (love.keyboard.isDown("left") and 1 or 0)
  if not test_dir then speed = want * 1.5 end
  ctl:set("speed", math.abs(speed))
  ground_x = (ground_x + speed * 90 * dt) % 800
  hero:update(dt)
end

function love.keypressed(key)
  if key == "escape" then love.event.quit()
  elseif key == "space" then paused = not paused
  elseif key == "w" then ctl:fire("wave")
  elseif key == "s" then
    skin = skin == "blue" and "gold" or "blue"
    hero:skin(skin)
    say("skin %s", skin)
  end
end

function love.draw()
  love.graphics.clear(0.55, 0.75, 0.95)
  love.graphics.setColor(0.35, 0.6, 0.3)
  love.graphics.rectangle("fill", 0, ground_y, 800, 60)
  love.graphics.setColor(1, 1, 1)
  if os.getenv("ANIM_LOVE2D_NODRAW") ~= "1" then
    draw2d.draw(hero, images, ground_x, ground_y, 0, speed < 0 and -1 or 1, 1)
  end
  love.graphics.setColor(0, 0, 0)
  love.graphics.print(string.format("state %s  skin %s  (arrows walk, W waves, S skin)", ctl:current(), skin), 10, 10)
  for i = math.max(1, #log - 8), #log do love.graphics.print(log[i], 10, 30 + 14 * (i - math.max(1, #log - 8))) end
  love.graphics.setColor(1, 1, 1)
end

-- Check mode: a scripted run, screenshots at chosen frames.
if test_dir then
  local steps = {
    { 1.0, function() aim_at(560, 250) end, "idle, the arm aiming up right" },
    { 1.0, function() speed = 1.5 end, "walking" },
    { 0.6, function() ctl:fire("wave") end, "waving" },
    { 1.5, function() skin = "gold" hero:skin(skin) speed = 0 aim_at(300, 330) end, "gold skin, aiming down left" },
  }
  local step, t, shots = 1, 0, 0
  local dt = 1 / 60
  function love.run()
    love.load()
    return function()
      if love.event then
        love.event.pump()
        for name in love.event.poll() do if name == "quit" then return 0 end end
      end
      if not steps[step] then
        local f = assert(io.open(test_dir .. "/log.txt", "w"))
        f:write(table.concat(log, "\n"), "\n")
        f:close()
        return 0
      end
      if t == 0 then steps[step][2]() end
      love.update(dt)
      t = t + dt
      local shoot = t >= steps[step][1]
      if shoot then
        -- (taken at the end of this frame's present: the frame drawn below)
        shots = shots + 1
        local name = string.format("shot-%d.png", shots)
        love.graphics.captureScreenshot(function(img)
          local f = assert(io.open(test_dir .. "/" .. name, "wb"))
          f:write(img:encode("png"):getString())
          f:close()
          f = assert(io.open(test_dir .. "/" .. name:gsub("png$", "rgba"), "wb"))
          f:write(img:getString())
          f:close()
        end)
        say("shot %d: %s", shots, steps[step][3])
      end
      love.graphics.origin()
      love.graphics.clear()
      love.draw()
      love.graphics.present()
      if shoot then step, t = step + 1, 0 end
    end
  end
end
