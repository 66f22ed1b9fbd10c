-- retarget.lua: .retarget files (version 1) -> retarget maps.
-- A map names, for clip joints, the rig joint each plays on ("" keeps it
-- still), optionally with the rest rotations on both rigs (so a turn is
-- carried across as the same turn in the world) and a scale for positions.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local args = require "anim.base.args"
local fields = require "anim.format.fields"
local json = require "anim.base.json"
local format = require "anim.format.read"
local rigmod = require "anim.format.rig"

local M = {}
local fail, key = E.fail, E.key

local limits = require "anim.base.limits"

local function read(t)
  E.object(t, "", "retarget map")
  if t.version ~= 1 then
    if E.absent(t.version) then fail("version", "missing (expected 1)") end
    fail("version", "unknown version %s (expected 1)", E.finite(t.version) and E.num(t.version) or E.describe(t.version))
  end
  local scale = 1
  if not E.absent(t.scale) then
    scale = E.number(t.scale, "scale", "scale")
  end
  local joints = {}
  if not E.absent(t.joints) then
    E.object(t.joints, "joints", "joints")
    local n = 0
    for _ in pairs(t.joints) do n = n + 1 end
    if n > limits.current.joints then
      fail("joints", "too many joints (%d; at most %d, anim.limits.joints)", n, limits.current.joints)
    end
    for name, v in pairs(t.joints) do
      local p = key("joints", name)
      if type(v) == "string" then
        joints[name] = { to = v }
      elseif type(v) == "table" then
        E.object(v, p, "joint entry")
        local to = E.string(v.to, key(p, "to"), "to")
        local entry = { to = to }
        if not E.absent(v.source) then entry.source = rigmod.rest_quat(v.source, key(p, "source")) end
        if not E.absent(v.target) then entry.target = rigmod.rest_quat(v.target, key(p, "target")) end
        joints[name] = entry
      else
        fail(p, "joint entry must be a rig joint name or { to, source, target }, got %s", E.describe(v))
      end
    end
  end
  -- the rest (unknown fields): finite numbers, strings within the limit
  json.check(t)
  return { joints = joints, scale = scale, source = t }
end

-- Builds a map userdata from a decoded table; raises a failure.
-- `strict`: a field the format does not know is a failure too.
function M.build(t, name, strict)
  local info = read(t)
  if strict then
    local u = fields.unknown(t, "retarget")[1]
    if u then E.fail(u.path, "unknown field%s", u.suggestion and (" (did you mean '" .. u.suggestion .. "'?)") or "") end
  end
  info.name = name
  return core.retarget_new(info)
end

function M.decode(text, name, strict)
  return E.catch(name, function() return M.build(json.decode(text), name, strict) end)
end

function M.load_file(path, name, beneath, strict)
  return E.catch(name, function() return M.build(json.decode(json.read_file(path, beneath)), name, strict) end)
end

local mt = core.retarget_metatable
mt.__name = "anim.retarget"
mt.__index = function(self, k)
  local info = core.retarget_info(self)
  if k == "scale" or k == "name" then return info[k] end
  if k == "joints" then
    local out = {}
    for n, e in pairs(info.joints) do out[n] = e.to end
    return out
  end
end
mt.__newindex = function() args.raise("retarget maps are read-only") end
mt.__tostring = function(self) return "anim.retarget(" .. tostring(core.retarget_info(self).name) .. ")" end

local getmt = debug.getmetatable -- (getmetatable(map) is the string "anim.retarget")
function M.is_map(v) return getmt(v) == mt end
M.info = core.retarget_info
M.format = format
return M
