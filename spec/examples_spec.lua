-- Every example runs on its own (no input), exits 0 and prints what its
-- comment promises.
local H = require "spec.helper"
local compat = require "anim.base.compat"

local function run(name)
  local cmd = string.format(
    "cd %q && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_PATH_5_4='lua/?.lua;lua/?/init.lua;;' " ..
    "LUA_CPATH='%s/?.so;;' LUA_CPATH_5_4='%s/?.so;;' %s examples/%s </dev/null 2>&1", H.root, H.build, H.build, H.lua, name)
  local out, code = H.popen(cmd)
  assert(code == 0, name .. " failed:\n" .. out)
  return out
end

describe("examples", function()
  it("walk.lua: a game loop with an action fading in and out, callbacks printed as they fire", function()
    local out = run("walk.lua")
    assert.truthy(out:find(" 0.250  marker step  right", 1, true))
    assert.truthy(out:find(" 1.000  play wave (fade 0.25)", 1, true))
    assert.truthy(out:find(" 2.000  wave stopped", 1, true))
    assert.truthy(out:find("wave ended (faded out)", 1, true))
    assert.truthy(out:find("event  dust", 1, true))
  end)

  it("events.lua: markers, events, sounds and plays, filtered by side", function()
    local out = run("events.lua")
    local server = out:match("%-%- server animator %-%-(.-)%-%- client")
    local client = out:match("%-%- client animator %-%-(.-)%-%- both")
    assert.truthy(server:find("event\tdamage", 1, true))
    assert.is_nil(server:find("sound", 1, true))
    assert.truthy(server:find("play\tres://spark.anim\t(a plays item of res://attack.anim)", 1, true))
    assert.truthy(client:find("sound\tswing", 1, true))
    assert.truthy(client:find("event\tshake", 1, true))
    assert.is_nil(client:find("play", 1, true))
  end)

  it("retarget.lua: the goblin's hands swing forward and back like the player's", function()
    local out = run("retarget.lua")
    assert.truthy(out:find("leftArm   -> arm_l  (map)", 1, true))
    -- at 0.5 s both hands are forward (+z); through the names-only map the goblin's is not
    local line = out:match("\n  0%.500 ([^\n]+)")
    local z = {}
    for v in line:gmatch("(%-?%d+%.%d+)%)") do z[#z + 1] = tonumber(v) end
    assert.is_true(z[1] > 0.2 and z[2] > 0.1)
    assert.is_true(math.abs(z[3]) < 1e-3)
  end)

  it("convert.lua: legacy XML to a version 3 file that plays the same within the stated bound", function()
    local out = run("convert.lua")
    assert.truthy(out:find("imported nod: 2 s, loop, joints head, leftArm, rightArm, root", 1, true))
    local bound = tonumber(out:match("within ([%d%.e%-]+)"))
    local worst = tonumber(out:match("largest difference over 0..2 s: ([%d%.e%-]+)"))
    assert.is_true(bound > 0 and bound < 1e-4)
    assert.is_true(worst <= bound)
  end)

  it("sprite.lua: a sprite-frame character idles, hops over it and lands, frame by frame", function()
    local out = run("sprite.lua")
    assert.truthy(out:find("sheet slime.png, 96x16, 6 frames", 1, true))
    assert.truthy(out:find("  0.30  frame 2  quad(32, 0, 16, 16, 96, 16)", 1, true)) -- idle's ping-pong turn
    assert.truthy(out:find("  0.50  frame 1  quad", 1, true))
    assert.truthy(out:find("hop %(priority action%)\n  0.52  frame 3  quad%(48, 0, 16, 16, 96, 16%)"))
    assert.truthy(out:find("marker land, 0.000 s before the end of this update\n  0.70  frame 5"))
    assert.truthy(out:find("hop ended: idle again\n  0.82  frame 1"))
  end)

  it("the LÖVE example draws the sprite-frame slime (headless, when LÖVE and Xvfb are here)", function()
    local have = compat.execute("command -v love >/dev/null 2>&1 && command -v xvfb-run >/dev/null 2>&1")
    local core = io.open(H.root .. "/build/luajit/anim/core.so")
    if not have or not core then
      pending("needs love, xvfb-run and the core for LuaJIT (make build LUA=luajit)")
      return
    end
    core:close()
    local function shot(nodraw)
      local dir = H.tmpdir()
      local cmd = string.format("cd %q && timeout 60 xvfb-run -a -s '-screen 0 800x600x24' env ANIM_LOVE_TEST=%q "
        .. "ANIM_LOVE_SECONDS=1.6 ANIM_LOVE_SHOTS=1.4 SDL_AUDIODRIVER=dummy %s love examples/love >/dev/null 2>&1",
        H.root, dir, nodraw and "ANIM_LOVE_NODRAW=1" or "")
      os.execute(cmd)
      local f = io.open(dir .. "/shot-1.rgba", "rb")
      local px = f and f:read("*a")
      if f then f:close() end
      local log = io.open(dir .. "/log.txt") and H.read(dir .. "/log.txt") or ""
      os.execute("rm -rf " .. string.format("%q", dir))
      return px, log
    end
    -- the slime's green, in its place (x 640..704, above the ground at 400)
    local function green(px)
      local n = 0
      for y = 330, 399 do
        for x = 630, 710 do
          local i = (y * 800 + x) * 4
          local r, g, b = px:byte(i + 1, i + 3)
          if g > 150 and r < 120 and b < 100 then n = n + 1 end
        end
      end
      return n
    end
    local px, log = shot(false)
    assert.truthy(px, "no screenshot")
    assert.truthy(log:find("1.2%d slime hops"), log)
    assert.is_true(green(px) > 500, "slime pixels: " .. green(px))
    local none = shot(true)
    assert.are.equal(0, green(none))
  end)

  it("character.lua: walks, then runs, by a blend space; moves by root motion; looks at the lamp", function()
    local out = run("character.lua")
    assert.truthy(out:find(" 1.000    speed 1.40 (walk 1.00, run 0.00)  moving 1.40 blocks/s", 1, true))
    assert.truthy(out:find(" 2.000    speed 2.70 (walk 0.50, run 0.50)  moving 2.37 blocks/s", 1, true))
    assert.truthy(out:find(" 6.000    speed 4.00 (walk 0.00, run 1.00)  moving 4.00 blocks/s  at z 18.316", 1, true))
    -- the head on the lamp every time it is measured
    local n = 0
    for off in out:gmatch("([%d.e+-]+)° off the lamp") do
      n = n + 1
      assert.is_true(tonumber(off) < 1e-9, off)
    end
    assert.are.equal(12, n)
    -- footsteps of the clip that weighs most, walking then running
    assert.truthy(out:find(" 0.500  walk_step left  (footstep 2 of the walk)", 1, true))
    assert.truthy(out:find("run_step left  (footstep 16 of the run)", 1, true))
    assert.truthy(out:find("after 6.0 s: 18 footsteps, 18.383 blocks forward, 0.000 sideways", 1, true))
  end)

  it("statemachine.lua: a graph's two layers driven by a script of inputs, transitions at their instants", function()
    local out = run("statemachine.lua")
    local function has(line) assert.truthy(out:find("\n" .. line .. "\n", 1, true), line .. " not in:\n" .. out) end
    -- the entry states, from the start of the first update (late = its dt)
    has(" 0.000  base   enter idle (0.033 s before the end of the update)")
    has(" 0.000  upper  enter none (0.033 s before the end of the update)")
    -- a parameter set before an update: the transition at that update's start
    has(" 0.500  input  speed 1.2\n 0.500  base   idle -> walk")
    has(" 2.000  base   walk -> run")
    -- a trigger: the jump in that update, its marker at the same instant
    has(" 3.000  base   run -> jump\n 3.000  base   enter jump (0.033 s before the end of the update)\n"
      .. " 3.000  marker takeoff (examples/clips/jump.anim)")
    -- the jump clip's end (an exit time of 1): between two frames
    has(" 3.450  base   jump -> fall\n 3.450  base   enter fall (0.017 s before the end of the update)")
    -- the upper layer (mask rightArm) waves for two loops of the 0.8 s clip
    has(" 3.200  upper  none -> wave")
    has(" 4.800  upper  wave -> none")
    -- the buffered jump pressed at 3.4 expired in the air; the one at 3.8 fires on landing
    assert.is_nil(out:find("3%.[4-7]%d%d  base   %a+ %-> jump"))
    has(" 3.867  world  grounded (landed)\n 3.867  base   fall -> jump")
    has(" 4.733  base   fall -> land")
    has(" 4.733  marker land (examples/clips/land.anim)")
    -- land -> run at the land clip's half (0.15 s in), between frames
    has(" 4.883  base   land -> run\n 4.883  base   enter run (0.017 s before the end of the update)")
    has(" 5.000  state  base run 0.194, upper none 0.200 (base fading land -> run, 58%)")
    has(" 6.500  base   walk -> idle")
    has(" 8.200  upper  wave -> none")
    has(" 9.000  state  base idle 1.250, upper none 0.800")
  end)

  it("the README's tour runs as written", function()
    local readme = H.read(H.root .. "/README.md")
    local code = readme:match("## A tour.-```lua\n(.-)```")
    assert.truthy(code, "no tour in the README")
    -- run in an environment whose print records, from the checkout (the
    -- tour names files relative to it)
    local printed = {}
    local env = setmetatable({ print = function(...) printed[#printed + 1] = table.concat({ ... }, " ") end },
      { __index = _G })
    local chunk = assert(compat.load(code, "README tour", "t", env))
    assert.is_truthy(io.open("examples/clips/walk.anim"), "the specs run from the checkout")
    chunk()
    assert.truthy(printed[1]:find("leftArm leftLeg rightArm rightLeg torso", 1, true))
  end)
end)
