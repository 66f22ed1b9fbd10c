-- Molang (anim.molang): the parser, evaluation (degrees, Molang's
-- functions, case-insensitivity), the periods that decide a clip's length,
-- the messages for what cannot be imported, and the baking of expressions
-- of query.anim_time into keys (anim.bake) within 0.01 degree or block.
local molang = require "anim.import.molang"
local bake = require "anim.import.bake"
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local function val(src, t)
  local v, err = molang.eval(src, t)
  assert(v, err)
  return v
end

describe("Molang: parsing", function()
  it("builds the tree with the usual precedence, left to right", function()
    local ast = assert(molang.parse("1 + 2 * 3 - 4"))
    -- ((1 + (2 * 3)) - 4)
    assert.are.equal("-", ast.o)
    assert.are.equal("+", ast.a.o)
    assert.are.equal("*", ast.a.b.o)
    assert.are.equal(4, ast.b.v)
    assert.are.equal(7, val("1 + 2 * 3"))
    assert.are.equal(-3, val("1 - 2 - 2"))
    assert.are.equal(1, val("8 / 4 / 2"))
  end)

  it("reads unary signs, parentheses, calls, names with dots and numbers of every form", function()
    local ast = assert(molang.parse("-math.sin(q.anim_time * 360)"))
    assert.are.equal("neg", ast.op)
    assert.are.equal("call", ast.a.op)
    assert.are.equal("math.sin", ast.a.name)
    assert.are.equal("q.anim_time", ast.a.args[1].a.name)
    assert.are.equal(-2, val("-(1 + 1)"))
    assert.are.equal(2, val("+2"))
    assert.are.equal(0.5, val(".5"))
    assert.are.equal(3, val("3."))
    assert.are.equal(1500, val("1.5e3"))
    assert.are.equal(30, val("30  ")) -- BetterModel writes "30  "
    assert.are.equal(1, val("1\n"))   -- hephaestus writes "1\n"
  end)

  it("reads comparisons, logic and both conditionals", function()
    assert.are.equal(1, val("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3"))
    assert.are.equal(0, val("1 == 2 || 1 != 1"))
    assert.are.equal(1, val("!0"))
    assert.are.equal(2, val("1 ? 2 : 3"))
    assert.are.equal(3, val("0 ? 2 : 3"))
    assert.are.equal(0, val("0 ? 2"))   -- Molang's binary conditional
    assert.are.equal(5, val("1 ? 0 ? 4 : 5 : 6"))
  end)

  it("says where it stopped reading", function()
    local ast, err = molang.parse("1 +")
    assert.is_nil(ast)
    assert.are.equal("'1 +': not an expression (stopped at column 3, '+')", err)
    assert.are.equal("'v.x = 1; return v.x': not an expression (stopped at column 5, '= 1; retur')",
      select(2, molang.compile("v.x = 1; return v.x")))
    assert.are.equal("')': not an expression", select(2, molang.parse(")")))
    assert.are.equal("a Molang expression must be a string", select(2, molang.parse(5)))
  end)
end)

