-- Argument errors (issue 16): every public function called wrongly raises
-- "bad argument #n to 'name' (why)" at the line of the script that called
-- it, whether the check runs in C (csrc/lua/lua_args.c) or deep inside
-- the module's Lua files (lua/anim/base/args.lua).
local anim = require "anim"
local H = require "spec.helper"

local SRC = debug.getinfo(1, "S").short_src

-- Calls fn (a closure written on one line) and checks that it raises msg
-- at that line of this file.
local function raises_here(fn, msg)
  local line = debug.getinfo(fn, "S").linedefined
  local ok, err = pcall(fn)
  assert.is_false(ok, "no error")
  assert.are.equal(string.format("%s:%d: %s", SRC, line, msg), err)
end

local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))

describe("argument errors", function()
  it("name the caller's line for options checked inside the library (play's fade)", function()
    local a = anim.animator(anim.rig("player"))
    raises_here(function() a:play(walk, { fade = -1 }) end,
      "bad argument #2 to 'play' (fade must be >= 0, got -1)")
    raises_here(function() a:play(walk, { weight = 0 / 0 }) end,
      "bad argument #2 to 'play' (weight must be a finite number, got nan)")
    raises_here(function() a:play(42) end, "bad argument #1 to 'play' (clip or blend space expected, got number)")
    raises_here(function() a:autoplay({ 1 }) end, "bad argument #1 to 'autoplay' (table of clips expected)")
  end)

  it("name the function called: lib:retarget(42) is 'retarget', lib:clip(42) 'clip'", function()
    local lib = assert(anim.library(H.root .. "/examples/clips"))
    raises_here(function() lib:retarget(42) end, "bad argument #1 to 'retarget' (string expected, got number)")
    raises_here(function() lib:clip(42) end, "bad argument #1 to 'clip' (string expected, got number)")
    raises_here(function() anim.library(walk) end, "bad argument #1 to 'library' (string expected, got anim.clip)")
  end)

  it("say which argument a callback is", function()
    local a = anim.animator(anim.rig("player"))
    local t = a:play(walk)
    raises_here(function() a:on_marker(nil) end, "bad argument #1 to 'on_marker' (function expected, got nil)")
    raises_here(function() a:on_event(7) end, "bad argument #1 to 'on_event' (function expected, got number)")
    raises_here(function() t:on_marker("step", nil) end,
      "bad argument #2 to 'on_marker' (function expected, got nil)")
    raises_here(function() t:on_ended({}) end, "bad argument #1 to 'on_ended' (function expected, got table)")
  end)

  it("give the joint index the script wrote, with the range, and never wrap it onto a joint", function()
    local a = anim.animator(anim.rig("player"))
    a:update(0)
    raises_here(function() a:get(1099511627776) end,
      "bad argument #1 to 'get' (joint index 1099511627776 out of range 1..7)")
    raises_here(function() a:get(2 ^ 32 + 1) end,
      "bad argument #1 to 'get' (joint index 4294967297 out of range 1..7)")
    raises_here(function() a:world_transform(4294967297) end,
      "bad argument #1 to 'world_transform' (joint index 4294967297 out of range 1..7)")
    raises_here(function() a:local_transform(-1) end,
      "bad argument #1 to 'local_transform' (joint index -1 out of range 1..7)")
  end)

  it("name the module's functions and their arguments", function()
    raises_here(function() anim.load(1) end, "bad argument #1 to 'load' (string expected, got number)")
    raises_here(function() anim.decode("{}", {}) end, "bad argument #2 to 'decode' (string expected, got table)")
    raises_here(function() anim.clip("x") end, "bad argument #1 to 'clip' (table expected, got string)")
    raises_here(function() anim.encode(5) end, "bad argument #1 to 'encode' (anim.clip expected, got number)")
    raises_here(function() anim.save(walk, 5) end, "bad argument #2 to 'save' (string expected, got number)")
    raises_here(function() anim.set_limits(5) end, "bad argument #1 to 'set_limits' (table expected, got number)")
    raises_here(function() anim.rig(5) end, "bad argument #1 to 'rig' (\"player\" or table expected, got number)")
    raises_here(function() walk:sample("x") end, "bad argument #1 to 'sample' (number expected, got string)")
    raises_here(function() anim.update(5, 0) end,
      "bad argument #1 to 'update' (table of animators expected, got number)")
  end)

  it("every public function called wrongly names this file's line", function()
    local a = anim.animator(anim.rig("player"))
    local t = a:play(walk)
    local conn = a:on_marker(print)
    local lib = assert(anim.library(H.root .. "/examples/clips"))
    local rig = anim.rig("player")
    raises_here(function() anim.import_xml(5) end, "bad argument #1 to 'import_xml' (string expected, got number)")
    raises_here(function() anim.decode_xml("<a/>", 5) end, "bad argument #2 to 'decode_xml' (string expected, got number)")
    raises_here(function() anim.import_blockbench(5) end, "bad argument #1 to 'import_blockbench' (string expected, got number)")
    raises_here(function() anim.decode_blockbench(5) end, "bad argument #1 to 'decode_blockbench' (string expected, got number)")
    raises_here(function() anim.animator(5) end, "bad argument #1 to 'animator' (rig or 2D skeleton expected, got number)")
    raises_here(function() anim.update({}, -1) end, "bad argument #2 to 'update' (dt must be a finite number >= 0, got -1)")
    raises_here(function() anim.load_retarget(5) end, "bad argument #1 to 'load_retarget' (string expected, got number)")
    raises_here(function() anim.decode_retarget(5) end, "bad argument #1 to 'decode_retarget' (string expected, got number)")
    raises_here(function() walk:bindings(5) end, "bad argument #1 to 'bindings' (rig expected, got number)")
    raises_here(function() walk:bindings(rig, 5) end, "bad argument #2 to 'bindings' (retarget map expected, got number)")
    raises_here(function() a:pose_into(5) end, "bad argument #1 to 'pose_into' (table expected, got number)")
    raises_here(function() a:update("x") end, "bad argument #1 to 'update' (dt must be a finite number >= 0, got string)")
    raises_here(function() t:stop(-1) end, "bad argument #1 to 'stop' (fade must be a finite number >= 0, got -1)")
    raises_here(function() t:adjust_weight(-1) end,
      "bad argument #1 to 'adjust_weight' (weight must be a finite number >= 0, got -1)")
    raises_here(function() t:adjust_speed(0 / 0) end, "bad argument #1 to 'adjust_speed' (speed must be a finite number, got nan)")
    raises_here(function() t.time = 0 / 0 end, "track time must be a finite number, got nan")
    raises_here(function() t.loops = 1 end, "cannot set track field 'loops'")
    raises_here(function() t.speed = "x" end, "track.speed must be a finite number, got string")
    raises_here(function() t:on_marker(5, print) end, "bad argument #1 to 'on_marker' (marker name expected, got number)")
    -- a method called on the wrong object
    raises_here(function() a.get(walk, 1) end, "bad argument #1 to 'get' (anim.animator expected, got anim.clip)")
    raises_here(function() a.update(5, 0) end, "calling 'update' on bad self (anim.animator expected, got number)")
    raises_here(function() a.play(walk, walk) end, "calling 'play' on bad self (anim.animator expected, got anim.clip)")
    raises_here(function() a.root_transform({}) end, "calling 'root_transform' on bad self (anim.animator expected, got table)")
    raises_here(function() t.stop(walk) end, "calling 'stop' on bad self (anim.track expected, got anim.clip)")
    raises_here(function() walk.sample(a, 1) end, "calling 'sample' on bad self (anim.clip expected, got anim.animator)")
    raises_here(function() rig.has(5, "x") end, "calling 'has' on bad self (anim.rig expected, got number)")
    raises_here(function() lib.clip(5, "res://x") end, "calling 'clip' on bad self (anim.library expected, got number)")
    raises_here(function() conn.disconnect(5) end, "calling 'disconnect' on bad self (anim.connection expected, got number)")
  end)

  it("name the caller's line for pose_array's array and pose, with a suggestion for a misspelt pose", function()
    local a = anim.animator(anim.rig("player"))
    local t = {}
    raises_here(function() a:pose_array(5) end, "bad argument #1 to 'pose_array' (table expected, got number)")
    raises_here(function() a:pose_array(nil) end, "bad argument #1 to 'pose_array' (table expected, got nil)")
    raises_here(function() a:pose_array(walk) end, "bad argument #1 to 'pose_array' (table expected, got anim.clip)")
    raises_here(function() a:pose_array(t, "wrold") end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got 'wrold'; did you mean 'world'?)")
    raises_here(function() a:pose_array(t, "Local") end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got 'Local'; did you mean 'local'?)")
    raises_here(function() a:pose_array(t, "offset") end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got 'offset'; did you mean 'offsets'?)")
    raises_here(function() a:pose_array(t, "pose") end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got 'pose')")
    raises_here(function() a:pose_array(t, "world\0") end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got a string holding a NUL byte)")
    raises_here(function() a:pose_array(t, 1) end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got number)")
    raises_here(function() a:pose_array(t, false) end,
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got boolean)")
    assert.are.same({}, t)
  end)

  it("name the caller's line for pose_into's table and pose, with a suggestion for a misspelt pose", function()
    local a = anim.animator(anim.rig("player"))
    local t = {}
    local expected = "\"offsets\", \"local\" or \"world\" expected"
    raises_here(function() a:pose_into(nil) end, "bad argument #1 to 'pose_into' (table expected, got nil)")
    raises_here(function() a:pose_into(walk) end, "bad argument #1 to 'pose_into' (table expected, got anim.clip)")
    raises_here(function() a:pose_into(t, "wrold") end,
      "bad argument #2 to 'pose_into' (" .. expected .. ", got 'wrold'; did you mean 'world'?)")
    raises_here(function() a:pose_into(t, "offset") end,
      "bad argument #2 to 'pose_into' (" .. expected .. ", got 'offset'; did you mean 'offsets'?)")
    raises_here(function() a:pose_into(t, "Local") end,
      "bad argument #2 to 'pose_into' (" .. expected .. ", got 'Local'; did you mean 'local'?)")
    raises_here(function() a:pose_into(t, "pose") end, "bad argument #2 to 'pose_into' (" .. expected .. ", got 'pose')")
    raises_here(function() a:pose_into(t, "world\0") end,
      "bad argument #2 to 'pose_into' (" .. expected .. ", got a string holding a NUL byte)")
    raises_here(function() a:pose_into(t, 1) end, "bad argument #2 to 'pose_into' (" .. expected .. ", got number)")
    raises_here(function() a:pose_into(t, walk) end, "bad argument #2 to 'pose_into' (" .. expected .. ", got anim.clip)")
    raises_here(function() a.pose_into(walk, t) end, "bad argument #1 to 'pose_into' (anim.animator expected, got anim.clip)")
    local other = { pose_into = a.pose_into }
    raises_here(function() other:pose_into(t) end, "calling 'pose_into' on bad self (anim.animator expected, got table)")
    assert.are.same({}, t)
    -- nil is the default, offsets
    assert.are.same(a:pose_into({}, "offsets"), a:pose_into({}, nil))
  end)

  it("refuse writes to read-only objects at the script's line", function()
    local a = anim.animator(anim.rig("player"))
    raises_here(function() a.rig = 2 end, "cannot set animator field 'rig'")
    raises_here(function() a.speed = -2 end, "animator.speed must be a finite number >= 0, got -2")
    raises_here(function() walk.length = 2 end, "clips are read-only (cannot set 'length')")
    raises_here(function() anim.limits.keys = 2 end, "anim.limits is read-only (use anim.set_limits{ keys = n })")
  end)
end)
