-- Every example runs on its own (no input), exits 0 and prints what its
-- comment promises.
local H = require "spec.helper"

local function run(name)
  local cmd = string.format(
    "cd %q && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_PATH_5_4='lua/?.lua;lua/?/init.lua;;' " ..
    "LUA_CPATH='build/?.so;;' LUA_CPATH_5_4='build/?.so;;' lua5.4 examples/%s </dev/null 2>&1", H.root, name)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok = p:close()
  assert(ok, name .. " failed:\n" .. out)
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
    assert.truthy(server:find("play\tres://spark.anim", 1, true))
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
    assert.truthy(out:find(" 0.500  walk_step left  (footstep 2)", 1, true))
    assert.truthy(out:find("run_step left  (footstep 16)", 1, true))
    assert.truthy(out:find("after 6.0 s: 18 footsteps, 18.383 blocks forward, 0.000 sideways", 1, true))
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
    local chunk = assert(load(code, "README tour", "t", env))
    assert.is_truthy(io.open("examples/clips/walk.anim"), "the specs run from the checkout")
    chunk()
    assert.truthy(printed[1]:find("leftArm leftLeg rightArm rightLeg torso", 1, true))
  end)
end)
