-- spec/spine_rules.lua: the rules of docs/formats.md "2D skeletons" (and
-- the format's bezier curve) written out in plain Lua for the Spine specs:
-- a bone's local matrix, each inherit mode's frame, IK of one and two
-- bones, a transform constraint (world, matched).  Nothing here calls the
-- module: spec/spine_world_spec.lua compares what the animators pose with
-- what this composes.
local R = {}

local rad = math.pi / 180
local atan2 = rawget(math, "atan2") or math.atan
R.atan2 = atan2

local function wrap(d)
  d = math.fmod(d, 360)
  if d > 180 then d = d - 360 elseif d <= -180 then d = d + 360 end
  return d
end
R.wrap = wrap

-- The value at time t of the cubic bezier segment from (t0, v0) to (t1,
-- v1), handles (cx1, cy1), (cx2, cy2) normalised to the segment: time and
-- value cubics of one parameter, the time's solved by bisection.
function R.bez(c, t0, v0, t1, v1, t)
  local function cubic(a, b, u) return 3 * (1 - u) ^ 2 * u * a + 3 * (1 - u) * u ^ 2 * b + u ^ 3 end
  local x = (t - t0) / (t1 - t0)
  local lo, hi = 0, 1
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if cubic(c[1], c[3], mid) < x then lo = mid else hi = mid end
  end
  return v0 + (v1 - v0) * cubic(c[2], c[4], (lo + hi) / 2)
end

-- [cos(r+shX) sX, cos(r+90+shY) sY; sin(r+shX) sX, sin(r+90+shY) sY]
local function lmat(l)
  return { math.cos((l.rotation + l.shx) * rad) * l.sx, math.cos((l.rotation + 90 + l.shy) * rad) * l.sy,
    math.sin((l.rotation + l.shx) * rad) * l.sx, math.sin((l.rotation + 90 + l.shy) * rad) * l.sy }
end
local function mul(p, l)
  return { p[1] * l[1] + p[2] * l[3], p[1] * l[2] + p[2] * l[4], p[3] * l[1] + p[4] * l[3], p[3] * l[2] + p[4] * l[4] }
end
-- the frame F of an inherit mode from the parent's 2x2 p
local function frame(mode, p)
  local pa, pb, pc, pd = p[1], p[2], p[3], p[4]
  if mode == "normal" then return { pa, pb, pc, pd } end
  if mode == "onlyTranslation" then return { 1, 0, 0, 1 } end
  local th, sx, det = atan2(pc, pa), math.sqrt(pa * pa + pc * pc), pa * pd - pb * pc
  local c, s = math.cos(th), math.sin(th)
  if mode == "noRotationOrReflection" then
    return mul(mul({ c, -s, s, c }, { sx, 0, 0, math.abs(det) / sx }), { c, s, -s, c })
  end
  local f = (mode == "noScale" and det < 0) and -1 or 1
  return { c, -s * f, s, c * f }
end
R.frame = frame
R.lmat = lmat
-- (x, y) in the frame f at origin (ox, oy)
local function in_frame(f, ox, oy, x, y)
  local det = f[1] * f[4] - f[2] * f[3]
  x, y = x - ox, y - oy
  return (f[4] * x - f[2] * y) / det, (f[1] * y - f[3] * x) / det
end

-- A skeleton: bones { name, parent, inherit, length } in order; pose(L)
-- composes every bone's world from the locals L[name] = { x, y, rotation,
-- sx, sy, shx, shy }.
function R.new(bones)
  local S = { bones = bones, by = {} }
  for _, b in ipairs(bones) do S.by[b.name] = b end
  return S
end

-- bone b's world (W[name] = { a, b, c, d, x, y }) and frame (F[name])
local function place(L, W, F, b)
  local l = L[b.name]
  local m = lmat(l)
  if not b.parent then
    F[b.name] = { 1, 0, 0, 1 }
    W[b.name] = { m[1], m[2], m[3], m[4], l.x, l.y }
    return
  end
  local P = W[b.parent]
  local f = frame(b.inherit or "normal", P)
  local w = mul(f, m)
  F[b.name] = f
  W[b.name] = { w[1], w[2], w[3], w[4], P[1] * l.x + P[2] * l.y + P[5], P[3] * l.x + P[4] * l.y + P[6] }
end
function R.compose(S, L, W, F)
  for _, b in ipairs(S.bones) do place(L, W, F, b) end
end

-- IK, one bone
function R.ik1(S, L, W, F, bone, target, mix, compress, stretch, uniform)
  local l, w, f = L[bone], W[bone], F[bone]
  local t = W[target]
  local lx, ly = in_frame(f, w[5], w[6], t[5], t[6])
  local r = atan2(ly, lx) / rad - l.shx + (l.sx < 0 and 180 or 0)
  l.rotation = l.rotation + wrap(r - l.rotation) * mix
  local len, d = S.by[bone].length * math.abs(l.sx), math.sqrt(lx * lx + ly * ly)
  if len > 0 and ((compress and d < len) or (stretch and d > len)) then
    local k = (d / len - 1) * mix + 1
    l.sx = l.sx * k
    if uniform then l.sy = l.sy * k end
  end
end

