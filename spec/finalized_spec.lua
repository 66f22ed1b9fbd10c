-- Finalizers called by hand, and finalizers that run in the middle of a call
-- (issue 19, defect 1; docs/robustness.md, "Scripts").  A script that
-- reaches a metatable of the module (debug.getmetatable, anim.core's
-- *_metatable fields) can call its __gc by hand at any time: from a
-- metamethod the module calls, from a callback, from a finalizer that a
-- collection runs while a C function of the module is half way.  No call
-- may then reach freed memory (make asan runs this spec), a finalized
-- object refuses every later use with a clear error, and what it leaves
-- behind plays on.
local anim = require "anim"
local H = require "spec.helper"
local core = require "anim.core"

local FINALIZED = "used after it was finalized %(garbage collected, or its __gc called by hand%)"
local getmt = debug.getmetatable

local function finalize(x) getmt(x).__gc(x) end

local function rig_of(n)
  local joints = { { name = "j1" } }
  for i = 2, n do joints[i] = { name = "j" .. i, parent = "j" .. (i - 1), position = { 0, i, 0 } } end
  return assert(anim.rig { joints = joints })
end

local function looping(markers)
  local t = { loop = "loop", length = 1, markers = {},
    joints = { j2 = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } } } } } }
  for i, at in ipairs(markers or {}) do t.markers[i] = { time = at, name = "m" .. i } end
  return assert(anim.clip(t, "loop"))
end

-- Runs fn while a finalizer calls target's __gc by hand at one of the
-- allocations fn makes (in the C functions of the module: where a pointer
-- taken from a box before the allocation would then dangle): see
-- spec/helper.lua, H.during_finalizer.
local function finalized_during(target, fn)
  return H.during_finalizer(function() finalize(target) end, fn)
end

describe("the module's metatables", function()
  it("are hidden from getmetatable, which gives their names", function()
    local r = rig_of(2)
    local a = anim.animator(r)
    local c = looping()
    local tr = a:play(c)
    local map = assert(anim.decode_retarget('{"version": 1}', "m"))
    local lib = assert(anim.library("."))
    local conn = a:on_marker(function() end)
    assert.are.same({ "anim.clip", "anim.rig", "anim.animator", "anim.track", "anim.retarget", "anim.library",
      "anim.connection" }, { getmetatable(c), getmetatable(r), getmetatable(a), getmetatable(tr),
      getmetatable(map), getmetatable(lib), getmetatable(conn) })
    assert.has_error(function() setmetatable(lib, nil) end, "cannot change a protected metatable")
  end)
end)

