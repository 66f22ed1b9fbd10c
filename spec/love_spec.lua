-- The LÖVE example (examples/love/) in a real LÖVE 11 under Xvfb (issue
-- 21): it runs in its test mode (ANIM_LOVE_TEST: scripted key presses,
-- screenshots at set times, quit after 2 s), with OpenAL's null driver
-- where there is no sound card.  The check: the figures are drawn (pixels
-- unlike the background where the rig stands) and move (two screenshots
-- differ there); with ANIM_LOVE_NODRAW the same check must fail, so it
-- can tell.  The screenshots stay in build/love/ for a person to look at.
-- Needs `love`, `xvfb-run` and the core built for LuaJIT (make love-test
-- installs and builds them); tagged long: make test-long runs it.
local H = require "spec.helper"
local love_run = require "spec.love_run"

local OUT = H.root .. "/build/love"


-- Runs the example in test mode, its output in dir; returns ok, log.
local function run(dir, env)
  os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")
  local cmd = string.format(
    "cd %q && ALSOFT_DRIVERS=null ANIM_LOVE_TEST=%q ANIM_LOVE_SHOTS=0.5,1.5 ANIM_LOVE_SECONDS=2 %s "
      .. "timeout 60 xvfb-run -a -s '-screen 0 1024x768x24' love examples/love 2>&1",
    H.root, dir, env or "")
  local out, code = H.popen(cmd)
  return code == 0, out
end

-- The raw RGBA screenshot i of dir: width, height, bytes.
local function shot(dir, i)
  local f = assert(io.open(string.format("%s/shot-%d.rgba", dir, i), "rb"))
  local bytes = f:read("*a")
  f:close()
  -- the window is 800 x 500 (conf.lua)
  assert.are.equal(800 * 500 * 4, #bytes)
  return 800, 500, bytes
end

-- Pixels of the rectangle that differ from the background (0.95, 0.95,
-- 0.9 = 242, 242, 230), and those that differ between two shots.
local function figure_pixels(bytes, x0, y0, x1, y1)
  local n = 0
  for y = y0, y1, 2 do
    for x = x0, x1, 2 do
      local i = (y * 800 + x) * 4 + 1
      local r, g, b = bytes:byte(i, i + 2)
      if math.abs(r - 242) + math.abs(g - 242) + math.abs(b - 230) > 30 then n = n + 1 end
    end
  end
  return n
end

local function changed(a, b, x0, y0, x1, y1)
  local n = 0
  for y = y0, y1, 2 do
    for x = x0, x1, 2 do
      local i = (y * 800 + x) * 4 + 1
      if a:byte(i) ~= b:byte(i) or a:byte(i + 1) ~= b:byte(i + 1) then n = n + 1 end
    end
  end
  return n
end

-- The check of the example's screenshots: whether both figures are drawn
-- and move.  Returns ok, what it saw.
local function check(dir)
  local _, _, s1 = shot(dir, 1)
  local _, _, s2 = shot(dir, 2)
  -- where the player walks (above the ground line at y 400) and where the critter stands
  local player1, player2 = figure_pixels(s1, 200, 150, 600, 398), figure_pixels(s2, 200, 150, 600, 398)
  local critter = figure_pixels(s1, 60, 250, 260, 398)
  local moved = changed(s1, s2, 0, 100, 799, 398)
  local seen = string.format("player %d and %d pixels, critter %d, %d changed between the shots",
    player1, player2, critter, moved)
  return player1 > 200 and player2 > 200 and critter > 50 and moved > 200, seen
end

describe("#long the LÖVE example", function()
  if not love_run.ready("love-test") then return end

  it("draws the player and the critter, moving, plays its step sound and takes the key presses", function()
    local ok, out = run(OUT)
    assert(ok, out)
    local good, seen = check(OUT)
    assert(good, seen .. "\n" .. out)
    local log = H.read(OUT .. "/log.txt")
    assert.truthy(log:find("LuaJIT", 1, true), log)
    assert.truthy(log:find("step", 1, true), log)       -- the walk's markers fired (and played the tone)
    assert.truthy(log:find("%d wave"), log)             -- the scripted W fired the graph's wave trigger
    -- the player's state machine (examples/clips/hero.animgraph) took the keys:
    -- W waved on the upper layer, space jumped, the jump clip's end fell
    assert.truthy(log:find("%d upper: none %-> wave"), log)
    assert.truthy(log:find("0%.8%d base: walk %-> jump"), log)
    assert.truthy(log:find("%d base: jump %-> fall"), log)
    assert.truthy(log:find("%d speed 4"), log)          -- the scripted right arrow
    assert.truthy(log:find("screenshot 2", 1, true), log)
    -- the pictures a person can look at
    assert.truthy(io.open(OUT .. "/shot-1.png"))
    assert.truthy(io.open(OUT .. "/shot-2.png"))
  end)

  it("has a check that fails when the example draws nothing", function()
    local dir = OUT .. "-nodraw"
    local ok, out = run(dir, "ANIM_LOVE_NODRAW=1")
    assert(ok, out)
    local good, seen = check(dir)
    assert.is_false(good, seen)
  end)
end)
