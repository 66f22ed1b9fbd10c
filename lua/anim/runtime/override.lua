-- override.lua: overrides of joints from scripts (a look-at, a recoil):
-- animator:override(joint, opts) -> handle.  The C core applies them in
-- every update after the blend and before any constraint, in creation
-- order (csrc/core/override.c); a handle's fields can be set at any time
-- (from the next update on), and setting them copies numbers into the
-- core: a script that sets h.rotation from a table it reuses every frame
-- allocates nothing.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local args = require "anim.base.args"
local codes = require "anim.base.codes"
local suggest = require "anim.base.suggest"
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
-- (a name or value of a script or a rig that a message quotes: escaped,
-- cut at E.SHOWN bytes)
local shown = E.shown

local M = {}

-- Every option of animator:override, in one place.
local OPTIONS = args.names { "rotation", "position", "scale", "mode", "weight" }

local MODES = codes.override
local CH_POS, CH_ROT, CH_SCL = codes.channel.position, codes.channel.rotation, codes.channel.scale
local core_set = core.override_set
local huge = math.huge

-- Channel bits (1, 2, 4) without bit operators (the module parses on Lua
-- 5.1 and LuaJIT too).
local function has(ch, bit) return math.floor(ch / bit) % 2 == 1 end

local function finite(x) return type(x) == "number" and x == x and x > -huge and x < huge end

-- A value for messages.
local function show(v)
  if type(v) == "string" then return "'" .. shown(v) .. "'" end
  if type(v) ~= "number" then return args.typename(v) end
  if v ~= v then return "nan" end
  if v == huge then return "inf" end
  if v == -huge then return "-inf" end
  return tostring(v)
end

-- Why value v cannot be the option `k` (nil when it can).
local function refusal(k, v)
  if k == "rotation" then
    if type(v) ~= "table" then return "rotation must be {x, y, z, w}, got " .. args.typename(v) end
    local x, y, z, w = v[1], v[2], v[3], v[4]
    if not (finite(x) and finite(y) and finite(z) and finite(w)) then
      return "rotation must be {x, y, z, w}: four finite numbers"
    end
    if x == 0 and y == 0 and z == 0 and w == 0 then return "rotation must not be a zero quaternion" end
  elseif k == "position" or k == "scale" then
    if type(v) ~= "table" then return k .. " must be {x, y, z}, got " .. args.typename(v) end
    if not (finite(v[1]) and finite(v[2]) and finite(v[3])) then return k .. " must be {x, y, z}: three finite numbers" end
  elseif k == "mode" then
    if MODES[v] == nil then return "mode must be \"replace\" or \"add\", got " .. show(v) end
  elseif k == "weight" then
    if not finite(v) or v < 0 or v > 1 then return "weight must be a number from 0 to 1, got " .. show(v) end
  end
end

-- A handle's state lives here, not in the handle (whose fields go
-- through __index and __newindex): { animator, st, id, joint (0-based),
-- name, mode, weight, channels, p = {3}, q = {4}, s = {3} }.
local state = setmetatable({}, { __mode = "k" })

local function push(o)
  local p, q, s = o.p, o.q, o.s
  core_set(o.animator, o.id, o.joint, MODES[o.mode], o.channels, o.weight,
    p[1], p[2], p[3], q[1], q[2], q[3], q[4], s[1], s[2], s[3])
end

-- Stores option k = v (checked) into the state o; nil clears a channel.
local VEC = { position = { "p", CH_POS, 3 }, rotation = { "q", CH_ROT, 4 }, scale = { "s", CH_SCL, 3 } }
local function store(o, k, v)
  local vec = VEC[k]
  if vec then
    local dst, bit, n = o[vec[1]], vec[2], vec[3]
    if v == nil then
      if has(o.channels, bit) then o.channels = o.channels - bit end
    else
      for i = 1, n do dst[i] = v[i] end
      if not has(o.channels, bit) then o.channels = o.channels + bit end
    end
  elseif k == "mode" then
    o.mode = v == nil and "replace" or v
  else
    o.weight = v == nil and 1 or v
  end
end

local Handle = { __name = "anim.override" }
local methods = {}

-- h:remove(): the override no longer applies (from the next update).
function methods.remove(self)
  local o = state[self]
  if o.removed then return end
  o.removed = true
  core.override_remove(o.animator, o.id)
  o.st.overrides[o.id] = nil
end

local READ = {
  joint = function(o) return o.name end,
  animator = function(o) return o.animator end,
  mode = function(o) return o.mode end,
  weight = function(o) return o.weight end,
  removed = function(o) return o.removed end,
  position = function(o) if has(o.channels, CH_POS) then return { o.p[1], o.p[2], o.p[3] } end end,
  rotation = function(o) if has(o.channels, CH_ROT) then return { o.q[1], o.q[2], o.q[3], o.q[4] } end end,
  scale = function(o) if has(o.channels, CH_SCL) then return { o.s[1], o.s[2], o.s[3] } end end,
}

