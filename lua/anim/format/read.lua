-- read.lua: reads a clip table in the shape of a .anim file (versions 1,
-- 2 and 3), checks every field, and turns it into the description the C
-- core builds a clip from (core.clip_new) plus the info table the Lua API
-- reads (metadata, timed items).  Nothing here samples: the C core does.
--
-- The parts, one file each: read_values.lua (the values every part checks,
-- the clip's counts against its limits), read_keys.lua (a channel's keys),
-- read_modifiers.lua (curve modifiers), read_items.lua (timed items),
-- read_curves.lua (versions 2 and 3: curves per joint) and read_poses.lua
-- (version 1: poses at keyframes).  This file reads the top-level fields
-- and the skeleton, and keeps the names the other modules take from it.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local json = require "anim.base.json"
local compat = require "anim.base.compat"
local V = require "anim.format.read_values"
local K = require "anim.format.read_keys"
local read_modifier = require("anim.format.read_modifiers").read_modifier
local read_items = require("anim.format.read_items").read_items
local read_curves = require("anim.format.read_curves").read_curves
local read_v1 = require("anim.format.read_poses").read_v1
local limits = require("anim.base.limits").current
local core = require "anim.core"
local byteorder = require "anim.base.order"

local M = {}

-- (the names, codes and value readers of read_values.lua, for the modules
-- that read parts of clips: props.lua, the importers)
for k, v in pairs(V) do M[k] = v end
M.read_modifier = read_modifier
M.scanner = K.scanner

local fail, describe, key, num, shown = E.fail, E.describe, E.key, E.num, E.shown
local vec, quat, plain_vec, count_joints = V.vec, V.quat, V.plain_vec, V.count_joints
local euler_code = V.euler_code

-- Top-level fields common to every version ------------------------------------------

