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
--
-- The parts: molang_parse.lua (text to tree), molang_funcs.lua (what the
-- functions and names mean), molang_build.lua (tree to closures),
-- molang_gen.lua (a tree written as Lua); this file compiles an
-- expression through them and finds its periods.
local E = require "anim.base.errors"
local Parse = require "anim.import.blockbench.molang_parse"
local F = require "anim.import.blockbench.molang_funcs"
local B = require "anim.import.blockbench.molang_build"
local generate = require("anim.import.blockbench.molang_gen").generate
-- (an expression or a name of the file a message quotes: escaped, cut at
-- E.SHOWN bytes)
local shown = E.shown

local M = {}

M.MAX_DEPTH = Parse.MAX_DEPTH
M.MAX_CANDIDATES = 10000
M.MAX_LOOP = B.MAX_LOOP
M.CLOSURE_COST = B.CLOSURE_COST
M.CALL_COST = B.CALL_COST
M.Budget = B.Budget
M.canonical = Parse.canonical
M.parse = Parse.parse
M.FUNCTIONS = F.FUNCTIONS
M.TIME_NAMES = F.TIME_NAMES

local round, resolve = F.round, F.resolve
local N, new_state, assigned, build = B.N, B.new_state, B.assigned, B.build

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
  local cost = ast.cost * B.CLOSURE_COST
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
