-- props.lua: reads the property channels of a clip table (the top-level
-- `properties` object, an extension of this module: see
-- docs/format-reference.md, "Property channels") into the core's
-- description (desc.props, read by csrc/lua/lua_clip.c) and the info the
-- Lua API reads (info.properties: the names in order, with their numbers
-- of components).
--
-- A property is a list of keys, or an object { keys = [...], modifiers =
-- [...] }.  Keys are those of a joint's position channel, except that a
-- value is a number (one component) or an array of n numbers, the same n
-- for every key; handles, interpolations, easings and modifiers likewise.
-- The keys stay in the clip's source table as they were (anim.encode
-- writes them back as given).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local format = require "anim.format.read"
local byteorder = require "anim.base.order"

local M = {}

local fail, describe, key, index, num = E.fail, E.describe, E.key, E.index, E.num
local MAX_ARITY = codes.const.max_prop_arity
local HAS_INTERP = format.HAS_INTERP
local STEP = codes.interp.step

-- The components of a key's value: its number, or the array's numbers.
local function components(v, vp)
  if type(v) == "number" then
    E.number(v, vp, "property value")
    return { v }, 1
  end
  if type(v) ~= "table" or not E.is_array(v) or #v == 0 then
    fail(vp, "a property value must be a number or an array of numbers, got %s",
      type(v) == "table" and E.is_array(v) and "an empty array" or describe(v))
  end
  if #v > MAX_ARITY then
    fail(vp, "a property value has at most %d components, got %d", MAX_ARITY, #v)
  end
  for i = 1, #v do E.number(v[i], index(vp, i), "property value component") end
  return v, #v
end

-- The keys of property `name` at path: the core's description of them
-- (discrete: every key must be a `step`).
local function read_keys(name, list, path, discrete)
  E.array(list, path, "property keys")
  local n = #list
  local t, v, ie, h, tan = {}, {}, {}, nil, nil
  local arity, prev
  for i = 1, n do
    local k = list[i]
    local kp = index(path, i)
    local time = format.key_time(k, kp, prev)
    prev = time
    local vals, na = components(k[2], index(kp, 2))
    if not arity then
      arity = na
      -- each component is a curve of n keys
      for _ = 1, arity do format.count_keys(n, path) end
    elseif na ~= arity then
      fail(index(kp, 2), "this value has %d component%s, the first key's had %d (a property keeps one number of components)",
        na, na == 1 and "" or "s", arity)
    end
    local code = format.interp_code(k[3], index(kp, 3))
    if discrete and code ~= STEP then
      fail(index(kp, 3), "a discrete property's keys must all be 'step', got %s",
        E.absent(k[3]) and "none (linear)" or "'" .. tostring(k[3]) .. "'")
    end
    local byte = code + (E.absent(k[3]) and 0 or HAS_INTERP)
    if not E.absent(k[4]) then
      local bits, hd = format.read_extra(k[4], index(kp, 4), code, arity)
      byte = byte + bits
      if hd then
        h = h or {}
        h[i] = hd
      end
      local rec = format.read_tangents(k[4], index(kp, 4), arity)
      if rec then
        tan = tan or {}
        tan[i] = rec
      end
    elseif format.is_easing(code) then
      byte = byte + format.EASE_UNIT * format.default_ease(code)
    end
    -- a frame index (a sprite sheet's flipbook) holds still between its
    -- keys: a `step` key of `frame` must name a whole frame
    if name == "frame" then
      if arity ~= 1 then
        fail(index(kp, 2), "a frame property is one number per key (a frame index), got %d components", arity)
      end
      if code == STEP and vals[1] % 1 ~= 0 then
        fail(index(kp, 2), "a step key of the frame property must be a whole number (a frame index), got %s",
          num(vals[1]))
      end
    end
    t[i], ie[i] = time, byte
    for a = 1, arity do v[(i - 1) * arity + a] = vals[a] end
  end
  return { name = name, arity = arity, t = t, v = v, ie = ie, h = h, tan = tan }, prev
end

-- The modifiers of a property of `arity` components: { [component] = list }.
local function read_mods(list, path, arity)
  E.array(list, path, "modifier list")
  format.count_modifiers(#list, path)
  local mods = {}
  for i, m in ipairs(list) do mods[i] = format.read_modifier(m, index(path, i), arity) end
  local per = {}
  for a = 1, arity do
    local l = {}
    for _, m in ipairs(mods) do
      if m.enabled and (m.axis == nil or m.axis == a) then l[#l + 1] = m end
    end
    if #l > 0 then per[a] = l end
  end
  return per
end

-- Reads c.properties (when there) into desc.props and info.properties;
-- a clip of properties without a length lasts at least to its last key.
-- Raises a failure (errors.lua).
function M.read(c, desc, info)
  info.properties = {}
  if E.absent(c.properties) then return end
  E.object(c.properties, "properties", "properties")
  local names = {}
  for name in pairs(c.properties) do
    if type(name) ~= "string" then fail("properties", "property names must be strings, got %s", describe(name)) end
    names[#names + 1] = name
  end
  byteorder.sort(names)
  local props, last = {}, nil
  for _, name in ipairs(names) do
    local p = c.properties[name]
    local pp = key("properties", name)
    local list, mods, discrete = p, nil, nil
    if type(p) == "table" and not (next(p) == nil or E.is_array(p)) then
      -- the object form: { keys = [...], modifiers = [...], discrete = bool }
      -- (other fields kept)
      list = p.keys
      if E.absent(list) then fail(pp, "a property object needs its keys in 'keys'") end
      if not E.absent(p.discrete) and type(p.discrete) ~= "boolean" then
        fail(key(pp, "discrete"), "discrete must be true or false, got %s", describe(p.discrete))
      end
      discrete = p.discrete == true or nil
      pp = key(pp, "keys")
      if not E.absent(p.modifiers) then mods = p.modifiers end
    end
    local d, t = read_keys(name, list, pp, discrete)
    d.discrete = discrete
    if mods then
      local mp = key(key("properties", name), "modifiers")
      -- (checked even when there are no keys, as a joint's are)
      d.mods = read_mods(mods, mp, d.arity or MAX_ARITY)
    end
    if d.arity then
      props[#props + 1] = d
      info.properties[#info.properties + 1] = { name = name, arity = d.arity, discrete = discrete }
      if t and (last == nil or t > last) then last = t end
    end
  end
  if #props == 0 then return end
  -- clip:sample(t) gives the properties under pose.properties
  for _, j in ipairs(info.joints or {}) do
    if j == "properties" then
      fail(key("joints", "properties"), "a clip with property channels cannot have a joint named 'properties' "
        .. "(clip:sample puts the properties under that name)")
    end
  end
  desc.props = props
  if E.absent(c.length) and last and last > desc.length then
    desc.length = last
    info.length = last
  end
end

return M
