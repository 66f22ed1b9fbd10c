-- blockbench.lua: imports Blockbench projects (.bbmodel) and Bedrock
-- animation files (*.animation.json, GeckoLib's dialect included) as
-- clips, one per animation (anim.import_blockbench / decode_blockbench).
--
-- bbmodel.lua and bedrock.lua read the two kinds of file into the same
-- shape; this file decides each clip's length, converts every channel
-- (bbchannel.lua), adds the skeleton, sounds and events, and builds the
-- clip from a version 3 table -- the table anim.encode writes back out.
-- What cannot be said exactly is baked (bake.lua) and the clip's
-- info.approx says so: { bound, note, seam }.  docs/formats.md ("Blockbench and Bedrock")
-- lists what is exact, approximated and refused.
local E = require "anim.base.errors"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local molang = require "anim.import.molang"
local bake = require "anim.import.bake"
local CH = require "anim.import.bbchannel"
local bbmodel = require "anim.import.bbmodel"
local bedrock = require "anim.import.bedrock"
local limits = require "anim.base.limits"

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

local function build(anim, file, rig)
  local length, chosen = length_of(anim)
  local t = { version = 3, length = length, loop = anim.loop, euler = "zyx", rig = rig, joints = {} }
  local notes, baked, err, seam = {}, false, 0, nil
  -- baking shares anim.limits.keys among the channels of the clip: the
  -- whole clip, not each channel, stays within it (and so does the work)
  local budget = limits.current.keys
  for _, j in ipairs(anim.joints) do
    local jt, any = {}, false
    for _, ch in ipairs(CHANNELS) do
      local chan = j.channels[ch]
      if chan and #chan.keys > 0 then
        any = true
        local keys, rep = CH.convert(chan, {
          length = length, loop = anim.loop, rest = ch == "rotation" and j.rest or nil, budget = budget,
        })
        budget = budget - #keys
        jt[ch] = keys
        if rep.baked then
          baked = true
          err = math.max(err, rep.err)
          local reasons = {}
          for r in pairs(rep.reasons) do reasons[#reasons + 1] = r end
          table.sort(reasons)
          notes[#notes + 1] = string.format("%s.%s baked for %s%s at %.4g keys/s (measured error %.2g)",
            j.name, ch, table.concat(reasons, ", "), rep.quat and " as quaternions" or "", rep.rate, rep.err)
        end
        if chosen and chosen.fallback then
          -- where the span ends against where it starts: the jump a loop shows
          seam = math.max(seam or 0, dist(CH.evaluate(chan, length, anim.loop), CH.evaluate(chan, 0, anim.loop)))
        end
      end
    end
    if any then
      if anim.weight then jt.weight = anim.weight end
      t.joints[j.name] = jt
    end
  end
  if #anim.sounds > 0 then t.sounds = anim.sounds end
  if #anim.events > 0 then t.events = anim.events end
  if file.bones and #file.bones > 0 then
    local sk = {}
    for _, b in ipairs(file.bones) do
      sk[b.name] = {
        parent = b.parent,
        position = { b.origin[1] / 16, b.origin[2] / 16, b.origin[3] / 16 },
        rotation = CH.quat_zyx(b.rotation),
      }
    end
    t.skeleton = sk
  end
  -- the clip's table is made here, not read: a failure in it (a limit:
  -- too many joints, timed items...) is reported at the animation
  local ok, clip = pcall(clipmod.build, t, anim.name, true)
  if not ok then
    if not E.is_failure(clip) then error(clip, 0) end
    E.fail(anim.path or "", "the clip made of animation '%s': %s", anim.name, (E.message("", clip):gsub("^: ", "")))
  end
  if chosen and chosen.fallback then
    notes[#notes + 1] = string.format(
      "no animation length and the Molang does not repeat within %g s: baked over %g s, where the loop seam jumps by up to %.4g",
      M.MAX_SPAN, length, seam)
  elseif chosen then
    notes[#notes + 1] = string.format("no animation length: %.6g s, a whole number of every sin/cos period", length)
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

-- Clips by animation name from the text of a .bbmodel or .animation.json;
-- raises a failure (errors.lua) for bad input.  `name` names the file in
-- messages and becomes each clip's `rig`.
function M.decode(text, name)
  local doc = json.decode(text)
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    E.fail("", "expected a Blockbench project or a Bedrock animation file (a JSON object), got %s", E.describe(doc))
  end
  local file
  if not E.absent(doc.meta) or not E.absent(doc.outliner) or not E.absent(doc.groups)
    or (type(doc.animations) == "table" and next(doc.animations) ~= nil and E.is_array(doc.animations)) then
    file = bbmodel.read(doc)
  else
    file = bedrock.read(doc)
  end
  local clips = {}
  for _, a in ipairs(file.animations) do clips[a.name] = build(a, file, name) end
  return clips
end

function M.import(path)
  return E.catch(path, function() return M.decode(json.read_file(path), path) end)
end

function M.decode_text(text, name)
  return E.catch(name, M.decode, text, name)
end

return M
