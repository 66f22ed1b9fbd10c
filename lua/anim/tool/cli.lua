-- cli.lua: the verbs of the `anim` command (bin/anim only finds the
-- modules and calls main).  docs/cli.md is the reference.
--
-- The pictures in docs/img are made by the command itself; to regenerate
-- them from the checkout (after `make build`), without make:
--   bin/anim plot  examples/clips/walk.anim -o docs/img/walk-curves.svg
--   bin/anim sheet examples/clips/walk.anim -o docs/img/walk-sheet.svg
--
-- Exit status: 0 success, 1 bad input (a file that is missing or does not
-- load, a clip that cannot be written), 2 a wrong command line.
local anim = require "anim"
local clipmod = require "anim.format.clip"
local argparse = require "argparse"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local suggest = require "anim.base.suggest"
local json = require "anim.base.json"
local fields = require "anim.format.fields"
local retarget = require "anim.format.retarget"
local bind = require "anim.format.bind"
local codes = require "anim.base.codes"
local plot = require "anim.tool.plot"
local sheet = require "anim.tool.sheet"

local M = {}

-- Failures ------------------------------------------------------------------------------

local Exit = {}
local USAGE, INPUT = 2, 1

-- Stops the verb: message to stderr, status `code`.
local function fail(code, fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  error(setmetatable({ code = code, msg = msg }, Exit), 0)
end

-- Output --------------------------------------------------------------------------------

-- Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
local colour_on
local function colour(code, s)
  if colour_on == nil then
    local nc = os.getenv("NO_COLOR")
    colour_on = (nc == nil or nc == "") and compat.execute("test -t 1") == true
  end
  if not colour_on then return s end
  return "\27[" .. code .. "m" .. s .. "\27[0m"
end
local function bold(s) return colour("1", s) end

local function out(fmt, ...)
  io.stdout:write(select("#", ...) > 0 and string.format(fmt, ...) or fmt, "\n")
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Text on one line: control characters (a newline in a file or joint
-- name, in Molang text) written as \n, \r, \t or \ddd.
local CONTROL = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
local function one_line(s)
  return (s:gsub("%c", function(c) return CONTROL[c] or string.format("\\%03d", c:byte()) end))
end

-- A name of a file or of the command line as a message quotes it
-- (escaped, cut at E.SHOWN bytes), and a list of names (at most 20 of
-- them, each shown, the rest counted).
local shown, shown_list = E.shown, E.shown_list

-- Writes text to path ("-": standard output) through a temporary file
-- renamed over it, so a reader never sees half a picture.
local function write_output(path, text)
  if path == "-" then
    io.stdout:write(text)
    return
  end
  local tmp = string.format("%s.tmp%06x", path, math.random(0, 0xffffff))
  local f, err = io.open(tmp, "wb")
  if not f then fail(INPUT, "cannot write %s: %s", shown(path), tostring(err):gsub("^.-: ", "")) end
  local ok, werr = f:write(text)
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(tmp)
    fail(INPUT, "cannot write %s: %s", shown(path), tostring(werr or cerr))
  end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then
    os.remove(tmp)
    fail(INPUT, "cannot write %s: %s", shown(path), tostring(rerr):gsub("^.-: ", ""))
  end
end

-- Reading clips of any format ---------------------------------------------------------------

-- What a file's name suggests: "xml", "blockbench" or "anim".
local function kind_by_name(path)
  local lower = path:lower()
  if lower:match("%.xml$") then return "xml" end
  if lower:match("%.retarget$") then return "retarget" end
  if lower:match("%.gltf$") or lower:match("%.glb$") then return "gltf" end
  if lower:match("%.bbmodel$") or lower:match("%.json$") or lower:match("%.ajblueprint$") or lower:match("%.ajmodel$") then
    return lower:match("%.aseprite%.json$") and "aseprite" or "blockbench"
  end
  return "anim"
end

-- What reads a file, by its content: XML by its first element; a JSON
-- object with format_version and animations (or minecraft:geometry, or
-- animation_controllers), or a project with meta, outliner and
-- animations, is Blockbench or Bedrock; JSON with joints, keyframes or a
-- version is .anim.  Only when the content says neither (an empty object,
-- text that is not JSON) does the name decide.
local function kind_of(path, text)
  if text then
    local first = text:gsub("^\239\187\191", ""):match("^%s*(.)")
    if first == "<" then return "xml", true end
    if text:sub(1, 4) == "glTF" then return "gltf", true end -- a .glb's magic
    if first == "{" or first == "[" or first == "/" then
      local ok, doc = pcall(json.decode_lenient, text)
      if ok and type(doc) == "table" then
        if not E.is_array(doc) and (
          (not E.absent(doc.format_version) and (not E.absent(doc.animations) or not E.absent(doc["minecraft:geometry"])
            or not E.absent(doc.animation_controllers)))
          or (not E.absent(doc.animations) and (type(doc.meta) == "table" or not E.absent(doc.outliner)))
          or (type(doc.meta) == "table" and not E.absent(doc.outliner))) then
          return "blockbench", true
        end
        -- the JSON Aseprite writes beside a sprite sheet: frames, no joints
        if not E.is_array(doc) and type(doc.frames) == "table" and E.absent(doc.joints) and E.absent(doc.keyframes) then
          return "aseprite", true
        end
        if type(doc.joints) == "table" and next(doc.joints) ~= nil and E.absent(doc.keyframes) then
          -- a retarget map's entries are names or { to = name }; a clip's joints are objects of channels
          local map = true
          for _, j in pairs(doc.joints) do
            if not (type(j) == "string" or (type(j) == "table" and j.to ~= nil)) then map = false break end
          end
          if map then return "retarget", true end
        end
        if type(doc.asset) == "table" and not E.absent(doc.asset.version) then return "gltf", true end
        if not E.absent(doc.joints) or not E.absent(doc.keyframes) or not E.absent(doc.version) then
          return kind_by_name(path) == "retarget" and "retarget" or "anim", true
        end
      end
    end
  end
  return kind_by_name(path)
end

local IMPORTER = { xml = "import_xml", blockbench = "import_blockbench", gltf = "import_gltf", aseprite = "import_aseprite" }
local FORMAT_NAME = { xml = "legacy XML", blockbench = "Blockbench", gltf = "glTF", aseprite = "Aseprite" }

-- The text of a file (within anim.limits.bytes), or nil when it cannot be
-- read (the loader then says why).
local function peek(path)
  local ok, text = pcall(json.read_file, path)
  if ok then return text end
  return nil
end

-- The clips of a file: { { name = animation name or nil, clip = clip }, ... }
-- (a retarget map: { { map = map } })
-- sorted by name, and the import's warnings ({ { animation, channel,
-- message, not_imported } }, "path: channel: message" in .text), or nil,
-- "path: json.path: message" (read_clips, below).

