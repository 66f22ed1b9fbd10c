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
-- The grammar is written with LPeg (Debian's lua-lpeg).
local lpeg = require "lpeg"

local M = {}

local P, R, S, V, C, Ct, Cp = lpeg.P, lpeg.R, lpeg.S, lpeg.V, lpeg.C, lpeg.Ct, lpeg.Cp

-- Grammar ------------------------------------------------------------------------

local space = S " \t\r\n" ^ 0
local function tok(p) return p * space end

local digit = R "09"
local number = tok((digit ^ 1 * (P "." * digit ^ 0) ^ -1 + P "." * digit ^ 1)
  * (S "eE" * S "+-" ^ -1 * digit ^ 1) ^ -1 / function(s) return { op = "num", v = tonumber(s) } end)
local word = R("az", "AZ", "__") * R("az", "AZ", "09", "__") ^ 0
local name = tok(C(word * (P "." * word) ^ 0)) / string.lower

-- Left-associative chains: { a, op, b, op, c } -> ((a op b) op c).
local function chain(list)
  local node = list[1]
  for i = 2, #list, 2 do node = { op = "bin", o = list[i], a = node, b = list[i + 1] } end
  return node
end
local function ops(...)
  local p
  for _, o in ipairs { ... } do
    p = p and (p + P(o)) or P(o)
  end
  return tok(C(p))
end

local grammar = P {
  "Expr",
  Expr = V "Cond",
  -- `c ? a : b`, and Molang's binary conditional `c ? a` (0 when c is false)
  Cond = (V "Or" * (tok "?" * V "Cond" * (tok ":" * V "Cond") ^ -1) ^ -1)
    / function(c, a, b)
      if a == nil then return c end
      return { op = "cond", c = c, a = a, b = b or { op = "num", v = 0 } }
    end,
  Or = Ct(V "And" * (ops "||" * V "And") ^ 0) / chain,
  And = Ct(V "Eq" * (ops "&&" * V "Eq") ^ 0) / chain,
  Eq = Ct(V "Cmp" * (ops("==", "!=") * V "Cmp") ^ 0) / chain,
  Cmp = Ct(V "Add" * (ops("<=", ">=", "<", ">") * V "Add") ^ 0) / chain,
  Add = Ct(V "Mul" * (ops("+", "-") * V "Mul") ^ 0) / chain,
  Mul = Ct(V "Unary" * (ops("*", "/") * V "Unary") ^ 0) / chain,
  Unary = tok "-" * V "Unary" / function(a) return { op = "neg", a = a } end
    + tok "!" * V "Unary" / function(a) return { op = "not", a = a } end
    + tok "+" * V "Unary"
    + V "Primary",
  Primary = number
    + tok "(" * V "Expr" * tok ")"
    + name * tok "(" * Ct((V "Expr" * (tok "," * V "Expr") ^ 0) ^ -1) * tok ")"
      / function(n, args) return { op = "call", name = n, args = args } end
    + name / function(n) return { op = "name", name = n } end,
}

local whole = space * grammar * Cp()

-- Parses src; returns the tree, or nil and a message with the column where
-- reading stopped.
function M.parse(src)
  if type(src) ~= "string" then return nil, "a Molang expression must be a string" end
  local ast, pos = whole:match(src)
  if ast == nil then
    return nil, string.format("'%s': not an expression", src)
  end
  if pos <= #src then
    return nil, string.format("'%s': not an expression (stopped at column %d, '%s')",
      src, pos, src:sub(pos, pos + 9))
  end
  return ast
end

-- Names and functions ------------------------------------------------------------------

local rad, deg = math.pi / 180, 180 / math.pi

local function round(x) return math.floor(x + 0.5) end -- as JavaScript's Math.round
local function trunc(x) return x >= 0 and math.floor(x) or math.ceil(x) end

-- math.<name> = { arity, function }.  Degrees in and out, as Molang.
local FUNCS = {
  abs = { 1, math.abs },
  acos = { 1, function(x) return math.acos(x) * deg end },
  asin = { 1, function(x) return math.asin(x) * deg end },
  atan = { 1, function(x) return math.atan(x) * deg end },
  atan2 = { 2, function(y, x) return math.atan(y, x) * deg end },
  ceil = { 1, math.ceil },
  clamp = { 3, function(v, lo, hi) return math.min(math.max(v, lo), hi) end },
  cos = { 1, function(x) return math.cos(x * rad) end },
  exp = { 1, math.exp },
  floor = { 1, math.floor },
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
  ["<"] = function(a, b) return a < b and 1 or 0 end,
  ["<="] = function(a, b) return a <= b and 1 or 0 end,
  [">"] = function(a, b) return a > b and 1 or 0 end,
  [">="] = function(a, b) return a >= b and 1 or 0 end,
  ["=="] = function(a, b) return a == b and 1 or 0 end,
  ["!="] = function(a, b) return a ~= b and 1 or 0 end,
  ["&&"] = function(a, b) return (truth(a) and truth(b)) and 1 or 0 end,
  ["||"] = function(a, b) return (truth(a) or truth(b)) and 1 or 0 end,
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
      node.fn = function(t) return t end
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
      or function(t) return g(t) == 0 and 1 or 0 end
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
  for k = 1, math.floor(max / pmax + 1e-9) do
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
    error(e, 0)
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
