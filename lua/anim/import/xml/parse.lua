-- import/xml/parse.lua: the legacy XML text parsed with expat (never with
-- patterns) into a tree of elements, within anim.limits, and the readers
-- of its elements: numbers, interpolations, a transformation's keys.
require("anim.base.luajit").no_traversal_traces()
local lxp = require "lxp"
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local codes = require "anim.base.codes"
local dot_number = require("anim.base.compat").number

local M = {}

local fail = E.fail
local num = E.num -- numbers in messages as written (1000, not 1e+03)
local LIM = limits.current

-- Codes of the C core (csrc/core/codes.h).
local LINEAR, STEP, SINE = codes.interp.linear, codes.interp.step, codes.interp.sine
local EASE_IN, EASE_OUT, EASE_INOUT = codes.ease["in"], codes.ease.out, codes.ease.inOut

-- The viewer's interpolations (SEMANTICS 9).  SMOOTH_IN arrives flat (the
-- easing "out"), SMOOTH_OUT leaves flat (the easing "in").
local INTERPS = {
  CONSTANT = { STEP, EASE_IN },
  LINEAR = { LINEAR, EASE_IN },
  SMOOTH = { SINE, EASE_INOUT },
  SMOOTH_IN = { SINE, EASE_OUT },
  SMOOTH_OUT = { SINE, EASE_IN },
}
local INTERP_LIST = "CONSTANT, LINEAR, SMOOTH, SMOOTH_IN or SMOOTH_OUT"

-- Parsing -------------------------------------------------------------------------

