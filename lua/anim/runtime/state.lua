-- state.lua: an animator's saveable state (animator:state() and
-- animator:restore(state [, resolve]), docs/api.md).  The core reads its
-- numbers out and builds a new animator from them (csrc/core/state.c,
-- csrc/lua/lua_state.c); this file names what the numbers cannot say
-- (clips, blend spaces, retarget maps, joints), writes every double as a
-- "%a" hex string and every 64-bit count as a decimal string (Debian's
-- lua-cjson keeps 14 significant digits), and checks a state strictly
-- before anything is built: a wrong field is "state.path: why", and the
-- animator is left as it was.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local bind = require "anim.format.bind"
local clipmod = require "anim.format.clip"
local retarget = require "anim.format.retarget"
local rigmod = require "anim.format.rig"
local skeleton2d = require "anim.format.skeleton2d"
local suggest = require "anim.base.suggest"
local spaces = require "anim.runtime.blendspace"
local playing = require "anim.runtime.playing"
local dispatch = require "anim.runtime.dispatch"
local override = require "anim.runtime.override"
local ik = require "anim.runtime.ik"
local limits = require "anim.base.limits"
local graphs = require "anim.runtime.graph"
local cstate = require "anim.runtime.controller_state"
local controller = require "anim.runtime.controller"

local M = {}

M.FORMAT, M.VERSION = "anim.state", 1

