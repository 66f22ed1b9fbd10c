-- read_modifiers.lua: reads the curve modifiers of a .anim clip's channel
-- or property (cycles, stepped, noise, limits, envelope) into the C core's
-- description of them, with the JSON path of what is wrong.
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local codes = require "anim.base.codes"
local V = require "anim.format.read_values"

local M = {}

local fail, describe, key, index, num = E.fail, E.describe, E.key, E.index, E.num
local MOD_TYPES = codes.names("modifier")
local CYCLE_MODES = codes.names("cycle")
local vec, count_keys = V.vec, V.count_keys

local function opt_number(m, k, path, dflt)
  local v = m[k]
  if E.absent(v) then return dflt end
  return E.number(v, key(path, k), k)
end

-- A modifier of a curve of `naxes` components (3, x y z, when left out:
-- a joint's channel; a property's count otherwise).
local function read_modifier(m, path, naxes)
  E.object(m, path, "modifier")
  local ty = E.enum(m.type, MOD_TYPES, key(path, "type"), "modifier type")
  local out = { type = ty - 1 }
  local axis = m.axis
  if not E.absent(axis) then
    if not naxes then
      if axis ~= 0 and axis ~= 1 and axis ~= 2 then
        fail(key(path, "axis"), "axis must be 0, 1 or 2 (x, y or z), got %s",
          E.finite(axis) and tostring(axis) or describe(axis))
      end
    elseif compat.mtype(axis) == nil or axis % 1 ~= 0 or axis < 0 or axis >= naxes then
      local got = E.finite(axis) and num(axis) or describe(axis)
      if naxes == 1 then fail(key(path, "axis"), "axis must be 0 (the property has one component), got %s", got) end
      fail(key(path, "axis"), "axis must be a component index from 0 to %d, got %s", naxes - 1, got)
    end
    out.axis = compat.tointeger(axis) + 1
  end
  if not E.absent(m.enabled) then out.enabled = E.boolean(m.enabled, key(path, "enabled"), "enabled") end
  if out.enabled == nil then out.enabled = true end
  local tyname = MOD_TYPES[ty]
  if tyname == "cycles" then
    out.before = E.absent(m.before) and codes.cycle["repeat"] or E.enum(m.before, CYCLE_MODES, key(path, "before"), "cycles mode") - 1
    out.after = E.absent(m.after) and codes.cycle["repeat"] or E.enum(m.after, CYCLE_MODES, key(path, "after"), "cycles mode") - 1
  elseif tyname == "stepped" then
    out.p1 = opt_number(m, "step", path, 0.1)
    out.p2 = opt_number(m, "offset", path, 0)
    if out.p1 <= 0 then fail(key(path, "step"), "step must be greater than 0, got %s", num(out.p1)) end
  elseif tyname == "noise" then
    out.p1 = opt_number(m, "scale", path, 1)
    out.p2 = opt_number(m, "strength", path, 1)
    out.p3 = opt_number(m, "phase", path, 0)
    out.p4 = opt_number(m, "offset", path, 0)
    if out.p1 <= 0 then fail(key(path, "scale"), "scale must be greater than 0, got %s", num(out.p1)) end
  elseif tyname == "limits" then
    out.p1 = opt_number(m, "min", path, -math.huge)
    out.p2 = opt_number(m, "max", path, math.huge)
    if out.p2 < out.p1 then
      fail(key(path, "max"), "max (%s) must not be less than min (%s)", num(out.p2), num(out.p1))
    end
  else -- envelope
    out.p1 = opt_number(m, "reference", path, 0)
    out.p2 = opt_number(m, "min", path, -1)
    out.p3 = opt_number(m, "max", path, 1)
    if out.p3 == out.p2 then
      fail(key(path, "max"), "max must differ from min (both %s)", num(out.p2))
    end
    local pts = {}
    if not E.absent(m.points) then
      local pp = key(path, "points")
      E.array(m.points, pp, "points")
      count_keys(#m.points, pp)
      local prev
      for i, p in ipairs(m.points) do
        vec(p, 3, index(pp, i), "envelope point [time, min, max]")
        if prev and p[1] < prev then
          fail(index(index(pp, i), 1), "envelope point times must not decrease (%s comes after %s)", num(p[1]), num(prev))
        end
        prev = p[1]
        pts[#pts + 1], pts[#pts + 2], pts[#pts + 3] = p[1], p[2], p[3]
      end
    end
    out.points = pts
  end
  return out
end
M.read_modifier = read_modifier

return M
