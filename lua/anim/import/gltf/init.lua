-- import/gltf/init.lua: imports the skins and animations of a glTF 2.0 asset (.gltf
-- or .glb): anim.import_gltf(path [, options]) -> { clips, rigs, rig,
-- scene, warnings } | nil, message.
--
-- Each animation becomes an absolute clip (its channels are the nodes'
-- local translation, rotation and scale, as glTF defines them), each skin a
-- rig of its joints and every node above them, with the nodes' rests.  The
-- rules are the specification's (specification/2.0/Specification.adoc:
-- "Nodes and Hierarchy", "Transformations", "Animations", Appendix C),
-- read the way three.js's GLTFLoader reads them where it leaves a choice
-- (examples/jsm/loaders/GLTFLoader.js).  docs/formats.md ("glTF") lists
-- each rule.  Failures name the file, the JSON path with glTF's own
-- 0-based indices and what is wrong; what the module cannot play (morph
-- unknown extensions) is skipped with a warning; morph target weights are
-- properties named "<node>.weights".
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
local Q = require "anim.base.quat"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"
local clipmod = require "anim.format.clip"
local format = require "anim.format.read"
local rigmod = require "anim.format.rig"
local F = require "anim.import.gltf.file"
local A = require "anim.import.gltf.accessor"
local skinread = require "anim.import.gltf.skins"
local meshes = require "anim.import.gltf.mesh"

local M = {}
local fail, at, count, describe = E.fail, F.at, F.count, E.describe
local L = limits.current
local MAX_CURVE_KEYS = codes.const.max_curve_keys
local MAX_ARITY = codes.const.max_prop_arity
-- The most nodes a file may have; also the most joints the rigs of its
-- skins hold together, and half of it the most nodes the skeletons of its
-- clips do (see M.import: each costs about 6 microseconds and 1 KiB).
local MAX_NODES = codes.const.max_rig_joints
local MAX_SKELETON_NODES = compat.tointeger(MAX_NODES / 2)

-- Extensions the importer reads, or that change nothing it reads.
local KNOWN_EXTENSIONS = { KHR_mesh_quantization = true }

