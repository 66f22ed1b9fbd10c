-- quat.lua: the few quaternion operations the Lua side needs (readers,
-- rigs, retargeting, importers).  Quaternions are {x, y, z, w}.  The C core
-- has its own (csrc/amath.c) for everything per frame.
local M = {}

function M.mul(a, b)
  return {
    a[4] * b[1] + a[1] * b[4] + a[2] * b[3] - a[3] * b[2],
    a[4] * b[2] - a[1] * b[3] + a[2] * b[4] + a[3] * b[1],
    a[4] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[4],
    a[4] * b[4] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
  }
end

function M.inverse(q) return { -q[1], -q[2], -q[3], q[4] } end

-- A turn of `deg` degrees about axis i (1 = x, 2 = y, 3 = z).
function M.axis(i, deg)
  local h = math.rad(deg) / 2
  local q = { 0, 0, 0, math.cos(h) }
  q[i] = math.sin(h)
  return q
end

local AXES = { x = 1, y = 2, z = 3 }

-- Euler angles in degrees {x, y, z} put together in `order` ("abc" means
-- R = R_a * R_b * R_c, SEMANTICS 1); yxz when left out.
function M.from_euler(deg, order)
  order = order or "yxz"
  local a, b, c = AXES[order:sub(1, 1)], AXES[order:sub(2, 2)], AXES[order:sub(3, 3)]
  return M.mul(M.mul(M.axis(a, deg[a]), M.axis(b, deg[b])), M.axis(c, deg[c]))
end

-- v rotated by q.
function M.rotate(q, v)
  local p = M.mul(M.mul(q, { v[1], v[2], v[3], 0 }), M.inverse(q))
  return { p[1], p[2], p[3] }
end

return M
