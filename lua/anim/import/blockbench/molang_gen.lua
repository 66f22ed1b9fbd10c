-- import/blockbench/molang_gen.lua: a compiled Molang tree written as one
-- Lua function and loaded, where the tree allows it.
local compat = require "anim.base.compat"
local floor = require("anim.import.blockbench.molang_funcs").floor
local B = require "anim.import.blockbench.molang_build"

local M = {}

local truth = B.truth

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
  local s = compat.numtext("%.17g", v) -- (a locale's "1,5" is no Lua number)
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
  return loader(floor, truth, fns, work, cost, B.Budget, math, error)
end
M.generate = generate

return M
