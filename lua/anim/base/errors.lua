-- errors.lua: input errors with JSON paths.
--
-- Readers of files call `fail(path, message)`; `catch(name, fn, ...)` runs a
-- reader and turns such a failure into `nil, "name: path: message"`, the
-- shape every loading function of the module returns for bad input.
-- Anything else raised inside (a bug) propagates as a normal Lua error.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
-- (the quoting rule of every message: csrc/lua/lua_shown.c)
local core_shown = core.shown

local M = {}

local Failure = {}
Failure.__index = Failure

local null = core.null -- what JSON null decodes to (lua-cjson's cjson.null: the light userdata NULL)
local function is_null(v)
  return v == null
end
M.is_null = is_null

-- "key" appended to a path: `a.b`, or `a["odd key"]` when not an
-- identifier.  Inside the quotes `"` and `\` are escaped with a backslash
-- and control characters are written \n, \r, \t or \ddd (three decimal
-- digits), so a path is always one line (%q would end a line at a newline).
-- A key whose escapes are longer than this is cut in paths (its length is
-- given instead: `a["xxx"... (100 bytes)]`), so a message stays short
-- whatever the file holds; the rule is core.shown's (below).
local KEY_SHOWN = 64

function M.key(path, k)
  if type(k) == "string" and #k <= KEY_SHOWN and k:match("^[%a_][%w_]*$") then
    return path == "" and k or path .. "." .. k
  end
  return path .. "[" .. core_shown(tostring(k), "key") .. "]"
end

-- index i (1-based, as in Lua) appended to a path: `a[3]`.
function M.index(path, i)
  return path .. "[" .. i .. "]"
end

local function is_array(t)
  local n = #t
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k > n or k % 1 ~= 0 then return false end
  end
  return true
end
M.is_array = is_array

-- What a value is, for messages: "string", "null", "array", "object", "nan"...
function M.describe(v)
  local ty = type(v)
  if ty == "number" then
    if v ~= v then return "nan" end
    if v == math.huge then return "inf" end
    if v == -math.huge then return "-inf" end
    return "number"
  elseif ty == "table" then
    if next(v) == nil then return "empty table" end
    return is_array(v) and "array" or "object"
  elseif is_null(v) then
    return "null"
  end
  return ty
end

-- string.format(fmt, x) of a message's number, its point '.' whatever the
-- C locale (compat.numtext).
M.numtext = compat.numtext

-- A number for messages: the shortest text that reads back as the same
-- number (0.1, not 0.10000000000000001), or nan / inf / -inf.
function M.num(x)
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if compat.mtype(x) == "integer" then return tostring(x) end
  -- a whole number as digits (10, not %.1g's 1e+01)
  local i = compat.tointeger(x)
  if i and i > -1e15 and i < 1e15 then return tostring(i) end
  for p = 1, 16 do
    local s = compat.numtext("%." .. p .. "g", x)
    if compat.number(s) == x then return s end
  end
  return compat.numtext("%.17g", x)
end

function M.fail(path, fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  error(setmetatable({ path = path, msg = msg }, Failure), 0)
end

function M.is_failure(e)
  return getmetatable(e) == Failure
end

-- At most this many bytes of a name or value go into a message: a longer
-- one is cut (at a character's start, never inside an escape) and its
-- length given, so that a message stays short whatever a file or a state
-- holds (a name of 10 MB of control bytes made a 40 MB message).
local SHOWN = core.shown_bytes
M.SHOWN = SHOWN

-- s (a string) as a message quotes it: each control character written \n,
-- \r, \t or \ddd (ddd: every one \ddd), the whole at most SHOWN bytes,
-- else cut with "... (N bytes)".  Reads at most SHOWN + 1 bytes of s.  The
-- rule is the binding's (csrc/lua/lua_shown.c: one implementation for the
-- messages of C and of Lua).
function M.cut(s, ddd)
  return core_shown(s, ddd and true or nil)
end

-- A name (or any value: tostring) as messages show it: control characters
-- written \n, \r, \t or \ddd (a NUL byte \000), so that a message is one
-- line of text, and at most SHOWN bytes of it (M.cut).
function M.shown(name)
  return core_shown(tostring(name))
end

-- s without the white space around it, in linear time: "%s+$" is tried
-- at every space of a run that something else follows ("1", 80,000
-- spaces and "x": 16 s), as is "^%s*(.-)%s*$"'s trailing %s* at every
-- length of the middle; "^.*%S" backtracks once over the trailing spaces.
-- (The readers of text trim with it: XML values, Spine atlases, a
-- graph's mix keys.)
function M.trim(s)
  local i = s:find("%S")
  if not i then return "" end
  return s:sub(i, #s:match("^.*%S"))
end

-- A list of names as messages show it: the first `most` (default 20),
-- each shown, then how many there are in all ("a, b, ... (300 in all)"):
-- a message stays short whatever a file names.
function M.shown_list(names, most)
  most = most or 20
  local some = {}
  for i = 1, math.min(#names, most) do some[i] = M.shown(names[i]) end
  return table.concat(some, ", ") .. (#names > most and (", ... (" .. #names .. " in all)") or "")
end

-- A path as messages show it: each key is cut already (M.key), and a path
-- longer than PATH_SHOWN bytes (a file nested deep, its keys long: 128
-- levels of 64-byte keys made 9 kB, 128 XML elements of 200-byte names
-- 25 kB) keeps its first keys and its last, the middle said by its length.
local PATH_SHOWN = 400
-- Where keys start in s (`[`, `/`, or `.` before a name: not the dots of
-- a cut key's "..."), in order.
local function starts(s)
  local at = {}
  for i in s:gmatch("()[%[/]") do at[#at + 1] = i end
  for i in s:gmatch("()%.[%a_]") do at[#at + 1] = i end
  table.sort(at)
  return at
end
function M.path(p)
  if #p <= PATH_SHOWN then return p end
  -- (cut where a key starts: never inside a UTF-8 character)
  local head, tail = p:sub(1, 150), p:sub(-200)
  local h, t = starts(head), starts(tail)
  head = #h > 0 and h[#h] > 1 and head:sub(1, h[#h] - 1) or head:gsub("[\192-\255]?[\128-\191]*$", "")
  tail = #t > 0 and tail:sub(t[1]) or tail:gsub("^[\128-\191]+", "")
  return head .. " ... " .. tail .. " (a path of " .. #p .. " bytes)"
end

-- The message of a failure, for a file or source called `name`.
function M.message(name, e)
  name = M.shown(name)
  if e.path == nil or e.path == "" then return name .. ": " .. e.msg end
  return name .. ": " .. M.path(e.path) .. ": " .. e.msg
end

-- Run fn(...); a failure becomes nil, message.  Results pass through.
function M.catch(name, fn, ...)
  local res = compat.pack(pcall(fn, ...))
  if res[1] then return compat.unpack(res, 2, res.n) end
  if M.is_failure(res[2]) then return nil, M.message(name, res[2]) end
  error(res[2], 0)
end

-- Common checks ------------------------------------------------------------

function M.finite(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

function M.number(v, path, what)
  if not M.finite(v) then
    M.fail(path, "%s must be a finite number, got %s", what or "value", M.describe(v))
  end
  return v
end

function M.string(v, path, what)
  if type(v) ~= "string" then
    M.fail(path, "%s must be a string, got %s", what or "value", M.describe(v))
  end
  return v
end

function M.boolean(v, path, what)
  if type(v) ~= "boolean" then
    M.fail(path, "%s must be true or false, got %s", what or "value", M.describe(v))
  end
  return v
end

function M.object(v, path, what)
  if type(v) ~= "table" or (next(v) ~= nil and is_array(v)) then
    M.fail(path, "%s must be an object, got %s", what or "value", M.describe(v))
  end
  return v
end

function M.array(v, path, what)
  if type(v) ~= "table" or not is_array(v) then
    M.fail(path, "%s must be an array, got %s", what or "value", M.describe(v))
  end
  return v
end

-- "; did you mean 'loop'?" for a misspelt name of names, else "" (the
-- one rule: core.suggest, which suggest.lua also uses; errors.lua sits
-- below it).
function M.hint(v, names)
  return M.did_you_mean(type(v) == "string" and core.suggest(v, names))
end

-- "; did you mean 's'?" for a suggestion s (quoted as user data), "" for
-- none: the words of every hint (suggest.hint's too).
function M.did_you_mean(s)
  return s and string.format("; did you mean '%s'?", M.shown(s)) or ""
end

-- One of a list of names; `names` is an array, the result its index.
function M.enum(v, names, path, what)
  if type(v) == "string" then
    for i, n in ipairs(names) do
      if n == v then return i end
    end
    M.fail(path, "unknown %s '%s'%s (expected %s)", what, M.shown(v), M.hint(v, names), table.concat(names, ", "))
  end
  M.fail(path, "%s must be one of %s, got %s", what, table.concat(names, ", "), M.describe(v))
end

-- An absent value: nil, or JSON null.
function M.absent(v)
  return v == nil or is_null(v)
end

-- A warning line of the module (one a game did not ask for, that it must
-- not miss): through Lua 5.4's warn where there is one, else io.stderr
-- (both looked up at each call: a host may replace them).
function M.warn(line)
  local w = rawget(_G, "warn")
  if type(w) == "function" then w(line) else io.stderr:write(line, "\n") end
end

return M
