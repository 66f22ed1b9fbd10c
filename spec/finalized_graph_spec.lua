-- A finalizer that finalizes an animator run by a state machine while
-- anim.reload binds that machine's states again (docs/robustness.md,
-- "Scripts"): the animator is passed over, the others are reloaded.
-- Found on Lua 5.1 by a fuzz_animator regression replayed beside other
-- specs in one process (a collection's finalizer ran inside the reload).
local anim = require "anim"
local core = require "anim.core"
local ctlmod = require "anim.runtime.controller"

local function finalize(x) debug.getmetatable(x).__gc(x) end

local rig = assert(anim.rig { joints = { { name = "a" }, { name = "b", parent = "a", position = { 0, 1, 0 } } } })

local function turning(deg)
  return { length = 1, loop = "loop", joints = { b = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, deg, 0 } } } } } }
end

-- n animators, each under a graph whose one state plays clip `c`.
local function controlled(n)
  local c = assert(anim.clip(turning(90), "turn"))
  local g = assert(anim.graph({ version = 1, layers = { { name = "base", entry = "s",
    states = { s = { clip = "turn" } } } } }, { turn = c }))
  local as = {}
  for i = 1, n do
    as[i] = anim.animator(rig)
    as[i]:control(g)
    as[i]:update(0.25)
  end
  return c, as
end

-- Runs anim.reload(c, turning(deg)) with f(st) called at the k-th binding
-- of a graph's states (st: the animator's state being bound).
local function reload_with(c, deg, k, f)
  local orig, calls = ctlmod.bindings_for, 0
  ctlmod.bindings_for = function(st, ...)
    calls = calls + 1
    if calls == k then f(st) end
    return orig(st, ...)
  end
  local ok, res, err = pcall(anim.reload, c, turning(deg))
  ctlmod.bindings_for = orig
  assert(calls >= k, "the binding was not reached")
  return ok, res, err
end

local function turn_of(a)
  local _, _, _, x, y, z, w = a:get("b")
  return { x, y, z, w }
end

describe("a finalizer inside anim.reload of a clip a state machine plays", function()
  it("finalizing the animator while its states are bound again: passed over (it raised 'used after it was finalized')", function()
    local c, as = controlled(1)
    -- (the first binding checks the new content, the second is the rebinding)
    local ok, res, err = reload_with(c, 180, 2, function() finalize(as[1]) end)
    assert.is_true(ok, res)
    assert.are.equal(c, res, err)
  end)

  it("finalizing another animator while the first one's new content is checked: the survivor reloaded", function()
    local c, as = controlled(2)
    local survivor
    local ok, res, err = reload_with(c, 180, 1, function(st)
      for i, a in ipairs(as) do
        if core.animator_state(a) ~= st then finalize(a) else survivor = i end
      end
    end)
    assert.is_true(ok, res)
    assert.are.equal(c, res, err)
    -- the survivor plays the new content: a quarter of 180 degrees about y
    local a = as[survivor]
    a:update(0)
    local q = turn_of(a)  -- (45 degrees about y: the half angle's sine and cosine)
    assert.is_true(math.abs(q[2] - math.sin(math.rad(22.5))) < 1e-9 and math.abs(q[4] - math.cos(math.rad(22.5))) < 1e-9,
      table.concat(q, " "))
    assert.has_error(function() as[3 - survivor]:update(0.1) end,
      "anim.animator used after it was finalized (garbage collected, or its __gc called by hand)")
  end)
end)
