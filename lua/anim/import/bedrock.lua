-- bedrock.lua: reads a Bedrock animation file (*.animation.json, as
-- Blockbench and GeckoLib write it) into the animations blockbench.lua
-- builds clips from.  What each shape means follows Blockbench's importer
-- (js/formats/bedrock/bedrock_animation.js; ../shared/spec/import-notes.md):
--
--   a channel is [x, y, z] (numbers or Molang strings), one number or
--   string (x = y = z), an object with pre/post (one key at 0), GeckoLib's
--   {"vector": [...]} (one key at 0), or a map from time strings to such
--   values, each possibly {pre, post, lerp_mode} or GeckoLib's
--   {vector, easing, easingArgs}.
--
-- Bedrock's axes differ from Blockbench's internal ones (which the clip
-- uses, see docs/formats.md, "Blockbench and Bedrock"): position x and rotation x and y
-- change sign.  Positions are pixels, 16 to a block.
local E = require "anim.base.errors"
local CH = require "anim.import.bbchannel"
local molang = require "anim.import.molang"

local M = {}

local fail, key, index, describe = E.fail, E.key, E.index, E.describe

local AXES = { "x", "y", "z" }
local SIGNS = {
  rotation = { -1, -1, 1 },
  position = { -1 / 16, 1 / 16, 1 / 16 },
  scale = { 1, 1, 1 },
}

local function is_object(v) return type(v) == "table" and (next(v) == nil or not E.is_array(v)) end

