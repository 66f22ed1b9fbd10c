-- import/xml/init.lua: imports the legacy XML animations of the Minecraft skin viewer
-- (../shared/spec/legacy-xml-format.txt; SEMANTICS 9; import-notes.md,
-- "XML format") as clips on the player rig.
--
-- The file is parsed with expat (lua-expat), never with patterns.  Each
-- pitch/yaw/roll/x/y/z transformation becomes one scalar curve that plays
-- exactly what the viewer shows.  The clip also carries a version 3 table in
-- the shape of a .anim file (info.source, what anim.encode writes).  Version
-- 3 keys carry all three axes at one time with one interpolation, so where
-- the axes of a channel have different key times with eased segments
-- between them, that table is made of per-axis cubic (bezier) pieces close
-- to the curves, the clip plays the exact per-axis curves instead, and
-- info.approx says how far apart the two are.
--
-- The parts: parse.lua (the text and its elements), curves.lua (the
-- viewer's curves, an axis each, and the axes merged), channel.lua (a
-- channel for the core and its version 3 keys, and their distance).
require("anim.base.luajit").no_traversal_traces()
local keyset = require "anim.format.keys"
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local format = require "anim.format.read"
local P = require "anim.import.xml.parse"
local curves = require "anim.import.xml.curves"
local CH = require "anim.import.xml.channel"
local byteorder = require "anim.base.order"

local M = {}

local fail = E.fail
local num = E.num -- numbers in messages as written (1000, not 1e+03)
local parse, where, number, first, read_transform = P.parse, P.where, P.number, P.first, P.read_transform
local channel, measure = CH.channel, CH.measure

M.TOLERANCE = curves.TOLERANCE

-- Body parts of the player rig (DESIGN.md), and the offsets.
local PARTS = {
  { tag = "torso", joint = "torso" }, { tag = "head", joint = "head" },
  { tag = "left-arm", joint = "leftArm" }, { tag = "right-arm", joint = "rightArm" },
  { tag = "left-leg", joint = "leftLeg" }, { tag = "right-leg", joint = "rightLeg" },
}
local OFFSETS = {
  { tag = "offset", joints = { "root" } },
  { tag = "leg-offset", joints = { "leftLeg", "rightLeg" } },
}
-- Euler x = pitch, y = -yaw (the viewer turns yaw the other way), z = roll.
local ROT_AXES = { { tag = "pitch", sign = 1 }, { tag = "yaw", sign = -1 }, { tag = "roll", sign = 1 } }
local POS_AXES = { { tag = "x", sign = 1 }, { tag = "y", sign = 1 }, { tag = "z", sign = 1 } }

-- Unknown elements and attributes ---------------------------------------------------

