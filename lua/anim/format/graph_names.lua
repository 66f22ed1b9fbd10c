-- graph_names.lua: the names a .animgraph file may use (fields of each
-- object, parameter types, operators, curves, interrupt values, loop
-- modes, blends) and the checks that read a name against them, each
-- failing with the JSON path and a suggestion ("unknown operator '=<';
-- did you mean '<='?"), or the list of the names when none is close.
-- format/graph.lua and format/graph_machine.lua read the file with them.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local codes = require "anim.base.codes"
local V = require "anim.format.read_values"
local byteorder = require "anim.base.order"

local M = {}

local fail, key, shown, describe, num = E.fail, E.key, E.shown, E.describe, E.num

local function set(list)
  local s = { list = list, set = {} }
  for i, n in ipairs(list) do s.set[n] = i end
  return s
end
M.set = set

-- The fields of each object of the file.
M.FIELDS = {
  graph = set { "version", "parameters", "mix", "layers" },
  parameter = set { "type", "default" },
  layer = set { "name", "entry", "states", "transitions", "mask", "blend", "weight" },
  machine = set { "entry", "states", "transitions" },
  state = set { "clip", "space", "machine", "empty", "loop", "speed", "speed_parameter" },
  space = set { "parameters", "points", "sync" },
  transition = set { "from", "to", "when", "exit_time", "duration", "curve", "offset", "sync", "interrupt",
    "can_self" },
}

M.TYPES = { "float", "int", "bool", "trigger" }
-- The operators of a condition [name, op, value], op codes 0 to 5; the
-- one-element form [name] (a bool that is true, a trigger fired) has
-- code SET.
M.OPS = { "==", "!=", "<", "<=", ">", ">=" }
M.SET = #M.OPS
-- The operators written otherwise, which the suggestion rule does not
-- guess (a name of one or two letters only by its letter case): the
-- other order, Lua's and SQL's "not equal", a single "=".
local OP_HINTS = { ["=<"] = "<=", ["=>"] = ">=", ["=!"] = "!=", ["~="] = "!=", ["<>"] = "!=", ["="] = "==" }
M.INTERRUPTS = { "none", "source", "destination", "source_then_destination", "destination_then_source" }
M.LOOPS = V.LOOPS
M.BLENDS = V.BLENDS
-- (names a state may not have: the words of from, to and mix keys)
M.RESERVED = { any = "a transition's from", exit = "a transition's to", ["*"] = "the mix table" }

-- The fade curves: linear, and each easing of the .anim format (sine to
-- elastic) alone (its default direction, as a key that leaves `ease` out:
-- format/read_values.lua) or with in, out or inout: "sine", "sinein",
-- "sineout", "sineinout".  Each is { interp =, ease = } in the core's
-- codes (csrc/core/codes.h).
M.CURVES = { "linear" }
M.CURVE = { linear = { interp = codes.interp.linear, ease = codes.ease["in"] } }
do
  local interps = codes.names("interp")
  for code = codes.interp.sine, codes.interp.elastic do
    local n = interps[code + 1]
    local forms = { { n, V.default_ease(code) }, { n .. "in", codes.ease["in"] }, { n .. "out", codes.ease.out },
      { n .. "inout", codes.ease.inOut } }
    for _, f in ipairs(forms) do
      M.CURVES[#M.CURVES + 1] = f[1]
      M.CURVE[f[1]] = { interp = code, ease = f[2] }
    end
  end
end

-- The checks below take the path of a value as its parent's path and its
-- key (a field name or an index; nil: the parent's path is the value's):
-- the path is written only for a message (writing it for every value
-- that is right took a third of the reading of a large file).
local function at(parent, k)
  if k == nil then return parent end
  if type(k) == "number" then return E.index(parent, k) end
  return key(parent, k)
end
M.at = at

-- One of a fixed list of names (ours): its index.  The message suggests
-- the closest, else lists them all.
function M.enum(v, names, parent, k, what)
  if type(v) == "string" then
    for i, n in ipairs(names) do
      if n == v then return i end
    end
  end
  local path = at(parent, k)
  if type(v) ~= "string" then
    fail(path, "%s must be one of %s, got %s", what, table.concat(names, ", "), describe(v))
  end
  if names == M.OPS and OP_HINTS[v] then
    fail(path, "unknown %s '%s'; did you mean '%s'?", what, v, OP_HINTS[v])
  end
  local s = suggest.closest(v, names)
  if s then fail(path, "unknown %s '%s'; did you mean '%s'?", what, shown(v), s) end
  fail(path, "unknown %s '%s' (expected %s)", what, shown(v), table.concat(names, ", "))
end

-- A name the file defines (a state, a parameter): the entry of `known`
-- (name -> entry) it names.  `list`: the names, sorted; `plural`: "the
-- states of this machine" in the message when none is close.
function M.lookup(v, known, list, parent, k, what, plural)
  local found = type(v) == "string" and known[v]
  if found then return found end
  local path = at(parent, k)
  if type(v) ~= "string" then fail(path, "%s must be a string, got %s", what, describe(v)) end
  local s = suggest.closest(v, list)
  if s then fail(path, "unknown %s '%s'; did you mean '%s'?", what, shown(v), shown(s)) end
  if #list == 0 then fail(path, "unknown %s '%s' (%s: none)", what, shown(v), plural) end
  fail(path, "unknown %s '%s' (%s: %s)", what, shown(v), plural, E.shown_list(list))
end

-- A finite number.
function M.number(v, parent, k, what)
  if E.finite(v) then return v end
  E.number(v, at(parent, k), what)
end

function M.boolean(v, parent, k, what)
  if type(v) == "boolean" then return v end
  E.boolean(v, at(parent, k), what)
end

-- A finite number >= 0 (durations, weights, exit times).
function M.non_negative(v, parent, k, what)
  if E.finite(v) and v >= 0 then return v end
  local path = at(parent, k)
  E.number(v, path, what)
  fail(path, "%s must be >= 0, got %s", what, num(v))
end

-- A string of at least one byte.
function M.name(v, parent, k, what)
  if type(v) == "string" and v ~= "" then return v end
  local path = at(parent, k)
  E.string(v, path, what)
  fail(path, "%s must not be empty", what)
end

-- An object whose fields are all of `fields` (M.FIELDS.x): else the first
-- other field (in byte order) fails, with a suggestion or the list.
function M.object(v, path, fields, what)
  if type(v) ~= "table" then E.object(v, path, what) end
  for k in pairs(v) do
    if type(k) ~= "string" then
      E.object(v, path, what) -- (an array: said so)
      fail(path, "the keys of %s must be strings, got %s", what, type(k) == "number" and num(k) or describe(k))
    end
  end
  local bad = byteorder.first_unknown(v, fields.set)
  if bad then
    local s = suggest.closest(bad, fields.list)
    if s then fail(key(path, bad), "unknown field; did you mean '%s'?", s) end
    fail(key(path, bad), "unknown field (%s has %s)", what, table.concat(fields.list, ", "))
  end
  return v
end

-- The keys of an object (a map of names), sorted byte-wise: the order of
-- everything the reader lists from a map (JSON objects have none).
function M.sorted_keys(v, path, what)
  E.object(v, path, what)
  local names = {}
  for k in pairs(v) do
    if type(k) ~= "string" then
      fail(path, "the names of %s must be strings, got %s", what, type(k) == "number" and num(k) or describe(k))
    end
    names[#names + 1] = k
  end
  byteorder.sort(names)
  return names
end

return M
