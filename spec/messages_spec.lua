-- Messages that help (issue 37): an enumerated value suggests the nearest
-- and lists the values; a suggestion also catches a name's start or stem
-- (`pos`, `rotate`); a path that is not res:// names the one meant; a
-- wrong argument is named as the module names its type.
local H = require "spec.helper"
local anim = require "anim"
local core = require "anim.core"

local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

describe("suggestions", function()
  it("catch the start or the stem of a name, not only a few edits", function()
    assert.are.equal("position", core.suggest("pos", { "position", "rotation", "scale" }))
    assert.are.equal("rotation", core.suggest("rotate", { "position", "rotation", "scale" }))
    assert.are.equal("rotation", core.suggest("rot", { "position", "rotation" }))
    -- too short to guess, or nothing alike
    assert.is_nil(core.suggest("ro", { "rotation" }))
    assert.is_nil(core.suggest("zqxjv", { "position", "rotation" }))
    -- (a name longer than the known one is no stem of it)
    assert.is_nil(core.suggest("rotationxyz", { "rot" }))
  end)

  it("of an override's options", function()
    local a = anim.animator(anim.rig("player"))
    assert.truthy(err_of(a.override, a, "head", { rotate = { 0, 0, 0, 1 } })
      :find("unknown option 'rotate'; did you mean 'rotation'?", 1, true))
  end)
end)

describe("enumerated values", function()
  it("play's priority suggests a level and lists them", function()
    local a = anim.animator(anim.rig("player"))
    local e = err_of(a.play, a, walk, { priority = "actoin" })
    assert.truthy(e:find("bad argument #2 to 'play' (unknown priority 'actoin'; did you mean 'action'? (the levels: core, idle,"
      .. " movement, action, action2, action3, action4, or a finite number))", 1, true), e)
  end)

  it("a file's loop mode, priority and interpolation suggest", function()
    local _, e1 = anim.decode('{"length": 1, "loop": "lop", "joints": {}}', "l.anim")
    assert.are.equal("l.anim: loop: unknown loop mode 'lop'; did you mean 'loop'? (expected once, loop, hold, pingpong)", e1)
    local _, e2 = anim.decode('{"length": 1, "priority": "acton", "joints": {}}', "p.anim")
    assert.truthy(e2:find("unknown priority 'acton'; did you mean 'action'? (expected core,", 1, true), e2)
    local _, e3 = anim.decode('{"length": 1, "joints": {"a": {"position": [[0, [0, 0, 0], "lineer"]]}}}', "i.anim")
    assert.truthy(e3:find("unknown interpolation 'lineer'; did you mean 'linear'? (expected", 1, true), e3)
  end)
end)

describe("paths and types", function()
  it("a library path without res:// names the one meant", function()
    local lib = assert(anim.library(H.root .. "/examples/clips"))
    local _, e = lib:clip("walk.anim")
    assert.are.equal("walk.anim: not a res:// path (paths under the library's root are written res://...;"
      .. " did you mean 'res://walk.anim'?)", e)
  end)

  it("anim.update given one animator names its type and the two calls that work", function()
    local a = anim.animator(anim.rig("player"))
    local e = err_of(anim.update, a, 0.1)
    assert.truthy(e:find("bad argument #1 to 'update' (table of animators expected, got anim.animator (anim.update takes"
      .. " a list: anim.update({ a }, dt), or a:update(dt)))", 1, true), e)
  end)
end)