describe("Molang: evaluation", function()
  it("uses degrees for math.sin, math.cos and the inverse functions", function()
    assert.is_true(H.near(val("math.sin(90)"), 1, 1e-15))
    assert.is_true(H.near(val("math.cos(180)"), -1, 1e-15))
    assert.is_true(H.near(val("math.asin(1)"), 90, 1e-12))
    assert.is_true(H.near(val("math.acos(0)"), 90, 1e-12))
    assert.is_true(H.near(val("math.atan(1)"), 45, 1e-12))
    assert.is_true(H.near(val("math.atan2(1, -1)"), 135, 1e-12))
  end)

  it("has Molang's other functions and pi", function()
    assert.are.equal(3, val("math.abs(-3)"))
    assert.are.equal(1, val("math.clamp(5, 0, 1)"))
    assert.are.equal(0, val("math.clamp(-5, 0, 1)"))
    assert.are.equal(15, val("math.lerp(10, 20, 0.5)"))
    assert.are.equal(360, val("math.lerprotate(350, 10, 0.5)")) -- the short way round
    assert.are.equal(8, val("math.pow(2, 3)"))
    assert.are.equal(3, val("math.sqrt(9)"))
    assert.are.equal(-2, val("math.floor(-1.5)"))
    assert.are.equal(-1, val("math.ceil(-1.5)"))
    assert.are.equal(3, val("math.round(2.5)"))
    assert.are.equal(-2, val("math.round(-2.5)")) -- as JavaScript's Math.round
    assert.are.equal(-1, val("math.trunc(-1.5)"))
    assert.are.equal(-1, val("math.mod(-7, 3)"))
    assert.are.equal(2, val("math.min(2, 3)"))
    assert.are.equal(3, val("math.max(2, 3)"))
    assert.is_true(H.near(val("math.ln(math.exp(2))"), 2, 1e-15))
    assert.are.equal(0.5, val("math.hermite_blend(0.5)"))
    assert.are.equal(-90, val("math.min_angle(270)"))
    assert.are.equal(math.pi, val("math.pi"))
  end)

  it("is case-insensitive (GeckoLib writes Math.cos)", function()
    local a = val("Math.COS((Query.Anim_Time + 0.1) * 2.00 * 100) * -10", 0.35)
    local b = val("math.cos((query.anim_time + 0.1) * 2.00 * 100) * -10", 0.35)
    assert.are.equal(b, a)
    assert.is_true(H.near(a, 0, 1e-12)) -- cos 90
  end)

  it("evaluates constant expressions once, at import", function()
    local e = assert(molang.compile("-29.9685 + 60 * math.sin(30)"))
    assert.is_false(e.time)
    assert.is_true(H.near(e.const, 0.0315, 1e-12))
  end)

  it("reads query.anim_time and q.anim_time as the animation time", function()
    local e = assert(molang.compile("q.anim_time * 2 + query.anim_time"))
    assert.is_true(e.time)
    assert.is_nil(e.const)
    assert.are.equal(3, e.fn(1))
  end)
end)

