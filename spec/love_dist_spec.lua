-- A LÖVE game from `make love-dist` (README.md, "In a LÖVE game"), in a
-- real LÖVE 11 under Xvfb, with no Lua path but LÖVE's own: the README's
-- main.lua in the folder make love-dist laid out, and again zipped into a
-- .love archive with the C modules beside it and the README's cpath line.
-- A harness put before the README's code empties package.path and
-- package.cpath (so that nothing of the system's folders is found: the
-- modules come from the game alone), records the animators the code
-- makes, and after 30 frames writes where a bone went and quits.  Tagged
-- long (make test-long), as spec/love_spec.lua.
local H = require "spec.helper"
local compat = require "anim.base.compat"

local function have(cmd) return compat.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true end
local sq = H.sq
local ROOT = H.popen("cd " .. sq(H.root) .. " && pwd"):gsub("\n$", "")
local README = H.read(H.root .. "/README.md")

-- The first ```lua block after the text `after` in README.md.
local function block_after(after)
  local at = assert(README:find(after, 1, true), after)
  return assert(README:match("```lua\n(.-)\n```", at), after)
end

local HARNESS = [[
-- (an error quits, written where the spec reads, instead of LÖVE's error screen)
function love.errorhandler(msg)
  local out = io.open(os.getenv("ANIM_DIST_OUT"), "w")
  out:write("error: " .. tostring(msg) .. "\n")
  out:close()
end
package.path, package.cpath = "", ""
%s
local harness_anim = require "anim"
local harness_made, harness_frames, harness_first = {}, 0, nil
local harness_animator = harness_anim.animator
harness_anim.animator = function(...)
  local a = harness_animator(...)
  harness_made[#harness_made + 1] = a
  return a
end
local function harness_wrap()
  local update = love.update
  love.update = function(dt)
    update(1 / 30)
    harness_frames = harness_frames + 1
    local a = harness_made[1]
    -- (the leg turns about its hip: its rotation moves)
    local now = { a:world_transform("rightLeg") }
    if harness_frames == 1 then harness_first = now end
    if harness_frames == 30 then
      local out = io.open(os.getenv("ANIM_DIST_OUT"), "w")
      out:write(string.format("frames %%d animators %%d cjson %%s moved %%.6f\n", harness_frames, #harness_made,
        tostring(package.loaded.cjson ~= nil), math.abs(now[4] - harness_first[4]) + math.abs(now[7] - harness_first[7])))
      out:close()
      love.event.quit()
    end
  end
end
]]

-- Runs the game (a folder or a .love) under Xvfb from a fresh environment;
-- returns what the harness wrote, LÖVE's output.
local function run(game, out)
  os.remove(out)
  local log = H.fresh("timeout 60 xvfb-run -a -s '-screen 0 1024x768x24' love " .. sq(game), os.getenv("HOME") or "/tmp",
    "ALSOFT_DRIVERS=null ANIM_DIST_OUT=" .. sq(out))
  local f = io.open(out)
  local text = f and f:read("*a") or ""
  if f then f:close() end
  return text, log
end

-- main.lua: the harness (with extra lines before require "anim"), the
-- README's game, then the harness's hook on love.update (love.load runs
-- after main.lua: the README's love.update is there by then).
local function main_lua(before)
  return HARNESS:format(before or "") .. "\n" .. block_after("### In a LÖVE game") .. "\nharness_wrap()\n"
end

describe("#long a LÖVE game from make love-dist", function()
  if not (have("love") and have("xvfb-run") and have("zip")) then
    it("needs love, xvfb-run and zip", function() pending("apt-get install love xvfb zip") end)
    return
  end
  local dir
  before_each(function() dir = H.tmpdir() end)
  after_each(function() os.execute("rm -rf " .. sq(dir)) end)

  local function dist(extra)
    local out, code = H.popen(string.format("cd %s && make -s love-dist OUT=%s %s 2>&1", sq(ROOT), sq(dir .. "/game"), extra or ""))
    assert(code == 0, out)
    return out
  end

  it("runs the README's main.lua from the folder it lays out", function()
    dist()
    H.write(dir .. "/game/main.lua", main_lua())
    os.execute("cp " .. sq(ROOT .. "/examples/clips/walk.anim") .. " " .. sq(dir .. "/game/"))
    local text, log = run(dir .. "/game", dir .. "/out.txt")
    assert.truthy(text:find("^frames 30 animators 1 cjson true moved"), text .. "\n" .. log)
    assert.is_true(tonumber(text:match("moved (%S+)")) > 0.01, text)
  end)

  it("runs from a .love archive with the C modules beside it and the README's cpath line", function()
    dist()
    local cpath_line = block_after("fused executable")
    assert.truthy(cpath_line:find("getSourceBaseDirectory", 1, true), cpath_line)
    local game = dir .. "/game"
    H.write(game .. "/main.lua", main_lua(cpath_line))
    os.execute("cp " .. sq(ROOT .. "/examples/clips/walk.anim") .. " " .. sq(game .. "/"))
    -- the archive without the .so files; they go beside it
    local ship = dir .. "/ship"
    local out, code = H.popen(string.format("mkdir -p %s/anim && cd %s && zip -qr %s . -x '*.so' && cp anim/core.so %s/anim/ && cp cjson.so %s/ 2>&1",
      sq(ship), sq(game), sq(ship .. "/game.love"), sq(ship), sq(ship)))
    assert(code == 0, out)
    local text, log = run(ship .. "/game.love", dir .. "/out.txt")
    assert.truthy(text:find("^frames 30 animators 1 cjson true moved"), text .. "\n" .. log)
  end)

  it("fails without the C modules: the check sees them missing", function()
    dist()
    local game = dir .. "/game"
    os.remove(game .. "/cjson.so")
    H.write(game .. "/main.lua", main_lua())
    os.execute("cp " .. sq(ROOT .. "/examples/clips/walk.anim") .. " " .. sq(game .. "/"))
    local text = run(game, dir .. "/out.txt")
    assert.truthy(text:find("^error: .*module 'cjson' not found"), text)
  end)

  it("adds the importers' modules when asked", function()
    local out = dist("LOVE_IMPORTERS=1")
    for _, m in ipairs { "cjson.so", "lpeg.so", "lxp.so", "anim/core.so", "anim/init.lua" } do
      assert.truthy(io.open(dir .. "/game/" .. m), m .. " missing: " .. out)
    end
  end)

  it("make love-dist without OUT says how to call it", function()
    local out, code = H.popen(string.format("cd %s && make -s love-dist 2>&1", sq(ROOT)))
    assert.are_not.equal(0, code)
    assert.truthy(out:find("make love-dist OUT=mygame", 1, true), out)
  end)
end)
