-- import/blockbench/bedrock.lua: reads a Bedrock animation file (*.animation.json, as
-- Blockbench and GeckoLib write it) into the animations init.lua
-- builds clips from.  What each shape means follows Blockbench's importer
-- (js/formats/bedrock/bedrock_animation.js; ../shared/spec/import-notes.md)
-- and, for GeckoLib's dialect, GeckoLib's reader (BakedAnimationsAdapter):
--
--   a channel is [x, y, z] (numbers or Molang strings), one number or
--   string (x = y = z), an object with pre/post (one key at 0), GeckoLib's
--   {"vector": [...]} (one key at 0), or a map from time strings to such
--   values, each possibly {pre, post, lerp_mode} (pre and post themselves
--   arrays or GeckoLib {"vector": ...}) or GeckoLib's {vector, easing,
--   easingArgs}.
--
-- Bedrock's axes differ from Blockbench's internal ones (which the clip
-- uses, see docs/formats.md, "Blockbench and Bedrock"): position x and
-- rotation x and y change sign.  Positions are pixels, 16 to a block.
--
-- Each animation is read by its own function (M.read lists them), so that
-- init.lua can import the others when one cannot be.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local CH = require "anim.import.blockbench.channel"
local molang = require "anim.import.blockbench.molang"
local fields = require "anim.import.blockbench.fields"
local byteorder = require "anim.base.order"
local dot_number = require("anim.base.compat").number

local M = {}

local fail, key, index, describe = E.fail, E.key, E.index, E.describe
-- (a name or value of the file a message quotes: escaped, cut at E.SHOWN bytes)
local shown = E.shown

local AXES = { "x", "y", "z" }
local SIGNS = {
  rotation = { -1, -1, 1 },
  position = { -1 / 16, 1 / 16, 1 / 16 },
  scale = { 1, 1, 1 },
}

local function is_object(v) return type(v) == "table" and (next(v) == nil or not E.is_array(v)) end

