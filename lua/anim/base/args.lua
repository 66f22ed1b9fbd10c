-- args.lua: argument checks for every public function written in Lua.
-- A message says "bad argument #n to 'name' (what is wrong)", as Lua's own
-- luaL_argerror does, and it points at the line of the script that made
-- the call: the first stack frame outside the module's own files, however
-- deep inside the module the check runs (a C function called by the
-- script gets the same from luaL_argerror in csrc/lua/lua_args.c).
require("anim.base.luajit").no_traversal_traces()
local suggest = require "anim.base.suggest"
local E = require "anim.base.errors"
local byteorder = require "anim.base.order"

local M = {}

local getinfo, format, type = debug.getinfo, string.format, type
-- (the module's metatables hide themselves from getmetatable: __metatable)
local debug_getmetatable = debug.getmetatable

-- The folder of the module's Lua files: this file is <folder>base/args.lua
-- (lua/anim/ in a checkout, <tree>/share/lua/5.4/anim/ once installed).
local own = debug.getinfo(1, "S").source:match("^@(.*[/\\])base[/\\]args%.lua$")
local OWN = own and "@" .. own

local function inside(source)
  return OWN ~= nil and source:sub(1, #OWN) == OWN
end

-- The level, for error() called in the function that called this one, of
-- the first frame outside the module (1 when there is none).
local function outside_level()
  -- 1: outside_level, 2: its caller (which calls error), 3: the one above
  local level = 3
  while true do
    local info = getinfo(level, "S")
    if not info then return 1 end
    -- (5.1 shows a call in tail position as a frame of its own, "(tail
    -- call)", where 5.2+ and LuaJIT show none: passed over)
    if not inside(info.source) and info.what ~= "tail" then return level - 1 end
    level = level + 1
  end
end

-- Raises msg at the script's line.
function M.raise(msg)
  error(msg, outside_level())
end

-- Raises for the read of a field an object does not have (what: its kind,
-- "anim.clip"; the tables after it hold the names it has as keys: its
-- methods, its fields): "no field 'lenght' on anim.clip; did you mean
-- 'length'?".  A misspelt read gave nil, so `if track.playing then` was
-- quietly false while a misspelt write raised.
function M.no_field(what, k, ...)
  if type(k) ~= "string" then
    M.raise(format("no field %s on %s (its fields are named by strings)", M.show(k), what))
  end
  local names = {}
  for i = 1, select("#", ...) do
    for n in next, (select(i, ...)) do
      if type(n) == "string" and n:sub(1, 1) ~= "_" then names[#names + 1] = n end
    end
  end
  byteorder.sort(names)
  M.raise(format("no field '%s' on %s%s", E.shown(k), what, suggest.hint(k, names)))
end

-- Raises "bad argument #n to 'fname' (msg)" at the script's line.
function M.error(n, fname, msg)
  error(format("bad argument #%d to '%s' (%s)", n, fname, msg), outside_level())
end

-- What a value is, for messages: its metatable's __name (anim.clip,
-- anim.rig...; a script's own quoted as user data is: E.shown), else its
-- type.
function M.typename(v)
  local mt = debug_getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name")
  return type(name) == "string" and E.shown(name) or type(v)
end

-- A value for messages: numbers as they are, with nan, inf and -inf
-- spelled the same everywhere (tostring gives "-nan" or "nan" depending on
-- the C library); anything else by its type.
function M.show(v)
  if type(v) ~= "number" then return M.typename(v) end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  return tostring(v)
end

-- Checks that v has Lua type ty (an optional argument may be nil).
function M.check(v, ty, n, fname, optional)
  if type(v) ~= ty and not (optional and v == nil) then
    error(format("bad argument #%d to '%s' (%s expected, got %s)", n, fname, ty, M.typename(v)), outside_level())
  end
  return v
end

-- Every Lua function of a method table, wrapped so that a call on the
-- wrong object raises "calling 'stop' on bad self (anim.track expected,
-- got anim.clip)" at the script's line, as Lua's own methods say it
-- (instead of an error from inside the module).  C functions (they check
-- their own self) and the names in `except` are left as they are.
function M.methods(list, mt, what, except)
  for name, fn in pairs(list) do
    if type(fn) == "function" and not (except and except[name]) and debug.getinfo(fn, "S").what == "Lua" then
      list[name] = function(self, ...)
        if debug_getmetatable(self) ~= mt then
          error(format("calling '%s' on bad self (%s expected, got %s)", name, what, M.typename(self)),
            outside_level())
        end
        return fn(self, ...)
      end
    end
  end
end

-- The names of the options a function takes: args.names{ "fade", "weight" }
-- (the order is the one suggestions prefer on a tie).
function M.names(list)
  local set = {}
  for _, n in ipairs(list) do set[n] = true end
  return { set = set, list = list }
end

-- Checks an options table (nil: no options): a table whose every key is
-- one of known (from args.names); an unknown one raises "unknown option
-- 'wieght'; did you mean 'weight'?" (with no name close to it, "...;
-- expected one of" the names).  Returns the table (or an empty one).
function M.options(opts, known, n, fname)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(format("bad argument #%d to '%s' (table of options expected, got %s)", n, fname, M.typename(opts)),
      outside_level())
  end
  -- (raw: a __pairs of the script's decides nothing here.  A while loop,
  -- not `for k in next, opts`: Debian 12's LuaJIT (2.1.0-beta3, git
  -- 2022-03-20) misses LuaJIT commit 1cdff194 (issue #827), so that a
  -- compiled ITERN loop entered after the loop was despecialised reads a
  -- key as a node index and iterates from the wrong node: here it gave a
  -- key the table never had, an option refused at random)
  local k = next(opts)
  while k ~= nil do
    if not known.set[k] then
      local msg
      if type(k) == "string" then
        local hint = #known.list == 0 and format("; '%s' takes no options", fname) or suggest.hint(k, known.list)
        if hint == "" then
          hint = #known.list == 1 and format("; the only option is '%s'", known.list[1])
            or "; expected one of " .. table.concat(known.list, ", ")
        end
        msg = format("unknown option '%s'%s", E.shown(k), hint)
      else
        msg = format("options are named: %s is not an option name (the options are %s)", M.typename(k),
          table.concat(known.list, ", "))
      end
      error(format("bad argument #%d to '%s' (%s)", n, fname, msg), outside_level())
    end
    k = next(opts, k)
  end
  return opts
end

return M
