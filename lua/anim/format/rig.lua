-- rig.lua: rigs (joint hierarchies with rests) for animators.
-- anim.rig("player") is the built-in blocky player rig; anim.rig{ joints =
-- { {name=, parent=, position=, rotation=}, ... } } builds any other.  A
-- joint may give `translation` (its local rest position, in its parent's
-- frame, as a glTF node does) instead of `position` (its pivot in rig
-- space, as Bedrock geometry does), and a rest `scale`.  `inverse_binds`
-- (optional) gives each joint's inverse bind matrix for skinning
-- (animator:skin), one 16-number column-major matrix a joint,
-- inverse_binds[i] going with joints[i]; the skin's order is the rig's
-- (rig:joints()).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local args = require "anim.base.args"
local codes = require "anim.base.codes"
local fields = require "anim.format.fields"
local format = require "anim.format.read"
local Q = require "anim.base.quat"
local suggest = require "anim.base.suggest"
local byteorder = require "anim.base.order"

local M = {}
local fail, key, index = E.fail, E.key, E.index
M.MAX_JOINTS = codes.const.max_rig_joints

-- The rig of the legacy XML viewer, in blocks, +Y up, facing +Z, its right
-- side at -X (DESIGN.md, import-notes.md).  Rest rotations are zero.
M.PLAYER = {
  joints = {
    { name = "root", position = { 0, 0, 0 } },
    { name = "torso", parent = "root", position = { 0, 0.75, 0 } },
    { name = "head", parent = "torso", position = { 0, 1.5, 0 } },
    { name = "rightArm", parent = "torso", position = { -0.375, 1.375, 0 } },
    { name = "leftArm", parent = "torso", position = { 0.375, 1.375, 0 } },
    { name = "rightLeg", parent = "root", position = { -0.125, 0.75, 0 } },
    { name = "leftLeg", parent = "root", position = { 0.125, 0.75, 0 } },
  },
}


-- A rest rotation given as yxz degrees or a quaternion -> unit quaternion.
function M.rest_quat(v, path)
  local r = format.rotation(v, path, "rotation")
  if #r == 4 then return r end
  return Q.from_euler(r, "yxz")
end

