-- read_items.lua: reads the timed items of a .anim clip (markers, events,
-- sounds, plays) into the info table the Lua API reads and the C core's
-- list of items by time.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local codes = require "anim.base.codes"
local limits = require "anim.base.limits"

local M = {}

local fail, describe, key, index, num = E.fail, E.describe, E.key, E.index, E.num
local L = limits.current
local SIDES = codes.names("side")

-- JSON has one kind of number, and lua-cjson decodes every one as a
-- float: a whole number (within 2^53, where doubles hold every integer)
-- of a decoded payload or marker value becomes a Lua integer, so that a
-- file's 12 reaches callbacks as 12, not 12.0 (docs/api.md).  Tables a
-- script gave (anim.clip) keep the types the script wrote.
local TWO53 = 2 ^ 53
local function integers(v)
  if type(v) == "number" then
    if v == math.floor(v) and v >= -TWO53 and v <= TWO53 then return compat.tointeger(v) end
    return v
  end
  if type(v) == "table" then
    for k, x in pairs(v) do
      if type(x) == "number" or type(x) == "table" then v[k] = integers(x) end
    end
  end
  return v
end

-- What a marker value may be: a string, a number or a boolean (a table
-- would be shared by every delivery and changed by none: events carry
-- those, in their payload).
local function marker_value(v, path)
  local t = type(v)
  if t ~= "string" and t ~= "number" and t ~= "boolean" then
    fail(path, "marker value must be a string, a number or a boolean, got %s", describe(v))
  end
  if t == "number" then E.number(v, path, "marker value") end
  return v
end

local function read_items(c, info, items, path, from_file)
  local total = 0
  local function list(name)
    local v = c[name]
    if E.absent(v) then return {} end
    E.array(v, key(path, name), name)
    total = total + #v
    if total > L.items then
      fail(key(path, name), "too many timed items: markers, events, sounds and plays would be %d (at most %d, anim.limits.items)",
        total, L.items)
    end
    return v
  end
  -- every list is checked before any is read
  local lists = { markers = list("markers"), events = list("events"), sounds = list("sounds"), plays = list("plays") }
  local last = nil
  local function add(t, kind, i, side)
    items[#items + 1] = { t = t, kind = kind, index = i - 1, side = side or codes.side.both }
    if not last or t > last then last = t end
  end
  info.markers, info.events, info.sounds, info.plays = {}, {}, {}, {}
  for i, m in ipairs(lists.markers) do
    local p = index(key(path, "markers"), i)
    E.object(m, p, "marker")
    local t = E.number(m.time, key(p, "time"), "time")
    local name = E.string(m.name, key(p, "name"), "name")
    local value = m.value
    if E.absent(value) then value = nil else value = marker_value(value, key(p, "value")) end
    if from_file then value = integers(value) end
    info.markers[i] = { time = t, name = name, value = value }
    add(t, codes.item.marker, i)
  end
  for i, ev in ipairs(lists.events) do
    local p = index(key(path, "events"), i)
    E.object(ev, p, "event")
    local t = E.number(ev.time, key(p, "time"), "time")
    local name = E.string(ev.name, key(p, "name"), "name")
    local on = E.absent(ev.on) and 1 or E.enum(ev.on, SIDES, key(p, "on"), "side")
    info.events[i] = { time = t, name = name, payload = from_file and integers(ev.payload) or ev.payload, on = SIDES[on] }
    add(t, codes.item.event, i, on - 1)
  end
  for i, s in ipairs(lists.sounds) do
    local p = index(key(path, "sounds"), i)
    E.object(s, p, "sound")
    local t = E.number(s.time, key(p, "time"), "time")
    local id = s.sound
    local idp = key(p, "sound")
    if E.absent(id) then id, idp = s.id, key(p, "id") end
    if E.absent(id) then fail(p, "sound needs a sound id in 'sound' (or 'id')") end
    E.string(id, idp, "sound id")
    local volume = E.absent(s.volume) and 1 or E.number(s.volume, key(p, "volume"), "volume")
    local pitch = E.absent(s.pitch) and 1 or E.number(s.pitch, key(p, "pitch"), "pitch")
    info.sounds[i] = { time = t, sound = id, volume = volume, pitch = pitch }
    add(t, codes.item.sound, i)
  end
  for i, pl in ipairs(lists.plays) do
    local p = index(key(path, "plays"), i)
    E.object(pl, p, "play")
    local t = E.number(pl.time, key(p, "time"), "time")
    local clip = E.string(pl.clip, key(p, "clip"), "clip path")
    local fade = E.absent(pl.fade) and codes.float.default_fade or E.number(pl.fade, key(p, "fade"), "fade")
    if fade < 0 then fail(key(p, "fade"), "fade must be >= 0, got %s", num(fade)) end
    info.plays[i] = { time = t, clip = clip, fade = fade }
    add(t, codes.item.play, i)
  end
  return last
end
M.read_items = read_items

return M
