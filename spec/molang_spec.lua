-- Molang (anim.import.blockbench.molang): the parser, evaluation as Blockbench's
-- molangjs evaluates it (degrees, Molang's functions, case-insensitivity,
-- statements, variables, strings, the preview's stand-ins for queries),
-- the periods that decide a clip's length, bounded work, and the baking of
-- expressions of time into keys (anim.import.blockbench.bake) within 0.01 degree or
-- block.
require("anim.base.luajit").no_traversal_traces()
local molang = require "anim.import.blockbench.molang"
local bake = require "anim.import.blockbench.bake"
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local compat = require "anim.base.compat"
local E = require "anim.base.errors"

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
    assert.are.equal("query.anim_time", ast.a.args[1].a.name) -- q. is query.
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
    assert.are.equal("'v.x = ; return v.x': not an expression (stopped at column 5, '= ; return')",
      select(2, molang.compile("v.x = ; return v.x")))
    assert.are.equal("'math.sin(': not an expression (stopped at column 9, '(')", select(2, molang.parse("math.sin(")))
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
    assert.are.equal(0, val("math.lerprotate(350, 10, 0.5)")) -- the short way round, in [0, 360) as molangjs
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
    assert.is_falsy(e.time)
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
      -- (compat.mtype: before 5.3 every number is a double, a "float")
      assert.are.equal("float", compat.mtype(val(src, 1)), src)
    end
    assert.are.equal(1.2e19, val("3000000000 * 4000000000"))
    assert.are.equal(1.2e19, val("math.floor(3000000000) * math.floor(4000000000)"))
    assert.are.equal(2 ^ 63, val("9223372036854775807 + 1"))
    local m = val("math.mod(5, 0)") -- C's fmod of floats: nan, where Lua's integer fmod raises
    assert.is_true(m ~= m)
    assert.are.equal(-1, val("math.mod(-7, 3)"))
  end)

  it("reads nan as 0 (as Blockbench) and refuses inf, with the documented warnings, raising nothing", function()
    local CASES = {
      { "math.mod(5, 0)", "nan" }, { "1/0", "inf" }, { "-1/0", "-inf" }, { "0/0", "nan" }, { "math.sqrt(-1)", "nan" },
      { "math.pow(-8, 1/3)", "nan" }, { "math.ln(0)", "-inf" }, { "math.acos(2)", "nan" }, { "math.pow(10, 400)", "inf" },
      { "1e999", "inf" }, { "3000000000 * 4000000000 * 1e300", "inf" },
    }
    for _, c in ipairs(CASES) do
      for _, src in ipairs { c[1], c[1] .. " + q.anim_time" } do
        local ok, clips, warnings = pcall(import, src)
        assert(ok, clips)
        assert.are.equal(1, #warnings, src)
        local w = warnings[1]
        assert.are.equal("animations.a.bones.b.rotation" .. (c[2] == "nan" and "" or "[3]"), w.channel)
        if c[2] == "nan" then
          -- molangjs ends with `|| 0`: a NaN result is 0
          assert.truthy(clips.a, src)
          local timed = src ~= c[1]
          assert.are.equal(string.format("animation 'a', bone 'b', rotation: Molang '%s' evaluates to nan%s: read as 0%s"
            .. " (as Blockbench reads it)", src, timed and " at some times" or "", timed and " there" or ""), w.message)
        else
          assert.is_nil(clips.a)
          assert.are.equal(string.format("not imported: animation 'a', bone 'b', rotation z: Molang '%s' evaluates to %s%s",
            src, c[2], src ~= c[1] and " at query.anim_time = 0" or ""), w.message)
        end
      end
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
      -- (the expression quoted cut: E.shown)
      assert.are.equal("'" .. E.shown(src) .. "':" .. TOO_DEEP, err)
      local clips, warnings
      ok, clips, warnings = pcall(import, src)
      assert(ok, clips)
      assert.is_nil(clips.a)
      assert.truthy(warnings[1].message:find(TOO_DEEP, 1, true), warnings[1].message)
    end
  end)

  it("raises nothing for any token soup (seeded fuzz)", function()
    local ATOMS = { "1", "0", "-1", "2.5", "1e308", "1e-308", "q.anim_time", "math.pi", "(", ")", ",", "?", ":", "+", "-",
      "*", "/", "!", "==", "!=", "<", ">=", "&&", "||", "math.mod(", "math.pow(", "math.sqrt(", "math.ln(", "math.floor(",
      "math.clamp(", "math.lerprotate(", "math.min_angle(", "math.atan2(", "math.exp(", "math.asin(", "v.x", ";", "=",
      "return", "loop(", "{", "}", "break", "continue", "'a'", "??", "this", "q.life_time", "t.y", "->", "[", "]",
      "math.random(", "math.ease_in_out_back(", "// c\n" }
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
          assert(fine and type(v) == "number" and compat.mtype(v) == "float", src .. ": " .. tostring(v))
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

describe("Molang: the constructs Blockbench evaluates (molangjs)", function()
  local function ev(src, t, env)
    local e = assert(molang.compile(src, env))
    return e.const or e.fn(t or 0), e
  end

  -- the examples of molangjs's own tests.js, with the values it expects
  it("gives molangjs's results for its own examples", function()
    local v = { values = { ["variable.value"] = 2.0, ["variable.nothing"] = 0.0, ["variable.existent"] = 2.0,
      ["variable.a"] = 3.0, ["query.item_x"] = "diamond" } }
    for _, c in ipairs {
      { "1+1", 2 }, { "1 + 1 * 2", 3 }, { "18 - 2 * -0.5", 19 }, { "10 * -0.2f", -2 }, { "12 / 2 / 2", 3 },
      { "-1 - -2", 1 }, { "true ? 10", 10 }, { "false ? 5 : 10", 10 }, { "3 >= 4", 0 },
      { "!variable.value ? 100 : (10 + !variable.nothing)", 11 },
      { "temp.test = 33; return temp.test * 2", 66 }, { "temp.test = 4; return temp.test; return 5;", 4 },
      { "Math.pow(Math.clamp(500, 0, 3), 2)", 9 }, { "t.a = 6; variable.b = 2; return temp.a / v.b;", 3 },
      { "variable.a == 3", 1 }, { "Math.lerprotate(10, 380, 0.5) + Math.lerprotate(50, -10, 0.25)", 20 },
      { "Math.round(Math.acos(-1) + Math.atan2(2, 4))", 207 },
      { "(variable.non_existent ?? 3) + (variable.existent ?? 9)", 5 },
      { "q.in_range(1, 0, 2) && !query.in_range(55, 1, 5)", 1 },
      { "q.all(2, 2, 2, 2, 2) && !query.all(6, 6, 1, 5, 6) && q.any(20, 2, 2, 20, 2) && !q.any(1, 2, 2)", 1 },
      { "q.approx_eq(2, 2.00000000002) && !q.approx_eq(2, 2, 3)", 1 },
      { "(query.item_x == 'diamond')*2 + (query.item_x == 'coal')*3", 2 },
    } do
      assert.are.equal(c[2], (ev(c[1], 0, v)), c[1])
    end
  end)

  it("reads the game's queries and variables from options, the others as Blockbench's preview does", function()
    -- query.anim_time is the time, exactly (no note)
    local x, e = ev("q.anim_time * 2", 1.5)
    assert.are.equal(3, x)
    assert.are.same({}, e.notes)
    -- query.life_time follows the time, as Blockbench previews it
    x, e = ev("query.life_time * 10", 0.25)
    assert.are.equal(2.5, x)
    assert.are.same({ "query.life_time read as the animation's time (as Blockbench previews it)" }, e.notes)
    -- query.time_stamp: the time in steps of 1/20 s
    x, e = ev("q.time_stamp", 0.123)
    assert.are.equal(0.1, x)
    assert.are.same({ "query.time_stamp read as the animation's time in steps of 1/20 s (as Blockbench previews it)" }, e.notes)
    -- any other query, and variables: 0 unless the game gives them
    x, e = ev("query.target_x_rotation - 90.0", 0)
    assert.are.equal(-90, x)
    assert.are.same({ "query.target_x_rotation read as 0 (unknown here: the game gives it; options.molang.queries can)" },
      e.notes)
    x, e = ev("query.target_x_rotation - 90.0", 0, { values = { ["query.target_x_rotation"] = 30.0 } })
    assert.are.equal(-60, x)
    assert.are.same({}, e.notes)
    for _, src in ipairs { "query.modified_distance_moved", "query.is_sneaking", "q.yaw_speed", "query.key_frame_lerp_time",
      "query.anim_time_update" } do
      assert.are.equal(0, (ev(src .. " * 3")), src)
    end
    x, e = ev("v.x_bob + variable.x_bob + t.y + temp.y + c.z + context.z")
    assert.are.equal(0, x)
    assert.are.same({
      "variable.x_bob read as 0 (unknown here: the game gives it; options.molang.variables can)",
      "temp.y read as 0 (unknown here: the game gives it; options.molang.variables can)",
      "context.z read as 0 (unknown here: the game gives it; options.molang.variables can)",
    }, e.notes)
    -- a query function answered by the game's value, whatever its arguments
    x = ev("q.is_item_name_any('slot.weapon.offhand', 0, 'minecraft:spyglass') ? 10 : 20", 0,
      { values = { ["query.is_item_name_any"] = 1.0 } })
    assert.are.equal(10, x)
    assert.are.equal(20, (ev("q.is_item_name_any('slot.weapon.offhand', 0, 'minecraft:spyglass') ? 10 : 20")))
    -- Blockbench's fallback for the model scale, and its placeholders
    assert.are.equal(1 / 16, (ev("query.model_scale")))
    x, e = ev("degrees * 2", 0, { placeholders = { degrees = 180.0 } })
    assert.are.equal(360, x)
    assert.are.same({ "degrees read as 180 (the file's variable placeholders)" }, e.notes)
  end)

  it("reads this as 0: the channel's value before one animation", function()
    local x, e = ev("-42.97 - this")
    assert.are.equal(-42.97, x)
    assert.are.same({ "'this' read as 0 (the channel's value before this animation: Blockbench previews one animation)" },
      e.notes)
  end)

  it("assigns variables in the expression and reads them back, also of time", function()
    assert.are.equal(5, (ev("v.x = q.anim_time * 2; return v.x + 1", 2)))
    assert.are.equal(7, (ev("t.a = 3; t.b = t.a * 2; return t.b + 1")))
    -- a variable assigned after it is read reads its stand-in first
    assert.are.equal(0, (ev("t.c = t.c + 0; return t.c")))
    -- each evaluation starts afresh
    local e = assert(molang.compile("t.n = t.n + q.anim_time; return t.n"))
    assert.are.equal(1, e.fn(1))
    assert.are.equal(1, e.fn(1))
  end)

  it("evaluates statements, loops with break and continue, and return", function()
    assert.are.equal(5, (ev("v.x = 0; loop(10, {v.x = v.x + 1; (v.x > 4) ? break;}); return v.x;")))
    assert.are.equal(25, (ev("v.s = 0; v.i = 0; loop(10, {v.i = v.i + 1; (v.i > 5) ? continue; v.s = v.s + v.i * 1.666666666666666667 * 0.6;}); return math.round(v.s * 5 / 3);")))
    assert.are.equal(3, (ev("loop(3, {return 3;}); return 4;")))
    -- loop runs at most 1024 times, as molangjs clamps it
    assert.are.equal(1024, (ev("v.n = 0; loop(1e9, {v.n = v.n + 1;}); return v.n;")))
    -- a sign before an assignment (Blockbench's invertMolang writes it so):
    -- molangjs assigns all the same (Animated Java's armor stand test blueprint)
    assert.are.equal(31, (ev("-v.a = 30; v.b = +1;\n+v.a + v.b")))
    -- without return, a list of statements is worth its last one (molangjs)
    assert.are.equal(2, (ev("v.a = 1; v.a * 2")))
    assert.are.equal(0, (ev("v.a = 1;")))
  end)

  it("compares strings, and reads them as 0 elsewhere", function()
    assert.are.equal(1, (ev("'abc' == 'abc'")))
    assert.are.equal(0, (ev("'abc' == 'ABC'")))
    assert.are.equal(1, (ev("'abc' != 'abd'")))
    assert.are.equal(0, (ev("'abc' == 0")))
    assert.are.equal(1, (ev("'abc' + 1")))
    assert.are.equal(1, (ev("t.s = 'x'; return t.s == 'x';")))
    assert.are.equal(2, (ev("q.mark == 'red' ? 2 : 3", 0, { values = { ["query.mark"] = "red" } })))
  end)

  it("reads ternaries, ??, comparisons and logic with Molang's precedence", function()
    assert.are.equal(1, (ev("1 || 0 && 0")))       -- && binds tighter than ||
    assert.are.equal(0, (ev("(1 || 0) && 0")))
    assert.are.equal(1, (ev("2 > 1 == 1")))
    assert.are.equal(4, (ev("v.missing ?? 2 + 2")))  -- ?? is the loosest
    assert.are.equal(5, (ev("(v.missing + 1) ?? 5")))  -- an unassigned name met in a: b
    assert.are.equal(3, (ev("(v.given + 1) ?? 5", 0, { values = { ["variable.given"] = 2.0 } })))
    assert.are.equal(0, (ev("(0/0) ? 1 : 0")))       -- NaN is false
    assert.are.equal(0, (ev("!(0/0)")))             -- molangjs: !a is a == 0 ? 1 : 0
    assert.are.equal(0, (ev("!(q.anim_time / 0 * 0)", 1)))
    assert.are.equal(5, (ev("1 ? 0 ? 4 : 5 : 6")))
  end)

  it("reads 2.0f literals, comments and every math function", function()
    assert.are.equal(3, (ev("1.5f * 2.0F")))
    assert.are.equal(3, (ev("1.5 * 2 // twice\n")))
    assert.are.equal(1, (ev("// a note\n1")))
    local M = molang.FUNCTIONS
    local one = {
      abs = { -2, 2 }, ceil = { 1.2, 2 }, floor = { 1.8, 1 }, round = { 1.5, 2 }, trunc = { -1.7, -1 }, sqrt = { 4, 2 },
      sign = { -3, -1 }, min_angle = { 190, -170 }, hermite_blend = { 0.5, 0.5 },
    }
    for name, c in pairs(one) do
      assert.is_true(M[name] ~= nil, name)
      assert.are.equal(c[2], (ev(string.format("math.%s(%s)", name, c[1]))), name)
    end
    assert.are.equal(-3, (ev("math.copy_sign(3, -1)")))
    assert.are.equal(0.25, (ev("math.inverse_lerp(10, 20, 12.5)")))
    -- Bedrock's easing functions (start, end, 0_to_1), easings.net's curves
    assert.is_true(H.near((ev("math.ease_in_quad(10, 20, 0.5)")), 12.5, 1e-12))
    assert.is_true(H.near((ev("math.ease_out_cubic(0, 1, 0.5)")), 0.875, 1e-12))
    assert.is_true(H.near((ev("math.ease_in_out_sine(0, 2, 0.5)")), 1, 1e-12))
    assert.is_true(H.near((ev("math.ease_out_bounce(0, 1, 0.5)")), 0.765625, 1e-12))
    assert.is_true(H.near((ev("math.ease_in_back(0, 1, 0.5)")), 2.70158 * 0.125 - 1.70158 * 0.25, 1e-12))
    for name in pairs(M) do
      local src = string.format("math.%s(0.3, 0.6, 0.5)", name)
      local x = ev(src)
      assert.are.equal("number", type(x), src)
    end
  end)

  it("reads missing arguments as 0, ignores extra ones and reads unknown functions as 0, as Blockbench", function()
    local x, e = ev("Math.lerp(-0.2)")
    assert.are.equal(-0.2, x)
    assert.are.same({ "math.lerp takes 3 arguments, got 1: the missing ones read as 0 (as Blockbench reads them)" }, e.notes)
    x, e = ev("math.sin(90, 2)")
    assert.are.equal(1, x)
    assert.are.same({ "math.sin takes 1 argument, got 2: the others are ignored (as Blockbench does)" }, e.notes)
    x, e = ev("math.degrees(q.anim_time) + 1", 3)
    assert.are.equal(1, x)
    assert.are.same({ "unknown function 'math.degrees' read as 0 (as Blockbench reads it)" }, e.notes)
    x, e = ev("math.random(-10, 10) + math.die_roll(2, 1, 6)")
    assert.are.equal(7, x)
    assert.are.same({ "math.random read as its mean (it is random)", "math.die_roll read as its mean (it is random)" },
      e.notes)
  end)

  it("bounds the work of every evaluation: a budget shared by a file's expressions", function()
    local work = { used = 0, limit = 10000 }
    local e = assert(molang.compile("math.sin(q.anim_time * 360) * 2", { work = work }))
    for i = 1, 100 do e.fn(i / 100) end
    assert.are.equal(100 * e.cost, work.used)
    -- (a math function's call counts CALL_COST steps beside itself and
    -- its arguments: q.anim_time * 360 three, the call one, * 2 two)
    assert.are.equal(16, molang.CALL_COST)
    assert.are.equal(3 + 1 + molang.CALL_COST + 2, e.cost)
    -- loops count their iterations before they run
    work.used = 0
    local ok, err = pcall(molang.compile, "v.n = 0; loop(1000, {loop(1000, {v.n = v.n + 1;});}); return v.n;",
      { work = work })
    assert.is_false(ok)
    assert.are.equal(molang.Budget, err)
    assert.is_true(work.used <= 10000 + 1000 * 10 * molang.CLOSURE_COST, tostring(work.used))
  end)
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
      -- the keys are about as dense as the formula for a uniform grid says
      -- (halving makes them denser where the curve bends most, sparser
      -- where it is straight): not more than twice as dense, and about four
      -- evaluations of the function a key
      local want = rate_for(A, hz)
      assert.is_true(stats.rate >= 0.5 * want and stats.rate <= 2 * want + 10,
        string.format("rate %.1f, formula %.1f", stats.rate, want))
      assert.is_true(stats.evals <= 5 * #s + 10, string.format("%d evaluations for %d keys", stats.evals, #s))
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

  it("refuses a channel that needs more than the cap of keys, naming file, animation, bone, expression and cap #long", function()
    local cjson = require "cjson"
    local src = "50*math.sin(q.anim_time*q.anim_time*360000)"
    local t0 = os.clock()
    local spin = cjson.encode { format_version = "1.8.0", animations = {
      a = { animation_length = 10, bones = { b = { rotation = { 0, 0, src } } } },
    } }
    -- with the default limits the file's bake samples run out first, quickly
    local clips, warnings = anim.decode_blockbench(spin, "spin.animation.json")
    assert.are.same({}, clips)
    assert.are.same({ { animation = "a", channel = "animations.a.bones.b.rotation", message = "not imported: animation 'a',"
      .. " bone 'b', rotation: not baked: the file's baking has used its 250000 evaluations (anim.limits.bake_samples;"
      .. " anim.set_limits raises it)" } }, warnings)
    assert.is_true(os.clock() - t0 < H.seconds(0.5), "the refusal took " .. (os.clock() - t0) .. " s")
    -- with more, the channel's cap of keys
    local old = anim.set_limits { bake_samples = 2000000 }
    finally(function() anim.set_limits(old) end)
    clips, warnings = anim.decode_blockbench(spin, "spin.animation.json")
    assert.are.same({}, clips)
    assert.are.same({ { animation = "a", channel = "animations.a.bones.b.rotation[3]", message = "not imported: animation 'a',"
      .. " bone 'b', rotation z: Molang '" .. src .. "' changes too fast to bake: more than 100000 keys on the channel"
      .. " (the cap) would be needed to stay within 0.01 from 0 to 10 s" } }, warnings)
    -- a .bbmodel says the same, with its own path
    clips, warnings = anim.decode_blockbench(cjson.encode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 10, animators = { u = { name = "b", keyframes = {
        { channel = "position", time = 0, data_points = { { x = 0, y = src, z = 0 } } },
      } } } } },
    }, "spin.bbmodel")
    assert.are.same({}, clips)
    assert.are.equal("animations[1].animators.u.keyframes[1].data_points[1].y", warnings[1].channel)
    assert.are.equal("not imported: animation 'a', bone 'b', position y: Molang '" .. src .. "' changes too fast to"
      .. " bake: more than 100000 keys on the channel (the cap) would be needed to stay within 0.01 from 0 to 10 s",
      warnings[1].message)
    -- baked for an easing: the key whose easing it is, and the reason
    clips, warnings = anim.decode_blockbench(cjson.encode { format_version = "1.8.0", animations = {
      a = { animation_length = 10, bones = { b = { rotation = {
        ["0.0"] = { vector = { 0, 0, 0 } },
        ["10.0"] = { vector = { 0, 0, 90 }, easing = "easeInElastic", easingArgs = { 1234567.37 } },
      } } } },
    } }, "f")
    assert.are.same({}, clips)
    assert.are.equal("animations.a.bones.b.rotation[\"10.0\"]", warnings[1].channel)
    assert.are.equal("not imported: animation 'a', bone 'b', rotation: baked for GeckoLib"
      .. " easing easeInElastic, it changes too fast: more than 100000 keys on the channel (the cap) would be needed"
      .. " to stay within 0.01 from 0 to 10 s", warnings[1].message)
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
