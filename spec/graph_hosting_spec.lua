-- A state machine's tracks and the script: the objects of the tracks a
-- controller starts are made only when something asks for them (a
-- callback's entry, tracks(), stop(), state(), a detach, a reload), and a
-- clip's reload reaches the controllers whose graphs play it.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local rig = anim.rig("player")

local function clip(name, joints, opts)
  opts = opts or {}
  local j = {}
  for _, n in ipairs(joints) do j[n] = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 45, 0 } } } } end
  return assert(anim.clip({ length = 1, loop = "loop", joints = j, markers = opts.markers }, name))
end

local function two(a1, b1, extra)
  local layer = { name = "base", entry = "a", states = { a = { clip = "a1" }, b = { clip = "b1" } },
    transitions = { { from = "a", to = "b", when = { { "go" } }, duration = 0.2 },
                    { from = "b", to = "a", when = { { "go" } }, duration = 0.2 } } }
  for k, v in pairs(extra or {}) do layer[k] = v end
  return assert(anim.graph({ version = 1, parameters = { go = { type = "trigger" } }, layers = { layer } },
    { a1 = a1, b1 = b1 }))
end

-- The ids of the tracks the Lua side holds objects for.
local function objects(a)
  local ids = {}
  for id in pairs(core.animator_state(a).live) do ids[#ids + 1] = id end
  table.sort(ids)
  return ids
end

describe("a state machine's tracks", function()
  it("get their objects only when asked for: tracks(), a callback's entry", function()
    local a = anim.animator(rig)
    local c = a:control(two(clip("a1", { "head" }), clip("b1", { "torso" })))
    for _ = 1, 3 do
      c:fire("go")
      a:update(0.3)
    end
    assert.are.same({}, objects(a))  -- (three transitions, no object made)
    local names = {}
    for _, t in ipairs(a:tracks()) do names[#names + 1] = t.clip.name end
    assert.are.same({ "b1" }, names)  -- (the others ended: never made, never listed)
    assert.are.equal(1, #objects(a))
    -- a marker heard: its track gets its object at the delivery
    local m = clip("m1", { "head" }, { markers = { { time = 0.25, name = "step" } } })
    local a2 = anim.animator(rig)
    local c2 = a2:control(two(clip("a1", { "head" }), m))
    local got = {}
    a2:on_marker(function(t, name) got[#got + 1] = { t.clip.name, name, t } end)
    c2:fire("go")
    a2:update(0.3)
    assert.are.equal(1, #got)
    assert.are.same({ "m1", "step" }, { got[1][1], got[1][2] })
    assert.are.equal(got[1][3], a2:tracks()[1])  -- (the same object from then on; a1 faded out)
  end)

  it("that ended unseen give their blocks to the next ones the controller starts", function()
    local a = anim.animator(rig)
    local c = a:control(two(clip("a1", { "head" }), clip("b1", { "torso" })))
    a:update(0.1)
    assert.are.equal(0, core.animator_spares(a))
    c:fire("go")
    a:update(0.3)  -- (a1 faded out over 0.2 s: ended)
    a:update(0.01) -- (taken out of the list: its block kept)
    assert.are.equal(1, core.animator_spares(a))
    c:fire("go")
    a:update(0.01) -- (b1 -> a1: the new track in that block)
    assert.are.equal(0, core.animator_spares(a))
    -- a track the script holds is not reused: its object keeps it
    local held = a:tracks()
    a:update(0.3)
    a:update(0.01)
    assert.are.equal(0, core.animator_spares(a))
    assert.are.equal("b1", held[1].clip.name)
  end)

  it("are all listed before stop(), state() and a detach", function()
    local a = anim.animator(rig)
    local c = a:control(two(clip("a1", { "head" }), clip("b1", { "torso" })))
    a:update(0.1)
    c:fire("go")
    a:update(0.1)
    a:stop(0)
    a:update(0.01)
    assert.are.same({}, a:tracks())
    local b = anim.animator(rig)
    local cb = b:control(two(clip("a1", { "head" }), clip("b1", { "torso" })))
    b:update(0.1)
    cb:fire("go")
    b:update(0.1)
    local s = b:state()
    assert.are.equal(2, #s.tracks)
    cb:detach()
    local names = {}
    for _, t in ipairs(b:tracks()) do names[#names + 1] = t.clip.name end
    assert.are.same({ "a1", "b1" }, names)
    b:update(0.5)  -- (the detached tracks play on: a1 faded out)
    assert.are.equal(1, #b:tracks())
  end)
end)

describe("a graph of view clips", function()
  local function view(name) return assert(anim.clip({ length = 1, loop = "loop", space = "view",
    joints = { head = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 45, 0 } } } } } }, name)) end

  it("is refused by a body animator's control, as play refuses its clips", function()
    local g = two(view("a1"), view("b1"))
    local a = anim.animator(rig)
    local ok, err = pcall(a.control, a, g)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'control' (graph 'graph': layer 'base': state 'a': clip 'a1' is a"
      .. " view clip: a body animator cannot play it)", 1, true), err)
  end)

  it("plays on a view animator", function()
    local a = anim.animator(rig, { space = "view" })
    local c = a:control(two(view("a1"), view("b1")))
    a:update(0.5)
    assert.are.equal("a", (c:current()))
    local _, _, _, _, qy = a:local_transform("head")
    assert.is_true(math.abs(qy - math.sin(math.rad(11.25))) < 1e-12, qy)
  end)
end)

describe("a clip's reload under a state machine", function()
  it("rebinds the controllers whose graphs play it", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    local a = anim.animator(rig)
    local c = a:control(two(a1, b1))
    a:update(0.1)
    assert(anim.reload(b1, { length = 1, loop = "loop", joints = {
      torso = { rotation = { { 0, { 0, 0, 0 } } } }, rightArm = { rotation = { { 0, { 0, 30, 0 } } } } } }))
    c:fire("go")
    a:update(0.5)
    local _, _, _, qx, qy, qz, qw = a:local_transform("rightArm")
    assert.is_true(math.abs(qy - math.sin(math.rad(15))) < 1e-12, qy)
    assert.are.same({ 0, 0 }, { qx, qz })
    assert.is_true(math.abs(qw - math.cos(math.rad(15))) < 1e-12)
  end)

  it("passes over the controllers of collected animators", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    do
      local a = anim.animator(rig)
      a:control(two(a1, b1))
      a:update(0.1)
    end
    collectgarbage()  -- (the animator finalized; its controller may stay known until the next cycle)
    assert(anim.reload(b1, { length = 1, joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } }))
  end)

  it("is refused when a state would play on no joint of its layer's mask, naming it", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "head" })
    local a = anim.animator(rig)
    a:control(two(a1, b1, { mask = { "head" } }))
    local ok, err = anim.reload(b1, { length = 1, joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } })
    assert.is_nil(ok)
    assert.truthy(err:find("b1: bad argument #1 to 'reload' (graph 'graph': layer 'base': state 'b': clip 'b1' plays on"
      .. " no joint of the layer's mask (head))", 1, true), err)
    assert.are.equal(1, #b1:joints())  -- (the clip as it was)
    assert.are.equal("head", b1:joints()[1])
  end)

  it("is refused when it would make a state's clip a view clip under a body animator", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    local a = anim.animator(rig)
    a:control(two(a1, b1))
    local ok, err = anim.reload(b1, { length = 1, space = "view", joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } })
    assert.is_nil(ok)
    assert.truthy(err:find("b1: bad argument #1 to 'reload' (graph 'graph': layer 'base': state 'b': clip 'b1' is a"
      .. " view clip: a body animator cannot play it)", 1, true), err)
    assert.are.equal("body", b1.space)
  end)

  -- (found by fuzz_animator: the reload rebound a masked layer's tracks to
  -- every joint of the new content)
  it("keeps a masked layer's tracks on its mask, attached and detached", function()
    for _, detach in ipairs { false, true } do
      local a1, b1 = clip("a1", { "head", "torso" }), clip("b1", { "head" })
      local a = anim.animator(rig)
      local c = a:control(two(a1, b1, { mask = { "head" } }))
      a:update(0.25)
      if detach then c:detach() end
      assert(anim.reload(a1, { length = 1, loop = "loop", joints = {
        head = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } }, torso = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } } } }))
      a:update(0.25)
      local torso = { a:get("torso") }
      assert.are.same({ 0, 0, 0, 0, 0, 0, 1 }, { torso[1], torso[2], torso[3], torso[4], torso[5], torso[6], torso[7] })
      local _, _, _, _, qy = a:get("head")
      assert.is_true(math.abs(qy - math.sin(math.rad(22.5))) < 1e-12, qy)
    end
  end)

  -- (a reload may not give a graph's clip another blend than its layer's,
  -- which anim.graph refuses: the layer would play it as its blend says)
  it("is refused when a state's clip would blend otherwise than its layer, naming it", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    local a = anim.animator(rig)
    a:control(two(a1, b1))
    a:update(0.1)
    local ok, err = anim.reload(b1, { length = 1, loop = "loop", blend = "additive",
      joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } })
    assert.is_nil(ok)
    assert.truthy(err:find("b1: bad argument #1 to 'reload' (graph 'graph': layer 'base': state 'b': clip 'b1' would blend"
      .. " additive, its layer normal (a layer's clips blend as it says))", 1, true), err)
    assert.are.equal("normal", b1.blend)  -- (the clip as it was)
  end)

  -- (found by fuzz_animator: a layer in which nothing may fire kept the
  -- rate of its state's normalized time from the clip's old length)
  it("moves a settled layer's normalized time at the reloaded clip's length", function()
    local a1 = clip("a1", { "head" })
    local g = assert(anim.graph({ version = 1, layers = { { name = "base", entry = "a", states = { a = { clip = "a1" } } } } },
      { a1 = a1 }))
    local a = anim.animator(rig)
    local c = a:control(g)
    a:update(0.125)
    a:update(0.125)  -- (settled: nothing may fire)
    assert(anim.reload(a1, { length = 2, loop = "loop", joints = { head = { rotation = { { 0, { 0, 0, 0 } }, { 2, { 0, 45, 0 } } } } } }))
    a:update(0.125)
    local _, nt = c:current()
    assert.are.equal(0.25 + 0.0625, nt)
  end)

  -- (found by fuzz_animator, under ASan: a reload reached the controller of
  -- an animator found unreachable before its finalizer ran, and a
  -- collection inside the hosting of its tracks ran it)
  it("does not reach the controller of an animator whose finalizer is pending", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    local g = two(a1, b1)
    local adopt, hosted, reloaded = core.controller_adopt, 0, nil
    local clips_of_g = require("anim.runtime.graph").info(g).state_clips  -- (what hosting g's tracks passes)
    do
      local a = anim.animator(rig)
      a:control(g)
      a:update(0.1)  -- (its track has no object)
      -- (made after the animator: its finalizer runs first, the animator's pending)
      H.finalizer(function()
        core.controller_adopt = function(x, clips, ...)
          if clips == clips_of_g then hosted = hosted + 1 end
          return adopt(x, clips, ...)
        end
        reloaded = anim.reload(b1, { length = 1, loop = "loop", joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } })
        core.controller_adopt = adopt
      end)
    end
    collectgarbage()
    assert.are.equal(b1, reloaded)
    -- (5.2+ clear weak values before finalizers run; 5.1 and LuaJIT keep
    -- them until the next cycle, so there the pending animator is reached:
    -- safely, its hosting reading the animator again after each allocation)
    if H.table_gc then assert.are.equal(0, hosted) end
  end)

  -- (found by fuzz_animator: a finalizer reloaded a clip while a track's
  -- object was made; the reload hosted the same track again, and the
  -- first object, left over, ended the track when it was collected)
  it("in the middle of a hosting gives the track one object", function()
    local dispatch = require "anim.runtime.dispatch"
    local m1 = clip("m1", { "head" }, { markers = { { time = 0.5, name = "step" } } })
    local other = clip("other", { "torso" })
    local a = anim.animator(rig)
    a:control(two(m1, clip("b1", { "torso" })))
    a:update(0.1)  -- (m1's track has no object)
    local marks, reloaded = dispatch.marks, nil
    -- (the marker tables of m1's new object are made by Lua code: as a
    -- finalizer, it may reload a clip, which hosts every controller's tracks)
    dispatch.marks = function(t)
      if reloaded == nil then
        reloaded = false
        reloaded = anim.reload(other, { length = 1, loop = "loop", joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } })
      end
      return marks(t)
    end
    local ok, list = pcall(a.tracks, a)
    dispatch.marks = marks
    assert(ok, list)
    assert.are.equal(other, reloaded)
    assert.are.equal(1, #list)
    collectgarbage()
    collectgarbage()
    assert.are.same({ "m1", true }, { a:tracks()[1].clip.name, a:tracks()[1].is_playing })
    assert.are.equal(list[1], a:tracks()[1])
    local heard = {}
    a:on_marker(function(t, name) heard[#heard + 1] = { t == list[1], name } end)
    a:update(0.5)
    assert.are.same({ { true, "step" } }, heard)
  end)

  -- (found by fuzz_animator: the list of controllers is weak, and keeps a
  -- collected animator's until the cycle after its finalizer ran)
  it("passes over the controllers of animators collected since", function()
    local a1, b1 = clip("a1", { "head" }), clip("b1", { "torso" })
    local g = two(a1, b1)
    do
      local a = anim.animator(rig)
      a:control(g)
      a:update(0.1)
    end
    collectgarbage()  -- (the animator finalized; its controller is listed until the next cycle)
    assert.are.equal(b1, anim.reload(b1, { length = 1, loop = "loop", joints = { torso = { rotation = { { 0, { 0, 0, 0 } } } } } }))
    assert.are.equal(a1, anim.reload(a1, { length = 1, loop = "loop", joints = { head = { rotation = { { 0, { 0, 0, 0 } } } } } }))
  end)
end)
