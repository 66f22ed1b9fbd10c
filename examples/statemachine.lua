-- examples/statemachine.lua: a character's animation logic as data.  The
-- player rig runs examples/clips/hero.animgraph, a state machine of two
-- layers: the base layer idles, walks or runs by the `speed` parameter,
-- jumps on the `jump` trigger while `grounded`, falls when the jump clip
-- ends (an exit time) and lands when `grounded` again; the upper layer
-- plays nothing (an empty state) until the `wave` trigger, then waves the
-- right arm (its mask) for two loops of the clip.  A script of inputs
-- ({ time, action }) plays the player's part; a few lines of physics keep
-- it in the air 0.85 s after each jump starts.  The second jump is pressed
-- in the air with a buffer of 0.2 s: it is kept until the landing and
-- fires there.  Exit-time transitions start at their exact instant,
-- between frames.  Run with `make statemachine`.
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local clips = here .. "/clips/"
-- the graph names its clips; each is the .anim file of that name beside it
local graph = assert(anim.graph(clips .. "hero.animgraph", function(name) return anim.load(clips .. name .. ".anim") end))
print(string.format("hero.animgraph: layers %s; base states %s", table.concat(graph:layers(), ", "),
  table.concat(graph:states("base"), ", ")))

local hero = anim.animator(anim.rig("player"))
local ctl = hero:control(graph)
local clock = 0
local function say(at, who, what) print(string.format("%6.3f  %-6s %s", at, who, what)) end

-- when the jump starts (now - late: its exact instant), the physics starts
local AIR = 0.85
local airborne_since, steps = nil, 0
ctl:on_transition(function(layer, from, to, late) say(clock - late, layer, from .. " -> " .. to) end)
ctl:on_enter(function(layer, state, late)
  say(clock - late, layer, string.format("enter %s (%.3f s before the end of the update)", state, late))
  if state == "jump" then airborne_since = clock - late end
end)
hero:on_marker(function(_, name, value, late, clip)
  if name == "step" then steps = steps + 1 return end
  say(clock - late, "marker", name .. (value and " " .. tostring(value) or "") .. " (" .. clip.name .. ")")
end)

-- The player's inputs: { time, action [, value] }, applied before the
-- first update that starts at or after their time.
local script = {
  { 0.5, "speed", 1.2 },
  { 2.0, "speed", 4 },
  { 3.0, "jump" },
  { 3.2, "wave" },
  { 3.4, "jump", 0.2 },   -- too early: its buffer runs out in the air
  { 3.8, "jump", 0.2 },   -- buffered until the landing, 0.07 s later
  { 5.5, "speed", 1.5 },
  { 6.5, "speed", 0 },
  { 6.6, "wave" },
}

local dt, frames = 1 / 30, 270
local next_input = 1
for frame = 1, frames do
  local now = (frame - 1) * dt
  while script[next_input] and script[next_input][1] <= now + 1e-9 do
    local input = script[next_input]
    next_input = next_input + 1
    if input[2] == "speed" then
      ctl:set("speed", input[3])
      say(now, "input", string.format("speed %g", input[3]))
    elseif input[3] then
      ctl:fire(input[2], { buffer = input[3] })
      say(now, "input", string.format("%s (buffered %g s)", input[2], input[3]))
    else
      ctl:fire(input[2])
      say(now, "input", input[2])
    end
  end
  -- the physics: on the ground again AIR seconds after the jump started
  if airborne_since and now >= airborne_since + AIR - 1e-9 then airborne_since = nil end
  local grounded = airborne_since == nil or now <= airborne_since + 1e-9
  if grounded ~= ctl:get("grounded") then
    ctl:set("grounded", grounded)
    say(now, "world", grounded and "grounded (landed)" or "in the air")
  end
  clock = frame * dt
  hero:update(dt)
  if frame % 30 == 0 then
    local base, bt = ctl:current("base")
    local upper, ut = ctl:current("upper")
    local from, to, progress = ctl:transition("base")
    say(clock, "state", string.format("base %s %.3f, upper %s %.3f%s", base, bt, upper, ut,
      from and string.format(" (base fading %s -> %s, %.0f%%)", from, to, progress * 100) or ""))
  end
end
print(string.format("after %.1f s: %d footsteps", clock, steps))
