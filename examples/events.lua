-- examples/events.lua: markers, events, sounds and chained clips.
-- attack.anim swings the right arm; at the hit it fires a marker, a server
-- event (damage), a client event (screen shake), a sound, and plays
-- spark.anim from the same library.  Two animators show the sides: the
-- server sees damage and runs plays; the client sees the shake and sounds.
-- Run with `make events`.
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local lib = assert(anim.library(here .. "/clips"))
local attack = assert(lib:clip("res://attack.anim"))
local rig = anim.rig("player")

local function run(side)
  print(string.format("-- %s animator --", side))
  local a = anim.animator(rig, { side = side, library = lib })
  local clock = 0
  local function at(late) return string.format("%5.3f", clock - late) end
  a:on_marker(function(t, name, value, late)
    print(at(late), "marker", name, value or "", "(" .. t.clip.name .. ")")
  end)
  a:on_event(function(_, name, payload, late)
    local fields = {}
    for k, v in pairs(payload) do fields[#fields + 1] = k .. "=" .. (type(v) == "number" and string.format("%g", v) or tostring(v)) end
    table.sort(fields)
    print(at(late), "event", name, table.concat(fields, " "))
  end)
  a:on_sound(function(t, id, volume, pitch, late)
    local x, y, z = t.animator:root_transform()
    print(at(late), "sound", id, string.format("volume %.1f pitch %.1f at (%g, %g, %g)", volume, pitch, x, y, z))
  end)
  a:on_play(function(t, clip, late, from)
    print(at(late), "play", clip.name, "(a plays item of " .. from.name .. ")")
    t:on_ended(function(_, l) print(at(l), "ended", clip.name) end)
  end)
  local tr = a:play(attack, { fade = 0.05 })
  tr:on_ended(function(_, late) print(at(late), "ended", attack.name) end)
  for _ = 1, 20 do
    clock = clock + 0.05
    a:update(0.05)
  end
end

run("server")
run("client")
run("both")
