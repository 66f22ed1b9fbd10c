-- import/blockbench/molang_funcs.lua: what Molang's names mean as
-- Blockbench's preview reads them: the math.* functions (degrees in and
-- out, floats only), the random ones as their mean, the query functions,
-- and how a name the expression does not assign reads (the animation's
-- time, a preview value, the game's or the file's value, or 0 with a note).
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
local shown = E.shown

local M = {}

local rad, deg = math.pi / 180, 180 / math.pi

-- Lua's floor and ceil give an integer when the result fits one: back to
-- a float, so that no integer ever enters the arithmetic.
local function floor(x) return math.floor(x) + 0.0 end
local function ceil(x) return math.ceil(x) + 0.0 end
local function round(x) return floor(x + 0.5) end -- as JavaScript's Math.round
local function trunc(x) return x >= 0 and floor(x) or ceil(x) end
local function js_min(a, b) if a ~= a or b ~= b then return 0 / 0 end return math.min(a, b) end
local function js_max(a, b) if a ~= a or b ~= b then return 0 / 0 end return math.max(a, b) end

-- easings.net's curves on s in [0, 1], for math.ease_*(start, end, s)
-- (Bedrock's functions of that name)
local EASE = {}
do
  local pi, c1 = math.pi, 1.70158
  local c2, c3, c4, c5 = c1 * 1.525, c1 + 1, 2 * math.pi / 3, 2 * math.pi / 4.5
  local function bounce_out(x)
    local n1, d1 = 7.5625, 2.75
    if x < 1 / d1 then return n1 * x * x
    elseif x < 2 / d1 then x = x - 1.5 / d1 return n1 * x * x + 0.75
    elseif x < 2.5 / d1 then x = x - 2.25 / d1 return n1 * x * x + 0.9375 end
    x = x - 2.625 / d1
    return n1 * x * x + 0.984375
  end
  local function pow_in(n) return function(x) return x ^ n end end
  local function pow_out(n) return function(x) return 1 - (1 - x) ^ n end end
  local function pow_inout(n)
    return function(x)
      if x < 0.5 then return 2 ^ (n - 1) * x ^ n end
      return 1 - (-2 * x + 2) ^ n / 2
    end
  end
  for n, k in pairs { quad = 2, cubic = 3, quart = 4, quint = 5 } do
    EASE["in_" .. n], EASE["out_" .. n], EASE["in_out_" .. n] = pow_in(k), pow_out(k), pow_inout(k)
  end
  EASE.in_sine = function(x) return 1 - math.cos(x * pi / 2) end
  EASE.out_sine = function(x) return math.sin(x * pi / 2) end
  EASE.in_out_sine = function(x) return -(math.cos(pi * x) - 1) / 2 end
  EASE.in_expo = function(x) return x == 0 and 0 or 2 ^ (10 * x - 10) end
  EASE.out_expo = function(x) return x == 1 and 1 or 1 - 2 ^ (-10 * x) end
  EASE.in_out_expo = function(x)
    if x == 0 or x == 1 then return x end
    if x < 0.5 then return 2 ^ (20 * x - 10) / 2 end
    return (2 - 2 ^ (-20 * x + 10)) / 2
  end
  EASE.in_circ = function(x) return 1 - math.sqrt(1 - x * x) end
  EASE.out_circ = function(x) return math.sqrt(1 - (x - 1) ^ 2) end
  EASE.in_out_circ = function(x)
    if x < 0.5 then return (1 - math.sqrt(1 - (2 * x) ^ 2)) / 2 end
    return (math.sqrt(1 - (-2 * x + 2) ^ 2) + 1) / 2
  end
  EASE.in_back = function(x) return c3 * x ^ 3 - c1 * x * x end
  EASE.out_back = function(x) return 1 + c3 * (x - 1) ^ 3 + c1 * (x - 1) ^ 2 end
  EASE.in_out_back = function(x)
    if x < 0.5 then return (2 * x) ^ 2 * ((c2 + 1) * 2 * x - c2) / 2 end
    return ((2 * x - 2) ^ 2 * ((c2 + 1) * (x * 2 - 2) + c2) + 2) / 2
  end
  EASE.in_elastic = function(x)
    if x == 0 or x == 1 then return x end
    return -(2 ^ (10 * x - 10)) * math.sin((x * 10 - 10.75) * c4)
  end
  EASE.out_elastic = function(x)
    if x == 0 or x == 1 then return x end
    return 2 ^ (-10 * x) * math.sin((x * 10 - 0.75) * c4) + 1
  end
  EASE.in_out_elastic = function(x)
    if x == 0 or x == 1 then return x end
    if x < 0.5 then return -(2 ^ (20 * x - 10) * math.sin((20 * x - 11.125) * c5)) / 2 end
    return 2 ^ (-20 * x + 10) * math.sin((20 * x - 11.125) * c5) / 2 + 1
  end
  EASE.in_bounce = function(x) return 1 - bounce_out(1 - x) end
  EASE.out_bounce = bounce_out
  EASE.in_out_bounce = function(x)
    if x < 0.5 then return (1 - bounce_out(1 - 2 * x)) / 2 end
    return (1 + bounce_out(2 * x - 1)) / 2
  end
end

-- molangjs's clamp: NaN gives the minimum
local function clamp(v, lo, hi)
  if v > hi then v = hi end
  if v < lo or v ~= v then v = lo end
  return v
end

-- math.<name> = { arity, function }.  Degrees in and out, as Molang.  The
-- arguments are floats, and so is every result.
local FUNCS = {
  abs = { 1, math.abs },
  acos = { 1, function(x) return math.acos(x) * deg end },
  asin = { 1, function(x) return math.asin(x) * deg end },
  atan = { 1, function(x) return math.atan(x) * deg end },
  atan2 = { 2, function(y, x) return compat.atan2(y, x) * deg end },
  ceil = { 1, ceil },
  clamp = { 3, clamp },
  copy_sign = { 2, function(a, b)
    a = math.abs(a)
    if b < 0 or (b == 0 and 1 / b < 0) then return -a end
    return a
  end },
  cos = { 1, function(x) return math.cos(x * rad) end },
  exp = { 1, math.exp },
  floor = { 1, floor },
  hermite_blend = { 1, function(x) return 3 * x * x - 2 * x * x * x end },
  inverse_lerp = { 3, function(a, b, v) return (v - a) / (b - a) end },
  lerp = { 3, function(a, b, f) return a + (b - a) * f end },
  lerprotate = { 3, function(a, b, f)
    -- molangjs's: both angles into [0, 360), the shorter way round
    local function radify(n) return ((n + 180) % 360 + 180) % 360 end
    local x, y = radify(a), radify(b)
    if x > y then x, y = y, x end
    local diff = y - x
    if diff > 180 then return radify(y + f * (360 - diff)) end
    return x + f * diff
  end },
  ln = { 1, math.log },
  max = { 2, js_max },
  min = { 2, js_min },
  min_angle = { 1, function(x)
    local a = math.fmod(x, 360)
    if a >= 180 then a = a - 360 elseif a < -180 then a = a + 360 end
    return a
  end },
  mod = { 2, math.fmod }, -- sign of the dividend, as JavaScript's %
  pow = { 2, function(a, b) return a ^ b end },
  round = { 1, round },
  sign = { 1, function(x) return x > 0 and 1.0 or -1.0 end },
  sin = { 1, function(x) return math.sin(x * rad) end },
  sqrt = { 1, math.sqrt },
  trunc = { 1, trunc },
}
for name, f in pairs(EASE) do
  FUNCS["ease_" .. name] = { 3, function(a, b, s) return a + (b - a) * f(s) end }
end
M.FUNCTIONS = FUNCS

-- Random functions: their mean (a random value has no single one to bake).
local RANDOM = {
  random = { 2, function(a, b) return (a + b) / 2 end },
  random_integer = { 2, function(a, b) return (ceil(a) + floor(b)) / 2 end },
  die_roll = { 3, function(n, a, b) return ceil(clamp(n, 0, 1e9)) * (a + b) / 2 end },
  die_roll_integer = { 3, function(n, a, b) return ceil(clamp(n, 0, 1e9)) * (ceil(a) + floor(b)) / 2 end },
}

-- query.in_range, query.all, query.any, query.approx_eq (molangjs's MathUtil)
local QUERY_FUNCS = {
  ["query.in_range"] = function(v, lo, hi) return (v <= hi and v >= lo) and 1.0 or 0.0 end,
  ["query.all"] = function(v, ...)
    for _, c in ipairs { ... } do if c ~= v then return 0.0 end end
    return 1.0
  end,
  ["query.any"] = function(v, ...)
    for _, c in ipairs { ... } do if c == v then return 1.0 end end
    return 0.0
  end,
  ["query.approx_eq"] = function(v, ...)
    for _, c in ipairs { ... } do if math.abs(v - c) > 0.0000001 then return 0.0 end end
    return 1.0
  end,
}

-- The names Blockbench's preview gives a value of its own (molang.js):
-- "time" ones follow the animation's time.
local TIME_NAMES = {
  ["query.anim_time"] = { exact = true },
  ["query.life_time"] = { note = "query.life_time read as the animation's time (as Blockbench previews it)" },
  ["query.time_stamp"] = {
    step = 20, note = "query.time_stamp read as the animation's time in steps of 1/20 s (as Blockbench previews it)",
  },
  -- Blockbench's own name for its timeline's time (its placeholders write
  -- `query.modified_distance_moved = time * 8`)
  ["time"] = { note = "time read as the animation's time (Blockbench's preview timeline)" },
}
local PREVIEW_VALUES = {
  ["true"] = { 1.0 }, ["false"] = { 0.0 }, ["math.pi"] = { math.pi },
  ["query.model_scale"] = { 1 / 16, "query.model_scale read as 1/16 (Blockbench's preview value)" },
  ["this"] = { 0.0, "'this' read as 0 (the channel's value before this animation: Blockbench previews one animation)" },
}
M.TIME_NAMES = TIME_NAMES

-- How a name not assigned in the expression reads: a time, or a value
-- and the note that says where it came from (nil: exact).  env.variables
-- and env.queries are the game's values (canonical names); env.placeholders
-- the file's (Blockbench's variable placeholder panel).
local function resolve(name, env)
  local given = env.values and env.values[name]
  if given ~= nil then return { value = given } end
  local tn = TIME_NAMES[name]
  if tn then return { time = true, step = tn.step, note = tn.note } end
  local pv = PREVIEW_VALUES[name]
  if pv then return { value = pv[1], note = pv[2] } end
  local ph = env.placeholders and env.placeholders[name]
  if type(ph) == "table" then
    -- a placeholder of time: its own compiled function (which counts its work)
    return { fn = ph.fn, note = string.format("%s read as '%s' (the file's variable placeholders)", shown(name),
      shown(ph.src)) }
  elseif ph ~= nil then
    return { value = ph, note = string.format("%s read as %s (the file's variable placeholders)", shown(name),
      type(ph) == "string" and ("'" .. shown(ph) .. "'") or E.num(ph)) }
  end
  local head = name:match("^([^.]+)%.")
  local where = (head == "query" and "options.molang.queries")
    or ((head == "variable" or head == "temp" or head == "context") and "options.molang.variables")
  if where then
    return { value = 0.0, unknown = true,
      note = string.format("%s read as 0 (unknown here: the game gives it; %s can)", shown(name), where) }
  end
  return { value = 0.0, unknown = true,
    note = string.format("unknown name '%s' read as 0 (as Blockbench reads it)", shown(name)) }
end

M.floor, M.ceil, M.round, M.clamp = floor, ceil, round, clamp
M.RANDOM, M.QUERY_FUNCS = RANDOM, QUERY_FUNCS
M.resolve = resolve

return M
