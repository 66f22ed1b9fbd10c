-- cli_info.lua: `anim info`: what a clip (or a retarget map) holds, in
-- words.
require("anim.base.luajit").no_traversal_traces()
local clipmod = require "anim.format.clip"
local animc = require "anim.format.animc"
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local retarget = require "anim.format.retarget"
local C = require "anim.tool.cli_common"
local graph = require "anim.tool.cli_graph"
local skeleton = require "anim.tool.cli_skeleton"
local byteorder = require "anim.base.order"
local fail, USAGE, bold, out, one_line, must_read, pick, num, brief, count =
  C.fail, C.USAGE, C.bold, C.out, C.one_line, C.must_read, C.pick, C.num, C.brief, C.count

local verbs = {}

local PLAYBACK_FIELDS = {
  version = true, length = true, loop = true, looped = true, speed = true, autoplay = true, priority = true,
  mask = true, blend = true, space = true, absolute = true, joints = true, keyframes = true, euler = true, skeleton = true,
  retarget = true, markers = true, events = true, sounds = true, plays = true, properties = true,
}
local EDITOR_FIELDS = { "rig", "fps", "viewModel" }

-- The channels of a joint, in words: "rotation 3 keys (Euler), position 2 keys";
-- channels: a compressed clip's words for them instead.
local function joint_line(src, layout, name, channels)
  local parts = {}
  if layout == "poses" then
    local n, pos, rot = #src.keyframes, 0, 0
    for _, kf in ipairs(src.keyframes) do
      local p = not E.absent(kf.poses) and kf.poses[name]
      if p and not E.absent(p.position) then pos = pos + 1 end
      if p and (not E.absent(p.rotation) or not E.absent(p.angles)) then rot = rot + 1 end
    end
    if pos > 0 then parts[#parts + 1] = string.format("position in %d of %d keyframes", pos, n) end
    if rot > 0 then parts[#parts + 1] = string.format("rotation in %d of %d keyframes", rot, n) end
    return table.concat(parts, ", ")
  end
  local j = src.joints[name]
  for _, ch in ipairs { "position", "rotation", "scale" } do
    local keys = j[ch]
    if channels then
      parts[#parts + 1] = channels[ch]
    elseif not E.absent(keys) then
      local s = ch .. " " .. count(#keys, "key")
      if ch == "rotation" and #keys > 0 then s = s .. (#keys[1][2] == 4 and " (quaternion)" or " (Euler)") end
      local mods = not E.absent(j.modifiers) and j.modifiers[ch]
      if mods and #mods > 0 then s = s .. ", " .. count(#mods, "modifier") end
      parts[#parts + 1] = s
    end
  end
  local flags = {}
  if not E.absent(j.weight) then flags[#flags + 1] = "weight " .. num(j.weight) end
  if j.muted == true then flags[#flags + 1] = "muted" end
  if j.locked == true then flags[#flags + 1] = "locked" end
  if type(j.interpolation) == "string" then flags[#flags + 1] = "new keys " .. j.interpolation end
  local s = #parts > 0 and table.concat(parts, ", ") or channels and "no channels (its rest)" or "no keys"
  if #flags > 0 then s = s .. "; " .. table.concat(flags, ", ") end
  return s
end

-- A compressed clip's channel, in words: "rotation 11 keys, y, z, w at 9,
-- 7, 0 bits, x rebuilt (52 bytes)"; nil when absent.
local function packed_channel(ch, what)
  if ch.kind == "absent" then return nil end
  if ch.kind == "identity" then return what .. " identity (no bytes)" end
  local how = "float32"
  if ch.kind == "narrow" then
    local names = {}
    for _, a in ipairs { "x", "y", "z", "w" } do
      if a ~= ch.dropped then names[#names + 1] = a end
    end
    how = string.format("%s at %s bits", table.concat(names, ", ", 1, 3), table.concat(ch.bits, ", "))
      .. (ch.dropped and (", " .. ch.dropped .. " rebuilt") or " over its range")
  end
  return string.format("%s %s, %s (%s)", what, count(ch.keys, "key"), how, count(ch.bytes, "byte"))
end

-- What a compressed clip (an .animc file's) holds: its rate, bytes, error
-- bound and measured errors, its channels by kind and their keys; and a
-- joint's line of its channels.
local function info_packed(c, path)
  local f, p = c:compression(), animc.channels(c)
  local function field(k, v) out("  %-10s %s", k, v) end
  out(bold("compressed"))
  field("rate", string.format("%s frames a second (frames 0 to %d)", num(p.rate), p.frames - 1))
  field("bytes", string.format("%d raw (10 float32 a joint at each of the densest channel's key times), %d packed,"
    .. " ratio %.2f:1", f.bytes_raw, f.bytes, f.ratio))
  local fsize = path:lower():match("%.animc$") and C.file_size(path)
  if fsize then field("file", count(fsize, "byte")) end
  field("error", string.format("worst %.3g, 99th percentile %.3g on the rig's joints (the bound %.3g at distance %.3g)",
    f.worst, f.p99, f.error, f.distance))
  local n = { absent = 0, identity = 0, narrow = 0, wide = 0 }
  local keys, bytes = 0, 0
  for _, j in ipairs(p.joints) do
    for _, ch in pairs(j) do
      n[ch.kind] = n[ch.kind] + 1
      keys, bytes = keys + ch.keys, bytes + ch.bytes
    end
  end
  field("channels", string.format("%d narrow (bits a number chosen per channel; rotations: three components, the"
    .. " fourth rebuilt), %d wide (float32), %d identity,"
    .. " %d absent", n.narrow, n.wide, n.identity, n.absent))
  field("keys", string.format("%d (%s in channels, %s of header)", keys, count(bytes, "byte"),
    count(f.bytes - bytes, "byte")))
  local words = {}
  for i, j in ipairs(p.joints) do
    words[i] = {}
    for ch, v in pairs(j) do words[i][ch] = packed_channel(v, ch) end
  end
  return words
end

local function info_clip(c, path)
  local info = clipmod.info(c)
  local src = info.source
  local function field(k, v) out("  %-10s %s", k, v) end
  field("version", string.format("%s (%s)", num(info.version), c.compressed and "compressed: linear keys at frames"
    or info.layout == "poses" and "poses at keyframes" or "curves per joint"))
  field("length", num(info.length) .. " s")
  field("loop", info.loop)
  local pname = codes.name("priority", info.priority)
  field("priority", num(info.priority) .. (pname and (" (" .. pname .. ")") or ""))
  field("speed", num(info.speed))
  field("euler", info.euler)
  field("blend", info.blend)
  field("space", info.space)
  if info.absolute then field("absolute", "true (channels are the joints' local transforms)") end
  field("mask", info.mask and table.concat(info.mask, ", ") or "all joints")
  field("autoplay", tostring(info.autoplay))
  if info.approx then
    field("approx", string.format("%s: %s", C.approx_text(info.approx), info.approx.note))
  end
  local packed = c.compressed and info_packed(c, path)
  local names = c:joints()
  out(bold(string.format("joints (%d)", #names)))
  local width = 8
  for _, n in ipairs(names) do width = math.max(width, #n) end
  for i, n in ipairs(names) do
    local line = joint_line(src, info.layout, n, packed and packed[i])
    out("  %-" .. width .. "s  %s", one_line(n), one_line(line))
  end
  local props = clipmod.info(c).properties or {}
  if #props > 0 then
    out(bold(string.format("properties (%d)", #props)))
    local pw = 8
    for _, p in ipairs(props) do pw = math.max(pw, #p.name) end
    for _, p in ipairs(props) do
      local def = src.properties[p.name]
      local keys = E.is_array(def) and def or def.keys
      local mods = not E.is_array(def) and not E.absent(def.modifiers) and #def.modifiers or 0
      out("  %-" .. pw .. "s  %s, %s%s%s", one_line(p.name), count(p.arity, "component"), count(#keys, "key"),
        mods > 0 and (", " .. count(mods, "modifier")) or "", (not E.is_array(def) and def.discrete == true) and ", discrete" or "")
    end
  end
  local ms, es, ss, ps = c:markers(), c:events(), c:sounds(), c:plays()
  out(bold(string.format("markers (%d)", #ms)))
  for _, m in ipairs(ms) do out("  %-8s %s%s", num(m.time), one_line(m.name), m.value and ("  " .. one_line(m.value)) or "") end
  out(bold(string.format("events (%d)", #es)))
  for _, e in ipairs(es) do
    local payload = e.payload ~= nil and ("  " .. brief(e.payload)) or ""
    out("  %-8s %s%s  on %s", num(e.time), one_line(e.name), one_line(payload), e.on)
  end
  out(bold(string.format("sounds (%d)", #ss)))
  for _, s in ipairs(ss) do out("  %-8s %s  volume %s  pitch %s", num(s.time), one_line(s.sound), num(s.volume), num(s.pitch)) end
  out(bold(string.format("plays (%d)", #ps)))
  for _, p in ipairs(ps) do out("  %-8s %s  fade %s", num(p.time), one_line(p.clip), num(p.fade)) end
  -- what the engine reads past: the editor's fields and any unknown ones
  local editor = {}
  for _, k in ipairs(EDITOR_FIELDS) do
    local v = src[k]
    if not E.absent(v) then editor[#editor + 1] = { k, type(v) == "string" and v or brief(v) } end
  end
  if info.skeleton then
    local n = 0
    for _ in pairs(info.skeleton) do n = n + 1 end
    editor[#editor + 1] = { "skeleton", count(n, "joint") }
  end
  if info.retarget then
    local n = 0
    for _ in pairs(info.retarget) do n = n + 1 end
    editor[#editor + 1] = { "retarget", count(n, "entry"):gsub("entrys", "entries") }
  end
  local other = {}
  for k in pairs(src) do
    local known = PLAYBACK_FIELDS[k]
    for _, e in ipairs(EDITOR_FIELDS) do known = known or e == k end
    if not known then other[#other + 1] = tostring(k) end
  end
  byteorder.sort(other)
  if #other > 0 then editor[#editor + 1] = { "other", table.concat(other, ", ") } end
  out(bold(string.format("editor (%d)", #editor)))
  for _, e in ipairs(editor) do field(e[1], e[2]) end
end

-- A retarget map: its scale and each clip joint's rig joint and rests.
local function info_map(m)
  local function field(k, v) out("  %-10s %s", k, v) end
  local info = retarget.info(m)
  field("version", "1 (retarget map)")
  field("scale", num(info.scale or 1))
  local names = {}
  for name in pairs(info.joints) do names[#names + 1] = name end
  byteorder.sort(names)
  out("")
  out(bold(string.format("joints (%d)", #names)))
  local width = 0
  for _, n in ipairs(names) do width = math.max(width, #one_line(n)) end
  for _, n in ipairs(names) do
    local e = info.joints[n]
    local to = e.to == "" and "(kept off the rig)" or e.to
    local rests = {}
    if e.source then rests[#rests + 1] = "source rest " .. brief(e.source) end
    if e.target then rests[#rests + 1] = "target rest " .. brief(e.target) end
    out("  %-" .. width .. "s  -> %s%s", one_line(n), one_line(to), #rests > 0 and ("  " .. table.concat(rests, ", ")) or "")
  end
end

verbs.info = {
  usage = "anim info FILE [--animation NAME]",
  options = { animation = true },
  summary = "print what a clip holds",
  help = [[
Prints a clip's playback fields (version, length, loop, priority, speed,
euler, blend, space, mask, autoplay), its joints with their channels and key
counts (and weight, muted, modifiers), its markers, events, sounds and plays,
and the fields only the editor reads (rig, fps, viewModel, skeleton,
retarget, unknown fields).

FILE is a .anim file of any version, a legacy .xml animation, or a
Blockbench project (.bbmodel, Animated Java .ajblueprint), a Bedrock /
GeckoLib animation file or the JSON of an Aseprite sprite sheet (a clip
per tag, and all) (every animation in it, or only the one --animation
NAME names), told apart by their content, not their names.  The import's
warnings (what it read otherwise than the game, what it could not import)
are listed last, one a line: path: json.path: message.

A compressed clip (.animc) shows what its file holds: the frame rate, the
bytes (raw, packed, the ratio; the file's), the error bound and the worst
and 99th-percentile errors measured, channels by kind (narrow: the bits
chosen per channel, a rotation's fourth component rebuilt; wide: float32;
identity; absent) and the keys, and
each joint's channels with their keys and bytes.

A 2D skeleton (DragonBones _ske.json, with the _tex.json beside it; Spine
JSON) shows its skeleton first: format and version, bones with parents and
inherit modes, slots, skins with their attachments by type, IK and
transform constraints, draw orders, events and what is kept as data.

A state machine (*.animgraph) is listed as its parameters (type,
default), its layers (blend, weight, mask, entry), each layer's states
(their paths, air/fall inside a sub-machine, and what they play) and
transitions (from -> to, conditions, exit time, duration, curve), with
the counts, then the warnings anim validate gives.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if graph.is_graph(pos[1]) then
      if opt.animation then fail(USAGE, "--animation: a state machine (.animgraph) has no animations") end
      return graph.info(pos[1])
    end
    local list, warnings, res = must_read(pos[1], true)
    local listed = 0
    -- (--animation NAME not found: says which names there are, before printing anything)
    if opt.animation and not (list[1] and list[1].map) then pick(pos[1], list, opt.animation) end
    if res and res.skeleton then
      -- a 2D file: its skeleton first
      skeleton.info(pos[1], res)
      listed = 1
    end
    if list[1] and list[1].map then
      out(bold(one_line(pos[1])))
      info_map(list[1].map)
      list = {}
      listed = 1
    end
    for _, e in ipairs(list) do
      if not opt.animation or e.name == opt.animation then
        if listed > 0 then out("") end
        out(bold(one_line(pos[1] .. (e.name and ("  animation " .. e.name) or ""))))
        info_clip(e.clip, pos[1])
        listed = listed + 1
      end
    end
    -- what the import could not say as the file does (all of them, or the
    -- named animation's and the file's own)
    local ws = {}
    for _, w in ipairs(warnings) do
      if not opt.animation or w.animation == nil or w.animation == opt.animation then ws[#ws + 1] = w end
    end
    if #ws > 0 then
      out("")
      out(bold(string.format("warnings (%d)", #ws)))
      for _, w in ipairs(ws) do out("  %s", one_line(w.text)) end
    end
    return 0
  end,
}

return verbs
