-- deliver.lua: an animator's queued callbacks delivered from Lua, and the
-- batch update (anim.update).  The core's update delivers what it can
-- from C where no callback can yield (csrc/lua/lua_deliver.c: the same
-- callbacks, order and arguments as `deliver` below); this file delivers
-- the rest from the entry C left, under pcall, in order, and in a
-- coroutine all of it (each callback in a runner of its own).  Nothing
-- here allocates while callbacks fire.
local core = require "anim.core"
local codes = require "anim.base.codes"
local args = require "anim.base.args"
local E = require "anim.base.errors"
-- (5.1 and 5.2 have no coroutine.isyieldable; 5.1's xpcall passes no
-- arguments: docs/runtimes.md)
local compat = require "anim.base.compat"
local isyieldable, xpcall, xpcall_5_1 = compat.isyieldable, compat.xpcall, xpcall

local M = {}

local ST = codes.status
local EV_ITEM, EV_LOOPED, EV_STOPPED = codes.event.item, codes.event.looped, codes.event.stopped
local MARKER, EVENT, SOUND = codes.item.marker, codes.item.event, codes.item.sound
local UV_SOURCE = codes.uv.track_source
local clip_info, space_info, track_uv = core.clip_info, core.space_info, core.track_uservalue
local animator_state, core_event = core.animator_state, core.animator_event
local core_update_list = core.animators_update
local core_delivering, core_deliver = core.animator_delivering, core.animator_deliver
local traceback = debug.traceback
local type = type
local yield, resume, create = coroutine.yield, coroutine.resume, coroutine.create
local argerror, show, shown, compat_rawlen = args.error, args.show, E.shown, compat.rawlen

-- Calling callbacks --------------------------------------------------------------
--
-- A callback runs inside update, which cannot be suspended half way: a
-- callback that yields gets an error ("a callback cannot yield"), reported
-- like any other, and the other callbacks still run.  When update runs
-- where nothing can yield (the main thread, or under a C call) a yield
-- fails by itself, and its message is made plain.  When update runs in a
-- coroutine, each callback runs in a runner coroutine of its own, so that
-- its yield comes back here instead of suspending update (and the
-- animator) with it.  Runners are reused: delivering allocates nothing.

-- The message names the function delivering (deliver_queue sets it for
-- the time of a delivery: animator:update or anim.update).
local YIELD = {
  update = "a callback cannot yield (animator:update delivers callbacks and cannot be suspended)",
  batch = "a callback cannot yield (anim.update delivers callbacks and cannot be suspended)",
}
local YIELD_MSG = YIELD.update

