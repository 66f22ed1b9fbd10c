-- quat.lua: the few quaternion operations the Lua side needs (readers,
-- rigs, retargeting, importers).  Quaternions are {x, y, z, w}.  The C core
-- has its own (csrc/core/amath.c) for everything per frame.
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

-- The unit quaternion of a rotation matrix given by its columns c1, c2, c3
-- (each {x, y, z}; m[row][col] = c<col>[row]), by the largest of the
-- four diagonal sums (Shepperd's method, as three.js's
-- Quaternion.setFromRotationMatrix: src/math/Quaternion.js).
function M.from_matrix(c1, c2, c3)
  local m11, m12, m13 = c1[1], c2[1], c3[1]
  local m21, m22, m23 = c1[2], c2[2], c3[2]
  local m31, m32, m33 = c1[3], c2[3], c3[3]
  local trace = m11 + m22 + m33
  local q
  if trace > 0 then
    local s = 0.5 / math.sqrt(trace + 1)
    q = { (m32 - m23) * s, (m13 - m31) * s, (m21 - m12) * s, 0.25 / s }
  elseif m11 > m22 and m11 > m33 then
    local s = 2 * math.sqrt(1 + m11 - m22 - m33)
    q = { 0.25 * s, (m12 + m21) / s, (m13 + m31) / s, (m32 - m23) / s }
  elseif m22 > m33 then
    local s = 2 * math.sqrt(1 + m22 - m11 - m33)
    q = { (m12 + m21) / s, 0.25 * s, (m23 + m32) / s, (m13 - m31) / s }
  else
    local s = 2 * math.sqrt(1 + m33 - m11 - m22)
    q = { (m13 + m31) / s, (m23 + m32) / s, 0.25 * s, (m21 - m12) / s }
  end
  local n = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4])
  return { q[1] / n, q[2] / n, q[3] / n, q[4] / n }
end

-- v rotated by q.
function M.rotate(q, v)
  local p = M.mul(M.mul(q, { v[1], v[2], v[3], 0 }), M.inverse(q))
  return { p[1], p[2], p[3] }
end

return M
