-- A state machine's transition and state options (docs/format-reference.md
-- ".animgraph" and "Playing a graph"): offset, sync, can_self, curve; a
-- state's speed, speed_parameter and loop.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local rig = anim.rig("player")

local function clip(name, length, loop)
  return assert(anim.clip({ length = length, loop = loop or "loop",
    joints = { head = { rotation = { { 0, { 0, 0, 0 } }, { length, { 0, 90, 0 } } } } } }, name))
end

local CLIPS = { a = clip("a", 0.7), b = clip("b", 1.3), c = clip("c", 0.45, "once"), d = clip("d", 1) }

-- An animator under a one-layer graph: states (name -> clip name or a
-- table), transitions, parameters; its controller.
local function control(entry, states, transitions, params)
  local st = {}
  for k, v in pairs(states) do st[k] = type(v) == "string" and { clip = v } or v end
  local g = assert(anim.graph({ version = 1, parameters = params or { go = { type = "trigger" } },
    layers = { { name = "base", entry = entry, states = st, transitions = transitions } } }, CLIPS))
  local a = anim.animator(rig)
  return a, a:control(g)
end

local function track_of(a, name)
  local found
  for _, t in ipairs(a:tracks()) do
    if t.clip.name == name then found = t end
  end
  return found
end

local function near(x, y, tol) assert(math.abs(x - y) <= (tol or 1e-12), string.format("%.17g vs %.17g", x, y)) end

describe("a transition's options", function()
  it("offset starts the destination at that normalized time", function()
    local a, c = control("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "go" } }, offset = 0.5 } })
    c:fire("go")
    a:update(0.1)
    local s, nt = c:current()
    assert.are.equal("d", s)
    near(nt, 0.6)
    near(track_of(a, "d").time, 0.6)
  end)

  it("sync starts the destination at the source's normalized time (its fraction)", function()
    local a, c = control("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "go" } }, sync = true } })
    a:update(0.35 + 0.7)  -- (a at 1.5: its second pass, half way)
    c:fire("go")
    a:update(0.1)
    local _, nt = c:current()
    near(nt, 0.6)
    near(track_of(a, "d").time, 0.6)
  end)

  it("can_self lets an any-state transition restart the current state; without it, it does not fire", function()
    local a, c = control("a", { a = "a" }, { { from = "any", to = "a", when = { { "go" } }, duration = 0.2, can_self = true } })
    a:update(0.3)
    c:fire("go")
    a:update(0.1)
    assert.are.equal(2, #a:tracks())  -- (the old pass fading out, the new one in)
    local _, nt = c:current()
    near(nt, 0.1 / 0.7)
    local a2, c2 = control("a", { a = "a", d = "d" }, { { from = "any", to = "a", when = { { "go" } }, duration = 0.2 },
      { from = "a", to = "d", when = { { "never" } } } }, { go = { type = "trigger" }, never = { type = "bool" } })
    a2:update(0.3)
    c2:fire("go")
    a2:update(0.1)
    assert.are.equal(1, #a2:tracks())
    local _, nt2 = c2:current()
    near(nt2, 0.4 / 0.7)
  end)

  it("curve shapes the fade (sineinout at a quarter: 0.146...)", function()
    local a, c = control("a", { a = "a", d = "d" }, { { from = "a", to = "d", when = { { "go" } }, duration = 1,
      curve = "sineinout" } })
    c:fire("go")
    a:update(0.25)
    near(track_of(a, "d").fade, (1 - math.cos(math.pi * 0.25)) / 2)
    near(track_of(a, "a").fade, 1 - (1 - math.cos(math.pi * 0.25)) / 2)
  end)
end)

describe("a state's options", function()
  it("speed times speed_parameter moves its clip and its normalized time; a set changes it from the next update", function()
    local a, c = control("b", { b = { clip = "b", speed = 2, speed_parameter = "s" } }, {},
      { s = { type = "float", default = 1.5 } })
    a:update(0.2)
    near(track_of(a, "b").time, 0.6)
    near(select(2, c:current()), 0.6 / 1.3)
    c:set("s", 0.5)
    a:update(0.2)
    near(track_of(a, "b").time, 0.8)
    near(select(2, c:current()), 0.8 / 1.3)
  end)

  it("loop overrides the clip's: a once clip looped, a looping clip held at its end while the time counts on", function()
    local a, c = control("c", { c = { clip = "c", loop = "loop" } }, {})
    a:update(0.5)
    near(track_of(a, "c").time, 0.05, 1e-12)
    near(select(2, c:current()), 0.5 / 0.45)
    local a2, c2 = control("d", { d = { clip = "d", loop = "once" } }, {})
    a2:update(1.3)
    near(track_of(a2, "d").time, 1)
    near(select(2, c2:current()), 1.3)
  end)
end)
