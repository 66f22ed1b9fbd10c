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
local E = require "anim.base.errors"
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
    colour_on = (nc == nil or nc == "") and os.execute("test -t 1") == true
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

-- Writes text to path ("-": standard output) through a temporary file
-- renamed over it, so a reader never sees half a picture.
local function write_output(path, text)
  if path == "-" then
    io.stdout:write(text)
    return
  end
  local tmp = string.format("%s.tmp%06x", path, math.random(0, 0xffffff))
  local f, err = io.open(tmp, "wb")
  if not f then fail(INPUT, "cannot write %s: %s", path, tostring(err):gsub("^.-: ", "")) end
  local ok, werr = f:write(text)
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(tmp)
    fail(INPUT, "cannot write %s: %s", path, tostring(werr or cerr))
  end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then
    os.remove(tmp)
    fail(INPUT, "cannot write %s: %s", path, tostring(rerr):gsub("^.-: ", ""))
  end
end

-- Reading clips of any format ---------------------------------------------------------------

-- Whether a .json file is an Aseprite sheet's data (frames, and none of
-- a clip's joints or keyframes), from its first 64 KiB.
local function looks_aseprite(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local head = f:read(65536) or ""
  f:close()
  return head:find('"frames"%s*:') ~= nil and not head:find('"joints"%s*:') and not head:find('"keyframes"%s*:')
end

-- What reads a path, by its name: "xml", "blockbench", "aseprite" (a
-- *.aseprite.json, or a *.json that looks like one) or "anim" (anything else).
local function kind_of(path)
  local lower = path:lower()
  if lower:match("%.xml$") then return "xml" end
  if lower:match("%.bbmodel$") or lower:match("%.animation%.json$") then return "blockbench" end
  if lower:match("%.aseprite%.json$") or (lower:match("%.json$") and looks_aseprite(path)) then return "aseprite" end
  return "anim"
end

local IMPORTER = { xml = "import_xml", blockbench = "import_blockbench", aseprite = "import_aseprite" }
local FORMAT_NAME = { xml = "legacy XML", blockbench = "Blockbench", aseprite = "Aseprite" }

-- The clips of a file: { { name = animation name or nil, clip = clip }, ... }
-- sorted by name, or nil, "path: json.path: message".
local function read_clips(path)
  local kind = kind_of(path)
  if kind == "anim" then
    local c, err = anim.load(path)
    if not c then return nil, err end
    return { { clip = c } }
  end
  local fn = anim[IMPORTER[kind]]
  if not fn then
    return nil, string.format("%s: cannot read %s files: this anim has no anim.%s", path, FORMAT_NAME[kind], IMPORTER[kind])
  end
  local res, err = fn(path)
  if not res then return nil, err end
  if kind == "xml" then return { { clip = res } } end
  local list = {}
  for name, c in pairs(res) do list[#list + 1] = { name = name, clip = c } end
  table.sort(list, function(a, b) return a.name < b.name end)
  if #list == 0 then return nil, path .. ": no animations in the file" end
  return list
end

-- The clips of a file, or stop with its loader's message.
local function must_read(path)
  local list, err = read_clips(path)
  if not list then fail(INPUT, "%s", err) end
  return list
end

-- The one clip of a list a verb works on: --animation picks one of a
-- file's several.
local function pick(path, list, animation)
  if animation then
    for _, e in ipairs(list) do if e.name == animation then return e.clip end end
    local names = {}
    for i, e in ipairs(list) do names[i] = e.name or "(unnamed)" end
    fail(USAGE, "%s: no animation '%s' (it has: %s)", path, animation, table.concat(names, ", "))
  end
  if #list > 1 then
    local names = {}
    for i, e in ipairs(list) do names[i] = e.name end
    fail(USAGE, "%s holds %d animations (%s): pick one with --animation NAME", path, #list, table.concat(names, ", "))
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
    a = math.atan(-s * m[j][k], m[k][k])
    c = math.atan(-s * m[i][j], m[i][i])
  else -- gimbal lock: the first and last axes turn about one line
    a = math.atan(s * m[k][j], m[j][j])
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
  mask = true, blend = true, space = true, joints = true, keyframes = true, euler = true, skeleton = true,
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

verbs.info = {
  usage = "anim info FILE [--animation NAME]",
  options = { animation = true },
  summary = "print what a clip holds",
  help = [[
Prints a clip's playback fields (version, length, loop, priority, speed,
euler, blend, space, mask, autoplay), its joints with their channels and key
counts (and weight, muted, modifiers), its property channels, its markers,
events, sounds and plays, and the fields only the editor reads (rig, fps,
viewModel, skeleton, retarget, unknown fields).

FILE is a .anim file of any version, a legacy .xml animation, a Blockbench
.bbmodel / .animation.json file, or the JSON of an Aseprite sprite sheet
(*.aseprite.json, or a *.json holding frames: a clip per tag, and all)
(every animation in it, or only the one --animation NAME names).]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    local list = must_read(pos[1])
    local shown = 0
    for _, e in ipairs(list) do
      if not opt.animation or e.name == opt.animation then
        if shown > 0 then out("") end
        out(bold(one_line(pos[1] .. (e.name and ("  animation " .. e.name) or ""))))
        info_clip(e.clip)
        shown = shown + 1
      end
    end
    if shown == 0 then pick(pos[1], list, opt.animation) end -- says which names there are
    return 0
  end,
}

-- validate --------------------------------------------------------------------------------

-- Whether a directory walk checks this file.
local function wanted(path)
  local kind = kind_of(path)
  if kind == "anim" then return path:match("%.anim$") ~= nil end
  return anim[IMPORTER[kind]] ~= nil
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
  local text = p:read("a")
  p:close()
  local list = {}
  for f in text:gmatch("([^%z]+)%z") do
    if wanted(f) then list[#list + 1] = f end
  end
  table.sort(list, function(a, b) return a < b end)
  return list
end

verbs.validate = {
  usage = "anim validate FILE|DIR...",
  options = {},
  summary = "check clips, one line per problem",
  help = [[
Loads every FILE, and every clip file under every DIR (recursively: *.anim,
and *.xml, *.bbmodel, *.animation.json, *.aseprite.json and the *.json of
Aseprite sheets when the importers are there), and
prints one line per file that does not load:

  path: json.path: message

on standard output, then a count on standard error.  The status is 0 when
every file loads, 1 otherwise.  A path that does not exist is a problem of
its own ("path: cannot open file: ...").  Symbolic links to folders and
files are followed.  Control characters in a line (a newline in a name)
are written \n, \r, \t or \ddd, so that each problem is one line.]],
  run = function(pos)
    if #pos == 0 then fail(USAGE, "expected at least one FILE or DIR") end
    local files, bad = 0, 0
    local function check(path)
      files = files + 1
      local list, err = read_clips(path)
      if not list then
        bad = bad + 1
        out("%s", one_line(err))
      end
    end
    for _, p in ipairs(pos) do
      if os.execute("test -d " .. quote(p)) then
        local list = files_under(p)
        if #list == 0 then io.stderr:write("anim validate: ", one_line(p), ": no clip files in it\n") end
        for _, f in ipairs(list) do check(f) end
      else
        check(p)
      end
    end
    io.stderr:write(string.format("anim validate: %s checked, %s\n", count(files, "file"),
      bad == 0 and "all good" or (count(bad, "file") .. " with problems")))
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

local function save_one(c, path, src_label)
  if path == "-" then
    local text, approx = anim.encode(c, { version = 3 })
    if not text then fail(INPUT, "%s", approx) end
    io.stdout:write(text)
    return approx
  end
  local ok, approx = anim.save(c, path, { version = 3 })
  if not ok then fail(INPUT, "%s", approx) end
  io.stderr:write(string.format("anim convert: %s -> %s\n", src_label, path))
  return approx
end

verbs.convert = {
  usage = "anim convert IN -o OUT.anim [--animation NAME]",
  options = { output = true, animation = true },
  summary = "write any readable clip as a version 3 .anim",
  help = [[
Reads IN (a .anim file of any version, a legacy .xml animation, a
Blockbench .bbmodel / .animation.json file, or an Aseprite sheet's JSON)
and writes it as a version 3
.anim file, atomically (a temporary file renamed over OUT).  -o - writes the
JSON to standard output.

A Blockbench file holds several animations: each is written to its own
file, OUT with the animation's name inserted before .anim (-o knight.anim
writes knight.walk.anim, knight.idle.anim, ...; characters other than
letters, digits, '.', '_' and '-' in the name become '_').  Names that
give the same file (ignoring case: "walk fast", "walk/fast", "Walk_fast")
are told apart in byte order of the names: the first keeps the file, the
others get -2, -3, ... ("knight.walk_fast-2.anim").  --animation NAME
writes only that animation, to OUT itself.

When the version 3 file can only approximate what IN says (some imports),
the note and its bound are printed on standard error; the status stays 0.
A version 1 clip that version 3 cannot hold (pose weights that vary) is an
error.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one input file, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.anim") end
    local list = must_read(pos[1])
    local jobs = {}
    if opt.animation or not list[1].name or opt.output == "-" then
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
  if not x or not E.finite(x) then fail(USAGE, "--%s needs a finite number, got '%s'", name, v) end
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
        fail(USAGE, "%s: no joint '%s' (its joints: %s)", pos[1], opt.joint,
          #names > 0 and table.concat(names, ", ") or "none")
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
  usage = "anim sheet FILE [--rig player] [--frames N] -o sheet.svg [--animation NAME]",
  options = { output = true, rig = true, frames = true, animation = true },
  summary = "draw the rig's pose at N times as an SVG contact sheet",
  help = [[
Plays the clip on a rig (the built-in blocky player, the only rig there is
for now) and draws its pose at N evenly spaced clip times (default 8), each
as a front view (x across, y up, the figure facing you) and a side view (z
across, facing right), every body part a box from its world transform,
labelled with the time.  The times are length * i / N for a looping clip
(the end is the start again) and length * i / (N - 1) otherwise, so the
last frame is the end.  -o - writes the SVG to standard output.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local rigname = opt.rig or "player"
    if rigname ~= "player" then fail(USAGE, "unknown rig '%s' (the rigs: player)", rigname) end
    local frames = 8
    if opt.frames then
      frames = tonumber(opt.frames)
      if not frames or math.type(frames) ~= "integer" or frames < 1 or frames > 200 then
        fail(USAGE, "--frames needs a whole number from 1 to 200, got '%s'", opt.frames)
      end
    end
    local c = one_clip(pos[1], opt.animation)
    if #sheet.joints_on_rig(c, anim.rig(rigname)) == 0 then
      io.stderr:write(string.format("anim sheet: note: none of the joints of %s (%s) plays on the %s rig;" ..
        " the sheet shows its rest pose\n", pos[1], table.concat(c:joints(), ", "), rigname))
    end
    local text = sheet.render(c, { frames = frames, rig = rigname, title = pos[1] ..
      (opt.animation and (" (" .. opt.animation .. ")") or "") })
    write_output(opt.output, text)
    return 0
  end,
}

-- Help and the command line ----------------------------------------------------------------

local OPTION_HELP = {
  output = "-o, --output PATH", at = "--at T", joint = "--joint NAME", animation = "--animation NAME",
  rig = "--rig NAME", frames = "--frames N",
}

local function verb_help(name)
  local v = verbs[name]
  local lines = { "usage: " .. v.usage, "", v.help, "" }
  local opts = {}
  for k in pairs(v.options) do opts[#opts + 1] = OPTION_HELP[k] end
  table.sort(opts)
  opts[#opts + 1] = "-h, --help"
  lines[#lines + 1] = "options: " .. table.concat(opts, ", ")
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

local function main_help()
  local lines = { "usage: anim COMMAND [ARGS]", "", "Inspect, check, convert and draw animation clips (.anim," ..
    " legacy XML, Blockbench).", "", "commands:" }
  for _, n in ipairs(ORDER) do lines[#lines + 1] = string.format("  %-9s %s", n, verbs[n].summary) end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "anim help COMMAND or anim COMMAND --help: the options of a command."
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

-- Splits argv (from index `first`) into positional arguments and options.
-- Options take a value: "--at 0.5", "--at=0.5", "-o out.svg"; "--" ends
-- the options.
local SHORT = { o = "output" }
local function parse(v, argv, first)
  local pos, opt = {}, {}
  local i = first
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      for k = i + 1, #argv do pos[#pos + 1] = argv[k] end
      break
    elseif a == "-h" or a == "--help" then
      opt.help = true
    elseif a:sub(1, 1) == "-" and #a > 1 then
      local name, value = a:match("^%-%-([^=]+)=(.*)$")
      if not name then name = a:match("^%-%-(.+)$") or SHORT[a:sub(2)] end
      if not name or not v.options[name] then fail(USAGE, "unknown option '%s'", a) end
      if not value then
        i = i + 1
        value = argv[i]
        if value == nil then fail(USAGE, "option '%s' needs a value", a) end
      end
      opt[name] = value
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  return pos, opt
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
      if not verbs[n] then fail(USAGE, "unknown command '%s' (the commands: %s)", n, table.concat(ORDER, ", ")) end
      io.stdout:write(verb_help(n))
      return 0
    end
    if not verbs[first] then
      fail(USAGE, "unknown command '%s' (the commands: %s; see anim --help)", first, table.concat(ORDER, ", "))
    end
    verb_name = first
    local pos, opt = parse(verbs[first], argv, 2)
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
