-- The rules of issue 18, each against values worked out by hand from the
-- tools' own code (Blockbench, its GeckoLib plugin, GeckoLib 3.x and
-- 4.x/5.x, Animated Java): the two results that used to be wrong, GeckoLib
-- and Animated Java easings, Animated Java projects, the file shapes that
-- used to be refused, and the options.  Fixtures are synthetic.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local cjson = require "cjson"
local core = require "anim.core"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local function decode(doc, opts)
  local text = type(doc) == "string" and doc or cjson.encode(doc)
  return anim.decode_blockbench(text, "f", opts)
end

-- Degrees of a rotation about z alone (a quaternion {0, 0, s, c}).
local function zdeg(q) return 2 * math.deg(compat.atan2(q[3], q[4])) end

local function bedrock(anims) return { format_version = "1.8.0", animations = anims } end

-- A one-bone .bbmodel (format 5.0 unless given) with these keyframes.
local function project(keys, meta, extra)
  local d = {
    meta = meta or { format_version = "5.0" },
    groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
    outliner = { { uuid = "u", children = {} } },
    animations = { { name = "a", length = 1, animators = { u = { name = "b", type = "bone", keyframes = keys } } } },
  }
  for k, v in pairs(extra or {}) do d[k] = v end
  return d
end

local function key(channel, t, x, y, z, more)
  local k = { channel = channel, time = t, data_points = { { x = x, y = y, z = z } } }
  for a, v in pairs(more or {}) do k[a] = v end
  return k
end

-- GeckoLib's curves, written here from EasingType.java (4.x/5.x) and
-- EasingManager.java (3.x), independently of the importer's
local G = {}
do
  local function out(f) return function(s) return 1 - f(1 - s) end end
  local function inout(f)
    return function(s) if s < 0.5 then return f(s * 2) / 2 end return 1 - f((1 - s) * 2) / 2 end
  end
  local base = {
    Sine = function(s) return 1 - math.cos(s * math.pi / 2) end,
    Quad = function(s) return s * s end,
    Cubic = function(s) return s * s * s end,
    Quart = function(s) return s ^ 4 end,
    Quint = function(s) return s ^ 5 end,
    Expo = function(s) return 2 ^ (10 * (s - 1)) end,
    Circ = function(s) return 1 - math.sqrt(1 - s * s) end,
  }
  for n, f in pairs(base) do
    G["easeIn" .. n], G["easeOut" .. n], G["easeInOut" .. n] = f, out(f), inout(f)
  end
  G.easeInQuint4 = base.Quart -- 4.x and 5.x: register("easeinquint", pow(4))
  function G.back(n) local c = n * 1.70158 return function(s) return s * s * ((c + 1) * s - c) end end
  function G.elastic(n) return function(s) return 1 - math.cos(s * math.pi / 2) ^ 3 * math.cos(s * n * math.pi) end end
  function G.bounce(k)
    return function(x)
      return math.min(121 / 16 * x * x, 121 / 4 * k * (x - 6 / 11) ^ 2 + 1 - k, 121 * k * k * (x - 9 / 11) ^ 2 + 1 - k * k,
        484 * k ^ 3 * (x - 10.5 / 11) ^ 2 + 1 - k ^ 3)
    end
  end
  function G.step(n)
    return function(s)
      local r = 0
      for i = 0, n - 1 do if s >= i / n then r = i / n end end
      return r
    end
  end
  G.out, G.inout = out, inout
end

-- A Bedrock file of one GeckoLib key pair: rotation z from 0 at 0 to 100
-- at 1, the second key eased.
local function gecko(easing, args)
  return bedrock { a = { animation_length = 1, bones = { b = { rotation = {
    ["0.0"] = { vector = { 0, 0, 0 } },
    ["1.0"] = { vector = { 0, 0, 100 }, easing = easing, easingArgs = args },
  } } } } }
end

local function check_curve(clip, f, tol, joint)
  for _, s in ipairs { 0.05, 0.1, 0.25, 0.3, 0.5, 0.62, 0.7, 0.9, 0.97 } do
    local got = zdeg(clip:sample(s)[joint or "b"].rotation)
    local want = 100 * f(s)
    assert(math.abs(got - want) <= tol, string.format("at %g: %.6f, GeckoLib's formula %.6f", s, got, want))
  end
end

