-- deliver.lua: what only Lua can do of an update's delivery, and the
-- batch update (anim.update).  The one delivery loop is the core's, in C
-- (csrc/lua/lua_deliver.c): it delivers every entry of the queue, in
-- order, and calls the two handlers registered here once for what only
-- Lua can do: `call` runs a callback where it could yield (in a coroutine
-- of its own), `plays` starts what a `plays` item names.  The first error
-- comes back from C; it is raised here.  Nothing here allocates while
-- callbacks fire.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local is_buffer = require("anim.base.buffer").is
-- (5.1 and 5.2 have no coroutine.isyieldable; 5.1's xpcall passes no
-- arguments: docs/runtimes.md)
local compat = require "anim.base.compat"
local isyieldable, xpcall = compat.isyieldable, compat.xpcall

local M = {}

local ST = codes.status
local UV_SOURCE = codes.uv.track_source
local track_uv, animator_state = core.track_uservalue, core.animator_state
local core_update_list = core.animators_update
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
-- coroutine, each callback runs in a runner coroutine of its own (the C
-- loop calls it through the `call` handler), so that its yield comes back
-- here instead of suspending update (and the animator) with it.  Runners
-- are reused: delivering allocates nothing.

-- The message names the function delivering (animator:update or
-- anim.update: the handlers are told which).
local YIELD = {
  update = "a callback cannot yield (animator:update delivers callbacks and cannot be suspended)",
  batch = "a callback cannot yield (anim.update delivers callbacks and cannot be suspended)",
}

