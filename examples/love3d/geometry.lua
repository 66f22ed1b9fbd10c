-- examples/love3d/geometry.lua: the example's arithmetic that needs no
-- LÖVE (main.lua and spec/love3d_spec.lua require it): 4x4 matrices as
-- flat tables of 16 numbers, column-major (m[col * 4 + row + 1], as GLSL
-- and glTF hold them), and the flat normals of a mesh without any.
local M = {}

function M.mul(a, b)
  local c = {}
  for col = 0, 3 do
    for row = 0, 3 do
      local s = 0
      for k = 0, 3 do s = s + a[k * 4 + row + 1] * b[col * 4 + k + 1] end
      c[col * 4 + row + 1] = s
    end
  end
  return c
end

-- OpenGL's perspective projection (clip z from -1 to 1).
function M.perspective(fovy, aspect, near, far)
  local f = 1 / math.tan(fovy / 2)
  return { f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, 2 * far * near / (near - far), 0 }
end

function M.normalize(x, y, z)
  local l = math.sqrt(x * x + y * y + z * z)
  return x / l, y / l, z / l
end

-- The view matrix of an eye at e looking at t, y up.
function M.look_at(ex, ey, ez, tx, ty, tz)
  local fx, fy, fz = M.normalize(tx - ex, ty - ey, tz - ez)
  local sx, sy, sz = M.normalize(-fz, 0, fx) -- forward x up (0, 1, 0)
  local ux, uy, uz = sy * fz - sz * fy, sz * fx - sx * fz, sx * fy - sy * fx
  return { sx, ux, -fx, 0, sy, uy, -fy, 0, sz, uz, -fz, 0,
    -(sx * ex + sy * ey + sz * ez), -(ux * ex + uy * ey + uz * ez), fx * ex + fy * ey + fz * ez, 1 }
end

-- A normal a triangle (the Fox has no normals: it is drawn flat), from the
-- positions of mesh m (a result.meshes entry: its indices, else its
-- vertices three a triangle), into a float buffer of 3 numbers a vertex
-- made by new_buffer(n) (anim.buffer).
function M.flat_normals(m, new_buffer)
  local p, n = m.positions, new_buffer(3 * m.count)
  local function corner(t, k) return m.indices and m.indices[3 * t + k + 1] or 3 * t + k end
  for t = 0, (m.indices and #m.indices or m.count) / 3 - 1 do
    local a, b, c = corner(t, 0), corner(t, 1), corner(t, 2)
    local ux, uy, uz = p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2], p[3 * b + 3] - p[3 * a + 3]
    local vx, vy, vz = p[3 * c + 1] - p[3 * a + 1], p[3 * c + 2] - p[3 * a + 2], p[3 * c + 3] - p[3 * a + 3]
    local nx, ny, nz = M.normalize(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx)
    for _, v in ipairs { a, b, c } do n[3 * v + 1], n[3 * v + 2], n[3 * v + 3] = nx, ny, nz end
  end
  return n
end

return M
