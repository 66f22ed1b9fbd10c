-- import/blockbench/molang_build.lua: a Molang tree (molang_parse.lua)
-- compiled into closures: every node gets fn(t), whether it depends on
-- time, whether it is pure, and its cost in work; constant parts are folded.
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
local F = require "anim.import.blockbench.molang_funcs"

local M = {}

local shown = E.shown
local FUNCS, RANDOM, QUERY_FUNCS, resolve, clamp = F.FUNCTIONS, F.RANDOM, F.QUERY_FUNCS, F.resolve, F.clamp

M.MAX_LOOP = 1024 -- loop() iterations, as molangjs clamps them
-- An operation evaluated by closures (statements, strings, deep trees)
-- costs this many steps of work; one of an expression written as Lua, 1
-- (the closures take about that much longer).
M.CLOSURE_COST = 8
-- A call of a math function costs this many steps more than its
-- arguments: a Lua call (and libm's sine, power...) takes several
-- operations' time.  Without it a file of sums of math.sin spent its
-- 40,000,000 steps in 0.55 s (the budget is 0.5 s of CPU: 12.5 ns a
-- step); with it, in about 0.3 s (fuzz/regressions/import/).
M.CALL_COST = 16

-- Raised (as an error value) when an evaluation would pass the work limit.
M.Budget = setmetatable({}, { __tostring = function() return "molang work budget spent" end })

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
  node.cost = node.cost + M.CALL_COST
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

-- The builders of each kind of node (build_call above): each sets the
-- node's fn, time, pure, cost (and isnum, value where known).
local BUILD = {}

function BUILD.num(node)
  local v = node.v
  node.fn = function() return v end
  node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, v, node.op == "num"
end
BUILD.str = BUILD.num

function BUILD.name(node, st)
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
end

BUILD.call = build_call

function BUILD.neg(node, st)
  local op = node.op
  build(node.a, st)
  local g = node.a.fn
  if op == "neg" then
    node.fn = function(t) return -N(g(t)) end
  else
    node.fn = function(t) return N(g(t)) == 0 and 1.0 or 0.0 end -- molangjs: `a == 0 ? 1 : 0` (!NaN is 0)
  end
  node.time, node.pure, node.cost, node.isnum = node.a.time, node.a.pure, node.a.cost + 1, true
end
BUILD["not"] = BUILD.neg

function BUILD.bin(node, st)
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
end

function BUILD.cond(node, st)
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
end

function BUILD.coal(node, st)
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
    return
  end
  build(a, st)
  node.fn, node.time, node.pure, node.cost, node.isnum = a.fn, a.time, a.pure, a.cost + 1, numeric(a)
  node.value = a.value
end

function BUILD.set(node, st)
  build(node.a, st)
  local g, slot, cell = node.a.fn, st.slots[node.name], st.cells
  node.fn = function(t)
    cell[slot] = g(t)
    return 0.0
  end
  node.time, node.pure, node.cost, node.isnum = node.a.time, false, node.a.cost + 1, true
end

function BUILD.ret(node, st)
  build(node.a, st)
  local g, flow = node.a.fn, st.flow
  node.fn = function(t)
    local v = g(t)
    flow.state, flow.value = "return", v
    return v
  end
  node.time, node.pure, node.cost, node.isnum = node.a.time, false, node.a.cost + 1, numeric(node.a)
end

function BUILD.brk(node, st)
  local flow, what = st.flow, node.op == "brk" and "break" or "continue"
  node.fn = function()
    flow.state = what
    return 0.0
  end
  node.time, node.pure, node.cost, node.isnum = false, false, 1, true
end
BUILD.cont = BUILD.brk

function BUILD.seq(node, st)
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
end

function BUILD.loop(node, st)
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
end

-- -> and [ ]: another entity's value, arrays
local function build_other(node, st)
  note(st, string.format("%s read as 0", node.what))
  node.fn = function() return 0.0 end
  node.time, node.pure, node.cost, node.value, node.isnum = false, true, 1, 0.0, true
end

-- The nodes whose value is folded when it depends neither on time nor on
-- what the expression assigns (the others fold inside their builder, or
-- never: statements, loops, ??).
local FOLDED = { num = true, str = true, name = true, neg = true, ["not"] = true, bin = true, cond = true }

function build(node, st)
  local op = node.op
  local b = BUILD[op]
  if not b then
    build_other(node, st)
  elseif op == "call" then
    return b(node, st)
  else
    b(node, st)
    if not FOLDED[op] then return node end
  end
  if not node.time and node.pure then fold(node, node.fn) end
  return node
end

M.N, M.truth = N, truth
M.new_state, M.assigned = new_state, assigned
M.build = build

return M
