-- bench/hostile.lua: the hostile inputs of issue 19's review, made as it
-- describes them, for bench/attacks.lua (their figures) and fuzz/seeds.lua
-- (the seeds of the import fuzzer).  Texts only: nothing here loads them.
local cjson = require "cjson"

local M = {}

-- A legacy XML animation of one keyframe, with its length and value as given.
function M.xml(length, value)
  return '<animation length="' .. length .. '"><head><pitch><keyframe t="0">' .. value
    .. "</keyframe></pitch></head></animation>"
end

-- An XML prologue defining e0 (ten spaces) and e1..e<levels>, each ten of
-- the one before: &e<levels>; is 10^(levels + 1) spaces.
function M.entities(levels)
  local d = '<?xml version="1.0"?><!DOCTYPE animation [<!ENTITY e0 "          ">'
  for i = 1, levels do d = d .. string.format('<!ENTITY e%d "%s">', i, string.rep("&e" .. (i - 1) .. ";", 10)) end
  return d .. "]>"
end

-- A Bedrock file of n animations of `length` s, each one channel of expr.
function M.bedrock(n, length, expr)
  local anims = {}
  for i = 1, n do anims["a" .. i] = { animation_length = length, bones = { b = { rotation = { expr, 0, 0 } } } } end
  return cjson.encode { format_version = "1.8.0", animations = anims }
end

-- A Molang expression of 60 sine terms of time (1.8 KB).
function M.molang_terms()
  local terms = {}
  for i = 1, 60 do terms[#terms + 1] = string.format("math.sin(q.anim_time*%d)*%d", 2000 + i * 37, 5 + i % 7) end
  return table.concat(terms, "+")
end

-- A .bbmodel of two animations of six bones whose bezier handles are 1e300,
-- their times different per axis.
function M.bezier_bbmodel()
  local kfs, channels, groups, outliner = {}, {}, {}, {}
  for i = 0, 1 do
    kfs[#kfs + 1] = { channel = "rotation", time = i, interpolation = "bezier", data_points = { { x = "0", y = "0", z = "0" } },
      bezier_left_time = { -0.1, -0.2, -0.3 }, bezier_right_time = { 0.1, 0.2, 0.3 },
      bezier_left_value = { 1e300, -1e300, 1e300 }, bezier_right_value = { -1e300, 1e300, -1e300 } }
  end
  for i = 1, 6 do
    channels["u" .. i] = { name = "b" .. i, keyframes = kfs }
    groups[i] = { name = "b" .. i, uuid = "u" .. i, origin = { 0, 0, 0 } }
    outliner[i] = { uuid = "u" .. i, children = {} }
  end
  return cjson.encode { meta = { format_version = "5.0" }, groups = groups, outliner = outliner,
    animations = { { name = "a", length = 1, animators = channels }, { name = "b", length = 1, animators = channels } } }
end

-- An Aseprite sheet (the array form) of n frames of the fewest bytes, and
-- one ping-pong tag over them all: 3n - 2 keys (issue 35: 320,000 frames,
-- 15.7 MB, took 7.8 s).
function M.aseprite_pingpong(n)
  local frames = {}
  for i = 1, n do frames[i] = '{"frame":{"x":0,"y":0,"w":0,"h":0},"duration":1}' end
  return '{"frames":[' .. table.concat(frames, ",") .. '],"meta":{"frameTags":[{"name":"p","from":0,"to":' .. (n - 1)
    .. ',"direction":"pingpong"}]}}'
end

return M