Handle.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local r = READ[k]
  if r then return r(state[self]) end
  args.no_field("anim.override", k, methods, READ)
end

Handle.__newindex = function(self, k, v)
  local o = state[self]
  if not OPTIONS.set[k] then
    args.raise("cannot set override field '" .. shown(k) .. "'" .. (type(k) == "string" and suggest.hint(k, OPTIONS.list) or "")
      .. " (the settable ones: " .. table.concat(OPTIONS.list, ", ") .. ")")
  end
  if o.removed then args.raise("override of joint '" .. shown(o.name) .. "' was removed: its fields cannot be set") end
  local why = v ~= nil and refusal(k, v)
  if why then args.raise("override " .. why) end
  store(o, k, v)
  push(o)
end

args.methods(methods, Handle, "anim.override")

Handle.__tostring = function(self)
  local o = state[self]
  return string.format("anim.override(%s, %s%s)", shown(o.name), o.mode, o.removed and ", removed" or "")
end

-- animator:override(joint, opts): st is the animator's Lua state table.
function M.new(animator, st, joint, opts)
  local rinfo = core.rig_info(st.rig)
  local j
  if type(joint) == "string" then
    j = rinfo.index[joint]
    if not j then args.error(1, "override", "unknown joint '" .. shown(joint) .. "'") end
  elseif type(joint) == "number" and joint % 1 == 0 then
    if joint < 1 or joint > #rinfo.joints then
      args.error(1, "override", string.format("joint index %s out of range 1..%d", show(joint), #rinfo.joints))
    end
    j = compat.tointeger(joint)
  else
    args.error(1, "override", "joint name or index expected, got " .. args.typename(joint))
  end
  if type(opts) ~= "table" then args.error(2, "override", "table of options expected, got " .. args.typename(opts)) end
  args.options(opts, OPTIONS, 2, "override")
  local o = { animator = animator, st = st, joint = j - 1, name = rinfo.joints[j].name, mode = "replace", weight = 1,
    channels = 0, p = { 0, 0, 0 }, q = { 0, 0, 0, 1 }, s = { 1, 1, 1 }, removed = false }
  for _, k in ipairs(OPTIONS.list) do
    local v = opts[k]
    if v ~= nil then
      local why = refusal(k, v)
      if why then args.error(2, "override", why) end
      store(o, k, v)
    end
  end
  local p, q, s = o.p, o.q, o.s
  o.id = core.override_add(animator, o.joint, MODES[o.mode], o.channels, o.weight,
    p[1], p[2], p[3], q[1], q[2], q[3], q[4], s[1], s[2], s[3])
  local h = setmetatable({}, Handle)
  state[h] = o
  st.overrides = st.overrides or {}
  st.overrides[o.id] = h
  return h
end

-- The animator's override handles, in creation order.
function M.list(st)
  local out, ids = {}, {}
  for id in pairs(st.overrides or {}) do ids[#ids + 1] = id end
  table.sort(ids)
  for i, id in ipairs(ids) do out[i] = st.overrides[id] end
  return out
end

-- The saveable state (runtime/state.lua) -------------------------------------

-- Each live override as the script set it (the core holds its rotation
-- made unit: adding these values again gives the same bits), in creation
-- order: { id, joint (0-based), name, mode, weight, channels, p, q, s }.
function M.export(st)
  local out = {}
  for i, h in ipairs(M.list(st)) do
    local o = state[h]
    out[i] = { id = o.id, joint = o.joint, name = o.name, mode = o.mode, weight = o.weight, channels = o.channels,
      p = { o.p[1], o.p[2], o.p[3] }, q = { o.q[1], o.q[2], o.q[3], o.q[4] }, s = { o.s[1], o.s[2], o.s[3] } }
  end
  return out
end

-- The handles of a restore, made before it happens (list: as M.export
-- gives); commit() then removes the animator's old handles and puts these
-- in their place, allocating nothing (st.overrides exists from here on).
function M.prepare(animator, st, list)
  st.overrides = st.overrides or {}
  local map, handles = {}, {}
  for i, e in ipairs(list) do
    local o = { animator = animator, st = st, joint = e.joint, name = e.name, mode = e.mode, weight = e.weight,
      channels = e.channels, p = e.p, q = e.q, s = e.s, removed = false, id = e.id }
    local h = setmetatable({}, Handle)
    state[h] = o
    map[e.id] = h
    handles[i] = h
  end
  local function commit()
    for _, h in pairs(st.overrides) do state[h].removed = true end
    st.overrides = map
  end
  return handles, commit
end

-- (the methods, for docs/api.md's quick reference: spec/api_index_spec.lua)
M.methods = methods

return M
