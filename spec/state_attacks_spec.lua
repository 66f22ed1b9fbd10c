-- animator:restore fed hostile states (issue 35): a multiplayer game
-- restores states other players send.  Each is done or refused with nil
-- and a message naming the field, in bounded work (counted: the library's
-- entries, the blend spaces made, Lua instructions; or CPU time against
-- the budgets of docs/robustness.md where the work is the core's) and
-- bounded memory, and a refusal leaves the animator as it was.  (States
-- the module wrote after play at the extremes: spec/state_spec.lua.)
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"

local rig = anim.rig("player")
-- (the budget of docs/robustness.md for a hostile input: 0.5 s of CPU)
local function quick(what, fn, ...) return H.quick(0.5, what, fn, ...) end

local lib = assert(anim.library("examples/clips"))

-- A state of one animator, as a peer would send it (through JSON).
local function saved(setup)
  local a = anim.animator(rig, { library = lib })
  setup(a)
  a:update(0.1)
  return cjson.decode(cjson.encode(a:state()))
end

describe("a hostile state given to animator:restore", function()
  it("of 6,000 property names of one 5 kB prefix restores in n log n, and writes back (defect 5)", function()
    local s = saved(function() end)
    local prefix = string.rep("x", 5000)
    for i = 1, 6000 do s.properties[i] = { name = prefix .. string.format("%08d", 6001 - i), value = { "0x1p+0" } } end
    local b = anim.animator(rig)
    -- (a linear search of the names: 6 s; 16 s for 9,998)
    assert(quick("the restore", b.restore, b, s))
    local again = quick("the state", b.state, b)
    assert.are.equal(6000, #again.properties)
    assert.are.equal(prefix .. "00000001", again.properties[1].name)
    assert.are.same({ 1 }, { b:property(prefix .. "00004242") })
  end)

  it("holding a property only ended tracks gave refuses a clip of another number of components, as the saved animator does", function()
    local once = assert(anim.clip({ length = 0.1, loop = "once", joints = {},
      properties = { glow = { { 0, { 1, 2, 3 } }, { 0.1, { 1, 2, 3 } } } } }, "once"))
    local one = assert(anim.clip({ length = 1, loop = "loop", joints = {}, properties = { glow = { { 0, 5 }, { 1, 6 } } } }, "one"))
    local a = anim.animator(rig)
    a:play(once, { fade = 0 })
    a:update(0.5)
    local b = anim.animator(rig)
    assert(b:restore(a:state(), function(n) return n == "once" and once or one end))
    local ok_a, err_a = pcall(a.play, a, one)
    local ok_b, err_b = pcall(b.play, b, one)
    assert.is_false(ok_a)
    -- (it played, and the next update blended 3 components of a 1-component track)
    assert.is_false(ok_b)
    assert.are.equal(err_a:gsub("^.-:%d+: ", ""), err_b:gsub("^.-:%d+: ", ""))
    a:update(0.1)
    b:update(0.1)
    assert.is_true(pcall(b.play, b, one))
  end)
end)
