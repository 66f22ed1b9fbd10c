-- clip.lua: the Lua face of clips (userdata made by the C core).
-- Scalar metadata are fields (clip.length), lists are methods
-- (clip:markers()), and clip:sample(t) evaluates every curve in C.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local args = require "anim.base.args"
local json = require "anim.base.json"
local format = require "anim.format.read"
local props = require "anim.format.props"
local keys = require "anim.format.keys"
local rigmod = require "anim.format.rig"
local retarget = require "anim.format.retarget"
local bind = require "anim.format.bind"
local fieldset = require "anim.format.fields"
local kinds = require "anim.format.kind"

local M = {}
local info_of = core.clip_info

local function copy(list)
  if list == nil then return nil end
  local out = {}
  for i, v in ipairs(list) do
    if type(v) == "table" then
      local c = {}
      for k, x in pairs(v) do c[k] = x end
      out[i] = c
    else
      out[i] = v
    end
  end
  return out
end

local methods = {}

function methods.sample(self, t)
  args.check(t, "number", 1, "sample")
  return core.clip_sample(self, t)
end
-- clip:bindings(rig [, map]) -> { clip joint = { joint = rig joint | nil,
-- by = "map" | "field" | "same name" | "guess" | "unmatched" } }
function methods.bindings(self, rig, map)
  if not rigmod.is_rig(rig) then args.error(1, "bindings", "rig expected, got " .. args.typename(rig)) end
  if map ~= nil and not retarget.is_map(map) then
    args.error(2, "bindings", "retarget map expected, got " .. args.typename(map))
  end
  local out = {}
  for name, r in pairs(bind.resolve(self, rig, map)) do
    out[name] = { joint = r.joint, by = r.by }
  end
  return out
end
function methods.joints(self) return copy(info_of(self).joints) end
-- clip:properties() -> { name, ... }: the property channels, sorted
function methods.properties(self)
  local out = {}
  for i, p in ipairs(info_of(self).properties or {}) do out[i] = p.name end
  return out
end
function methods.markers(self) return copy(info_of(self).markers) end
function methods.events(self) return copy(info_of(self).events) end
function methods.sounds(self) return copy(info_of(self).sounds) end
function methods.plays(self) return copy(info_of(self).plays) end
-- clip:compression() -> { bytes_raw, bytes, ratio, worst, p99, error,
-- distance, tick } of a compressed clip (anim.compress), else nil
function methods.compression(self)
  local f = rawget(info_of(self), "compression")
  if not f then return nil end
  local out = {}
  for k, v in pairs(f) do out[k] = v end
  local rate = core.clip_pack_rate(self)
  out.tick = 1 / rate -- (the pack's time step: a jump between two plays up to one early)
  return out
end

local fields = {
  name = true, version = true, length = true, loop = true, priority = true, speed = true,
  blend = true, space = true, autoplay = true, euler = true, layout = true, absolute = true,
}

local mt = core.clip_metatable
mt.__name = "anim.clip"
mt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local info = info_of(self)
  if fields[k] then return info[k] end
  if k == "mask" then return copy(info.mask) end
  if k == "compressed" then return rawget(info, "compression") ~= nil end
  if k == "approx" then
    -- how far the version 3 table of an imported clip is from what it plays
    -- (nil: exactly)
    return info.approx and { bound = info.approx.bound, note = info.approx.note, err = info.approx.err } or nil
  end
  args.no_field("anim.clip", k, methods, fields, { mask = true, approx = true, compressed = true })
end
mt.__newindex = function(_, k)
  args.raise("clips are read-only (cannot set '" .. E.shown(k) .. "')")
end
mt.__tostring = function(self)
  local info = info_of(self)
  return string.format("anim.clip(%s, %s s, %d joints)", info.name, E.numtext("%g", info.length), #info.joints)
end
args.methods(methods, mt, "anim.clip")
M.methods = methods

-- A copy of a clip table, so that a caller changing its table later does
-- not change what the clip encodes to: raw, shared tables copied once, a
-- table that holds itself refused (json.copy).
function M.copy(v) return json.copy(v, true) end

-- Builds a clip from a table in the file's shape; raises a failure.
-- `from_file`: t was decoded from a file or text (format.read checks it all).
-- `strict`: a field the format does not know is a failure too.
-- `known`: see format.read.
function M.build(t, name, from_file, strict, known)
  local desc, info = format.read(t, from_file, known)
  props.read(t, desc, info)
  if strict then
    local u = fieldset.unknown(t, "clip")[1]
    if u then E.fail(u.path, "unknown field%s", u.suggestion and (" (did you mean '" .. u.suggestion .. "'?)") or "") end
  end
  info.name = name
  return keys.build(desc, info)
end

-- Loads a .anim file, naming the clip `name`: clip | nil, message.
-- `beneath`: see json.read_file (the library's res:// files).  A file that
-- is another format's by its content gets a message naming the function
-- that reads it (kind.hint) instead of the .anim reader's.
function M.load_file(path, name, beneath, strict)
  local text
  local c, err = E.catch(name, function()
    text = json.read_file(path, beneath)
    return M.build(json.decode(text), name, true, strict)
  end)
  if not c and text then return nil, kinds.hint(name, path, text) or err end
  return c, err
end

local getmt = debug.getmetatable -- (getmetatable(clip) is the string "anim.clip")
function M.is_clip(v)
  return getmt(v) == mt
end

-- A clip whose box was finalized (collected, or its __gc called by hand):
-- its Lua side (core.clip_info) is still there, its keys are gone.
local FINALIZED = "anim.clip (finalized)"
function M.is_finalized(v)
  local m = getmt(v)
  return type(m) == "table" and rawget(m, "__name") == FINALIZED and type(v) == "userdata"
end

-- The Lua side's table of a clip (name, timed items, source for encoding:
-- format/read.lua makes it), for the importers and tools above this layer.
M.info = info_of

-- A clip straight from a core description (its layout is documented in
-- csrc/lua/lua_clip.c, its one reader), with no metadata: importers use it
-- to sample curves they are building (import/xml measures its approximations).
function M.from_description(desc)
  return core.clip_new(desc, { name = "(description)", joints = {}, length = desc.length or 0 })
end

M.catch = E.catch
return M
