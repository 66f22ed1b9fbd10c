-- cli_common.lua: what the verbs of the `anim` command (cli.lua) share:
-- the failure that stops a verb with its status, output (colour, one-line
-- text, files written atomically), reading clips of any format (told
-- apart by content), numbers and payloads in words, Euler angles.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local json = require "anim.base.json"
local fields = require "anim.format.fields"
local kinds = require "anim.format.kind"
local byteorder = require "anim.base.order"

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

-- The paths find(1) lists under dir for the test `expr` (find's words,
-- quoted for the shell), in find's order: Lua has no directory listing
-- and lfs is not a dependency.  -print0 keeps any byte of a name,
-- newlines included.  Symbolic links are followed (-L), to folders and
-- to files alike; a link that loops back is walked once (find skips the
-- loop).
local function find(dir, expr)
  local arg = dir:sub(1, 1) == "-" and "./" .. dir or dir
  local p = assert(io.popen("find -L " .. quote(arg) .. " " .. expr .. " -print0 2>/dev/null"))
  local text = p:read("*a")
  p:close()
  local list = {}
  for f in text:gmatch("([^%z]+)%z") do list[#list + 1] = f end
  return list, arg
end
M.find = find

-- Reading clips of any format ---------------------------------------------------------------

-- What reads a file: by its content, else its name (lua/anim/format/kind.lua).
local kind_of, kind_by_name = kinds.of, kinds.by_name
local IMPORTER, FORMAT_NAME = kinds.IMPORTER, kinds.FORMAT_NAME

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

-- An importer's warning as the command prints it: "file: path: message",
-- one line (the path left out when the warning names no channel).
-- What an importer's approximation ({ bound =, note =, err = }) comes to:
-- the error it measured when it measured one (err: a Blockbench bake's
-- largest, which may be far below the bound it promises), else its bound
-- (the XML importer's is measured).
local function approx_text(a)
  if a.err then
    return string.format("approximated: the largest error measured is %.3g (the bound: %.3g)", a.err, a.bound)
  end
  return string.format("approximated within %.3g", a.bound)
end

local function warning_line(path, w)
  local where = (w.channel and w.channel ~= "") and (E.path(w.channel) .. ": ") or ""
  return shown(path) .. ": " .. where .. w.message
end

-- The clips of a result of anim.open, sorted by name.
local function sorted_clips(clips)
  local list = {}
  for name, c in pairs(clips) do list[#list + 1] = { name = name, clip = c } end
  table.sort(list, function(a, b) return byteorder.less(a.name, b.name) end)
  return list
end

local function read_clips(path)
  local text = peek(path)
  local kind = kind_of(path, text)
  if kind == "spine" or kind == "dragonbones" then
    -- a 2D skeleton: anim.open's result, with the atlas beside the file
    -- (third result: the skeleton and its rigs, for info and convert)
    local res, err = anim.open(path)
    if not res then return nil, err end
    -- a warning under animations.<name> (Spine's paths) is that animation's
    local by_key, skip = {}, #E.shown(path) + 3
    for n in pairs(res.clips) do by_key[E.key("animations", n)] = n end
    local warnings = {}
    for i, w in ipairs(res.warnings) do
      local k = w:match("^(animations%.[%a_][%w_]*)", skip) or w:match("^(animations%b[])", skip)
      warnings[i] = { text = w, animation = k and by_key[k], not_imported = w:find(": animation not imported: ", skip, true)
        ~= nil or w:find("^%d+ animations not imported", skip) ~= nil }
    end
    return sorted_clips(res.clips), warnings, res
  end
  if kind == "anim" then
    local c, err = anim.load(path)
    if not c then return nil, err end
    return { { clip = c } }, unknown_fields(path, text, "clip")
  end
  if kind == "graph" then return nil, string.format("%s: %s", shown(path), kinds.GRAPH) end
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
  if kind == "xml" then
    local warnings = {}
    for i, w in ipairs(err) do warnings[i] = { text = warning_line(path, w) } end
    return { { clip = res } }, warnings
  end
  if kind == "aseprite" then err = nil end -- (its second result is the sheet: no warnings)
  local warnings = {}
  if kind == "gltf" then
    -- what the importer skipped, as warnings of the file
    for i, w in ipairs(res.warnings) do warnings[i] = { text = path .. ": " .. w } end
    res = res.clips
    err = nil
  end
  for _, w in ipairs(type(err) == "table" and err or {}) do
    warnings[#warnings + 1] = { text = warning_line(path, w), animation = w.animation,
      not_imported = w.message:match("^not imported") ~= nil or w.message:match("^%d+ animations not imported") ~= nil }
  end
  return sorted_clips(res), warnings
end

-- The clips of a file, or stop with its loader's message.  (`info`, with
-- maps_too: a retarget map, or a 2D skeleton without animations, is shown.)
local function must_read(path, maps_too)
  local list, warnings, skeleton = read_clips(path)
  if not list then fail(INPUT, "%s", warnings) end
  if list[1] and list[1].map and not maps_too then
    fail(INPUT, "%s: a retarget map, not a clip (anim info shows it)", shown(path))
  end
  if #list == 0 and not (maps_too and skeleton) then
    -- none imported: why the first was not
    for _, w in ipairs(warnings) do
      if w.not_imported then fail(INPUT, "%s", w.text) end
    end
    fail(INPUT, "%s: no animations in the file", shown(path))
  end
  return list, warnings, skeleton
end

-- The one clip of a list a verb works on: --animation picks one of a
-- file's several.
local function pick(path, list, animation)
  if animation then
    for _, e in ipairs(list) do if e.name == animation then return e.clip end end
    local names = {}
    for i, e in ipairs(list) do names[i] = e.name or "(unnamed)" end
    fail(USAGE, "%s: no animation '%s' (it has: %s)", shown(path), shown(animation), #names > 0 and shown_list(names) or "none")
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
  byteorder.sort(ks)
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

-- The bytes of the file at path, or nil when it cannot be opened.
local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

local function count(list, word)
  return string.format("%d %s%s", list, word, list == 1 and "" or "s")
end

M.Exit, M.USAGE, M.INPUT, M.fail = Exit, USAGE, INPUT, fail
M.colour, M.bold, M.out, M.quote, M.one_line, M.shown, M.shown_list = colour, bold, out, quote, one_line, shown, shown_list
M.write_output = write_output
M.IMPORTER, M.FORMAT_NAME, M.kind_by_name = IMPORTER, FORMAT_NAME, kind_by_name
M.warning_line, M.approx_text = warning_line, approx_text
M.kind_of, M.peek, M.read_clips, M.must_read, M.pick, M.one_clip = kind_of, peek, read_clips, must_read, pick, one_clip
M.num, M.fixed, M.brief, M.count, M.file_size = num, fixed, brief, count, file_size

return M
