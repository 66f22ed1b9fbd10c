-- export/gltf/init.lua: writes clips as glTF 2.0 animations (anim.export_gltf):
-- a .gltf with its buffer embedded, or a .glb, with a node tree from a rig
-- (or the clips' skeletons) and one animation per clip.
--
-- Each channel is written with the values the animator plays on that node
-- tree: a node's local translation, rotation and scale (an offset clip's
-- values put together with the nodes' rests; an absolute clip's as they
-- are).  What glTF holds exactly is written as it is: linear, step and
-- cubicspline keys; slerped quaternions; bezier segments whose handles are
-- a third of the segment long, catmullrom, quad and cubic eases (cubic
-- polynomials in time: Hermite segments); Euler channels that turn about
-- one axis (a slerp); jumps and steps as values one float's step apart.
-- Anything else (other easings, bezier handles, curve modifiers, Euler
-- channels turning about several axes or more than half a turn between two
-- keys) is baked at options.fps.  Every channel is then imported back (the
-- importer's own reading of the keys as written, in 32-bit floats) and
-- compared with the clip at four times the bake rate: approx lists the
-- baked channels and any other whose difference exceeds 1e-6.
local compat = require "anim.base.compat"
local core = require "anim.core"
local E = require "anim.base.errors"
local Q = require "anim.base.quat"
local codes = require "anim.base.codes"
local clipmod = require "anim.format.clip"
local rigmod = require "anim.format.rig"
local bind = require "anim.format.bind"
local encode = require "anim.format.encode"
local gltf = require "anim.import.gltf"

local M = {}
local fail = E.fail

M.DEFAULT_FPS = 60
M.EXACT = 1e-6 -- a channel written exactly but farther than this from the clip is listed in approx

local I = codes.interp
local INTERP_MASK, EASE_MASK, EASE_SHIFT = codes.keybyte.interp_mask, codes.keybyte.ease_mask, codes.keybyte.ease_shift
local EASE = codes.ease
local SLOT = codes.slot
local MAX_CURVE_KEYS = codes.const.max_curve_keys

-- 32-bit floats ---------------------------------------------------------------------------

local f32 = core.float32
local bits, from_bits = core.float_bits, core.float_from_bits
-- the float just above / below x (a float)
local function next32(x)
  if x == 0 then return from_bits(1) end
  local b = bits(x)
  return from_bits(x > 0 and b + 1 or b - 1)
end
local function prev32(x)
  if x == 0 then return -from_bits(1) end
  local b = bits(x)
  return from_bits(x > 0 and b - 1 or b + 1)
end
-- the largest float at most t
local function floor32(t)
  local f = f32(t)
  if f > t then f = prev32(f) end
  return f
end

-- Hermite value and derivative at s of the segment from key k to key n.
local function herm_at(k, n, s)
  local L = n.t - k.t
  local s2, s3 = s * s, s * s * s
  local v, d = {}, {}
  for a = 1, #k.v do
    local p0, p1, m0, m1 = k.v[a], n.v[a], k.m0[a] * L, k.m1[a] * L
    v[a] = (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1
    d[a] = ((6 * s2 - 6 * s) * p0 + (3 * s2 - 4 * s + 1) * m0 + (-6 * s2 + 6 * s) * p1 + (3 * s2 - 2 * s) * m1) / L
  end
  return v, d
end

local function lerp(a, b, s)
  local out = {}
  for i = 1, #a do out[i] = a[i] + (b[i] - a[i]) * s end
  return out
end

local function qnorm(q)
  local n = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4])
  return { q[1] / n, q[2] / n, q[3] / n, q[4] / n }
end

local function qslerp(a, b, s)
  a, b = qnorm(a), qnorm(b)
  local d = a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4]
  if d < 0 then b = { -b[1], -b[2], -b[3], -b[4] }; d = -d end
  if d > 0.9999999 then return qnorm(lerp(a, b, s)) end
  local th = math.acos(d)
  local wa, wb = math.sin((1 - s) * th) / math.sin(th), math.sin(s * th) / math.sin(th)
  return { wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3], wa * a[4] + wb * b[4] }
end

-- Piecewise curves of the keys -------------------------------------------------------------
--
-- A channel's keys read from the core (core.clip_keys) become a list of
-- keys { t, v (the values), kind of the segment that starts there: "lin",
-- "step", "herm" (m0, m1: the tangents at its ends, per second), "jump"
-- (zero length), or nil when glTF cannot hold it }.

local function value_of(v, arity, i)
  local b = (i - 1) * arity
  local out = {}
  for a = 1, arity do out[a] = v[b + a] end
  return out
end

-- The catmullrom neighbours of Blockbench's rule, as the core takes them
-- (csrc/core/curve.c, catmullrom: a jump breaks the spline; a looping
-- clip wraps channels of three distinct times or more).
local function catmullrom_tangents(t, vals, i, wrap)
  local n = #t
  local distinct = 1
  for k = 2, n do if t[k] ~= t[k - 1] then distinct = distinct + 1 end end
  wrap = wrap and distinct >= 3
  local function second_time()
    local j = 2
    while j <= n and t[j] == t[1] do j = j + 1 end
    return j <= n and j or n
  end
  local function second_last_time()
    local j = n - 1
    while j > 1 and t[j] == t[n] do j = j - 1 end
    return j > 1 and j or 1
  end
  local p1, p2 = vals[i], vals[i + 1]
  local p0, p3
  if i > 1 then p0 = t[i - 1] == t[i] and p1 or vals[i - 1]
  else p0 = wrap and vals[second_last_time()] or p1 end
  if i + 2 <= n then p3 = t[i + 2] == t[i + 1] and p2 or vals[i + 2]
  else p3 = wrap and vals[second_time()] or p2 end
  local L = t[i + 1] - t[i]
  local m0, m1 = {}, {}
  for a = 1, #p1 do
    m0[a] = (p2[a] - p0[a]) / 2 / L
    m1[a] = (p3[a] - p1[a]) / 2 / L
  end
  return m0, m1