-- The raw [x, y, z] of a value: an array of three, or one number or string
-- for all three axes.
local function raw_point(v, path, where)
  if type(v) == "number" or type(v) == "string" then return { v, v, v, scalar = true } end
  if type(v) == "table" and E.is_array(v) and #v == 3 then return v end
  fail(path, "%s: value must be [x, y, z], a number or a Molang string, got %s", where,
    (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
end

local function same_raw(a, b)
  return a[1] == b[1] and a[2] == b[2] and a[3] == b[3]
end

local function point(raw, path, where, channel)
  local sg = SIGNS[channel]
  local p = {}
  for a = 1, 3 do
    local ap = raw.scalar and path or index(path, a)
    p[a] = CH.scale(CH.value(raw[a], ap, where .. " " .. AXES[a]), sg[a])
  end
  return p
end

-- A constant easing argument (GeckoLib's easingArgs[1]).
local function easing_arg(v, path, where)
  if v == nil or E.is_null(v) then return nil end
  if type(v) == "number" and E.finite(v) then return v end
  if type(v) == "string" then
    local e, err = molang.compile(v)
    if not e then fail(path, "%s: cannot import Molang %s", where, err) end
    if e.const and E.finite(e.const) then return e.const end
  end
  fail(path, "%s: easing argument must be a constant number, got %s", where,
    type(v) == "string" and ("'" .. v .. "'") or describe(v))
end

local LERP = { linear = "linear", catmullrom = "catmullrom" }

-- One key from a value at time t.
local function read_key(v, t, path, where, channel)
  local k = { t = t, interp = "linear", path = path }
  if not is_object(v) then
    local raw = raw_point(v, path, where)
    k.raw_pre, k.raw_post = raw, raw
    k.pre = point(raw, path, where, channel)
    k.post = k.pre
    return k
  end
  if v.vector ~= nil then
    local raw = raw_point(v.vector, key(path, "vector"), where)
    k.raw_pre, k.raw_post = raw, raw
    k.pre = point(raw, key(path, "vector"), where, channel)
    k.post = k.pre
    if v.easing ~= nil and not E.is_null(v.easing) then
      E.string(v.easing, key(path, "easing"), "easing")
      local arg
      if v.easingArgs ~= nil and not E.is_null(v.easingArgs) then
        E.array(v.easingArgs, key(path, "easingArgs"), "easingArgs")
        arg = easing_arg(v.easingArgs[1], index(key(path, "easingArgs"), 1), where)
      end
      local e = CH.easing(v.easing, arg)
      if e.catmull then k.interp = "catmullrom" else k.ease = e end
    end
  elseif v.pre ~= nil or v.post ~= nil then
    local pre = v.pre ~= nil and raw_point(v.pre, key(path, "pre"), where) or nil
    local post = v.post ~= nil and raw_point(v.post, key(path, "post"), where) or nil
    k.raw_pre, k.raw_post = pre or post, post or pre
    k.pre = point(k.raw_pre, key(path, pre and "pre" or "post"), where, channel)
    if pre and post and not same_raw(pre, post) then
      k.two = true
      k.post = point(k.raw_post, key(path, "post"), where, channel)
    else
      k.post = k.pre
    end
  else
    fail(path, "%s: a key must be [x, y, z], a number, a Molang string, {\"pre\", \"post\"} or {\"vector\"}", where)
  end
  if v.lerp_mode ~= nil and not E.is_null(v.lerp_mode) then
    local lm = type(v.lerp_mode) == "string" and LERP[v.lerp_mode]
    if not lm then
      fail(key(path, "lerp_mode"), "%s: unknown lerp_mode %s (expected linear or catmullrom)", where,
        type(v.lerp_mode) == "string" and ("'" .. v.lerp_mode .. "'") or describe(v.lerp_mode))
    end
    k.interp = lm
  end
  return k
end

-- A channel in any of its shapes; nil when it has no keys.
local function read_channel(v, path, where, channel)
  local keys = {}
  if is_object(v) and v.vector == nil and v.pre == nil and v.post == nil then
    for ts, kv in pairs(v) do
      local t = type(ts) == "string" and tonumber(ts)
      if not t or not E.finite(t) then
        fail(key(path, ts), "%s: key time must be a number in a string like \"0.5\", got '%s'", where, tostring(ts))
      end
      local k = read_key(kv, t, key(path, ts), where, channel)
      k.text = ts
      keys[#keys + 1] = k
    end
    -- by time; time strings that are the same number ("0.5", "0.50") by
    -- their text, byte-wise: both stay, a jump from the first to the second
    table.sort(keys, function(a, b)
      if a.t ~= b.t then return a.t < b.t end
      return a.text < b.text
    end)
  else
    keys[1] = read_key(v, 0, path, where, channel)
  end
  if #keys == 0 then return nil end
  -- Step detection (Bedrock has no step): a key whose pre is the previous
  -- key's post is how Blockbench exports a step before it.
  for i = 1, #keys - 1 do
    local a, b = keys[i], keys[i + 1]
    if b.two and same_raw(a.raw_post, b.raw_pre) then
      a.interp = "step"
      b.two, b.pre, b.raw_pre = nil, b.post, b.raw_post
    end
  end
  return { keys = keys, where = where }
end

local function truthy(v)
  -- JavaScript's truthiness, as Blockbench reads `loop`
  return not (v == nil or v == false or v == 0 or v == "" or E.is_null(v))
end

-- A Molang field that must be empty or a constant (start_delay, ...).
local function const_field(v, path, where, what)
  if v == nil or E.is_null(v) or v == "" then return nil end
  local e
  if type(v) == "number" then e = { const = v }
  elseif type(v) == "string" then e = molang.compile(v) end
  if e and e.const and E.finite(e.const) then return e.const end
  fail(path, "%s: %s must be a constant, got %s", where, what,
    type(v) == "string" and ("'" .. v .. "'") or describe(v))
end

local function read_effects(a, path, where, anim)
  local function entries(field, fn)
    local m = a[field]
    if m == nil or E.is_null(m) then return end
    local fp = key(path, field)
    E.object(m, fp, field)
    local times = {}
    for ts in pairs(m) do
      local t = type(ts) == "string" and tonumber(ts)
      if not t or not E.finite(t) then
        fail(key(fp, ts), "%s: time must be a number in a string like \"0.5\", got '%s'", where, tostring(ts))
      end
      times[#times + 1] = { t, ts }
    end
    -- by time, then by the time string (as the keys of a channel)
    table.sort(times, function(x, y)
      if x[1] ~= y[1] then return x[1] < y[1] end
      return x[2] < y[2]
    end)
    for _, tt in ipairs(times) do
      local v, ep = m[tt[2]], key(fp, tt[2])
      if type(v) == "table" and E.is_array(v) and #v > 0 then
        for i, x in ipairs(v) do fn(tt[1], x, index(ep, i)) end
      else
        fn(tt[1], v, ep)
      end
    end
  end
  entries("sound_effects", function(t, v, p)
    E.object(v, p, "sound effect")
    anim.sounds[#anim.sounds + 1] = { time = t, sound = E.string(v.effect, key(p, "effect"), "sound effect name") }
  end)
  entries("particle_effects", function(t, v, p)
    E.object(v, p, "particle effect")
    local payload = { effect = E.string(v.effect, key(p, "effect"), "particle effect name") }
    for _, f in ipairs { "locator", "pre_effect_script", "bind_to_actor" } do
      if v[f] ~= nil and not E.is_null(v[f]) then payload[f] = v[f] end
    end
    anim.events[#anim.events + 1] = { time = t, name = "particle", payload = payload }
  end)
  entries("timeline", function(t, v, p)
    anim.events[#anim.events + 1] = {
      time = t, name = "timeline", payload = { script = E.string(v, p, "timeline script") },
    }
  end)
end

-- Is src the default anim_time_update, query.anim_time + query.delta_time,
-- in any of its spellings (q. or query., any case, either order, spaces,
-- parentheses)?  Read with the Molang parser and compared as a tree.
local TIME_UPDATE_TERMS = {
  ["query.anim_time"] = "anim", ["q.anim_time"] = "anim",
  ["query.delta_time"] = "delta", ["q.delta_time"] = "delta",
}
local function default_time_update(src)
  local ast = molang.parse(src)
  if not ast or ast.op ~= "bin" or ast.o ~= "+" or ast.a.op ~= "name" or ast.b.op ~= "name" then return false end
  local a, b = TIME_UPDATE_TERMS[ast.a.name], TIME_UPDATE_TERMS[ast.b.name]
  return (a == "anim" and b == "delta") or (a == "delta" and b == "anim")
end
M.default_time_update = default_time_update

-- The fields of an animation that say how its time runs and how much it
-- weighs, the same in a Bedrock file and a .bbmodel: anim_time_update,
-- blend_weight, start_delay and loop_delay.  Sets anim.weight (a constant
-- blend_weight other than 1); refuses what a clip cannot say.
function M.read_playback(a, path, where, anim)
  local atu = a.anim_time_update
  if not E.absent(atu) and atu ~= "" then
    if type(atu) ~= "string" or not default_time_update(atu) then
      fail(key(path, "anim_time_update"), "%s: anim_time_update %s is not supported (a clip's time runs at the animation's speed)",
        where, type(atu) == "string" and ("'" .. atu .. "'") or describe(atu))
    end
  end
  local w = const_field(a.blend_weight, key(path, "blend_weight"), where, "blend_weight")
  if w and (w < 0 or w > 1) then
    fail(key(path, "blend_weight"), "%s: blend_weight must be between 0 and 1, got %s", where, E.num(w))
  end
  if w and w ~= 1 then anim.weight = w end
  for _, f in ipairs { "start_delay", "loop_delay" } do
    local d = const_field(a[f], key(path, f), where, f)
    if d and d ~= 0 then
      fail(key(path, f), "%s: %s is not supported (a clip has no delays), got %s", where, f, E.num(d))
    end
  end
end

-- doc: the decoded file.  Returns { animations = { anim, ... } } in the
-- shape blockbench.lua builds clips from.
function M.read(doc)
  if E.absent(doc.animations) then
    if not E.absent(doc.animation_controllers) then
      fail("animation_controllers", "animation controllers are state machines, not animations: nothing to import")
    end
    fail("", "not a Bedrock animation file: no 'animations'")
  end
  E.object(doc.animations, "animations", "animations")
  local names = {}
  for n in pairs(doc.animations) do names[#names + 1] = n end
  table.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    local a = doc.animations[name]
    local path = key("animations", name)
    local where = string.format("animation '%s'", name)
    E.object(a, path, "animation")
    local anim = { name = name, path = path, joints = {}, sounds = {}, events = {} }
    if a.loop == "hold_on_last_frame" then anim.loop = "hold"
    elseif truthy(a.loop) then anim.loop = "loop"
    else anim.loop = "once" end
    if not E.absent(a.animation_length) then
      anim.length = E.number(a.animation_length, key(path, "animation_length"), "animation_length")
      if anim.length < 0 then fail(key(path, "animation_length"), "animation_length must be >= 0") end
    end
    M.read_playback(a, path, where, anim)
    if not E.absent(a.bones) then
      local bp = key(path, "bones")
      E.object(a.bones, bp, "bones")
      local bones = {}
      for b in pairs(a.bones) do bones[#bones + 1] = b end
      table.sort(bones)
      for _, bname in ipairs(bones) do
        local b = a.bones[bname]
        local jp = key(bp, bname)
        local jwhere = string.format("%s, bone '%s'", where, bname)
        E.object(b, jp, "bone")
        if not E.absent(b.relative_to) then
          fail(key(jp, "relative_to"), "%s: relative_to is not supported (clip rotations are relative to the parent joint)", jwhere)
        end
        local joint = { name = bname, channels = {} }
        for _, ch in ipairs { "rotation", "position", "scale" } do
          if not E.absent(b[ch]) then
            joint.channels[ch] = read_channel(b[ch], key(jp, ch), jwhere .. ", " .. ch, ch)
          end
        end
        anim.joints[#anim.joints + 1] = joint
      end
    end
    read_effects(a, path, where, anim)
    out[#out + 1] = anim
  end
  return { animations = out }
end

return M
