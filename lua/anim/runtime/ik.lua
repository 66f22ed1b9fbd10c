-- ik.lua: inverse kinematics constraints, the Lua face of csrc/core/ik.c.
--   animator:two_bone_ik{ root =, mid =, tip =, target = {x, y, z}, pole = {x, y, z} [, weight = 1, soften = 1] }
--   animator:aim{ joint =, target = {x, y, z} [, forward = {0, 0, 1}, up = {0, 1, 0}, weight = 1] }
-- Each returns a constraint: c.target, c.pole (two-bone), c.weight are
-- read and set (c:set_target(x, y, z) and c:set_pole(x, y, z) allocate
-- nothing); c:remove().  The core applies them in creation order at the
-- end of every update (runtime/animator.lua installs the two methods).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local args = require "anim.base.args"
local codes = require "anim.base.codes"
local rigmod = require "anim.format.rig"
local E = require "anim.base.errors"
local finite, shown = E.finite, E.shown

local M = {}

-- The options of each function, each listed once (unknown names raise
-- with a suggestion).
local TWO_BONE_OPTIONS = args.names { "root", "mid", "tip", "target", "pole", "weight", "soften" }
local AIM_OPTIONS = args.names { "joint", "target", "forward", "up", "weight" }

local KIND, FIELD = codes.ik, codes.ikfield
local argerror, show = args.error, args.show
local ik_set, ik_get = core.ik_set, core.ik_get

-- {x, y, z} of finite numbers -> x, y, z; else nil and why (naming `what`).
local function vec3(v, what)
  if type(v) == "table" then
    local x, y, z = rawget(v, 1), rawget(v, 2), rawget(v, 3)
    if finite(x) and finite(y) and finite(z) then return x, y, z end
    return nil, string.format("%s must be { x, y, z } of finite numbers, got { %s, %s, %s }",
      what, show(x), show(y), show(z))
  end
  return nil, what .. " must be { x, y, z } of finite numbers, got " .. args.typename(v)
end

-- A number from 0 to 1 (nil: dflt); else nil and why.
local function unit_number(v, what, dflt)
  if v == nil and dflt then return dflt end
  if not finite(v) or v < 0 or v > 1 then return nil, what .. " must be a number from 0 to 1, got " .. show(v) end
  return v
end

-- The same raising bad argument #1 to fname (the options of a method).
local function opt(fname, a, b, c, d)
  if a == nil then argerror(1, fname, b) end
  return a, b, c, d
end

local function joint(rig, j, fname, what)
  local i, why = rigmod.joint(rig, j)
  if not i then argerror(1, fname, what .. ": " .. why) end
  return i
end

-- A constraint's state is in the core; the Lua object holds, under a key
-- no script has (so that every field of its own goes through the
-- metatable), its animator (which keeps it alive), its id, its kind and
-- whether it was removed.
local Constraint = {}
local STATE = {}
local function state_of(c) return rawget(c, STATE) end

-- Each is also listed in its animator's Lua state (weakly), so that a
-- restore (runtime/state.lua) can mark the ones it replaces as removed.
local animator_state = core.animator_state
local function new_constraint(animator, id, kind)
  local c = setmetatable({ [STATE] = { animator = animator, id = id, kind = kind, removed = false } }, Constraint)
  local st = animator_state(animator)
  st.constraints = st.constraints or setmetatable({}, { __mode = "k" })
  st.constraints[c] = true
  return c
end

-- Is joint lo below joint hi in the rig?
local function below(rig, lo, hi)
  local info = rigmod.info(rig)
  local p = info.joints[lo].parent
  while p do
    if info.index[p] == hi then return true end
    p = info.joints[info.index[p]].parent
  end
  return false
end

function M.two_bone_ik(self, def)
  local fname = "two_bone_ik"
  if def == nil then argerror(1, fname, "table of options expected, got nil") end
  def = args.options(def, TWO_BONE_OPTIONS, 1, fname)
  local rig = self.rig
  local r = joint(rig, def.root, fname, "root")
  local m = joint(rig, def.mid, fname, "mid")
  local t = joint(rig, def.tip, fname, "tip")
  local js = rigmod.info(rig).joints
  if not below(rig, m, r) then
    argerror(1, fname, string.format("mid '%s' is not below root '%s' in the rig", shown(js[m].name), shown(js[r].name)))
  end
  if not below(rig, t, m) then
    argerror(1, fname, string.format("tip '%s' is not below mid '%s' in the rig", shown(js[t].name), shown(js[m].name)))
  end
  local tx, ty, tz = opt(fname, vec3(def.target, "target"))
  local px, py, pz = opt(fname, vec3(def.pole, "pole"))
  local w = opt(fname, unit_number(def.weight, "weight", 1))
  local s = opt(fname, unit_number(def.soften, "soften", 1))
  local id = core.ik_add(self, KIND.two_bone, r, m, t, tx, ty, tz, px, py, pz, 0, 0, 1, 0, 1, 0, w, s)
  assert(id > 0, "the core refused a checked constraint")
  return new_constraint(self, id, "two_bone")
end