-- (the checks of a state's fields: runtime/state_check.lua; FIELDS: the
-- core's fields of a track and of an animator, core.state_fields)
local C = require "anim.runtime.state_check"
local byteorder = require "anim.base.order"
local FIELDS, JOINT_FIELDS = C.FIELDS, C.JOINT_FIELDS
local SIDES, OVR, IKK = codes.side, codes.override, codes.ik
local MAX_ARITY, MAX_POINTS = codes.const.max_prop_arity, codes.const.max_space_points
local clip_info, space_info, track_uv = core.clip_info, core.space_info, core.track_uservalue
-- (a track's user values, named in csrc/core/codes.h)
local UV_SOURCE = codes.uv.track_source
local fail, key, index = E.fail, E.key, E.index

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
        lead.space = { name = info.name, sync = info.sync, markers = info.markers, points = pts }
        local x, y = core.track_at(track)
        lead.at = y and { hex(x), hex(y) } or hex(x)
        lead.points = {}
      else
        lead.clip = clip_name(src)
      end
      local map = spaces.is_space_box(src) and st.space_maps and st.space_maps[track] or playing.map(src, track)
      if map then lead.retarget = retarget.info(map).name end
      local mask = st.masks and st.masks[track]
      if mask then lead.mask = { compat.unpack(mask) } end
      if t.after >= 0 then lead.after = t.after + 1 end
      out.tracks[#out.tracks + 1] = lead
    else
      lead.points[t.point] = record(FIELDS.track, t.f, joints)
    end
  end
  -- (by name: the core's slots are in the order names first played)
  table.sort(raw.properties, function(x, y) return byteorder.less(x.name, y.name) end)
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
  if st.controller then out.controller = cstate.save(st.controller) end
  -- (a 2D skeleton's animator: its skin, false for none set)
  if st.skeleton then out.skin = st.skin or false end
  return out
end

-- Reading: the checks of a state's fields are runtime/state_check.lua's.
local shown, at, got, fields_of, list_of, num, nums = E.shown, C.at, C.got, C.fields_of, C.list_of, C.num, C.nums
local cnt, small, joint_of, unrecord, track_checks = C.cnt, C.small, C.joint_of, C.unrecord, C.track_checks
local MAX_ID, STATES, OFFSET = C.MAX_ID, C.STATES, C.OFFSET
local TRACK_KEYS, POINT_KEYS, ANIMATOR_KEYS, TOP_KEYS = C.TRACK_KEYS, C.POINT_KEYS, C.ANIMATOR_KEYS, C.TOP_KEYS
local RIG_KEYS, SPACE_KEYS, SPACE_POINT_KEYS, PROPERTY_KEYS = C.RIG_KEYS, C.SPACE_KEYS, C.SPACE_POINT_KEYS, C.PROPERTY_KEYS
local OVERRIDE_KEYS, TWO_BONE_KEYS, AIM_KEYS = C.OVERRIDE_KEYS, C.TWO_BONE_KEYS, C.AIM_KEYS

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
  local seen = { clip = {}, retarget = {}, graph = {} }
  return function(name, kind, path, k)
    local what = kind == "clip" and "clip" or kind == "graph" and "graph" or "retarget map"
    if type(name) ~= "string" then
      fail(at(path, k), "must be a %s name, got %s", what, E.describe(name))
    end
    local found = seen[kind][name]
    if found then return found end
    local is_ok = kind == "clip" and clipmod.is_clip or kind == "graph" and graphs.is_graph or retarget.is_map
    local v, err
    if st.library and name:match("^res://") then
      if kind == "clip" then v, err = st.library:clip(name)
      elseif kind == "graph" then v, err = st.library:graph(name)
      else v, err = st.library:retarget(name) end
      if not v then fail(at(path, k), "cannot load %s '%s': %s", kind, shown(name), tostring(err)) end
    elseif resolve then
      local ok, r = pcall(resolve, name, kind)
      -- (the game's own message, cut as a name is: it may quote the name)
      if not ok then fail(at(path, k), "resolve('%s') failed: %s", shown(name), shown(r)) end
      v = r
      if not is_ok(v) then
        fail(at(path, k), "resolve('%s') gave no %s (got %s)", shown(name), what, E.describe(v))
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
  fields_of(r, path, SPACE_KEYS, "an object { name, sync, markers, points }")
  if type(r.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(r.name)) end
  if type(r.sync) ~= "boolean" then fail(key(path, "sync"), "must be true or false, got %s", E.describe(r.sync)) end
  -- (a state written before the option: its spaces fired every point's
  -- items, as "all" does)
  local markers = r.markers == nil and "all" or r.markers
  if type(markers) ~= "string" or codes.markers[markers] == nil then
    fail(key(path, "markers"), "must be one of %s, got %s", table.concat(codes.names("markers"), ", "), got(markers))
  end
  local pts = list_of(r.points, key(path, "points"), "an array of points")
  if #pts < 1 or #pts > MAX_POINTS then
    fail(key(path, "points"), "must hold 1 to %d points, got %d", MAX_POINTS, #pts)
  end
  local def, parts = {}, { r.sync and "s" or "n", markers, r.name }
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
  return { name = r.name, sync = r.sync, markers = markers, points = def, dimensions = dims, view = view, path = path },
    table.concat(parts, "\0")
end

-- The blend space of a definition (anim.blendspace's checks, then its
-- triangulation).
local function space_of(d)
  local ok, s = pcall(spaces.new, { name = d.name, sync = d.sync, markers = d.markers, points = d.points })
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

-- The state's own fields: its format and version, and the animator's
-- rig, side and space against st's.
local function check_head(st, s, rinfo)
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
end

-- A state may come from the network: what restore builds is bounded
-- before anything is resolved.
local function check_entries(s, tracks)
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

-- Track i of the state (r) into plan.leads[i], every field checked; a
-- blend space's definition is kept in t.spaces_made (made at the end).
-- t: what the tracks share (st, ctx, find, ids, after, spaces_made,
-- clip_ids, ntracks).
local function plan_track(plan, t, r, i)
  local st, ctx, find, ids, after, spaces_made, clip_ids = t.st, t.ctx, t.find, t.ids, t.after, t.spaces_made,
    t.clip_ids
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
  -- (the joints it plays on, fewer than its clip's: a state machine's
  -- layer's mask, kept after a detach)
  local mask
  if r.mask ~= nil then
    local list = list_of(r.mask, key(path, "mask"), "an array of joint names")
    if #list > #st.rig:joints() then fail(key(path, "mask"), "must hold at most %d joints (the rig's)", #st.rig:joints()) end
    mask = {}
    for k, name in ipairs(list) do
      joint_of(name, key(path, "mask"), k, ctx.index)
      mask[k] = name
    end
    lead.mask = mask
  end
  for k, c in ipairs(clips) do
    local b = bind.get(c, st.rig, map)
    if mask then b = controller.masked(b, lead, st.rig) end
    lead.bindings[k] = b
    local rec, rp = r, path
    if k > 1 then rec, rp = r.points[k - 1], index(key(path, "points"), k - 1) end
    local keys = k == 1 and TRACK_KEYS or POINT_KEYS
    lead.points[k] = unrecord(FIELDS.track, rec, rp, ctx, keys, track_checks(clip_info(c).length, #b))
  end
  if r.after ~= nil then
    local a = small(r.after, path, "after", 1, t.ntracks)
    if a == i then fail(key(path, "after"), "a track cannot be queued after itself") end
    if lead.points[1][OFFSET.state] ~= 3 then fail(key(path, "after"), "only a queued track waits for another") end
    lead.after = a - 1
    after[i] = a
  end
  lead.map = map
  plan.leads[i] = lead
end

-- Of a list of entries, each index whose name an earlier entry has: the
-- first such index (dup[i] = it).  By sorting the names, not by a table
-- keyed by them: Lua 5.3 hashes a long string from about 32 of its bytes,
-- so names that differ elsewhere (6,000 of one 5 kB prefix) share a chain
-- and each lookup compares whole strings (0.9 s, against 0.06 s sorted).
local function repeated(list)
  local order, dup = {}, {}
  for i, p in ipairs(list) do
    if type(p) == "table" and type(p.name) == "string" then order[#order + 1] = i end
  end
  table.sort(order, function(a, b)
    local x, y = list[a].name, list[b].name
    if x ~= y then return byteorder.less(x, y) end
    return a < b
  end)
  local first = order[1]
  for k = 2, #order do
    local i = order[k]
    if list[i].name == list[first].name then dup[i] = first else first = i end
  end
  return dup
end

-- The property values of the state into plan.properties.
local function plan_properties(plan, s)
  local list = list_of(s.properties, "state.properties", "an array of property values")
  local dup = repeated(list)
  for i, p in ipairs(list) do
    local path = index("state.properties", i)
    fields_of(p, path, PROPERTY_KEYS, "an object { name, value }")
    if type(p.name) ~= "string" then fail(key(path, "name"), "must be a string, got %s", E.describe(p.name)) end
    if dup[i] then fail(key(path, "name"), "is the name of state.properties[%d] too", dup[i]) end
    if p.value == false then
      plan.properties[i] = { name = p.name, v = {} }
    else
      local v = list_of(p.value, key(path, "value"), "an array of finite numbers, or false")
      if #v < 1 or #v > MAX_ARITY then fail(key(path, "value"), "must hold 1 to %d numbers", MAX_ARITY) end
      plan.properties[i] = { name = p.name, v = nums(v, path, "value", #v) }
    end
  end
end

-- The overrides of the state into plan.overrides (ids increasing).
local function plan_overrides(plan, s, rinfo)
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
end

-- The constraints of the state into plan.constraints (ids increasing).
local function plan_constraints(plan, s, rinfo)
  local last = 0
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
end

-- The skin of the state (a 2D skeleton's animator): a name the skeleton
-- has, or false or absent (none set: the default skin's attachments).
local SKINS_SHOWN = 8
local function plan_skin(st, s)
  local name = s.skin
  if name == nil or name == false then return nil end
  if type(name) ~= "string" then fail("state.skin", "must be a skin's name or false, got %s", E.describe(name)) end
  if not st.skeleton then
    fail("state.skin", "this animator has no 2D skeleton (a state of one made from anim.skeleton2d's?)")
  end
  local d = skeleton2d.data(st.skeleton)
  if d.skin_index[name] then return name end
  fail("state.skin", "skeleton '%s' has no skin '%s'%s (its skins: %s)", shown(d.name), shown(name),
    suggest.hint(name, d.skin_names), #d.skin_names > 0 and E.shown_list(d.skin_names, SKINS_SHOWN) or "none")
end

-- The plan core.animator_restore builds from (see csrc/lua/lua_restore.c).
local function plan_of(st, s, resolve)
  local rinfo = rigmod.info(st.rig)
  check_head(st, s, rinfo)
  local skin = plan_skin(st, s)
  local ctx = { index = rinfo.index, states = STATES }
  local n = #rinfo.joints
  local plan = {
    side = SIDES[st.side], out = {}, live = {}, queued_after = setmetatable({}, { __mode = "kv" }),
    animator = unrecord(FIELDS.animator, s.animator, "state.animator", ctx, ANIMATOR_KEYS),
    pose = {}, animated = {}, leads = {}, properties = {}, overrides = {}, constraints = {}, skin = skin,
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
  check_entries(s, tracks)
  -- the tracks, every field checked; their blend spaces are made at the
  -- end (spaces: the distinct definitions, each made once)
  local t = { st = st, ctx = ctx, find = find, ids = {}, after = {}, spaces_made = {}, clip_ids = { n = 0 },
    ntracks = #tracks }
  for i, r in ipairs(tracks) do plan_track(plan, t, r, i) end
  check_queues(t.after)
  plan_properties(plan, s)
  plan_overrides(plan, s, rinfo)
  plan_constraints(plan, s, rinfo)
  if s.controller ~= nil then
    local ids = {}
    for _, lead in ipairs(plan.leads) do ids[lead.digits] = true end
    plan.controller = cstate.plan(s.controller, "state.controller", function(name, path, k) return find(name, "graph", path, k) end, ids)
    -- (the graph fits the rig, as control checks: before anything changes)
    local ginfo = graphs.info(plan.controller.graph)
    local ok, err = pcall(controller.bindings_for, st, ginfo)
    if not ok then fail("state.controller.graph", "%s", (tostring(err):gsub("^.-bad argument #1 to 'control' %((.*)%)$", "%1"))) end
    -- (the tracks a layer started play on its mask, as they did; the core
    -- checks a root motion binding against these)
    for _, lead in ipairs(plan.leads) do
      local layer = ginfo.layers[lead.points[1][OFFSET.state_layer] + 1]
      if layer and layer.mask then
        for k, b in ipairs(lead.bindings) do lead.bindings[k] = controller.masked(b, layer, st.rig) end
      end
    end
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
  if st.skeleton then st.skin = plan.skin end
  for i, lead in ipairs(plan.leads) do result.tracks[lead.id] = out[i] end
  st.masks = nil
  for i, lead in ipairs(plan.leads) do
    if lead.mask then
      st.masks = st.masks or setmetatable({}, { __mode = "k" })
      st.masks[out[i]] = lead.mask
    end
  end
  -- the state machine: the old controller went with the old animator; the
  -- state's made again on the restored tracks
  if st.controller then
    rawget(st.controller, "_").detached = true
    st.controller = nil
  end
  if plan.controller then
    local by_digits = {}
    for i, lead in ipairs(plan.leads) do by_digits[lead.digits] = out[i] end
    result.controller = cstate.apply(animator, plan.controller, by_digits)
  end
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
  -- (from a callback: refused whatever the state, before it is read)
  local busy = core.animator_busy(animator)
  if busy ~= 0 then error(busy == 6 and DELIVERING or QUEUED, 3) end
  for _ = 1, RETRIES do
    local result, err, again = restore_once(animator, st, s, resolve)
    if not again then return result, err end
  end
  return nil, "state: not restored: its clips kept being reloaded (by finalizers) while it was"
end

return M