describe("the two wrong results of issue 18", function()
  it("a uniform scale key with differing x, y, z plays its stored x, y, z (Blockbench's Keyframe.extend drops the flag)", function()
    local clips, w = decode(project {
      key("scale", 0, 1, 1, 1, { uniform = true }),
      key("scale", 1, "2", "3", "4", { uniform = true }),
    })
    assert.are.same({}, w)
    -- half way: (1 + 2)/2, (1 + 3)/2, (1 + 4)/2 -- not 1.5 on every axis
    assert.are.same({ 1.5, 2, 2.5 }, clips.a:sample(0.5).b.scale)
    -- an axis left out is the channel's default, 1, as Blockbench fills it
    clips = decode(project { key("scale", 0, "3", nil, nil, { uniform = true }) })
    assert.are.same({ 3, 1, 1 }, clips.a:sample(0).b.scale)
  end)

  it("GeckoLib's easing on a .bbmodel of the GeckoLib plugin's format shapes the segment into its key", function()
    for _, fmt in ipairs { "animated_entity_model", "geckolib_model" } do
      local clips, w = decode(project({
        key("rotation", 0, 0, 0, 0),
        key("rotation", 1, 0, 0, 100, { easing = "easeInQuad" }),
      }, { format_version = "4.5", model_format = fmt }))
      assert.are.same({}, w)
      -- s = 0.5: 100 * 0.25 (format 4.5: z keeps its sign)
      assert.is_true(math.abs(zdeg(clips.a:sample(0.5).b.rotation) - 25) < 1e-9)
      -- with an argument: GeckoLib's elastic(2), baked within 0.01
      clips = decode(project({
        key("rotation", 0, 0, 0, 0),
        key("rotation", 1, 0, 0, 100, { easing = "easeInElastic", easingArgs = { 2 } }),
      }, { format_version = "4.5", model_format = fmt }))
      check_curve(clips.a, G.elastic(2), 0.0101)
    end
  end)
end)

describe("GeckoLib easings against GeckoLib's formulas", function()
  it("every named easing, in and out and inOut (GeckoLib 4.x and 5.x by default)", function()
    for _, dir in ipairs { "In", "Out", "InOut" } do
      for _, b in ipairs { "Sine", "Quad", "Cubic", "Quart", "Quint", "Expo", "Circ" } do
        local name = "ease" .. dir .. b
        local clips, w = decode(gecko(name))
        assert.are.same({}, w, name)
        local f = G[name]
        if name == "easeInQuint" then f = G.easeInQuint4 end
        check_curve(clips.a, f, 1e-6)
      end
    end
  end)

  it("easeInQuint is s^4 in GeckoLib 4.x and 5.x, s^5 in 3.x (options.geckolib = 3)", function()
    check_curve(decode(gecko("easeInQuint")).a, function(s) return s ^ 4 end, 1e-9)
    check_curve(decode(gecko("easeInQuint"), { geckolib = 4 }).a, function(s) return s ^ 4 end, 1e-9)
    check_curve(decode(gecko("easeInQuint"), { geckolib = 3 }).a, function(s) return s ^ 5 end, 1e-9)
    -- the others are the same in both
    check_curve(decode(gecko("easeOutQuint"), { geckolib = 3 }).a, G.easeOutQuint, 1e-9)
    check_curve(decode(gecko("easeInOutQuint")).a, G.easeInOutQuint, 1e-9)
  end)

  it("back, elastic and bounce with GeckoLib's arguments and defaults", function()
    local cases = {
      { "easeInBack", nil, G.back(1) }, { "easeOutBack", { 2 }, G.out(G.back(2)) },
      { "easeInOutBack", { 1.5 }, G.inout(G.back(1.5)) }, { "easeInElastic", nil, G.elastic(1) },
      { "easeOutElastic", { 3 }, G.out(G.elastic(3)) }, { "easeInOutElastic", { 0.5 }, G.inout(G.elastic(0.5)) },
      { "easeInBounce", nil, G.bounce(0.5) }, { "easeOutBounce", { 0.7 }, G.out(G.bounce(0.7)) },
      { "easeInOutBounce", { 0.25 }, G.inout(G.bounce(0.25)) },
    }
    for _, c in ipairs(cases) do
      local clips, w = decode(gecko(c[1], c[2]))
      assert.are.same({}, w, c[1])
      check_curve(clips.a, c[3], 0.0101)
    end
  end)

  it("step: floor(s n)/n up to (n-1)/n, 2 steps by default; fewer than 2 read as 2 with a warning, or refused", function()
    check_curve(decode(gecko("step")).a, G.step(2), 1e-9)
    check_curve(decode(gecko("step", { 4 })).a, G.step(4), 1e-9)
    check_curve(decode(gecko("step", { 4.7 })).a, G.step(4), 1e-9) -- (int) 4.7
    -- GeckoLib throws for fewer than 2 steps (EasingType.step: "Steps must be >= 2")
    local clips, w = decode(gecko("step", { 1 }))
    check_curve(clips.a, G.step(2), 1e-9)
    assert.are.same({ { animation = "a", channel = "animations.a.bones.b.rotation", message = "animation 'a', bone 'b',"
      .. " rotation: easing step with 1 steps read as 2 steps (GeckoLib refuses fewer than 2; options.short_steps ="
      .. " \"refuse\" drops the animation instead)" } }, w)
    clips, w = decode(gecko("step", { 1 }), { short_steps = "refuse" })
    assert.is_nil(clips.a)
    assert.are.equal("not imported: animation 'a', bone 'b', rotation: easing step with 1 steps: GeckoLib refuses fewer"
      .. " than 2", w[1].message)
  end)

  it("names in any case, as GeckoLib lower-cases them; an unknown name is linear, with a warning", function()
    check_curve(decode(gecko("EASEINQUAD")).a, G.easeInQuad, 1e-9)
    local clips, w = decode(gecko("easeInWobble"))
    check_curve(clips.a, function(s) return s end, 1e-9)
    assert.are.equal("animation 'a', bone 'b', rotation: unknown easing 'easeInWobble' read as linear (as GeckoLib"
      .. " reads it)", w[1].message)
  end)

  it("options.easings = \"blockbench\" plays a GeckoLib file as Blockbench's own importer reads it: linear", function()
    local clips, w = decode(gecko("easeInQuad"), { easings = "blockbench" })
    check_curve(clips.a, function(s) return s end, 1e-9)
    assert.truthy(w[1].message:find("easing 'easeInQuad' not followed", 1, true), w[1].message)
  end)
end)

