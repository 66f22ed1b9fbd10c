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
local MAX_ARITY = codes.const.max_prop_arity
local clip_info, space_info, track_uv = core.clip_info, core.space_info, core.track_uservalue
local fail, key, index = E.fail, E.key, E.index

-- The names of an enum field, in code order ("pending,playing,...").
local function names_of(f)
  local out = {}
  for n in f.names:gmatch("[^,]+") do out[#out + 1] = n end
  return out
end
for _, list in pairs(FIELDS) do
  for _, f in ipairs(list) do
    if f.names then f.list = names_of(f) end
  end
end
-- (a joint index written as the joint's name, or false for none)
local JOINT_FIELDS = { rm_joint = true, root_motion_joint = true }

-- Writing ------------------------------------------------------------------------

local hex = compat.hexfloat
local function count(x) return string.format("%d", x) end

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
      local src = track_uv(track, 1)
      lead = record(FIELDS.track, t.f, joints, { id = count(t.id) })
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
    local r = { id = count(c.id), kind = kind, target = hexes(c.target, 1, 3), weight = hex(c.weight) }
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
-- "path: why".

local function set(list)
  local s = {}
  for _, n in ipairs(list) do s[n] = true end
  return s
end

-- A table whose keys are all among `allowed` (a list): unknown ones fail
-- with a suggestion.
local function fields_of(v, path, allowed, what)
  if type(v) ~= "table" then fail(path, "must be %s, got %s", what, E.describe(v)) end
  local ok = set(allowed)
  local bad
  for k in pairs(v) do
    if not ok[k] and (bad == nil or tostring(k) < tostring(bad)) then bad = k end
  end
  if bad ~= nil then
    fail(path, "unknown field %s%s", type(bad) == "string" and ("'" .. bad .. "'") or E.describe(bad),
      type(bad) == "string" and suggest.hint(bad, allowed) or "")
  end
  return v
end

local function list_of(v, path, what)
  if type(v) ~= "table" or not E.is_array(v) then fail(path, "must be %s, got %s", what, E.describe(v)) end
  return v
end

-- A finite double: a number, or a string tonumber reads (the "%a" form).
local function num(v, path)
  local x = v
  if type(v) == "string" then x = tonumber(v) end
  if not E.finite(x) then fail(path, "must be a finite number") end
  return x
end

local function nums(v, path, n)
  if type(v) ~= "table" or #v ~= n or not E.is_array(v) then fail(path, "must be an array of %d finite numbers", n) end
  local out = {}
  for i = 1, n do out[i] = num(v[i], index(path, i)) end
  return out
end

-- A 64-bit count >= lo: a decimal string, or an integral number.
local function cnt(v, path, lo)
  local x
  if type(v) == "string" and v:match("^%-?%d+$") then x = compat.tointeger(tonumber(v))
  elseif type(v) == "number" then x = compat.tointeger(v) end
  if not x or x < lo then fail(path, "must be an integer >= %d (a decimal string)", lo) end
  return x
end

local function small(v, path, lo, hi)
  local x = type(v) == "number" and compat.tointeger(v)
  if not x or x < lo or x > hi then fail(path, "must be an integer from %d to %d", lo, hi) end
  return x
end

-- A rig joint's name (or false where `none` allows): its 0-based index.
local function joint_of(v, path, index_of, none)
  if none and v == false then return -1 end
  if type(v) ~= "string" then fail(path, "must be a joint name%s, got %s", none and " or false" or "", E.describe(v)) end
  local j = index_of[v]
  if not j then
    local list = {}
    for n in pairs(index_of) do list[#list + 1] = n end
    table.sort(list)
    fail(path, "no joint '%s' in the rig%s", v, suggest.hint(v, list))
  end
  return j - 1
end

-- A record of named fields back to the core's flat array (ctx: the rig's
-- joints; checks on top of the kinds: `extra(name, value, path)`).
local function unrecord(fields, r, path, ctx, allowed, extra)
  fields_of(r, path, allowed, "an object")
  local flat = {}
  for _, f in ipairs(fields) do
    local v, p = r[f.name], key(path, f.name)
    if v == nil then fail(p, "missing") end
    if f.kind == "num" then
      if f.n == 1 then flat[#flat + 1] = num(v, p)
      else for _, x in ipairs(nums(v, p, f.n)) do flat[#flat + 1] = x end end
    elseif JOINT_FIELDS[f.name] then
      flat[#flat + 1] = joint_of(v, p, ctx.index, true)
    elseif f.kind == "count" then
      flat[#flat + 1] = cnt(v, p, f.lo)
    elseif f.kind == "flag" then
      if type(v) ~= "boolean" then fail(p, "must be true or false, got %s", E.describe(v)) end
      flat[#flat + 1] = v and 1 or 0
    elseif f.kind == "enum" then
      local list = f.name == "state" and ctx.states or f.list
      local k
      for i, n in ipairs(list) do if n == v then k = i end end
      if not k then fail(p, "must be one of %s, got %s", table.concat(list, ", "), type(v) == "string" and ("'" .. v .. "'") or E.describe(v)) end
      for i, n in ipairs(f.list) do if n == v then k = i end end
      flat[#flat + 1] = k - 1
    else
      flat[#flat + 1] = small(v, p, f.lo, f.hi)
    end
    if extra then extra(f.name, flat, p) end
  end
  return flat
end

local function names_list(fields, more)
  local out = {}
  for _, f in ipairs(fields) do out[#out + 1] = f.name end
  for _, n in ipairs(more or {}) do out[#out + 1] = n end
  return out
end

local TRACK_KEYS = names_list(FIELDS.track, { "id", "clip", "space", "at", "retarget", "after", "points" })
local POINT_KEYS = names_list(FIELDS.track)
local ANIMATOR_KEYS = names_list(FIELDS.animator)
local TOP_KEYS = { "format", "version", "rig", "side", "space", "animator", "pose", "animated", "tracks",
  "properties", "overrides", "constraints" }
-- (a saved track is never ended: those leave at the next update)
local STATES = { "pending", "playing", "queued" }

-- The offset of a field in the core's flat array of a track (1-based).
local OFFSET = {}
do
  local at = 1
  for _, f in ipairs(FIELDS.track) do OFFSET[f.name] = at; at = at + f.n end
end

-- The checks of a track's numbers beyond their kinds: its time within its
-- clip, ramps of a duration >= 0, its root motion binding among its
-- clip's bindings.
local function track_checks(length, nbind)
  return function(name, flat, p)
    local v = flat[#flat]
    if name == "time" and not (v >= 0 and v <= length) then
      fail(p, "must be from 0 to the clip's length (%s), got %s", E.num(length), E.num(v))
    elseif (name == "fade" or name == "weight") and flat[#flat - 1] < 0 then
      fail(index(p, 3), "must be a duration >= 0")
    elseif name == "direction" and v == 0 then
      fail(p, "must be 1 or -1")
    elseif name == "rm_binding" and v >= nbind and flat[OFFSET.rm_joint] >= 0 then
      fail(p, "must be from -1 to %d (the clip's bindings on this rig)", nbind - 1)
    end
  end
end

-- Restoring ------------------------------------------------------------------------

-- The rig of the state against the animator's.
local function check_rig(s, rinfo)
  local r = fields_of(s.rig, "state.rig", { "name", "joints" }, "an object { name, joints }")
  if type(r.name) ~= "string" then fail("state.rig.name", "must be a string, got %s", E.describe(r.name)) end
  local j = list_of(r.joints, "state.rig.joints", "an array of joint names")
  if r.name ~= rinfo.name or #j ~= #rinfo.joints then
    fail("state.rig", "the state is of rig '%s' (%d joints), this animator's is '%s' (%d joints)",
      E.shown(r.name), #j, E.shown(rinfo.name), #rinfo.joints)
  end
  for i, n in ipairs(rinfo.joints) do
    if j[i] ~= n.name then
      fail(index("state.rig.joints", i), "'%s' where this animator's rig has '%s'", E.shown(tostring(j[i])), n.name)
    end
  end
end

-- A resolver of names into clips and retarget maps: res:// paths through
-- the animator's library (as a `plays` item is), any other name (or a
-- res:// path with no library) through `resolve(name, kind)`; once each.
local function resolver(st, resolve)
  local seen = { clip = {}, retarget = {} }
  return function(name, kind, path)
    if type(name) ~= "string" then fail(path, "must be a %s name, got %s", kind == "clip" and "clip" or "retarget map", E.describe(name)) end
    local got = seen[kind][name]
    if got then return got end
    local is_ok = kind == "clip" and clipmod.is_clip or retarget.is_map
    local v, err
    if st.library and name:match("^res://") then
      if kind == "clip" then v, err = st.library:clip(name) else v, err = st.library:retarget(name) end
      if not v then fail(path, "cannot load %s '%s': %s", kind, E.shown(name), tostring(err)) end
    elseif resolve then
      local ok, r = pcall(resolve, name, kind)
      if not ok then fail(path, "resolve('%s') failed: %s", E.shown(name), tostring(r)) end
      v = r
      if not is_ok(v) then
        fail(path, "resolve('%s') gave no %s (got %s)", E.shown(name), kind == "clip" and "clip" or "retarget map",
          E.describe(v))
      end
    else
      fail(path, "cannot resolve %s '%s': %s", kind, E.shown(name),
        st.library and "not a res:// path, and no resolve function was given"
          or "the animator has no library and no resolve function was given")
    end
    seen[kind][name] = v
    return v
  end
end

-- The blend space of a saved space record (made anew, as anim.blendspace
-- makes one).
local function space_of(r, path, find)
  fields_of(r, path, { "name", "sync", "points" }, "an object { name, sync, points }")
  if type(r.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(r.name)) end
  if type(r.sync) ~= "boolean" then fail(key(path, "sync"), "must be true or false, got %s", E.describe(r.sync)) end
  local pts = list_of(r.points, key(path, "points"), "an array of points")
  local def = {}
  for i, p in ipairs(pts) do
    local pp = index(key(path, "points"), i)
    fields_of(p, pp, { "clip", "at" }, "an object { clip, at }")
    local at = type(p.at) == "table" and nums(p.at, key(pp, "at"), 2) or num(p.at, key(pp, "at"))
    def[i] = { clip = find(p.clip, "clip", key(pp, "clip")), at = at }
  end
  local ok, s = pcall(spaces.new, { name = r.name, sync = r.sync, points = def })
  if not ok then fail(path, "%s", tostring(s):gsub("^.-bad argument #1 to 'blendspace' %((.*)%)$", "%1")) end
  return s
end

-- The plan core.animator_restore builds from (see csrc/lua/lua_state.c).
local function plan_of(st, s, resolve)
  local rinfo = rigmod.info(st.rig)
  fields_of(s, "state", TOP_KEYS, "a table (from animator:state())")
  if s.format ~= M.FORMAT then fail("state.format", "must be '%s', got %s", M.FORMAT, E.describe(s.format)) end
  if s.version ~= M.VERSION then
    fail("state.version", "must be %d (this module reads version %d), got %s", M.VERSION, M.VERSION,
      type(s.version) == "number" and E.num(s.version) or E.describe(s.version))
  end
  check_rig(s, rinfo)
  if s.side ~= st.side then
    fail("state.side", "the state is of a '%s' animator, this one is '%s'", tostring(s.side), st.side)
  end
  if s.space ~= st.space then
    fail("state.space", "the state is of a '%s' animator, this one is '%s'", tostring(s.space), st.space)
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
    for k, x in ipairs(nums(pose[j], index("state.pose", j), 10)) do plan.pose[(j - 1) * 10 + k] = x end
    plan.animated[j] = small(animated[j], index("state.animated", j), 0, 7)
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
  local ids = {}
  for i, r in ipairs(tracks) do
    local path = index("state.tracks", i)
    fields_of(r, path, TRACK_KEYS, "an object (a saved track)")
    local id = cnt(r.id, key(path, "id"), 0)
    if ids[id] then fail(key(path, "id"), "is the id of state.tracks[%d] too", ids[id]) end
    ids[id] = i
    local map
    if r.retarget ~= nil then map = find(r.retarget, "retarget", key(path, "retarget")) end
    local lead = { id = id, cbs = {}, after = -1, points = {}, bindings = {} }
    local clips
    if r.space ~= nil then
      if r.clip ~= nil then fail(path, "names both a clip and a blend space") end
      local sp = space_of(r.space, key(path, "space"), find)
      local info = space_info(sp)
      lead.src, clips = sp, info.clips
      if info.dimensions == 2 then lead.at = nums(r.at, key(path, "at"), 2)
      else lead.at = { num(r.at, key(path, "at")), 0 } end
      local pts = list_of(r.points or {}, key(path, "points"), "an array of the space's other points")
      if #pts ~= #clips - 1 then
        fail(key(path, "points"), "must hold %d points (the space's after its first), got %d", #clips - 1, #pts)
      end
    elseif r.clip ~= nil then
      lead.src = find(r.clip, "clip", key(path, "clip"))
      clips = { lead.src }
      if r.at ~= nil then fail(key(path, "at"), "only a blend space's track has a parameter") end
      if r.points ~= nil then fail(key(path, "points"), "only a blend space's track has points") end
    else
      fail(path, "names no clip and no blend space")
    end
    local kind = r.space ~= nil and spaces.space_of(space_info(lead.src).clips) or clip_info(lead.src).space
    if kind == "view" and st.space ~= "view" then
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
      local a = small(r.after, key(path, "after"), 1, #tracks)
      if a == i then fail(key(path, "after"), "a track cannot be queued after itself") end
      if lead.points[1][OFFSET.state] ~= 3 then fail(key(path, "after"), "only a queued track waits for another") end
      lead.after = a - 1
    end
    lead.map = map
    plan.leads[i] = lead
  end
  for i, p in ipairs(list_of(s.properties, "state.properties", "an array of property values")) do
    local path = index("state.properties", i)
    fields_of(p, path, { "name", "value" }, "an object { name, value }")
    if type(p.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(p.name)) end
    if p.value == false then
      plan.properties[i] = { name = p.name, v = {} }
    else
      local v = list_of(p.value, key(path, "value"), "an array of finite numbers, or false")
      if #v < 1 or #v > MAX_ARITY then fail(key(path, "value"), "must hold 1 to %d numbers", MAX_ARITY) end
      plan.properties[i] = { name = p.name, v = nums(v, key(path, "value"), #v) }
    end
  end
  local last = 0
  for i, o in ipairs(list_of(s.overrides, "state.overrides", "an array of overrides")) do
    local path = index("state.overrides", i)
    fields_of(o, path, { "id", "joint", "mode", "weight", "position", "rotation", "scale" }, "an object (an override)")
    local id = cnt(o.id, key(path, "id"), last + 1)
    last = id
    local j = joint_of(o.joint, key(path, "joint"), rinfo.index)
    if OVR[o.mode] == nil then fail(key(path, "mode"), "must be 'replace' or 'add', got %s", E.describe(o.mode)) end
    local w = num(o.weight, key(path, "weight"))
    if w < 0 or w > 1 then fail(key(path, "weight"), "must be from 0 to 1") end
    local ch, p, q, sc = 0, { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 }
    if o.position ~= nil then ch, p = ch + 1, nums(o.position, key(path, "position"), 3) end
    if o.rotation ~= nil then
      ch, q = ch + 2, nums(o.rotation, key(path, "rotation"), 4)
      if q[1] == 0 and q[2] == 0 and q[3] == 0 and q[4] == 0 then fail(key(path, "rotation"), "must not be a zero quaternion") end
    end
    if o.scale ~= nil then ch, sc = ch + 4, nums(o.scale, key(path, "scale"), 3) end
    plan.overrides[i] = { id, j, OVR[o.mode], ch, w, p[1], p[2], p[3], q[1], q[2], q[3], q[4], sc[1], sc[2], sc[3],
      name = o.joint, mode = o.mode, p = p, q = q, s = sc }
  end
  last = 0
  for i, c in ipairs(list_of(s.constraints, "state.constraints", "an array of constraints")) do
    local path = index("state.constraints", i)
    local two = type(c) == "table" and c.kind == "two_bone"
    fields_of(c, path, two and { "id", "kind", "joints", "target", "pole", "weight", "soften" }
      or { "id", "kind", "joints", "target", "forward", "up", "weight" }, "an object (a constraint)")
    local id = cnt(c.id, key(path, "id"), last + 1)
    last = id
    if IKK[c.kind] == nil then fail(key(path, "kind"), "must be 'two_bone' or 'aim', got %s", E.describe(c.kind)) end
    local js = list_of(c.joints, key(path, "joints"), "an array of joint names")
    if #js ~= (two and 3 or 1) then fail(key(path, "joints"), "must name %d joint%s", two and 3 or 1, two and "s" or "") end
    local j = {}
    for k = 1, #js do j[k] = joint_of(js[k], index(key(path, "joints"), k), rinfo.index) end
    local w = num(c.weight, key(path, "weight"))
    local t = nums(c.target, key(path, "target"), 3)
    local pole, fwd, upv, soft = { 0, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, 1
    if two then pole, soft = nums(c.pole, key(path, "pole"), 3), num(c.soften, key(path, "soften"))
    else fwd, upv = nums(c.forward, key(path, "forward"), 3), nums(c.up, key(path, "up"), 3) end
    plan.constraints[i] = { id, IKK[c.kind], j[1], j[2] or j[1], j[3] or j[1], t[1], t[2], t[3], pole[1], pole[2], pole[3],
      fwd[1], fwd[2], fwd[3], upv[1], upv[2], upv[3], w, soft, kind = c.kind }
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