-- A warning, shaped as a message is: "file: json.path: what".
local function warn(ctx, path, fmt, ...)
  local msg = string.format(fmt, ...)
  ctx.warnings[#ctx.warnings + 1] = ctx.name .. ": " .. (path ~= "" and path .. ": " or "") .. msg
end

local function array(v, path, what)
  if E.absent(v) then return {} end
  return E.array(v, path, what)
end

-- n finite numbers.
local function numbers(v, n, path, what)
  if format.plain_vec(v, n) then return v end
  if type(v) ~= "table" or not E.is_array(v) or #v ~= n then
    fail(path, "%s must be an array of %d numbers, got %s", what, n,
      (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
  end
  for i = 1, n do E.number(v[i], at(path, i - 1), what .. " component") end
  return v
end

-- Names ----------------------------------------------------------------------------------

-- Unique names for a list of objects: each its `name`, or prefix<i>
-- without one (an empty name counts as none); a name met before gets #<i>
-- appended (i its own 0-based index), again until it is unique.
local function unique_names(list, prefix, kind)
  local names, taken = {}, {}
  for i, def in ipairs(list) do
    local n = type(def) == "table" and def.name
    if n ~= nil and type(n) ~= "string" and not E.absent(n) then E.string(n, at(kind, i - 1, "name"), "name") end
    if type(n) ~= "string" then n = nil end
    if n and #n > L.strings then
      fail(at(kind, i - 1, "name"), "name too long (%d bytes; at most %d, anim.limits.strings)", #n, L.strings)
    end
    if n == "" then n = nil end
    n = n or (prefix .. (i - 1))
    while taken[n] do n = n .. "#" .. (i - 1) end
    taken[n] = true
    names[i - 1] = n
  end
  return names
end

-- Nodes -------------------------------------------------------------------------------------

-- A node's local rest: translation, rotation, scale, from its TRS
-- properties or its matrix decomposed as three.js decomposes it
-- (Matrix4.decompose: the scales are the columns' lengths, x negated when
-- the determinant is negative; the rotation the columns made unit).
local function node_rest(ctx, def, i)
  local plain = format.plain_vec
  -- the common case: translation, rotation, scale well formed (or absent)
  local ft, fr, fs = def.translation, def.rotation, def.scale
  if def.matrix == nil and (ft == nil or plain(ft, 3)) and (fs == nil or plain(fs, 3)) and
      (fr == nil or (plain(fr, 4) and (fr[1] ~= 0 or fr[2] ~= 0 or fr[3] ~= 0 or fr[4] ~= 0))) then
    -- (the file's own arrays, checked: the import's only reference to them;
    -- the defaults, one table each for the import's nodes)
    local d = ctx.defaults
    return ft or d.t, fr and format.quat(fr, "", "rotation") or d.r, fs or d.s
  end
  local p = at("nodes", i)
  if not E.absent(def.matrix) then
    local m = numbers(def.matrix, 16, at(p, "matrix"), "matrix")
    local c1, c2, c3 = { m[1], m[2], m[3] }, { m[5], m[6], m[7] }, { m[9], m[10], m[11] }
    local function len(c) return math.sqrt(c[1] * c[1] + c[2] * c[2] + c[3] * c[3]) end
    local sx, sy, sz = len(c1), len(c2), len(c3)
    if sx == 0 or sy == 0 or sz == 0 or sx ~= sx or sy ~= sy or sz ~= sz or sx == math.huge or sy == math.huge or sz == math.huge then
      fail(at(p, "matrix"), "the matrix cannot be decomposed into translation, rotation and scale (a column has no length)")
    end
    local det = c1[1] * (c2[2] * c3[3] - c3[2] * c2[3]) - c2[1] * (c1[2] * c3[3] - c3[2] * c1[3])
      + c3[1] * (c1[2] * c2[3] - c2[2] * c1[3])
    if det < 0 then sx = -sx end
    local u1 = { c1[1] / sx, c1[2] / sx, c1[3] / sx }
    local u2 = { c2[1] / sy, c2[2] / sy, c2[3] / sy }
    local u3 = { c3[1] / sz, c3[2] / sz, c3[3] / sz }
    local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
    if math.abs(dot(u1, u2)) > 1e-4 or math.abs(dot(u1, u3)) > 1e-4 or math.abs(dot(u2, u3)) > 1e-4
      or m[4] ~= 0 or m[8] ~= 0 or m[12] ~= 0 or m[16] ~= 1 then
      warn(ctx, at(p, "matrix"), "the matrix shears or projects: read as the nearest translation, rotation and scale")
    end
    return { m[13], m[14], m[15] }, Q.from_matrix(u1, u2, u3), { sx, sy, sz }
  end
  local t = E.absent(def.translation) and { 0, 0, 0 } or numbers(def.translation, 3, at(p, "translation"), "translation")
  local r = { 0, 0, 0, 1 }
  if not E.absent(def.rotation) then
    -- made unit (a zero quaternion refused), as the .anim reader does
    r = format.quat(numbers(def.rotation, 4, at(p, "rotation"), "rotation"), at(p, "rotation"), "rotation")
  end
  local s = E.absent(def.scale) and { 1, 1, 1 } or numbers(def.scale, 3, at(p, "scale"), "scale")
  return { t[1], t[2], t[3] }, r, { s[1], s[2], s[3] }
end

-- The node tree: each node's parent (0-based index, or nil), checked to be
-- disjoint strict trees ("Nodes and Hierarchy": no cycle, one parent).
local function read_nodes(ctx)
  local doc = ctx.doc
  local nodes = array(doc.nodes, "nodes", "nodes")
  if #nodes > MAX_NODES then
    fail("nodes", "too many nodes (%d; at most %d)", #nodes, MAX_NODES)
  end
  local parent = {}
  local n = #nodes
  for i, def in ipairs(nodes) do
    -- (JSON decodes an object with string keys only: a table with [1] is
    -- an array, one without is an object or the empty array, read as {})
    if type(def) ~= "table" or def[1] ~= nil then E.object(def, at("nodes", i - 1), "node") end
    local children = def.children
    if children ~= nil and not E.absent(children) then
      if type(children) ~= "table" or (next(children) ~= nil and children[1] == nil) then
        array(children, at("nodes", i - 1, "children"), "children")
      end
      for k, c in ipairs(children) do
        -- (a float of a whole number is the same table key as the integer)
        local ci = c
        if not (type(c) == "number" and c >= 0 and c < n and c % 1 == 0) then
          ci = F.index(doc, c, at("nodes", i - 1, "children", k - 1), "nodes")
        end
        if ci == i - 1 or parent[ci] then
          local cp = at("nodes", i - 1, "children", k - 1)
          if ci == i - 1 then fail(cp, "node %d is its own child (the node tree must have no cycle)", ci) end
          fail(cp, "node %d is already a child of node %d (a node has one parent)", ci, parent[ci])
        end
        parent[ci] = i - 1
      end
    end
  end
  -- one parent each: a cycle is a loop of parents, found by walking up
  -- (each node is walked through once)
  local state, walk = {}, {} -- state: 1 on the current walk, 2 reaches a root
  for i = 0, n - 1 do
    local j, w = i, 0
    while j ~= nil and not state[j] do
      state[j] = 1
      w = w + 1
      walk[w] = j
      j = parent[j]
    end
    if j ~= nil and state[j] == 1 then
      fail(at("nodes", parent[j], "children"), "the node tree has a cycle through node %d", j)
    end
    for k = 1, w do state[walk[k]] = 2 end
  end
  ctx.nodes, ctx.parent = nodes, parent
  ctx.node_names = unique_names(nodes, "node", "nodes")
  ctx.rest = {}
  ctx.defaults = { t = { 0, 0, 0 }, r = { 0, 0, 0, 1 }, s = { 1, 1, 1 } }
  for i, def in ipairs(nodes) do
    local t, r, s = node_rest(ctx, def, i - 1)
    ctx.rest[i - 1] = { t = t, r = r, s = s }
  end
end

-- A node and every node above it, into `set` (index -> true), which held
-- `size` nodes: returns the size after, or nil as soon as it would be more
-- than `most` (the walk stops there).
local function with_ancestors(ctx, i, set, size, most)
  local parent = ctx.parent
  while i ~= nil and not set[i] do
    size = size + 1
    if size > most then return nil end
    set[i] = true
    i = parent[i]
  end
  return size
end

-- The nodes of a set, in index order, as a rig's or a skeleton's joints.
local function sorted(set)
  local list = {}
  for i in pairs(set) do list[#list + 1] = i end
  table.sort(list)
  return list
end

-- The rig of a set of nodes (each node's parent in it: with_ancestors),
-- made straight from the nodes read (read_nodes checked them all); a
-- skin's: its joints (node indices, in the skin's order) skinned, with
-- their inverse bind matrices (ibm, or nil: identities).
local function rig_of(ctx, set, name, joints, ibm)
  local list = sorted(set)
  local pos = {}
  for k, i in ipairs(list) do pos[i] = k end
  local names, parents, pivots, rots, locals, scales = {}, {}, {}, {}, {}, {}
  local zero = { 0, 0, 0 } -- (a pivot the translations replace)
  for k, i in ipairs(list) do
    local r, p = ctx.rest[i], ctx.parent[i]
    names[k], parents[k], pivots[k], rots[k], locals[k], scales[k] = ctx.node_names[i], p and pos[p] or 0, zero, r.r,
      r.t, r.s
  end
  local skin
  if joints then
    skin = {}
    for k, i in ipairs(joints) do skin[k] = pos[i] end
  end
  return rigmod.from_lists(names, parents, pivots, rots, locals, scales, name, skin, ibm)
end

-- Animations ----------------------------------------------------------------------------------

local PATHS = { translation = { "position", 3 }, rotation = { "rotation", 4 }, scale = { "scale", 3 } }
local INTERPOLATIONS = { LINEAR = true, STEP = true, CUBICSPLINE = true }

-- Does a buffer view an accessor reads carry an extension that changes
-- its bytes (a compression)?  Its name, or nil.
local function view_extension(ctx, acc)
  local doc = ctx.doc
  local ids = {}
  local def = doc.accessors and doc.accessors[acc + 1]
  if type(def) ~= "table" then return nil end
  ids[#ids + 1] = def.bufferView
  if type(def.sparse) == "table" then
    ids[#ids + 1] = type(def.sparse.indices) == "table" and def.sparse.indices.bufferView
    ids[#ids + 1] = type(def.sparse.values) == "table" and def.sparse.values.bufferView
  end
  for _, v in ipairs(ids) do
    local bv = compat.mtype(v) and doc.bufferViews and doc.bufferViews[v + 1]
    if type(bv) == "table" and type(bv.extensions) == "table" then
      for name in pairs(bv.extensions) do
        if not KNOWN_EXTENSIONS[name] then return name, v end
      end
    end
  end
end

-- The input times of a sampler: finite (accessor.lua) and in order.
local function input_times(ctx, acc)
  local a = A.read(ctx, acc, A.shape(ctx, acc).given + 1)
  local t = a.values
  if a.ordered then return t end
  for k = 2, #t do
    if t[k] < t[k - 1] then
      fail(a.path, "element %d (%s) comes before element %d (%s): animation input times must not decrease",
        k - 1, E.num(t[k]), k - 2, E.num(t[k - 1]))
    end
  end
  a.ordered = true
  return t
end

-- The keys a sampler makes: its input times and its output's elements,
-- their counts checked against each other and against anim.limits.keys
-- (for the file's clips together: ctx.keys) before anything is read.
-- Specification.adoc, animation.sampler.input: "The values represent time
-- in seconds with time[0] >= 0.0, and strictly increasing values, i.e.,
-- time[n + 1] > time[n]"; "Animations": an output has one element per
-- input time (three for CUBICSPLINE: in-tangent, value, out-tangent), and
-- a weights channel one per morph target and input time.  So the input's
-- count is the claim every other count of the sampler is measured by, and
-- it must be in the file's bytes: times left to zeros (an accessor without
-- a bufferView is zeros) cannot increase, so one at most can be.  An
-- output without a bufferView (a constant zero channel: legal) is then
-- bounded by those times.  Returns the times, the output read, and the
-- values each key holds (1 but for weights).  `path`: the target's path.
local function sampler_keys(ctx, clip_keys, input, output, interp, path, sp)
  local ia = A.shape(ctx, input)
  if ia.type ~= "SCALAR" then
    fail(at(ia.path, "type"), "animation input times must be SCALAR, got %s", ia.type)
  end
  if ia.count > ia.given + 1 then
    fail(at(ia.path, "count"), "%d animation input times, of which the file's bytes give %d: the others would be zeros"
      .. " (no bufferView), and input times increase: one at most can be", ia.count, ia.given)
  end
  local oa = A.shape(ctx, output)
  local cubic = interp == "CUBICSPLINE"
  local per = (cubic and 3 or 1) * ia.count
  local arity = 1
  if path == "weights" then
    if oa.type ~= "SCALAR" then
      fail(at(oa.path, "type"), "the output of a weights channel must be SCALAR, got %s", oa.type)
    end
    if oa.count % per ~= 0 then
      fail(at(sp(), "output"), "%s has %d elements, not a whole number of weights for each of the %d input times%s",
        oa.path, oa.count, ia.count, cubic and " (three sets each: CUBICSPLINE)" or "")
    end
    arity = compat.tointeger(oa.count / per)
    if arity > MAX_ARITY then
      fail(at(sp(), "output"), "%s has %d weights for each input time (at most %d)", oa.path, arity, MAX_ARITY)
    end
  else
    local want = PATHS[path][2] == 4 and "VEC4" or "VEC3"
    if oa.type ~= want then
      fail(at(oa.path, "type"), "the output of a %s channel must be %s, got %s", path, want, oa.type)
    end
    if oa.count ~= per then
      fail(at(sp(), "output"), "%s has %d elements, %s with %d input times needs %d", oa.path, oa.count, interp,
        ia.count, per)
    end
  end
  if ia.count > MAX_CURVE_KEYS then
    fail(at(sp(), "input"), "too many keys in one channel (%d; at most %d)", ia.count, MAX_CURVE_KEYS)
  end
  -- (a weights key counts one key for each weight, as a property's does)
  local n = ia.count * arity
  ctx.keys = ctx.keys + n
  if ctx.keys > L.keys then
    if ctx.keys == clip_keys + n then
      fail(at(sp(), "input"), "too many keys: the clip would have %d (at most %d, anim.limits.keys)", ctx.keys, L.keys)
    end
    fail(at(sp(), "input"), "too many keys: the file's clips would have %d (at most %d, anim.limits.keys)",
      ctx.keys, L.keys)
  end
  return input_times(ctx, input), A.read(ctx, output, oa.count), n
end

-- The keys of one channel, in the .anim shape: [t, value] (LINEAR), [t,
-- value, "step"], [t, value, "cubicspline", {in_tangent, out_tangent}].
-- sp: the sampler's path (or a function that makes it), for messages.
local function channel_keys(times, out, interp, n, sp)
  local keys = {}
  local v = out.values
  local quat = n == 4
  local function value(e)
    local b = e * n
    local val = { v[b + 1], v[b + 2], v[b + 3] }
    if quat then
      val[4] = v[b + 4]
      if val[1] == 0 and val[2] == 0 and val[3] == 0 and val[4] == 0 then
        fail(out.path, "element %d is a zero quaternion (a rotation key needs a non-zero [x, y, z, w])", e)
      end
    end
    return val
  end
  local cubic = interp == "CUBICSPLINE"
  local need = cubic and 3 * #times or #times
  if out.count ~= need then
    fail(at(type(sp) == "function" and sp() or sp, "output"), "%s has %d elements, %s with %d input times needs %d",
      out.path, out.count, interp,
      #times, need)
  end
  if not cubic and n == 3 then
    -- (the common case, written out: a key is two tables, made here alone)
    if interp == "STEP" then
      for k = 1, #times do
        local b = 3 * k - 3
        keys[k] = { times[k], { v[b + 1], v[b + 2], v[b + 3] }, "step" }
      end
    else
      for k = 1, #times do
        local b = 3 * k - 3
        keys[k] = { times[k], { v[b + 1], v[b + 2], v[b + 3] } }
      end
    end
    return keys
  end
  for k = 1, #times do
    if cubic then
      -- each key: in-tangent, value, out-tangent (Appendix C)
      local e = 3 * (k - 1)
      local tin, val, tout = { compat.unpack(v, e * n + 1, e * n + n) }, value(e + 1),
        { compat.unpack(v, (e + 2) * n + 1, (e + 2) * n + n) }
      keys[k] = { times[k], val, "cubicspline", { in_tangent = tin, out_tangent = tout } }
    elseif interp == "STEP" then
      keys[k] = { times[k], value(k - 1), "step" }
    else
      keys[k] = { times[k], value(k - 1) }
    end
  end
  return keys
end

M.channel_keys = channel_keys

-- The keys of a morph target weights channel: n weights a key (n: the
-- output's elements per input time, checked by sampler_keys), as a
-- property's vector keys.
local function weights_keys(times, out, interp)
  local cubic = interp == "CUBICSPLINE"
  local n, v, keys = compat.tointeger(out.count / ((cubic and 3 or 1) * #times)), out.values, {}
  local function vec(e) return { compat.unpack(v, e * n + 1, e * n + n) } end
  for k = 1, #times do
    if cubic then
      local e = 3 * (k - 1)
      keys[k] = { times[k], vec(e + 1), "cubicspline", { in_tangent = vec(e), out_tangent = vec(e + 2) } }
    elseif interp == "STEP" then
      keys[k] = { times[k], vec(k - 1), "step" }
    else
      keys[k] = { times[k], vec(k - 1) }
    end
  end
  return keys
end

-- The clip fields an animation's extras may hold (what anim.export_gltf
-- writes there).
local EXTRA_FIELDS = { "loop", "speed", "priority", "blend", "space", "autoplay", "mask",
  "markers", "events", "sounds", "plays", "properties" }
M.EXTRA_FIELDS = EXTRA_FIELDS

-- The skeleton of an animation whose channels animate the nodes of
-- `animated`: every animated node and the nodes above it, with their
-- rests, or nil when the file's skeletons are spent; and its size.
local function animation_skeleton(ctx, ai, ap, animated)
  -- (the rests make the node tree anim.export_gltf writes without a rig).  The
  -- nodes above are not in the animation's bytes (a channel on the end of
  -- a long chain brings the whole chain), so the skeletons of the file's
  -- clips hold at most ctx.skeleton_left nodes together: the clips past
  -- it have none (a warning says which)
  local set, nsk = {}, 0
  local most = math.min(L.joints, ctx.skeleton_left)
  for node in pairs(animated) do
    nsk = with_ancestors(ctx, node, set, nsk, most)
    if not nsk then break end
  end
  if not nsk and most == L.joints then
    fail(ap, "too many nodes in the clip's skeleton (more than %d, anim.limits.joints)", L.joints)
  end
  local skeleton
  if nsk then
    skeleton = {}
    ctx.skeleton_left = ctx.skeleton_left - nsk
    -- (a node's entry is one table, whatever the clips that hold it)
    local entries = ctx.skeleton_entries
    for i in pairs(set) do
      local e = entries[i]
      if not e then
        local r, p = ctx.rest[i], ctx.parent[i]
        e = { parent = p and ctx.node_names[p] or nil, translation = r.t, rotation = r.r, scale = r.s }
        entries[i] = e
      end
      skeleton[ctx.node_names[i]] = e
    end
  else
    ctx.skeleton_left = 0
    ctx.skeletonless = ctx.skeletonless or { first = ai, n = 0 }
    ctx.skeletonless.n = ctx.skeletonless.n + 1
  end
  return skeleton, nsk
end

-- Adds to the clip table t the fields of an animation's extras that
-- anim.export_gltf writes there; true when there were any.
local function take_extras(t, extras)
  -- what anim.export_gltf keeps in extras (markers, events...), when they
  -- read as a clip's; otherwise they are left out, with a warning
  local taken = false
  if type(extras) == "table" then
    for _, f in ipairs(EXTRA_FIELDS) do
      if extras[f] ~= nil and not E.absent(extras[f]) then
        if f == "properties" and t.properties and type(extras[f]) == "table" then
          -- the file's weights channels, then the properties extras carry
          for pname, p in pairs(extras[f]) do
            if t.properties[pname] == nil then t.properties[pname] = p end
          end
        else
          t[f] = extras[f]
        end
        taken = true
      end
    end
  end
  return taken
end

local function read_animation(ctx, ai, def, name, options)
  local ap = at("animations", ai)
  E.object(def, ap, "animation")
  local samplers = array(def.samplers, at(ap, "samplers"), "samplers")
  local channels = array(def.channels, at(ap, "channels"), "channels")
  local joints, targets, length = {}, {}, 0
  local animated, keys_used, njoints = {}, 0, 0
  local properties, nprops = {}, 0
  local function is_object(v) return type(v) == "table" and (next(v) == nil or not E.is_array(v)) end
  for ci, ch in ipairs(channels) do
    -- (paths are made for messages only: a file may have thousands of channels)
    local function cp() return at(ap, "channels", ci - 1) end
    if not is_object(ch) then E.object(ch, cp(), "channel") end
    local si = F.whole(ch.sampler, 0, #samplers)
    if not si then
      si = count(ch.sampler, at(cp(), "sampler"), "sampler")
      fail(at(cp(), "sampler"), "index %d out of range: the animation has %d samplers", si, #samplers)
    end
    local function sp() return at(ap, "samplers", si) end
    local s = samplers[si + 1]
    if not is_object(s) then E.object(s, sp(), "sampler") end
    local tg = ch.target
    if not is_object(tg) then E.object(tg, at(cp(), "target"), "target") end
    local path = tg.path
    local interp = s.interpolation
    if interp == nil or E.absent(interp) then interp = "LINEAR" end
    if not INTERPOLATIONS[interp] then
      fail(at(sp(), "interpolation"), "unknown interpolation %s (expected LINEAR, STEP or CUBICSPLINE)",
        type(interp) == "string" and string.format("'%s'", interp) or describe(interp))
    end
    local input = F.index(ctx.doc, s.input, function() return at(sp(), "input") end, "accessors")
    local output = F.index(ctx.doc, s.output, function() return at(sp(), "output") end, "accessors")
    local ext, ev = view_extension(ctx, input)
    if not ext then ext, ev = view_extension(ctx, output) end
    if path == "weights" and not E.absent(tg.node) and not ext then
      -- morph target weights: a property named "<node>.weights", a vector
      -- of the node's weights (animator:property gives them)
      local node = F.index(ctx.doc, tg.node, function() return at(cp(), "target", "node") end, "nodes")
      local tkey = node .. ".weights"
      if targets[tkey] then
        fail(cp(), "the weights of node %d are already animated by channels[%d] (a target is animated once per animation)",
          node, targets[tkey])
      end
      targets[tkey] = ci - 1
      local times, out, n = sampler_keys(ctx, keys_used, input, output, interp, path, sp)
      keys_used = keys_used + n
      local keys = weights_keys(times, out, interp)
      properties[ctx.node_names[node] .. ".weights"] = keys
      nprops = nprops + 1
      if #times > 0 and times[#times] > length then length = times[#times] end
    elseif path == "weights" and ext then
      warn(ctx, cp(), "channel skipped: bufferViews[%d] uses the extension %s, which the module does not read", ev, ext)
    elseif path == "weights" then
      warn(ctx, at(cp(), "target"), "channel skipped: it targets no node")
    elseif type(path) ~= "string" or not PATHS[path] then
      warn(ctx, at(cp(), "target", "path"), "channel skipped: target path %s is not one the module plays",
        type(path) == "string" and string.format("'%s'", path) or describe(path))
    elseif E.absent(tg.node) then
      warn(ctx, at(cp(), "target"), "channel skipped: it targets no node")
    elseif ext then
      warn(ctx, cp(), "channel skipped: bufferViews[%d] uses the extension %s, which the module does not read", ev, ext)
    else
      local node = F.index(ctx.doc, tg.node, function() return at(cp(), "target", "node") end, "nodes")
      local what = PATHS[path]
      local tkey = node .. "." .. path
      if targets[tkey] then
        fail(cp(), "the %s of node %d is already animated by channels[%d] (a target is animated once per animation)",
          path, node, targets[tkey])
      end
      targets[tkey] = ci - 1
      local times, out, n = sampler_keys(ctx, keys_used, input, output, interp, path, sp)
      keys_used = keys_used + n
      local jname = ctx.node_names[node]
      local j = joints[jname]
      if not j then
        j = {}
        joints[jname] = j
        njoints = njoints + 1
        if njoints > L.joints then
          fail(cp(), "too many nodes animated (%d; at most %d, anim.limits.joints)", njoints, L.joints)
        end
        animated[node] = true
      end
      j[what[1]] = channel_keys(times, out, interp, what[2], sp)
      if times[#times] > length then length = times[#times] end
    end
  end
  local skeleton, nsk = animation_skeleton(ctx, ai, ap, animated)
  local t = { version = 3, absolute = true, length = length, joints = joints }
  if nprops > 0 then t.properties = properties end
  if nsk and nsk > 0 then t.skeleton = skeleton end
  local taken = take_extras(t, def.extras)
  -- (looping by default, as three.js plays a glTF animation; the extras'
  -- loop, then the option's, before it)
  if options and options.loop then t.loop = options.loop elseif t.loop == nil then t.loop = "loop" end
  local ok, clip = pcall(clipmod.build, t, name, true)
  if not ok and taken and E.is_failure(clip) then
    warn(ctx, at(ap, "extras"), "not read as the clip's fields (%s)", E.message("", clip):gsub("^: ", ""))
    for _, f in ipairs(EXTRA_FIELDS) do t[f] = nil end
    t.loop = options and options.loop or "loop"
    ok, clip = pcall(clipmod.build, t, name, true)
  end
  if not ok then
    if not E.is_failure(clip) then error(clip, 0) end
    fail(ap, "%s", E.message("the clip made of it", clip))
  end
  return clip
end

-- The importer -------------------------------------------------------------------------------

M.LOOPS = {}
for _, l in ipairs(codes.names("loop")) do M.LOOPS[l] = true end

-- The asset of ctx (file.lua's open or open_text), label in messages:
-- raises a failure for bad input; returns the result table.
local function import(ctx, label, options)
  ctx.name = label
  ctx.keys = 0 -- the keys of the file's clips so far (anim.limits.keys bounds them together)
  local doc = ctx.doc
  -- extensions: those it does not know are read past, said once each
  local required = {}
  for _, name in ipairs(array(doc.extensionsRequired, "extensionsRequired", "extensionsRequired")) do
    required[name] = true
  end
  local said = {}
  for _, list in ipairs { "extensionsRequired", "extensionsUsed" } do
    for k, name in ipairs(array(doc[list], list, list)) do
      if type(name) == "string" and not KNOWN_EXTENSIONS[name] and not said[name] then
        said[name] = true
        warn(ctx, at(list, k - 1), "extension %s is not supported: ignored%s", name,
          required[name] and " (the file requires it: what it changes is not read)" or "")
      end
    end
  end
  read_nodes(ctx)
  local result = { clips = {}, rigs = {}, warnings = ctx.warnings }
  -- animations
  local anims = array(doc.animations, "animations", "animations")
  local anames = unique_names(anims, "animation", "animations")
  ctx.skeleton_left, ctx.skeleton_entries = MAX_SKELETON_NODES, {}
  for i, def in ipairs(anims) do
    result.clips[anames[i - 1]] = read_animation(ctx, i - 1, def, anames[i - 1], options)
  end
  local sk = ctx.skeletonless
  if sk then
    warn(ctx, at("animations", sk.first), "imported without a skeleton%s: the skeletons of the file's clips would hold"
      .. " more than %d nodes together", sk.n > 1 and string.format(", as are %d animations after it", sk.n - 1) or "",
      MAX_SKELETON_NODES)
  end
  -- skins: their joints and every node above them.  A skin's joints are in
  -- its bytes, the nodes above them are not (a joint at the end of a long
  -- chain brings the whole chain): the rigs of the skins hold at most
  -- MAX_NODES joints together, and the skins past it are left out
  local skins = array(doc.skins, "skins", "skins")
  local snames = unique_names(skins, "skin", "skins")
  local left, first_out, nout = MAX_NODES, nil, 0
  local n = #ctx.nodes
  ctx.skin_rigs = {}
  for i, def in ipairs(skins) do
    local sp = at("skins", i - 1)
    E.object(def, sp, "skin")
    local js = E.array(def.joints, at(sp, "joints"), "joints")
    if #js == 0 then fail(at(sp, "joints"), "a skin needs at least one joint") end
    local set, size, nodes = {}, 0, {}
    for k, j in ipairs(js) do
      local ji = F.whole(j, 0, n) or F.index(doc, j, at(sp, "joints", k - 1), "nodes")
      nodes[k] = ji
      if size then size = with_ancestors(ctx, ji, set, size, first_out and 0 or left) end
    end
    if size then
      left = left - size
      local rig = rig_of(ctx, set, snames[i - 1], nodes, skinread.inverse_binds(ctx, def, sp, #js, warn))
      result.rigs[snames[i - 1]], ctx.skin_rigs[i - 1] = rig, rig
      if i == 1 then result.rig = rig end
      -- (the rig of every node, when the skin's is)
      if size == n then result.scene = rig end
    else
      first_out = first_out or i - 1
      nout = nout + 1
    end
  end
  if first_out then
    warn(ctx, at("skins", first_out), "skin left out%s: the rigs of the file's skins would hold more than %d joints"
      .. " together", nout > 1 and string.format(", as are the %d skins after it", nout - 1) or "", MAX_NODES)
  end
  -- every node, for models without a skin
  if n > 0 and not result.scene then
    local all = {}
    for i = 0, n - 1 do all[i] = true end
    result.scene = rig_of(ctx, all, "scene")
  end
  if options and options.meshes then result.meshes = meshes.read(ctx, warn) end
  return result
end

-- anim.import_gltf's file at path; anim.decode_gltf's bytes, name in
-- messages (options.read reads the files its buffers name: F.open_text).
function M.import(path, options) return import(F.open(path, options), path, options) end
function M.decode(text, name, options) return import(F.open_text(text, name, options and options.read), name, options) end
return M
