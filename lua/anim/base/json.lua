-- json.lua: JSON decoding for the readers, with the module's limits
-- (limits.lua: bytes, depth), and the check of a decoded tree against the
-- limits that apply to what a clip keeps (strings, finite numbers).
-- lua-cjson, when the game has it: a game that reads only .animc files
-- (compressed clips, format/animc.lua) may ship without it; decoding JSON
-- then fails, saying so
require("anim.base.luajit").no_traversal_traces()
local has_cjson, cjson = pcall(function() return require "cjson" end)
local compat = require "anim.base.compat"
local core = require "anim.core"
local TREE = require("anim.base.codes").tree
local E = require "anim.base.errors"
local limits = require "anim.base.limits"

local M = {}

local L = limits.current
-- JSON null: lua-cjson's cjson.null (the light userdata NULL), from the
-- core (the same value), so that it is there without lua-cjson.
M.null = core.null

-- The defaults, for code that wants the numbers (the values in force are
-- limits.current.bytes and .depth).

local decoder, lenient
local function decoders()
  if not has_cjson then
    E.fail("", "cannot decode JSON without lua-cjson (%s)", (tostring(cjson):gsub("\n.*", "")))
  end
  decoder = cjson.new()
  decoder.decode_invalid_numbers(false) -- no NaN, Infinity or hex: JSON numbers only
  lenient = cjson.new()
  lenient.decode_invalid_numbers(true)
end
local depth_set
local function set_depth()
  if not decoder then decoders() end
  if depth_set ~= L.depth then
    decoder.decode_max_depth(L.depth)
    depth_set = L.depth
  end
end

local function too_large(n)
  E.fail("", "too large (%d bytes; at most %d, anim.limits.bytes)", n, L.bytes)
end

-- Raises the failure for cjson's error message `err` (its positions
-- moved by skip: the bytes taken off the text's start).
local function not_json(err, skip)
  local msg = tostring(err):gsub("^.-:%d+: ", "")
  if skip and skip > 0 then
    msg = msg:gsub("character (%d+)", function(n) return "character " .. (tonumber(n) + skip) end)
  end
  local at = msg:match("^Found too many nested data structures %(%d+%) at (character %d+)")
  if at then
    E.fail("", "not valid JSON: nested deeper than %d levels (anim.limits.depth) at %s", L.depth, at)
  end
  E.fail("", "not valid JSON: %s", msg)
end

-- A text file's first bytes, for every reader of text (JSON, the Spine
-- atlas): a UTF-8 byte order mark is left out (editors such as Windows'
-- Notepad wrote one; RFC 8259, 8.1, lets a parser ignore it): the text
-- and the bytes taken off; UTF-16 (Windows' "Unicode") is told apart.
function M.bom_off(text)
  if text:sub(1, 3) == "\239\187\191" then return text:sub(4), 3 end
  return text, 0
end
function M.is_utf16(text)
  local two = text:sub(1, 2)
  return two == "\255\254" or two == "\254\255"
end
-- UTF-16 text said so, not "invalid token at character 1".
local function not_utf16(text)
  if M.is_utf16(text) then
    E.fail("", "not valid JSON: the text is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8")
  end
end
M.not_utf16 = not_utf16

-- The text a decoder reads (the mark left out, UTF-16 refused) and the
-- bytes taken off, by which its message's positions stay the file's.
local function prepared(text)
  local body, skip = M.bom_off(text)
  not_utf16(body)
  return body, skip
end

-- A name an object of the text holds twice (core.json_duplicate, on a
-- text the decoder took; of several, one in the first object to close
-- holding one): the member's path (as messages write paths), the words
-- saying so and the object's path, or nil.  An array's elements are
-- counted from `base` (default 1, as the module's paths; glTF's from 0).
-- JSON keeps one value of such a name (cjson, as JavaScript's JSON.parse,
-- the last): a block pasted twice under one name would lose the first
-- without a word.
function M.duplicate(text, base)
  local path, name, first, second = core.json_duplicate(text)
  if not path then return nil end
  local p = ""
  for _, seg in ipairs(path) do p = type(seg) == "number" and E.index(p, seg - 1 + (base or 1)) or E.key(p, seg) end
  return E.key(p, name), string.format("named twice in one object (lines %d and %d), where JSON keeps only the"
    .. " last", first, second), p
end

-- What an importer warns of a name held twice (M.duplicate's where and
-- words): the member's path and the message, or nothing.
local function read_last(where, words)
  if where then return where, words .. ": the last is read" end
end

-- Decodes text (prepared) or raises a failure (errors.lua) saying why it
-- is not JSON, or that an object holds a name twice.  twice = "warn" (the
-- importers: the tools that read their files, as JavaScript's JSON.parse,
-- keep the last): the last kept, and the warning's path and message after
-- the value.  own: the path of an object whose repeated names the caller
-- judges itself (passed over here).
function M.decode(text, twice, base, own)
  if #text > L.bytes then too_large(#text) end
  set_depth()
  local skip
  text, skip = prepared(text)
  local ok, v = pcall(decoder.decode, text)
  if not ok then not_json(v, skip) end
  local where, words, parent = M.duplicate(text, base)
  if not where or (own and parent == own) then return v end
  if twice == "warn" then return v, read_last(where, words) end
  E.fail(where, "%s: give each its own name", words)
end

-- The JSON the game and Blockbench read (Blockbench's autoParseJSON in
-- js/util/json.ts): a byte-order mark first, `//` and `/* */` comments
-- (stripped only when the text does not parse without), and NaN,
-- Infinity (the numbers Blockbench once wrote) where a number goes.  A
-- name an object holds twice is read as JSON.parse reads it, the last
-- kept: the value, then the warning's path and message (M.decode's "warn").
local lenient_depth