-- The fields of a .anim or .retarget file that the format does not know,
-- as warnings (the loaders keep them): "path: json.path: unknown field
-- (did you mean 'x'?)".
local function unknown_fields(path, text, kind)
  local ok, doc = pcall(json.decode, text)
  local list = {}
  if not ok then return list end
  for _, u in ipairs(fields.unknown(doc, kind)) do
    list[#list + 1] = { text = path .. ": " .. fields.message(u), unknown = true }
  end
  return list
end

local function read_clips(path)
  local text = peek(path)
  local kind = kind_of(path, text)
  if kind == "anim" then
    local c, err = anim.load(path)
    if not c then return nil, err end
    return { { clip = c } }, unknown_fields(path, text, "clip")
  end
  if kind == "retarget" then
    local m, err = anim.load_retarget(path)
    if not m then return nil, err end
    return { { map = m } }, unknown_fields(path, text, "retarget")
  end
  local fn = anim[IMPORTER[kind]]
  if not fn then
    return nil, string.format("%s: cannot read %s files: this anim has no anim.%s", path, FORMAT_NAME[kind], IMPORTER[kind])
  end
  local res, err = fn(path)
  if not res then return nil, err end
  if kind == "xml" then return { { clip = res } }, {} end
  if kind == "aseprite" then err = nil end -- (its second result is the sheet: no warnings)
  local warnings = {}
  if kind == "gltf" then
    -- what the importer skipped, as warnings of the file
    for i, w in ipairs(res.warnings) do warnings[i] = { text = path .. ": " .. w } end
    res = res.clips
    err = nil
  end
  for _, w in ipairs(type(err) == "table" and err or {}) do
    local where = (w.channel and w.channel ~= "") and (E.path(w.channel) .. ": ") or ""
    warnings[#warnings + 1] = { text = shown(path) .. ": " .. where .. w.message, animation = w.animation,
      not_imported = w.message:match("^not imported") ~= nil or w.message:match("^%d+ animations not imported") ~= nil }
  end
  local list = {}
  for name, c in pairs(res) do list[#list + 1] = { name = name, clip = c } end
  table.sort(list, function(a, b) return a.name < b.name end)
  return list, warnings
end

-- The clips of a file, or stop with its loader's message.
local function must_read(path, maps_too)
  local list, warnings = read_clips(path)
  if not list then fail(INPUT, "%s", warnings) end
  if list[1] and list[1].map and not maps_too then
    fail(INPUT, "%s: a retarget map, not a clip (anim info shows it)", shown(path))
  end
  if #list == 0 then
    -- none imported: why the first was not
    for _, w in ipairs(warnings) do
      if w.not_imported then fail(INPUT, "%s", w.text) end
    end
    fail(INPUT, "%s: no animations in the file", shown(path))
  end
  return list, warnings
end

-- The one clip of a list a verb works on: --animation picks one of a
-- file's several.
local function pick(path, list, animation)
  if animation then
    for _, e in ipairs(list) do if e.name == animation then return e.clip end end
    local names = {}
    for i, e in ipairs(list) do names[i] = e.name or "(unnamed)" end
    fail(USAGE, "%s: no animation '%s' (it has: %s)", shown(path), shown(animation), shown_list(names))
  end
  if #list > 1 then
    local names = {}
    for i, e in ipairs(list) do names[i] = e.name end
    fail(USAGE, "%s holds %d animations (%s): pick one with --animation NAME", shown(path), #list, shown_list(names))
  end
  return list[1].clip
end

local function one_clip(path, animation) return pick(path, must_read(path), animation) end

-- Numbers and text ---------------------------------------------------------------------------

local num = E.num

local function fixed(x)
  if x ~= x then return "nan" end
  local s = string.format("%.6f", x):gsub("0+$", ""):gsub("%.$", "")
  if s == "-0" then s = "0" end
  return s
end

-- A short one-line JSON-like text of a payload, for `info`.
local function brief(v, depth)
  depth = depth or 0
  if E.is_null(v) then return "null" end
  if type(v) == "string" then return string.format("%q", v):gsub("\\\n", "\\n") end
  if type(v) == "number" then return num(v) end
  if type(v) ~= "table" then return tostring(v) end
  if depth > 3 then return "…" end
  local parts = {}
  if next(v) == nil or E.is_array(v) then
    for i, x in ipairs(v) do parts[i] = brief(x, depth + 1) end
    return "[" .. table.concat(parts, ", ") .. "]"
  end
  local ks = {}
  for k in pairs(v) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  for i, k in ipairs(ks) do parts[i] = brief(k) .. ": " .. brief(v[k], depth + 1) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- Rotations ------------------------------------------------------------------------------------

local AXIS = { x = 1, y = 2, z = 3 }

-- Euler angles in degrees, {x, y, z}, of a unit quaternion for an order
-- "abc" meaning R = R_a * R_b * R_c (SEMANTICS 1, three.js).  Between
-- -180 and 180, the middle angle between -90 and 90.
function M.euler_of(q, order)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local m = {
    { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
    { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
    { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) },
  }
  local i, j, k = AXIS[order:sub(1, 1)], AXIS[order:sub(2, 2)], AXIS[order:sub(3, 3)]
  local s = (j - i) % 3 == 1 and 1 or -1 -- xyz, yzx, zxy; or the others
  local mik = math.max(-1, math.min(1, m[i][k]))
  local a, c
  local b = math.asin(s * mik)
  if math.abs(mik) < 0.9999999 then
    a = compat.atan2(-s * m[j][k], m[k][k])
    c = compat.atan2(-s * m[i][j], m[i][i])
  else -- gimbal lock: the first and last axes turn about one line
    a = compat.atan2(s * m[k][j], m[j][j])
    c = 0
  end
  local e = {}
  e[i], e[j], e[k] = math.deg(a), math.deg(b), math.deg(c)
  return e
end

-- Verbs -----------------------------------------------------------------------------------------

local verbs = {}
local ORDER = { "info", "validate", "convert", "sample", "plot", "sheet" }

local PLAYBACK_FIELDS = {
  version = true, length = true, loop = true, looped = true, speed = true, autoplay = true, priority = true,
  mask = true, blend = true, space = true, absolute = true, joints = true, keyframes = true, euler = true, skeleton = true,
  retarget = true, markers = true, events = true, sounds = true, plays = true, properties = true,
}
local EDITOR_FIELDS = { "rig", "fps", "viewModel" }

local function count(list, word)
  return string.format("%d %s%s", list, word, list == 1 and "" or "s")
end

-- The channels of a joint, in words: "rotation 3 keys (Euler), position 2 keys".
local function joint_line(src, layout, name)
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
    if not E.absent(keys) then
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
  local s = #parts > 0 and table.concat(parts, ", ") or "no keys"
  if #flags > 0 then s = s .. "; " .. table.concat(flags, ", ") end
  return s
end

local function info_clip(c)
  local info = clipmod.info(c)
  local src = info.source
  local function field(k, v) out("  %-10s %s", k, v) end
  field("version", string.format("%s (%s)", num(info.version),
    info.layout == "poses" and "poses at keyframes" or "curves per joint"))
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
    field("approx", string.format("within %.3g: %s", info.approx.bound, info.approx.note))
  end
  local names = c:joints()
  out(bold(string.format("joints (%d)", #names)))
  local width = 8
  for _, n in ipairs(names) do width = math.max(width, #n) end
  for _, n in ipairs(names) do out("  %-" .. width .. "s  %s", one_line(n), one_line(joint_line(src, info.layout, n))) end
  local props = clipmod.info(c).properties or {}
  if #props > 0 then
    out(bold(string.format("properties (%d)", #props)))
    local pw = 8
    for _, p in ipairs(props) do pw = math.max(pw, #p.name) end
    for _, p in ipairs(props) do
      local def = src.properties[p.name]
      local keys = E.is_array(def) and def or def.keys
      local mods = not E.is_array(def) and not E.absent(def.modifiers) and #def.modifiers or 0
      out("  %-" .. pw .. "s  %s, %s%s", one_line(p.name), count(p.arity, "component"), count(#keys, "key"),
        mods > 0 and (", " .. count(mods, "modifier")) or "")
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
  table.sort(other)
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
  table.sort(names)
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
are listed last, one a line: path: json.path: message.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    local list, warnings = must_read(pos[1], true)
    local listed = 0
    if list[1].map then
      out(bold(one_line(pos[1])))
      info_map(list[1].map)
      list = {}
      listed = 1
    end
    for _, e in ipairs(list) do
      if not opt.animation or e.name == opt.animation then
        if listed > 0 then out("") end
        out(bold(one_line(pos[1] .. (e.name and ("  animation " .. e.name) or ""))))
        info_clip(e.clip)
        listed = listed + 1
      end
    end
    if listed == 0 then pick(pos[1], list, opt.animation) end -- says which names there are
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

-- validate --------------------------------------------------------------------------------

-- Whether a directory walk checks this file: every *.anim, *.xml,
-- *.bbmodel, *.animation.json, *.ajblueprint and *.ajmodel, and the other
-- *.json files whose content is one of the formats (a pack's
-- manifest.json is not a clip file), when an importer of this anim reads it.
-- Whether a directory walk checks this file, and when not, why.
local function wanted(path)
  if path:match("%.anim$") or path:match("%.retarget$") then return true end
  local text = peek(path)
  local kind, by_content = kind_of(path, text or "")
  if not text then return false, "cannot be read" end
  local lower = path:lower()
  if by_content then
    if kind == "anim" or kind == "retarget" then return true end
    if anim[IMPORTER[kind]] == nil then return false, "a " .. FORMAT_NAME[kind] .. " file, and this anim cannot import them" end
    return true
  end
  -- names that claim a format are checked whatever they hold
  if lower:match("%.xml$") or lower:match("%.bbmodel$") or lower:match("%.ajblueprint$") or lower:match("%.ajmodel$")
    or lower:match("%.animations?%.json$") then
    local by_name = kind_by_name(path)
    if anim[IMPORTER[by_name]] == nil then
      return false, "a " .. FORMAT_NAME[by_name] .. " file, and this anim cannot import them"
    end
    return true
  end
  if lower:match("%.json$") then
    return false, "JSON, but neither a clip, a retarget map, a Blockbench or Bedrock file nor an Aseprite sheet"
  end
  return false, "not a clip file (" .. (lower:match("%.([%w]+)$") and ("." .. lower:match("%.([%w]+)$")) or "no extension") .. ")"
end

-- Files under dir, sorted byte-wise, through find(1): Lua has no
-- directory listing and lfs is not a dependency.  -print0 keeps any byte
-- of a name, newlines included.  Symbolic links are followed (-L), to
-- folders and to files alike; a link that leads nowhere is still type l
-- then, and is listed so that it is reported as a file that cannot be
-- opened.  A link that loops back is walked once (find skips the loop).
local function files_under(dir)
  local arg = dir:sub(1, 1) == "-" and "./" .. dir or dir
  local p = assert(io.popen("find -L " .. quote(arg) .. " \\( -type f -o -type l \\) -print0 2>/dev/null"))
  local text = p:read("*a")
  p:close()
  local list, skipped = {}, {}
  for f in text:gmatch("([^%z]+)%z") do
    local ok, why = wanted(f)
    if ok then list[#list + 1] = f else skipped[#skipped + 1] = { path = f, why = why } end
  end
  table.sort(list, function(a, b) return a < b end)
  table.sort(skipped, function(a, b) return a.path < b.path end)
  return list, skipped
end

-- The rig `anim validate --rig` checks the clips against: "player", or
-- the skeleton of a file's first clip that has one (a .bbmodel).
local function rig_for(name)
  if name == "player" then return anim.rig("player"), "player" end
  local list = read_clips(name)
  if list then
    for _, e in ipairs(list) do
      local sk = e.clip and clipmod.info(e.clip).skeleton
      if sk and next(sk) ~= nil then
        local joints = {}
        for n, j in pairs(sk) do joints[#joints + 1] = { name = n, parent = j.parent, position = j.position, rotation = j.rotation } end
        table.sort(joints, function(a, b) return a.name < b.name end)
        local rig = anim.rig({ joints = joints }, name)
        if rig then return rig, name end
      end
    end
  end
  fail(USAGE, "--rig: '%s' is neither player nor a file whose clips have a skeleton", shown(name))
end

verbs.validate = {
  usage = "anim validate FILE|DIR... [--strict] [--rig player|FILE]",
  options = { rig = true },
  flags = { strict = true },
  summary = "check clips, one line per problem",
  help = [[
Loads every FILE, and every clip file under every DIR (recursively: *.anim,
*.retarget, and the *.xml, *.json, *.bbmodel, *.ajblueprint and *.ajmodel
files -- Aseprite sheets' JSON too -- whose content is a format an importer here reads, told apart by
their content), and prints one line per file that does not load, one per
warning of an import (an animation it could not import, or a value it read
otherwise than the game), and one per field of a .anim or .retarget file
that the format does not know (kept by the loaders; a misspelt field
gets a suggestion):

  path: json.path: message

on standard output, then the files a DIR held that are not clip files,
each with why, and a count, on standard error.  --rig player (or --rig
FILE: the skeleton of a .bbmodel's clips) also lists, per clip, the joints
that play on no joint of that rig, with the closest name.  The status is 0
when every file loads with all its animations (warnings do not change it,
unless --strict: then any warning is a problem too), 1 otherwise.  A path
that does not exist is a problem of its own ("path: cannot open file:
...").  Symbolic links to folders and files are followed.  Control
characters in a line (a newline in a name) are written \n, \r, \t or
\ddd, so that each problem is one line.]],
  run = function(pos, opt)
    if #pos == 0 then fail(USAGE, "expected at least one FILE or DIR") end
    local rig, rigname
    if opt.rig then rig, rigname = rig_for(opt.rig) end
    local files, bad, nwarn, nskip = 0, 0, 0, 0
    local function check(path)
      files = files + 1
      local list, warnings = read_clips(path)
      if not list then
        bad = bad + 1
        out("%s", one_line(warnings))
        return
      end
      local any = #list == 0
      if #list == 0 and #warnings == 0 then out("%s", one_line(path .. ": no animations in the file")) end
      for _, w in ipairs(warnings) do
        out("%s", one_line(w.text))
        nwarn = nwarn + 1
        any = any or w.not_imported or opt.strict
      end
      if rig then
        for _, e in ipairs(list) do
          if e.clip then
            for _, u in ipairs(bind.unmatched(e.clip, rig)) do
              out("%s", one_line(string.format("%s: %sjoints.%s: plays on no joint of rig '%s'%s", shown(path),
                e.name and ("animation " .. shown(e.name) .. ": ") or "", shown(u.joint), shown(rigname),
                u.suggestion and (" (did you mean '" .. shown(u.suggestion) .. "'?)") or "")))
              nwarn = nwarn + 1
              any = any or opt.strict
            end
          end
        end
      end
      if any then bad = bad + 1 end
    end
    for _, p in ipairs(pos) do
      if compat.execute("test -d " .. quote(p)) then
        local list, skipped = files_under(p)
        if #list == 0 then io.stderr:write("anim validate: ", one_line(p), ": no clip files in it\n") end
        for _, f in ipairs(list) do check(f) end
        for _, sk in ipairs(skipped) do
          io.stderr:write("anim validate: skipped ", one_line(sk.path), ": ", sk.why, "\n")
          nskip = nskip + 1
        end
      else
        check(p)
      end
    end
    io.stderr:write(string.format("anim validate: %s checked, %s%s%s\n", count(files, "file"),
      bad == 0 and "all good" or (count(bad, "file") .. " with problems"),
      nwarn > 0 and (" (" .. count(nwarn, "warning") .. ")") or "",
      nskip > 0 and (", " .. count(nskip, "file") .. " skipped") or ""))
    return bad == 0 and 0 or 1
  end,
}

-- convert --------------------------------------------------------------------------------------

-- OUT with an animation name inserted before its .anim ("knight.anim" and
-- "walk" give "knight.walk.anim"); characters a file name should not hold
-- become "_".  `suffix` (a number) is added to the name: "knight.walk-2.anim".
function M.output_name(outp, name, suffix)
  local safe = name:gsub("[^%w%._%-]", "_")
  if suffix then safe = safe .. "-" .. suffix end
  local stem = outp:match("^(.*)%.anim$")
  if stem then return stem .. "." .. safe .. ".anim" end
  return outp .. "." .. safe .. ".anim"
end

-- The output file of each of `names` (in the order given, byte order of
-- the names), all different: names that give the same file name -- after
-- the "_" rule, and ignoring case, as a case-insensitive file system would
-- -- keep it for the first of them; each later one gets "-2", "-3", ...,
-- the first number whose file no other animation has.
function M.output_names(outp, names)
  local taken, paths = {}, {}
  for _, n in ipairs(names) do
    local k = M.output_name(outp, n):lower()
    taken[k] = (taken[k] or 0) + 1
  end
  local used = {}
  for i, n in ipairs(names) do
    local path = M.output_name(outp, n)
    if used[path:lower()] then
      local k = 2
      while taken[M.output_name(outp, n, k):lower()] or used[M.output_name(outp, n, k):lower()] do k = k + 1 end
      path = M.output_name(outp, n, k)
    end
    used[path:lower()] = true
    paths[i] = path
  end
  return paths
end

-- Is path a glTF file to write?
local function gltf_out(path)
  local lower = path:lower()
  return lower:match("%.gltf$") ~= nil or lower:match("%.glb$") ~= nil
end

-- Writes clips (a list) as one glTF file: the node tree of their skeletons
-- when they have one, else the built-in player rig's.
local function export_gltf(clips, path, src_label)
  local rig
  local has_skeleton = false
  for _, c in ipairs(clips) do
    if clipmod.info(c).skeleton then has_skeleton = true end
  end
  if not has_skeleton then rig = anim.rig("player") end
  local approx, err
  if rig then approx, err = anim.export_gltf(clips, rig, path) else approx, err = anim.export_gltf(clips, path) end
  if not approx then fail(INPUT, "%s", err) end
  io.stderr:write(string.format("anim convert: %s -> %s\n", src_label, path))
  for _, a in ipairs(approx) do
    io.stderr:write(string.format("anim convert: %s: clip %s, joint %s, %s: approximated within %.3g %s\n", shown(path),
      shown(a.clip), shown(a.joint), a.channel, a.error, a.channel == "rotation" and "radians" or a.channel == "position" and "units" or ""))
  end
end

local function save_one(c, path, src_label)
  if path == "-" then
    local text, approx = anim.encode(c, { version = 3 })
    if not text then fail(INPUT, "%s", approx) end
    io.stdout:write(text)
    return approx
  end
  -- the folders of OUT are made when missing (mkdir -p)
  local dir = path:match("^(.*)/[^/]*$")
  if dir and dir ~= "" and not compat.execute("test -d " .. quote(dir)) then
    if not compat.execute("mkdir -p " .. quote(dir) .. " 2>/dev/null") then
      fail(INPUT, "cannot write %s: cannot make the folder %s", shown(path), shown(dir))
    end
  end
  local ok, approx = anim.save(c, path, { version = 3 })
  if not ok then fail(INPUT, "%s", approx) end
  io.stderr:write(string.format("anim convert: %s -> %s\n", src_label, path))
  return approx
end

verbs.convert = {
  usage = "anim convert IN -o OUT.anim|OUT.gltf|OUT.glb [--animation NAME]",
  options = { output = true, animation = true },
  summary = "write any readable clip as a version 3 .anim, or clips as glTF",
  help = [[
Reads IN (a .anim file of any version, a legacy .xml animation, a
Blockbench, Animated Java, Bedrock or GeckoLib file, or an Aseprite sheet's
JSON, told apart by their content) and writes it as a version 3
.anim file, atomically (a temporary file renamed over OUT).  -o - writes the
JSON to standard output.

A Blockbench file holds several animations: each is written to its own
file, OUT with the animation's name inserted before .anim (-o knight.anim
writes knight.walk.anim, knight.idle.anim, ...; characters other than
letters, digits, '.', '_' and '-' in the name become '_').  Names that
give the same file (ignoring case: "walk fast", "walk/fast", "Walk_fast")
are told apart in byte order of the names: the first keeps the file, the
others get -2, -3, ... ("knight.walk_fast-2.anim").  --animation NAME
writes only that animation, to OUT itself; so is the animation of a file
that holds one.

When the version 3 file can only approximate what IN says (some imports),
the note and its bound are printed on standard error; so is each warning of
the import (path: json.path: message); the status stays 0.
A version 1 clip that version 3 cannot hold (pose weights that vary) is an
error.

IN may be a glTF file (.gltf, .glb): each animation becomes a .anim file
as a Blockbench file's do.  OUT ending in .gltf or .glb writes every clip
of IN (or --animation NAME) as the animations of one glTF file
(anim.export_gltf): the node tree of the clips' skeletons, or the built-in
player rig's when they have none; each curve glTF cannot hold exactly is
baked at 60 fps and reported on standard error with the largest
difference found.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one input file, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.anim") end
    local list, warnings = must_read(pos[1])
    for _, w in ipairs(warnings) do
      if not opt.animation or w.animation == nil or w.animation == opt.animation then
        io.stderr:write("anim convert: ", one_line(w.text), "\n")
      end
    end
    local jobs = {}
    if opt.output ~= "-" and gltf_out(opt.output) then
      local clips = {}
      if opt.animation then clips[1] = pick(pos[1], list, opt.animation)
      else for i, e in ipairs(list) do clips[i] = e.clip end end
      export_gltf(clips, opt.output, pos[1])
      return 0
    end
    -- a file of one animation (none other left out by the import) is
    -- written to OUT itself, as a clip is
    local one = #list == 1
    for _, w in ipairs(warnings) do
      if w.not_imported then one = false end
    end
    if opt.animation or not list[1].name or opt.output == "-" or one then
      -- one clip to OUT itself (standard output takes one file only)
      jobs[1] = { clip = pick(pos[1], list, opt.animation), out = opt.output }
    else
      local names = {}
      for i, e in ipairs(list) do names[i] = e.name end
      local paths = M.output_names(opt.output, names)
      for i, e in ipairs(list) do jobs[i] = { clip = e.clip, out = paths[i] } end
    end
    for _, j in ipairs(jobs) do
      local approx = save_one(j.clip, j.out, pos[1])
      if approx then
        io.stderr:write(string.format("anim convert: %s: approximated within %.3g: %s\n", j.out,
          approx.bound, approx.note))
      end
    end
    return 0
  end,
}

-- sample --------------------------------------------------------------------------------

local function number_option(v, name)
  local x = tonumber(v)
  if not x or not E.finite(x) then fail(USAGE, "--%s needs a finite number, got '%s'", name, shown(v)) end
  return x
end

verbs.sample = {
  usage = "anim sample FILE --at T [--joint NAME] [--animation NAME]",
  options = { at = true, joint = true, animation = true },
  summary = "print the offsets of every joint at a time",
  help = [[
Prints, for each joint (or only --joint NAME), the offsets the clip gives at
clip time T seconds (not wrapped: before the first key a curve holds its
first value, after the last its last): position x y z (blocks), rotation as
a quaternion x y z w and as Euler angles in degrees in the clip's euler
order, and scale x y z.  A channel the joint does not animate shows "-".]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.at then fail(USAGE, "missing --at T") end
    local t = number_option(opt.at, "at")
    local c = one_clip(pos[1], opt.animation)
    local names = c:joints()
    if opt.joint then
      local found = false
      for _, n in ipairs(names) do found = found or n == opt.joint end
      if not found then
        fail(USAGE, "%s: no joint '%s' (its joints: %s)", shown(pos[1]), shown(opt.joint),
          #names > 0 and shown_list(names) or "none")
      end
      names = { opt.joint }
    end
    local euler = c.euler
    local pose = c:sample(t)
    out("# %s at t = %s s; position in blocks, rotation as a quaternion and as Euler %s degrees", pos[1], num(t), euler)
    local header = { "joint", "pos.x", "pos.y", "pos.z", "rot.x", "rot.y", "rot.z", "rot.w",
      "euler.x", "euler.y", "euler.z", "scale.x", "scale.y", "scale.z" }
    local rows = { header }
    for _, n in ipairs(names) do
      local p = pose[n] or {}
      local row = { n }
      local function add(v, k)
        for i = 1, k do row[#row + 1] = v and fixed(v[i]) or "-" end
      end
      add(p.position, 3)
      add(p.rotation, 4)
      add(p.rotation and M.euler_of(p.rotation, euler), 3)
      add(p.scale, 3)
      rows[#rows + 1] = row
    end
    local widths = {}
    for _, r in ipairs(rows) do
      for i, s in ipairs(r) do widths[i] = math.max(widths[i] or 0, #s) end
    end
    for ri, r in ipairs(rows) do
      local cells = {}
      for i, s in ipairs(r) do
        cells[i] = i == 1 and (s .. string.rep(" ", widths[i] - #s)) or (string.rep(" ", widths[i] - #s) .. s)
      end
      local line = table.concat(cells, "  ")
      out("%s", ri == 1 and bold(line) or line)
    end
    return 0
  end,
}

-- plot and sheet ---------------------------------------------------------------------------

verbs.plot = {
  usage = "anim plot FILE -o curves.svg [--joint NAME] [--animation NAME]",
  options = { output = true, joint = true, animation = true },
  summary = "draw the curves as an SVG graph",
  help = [[
Draws the clip's curves as a graph editor shows them, as an SVG picture:
one panel per joint channel (--joint NAME: only that joint's), the axes in
colours (x red, y green, z blue, quaternion w grey), Euler rotations as
their angle curves in degrees and quaternion rotations as their four
components, keys marked by interpolation (circle linear, square step,
diamond catmullrom, triangle bezier, inverted triangle easings), bezier
handles, and markers, events, sounds and plays as labelled vertical lines.
-o - writes the SVG to standard output.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local c = one_clip(pos[1], opt.animation)
    local text, err = plot.render(c, { joint = opt.joint, title = pos[1] ..
      (opt.animation and (" (" .. opt.animation .. ")") or "") })
    if not text then fail(USAGE, "%s: %s", pos[1], err) end
    write_output(opt.output, text)
    return 0
  end,
}

verbs.sheet = {
  usage = "anim sheet FILE [--rig player|skeleton] [--frames N] -o sheet.svg [--animation NAME]",
  options = { output = true, rig = true, frames = true, animation = true },
  summary = "draw the rig's pose at N times as an SVG contact sheet",
  help = [[
Plays the clip on a rig and draws its pose at N evenly spaced clip times
(default 8), each as a front view (x across, y up, the figure facing you)
and a side view (z across, facing right), labelled with the time.  The
rig is the clip's own skeleton when it has one (the clip's skeleton field;
the clips of a .bbmodel carry the file's groups, pivots and rotations),
drawn as its bones, a box from each joint to each child; else the
built-in blocky player, drawn as its body parts.  --rig player or --rig
skeleton picks one.  The times are length * i / N for a looping clip (the
end is the start again) and length * i / (N - 1) otherwise, so the last
frame is the end.  -o - writes the SVG to standard output.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local rigname = opt.rig
    if rigname ~= nil and rigname ~= "player" and rigname ~= "skeleton" then
      fail(USAGE, "unknown rig '%s'%s (the rigs: player, skeleton)", shown(rigname),
        suggest.hint(rigname, { "player", "skeleton" }))
    end
    local frames = 8
    if opt.frames then
      frames = tonumber(opt.frames)
      if not frames or frames ~= math.floor(frames) or frames < 1 or frames > 200 then
        fail(USAGE, "--frames needs a whole number from 1 to 200, got '%s'", shown(opt.frames))
      end
    end
    local c = one_clip(pos[1], opt.animation)
    local rig, _, used, note = sheet.setup(c, rigname)
    if not rig then fail(INPUT, "%s: --rig skeleton: %s", shown(pos[1]), note) end
    if note then io.stderr:write(string.format("anim sheet: note: %s; drawn on the player rig\n", note)) end
    if #sheet.joints_on_rig(c, rig) == 0 then
      io.stderr:write(string.format("anim sheet: note: none of the joints of %s (%s) plays on the %s rig;" ..
        " the sheet shows its rest pose\n", shown(pos[1]), shown_list(c:joints()), used))
    end
    local text = sheet.render(c, { frames = frames, rig = used, title = pos[1] ..
      (opt.animation and (" (" .. opt.animation .. ")") or "") })
    write_output(opt.output, text)
    return 0
  end,
}

-- Help and the command line ----------------------------------------------------------------

local OPTION_HELP = {
  output = "-o, --output PATH", at = "--at T", joint = "--joint NAME", animation = "--animation NAME",
  rig = "--rig NAME", frames = "--frames N", strict = "--strict",
}

local function verb_help(name)
  local v = verbs[name]
  local lines = { "usage: " .. v.usage, "", v.help, "" }
  local opts = {}
  for k in pairs(v.options) do opts[#opts + 1] = OPTION_HELP[k] end
  for k in pairs(v.flags or {}) do opts[#opts + 1] = OPTION_HELP[k] end
  table.sort(opts)
  opts[#opts + 1] = "-h, --help"
  lines[#lines + 1] = "options: " .. table.concat(opts, ", ")
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

local function main_help()
  local lines = { "usage: anim COMMAND [ARGS]", "", "Inspect, check, convert and draw animation clips (.anim," ..
    " legacy XML, Blockbench, glTF).", "", "commands:" }
  for _, n in ipairs(ORDER) do lines[#lines + 1] = string.format("  %-9s %s", n, verbs[n].summary) end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "anim help COMMAND or anim COMMAND --help: the options of a command."
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

-- The command line is parsed by lua-argparse (Debian's lua-argparse),
-- which also suggests the nearest command or option for a misspelt one;
-- the usage, help texts and the one-line errors with their exit status
-- are this command's own (docs/cli.md).  Every option takes a value:
-- "--at 0.5", "--at=0.5", "-o out.svg"; "--" ends the options.
local SHORT = { output = "-o" }

local function build_parser()
  local p = argparse("anim"):add_help(false):command_target("command")
  for _, name in ipairs(ORDER) do
    local v = verbs[name]
    local c = p:command(name):add_help(false)
    c:argument("args"):args("*")
    c:flag("-h --help")
    for opt in pairs(v.options) do
      c:option((SHORT[opt] and (SHORT[opt] .. " ") or "") .. "--" .. opt):args(1)
    end
    for flag in pairs(v.flags or {}) do c:flag("--" .. flag) end
  end
  return p
end

-- A value that starts with "-" but is a number ("--at -0.5") is a value:
-- written as "--at=-0.5" for the parser, which would take it for an option.
local function join_negative(v, argv, first)
  local res, i = {}, first
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      for k = i, #argv do res[#res + 1] = argv[k] end
      break
    end
    local name = a:match("^%-%-([%w_]+)$") or (a == "-o" and "output")
    local nxt = argv[i + 1]
    if name and v.options[name] and nxt and nxt:match("^%-[%d.]") and tonumber(nxt) then
      res[#res + 1] = "--" .. name .. "=" .. nxt
      i = i + 2
    else
      res[#res + 1] = a
      i = i + 1
    end
  end
  return res
end

-- argparse's error as one line; an unknown option gets the suggestion of
-- lua/anim/base/suggest.lua (the module's one rule) among the verb's
-- options: "unknown option '--rigg'; did you mean '--rig'?".
local function one_error(msg, v)
  local first = msg:match("^([^\n]*)")
  first = first:gsub("^(option '[^']*') requires an argument$", "%1 needs a value")
  local bad = first:match("^unknown option '%-%-?([^'=]+)'$")
  if bad then
    local names = { "help" }
    for o in pairs(v.options) do names[#names + 1] = o end
    for f in pairs(v.flags or {}) do names[#names + 1] = f end
    table.sort(names)
    local s = suggest.closest(bad, names)
    if s then return first .. "; did you mean '--" .. s .. "'?" end
  end
  return first
end

-- Splits argv (from index `first`) into positional arguments and options
-- for verb `name`.
local function parse(name, argv, first)
  local v = verbs[name]
  local args = { name }
  for _, a in ipairs(join_negative(v, argv, first)) do args[#args + 1] = a end
  local ok, res = build_parser():pparse(args)
  if not ok then fail(USAGE, "%s", one_error(res, v)) end
  local opt = { help = res.help or nil }
  for o in pairs(v.options) do opt[o] = res[o] end
  for f in pairs(v.flags or {}) do opt[f] = res[f] or nil end
  return res.args or {}, opt
end

-- main(argv) -> exit status.
function M.main(argv)
  local verb_name
  -- a bug (not an Exit) keeps its traceback for the report
  local ok, res = xpcall(function()
    local first = argv[1]
    if first == nil then
      io.stderr:write(main_help()) -- a usage error: no command
      return USAGE
    end
    if first == "-h" or first == "--help" then
      io.stdout:write(main_help())
      return 0
    end
    if first == "help" then
      local n = argv[2]
      if n == nil then io.stdout:write(main_help()) return 0 end
      if not verbs[n] then
        fail(USAGE, "unknown command '%s'%s (the commands: %s)", shown(n), suggest.hint(n, ORDER), table.concat(ORDER, ", "))
      end
      io.stdout:write(verb_help(n))
      return 0
    end
    if not verbs[first] then
      fail(USAGE, "unknown command '%s'%s (the commands: %s; see anim --help)", shown(first),
        suggest.hint(first, ORDER), table.concat(ORDER, ", "))
    end
    verb_name = first
    local pos, opt = parse(first, argv, 2)
    if opt.help then io.stdout:write(verb_help(first)) return 0 end
    return verbs[first].run(pos, opt)
  end, function(e)
    if getmetatable(e) == Exit then return e end
    return debug.traceback(tostring(e), 2)
  end)
  if ok then return res end
  if getmetatable(res) ~= Exit then error(res, 0) end
  local who = verb_name and ("anim " .. verb_name) or "anim"
  local hint = res.code == USAGE and verb_name and string.format(" (see anim %s --help)", verb_name) or ""
  io.stderr:write(string.format("%s: %s%s\n", who, one_line(res.msg), hint))
  return res.code
end

return M
