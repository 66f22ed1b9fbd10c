-- Argument errors of methods however they are called (issue 36): the
-- pose readers (C functions, with a fast path) and play's options (checked
-- in Lua) name the method as the script knows it and count the arguments
-- after self, at the line of the script that called, whether the script
-- wrote a:get(x), a.get(a, x), a[name](a, x) or hoisted the method first
-- (local get = a.get).  Called by pcall itself, with no line of the
-- script's in between, the message has no position.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local SRC = debug.getinfo(1, "S").short_src

local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))

-- The message of pcall(fn), which raises at the line fn was written on
-- (every closure below is written on one line, its call not in a tail
-- position).
local function message(fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "no error")
  local prefix = string.format("%s:%d: ", SRC, debug.getinfo(fn, "S").linedefined)
  assert.are.equal(prefix, err:sub(1, #prefix), err)
  return err:sub(#prefix + 1)
end

-- The ways a script calls method `name` of obj with the arguments in
-- `...` (after self): each gives the message of the method form.
local function every_form(obj, name, expected, ...)
  local n, argv = select("#", ...), { ... }
  local unpack = table.unpack or unpack -- luacheck: ignore 113
  local m = obj[name]
  local forms = {
    method = function() local r = obj[name](obj, unpack(argv, 1, n)); return r end,
    field = function() local r = m(obj, unpack(argv, 1, n)); return r end,
  }
  -- (written out for the readers: obj:get(x) and obj.get(obj, x))
  if name == "get" then
    forms.colon = function() local r = obj:get(argv[1]); return r end
    forms.dot = function() local r = obj.get(obj, argv[1]); return r end
  end
  for form, fn in pairs(forms) do
    assert.are.equal(expected, message(fn), form)
  end
  local ok, err = pcall(m, obj, unpack(argv, 1, n))
  assert.is_false(ok)
  assert.are.equal(expected, err, "pcall(a." .. name .. ", a, ...)")
end

describe("a method's argument errors, however it is called", function()
  local a = anim.animator(anim.rig("player"))
  a:update(0)

  it("name each reader of one joint and the joint argument as #1", function()
    for _, m in ipairs { "get", "animated", "local_transform", "world_transform" } do
      every_form(a, m, "bad argument #1 to '" .. m .. "' (joint index 4294967297 out of range 1..7)", 2 ^ 32 + 1)
      every_form(a, m, "bad argument #1 to '" .. m .. "' (no joint 'rightarm' in rig 'player'; did you mean 'rightArm'?)",
        "rightarm")
      every_form(a, m, "bad argument #1 to '" .. m .. "' (joint name or index expected, got table)", {})
    end
  end)

  it("name pose_into and pose_array and their arguments #1 and #2", function()
    every_form(a, "pose_into", "bad argument #1 to 'pose_into' (table expected, got number)", 5)
    every_form(a, "pose_array", "bad argument #1 to 'pose_array' (table expected, got nil)", nil)
    every_form(a, "pose_into",
      "bad argument #2 to 'pose_into' (\"offsets\", \"local\" or \"world\" expected, got 'wrld'; did you mean 'world'?)",
      {}, "wrld")
    every_form(a, "pose_array",
      "bad argument #2 to 'pose_array' (\"local\", \"world\" or \"offsets\" expected, got number)", {}, 3)
  end)

  it("name the reader when its self is wrong: 'bad self' in the colon form, #1 in the others", function()
    for _, m in ipairs { "get", "animated", "local_transform", "world_transform", "pose_into", "pose_array",
      "root_motion" } do
      local f = a[m]
      assert.are.equal("bad argument #1 to '" .. m .. "' (anim.animator expected, got table)",
        message(function() local r = f({}, 1, {}); return r end))
      assert.are.equal("bad argument #1 to '" .. m .. "' (anim.animator expected, got anim.clip)",
        message(function() local r = a[m](walk, 1, {}); return r end))
    end
    local other = { get = a.get, pose_into = a.pose_into }
    assert.are.equal("calling 'get' on bad self (anim.animator expected, got table)",
      message(function() local r = other:get(1); return r end))
    assert.are.equal("calling 'pose_into' on bad self (anim.animator expected, got table)",
      message(function() local r = other:pose_into({}); return r end))
  end)

  it("name play and its options as argument #2", function()
    every_form(a, "play", "bad argument #2 to 'play' (fade must be >= 0, got -1)", walk, { fade = -1 })
    every_form(a, "play", "bad argument #2 to 'play' (weight must be a finite number, got nan)", walk,
      { weight = 0 / 0 })
    every_form(a, "play", "bad argument #2 to 'play' (unknown option 'wieght'; did you mean 'weight'?)", walk,
      { wieght = 1 })
    every_form(a, "play", "bad argument #2 to 'play' (table of options expected, got number)", walk, 5)
    every_form(a, "play", "bad argument #2 to 'play' (unknown priority 'x' (the levels: core, idle, movement, action, action2, action3, action4, or a finite number))",
      walk, { priority = "x" })
    every_form(a, "play", "bad argument #2 to 'play' (after must be a track, got number)", walk, { after = 5 })
    every_form(a, "play", "bad argument #2 to 'play' (warn must be a function or false, got number)", walk, { warn = 5 })
    every_form(a, "play", "bad argument #1 to 'play' (clip or blend space expected, got number)", 42)
  end)
end)
