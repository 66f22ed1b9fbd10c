-- import/blockbench/molang_parse.lua: Molang's text into a tree: the
-- tokens (lpeg), then a recursive descent over them with molangjs's
-- grammar and precedence (molang.lua says the rules), bounded in depth.
local lpeg = require "lpeg"
local E = require "anim.base.errors"
local dot_number = require("anim.base.compat").number
-- (an expression or a name of the file a message quotes: escaped, cut at
-- E.SHOWN bytes)
local shown = E.shown

local M = {}

local P, R, S, C, Ct, Cp = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Ct, lpeg.Cp

M.MAX_DEPTH = 200

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
  C(number) * S "fF" ^ -1 / function(x) return dot_number(x) + 0.0 end
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


-- The parser's state p: the tokens and the index of the next one.  Each
-- rule reads from p.i on; one that fails puts p.i back where it started.
local function tok(p) return p.toks[2 * p.i] end
local function deeper(d)
  if d > M.MAX_DEPTH then error(TooDeep, 0) end
  return d + 1
end
local primary, postfix, unary, binary, ternary, expr, statement, program

function primary(p, d)
  local t = tok(p)
  if type(t) == "number" then
    p.i = p.i + 1
    return { op = "num", v = t }
  elseif t == "(" or t == "{" then
    local close = t == "(" and ")" or "}"
    local save = p.i
    p.i = p.i + 1
    local e
    if t == "(" then e = expr(p, deeper(d)) else e = program(p, deeper(d)) end
    if e and tok(p) == close then
      p.i = p.i + 1
      return e
    end
    p.i = save
    return nil
  elseif type(t) == "table" and t.str then
    p.i = p.i + 1
    return { op = "str", v = t.str }
  elseif type(t) == "table" then
    local n = t.name
    if n == "break" or n == "continue" then
      -- statements, also where an expression goes (`c ? break`)
      p.i = p.i + 1
      return { op = n == "break" and "brk" or "cont" }
    elseif n == "return" then
      local save = p.i
      p.i = p.i + 1
      local a = expr(p, deeper(d))
      if a then return { op = "ret", a = a } end
      p.i = save
      return nil
    end
    p.i = p.i + 1
    if tok(p) == "(" then
      local save = p.i
      p.i = p.i + 1
      local args = {}
      local a = expr(p, deeper(d))
      if a then
        args[1] = a
        while tok(p) == "," do
          local before = p.i
          p.i = p.i + 1
          a = expr(p, deeper(d))
          if not a then
            p.i = before
            break
          end
          args[#args + 1] = a
        end
      end
      if tok(p) == ")" then
        p.i = p.i + 1
        if n == "loop" and #args == 2 then return { op = "loop", n = args[1], body = args[2] } end
        return { op = "call", name = n, args = args }
      end
      p.i = save -- not a call: the name alone
    end
    return { op = "name", name = n }
  end
  return nil
end
function postfix(p, d)
  local node = primary(p, d)
  while node do
    local t = tok(p)
    if t == "->" then
      local save = p.i
      p.i = p.i + 1
      local b = primary(p, deeper(d))
      if not b then p.i = save break end
      node = { op = "other", what = "'->' (a value of another entity)", list = { node, b } }
    elseif t == "[" then
      local save = p.i
      p.i = p.i + 1
      local b = expr(p, deeper(d))
      if not b or tok(p) ~= "]" then p.i = save break end
      p.i = p.i + 1
      node = { op = "other", what = "an array element", list = { node, b } }
    else
      break
    end
    d = deeper(d)
  end
  return node
end
function unary(p, d)
  local t = tok(p)
  if t == "-" or t == "!" or t == "+" then
    local save = p.i
    p.i = p.i + 1
    local a = unary(p, deeper(d))
    if a then
      if t == "+" then return a end
      return { op = t == "-" and "neg" or "not", a = a }
    end
    p.i = save
    return nil
  end
  return postfix(p, d)
end
function binary(p, level, d)
  if level > #LEVELS then return unary(p, d) end
  local node = binary(p, level + 1, d)
  if not node then return nil end
  local ops = LEVELS[level]
  while ops[tok(p)] do
    local save, o = p.i, tok(p)
    p.i = p.i + 1
    d = deeper(d) -- each link of a chain is a level of the tree
    local b = binary(p, level + 1, d)
    if not b then
      p.i = save
      break
    end
    node = { op = "bin", o = o, a = node, b = b }
  end
  return node
end
function ternary(p, d)
  local c = binary(p, 1, d)
  if not c or tok(p) ~= "?" then return c end
  local save = p.i
  p.i = p.i + 1
  local a = expr(p, deeper(d))
  if not a then
    p.i = save
    return c
  end
  local b = { op = "num", v = 0.0 }
  if tok(p) == ":" then
    local before = p.i
    p.i = p.i + 1
    local e = expr(p, deeper(d))
    if e then b = e else p.i = before end
  end
  return { op = "cond", c = c, a = a, b = b }
end
function expr(p, d)
  local node = ternary(p, d)
  while node and tok(p) == "??" do
    local save = p.i
    p.i = p.i + 1
    d = deeper(d)
    local b = ternary(p, d)
    if not b then
      p.i = save
      break
    end
    node = { op = "coal", a = node, b = b }
  end
  return node
end
function statement(p, d)
  local t = tok(p)
  -- `-v.x = 1`: Blockbench's invertMolang puts a sign before a statement;
  -- molangjs still assigns (and the statement is worth -0)
  local nt = p.toks[2 * p.i + 2]
  if (t == "-" or t == "+") and type(nt) == "table" and nt.name and p.toks[2 * p.i + 4] == "=" then
    local save = p.i
    p.i = p.i + 1
    local st = statement(p, deeper(d))
    if st and st.op == "set" then return t == "-" and { op = "neg", a = st } or st end
    p.i = save
  end
  if type(t) == "table" and t.name and p.toks[2 * p.i + 2] == "=" then
    local save = p.i
    p.i = p.i + 2
    local a = expr(p, deeper(d))
    if a then return { op = "set", name = t.name, a = a } end
    p.i = save
  end
  return expr(p, d)
end
-- statements separated by ";" (empty ones allowed); one expression alone
-- is itself, not a list
function program(p, d)
  local list, any_semicolon = {}, false
  while true do
    local st = statement(p, d)
    if st then list[#list + 1] = st end
    if tok(p) ~= ";" then break end
    any_semicolon = true
    p.i = p.i + 1
    d = deeper(d)
  end
  if #list == 0 then return nil end
  if #list == 1 and not any_semicolon and list[1].op ~= "ret" and list[1].op ~= "set"
    and list[1].op ~= "brk" and list[1].op ~= "cont" then
    return list[1]
  end
  return { op = "seq", list = list }
end

local function read(toks)
  local p = { toks = toks, i = 1 }
  local ast = program(p, 1)
  return ast, p.i
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

return M
