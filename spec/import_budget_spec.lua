-- Budgets of a Blockbench / Bedrock import (issue 19.3, 19.5, 19.10,
-- docs/robustness.md): what one file can make the importer do is bounded
-- per file -- keys, animations, bake samples, Molang work -- and a hostile
-- file is imported or refused within 0.5 s, each refusal a warning that
-- names the limit and how to raise it.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local cjson = require "cjson"
local core = require "anim.core"

local H = require "spec.helper"
local compat = require "anim.base.compat"
local with_limits = H.with_limits

-- Runs f, returns its results and the CPU seconds it took.
local function timed(f)
  local t0 = os.clock()
  local r = compat.pack(f())
  return os.clock() - t0, compat.unpack(r, 1, r.n)
end

local count = H.count

local function keys_of(clip)
  local n = 0
  for _, j in pairs(core.clip_info(clip).source.joints) do
    for _, ch in ipairs { "position", "rotation", "scale" } do n = n + #(j[ch] or {}) end
  end
  return n
end

-- A Bedrock file of `n` animations of `length` s, each one channel of `expr`.
local function bedrock(n, length, expr)
  local anims = {}
  for i = 1, n do
    anims["a" .. i] = { animation_length = length, bones = { b = { rotation = { expr, 0, 0 } } } }
  end
  return cjson.encode { format_version = "1.8.0", animations = anims }
end