-- An element: { name, attrs, line, children, content = {text and children in
-- document order}, parent, index }, index counting the elements of the same
-- name under the same parent.
local function parse(text)
  if #text > LIM.bytes then fail("", "too large (%d bytes; at most %d, anim.limits.bytes)", #text, LIM.bytes) end
  local max_depth = LIM.depth
  local root
  local stack = {}
  local elements, max_elements = 0, LIM.keys
  -- The text and attribute values the parser hands over, entities expanded,
  -- are bounded like a file's bytes: entities defined in the file's DTD can
  -- make a few hundred bytes expand to megabytes (expat's own protection
  -- against "billion laughs" starts at 8 MiB of expansion, then allows
  -- 100 times the input).
  local expanded, max_expanded = 0, LIM.bytes
  local function spend(p, n)
    expanded = expanded + n
    if expanded > max_expanded then
      fail(string.format("line %d", (p:pos())), "the text expands to more than %d bytes with its entities"
        .. " (anim.limits.bytes)", max_expanded)
    end
  end
  local callbacks = {
    StartElement = function(p, name, attrs)
      local line = p:pos()
      -- every element is a few Lua tables: their number is bounded too
      elements = elements + 1
      if elements > max_elements then
        fail(string.format("line %d", line), "too many elements (more than %d, anim.limits.keys)", max_elements)
      end
      for _, v in pairs(attrs) do spend(p, #v) end
      local parent = stack[#stack]
      local el = { name = name, attrs = attrs, line = line, children = {}, content = {}, parent = parent, count = {} }
      if parent then
        parent.children[#parent.children + 1] = el
        parent.content[#parent.content + 1] = el
        local n = (parent.count[name] or 0) + 1
        parent.count[name] = n
        el.index = n
      else
        root = el
      end
      if #stack >= max_depth then
        fail(string.format("line %d", line), "elements nested too deeply (at most %d levels, anim.limits.depth)", max_depth)
      end
      stack[#stack + 1] = el
    end,
    EndElement = function()
      stack[#stack] = nil
    end,
    CharacterData = function(p, s)
      spend(p, #s)
      local el = stack[#stack]
      if el then el.content[#el.content + 1] = s end
    end,
  }
  local parser = lxp.new(callbacks)
  local ok, msg, line, col = parser:parse(text)
  if ok then ok, msg, line, col = parser:parse() end
  -- close raises after a failed parse; the failure is reported below
  pcall(parser.close, parser)
  if not ok then fail(string.format("line %d, column %d", line or 0, col or 0), "not valid XML: %s", msg) end
  return root
end

-- Where an element is, for messages: animation/right-arm/pitch/keyframe[3] (line 12).
-- Keyframes always carry their index; other elements only when the parent
-- has more than one of that name.
local function where(el)
  local up = {}
  local e = el
  while e do
    -- (an element the reader passes over may have any name: shown cut)
    local s = E.shown(e.name)
    if e.parent and (e.name == "keyframe" or e.parent.count[e.name] > 1) then
      s = s .. "[" .. e.index .. "]"
    end
    up[#up + 1] = s
    e = e.parent
  end
  local parts = {}
  for i = #up, 1, -1 do parts[#parts + 1] = up[i] end
  return table.concat(parts, "/") .. " (line " .. el.line .. ")"
end

-- Text for a message, quoted and cut short (E.shown).
local function quote(s)
  return '"' .. E.shown(s) .. '"'
end

-- (s without the white space around it, in linear time: errors.lua)
local trim = E.trim
M.trim = trim

-- A number as Java's Float.parseFloat reads decimal text: white space
-- around it, a sign, digits with at most one point, an exponent, and a
-- trailing f/F/d/D.  NaN and Infinity are refused (not finite).  `path`
-- is where it is, or the element (its path is made for a message only).
local function number(s, path, what)
  local body = trim(s):gsub("[fFdD]$", "", 1)
  local mant = body:match("^([+-]?[%d.]+)[eE][+-]?%d+$") or body:match("^[+-]?[%d.]+$")
  local v = mant and select(2, mant:gsub("%.", "")) <= 1 and mant:find("%d") and dot_number(body)
  if type(path) == "table" and not (v and v == v and v ~= math.huge and v ~= -math.huge) then path = where(path) end
  if not v then
    if body == "" then fail(path, "%s must be a number, got nothing", what) end
    fail(path, "%s must be a number, got %s", what, quote(s))
  end
  v = v + 0.0
  if v ~= v or v == math.huge or v == -math.huge then
    fail(path, "%s must be a finite number, got %s", what, quote(s))
  end
  return v
end

local function interp(s, path)
  local ip = INTERPS[s]
  if not ip then
    if type(path) == "table" then path = where(path) end
    fail(path, "unknown interpolation %s (expected %s; the names are case-sensitive)", quote(s), INTERP_LIST)
  end
  return ip
end

-- The first descendant named `name` in document order, as the viewer's
-- getElementsByTagName(name).item(0).
local function first(el, name)
  for _, c in ipairs(el.children) do
    if c.name == name then return c end
    local f = first(c, name)
    if f then return f end
  end
end

local function all(el, name, out)
  out = out or {}
  for _, c in ipairs(el.children) do
    if c.name == name then out[#out + 1] = c end
    all(c, name, out)
  end
  return out
end

-- The text of an element and its descendants, in document order (the
-- viewer's getTextContent).
local function text_of(el)
  local out = {}
  local function walk(e)
    for _, c in ipairs(e.content) do
      if type(c) == "string" then out[#out + 1] = c else walk(c) end
    end
  end
  walk(el)
  return table.concat(out)
end

-- A transformation (pitch, x, ...): its keys in file order, as scalar keys
-- { t, v, c = interpolation code, e = ease code }, and its own length.
local function read_transform(el, sign)
  local path = where(el)
  local L
  if el.attrs.length ~= nil then
    L = number(el.attrs.length, path, "length")
    -- the viewer wraps a transformation only on a positive length
    if L <= 0 then L = nil end
  end
  local default
  if el.attrs.i ~= nil then default = interp(el.attrs.i, path) end
  local kfs = all(el, "keyframe")
  if #kfs == 0 then return nil end -- no keys: the viewer leaves the axis alone
  if #kfs > LIM.keys then fail(path, "too many keyframes (%d; at most %d, anim.limits.keys)", #kfs, LIM.keys) end
  local keys, prev = {}, nil
  for n, kf in ipairs(kfs) do
    local kp = kf -- (its path, where(kf), is made for a message only)
    local t = 0.0
    if kf.attrs.t ~= nil then t = number(kf.attrs.t, kp, "time t") end
    if prev and t < prev.t then
      fail(where(kf), "keys out of order: t=%s comes after t=%s (the viewer does not sort keyframes)", num(t), num(prev.t))
    end
    local v = number(text_of(kf), kp, "value")
    if sign < 0 and v ~= 0 then v = -v end
    local ip
    if kf.attrs.i ~= nil then ip = interp(kf.attrs.i, kp)
    elseif default then ip = default
    elseif prev then ip = { prev.c, prev.e }
    else ip = INTERPS.CONSTANT end
    keys[n] = { t = t, v = v, c = ip[1], e = ip[2] }
    prev = keys[n]
  end
  return { keys = keys, L = L, path = path }
end

M.parse, M.where, M.number, M.interp, M.first, M.all, M.text_of = parse, where, number, interp, first, all, text_of
M.read_transform = read_transform

return M
