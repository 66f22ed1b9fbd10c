-- import/spine/init.lua: the Spine importer's face: a JSON export of Spine
-- 3.8 or 4.0 to 4.2 (told by skeleton.spine) and, optionally, its texture
-- atlas, read into the 2D skeleton description and one clip per animation
-- (anim.import_spine; docs/formats.md, "Spine").  Written from Esoteric's
-- public "JSON export format" and "Atlas export format" pages only, never
-- from the Spine Runtimes' code.
--
-- skeleton.lua reads the setup pose, timelines.lua each animation's
-- timelines, curves.lua puts their keys on the module's curves exactly
-- (exact bezier splits, a handle time per component where 4.x curves of
-- one channel differ; a warning where a cut leaves a handle outside its
-- piece), atlas.lua the atlas.  An animation that cannot be
-- built is left out with a warning naming it and why; a timeline that
-- cannot be read likewise; `nil, message` is for a file that cannot be
-- read at all (a version we do not read, a binary export, a slot on a
-- bone that is not there...).  The budgets: anim.limits.bytes (each file),
-- joints (bones), animations (the first by name), keys (all the clips' keys, a key of n components
-- counting n, shared by the file's animations), vertices (its attachments'
-- and its deform keys').
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local json = require "anim.base.json"
local limits = require "anim.base.limits"
local clipmod = require "anim.format.clip"
local skel = require "anim.import.spine.skeleton"
local timelines = require "anim.import.spine.timelines"
local atlasmod = require "anim.import.spine.atlas"
local sequence = require "anim.import.spine.sequence"
local byteorder = require "anim.base.order"

local M = {}

local key, fail, shown = E.key, E.fail, E.shown

-- The segments of a file whose handles moved into their piece are measured (63
-- samples each, two cubics solved per sample): the rest are reported, not
-- measured.
M.MEASURED = 256

-- The warnings listed (the rest counted in one more), and the misspelt
-- names of a file given a suggestion.
M.MAX_WARNINGS = 1000
M.HINTS = 20

M.VERSIONS = { ["3.8"] = 3.8, ["4.0"] = 4.0, ["4.1"] = 4.1, ["4.2"] = 4.2 }

local function sorted(t)
  local out = {}
  for k in pairs(t) do if type(k) == "string" then out[#out + 1] = k end end
  byteorder.sort(out)
  return out
end

-- The version of a decoded export: its text, the number read (3.8, 4.1).
local function version_of(doc)
  local sk = doc.skeleton
  if E.absent(sk) then
    fail("skeleton", "a Spine JSON export has a skeleton object with its version (skeleton.spine); this file has none")
  end
  E.object(sk, "skeleton", "skeleton")
  local v = sk.spine
  if E.absent(v) then
    fail("skeleton.spine", "the file names no Spine version: this importer reads the JSON exports of Spine 3.8"
      .. " and 4.0 to 4.2, which name theirs")
  end
  E.string(v, "skeleton.spine", "the Spine version")
  local mm = v:match("^(%d+%.%d+)")
  if not mm or not M.VERSIONS[mm] then
    fail("skeleton.spine", "Spine %s is not read: this importer reads the JSON exports of Spine 3.8 and 4.0 to 4.2"
      .. " (re-export the skeleton from one of those editor versions)", "'" .. shown(v) .. "'")
  end
  return v, M.VERSIONS[mm]
end

-- The names each slot's attachment channel counts: the setup attachment
-- first, then every skin's for the slot, sorted (timelines add others).
local function attachment_names(desc)
  local by_slot = {}
  for _, skin in ipairs(desc.skins) do
    for sname, atts in pairs(skin.attachments) do
      local list = by_slot[sname] or {}
      by_slot[sname] = list
      for an in pairs(atts) do list[#list + 1] = an end
    end
  end
  for _, s in ipairs(desc.slots) do
    local seen, list = {}, s.attachment_names
    if s.attachment then list[1] = s.attachment; seen[s.attachment] = true end
    local more = by_slot[s.name] or {}
    byteorder.sort(more)
    for _, an in ipairs(more) do
      if not seen[an] then seen[an] = true; list[#list + 1] = an end
    end
  end
end

-- A sequence's frames' regions (att.regions[1 + i], frame i; the setup
-- frame's is att.region), a missing one warned of by name.
local function sequence_regions(att, atlas, p, ctx)
  local seq = att.sequence
  att.regions = {}
  for i = 0, seq.count - 1 do
    local name = skel.frame_path(seq.path, seq.start + i, seq.digits)
    local r = atlas.regions[name]
    if r then
      att.regions[i + 1] = r
      if not r.u then
        ctx.warn(key(p, "sequence"), string.format("the atlas page '%s' has no size, so region '%s' has no texture"
          .. " coordinates: frame %d of the sequence has no image", shown(r.page), shown(name), i))
      end
    else
      ctx.warn(key(p, "sequence"), string.format("no region '%s' in the atlas: frame %d of the sequence has no image%s",
        shown(name), i, ctx.hint(name, atlas.order)))
    end
  end
  att.region = att.regions[seq.setup_index + 1]
end

-- The atlas's regions given to the attachments that draw one (by path).
local function attach_regions(desc, atlas, ctx)
  for i, skin in ipairs(desc.skins) do
    for _, sname in ipairs(sorted(skin.attachments)) do
      for _, an in ipairs(sorted(skin.attachments[sname])) do
        local att = skin.attachments[sname][an]
        local p = key(key(key(E.index("skins", i), "attachments"), sname), an)
        if att.sequence then
          sequence_regions(att, atlas, p, ctx)
        elseif att.type == "region" or att.type == "mesh" or att.type == "linkedmesh" then
          local r = atlas.regions[att.path]
          if r then
            att.region = r
            if not r.u then
              ctx.warn(p, string.format("the atlas page '%s' has no size, so region '%s' has no texture coordinates:"
                .. " the attachment has no image", shown(r.page), shown(att.path)))
            end
          else
            ctx.warn(p, string.format("no region '%s' in the atlas: the attachment has no image%s", shown(att.path),
              ctx.hint(att.path, atlas.order)))
          end
        end
      end
    end
  end
end

-- The clip of the animation in box[1] (taken out of the box: its JSON is
-- garbage once read).
local function build(aname, box, look, desc, ctx, name)
  local ap = key("animations", aname)
  local anim = box[1]
  box[1] = nil
  local ch, items, last, kept = timelines.read(anim, ap, look, desc, ctx)
  anim = nil -- luacheck: ignore 311
  -- (no `skeleton`: the rig is the 2D skeleton's, made once from the
  -- description, and a skeleton in each clip cost bones x animations)
  local t = { version = 3, loop = "loop", euler = "xyz", joints = {} }
  local props = {}
  local total = 0
  for _, cname in ipairs(ch) do
    local c = ch[cname]
    if c.sequence then -- (its last key counts; its frames are baked below)
      if c.sequence.last > last then last = c.sequence.last end
    else
      local keys, n = timelines.keys(c, ctx.warn, ap, ctx.measure)
      c.comps = nil -- (garbage now: a channel's keys are held once at a time)
      total = total + n
      for _, k in ipairs(keys) do if k[1] > last then last = k[1] end end
      if c.joint then
        t.joints[c.joint] = t.joints[c.joint] or {}
        t.joints[c.joint][c.channel] = keys
      else
        props[c.prop] = c.discrete and { keys = keys, discrete = true } or keys
      end
    end
  end
  -- the sequences baked up to the clip's end, within the keys left
  for _, cname in ipairs(ch) do
    local c = ch[cname]
    local sq = c.sequence
    if sq then
      local keys, n = sequence.bake(sq.keys, sq.setup, sq.count, last, ctx.keys_left - total)
      if keys then
        total = total + n
        props[c.prop] = { keys = keys, discrete = true }
      else
        ctx.warn(c.where, string.format("the sequence timeline would make %d keys or more, more than the %d the file's"
          .. " clips may still have (anim.limits.keys is %d): not played", n, ctx.keys_left - total, limits.current.keys))
      end
    end
  end
  if total > ctx.keys_left then
    fail(ap, "the clip would have %d keys, more than the %d the file's clips may still have (anim.limits.keys is %d"
      .. " for a file; anim.set_limits raises it)", total, ctx.keys_left, limits.current.keys)
  end
  if next(props) then t.properties = props end
  local function by_time(a, b) return a.time < b.time end
  if #items.events > 0 then table.sort(items.events, by_time); t.events = items.events end
  if #items.sounds > 0 then table.sort(items.sounds, by_time); t.sounds = items.sounds end
  t.length = last
  local ok, clip = pcall(clipmod.build, t, name .. "#" .. aname, false)
  if not ok then
    if not E.is_failure(clip) then error(clip, 0) end
    fail(ap, "the clip made of animation '%s': %s", shown(aname), (E.message("", clip):gsub("^: ", "")))
  end
  ctx.keys_left = ctx.keys_left - total
  if next(kept) then ctx.kept[aname] = kept end
  return clip
end

-- The result of a JSON text (and an atlas that atlas.lua read, or nil);
-- raises a failure for a file that cannot be read at all.
function M.decode(text, name, atlas)
  json.not_utf16(text) -- (UTF-16 text is not a binary export)
  -- (after a UTF-8 byte order mark, which json.decode leaves out)
  local first = text:match("^\239\187\191%s*(.)") or text:match("^%s*(.)")
  if first ~= "{" then
    if name:match("%.skel$") or (first and first:find("[%z\1-\8\14-\31\128-\255]")) then
      fail("", "a binary Spine export (.skel) is not read: export the skeleton as JSON (Spine's Export dialog,"
        .. " JSON) and import that")
    end
  end
  local doc, twice, twice_words = json.decode(text, "warn")
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected a Spine JSON export (an object with skeleton, bones, slots...), got %s", E.describe(doc))
  end
  json.check(doc)
  local version, ver = version_of(doc)
  local warnings, unlisted = {}, 0
  local current
  local ctx = { ver = ver, version = version, sorted = sorted, keys_left = limits.current.keys, orders = {}, kept = {} }
  function ctx.warn(path, message)
    if #warnings >= M.MAX_WARNINGS then unlisted = unlisted + 1; return end
    warnings[#warnings + 1] = { animation = current, path = path, message = message }
  end
  function ctx.full() return #warnings >= M.MAX_WARNINGS end
  -- (the last value kept, as JavaScript's JSON.parse keeps it)
  if twice then ctx.warn(twice, twice_words) end
  function ctx.skip() unlisted = unlisted + 1 end
  -- "; did you mean ...?" for the file's first M.HINTS misspelt names only
  -- (each search is bounded; a file may misspell a million); names may be
  -- a function making the list
  local hints = M.HINTS
  function ctx.hint(v, names)
    if hints <= 0 then return "" end
    hints = hints - 1
    return E.hint(v, type(names) == "function" and names() or names)
  end
  -- fn(), a failure inside it a warning: what it reads is left out
  function ctx.try(path, fn)
    local outer = ctx.at
    ctx.at = path
    local ok, e = pcall(fn)
    ctx.at = outer
    if ok then return end
    if not E.is_failure(e) then error(e, 0) end
    ctx.warn(e.path or path, e.msg .. ": left out")
  end
  -- the vertices of the attachments, then of the deform keys (a key of
  -- a mesh of n vertices counting n): at most anim.limits.vertices
  local vertices = 0
  function ctx.vertices(n, p, what)
    if vertices + n > limits.current.vertices then
      -- (%s: a count the file gave, 1e300 say, is whole but no integer)
      fail(p, "too many vertices: the %s would have %s (at most %d, anim.limits.vertices)", what or "attachments",
        E.num(vertices + n), limits.current.vertices)
    end
    vertices = vertices + n
  end
  -- a draw order key's work is its slots: the file's keys together make
  -- at most anim.limits.keys places
  local places = 0
  function ctx.places(n, where)
    places = places + n
    if places > limits.current.keys then
      fail(where(), "too many draw order places: the keys would order %d slots in all (at most %d, anim.limits.keys)",
        places, limits.current.keys)
    end
  end
  ctx.measure = { left = M.MEASURED, size = M.MEASURED }
  local desc, look = skel.read(doc, version, ver, ctx)
  attachment_names(desc)
  if atlas then attach_regions(desc, atlas, ctx) end
  local clips = {}
  local anims = doc.animations
  if not E.absent(anims) then
    E.object(anims, "animations", "animations")
    local names = sorted(anims)
    local max = limits.current.animations
    for i, aname in ipairs(names) do
      if i > max then
        ctx.warn("animations", string.format("%d animations not imported, from '%s' on (by name): the file has %d,"
          .. " more than anim.limits.animations (%d; anim.set_limits raises it)", #names - max, shown(aname), #names, max))
        break
      end
      current = aname
      -- (its JSON is garbage once read: the clip's keys are not held beside it)
      local box = { anims[aname] }
      anims[aname] = nil
      local ok, clip = pcall(build, aname, box, look, desc, ctx, name)
      if ok then
        clips[aname] = clip
      elseif E.is_failure(clip) then
        ctx.warn(clip.path, "animation not imported: " .. clip.msg)
      else
        error(clip, 0)
      end
      current = nil
    end
  end
  if unlisted > 0 then
    warnings[#warnings + 1] = { path = "", message = string.format("%d more warnings not listed (the first %d are)",
      unlisted, M.MAX_WARNINGS) }
  end
  local skins = {}
  for i, s in ipairs(desc.skins) do skins[i] = s.name end
  return { skeleton = desc, clips = clips, skins = skins, warnings = warnings, atlas = atlas, kept = ctx.kept }
end

-- The atlas of a text, or nil, message naming the atlas and the line.
function M.atlas(text, name)
  return E.catch(name, atlasmod.parse, text)
end

-- anim.import_spine(json_path [, atlas_path]) -> result | nil, message
function M.import(path, atlas_path)
  local atlas
  if atlas_path then
    local why
    atlas, why = E.catch(atlas_path, function() return atlasmod.parse(json.read_file(atlas_path)) end)
    if not atlas then return nil, why end
  end
  return E.catch(path, function() return M.decode(json.read_file(path), path, atlas) end)
end

-- The same from texts (the specs, the fuzzers): name names the JSON text.
function M.decode_text(text, name, atlas_text, atlas_name)
  local atlas
  if atlas_text then
    local why
    atlas, why = M.atlas(atlas_text, atlas_name or "atlas")
    if not atlas then return nil, why end
  end
  return E.catch(name, M.decode, text, name, atlas)
end

return M