-- Where nothing can yield, a yield is an error of its own: say it plainly.
local function plain(err)
  if type(err) ~= "string" then return err end
  -- (each runtime words it its way: 5.4 "across a C-call boundary", 5.1
  -- "across metamethod/C-call boundary", LuaJIT "across C-call boundary"
  -- after the callback's position)
  local first = err:match("^[^\n]*")
  if first:find("attempt to yield across [%w/ ]*C%-call boundary") or first:find("attempt to yield from outside a coroutine") then
    return YIELD_MSG .. ": " .. err
  end
  return err
end

local DONE = {} -- what a runner yields when its callback has returned
-- A runner calls fn(...), yields DONE and the outcome, and waits for the
-- next call.  The tail calls leave nothing of a call on an idle runner's
-- stack (no argument of the last callback is kept alive by the pool).
local run
local function finished(ok, err) return run(yield(DONE, ok, err)) end
function run(fn, ...) return finished(xpcall(fn, traceback, ...)) end
local runners = {} -- idle runners

-- Calls fn(...) in a runner; returns nil or the error (with traceback).
local function call_in_runner(fn, ...)
  local co = runners[#runners]
  if co then runners[#runners] = nil else co = create(run) end
  local rok, tag, ok, err = resume(co, fn, ...)
  if rok and tag == DONE then
    runners[#runners + 1] = co
    if ok then return nil end
    return err
  end
  if not rok then return tag end -- (the runner itself failed: not reused)
  -- the callback yielded: the runner stays suspended in it, and is dropped
  return traceback(co, YIELD_MSG)
end

-- xpcall(fn, traceback, ...): on 5.1, whose xpcall passes no arguments,
-- they go to fn through upvalues of one function made once (a closure per
-- call would allocate, and delivery allocates nothing); callbacks take at
-- most 6 arguments.
local xpcall_args = xpcall
if not compat.pcall_yields then
  local f, n, b1, b2, b3, b4, b5, b6
  local function bounce()
    local g, k, c1, c2, c3, c4, c5, c6 = f, n, b1, b2, b3, b4, b5, b6
    f, b1, b2, b3, b4, b5, b6 = nil, nil, nil, nil, nil, nil, nil
    if k == 0 then return g() elseif k == 1 then return g(c1) elseif k == 2 then return g(c1, c2)
    elseif k == 3 then return g(c1, c2, c3) elseif k == 4 then return g(c1, c2, c3, c4)
    elseif k == 5 then return g(c1, c2, c3, c4, c5) end
    return g(c1, c2, c3, c4, c5, c6)
  end
  xpcall_args = function(fn, handler, ...)
    n = select("#", ...)
    if n > 6 then return xpcall(fn, handler, ...) end
    f, b1, b2, b3, b4, b5, b6 = fn, ...
    return xpcall_5_1(bounce, handler)
  end
end

-- Calls every function of list with the arguments; returns the first error.
-- in_co: update runs where a callback could yield (see above).
local function call(list, err, in_co, ...)
  if list == nil then return err end
  for i = 1, #list do
    local e
    if in_co then
      e = call_in_runner(list[i].fn, ...)
    else
      local ok
      ok, e = xpcall_args(list[i].fn, traceback, ...)
      if ok then e = nil else e = plain(e) end
    end
    if e ~= nil and err == nil then err = e end
  end
  return err
end

-- play(animator, clip, opts, fname), runtime/animator.lua's: what a
-- `plays` item starts (set there: it plays through this file's delivery)
M.play = nil

-- A `plays` item: start the library clip, or restart its live track.
local function run_play(self, st, item, late, err, in_co)
  local lib = st.library
  if not lib then
    return err or string.format("plays '%s': the animator has no library to resolve it", shown(item.clip)), nil
  end
  local c, lerr = lib:clip(item.clip)
  if not c then return err or ("plays '" .. shown(item.clip) .. "': " .. lerr), nil end
  -- the live track of that clip started first (7a.14: it keeps its rank)
  local found, first
  for id, t in pairs(st.live) do
    if track_uv(t, UV_SOURCE) == c and select(4, core.track_state(t)) and (not first or id < first) then
      found, first = t, id
    end
  end
  if found then
    core.track_restart(found, item.fade)
    return call(st.on_play, err, in_co, found, c, late), found
  end
  local ok, t = pcall(M.play, self, c, { fade = item.fade }, "update")
  if not ok then return err or ("plays '" .. shown(item.clip) .. "': " .. tostring(t)), nil end
  return call(st.on_play, err, in_co, t, c, late), t
end

-- Delivers the n callbacks queued by the core; returns the first error.
-- (a track's callbacks and clip are looked up once for a run of its
-- events: an update may queue hundreds of thousands)
-- from: the first entry to deliver; err: the first error of those before.
local function deliver(self, st, n, in_co, from, err)
  local live, ended, cbs_of, src_of = st.live, st.ended, st.cbs, st.src
  -- (the last track's callbacks and source, and the info of the clip
  -- whose items it fires: consecutive entries are mostly of one track)
  local last, cbs, src, lastpoint, info
  for i = from, n do
    local ty, id, kind, idx, late, point = core_event(self, i)
    local tr = live[id]
    if tr then
      if tr ~= last then
        last, cbs, src, info = tr, cbs_of[id], src_of[id], nil
      end
      if ty == EV_ITEM then
        -- (a blend space's item: its point's clip has it)
        if not info or point ~= lastpoint then
          info, lastpoint = clip_info(point and space_info(src).clips[point] or src), point
        end
        if kind == MARKER then
          local m = info.markers[idx]
          local per, all = cbs.marker, st.on_marker
          if per then err = call(per[m.name], err, in_co, tr, m.value, late) end
          if all then err = call(all, err, in_co, tr, m.name, m.value, late) end
        elseif kind == EVENT then
          local e = info.events[idx]
          err = call(st.on_event, err, in_co, tr, e.name, e.payload, late)
        elseif kind == SOUND then
          local s = info.sounds[idx]
          err = call(st.on_sound, err, in_co, tr, s.sound, s.volume, s.pitch, late)
        else
          err = run_play(self, st, info.plays[idx], late, err, in_co)
        end
      elseif ty == EV_LOOPED then
        err = call(cbs.looped, err, in_co, tr, late)
      elseif ty == EV_STOPPED then
        err = call(cbs.stopped, err, in_co, tr, late)
      else
        err = call(cbs.ended, err, in_co, tr, late)
        -- it leaves the live tracks after this delivery (kept alive until
        -- then, with its clip); `ended` reuses one table, so no garbage
        ended[#ended + 1] = id
      end
    end
  end
  return err
end

-- Delivers the n callbacks queued by self's last update, self marked as
-- delivering (its callbacks may not update it); returns whether delivery
-- went through, and the first error.  Whatever happens while delivering,
-- the animator comes out usable.
-- st: the animator's state when the caller has it (animator:update: from
-- the core's update itself), else nil.  from, err0: the first entry not
-- delivered yet and the first error of those before, when the core's
-- update delivered the first ones from C (csrc/lua/lua_deliver.c: the
-- same callbacks, in the same order, with the same arguments); else the
-- batch update's entries are offered to C here first.
local function deliver_queue(self, n, who, st, from, err0)
  if from == nil then
    from, err0 = core_deliver(self, n)
    if from > n and err0 == nil then return true, nil end
  end
  local outer = YIELD_MSG
  YIELD_MSG = YIELD[who]
  core_delivering(self, true)
  local ok = true
  if st == nil then ok, st = pcall(animator_state, self) end
  local err
  if ok then
    -- (on 5.1 nothing under this pcall can yield: the callbacks are called
    -- as on the main thread, and a yield fails with 5.1's message)
    if err0 ~= nil then err0 = plain(err0) end
    ok, err = pcall(deliver, self, st, n, compat.pcall_yields and isyieldable(), from, err0)
    local live, ended, cbs_of, src_of = st.live, st.ended, st.cbs, st.src
    for i = #ended, 1, -1 do
      local id = ended[i]
      -- (out of its slot too: runtime/dispatch.lua)
      if live[id] ~= nil then core.track_unslot(live[id]) end
      live[id], cbs_of[id], src_of[id] = nil, nil, nil
      ended[i] = nil
    end
  else
    err = st
  end
  core_delivering(self, false)
  YIELD_MSG = outer
  return ok, err
end

-- anim.update(animators, dt): the batch update.  One call into C updates
-- every animator of the list; then the callbacks are delivered animator by
-- animator.  pend (from a pool: a callback may run another batch update)
-- holds false where nothing is pending, so that the C side fills it
-- without allocating: animator, count, ... for those with callbacks.
local pool = {}

-- The type of a value for messages: its metatable's __name if any (shown).
local type_name = args.typename

-- pend back to the pool, unless it has room for far more than this list
-- (a list of 100,000 once must not keep 200,000 slots for good).
local KEEP = 2048
local function give_back(pend, list)
  local room, need = compat_rawlen(pend), 2 * compat_rawlen(list)
  if room <= KEEP or room <= 8 * need then pool[#pool + 1] = pend end
end

-- A key for messages: numbers as written (1e9 as 1000000000), strings
-- quoted, anything else by its type.
local function show_key(k)
  if type(k) == "number" then return E.num(k) end
  if type(k) == "string" then
    if #k > 40 then k = k:sub(1, 37) .. "..." end
    return (string.format("%q", k):gsub("\\\n", "\\n"))
  end
  if type(k) == "boolean" then return tostring(k) end
  return type_name(k)
end

-- The message of a refused batch update (see core.animators_update).
local function refusal(code, i, j, list, dt)
  local function bad(n, msg) return string.format("bad argument #%d to 'update' (%s)", n, msg) end
  if code == ST.bad_dt then return bad(2, "dt must be a finite number >= 0, got " .. show(dt)) end
  if code == ST.not_animator then
    return bad(1, "animator expected at index " .. i .. ", got " .. type_name(rawget(list, i)))
  end
  if code == ST.twice then
    return bad(1, "the animator at index " .. i .. " is also at index " .. j .. ": each is updated once per call")
  end
  if code == ST.not_list then
    return bad(1, "key " .. show_key(i) .. " is not an index from 1 to #list (" .. j .. "): a list of animators"
      .. " holds them at 1 to #list and nothing else")
  end
  if code == ST.delivering then
    return "anim.update called from one of the callbacks of the animator at index " .. i
      .. " (update it after this one returns)"
  end
  return "anim.update has yet to deliver the callbacks of the animator at index " .. i
    .. " (update it after that anim.update returns)"
end

-- Delivers the callbacks of the n animators of pend, in order, from the
-- pair `start` on (those before it were delivered from C:
-- core.animators_update), the first from its entry `from` when C delivered
-- those before; returns whether one failed, and the first error (first:
-- that of the callbacks delivered from C, or nil).
local function deliver_list(pend, n, start, from, first)
  local bad = first ~= nil
  if bad then
    local outer = YIELD_MSG
    YIELD_MSG = YIELD.batch
    first = plain(first)
    YIELD_MSG = outer
  end
  for k = 2 * start - 1, 2 * n, 2 do
    local ok, err = deliver_queue(pend[k], pend[k + 1], "batch", nil, from, nil)
    pend[k], from = false, nil
    if not bad and (not ok or err ~= nil) then bad, first = true, err end
  end
  return bad, first
end

-- The options of anim.update: threads, the threads that compute the poses
-- (1 to codes.const.max_threads; absent: the processors online for lists
-- of codes.const.threads_min_batch animators or more, else 1).  The
-- callbacks are delivered on the calling thread in list order whatever
-- the count, and the poses are the same bits.
local UPDATE_OPTIONS = args.names { "threads" }
local MAX_THREADS = codes.const.max_threads

local function threads_option(opts)
  opts = args.options(opts, UPDATE_OPTIONS, 3, "update")
  local t = opts.threads
  if t == nil then return 0 end
  if type(t) ~= "number" or t ~= math.floor(t) or t < 1 or t > MAX_THREADS then
    argerror(3, "update", "threads must be an integer from 1 to " .. MAX_THREADS .. ", got " .. show(t))
  end
  return t
end

function M.update_list(list, dt, opts)
  if type(list) ~= "table" then
    argerror(1, "update", "table of animators expected, got " .. args.typename(list)
      .. (args.typename(list) == "anim.animator" and " (anim.update takes a list: anim.update({ a }, dt), or a:update(dt))" or ""))
  end
  -- (no options: no table made)
  local threads = opts ~= nil and threads_option(opts) or 0
  local np = #pool
  local pend = pool[np]
  if pend then pool[np] = nil else np, pend = np + 1, {} end
  local n, i, j, from, first = core_update_list(list, dt, pend, threads)
  -- (every callback delivered from C, none failing: the usual frame)
  if not i and j == n + 1 and first == nil then
    if compat_rawlen(pend) <= KEEP then pool[np] = pend else give_back(pend, list) end
    return
  end
  if n < 0 then
    give_back(pend, list)
    args.raise(refusal(n, i, j, list, dt))
  end
  -- deliver the rest, animator by animator in list order; the first error
  -- is raised once all are delivered.  Should the loop itself fail (out of
  -- memory outside every callback), the animators not delivered are
  -- released.
  local ok, bad
  ok, bad, first = pcall(deliver_list, pend, n, j, from, first)
  if not ok then
    for k = 1, 2 * n, 2 do
      local a = pend[k]
      if a then core_delivering(a, false) end
    end
    bad, first = true, bad
  end
  for k = 1, 2 * n do pend[k] = false end
  give_back(pend, list)
  if i then error("not enough memory for the callback queue", 0) end
  if bad then error(first, 0) end
end

M.deliver_queue = deliver_queue
return M
