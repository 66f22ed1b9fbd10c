-- import/blockbench/init.lua: imports Blockbench projects (.bbmodel), Animated Java
-- projects (.ajblueprint, .ajmodel) and Bedrock animation files
-- (*.animation.json, GeckoLib's dialect included) as clips, one per
-- animation (anim.import_blockbench / decode_blockbench).
--
-- bbmodel.lua and bedrock.lua read the kinds of file into the same shape,
-- one function per animation; this file runs each inside a pcall, so that
-- an animation that cannot be imported becomes a warning and the others
-- are imported all the same; it decides each clip's length, converts every
-- channel (channel.lua), adds the skeleton, sounds and events, and builds
-- the clip from a version 3 table -- the table anim.encode writes back out.
-- What cannot be said exactly is baked (bake.lua) and the clip's
-- info.approx says so: { bound, note, seam }.  The budgets of a file
-- (anim.limits keys, animations, bake_samples, molang_work) live in the
-- decode's context and are shared by all its animations.
-- docs/formats.md ("Blockbench and Bedrock") lists every rule.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local args = require "anim.base.args"
local suggest = require "anim.base.suggest"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local rigmod = require "anim.format.rig"
local molang = require "anim.import.blockbench.molang"
local bake = require "anim.import.blockbench.bake"
local CH = require "anim.import.blockbench.channel"
local bbmodel = require "anim.import.blockbench.bbmodel"
local bedrock = require "anim.import.blockbench.bedrock"
local limits = require "anim.base.limits"
local byteorder = require "anim.base.order"

local M = {}

-- The longest span an animation without a length is baked over.
M.MAX_SPAN = 10

local CHANNELS = { "position", "rotation", "scale" }

local function each_value(anim, fn)
  for _, j in ipairs(anim.joints) do
    for _, ch in ipairs(CHANNELS) do
      local chan = j.channels[ch]
      if chan then
        for _, k in ipairs(chan.keys) do
          for _, p in ipairs { k.pre, k.post } do
            for a = 1, 3 do fn(p[a], k.t) end
          end
        end
      end
    end
  end
end

-- The clip's length, and how it was chosen when the file gives none.
local function length_of(anim)
  if anim.length then return anim.length, nil end
  local last, list, repeats, moves = 0, {}, true, false
  each_value(anim, function(e, t)
    if t > last then last = t end
    if e.f then
      moves = true
      if e.periods then
        for _, p in ipairs(e.periods) do list[#list + 1] = p end
      else
        repeats = false
      end
    end
  end)
  for _, s in ipairs(anim.sounds) do last = math.max(last, s.time) end
  for _, ev in ipairs(anim.events) do last = math.max(last, ev.time) end
  if not moves then return last, nil end
  -- Molang of query.anim_time and no length: the shortest span after which
  -- every expression repeats (and that holds every key), else MAX_SPAN.
  local p = repeats and molang.common_period(list, M.MAX_SPAN)
  if p then
    local span = p * math.max(1, math.ceil(last / p - 1e-9))
    if span <= M.MAX_SPAN * (1 + 1e-12) then return span, { period = p } end
  end
  return math.max(M.MAX_SPAN, last), { fallback = true }
end

local function dist(a, b)
  return math.max(math.abs(a[1] - b[1]), math.abs(a[2] - b[2]), math.abs(a[3] - b[3]))
end

-- The skeleton of a file's bones (a table of its own for each clip), and
-- their names in the file's order (parents first).
local function skeleton_of(bones)
  local sk, order = {}, {}
  for i, b in ipairs(bones) do
    sk[b.name] = {
      parent = b.parent,
      position = { b.origin[1] / 16, b.origin[2] / 16, b.origin[3] / 16 },
      rotation = CH.quat_zyx(b.rotation),
    }
    order[i] = b.name
  end
  return sk, order
end

-- The rigs of a file: { [model name] = rig } for a project's bones (the
-- name its `name` field gives, else the file's name without folder and
-- extension), {} for a file without bones (a Bedrock animation file holds
-- no geometry).  Bones that make no rig (more than anim.limits.joints, as
-- for the clips' skeletons; a name with a NUL byte) are a warning.
local function rigs_of(doc, file, name, warnings)
  local rigs = {}
  if not (file.bones and #file.bones > 0) then return rigs end
  local model = type(doc.name) == "string" and doc.name ~= "" and doc.name
    or ((name:match("([^/\\]+)$") or name):gsub("%.[^.]*$", ""))
  if model == "" then model = "model" end
  if #file.bones > limits.current.joints then
    -- (as the clips' skeletons: the groups past the limit make neither)
    warnings[#warnings + 1] = { channel = "outliner", message = string.format("the bones make no rig: too many"
      .. " groups (%d; at most %d, anim.limits.joints)", #file.bones, limits.current.joints) }
    return rigs
  end
  local sk, order = skeleton_of(file.bones)
  local ok, rig = pcall(rigmod.from_skeleton, sk, model, order)
  if ok then
    rigs[model] = rig
  elseif E.is_failure(rig) then
    warnings[#warnings + 1] = { channel = "outliner", message = "the bones make no rig: "
      .. (E.message("", rig):gsub("^: ", "")) }
  else
    error(rig, 0)
  end
  return rigs
end

local function build(anim, file, rig, ctx)
  local length, chosen = length_of(anim)
  local t = { version = 3, length = length, loop = anim.loop, euler = "zyx", rig = rig, joints = {} }
  if anim.speed then t.speed = anim.speed end
  local notes, baked, err, seam = {}, false, 0, nil
  local total = 0
  for _, j in ipairs(anim.joints) do
    local jt, any = {}, false
    for _, ch in ipairs(CHANNELS) do
      local chan = j.channels[ch]
      if chan and #chan.keys > 0 then
        any = true
        -- baking shares what anim.limits.keys leaves among the channels of
        -- the file's clips: the file, not each clip, stays within it
        local keys, rep = CH.convert(chan, {
          length = length, loop = anim.loop, rest = ch == "rotation" and j.rest or nil,
          keys_left = ctx.keys_left - total, samples = ctx.samples,
        })
        total = total + #keys
        jt[ch] = keys
        if rep.baked then
          baked = true
          err = math.max(err, rep.err)
          local reasons = {}
          for r in pairs(rep.reasons) do reasons[#reasons + 1] = r end
          byteorder.sort(reasons)
          notes[#notes + 1] = string.format("%s.%s baked for %s%s at %s keys/s (measured error %s)",
            E.shown(j.name), ch, table.concat(reasons, ", "), rep.quat and " as quaternions" or "",
            E.numtext("%.4g", rep.rate), E.numtext("%.2g", rep.err))
        end
        if chosen and chosen.fallback then
          -- where the span ends against where it starts: the jump a loop shows
          seam = math.max(seam or 0, dist(CH.evaluate(chan, length, anim.loop), CH.evaluate(chan, 0, anim.loop)))
        end
      end
      if chan and chan.notes then
        for _, n in ipairs(chan.notes) do ctx.note(chan.path, chan.where .. ": " .. n) end
      end
    end
    if any then
      if anim.weight then jt.weight = anim.weight end
      t.joints[j.name] = jt
    end
  end
  if total > ctx.keys_left then
    E.fail(anim.path or "", "animation '%s': its clip would have %d keys, more than the %d the file's clips may still"
      .. " have (anim.limits.keys is %d for a file; anim.set_limits raises it)", E.shown(anim.name), total, ctx.keys_left,
      limits.current.keys)
  end
  -- timed items by time; at one time in the order read
  for _, list in ipairs { anim.sounds, anim.events } do
    for i, x in ipairs(list) do x.order = i end
    table.sort(list, function(a, b)
      if a.time ~= b.time then return a.time < b.time end
      return a.order < b.order
    end)
    for _, x in ipairs(list) do x.order = nil end
  end
  if #anim.sounds > 0 then t.sounds = anim.sounds end
  if #anim.events > 0 then t.events = anim.events end
  if file.bones and #file.bones > 0 then t.skeleton = skeleton_of(file.bones) end
  -- the clip's table is made here, not read: a failure in it (a limit:
  -- too many joints, timed items...) is reported at the animation
  local ok, clip = pcall(clipmod.build, t, anim.name, true)
  if not ok then
    if not E.is_failure(clip) then error(clip, 0) end
    E.fail(anim.path or "", "the clip made of animation '%s': %s", E.shown(anim.name),
      (E.message("", clip):gsub("^: ", "")))
  end
  ctx.keys_left = ctx.keys_left - total
  if chosen and chosen.fallback then
    notes[#notes + 1] = string.format(
      "no animation length and the Molang does not repeat within %s s: baked over %s s, where the loop seam jumps by up to %s",
      E.numtext("%g", M.MAX_SPAN), E.numtext("%g", length), E.numtext("%.4g", seam))
  elseif chosen then
    notes[#notes + 1] = string.format("no animation length: %s s, a whole number of every sin/cos period", E.numtext("%.6g", length))
  end
  if baked or (chosen and chosen.fallback) then
    clipmod.info(clip).approx = {
      bound = bake.BOUND,
      note = table.concat(notes, "; "),
      seam = seam,
      err = err,
    }
  end
  return clip
end

-- Options -----------------------------------------------------------------------------

local EASINGS = { blockbench = true, geckolib = true, animated_java = true }
local SHORT_STEPS = { two = true, refuse = true }

-- Checks the options (a Lua error for a wrong one, as for any argument)
-- and gives the Molang values of the game by canonical name.
local OPTIONS = args.names { "molang", "easings", "geckolib", "short_steps" }
local MOLANG_FIELDS = { "variables", "queries" }

function M.options(opts, fname, argn)
  local function bad(fmt, ...)
    args.error(argn, fname, string.format(fmt, ...))
  end
  if opts == nil then return {}, {} end
  args.options(opts, OPTIONS, argn, fname)
  if opts.easings ~= nil and not EASINGS[opts.easings] then
    bad("options.easings must be \"blockbench\", \"geckolib\" or \"animated_java\", got %s", E.shown(opts.easings))
  end
  if opts.geckolib ~= nil and opts.geckolib ~= 3 and opts.geckolib ~= 4 and opts.geckolib ~= 5 then
    bad("options.geckolib must be 3, 4 or 5, got %s", E.shown(opts.geckolib))
  end
  if opts.short_steps ~= nil and not SHORT_STEPS[opts.short_steps] then
    bad("options.short_steps must be \"two\" or \"refuse\", got %s", E.shown(opts.short_steps))
  end
  local values = {}
  local m = opts.molang
  if m ~= nil then
    if type(m) ~= "table" then bad("options.molang must be a table, got %s", type(m)) end
    for k in pairs(m) do
      if k ~= "variables" and k ~= "queries" then
        bad("unknown field options.molang.%s%s", E.shown(k), suggest.hint(k, MOLANG_FIELDS))
      end
    end
    for _, field in ipairs { "variables", "queries" } do
      local list = m[field]
      if list ~= nil then
        if type(list) ~= "table" then bad("options.molang.%s must be a table, got %s", field, type(list)) end
        for k, v in pairs(list) do
          if type(k) ~= "string" then bad("options.molang.%s: names must be strings, got %s", field, type(k)) end
          if type(v) == "boolean" then v = v and 1.0 or 0.0 end
          if not ((type(v) == "number" and E.finite(v)) or type(v) == "string") then
            bad("options.molang.%s.%s must be a finite number, a boolean or a string, got %s", field, E.shown(k),
              type(v) == "number" and E.num(v) or type(v))
          end
          local name = molang.canonical(k)
          if field == "queries" and not name:match("^query%.") then name = "query." .. name end
          if field == "variables" and not name:find(".", 1, true) then name = "variable." .. name end
          values[name] = type(v) == "number" and v + 0.0 or v
          -- `degrees` (a bare name, as in Blockbench's placeholders) is given too
          if field == "variables" and not k:find(".", 1, true) then values[k:lower()] = values[name] end
        end
      end
    end
  end
  return opts, values
end

-- Blockbench's variable placeholder panel (animation_variable_placeholders
-- of a .bbmodel, read as processVariablePlaceholderText in
-- js/animations/animation_mode.js does): `name = Molang` lines give the
-- preview's values, constants or functions of the time (Blockbench writes
-- `query.modified_distance_moved = time * 8`); slider(), toggle() and
-- impulse() buttons are 0.
local function placeholders(text, values, work)
  local out = {}
  if type(text) ~= "string" then return out end
  for line in text:gmatch("[^\n]+") do
    local k, v = line:match("^([^=]*)=%s*(.+)$")
    if k and not v:match("^=") then
      k = molang.canonical((k:gsub("[%s;]", "")))
      -- (white space off the end in linear time: "%s+$" tried every start
      -- in a run of spaces, and 65 kB of them took 14.6 s)
      v = v:match("^.*%S") or ""
      if k ~= "" then
        if v:match("^'") then
          out[k] = v:match("^'([^']*)'") or ""
        elseif v:match("^slider%(") or v:match("^toggle%(") or v:match("^impulse%(") then
          out[k] = 0.0
        else
          -- within the file's Molang budget (a placeholder may loop)
          local ok, e = pcall(molang.compile, v, { values = values, work = work })
          if not ok and e ~= molang.Budget then error(e, 0) end
          if ok and e and e.const and E.finite(e.const) then
            out[k] = e.const
          elseif ok and e and e.time then
            out[k] = { fn = e.fn, src = v } -- of the preview's time (`time * 8`)
          end
        end
      end
    end
  end
  return out
end

-- Decoding ----------------------------------------------------------------------------

local function kind_of(doc)
  if not E.absent(doc.meta) or not E.absent(doc.outliner) or not E.absent(doc.groups)
    or (type(doc.animations) == "table" and next(doc.animations) ~= nil and E.is_array(doc.animations)) then
    return "bbmodel"
  end
  return "bedrock"
end
M.kind_of = kind_of

-- Clips by animation name from the text of a .bbmodel, an Animated Java
-- project or an .animation.json, the warnings and the rigs (rigs_of); raises a failure
-- (errors.lua) only when the file as a whole cannot be read.  `name`
-- names the file in messages and becomes each clip's `rig`; `opts` and
-- `values` come from M.options.
function M.decode(text, name, opts, values)
  opts = opts or {}
  local doc, twice, twice_words = json.decode_lenient(text)
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    E.fail("", "expected a Blockbench project or a Bedrock animation file (a JSON object), got %s", E.describe(doc))
  end
  local warnings = {}
  if twice then warnings[1] = { channel = twice, message = twice_words } end
  local current -- the animation whose warnings are being made
  local ctx = {
    options = opts,
    short_steps = opts.short_steps or "two",
    keys_left = limits.current.keys,
    samples = { used = 0, limit = limits.current.bake_samples },
  }
  local work = { used = 0, limit = limits.current.molang_work }
  ctx.env = {
    values = values or {},
    placeholders = placeholders(doc.animation_variable_placeholders, values or {}, work),
    work = work,
  }
  function ctx.note(path, message)
    local list = current and current.warnings or warnings
    list[#list + 1] = { animation = current and current.name or nil, channel = path, message = message }
  end
  local kind = kind_of(doc)
  local file
  if kind == "bbmodel" then
    file = bbmodel.read(doc, ctx)
  else
    local rules = opts.easings
    if rules == nil or rules == "geckolib" then rules = opts.geckolib == 3 and "geckolib3" or "geckolib" end
    ctx.easings = rules ~= "blockbench" and CH.EASING_RULES[rules] or nil
    if not ctx.easings then ctx.easings = { name = "Blockbench", none = true } end
    file = bedrock.read(doc, ctx)
  end
  local clips = {}
  local max = limits.current.animations
  for i, entry in ipairs(file.animations) do
    if i > max then
      warnings[#warnings + 1] = {
        animation = entry.name, channel = entry.path,
        message = string.format("%d animations not imported, from '%s' on: the file has %d, more than"
          .. " anim.limits.animations (%d; anim.set_limits raises it)", #file.animations - max,
          E.shown(entry.name or entry.path), #file.animations, max),
      }
      break
    end
    current = { name = entry.name, warnings = {} }
    local ok, res = pcall(function() return build(entry.read(), file, name, ctx) end)
    local why
    if ok then
      clips[entry.name] = res
      for _, w in ipairs(current.warnings) do warnings[#warnings + 1] = w end
    elseif E.is_failure(res) then
      why = { animation = entry.name, channel = res.path, message = "not imported: " .. res.msg }
    elseif res == molang.Budget then
      why = { animation = entry.name, channel = entry.path, message = string.format("not imported: the file's"
        .. " Molang has done its %d steps of work (anim.limits.molang_work; anim.set_limits raises it)",
        ctx.env.work.limit) }
    else
      error(res, 0)
    end
    if why then warnings[#warnings + 1] = why end
    current = nil
  end
  local rigs = rigs_of(doc, file, name, warnings)
  -- what the file used of its budgets (bench/realfiles.lua prints the most)
  M.last_usage = { samples = ctx.samples.used, molang = ctx.env.work.used, keys = limits.current.keys - ctx.keys_left }
  return clips, warnings, rigs
end

function M.import(path, opts, values)
  return E.catch(path, function() return M.decode(json.read_file(path), path, opts, values) end)
end

function M.decode_text(text, name, opts, values)
  return E.catch(name, M.decode, text, name, opts, values)
end

return M