-- The elements the viewer reads and the attributes of each (legacy-xml-format.txt;
-- KeyFrameAnimation.load and loadSpline).  It passes over any other, as this
-- importer does: each is a warning, with the nearest known name.
local ATTRS = { animation = { "name", "length" }, keyframe = { "t", "i" } }
local ELEMENTS = { "animation", "keyframe" }
for _, list in ipairs { PARTS, OFFSETS, ROT_AXES, POS_AXES } do
  for _, e in ipairs(list) do
    ELEMENTS[#ELEMENTS + 1] = e.tag
    ATTRS[e.tag] = (list == ROT_AXES or list == POS_AXES) and { "i", "length" } or {}
  end
end
local ELEMENT_NAMES = suggest.prepare(ELEMENTS)

local function hint(s, what)
  return s and string.format(" (did you mean %s'%s'?)", what or "", E.shown(s)) or ""
end

-- The warnings of the elements and attributes under el (the root: all of
-- them), in document order: { channel = where the element is, message }, as
-- the Blockbench importer's.  An attribute no element has may be a
-- misspelt child element (`<right-arm rol="...">`): the nearest of those.
-- At most MAX_LISTED are listed (each with its suggestion); the others
-- are counted (out.more), and one warning says how many: a file of
-- 550,000 unknown elements took 1.5 s more to list them all.
local MAX_LISTED = 64
local function unknown(el, out)
  local attrs = ATTRS[el.name]
  if #out >= MAX_LISTED then
    -- (counted only: no suggestion, no sort)
    if not attrs then out.more = out.more + 1
    else
      for k in pairs(el.attrs) do
        if type(k) == "string" then
          local known = false
          for _, a in ipairs(attrs) do known = known or a == k end
          if not known then out.more = out.more + 1 end
        end
      end
    end
  elseif not attrs then
    out[#out + 1] = { channel = where(el), message = "unknown element" .. hint(suggest.closest(el.name, ELEMENT_NAMES)) }
  else
    local names = {}
    for k in pairs(el.attrs) do
      if type(k) == "string" then names[#names + 1] = k end
    end
    byteorder.sort(names)
    for _, k in ipairs(names) do
      local known = false
      for _, a in ipairs(attrs) do known = known or a == k end
      if not known then
        local s, what = suggest.closest(k, attrs), nil
        if not s then s, what = suggest.closest(k, ELEMENT_NAMES), "the element " end
        out[#out + 1] = { channel = where(el), message = "unknown attribute '" .. E.shown(k) .. "'" .. hint(s, what) }
      end
    end
  end
  for _, c in ipairs(el.children) do unknown(c, out) end
  return out
end

-- Import ----------------------------------------------------------------------------

local function read_axes(el, spec)
  local axes, any = {}, false
  for a, ax in ipairs(spec) do
    local tel = first(el, ax.tag)
    if tel then
      axes[a] = read_transform(tel, ax.sign)
      if axes[a] then any = true end
    end
  end
  return any and axes or nil
end

-- Reads XML text; returns desc and info for keys.build (info.source is
-- the version 3 table) and the warnings (unknown), or raises a failure.
function M.read(text, name)
  local root = parse(text)
  if root.name ~= "animation" then
    fail(where(root), "the root element must be <animation>, got <%s>", E.shown(root.name))
  end
  local warnings = unknown(root, { more = 0 })
  if warnings.more > 0 then
    warnings[#warnings + 1] = { message = string.format("%d more unknown elements and attributes, not listed (the first %d are)",
      warnings.more, MAX_LISTED) }
  end
  warnings.more = nil
  local length = 1.0
  if root.attrs.length ~= nil then
    length = number(root.attrs.length, where(root), "length")
    if length <= 0 then
      fail(where(root), "length must be greater than 0, got %s (the animation loops on it)", num(length))
    end
  end
  -- joint -> { rotation = axes, position = axes }
  local chans, order = {}, {}
  local function add(joint, kind, axes)
    if not chans[joint] then chans[joint] = {}; order[#order + 1] = joint end
    chans[joint][kind] = axes
  end
  for _, part in ipairs(PARTS) do
    local el = first(root, part.tag)
    local axes = el and read_axes(el, ROT_AXES)
    if axes then add(part.joint, "rotation", axes) end
  end
  for _, off in ipairs(OFFSETS) do
    local el = first(root, off.tag)
    local axes = el and read_axes(el, POS_AXES)
    if axes then
      for _, j in ipairs(off.joints) do add(j, "position", axes) end
    end
  end
  local joints, built = {}, {}
  for _, j in ipairs(order) do
    local jt = {}
    for _, kind in ipairs { "rotation", "position" } do
      local axes = chans[j][kind]
      if axes then
        local ch = channel(axes, length)
        built[#built + 1] = { joint = j, kind = kind, ch = ch }
        jt[kind] = ch.keys
        if ch.mods then
          jt.modifiers = jt.modifiers or {}
          jt.modifiers[kind] = ch.mods
        end
      end
    end
    joints[j] = jt
  end
  local source = {
    version = 3, rig = "player", length = length, loop = "loop", euler = "yxz", joints = joints,
  }
  local desc, info = format.read(source)
  -- the exact per-axis curves where the version 3 keys are not exact
  local replaced, clip_err, affected = {}, 0, {}
  local by_name = {}
  for _, dj in ipairs(desc.joints) do by_name[dj.name] = dj end
  for _, b in ipairs(built) do
    clip_err = math.max(clip_err, b.ch.clip_err)
    if not b.ch.exact then
      local dj = by_name[b.joint]
      local field = b.kind == "rotation" and "rot" or "pos"
      replaced[#replaced + 1] = { v3 = dj[field], exact = b.ch.exact_curves, ch = b.ch }
      dj[field] = b.ch.exact_curves
      affected[#affected + 1] = b.joint .. " " .. b.kind
    end
  end
  if #replaced > 0 or clip_err > 0 then
    local bound = clip_err
    local notes = {}
    if #replaced > 0 then
      bound = bound + measure(replaced, length)
      notes[#notes + 1] = "the axes of " .. table.concat(affected, ", ") ..
        " have different key times with eased segments between them; the version 3 keys" ..
        " follow them with cubic (bezier) pieces, and the clip plays the exact per-axis curves"
    end
    if clip_err > 0 then
      notes[#notes + 1] = string.format("a transformation's length cuts a SMOOTH segment, which is" ..
        " played as cubic pieces within %s", E.numtext("%.3g", clip_err))
    end
    info.approx = {
      bound = bound,
      note = table.concat(notes, "; ") .. " (bound in degrees for angles, blocks for positions)",
    }
    if clip_err > 0 then info.approx.clip_bound = clip_err end
  end
  -- the animation's own name (the viewer's menu entry), else the file's
  local own = root.attrs.name
  info.name = (own and own ~= "") and own or name
  return desc, info, warnings
end

-- Builds the clip of XML text and gives the warnings (M.read), or raises a
-- failure (errors.lua).
function M.build(text, name)
  local desc, info, warnings = M.read(text, name)
  return keyset.build(desc, info), warnings
end

return M
