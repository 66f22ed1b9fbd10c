-- import/blockbench/molang.lua: Molang (Minecraft's expression language) as Blockbench
-- evaluates it for its previews, for the importers to turn into keys.
--
--   molang.parse(src)                -> ast | nil, message      (syntax only)
--   molang.compile(src [, env])      -> expr | nil, message
--   molang.eval(src [, t [, env]])   -> value | nil, message    (for tests)
--   molang.common_period(periods [, max]) -> seconds | nil
--   molang.canonical(name)           -> "query.x" for "q.X" (names are case-insensitive)
--
-- An expr is { src, const, fn, time, periods, notes, cost }: `const` is the
-- value when the expression does not depend on time (evaluated once, at
-- import); otherwise fn(t) evaluates it at animation time t and `periods`
-- lists the periods of its sin/cos terms, or is false when time also
-- appears outside them (the expression does not repeat).  `notes` lists,
-- in words, every stand-in the expression needed (a query or variable
-- whose value only a running game knows, read as Blockbench's preview
-- reads it): empty when the value is exactly the file's.
--
-- The rules follow Blockbench's Molang parser (the npm package molangjs
-- that Blockbench 5.1 uses, src/molang.js and src/math.js; Blockbench's
-- js/animations/molang.js gives the preview's query values):
--   * names are case-insensitive; q. v. t. c. mean query. variable. temp.
--     context.; `2.0f` is 2; `true` is 1 and `false` 0; strings are 'text';
--   * query.anim_time is the animation's time; query.life_time reads the
--     same (Blockbench's preview time); query.time_stamp is that time in
--     steps of 1/20 s; query.model_scale is 1/16 (Blockbench's fallback);
--     `this` is 0 (Blockbench previews one animation: the channel's value
--     before it is 0); every other query, variable or name is 0 unless the
--     game gives it (env.variables, env.queries) or the file's variable
--     placeholders do (env.placeholders);
--   * `a = 1; b = a * 2; return b` assigns and reads back within the
--     expression; without `return`, a list of statements is worth its last
--     one (molangjs; the game says 0); loop(n, {...}) runs at most 1024
--     times, with break and continue;
--   * missing function arguments are 0 and extra ones are ignored;
--     unknown functions are 0; math.random and the dice are read as their
--     mean (a random value has no single one to bake);
--   * == and != compare strings as strings; elsewhere a string is 0;
--     comparisons and logic give 1 or 0; NaN is false;
--   * precedence (lowest first): ??, ? :, ||, &&, == !=, < <= > >=, + -,
--     * /, unary - ! +.  (molangjs splits && before ||, which reads
--     `a || b && c` as (a || b) && c; this reads it as the game does.)
-- Every number is a float (a JavaScript number): math.mod(5, 0) is nan and
-- 3000000000 * 4000000000 is 1.2e19; nothing an expression holds raises a
-- Lua error.  `//` starts a comment that runs to the end of the line.
--
-- Bounded work: expressions nested more than M.MAX_DEPTH levels are
-- refused before anything recurses that far; each evaluation adds the
-- expression's size (loops: iterations times the body's) to env.work,
-- and an evaluation that would pass env.work.limit stops with
-- M.Budget (raised as a Lua error value: the importer turns it into a
-- message naming the limit).
local lpeg = require "lpeg"
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
-- (an expression or a name of the file a message quotes: escaped, cut at
-- E.SHOWN bytes)
local shown = E.shown

local M = {}

local P, R, S, C, Ct, Cp = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Ct, lpeg.Cp

M.MAX_DEPTH = 200
M.MAX_CANDIDATES = 10000
M.MAX_LOOP = 1024 -- loop() iterations, as molangjs clamps them
-- An operation evaluated by closures (statements, strings, deep trees)
-- costs this many steps of work; one of an expression written as Lua, 1
-- (the closures take about that much longer).
M.CLOSURE_COST = 8

-- Raised (as an error value) when an evaluation would pass the work limit.
M.Budget = setmetatable({}, { __tostring = function() return "molang work budget spent" end })

-- Names -------------------------------------------------------------------------------

local PREFIX = { q = "query", v = "variable", t = "temp", c = "context" }

-- "Q.Anim_Time" -> "query.anim_time"
function M.canonical(name)
  name = name:lower()
  local head, rest = name:match("^(%a)%.(.*)$")
  if head and PREFIX[head] then return PREFIX[head] .. "." .. rest end
  return name
end

-- Tokens ------------------------------------------------------------------------------

local space = (S " \t\r\n" ^ 1 + P "//" * (1 - S "\r\n") ^ 0) ^ 0
local digit = R "09"
local number = (digit ^ 1 * (P "." * digit ^ 0) ^ -1 + P "." * digit ^ 1) * (S "eE" * S "+-" ^ -1 * digit ^ 1) ^ -1
local word = R("az", "AZ", "__") * R("az", "AZ", "09", "__") ^ 0
local OPS = { "??", "||", "&&", "==", "!=", "<=", ">=", "->", "<", ">", "+", "-", "*", "/", "!", "?", ":",
  "(", ")", "{", "}", "[", "]", ",", ";", "=" }
local operator = P(OPS[1])
for i = 2, #OPS do operator = operator + P(OPS[i]) end

-- { pos, token, pos, token, ... } and where reading stopped.  A token is a
-- number (a float), { name = canonical name }, { str = text } or an
-- operator string.  The captures stay flat, however deep the expression.
local lexer = space * Ct((Cp() * (
  C(number) * S "fF" ^ -1 / function(x) return tonumber(x) + 0.0 end
  + C(word * (P "." * word) ^ 0) / function(n) return { name = M.canonical(n) } end
  + P "'" * C((1 - P "'") ^ 0) * P "'" / function(s) return { str = s } end
  + C(operator)) * space) ^ 0) * Cp()

-- Grammar -----------------------------------------------------------------------------
--
--   Program  = Stmt? (";" Stmt?)*
--   Stmt     = "return" Expr | "break" | "continue" | Name "=" Expr | Expr
--   Expr     = Ternary ("??" Ternary)*
--   Ternary  = Or ("?" Expr (":" Expr)?)?      `c ? a` is 0 when c is false
--   Or .. Mul  binary levels, left to right
--   Unary    = "-" Unary | "!" Unary | "+" Unary | Postfix
--   Postfix  = Primary ("->" Primary | "[" Expr "]")*
--   Primary  = number | string | "(" Expr ")" | "{" Program "}" | Name "(" Args? ")" | Name
--
-- A node is { op = "num", v } | { op = "str", v } | { op = "name", name } |
-- { op = "call", name, args } | { op = "neg" | "not", a } | { op = "bin", o, a, b } |
-- { op = "cond", c, a, b } | { op = "coal", a, b } | { op = "seq", list } |
-- { op = "set", name, a } | { op = "ret", a } | { op = "brk" } | { op = "cont" } |
-- { op = "loop", n, body } | { op = "other", what, list } (-> and [ ]: another
-- entity's value, arrays).

local LEVELS = {
  { ["||"] = true }, { ["&&"] = true }, { ["=="] = true, ["!="] = true },
  { ["<="] = true, [">="] = true, ["<"] = true, [">"] = true }, { ["+"] = true, ["-"] = true },
  { ["*"] = true, ["/"] = true },
}

local TooDeep = {}

local function read(toks)
  local i = 1
  local function tok() return toks[2 * i] end
  local function deeper(d)
    if d > M.MAX_DEPTH then error(TooDeep, 0) end
    return d + 1
  end
  local expr, program
  local function primary(d)
    local t = tok()
    if type(t) == "number" then
      i = i + 1
      return { op = "num", v = t }
    elseif t == "(" or t == "{" then
      local close = t == "(" and ")" or "}"
      local save = i
      i = i + 1
      local e
      if t == "(" then e = expr(deeper(d)) else e = program(deeper(d)) end
      if e and tok() == close then
        i = i + 1
        return e
      end
      i = save
      return nil
    elseif type(t) == "table" and t.str then
      i = i + 1
      return { op = "str", v = t.str }
    elseif type(t) == "table" then
      local n = t.name
      if n == "break" or n == "continue" then
        -- statements, also where an expression goes (`c ? break`)
        i = i + 1
        return { op = n == "break" and "brk" or "cont" }
      elseif n == "return" then
        local save = i
        i = i + 1
        local a = expr(deeper(d))
        if a then return { op = "ret", a = a } end
        i = save
        return nil
      end
      i = i + 1
      if tok() == "(" then
        local save = i
        i = i + 1
        local args = {}
        local a = expr(deeper(d))
        if a then
          args[1] = a
          while tok() == "," do
            local before = i
            i = i + 1
            a = expr(deeper(d))
            if not a then
              i = before
              break
            end
            args[#args + 1] = a
          end
        end
        if tok() == ")" then
          i = i + 1
          if n == "loop" and #args == 2 then return { op = "loop", n = args[1], body = args[2] } end
          return { op = "call", name = n, args = args }
        end
        i = save -- not a call: the name alone
      end
      return { op = "name", name = n }
    end
    return nil
  end
  local function postfix(d)
    local node = primary(d)
    while node do
      local t = tok()
      if t == "->" then
        local save = i
        i = i + 1
        local b = primary(deeper(d))
        if not b then i = save break end
        node = { op = "other", what = "'->' (a value of another entity)", list = { node, b } }
      elseif t == "[" then
        local save = i
        i = i + 1
        local b = expr(deeper(d))
        if not b or tok() ~= "]" then i = save break end
        i = i + 1
        node = { op = "other", what = "an array element", list = { node, b } }
      else
        break
      end
      d = deeper(d)
    end
    return node
  end
  local function unary(d)
    local t = tok()
    if t == "-" or t == "!" or t == "+" then
      local save = i
      i = i + 1
      local a = unary(deeper(d))
      if a then
        if t == "+" then return a end
        return { op = t == "-" and "neg" or "not", a = a }
      end
      i = save
      return nil
    end
    return postfix(d)
  end
  local function binary(level, d)
    if level > #LEVELS then return unary(d) end
    local node = binary(level + 1, d)
    if not node then return nil end
    local ops = LEVELS[level]
    while ops[tok()] do
      local save, o = i, tok()
      i = i + 1
      d = deeper(d) -- each link of a chain is a level of the tree
      local b = binary(level + 1, d)
      if not b then
        i = save
        break
      end
      node = { op = "bin", o = o, a = node, b = b }
    end
    return node
  end
  local function ternary(d)
    local c = binary(1, d)
    if not c or tok() ~= "?" then return c end
    local save = i
    i = i + 1
    local a = expr(deeper(d))
    if not a then
      i = save
      return c
    end
    local b = { op = "num", v = 0.0 }
    if tok() == ":" then
      local before = i
      i = i + 1
      local e = expr(deeper(d))
      if e then b = e else i = before end
    end
    return { op = "cond", c = c, a = a, b = b }
  end
  function expr(d)
    local node = ternary(d)
    while node and tok() == "??" do
      local save = i
      i = i + 1
      d = deeper(d)
      local b = ternary(d)
      if not b then
        i = save
        break
      end
      node = { op = "coal", a = node, b = b }
    end
    return node
  end
  local function statement(d)
    local t = tok()
    -- `-v.x = 1`: Blockbench's invertMolang puts a sign before a statement;
    -- molangjs still assigns (and the statement is worth -0)
    local nt = toks[2 * i + 2]
    if (t == "-" or t == "+") and type(nt) == "table" and nt.name and toks[2 * i + 4] == "=" then
      local save = i
      i = i + 1
      local st = statement(deeper(d))
      if st and st.op == "set" then return t == "-" and { op = "neg", a = st } or st end
      i = save
    end
    if type(t) == "table" and t.name and toks[2 * i + 2] == "=" then
      local save = i
      i = i + 2
      local a = expr(deeper(d))
      if a then return { op = "set", name = t.name, a = a } end
      i = save
    end
    return expr(d)
  end
  -- statements separated by ";" (empty ones allowed); one expression alone
  -- is itself, not a list
  function program(d)
    local list, any_semicolon = {}, false
    while true do
      local st = statement(d)
      if st then list[#list + 1] = st end
      if tok() ~= ";" then break end
      any_semicolon = true
      i = i + 1
      d = deeper(d)
    end
    if #list == 0 then return nil end
    if #list == 1 and not any_semicolon and list[1].op ~= "ret" and list[1].op ~= "set"
      and list[1].op ~= "brk" and list[1].op ~= "cont" then
      return list[1]
    end
    return { op = "seq", list = list }
  end
  local ast = program(1)
  return ast, i
end

-- Parses src; returns the tree, or nil and a message with the column where
-- reading stopped.
function M.parse(src)
  if type(src) ~= "string" then return nil, "a Molang expression must be a string" end
  local toks, stop = lexer:match(src)
  local ok, ast, used = pcall(read, toks)
  if not ok then
    if ast ~= TooDeep then error(ast, 0) end
    return nil, string.format("'%s': too deeply nested to import (more than %d levels of operators, calls and parentheses)",
      shown(src), M.MAX_DEPTH)
  end
  if ast == nil then
    if #toks == 0 and stop > #src then return nil, string.format("'%s': empty", shown(src)) end
    return nil, string.format("'%s': not an expression", shown(src))
  end
  local pos = toks[2 * used - 1] or stop -- the first token not used, or where the tokens end
  if pos <= #src then
    return nil, string.format("'%s': not an expression (stopped at column %d, '%s')",
      shown(src), pos, shown(src:sub(pos, pos + 9)))
  end
  return ast
end

-- Functions -----------------------------------------------------------------------------

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


-- Compiling ------------------------------------------------------------------------------
--
-- Every node becomes fn(t) -> value (a float, or a string where strings
-- go).  A node is marked `time` when its value depends on the time, and
-- `pure` when it neither reads nor writes anything the expression assigns
-- (a pure node without time is folded into its value).  `cost` is its
-- size, what one evaluation adds to the work counter (loops add theirs
-- when they run).

local function N(x) -- a value in a number's place: strings are 0
  if type(x) == "number" then return x end
  return 0.0
end
local function truth(x) return type(x) == "number" and x ~= 0 and x == x end

local BIN = {
  ["+"] = function(a, b) return N(a) + N(b) end,
  ["-"] = function(a, b) return N(a) - N(b) end,
  ["*"] = function(a, b) return N(a) * N(b) end,
  ["/"] = function(a, b) return N(a) / N(b) end,
  ["<"] = function(a, b) return N(a) < N(b) and 1.0 or 0.0 end,
  ["<="] = function(a, b) return N(a) <= N(b) and 1.0 or 0.0 end,
  [">"] = function(a, b) return N(a) > N(b) and 1.0 or 0.0 end,
  [">="] = function(a, b) return N(a) >= N(b) and 1.0 or 0.0 end,
  ["=="] = function(a, b) return a == b and 1.0 or 0.0 end,
  ["!="] = function(a, b) return a ~= b and 1.0 or 0.0 end,
}
-- the arithmetic ones with both sides known to be numbers
local NBIN = {
  ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end,
  ["/"] = function(a, b) return a / b end,
}

-- What the compiler carries: the slots (names the expression assigns), the
-- control state of statements, the notes, the env.
local function new_state(env)
  return { env = env, slots = {}, nslots = 0, notes = {}, noted = {}, flow = { } }
end

local function note(st, text)
  if text and not st.noted[text] then
    st.noted[text] = true
    st.notes[#st.notes + 1] = text
  end
end

-- The names a tree assigns, in order.
local function assigned(node, out)
  if node.op == "set" and not out[node.name] then
    out[node.name] = true
    out[#out + 1] = node.name
  end
  for _, k in ipairs { "a", "b", "c", "n", "body" } do
    if type(node[k]) == "table" then assigned(node[k], out) end
  end
  for _, k in ipairs { "args", "list" } do
    if node[k] then for _, x in ipairs(node[k]) do assigned(x, out) end end
  end
  return out
end

local build

local function numeric(node)
  -- can the node's value be a string?  (strings come from literals,
  -- stand-ins, slots and whatever passes them on)
  local op = node.op
  if op == "str" then return false end
  if op == "name" or op == "cond" or op == "coal" or op == "seq" or op == "set" then return node.isnum == true end
  return true
end

local function fold(node, fn)
  local v = fn(0)
  node.value = v
  node.fn = function() return v end
  node.cost = 1 -- one value, whatever it was made of
  return node
end

local function build_call(node, st)
  local name = node.name
  local fname = name:match("^math%.([%w_]+)$")
  local f, mean = fname and FUNCS[fname], fname and RANDOM[fname]
  local qf = QUERY_FUNCS[name]
  if not f and not mean and not qf then
    -- a query or other function the game answers: its stand-in value
    local r = resolve(name, st.env)
    if fname then
      r = { value = 0.0, note = string.format("unknown function '%s' read as 0 (as Blockbench reads it)", shown(name)) }
    end
    if r.time then
      node.fn = function(t) return t + 0.0 end -- a time name called as a function: Blockbench reads the name
      node.time, node.pure, node.cost, node.isnum = true, true, 1, true
      note(st, r.note)
      return node
    end
    note(st, r.note)
    local v = r.value
    node.fn = function() return v end
    node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, v, type(v) == "number"
    return node
  end
  local args = node.args
  local time, pure, cost = false, true, 1
  for _, a in ipairs(args) do
    build(a, st)
    time = time or a.time
    pure = pure and a.pure
    cost = cost + a.cost
  end
  node.cost, node.isnum = cost, true
  if qf then
    local fns = {}
    for k, a in ipairs(args) do fns[k] = a.fn end
    local n = #fns
    node.fn = function(t)
      local vals = {}
      for k = 1, n do vals[k] = fns[k](t) end
      if n == 0 then return 0.0 end
      return qf(compat.unpack(vals, 1, n))
    end
    node.time, node.pure = time, pure
    if not time and pure then fold(node, node.fn) end
    return node
  end
  local arity, fn = (f or mean)[1], (f or mean)[2]
  node.impl = { arity, fn }
  if mean then note(st, string.format("%s read as its mean (it is random)", name)) end
  if #args < arity then
    note(st, string.format("%s takes %d argument%s, got %d: the missing ones read as 0 (as Blockbench reads them)",
      name, arity, arity == 1 and "" or "s", #args))
  elseif #args > arity then
    note(st, string.format("%s takes %d argument%s, got %d: the others are ignored (as Blockbench does)",
      name, arity, arity == 1 and "" or "s", #args))
  end
  local zero = function() return 0.0 end
  local g1 = args[1] and args[1].fn or zero
  local g2 = args[2] and args[2].fn or zero
  local g3 = args[3] and args[3].fn or zero
  if arity == 1 then
    node.fn = function(t) return fn(N(g1(t))) end
  elseif arity == 2 then
    node.fn = function(t) return fn(N(g1(t)), N(g2(t))) end
  else
    node.fn = function(t) return fn(N(g1(t)), N(g2(t)), N(g3(t))) end
  end
  node.time, node.pure = time, pure
  if not time and pure then fold(node, node.fn) end
  return node
end

function build(node, st)
  local op = node.op
  if op == "num" or op == "str" then
    local v = node.v
    node.fn = function() return v end
    node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, v, op == "num"
  elseif op == "name" then
    local n = node.name
    local slot = st.slots[n]
    if slot then
      local cell = st.cells
      node.fn = function() return cell[slot] end
      node.time, node.pure, node.cost = st.slot_time, false, 1
    else
      local r = resolve(n, st.env)
      note(st, r.note)
      if r.fn then
        node.fn, node.ext = r.fn, r.fn
        node.time, node.pure, node.cost, node.isnum = true, true, 1, true
      elseif r.time then
        local step = r.step
        if step then
          node.fn = function(t) return math.floor(t * step) / step end
        else
          node.fn = function(t) return t + 0.0 end
        end
        node.time, node.pure, node.cost, node.isnum = true, true, 1, true
        node.step = step
      else
        local v = r.value
        node.fn = function() return v end
        node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, v, type(v) == "number"
      end
    end
  elseif op == "call" then
    return build_call(node, st)
  elseif op == "neg" or op == "not" then
    build(node.a, st)
    local g = node.a.fn
    if op == "neg" then
      node.fn = function(t) return -N(g(t)) end
    else
      node.fn = function(t) return N(g(t)) == 0 and 1.0 or 0.0 end -- molangjs: `a == 0 ? 1 : 0` (!NaN is 0)
    end
    node.time, node.pure, node.cost, node.isnum = node.a.time, node.a.pure, node.a.cost + 1, true
  elseif op == "bin" then
    local o = node.o
    build(node.a, st)
    build(node.b, st)
    local ga, gb = node.a.fn, node.b.fn
    if o == "&&" then
      node.fn = function(t) return (truth(ga(t)) and truth(gb(t))) and 1.0 or 0.0 end
    elseif o == "||" then
      node.fn = function(t) return (truth(ga(t)) or truth(gb(t))) and 1.0 or 0.0 end
    else
      local f = (NBIN[o] and numeric(node.a) and numeric(node.b)) and NBIN[o] or BIN[o]
      node.fn = function(t) return f(ga(t), gb(t)) end
    end
    node.time = node.a.time or node.b.time
    node.pure = node.a.pure and node.b.pure
    node.cost, node.isnum = node.a.cost + node.b.cost + 1, true
  elseif op == "cond" then
    build(node.c, st)
    build(node.a, st)
    build(node.b, st)
    local gc, ga, gb = node.c.fn, node.a.fn, node.b.fn
    node.fn = function(t)
      if truth(gc(t)) then return ga(t) end
      return gb(t)
    end
    node.time = node.c.time or node.a.time or node.b.time
    node.pure = node.c.pure and node.a.pure and node.b.pure
    node.cost = node.c.cost + math.max(node.a.cost, node.b.cost) + 1
    node.isnum = numeric(node.a) and numeric(node.b)
  elseif op == "coal" then
    -- a ?? b: b when a reads a name nothing gives a value (molangjs: an
    -- unassigned variable met while evaluating a); names given by the
    -- game, the placeholders or an assignment keep theirs
    build(node.b, st)
    local a = node.a
    local missing = false
    local function unknown_in(x)
      if x.op == "name" and not st.slots[x.name] then
        if resolve(x.name, st.env).unknown then missing = true end
      end
      for _, k in ipairs { "a", "b", "c" } do
        if type(x[k]) == "table" then unknown_in(x[k]) end
      end
      for _, arg in ipairs(x.args or {}) do unknown_in(arg) end
    end
    unknown_in(a)
    if missing then
      node.fn, node.time, node.pure, node.cost, node.isnum = node.b.fn, node.b.time, node.b.pure, node.b.cost + 1,
        numeric(node.b)
      node.value = node.b.value
      return node
    end
    build(a, st)
    node.fn, node.time, node.pure, node.cost, node.isnum = a.fn, a.time, a.pure, a.cost + 1, numeric(a)
    node.value = a.value
    return node
  elseif op == "set" then
    build(node.a, st)
    local g, slot, cell = node.a.fn, st.slots[node.name], st.cells
    node.fn = function(t)
      cell[slot] = g(t)
      return 0.0
    end
    node.time, node.pure, node.cost, node.isnum = node.a.time, false, node.a.cost + 1, true
    return node
  elseif op == "ret" then
    build(node.a, st)
    local g, flow = node.a.fn, st.flow
    node.fn = function(t)
      local v = g(t)
      flow.state, flow.value = "return", v
      return v
    end
    node.time, node.pure, node.cost, node.isnum = node.a.time, false, node.a.cost + 1, numeric(node.a)
    return node
  elseif op == "brk" or op == "cont" then
    local flow, what = st.flow, op == "brk" and "break" or "continue"
    node.fn = function()
      flow.state = what
      return 0.0
    end
    node.time, node.pure, node.cost, node.isnum = false, false, 1, true
    return node
  elseif op == "seq" then
    local fns, time, cost, isnum = {}, false, 1, true
    for k, s in ipairs(node.list) do
      build(s, st)
      fns[k] = s.fn
      time = time or s.time
      cost = cost + s.cost
      isnum = isnum and numeric(s)
    end
    local n, flow = #fns, st.flow
    node.fn = function(t)
      local v = 0.0
      for k = 1, n do
        v = fns[k](t)
        if flow.state then
          if flow.state == "return" then return flow.value end
          return 0.0 -- break / continue: out of this scope
        end
      end
      return v
    end
    node.time, node.pure, node.cost, node.isnum = time, false, cost, isnum
    return node
  elseif op == "loop" then
    build(node.n, st)
    build(node.body, st)
    local gn, gb, flow, work = node.n.fn, node.body.fn, st.flow, st.env.work
    local body_cost = node.body.cost * M.CLOSURE_COST
    node.fn = function(t)
      local n = math.ceil(clamp(N(gn(t)), 0, M.MAX_LOOP))
      if work then
        work.used = work.used + n * body_cost
        if work.used > work.limit then error(M.Budget, 0) end
      end
      local v = 0.0
      for _ = 1, n do
        local r = gb(t)
        local s = flow.state
        if s == "break" then flow.state = nil break end
        if s == "continue" then flow.state = nil
        elseif s == "return" then return flow.value
        else v = r end
      end
      return v
    end
    node.time = node.n.time or node.body.time
    node.pure, node.cost, node.isnum = false, node.n.cost + 1, true
    return node
  else -- other: -> and [ ]
    note(st, string.format("%s read as 0", node.what))
    node.fn = function() return 0.0 end
    node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, 0.0, true
  end
  if not node.time and node.pure then fold(node, node.fn) end
  return node
end

-- Lua code ---------------------------------------------------------------------------
--
-- A pure expression of time made only of numbers (the common case: no
-- statements, no strings) is also written as one Lua function and loaded:
-- about eight times as fast as the closures above, with the same rules.
-- Anything else, or a tree deeper than GEN_DEPTH (Lua's own parser nests
-- only so far), keeps the closures.

local GEN_DEPTH = 60

local function lit(v)
  if v ~= v then return "(0/0)" end
  if v == math.huge then return "(1/0)" end
  if v == -math.huge then return "(-1/0)" end
  local s = string.format("%.17g", v)
  if not s:find("[.eEn]") then s = s .. ".0" end
  return "(" .. s .. ")"
end

local GEN_CMP = { ["<"] = "<", ["<="] = "<=", [">"] = ">", [">="] = ">=", ["=="] = "==", ["!="] = "~=" }
local GEN_ARITH = { ["+"] = true, ["-"] = true, ["*"] = true, ["/"] = true }
-- the functions written out (the same as FUNCS': degrees in and out)
local GEN_DIRECT = {
  ["math.sin"] = "sin(%s*rad)", ["math.cos"] = "cos(%s*rad)", ["math.abs"] = "abs(%s)", ["math.sqrt"] = "sqrt(%s)",
  ["math.exp"] = "exp(%s)", ["math.ln"] = "log(%s)",
}

-- The local the generated code calls function f by ("f3").
local function fn_id(fns, f)
  local id = fns[f]
  if not id then
    fns[#fns + 1] = f
    id = "f" .. #fns
    fns[f] = id
  end
  return id
end

-- Lua source for node, or nil; `fns` collects the functions it calls.
local function gen(node, fns, d)
  if d > GEN_DEPTH then return nil end
  if node.value ~= nil then
    if type(node.value) ~= "number" then return nil end
    return lit(node.value)
  end
  local op = node.op
  if op == "name" then
    if not node.time then return nil end
    if node.step then return "(fl(t*" .. lit(node.step) .. ")/" .. lit(node.step) .. ")" end
    if node.ext then return fn_id(fns, node.ext) .. "(t)" end
    return "t"
  elseif op == "neg" then
    local a = gen(node.a, fns, d + 1)
    return a and ("(-" .. a .. ")")
  elseif op == "not" then
    local a = gen(node.a, fns, d + 1)
    return a and ("((" .. a .. ")==0 and 1.0 or 0.0)")
  elseif op == "bin" then
    local a, b = gen(node.a, fns, d + 1), gen(node.b, fns, d + 1)
    if not a or not b then return nil end
    local o = node.o
    if GEN_ARITH[o] then return "(" .. a .. o .. b .. ")" end
    if GEN_CMP[o] then return "((" .. a .. GEN_CMP[o] .. b .. ") and 1.0 or 0.0)" end
    if o == "&&" then return "((T(" .. a .. ") and T(" .. b .. ")) and 1.0 or 0.0)" end
    return "((T(" .. a .. ") or T(" .. b .. ")) and 1.0 or 0.0)"
  elseif op == "cond" then
    local c, a, b = gen(node.c, fns, d + 1), gen(node.a, fns, d + 1), gen(node.b, fns, d + 1)
    if not c or not a or not b then return nil end
    return "(T(" .. c .. ") and " .. a .. " or " .. b .. ")"
  elseif op == "coal" then
    return node.b and node.fn == node.b.fn and gen(node.b, fns, d + 1) or gen(node.a, fns, d + 1)
  elseif op == "call" then
    if not node.impl then return nil end
    local direct = GEN_DIRECT[node.name]
    if direct and #node.args >= 1 then
      local a = gen(node.args[1], fns, d + 1)
      return a and string.format(direct, a)
    end
    local args = {}
    for k = 1, node.impl[1] do
      local a = node.args[k]
      args[k] = a and gen(a, fns, d + 1) or "0.0"
      if not args[k] then return nil end
    end
    return fn_id(fns, node.impl[2]) .. "(" .. table.concat(args, ",") .. ")"
  end
  return nil
end

-- (the chunk runs in an empty environment: what it calls comes in as
-- arguments, error too, which the work budget raises with)
local LOADER_HEAD = "local fl, T, F, W, C, B, M, error = ...\n"
  .. "local sin, cos, abs, sqrt, exp, log, rad = M.sin, M.cos, M.abs, M.sqrt, M.exp, M.log, M.pi / 180\n"
local COUNT = "local u = W.used + C W.used = u if u > W.limit then error(B, 0) end "

-- fn(t) for the tree, or nil when it cannot be written as Lua; it adds
-- `cost` to work (when given) at each call.
local function generate(ast, work, cost)
  local fns = {}
  local code = gen(ast, fns, 1)
  if not code then return nil end
  local locals = {}
  for k = 1, #fns do locals[k] = "local f" .. k .. " = F[" .. k .. "]" end
  local chunk = LOADER_HEAD .. table.concat(locals, "\n") .. "\nreturn function(t) " .. (work and COUNT or "")
    .. "t = t + 0.0 return " .. code .. " end"
  local loader = compat.load(chunk, "=molang", "t", {})
  if not loader then return nil end
  return loader(floor, truth, fns, work, cost, M.Budget, math, error)
end

-- Periods ------------------------------------------------------------------------------

-- a, b when the node is a·t + b, else nil.
local function affine(node)
  if not node.time then
    if type(node.value) ~= "number" then return nil end
    return 0, node.value
  end
  local op = node.op
  if op == "name" then
    if node.step or node.ext then return nil end
    return 1, 0
  end
  if op == "neg" then
    local a, b = affine(node.a)
    if a then return -a, -b end
    return nil
  end
  if op == "bin" then
    local o = node.o
    local a1, b1 = affine(node.a)
    local a2, b2 = affine(node.b)
    if not a1 or not a2 then return nil end
    if o == "+" then return a1 + a2, b1 + b2 end
    if o == "-" then return a1 - a2, b1 - b2 end
    if o == "*" then
      if a1 == 0 then return b1 * a2, b1 * b2 end
      if a2 == 0 then return a1 * b2, b1 * b2 end
      return nil
    end
    if o == "/" and a2 == 0 and b2 ~= 0 then return a1 / b2, b1 / b2 end
  end
  return nil
end

-- Adds the periods of node's sin/cos terms to `out`; false when time
-- appears where no period is known (the expression does not repeat).
local function periods(node, out)
  if not node.time then return true end
  local op = node.op
  if op == "call" and (node.name == "math.sin" or node.name == "math.cos") and node.args[1] then
    local a = affine(node.args[1])
    if a and a ~= 0 then
      out[#out + 1] = 360 / math.abs(a)
      return true
    end
  end
  if op == "name" or op == "seq" or op == "loop" or op == "set" or op == "ret" then return false end
  for _, k in ipairs { "a", "b", "c" } do
    if node[k] and not periods(node[k], out) then return false end
  end
  if node.args then
    for _, a in ipairs(node.args) do
      if not periods(a, out) then return false end
    end
  end
  return true
end

-- The smallest span of at most `max` seconds (10 by default) that is a
-- whole number of every period, or nil.
function M.common_period(list, max)
  max = max or 10
  local pmax = 0
  for _, p in ipairs(list) do pmax = math.max(pmax, p) end
  if pmax <= 0 then return nil end
  -- at most M.MAX_CANDIDATES spans are tried: periods far shorter than
  -- `max` (sin of a huge multiple of time) must not make this loop for ever
  for k = 1, math.min(math.floor(max / pmax + 1e-9), M.MAX_CANDIDATES) do
    local span = k * pmax
    local ok = true
    for _, p in ipairs(list) do
      local r = span / p
      if math.abs(r - round(r)) > 1e-9 * math.max(1, r) then ok = false break end
    end
    if ok then return span end
  end
  return nil
end

-- Compiles src; returns the expr, or nil and why it cannot be imported.
-- env (optional): { values = { [canonical name] = number or string } (the
-- game's), placeholders = { ... } (the file's), work = { used, limit } }.
function M.compile(src, env)
  env = env or {}
  local ast, err = M.parse(src)
  if not ast then return nil, err end
  local st = new_state(env)
  local names = assigned(ast, {})
  st.cells, st.init = {}, {}
  for k, n in ipairs(names) do
    st.slots[n] = k
    local r = resolve(n, env)
    st.init[k] = r.time and 0.0 or r.value
  end
  st.slot_time = false
  -- a slot is time-dependent when anything assigned to it may be: found
  -- by building twice (the first build tells whether any assignment reads
  -- time; slots start as constants)
  local ok, e = pcall(build, ast, st)
  if ok and #names > 0 then
    local any_time = false
    local function scan(node)
      if node.op == "set" and node.a.time then any_time = true end
      for _, k in ipairs { "a", "b", "c", "n", "body" } do
        if type(node[k]) == "table" then scan(node[k]) end
      end
      for _, k in ipairs { "args", "list" } do
        if node[k] then for _, x in ipairs(node[k]) do scan(x) end end
      end
    end
    scan(ast)
    if any_time then
      st.slot_time = true
      ast = M.parse(src)
      st.notes, st.noted = {}, {}
      ok, e = pcall(build, ast, st)
    end
  end
  if not ok then
    if e == M.Budget then error(e, 0) end
    return nil, string.format("'%s': cannot be evaluated (%s)", shown(src), shown(e))
  end
  local body, cells, init, nslot, flow = ast.fn, st.cells, st.init, #names, st.flow
  local cost = ast.cost * M.CLOSURE_COST
  local work = env.work
  local function run(t)
    if work then
      local u = work.used + cost
      work.used = u
      if u > work.limit then error(M.Budget, 0) end
    end
    for k = 1, nslot do cells[k] = init[k] end
    flow.state = nil
    local v = body(t)
    flow.state = nil
    return N(v), v
  end
  local expr = { src = src, notes = st.notes }
  if not ast.time then
    -- no time anywhere: one evaluation (loops and all, within the budget)
    local v, raw = run(0)
    expr.const = v
    expr.string = type(raw) == "string" and raw or nil
    expr.fn = function() return v end
  else
    expr.time = true
    local gen_fn = nslot == 0 and ast.pure and ast.isnum ~= false and generate(ast, work, ast.cost)
    if gen_fn then
      -- the common case: a pure expression of time, written as Lua
      cost = ast.cost
      expr.fn = gen_fn
    elseif nslot == 0 and ast.pure then
      -- a pure expression of time, evaluated by its closures
      expr.fn = function(t)
        if work then
          local u = work.used + cost
          work.used = u
          if u > work.limit then error(M.Budget, 0) end
        end
        return N(body(t))
      end
    else
      expr.fn = function(t) return (run(t)) end
    end
    expr.cost = cost
    local list = {}
    expr.periods = periods(ast, list) and list or false
  end
  return expr
end

function M.eval(src, t, env)
  local e, err = M.compile(src, env)
  if not e then return nil, err end
  return e.fn(t or 0)
end

return M
