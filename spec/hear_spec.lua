-- Unheard entries are free (issue 24): the core queues only the kinds of
-- entries some callback listens to (codes.hear), and the Lua side tells it
-- whenever a registration changes.  core.animator_queued counts what the
-- last update queued: 0 is no Lua work at all for that update.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local rig = assert(anim.rig { joints = { { name = "j" } } })

local clip = H.clip

-- markers at .125, .375, .625, .875: each update(0.25) crosses one
local MARKERS = {}
for k = 1, 4 do MARKERS[k] = { time = (k - 0.5) / 4, name = "m" .. k, value = k } end

-- The two ways to update one animator.
local UPDATES = {
  single = function(a, dt) a:update(dt) end,
  batch = function(a, dt) anim.update({ a }, dt) end,
}

for how, update in pairs(UPDATES) do
  describe("unheard entries (" .. how .. ")", function()
    it("a marker with no listener is not queued; one connected later hears the next crossing", function()
      local a = anim.animator(rig)
      a:play(clip { markers = MARKERS }, { fade = 0 })
      update(a, 0.25)
      assert.are.equal(0, core.animator_queued(a))
      local log = {}
      a:on_marker(function(_, name, value) log[#log + 1] = name .. "=" .. value end)
      update(a, 0.25)
      assert.are.equal(1, core.animator_queued(a))
      assert.are.same({ "m2=2" }, log)
    end)

    it("disconnecting stops the delivery and the queueing", function()
      local a = anim.animator(rig)
      a:play(clip { markers = MARKERS }, { fade = 0 })
      local n = 0
      local c = a:on_marker(function() n = n + 1 end)
      update(a, 0.25)
      assert.are.equal(1, n)
      c:disconnect()
      update(a, 0.25)
      assert.are.equal(1, n)
      assert.are.equal(0, core.animator_queued(a))
    end)

    it("a track's on_marker (any name) and on_looped are heard, and not once disconnected", function()
      local a = anim.animator(rig)
      local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
      local log = {}
      local cm = tr:on_marker("m3", function(_, value) log[#log + 1] = "m3=" .. value end)
      local cl = tr:on_looped(function() log[#log + 1] = "looped" end)
      update(a, 0.5)  -- m1, m2: queued (the track listens to markers), heard by nobody
      assert.are.equal(2, core.animator_queued(a))
      update(a, 0.5)  -- m3, m4, looped
      assert.are.same({ "m3=3", "looped" }, log)
      cm:disconnect()
      update(a, 0.5)
      assert.are.equal(0, core.animator_queued(a))
      cl:disconnect()
      update(a, 0.5)  -- m3, m4, looped: nobody listens
      assert.are.equal(0, core.animator_queued(a))
      assert.are.same({ "m3=3", "looped" }, log)
    end)

    it("events and sounds follow their own listeners", function()
      local a = anim.animator(rig)
      a:play(clip { events = { { time = 0.1, name = "hit" } }, sounds = { { time = 0.2, sound = "s" } } }, { fade = 0 })
      update(a, 0.25)
      assert.are.equal(0, core.animator_queued(a))
      local log = {}
      local ce = a:on_event(function(_, name) log[#log + 1] = name end)
      update(a, 1)
      assert.are.same({ "hit" }, log)
      assert.are.equal(1, core.animator_queued(a))
      ce:disconnect()
      a:on_sound(function(_, s) log[#log + 1] = s end)
      update(a, 1)
      assert.are.same({ "hit", "s" }, log)
      assert.are.equal(1, core.animator_queued(a))
    end)

    it("ended always reaches the Lua side: the live tracks stay right with no callback", function()
      local a = anim.animator(rig)
      a:play(clip { loop = "once", markers = MARKERS }, { fade = 0 })
      update(a, 0.5)
      assert.are.equal(0, core.animator_queued(a))
      assert.are.equal(1, #a:tracks())
      update(a, 1)  -- ends (stopped and markers unheard)
      assert.are.equal(1, core.animator_queued(a))
      assert.are.same({}, a:tracks())
    end)

    it("a track finalized by hand no longer listens, and nothing breaks", function()
      local a = anim.animator(rig)
      local tr = a:play(clip { markers = MARKERS }, { fade = 0 })
      local c = tr:on_marker("m1", function() end)
      debug.getmetatable(tr).__gc(tr)
      c:disconnect()
      update(a, 1)
      assert.are.equal(0, core.animator_queued(a))
    end)
  end)
end

describe("unheard entries, single and batch alike", function()
  it("the same callbacks in the same order, listeners changing from callbacks", function()
    local function scene(update)
      local a = anim.animator(rig)
      local t1 = a:play(clip { markers = MARKERS }, { fade = 0 })
      local t2 = a:play(clip { markers = MARKERS, length = 0.75 }, { fade = 0, weight = 0.5 })
      local log, conn = {}, nil
      t1:on_looped(function()
        log[#log + 1] = "looped1"
        if conn then conn:disconnect(); conn = nil
        else conn = a:on_marker(function(tr, name) log[#log + 1] = (tr == t1 and "1" or "2") .. name end) end
      end)
      t2:on_marker("m2", function() log[#log + 1] = "t2m2" end)
      for _ = 1, 40 do update(a, 0.1) end
      return log
    end
    local single, batch = scene(UPDATES.single), scene(UPDATES.batch)
    assert.is_true(#single > 20)
    assert.are.same(single, batch)
  end)
end)

describe("unheard entries after animator:restore", function()
  it("the restored animator queues only what its callbacks hear, as before", function()
    local c = assert(anim.clip({ length = 1, loop = "loop", markers = MARKERS,
      joints = { j = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } } }, "hear-restore"))
    local a = anim.animator(rig)
    a:play(c, { fade = 0 })
    a:update(0.25)
    local saved = a:state()
    local b = anim.animator(rig)
    assert(b:restore(saved, function() return c end))
    b:update(0.25)
    assert.are.equal(0, core.animator_queued(b)) -- (it queued everything: its core animator is new)
    local log = {}
    b:on_marker(function(_, name) log[#log + 1] = name end)
    b:update(0.25)
    assert.are.equal(1, core.animator_queued(b))
    assert.are.same({ "m3" }, log)
  end)
end)

describe("a restored track's own callbacks", function()
  it("attached again through restore's tracks, are heard", function()
    local c = assert(anim.clip({ length = 1, loop = "loop", markers = MARKERS,
      joints = { j = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } } }, "hear-track"))
    local a = anim.animator(rig)
    local tr = a:play(c, { fade = 0 })
    a:update(0.25)
    local b = anim.animator(rig)
    local got = assert(b:restore(a:state(), function() return c end))
    local log = {}
    got.tracks[tr.id]:on_marker("m2", function(_, value) log[#log + 1] = value end)
    b:update(0.5)
    assert.are.same({ 2 }, log)
  end)
end)
