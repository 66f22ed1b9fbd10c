-- state_check.lua: the checks of a saved state's fields (runtime/state.lua
-- restores it): each field of its kind and range, every table's keys
-- among the known ones (with a suggestion), and the records of named
-- fields back to the core's flat arrays (core.state_fields).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local compat = require "anim.base.compat"
local byteorder = require "anim.base.order"
local dot_number = compat.number

local M = {}

local FIELDS = core.state_fields()
local fail, key, index = E.fail, E.key, E.index

-- The names of an enum field, in code order ("pending,playing,...").
local function names_of(f)
  local out = {}
  for n in f.names:gmatch("[^,]+") do out[#out + 1] = n end
  return out
end
for _, list in ipairs { FIELDS.track, FIELDS.animator } do
  for _, f in ipairs(list) do
    if f.names then f.list = names_of(f) end
  end
end
-- (a joint index written as the joint's name, or false for none)
local JOINT_FIELDS = { rm_joint = true, root_motion_joint = true }

-- Every check fails with E.fail(path, why); restore turns that into nil,
-- "path: why".  A path is built only when a message needs it: a check is
-- given the path of the table and the key in it (at(path, k)), so that a
-- state of ten thousand tracks is read without making a string per field.
-- A name or value from the state is quoted through E.shown (escaped, cut
-- to E.SHOWN bytes with its length).

local shown = E.shown

local function at(path, k)
  if k == nil then return path end
  if type(k) == "number" then return index(path, k) end
  return key(path, k)
end

-- A value for "got ..." in a message: a string quoted (cut), else its kind.
local function got(v)
  if type(v) == "string" then return "'" .. shown(v) .. "'" end
  return E.describe(v)
end

-- The names a table may hold: { list, set }.
local function names(list)
  local set = {}
  for _, n in ipairs(list) do set[n] = true end
  return { list = list, set = set }
end

-- A table whose keys are all among `allowed` (names()): unknown ones fail
-- with a suggestion.
local function fields_of(v, path, allowed, what)
  if type(v) ~= "table" then fail(path, "must be %s, got %s", what, E.describe(v)) end
  local bad = byteorder.first_unknown(v, allowed.set)
  if bad ~= nil then
    fail(path, "unknown field %s%s", got(bad), type(bad) == "string" and suggest.hint(bad, allowed.list) or "")
  end
  return v
end

local function list_of(v, path, what)
  if type(v) ~= "table" or not E.is_array(v) then fail(path, "must be %s, got %s", what, E.describe(v)) end
  return v
end

-- A finite double: a number, or a string tonumber reads (the "%a" form).
-- (E.finite inline: a state of 10,000 tracks holds 600,000 of them)
local huge = math.huge
local function num(v, path, k)
  local x = v
  if type(v) == "string" then x = tonumber(v) or dot_number(v) end
  if type(x) ~= "number" or x ~= x or x == huge or x == -huge then fail(at(path, k), "must be a finite number") end
  return x
end

-- An array of n of them, into out (appended) or a new table.
local function nums(v, path, k, n, out)
  if type(v) ~= "table" or #v ~= n or not E.is_array(v) then fail(at(path, k), "must be an array of %d finite numbers", n) end
  out = out or {}
  local m = #out
  for i = 1, n do
    local x = v[i]
    if type(x) == "string" then x = tonumber(x) or dot_number(x) end
    if type(x) ~= "number" or x ~= x or x == huge or x == -huge then fail(index(at(path, k), i), "must be a finite number") end
    out[m + i] = x
  end
  return out
end

-- The digits of a whole number >= 0 given as a decimal string or a
-- number, without leading zeros ("0" for zero); nil for anything else
-- (a negative one, a fraction, not a number).
local function digits(v)
  if type(v) == "number" then
    if compat.mtype(v) == "integer" then v = tostring(v)
    elseif v % 1 == 0 and v >= 0 then v = string.format("%.0f", v) -- (exact: at most 309 digits)
    else return nil end
  end
  if type(v) ~= "string" then return nil end
  local d = v:match("^%-?0*(%d+)$")
  if not d or (v:sub(1, 1) == "-" and d ~= "0") then return nil end
  return d
end

-- Whether the digits d are above the digits max (both without leading
-- zeros: compared exactly, on every runtime).
local function above(d, max)
  if #d ~= #max then return #d > #max end
  return d > max
end

-- A 64-bit count from lo to max (max: its digits): a decimal string, or
-- an integral number.  Returns it as a number (exact on 5.3+) and as its
-- digits (what the core reads: exact everywhere).
local function cnt(v, path, k, lo, max)
  local d = digits(v)
  if d and above(d, max) then fail(at(path, k), "must be an integer from %d to %s (a decimal string)", lo, max) end
  local x = d and tonumber(d)
  if not x or x < lo then fail(at(path, k), "must be an integer >= %d (a decimal string)", lo) end
  return compat.tointeger(x) or x, d
end

local function small(v, path, k, lo, hi)
  local x = type(v) == "number" and compat.tointeger(v)
  if not x or x < lo or x > hi then fail(at(path, k), "must be an integer from %d to %d", lo, hi) end
  return x
end

-- A rig joint's name (or false where `none` allows): its 0-based index.
local function joint_of(v, path, k, index_of, none)
  if none and v == false then return -1 end
  if type(v) ~= "string" then fail(at(path, k), "must be a joint name%s, got %s", none and " or false" or "", E.describe(v)) end
  local j = index_of[v]
  if not j then
    local list = {}
    for n in pairs(index_of) do list[#list + 1] = n end
    byteorder.sort(list)
    fail(at(path, k), "no joint '%s' in the rig%s", shown(v), suggest.hint(v, list))
  end
  return j - 1
end

-- The most an id of the state may be (its digits): below 2^62, the most
-- the animator's clock and next ids may hold, so that as many increments
-- again cannot overflow 64 bits (a track's loops saturate at 2^63 - 1
-- instead: core.state_fields gives each count's `max`).
local MAX_ID = FIELDS.max_id

-- The fields added after version 1's first states, and the value a
-- state written before them means (play's loop mode: the clip's; the
-- animator's clock: speed 1, not paused; a track's fade linear, started by
-- no state machine).
local ADDED = { loop = "clip", speed = 1, paused = false, fade_interp = "linear", fade_ease = "in", state_layer = -1 }

-- (the fields track_checks checks beyond their kinds)
local CHECKED = { time = true, fade = true, weight = true, direction = true, rm_binding = true }

-- A record of named fields back to the core's flat array (ctx: the rig's
-- joints; checks on top of the kinds: `extra(name, flat, path)` of the
-- CHECKED ones).
local function unrecord(fields, r, path, ctx, allowed, extra)
  fields_of(r, path, allowed, "an object")
  local flat = {}
  for _, f in ipairs(fields) do
    local name = f.name
    local v = r[name]
    if v == nil then v = ADDED[name] end
    if v == nil then fail(key(path, name), "missing") end
    if f.kind == "num" then
      if f.n == 1 then flat[#flat + 1] = num(v, path, name)
      else nums(v, path, name, f.n, flat) end
    elseif JOINT_FIELDS[name] then
      flat[#flat + 1] = joint_of(v, path, name, ctx.index, true)
    elseif f.kind == "count" then
      local _, d = cnt(v, path, name, f.lo, f.max)
      flat[#flat + 1] = d
    elseif f.kind == "flag" then
      if type(v) ~= "boolean" then fail(key(path, name), "must be true or false, got %s", E.describe(v)) end
      flat[#flat + 1] = v and 1 or 0
    elseif f.kind == "enum" then
      local list = name == "state" and ctx.states or f.list
      local k
      for i, n in ipairs(list) do if n == v then k = i end end
      if not k then fail(key(path, name), "must be one of %s, got %s", table.concat(list, ", "), got(v)) end
      for i, n in ipairs(f.list) do if n == v then k = i end end
      flat[#flat + 1] = k - 1
    else
      flat[#flat + 1] = small(v, path, name, f.lo, f.hi)
    end
    if extra and CHECKED[name] then extra(name, flat, path) end
  end
  return flat
end

local function names_list(fields, more)
  local out = {}
  for _, f in ipairs(fields) do out[#out + 1] = f.name end
  for _, n in ipairs(more or {}) do out[#out + 1] = n end
  return out
end

local TRACK_KEYS = names(names_list(FIELDS.track, { "id", "clip", "space", "at", "retarget", "after", "points", "mask" }))
local POINT_KEYS = names(names_list(FIELDS.track))
local ANIMATOR_KEYS = names(names_list(FIELDS.animator))
local TOP_KEYS = names { "format", "version", "rig", "side", "space", "animator", "pose", "animated", "tracks",
  "properties", "overrides", "constraints", "controller", "skin" }
local RIG_KEYS = names { "name", "joints" }
local SPACE_KEYS = names { "name", "sync", "markers", "points" }
local SPACE_POINT_KEYS = names { "clip", "at" }
local PROPERTY_KEYS = names { "name", "value" }
local OVERRIDE_KEYS = names { "id", "joint", "mode", "weight", "position", "rotation", "scale" }
local TWO_BONE_KEYS = names { "id", "kind", "joints", "target", "pole", "weight", "soften" }
local AIM_KEYS = names { "id", "kind", "joints", "target", "forward", "up", "weight" }
-- (a saved track is never ended: those leave at the next update)
local STATES = { "pending", "playing", "queued" }

-- The offset of a field in the core's flat array of a track (1-based).
local OFFSET = {}
do
  local o = 1
  for _, f in ipairs(FIELDS.track) do OFFSET[f.name] = o; o = o + f.n end
end

-- The checks of a track's numbers beyond their kinds: its time within its
-- clip, ramps of a duration >= 0, its root motion binding among its
-- clip's bindings.
local function track_checks(length, nbind)
  return function(name, flat, path)
    local v = flat[#flat]
    if name == "time" and not (v >= 0 and v <= length) then
      fail(key(path, name), "must be from 0 to the clip's length (%s), got %s", E.num(length), E.num(v))
    elseif (name == "fade" or name == "weight") and flat[#flat - 1] < 0 then
      fail(index(key(path, name), 3), "must be a duration >= 0")
    elseif name == "direction" and v == 0 then
      fail(key(path, name), "must be 1 or -1")
    elseif name == "rm_binding" and v >= nbind and flat[OFFSET.rm_joint] >= 0 then
      fail(key(path, name), "must be from -1 to %d (the clip's bindings on this rig)", nbind - 1)
    end
  end
end

M.FIELDS, M.JOINT_FIELDS = FIELDS, JOINT_FIELDS
M.at = at
M.got = got
M.names = names
M.fields_of = fields_of
M.list_of = list_of
M.num = num
M.nums = nums
M.digits = digits
M.cnt = cnt
M.small = small
M.joint_of = joint_of
M.unrecord = unrecord
M.track_checks = track_checks
M.MAX_ID = MAX_ID
M.TRACK_KEYS = TRACK_KEYS
M.POINT_KEYS = POINT_KEYS
M.ANIMATOR_KEYS = ANIMATOR_KEYS
M.TOP_KEYS = TOP_KEYS
M.RIG_KEYS = RIG_KEYS
M.SPACE_KEYS = SPACE_KEYS
M.SPACE_POINT_KEYS = SPACE_POINT_KEYS
M.PROPERTY_KEYS = PROPERTY_KEYS
M.OVERRIDE_KEYS = OVERRIDE_KEYS
M.TWO_BONE_KEYS = TWO_BONE_KEYS
M.AIM_KEYS = AIM_KEYS
M.STATES = STATES
M.OFFSET = OFFSET
return M
