-- import/blockbench/bbmodel.lua: reads a Blockbench project (.bbmodel) into the bones and
-- animations init.lua builds clips from (schema and conventions in
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
--
-- Animated Java projects are .bbmodel-shaped; their meta.format_version is
-- Animated Java's version, which decides their signs (M.is_animated_java).
-- Key easings follow the file's tool (the GeckoLib plugin's format:
-- GeckoLib; Animated Java: its own; else Blockbench, which plays none).
-- Groups and animations of one name are told apart with #2, #3...
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local CH = require "anim.import.blockbench.channel"
local bedrock = require "anim.import.blockbench.bedrock"
local known = require "anim.import.blockbench.fields"
local byteorder = require "anim.base.order"
local dot_number = require("anim.base.compat").number

local M = {}

local fail, key, index, describe = E.fail, E.key, E.index, E.describe
-- (a name or value of the file a message quotes: escaped, cut at E.SHOWN bytes)
local shown = E.shown

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

-- [x, y, z] of numbers; a NaN component is 0 (Blockbench writes NaN where
-- it computed one, and reads it back as 0: `value || 0`).
local function vec3(v, path, what, dflt)
  if E.absent(v) then return dflt end
  if type(v) ~= "table" or not E.is_array(v) or #v ~= 3 then
    fail(path, "%s must be [x, y, z], got %s", what,
      (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
  end
  local out = {}
  for i = 1, 3 do
    local x = v[i]
    if type(x) == "number" and x ~= x then x = 0 end
    out[i] = E.number(x, index(path, i), what .. " component")
  end
  return out
end

-- A name as Blockbench's Merge.string reads it: a string, or a number's text.
local function as_name(v)
  if type(v) == "number" and E.finite(v) then return E.num(v) end
  return v
end

-- name#2, name#3...: the first that `taken` does not hold (Blockbench
-- allows two groups or animations of one name; clips need names of their own).
-- The search for a name goes on from where the last one for it stopped
-- (`taken` only grows: the numbers before are still taken), so n names
-- alike cost n tries, not n^2 / 2 (8,000 animations named alike took 4.6 s).
local next_k = setmetatable({}, { __mode = "k" }) -- taken -> name -> next number to try
local function unique(name, taken)
  local from = next_k[taken]
  if not from then from = {}; next_k[taken] = from end
  local k = from[name] or 2
  while taken[name .. "#" .. k] do k = k + 1 end
  from[name] = k + 1
  return name .. "#" .. k
end

-- Bones --------------------------------------------------------------------------------

local function read_bones(doc, old_z, ctx)
  local groups = {}
  if not E.absent(doc.groups) then
    E.array(doc.groups, "groups", "groups")
    for i, g in ipairs(doc.groups) do
      E.object(g, index("groups", i), "group")
      known.near(g, index("groups", i), "group", ctx)
      if type(g.uuid) == "string" then groups[g.uuid] = { g = g, path = index("groups", i) } end
    end
  end
  local bones, by_uuid, by_name, by_lower = {}, {}, {}, {}
  local function walk(list, path, parent)
    E.array(list, path, "outliner children")
    for i, node in ipairs(list) do
      local np = index(path, i)
      if type(node) == "table" then
        known.near(node, np, "group", ctx)
        local g, gp = node, np
        if E.absent(node.name) then
          local entry = type(node.uuid) == "string" and groups[node.uuid]
          if entry then
            g, gp = entry.g, entry.path
          else
            -- an element's entry or a stale one: Blockbench skips it
            ctx.note(np, string.format("outliner entry %s names no group in 'groups': skipped, with what it holds",
              type(node.uuid) == "string" and ("'" .. shown(node.uuid) .. "'") or "without a uuid"))
            g = nil
          end
        end
        if g then
        local name = E.string(as_name(g.name), key(gp, "name"), "group name")
        if by_name[name] then
          -- Blockbench allows it (groups are told apart by uuid); a clip's
          -- joints need names of their own: the later ones get #2, #3...
          local new = unique(name, by_name)
          ctx.note(key(gp, "name"), string.format("two groups are named '%s': this one is joint '%s'", shown(name),
            shown(new)))
          name = new
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
        by_lower[name:lower()] = by_lower[name:lower()] or bone
        if type(g.uuid) == "string" then by_uuid[g.uuid] = bone end
        if not E.absent(node.children) then walk(node.children, key(np, "children"), bone) end
        end
      elseif type(node) ~= "string" then
        fail(np, "outliner entry must be a group or an element uuid, got %s", describe(node))
      end
    end
  end
  if not E.absent(doc.outliner) then walk(doc.outliner, "outliner", nil) end
  return bones, by_uuid, by_name, by_lower
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

-- The easing of a key (the GeckoLib and Animated Java plugins'
-- `easing`/`easingArgs`), as the file's tool reads it (ctx.easings), or
-- nil; a plain Blockbench project plays keys linear whatever they carry.
local function read_easing(kf, path, where, ctx, chan)
  local name = kf.easing
  if E.absent(name) then return nil end
  E.string(name, key(path, "easing"), "easing")
  local arg
  if not E.absent(kf.easingArgs) then
    E.array(kf.easingArgs, key(path, "easingArgs"), "easingArgs")
    local a = kf.easingArgs[1]
    if a ~= nil and not E.is_null(a) then
      if type(a) == "string" then a = dot_number(a) end
      if type(a) ~= "number" or not E.finite(a) then
        fail(index(key(path, "easingArgs"), 1), "%s: easing argument must be a constant number, got %s", where,
          describe(kf.easingArgs[1]))
      end
      arg = a
    end
  end
  if not ctx.easings then
    if name:lower() ~= "linear" then
      CH.note(chan, string.format("easing '%s' not followed: Blockbench plays a %s project's keys without the"
        .. " GeckoLib or Animated Java plugin's easings (options.easings picks one)", shown(name),
        shown(ctx.model_format or "plain")))
    end
    return nil
  end
  local e = CH.easing(name, arg, ctx.easings, ctx.short_steps)
  if e.refuse then fail(key(path, "easing"), "%s: %s", where, e.refuse) end
  if e.note then CH.note(chan, e.note) end
  if e.catmull or (e.exact and e.exact[1] == "linear") then return nil end
  e.tool = ctx.easings.name
  return e
end

-- A keyframe's time: a number, or a string that is one (Merge.number).
local function key_time(kf, path)
  local t = CH.number_field(kf.time, key(path, "time"), "time")
  if t == nil then return E.number(kf.time, key(path, "time"), "time") end
  return t
end

local function read_keyframe(kf, path, where, ctx, chan)
  local ch = kf.channel
  local t = key_time(kf, path)
  local interp = "linear"
  if not E.absent(kf.interpolation) then
    interp = kf.interpolation
    if type(interp) ~= "string" or not INTERPS[interp] then
      fail(key(path, "interpolation"), "%s: unknown interpolation %s (expected linear, catmullrom, bezier or step)",
        where, type(interp) == "string" and ("'" .. shown(interp) .. "'") or describe(interp))
    end
  end
  local dps = E.absent(kf.data_points) and {} or E.array(kf.data_points, key(path, "data_points"), "data_points")
  if #dps > 2 then
    -- Blockbench keeps them all and plays the first and the last
    CH.note(chan, string.format("a keyframe at %s s has %d data points: the first and the last are played"
      .. " (as Blockbench plays them)", E.num(t), #dps))
  end
  local f = factors(ch, ctx.old)
  local dflt = ch == "scale" and 1 or 0
  local points = {}
  for i, dp in ipairs(#dps > 0 and dps or { {} }) do
    if i == 1 or i == #dps then
      local dpp = index(key(path, "data_points"), i)
      E.object(dp, dpp, "data point")
      known.check(dp, dpp, "data_point", ctx)
      local p = {}
      for a = 1, 3 do
        local raw = dp[AXES[a]]
        if E.absent(raw) then raw = dflt end
        p[a] = CH.scale(CH.value(raw, key(dpp, AXES[a]), where .. ", " .. ch .. " " .. AXES[a], chan, ctx.env, dflt), f[a])
      end
      -- `uniform` is an editor flag: Blockbench plays the stored x, y and z
      -- (Keyframe.extend drops the flag when they differ; calc reads each axis)
      points[#points + 1] = p
    end
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
  k.ease = read_easing(kf, path, where, ctx, chan)
  return k
end

-- A data point's fields that an event payload can hold (strings, numbers,
-- booleans): the payload of keys of channels other than the ones below.
local function fields(dp)
  local out = {}
  for k, v in pairs(dp) do
    if type(k) == "string" and (type(v) == "string" or type(v) == "boolean" or (type(v) == "number" and E.finite(v))) then
      out[k] = v
    end
  end
  return out
end

local function read_effect(kf, path, where, anim, bone_name)
  local t = key_time(kf, path)
  local dps = E.absent(kf.data_points) and {} or E.array(kf.data_points, key(path, "data_points"), "data_points")
  local ch = kf.channel
  for i, dp in ipairs(dps) do
    local dpp = index(key(path, "data_points"), i)
    E.object(dp, dpp, "data point")
    local function opt(f)
      local v = dp[f]
      if E.absent(v) then return nil end
      return E.string(v, key(dpp, f), f)
    end
    if ch == "sound" then
      local effect, file = opt("effect"), opt("file")
      if (effect or "") == "" and (file or "") == "" then
        fail(dpp, "%s: a sound keyframe needs an 'effect' (or a 'file')", where)
      end
      anim.sounds[#anim.sounds + 1] = { time = t, sound = (effect or "") ~= "" and effect or file }
    elseif ch == "particle" then
      -- every field the data point has, as the Bedrock reader keeps its own
      -- (bind_to_actor as written: a Bedrock file's is a boolean)
      local payload = {}
      for _, f in ipairs { "effect", "locator", "script", "file" } do payload[f] = opt(f) end
      if not E.absent(dp.bind_to_actor) then payload.bind_to_actor = dp.bind_to_actor end
      anim.events[#anim.events + 1] = { time = t, name = "particle", payload = payload }
    elseif ch == "timeline" then
      anim.events[#anim.events + 1] = { time = t, name = "timeline", payload = { script = opt("script") or "" } }
    else
      -- another tool's channel (Animated Java's variant, function and
      -- commands keys): an event named after it, with the data point's fields
      local payload = fields(dp)
      if bone_name then payload.bone = bone_name end
      anim.events[#anim.events + 1] = { time = t, name = ch, payload = payload }
    end
  end
end

-- Animations --------------------------------------------------------------------------

local LOOPS = { once = "once", loop = "loop", hold = "hold" }

local function read_animation(a, path, ctx)
  local name = a.name
  local where = string.format("animation '%s'", shown(name))
  local anim = { name = name, path = path, joints = {}, sounds = {}, events = {} }
  known.check(a, path, "animation", ctx)
  anim.loop = type(a.loop) == "string" and LOOPS[a.loop] or "once" -- Blockbench ignores anything else
  if not E.absent(a.length) then
    -- Merge.number: a number or a numeric string; anything else leaves
    -- the length to the keys
    anim.length = CH.number_field(a.length, key(path, "length"), "length")
    if anim.length == nil then
      ctx.note(key(path, "length"), string.format("%s: length %s is not a number: read as absent (as Blockbench reads it)",
        where, type(a.length) == "string" and ("'" .. shown(a.length) .. "'") or describe(a.length)))
    elseif anim.length < 0 then
      fail(key(path, "length"), "length must be >= 0")
    end
  end
  -- anim_time_update, blend_weight, start_delay, loop_delay: as in a Bedrock file
  bedrock.read_playback(a, path, where, anim, ctx)
  local field = E.absent(a.animators) and "bones" or "animators"
  local animators = a[field]
  if E.absent(animators) then return anim end
  local ap = key(path, field)
  E.object(animators, ap, field)
  local ids = {}
  for id in pairs(animators) do ids[#ids + 1] = id end
  byteorder.sort(ids)
  local joints = {}
  for _, id in ipairs(ids) do
    local an = animators[id]
    local anp = key(ap, id)
    local kfs, aname, atype, slerp
    if type(an) == "table" and E.is_array(an) then
      kfs = an -- before Blockbench 3.7 an animator was its keyframe list
    else
      E.object(an, anp, "animator")
      known.check(an, anp, "animator", ctx)
      aname = an.name
      atype = an.type
      slerp = an.quaternion_interpolation == true
      kfs = E.absent(an.keyframes) and {} or E.array(an.keyframes, key(anp, "keyframes"), "keyframes")
      if not E.absent(an.keyframes) then anp = key(anp, "keyframes") end
    end
    local effects = id == "effects" or atype == "effect"
    local bone = ctx.by_uuid[id] or ctx.by_name[id] or ctx.by_lower[tostring(id):lower()]
    if not bone and type(aname) == "string" then bone = ctx.by_name[aname] or ctx.by_lower[aname:lower()] end
    local jname = bone and bone.name or (type(aname) == "string" and aname) or id
    local jwhere = string.format("%s, bone '%s'", where, shown(jname))
    if type(an) == "table" and an.rotation_global == true then
      ctx.note(key(key(ap, id), "rotation_global"), string.format("%s: rotation_global is not followed: the clip's"
        .. " rotations are relative to the parent joint", jwhere))
    end
    local joint = joints[jname]
    for i, kf in ipairs(kfs) do
      local kp = index(anp, i)
      E.object(kf, kp, "keyframe")
      known.check(kf, kp, "keyframe", ctx)
      local ch = kf.channel
      if type(ch) ~= "string" then
        fail(key(kp, "channel"), "%s: channel must be a string, got %s", effects and where or jwhere, describe(ch))
      end
      if effects or not CHANNELS[ch] then
        read_effect(kf, kp, where .. ", effects", anim, not effects and jname or nil)
      else
        if not joint then
          joint = { name = jname, channels = {}, rest = bone and bone.rotation or nil }
          joints[jname] = joint
          anim.joints[#anim.joints + 1] = joint
        end
        local chan = joint.channels[ch]
        if not chan then
          chan = { keys = {}, slerp = ch == "rotation" and slerp or nil, where = jwhere .. ", " .. ch,
            path = anp, ease_linear = true }
          joint.channels[ch] = chan
        end
        chan.keys[#chan.keys + 1] = read_keyframe(kf, kp, jwhere, ctx, chan)
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

-- Animated Java projects (.ajblueprint, .ajmodel): meta.format names them;
-- their meta.format_version is Animated Java's version, and from
-- 1.10.0-beta.1 on their values are in Blockbench 5's signs
-- (src/formats/blueprint/versions/1.10.0-beta.1.ts inverts them).
local AJ_FORMATS = {
  animated_java_blueprint = true, ["animated-java:format/blueprint"] = true,
  ["animated_java/ajmodel"] = true, ["animatedJava/ajmodel"] = true,
}
function M.is_animated_java(doc)
  local meta = type(doc.meta) == "table" and doc.meta or {}
  return AJ_FORMATS[meta.format] == true or AJ_FORMATS[meta.model_format] == true or type(doc.blueprint_settings) == "table"
    or type(doc.animated_java) == "table"
end

-- The GeckoLib plugin's formats (its `geckolib_model`, formerly `animated_entity_model`).
local GECKOLIB_FORMATS = { animated_entity_model = true, geckolib_model = true }

-- doc: the decoded project; ctx = { env, options, note(path, text) }.
-- Returns { bones, animations = { { name, path, read = function() -> anim } } }
-- in the shape init.lua builds clips from.
function M.read(doc, ctx)
  known.near(doc, "", "project", ctx)
  local fv = "0"
  local meta = {}
  if not E.absent(doc.meta) then
    if type(doc.meta) ~= "table" or E.is_array(doc.meta) then
      ctx.note("meta", "meta must be an object, got " .. describe(doc.meta) .. ": read as absent (format before 5.0)")
    else
      meta = doc.meta
      known.near(meta, "meta", "meta", ctx)
    end
    if not E.absent(meta.format_version) then
      fv = meta.format_version
      if type(fv) ~= "string" and type(fv) ~= "number" then
        ctx.note(key("meta", "format_version"), "format_version must be a version like \"5.0\", got "
          .. describe(fv) .. ": read as before 5.0")
        fv = "0"
      end
    end
  end
  local v = version(fv)
  local aj = M.is_animated_java(doc)
  ctx.animated_java = aj
  if aj then
    -- Animated Java's version: Blockbench 5's signs from 1.10.0 (its beta.1)
    ctx.old = older({ v[1] or 0, v[2] or 0, v[3] or 0 }, { 1, 10, 0 })
    if type(fv) == "string" and #fv == 3 then ctx.old = true end -- the old .ajmodel versions ("1.4")
  else
    ctx.old = older(v, { 5, 0 })
  end
  ctx.version = tostring(fv)
  ctx.model_format = type(meta.model_format) == "string" and meta.model_format or nil
  local tool = ctx.options.easings
  if tool == nil then
    if aj then tool = "animated_java"
    elseif GECKOLIB_FORMATS[ctx.model_format] then tool = "geckolib" end
  end
  if tool == "geckolib" and ctx.options.geckolib == 3 then tool = "geckolib3" end
  ctx.easings = tool and tool ~= "blockbench" and CH.EASING_RULES[tool] or nil
  -- a hierarchy that cannot be read leaves the clips without a skeleton
  -- (animators keyed by bone name still find their joints)
  local ok, bones, by_uuid, by_name, by_lower = pcall(read_bones, doc, not aj and older(v, { 3, 2 }), ctx)
  if not ok then
    if not E.is_failure(bones) then error(bones, 0) end
    ctx.note(bones.path, bones.msg .. " (the bone hierarchy cannot be read: the clips have no skeleton)")
    bones, by_uuid, by_name, by_lower = {}, {}, {}, {}
  end
  ctx.by_uuid, ctx.by_name, ctx.by_lower = by_uuid, by_name, by_lower
  local out = {}
  if not E.absent(doc.animations) then
    E.array(doc.animations, "animations", "animations")
    local seen = {}
    for i, a in ipairs(doc.animations) do
      local path = index("animations", i)
      local entry = { path = path }
      if type(a) ~= "table" or E.is_array(a) then
        entry.read = function() E.object(a, path, "animation") end
        entry.name = nil
      elseif type(as_name(a.name)) ~= "string" then
        entry.read = function() E.string(a.name, key(path, "name"), "animation name") end
      else
        local name = as_name(a.name)
        if seen[name] then
          -- Blockbench allows it; clips are by name: the later ones get #2...
          local new = unique(name, seen)
          ctx.note(key(path, "name"), string.format("two animations are named '%s': this one is '%s'", shown(name),
            shown(new)))
          name = new
        end
        seen[name] = true
        entry.name = name
        entry.read = function()
          local anim = read_animation(a, path, ctx)
          anim.name = name
          return anim
        end
      end
      out[#out + 1] = entry
    end
  end
  return { bones = bones, animations = out, old_signs = ctx.old, format_version = ctx.version }
end

return M
