-- One's own scripts find the module (README.md, "Use it from your own
-- code"): from a fresh shell with only the documented setup, the
-- README's tour saved as tour.lua runs from the checkout and a script runs
-- from any other folder; and `require "anim"` with playing .anim clips
-- needs no importer dependency (LPeg, expat, argparse hidden).  The
-- LuaRocks tree's setup is spec/install_spec.lua's, LÖVE's
-- spec/love_dist_spec.lua's.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"

local ROOT = H.popen("cd " .. H.sq(H.root) .. " && pwd"):gsub("\n$", "")
local README = H.read(H.root .. "/README.md")

-- The first ```lua block after the heading, or nil.
local function block_after(heading)
  local at = README:find(heading, 1, true)
  if not at then return nil end
  return README:match("```lua\n(.-)\n```", at)
end

local sq, fresh = H.sq, H.fresh

-- (`make env` builds the core of the checkout: under make asan, whose copy
-- of the tree holds the sanitized core in build/, it would build over it;
-- under valgrind it tests nothing more)
local describe_plain = H.instrumented and pending or describe

describe_plain("one's own script", function()
  it("README names the setup this spec runs", function()
    assert.truthy(README:find('eval "$(make env)"', 1, true), "README.md lost its setup line")
    assert.truthy(README:find("lua5.4 mygame.lua", 1, true))
    -- (spec/install_spec.lua runs these two in a fresh shell)
    assert.truthy(README:find("luarocks --lua-version=5.4 make --local --deps-mode=none", 1, true))
    assert.truthy(README:find('eval "$(luarocks --lua-version=5.4 path)"', 1, true))
    -- (spec/love_dist_spec.lua runs this one)
    assert.truthy(README:find("make love-dist OUT=mygame", 1, true))
    assert.truthy(block_after("## A tour"), "no tour in README.md")
  end)

  it("runs the README's tour as tour.lua from a fresh shell after eval \"$(make env)\"", function()
    local dir = H.tmpdir()
    H.write(dir .. "/tour.lua", block_after("## A tour"))
    local out, code = fresh(string.format('cd %s && eval "$(make env LUA=%s)" && %s %s', sq(ROOT), H.lua, H.lua, sq(dir .. "/tour.lua")), dir)
    os.execute("rm -rf " .. sq(dir))
    assert(code == 0, out)
    -- the tour prints its callbacks
    assert.truthy(out:find("marker", 1, true), out)
  end)

  it("runs a script from another folder, and without make env it is not found", function()
    local dir = H.tmpdir()
    H.write(dir .. "/mygame.lua", string.format([[
      local anim = require "anim"
      local walk = assert(anim.load(%q))
      local a = anim.animator(anim.rig("player"))
      a:play(walk)
      a:update(0.25)
      print("pose", a:local_transform("rightLeg"))
    ]], ROOT .. "/examples/clips/walk.anim"))
    local out, code = fresh(string.format('cd %s && eval "$(make env LUA=%s)" && cd %s && %s mygame.lua', sq(ROOT), H.lua, sq(dir), H.lua), dir)
    assert(code == 0, out)
    assert.truthy(out:find("pose", 1, true), out)
    -- (what the README's setup cures)
    local out2, code2 = fresh(string.format("cd %s && %s mygame.lua", sq(dir), H.lua), dir)
    os.execute("rm -rf " .. sq(dir))
    assert.are_not.equal(0, code2)
    assert.truthy(out2:find("module 'anim' not found", 1, true), out2)
  end)

  it("make env puts the checkout in front of the paths the shell had", function()
    local out, code = fresh(string.format(
      "LUA_PATH='/mine/?.lua' && export LUA_PATH && cd %s && eval \"$(make env LUA=%s)\" && printf '%%s\\n' \"$LUA_PATH\"", sq(ROOT), H.lua), "/tmp")
    assert(code == 0, out)
    assert.are.equal(ROOT .. "/lua/?.lua;" .. ROOT .. "/lua/?/init.lua;/mine/?.lua", (out:match("([^\n]*)\n$")))
  end)
end)

describe("require 'anim' without the importers' modules", function()
  it("loads, plays .anim clips and loads none of LPeg, expat, argparse", function()
    local script = string.format([[
      local hidden = { lpeg = true, lxp = true, ["lxp.lom"] = true, argparse = true }
      local searchers = package.searchers or package.loaders
      table.insert(searchers, 1, function(name)
        if hidden[name] then error("hidden by the spec: " .. name, 0) end
      end)
      local anim = require "anim"
      local walk = assert(anim.load(%q))
      local a = anim.animator(anim.rig("player"))
      local steps = 0
      a:on_marker(function() steps = steps + 1 end)
      a:play(walk)
      for _ = 1, 60 do a:update(1 / 30) end
      assert(steps > 0, "no marker")
      for name in pairs(hidden) do assert(package.loaded[name] == nil, name .. " was loaded") end
      -- an importer that needs one says so when called
      local ok, err = pcall(anim.import_xml, %q)
      print("xml", ok, err)
      print("played", steps)
    ]], ROOT .. "/examples/clips/walk.anim", ROOT .. "/examples/clips/walk.anim")
    local dir = H.tmpdir()
    H.write(dir .. "/hidden.lua", script)
    local out, code = H.popen(string.format(
      "cd %s && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' LUA_PATH_5_4='lua/?.lua;lua/?/init.lua;;' "
        .. "LUA_CPATH_5_4='%s/?.so;;' %s %s 2>&1", sq(H.root), H.build, H.build, H.lua, sq(dir .. "/hidden.lua")))
    os.execute("rm -rf " .. sq(dir))
    assert(code == 0, out)
    assert.truthy(out:find("played", 1, true), out)
    assert.truthy(out:find("hidden by the spec: lxp", 1, true), out)
  end)
end)