describe("Blockbench import budgets (issue 19)", function()
  it("19.3: keys are counted per file, not per clip", function()
    -- three animations of one channel each; the limit holds two of them
    local text = bedrock(3, 4, "math.sin(query.anim_time * 360) * 90")
    local one = assert(anim.decode_blockbench(bedrock(1, 4, "math.sin(query.anim_time * 360) * 90"), "k.json")).a1
    local per = keys_of(one)
    local clips, w = with_limits({ keys = 2 * per + math.floor(per / 2) }, function() return anim.decode_blockbench(text, "k.json") end)
    assert.are.equal(2, count(clips))
    assert.is_nil(clips.a3)
    assert.are.equal(1, #w)
    assert.are.equal("a3", w[1].animation)
    assert.are.equal("not imported: animation 'a3', bone 'b', rotation x: Molang 'math.sin(query.anim_time * 360) * 90'"
      .. " changes too fast to bake: more than " .. (math.floor(per / 2)) .. " keys on the channel (what anim.limits.keys leaves"
      .. " for the file's clips) would be needed to stay within 0.01 from 0 to 4 s", w[1].message)
  end)

  it("19.3: a 2 KB file that would bake two million keys is done within 0.5 s", function()
    -- 24 animations, each a channel that needs about 90,000 keys: 78 s and
    -- 2.1 million keys when the key limit held per clip
    local text = bedrock(24, 100, "math.sin(q.anim_time*2292)*20")
    assert.is_true(#text < 4000)
    local dt, clips, w = timed(function() return anim.decode_blockbench(text, "keys.animation.json") end)
    assert.is_true(dt < H.seconds(0.5), string.format("%.2f s", dt))
    local total = 0
    for _, c in pairs(clips) do total = total + keys_of(c) end
    assert.is_true(total <= anim.limits.keys)
    -- every animation it could not bake says why, naming the limit
    assert.are.equal(24, count(clips) + #w)
    for _, x in ipairs(w) do
      assert.are.equal("not imported: animation '" .. x.animation .. "', bone 'b', rotation: not baked: the file's baking"
        .. " has used its 250000 evaluations (anim.limits.bake_samples; anim.set_limits raises it)", x.message)
    end
  end)

  it("19.3: the animations of one file are bounded (anim.limits.animations)", function()
    local text = bedrock(12, 1, "0")
    local clips, w = with_limits({ animations = 10 }, function() return anim.decode_blockbench(text, "n.json") end)
    assert.are.equal(10, count(clips))
    assert.are.equal(1, #w)
    -- the animations are read in byte order of their names: a1, a10, a11, a12, a2...
    assert.are.equal("2 animations not imported, from 'a8' on: the file has 12, more than anim.limits.animations"
      .. " (10; anim.set_limits raises it)", w[1].message)
  end)

  it("19.5: a 1.8 KB expression is compiled once and its work bounded per file: done within 0.5 s", function()
    local terms = {}
    for i = 1, 60 do terms[#terms + 1] = string.format("math.sin(q.anim_time*%d)*%d", 2000 + i * 37, 5 + i % 7) end
    local expr = table.concat(terms, "+")
    assert.is_true(#expr > 1700)
    local text = bedrock(3, 100, expr)
    local dt, clips, w = timed(function() return anim.decode_blockbench(text, "expr.animation.json") end)
    assert.is_true(dt < H.seconds(0.5), string.format("%.2f s", dt))
    assert.are.same({}, clips)
    assert.are.equal(3, #w)
    assert.are.equal("not imported: the file's Molang has done its 40000000 steps of work (anim.limits.molang_work;"
      .. " anim.set_limits raises it)", w[1].message)
    assert.are.equal("animations.a1", w[1].channel)
    -- a Molang loop is bounded the same way, also in a constant
    local loops = bedrock(1, 1, "v.n = 0; loop(1024, {loop(1024, {loop(1024, {v.n = v.n + 1;});});}); return v.n;")
    dt, clips, w = timed(function() return anim.decode_blockbench(loops, "loop.animation.json") end)
    assert.is_true(dt < H.seconds(0.5), string.format("%.2f s", dt))
    assert.are.same({}, clips)
    assert.truthy(w[1].message:find("anim.limits.molang_work", 1, true), w[1].message)
  end)

  -- Two bezier rotation keys with handles of 1e300 whose times differ per axis.
  local function huge_bezier_keys()
    local kfs = {}
    for i = 0, 1 do
      kfs[#kfs + 1] = { channel = "rotation", time = i, interpolation = "bezier", data_points = { { x = "0", y = "0", z = "0" } },
        bezier_left_time = { -0.1, -0.2, -0.3 }, bezier_right_time = { 0.1, 0.2, 0.3 },
        bezier_left_value = { 1e300, -1e300, 1e300 }, bezier_right_value = { -1e300, 1e300, -1e300 } }
    end
    return kfs
  end

  it("19.10: baked bezier handles of 1e300 are refused within 0.5 s", function()
    -- (bones with a rest rotation: their channels are baked, R(rest)^-1 R(rest + angles);
    -- handle times that differ per axis are kept exact otherwise, next test)
    local kfs = huge_bezier_keys()
    local channels = {}
    for i = 1, 6 do
      channels["u" .. i] = { name = "b" .. i, keyframes = kfs }
    end
    local groups, outliner = {}, {}
    for i = 1, 6 do
      groups[i] = { name = "b" .. i, uuid = "u" .. i, origin = { 0, 0, 0 }, rotation = { 45, 0, 45 } }
      outliner[i] = { uuid = "u" .. i, children = {} }
    end
    local text = cjson.encode { meta = { format_version = "5.0" }, groups = groups, outliner = outliner,
      animations = { { name = "a", length = 1, animators = channels }, { name = "b", length = 1, animators = channels } } }
    local dt, clips, w = timed(function() return anim.decode_blockbench(text, "bezier.bbmodel") end)
    assert.is_true(dt < H.seconds(0.5), string.format("%.2f s", dt))
    assert.are.same({}, clips)
    assert.are.equal(2, #w)
    assert.are.equal("not imported: animation 'a', bone 'b1', rotation: not baked: the file's baking has used its 250000"
      .. " evaluations (anim.limits.bake_samples; anim.set_limits raises it)", w[1].message)
  end)

  it("19.10: bezier handles of 1e300 whose times differ per axis import exact, unbaked, at once", function()
    local kfs = huge_bezier_keys()
    local text = cjson.encode { meta = { format_version = "5.0" }, groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 1, animators = { u = { name = "b", keyframes = kfs } } } } }
    local dt, clips, w = timed(function() return anim.decode_blockbench(text, "bezier.bbmodel") end)
    assert.is_true(dt < H.seconds(0.5), string.format("%.2f s", dt))
    assert.are.same({}, w)
    assert.is_nil(core.clip_info(clips.a).approx)
  end)

  it("a host that trusts its files raises the budgets", function()
    local text = bedrock(1, 90, "math.sin(q.anim_time*2292)*20")
    local clips, w = anim.decode_blockbench(text, "k.json")
    assert.is_nil(clips.a1)
    assert.are.equal(1, #w)
    clips, w = with_limits({ bake_samples = 2000000 }, function() return anim.decode_blockbench(text, "k.json") end)
    assert.are.same({}, w)
    assert.is_true(keys_of(clips.a1) > 60000)
  end)
end)

describe("Blockbench import budgets: the variable placeholders", function()
  it("a placeholder that loops is evaluated within the file's Molang budget", function()
    local doc = {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animation_variable_placeholders = "v.n = v.m = 0; loop(1024, {loop(1024, {loop(1024, {v.m = v.m + 1;});});}); return v.m;\ndegrees = 180",
      animations = { { name = "a", length = 1, animators = { u = { name = "b", keyframes = {
        { channel = "rotation", time = 0, data_points = { { x = "degrees", y = 0, z = 0 } } } } } } } },
    }
    local t0 = os.clock()
    local clips, w = anim.decode_blockbench(cjson.encode(doc), "p.bbmodel")
    assert.is_true(os.clock() - t0 < H.seconds(0.5))
    -- the budget is spent by the placeholder: the animation says so
    assert.are.same({}, clips)
    assert.truthy(w[1].message:find("anim.limits.molang_work", 1, true), w[1].message)
  end)
end)

describe("Blockbench import: work linear in what the file holds (issue 35)", function()
  it("a placeholder line padded with 65,000 spaces is trimmed in linear time (12.9 s before)", function()
    local doc = {
      meta = { format_version = "5.0" },
      animation_variable_placeholders = "v.x = 1" .. string.rep(" ", 65000) .. "x\ndegrees = 180   ",
      animations = { { name = "a", length = 1, animators = {} } },
    }
    local took, clips = timed(function() return anim.decode_blockbench(cjson.encode(doc), "p.bbmodel") end)
    assert.is_true(took < H.seconds(0.5), took .. " s")
    assert.truthy(clips.a)
  end)

  it("20,000 animations of one name are told apart in linear work (a#2...: n^2 / 2 tries before)", function()
    local anims = {}
    for i = 1, 20000 do anims[i] = { name = "a", length = 1, animators = {} } end
    local text = cjson.encode { meta = { format_version = "4.5" }, outliner = {}, animations = anims }
    local clips, w = with_limits({ animations = 3 }, function()
      return H.bounded(20, function() return anim.decode_blockbench(text, "x.bbmodel") end)
    end)
    assert.are.same({ "a", "a#2", "a#3" }, (function()
      local names = {}
      for n in pairs(clips) do names[#names + 1] = n end
      table.sort(names)
      return names
    end)())
    assert.truthy(w[1].message:find("two animations are named 'a': this one is 'a#2'", 1, true), w[1].message)
    assert.truthy(w[19999].message:find("this one is 'a#20000'", 1, true), w[19999].message)
  end)
end)