describe("Molang: numbers are floats, and nothing raises", function()
  local cjson = require "cjson"
  local function import(expr, length)
    return anim.decode_blockbench(cjson.encode { format_version = "1.8.0", animations = {
      a = { animation_length = length or 1, bones = { b = { rotation = { 0, 0, expr } } } },
    } }, "f")
  end

  it("reads every number as a float: no integer errors, no wrapped products", function()
    for _, src in ipairs { "1", "2 * 3", "1 < 2", "!0", "0 ? 1", "math.floor(2.5)", "math.ceil(2.5)", "math.round(2.5)",
      "math.trunc(-2.5)", "math.abs(-3)", "math.max(1, 2)", "math.mod(7, 3)", "q.anim_time" } do
      assert.are.equal("float", math.type(val(src, 1)), src)
    end
    assert.are.equal(1.2e19, val("3000000000 * 4000000000"))
    assert.are.equal(1.2e19, val("math.floor(3000000000) * math.floor(4000000000)"))
    assert.are.equal(2 ^ 63, val("9223372036854775807 + 1"))
    local m = val("math.mod(5, 0)") -- C's fmod of floats: nan, where Lua's integer fmod raises
    assert.is_true(m ~= m)
    assert.are.equal(-1, val("math.mod(-7, 3)"))
  end)

  it("refuses what evaluates to nan or inf with the documented message, raising nothing", function()
    local CASES = {
      { "math.mod(5, 0)", "nan" }, { "1/0", "inf" }, { "-1/0", "-inf" }, { "0/0", "nan" }, { "math.sqrt(-1)", "nan" },
      { "math.pow(-8, 1/3)", "nan" }, { "math.ln(0)", "-inf" }, { "math.acos(2)", "nan" }, { "math.pow(10, 400)", "inf" },
      { "1e999", "inf" }, { "3000000000 * 4000000000 * 1e300", "inf" },
    }
    for _, c in ipairs(CASES) do
      local ok, clips, err = pcall(import, c[1])
      assert(ok, clips)
      assert.is_nil(clips)
      assert.are.equal(string.format("f: animations.a.bones.b.rotation[3]: animation 'a', bone 'b', rotation z:" ..
        " Molang '%s' evaluates to %s", c[1], c[2]), err)
      -- and of time: the message says when
      local src = c[1] .. " + q.anim_time"
      ok, clips, err = pcall(import, src)
      assert(ok, clips)
      assert.is_nil(clips)
      assert.are.equal(string.format("f: animations.a.bones.b.rotation[3]: animation 'a', bone 'b', rotation z:" ..
        " Molang '%s' evaluates to %s at query.anim_time = 0", src, c[2]), err)
    end
  end)

  it("reads 200 levels of nesting, and refuses deeper ones with a message", function()
    local function nest(n, open, close, inner) return string.rep(open, n) .. (inner or "1") .. string.rep(close, n) end
    -- LPeg's capture nesting stopped at 14 parentheses: no longer
    assert.are.equal(1, val(nest(200, "(", ")")))
    assert.are.equal(1, val(nest(200, "math.abs(", ")")))
    assert.are.equal(201, val(string.rep("1 + ", 200) .. "1"))
    assert.is_true(H.near(val(nest(100, "(q.anim_time + ", ")", "q.anim_time"), 0.5), 50.5, 1e-12))
    local TOO_DEEP = " too deeply nested to import (more than 200 levels of operators, calls and parentheses)"
    for _, src in ipairs {
      nest(201, "(", ")"), nest(100000, "(", ")"), nest(201, "math.abs(", ")"), string.rep("-", 201) .. "1",
      string.rep("1 + ", 201) .. "1", string.rep("q.anim_time * ", 100000) .. "1", nest(5000, "1 ? ", " : 1"),
      nest(5000, "math.clamp(", ", 0, 1)"),
    } do
      local ok, e, err = pcall(molang.compile, src)
      assert(ok, e)
      assert.is_nil(e)
      assert.are.equal("'" .. src .. "':" .. TOO_DEEP, err)
      ok, e, err = pcall(import, src)
      assert(ok, e)
      assert.is_nil(e)
      assert.truthy(err:find(TOO_DEEP, 1, true), err)
    end
  end)

  it("raises nothing for any token soup (seeded fuzz)", function()
    local ATOMS = { "1", "0", "-1", "2.5", "1e308", "1e-308", "q.anim_time", "math.pi", "(", ")", ",", "?", ":", "+", "-",
      "*", "/", "!", "==", "!=", "<", ">=", "&&", "||", "math.mod(", "math.pow(", "math.sqrt(", "math.ln(", "math.floor(",
      "math.clamp(", "math.lerprotate(", "math.min_angle(", "math.atan2(", "math.exp(", "math.asin(", "v.x", ";", "=" }
    local seed = 12345
    local function rnd(n) -- a small LCG: the same soup everywhere
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n + 1
    end
    for _ = 1, 3000 do
      local parts = {}
      for i = 1, rnd(14) do parts[i] = ATOMS[rnd(#ATOMS)] end
      local src = table.concat(parts, " ")
      local ok, e = pcall(molang.compile, src)
      assert(ok, src .. ": " .. tostring(e))
      if e and e.fn then
        for _, t in ipairs { 0, 0.5, 1e300, -1 } do
          local fine, v = pcall(e.fn, t)
          assert(fine and type(v) == "number", src .. ": " .. tostring(v))
        end
      end
      ok, e = pcall(import, src)
      assert(ok, src .. ": " .. tostring(e))
    end
  end)
end)

describe("Molang: periods", function()
  it("knows the period of sin and cos of a linear function of time", function()
    assert.are.same({ 1 }, assert(molang.compile("math.sin(query.anim_time*360)*2")).periods)
    assert.are.same({ 4 }, assert(molang.compile("math.sin(q.anim_time*90+30)*-3")).periods)
    -- (t + 0.1) * 2.00 * 100 = 200 t + 20: 1.8 s
    local p = assert(molang.compile("Math.cos((query.anim_time + 0.1) * 2.00 * 100) * -10")).periods
    assert.is_true(H.near(p[1], 1.8, 1e-12))
    -- division by a constant, and a function of a periodic term
    assert.are.same({ 2 }, assert(molang.compile("math.abs(math.sin(q.anim_time / 2 * 360))")).periods)
  end)

  it("says when time appears outside sin and cos (no repeat known)", function()
    assert.is_false(assert(molang.compile("q.anim_time * 10")).periods)
    assert.is_false(assert(molang.compile("math.sin(q.anim_time * q.anim_time)")).periods)
    assert.is_false(assert(molang.compile("math.sin(q.anim_time*360) + q.anim_time")).periods)
  end)

  it("finds the shortest span that is a whole number of every period, within 10 s", function()
    assert.is_true(H.near(molang.common_period { 1.8, 0.6, 0.9 }, 1.8, 1e-12))
    assert.are.equal(1, molang.common_period { 0.5, 1 })
    assert.are.equal(6, molang.common_period { 2, 3 })
    assert.is_nil(molang.common_period { 3, 4 })              -- 12 s
    assert.is_nil(molang.common_period { 360 / 204, 2.4, 3 }) -- 60 s (magma_spider idlelayer)
    assert.are.equal(12, molang.common_period({ 3, 4 }, 20))
    assert.is_nil(molang.common_period {})
  end)
end)

describe("Molang: what cannot be imported", function()
  local ONLY = " (only numbers, query.anim_time and math functions can be imported)"
  local CASES = {
    { "v.speed * 2", "'v.speed * 2': variable 'v.speed'" },
    { "variable.speed", "'variable.speed': variable 'variable.speed'" },
    { "t.x", "'t.x': temporary variable 't.x'" },
    { "context.other", "'context.other': context variable 'context.other'" },
    { "q.life_time", "'q.life_time': query 'q.life_time'" },
    { "Query.Is_Sneaking ? 1 : 0", "'Query.Is_Sneaking ? 1 : 0': query 'query.is_sneaking'" },
    { "this + 1", "'this + 1': 'this' (the channel's previous value)" },
    { "degrees * 2", "'degrees * 2': unknown name 'degrees'" },
    { "math.e", "'math.e': unknown math name 'math.e'" },
    { "math.random(0, 1)", "'math.random(0, 1)': 'math.random' is random: it has no single value to import" },
    { "math.die_roll(1, 1, 6)", "'math.die_roll(1, 1, 6)': 'math.die_roll' is random: it has no single value to import" },
    { "math.tan(45)", "'math.tan(45)': unknown math function 'math.tan'" },
    { "foo(1)", "'foo(1)': unknown name 'foo'" },
    { "q.anim_time(1)", "'q.anim_time(1)': 'q.anim_time' is not a function" },
    { "math.sin(1, 2)", "'math.sin(1, 2)': math.sin takes 1 argument, got 2" },
    { "math.clamp(1)", "'math.clamp(1)': math.clamp takes 3 arguments, got 1" },
  }
  for _, c in ipairs(CASES) do
    it("refuses " .. c[1], function()
      local e, err = molang.compile(c[1])
      assert.is_nil(e)
      assert.are.equal(c[2] .. ONLY, err)
      assert.are.same({ nil, c[2] .. ONLY }, { molang.eval(c[1], 0) })
    end)
  end
end)

describe("Molang: baking into keys", function()
  -- The interpolation error of straight keys h apart over A sin(w t) is at
  -- most A w^2 h^2 / 8.  The baker works to 0.005 (half the 0.01 it
  -- promises), so for a uniform grid it needs about w sqrt(A / 0.04) keys
  -- a second -- the rate docs/formats.md ("Blockbench and Bedrock") states.
  local function rate_for(A, hz)
    local w = 2 * math.pi * hz
    return w * math.sqrt(A / (8 * bake.TOL))
  end

  for _, case in ipairs { { 50, 1 }, { 5, 3 }, { 180, 0.5 }, { 0.25, 1 } } do
    local A, hz = case[1], case[2]
    it(string.format("keeps %g sin(%g turns/s) within 0.01 at about %.0f keys/s", A, hz, rate_for(A, hz)), function()
      local e = assert(molang.compile(string.format("%g * math.sin(q.anim_time * %g)", A, 360 * hz)))
      local f = function(t) return { e.fn(t), 0, 0 } end
      local s, stats = bake.sample(f, 0, 2, "vec")
      assert.is_true(stats.err <= bake.TOL)
      -- measured between the keys, at points the baker did not check
      local worst, k = 0, 1
      for i = 0, 9973 do
        local t = 2 * i / 9973
        while s[k + 1] and s[k + 1][1] <= t do k = k + 1 end
        local a, b = s[k], s[k + 1] or s[k]
        local v = a[2][1]
        if b[1] > a[1] then v = a[2][1] + (b[2][1] - a[2][1]) * (t - a[1]) / (b[1] - a[1]) end
        worst = math.max(worst, math.abs(v - e.fn(t)))
      end
      assert.is_true(worst < bake.BOUND, "error " .. worst)
      -- the uniform grid is about as dense as the formula says: not sparser,
      -- and not more than twice as dense
      local want = rate_for(A, hz)
      assert.is_true(stats.rate >= 0.9 * want and stats.rate <= 2 * want + 10,
        string.format("rate %.1f, formula %.1f", stats.rate, want))
    end)
  end

  it("puts a jump where the expression jumps (floor)", function()
    local e = assert(molang.compile("math.floor(q.anim_time * 4) * 10"))
    local s, stats = bake.sample(function(t) return { e.fn(t), 0, 0 } end, 0, 1, "vec")
    -- at 0.25, 0.5, 0.75, and at 1 itself, where floor(4) = 4 takes over
    assert.are.equal(4, stats.jumps)
    local at = {}
    for k = 2, #s do
      if s[k][1] == s[k - 1][1] then at[#at + 1] = s[k][1] end
    end
    assert.are.equal(4, #at)
    for i, t in ipairs(at) do assert.is_true(math.abs(t - i / 4) < 1e-12, tostring(t)) end
    for i = 0, 999 do
      local t = i / 1000 + 0.0005
      local k = 1
      while s[k + 1] and s[k + 1][1] <= t do k = k + 1 end
      assert.is_true(math.abs(s[k][2][1] - e.fn(t)) < 1e-9 or math.abs(s[k + 1][2][1] - e.fn(t)) < 1e-9)
    end
    assert.is_true(#s < 20)
  end)

  it("bakes rotations as quaternions within 0.01 degree", function()
    local function q(t)
      local h = math.rad(170 * math.sin(math.rad(360 * t))) / 2
      return { math.sin(h), 0, 0, math.cos(h) }
    end
    local s, stats = bake.sample(q, 0, 1, "quat")
    assert.is_true(stats.err <= bake.TOL)
    for i = 0, 997 do
      local t = i / 997
      local k = 1
      while s[k + 1] and s[k + 1][1] <= t do k = k + 1 end
      local a, b = s[k], s[k + 1] or s[k]
      local v = a[2]
      if b[1] > a[1] then v = bake.slerp(a[2], b[2], (t - a[1]) / (b[1] - a[1])) end
      assert.is_true(bake.angle(v, q(t)) < bake.BOUND)
    end
  end)

  it("gives up, within a budget of keys, on a function that needs more", function()
    -- sin of t²: ever faster, the keys needed have no bound
    local e = assert(molang.compile("50 * math.sin(q.anim_time * q.anim_time * 360000)"))
    local f = function(t) return { e.fn(t), 0, 0 } end
    local s, stats = bake.sample(f, 0, 1, "vec", nil, nil, 500)
    assert.is_nil(s)
    assert.are.equal(500, stats.over)
    -- a slow one fits: at most the budget
    local g = assert(molang.compile("50 * math.sin(q.anim_time * 360)"))
    s = bake.sample(function(t) return { g.fn(t), 0, 0 } end, 0, 1, "vec", nil, nil, 500)
    assert.truthy(s)
    assert.is_true(#s <= 500)
    assert.are.equal(100000, bake.MAX_KEYS)
  end)

  it("refuses a channel that needs more than the cap of keys, naming file, animation, bone, expression and cap", function()
    local cjson = require "cjson"
    local src = "50*math.sin(q.anim_time*q.anim_time*360000)"
    local t0 = os.clock()
    local clips, err = anim.decode_blockbench(cjson.encode { format_version = "1.8.0", animations = {
      a = { animation_length = 10, bones = { b = { rotation = { 0, 0, src } } } },
    } }, "spin.animation.json")
    assert.is_nil(clips)
    assert.are.equal("spin.animation.json: animations.a.bones.b.rotation[3]: animation 'a', bone 'b', rotation z: Molang '"
      .. src .. "' changes too fast to bake: more than 100000 keys on the channel (the cap) would be needed to stay"
      .. " within 0.01 from 0 to 10 s", err)
    assert.is_true(os.clock() - t0 < 60, "the refusal took " .. (os.clock() - t0) .. " s")
    -- a .bbmodel says the same, with its own path
    clips, err = anim.decode_blockbench(cjson.encode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 10, animators = { u = { name = "b", keyframes = {
        { channel = "position", time = 0, data_points = { { x = 0, y = src, z = 0 } } },
      } } } } },
    }, "spin.bbmodel")
    assert.is_nil(clips)
    assert.are.equal("spin.bbmodel: animations[1].animators.u.keyframes[1].data_points[1].y: animation 'a', bone 'b',"
      .. " position y: Molang '" .. src .. "' changes too fast to bake: more than 100000 keys on the channel (the cap)"
      .. " would be needed to stay within 0.01 from 0 to 10 s", err)
    -- baked for an easing: the key whose easing it is, and the reason
    clips, err = anim.decode_blockbench(cjson.encode { format_version = "1.8.0", animations = {
      a = { animation_length = 10, bones = { b = { rotation = {
        ["0.0"] = { vector = { 0, 0, 0 } },
        ["10.0"] = { vector = { 0, 0, 90 }, easing = "easeInElastic", easingArgs = { 1234567.37 } },
      } } } },
    } }, "f")
    assert.is_nil(clips)
    assert.are.equal("f: animations.a.bones.b.rotation[\"10.0\"]: animation 'a', bone 'b', rotation: baked for GeckoLib"
      .. " easing easeInElastic, it changes too fast: more than 100000 keys on the channel (the cap) would be needed"
      .. " to stay within 0.01 from 0 to 10 s", err)
  end)

  it("keeps an imported clip within 0.01 degree of the file's Molang (bat, move.fly)", function()
    local fly = assert(anim.import_blockbench(H.shared .. "/data/blockbench/geckolib/1.20.4/bat.animation.json"))["move.fly"]
    -- leftArm: [0, cos(360t)*20, sin(360t)*50-60]; y changes sign (Bedrock)
    local function zyx(x, y, z) return H.qmul(H.qmul(H.qaxis(3, z), H.qaxis(2, y)), H.qaxis(1, x)) end
    for i = 0, 991 do
      local t = i / 991
      local a = math.rad(360 * t)
      local want = zyx(0, -math.cos(a) * 20, math.sin(a) * 50 - 60)
      assert.is_true(bake.angle(fly:sample(t).leftArm.rotation, want) < bake.BOUND)
    end
    -- the note states the rate; 50 sin(360 t) needs about 2 pi sqrt(50 / 0.04) = 222 keys/s
    local note = core.clip_info(fly).approx.note
    local rate = tonumber(note:match("leftArm%.rotation baked for Molang at ([%d.]+) keys/s"))
    assert.is_true(rate >= 0.9 * rate_for(50, 1) and rate <= 2 * rate_for(50, 1), note)
  end)
end)