-- The text with its comments blanked out (each byte of a comment a space
-- but its line ends, so that the decoder's positions and the lines
-- M.duplicate counts stay right); strings are kept whole.
local function strip_comments(text)
  local parts, pos, n = {}, 1, #text
  local i = 1
  while true do
    local s = text:find('["/]', i)
    if not s then break end
    if text:byte(s) == 34 then -- a string: to its closing quote
      local j = s + 1
      while true do
        local q = text:find('["\\]', j)
        if not q then j = n + 1 break end
        if text:byte(q) == 92 then j = q + 2 else j = q + 1 break end
      end
      i = j
    else
      local nx = text:byte(s + 1)
      local e
      if nx == 47 then -- //
        e = (text:find("[\r\n]", s + 2) or n + 1) - 1
      elseif nx == 42 then -- /* */
        local _, ce = text:find("*/", s + 2, true)
        e = ce or n
      end
      if e then
        parts[#parts + 1] = text:sub(pos, s - 1)
        parts[#parts + 1] = (text:sub(s, e):gsub("[^\r\n]", " "))
        pos = e + 1
        i = e + 1
      else
        i = s + 1
      end
    end
  end
  if pos == 1 then return text end
  parts[#parts + 1] = text:sub(pos)
  return table.concat(parts)
end
M.strip_comments = strip_comments

function M.decode_lenient(text)
  if #text > L.bytes then too_large(#text) end
  if not lenient then decoders() end
  if lenient_depth ~= L.depth then
    lenient.decode_max_depth(L.depth)
    lenient_depth = L.depth
  end
  local skip
  text, skip = prepared(text)
  if text:sub(1, 4) == "<lz>" then
    -- (Blockbench's autoParseJSON inflates it: LZ-UTF8 in a
    -- StorageBinaryString, what Blockbench writes its backups in)
    E.fail("", "a compressed Blockbench file ('<lz>', as Blockbench writes its backups) is not read:"
      .. " open it in Blockbench and save the project (File > Save Project)")
  end
  local ok, v = pcall(lenient.decode, text)
  if not ok and text:find("/", 1, true) then
    local stripped = strip_comments(text)
    if stripped ~= text then
      local ok2, v2 = pcall(lenient.decode, stripped)
      if ok2 then ok, v, text = true, v2, stripped end
    end
  end
  if not ok then not_json(v, skip) end
  -- (as M.decode's "warn": Blockbench and the game read the last)
  return v, read_last(M.duplicate(text))
end

-- What core.read_file and core.read_beneath say, as read_file says it.
local REFUSED = {
  link = "refused: the path leaves the library root (through a link)",
  directory = "cannot open file: it is a directory",
}

-- Reads a whole file, or raises a failure: every reader of the module
-- reads its files here (anim.load and reload, retarget maps, the
-- importers, the CLI).  Only a regular file is read: the C side opens it
-- without blocking (a FIFO would wait for a writer in open) and fstat()s
-- what it opened before reading anything (csrc/io/fs.c), so that a
-- FIFO, a device, a socket or a directory is refused at once, and it never
-- reads more than anim.limits.bytes + 1 bytes.  `beneath` ({ root, rel },
-- from the library): the file rel under the directory root, opened one
-- component after the other without following links (core.read_beneath),
-- so that a link put on the path after it was resolved is not followed.
function M.read_file(path, beneath)
  local text, why, detail
  if beneath then
    text, why, detail = core.read_beneath(beneath.root, beneath.rel, L.bytes)
  else
    text, why, detail = core.read_file(path, L.bytes)
  end
  if text then
    if #text > L.bytes then too_large(#text) end
    return text
  end
  if why == "large" then too_large(tonumber(detail)) end
  if why == "other" then E.fail("", "refused: not a regular file (%s)", detail) end
  if REFUSED[why] then E.fail("", "%s", REFUSED[why]) end
  E.fail("", "cannot %s file: %s", why == "read" and "read" or "open", detail)
end

-- Checks a decoded tree (or a Lua table in the same shape) against what a
-- clip may keep: every string (key or value) at most limits.strings bytes,
-- every number finite, every key a string or a positive whole number.
-- Raises a failure naming the JSON path of the first offence.  The readers
-- call it after their own checks, which give more specific messages for
-- the fields they know; this catches the rest (unknown fields, payloads).
-- The walk is core.check_tree (csrc/io/check.c: in Lua it cost more than
-- the decoding); it finds the place, the message is made here.
local check_tree = core.check_tree

local function path_of(keys)
  local path = ""
  for i = 1, #keys do
    local k = keys[i]
    if type(k) == "string" then path = E.key(path, k)
    else path = E.index(path, compat.tointeger(k) or k) end
  end
  return path
end

-- `skip`: nil, or a set of tables inside v already found so (the key
-- lists core.key_scanner read: format/read.lua), left out.
function M.check(v, skip)
  local code, keys, what = check_tree(v, L.strings, L.depth, skip)
  if not code then return v end
  local path = path_of(keys)
  if code == TREE.bad_string then
    E.fail(path, "string too long (%d bytes; at most %d, anim.limits.strings)", #what, L.strings)
  elseif code == TREE.bad_key_length then
    E.fail(path, "key too long (%d bytes; at most %d, anim.limits.strings)", #what, L.strings)
  elseif code == TREE.bad_key_type then
    E.fail(path, "keys must be strings or array indices, got %s",
      type(what) == "number" and E.num(what) or E.describe(what))
  elseif code == TREE.bad_number then
    E.fail(path, "number must be finite, got %s", E.describe(what))
  elseif code == TREE.too_deep then
    E.fail(path, "nested deeper than %d levels (anim.limits.depth)", L.depth)
  end
  E.fail(path, "value must be a string, number, boolean, null, array or object, got %s", type(what))
end

-- Copies ------------------------------------------------------------------------

-- Where a table is, from the nodes of the walk ({ up, k }): a JSON path.
local function node_path(node)
  local keys = {}
  while node.up do
    local k = node.k
    -- (a Lua table may have keys of any type; the readers refuse them later)
    if type(k) ~= "string" and type(k) ~= "number" then k = "<" .. type(k) .. " key>" end
    table.insert(keys, 1, k)
    node = node.up
  end
  return path_of(keys)
end

local function shown(path) return path == "" and "the top level" or path end

-- A copy of a table, read raw (no metamethod of the caller's runs: no
-- __pairs, __index or __len decides what is copied), nested at most
-- limits.depth deep.  A table found at several places is copied once, and
-- the copy holds that copy at each (a table shared two ways at each of 25
-- levels used to be copied 2^25 times; what walks the copy later walks a
-- shared table once, or bounds what it writes: fields.lua, encode.lua).
-- With `acyclic`, a table that holds itself (is one of its own parents) is
-- refused, naming both places; without, it is copied as the cycle it is.
function M.copy(v, acyclic)
  if type(v) ~= "table" then return v end
  local max = L.depth
  local seen, copies = {}, {} -- table -> its node; table -> its copy
  local function walk(t, depth, node)
    if depth > max then
      E.fail(node_path(node), "nested deeper than %d levels (anim.limits.depth)", max)
    end
    local at = seen[t]
    if at then
      if acyclic then
        local p = node.up
        while p do
          if p == at then
            E.fail(node_path(node), "the table holds itself (it is the table at %s)", shown(node_path(at)))
          end
          p = p.up
        end
      end
      return copies[t]
    end
    seen[t] = node
    local out = {}
    copies[t] = out
    for k, x in next, t do
      if type(x) == "table" then x = walk(x, depth + 1, { up = node, k = k }) end
      out[k] = x
    end
    return out
  end
  return walk(v, 1, {})
end

return M