describe("pose_into", function()
  it("reads and writes the table raw: none of its metamethods runs (one used to free the animator)", function()
    local a = anim.animator(rig_of(3))
    a:play(looping(), { fade = 0 })
    a:update(0.25)
    local calls = 0
    local function hostile() calls = calls + 1; finalize(a) end
    local t = setmetatable({ j1 = setmetatable({}, { __newindex = hostile }) },
      { __index = hostile, __newindex = hostile })
    assert.are.equal(t, a:pose_into(t, "world"))
    assert.are.equal(0, calls)
    assert.are.equal(10, #rawget(t, "j3"))
    assert.are.same({ a:world_transform("j1") }, rawget(t, "j1"))
  end)

  it("refuses, with a clear error, an animator a finalizer finalized half way", function()
    local a = anim.animator(rig_of(2000))
    a:play(looping(), { fade = 0 })
    a:update(0.25)
    local pose_into, t = core.animator_pose_into, {}
    local ok, err = finalized_during(a, function() return pose_into(a, t, "world") end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.animator " .. FINALIZED), err)
  end)
end)

describe("pose_array", function()
  -- Its code reads out's metatable once and relies on no Lua code running
  -- inside the call (csrc/lua/lua_pose.c, animator_pose_array): the
  -- sets into the table, even those that grow it, never step the
  -- collector.  A finalizer set to run at the next allocations runs after
  -- the call, however much the array grew inside it.
  it("runs no finalizer while the array grows (nothing inside steps the collector)", function()
    local a = anim.animator(rig_of(2000))
    a:play(looping(), { fade = 0 })
    a:update(0.25)
    local pose_array = core.animator_pose_array
    local want = pose_array(a, {}, "world")
    -- where the finalizer ran: in pose_array (the function on the stack
    -- below it), or after it returned
    local function where()
      for level = 2, 50 do
        local info = debug.getinfo(level, "f")
        if not info then break end
        if info.func == pose_array then return "inside" end
      end
      return "outside"
    end
    -- (the first tries of finalized_during: the finalizer runs at the
    -- first allocation that steps the collector, and the array's growth
    -- allocates about 1 MB; the later tries wait longer)
    local after = 0
    for try = 1, 3 do
      local ran, t = nil, {}
      local disarm = H.arm_finalizers(try)
      H.finalizer(function() ran = ran or where() end)
      local ok, err = pcall(pose_array, a, t, "world")
      for _ = 1, 10000 do
        if ran then break end
        local _ = { try } -- luacheck: ignore 311 (an allocation)
      end
      disarm()
      assert.is_true(ok, err)
      assert.are_not.equal("inside", ran)
      assert.is_nil(H.bitdiff(want, t))
      if ran then after = after + 1 end
    end
    -- (the finalizer was set to run soon: it ran after the call)
    assert.are.equal(3, after)
  end)
end)

describe("a finalizer that runs while the module makes tables", function()
  -- each of these used to keep a pointer to the object across the
  -- allocations that run finalizers
  it("clip:sample of a clip it finalizes", function()
    local joints = {}
    for i = 1, 2000 do joints["j" .. i] = { position = { { 0, { 0, 0, 0 } }, { 1, { i, 0, 0 } } } } end
    local c = assert(anim.clip { length = 1, joints = joints })
    local sample = core.clip_sample
    local ok, err = finalized_during(c, function() return sample(c, 0.5) end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.clip " .. FINALIZED), err)
  end)

  it("the joints of a rig it finalizes", function()
    local r = rig_of(2000)
    local joints = core.rig_joints
    local ok, err = finalized_during(r, function() return joints(r) end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.rig " .. FINALIZED), err)
  end)

  it("the keys anim.encode reads of a clip it finalizes", function()
    local keys = {}
    for i = 1, 20000 do keys[i] = { i / 20000, { i, 0, 0 } } end
    local c = assert(anim.clip { length = 1, joints = { j = { position = keys } } })
    local clip_keys = core.clip_keys
    local ok, err = finalized_during(c, function() return clip_keys(c, 1, 0) end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.clip " .. FINALIZED), err)
  end)

  it("animator:play on an animator it finalizes", function()
    -- (the bindings' array must outgrow 1 % of the heap on 5.4, or the
    -- collection comes only once play is done: this spec runs in a process
    -- of its own (Makefile: ALONE), whose heap 3,000 joints outgrow; more
    -- would drive the other runtimes' collector, with no pause between
    -- cycles, through minutes of work)
    local n = 3000
    local r = rig_of(n)
    local joints = {}
    for i = 1, n do joints["j" .. i] = { position = { { 0, { 0, 0, 0 } } } } end
    local c = H.with_limits({ joints = n }, function() return assert(anim.clip { length = 1, joints = joints }) end)
    local a = anim.animator(r)
    local play, binds, cbs = core.animator_play, {}, {}
    for i = 1, n do binds[i] = { cj = i, rj = i } end
    local ok, err = finalized_during(a, function() return play(a, c, 0, 1, 1, nil, binds, cbs) end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.animator " .. FINALIZED), err)
  end)

  it("animator:restore on an animator it finalizes (before the swap it raises; after, the new one is finalized)", function()
    local r = rig_of(3000)
    local joints = {}
    for i = 1, 3000 do joints["j" .. i] = { position = { { 0, { 0, 0, 0 } }, { 1, { i, 0, 0 } } } } end
    local c = assert(anim.clip({ length = 1, joints = joints }, "big"))
    local a = anim.animator(r)
    for _ = 1, 4 do a:play(c, { fade = 0.5 }) end
    a:update(0.25)
    local s = a:state()
    local b = anim.animator(r)
    local ok, err = finalized_during(b, function() return b:restore(s, function() return c end) end)
    -- (finalized before the method's check of self, as happens on LuaJIT,
    -- that check names it: "calling 'restore' on bad self (... got
    -- anim.animator (finalized))")
    if not ok then
      err = tostring(err)
      assert.truthy(err:find("anim.animator " .. FINALIZED) or err:find("got anim.animator (finalized)", 1, true), err)
    end
    local uok, uerr = pcall(function() b:update(0.1) end)
    assert.is_false(uok)
    assert.truthy(uerr:find("anim.animator " .. FINALIZED), uerr)
  end)
end)

describe("a track whose __gc is called by hand", function()
  it("ends at once, fires nothing more, and its animator plays on (it used to refuse every update)", function()
    local a = anim.animator(rig_of(2))
    local c = looping { 0.5 }
    local keep, gone = a:play(c, { fade = 0 }), a:play(c, { fade = 0 })
    local seen = {}
    a:on_marker(function(track) seen[#seen + 1] = track == keep and "keep" or "other" end)
    a:update(0.1)
    finalize(gone)
    assert.are.same({ keep }, a:tracks())
    for _ = 1, 5 do a:update(0.3) end
    assert.are.same({ "keep", "keep" }, seen)
    assert.has_error(function() return gone.time end)
    assert.are.equal("anim.track (finalized)", tostring(gone))
    assert.is_true(keep.is_playing)
  end)
end)

describe("a clip whose __gc is called by hand while tracks play it", function()
  it("refuses every use of its own, while its tracks play on with their callbacks", function()
    local a = anim.animator(rig_of(2))
    local c = looping { 0.5 }
    local tr = a:play(c, { fade = 0 })
    local seen = 0
    a:on_marker(function() seen = seen + 1 end)
    finalize(c)
    for _, use in ipairs {
      function() return c.length end,
      function() return c:sample(0) end,
      function() c.loop = "once" end,
    } do
      local ok, err = pcall(use)
      assert.is_false(ok)
      assert.truthy(err:find("^spec/finalized_spec.lua:%d+: anim.clip " .. FINALIZED), err)
    end
    assert.are.equal("anim.clip (finalized)", tostring(c))
    for _ = 1, 4 do a:update(0.5) end
    assert.are.equal(2, seen)
    assert.are.equal(1, tr.length)
    -- what takes a clip names it
    assert.has_error(function() a:play(c) end, "bad argument #1 to 'play' (clip or blend space expected, got anim.clip (finalized))")
    local text, err = anim.encode(c)
    assert.is_nil(text)
    assert.are.equal("loop: cannot encode: the clip was finalized (garbage collected, or its __gc called by hand)", err)
  end)
end)

describe("blend spaces and queued tracks, finalized by hand", function()
  local function two_points(markers)
    -- (markers = "all": each point's items come through the finalized space)
    return anim.blendspace { points = { { clip = looping(markers), at = 0 }, { clip = looping(markers), at = 1 } },
      markers = "all" }
  end

  it("a blend space refuses every use of its own, while its tracks play on", function()
    local a = anim.animator(rig_of(2))
    local space = two_points { 0.5 }
    local tr = a:play(space, { at = 0.5, fade = 0 })
    local seen = 0
    a:on_marker(function() seen = seen + 1 end)
    finalize(space)
    assert.are.equal("anim.blendspace (finalized)", tostring(space))
    local ok, err = pcall(function() return space.points end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.blendspace " .. FINALIZED), err)
    assert.has_error(function() core.space_weights(space, 0) end,
      "anim.blendspace used after it was finalized (garbage collected, or its __gc called by hand)")
    for _ = 1, 4 do a:update(0.5) end
    assert.are.equal(4, seen) -- (a marker per cycle from each point: both weigh 0.5)
    tr:set_at(1)
    a:update(0.5)
    assert.is_true(tr.is_playing)
  end)

  it("a blend space's track ends at once with every point, and its animator plays on", function()
    local a = anim.animator(rig_of(2))
    local tr = a:play(two_points { 0.5 }, { at = 0.5, fade = 0 })
    local keep = a:play(looping { 0.25 }, { fade = 0 })
    local seen = {}
    a:on_marker(function(track, name) seen[#seen + 1] = (track == keep and "keep " or "space ") .. name end)
    a:update(0.1)
    finalize(tr)
    for _ = 1, 4 do a:update(0.5) end
    assert.are.same({ keep }, a:tracks())
    -- (the space's points fired before, at 0.5 and 1.5: nothing of theirs now)
    assert.are.same({ "keep m1", "keep m1" }, seen)
  end)

  it("a track with one queued after it: the queued one starts at the next update", function()
    local a = anim.animator(rig_of(2))
    local first = a:play(looping(), { fade = 0 })
    local next_one = a:play(looping(), { after = first, fade = 0 })
    a:update(0.1)
    assert.is_false(next_one.is_playing)
    finalize(first)
    a:update(0.1)
    assert.is_true(next_one.is_playing)
    assert.are.same({ next_one }, a:tracks())
  end)

  it("a queued track finalized by hand never starts, and what it waited for plays on", function()
    local a = anim.animator(rig_of(2))
    local first = a:play(looping(), { fade = 0 })
    local queued = a:play(looping(), { after = first, fade = 0 })
    finalize(queued)
    for _ = 1, 3 do a:update(0.4) end
    assert.are.same({ first }, a:tracks())
    -- and another may be queued after it now
    local again = a:play(looping(), { after = first, fade = 0 })
    assert.is_false(again.is_playing)
  end)

  it("animator:play of a blend space on an animator a finalizer finalizes half way", function()
    local r = rig_of(3000)
    local joints = {}
    for i = 1, 3000 do joints["j" .. i] = { position = { { 0, { 0, 0, 0 } } } } end
    local c = assert(anim.clip { length = 1, joints = joints })
    local space = anim.blendspace { points = { { clip = c, at = 0 }, { clip = c, at = 1 } } }
    local a = anim.animator(r)
    local binds = {}
    for i = 1, 3000 do binds[i] = { cj = i, rj = i } end
    local ok, err = finalized_during(a, function()
      return core.animator_play_space(a, space, 0, 1, 1, nil, { binds, binds }, {}, 0.5)
    end)
    assert.is_false(ok)
    assert.truthy(err:find("anim.animator " .. FINALIZED), err)
  end)
end)

describe("every kind of object, finalized by hand", function()
  it("refuses every later use with a clear error, and its __gc is not run twice", function()
    local r = rig_of(2)
    local a = anim.animator(r)
    local c = looping()
    local tr = a:play(c)
    local objects = { { "anim.clip", c }, { "anim.track", tr }, { "anim.animator", a }, { "anim.rig", r } }
    for _, o in ipairs(objects) do
      local name, x = o[1], o[2]
      local gc = getmt(x).__gc
      gc(x)
      local ok, err = pcall(function() return x.anything end)
      assert.is_false(ok)
      assert.are.equal("spec/finalized_spec.lua:" .. debug.getinfo(1, "l").currentline - 2 .. ": " .. name
        .. " used after it was finalized (garbage collected, or its __gc called by hand)", err)
      assert.are.equal(name .. " (finalized)", tostring(x))
      assert.are.equal(name .. " (finalized)", getmetatable(x))
      assert.has_error(function() gc(x) end)
    end
    assert.has_error(function() anim.animator(r) end, "bad argument #1 to 'animator' (rig or 2D skeleton expected, got anim.rig (finalized))")
    assert.has_error(function() anim.update({ a }, 0.1) end,
      "bad argument #1 to 'update' (animator expected at index 1, got anim.animator (finalized))")
    -- the internal functions too, called directly
    assert.has_error(function() core.animator_update(a, 0.1) end,
      "anim.animator used after it was finalized (garbage collected, or its __gc called by hand)")
    assert.has_error(function() core.track_state(tr) end,
      "anim.track used after it was finalized (garbage collected, or its __gc called by hand)")
    assert.has_error(function() core.clip_sample(c, 0) end,
      "anim.clip used after it was finalized (garbage collected, or its __gc called by hand)")
  end)

  it("a box given another kind's metatable is refused, not read as that kind", function()
    local r = rig_of(2)
    local a = anim.animator(r)
    local tr = a:play(looping())
    debug.setmetatable(tr, core.clip_metatable)
    assert.has_error(function() core.clip_sample(tr, 0) end,
      "bad argument #1 to 'clip_sample' (anim.clip expected, got another userdata with its metatable)")
    debug.setmetatable(r, core.animator_metatable)
    -- (core.animator_update says so with a status: the Lua side names the line)
    assert.are.equal(require("anim.base.codes").status.not_animator, core.animator_update(r, 0))
    assert.has_error(function() core.animator_event(r, 1) end,
      "bad argument #1 to 'animator_event' (anim.animator expected, got another userdata with its metatable)")
    assert.has_error(function() core.animator_get(r, 1) end)
    assert.has_error(function() anim.update({ r }, 0) end)
    local file_mt = getmt(io.stdout)
    debug.setmetatable(io.stdout, core.track_metatable)
    assert.has_error(function() core.track_time(io.stdout) end)
    -- (their own metatables back: a metatable replaced takes its finalizer
    -- with it, and what the box holds would never be freed)
    debug.setmetatable(io.stdout, file_mt)
    debug.setmetatable(tr, core.track_metatable)
    debug.setmetatable(r, core.rig_metatable)
  end)

  it("an animator finalized by its own callback: update says so, nothing breaks", function()
    local a = anim.animator(rig_of(2))
    a:play(looping { 0.2, 0.4 }, { fade = 0 })
    a:on_marker(function() finalize(a) end)
    local ok, err = pcall(a.update, a, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("anim.animator " .. FINALIZED), err)
    assert.has_error(function() a:update(0.1) end)
  end)

  it("an animator of a batch finalized by the callback of another: anim.update says so after delivering the rest", function()
    local r = rig_of(2)
    local a, b, c = anim.animator(r), anim.animator(r), anim.animator(r)
    local clip = looping { 0.2 }
    for _, x in ipairs { a, b, c } do x:play(clip, { fade = 0 }) end
    local seen = {}
    a:on_marker(function() seen[#seen + 1] = "a"; finalize(b) end)
    b:on_marker(function() seen[#seen + 1] = "b" end)
    c:on_marker(function() seen[#seen + 1] = "c" end)
    local ok, err = pcall(anim.update, { a, b, c }, 0.5)
    assert.is_false(ok)
    assert.truthy(err:find("anim.animator " .. FINALIZED), err)
    assert.are.same({ "a", "c" }, seen)
    anim.update({ a, c }, 0.5)
  end)

  -- (found by fuzz_animator, under ASan: a clip's reload gives objects to
  -- the tracks of every controller of a weak list, where an animator found
  -- unreachable stays until its finalizer ran; a collection inside the
  -- hosting ran it, and the hosting read the freed animator)
  it("an animator finalized while its controller's tracks get their objects: the hosting stops, nothing freed is read", function()
    local r = rig_of(2)
    local layers, clips = {}, { c = looping() }
    for i = 1, 400 do layers[i] = { name = "l" .. i, entry = "s", states = { s = { clip = "c" } } } end
    local g = assert(anim.graph({ version = 1, layers = layers }, clips))
    local cur
    local ok, err = H.during_finalizer_in(core, "controller_adopt", function() finalize(cur) end, function()
      cur = anim.animator(r)
      cur:control(g)
      cur:update(0.1)  -- (400 tracks started, none with an object)
      return cur:tracks()
    end)
    -- (tracks() raises once it reads the finalized animator's tracks, or
    -- lists those it read before)
    if not ok then assert.truthy(tostring(err):find("anim.animator " .. FINALIZED), err) end
    local uok, uerr = pcall(function() cur:update(0.1) end)
    assert.is_false(uok)
    assert.truthy(uerr:find("anim.animator " .. FINALIZED), uerr)
  end)
end)

describe("a finalizer that builds a clip while another is built", function()
  -- (Debian 12's LuaJIT hangs in a finalizer that runs a compiled loop,
  -- with or without the module: docs/runtimes.md)
  if H.jit then
    it("is not tried on LuaJIT 2.1.0-beta3", function() pending("a finalizer that runs a hot loop hangs it: docs/runtimes.md") end)
    return
  end
  it("does not disturb the outer build: each walk for unknown fields has its own tables (the outer raised)", function()
    local fields = require "anim.format.fields"
    local joints = {}
    for i = 1, 2000 do joints["j" .. i] = { position = { { 0, { 0, 0, 0 } } } } end
    local inner
    local function build_inner() inner = anim.clip({ length = 1, joints = { a = { position = {} } } }, "inner") end
    local ok, clip, err = H.during_finalizer_in(fields, "unknown", build_inner,
      function() return anim.clip({ length = 1, joints = joints }, "outer") end)
    assert.is_true(ok, clip)
    assert.are.equal("anim.clip", getmetatable(clip), err)
    assert.are.equal(2000, #clip:joints())
    assert.are.equal("anim.clip", getmetatable(inner))
    -- the outer build still names its own first unknown field
    joints.j1000.rotaton = {}
    ok, err = H.during_finalizer_in(fields, "unknown", build_inner,
      function() return anim.clip({ length = 1, joints = joints }, "outer") end)
    assert.is_false(ok)
    assert.truthy(err:find("joints.j1000.rotaton: unknown field; did you mean 'rotation'?", 1, true), err)
  end)
end)

-- (issue 35, defect 3)
describe("a finalizer that reloads a clip in the middle of a call", function()
  -- (Debian 12's LuaJIT hangs in a finalizer that runs a compiled loop,
  -- with or without the module: docs/runtimes.md)
  if H.jit then
    it("is not tried on LuaJIT 2.1.0-beta3", function() pending("a finalizer that runs a hot loop hangs it: docs/runtimes.md") end)
    return
  end
  local bind = require "anim.format.bind"
  -- (big enough that the calls' allocations step the collector: the
  -- finalizer then runs inside them, spec/helper.lua)
  local N = 3000
  local big = (function()
    local joints = { { name = "j1" } }
    for i = 2, N do joints[i] = { name = "j" .. i, parent = "j" .. (i - 1), position = { 0, 1, 0 } } end
    return assert(anim.rig { joints = joints })
  end)()
  local function wide(n, k)
    local J = { j1 = { position = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 2 * k } } } } }
    for i = 2, n do J["j" .. i] = { rotation = { { 0, { 0, 0, 0 } }, { 1, { k, 0, 0 } } } } end
    return { length = 1, loop = "loop", joints = J }
  end
  local function clip(name, k) return assert(anim.clip(wide(N, k or 1), name)) end
  local function reloading(c, t)
    return function()
      local ok, err = anim.reload(c, t)
      assert(ok, err)
    end
  end
  local pose_of, finite = H.pose_and_motion, H.finite
  -- ref and a give the same bits over two updates
  local function same_on(ref, a)
    for _, dt in ipairs { 0.1, 0.45 } do
      a:update(dt)
      ref:update(dt)
      assert.is_nil(H.bitdiff(pose_of(ref), pose_of(a)))
    end
  end

  -- A reload that runs after the core made the track, before the Lua side
  -- noted it, finds a live track of the clip it was not told of: it is
  -- refused then (nil, message), the track plays the content it was made
  -- for.  Either way nothing reads outside the arrays.
  local REFUSED = "tracks of it kept being started while it was %(by finalizers%)"
  local function recording(c, t, into)
    return function() into[1], into[2] = anim.reload(c, t) end
  end

  it("in core.animator_play: bindings made for the old content are refused (false), nothing is made", function()
    local c = clip("run")
    local a = anim.animator(big, { root_motion = "j1" })
    local binds = bind.get(c, big)
    local result = {}
    local ok, track = H.during_finalizer(recording(c, wide(3, 2), result), function()
      return core.animator_play(a, c, 0, 1, 1, nil, binds, {})
    end)
    assert.is_true(ok, track)
    if result[1] then
      assert.are.equal(3, #c:joints())
      assert.is_false(track)
      assert.are.same({}, a:tracks())
    else
      assert.truthy(result[2]:find(REFUSED), result[2])
      assert.are.equal(N, #c:joints())
      assert.are.equal("anim.track", getmetatable(track))
    end
    a:update(0.1)
    assert.is_true(finite(pose_of(a)))
  end)

  it("in animator:play: the track plays the new content (its bindings made again), or the reload is refused", function()
    local c = clip("run")
    local a = anim.animator(big, { root_motion = "j1" })
    local result = {}
    local ok, err = H.during_finalizer(recording(c, wide(3, 2), result), function() return a:play(c, { fade = 0 }) end)
    assert.is_true(ok, err)
    if not result[1] then assert.truthy(result[2]:find(REFUSED), result[2]) end
    assert.are.equal(result[1] and 3 or N, #c:joints())
    local ref = anim.animator(big, { root_motion = "j1" })
    ref:play(assert(anim.clip(result[1] and wide(3, 2) or wide(N, 1))), { fade = 0 })
    same_on(ref, a)
  end)

  it("in core.animator_play_space: refused (false) when a point's clip changed; animator:play makes them again", function()
    local walk, run = clip("walk"), clip("run", 2)
    local space = anim.blendspace { points = { { clip = walk, at = 0 }, { clip = run, at = 1 } } }
    local a = anim.animator(big, { root_motion = "j1" })
    local binds = { bind.get(walk, big), bind.get(run, big) }
    local result = {}
    local ok, track = H.during_finalizer(recording(run, wide(2, 3), result), function()
      return core.animator_play_space(a, space, 0, 1, 1, nil, binds, {}, 0.5)
    end)
    assert.is_true(ok, track)
    if result[1] then
      assert.are.equal(2, #run:joints())
      assert.is_false(track)
    else
      assert.truthy(result[2]:find(REFUSED), result[2])
      -- (the track it made plays on, unknown to the Lua side: ended, it no
      -- longer keeps a reload from happening)
      track:stop(0)
      a:update(0)
      assert(anim.reload(run, wide(2, 3)))
    end
    result = {}
    ok, track = H.during_finalizer(recording(walk, wide(4, 3), result), function() return a:play(space, { at = 0.5, fade = 0 }) end)
    assert.is_true(ok, track)
    if not result[1] then assert.truthy(result[2]:find(REFUSED), result[2]) end
    local ref = anim.animator(big, { root_motion = "j1" })
    ref:play(anim.blendspace { points = { { clip = anim.clip(result[1] and wide(4, 3) or wide(N, 1)), at = 0 },
      { clip = anim.clip(wide(2, 3)), at = 1 } } }, { at = 0.5, fade = 0 })
    same_on(ref, a)
  end)

  it("in animator:restore: the plan is made again (it raised 'binding out of range')", function()
    local c = clip("run")
    local a = anim.animator(big, { root_motion = "j1" })
    a:play(c, { fade = 0 })
    a:update(0.3)
    local state = a:state()
    local b = anim.animator(big, { root_motion = "j1" })
    local ok, res, err = H.during_finalizer_in(core, "animator_restore", reloading(c, wide(3, 2)), function()
      return b:restore(state, function() return c end)
    end)
    assert.is_true(ok, res)
    assert.is_truthy(res, err)
    assert.are.equal(3, #c:joints())
    -- it is what a restore after the reload gives
    local ref = anim.animator(big, { root_motion = "j1" })
    assert(ref:restore(state, function() return c end))
    same_on(ref, b)
  end)

  it("in clip:sample and core.clip_keys: read again, whole, from the new content (they read past it)", function()
    local c = clip("run")
    local result = {}
    local ok, pose = H.during_finalizer_in(core, "clip_sample", recording(c, wide(3, 2), result),
      function() return c:sample(0.5) end)
    assert.is_true(ok, pose)
    assert.is_true(result[1] == c, result[2])
    assert.are.same(anim.clip(wide(3, 2)):sample(0.5), pose)
    -- (a channel of many keys: its tables are big enough to run the finalizer)
    local function long(n)
      local k = {}
      for i = 1, n do k[i] = { (i - 1) / n, { i, 0, 0 } } end
      return { length = 1, joints = { j2 = { position = k } } }
    end
    local d = assert(anim.clip(long(H.valgrind and 20000 or 200000), "long"))
    local keys = {}
    ok, keys[1], keys[2] = H.during_finalizer_in(core, "clip_keys", recording(d, long(3), result),
      function() return core.clip_keys(d, 1, 0) end)
    assert.is_true(ok, keys[1])
    assert.are.equal(3, #keys[1])
    local times, values = core.clip_keys(anim.clip(long(3)), 1, 0)
    assert.are.same({ times, values }, keys)
  end)

  -- (found by fuzz_animator: the reload raised "a clip of the graph was
  -- reloaded while its bindings were made")
  it("in the rebinding of a controller by a reload: the bindings are made again", function()
    local c1, c2 = clip("c1"), clip("c2")
    local g = assert(anim.graph({ version = 1, parameters = { go = { type = "trigger" } }, layers = { { name = "base",
      entry = "a", states = { a = { clip = "c1" }, b = { clip = "c2" } },
      transitions = { { from = "a", to = "b", when = { { "go" } } } } } } }, { c1 = c1, c2 = c2 }))
    local a = anim.animator(big)
    local ctl = a:control(g)
    a:update(0.1)
    local ok, res, err = H.during_finalizer_in(core, "controller_rebind", reloading(c2, wide(3, 2)), function()
      return anim.reload(c1, wide(N, 3))
    end)
    assert.is_true(ok, res)
    assert.are.equal(c1, res, err)
    assert.are.equal(3, #c2:joints())
    -- it plays as a restore of its state, made after both reloads
    local ref = anim.animator(big)
    assert(ref:restore(a:state(), function(name, kind) if kind == "graph" then return g end return ({ c1 = c1, c2 = c2 })[name] end))
    ctl:fire("go")
    ref.controller:fire("go")
    same_on(ref, a)
  end)

  -- (found by fuzz_animator: the reload asked the core for the layer of a
  -- track finalized since it listed it)
  it("in anim.reload's bindings of a track it listed, finalizing it: the track is passed over", function()
    local c = looping()
    local a = anim.animator(rig_of(2))
    local tracks = {}
    for i = 1, 3 do tracks[i] = a:play(c, { fade = 0 }) end
    a:update(0.1)
    local get = bind.get
    bind.get = function(...)
      bind.get = get
      for _, t in ipairs(tracks) do finalize(t) end  -- (the one listed now among them)
      return get(...)
    end
    local ok, res, err = pcall(anim.reload, c, { length = 1, loop = "loop",
      joints = { j2 = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 45, 0, 0 } } } } } })
    bind.get = get
    assert.is_true(ok, res)
    assert.are.equal(c, res, err)
    a:update(0.1)
    assert.are.same({}, a:tracks())
  end)

  it("in anim.reload itself, finalizing a track it lists: the track is passed over (it raised 'used after it was finalized')", function()
    local c = clip("run")
    local a = anim.animator(big)
    local tracks = {}
    for i = 1, 20 do tracks[i] = a:play(c, { fade = 0 }) end
    a:update(0.1)
    local victim = tracks[10]
    local fresh = wide(N, 2)
    local ok, res, err = H.during_finalizer_in(core, "clip_reload", function() debug.getmetatable(victim).__gc(victim) end,
      function() return anim.reload(c, fresh) end)
    assert.is_true(ok, res)
    assert.are.equal(c, res, err)
    a:update(0.1)
    assert.is_true(finite(pose_of(a)))
  end)
end)