-- Where nothing can yield, a yield is an error of its own: say it plainly.
local function plain(err, msg)
  if type(err) ~= "string" then return err end
  -- (each runtime words it its way: 5.4 "across a C-call boundary", 5.1
  -- "across metamethod/C-call boundary", LuaJIT "across C-call boundary"
  -- after the callback's position)
  local first = err:match("^[^\n]*")
  if first:find("attempt to yield across [%w/ ]*C%-call boundary") or first:find("attempt to yield from outside a coroutine") then
    return msg .. ": " .. err
  end
  return err
end

-- Whether the callbacks of an update called here run in runners (the C
-- loop asks the same of the Lua state: 5.1's coroutines cannot yield
-- across its protected calls, and it calls them itself there).
local function in_coroutine() return compat.pcall_yields and isyieldable() end

-- Raises the first error of a delivery (who: "update" or "batch").
local function raise_first(err, who)
  if not in_coroutine() then err = plain(err, YIELD[who]) end
  error(err, 0)
end
M.raise_first = raise_first

local DONE = {} -- what a runner yields when its callback has returned
-- A runner calls fn(...), yields DONE and the outcome, and waits for the
-- next call.  The tail calls leave nothing of a call on an idle runner's
-- stack (no argument of the last callback is kept alive by the pool).
local run
local function finished(ok, err) return run(yield(DONE, ok, err)) end
function run(fn, ...) return finished(xpcall(fn, traceback, ...)) end
local runners = {} -- idle runners

-- The `call` handler: calls fn(...) in a runner; returns nil or the error
-- (with traceback).  batch: anim.update delivers.
local function call_in_runner(batch, fn, ...)
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
  return traceback(co, batch and YIELD.batch or YIELD.update)
end

-- Calls every function of list with the arguments; returns the first error.
-- in_co: update runs where a callback could yield (see above).
local function call(list, err, in_co, batch, ...)
  if list == nil then return err end
  for i = 1, #list do
    local e
    if in_co then
      e = call_in_runner(batch, list[i].fn, ...)
    else
      local ok
      ok, e = xpcall(list[i].fn, traceback, ...)
      if ok then e = nil else e = plain(e, batch and YIELD.batch or YIELD.update) end
    end
    if e ~= nil and err == nil then err = e end
  end
  return err
end

M.call = call

-- play(animator, clip, opts, fname), runtime/animator.lua's: what a
-- `plays` item starts (set there: it plays through this file's handler)
M.play = nil

-- The `plays` handler: start the library clip of a `plays` item, or
-- restart its live track; returns nil or the first error.  from: the clip
-- that held the item (on_play's fourth argument).
local function run_play(self, item, late, in_co, batch, from)
  local st = animator_state(self)
  local lib = st.library
  if not lib then
    return string.format("plays '%s': the animator has no library to resolve it", shown(item.clip))
  end
  local c, lerr = lib:clip(item.clip)
  if not c then return "plays '" .. shown(item.clip) .. "': " .. lerr end
  -- the live track of that clip started first (7a.14: it keeps its rank)
  M.host(self)
  local found, first
  for id, t in pairs(st.live) do
    if track_uv(t, UV_SOURCE) == c and select(4, core.track_state(t)) and (not first or id < first) then
      found, first = t, id
    end
  end
  if found then
    core.track_restart(found, item.fade)
    return call(st.on_play, nil, in_co, batch, found, c, late, from)
  end
  local ok, t = pcall(M.play, self, c, { fade = item.fade }, "update")
  if not ok then return "plays '" .. shown(item.clip) .. "': " .. tostring(t) end
  return call(st.on_play, nil, in_co, batch, t, c, late, from)
end

-- A state machine's handlers (runtime/controller.lua sets them): the
-- tracks its update started given their objects, and its exits,
-- transitions and entries to its callbacks; each returns nil or the error.
M.adopt, M.state = nil, nil
-- and the objects of all its tracks, of one animator or of every one
-- (a script is about to read or change them)
function M.host() end
function M.host_all() end
-- and a clip's reload: what it would break of a controller (a message, or
-- nil), then the controllers' bindings made again
function M.reload_problem() end
function M.rebind() end
-- and the bindings b of a track of the reloaded clip, kept to the mask of
-- the layer that started it
function M.track_bindings(_, _, b) return b end

-- (5.1: no runners, the C loop calls each callback itself)
core.deliver_handlers(compat.pcall_yields and call_in_runner or nil, run_play,
  function(a) return M.adopt(a) end,
  function(a, ty, l, s, o, late, in_co, batch) return M.state(a, ty, l, s, o, late, in_co, batch) end)

-- anim.update(animators, dt): the batch update.  One call into C updates
-- every animator of the list, then delivers their callbacks animator by
-- animator.  pend (from a pool: a callback may run another batch update)
-- holds false where nothing is pending, so that the C side fills it
-- without allocating: the animators with callbacks.
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
local function refusal(code, i, j, list, dt, skin)
  local function bad(n, msg) return string.format("bad argument #%d to 'update' (%s)", n, msg) end
  if code == ST.bad_dt then return bad(2, "dt must be a finite number >= 0, got " .. show(dt)) end
  if code == ST.skin_room then
    if is_buffer(skin) then
      return bad(3, string.format("skin too small: %d %ss needed, the buffer holds %d", i, skin.kind, j))
    end
    return bad(3, string.format("skin too small: %d bytes needed (%d floats), it holds %d", 4 * i, i, 4 * j))
  end
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

-- The options of anim.update: threads, the threads that compute the poses
-- (1 to codes.const.max_threads; absent: the processors online for lists
-- of codes.const.threads_min_batch animators or more, else 1).  The
-- callbacks are delivered on the calling thread in list order whatever
-- the count, and the poses are the same bits.  skin: a target every
-- animator's skinning matrices go into after its update, each right after
-- the previous one's (animator:skin's layouts: skin_layout); it wins over
-- the animators' own skin_target.
local UPDATE_OPTIONS = args.names { "threads", "skin", "skin_layout" }
local MAX_THREADS = codes.const.max_threads
local LAYOUTS = { mat3x4 = 12, mat4 = 16 }
local LAYOUT_NAMES = { "mat3x4", "mat4" }

-- The pointer and the room (floats) of a batch's skin target: a module
-- buffer (itself: the C side reads it), or an object with getPointer and
-- getSize (bytes of 32-bit floats).  Not a table: the batch writes on its
-- threads.
local function index(t, k) return t[k] end
local function skin_option(target)
  if is_buffer(target) then return target, nil end
  -- (no closure made: a frame allocates nothing)
  local ok, get = pcall(index, target, "getPointer")
  if not ok or get == nil then
    argerror(3, "update", "skin must be a module buffer or an object with getPointer and getSize (a ByteData), got "
      .. type_name(target) .. (type(target) == "table" and " (a table cannot be written by the batch's threads)" or ""))
  end
  local p, size = target:getPointer(), target:getSize()
  if type(p) ~= "userdata" then argerror(3, "update", "skin's getPointer() must give a pointer, got " .. type_name(p)) end
  if type(size) ~= "number" or size < 0 or size ~= math.floor(size) or size > 2 ^ 53 then
    argerror(3, "update", "skin's getSize() must give a size in bytes (an integer >= 0), got " .. show(size))
  end
  return p, math.floor(size / 4)
end

local function update_options(opts)
  opts = args.options(opts, UPDATE_OPTIONS, 3, "update")
  local t = opts.threads
  if t == nil then t = 0
  elseif type(t) ~= "number" or t ~= math.floor(t) or t < 1 or t > MAX_THREADS then
    argerror(3, "update", "threads must be an integer from 1 to " .. MAX_THREADS .. ", got " .. show(t))
  end
  local layout = opts.skin_layout == nil and 12 or LAYOUTS[opts.skin_layout]
  if not layout then
    argerror(3, "update", "skin_layout must be \"mat3x4\" or \"mat4\", got "
      .. (type(opts.skin_layout) == "string" and ("'" .. shown(opts.skin_layout) .. "'"
        .. suggest.hint(opts.skin_layout, LAYOUT_NAMES)) or type_name(opts.skin_layout)))
  end
  if opts.skin ~= nil then
    local p, cap = skin_option(opts.skin)
    return t, p, cap, layout
  end
  return t
end

function M.update_list(list, dt, opts)
  if type(list) ~= "table" then
    local got = args.typename(list)
    argerror(1, "update", "table of animators expected, got " .. got
      .. (got == "anim.animator" and " (anim.update takes a list: anim.update({ a }, dt), or a:update(dt))" or ""))
  end
  -- (no options: no table made)
  local threads, skin, skin_room, skin_layout = 0, nil, nil, nil
  if opts ~= nil then threads, skin, skin_room, skin_layout = update_options(opts) end
  local np = #pool
  local pend = pool[np]
  if pend then pool[np] = nil else np, pend = np + 1, {} end
  -- n animators updated and their callbacks delivered (by C: its loop
  -- set pend back to false), i: one whose queue ran out of memory, first:
  -- the first error of a callback; or a refusal (n < 0, i, j)
  local n, i, first = core_update_list(list, dt, pend, threads, skin, skin_room, skin_layout)
  -- (none failing: the usual frame)
  if i == nil and first == nil then
    if compat_rawlen(pend) <= KEEP then pool[np] = pend else give_back(pend, list) end
    return
  end
  give_back(pend, list)
  if n < 0 then args.raise(refusal(n, i, first, list, dt, opts and opts.skin)) end
  -- (with a shared skin target an animator's first skinning makes its
  -- scratch before its update: out of memory there leaves it as it was)
  if i then error(skin and "not enough memory for the callback queue or the skinning" or
    "not enough memory for the callback queue", 0) end
  raise_first(first, "batch")
end

return M