local function read_common(c, info, desc, skeleton)
  if not E.absent(c.mask) then
    info.mask = M.mask(c.mask, "mask") -- (applied by format/bind.lua: the core plays the joints it is given)
  end
  info.blend = "normal"
  if not E.absent(c.blend) then
    desc.blend = E.enum(c.blend, M.BLENDS, "blend", "blend") - 1
    info.blend = M.BLENDS[desc.blend + 1]
  end
  info.space = "body"
  if not E.absent(c.space) then
    info.space = M.SPACES[E.enum(c.space, M.SPACES, "space", "space")] -- (checked by the animator, in Lua)
  end
  -- (this module's extension: the channels are the joints' local
  -- transforms, as glTF's, not offsets from their rests)
  info.absolute = false
  if not E.absent(c.absolute) then
    info.absolute = E.boolean(c.absolute, "absolute", "absolute")
    desc.absolute = info.absolute and 1 or 0
  end
  if not E.absent(c.skeleton) then info.skeleton = skeleton or M.skeleton(c.skeleton, "skeleton") end
  if not E.absent(c.retarget) then
    E.object(c.retarget, "retarget", "retarget")
    local r = {}
    for k, v in pairs(c.retarget) do r[k] = E.string(v, key("retarget", k), "retarget joint name") end
    info.retarget = r
  end
end

-- skeleton: joint name -> { parent, position, rotation [, translation,
-- scale] } (SEMANTICS 5).  The usual skeleton (plain joints, plain
-- vectors, a hierarchy) is read by the core (csrc/lua/lua_skeleton.c):
-- the same tables, at a fraction of the cost; any other is read here,
-- where every message is made.
local skeleton_plain = core.skeleton_plain
function M.skeleton(s, path)
  local plain = skeleton_plain(s, limits.joints)
  if plain then return plain end
  E.object(s, path, "skeleton")
  -- in name order, so that the joint a message names does not depend on
  -- the order pairs() visits the table
  local names = {}
  for name in pairs(s) do
    if type(name) ~= "string" then fail(path, "skeleton joint names must be strings") end
    names[#names + 1] = name
  end
  count_joints(#names, path)
  byteorder.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local j = s[name]
    -- (the path of the joint is built only for a message)
    local function p() return key(path, name) end
    if type(j) ~= "table" or (next(j) ~= nil and E.is_array(j)) then E.object(j, p(), "skeleton joint") end
    local parent = j.parent
    if E.absent(parent) then parent = nil elseif type(parent) ~= "string" then E.string(parent, key(p(), "parent"), "parent") end
    local function field(k, n)
      local v = j[k]
      if E.absent(v) then return nil end
      if plain_vec(v, n) then return v end
      return vec(v, n, key(p(), k), k)
    end
    local pos = field("position", 3) or { 0, 0, 0 }
    local rot = j.rotation
    if E.absent(rot) then rot = nil
    elseif plain_vec(rot, 4) and (rot[1] ~= 0 or rot[2] ~= 0 or rot[3] ~= 0 or rot[4] ~= 0) then
      rot = quat(rot, "", "rotation")
    elseif not plain_vec(rot, 3) then -- (Euler angles are kept as they are)
      rot = M.rotation(rot, key(p(), "rotation"), "rotation")
    end
    -- (this module's extension, for glTF nodes: the local rest position in
    -- the parent's frame, and the rest scale)
    out[name] = { parent = parent, position = pos, rotation = rot, translation = field("translation", 3),
      scale = field("scale", 3) }
  end
  for _, name in ipairs(names) do
    local parent = out[name].parent
    if parent and not out[parent] then
      fail(key(key(path, name), "parent"), "unknown parent '%s'", shown(parent))
    end
  end
  -- a hierarchy: following the parents from any joint reaches a root
  local state = {} -- nil: not seen, 1: on the current chain, 2: reaches a root
  for _, name in ipairs(names) do
    local chain, at = {}, name
    while at and state[at] == nil do
      state[at] = 1
      chain[#chain + 1] = at
      at = out[at].parent
    end
    if at and state[at] == 1 then
      fail(key(key(path, name), "parent"), "parents form a cycle through '%s'", shown(at))
    end
    for _, n in ipairs(chain) do state[n] = 2 end
  end
  return out
end

-- A compressed clip's usual table ----------------------------------------------------------

-- The top-level fields of a compressed clip's usual table, which the core
-- reads from a .animc's bytes (csrc/lua/lua_animc_plain.c); any other that
-- the reader reads (the rest of fields.lua's "clip" list, less the
-- editor's rig, fps and viewModel, which nothing reads) sends the file to
-- the full reading.  spec/animc_plain_spec.lua checks the two lists cover
-- fields.lua's.
M.PLAIN_FIELDS = { version = true, length = true, loop = true, euler = true, absolute = true, skeleton = true,
  joints = true }
M.FULL_FIELDS = {}
for _, k in ipairs { "events", "markers", "sounds", "plays", "properties", "priority", "speed", "autoplay", "mask",
  "blend", "space", "retarget", "keyframes", "looped" } do
  M.FULL_FIELDS[k] = true
end

-- Entry point -----------------------------------------------------------------------------

-- Reads a clip table; returns desc (for core.clip_new) and info, or raises a
-- failure (errors.lua).  `from_file`: the table was decoded from a file or
-- text, so everything in it -- unknown fields and payloads too -- must be
-- JSON within the limits (finite numbers, strings within
-- anim.limits.strings); a table from Lua may hold any value in the fields
-- this reader does not know (anim.encode refuses what JSON cannot say).
-- `known`: nil, or what is known of a .animc's table (format/animc.lua):
-- { tree_checked = it holds nothing json.check refuses (it is not walked
-- again), skeleton = its skeleton as M.skeleton reads it, or nil }.
function M.read(c, from_file, known)
  V.reset_counts()
  if type(c) ~= "table" or (next(c) ~= nil and E.is_array(c)) then
    fail("", "expected an object with joints or keyframes, got %s", describe(c))
  end
  local version = c.version
  if not E.absent(version) then
    if type(version) ~= "number" then
      fail("version", "version must be 1, 2 or 3, got %s", describe(version))
    end
    if version ~= 1 and version ~= 2 and version ~= 3 then
      fail("version", "unknown version %s (expected 1, 2 or 3)", num(version))
    end
  end
  local curves = not E.absent(c.joints)
  if not curves and E.absent(c.keyframes) then
    fail("", "expected an object with joints or keyframes, got an object without either")
  end
  -- the version as an integer (JSON numbers decode as floats: 3.0)
  local info = { source = c, version = curves and compat.tointeger(version or 2) or 1,
    layout = curves and "curves" or "poses" }
  local desc = {}
  local last
  -- the lists of keys the scanner found as json.check would (it leaves
  -- them out)
  local checked = {}
  -- playback fields
  if curves then
    local loop = 1
    if not E.absent(c.loop) then loop = E.enum(c.loop, M.LOOPS, "loop", "loop mode") end
    desc.loop = loop - 1
    info.loop = M.LOOPS[loop]
    desc.euler = codes.euler.yxz
    if not E.absent(c.euler) then desc.euler = euler_code(c.euler, "euler") end
    info.euler = M.EULERS[desc.euler + 1]
    last = read_curves(c, info, desc, checked)
  else
    local looped = false
    if not E.absent(c.looped) then looped = E.boolean(c.looped, "looped", "looped") end
    desc.loop = looped and codes.loop.loop or codes.loop.once
    info.loop = looped and "loop" or "once"
    desc.euler = codes.euler.yxz
    info.euler = "yxz"
    last = read_v1(c, info, desc)
  end
  desc.priority = 0
  if not E.absent(c.priority) then desc.priority = M.priority(c.priority, "priority") end
  info.priority = desc.priority
  desc.speed = 1
  if not E.absent(c.speed) then desc.speed = E.number(c.speed, "speed", "speed") end
  info.speed = desc.speed
  info.autoplay = false
  if not E.absent(c.autoplay) then info.autoplay = E.boolean(c.autoplay, "autoplay", "autoplay") end
  read_common(c, info, desc, known and known.skeleton)
  desc.items = {}
  local last_item = read_items(c, info, desc.items, "", from_file)
  if curves and last_item and (last == nil or last_item > last) then last = last_item end
  local len
  if not E.absent(c.length) then
    len = E.number(c.length, "length", "length")
    if len < 0 then fail("length", "length must be >= 0, got %s", num(len)) end
  else
    len = math.max(last or 0, 0)
  end
  -- (an integer a double cannot hold, beyond 2^53 -- the length given, or
  -- the last key's or item's time --, as the double the clip plays:
  -- clip.length is then the length its tracks keep to)
  if compat.mtype(len) == "integer" and len > 9007199254740992 then len = len + 0.0 end
  desc.length = len
  info.length = desc.length
  if from_file and not (known and known.tree_checked) then json.check(c, next(checked) and checked) end
  return desc, info
end

return M
