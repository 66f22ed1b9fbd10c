-- state.lua: an animator's saveable state (animator:state() and
-- animator:restore(state [, resolve]), docs/api.md).  The core reads its
-- numbers out and builds a new animator from them (csrc/core/state.c,
-- csrc/lua/lua_state.c); this file names what the numbers cannot say
-- (clips, blend spaces, retarget maps, joints), writes every double as a
-- "%a" hex string and every 64-bit count as a decimal string (Debian's
-- lua-cjson keeps 14 significant digits), and checks a state strictly
-- before anything is built: a wrong field is "state.path: why", and the
-- animator is left as it was.
local core = require "anim.core"
local codes = require "anim.base.codes"
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local compat = require "anim.base.compat"
local bind = require "anim.format.bind"
local clipmod = require "anim.format.clip"
local retarget = require "anim.format.retarget"
local rigmod = require "anim.format.rig"
local spaces = require "anim.runtime.blendspace"
local playing = require "anim.runtime.playing"
local dispatch = require "anim.runtime.dispatch"
local override = require "anim.runtime.override"
local ik = require "anim.runtime.ik"
local limits = require "anim.base.limits"

local M = {}

M.FORMAT, M.VERSION = "anim.state", 1

local FIELDS = core.state_fields()
local SIDES, OVR, IKK = codes.side, codes.override, codes.ik
local MAX_ARITY, MAX_POINTS = codes.const.max_prop_arity, codes.const.max_space_points
local clip_info, space_info, track_uv = core.clip_info, core.space_info, core.track_uservalue
-- (a track's user values, named in csrc/core/codes.h)
local UV_SOURCE = codes.uv.track_source
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

-- Writing ------------------------------------------------------------------------

local hex = compat.hexfloat
-- (the core writes a count's digits: exact on every runtime)
local function count(x) return type(x) == "string" and x or string.format("%d", x) end

local function hexes(v, i, n)
  local out = {}
  for k = 1, n do out[k] = hex(v[i + k - 1]) end
  return out
end

-- A flat array of numbers (core order) as a record of named fields.
local function record(fields, flat, joints, out)
  out = out or {}
  local at = 1
  for _, f in ipairs(fields) do
    local v = flat[at]
    if f.kind == "num" then
      out[f.name] = f.n == 1 and hex(v) or hexes(flat, at, f.n)
    elseif JOINT_FIELDS[f.name] then
      out[f.name] = v >= 0 and joints[v + 1].name or false
    elseif f.kind == "count" then
      out[f.name] = count(v)
    elseif f.kind == "flag" then
      out[f.name] = v ~= 0
    elseif f.kind == "enum" then
      out[f.name] = f.list[v + 1]
    else
      out[f.name] = compat.tointeger(v)
    end
    at = at + f.n
  end
  return out
end

-- A clip's name: its res:// path when a library loaded it, else the name
-- the game gave it.
local function clip_name(c) return clip_info(c).name end

local function place(at) return type(at) == "table" and { hex(at[1]), hex(at[2]) } or hex(at) end

function M.save(animator, st)
  local raw = core.animator_state_export(animator)
  local rinfo = rigmod.info(st.rig)
  local joints = rinfo.joints
  local names = {}
  for i, j in ipairs(joints) do names[i] = j.name end
  local out = {
    format = M.FORMAT, version = M.VERSION,
    rig = { name = rinfo.name, joints = names },
    side = st.side, space = st.space,
    animator = record(FIELDS.animator, raw.animator, joints),
    pose = {}, animated = {}, tracks = {}, properties = {}, overrides = {}, constraints = {},
  }
  for j = 1, #joints do
    out.pose[j] = hexes(raw.pose, (j - 1) * 10 + 1, 10)
    out.animated[j] = compat.tointeger(raw.animated[j])
  end
  -- the saved tracks: a lead's record, its blend space's other points in
  -- its `points`
  local by_id = st.live
  local lead
  for _, t in ipairs(raw.tracks) do
    if t.point == 0 then
      local track = by_id[t.id]
      if not track then error("state: the core's track " .. t.id .. " has no Lua track", 0) end
      local src = track_uv(track, UV_SOURCE)
      lead = record(FIELDS.track, t.f, joints, { id = t.digits })
      if spaces.is_space_box(src) then
        local info = space_info(src)
        local pts = {}
        for i, p in ipairs(info.points) do pts[i] = { clip = clip_name(p.clip), at = place(p.at) } end
        lead.space = { name = info.name, sync = info.sync, points = pts }
        local x, y = core.track_at(track)
        lead.at = y and { hex(x), hex(y) } or hex(x)
        lead.points = {}
      else
        lead.clip = clip_name(src)
      end
      local map = spaces.is_space_box(src) and st.space_maps and st.space_maps[track] or playing.map(src, track)
      if map then lead.retarget = retarget.info(map).name end
      if t.after >= 0 then lead.after = t.after + 1 end
      out.tracks[#out.tracks + 1] = lead
    else
      lead.points[t.point] = record(FIELDS.track, t.f, joints)
    end
  end
  -- (by name: the core's slots are in the order names first played)
  table.sort(raw.properties, function(x, y) return x.name < y.name end)
  for i, p in ipairs(raw.properties) do
    -- (a name known with no value has value false)
    out.properties[i] = { name = p.name, value = #p.v > 0 and hexes(p.v, 1, #p.v) }
  end
  for i, o in ipairs(override.export(st)) do
    local r = { id = count(o.id), joint = o.name, mode = o.mode, weight = hex(o.weight) }
    if o.channels % 2 == 1 then r.position = hexes(o.p, 1, 3) end
    if math.floor(o.channels / 2) % 2 == 1 then r.rotation = hexes(o.q, 1, 4) end
    if math.floor(o.channels / 4) % 2 == 1 then r.scale = hexes(o.s, 1, 3) end
    out.overrides[i] = r
  end
  for i, c in ipairs(raw.constraints) do
    local kind = codes.name("ik", c.kind)
    local r = { id = c.digits, kind = kind, target = hexes(c.target, 1, 3), weight = hex(c.weight) }
    if kind == "two_bone" then
      r.joints = { joints[c.j[1] + 1].name, joints[c.j[2] + 1].name, joints[c.j[3] + 1].name }
      r.pole, r.soften = hexes(c.pole, 1, 3), hex(c.soften)
    else
      r.joints = { joints[c.j[1] + 1].name }
      r.forward, r.up = hexes(c.fwd, 1, 3), hexes(c.up, 1, 3)
    end
    out.constraints[i] = r
  end
  return out
end

-- Reading -------------------------------------------------------------------------
--
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
  local ok = allowed.set
  local bad
  for k in pairs(v) do
    if not ok[k] and (bad == nil or tostring(k) < tostring(bad)) then bad = k end
  end
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
  if type(v) == "string" then x = tonumber(v) end
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
    if type(x) == "string" then x = tonumber(x) end
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
    table.sort(list)
    fail(at(path, k), "no joint '%s' in the rig%s", shown(v), suggest.hint(v, list))
  end
  return j - 1
end

-- The most an id of the state may be (its digits): below 2^62, the most
-- the animator's clock and next ids may hold, so that as many increments
-- again cannot overflow 64 bits (a track's loops saturate at 2^63 - 1
-- instead: core.state_fields gives each count's `max`).
local MAX_ID = FIELDS.max_id

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

local TRACK_KEYS = names(names_list(FIELDS.track, { "id", "clip", "space", "at", "retarget", "after", "points" }))
local POINT_KEYS = names(names_list(FIELDS.track))
local ANIMATOR_KEYS = names(names_list(FIELDS.animator))
local TOP_KEYS = names { "format", "version", "rig", "side", "space", "animator", "pose", "animated", "tracks",
  "properties", "overrides", "constraints" }
local RIG_KEYS = names { "name", "joints" }
local SPACE_KEYS = names { "name", "sync", "points" }
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

-- Restoring ------------------------------------------------------------------------

-- The rig of the state against the animator's.
local function check_rig(s, rinfo)
  local r = fields_of(s.rig, "state.rig", RIG_KEYS, "an object { name, joints }")
  if type(r.name) ~= "string" then fail("state.rig.name", "must be a string, got %s", E.describe(r.name)) end
  local j = list_of(r.joints, "state.rig.joints", "an array of joint names")
  if r.name ~= rinfo.name or #j ~= #rinfo.joints then
    fail("state.rig", "the state is of rig '%s' (%d joints), this animator's is '%s' (%d joints)",
      shown(r.name), #j, shown(rinfo.name), #rinfo.joints)
  end
  for i, n in ipairs(rinfo.joints) do
    if j[i] ~= n.name then
      fail(index("state.rig.joints", i), "'%s' where this animator's rig has '%s'", shown(j[i]), shown(n.name))
    end
  end
end

-- A resolver of names into clips and retarget maps: res:// paths through
-- the animator's library (as a `plays` item is), any other name (or a
-- res:// path with no library) through `resolve(name, kind)`; once each.
local function resolver(st, resolve)
  local seen = { clip = {}, retarget = {} }
  return function(name, kind, path, k)
    if type(name) ~= "string" then
      fail(at(path, k), "must be a %s name, got %s", kind == "clip" and "clip" or "retarget map", E.describe(name))
    end
    local found = seen[kind][name]
    if found then return found end
    local is_ok = kind == "clip" and clipmod.is_clip or retarget.is_map
    local v, err
    if st.library and name:match("^res://") then
      if kind == "clip" then v, err = st.library:clip(name) else v, err = st.library:retarget(name) end
      if not v then fail(at(path, k), "cannot load %s '%s': %s", kind, shown(name), tostring(err)) end
    elseif resolve then
      local ok, r = pcall(resolve, name, kind)
      -- (the game's own message, cut as a name is: it may quote the name)
      if not ok then fail(at(path, k), "resolve('%s') failed: %s", shown(name), shown(r)) end
      v = r
      if not is_ok(v) then
        fail(at(path, k), "resolve('%s') gave no %s (got %s)", shown(name), kind == "clip" and "clip" or "retarget map",
          E.describe(v))
      end
    else
      fail(at(path, k), "cannot resolve %s '%s': %s", kind, shown(name),
        st.library and "not a res:// path, and no resolve function was given"
          or "the animator has no library and no resolve function was given")
    end
    seen[kind][name] = v
    return v
  end
end

-- The definition of a saved space record (its clips resolved), checked as
-- far as it can be without making the space (anim.blendspace makes it,
-- with its 2D triangulation, once every other field of the state is
-- checked: space_of below), and a key that is the same for two records
-- of the same space.
local function space_def(r, path, find, ids)
  fields_of(r, path, SPACE_KEYS, "an object { name, sync, points }")
  if type(r.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(r.name)) end
  if type(r.sync) ~= "boolean" then fail(key(path, "sync"), "must be true or false, got %s", E.describe(r.sync)) end
  local pts = list_of(r.points, key(path, "points"), "an array of points")
  if #pts < 1 or #pts > MAX_POINTS then
    fail(key(path, "points"), "must hold 1 to %d points, got %d", MAX_POINTS, #pts)
  end
  local def, parts = {}, { r.sync and "s" or "n", r.name }
  for i, p in ipairs(pts) do
    local pp = index(key(path, "points"), i)
    fields_of(p, pp, SPACE_POINT_KEYS, "an object { clip, at }")
    local where = type(p.at) == "table" and nums(p.at, pp, "at", 2) or num(p.at, pp, "at")
    local c = find(p.clip, "clip", pp, "clip")
    if not ids[c] then ids.n = ids.n + 1; ids[c] = ids.n end
    def[i] = { clip = c, at = where }
    parts[#parts + 1] = ids[c] .. " " .. (type(where) == "table" and hex(where[1]) .. " " .. hex(where[2]) or hex(where))
  end
  local dims = type(def[1].at) == "table" and 2 or 1
  local view = false
  for _, p in ipairs(def) do if clip_info(p.clip).space == "view" then view = true end end
  return { name = r.name, sync = r.sync, points = def, dimensions = dims, view = view, path = path },
    table.concat(parts, "\0")
end

-- The blend space of a definition (anim.blendspace's checks, then its
-- triangulation).
local function space_of(d)
  local ok, s = pcall(spaces.new, { name = d.name, sync = d.sync, points = d.points })
  if not ok then fail(d.path, "%s", (tostring(s):gsub("^.-bad argument #1 to 'blendspace' %((.*)%)$", "%1"))) end
  return s
end

-- Refuses a queue that comes back to a track (track 1 queued after 2 and
-- 2 after 1: each would wait for the other for ever).  A track waits for
-- one at most: the walk back from each track meets a track of an earlier
-- walk, the start of a queue, or its own walk (a cycle); each track is
-- walked once.
local function check_queues(after)
  local done, on = {}, {}
  for i in pairs(after) do
    local walk, j = {}, i
    while j and not done[j] and not on[j] do
      on[j] = true
      walk[#walk + 1] = j
      j = after[j]
    end
    if j and on[j] then
      local n, k = 1, after[j]
      while k ~= j do n, k = n + 1, after[k] end
      fail(key(index("state.tracks", j), "after"),
        "the queue comes back to this track (%d tracks each waiting for another: none would ever start)", n)
    end
    for _, w in ipairs(walk) do done[w], on[w] = true, nil end
  end
end

-- The plan core.animator_restore builds from (see csrc/lua/lua_state.c).
local function plan_of(st, s, resolve)
  local rinfo = rigmod.info(st.rig)
  fields_of(s, "state", TOP_KEYS, "a table (from animator:state())")
  if s.format ~= M.FORMAT then fail("state.format", "must be '%s', got %s", M.FORMAT, got(s.format)) end
  if s.version ~= M.VERSION then
    fail("state.version", "must be %d (this module reads version %d), got %s", M.VERSION, M.VERSION,
      type(s.version) == "number" and E.num(s.version) or got(s.version))
  end
  check_rig(s, rinfo)
  if s.side ~= st.side then
    fail("state.side", "the state is of a '%s' animator, this one is '%s'", shown(s.side), st.side)
  end
  if s.space ~= st.space then
    fail("state.space", "the state is of a '%s' animator, this one is '%s'", shown(s.space), st.space)
  end
  local ctx = { index = rinfo.index, states = STATES }
  local n = #rinfo.joints
  local plan = {
    side = SIDES[st.side], out = {}, live = {}, queued_after = setmetatable({}, { __mode = "kv" }),
    animator = unrecord(FIELDS.animator, s.animator, "state.animator", ctx, ANIMATOR_KEYS),
    pose = {}, animated = {}, leads = {}, properties = {}, overrides = {}, constraints = {},
  }
  local pose = list_of(s.pose, "state.pose", "an array of one pose per joint")
  local animated = list_of(s.animated, "state.animated", "an array of flags per joint")
  if #pose ~= n then fail("state.pose", "must hold %d joints (the rig's), got %d", n, #pose) end
  if #animated ~= n then fail("state.animated", "must hold %d joints (the rig's), got %d", n, #animated) end
  for j = 1, n do
    nums(pose[j], "state.pose", j, 10, plan.pose)
    plan.animated[j] = small(animated[j], "state.animated", j, 0, 7)
  end
  local find = resolver(st, resolve)
  local tracks = list_of(s.tracks, "state.tracks", "an array of tracks")
  do
    -- (a state may come from the network: what restore builds is bounded
    -- before anything is resolved)
    local n_entries, max = #tracks, limits.current.state_entries
    for _, r in ipairs(tracks) do
      if type(r) == "table" and type(r.points) == "table" then n_entries = n_entries + #r.points end
    end
    for _, k in ipairs { "properties", "overrides", "constraints" } do
      if type(s[k]) == "table" then n_entries = n_entries + #s[k] end
    end
    if n_entries > max then
      fail("state", "holds %d tracks, points, properties, overrides and constraints (at most %d, anim.limits.state_entries)",
        n_entries, max)
    end
  end
  -- the tracks, every field checked; their blend spaces are made at the
  -- end (spaces: the distinct definitions, each made once)
  local ids, after, spaces_made, clip_ids = {}, {}, {}, { n = 0 }
  for i, r in ipairs(tracks) do
    local path = index("state.tracks", i)
    fields_of(r, path, TRACK_KEYS, "an object (a saved track)")
    -- (by its digits: exact, where 5.1's doubles round ids beyond 2^53)
    local id, id_digits = cnt(r.id, path, "id", 0, MAX_ID)
    if ids[id_digits] then fail(key(path, "id"), "is the id of state.tracks[%d] too", ids[id_digits]) end
    ids[id_digits] = i
    local map
    if r.retarget ~= nil then map = find(r.retarget, "retarget", path, "retarget") end
    local lead = { id = id, digits = id_digits, cbs = {}, after = -1, points = {}, bindings = {} }
    local clips, view
    if r.space ~= nil then
      if r.clip ~= nil then fail(path, "names both a clip and a blend space") end
      local def, k = space_def(r.space, key(path, "space"), find, clip_ids)
      spaces_made[k] = spaces_made[k] or def
      lead.space = spaces_made[k]
      clips, view = {}, def.view
      for j, p in ipairs(def.points) do clips[j] = p.clip end
      if def.dimensions == 2 then lead.at = nums(r.at, path, "at", 2)
      else lead.at = { num(r.at, path, "at"), 0 } end
      local pts = list_of(r.points or {}, key(path, "points"), "an array of the space's other points")
      if #pts ~= #clips - 1 then
        fail(key(path, "points"), "must hold %d points (the space's after its first), got %d", #clips - 1, #pts)
      end
    elseif r.clip ~= nil then
      lead.src = find(r.clip, "clip", path, "clip")
      clips, view = { lead.src }, clip_info(lead.src).space == "view"
      if r.at ~= nil then fail(key(path, "at"), "only a blend space's track has a parameter") end
      if r.points ~= nil then fail(key(path, "points"), "only a blend space's track has points") end
    else
      fail(path, "names no clip and no blend space")
    end
    if view and st.space ~= "view" then
      fail(path, "plays a view %s: a body animator cannot play it", r.space ~= nil and "blend space" or "clip")
    end
    for k, c in ipairs(clips) do
      local b = bind.get(c, st.rig, map)
      lead.bindings[k] = b
      local rec, rp = r, path
      if k > 1 then rec, rp = r.points[k - 1], index(key(path, "points"), k - 1) end
      local keys = k == 1 and TRACK_KEYS or POINT_KEYS
      lead.points[k] = unrecord(FIELDS.track, rec, rp, ctx, keys, track_checks(clip_info(c).length, #b))
    end
    if r.after ~= nil then
      local a = small(r.after, path, "after", 1, #tracks)
      if a == i then fail(key(path, "after"), "a track cannot be queued after itself") end
      if lead.points[1][OFFSET.state] ~= 3 then fail(key(path, "after"), "only a queued track waits for another") end
      lead.after = a - 1
      after[i] = a
    end
    lead.map = map
    plan.leads[i] = lead
  end
  check_queues(after)
  local known = {}
  for i, p in ipairs(list_of(s.properties, "state.properties", "an array of property values")) do
    local path = index("state.properties", i)
    fields_of(p, path, PROPERTY_KEYS, "an object { name, value }")
    if type(p.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(p.name)) end
    if known[p.name] then fail(key(path, "name"), "is the name of state.properties[%d] too", known[p.name]) end
    known[p.name] = i
    if p.value == false then
      plan.properties[i] = { name = p.name, v = {} }
    else
      local v = list_of(p.value, key(path, "value"), "an array of finite numbers, or false")
      if #v < 1 or #v > MAX_ARITY then fail(key(path, "value"), "must hold 1 to %d numbers", MAX_ARITY) end
      plan.properties[i] = { name = p.name, v = nums(v, path, "value", #v) }
    end
  end
  local last = 0
  for i, o in ipairs(list_of(s.overrides, "state.overrides", "an array of overrides")) do
    local path = index("state.overrides", i)
    fields_of(o, path, OVERRIDE_KEYS, "an object (an override)")
    local id, id_digits = cnt(o.id, path, "id", last + 1, MAX_ID)
    last = id
    local j = joint_of(o.joint, path, "joint", rinfo.index)
    if OVR[o.mode] == nil then fail(key(path, "mode"), "must be 'replace' or 'add', got %s", got(o.mode)) end
    local w = num(o.weight, path, "weight")
    if w < 0 or w > 1 then fail(key(path, "weight"), "must be from 0 to 1") end
    local ch, p, q, sc = 0, { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 }
    if o.position ~= nil then ch, p = ch + 1, nums(o.position, path, "position", 3) end
    if o.rotation ~= nil then
      ch, q = ch + 2, nums(o.rotation, path, "rotation", 4)
      if q[1] == 0 and q[2] == 0 and q[3] == 0 and q[4] == 0 then fail(key(path, "rotation"), "must not be a zero quaternion") end
    end
    if o.scale ~= nil then ch, sc = ch + 4, nums(o.scale, path, "scale", 3) end
    plan.overrides[i] = { id, j, OVR[o.mode], ch, w, p[1], p[2], p[3], q[1], q[2], q[3], q[4], sc[1], sc[2], sc[3],
      name = o.joint, mode = o.mode, p = p, q = q, s = sc, digits = id_digits }
  end
  last = 0
  for i, c in ipairs(list_of(s.constraints, "state.constraints", "an array of constraints")) do
    local path = index("state.constraints", i)
    local two = type(c) == "table" and c.kind == "two_bone"
    fields_of(c, path, two and TWO_BONE_KEYS or AIM_KEYS, "an object (a constraint)")
    local id, id_digits = cnt(c.id, path, "id", last + 1, MAX_ID)
    last = id
    if IKK[c.kind] == nil then fail(key(path, "kind"), "must be 'two_bone' or 'aim', got %s", E.describe(c.kind)) end
    local js = list_of(c.joints, key(path, "joints"), "an array of joint names")
    if #js ~= (two and 3 or 1) then fail(key(path, "joints"), "must name %d joint%s", two and 3 or 1, two and "s" or "") end
    local j = {}
    for k = 1, #js do j[k] = joint_of(js[k], key(path, "joints"), k, rinfo.index) end
    local w = num(c.weight, path, "weight")
    local t = nums(c.target, path, "target", 3)
    local pole, fwd, upv, soft = { 0, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, 1
    if two then pole, soft = nums(c.pole, path, "pole", 3), num(c.soften, path, "soften")
    else fwd, upv = nums(c.forward, path, "forward", 3), nums(c.up, path, "up", 3) end
    plan.constraints[i] = { id, IKK[c.kind], j[1], j[2] or j[1], j[3] or j[1], t[1], t[2], t[3], pole[1], pole[2], pole[3],
      fwd[1], fwd[2], fwd[3], upv[1], upv[2], upv[3], w, soft, kind = c.kind, digits = id_digits }
  end
  -- last, the blend spaces: every other field is checked by now, so that
  -- a state refused for one of them costs no triangulation
  local made = {}
  for _, lead in ipairs(plan.leads) do
    if lead.space then
      local d = lead.space
      made[d] = made[d] or space_of(d)
      lead.src, lead.space = made[d], nil
    end
  end
  return plan
end

-- The message of a refusal by the core (codes of csrc/core/state.h).
local function refusal(code, which, why)
  which = which + 1
  if code == 1 then
    if why == "properties" then
      return string.format("state.tracks[%d]: its clip's property channels have other numbers of components than a track before it gives them", which)
    end
    return string.format("state.tracks[%d].%s: does not fit the rest of the state", which, why)
  elseif code == 2 then
    return string.format("state.properties[%d]: %s", which, why)
  elseif code == 3 then
    return string.format("state.overrides[%d]: refused by the core (a joint, mode or value out of range)", which)
  elseif code == 4 then
    return string.format("state.constraints[%d]: not a valid constraint (joints not in a chain, axes of no length or parallel)", which)
  end
  return string.format("state.animator.%s: does not fit the rest of the state", why)
end

local DELIVERING = "animator:restore called from one of this animator's callbacks (restore it after update returns)"
local QUEUED = "animator:restore called while anim.update has yet to deliver this animator's callbacks"
  .. " (restore it after that anim.update returns)"

-- One try of restore: its result, or nil, message, or nil, nil, true when
-- a clip of the state was reloaded while it was restored (M.restore).
local function restore_once(animator, st, s, resolve)
  local ok, plan = pcall(plan_of, st, s, resolve)
  if not ok then
    if E.is_failure(plan) then return nil, plan.path .. ": " .. plan.msg end
    error(plan, 0)
  end
  -- the Lua side of what is restored, made before: after the swap
  -- nothing is allocated
  local ov_handles, ov_commit = override.prepare(animator, st, (function()
    local list = {}
    for i, o in ipairs(plan.overrides) do
      list[i] = { id = o[1], joint = o[2], name = o.name, mode = o.mode, weight = o[5], channels = o[4], p = o.p, q = o.q, s = o.s }
    end
    return list
  end)())
  local ik_list = {}
  for i, c in ipairs(plan.constraints) do ik_list[i] = { id = c[1], kind = c.kind } end
  local ik_handles, ik_commit = ik.prepare(animator, ik_list)
  st.queued_after = st.queued_after or setmetatable({}, { __mode = "kv" })
  local result = { tracks = {}, overrides = ov_handles, constraints = ik_handles }
  for _, lead in ipairs(plan.leads) do result.tracks[lead.id] = false end
  local out, code, which, why = core.animator_restore(animator, plan)
  if not out then
    if code == 6 or code == 7 then error(code == 6 and DELIVERING or QUEUED, 4) end
    if code == 8 then return nil, nil, true end -- (a clip reloaded: planned again)
    return nil, refusal(code, which, why)
  end
  -- (the old tracks leave their slots, the new ones take theirs: the
  -- delivery from C finds a track's entries through it)
  if type(st.live) == "table" then
    for _, t in pairs(st.live) do core.track_unslot(t) end
  end
  st.live, st.queued_after = plan.live, plan.queued_after
  for i = 1, #plan.leads do core.track_slot(out[i]) end
  -- (what delivery reads per track id: its callbacks table and its source)
  st.cbs, st.src = {}, {}
  for _, lead in ipairs(plan.leads) do st.cbs[lead.id], st.src[lead.id] = lead.cbs, lead.src end
  ov_commit()
  ik_commit()
  for i, lead in ipairs(plan.leads) do result.tracks[lead.id] = out[i] end
  -- (what a hot reload and a later state() need to know of the new tracks:
  -- side tables of their own, beside the animator, which is whole by now)
  for i, lead in ipairs(plan.leads) do
    if clipmod.is_clip(lead.src) then
      playing.note(lead.src, out[i], lead.map)
      dispatch.marks(out[i]) -- (its markers delivered from C)
    else
      playing.note_space(space_info(lead.src).clips, out[i], lead.map)
      if lead.map then
        st.space_maps = st.space_maps or setmetatable({}, { __mode = "k" })
        st.space_maps[out[i]] = lead.map
      end
    end
  end
  return result
end

-- How many times restore makes its plan again when a finalizer reloads a
-- clip of the state while it is restored (the bindings were made for the
-- old content): a finalizer runs once.
local RETRIES = 8

-- animator:restore(state [, resolve]) -> { tracks = { [id] = track }, overrides = {...},
-- constraints = {...} } | nil, message
function M.restore(animator, st, s, resolve)
  for _ = 1, RETRIES do
    local result, err, again = restore_once(animator, st, s, resolve)
    if not again then return result, err end
  end
  return nil, "state: not restored: its clips kept being reloaded (by finalizers) while it was"
end

return M
