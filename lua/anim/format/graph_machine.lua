-- graph_machine.lua: a layer's state machine of a .animgraph file read
-- into the normalized description (format/graph.lua documents its
-- shape): its states (clip, space, machine, empty), sub-machines
-- recursively, its transitions in evaluation order and their conditions.
-- Every check fails with the JSON path (errors.lua).
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local compat = require "anim.base.compat"
local N = require "anim.format.graph_names"

local M = {}

local fail, key, index, shown, describe, num = E.fail, E.key, E.index, E.shown, E.describe, E.num
-- (E.absent, without its call: the reader asks it of every field)
local null = require("anim.base.json").null
local function absent(v) return v == nil or v == null end
local FIELDS = N.FIELDS
local MAX_POINTS = codes.const.max_space_points

-- Parameters, conditions ---------------------------------------------------------------

-- The parameter a field names, of one of the types `types` (a set).
local function parameter(ctx, v, parent, k, what, types, wanted)
  local p = N.lookup(v, ctx.params_by_name, ctx.param_names, parent, k, "parameter", "the parameters")
  if types and not types[p.type] then
    fail(N.at(parent, k), "%s '%s' must be a %s parameter, it is a%s %s", what, shown(v), wanted,
      p.type == "int" and "n" or "", p.type)
  end
  return p
end

local FLOAT = { float = true }
local TESTED = { bool = true, trigger = true }

