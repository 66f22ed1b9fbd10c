-- Hostile input never crashes and never raises from a loader: thousands of
-- randomly damaged clips (as tables and as JSON text), random descriptions
-- handed straight to the C core, and random sequences of animator calls.
-- A crash ends the busted process, so every case here is a real check.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local cjson = require "cjson"
local H = require "spec.helper"
local fuzz = require "fuzz.common"

-- Each case seeds the generator itself: the same cases on every run,
-- whatever other specs did with math.random before.
local SEED = 20261130

local function seeds()
  local out = { cjson.decode(H.read(H.root .. "/examples/clips/walk.anim")),
    cjson.decode(H.read(H.root .. "/examples/clips/attack.anim")) }
  for _, file in ipairs(H.ls(H.shared .. "/conformance", "%.json$")) do
    local data = cjson.decode(H.read(H.shared .. "/conformance/" .. file))
    for i = 1, #data.cases, 7 do out[#out + 1] = data.cases[i].clip end
  end
  return out
end

local function copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x) end
  return t
end

local WEIRD = { 0 / 0, math.huge, -math.huge, 1e308, -1e-320, -1, 0, 1.5, 2 ^ 53, "", "loop", "x",
  true, false, cjson.null, {}, { 1, 2 }, { 1, 2, 3, 4, 5 }, { a = 1 }, { { 0, { 0, 0, 0 } } } }

