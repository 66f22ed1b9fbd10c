-- mat4.lua: the few 4x4 matrix operations the Lua side needs (the glTF
-- exporter's inverse binds, the glTF importer's node world matrices).
-- Column-major, 16 numbers: m[1..4] column 0, m[13..15] the translation,
-- as glTF stores them.
local M = {}

-- The matrix of a translation, rotation (unit quaternion x, y, z, w) and
-- scale: T * R * S.
function M.trs(t, q, s)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local r = { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) }
  return { r[1] * s[1], r[2] * s[1], r[3] * s[1], 0, r[4] * s[2], r[5] * s[2], r[6] * s[2], 0,
    r[7] * s[3], r[8] * s[3], r[9] * s[3], 0, t[1], t[2], t[3], 1 }
end

-- The product a * b.
function M.mul(a, b)
  local out = {}
  for c = 0, 3 do
    for r = 1, 4 do
      out[c * 4 + r] = a[r] * b[c * 4 + 1] + a[4 + r] * b[c * 4 + 2] + a[8 + r] * b[c * 4 + 3] + a[12 + r] * b[c * 4 + 4]
    end
  end
  return out
end

return M