describe("GeckoLib's own key shapes", function()
  it("{vector, easing} keys, pre and post as vectors, and a static {vector} channel", function()
    local clips, w = decode(bedrock { a = { animation_length = 2, bones = { b = {
      rotation = {
        ["0.0"] = { vector = { 0, 0, 0 } },
        ["1.0"] = { pre = { vector = { 0, 0, 10 } }, post = { vector = { 0, 0, 20 } }, easing = "easeInQuad" },
        ["2.0"] = { vector = { 0, 0, 40 } },
      },
      scale = { vector = { 2, 2, 2 } },
    } } } })
    assert.are.same({}, w)
    local c = clips.a
    -- into 1.0, eased: 10 * 0.5^2; the jump from 10 to 20 at 1.0; then linear to 40
    assert.is_true(math.abs(zdeg(c:sample(0.5).b.rotation) - 2.5) < 1e-9)
    assert.is_true(math.abs(zdeg(c:sample(1).b.rotation) - 20) < 1e-9)
    assert.is_true(math.abs(zdeg(c:sample(1.5).b.rotation) - 30) < 1e-9)
    assert.are.same({ 2, 2, 2 }, c:sample(0.3).b.scale)
  end)
end)

describe("files that used to be refused", function()
  local WAVE = '{"format_version": "1.8.0", "animations": {"w": {"animation_length": 1, "bones": {"b": {"rotation":'
    .. ' {"0": [0, 0, 0], "1": [0, 0, 90]}}}}}}'

  it("JSON with // and /* */ comments and a byte-order mark, as the game reads it", function()
    local text = "\239\187\191// made by hand\n" .. WAVE:gsub('"bones"', '/* the bones */ "bones"'):gsub(', "bones"', ', // one\n "bones"')
    local clips, w = anim.decode_blockbench(text, "c.json")
    assert.are.same({}, w)
    assert.is_true(math.abs(zdeg(clips.w:sample(0.5).b.rotation) - 45) < 1e-9)
    -- a // inside a string is not a comment
    clips = anim.decode_blockbench(WAVE:gsub('"b"', '"b//c"'), "c.json")
    assert.truthy(clips.w:sample(0)["b//c"])
  end)

  it("NaN written by Blockbench reads as 0, as Blockbench's Molang reads it", function()
    local clips, w = anim.decode_blockbench('{"animations": {"w": {"animation_length": 1, "bones": {"b": {"rotation":'
      .. ' {"0": [NaN, 0, 0], "1": [0, 0, NaN]}}}}}}', "n.json")
    assert.are.same({ 0, 0, 0, 1 }, clips.w:sample(0.5).b.rotation)
    assert.are.equal("animation 'w', bone 'b', rotation: a value NaN read as 0 (as Blockbench reads it)", w[1].message)
    local doc = cjson.encode(project { key("rotation", 0, "0", "0", "0") }):gsub('"x":"0"', '"x":NaN')
    clips, w = anim.decode_blockbench(doc, "n.bbmodel")
    assert.truthy(clips.a)
    assert.are.equal(1, #w)
  end)

  it("numbers written as strings: lengths and key times, as Blockbench's Merge.number reads them", function()
    local d = project { key("rotation", "0", 0, 0, 0), key("rotation", "1.0", 0, 0, 90) }
    d.animations[1].length = "2"
    local clips, w = decode(d)
    assert.are.same({}, w)
    assert.are.equal(2, clips.a.length)
    assert.is_true(math.abs(zdeg(clips.a:sample(0.5).b.rotation) - 45) < 1e-9)
    clips, w = decode(bedrock { w = { animation_length = "1.5", bones = { b = { rotation = { 0, 0, 5 } } } } })
    assert.are.same({}, w)
    assert.are.equal(1.5, clips.w.length)
    -- names written as numbers are their text (Merge.string)
    d = project { key("rotation", 0, 0, 0, 0) }
    d.groups[1].name, d.animations[1].name = 7, 3
    clips, w = decode(d)
    assert.are.same({}, w)
    assert.are.same({ "7" }, clips["3"]:joints())
  end)

  it("override_previous_animation is read past (a clip replaces what plays under it at full weight)", function()
    local clips, w = decode(bedrock { w = { override_previous_animation = true, bones = { b = { rotation = { 0, 0, 5 } } } } })
    assert.are.same({}, w)
    assert.truthy(clips.w)
  end)

  it("start_delay, loop_delay, relative_to, anim_time_update and blend_weight import, saying what is not followed", function()
    local clips, w = decode(bedrock { w = {
      loop = true, start_delay = 0.5, loop_delay = "1", anim_time_update = "q.anim_time + q.delta_time * 0.5",
      blend_weight = "0.25",
      bones = { b = { relative_to = { rotation = "entity" }, rotation = { 0, 0, 5 } } },
    } })
    local c = clips.w
    assert.are.equal(0.5, c.speed) -- the time runs half as fast
    assert.are.equal(0.25, core.clip_info(c).source.joints.b.weight)
    local got = {}
    for _, x in ipairs(w) do got[#got + 1] = x.channel end
    table.sort(got)
    assert.are.same({ "animations.w.bones.b.relative_to", "animations.w.loop_delay", "animations.w.start_delay" }, got)
  end)

  it("a .bbmodel with two groups of one name (a Figura avatar's two Body groups): every animation imports", function()
    local d = {
      meta = { format_version = "4.5", model_format = "figura" },
      outliner = {
        { name = "Body", uuid = "b1", origin = { 0, 24, 0 }, children = {} },
        { name = "Body", uuid = "b2", origin = { 0, 12, 0 }, children = {
          { name = "Arm", uuid = "a1", origin = { 4, 12, 0 }, children = {} } } },
      },
      animations = {
        { name = "one", length = 1, animators = {
          b1 = { name = "Body", type = "bone", keyframes = { key("rotation", 0, 0, 0, 10) } },
          b2 = { name = "Body", type = "bone", keyframes = { key("rotation", 0, 0, 0, 20) } },
        } },
        { name = "two", length = 1, animators = { a1 = { name = "Arm", type = "bone", keyframes = { key("position", 0, 0, 16, 0) } } } },
      },
    }
    local clips, w = decode(d)
    assert.are.same({ { channel = "outliner[2].name", message = "two groups are named 'Body': this one is joint 'Body#2'" } }, w)
    assert.are.same({ "Body", "Body#2" }, clips.one:joints())
    assert.is_true(math.abs(zdeg(clips.one:sample(0).Body.rotation) - 10) < 1e-9)
    assert.is_true(math.abs(zdeg(clips.one:sample(0)["Body#2"].rotation) - 20) < 1e-9)
    local sk = core.clip_info(clips.two).source.skeleton
    assert.are.equal("Body#2", sk.Arm.parent)
    assert.are.same({ 0, 1, 0 }, clips.two:sample(0).Arm.position)
  end)
end)

describe("Animated Java projects", function()
  local function blueprint(version, keys, extra)
    local d = {
      meta = { format = "animated_java_blueprint", format_version = version },
      blueprint_settings = { export_namespace = "x" },
      outliner = { { name = "root", uuid = "r", origin = { 0, 0, 0 }, children = {
        { name = "arm", uuid = "u", origin = { 0, 16, 0 }, rotation = { 0, 0, 0 }, children = {} } } } },
      animations = { { name = "a", loop = "loop", length = 1, animators = { u = { name = "arm", type = "bone", keyframes = keys } } } },
    }
    for k, v in pairs(extra or {}) do d[k] = v end
    return d
  end

  it("reads the bone hierarchy and the animations, in Bedrock's signs before Animated Java 1.10 and Blockbench 5's after", function()
    local keys = { key("rotation", 0, 30, 0, 0), key("position", 0, 16, 0, 0) }
    local old = decode(blueprint("1.8.1", keys)).a
    local new = decode(blueprint("1.10.1", keys)).a
    local sk = core.clip_info(old).source.skeleton
    assert.are.equal("root", sk.arm.parent)
    assert.are.same({ 0, 1, 0 }, sk.arm.position)
    -- 1.8.1: x negated, as Blockbench 4 stored it (Animated Java's own
    -- 1.10.0-beta.1 upgrade inverts it); 1.10.1: as written
    assert.is_true(H.quatdiff(old:sample(0).arm.rotation, H.qaxis(1, -30)) < 1e-12)
    assert.is_true(H.quatdiff(new:sample(0).arm.rotation, H.qaxis(1, 30)) < 1e-12)
    assert.are.same({ -1, 0, 0 }, old:sample(0).arm.position)
    assert.are.same({ 1, 0, 0 }, new:sample(0).arm.position)
    -- the old .ajmodel, its own meta.format
    local m = blueprint("1.4", keys)
    m.meta = { format = "animated_java/ajmodel", format_version = "1.4" }
    m.blueprint_settings = nil
    assert.is_true(H.quatdiff(decode(m).a:sample(0).arm.rotation, H.qaxis(1, -30)) < 1e-12)
  end)

  it("plays its easings with Animated Java's rules: bounce 0.25 and step 5 by default, only on linear segments", function()
    local function eased(easing, args, interp)
      return decode(blueprint("1.10.1", {
        key("rotation", 0, 0, 0, 0, { interpolation = interp }),
        key("rotation", 1, 0, 0, 100, { easing = easing, easingArgs = args, interpolation = "linear" }),
      })).a
    end
    check_curve((eased("easeOutBounce")), function(s) return G.out(G.bounce(0.25))(s) end, 0.0101, "arm")
    check_curve((eased("step")), G.step(5), 1e-9, "arm")
    check_curve((eased("easeInQuint")), function(s) return s ^ 5 end, 1e-9, "arm")
    check_curve((eased("easeInBack", { 2 })), G.back(2), 0.0101, "arm")
    -- a catmullrom key before: Blockbench's spline, the easing not applied
    -- (Animated Java patches only Keyframe.getLerp); two keys, the ends
    -- doubled: tangents of half the chord, -s^3 + 1.5 s^2 + 0.5 s
    check_curve((eased("easeInQuad", nil, "catmullrom")), function(s) return -s ^ 3 + 1.5 * s * s + 0.5 * s end, 1e-9, "arm")
    -- names as Animated Java spells them
    local clips, w = decode(blueprint("1.10.1", {
      key("rotation", 0, 0, 0, 0), key("rotation", 1, 0, 0, 100, { easing = "EaseInQuad" }) }))
    check_curve(clips.a, function(s) return s end, 1e-9, "arm")
    assert.truthy(w[1].message:find("unknown easing 'EaseInQuad' read as linear (Animated Java knows its names as it"
      .. " spells them)", 1, true), w[1].message)
  end)

  it("reads its variant and function keys as events", function()
    local d = blueprint("1.10.1", { key("rotation", 0, 0, 0, 0) })
    d.animations[1].animators.effects = { type = "effect", keyframes = {
      { channel = "variant", time = 0.5, data_points = { { variant = "v-uuid", execute_condition = "" } } },
      { channel = "function", time = 0.25, data_points = { { ["function"] = "say hi" } } },
    } }
    local ev = decode(d).a:events()
    assert.are.same({ "function", "variant" }, { ev[1].name, ev[2].name })
    assert.are.equal("v-uuid", ev[2].payload.variant)
  end)
end)

describe("the easings of a plain Blockbench project", function()
  it("are not played (Blockbench plays its keys linear), with a warning naming options.easings", function()
    local doc = project({ key("rotation", 0, 0, 0, 0), key("rotation", 1, 0, 0, 100, { easing = "easeInQuad" }) },
      { format_version = "5.0", model_format = "free" })
    local clips, w = decode(doc)
    check_curve(clips.a, function(s) return s end, 1e-9)
    assert.are.equal("animation 'a', bone 'b', rotation: easing 'easeInQuad' not followed: Blockbench plays a free"
      .. " project's keys without the GeckoLib or Animated Java plugin's easings (options.easings picks one)", w[1].message)
    clips, w = decode(doc, { easings = "geckolib" })
    assert.are.same({}, w)
    check_curve(clips.a, G.easeInQuad, 1e-9)
  end)
end)

describe("options", function()
  it("gives the game's values of queries and variables", function()
    local doc = bedrock { w = { animation_length = 1, bones = { b = { rotation = {
      "query.is_angry ? 90 : 0", "v.x_bob * 2", "degrees" } } } } }
    local clips, w = decode(doc, { molang = { queries = { is_angry = true }, variables = { x_bob = 10, degrees = 5 } } })
    assert.are.same({}, w)
    local want = H.qmul(H.qmul(H.qaxis(3, 5), H.qaxis(2, -20)), H.qaxis(1, -90))
    assert.is_true(H.quatdiff(clips.w:sample(0).b.rotation, want) < 1e-12)
    -- without them: 0, and a warning for each
    clips, w = decode(doc)
    assert.are.same({ 0, 0, 0, 1 }, clips.w:sample(0).b.rotation)
    assert.are.equal(3, #w)
  end)

  it("are checked", function()
    local function bad(opts, msg)
      assert.has_error(function() anim.decode_blockbench("{}", "f", opts) end, "bad argument #3 to 'decode_blockbench' (" .. msg .. ")")
    end
    bad(5, "table of options expected, got number")
    bad({ speed = 1 }, "unknown option 'speed'; expected one of molang, easings, geckolib, short_steps")
    bad({ easing = "geckolib" }, "unknown option 'easing'; did you mean 'easings'?")
    bad({ easings = "maya" }, "options.easings must be \"blockbench\", \"geckolib\" or \"animated_java\", got maya")
    bad({ geckolib = 2 }, "options.geckolib must be 3, 4 or 5, got 2")
    bad({ short_steps = "one" }, "options.short_steps must be \"two\" or \"refuse\", got one")
    bad({ molang = { variables = { x = {} } } }, "options.molang.variables.x must be a finite number, a boolean or a string, got table")
    bad({ molang = { consts = {} } }, "unknown field options.molang.consts")
    bad({ molang = { querys = {} } }, "unknown field options.molang.querys; did you mean 'queries'?")
    assert.has_error(function() anim.import_blockbench("x.json", 5) end,
      "bad argument #2 to 'import_blockbench' (table of options expected, got number)")
  end)
end)

describe("Blockbench's variable placeholders", function()
  it("give names their preview values, constants or of the time (`time` is the preview's timeline)", function()
    local doc = project({ key("rotation", 0, 0, 0, "math.sin(query.modified_distance_moved * 45) * 10 + degrees") }, nil,
      { animation_variable_placeholders = "query.modified_distance_moved = time * 8\ndegrees = 5\nv.s = slider('s')" })
    local clips, w = decode(doc)
    for _, t in ipairs { 0, 0.1, 0.37, 0.5 } do
      local want = math.sin(math.rad(t * 8 * 45)) * 10 + 5
      assert.is_true(math.abs(zdeg(clips.a:sample(t).b.rotation) - want) < 0.011, t)
    end
    local msgs = {}
    for _, x in ipairs(w) do msgs[#msgs + 1] = x.message end
    table.sort(msgs)
    assert.are.same({
      "animation 'a', bone 'b', rotation: degrees read as 5 (the file's variable placeholders)",
      "animation 'a', bone 'b', rotation: query.modified_distance_moved read as 'time * 8' (the file's variable placeholders)",
    }, msgs)
    -- the game's values come first
    clips, w = decode(doc, { molang = { queries = { modified_distance_moved = 1 }, variables = { degrees = 0 } } })
    assert.are.same({}, w)
    assert.is_true(math.abs(zdeg(clips.a:sample(0.3).b.rotation) - math.sin(math.rad(45)) * 10) < 1e-9)
  end)
end)