-- A condition: [name] (a bool that is true, a trigger fired) or [name, op,
-- value] (value of the parameter's type).
local function condition(ctx, c, path)
  if type(c) ~= "table" then E.array(c, path, "condition") end
  local n = #c
  if n ~= 1 and n ~= 3 then
    E.array(c, path, "condition")
    fail(path, "a condition is [name] or [name, op, value], got an array of %d", n)
  end
  local p = parameter(ctx, c[1], path, 1, "parameter")
  if n == 1 then
    if not TESTED[p.type] then
      fail(path, "[name] tests a bool or a trigger; '%s' is a %s parameter: compare it, as [\"%s\", \">\", 0]",
        shown(p.name), p.type, shown(p.name))
    end
    return { param = p.index, op = N.SET, json = path }
  end
  if p.type == "trigger" then
    fail(path, "'%s' is a trigger: it is tested as [\"%s\"], without an operator and a value", shown(p.name),
      shown(p.name))
  end
  local op = N.enum(c[2], N.OPS, path, 2, "operator") - 1
  local v = c[3]
  if p.type == "bool" then
    if type(v) ~= "boolean" then
      fail(index(path, 3), "'%s' is a bool parameter: the value must be true or false, got %s", shown(p.name), describe(v))
    end
    if op > 1 then
      fail(index(path, 2), "'%s' is a bool parameter: it compares with == or !=, not %s", shown(p.name), N.OPS[op + 1])
    end
  else
    if not E.finite(v) then
      fail(index(path, 3), "'%s' is a%s %s parameter: the value must be a finite number, got %s", shown(p.name),
        p.type == "int" and "n" or "", p.type, describe(v))
    end
    if p.type == "int" then
      local i = compat.tointeger(v)
      if not i then fail(index(path, 3), "'%s' is an int parameter: the value must be an integer, got %s", shown(p.name), num(v)) end
      v = i
    end
  end
  return { param = p.index, op = op, value = v, json = path }
end

-- States -------------------------------------------------------------------------------

local KINDS = { "clip", "space", "machine", "empty" }

-- A place of a blend space's point: a number (1D), [x, y] (2D).
local function place(at, path, dims)
  if dims == 1 then
    if not E.finite(at) then fail(path, "a point of a 1D space is [at, clip], at a finite number, got %s", describe(at)) end
    return at
  end
  if type(at) ~= "table" or not E.is_array(at) or #at ~= 2 or not E.finite(at[1]) or not E.finite(at[2]) then
    fail(path, "a point of a 2D space is [[x, y], clip], x and y finite numbers, got %s", describe(at))
  end
  return { at[1], at[2] }
end

local function space(ctx, s, path, state)
  N.object(s, path, FIELDS.space, "space")
  local ps = s.parameters
  if type(ps) ~= "table" or not E.is_array(ps) then E.array(ps, key(path, "parameters"), "parameters") end
  local dims = #ps
  if dims ~= 1 and dims ~= 2 then
    fail(key(path, "parameters"), "a space has 1 or 2 parameters (1D, 2D), got %d", dims)
  end
  local out = { dimensions = dims, parameters = {}, points = {}, sync = true }
  local pp = key(path, "parameters")
  for i = 1, dims do
    out.parameters[i] = parameter(ctx, ps[i], pp, i, "space parameter", FLOAT, "float").index
  end
  if dims == 2 and out.parameters[1] == out.parameters[2] then
    fail(index(pp, 2), "a 2D space needs two different parameters, got '%s' twice", shown(ps[2]))
  end
  local ptp = key(path, "points")
  E.array(s.points, ptp, "points")
  local n = #s.points
  if n < 1 or n > MAX_POINTS then fail(ptp, "a space has 1 to %d points, got %d", MAX_POINTS, n) end
  for i, p in ipairs(s.points) do
    local at_path = index(ptp, i)
    if type(p) ~= "table" or not E.is_array(p) or #p ~= 2 then
      fail(at_path, "a point is %s, got %s", dims == 1 and "[at, clip]" or "[[x, y], clip]", describe(p))
    end
    local at = place(p[1], index(at_path, 1), dims)
    for k = 1, i - 1 do
      local o = out.points[k].at
      if (dims == 1 and o == at) or (dims == 2 and o[1] == at[1] and o[2] == at[2]) then
        fail(index(at_path, 1), "points[%d] is at the same place: each point needs a place of its own", k)
      end
    end
    local clip = N.name(p[2], at_path, 2, "clip name")
    out.points[i] = { at = at, clip = clip }
    ctx.clips[#ctx.clips + 1] = { name = clip, json = index(at_path, 2), layer = ctx.layer.index, state = state.index }
  end
  if not absent(s.sync) then out.sync = N.boolean(s.sync, path, "sync", "sync") end
  return out
end

-- Fills state (its index, name, path set) from its object s.
local function read_state(ctx, s, path, state)
  N.object(s, path, FIELDS.state, "a state")
  local kind
  for _, k in ipairs(KINDS) do
    if not absent(s[k]) then
      if kind then fail(path, "a state is one of clip, space, machine or empty, not both %s and %s", kind, k) end
      kind = k
    end
  end
  if not kind then fail(path, "a state needs one of clip, space, machine or empty") end
  state.kind = kind
  if kind == "clip" then
    state.clip = N.name(s.clip, path, "clip", "clip name")
    ctx.clips[#ctx.clips + 1] = { name = state.clip, json = key(path, "clip"), layer = ctx.layer.index, state = state.index }
  elseif kind == "space" then
    state.space = space(ctx, s.space, key(path, "space"), state)
  elseif kind == "machine" then
    N.object(s.machine, key(path, "machine"), FIELDS.machine, "a machine") -- (read after this machine's states)
  elseif kind == "empty" then
    if s.empty ~= true then fail(key(path, "empty"), "empty must be true, got %s", describe(s.empty)) end
  end
  local playing = kind == "clip" or kind == "space"
  state.speed = 1
  if not playing then
    for _, f in ipairs { "loop", "speed", "speed_parameter" } do
      if not absent(s[f]) then
        fail(key(path, f), "%s applies to clip and space states, not to a%s %s state", f, kind == "empty" and "n" or "",
          kind)
      end
    end
    return
  end
  if not absent(s.loop) then
    state.loop_code = N.enum(s.loop, N.LOOPS, path, "loop", "loop mode") - 1
    state.loop = N.LOOPS[state.loop_code + 1]
  end
  if not absent(s.speed) then state.speed = N.number(s.speed, path, "speed", "speed") end
  if not absent(s.speed_parameter) then
    state.speed_parameter = parameter(ctx, s.speed_parameter, path, "speed_parameter", "speed_parameter", FLOAT,
      "float").index
  end
end

-- Why a state may not have this name, or nil.
local function bad_name(name)
  if name == "" then return "a state name must not be empty" end
  if N.RESERVED[name] then return string.format("'%s' is not a state name (it is a word of %s)", name, N.RESERVED[name]) end
  if name:find("/", 1, true) then return "a state name cannot hold '/' (it separates the states of sub-machines: air/fall)" end
  if name:find("->", 1, true) then return "a state name cannot hold '->' (it separates the two states of a mix key)" end
end

-- Transitions --------------------------------------------------------------------------

local function read_transition(ctx, machine, t, path, file_index)
  N.object(t, path, FIELDS.transition, "a transition")
  local out = { json = path, file_index = file_index, conditions = {}, sync = false, interrupt = "none",
    interrupt_code = 0, can_self = false, curve = "linear", curve_interp = N.CURVE.linear.interp,
    curve_ease = N.CURVE.linear.ease, offset = 0 }
  local names, list = machine.by_name, machine.names
  local where = machine.where
  if absent(t.from) then fail(key(path, "from"), "a transition needs from (a state or \"any\")") end
  if t.from == "any" then out.any = true
  else out.from = N.lookup(t.from, names, list, path, "from", "state", where).index end
  if absent(t.to) then fail(key(path, "to"), "a transition needs to (a state%s)", machine.parent and " or \"exit\"" or "") end
  if t.to == "exit" then
    if not machine.parent then
      fail(key(path, "to"), "\"exit\" leaves a sub-machine; this is the layer's own machine")
    end
    out.exit = true
  else
    out.to = N.lookup(t.to, names, list, path, "to", "state", where).index
  end
  local when = t.when
  if not absent(when) then
    if type(when) ~= "table" or not E.is_array(when) then E.array(when, key(path, "when"), "when") end
    local wp
    for i, c in ipairs(when) do
      wp = wp or key(path, "when")
      out.conditions[i] = condition(ctx, c, index(wp, i))
    end
  end
  if not absent(t.exit_time) then out.exit_time = N.non_negative(t.exit_time, path, "exit_time", "exit_time") end
  if not absent(t.duration) then out.duration = N.non_negative(t.duration, path, "duration", "duration") end
  if not absent(t.curve) then
    out.curve = N.CURVES[N.enum(t.curve, N.CURVES, path, "curve", "curve")]
    out.curve_interp, out.curve_ease = N.CURVE[out.curve].interp, N.CURVE[out.curve].ease
  end
  if not absent(t.offset) then
    local o = N.number(t.offset, path, "offset", "offset")
    if o < 0 or o > 1 then fail(key(path, "offset"), "offset must be between 0 and 1, got %s", num(o)) end
    out.offset = o
  end
  if not absent(t.sync) then out.sync = N.boolean(t.sync, path, "sync", "sync") end
  if out.sync and not absent(t.offset) then
    fail(key(path, "offset"), "offset and sync both say where the destination starts: give one")
  end
  if not absent(t.interrupt) then
    out.interrupt_code = N.enum(t.interrupt, N.INTERRUPTS, path, "interrupt", "interrupt value") - 1
    out.interrupt = N.INTERRUPTS[out.interrupt_code + 1]
  end
  if not absent(t.can_self) then
    out.can_self = N.boolean(t.can_self, path, "can_self", "can_self")
    out.can_self_given = true
  end
  return out
end

-- The machine's transitions in evaluation order: the any-state ones, then
-- each state's (in the order of the states), each group in file order.
local function order_transitions(machine, read)
  local by_source, any = {}, {}
  for _, t in ipairs(read) do
    if t.any then any[#any + 1] = t
    else
      local l = by_source[t.from] or {}
      by_source[t.from] = l
      l[#l + 1] = t
    end
  end
  local list = machine.transitions
  for _, t in ipairs(any) do list[#list + 1] = t end
  machine.any = #any
  for _, si in ipairs(machine.states) do
    local s = machine.layer_states[si]
    s.transitions = {}
    for _, t in ipairs(by_source[si] or {}) do
      list[#list + 1] = t
      s.transitions[#s.transitions + 1] = #list
    end
  end
  for i, t in ipairs(list) do t.index = i end
end

-- Machines -----------------------------------------------------------------------------

-- Reads machine object m (a layer or a state's machine) at `path` into
-- layer.machines and layer.states; `parent`: the machine state (nil for
-- the layer's own machine).  Its states take the next indices (in name
-- order), then its sub-machines are read, each in the order of its state.
function M.read_machine(ctx, m, path, parent)
  local layer = ctx.layer
  local machine = { index = #layer.machines + 1, path = parent and parent.path or "", parent = parent and parent.index,
    json = path, states = {}, transitions = {}, by_name = {}, layer_states = layer.states }
  layer.machines[machine.index] = machine
  if parent then parent.child = machine.index end
  local sp = key(path, "states")
  if absent(m.states) then fail(sp, "a machine needs states (an object of name: state)") end
  local names = N.sorted_keys(m.states, sp, "states")
  if #names == 0 then fail(sp, "a machine needs at least one state") end
  machine.names = names
  for _, name in ipairs(names) do
    local why = bad_name(name)
    if why then fail(key(sp, name), "%s", why) end
    local state = { index = #layer.states + 1, name = name, path = parent and (parent.path .. "/" .. name) or name,
      json = key(sp, name), machine = machine.index }
    layer.states[state.index] = state
    layer.by_path[state.path] = state.index
    machine.states[#machine.states + 1] = state.index
    machine.by_name[name] = state
    read_state(ctx, m.states[name], state.json, state)
  end
  if absent(m.entry) then fail(key(path, "entry"), "a machine needs entry (the state it starts in)") end
  machine.where = parent and ("the states of machine '" .. shown(parent.path) .. "'") or "the states"
  machine.entry = N.lookup(m.entry, machine.by_name, names, path, "entry", "entry state", machine.where).index
  local read = {}
  if not absent(m.transitions) then
    local tp = key(path, "transitions")
    E.array(m.transitions, tp, "transitions")
    for i, t in ipairs(m.transitions) do read[i] = read_transition(ctx, machine, t, index(tp, i), i) end
  end
  order_transitions(machine, read)
  machine.by_name, machine.layer_states, machine.where = nil, nil, nil
  for _, si in ipairs(machine.states) do
    local state = layer.states[si]
    if state.kind == "machine" then
      M.read_machine(ctx, m.states[state.name].machine, key(state.json, "machine"), state)
    end
  end
  return machine
end

return M
