-- connect.lua: who listens to an animator's and a track's callbacks, and
-- the connections scripts hold (animator:on_marker(fn) and the others ->
-- a connection, c:disconnect()).  The C side queues only what a callback
-- hears: every change of a list tells it (sync), and a track's marker
-- callbacks go to what the delivery from C reads (runtime/dispatch.lua).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
local args = require "anim.base.args"
local dispatch = require "anim.runtime.dispatch"

local M = {}

local type = type
local argerror = args.error

-- Who listens: the C side queues only the kinds of entries that a callback
-- hears (codes.hear), so that a marker nobody listens to costs no Lua work.
-- `plays` items always have work to do (they start clips), and `ended`
-- keeps the live tracks (st.live) up to date: both are always heard.  The
-- animator's own mask covers on_marker, on_event and on_sound; a track's,
-- its on_marker (any name: the name is looked up when delivering),
-- on_looped, on_stopped and on_ended.  A blend space's points share their
-- lead's callbacks (the C side reads the lead's mask for them).
local HEAR = codes.hear
local ALWAYS = HEAR.plays + HEAR.ended
-- a callbacks table (an animator's state, a track's callbacks) -> its
-- animator or track; weak both ways, so that a connection kept by a script
-- does not keep them alive
local owners = setmetatable({}, { __mode = "kv" })

local function heard(list) return list ~= nil and #list > 0 end

local function animator_mask(st)
  return ALWAYS + (heard(st.on_marker) and HEAR.marker or 0) + (heard(st.on_event) and HEAR.event or 0)
    + (heard(st.on_sound) and HEAR.sound or 0)
end

local function track_mask(cbs)
  local m = 0
  if cbs.marker then
    for _, list in pairs(cbs.marker) do
      if heard(list) then m = HEAR.marker; break end
    end
  end
  return m + (heard(cbs.looped) and HEAR.looped or 0) + (heard(cbs.stopped) and HEAR.stopped or 0)
    + (heard(cbs.ended) and HEAR.ended or 0)
end

-- Tells the C side what the callbacks of root (a state or a track's
-- callbacks table) now hear; nothing for an object already finalized.
-- owner: the table whose list changed; a track's marker callbacks (owner
-- its cbs.marker) go to what the delivery from C reads too
-- (runtime/dispatch.lua), also once the track is finalized (a finalizer
-- disconnects them).
-- root -> fn(root): what other callbacks tables tell when their lists
-- change (runtime/controller.lua: which of a state machine's entries are
-- queued)
local hooks = setmetatable({}, { __mode = "k" })

local function sync(root, owner)
  local hook = hooks[root]
  if hook then hook(root) return end
  local obj = owners[root]
  if obj == nil then return end
  local mt = debug.getmetatable(obj)
  if mt == core.animator_metatable then
    core.animator_hear(obj, animator_mask(root))
    core.animator_set_callbacks(obj, dispatch.callbacks(root.on_marker), dispatch.callbacks(root.on_event),
      dispatch.callbacks(root.on_sound))
  elseif mt == core.track_metatable then core.track_hear(obj, track_mask(root)) end
  if owner ~= root and owner == root.marker then dispatch.update(obj, root) end
end

-- Connections: callback lists are replaced, never changed in place, so a
-- delivery loop over the old list is not disturbed by (dis)connections.
-- root: the callbacks table whose mask the connection changes.
local Connection = {}
Connection.__index = Connection
Connection.__name = "anim.connection"
Connection.__metatable = "anim.connection"

function Connection:disconnect()
  if not self.connected then return end
  self.connected = false
  local old, new = self.owner[self.field], {}
  for _, c in ipairs(old) do
    if c ~= self then new[#new + 1] = c end
  end
  self.owner[self.field] = new
  sync(self.root, self.owner)
end

-- n: the position of fn among the method's arguments; root: as above
-- (owner itself when nil).
local function connect(owner, field, fn, fname, n, root)
  if type(fn) ~= "function" then argerror(n or 1, fname, "function expected, got " .. args.typename(fn)) end
  local c = setmetatable({ fn = fn, owner = owner, field = field, connected = true, root = root or owner }, Connection)
  local old, new = owner[field] or {}, {}
  for i, x in ipairs(old) do new[i] = x end
  new[#new + 1] = c
  owner[field] = new
  sync(c.root, owner)
  return c
end

M.HEAR, M.ALWAYS, M.owners, M.hooks = HEAR, ALWAYS, owners, hooks
M.animator_mask, M.connect, M.Connection = animator_mask, connect, Connection
return M