-- The raw [x, y, z] of a value: an array, one number or string for all
-- three axes, or GeckoLib's {"vector": ...} (also inside pre and post, as
-- GeckoLib reads them).  Returns it and the path of its array.  Blockbench
-- reads an array's first three entries, an axis it lacks as the channel's
-- default (getKeyframeDataPoints in bedrock_animation.js).
local function raw_point(v, path, where, chan)
  if is_object(v) and v.vector ~= nil then
    path = key(path, "vector")
    v = v.vector
  end
  if type(v) == "number" or type(v) == "string" then return { v, v, v, scalar = true }, path end
  if type(v) == "table" and E.is_array(v) and #v > 0 then
    if #v ~= 3 then
      CH.note(chan, string.format("a value of %d numbers: %s (as Blockbench reads it)", #v,
        #v < 3 and "the axes it lacks read as the channel's default" or "the first three read"))
    end
    return { v[1], v[2], v[3], n = #v }, path
  end
  fail(path, "%s: value must be [x, y, z], a number or a Molang string, got %s", where,
    (type(v) == "table" and E.is_array(v)) and ("an array of " .. #v) or describe(v))
end

local function same_raw(a, b)
  return a[1] == b[1] and a[2] == b[2] and a[3] == b[3]
end

local function point(raw, path, where, channel, chan, env)
  local sg = SIGNS[channel]
  local p = {}
  local dflt = channel == "scale" and 1 or 0
  for a = 1, 3 do
    local ap = raw.scalar and path or index(path, a)
    local v = raw[a]
    if v == nil or E.is_null(v) then v = dflt end -- as an absent field
    p[a] = CH.scale(CH.value(v, ap, where .. " " .. AXES[a], chan, env, dflt), sg[a])
  end
  return p
end

-- A constant easing argument (easingArgs[1]).
local function easing_arg(v, path, where, env)
  if v == nil or E.is_null(v) then return nil end
  if type(v) == "number" and E.finite(v) then return v end
  if type(v) == "string" then
    local e, err = molang.compile(v, env)
    if not e then fail(path, "%s: cannot import Molang %s", where, err) end
    if e.const and E.finite(e.const) and #e.notes == 0 then return e.const end
  end
  fail(path, "%s: easing argument must be a constant number, got %s", where,
    type(v) == "string" and ("'" .. shown(v) .. "'") or describe(v))
end

-- The easing of a key ({easing, easingArgs} of GeckoLib's dialect), or nil.
local function read_easing(v, path, where, ctx, chan)
  if v.easing == nil or E.is_null(v.easing) then return nil end
  E.string(v.easing, key(path, "easing"), "easing")
  local arg
  if v.easingArgs ~= nil and not E.is_null(v.easingArgs) then
    E.array(v.easingArgs, key(path, "easingArgs"), "easingArgs")
    arg = easing_arg(v.easingArgs[1], index(key(path, "easingArgs"), 1), where, ctx.env)
  end
  if ctx.easings.none then
    if v.easing:lower() ~= "linear" then
      CH.note(chan, string.format("easing '%s' not followed (options.easings = \"blockbench\": Blockbench's own"
        .. " importer reads no easing)", shown(v.easing)))
    end
    return nil
  end
  local e = CH.easing(v.easing, arg, ctx.easings, ctx.short_steps)
  if e.refuse then fail(key(path, "easing"), "%s: %s", where, e.refuse) end
  if e.note then CH.note(chan, e.note) end
  e.tool = ctx.easings.name
  return e
end

local LERP = { linear = "linear", catmullrom = "catmullrom" }

-- One key from a value at time t.
local function read_key(v, t, path, where, channel, chan, ctx)
  local env = ctx.env
  local k = { t = t, interp = "linear", path = path }
  if not is_object(v) or v.vector ~= nil then
    local raw, rp = raw_point(v, path, where, chan)
    k.raw_pre, k.raw_post = raw, raw
    k.pre = point(raw, rp, where, channel, chan, env)
    k.post = k.pre
  elseif v.pre ~= nil or v.post ~= nil then
    local pre, pp, post, qp
    if v.pre ~= nil then pre, pp = raw_point(v.pre, key(path, "pre"), where, chan) end
    if v.post ~= nil then post, qp = raw_point(v.post, key(path, "post"), where, chan) end
    k.raw_pre, k.raw_post = pre or post, post or pre
    k.pre = point(k.raw_pre, pp or qp, where, channel, chan, env)
    if pre and post and not same_raw(pre, post) then
      k.two = true
      k.post = point(k.raw_post, qp, where, channel, chan, env)
    else
      k.post = k.pre
    end
  else
    fail(path, "%s: a key must be [x, y, z], a number, a Molang string, {\"pre\", \"post\"} or {\"vector\"}", where)
  end
  if is_object(v) then
    fields.check(v, path, "bedrock_key", ctx)
    local e = read_easing(v, path, where, ctx, chan)
    if e then
      if e.catmull then k.interp = "catmullrom" else k.ease = e end
    end
    if v.lerp_mode ~= nil and not E.is_null(v.lerp_mode) then
      local lm = type(v.lerp_mode) == "string" and LERP[v.lerp_mode]
      if not lm then
        fail(key(path, "lerp_mode"), "%s: unknown lerp_mode %s (expected linear or catmullrom)", where,
          type(v.lerp_mode) == "string" and ("'" .. shown(v.lerp_mode) .. "'") or describe(v.lerp_mode))
      end
      k.interp = lm
    end
  end
  return k
end

-- A channel in any of its shapes; nil when it has no keys.
local function read_channel(v, path, where, channel, ctx)
  local chan = { keys = {}, where = where, path = path }
  local keys = chan.keys
  if is_object(v) and v.vector == nil and v.pre == nil and v.post == nil then
    for ts, kv in pairs(v) do
      local t = type(ts) == "string" and dot_number(ts)
      if not t or not E.finite(t) then
        fail(key(path, ts), "%s: key time must be a number in a string like \"0.5\", got '%s'", where, shown(ts))
      end
      local k = read_key(kv, t, key(path, ts), where, channel, chan, ctx)
      k.text = ts
      keys[#keys + 1] = k
    end
    -- by time; time strings that are the same number ("0.5", "0.50") by
    -- their text, byte-wise: both stay, a jump from the first to the second
    table.sort(keys, function(a, b)
      if a.t ~= b.t then return a.t < b.t end
      return byteorder.less(a.text, b.text)
    end)
  else
    keys[1] = read_key(v, 0, path, where, channel, chan, ctx)
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
  return chan
end

local function truthy(v)
  -- JavaScript's truthiness, as Blockbench reads `loop`
  return not (v == nil or v == false or v == 0 or v == "" or E.is_null(v))
end

-- A Molang field read for a constant (blend_weight, start_delay, ...):
-- the value, and whether it is exact (no stand-in, no time).
local function molang_field(v, path, where, what, env)
  if v == nil or E.is_null(v) or v == "" then return nil end
  if type(v) == "number" then
    if v ~= v then return 0, true end
    return v, E.finite(v)
  end
  if type(v) ~= "string" then
    fail(path, "%s: %s must be a number or a Molang string, got %s", where, what, describe(v))
  end
  if v:match("^%s*$") then return nil end
  local e, err = molang.compile(v, env)
  if not e then fail(path, "%s: cannot import Molang %s", where, err) end
  if e.const then return e.const, #e.notes == 0 and E.finite(e.const) end
  return nil, false
end

local function read_effects(a, path, where, anim, ctx)
  local function entries(field, fn)
    local m = a[field]
    if m == nil or E.is_null(m) then return end
    local fp = key(path, field)
    E.object(m, fp, field)
    local times = {}
    for ts in pairs(m) do
      local t = type(ts) == "string" and dot_number(ts)
      if not t or not E.finite(t) then
        fail(key(fp, ts), "%s: time must be a number in a string like \"0.5\", got '%s'", where, shown(ts))
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
    fields.check(v, p, "sound_effect", ctx)
    anim.sounds[#anim.sounds + 1] = { time = t, sound = E.string(v.effect, key(p, "effect"), "sound effect name") }
  end)
  entries("particle_effects", function(t, v, p)
    E.object(v, p, "particle effect")
    fields.check(v, p, "particle_effect", ctx)
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

-- anim_time_update: nil when it is the default, query.anim_time +
-- query.delta_time in any spelling (q. or query., any case, either order,
-- spaces, parentheses: compared as a tree); else the speed k when it is
-- query.anim_time + query.delta_time * k (k a constant, either order);
-- else false.
local function is_name(node, n) return node.op == "name" and node.name == n end
local function time_update(src)
  local ast = molang.parse(src)
  if not ast or ast.op ~= "bin" or ast.o ~= "+" then return false end
  local a, b = ast.a, ast.b
  if is_name(b, "query.anim_time") then a, b = b, a end
  if not is_name(a, "query.anim_time") then return false end
  if is_name(b, "query.delta_time") then return nil end
  if b.op == "bin" and b.o == "*" then
    local x, y = b.a, b.b
    if is_name(y, "query.delta_time") then x, y = y, x end
    if is_name(x, "query.delta_time") and y.op == "num" and y.v > 0 then return y.v end
  end
  return false
end
M.time_update = time_update
function M.default_time_update(src) return time_update(src) == nil end

-- The fields of an animation that say how its time runs and how much it
-- weighs, the same in a Bedrock file and a .bbmodel: anim_time_update,
-- blend_weight, start_delay and loop_delay.  Sets anim.weight (a constant
-- blend_weight other than 1) and anim.speed; notes (ctx.note) what a clip
-- cannot say, as Blockbench's preview does not either
-- (Animation.time in js/animations/animation.js ignores all but the weight).
function M.read_playback(a, path, where, anim, ctx)
  local atu = a.anim_time_update
  if not E.absent(atu) and atu ~= "" then
    if type(atu) ~= "string" then
      fail(key(path, "anim_time_update"), "%s: anim_time_update must be a Molang string, got %s", where, describe(atu))
    end
    local speed = time_update(atu)
    if speed then
      anim.speed = speed
    elseif speed == false then
      ctx.note(key(path, "anim_time_update"), string.format("%s: anim_time_update '%s' is not followed: the clip's"
        .. " time runs at the animation's speed (as Blockbench previews it)", where, shown(atu)))
    end
  end
  local bw = a.blend_weight
  local w, exact = molang_field(bw, key(path, "blend_weight"), where, "blend_weight", ctx.env)
  if w ~= nil and exact then
    if w < 0 then w = 0 end -- Blockbench clamps it from 0
    if w > 1 then
      ctx.note(key(path, "blend_weight"), string.format("%s: blend_weight %s read as 1 (a joint's weight is at most 1)",
        where, E.num(w)))
      w = 1
    end
    if w ~= 1 then anim.weight = w end
  elseif w ~= nil or exact == false then
    ctx.note(key(path, "blend_weight"), string.format("%s: blend_weight '%s' depends on the game: the clip plays"
      .. " at full weight", where, shown(bw)))
  end
  for _, f in ipairs { "start_delay", "loop_delay" } do
    local d, dexact = molang_field(a[f], key(path, f), where, f, ctx.env)
    if (d ~= nil and d ~= 0) or dexact == false then
      ctx.note(key(path, f), string.format("%s: %s %s is not followed: a clip has no delays (Blockbench's preview"
        .. " ignores it too)", where, f, type(a[f]) == "string" and ("'" .. shown(a[f]) .. "'") or E.num(d)))
    end
  end
end

-- One animation of the file.
local function read_animation(name, a, ctx)
  local path = key("animations", name)
  local where = string.format("animation '%s'", shown(name))
  E.object(a, path, "animation")
  fields.check(a, path, "bedrock_animation", ctx)
  local anim = { name = name, path = path, joints = {}, sounds = {}, events = {} }
  if a.loop == "hold_on_last_frame" then anim.loop = "hold"
  elseif truthy(a.loop) then anim.loop = "loop"
  else anim.loop = "once" end
  if not E.absent(a.animation_length) then
    -- as Blockbench's importer reads it (Merge.number): a number or a
    -- numeric string; anything else leaves the length to the keys
    anim.length = CH.number_field(a.animation_length, key(path, "animation_length"), "animation_length")
    if anim.length == nil then
      ctx.note(key(path, "animation_length"), string.format("%s: animation_length %s is not a number: read as absent"
        .. " (as Blockbench reads it)", where, type(a.animation_length) == "string" and ("'" .. shown(a.animation_length) .. "'")
        or describe(a.animation_length)))
    elseif anim.length < 0 then
      fail(key(path, "animation_length"), "animation_length must be >= 0")
    end
  end
  M.read_playback(a, path, where, anim, ctx)
  if not E.absent(a.bones) then
    local bp = key(path, "bones")
    E.object(a.bones, bp, "bones")
    local bones = {}
    for b in pairs(a.bones) do bones[#bones + 1] = b end
    byteorder.sort(bones)
    for _, bname in ipairs(bones) do
      local b = a.bones[bname]
      local jp = key(bp, bname)
      local jwhere = string.format("%s, bone '%s'", where, shown(bname))
      E.object(b, jp, "bone")
      fields.check(b, jp, "bedrock_bone", ctx)
      if not E.absent(b.relative_to) then
        ctx.note(key(jp, "relative_to"), string.format("%s: relative_to is not followed: the clip's rotations are"
          .. " relative to the parent joint", jwhere))
      end
      local joint = { name = bname, channels = {} }
      for _, ch in ipairs { "rotation", "position", "scale" } do
        if not E.absent(b[ch]) then
          local chan = read_channel(b[ch], key(jp, ch), jwhere .. ", " .. ch, ch, ctx)
          joint.channels[ch] = chan
        end
      end
      anim.joints[#anim.joints + 1] = joint
    end
  end
  read_effects(a, path, where, anim, ctx)
  return anim
end

-- doc: the decoded file.  Returns { animations = { { name, path, read =
-- function() -> anim }, ... } } in the shape init.lua builds clips
-- from; ctx = { env, easings, short_steps, note(path, text) }.
function M.read(doc, ctx)
  if E.absent(doc.animations) then
    if not E.absent(doc.animation_controllers) then
      fail("animation_controllers", "animation controllers are state machines, not animations: nothing to import")
    end
    fail("", "not a Bedrock animation file: no 'animations'")
  end
  E.object(doc.animations, "animations", "animations")
  local names = {}
  for n in pairs(doc.animations) do names[#names + 1] = n end
  byteorder.sort(names)
  local out = {}
  for _, name in ipairs(names) do
    out[#out + 1] = {
      name = name,
      path = key("animations", name),
      read = function() return read_animation(name, doc.animations[name], ctx) end,
    }
  end
  return { animations = out }
end

return M
