-- The 2D LÖVE example (examples/love2d/, issue 40): a Spine character of
-- our own (examples/love2d/hero/, tools/make-love2d-hero.lua) read by
-- anim.decode_spine, run by a state machine, drawn by anim.love.  Tagged
-- long (make love2d-test and make test-long run it): the example in a real
-- LÖVE 11 under Xvfb in its check mode, four shots (idle aiming up right,
-- walking, waving, the gold skin aiming down left).  The checks: the
-- hero is drawn (the blue of its shirt, the gold of the other skin, the
-- red of its scarf), the shots differ, the log says what happened (the
-- states entered, the step events with their int and audio path); and
-- they fail when the example draws no hero (ANIM_LOVE2D_NODRAW).
-- The screenshots stay in build/love2d/.
local H = require "spec.helper"
local love_run = require "spec.love_run"

local OUT = H.root .. "/build/love2d"
local unpack = table.unpack or unpack -- luacheck: ignore

local function run(dir, env) return love_run.run("love2d", "ANIM_LOVE2D_TEST", dir, env) end
local shot, differ = love_run.shot, love_run.differ

-- Pixels near a colour of the atlas (within 40 a channel).
local function pixels(bytes, r0, g0, b0)
  local n = 0
  for i = 1, #bytes, 4 do
    local r, g, b = bytes:byte(i, i + 2)
    if math.abs(r - r0) < 40 and math.abs(g - g0) < 40 and math.abs(b - b0) < 40 then n = n + 1 end
  end
  return n
end
local BLUE, GOLD, RED = { 0x2f, 0x5f, 0xb3 }, { 0xd8, 0xa9, 0x28 }, { 0xc8, 0x32, 0x3c }

local function check(dir)
  local s = {}
  for i = 1, 4 do s[i] = shot(dir, i) end
  local blue, red, gold = pixels(s[1], unpack(BLUE)), pixels(s[1], unpack(RED)), pixels(s[4], unpack(GOLD))
  local moved = differ(s[1], s[2])
  local seen = string.format("blue %d, scarf red %d, gold %d, %d pixels changed between idle and walk", blue, red, gold,
    moved)
  return blue > 800 and red > 150 and gold > 800 and moved > 1000, seen
end

describe("#long the 2D LÖVE example", function()
  if not love_run.ready("love2d-test") then return end

  it("draws the Spine hero: idle, walking, waving, the gold skin; its events and states in the log", function()
    local ok, out = run(OUT)
    assert(ok, out)
    local good, seen = check(OUT)
    assert(good, seen .. "\n" .. out)
    print("\n" .. seen)
    local log = H.read(OUT .. "/log.txt")
    assert.truthy(log:find("enter walk", 1, true), log)
    assert.truthy(log:find("enter wave", 1, true), log)
    assert.truthy(log:find("event step int=1 audio=step.ogg", 1, true), log)
    for i = 1, 4 do assert.truthy(io.open(string.format("%s/shot-%d.png", OUT, i))) end
  end)

  it("has checks that fail when the example draws no hero", function()
    local dir = OUT .. "-nodraw"
    local ok, out = run(dir, "ANIM_LOVE2D_NODRAW=1")
    assert(ok, out)
    local good, seen = check(dir)
    assert.is_false(good, seen)
  end)
end)