local function build(def, rig_name)
  E.object(def, "", "rig")
  local joints = E.array(def.joints, "joints", "joints")
  if #joints == 0 then fail("joints", "a rig needs at least one joint") end
  if #joints > M.MAX_JOINTS then fail("joints", "too many joints (%d; at most %d)", #joints, M.MAX_JOINTS) end
  local names, parents, pivots, rots, idx = {}, {}, {}, {}, {}
  local locals, scales, any_local, any_scale = {}, {}, false, false
  -- (paths are built only for a message: a rig may have thousands of joints)
  local plain = format.plain_vec
  local function vec3(v, i, k)
    if plain(v, 3) then return v end
    return format.vec(v, 3, key(index("joints", i), k), k)
  end
  for i, j in ipairs(joints) do
    if type(j) ~= "table" or (next(j) ~= nil and E.is_array(j)) then E.object(j, index("joints", i), "joint") end
    local name = j.name
    if type(name) ~= "string" then E.string(name, key(index("joints", i), "name"), "name") end
    -- (the core keeps names as C strings: "a\0b" would be "a")
    if name:find("\0", 1, true) then fail(key(index("joints", i), "name"), "a joint name cannot hold a NUL byte") end
    if idx[name] then fail(key(index("joints", i), "name"), "duplicate joint name '%s' (also joints[%d])", E.shown(name), idx[name]) end
    idx[name] = i
    names[i] = name
    pivots[i] = E.absent(j.position) and { 0, 0, 0 } or vec3(j.position, i, "position")
    local r = j.rotation
    if E.absent(r) then rots[i] = { 0, 0, 0, 1 }
    elseif plain(r, 4) and (r[1] ~= 0 or r[2] ~= 0 or r[3] ~= 0 or r[4] ~= 0) then rots[i] = format.quat(r, "", "rotation")
    else rots[i] = M.rest_quat(r, key(index("joints", i), "rotation")) end
    locals[i] = false
    if not E.absent(j.translation) then
      locals[i] = vec3(j.translation, i, "translation")
      any_local = true
    end
    if not E.absent(j.scale) then
      scales[i] = vec3(j.scale, i, "scale")
      any_scale = true
    end
  end
  local ibm = not E.absent(def.inverse_binds) and M.inverse_binds(def.inverse_binds, #joints) or nil
  for i, j in ipairs(joints) do
    local p = index("joints", i)
    if E.absent(j.parent) then
      parents[i] = 0
    else
      E.string(j.parent, key(p, "parent"), "parent")
      parents[i] = idx[j.parent] or fail(key(p, "parent"), "unknown parent '%s'", E.shown(j.parent))
    end
  end
  return M.from_lists(names, parents, pivots, rots, any_local and locals or nil, any_scale and scales or nil, rig_name,
    nil, ibm)
end

-- A list of n inverse bind matrices (16 finite numbers each, column-major),
-- checked; raises a failure at inverse_binds[i][j].
function M.inverse_binds(list, n)
  E.array(list, "inverse_binds", "inverse_binds")
  if #list ~= n then
    fail("inverse_binds", "%d %s expected (one a joint), got %d", n, n == 1 and "matrix" or "matrices", #list)
  end
  for i, m in ipairs(list) do
    if not format.plain_vec(m, 16) then
      local p = index("inverse_binds", i)
      if type(m) ~= "table" or not E.is_array(m) or #m ~= 16 then
        fail(p, "a matrix must be an array of 16 numbers (a column-major 4x4), got %s",
          (type(m) == "table" and E.is_array(m) and next(m) ~= nil) and ("an array of " .. #m) or E.describe(m))
      end
      for k = 1, 16 do E.number(m[k], index(p, k), "a matrix component") end
    end
  end
  return list
end

-- A rig from the lists core.rig_new takes, checked by the caller (build
-- above; an importer whose joints are its own: no table of its is copied
-- or checked again).  Raises a failure naming the joints of a cycle.
-- skin (optional): the skin's joints, indices into the lists in the skin's
-- order (a glTF skin's); ibm (optional): a 16-number matrix per skin joint
-- (without skin: per joint of the lists).
function M.from_lists(names, parents, pivots, rots, locals, scales, rig_name, skin, ibm)
  local info = { names = names, name = rig_name }
  local rig, err = core.rig_new(names, parents, pivots, rots, info, locals, scales, skin, ibm)
  if not rig then
    -- name the joints of the first cycle, in joint order (each joint is
    -- walked through once: 1 on the current walk, 2 done)
    local state, cyc = {}, {}
    for i = 1, #names do
      local k = i
      while k ~= 0 and not state[k] do state[k] = 1; k = parents[k] end
      if k ~= 0 and state[k] == 1 then
        local on = {}
        repeat on[k] = true; k = parents[k] until on[k]
        for j = 1, #names do if on[j] then cyc[#cyc + 1] = names[j] end end
        break
      end
      k = i
      while k ~= 0 and state[k] == 1 do state[k] = 2; k = parents[k] end
    end
    fail("joints", "%s: %s", err, table.concat(cyc, ", "))
  end
  info.index = {}
  info.joints = core.rig_joints(rig)
  for i, j in ipairs(info.joints) do info.index[j.name] = i end
  return rig
end

-- The rig of a clip's skeleton (its `skeleton` field, docs/formats.md:
-- joint name -> { parent, position or translation, rotation, scale }), its
-- joints in `order` (a list of the skeleton's names: an importer's file
-- order) or by name.  The one way from a skeleton to a rig: the importers'
-- rigs and the command's pictures.  Raises a failure (E.catch gives nil,
-- "name: joints...: why").
function M.from_skeleton(skeleton, name, order)
  if not order then
    order = {}
    for n in pairs(skeleton) do order[#order + 1] = n end
    byteorder.sort(order)
  end
  local joints = {}
  for i, n in ipairs(order) do
    local j = skeleton[n]
    joints[i] = { name = n, parent = j.parent, position = j.position, translation = j.translation,
      rotation = j.rotation, scale = j.scale }
  end
  return build({ joints = joints }, name)
end

local player -- built once: rigs are immutable and shared

-- anim.rig("player") | anim.rig(definition [, name]) -> rig | nil, message
function M.new(def, name)
  if def == "player" then
    -- (built again if a script finalized the one shared by hand)
    if not (player and M.is_rig(player)) then player = build(M.PLAYER, "player") end
    return player
  end
  if type(def) == "string" then
    return nil, "rig: unknown built-in rig '" .. E.shown(def) .. "' (expected \"player\" or a table)"
  end
  if type(def) ~= "table" then
    args.error(1, "rig", "\"player\" or table expected, got " .. args.typename(def))
  end
  if name ~= nil and type(name) ~= "string" then
    args.error(2, "rig", "string expected, got " .. args.typename(name))
  end
  -- read raw: what the rig is made of is the table's data, not what its
  -- metamethods answer (a table found twice is copied once); then a field
  -- the script misspelt raises (the definition is the script's own)
  local copy, err = E.catch(name or "rig", json.copy, def)
  if not copy then return nil, err end
  local unknown = fields.unknown(copy, "rig")[1]
  if unknown then
    local msg = fields.message(unknown, true)
    -- (the field a script reaches for first: the name is an argument)
    if unknown.path == "name" then msg = msg .. "; a rig's name is anim.rig's second argument: anim.rig(definition, name)" end
    args.error(1, "rig", msg)
  end
  return E.catch(name or "rig", build, copy, name or "rig")
end

local methods = {}
function methods.joints(self)
  local out = {}
  for i, j in ipairs(core.rig_info(self).joints) do
    out[i] = { name = j.name, parent = j.parent, position = { compat.unpack(j.position) },
      rotation = { compat.unpack(j.rotation) }, translation = { compat.unpack(j.translation) },
      scale = { compat.unpack(j.scale) } }
  end
  return out
end
function methods.has(self, name) return core.rig_info(self).index[name] ~= nil end
-- rig:inverse_binds() -> 16 numbers a skin joint (column-major), in the
-- skin's order; rig:skin_joints() -> the names of the skin's joints in
-- that order (a glTF skin's `joints`; else every joint, rig:joints() order)
function methods.inverse_binds(self) return core.rig_inverse_binds(self) end
function methods.skin_joints(self)
  local joints, out = core.rig_info(self).joints, {}
  for k, i in ipairs(core.rig_skin(self)) do out[k] = joints[i].name end
  return out
end

local rfields = { name = true }
local mt = core.rig_metatable
mt.__name = "anim.rig"
mt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  if rfields[k] then return core.rig_info(self)[k] end
  args.no_field("anim.rig", k, methods, rfields)
end
mt.__newindex = function() args.raise("rigs are read-only") end
mt.__tostring = function(self)
  local info = core.rig_info(self)
  return "anim.rig(" .. info.name .. ", " .. #info.names .. " joints)"
end

args.methods(methods, mt, "anim.rig")

local getmt = debug.getmetatable -- (getmetatable(rig) is the string "anim.rig")
function M.is_rig(v) return getmt(v) == mt end

-- The 1-based index of joint j of a rig (a name, or an index of
-- rig:joints()), or nil and why.
function M.joint(rig, j)
  local info = core.rig_info(rig)
  if type(j) == "string" then
    local i = info.index[j]
    if not i then return nil, "unknown joint '" .. E.shown(j) .. "'" .. suggest.hint(j, info.names) end
    return i
  end
  if type(j) == "number" and j == math.floor(j) then
    if j >= 1 and j <= #info.joints then return compat.tointeger(j) end
    return nil, "joint index " .. tostring(j) .. " out of range 1.." .. #info.joints
  end
  return nil, "joint name or index expected, got " .. args.show(j)
end
M.info = core.rig_info
-- (the methods, for docs/api.md's quick reference: spec/api_index_spec.lua)
M.methods = methods

return M