end

-- The segments of a channel: keys { t, v, kind, m0, m1 }.  `wrap`: the
-- clip loops (catmullrom's neighbours).  quat: quaternion keys, for which
-- only slerp, step and cubicspline are held.
local function segments(raw, arity, quat, wrap)
  local t, v, ie, h, tan = raw.t, raw.v, raw.ie, raw.h, raw.tan
  local n = #t
  local vals = {}
  for i = 1, n do vals[i] = value_of(v, arity, i) end
  local keys = {}
  for i = 1, n do
    local k = { t = t[i], v = vals[i] }
    keys[i] = k
    if i < n then
      local ip = compat.band(ie[i], INTERP_MASK)
      local ease = compat.rshift(compat.band(ie[i], EASE_MASK), EASE_SHIFT)
      local L = t[i + 1] - t[i]
      if L == 0 then
        k.kind = "jump"
      elseif ip == I.step then
        k.kind = "step"
      elseif quat then
        if ip == I.linear or ip == I.catmullrom or ip == I.bezier then k.kind = "lin"
        elseif ip == I.cubicspline then k.kind = "herm" end
      elseif ip == I.linear then
        k.kind = "lin"
      elseif ip == I.cubicspline then
        k.kind = "herm"
      elseif ip == I.catmullrom then
        k.kind = "herm"
        k.m0, k.m1 = catmullrom_tangents(t, vals, i, wrap)
      elseif ip == I.bezier then
        -- handles a third of the segment long: x(u) = t0 + u L, a Hermite
        -- in time (csrc/core/curve.c, bezier: a missing handle is [L/3, 0])
        local ro, ri = h and h[i], h and h[i + 1]
        local odt, idt = ro and ro[1] or 0 / 0, ri and ri[2] or 0 / 0
        local od, id = { 0, 0, 0 }, { 0, 0, 0 }
        if odt == odt then od = { ro[3], ro[4], ro[5] } else odt = L / 3 end
        if idt == idt then id = { ri[6], ri[7], ri[8] } else idt = -L / 3 end
        if math.abs(odt - L / 3) <= 1e-12 * L and math.abs(idt + L / 3) <= 1e-12 * L then
          k.kind = "herm"
          k.m0, k.m1 = {}, {}
          for a = 1, arity do k.m0[a] = 3 * od[a] / L; k.m1[a] = -3 * id[a] / L end
        end
      elseif (ip == I.quad or ip == I.cubic) and ease ~= EASE.inOut then
        -- v0 + d s^2, v0 + d s^3 and their "out" mirrors: cubics in time
        local p = ip == I.quad and 2 or 3
        k.kind = "herm"
        k.m0, k.m1 = {}, {}
        for a = 1, arity do
          local slope = (vals[i + 1][a] - vals[i][a]) * p / L
          if ease == EASE["in"] then k.m0[a], k.m1[a] = 0, slope else k.m0[a], k.m1[a] = slope, 0 end
        end
      end
      if k.kind == "herm" and not k.m0 then
        -- cubicspline: the keys' own tangents (0 when absent)
        local rec0, rec1 = tan and tan[i], tan and tan[i + 1]
        k.m0, k.m1 = {}, {}
        for a = 1, arity do
          local o = rec0 and rec0[arity + a]
          local m = rec1 and rec1[a]
          k.m0[a] = (o and o == o) and o or 0
          k.m1[a] = (m and m == m) and m or 0
        end
      end
      k.exact = k.kind ~= nil
    end
  end
  if quat then
    -- slerped keys are written unit; a cubic spline's keys as they are (its
    -- samples are made unit); one channel cannot mix the two
    local lin, herm = false, false
    for i = 1, n - 1 do
      if keys[i].kind == "lin" then lin = true elseif keys[i].kind == "herm" then herm = true end
    end
    if lin and herm then
      for i = 1, n - 1 do keys[i].exact = false end
    elseif not herm then
      -- (keys unit to a float's precision, as a glTF file's, stay as they are)
      for i = 1, n do
        local q = keys[i].v
        if math.abs(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4] - 1) > 1e-6 then keys[i].v = qnorm(q) end
      end
    end
  end
  return keys
end

