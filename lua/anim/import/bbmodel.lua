-- bbmodel.lua: reads a Blockbench project (.bbmodel) into the bones and
-- animations blockbench.lua builds clips from (schema and conventions in
-- ../shared/spec/import-notes.md, ".bbmodel animation schema").
--
-- Two layouts: before format 5.0 the outliner is a tree of group objects;
-- from 5.0 the groups are a flat `groups` array and the outliner holds only
-- uuids and children (an outliner entry with a name is still read as a
-- group, as Blockbench does).  Group origins and rotations are in
-- Blockbench's internal axes in both.  Animation values are too from 5.0;
-- before 5.0 they are in Bedrock's signs (position x, rotation x and y
-- negated, bezier handle values with them), which Blockbench converts on
-- load and so does this reader.  Positions are pixels, 16 to a block.
local E = require "anim.base.errors"
local CH = require "anim.import.bbchannel"
local bedrock = require "anim.import.bedrock"

local M = {}

local fail, key, index, describe = E.fail, E.key, E.index, E.describe

local AXES = { "x", "y", "z" }

-- "4.10" -> {4, 10}; compared part by part as Blockbench's compareVersions.
local function version(v)
  local parts = {}
  for d in tostring(v):gmatch("%d+") do parts[#parts + 1] = tonumber(d) end
  return parts
end
local function older(v, than)
  for i = 1, math.max(#v, #than) do
    local a, b = v[i] or 0, than[i] or 0
    if a ~= b then return a < b end
  end
  return false
end
M.older = function(a, b) return older(version(a), version(b)) end

local function vec3(v, path, what, dflt)
  if E.absent(v) then return dflt end
  if type(v) ~= "table" or not E.is_array(v) or #v ~= 3 then
    fail(path, "%s must be [x, y, z], got %s", what,
      (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
  end
  for i = 1, 3 do E.number(v[i], index(path, i), what .. " component") end
  return { v[1], v[2], v[3] }
end

-- Bones --------------------------------------------------------------------------------

local function read_bones(doc, old_z)
  local groups = {}
  if not E.absent(doc.groups) then
    E.array(doc.groups, "groups", "groups")
    for i, g in ipairs(doc.groups) do
      E.object(g, index("groups", i), "group")
      if type(g.uuid) == "string" then groups[g.uuid] = { g = g, path = index("groups", i) } end
    end
  end
  local bones, by_uuid, by_name = {}, {}, {}
  local function walk(list, path, parent)
    E.array(list, path, "outliner children")
    for i, node in ipairs(list) do
      local np = index(path, i)
      if type(node) == "table" then
        local g, gp = node, np
        if E.absent(node.name) then
          local entry = type(node.uuid) == "string" and groups[node.uuid]
          if not entry then
            fail(np, "outliner entry %s names no group in 'groups'",
              type(node.uuid) == "string" and ("'" .. node.uuid .. "'") or "without a uuid")
          end
          g, gp = entry.g, entry.path
        end
        local name = E.string(g.name, key(gp, "name"), "group name")
        if by_name[name] then
          fail(key(gp, "name"), "two groups are named '%s': joint names must be unique", name)
        end
        local rot = vec3(g.rotation, key(gp, "rotation"), "rotation", { 0, 0, 0 })
        if old_z then rot[3] = -rot[3] end -- before 3.2 a group's z rotation was stored inverted
        local bone = {
          name = name,
          uuid = g.uuid,
          parent = parent and parent.name,
          origin = vec3(g.origin, key(gp, "origin"), "origin", { 0, 0, 0 }),
          rotation = rot,
        }
        bones[#bones + 1] = bone
        by_name[name] = bone
        by_name[name:lower()] = by_name[name:lower()] or bone
        if type(g.uuid) == "string" then by_uuid[g.uuid] = bone end
        if not E.absent(node.children) then walk(node.children, key(np, "children"), bone) end
      elseif type(node) ~= "string" then
        fail(np, "outliner entry must be a group or an element uuid, got %s", describe(node))
      end
    end
  end
  if not E.absent(doc.outliner) then walk(doc.outliner, "outliner", nil) end
  return bones, by_uuid, by_name
end

-- Keyframes -----------------------------------------------------------------------------

local INTERPS = { linear = true, catmullrom = true, bezier = true, step = true }
local CHANNELS = { rotation = true, position = true, scale = true }

-- Signs and units of each channel: Blockbench's internal axes, blocks.
local function factors(channel, old)
  local f = { 1, 1, 1 }
  if channel == "position" then f = { 1 / 16, 1 / 16, 1 / 16 } end
  if old then
    if channel == "position" then f[1] = -f[1] end
    if channel == "rotation" then f[1], f[2] = -1, -1 end
  end
  return f
end

local function handle(v, path, what, dflt)
  if E.absent(v) then return { dflt, dflt, dflt } end
  return vec3(v, path, what, nil)
end

local function read_keyframe(kf, path, where, old)
  local ch = kf.channel
  local t = E.number(kf.time, key(path, "time"), "time")
  local interp = "linear"
  if not E.absent(kf.interpolation) then
    interp = kf.interpolation
    if type(interp) ~= "string" or not INTERPS[interp] then
      fail(key(path, "interpolation"), "%s: unknown interpolation %s (expected linear, catmullrom, bezier or step)",
        where, type(interp) == "string" and ("'" .. interp .. "'") or describe(interp))
    end
  end
  local dps = E.array(kf.data_points, key(path, "data_points"), "data_points")
  if #dps < 1 or #dps > 2 then
    fail(key(path, "data_points"), "%s: a keyframe has 1 or 2 data points, got %d", where, #dps)
  end
  local f = factors(ch, old)
  local dflt = ch == "scale" and 1 or 0
  local points = {}
  for i, dp in ipairs(dps) do
    local dpp = index(key(path, "data_points"), i)
    E.object(dp, dpp, "data point")
    local p = {}
    for a = 1, 3 do
      local raw = dp[AXES[a]]
      if E.absent(raw) then raw = dflt end
      p[a] = CH.scale(CH.value(raw, key(dpp, AXES[a]), where .. ", " .. ch .. " " .. AXES[a]), f[a])
    end
    if ch == "scale" and kf.uniform == true then p[2], p[3] = p[1], p[1] end
    points[i] = p
  end
  local k = { t = t, interp = interp, pre = points[1], post = points[2] or points[1], two = #points == 2, path = path }
  -- per-axis handles: seconds from the key, and value offsets in the
  -- channel's units and signs
  local bz = {
    lt = handle(kf.bezier_left_time, key(path, "bezier_left_time"), "bezier_left_time", -0.1),
    rt = handle(kf.bezier_right_time, key(path, "bezier_right_time"), "bezier_right_time", 0.1),
    lv = handle(kf.bezier_left_value, key(path, "bezier_left_value"), "bezier_left_value", 0),
    rv = handle(kf.bezier_right_value, key(path, "bezier_right_value"), "bezier_right_value", 0),
  }
  for a = 1, 3 do
    bz.lv[a] = bz.lv[a] * f[a]
    bz.rv[a] = bz.rv[a] * f[a]
  end
  k.bz = bz
  return k
end

local function read_effect(kf, path, where, anim)
  local t = E.number(kf.time, key(path, "time"), "time")
  local dps = E.array(kf.data_points, key(path, "data_points"), "data_points")
  for i, dp in ipairs(dps) do
    local dpp = index(key(path, "data_points"), i)
    E.object(dp, dpp, "data point")
    local function opt(f)
      local v = dp[f]
      if E.absent(v) then return nil end
      return E.string(v, key(dpp, f), f)
    end
    if kf.channel == "sound" then
      local effect, file = opt("effect"), opt("file")
      if (effect or "") == "" and (file or "") == "" then
        fail(dpp, "%s: a sound keyframe needs an 'effect' (or a 'file')", where)
      end
      anim.sounds[#anim.sounds + 1] = { time = t, sound = (effect or "") ~= "" and effect or file }
    elseif kf.channel == "particle" then
      -- every field the data point has, as the Bedrock reader keeps its own
      -- (bind_to_actor as written: a Bedrock file's is a boolean)
      local payload = {}
      for _, f in ipairs { "effect", "locator", "script", "file" } do payload[f] = opt(f) end
      if not E.absent(dp.bind_to_actor) then payload.bind_to_actor = dp.bind_to_actor end
      anim.events[#anim.events + 1] = { time = t, name = "particle", payload = payload }
    else
      anim.events[#anim.events + 1] = { time = t, name = "timeline", payload = { script = opt("script") or "" } }
    end
  end
end

local EFFECT_CHANNELS = { sound = true, particle = true, timeline = true }

-- Animations --------------------------------------------------------------------------

local LOOPS = { once = "once", loop = "loop", hold = "hold" }

local function read_animation(a, path, ctx)
  E.object(a, path, "animation")
  local name = E.string(a.name, key(path, "name"), "animation name")
  local where = string.format("animation '%s'", name)
  local anim = { name = name, path = path, joints = {}, sounds = {}, events = {} }
  anim.loop = type(a.loop) == "string" and LOOPS[a.loop] or "once" -- Blockbench ignores anything else
  if not E.absent(a.length) then
    anim.length = E.number(a.length, key(path, "length"), "length")
    if anim.length < 0 then fail(key(path, "length"), "length must be >= 0") end
  end
  -- anim_time_update, blend_weight, start_delay, loop_delay: as in a Bedrock file
  bedrock.read_playback(a, path, where, anim)
  local field = E.absent(a.animators) and "bones" or "animators"
  local animators = a[field]
  if E.absent(animators) then return anim end
  local ap = key(path, field)
  E.object(animators, ap, field)
  local ids = {}
  for id in pairs(animators) do ids[#ids + 1] = id end
  table.sort(ids)
  local joints = {}
  for _, id in ipairs(ids) do
    local an = animators[id]
    local anp = key(ap, id)
    local kfs, aname, atype, slerp
    if type(an) == "table" and E.is_array(an) then
      kfs = an -- before Blockbench 3.7 an animator was its keyframe list
    else
      E.object(an, anp, "animator")
      aname = an.name
      atype = an.type
      slerp = an.quaternion_interpolation == true
      kfs = E.absent(an.keyframes) and {} or E.array(an.keyframes, key(anp, "keyframes"), "keyframes")
      if not E.absent(an.keyframes) then anp = key(anp, "keyframes") end
    end
    local effects = id == "effects" or atype == "effect"
    local bone = ctx.by_uuid[id] or ctx.by_name[id] or ctx.by_name[tostring(id):lower()]
    if not bone and type(aname) == "string" then bone = ctx.by_name[aname] or ctx.by_name[aname:lower()] end
    local jname = bone and bone.name or (type(aname) == "string" and aname) or id
    local jwhere = string.format("%s, bone '%s'", where, jname)
    if type(an) == "table" and an.rotation_global == true then
      fail(key(key(ap, id), "rotation_global"),
        "%s: rotation_global is not supported (clip rotations are relative to the parent joint)", jwhere)
    end
    local joint = joints[jname]
    for i, kf in ipairs(kfs) do
      local kp = index(anp, i)
      E.object(kf, kp, "keyframe")
      local ch = kf.channel
      if effects or EFFECT_CHANNELS[ch] then
        if not EFFECT_CHANNELS[ch] then
          fail(key(kp, "channel"), "%s: unknown effect channel %s (expected sound, particle or timeline)",
            where, type(ch) == "string" and ("'" .. ch .. "'") or describe(ch))
        end
        read_effect(kf, kp, where .. ", effects", anim)
      else
        if type(ch) ~= "string" or not CHANNELS[ch] then
          fail(key(kp, "channel"), "%s: unknown channel %s (expected rotation, position or scale)",
            jwhere, type(ch) == "string" and ("'" .. ch .. "'") or describe(ch))
        end
        if not joint then
          joint = { name = jname, channels = {}, rest = bone and bone.rotation or nil }
          joints[jname] = joint
          anim.joints[#anim.joints + 1] = joint
        end
        local chan = joint.channels[ch]
          or { keys = {}, slerp = ch == "rotation" and slerp or nil, where = jwhere .. ", " .. ch }
        joint.channels[ch] = chan
        chan.keys[#chan.keys + 1] = read_keyframe(kf, kp, jwhere, ctx.old)
      end
    end
  end
  for _, j in ipairs(anim.joints) do
    for _, chan in pairs(j.channels) do
      -- Blockbench does not keep keyframes sorted; the stable order keeps
      -- file order between keys at one time
      for i, k in ipairs(chan.keys) do k.order = i end
      table.sort(chan.keys, function(x, y)
        if x.t ~= y.t then return x.t < y.t end
        return x.order < y.order
      end)
    end
  end
  return anim
end

-- doc: the decoded project.  Returns { bones, animations } in the shape
-- blockbench.lua builds clips from.
function M.read(doc)
  local fv = "0"
  if not E.absent(doc.meta) then
    E.object(doc.meta, "meta", "meta")
    if not E.absent(doc.meta.format_version) then
      fv = doc.meta.format_version
      if type(fv) ~= "string" and type(fv) ~= "number" then
        fail(key("meta", "format_version"), "format_version must be a version like \"5.0\", got %s", describe(fv))
      end
    end
  end
  local v = version(fv)
  local ctx = { old = older(v, { 5, 0 }), version = tostring(fv) }
  local bones, by_uuid, by_name = read_bones(doc, older(v, { 3, 2 }))
  ctx.by_uuid, ctx.by_name = by_uuid, by_name
  local out = {}
  if not E.absent(doc.animations) then
    E.array(doc.animations, "animations", "animations")
    local seen = {}
    for i, a in ipairs(doc.animations) do
      local anim = read_animation(a, index("animations", i), ctx)
      if seen[anim.name] then
        fail(key(index("animations", i), "name"), "two animations are named '%s'", anim.name)
      end
      seen[anim.name] = true
      out[#out + 1] = anim
    end
  end
  return { bones = bones, animations = out, old_signs = ctx.old, format_version = ctx.version }
end

return M