-- IK, two bones; returns what it measured
function R.ik2(S, L, W, F, parent, child, target, mix, soft, bend, stretch)
  local pl, cl, pw, t = L[parent], L[child], W[parent], W[target]
  local lx, ly = in_frame(F[parent], pw[5], pw[6], t[5], t[6])
  local m0 = lmat { rotation = 0, shx = pl.shx, shy = pl.shy, sx = pl.sx, sy = pl.sy }
  local cx, cy = m0[1] * cl.x + m0[2] * cl.y, m0[3] * cl.x + m0[4] * cl.y
  local l1, al = math.sqrt(cx * cx + cy * cy), atan2(cy, cx)
  local l2 = S.by[child].length * math.abs(cl.sx) * math.abs(pl.sx)
  local d = math.sqrt(lx * lx + ly * ly)
  local reach, dd, s = l1 + l2, d, 1
  if stretch and d > reach then
    s, dd = d / reach, reach
  elseif soft > 0 and d > reach - soft then
    dd = d >= reach + soft and reach or reach - (reach + soft - d) ^ 2 / (4 * soft)
  end
  dd = math.max(math.abs(l1 - l2), math.min(reach, dd))
  local cos2 = math.max(-1, math.min(1, (dd * dd - l1 * l1 - l2 * l2) / (2 * l1 * l2)))
  local th2 = bend * math.acos(cos2)
  local th1 = atan2(ly, lx) - atan2(l2 * math.sin(th2), l1 + l2 * math.cos(th2))
  local r1 = (th1 - al) / rad
  local r2 = (th2 + al) / rad - pl.shx - cl.shx + (cl.sx < 0 and 180 or 0)
  pl.rotation = pl.rotation + wrap(r1 - pl.rotation) * mix
  cl.rotation = cl.rotation + wrap(r2 - cl.rotation) * mix
  if s ~= 1 then pl.sx = pl.sx * ((s - 1) * mix + 1) end
  return { d = d, reach = reach, dd = dd, l1 = l1, l2 = l2 }
end

-- A transform constraint (world, matched) on bone: its world moved toward
-- the target's, then its locals read back from it.
function R.tc(S, L, W, F, bone, target, mix, off)
  local m, t = W[bone], W[target]
  local function len(x, y) return math.sqrt(x * x + y * y) end
  if mix[1] ~= 0 then
    local r = wrap(atan2(t[3], t[1]) / rad + off[1] - atan2(m[3], m[1]) / rad) * mix[1] * rad
    local c, s = math.cos(r), math.sin(r)
    m[1], m[3], m[2], m[4] = c * m[1] - s * m[3], s * m[1] + c * m[3], c * m[2] - s * m[4], s * m[2] + c * m[4]
  end
  local px, py = t[1] * off[2] + t[2] * off[3] + t[5], t[3] * off[2] + t[4] * off[3] + t[6]
  m[5], m[6] = m[5] + (px - m[5]) * mix[2], m[6] + (py - m[6]) * mix[3]
  local s = len(m[1], m[3])
  local k = (s + (len(t[1], t[3]) - s + off[4]) * mix[4]) / s
  m[1], m[3] = m[1] * k, m[3] * k
  s = len(m[2], m[4])
  k = (s + (len(t[2], t[4]) - s + off[5]) * mix[5]) / s
  m[2], m[4] = m[2] * k, m[4] * k
  if mix[6] ~= 0 then
    local bx, by = atan2(m[3], m[1]) / rad, atan2(m[4], m[2]) / rad
    local ts = wrap(atan2(t[4], t[2]) / rad - atan2(t[3], t[1]) / rad)
    local r = wrap(ts + off[6] - (by - bx))
    by = (by + r * mix[6]) * rad
    s = len(m[2], m[4])
    m[2], m[4] = math.cos(by) * s, math.sin(by) * s
  end
  -- read back: L = F^-1 W, the origin through the parent's inverse
  local b = S.by[bone]
  local P, f, l = W[b.parent], F[bone], L[bone]
  l.x, l.y = in_frame(P, P[5], P[6], m[5], m[6])
  local la, lc = in_frame(f, 0, 0, m[1], m[3])
  local lb, ld = in_frame(f, 0, 0, m[2], m[4])
  l.rotation = atan2(lc, la) / rad
  l.shx, l.sx, l.sy = 0, len(la, lc), len(lb, ld)
  l.shy = wrap(atan2(ld, lb) / rad - 90 - l.rotation)
end

-- A transform constraint, local and relative, on bone: the target's local
-- values plus the offsets added, times the mixes (the scales multiplied).
function R.tc_local_relative(L, bone, target, mix, off)
  local l, t = L[bone], L[target]
  l.rotation = l.rotation + (t.rotation + off[1]) * mix[1]
  l.x = l.x + (t.x + off[2]) * mix[2]
  l.y = l.y + (t.y + off[3]) * mix[3]
  l.sx = l.sx * (1 + (t.sx - 1 + off[4]) * mix[4])
  l.sy = l.sy * (1 + (t.sy - 1 + off[5]) * mix[5])
  l.shy = l.shy + (t.shy + off[6]) * mix[6]
end

R.in_frame = in_frame

return R
