-- import/dragonbones/fields.lua: the DragonBones importer's field readers
-- (a field absent or null takes its default, as the format's parser reads
-- it: DragonBonesJS ObjectDataParser._getNumber/_getBoolean/_getString),
-- its 2x3 matrices, and the angle rule of the format.
local E = require "anim.base.errors"

local M = {}

local key, fail, describe, num = E.key, E.fail, E.describe, E.num

-- A number field of object t, or `default` when absent or null.
function M.number(t, k, path, default)
  local v = t[k]
  if E.absent(v) then return default end
  if not E.finite(v) then
    fail(key(path, k), "%s must be a finite number, got %s", k, describe(v))
  end
  return v
end

-- A whole number field >= lo, and at most 2^53: past it a double is
-- whole but no integer (playTimes 1e308 raised formatting its warning).
function M.whole(t, k, path, default, lo)
  local v = M.number(t, k, path, default)
  if v == nil then return nil end
  if v % 1 ~= 0 or v < lo then
    fail(key(path, k), "%s must be a whole number >= %d, got %s", k, lo, num(v))
  end
  if v > 2 ^ 53 then fail(key(path, k), "%s must be a whole number from %d to 2^53, got %s", k, lo, num(v)) end
  return v
end

-- A boolean field: true/false, or a number (0 is false), as the format's
-- parser reads them (ObjectDataParser._getBoolean; its strings "0",
-- "false", "" ... are read the same).
local FALSE_STRINGS = { ["0"] = true, ["NaN"] = true, [""] = true, ["false"] = true, ["null"] = true, ["undefined"] = true }
function M.boolean(t, k, path, default)
  local v = t[k]
  if E.absent(v) then return default end
  if type(v) == "boolean" then return v end
  if type(v) == "number" then return v ~= 0 end
  if type(v) == "string" then return not FALSE_STRINGS[v] end
  fail(key(path, k), "%s must be true or false, got %s", k, describe(v))
end

function M.string(t, k, path, default)
  local v = t[k]
  if E.absent(v) then return default end
  if type(v) ~= "string" then fail(key(path, k), "%s must be a string, got %s", k, describe(v)) end
  return v
end

-- An array field (absent or null: an empty list).
function M.array(t, k, path)
  local v = t[k]
  if E.absent(v) then return {} end
  return E.array(v, key(path, k), k)
end

-- An object (absent or null: nil).
function M.object(t, k, path)
  local v = t[k]
  if E.absent(v) then return nil end
  return E.object(v, key(path, k), k)
end

-- An array of numbers (absent: nil).  (The decoded file went through
-- json.check, which refuses a number that is not finite: a type test is
-- enough, and it is the cost of a mesh's or a curve's numbers.)
function M.numbers(t, k, path)
  local v = t[k]
  if E.absent(v) then return nil end
  local p = key(path, k)
  E.array(v, p, k)
  for i = 1, #v do
    if type(v[i]) ~= "number" then fail(E.index(p, i), "%s must hold finite numbers, got %s", k, describe(v[i])) end
  end
  return v
end

-- An angle in degrees brought into [-180, 180), as the format's runtime
-- brings its radians (Transform.normalizeRadian: (v + PI) % 2PI, then
-- minus PI when above 0, else plus PI; JavaScript's % keeps the sign of
-- the dividend, as math.fmod does).
function M.normalize(deg)
  local v = math.fmod(deg + 180, 360)
  if v > 0 then return v - 180 end
  return v + 180
end

-- A transform object { x, y, skX, skY, scX, scY } (or { rotate, skew })
-- as the format's parser reads it (ObjectDataParser._parseTransform):
-- x, y, rotation = skY, skew = skX - skY (degrees), scale_x, scale_y.
-- `normalize`: both angles brought into [-180, 180) first, as the
-- parser does for the frames of 4.5 bone timelines.
function M.transform(t, path, normalize)
  if t == nil then return { x = 0, y = 0, rotation = 0, skew = 0, scale_x = 1, scale_y = 1 } end
  local out = {
    x = M.number(t, "x", path, 0), y = M.number(t, "y", path, 0),
    scale_x = M.number(t, "scX", path, 1), scale_y = M.number(t, "scY", path, 1),
  }
  local n = normalize and M.normalize or function(v) return v end
  if not E.absent(t.rotate) or not E.absent(t.skew) then
    out.rotation = n(M.number(t, "rotate", path, 0))
    out.skew = n(M.number(t, "skew", path, 0))
  else
    out.rotation = n(M.number(t, "skY", path, 0))
    out.skew = n(M.number(t, "skX", path, 0)) - out.rotation
  end
  return out
end

-- 2x3 matrices as the format stores them: { a, b, c, d, tx, ty } with
-- x' = a·x + c·y + tx, y' = b·x + d·y + ty (DragonBonesJS Matrix).
function M.matrix(list, at, path, what)
  local m = {}
  for i = 0, 5 do
    local v = list[at + i]
    if not E.finite(v) then
      fail(path, "%s needs 6 finite numbers at %d, got %s", what, at, describe(v))
    end
    m[i + 1] = v
  end
  return m
end

function M.apply(m, x, y, delta)
  local ox, oy = m[1] * x + m[3] * y, m[2] * x + m[4] * y
  if delta then return ox, oy end
  return ox + m[5], oy + m[6]
end

function M.invert(m, path, what)
  local a, b, c, d, tx, ty = m[1], m[2], m[3], m[4], m[5], m[6]
  local det = a * d - b * c
  if det == 0 or not E.finite(1 / det) then fail(path, "%s cannot be inverted (its determinant is %s)", what, num(det)) end
  local ia, ib, ic, id = d / det, -b / det, -c / det, a / det
  return { ia, ib, ic, id, -(ia * tx + ic * ty), -(ib * tx + id * ty) }
end

return M