local function random_value()
  return copy(WEIRD[math.random(#WEIRD)])
end

-- All the tables inside v (with v), to pick one to damage.
local function tables(v, out)
  out = out or {}
  if type(v) == "table" then
    out[#out + 1] = v
    for _, x in pairs(v) do tables(x, out) end
  end
  return out
end

local function damage(t)
  for _ = 1, math.random(1, 4) do
    local all = tables(t)
    local target = all[math.random(#all)]
    local keys = {}
    for k in pairs(target) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local r = math.random()
    if #keys > 0 and r < 0.6 then
      target[keys[math.random(#keys)]] = random_value()
    elseif #keys > 0 and r < 0.8 then
      target[keys[math.random(#keys)]] = nil
    else
      local k = ({ "joints", "keyframes", "loop", "length", "markers", "modifiers", "version", 1, 2, 3 })[math.random(10)]
      target[k] = random_value()
    end
  end
  return t
end

local rig = anim.rig("player")

-- A clip that loaded must also sample and play.
local function exercise(c)
  for _, t in ipairs { -1, 0, 0.3, c.length, c.length + 2 } do c:sample(t) end
  -- a client animator: plays (which need a library) do not run there
  -- (on the player's rig with the clip's joints it lacks: play refuses a
  -- clip none of whose joints is on the rig)
  local a = anim.animator(fuzz.rig_for(c), { space = "view", side = "client", warn = false })
  local tr = a:play(c, { fade = 0 })
  a:play(c, { speed = -2, weight = 0.5 })
  for _, dt in ipairs { 0, 0.016, 0.5, 3 } do a:update(dt) end
  tr:stop(0.05)
  a:update(0.1)
  a:pose_into({}, "world")
end

describe("robustness", function()
  before_each(function() math.randomseed(SEED) end)

  it("loads 3000 damaged clip tables: a clip or nil and a message, never an error", function()
    local base = seeds()
    local loaded, refused = 0, 0
    for i = 1, 3000 do
      local t = damage(copy(base[(i - 1) % #base + 1]))
      local ok, c, err = pcall(anim.clip, t, "fuzz", { strict = false })
      assert(ok, "anim.clip raised: " .. tostring(c))
      if c then
        loaded = loaded + 1
        local ok2, e2 = pcall(exercise, c)
        assert(ok2, "a loaded clip failed to play: " .. tostring(e2))
      else
        assert.are.equal("string", type(err))
        assert.truthy(err:find("^fuzz: "))
        refused = refused + 1
      end
    end
    assert.is_true(loaded > 100 and refused > 100, loaded .. " loaded, " .. refused .. " refused")
  end)

  it("decodes 2000 damaged JSON texts: a clip or nil and a message, never an error", function()
    local text = H.read(H.root .. "/examples/clips/walk.anim")
    local chars = { "{", "}", "[", "]", ",", ":", '"', "0", "-", "e", "9", " ", "\\", "n", "\0", "\255" }
    for _ = 1, 2000 do
      local s = text
      for _ = 1, math.random(1, 5) do
        local pos = math.random(1, math.max(1, #s)) -- (s may have been emptied)
        local r = math.random()
        if r < 0.4 then s = s:sub(1, pos - 1) .. s:sub(pos + 1)
        elseif r < 0.8 then s = s:sub(1, pos - 1) .. chars[math.random(#chars)] .. s:sub(pos + 1)
        else s = s:sub(1, pos) end
      end
      local ok, c, err = pcall(anim.decode, s, "walk.anim")
      assert(ok, "anim.decode raised: " .. tostring(c))
      assert(c or (type(err) == "string" and err:find("^walk%.anim: ")), tostring(err))
    end
  end)

  it("refuses deep nesting in JSON without exhausting the stack", function()
    local c, err = anim.decode(string.rep("[", 100000) .. string.rep("]", 100000), "deep")
    assert.is_nil(c)
    assert.truthy(err:find("^deep: not valid JSON"))
  end)

  it("survives random descriptions handed straight to the C core (errors, never crashes)", function()
    local function random_desc()
      local desc = { joints = {}, items = {} }
      for _, k in ipairs { "length", "speed", "priority", "loop", "blend", "space", "euler" } do
        if math.random() < 0.5 then desc[k] = random_value() end
      end
      for j = 1, math.random(0, 3) do
        local curve = { t = {}, v = {}, i = {}, e = {} }
        for k = 1, math.random(0, 4) do
          curve.t[k] = math.random() < 0.9 and k * 0.1 or random_value()
          curve.v[k] = math.random() < 0.9 and math.random() or random_value()
          curve.i[k] = math.random() < 0.9 and math.random(0, 13) or random_value()
          curve.e[k] = math.random() < 0.9 and math.random(0, 2) or random_value()
        end
        if math.random() < 0.2 then curve.h = { 0 / 0, 1, 2 } end
        if math.random() < 0.2 then curve.mods = { { type = math.random(-1, 6), p1 = random_value(), points = { 1, 2 } } } end
        desc.joints[j] = { name = math.random() < 0.9 and ("j" .. j) or random_value(),
          pos = math.random() < 0.7 and { curve, curve, curve } or random_value(),
          qrot = math.random() < 0.3 and { t = { 0 }, q = { 0, 0, 0, 0 }, i = { 0 }, e = { 0 } } or nil }
      end
      if math.random() < 0.3 then desc.items[1] = { t = random_value(), kind = math.random(-1, 5) } end
      return desc
    end
    local built = 0
    for _ = 1, 2000 do
      local ok, c = pcall(core.clip_new, random_desc(), {})
      if ok then
        built = built + 1
        pcall(core.clip_sample, c, 0.5)
      end
    end
    assert.is_true(built > 0)
  end)

  it("runs 300 random sequences of animator calls, callbacks included, without an error", function()
    local clips = {}
    for _, name in ipairs { "walk", "wave", "attack", "spark" } do
      clips[#clips + 1] = assert(anim.load(H.root .. "/examples/clips/" .. name .. ".anim"))
    end
    local lib = assert(anim.library(H.root .. "/examples/clips"))
    for _ = 1, 300 do
      local a = anim.animator(rig, { library = lib, side = ({ "both", "server", "client" })[math.random(3)] })
      local tracks = {}
      a:on_marker(function(t)
        if math.random() < 0.3 then t:stop(math.random() * 0.2) end
        -- (a bounded number: markers fire often, and each new track fires more)
        if math.random() < 0.1 and #tracks < 60 then tracks[#tracks + 1] = a:play(clips[math.random(#clips)]) end
      end)
      a:on_play(function(t) tracks[#tracks + 1] = t end)
      for _ = 1, 40 do
        local r = math.random()
        local t = tracks[math.random(math.max(1, #tracks))]
        if r < 0.3 or not t then
          tracks[#tracks + 1] = a:play(clips[math.random(#clips)], { fade = math.random() * 0.3,
            speed = (math.random() - 0.3) * 4, weight = math.random() * 2 })
        elseif r < 0.4 then t:stop(math.random() < 0.5 and 0 or math.random())
        -- (a track that ended refuses controls: a test of its own, controls_spec)
        elseif r < 0.5 then if H.live(t) then t.time = (math.random() - 0.2) * 3 end
        elseif r < 0.6 then if H.live(t) then t:adjust_speed((math.random() - 0.5) * 10) end
        elseif r < 0.7 then if H.live(t) then t:adjust_weight(math.random(), math.random() * 0.2) end
        else
          a:update(({ 0, 1e-9, 1 / 60, 0.37, 5, 100 })[math.random(6)])
          local px, _, _, qx, qy, qz, qw = a:get("rightArm")
          assert(px == px and qx == qx, "NaN in the pose")
          assert(math.abs(qx * qx + qy * qy + qz * qz + qw * qw - 1) < 1e-9)
        end
      end
    end
  end)
end)
