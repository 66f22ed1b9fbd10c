-- cli_skeleton.lua: a 2D skeleton (a Spine or DragonBones file, as
-- anim.open reads it: the description of issue 40's contract) in words,
-- for `anim info`; and what of it a .anim file cannot hold, for `anim
-- convert`.
require("anim.base.luajit").no_traversal_traces()
local C = require "anim.tool.cli_common"
local byteorder = require "anim.base.order"
local bold, out, one_line, num, count, shown_list = C.bold, C.out, C.one_line, C.num, C.count, C.shown_list

local M = {}

local FORMAT = { spine = "Spine", dragonbones = "DragonBones" }
-- the attachment types, in the contract's order
local TYPES = { "region", "mesh", "linkedmesh", "boundingbox", "point", "clipping", "path", "armature" }

-- Names padded to the longest of a list (the first column).
local function width_of(list, field, least)
  local w = least or 4
  for _, e in ipairs(list) do w = math.max(w, #one_line(e[field])) end
  return w
end

-- "1 0.5 0.878 1" (colours: 4 digits)
local function numbers(t)
  local parts = {}
  for i, v in ipairs(t) do parts[i] = num(tonumber(string.format("%.4g", v))) end
  return table.concat(parts, " ")
end

-- Every attachment of every skin: calls fn(skin, slot, name, att) in the
-- skins' order, the setup slot order, names sorted.
-- (each skin's own slots, in setup order: the work is the attachments',
-- not skins times slots -- a file may hold 3,000 skins and 300,000 slots)
local function each_attachment(desc, fn)
  local at = {}
  for i, sl in ipairs(desc.slots or {}) do at[sl.name] = i end
  for _, skin in ipairs(desc.skins or {}) do
    local atts = skin.attachments or {}
    local slots = {}
    for slot in pairs(atts) do if at[slot] then slots[#slots + 1] = slot end end
    table.sort(slots, function(x, y) return at[x] < at[y] end)
    for _, slot in ipairs(slots) do
      local by_name = atts[slot]
      if type(by_name) == "table" then
        local names = {}
        for n in pairs(by_name) do names[#names + 1] = n end
        byteorder.sort(names)
        for _, n in ipairs(names) do fn(skin, slot, n, by_name[n]) end
      end
    end
  end
end

-- What the skeleton keeps as data, not played: { "what", ... }.
function M.kept(desc)
  local list = {}
  for _, f in ipairs { { "paths", "path constraint" }, { "physics", "physics constraint" } } do
    for _, c in ipairs(type(desc[f[1]]) == "table" and desc[f[1]] or {}) do
      list[#list + 1] = string.format("%s '%s'", f[2], one_line(tostring(c.name)))
    end
  end
  each_attachment(desc, function(skin, slot, name, att)
    local where = string.format("'%s' (skin %s, slot %s)", one_line(name), one_line(skin.name), one_line(slot))
    if att.type == "path" then
      list[#list + 1] = "path attachment " .. where
    elseif att.type == "armature" then
      list[#list + 1] = string.format("armature display %s: shows armature '%s'", where, one_line(tostring(att.path)))
    elseif att.type == "boundingbox" and att.vertices == nil then
      list[#list + 1] = string.format("bounding box %s: a%s %s, no vertices", where,
        tostring(att.shape):match("^[aeiouAEIOU]") and "n" or "", one_line(tostring(att.shape)))
    end
  end)
  return list
end

-- The skins' attachments by type: { { skin =, n =, by_type = { [type] = { names } } }, ... }
local function skins_of(desc)
  local out_list, at = {}, {}
  for i, skin in ipairs(desc.skins or {}) do
    out_list[i] = { skin = skin.name, n = 0, by_type = {} }
    at[skin] = out_list[i]
  end
  each_attachment(desc, function(skin, slot, name, att)
    local e = at[skin]
    local list = e.by_type[att.type] or {}
    e.by_type[att.type] = list
    list[#list + 1] = slot .. "/" .. name .. (att.type == "mesh" and att.weighted and " (weighted)" or "")
      .. ((att.region == nil and (att.type == "region" or att.type == "mesh")) and " (no atlas region)" or "")
    e.n = e.n + 1
  end)
  return out_list
end

-- A bone's inherit mode; a DragonBones bone that leaves some of its
-- parent's transform out is posed by DragonBones' own rule (its flags).
local function inherit_of(b)
  local f = b.dragonbones
  if type(f) == "table" then
    local off = {}
    for _, k in ipairs { "translation", "rotation", "scale", "reflection" } do
      if f["inherit_" .. k] == false then off[#off + 1] = k end
    end
    if #off > 0 then return "DragonBones' rule, inheriting no " .. table.concat(off, ", no ") end
  end
  return b.inherit
end

-- `anim info`: the skeleton of a 2D file (res: anim.open's result: its
-- description, the importer's table).
function M.info(path, res)
  local desc = res.description or res.skeleton
  local function field(k, v) out("  %-10s %s", k, v) end
  out(bold(one_line(path) .. "  skeleton"))
  field("format", string.format("%s %s%s", FORMAT[desc.format] or tostring(desc.format), tostring(desc.version or "?"),
    desc.y_down and " (y down)" or " (y up)"))
  if desc.width and desc.height then
    field("bounds", string.format("%s x %s at %s, %s", num(desc.width), num(desc.height), num(desc.x or 0), num(desc.y or 0)))
  end
  if desc.frame_rate then field("frame rate", num(desc.frame_rate)) end
  if res.armatures then
    local names = {}
    for n in pairs(res.armatures) do names[#names + 1] = n end
    byteorder.sort(names)
    for i, n in ipairs(names) do
      local a = res.armatures[n]
      local clips = 0
      for _ in pairs(a.clips) do clips = clips + 1 end
      local d = a.description or a.skeleton
      names[i] = string.format("%s (%s, %s%s)", one_line(n), count(#d.bones, "bone"), count(clips, "animation"),
        d == desc and "; shown" or "")
    end
    field("armatures", table.concat(names, ", "))
  end
  local bones = desc.bones or {}
  out(bold(string.format("bones (%d)", #bones)))
  local w = width_of(bones, "name")
  for _, b in ipairs(bones) do
    out("  %-" .. w .. "s  %s  %s  at %s, %s  rotation %s  scale %s, %s%s%s", one_line(b.name),
      b.parent and ("parent " .. one_line(b.parent)) or "(root)", inherit_of(b), num(b.x), num(b.y), num(b.rotation),
      num(b.scale_x), num(b.scale_y),
      (b.shear_x ~= 0 or b.shear_y ~= 0) and string.format("  shear %s, %s", num(b.shear_x), num(b.shear_y)) or "",
      (b.length or 0) ~= 0 and ("  length " .. num(b.length)) or "")
  end
  local slots = desc.slots or {}
  out(bold(string.format("slots (%d, in draw order)", #slots)))
  w = width_of(slots, "name")
  for _, sl in ipairs(slots) do
    local names = sl.attachment_names or {}
    out("  %-" .. w .. "s  bone %s  attachment %s%s  blend %s  color %s%s", one_line(sl.name), one_line(sl.bone),
      sl.attachment and one_line(sl.attachment) or "(none)",
      #names > 0 and (" (of " .. shown_list(names) .. ")") or "", sl.blend or "normal", numbers(sl.color or {}),
      sl.dark and ("  dark " .. numbers(sl.dark)) or "")
  end
  local skins = skins_of(desc)
  out(bold(string.format("skins (%d)", #skins)))
  for _, s in ipairs(skins) do
    local parts = {}
    for _, t in ipairs(TYPES) do
      if s.by_type[t] then parts[#parts + 1] = #s.by_type[t] .. " " .. t end
    end
    out("  %s: %s%s", one_line(s.skin), count(s.n, "attachment"), #parts > 0 and (": " .. table.concat(parts, ", ")) or "")
    for _, t in ipairs(TYPES) do
      if s.by_type[t] then out("    %-11s %s", t, one_line(shown_list(s.by_type[t]))) end
    end
  end
  local ik = desc.ik or {}
  out(bold(string.format("ik constraints (%d)", #ik)))
  for _, c in ipairs(ik) do
    out("  %s  bones %s -> target %s  mix %s  bend %s%s%s%s", one_line(c.name), one_line(table.concat(c.bones, ", ")),
      one_line(c.target), num(c.mix), num(c.bend), (c.softness or 0) ~= 0 and ("  softness " .. num(c.softness)) or "",
      c.compress and "  compress" or "", c.stretch and ("  stretch" .. (c.uniform and " (uniform)" or "")) or "")
  end
  local tcs = desc.transforms or {}
  out(bold(string.format("transform constraints (%d)", #tcs)))
  for _, c in ipairs(tcs) do
    out("  %s  bones %s -> target %s  mix rotate %s, x %s, y %s, scale x %s, scale y %s, shear y %s%s%s",
      one_line(c.name), one_line(table.concat(c.bones, ", ")), one_line(c.target), num(c.mix_rotate), num(c.mix_x),
      num(c.mix_y), num(c.mix_scale_x), num(c.mix_scale_y), num(c.mix_shear_y), c["local"] and "  local" or "",
      c.relative and "  relative" or "")
  end
  local orders = desc.draw_orders or {}
  out(bold(string.format("draw orders (%d, of the animations)", #orders)))
  for i, o in ipairs(orders) do out("  %d  %s", i, one_line(table.concat(o, ", "))) end
  local events = {}
  for n in pairs(desc.events or {}) do events[#events + 1] = n end
  byteorder.sort(events)
  out(bold(string.format("events (%d)", #events)))
  if #events > 0 then out("  %s", one_line(table.concat(events, ", "))) end
  local kept = M.kept(desc)
  out(bold(string.format("kept as data, not played (%d)", #kept)))
  for _, k in ipairs(kept) do out("  %s", k) end
end

-- `anim convert`: what of the skeleton a .anim or glTF file leaves out,
-- as one line: "slots (body_slot, ...), skins (default, gold), ...".
function M.left_out(desc)
  local parts = {}
  local function add(word, list, field)
    if #list == 0 then return end
    local names = {}
    for i, e in ipairs(list) do names[i] = field and e[field] or e end
    parts[#parts + 1] = string.format("%s (%s)", count(#list, word), one_line(shown_list(names)))
  end
  add("slot", desc.slots or {}, "name")
  add("skin", desc.skins or {}, "name")
  local atts = {}
  each_attachment(desc, function(skin, slot, name) atts[#atts + 1] = skin.name .. "/" .. slot .. "/" .. name end)
  add("attachment", atts)
  add("IK constraint", desc.ik or {}, "name")
  add("transform constraint", desc.transforms or {}, "name")
  add("path constraint", type(desc.paths) == "table" and desc.paths or {}, "name")
  add("physics constraint", type(desc.physics) == "table" and desc.physics or {}, "name")
  return table.concat(parts, ", ")
end

return M
