-- molang.lua: the part of Molang (Minecraft's expression language) that an
-- animation file can use and an importer can turn into keys.
--
--   molang.parse(src)    -> ast | nil, message     (syntax only)
--   molang.compile(src)  -> expr | nil, message
--   molang.eval(src, t)  -> number | nil, message  (a convenience for tests)
--   molang.common_period(periods [, max]) -> seconds | nil
--
-- An expr is { src, const, fn, time, periods }: `const` is the value when
-- the expression does not depend on time (numbers and constant
-- expressions are evaluated at import); otherwise `fn(t)` evaluates it at
-- animation time t (query.anim_time) and `periods` lists the periods of
-- its sin/cos terms, or is false when time also appears outside them (the
-- expression does not repeat).  Anything else -- variables, other queries,
-- `this`, random functions, statements -- is refused with a message that
-- names it, because its value is only known while a game runs.
--
-- Molang is case-insensitive (GeckoLib files write `Math.cos`); angles of
-- math.sin/cos and the results of the inverse functions are in degrees.
-- The tokens are read with LPeg (Debian's lua-lpeg), the grammar by
-- recursive descent with PEG's choices (an operator whose operand does not
-- follow is left unread, and reading stops there).
--
-- Every Molang number is a float, as in the game (a JavaScript number in
-- Blockbench): literals, comparisons and every function's result, so that
-- math.mod(5, 0) is nan and 3000000000 * 4000000000 is 1.2e19, never a
-- Lua integer error or a wrapped product.  Nothing an expression holds can
-- raise a Lua error: what cannot be evaluated is a number (nan or inf,
-- which the importers refuse) or a refusal `nil, message` -- also for an
-- expression nested more than M.MAX_DEPTH levels deep.
local lpeg = require "lpeg"

local M = {}

local P, R, S, C, Ct, Cp = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Ct, lpeg.Cp

-- The deepest expression read: every operator, sign, call, conditional and
-- pair of parentheses is a level (a chain a + b + c is two), counted from
-- the outside in.  Deeper ones are refused before anything recurses that
-- far (the parser, the compiler, the evaluation).
M.MAX_DEPTH = 200

-- common_period tries at most this many multiples of the longest period.
M.MAX_CANDIDATES = 10000

-- Tokens ---------------------------------------------------------------------------

local space = S " \t\r\n" ^ 0
local digit = R "09"
local number = (digit ^ 1 * (P "." * digit ^ 0) ^ -1 + P "." * digit ^ 1) * (S "eE" * S "+-" ^ -1 * digit ^ 1) ^ -1
local word = R("az", "AZ", "__") * R("az", "AZ", "09", "__") ^ 0
local OPS = { "||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "!", "?", ":", "(", ")", "," }
local operator = P(OPS[1])
for i = 2, #OPS do operator = operator + P(OPS[i]) end

-- { pos, token, pos, token, ... } and where reading stopped: a token is a
-- number (a float), { name = lower-case name } or an operator string.  The
-- captures stay flat, however deep the expression.
local lexer = space * Ct((Cp() * (
  number / function(x) return tonumber(x) + 0.0 end
  + C(word * (P "." * word) ^ 0) / function(n) return { name = n:lower() } end
  + C(operator)) * space) ^ 0) * Cp()

-- Grammar ---------------------------------------------------------------------------
--
--   Expr    = Or ("?" Expr (":" Expr)?)?       Molang's `c ? a` is 0 when c is false
--   Or      = And ("||" And)*                  (left to right, each level below)
--   And     = Eq ("&&" Eq)*
--   Eq      = Cmp (("==" | "!=") Cmp)*
--   Cmp     = Add (("<=" | ">=" | "<" | ">") Add)*
--   Add     = Mul (("+" | "-") Mul)*
--   Mul     = Unary (("*" | "/") Unary)*
--   Unary   = "-" Unary | "!" Unary | "+" Unary | Primary
--   Primary = number | "(" Expr ")" | name "(" (Expr ("," Expr)*)? ")" | name

local LEVELS = {
  { ["||"] = true }, { ["&&"] = true }, { ["=="] = true, ["!="] = true },
  { ["<="] = true, [">="] = true, ["<"] = true, [">"] = true }, { ["+"] = true, ["-"] = true },
  { ["*"] = true, ["/"] = true },
}

local TooDeep = {}

-- The tree of the tokens from the first; and the index of the first token
-- it does not use.  A node is { op = "num", v } | { op = "name", name } |
-- { op = "call", name, args } | { op = "neg" | "not", a } |
-- { op = "bin", o, a, b } | { op = "cond", c, a, b }.
local function read(toks)
  local i = 1
  local function tok() return toks[2 * i] end
  local function deeper(d)
    if d > M.MAX_DEPTH then error(TooDeep, 0) end
    return d + 1
  end
  local expr
  local function primary(d)
    local t = tok()
    if type(t) == "number" then
      i = i + 1
      return { op = "num", v = t }
    elseif t == "(" then
      local save = i
      i = i + 1
      local e = expr(deeper(d))
      if e and tok() == ")" then
        i = i + 1
        return e
      end
      i = save
      return nil
    elseif type(t) == "table" then
      i = i + 1
      if tok() == "(" then
        local save = i
        i = i + 1
        local args, ok = {}, true
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
        else
          ok = false
        end
        if ok then return { op = "call", name = t.name, args = args } end
        i = save -- not a call: the name alone
      end
      return { op = "name", name = t.name }
    end
    return nil
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
    return primary(d)
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
  function expr(d)
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
  local ast = expr(1)
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
      src, M.MAX_DEPTH)
  end
  if ast == nil then
    return nil, string.format("'%s': not an expression", src)
  end
  local pos = toks[2 * used - 1] or stop -- the first token not used, or where the tokens end
  if pos <= #src then
    return nil, string.format("'%s': not an expression (stopped at column %d, '%s')",
      src, pos, src:sub(pos, pos + 9))
  end
  return ast
end

-- Names and functions ------------------------------------------------------------------

local rad, deg = math.pi / 180, 180 / math.pi

-- Lua's floor and ceil give an integer when the result fits one: back to
-- a float, so that no integer ever enters the arithmetic.
local function floor(x) return math.floor(x) + 0.0 end
local function ceil(x) return math.ceil(x) + 0.0 end
local function round(x) return floor(x + 0.5) end -- as JavaScript's Math.round
local function trunc(x) return x >= 0 and floor(x) or ceil(x) end

-- math.<name> = { arity, function }.  Degrees in and out, as Molang.  The
-- arguments are floats, and so is every result (math.fmod of floats is C's
-- fmod: nan for a zero divisor, where the integer version raises).
local FUNCS = {
  abs = { 1, math.abs },
  acos = { 1, function(x) return math.acos(x) * deg end },
  asin = { 1, function(x) return math.asin(x) * deg end },
  atan = { 1, function(x) return math.atan(x) * deg end },
  atan2 = { 2, function(y, x) return math.atan(y, x) * deg end },
  ceil = { 1, ceil },
  clamp = { 3, function(v, lo, hi) return math.min(math.max(v, lo), hi) end },
  cos = { 1, function(x) return math.cos(x * rad) end },
  exp = { 1, math.exp },
  floor = { 1, floor },
  hermite_blend = { 1, function(x) return 3 * x * x - 2 * x * x * x end },
  lerp = { 3, function(a, b, f) return a + (b - a) * f end },
  lerprotate = { 3, function(a, b, f)
    -- the shortest way round from a to b, in degrees
    local d = (b - a) % 360
    if d > 180 then d = d - 360 end
    return a + d * f
  end },
  ln = { 1, math.log },
  max = { 2, math.max },
  min = { 2, math.min },
  min_angle = { 1, function(x)
    local a = x % 360
    if a >= 180 then a = a - 360 end
    return a
  end },
  mod = { 2, math.fmod }, -- sign of the dividend, as JavaScript's %
  pow = { 2, function(a, b) return a ^ b end },
  round = { 1, round },
  sin = { 1, function(x) return math.sin(x * rad) end },
  sqrt = { 1, math.sqrt },
  trunc = { 1, trunc },
}
M.FUNCTIONS = FUNCS

local RANDOM = { random = true, random_integer = true, die_roll = true, die_roll_integer = true }
local TIME = { ["query.anim_time"] = true, ["q.anim_time"] = true }
local CONSTS = { ["math.pi"] = math.pi }

local ONLY = "only numbers, query.anim_time and math functions can be imported"

-- Why a name cannot be imported, for the message.
local function refuse_name(n)
  local head = n:match("^([^.]+)%.")
  if head == "variable" or head == "v" then return string.format("variable '%s'", n) end
  if head == "temp" or head == "t" then return string.format("temporary variable '%s'", n) end
  if head == "context" or head == "c" then return string.format("context variable '%s'", n) end
  if head == "query" or head == "q" then return string.format("query '%s'", n) end
  if n == "this" then return "'this' (the channel's previous value)" end
  if head == "math" then return string.format("unknown math name '%s'", n) end
  return string.format("unknown name '%s'", n)
end

-- Compiling -----------------------------------------------------------------------------

local function truth(x) return x ~= 0 end
local BIN = {
  ["+"] = function(a, b) return a + b end,
  ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end,
  ["/"] = function(a, b) return a / b end,
  ["<"] = function(a, b) return a < b and 1.0 or 0.0 end,
  ["<="] = function(a, b) return a <= b and 1.0 or 0.0 end,
  [">"] = function(a, b) return a > b and 1.0 or 0.0 end,
  [">="] = function(a, b) return a >= b and 1.0 or 0.0 end,
  ["=="] = function(a, b) return a == b and 1.0 or 0.0 end,
  ["!="] = function(a, b) return a ~= b and 1.0 or 0.0 end,
  ["&&"] = function(a, b) return (truth(a) and truth(b)) and 1.0 or 0.0 end,
  ["||"] = function(a, b) return (truth(a) or truth(b)) and 1.0 or 0.0 end,
}

local Refusal = {}

local function refuse(fmt, ...)
  error(setmetatable({ msg = string.format(fmt, ...) }, Refusal), 0)
end

-- Checks names and arities; marks each node with `time` (depends on
-- query.anim_time) and gives it `fn`, a closure of t.  Constant subtrees
-- are folded into one number.
local function build(node)
  local op = node.op
  if op == "num" then
    local v = node.v
    node.fn = function() return v end
    node.time = false
  elseif op == "name" then
    local n = node.name
    if TIME[n] then
      node.fn = function(t) return t + 0.0 end
      node.time = true
    elseif CONSTS[n] then
      local v = CONSTS[n]
      node.fn = function() return v end
      node.time = false
    else
      refuse("%s", refuse_name(n))
    end
  elseif op == "call" then
    local fname = node.name:match("^math%.([%w_]+)$")
    if fname and RANDOM[fname] then
      refuse("'%s' is random: it has no single value to import", node.name)
    end
    local f = fname and FUNCS[fname]
    if not f then
      if TIME[node.name] or CONSTS[node.name] then refuse("'%s' is not a function", node.name) end
      refuse("%s", fname and string.format("unknown math function '%s'", node.name) or refuse_name(node.name))
    end
    if #node.args ~= f[1] then
      refuse("%s takes %d argument%s, got %d", node.name, f[1], f[1] == 1 and "" or "s", #node.args)
    end
    local fn, time = f[2], false
    for _, a in ipairs(node.args) do
      build(a)
      time = time or a.time
    end
    local a1, a2, a3 = node.args[1], node.args[2], node.args[3]
    if f[1] == 1 then
      local g1 = a1.fn
      node.fn = function(t) return fn(g1(t)) end
    elseif f[1] == 2 then
      local g1, g2 = a1.fn, a2.fn
      node.fn = function(t) return fn(g1(t), g2(t)) end
    else
      local g1, g2, g3 = a1.fn, a2.fn, a3.fn
      node.fn = function(t) return fn(g1(t), g2(t), g3(t)) end
    end
    node.time = time
  elseif op == "neg" or op == "not" then
    build(node.a)
    local g = node.a.fn
    node.fn = op == "neg" and function(t) return -g(t) end
      or function(t) return g(t) == 0 and 1.0 or 0.0 end
    node.time = node.a.time
  elseif op == "bin" then
    build(node.a)
    build(node.b)
    local f, ga, gb = BIN[node.o], node.a.fn, node.b.fn
    node.fn = function(t) return f(ga(t), gb(t)) end
    node.time = node.a.time or node.b.time
  else -- cond
    build(node.c)
    build(node.a)
    build(node.b)
    local gc, ga, gb = node.c.fn, node.a.fn, node.b.fn
    node.fn = function(t)
      if gc(t) ~= 0 then return ga(t) end
      return gb(t)
    end
    node.time = node.c.time or node.a.time or node.b.time
  end
  if not node.time then
    -- fold: evaluate once (any t will do, nothing reads it)
    local v = node.fn(0)
    node.value = v
    node.fn = function() return v end
  end
  return node
end

-- Periods ------------------------------------------------------------------------------

-- a, b when the node is a·t + b, else nil.
local function affine(node)
  if not node.time then return 0, node.value end
  local op = node.op
  if op == "name" then return 1, 0 end
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
  if node.op == "call" and (node.name == "math.sin" or node.name == "math.cos") then
    local a = affine(node.args[1])
    if a then
      out[#out + 1] = 360 / math.abs(a) -- a ~= 0: the argument depends on time
      return true
    end
  end
  if node.op == "name" then return false end
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
function M.compile(src)
  local ast, err = M.parse(src)
  if not ast then return nil, err end
  local ok, e = pcall(build, ast)
  if not ok then
    if getmetatable(e) == Refusal then
      return nil, string.format("'%s': %s (%s)", src, e.msg, ONLY)
    end
    -- nothing in a tree of at most MAX_DEPTH levels of floats raises; should
    -- something still, it is this expression's refusal, not a crash
    return nil, string.format("'%s': cannot be evaluated (%s)", src, tostring(e))
  end
  local expr = { src = src, time = ast.time, fn = ast.fn }
  if not ast.time then
    expr.const = ast.value
  else
    local list = {}
    expr.periods = periods(ast, list) and list or false
  end
  return expr
end

function M.eval(src, t)
  local e, err = M.compile(src)
  if not e then return nil, err end
  return e.fn(t or 0)
end

return M