-- Is every segment held (the last key's kind does not count)?
local function all_exact(keys)
  for i = 1, #keys - 1 do if not keys[i].exact then return false end end
  return true
end

-- An Euler channel that turns about one axis only, by less than half a
-- turn between keys, with linear and step segments: its quaternions slerp
-- exactly as the angles interpolate.  Returns the keys made quaternions.
local function euler_as_quats(keys, order)
  local varying = 0
  for a = 1, 3 do
    for i = 2, #keys do
      if keys[i].v[a] ~= keys[1].v[a] then varying = varying + 1 break end
    end
  end
  if varying > 1 then return nil end
  for i = 1, #keys - 1 do
    local k = keys[i]
    if k.kind == "herm" or not k.exact then return nil end
    if k.kind == "lin" then
      for a = 1, 3 do
        if math.abs(keys[i + 1].v[a] - k.v[a]) >= 180 then return nil end
      end
    end
  end
  local out = {}
  for i, k in ipairs(keys) do
    out[i] = { t = k.t, v = Q.from_euler(k.v, order), kind = k.kind, exact = k.exact }
  end
  return out
end

-- The keys restricted to [0, L]: a key at 0 (and at L) with the value the
-- curve has there when the keys run past them.  Each kind stays what it is
-- on the part kept (a part of a line is a line, of a slerp a slerp, of a
-- cubic a cubic: its tangents are the cubic's slopes at the cut).
local function clamp_keys(keys, L, quat)
  local n = #keys
  if keys[1].t >= 0 and keys[n].t <= L then return keys end
  -- the value (and slope) at x of the segment from keys[i]
  local function at(i, x)
    local k, nk = keys[i], keys[i + 1]
    if not nk or x <= k.t then return k.v end
    if x >= nk.t then return nk.v end
    local s = (x - k.t) / (nk.t - k.t)
    if k.kind == "herm" then return herm_at(k, nk, s) end
    if k.kind == "lin" then return quat and qslerp(k.v, nk.v, s) or lerp(k.v, nk.v, s) end
    return k.v
  end
  -- the segment holding x: the last key at or before it (0 before the first)
  local function seg(x)
    local i = 0
    for k = 1, n do if keys[k].t <= x then i = k end end
    return i
  end
  local out = {}
  -- (keys that start after 0 stay as they are: glTF holds the first value)
  local i0 = seg(0)
  if i0 > 0 and keys[i0].t < 0 then
    local k = keys[i0]
    local v, d = at(i0, 0)
    local nk = { t = 0, v = v, kind = k.kind, exact = k.exact }
    if k.kind == "herm" then nk.m0, nk.m1 = d, k.m1 end
    out[1] = nk
  end
  for k = 1, n do
    local key = keys[k]
    if key.t >= 0 and key.t <= L then
      out[#out + 1] = key
    end
  end
  if #out == 0 then
    -- every key after L
    out[1] = { t = 0, v = keys[1].v, exact = true }
  end
  local iL = seg(L)
  if iL > 0 and iL < n and keys[iL + 1].t > L then
    -- a key at L ends the last segment kept, with the cubic's slope there
    local v, d = at(iL, L)
    local last = out[#out]
    if last.t < L then
      if last.kind == "herm" then
        local _, d2 = at(iL, L)
        last = { t = last.t, v = last.v, kind = "herm", exact = true, m0 = last.m0, m1 = d2 }
        out[#out] = last
      end
      out[#out + 1] = { t = L, v = v, in_d = d }
    end
  end
  out[#out].kind = nil
  return out
end

-- glTF keys of an exact channel: times, values, and for CUBICSPLINE in- and
-- out-tangents; interpolation.  f(v) and df(m) turn values and tangents
-- into what is written (rests, retargeting).
local function gltf_keys(keys, f, df)
  local n = #keys
  local mode = "STEP"
  for i = 1, n - 1 do
    local kind = keys[i].kind
    if kind == "herm" then mode = "CUBICSPLINE" break end
    if kind == "lin" then mode = "LINEAR" end
  end
  local out = {}
  local function emit(t, v, tin, tout)
    out[#out + 1] = { t = t, v = v, a = tin, b = tout }
  end
  local zero = {}
  for a = 1, #keys[1].v do zero[a] = 0 end
  local function slope(k, nk)
    local m = {}
    for a = 1, #k.v do m[a] = (nk.v[a] - k.v[a]) / (nk.t - k.t) end
    return m
  end
  -- the tangent arriving at key i and leaving it
  local function arriving(i)
    local p = keys[i - 1]
    if not p then return zero end
    if p.kind == "herm" then return p.m1 end
    if p.kind == "lin" and mode == "CUBICSPLINE" then return slope(p, keys[i]) end
    if keys[i].in_d then return keys[i].in_d end
    return zero
  end
  local function leaving(i)
    local k = keys[i]
    if k.kind == "herm" then return k.m0 end
    if k.kind == "lin" and mode == "CUBICSPLINE" and keys[i + 1] then return slope(k, keys[i + 1]) end
    return zero
  end
  for i = 1, n do
    local k = keys[i]
    local prev = keys[i - 1]
    -- a discontinuity arriving here (a step or a jump): the key is
    -- written at the float at or before its time, so that at its time it
    -- shows its value, and the value held until then one float before
    local disc = prev and (prev.kind == "step" or prev.kind == "jump")
    local tf = floor32(k.t)
    if mode == "STEP" then
      -- (of keys at one time only the last shows)
      if k.kind ~= "jump" then emit(disc and tf or f32(k.t), f(k.v)) end
    else
      if prev and prev.kind == "step" then emit(prev32(tf), f(prev.v), zero, zero) end
      if k.kind == "jump" then
        -- the first of keys at one time: the value arriving, held until just
        -- before (after a step or jump it never shows)
        if not disc then emit(prev32(tf), f(k.v), df(arriving(i)), zero) end
      else
        emit(disc and tf or f32(k.t), f(k.v), disc and zero or df(arriving(i)), df(leaving(i)))
      end
    end
  end
  -- strictly increasing times (floats of nearby times may meet)
  for i = 2, #out do
    if out[i].t <= out[i - 1].t then out[i].t = next32(out[i - 1].t) end
  end
  return out, mode
end

-- The clips' node tree --------------------------------------------------------------------

local function info_of(c) return core.clip_info(c) end

-- The source table a clip keeps (its joints' muted flags and modifiers).
local function source_of(info)
  return rawget(info, "tree") or rawget(info, "source") or {}
end

-- Nodes from the clips' skeletons: { name, parent, translation, rotation,
-- scale }, the first clip naming a joint giving it.
local function skeleton_nodes(clips)
  local list, seen = {}, {}
  for _, c in ipairs(clips) do
    local sk = info_of(c).skeleton
    if sk then
      local names = {}
      for n in pairs(sk) do names[#names + 1] = n end
      table.sort(names)
      for _, n in ipairs(names) do
        if not seen[n] then
          local j = sk[n]
          local t = j.translation
          if not t then
            local pp = j.parent and sk[j.parent] and sk[j.parent].position or { 0, 0, 0 }
            t = { j.position[1] - pp[1], j.position[2] - pp[2], j.position[3] - pp[3] }
          end
          seen[n] = true
          list[#list + 1] = { name = n, parent = j.parent, translation = t,
            rotation = j.rotation and rigmod.rest_quat(j.rotation, "skeleton") or { 0, 0, 0, 1 },
            scale = j.scale or { 1, 1, 1 } }
        end
      end
    end
  end
  return list
end

local function build_rig(joints, what)
  if #joints == 0 then return nil end
  local rig, err = rigmod.new({ joints = joints }, what)
  if not rig then fail("", "cannot make a node tree of %s: %s", what, err) end
  return rig
end

-- The clip joints that play on no joint of `base` (nil: there is none),
-- in the clips' order: { name = true } and the list.
local function unplayed(clips, base, have)
  local list, seen = {}, {}
  for _, c in ipairs(clips) do
    local resolved = base and bind.resolve(c, base) or {}
    for _, name in ipairs(info_of(c).joints) do
      local r = resolved[name]
      if (not r or (r.by == "unmatched" and not r.wanted)) and not have[name] and not seen[name] then
        seen[name] = true
        list[#list + 1] = name
      end
    end
  end
  return list
end

-- Does every clip joint that plays on a joint of `base` play on the joint
-- of the same name in `tree`?
local function same_bindings(clips, base, tree)
  for _, c in ipairs(clips) do
    local before, after = bind.resolve(c, base), bind.resolve(c, tree)
    for name, r in pairs(before) do
      if r.joint and after[name].joint ~= r.joint then return false end
    end
  end
  return true
end

-- The node tree: the rig's joints (or the clips' skeletons), then every clip
-- joint that plays on none of them.  Beside a rig, such a joint is placed
-- as its clip's skeleton places it, with the skeleton's joints above it
-- that the rig lacks (a model's other nodes, which a skin's rig leaves
-- out: see import/gltf/init.lua), or else as a root with no rest; without a rig it is
-- a root with no rest.  Returns the tree and, with a rig, the names of
-- the rig's joints (the skin).
local function node_tree(clips, rig)
  local joints = {}
  if rig then
    for _, j in ipairs(rig:joints()) do
      joints[#joints + 1] = { name = j.name, parent = j.parent, translation = j.translation, rotation = j.rotation,
        scale = j.scale }
    end
  else
    joints = skeleton_nodes(clips)
  end
  local base = build_rig(joints, rig and "the rig" or "the clips' skeletons")
  local have = {}
  for _, j in ipairs(joints) do have[j.name] = true end
  local extra = unplayed(clips, base, have)
  -- (clips that animate nothing: one node, for the channel every glTF
  -- animation needs)
  if #joints == 0 and #extra == 0 then extra[1] = "root" end
  local function flat()
    local list = {}
    for i, j in ipairs(joints) do list[i] = j end
    for _, name in ipairs(extra) do list[#list + 1] = { name = name, translation = { 0, 0, 0 } } end
    return list
  end
  local tree = base
  if rig and #extra > 0 then
    local skel = {}
    for _, j in ipairs(skeleton_nodes(clips)) do skel[j.name] = j end
    local list, at, placed = flat(), {}, {}
    for i = #joints + 1, #list do at[list[i].name] = i end
    for i = #joints + 1, #list do
      -- the joint and the skeleton's joints above it, up to a rig joint or
      -- one placed already
      local name = list[i].name
      while name and not placed[name] and not have[name] and skel[name] do
        local j = skel[name]
        placed[name] = true
        if at[name] then list[at[name]] = j else list[#list + 1] = j end
        name = j.parent
      end
    end
    tree = build_rig(list, "the clips' joints")
    -- (a skeleton's joint named as a rig joint a clip joint was guessed
    -- or mapped to would take that clip joint: then roots, as before)
    if not same_bindings(clips, base, tree) then tree = nil end
  end
  if (not rig or tree == nil or tree == base) and #extra > 0 then tree = build_rig(flat(), "the clips' joints") end
  local skin
  if rig then
    skin = {}
    for i, j in ipairs(joints) do skin[i] = j.name end
  end
  return tree, skin
end

-- The column-major 4x4 matrix of a translation, rotation and scale.
local function trs_matrix(t, q, s)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local r = { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) }
  return { r[1] * s[1], r[2] * s[1], r[3] * s[1], 0, r[4] * s[2], r[5] * s[2], r[6] * s[2], 0,
    r[7] * s[3], r[8] * s[3], r[9] * s[3], 0, t[1], t[2], t[3], 1 }
end

local function mat_mul(a, b)
  local out = {}
  for c = 0, 3 do
    for r = 1, 4 do
      out[c * 4 + r] = a[r] * b[c * 4 + 1] + a[4 + r] * b[c * 4 + 2] + a[8 + r] * b[c * 4 + 3] + a[12 + r] * b[c * 4 + 4]
    end
  end
  return out
end

-- The inverse of an affine column-major matrix, or nil when it has none.
local function affine_inverse(m)
  local a, b, c = m[1], m[5], m[9]
  local d, e, f = m[2], m[6], m[10]
  local g, h, k = m[3], m[7], m[11]
  local det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
  if det == 0 or det ~= det then return nil end
  local i11, i12, i13 = (e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det
  local i21, i22, i23 = (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det
  local i31, i32, i33 = (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det
  local tx, ty, tz = m[13], m[14], m[15]
  return { i11, i21, i31, 0, i12, i22, i32, 0, i13, i23, i33, 0,
    -(i11 * tx + i12 * ty + i13 * tz), -(i21 * tx + i22 * ty + i23 * tz), -(i31 * tx + i32 * ty + i33 * tz), 1 }
end

-- The inverse bind matrices of the skin's joints (names): each the inverse
-- of the joint's world transform in the tree's rest pose, 16 numbers after
-- 16 (Specification.adoc, "Joint Hierarchy": a joint's world transform
-- times its inverse bind matrix is the identity at rest); nil when a rest
-- has no inverse (a scale of 0).
local function inverse_binds(tjoints, node_of, skin)
  local world = {}
  for i, j in ipairs(tjoints) do
    -- (the tree's joints come parents first)
    local m = trs_matrix(j.translation, j.rotation, j.scale)
    local p = j.parent and node_of[j.parent]
    world[i] = p and mat_mul(world[p + 1], m) or m
  end
  local out = {}
  for _, name in ipairs(skin) do
    local inv = affine_inverse(world[node_of[name] + 1])
    if not inv then return nil end
    for k = 1, 16 do out[#out + 1] = inv[k] end
  end
  return out
end

-- Sampling what the animator plays ------------------------------------------------------------

-- The local transform the animator gives rig joint rj for clip joint cj's
-- sample s (11 values of core.clip_sample_joint), one channel: position,
-- rotation or scale.
local function played(c, b, rest, ch, s)
  if ch == "position" then
    local p = { s[2], s[3], s[4] }
    local k = b.pscale or 1
    if c.absolute then return { p[1] * k, p[2] * k, p[3] * k } end
    return { rest.t[1] + k * p[1], rest.t[2] + k * p[2], rest.t[3] + k * p[3] }
  elseif ch == "rotation" then
    local q = { s[5], s[6], s[7], s[8] }
    if b.pre then q = Q.mul(Q.mul(b.pre, q), b.post) end
    if c.absolute then return q end
    return Q.mul(rest.r, q)
  end
  local v = { s[9], s[10], s[11] }
  if c.absolute then return v end
  local out = {}
  for a = 1, 3 do out[a] = rest.s[a] ~= 0 and rest.s[a] * v[a] or v[a] - 1 end
  return out
end

-- The functions that turn a channel's key values and tangents into what is
-- written (the transform `played` applies, which is affine in the values).
local function converters(c, b, rest, ch)
  local k = b.pscale or 1
  if ch == "position" then
    local t0 = c.absolute and { 0, 0, 0 } or rest.t
    return function(v) return { t0[1] + k * v[1], t0[2] + k * v[2], t0[3] + k * v[3] } end,
      function(m) return { k * m[1], k * m[2], k * m[3] } end
  elseif ch == "rotation" then
    local pre = b.pre or { 0, 0, 0, 1 }
    local post = b.post or { 0, 0, 0, 1 }
    if not c.absolute then pre = Q.mul(rest.r, pre) end
    local function f(q) return Q.mul(Q.mul(pre, q), post) end
    return f, f
  end
  if c.absolute then
    return function(v) return { v[1], v[2], v[3] } end, function(m) return { m[1], m[2], m[3] } end
  end
  local s0 = rest.s
  return function(v)
    local out = {}
    for a = 1, 3 do out[a] = s0[a] ~= 0 and s0[a] * v[a] or v[a] - 1 end
    return out
  end, function(m)
    local out = {}
    for a = 1, 3 do out[a] = s0[a] ~= 0 and s0[a] * m[a] or m[a] end
    return out
  end
end

-- A sampler of clip joint cj: s(t) -> the 11 values of clip_sample_joint.
local function sampler(clip, cj)
  return function(t) return { core.clip_sample_joint(clip, cj, t) } end
end

-- The times a channel is baked at: every 1/fps over [0, L], its key times
-- inside, and just before each instant where it jumps (keys one float
-- apart, as exact channels write jumps).
local function bake(sample, conv, L, fps, key_times, quat)
  local ts = {}
  local steps = math.max(1, math.ceil(L * fps - 1e-9))
  if L == 0 then steps = 0 end
  if steps + 1 + #key_times > MAX_CURVE_KEYS then
    return nil
  end
  for k = 0, steps do ts[#ts + 1] = math.min(L, k / fps) end
  for _, t in ipairs(key_times) do
    if t > 0 and t < L then ts[#ts + 1] = t end
  end
  table.sort(ts)
  local out = {}
  local last
  for _, t in ipairs(ts) do
    if t ~= last then
      local ft = f32(t)
      if out[#out] and ft <= out[#out].t then ft = next32(out[#out].t) end
      -- a jump at t: the value arriving, one float before
      local before = prev32(floor32(t))
      if last and before > out[#out].t then
        local vb, va = conv(sample(before)), conv(sample(t))
        local d = 0
        for a = 1, #va do d = math.max(d, math.abs(va[a] - vb[a])) end
        if d > 1e-9 * (1 + math.abs(va[1])) and d > 1e-6 then
          out[#out + 1] = { t = before, v = vb }
          ft = floor32(t)
        end
      end
      local v = conv(sample(t))
      if quat and out[#out] then
        -- in the hemisphere of the key before (the slerp takes the short way either way)
        local p = out[#out].v
        if p[1] * v[1] + p[2] * v[2] + p[3] * v[3] + p[4] * v[4] < 0 then v = { -v[1], -v[2], -v[3], -v[4] } end
      end
      out[#out + 1] = { t = ft, v = v }
      last = t
    end
  end
  return out, "LINEAR"
end

-- The difference of two values of a channel: the angle between two turns
-- (radians), else the largest difference of a component.
local function difference(ch, a, b)
  if ch == "rotation" then
    local qa, qb = qnorm(a), qnorm(b)
    local d = qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3] + qa[4] * qb[4]
    local sg = d < 0 and -1 or 1
    local dn, sn = 0, 0
    for i = 1, 4 do
      dn = dn + (qa[i] - sg * qb[i]) ^ 2
      sn = sn + (qa[i] + sg * qb[i]) ^ 2
    end
    return 2 * compat.atan2(math.sqrt(dn), math.sqrt(sn))
  end
  local m = 0
  for i = 1, 3 do m = math.max(m, math.abs(a[i] - b[i])) end
  return m
end

-- Writing ------------------------------------------------------------------------------------

-- The glTF JSON: objects with their keys sorted, arrays marked by ARRAY
-- (an empty Lua table is an object otherwise), numbers as encode.lua writes
-- them (the shortest that reads back the same).
local ARRAY = {}
local function arr(t) return setmetatable(t or {}, ARRAY) end

local function json(v, out)
  local ty = type(v)
  if ty ~= "table" then
    out[#out + 1] = encode.scalar_text(v, "")
    return
  end
  local mt = getmetatable(v)
  if mt == ARRAY or (mt == nil and #v > 0 and E.is_array(v)) then
    out[#out + 1] = "["
    for i, x in ipairs(v) do
      if i > 1 then out[#out + 1] = "," end
      json(x, out)
    end
    out[#out + 1] = "]"
    return
  end
  local keys = {}
  for k in pairs(v) do
    if type(k) ~= "string" then fail("", "a table with keys that are not strings cannot be written as JSON") end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  out[#out + 1] = "{"
  for i, k in ipairs(keys) do
    if i > 1 then out[#out + 1] = "," end
    out[#out + 1] = encode.scalar_text(k, "")
    out[#out + 1] = ":"
    json(v[k], out)
  end
  out[#out + 1] = "}"
end

local function json_text(v)
  local out = {}
  json(v, out)
  return table.concat(out)
end

local function pad4(s, with) return s .. string.rep(with, (4 - #s % 4) % 4) end

-- The exporter -------------------------------------------------------------------------------

local CHANNELS = { { "position", "translation", SLOT.position, 3 }, { "rotation", "rotation", SLOT.rotation, 4 },
  { "scale", "scale", SLOT.scale, 3 } }
local CH_FLAG = { position = codes.channel.position, rotation = codes.channel.rotation, scale = codes.channel.scale }

-- A clip's name as an animation's: its last path component, less .anim.
local function animation_name(c)
  local n = info_of(c).name or "clip"
  if n:match("%.anim$") then n = (n:match("([^/\\]+)$") or n):gsub("%.anim$", "") end
  return n
end

-- What the animations carry in extras: the clip's timed items, its
-- property channels (as the clip's table has them: a glTF file has no
-- place for values that are not node transforms, and morph weights need
-- a mesh with targets, which the exporter does not write) and the
-- playback fields a glTF animation has no place for (import/gltf/init.lua reads them).
local DEFAULTS = { loop = "once", speed = 1, priority = 0, blend = "normal", space = "body", autoplay = false }
local function extras_of(c)
  local info = info_of(c)
  local src = source_of(info)
  local x = {}
  for _, f in ipairs { "markers", "events", "sounds", "plays" } do
    local list = src[f]
    if type(list) == "table" and #list > 0 then x[f] = arr(list) end
  end
  if type(src.properties) == "table" and next(src.properties) ~= nil then x.properties = src.properties end
  for f, d in pairs(DEFAULTS) do
    if info[f] ~= nil and info[f] ~= d then x[f] = info[f] end
  end
  if info.mask then x.mask = arr(info.mask) end
  return next(x) and x or nil
end

-- Writes the clips; returns approx.  Raises failures (errors.lua).
function M.export(clips, rig, path, options)
  local fps = options and options.fps or M.DEFAULT_FPS
  local glb = path:lower():match("%.glb$") ~= nil
  local tree, skin = node_tree(clips, rig)
  local tjoints = tree:joints()
  local node_of, rest = {}, {}
  for i, j in ipairs(tjoints) do
    node_of[j.name] = i - 1
    rest[i] = { t = j.translation, r = j.rotation, s = j.scale }
  end
  local bin, views, accessors = {}, arr(), arr()
  local binlen = 0
  local input_cache = {}
  local function add_accessor(numbers, ty, ncomp, minmax)
    local bytes, bad = core.gltf_pack_floats(numbers)
    if not bytes then return nil, bad end
    local acc = { componentType = 5126, count = math.floor(#numbers / ncomp), type = ty }
    if minmax then
      local lo, hi = math.huge, -math.huge
      for _, x in ipairs(numbers) do
        local fx = f32(x)
        if fx < lo then lo = fx end
        if fx > hi then hi = fx end
      end
      acc.min, acc.max = arr { lo }, arr { hi }
    end
    views[#views + 1] = { buffer = 0, byteOffset = binlen, byteLength = #bytes }
    acc.bufferView = #views - 1
    bin[#bin + 1] = bytes
    binlen = binlen + #bytes
    accessors[#accessors + 1] = acc
    return #accessors - 1
  end
  local approx = {}
  local animations = arr()
  for ci, c in ipairs(clips) do
    local info = info_of(c)
    local cname = info.name or "clip"
    local L = info.length
    local src = source_of(info)
    local wrap = info.loop == "loop"
    -- each channel's keys as written: { joint, node, ch, mode, keys, baked, ... }
    local out = {}
    for _, b in ipairs(bind.get(c, tree)) do
      local jname = info.joints[b.cj]
      local sj = src.joints and src.joints[jname]
      local muted = type(sj) == "table" and sj.muted == true
      local r = rest[b.rj]
      local sample = sampler(c, b.cj)
      local flags = core.clip_sample_joint(c, b.cj, 0)
      for _, chd in ipairs(CHANNELS) do
        local ch, slot, arity = chd[1], chd[3], chd[4]
        if not muted and compat.band(flags, CH_FLAG[ch]) ~= 0 then
          local t, v, ie, h, kar, tan = core.clip_keys(c, b.cj, slot)
          local mods = type(sj) == "table" and type(sj.modifiers) == "table" and sj.modifiers[ch]
          local modded = false
          if type(mods) == "table" then
            for _, m in ipairs(mods) do if type(m) == "table" and m.enabled ~= false then modded = true end end
          end
          local keys
          if t and not modded and (kar == arity or (ch == "rotation" and kar == 3)) then
            keys = segments({ t = t, v = v, ie = ie, h = h, tan = tan }, kar, kar == 4, wrap)
            if kar == 3 and ch == "rotation" then keys = euler_as_quats(keys, info.euler) end
            if keys and not all_exact(keys) then keys = nil end
          end
          local written, mode, baked
          if keys then
            local f, df = converters(c, b, r, ch)
            written, mode = gltf_keys(clamp_keys(keys, L, ch == "rotation"), f, df)
          else
            written, mode = bake(sample, function(s) return played(c, b, r, ch, s) end, L, fps, t or {}, ch == "rotation")
            if not written then
              fail("", "%s: joint '%s' %s: baking at %g fps would need more than %d keys", E.shown(cname), E.shown(jname), ch, fps,
                MAX_CURVE_KEYS)
            end
            baked = true
          end
          out[#out + 1] = { joint = jname, node = tjoints[b.rj].name, ch = ch, gpath = chd[2], n = arity,
            mode = mode, keys = written, baked = baked, b = b, rest = r, sample = sample }
        end
      end
    end
    -- the animation's length is its last input time: a key at the clip's
    -- length, holding the value, when the keys end before it
    local last = 0
    for _, o in ipairs(out) do last = math.max(last, o.keys[#o.keys].t) end
    if out[1] and last < L then
      local k = out[1].keys[#out[1].keys]
      local zero = {}
      for a = 1, out[1].n do zero[a] = 0 end
      out[1].keys[#out[1].keys + 1] = { t = f32(L) < L and next32(f32(L)) or f32(L), v = k.v, a = zero, b = zero }
    end
    local samplers, channels = arr(), arr()
    local check = { version = 3, absolute = true, length = L, joints = {} }
    for _, o in ipairs(out) do
      local times, outs = {}, {}
      for _, k in ipairs(o.keys) do
        times[#times + 1] = k.t
        if o.mode == "CUBICSPLINE" then
          for a = 1, o.n do outs[#outs + 1] = k.a[a] end
          for a = 1, o.n do outs[#outs + 1] = k.v[a] end
          for a = 1, o.n do outs[#outs + 1] = k.b[a] end
        else
          for a = 1, o.n do outs[#outs + 1] = k.v[a] end
        end
      end
      local tbytes = core.gltf_pack_floats(times)
      local input = input_cache[tbytes]
      if not input then
        input = add_accessor(times, "SCALAR", 1, true)
        input_cache[tbytes] = input
      end
      local output, bad = add_accessor(outs, o.n == 4 and "VEC4" or "VEC3", o.n)
      if not output then
        fail("", "%s: joint '%s' %s: %s cannot be written as a 32-bit float", E.shown(cname), E.shown(o.joint), o.ch,
          E.num(outs[bad]))
      end
      samplers[#samplers + 1] = { input = input, output = output, interpolation = o.mode }
      channels[#channels + 1] = { sampler = #samplers - 1, target = { node = node_of[o.node], path = o.gpath } }
      -- the channel as the importer reads it back, in 32-bit floats
      for i, x in ipairs(times) do times[i] = f32(x) end
      for i, x in ipairs(outs) do outs[i] = f32(x) end
      check.joints[o.node] = check.joints[o.node] or {}
      check.joints[o.node][o.ch] = gltf.channel_keys(times, { values = outs, count = math.floor(#outs / o.n), path = "" },
        o.mode, o.n, "")
    end
    if #channels == 0 then
      -- a glTF animation needs a channel: the first node's rest, over the length
      local r = rest[1]
      samplers[1] = { input = add_accessor({ 0, L }, "SCALAR", 1, true), interpolation = "STEP",
        output = add_accessor({ r.t[1], r.t[2], r.t[3], r.t[1], r.t[2], r.t[3] }, "VEC3", 3) }
      channels[1] = { sampler = 0, target = { node = 0, path = "translation" } }
    end
    -- the clip against its channels read back, at four times the bake rate
    if #out > 0 then
      local ok, back = pcall(clipmod.build, check, cname .. " (as written)", true)
      if not ok then error(E.is_failure(back) and E.message("check", back) or back, 0) end
      local bindex = {}
      for i, nm in ipairs(info_of(back).joints) do bindex[nm] = i end
      local rate = 4 * fps
      local steps = math.max(1, math.ceil(L * rate - 1e-9))
      local AT = { position = 2, rotation = 5, scale = 9 }
      for _, o in ipairs(out) do
        local worst, bj, at = 0, bindex[o.node], AT[o.ch]
        for k = 0, steps do
          local tt = math.min(L, k / rate)
          local want = played(c, o.b, o.rest, o.ch, o.sample(tt))
          local got = { core.clip_sample_joint(back, bj, tt) }
          local d = difference(o.ch, want, { got[at], got[at + 1], got[at + 2], got[at + 3] })
          if d > worst then worst = d end
        end
        if o.baked or worst > M.EXACT then
          approx[#approx + 1] = { clip = cname, joint = o.joint, channel = o.ch, error = worst }
        end
      end
    end
    local anim_def = { name = animation_name(c), samplers = samplers, channels = channels }
    local x = extras_of(c)
    if x then anim_def.extras = x end
    animations[ci] = anim_def
  end
  -- the document
  local nodes = arr()
  local children = {}
  local roots = arr()
  for i, j in ipairs(tjoints) do
    local nd = { name = j.name }
    local t, q, s = j.translation, j.rotation, j.scale
    if t[1] ~= 0 or t[2] ~= 0 or t[3] ~= 0 then nd.translation = arr { t[1], t[2], t[3] } end
    if q[1] ~= 0 or q[2] ~= 0 or q[3] ~= 0 or q[4] ~= 1 then nd.rotation = arr { q[1], q[2], q[3], q[4] } end
    if s[1] ~= 1 or s[2] ~= 1 or s[3] ~= 1 then nd.scale = arr { s[1], s[2], s[3] } end
    nodes[i] = nd
    if j.parent then
      local p = node_of[j.parent]
      children[p] = children[p] or arr()
      children[p][#children[p] + 1] = i - 1
    else
      roots[#roots + 1] = i - 1
    end
  end
  for p, list in pairs(children) do nodes[p + 1].children = list end
  -- the skin: the rig's joints (without one, every node), their inverse
  -- bind matrices consistent with the rests written
  if not skin then
    skin = {}
    for i, j in ipairs(tjoints) do skin[i] = j.name end
  end
  local joints = arr()
  for i, name in ipairs(skin) do joints[i] = node_of[name] end
  local skin_def = { name = "skeleton", joints = joints }
  local binds = inverse_binds(tjoints, node_of, skin)
  if binds then skin_def.inverseBindMatrices = add_accessor(binds, "MAT4", 16) end
  local data = table.concat(bin)
  local doc = {
    asset = { version = "2.0", generator = "anim (Lua), anim.export_gltf" },
    scene = 0,
    scenes = arr { { nodes = roots } },
    nodes = nodes,
    skins = arr { skin_def },
    animations = animations,
    accessors = accessors,
    bufferViews = views,
    buffers = arr { { byteLength = #data } },
  }
  local text
  if glb then
    local js = pad4(json_text(doc), " ")
    local bd = pad4(data, "\0")
    local u32 = compat.pack_u32le
    text = u32(0x46546C67) .. u32(2) .. u32(12 + 8 + #js + 8 + #bd) .. u32(#js) .. u32(0x4E4F534A) .. js
      .. u32(#bd) .. u32(0x004E4942) .. bd
  else
    doc.buffers[1].uri = "data:application/octet-stream;base64," .. core.base64_encode(data)
    text = json_text(doc)
  end
  local ok, err = encode.write_atomic(path, text)
  if not ok then fail("", "%s", (err:gsub("^.-: ", "", 1))) end
  return approx
end

return M