function M.aim(self, def)
  local fname = "aim"
  if def == nil then argerror(1, fname, "table of options expected, got nil") end
  def = args.options(def, AIM_OPTIONS, 1, fname)
  local j = joint(self.rig, def.joint, fname, "joint")
  local tx, ty, tz = opt(fname, vec3(def.target, "target"))
  local fx, fy, fz = 0, 0, 1
  if def.forward ~= nil then fx, fy, fz = opt(fname, vec3(def.forward, "forward")) end
  local ux, uy, uz = 0, 1, 0
  if def.up ~= nil then ux, uy, uz = opt(fname, vec3(def.up, "up")) end
  local w = opt(fname, unit_number(def.weight, "weight", 1))
  local fl, ul = math.sqrt(fx * fx + fy * fy + fz * fz), math.sqrt(ux * ux + uy * uy + uz * uz)
  if fl == 0 then argerror(1, fname, "forward must not be { 0, 0, 0 }") end
  if ul == 0 then argerror(1, fname, "up must not be { 0, 0, 0 }") end
  local cx, cy, cz = fy * uz - fz * uy, fz * ux - fx * uz, fx * uy - fy * ux
  if math.sqrt(cx * cx + cy * cy + cz * cz) <= 1e-9 * fl * ul then
    argerror(1, fname, "forward and up must not be parallel")
  end
  local id = core.ik_add(self, KIND.aim, j, j, j, tx, ty, tz, 0, 0, 0, fx, fy, fz, ux, uy, uz, w, 1)
  assert(id > 0, "the core refused a checked constraint")
  return new_constraint(self, id, "aim")
end

-- Methods and fields of a constraint --------------------------------------------

-- The live state of a constraint, else raises (named by what).
local function live(self, what)
  local st = state_of(self)
  if st.removed then args.raise(what .. ": the constraint was removed") end
  return st
end

local methods = {}

-- (called every frame: the checks inline, x - x is 0 for finite numbers
-- only; a failing one says what is wrong)
local function bad3(self, fname, x, y, z)
  local st = live(self, "constraint:" .. fname)
  if fname == "set_pole" and st.kind ~= "two_bone" then args.raise("constraint:set_pole: an aim constraint has no pole") end
  argerror(1, fname, "x, y, z must be finite numbers, got " .. show(x) .. ", " .. show(y) .. ", " .. show(z))
end
local TARGET, POLE = FIELD.target, FIELD.pole
function methods.set_target(self, x, y, z)
  local st = self[STATE]
  if st.removed or type(x) ~= "number" or type(y) ~= "number" or type(z) ~= "number"
      or x - x ~= 0 or y - y ~= 0 or z - z ~= 0 then
    return bad3(self, "set_target", x, y, z)
  end
  ik_set(st.animator, st.id, TARGET, x, y, z)
end
function methods.set_pole(self, x, y, z)
  local st = self[STATE]
  if st.removed or st.kind ~= "two_bone" or type(x) ~= "number" or type(y) ~= "number" or type(z) ~= "number"
      or x - x ~= 0 or y - y ~= 0 or z - z ~= 0 then
    return bad3(self, "set_pole", x, y, z)
  end
  ik_set(st.animator, st.id, POLE, x, y, z)
end

-- Removes it (the next update is made without it); a second remove does nothing.
function methods.remove(self)
  local st = state_of(self)
  if st.removed then return end
  core.ik_remove(st.animator, st.id)
  st.removed = true
end

-- Fields: those of every constraint, then those of the two-bone kind.
local fields = {
  kind = function(st) return st.kind end,
  animator = function(st) return st.animator end,
  removed = function(st) return st.removed end,
  target = function(st) return { ik_get(st.animator, st.id, FIELD.target) } end,
  weight = function(st) return (ik_get(st.animator, st.id, FIELD.weight)) end,
}
local two_bone_fields = {
  pole = function(st) return { ik_get(st.animator, st.id, FIELD.pole) } end,
  soften = function(st) return (ik_get(st.animator, st.id, FIELD.soften)) end,
}

-- Settable fields: the value checked (nil and why), and the field's code.
local setters = {
  target = { vec3, FIELD.target },
  pole = { vec3, FIELD.pole, two_bone = true },
  weight = { unit_number, FIELD.weight },
  soften = { unit_number, FIELD.soften, two_bone = true },
}

Constraint.__name = "anim.constraint"
Constraint.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local st = state_of(self)
  local f = fields[k] or (st.kind == "two_bone" and two_bone_fields[k])
  if not f then
    -- (a two-bone field of an aim constraint: nil, as after remove)
    if two_bone_fields[k] then return nil end
    args.no_field("anim.constraint", k, methods, fields, two_bone_fields)
  end
  if st.removed and k ~= "kind" and k ~= "animator" and k ~= "removed" then return nil end
  return f(st)
end
Constraint.__newindex = function(self, k, v)
  local s = setters[k]
  if not s then args.raise("cannot set constraint field '" .. shown(k) .. "'") end
  local st = live(self, "constraint." .. k)
  if s.two_bone and st.kind ~= "two_bone" then args.raise("constraint." .. k .. ": an aim constraint has no " .. k) end
  local x, y, z = s[1](v, "constraint." .. k)
  if x == nil then args.raise(y) end
  ik_set(st.animator, st.id, s[2], x, y, z)
end
Constraint.__tostring = function(self)
  local st = state_of(self)
  return string.format("anim.constraint(%s%s)", st.kind, st.removed and ", removed" or "")
end

-- The handles of a restore (runtime/state.lua), made before it happens:
-- list = { { id =, kind = }, ... } in creation order; commit() marks the
-- animator's old handles removed and lists these instead.
function M.prepare(animator, list)
  local st = animator_state(animator)
  st.constraints = st.constraints or setmetatable({}, { __mode = "k" })
  local handles, set = {}, setmetatable({}, { __mode = "k" })
  for i, e in ipairs(list) do
    handles[i] = setmetatable({ [STATE] = { animator = animator, id = e.id, kind = e.kind, removed = false } }, Constraint)
    set[handles[i]] = true
  end
  local function commit()
    for c in pairs(st.constraints) do state_of(c).removed = true end
    st.constraints = set
  end
  return handles, commit
end

-- (the methods, for docs/api.md's quick reference: spec/api_index_spec.lua)
M.methods = methods

return M
