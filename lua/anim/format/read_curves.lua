-- read_curves.lua: versions 2 and 3 of a .anim clip: curves per joint
-- (position, rotation, scale; weight, muted, modifiers), each channel's
-- keys read by read_keys.lua, into the C core's description of the joints.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local V = require "anim.format.read_values"
local K = require "anim.format.read_keys"
local read_modifier = require("anim.format.read_modifiers").read_modifier

local M = {}

local fail, key, index, num, shown = E.fail, E.key, E.index, E.num, E.shown
local count_joints, count_modifiers, sorted_keys = V.count_joints, V.count_modifiers, V.sorted_keys
local read_keys, channel_desc = K.read_keys, K.channel_desc

local CHANNELS = { "position", "rotation", "scale" }

-- Joint j (called name) of a clip's table into dj, its description;
-- returns the latest key time so far (last_key and its own keys').
local function read_joint(j, name, dj, desc, compact, checked, last_key)
  local jp = key("joints", name)
  E.object(j, jp, "joint")
  if not E.absent(j.weight) then
    local w = E.number(j.weight, key(jp, "weight"), "weight")
    if w < 0 or w > 1 then fail(key(jp, "weight"), "weight must be between 0 and 1, got %s", num(w)) end
    dj.weight = w
  end
  if not E.absent(j.muted) then dj.muted = E.boolean(j.muted, key(jp, "muted"), "muted") end
  local mods = {}
  if not E.absent(j.modifiers) then
    local mp = key(jp, "modifiers")
    E.object(j.modifiers, mp, "modifiers")
    for ch, list in pairs(j.modifiers) do
      if ch ~= "position" and ch ~= "rotation" and ch ~= "scale" then
        fail(key(mp, ch), "unknown channel '%s' (expected position, rotation or scale)", shown(ch))
      end
      local lp = key(mp, ch)
      E.array(list, lp, "modifier list")
      count_modifiers(#list, lp)
      local out = {}
      for i, m in ipairs(list) do out[i] = read_modifier(m, index(lp, i)) end
      mods[ch] = out
    end
  end
  for _, chname in ipairs(CHANNELS) do
    local list = j[chname]
    if not E.absent(list) then
      local cp = key(jp, chname)
      local ch = read_keys(list, cp, chname, 4)
      if ch.checked then checked[list] = true end
      if ch.n > 0 then
        if last_key == nil or ch.last > last_key then last_key = ch.last end
        local field, d
        if ch.quat then
          if mods.rotation and #mods.rotation > 0 then
            fail(index(key(key(jp, "modifiers"), "rotation"), 1),
              "curve modifiers work on Euler angles, not on quaternion keys")
          end
          field, d = "qrot", channel_desc(ch)
        else
          field = chname == "position" and "pos" or chname == "rotation" and "rot" or "scl"
          d = channel_desc(ch, mods[chname])
        end
        dj[field] = d
        -- the source's keys give way to a placeholder once the clip is
        -- built (keys.lua): the core holds their numbers
        compact[#compact + 1] = { src = j, name = chname, joint = #desc.joints + 1, field = field,
          d = d, keep = ch.keep, whole = ch.whole }
      end
    end
  end
  return last_key
end

local function read_curves(c, info, desc, checked)
  E.object(c.joints, "joints", "joints")
  local compact = {}
  info.compact = compact
  local names = sorted_keys(c.joints)
  count_joints(#names, "joints")
  local last_key
  local loop = desc.loop
  desc.joints = {}
  for _, name in ipairs(names) do
    local j = c.joints[name]
    local dj = { name = name }
    -- (an empty joint, as every joint of a compressed clip's table is:
    -- an object with nothing to read)
    if type(j) ~= "table" or next(j) ~= nil or getmetatable(j) ~= nil then
      last_key = read_joint(j, name, dj, desc, compact, checked, last_key)
    end
    desc.joints[#desc.joints + 1] = dj
  end
  info.joints = names
  desc.loop = loop
  return last_key
end
M.read_curves = read_curves

return M
