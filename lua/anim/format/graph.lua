-- graph.lua: .animgraph files (animation state machines, issue 38) read
-- and checked into a normalized description, the data the runtime plays
-- and the command (`anim validate`, `anim info`, `anim graph`) shows.
-- docs/format-reference.md documents the file.  The parts: graph_names.lua
-- (the names and their checks), graph_machine.lua (states, sub-machines,
-- transitions, conditions), graph_lint.lua (the warnings of M.lint).
--
--   M.decode(source [, name]) -> desc, warnings | nil, message
--     source: JSON text or a table of the file's shape; warnings: M.lint(desc)
--   M.read(path) -> desc, warnings | nil, message   (through json.read_file)
--   M.lint(desc) -> { "json.path: message", ... }
--   M.check_clips(desc, has_clip [, known]) -> nil | message, lines
--
-- The description (every index 1-based; every `json` a JSON path of the
-- file, for messages):
--   desc.version     1
--   desc.name        the file's name, as messages give it
--   desc.parameters  { { index, name, type = "float"|"int"|"bool"|"trigger",
--                        default (0, 0, false; nil for a trigger), json }, ... }
--                    sorted by name (byte order): a JSON object has no
--                    order, so the file order cannot give indices; the
--                    name order gives the same indices for the same file
--                    whatever decoded it.
--   desc.parameter_index  name -> index
--   desc.layers      { layer, ... } in file order; desc.layer_index: name -> index
--     layer: { index, name, json, mask (list of joint names, or nil: all),
--              blend = "normal"|"additive", blend_code (0, 1), weight,
--              entry (state index), states, machines, by_path (path -> state
--              index), mix (see below) }
--     layer.machines: { machine, ... }, [1] the layer's own, then each
--       sub-machine after its parent (depth first, in the order of the
--       states that hold them)
--       machine: { index, path ("" for the layer's own, else the machine
--                  state's path), parent (the machine state's index, or
--                  nil), json, entry (state index), states (their indices),
--                  names (sorted), transitions (in evaluation order), any
--                  (how many of them, first, are any-state transitions) }
--     layer.states: every state of every machine, per machine (the
--       machines' order), by name within one
--       state: { index, name, path ("air/fall"), json, machine (its
--                machine's index), kind = "clip"|"space"|"machine"|"empty",
--                clip (name), space, child (a machine state: the index of
--                its machine), loop (a loop mode name, or nil: the clip's),
--                loop_code, speed (default 1), speed_parameter (a float
--                parameter's index, or nil), transitions (the indices in
--                its machine's list of those from it, in file order) }
--       space: { dimensions (1, 2), parameters ({ index [, index] }),
--                points ({ { at = x | { x, y }, clip = name }, ... }), sync }
--     transition: { index (in its machine's list), file_index, json, any
--       (true for "from": "any"), from (state index; nil when any), to
--       (state index; nil when exit), exit (true for "to": "exit"),
--       conditions, exit_time (nil: none), duration (nil: the mix
--       table's), curve (a name: graph_names.lua's CURVES), curve_interp,
--       curve_ease (the core's codes), offset (default 0), sync,
--       interrupt (a name), interrupt_code (0 none, 1 source, 2
--       destination, 3 source_then_destination, 4 destination_then_source),
--       can_self }
--       condition: { param (index), op (0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=,
--                    6 the one-element form: a bool true, a trigger fired),
--                    value (nil for 6; an integer for an int parameter) }
--   desc.clips: every clip name the graph plays, { name, json, layer, state }
--     (clip states and the points of spaces), in the order of the layers'
--     states: this reader resolves none (M.check_clips, the runtime do).
--   desc.mix_duration(layer, from_path, to_path) -> seconds: the mix
--     table's entry for the pair (layer: index or name): the exact pair,
--     then from->*, then *->to, then *, else 0.
--   desc.duration(layer, transition, from_path) -> seconds: the
--     transition's own duration, else mix_duration(layer, from_path, to)
--     (from_path: the current state's, which an any-state transition needs).
--   layer.mix: the mix table resolved on the layer's state indices:
--     { pair = { [from] = { [to] = d } }, from = { [i] = d }, to = { [i] = d },
--       all = d or nil }
local E = require "anim.base.errors"
local json = require "anim.base.json"
local compat = require "anim.base.compat"
local N = require "anim.format.graph_names"
local machine = require "anim.format.graph_machine"
local lint = require "anim.format.graph_lint"
local byteorder = require "anim.base.order"

local M = {}

local fail, key, index, shown, describe, num = E.fail, E.key, E.index, E.shown, E.describe, E.num
-- (E.absent, without its call: the reader asks it of every field)
local null = json.null
local function absent(v) return v == nil or v == null end
local FIELDS = N.FIELDS

-- Parameters -------------------------------------------------------------------------------

local DEFAULT = { float = 0, int = 0, bool = false }

local function parameters(ps, desc)
  local list, by_name = {}, {}
  desc.parameters, desc.parameter_index = list, {}
  if absent(ps) then return list, by_name end
  local names = N.sorted_keys(ps, "parameters", "parameters")
  for i, name in ipairs(names) do
    local path = key("parameters", name)
    if name == "" then fail(path, "a parameter name must not be empty") end
    local p = N.object(ps[name], path, FIELDS.parameter, "a parameter")
    if absent(p.type) then fail(key(path, "type"), "a parameter needs a type (%s)", table.concat(N.TYPES, ", ")) end
    local ty = N.TYPES[N.enum(p.type, N.TYPES, path, "type", "parameter type")]
    local out = { index = i, name = name, type = ty, default = DEFAULT[ty], json = path }
    local d, dp = p.default, key(path, "default")
    if not absent(d) then
      if ty == "trigger" then fail(dp, "a trigger has no default (it is fired, then consumed)") end
      if ty == "bool" then
        out.default = E.boolean(d, dp, "a bool parameter's default")
      else
        E.number(d, dp, "a" .. (ty == "int" and "n " or " ") .. ty .. " parameter's default")
        if ty == "int" then
          local v = compat.tointeger(d)
          if not v then fail(dp, "an int parameter's default must be an integer, got %s", num(d)) end
          d = v
        end
        out.default = d
      end
    end
    list[i] = out
    by_name[name] = out
    desc.parameter_index[name] = i
  end
  return list, by_name
end

-- Layers -------------------------------------------------------------------------------------

local function read_layer(ctx, l, path, desc, seen)
  N.object(l, path, FIELDS.layer, "a layer")
  local name = N.name(l.name, path, "name", "a layer's name")
  if seen[name] then fail(key(path, "name"), "layers[%d] is called '%s' too: layer names are unique", seen[name], shown(name)) end
  local layer = { index = #desc.layers + 1, name = name, json = path, states = {}, machines = {}, by_path = {},
    blend = "normal", blend_code = 0, weight = 1 }
  seen[name] = layer.index
  if not absent(l.mask) then
    local mp = key(path, "mask")
    E.array(l.mask, mp, "mask")
    layer.mask = {}
    for i, j in ipairs(l.mask) do layer.mask[i] = N.name(j, mp, i, "a mask's joint name") end
  end
  if not absent(l.blend) then
    layer.blend_code = N.enum(l.blend, N.BLENDS, path, "blend", "blend") - 1
    layer.blend = N.BLENDS[layer.blend_code + 1]
  end
  if not absent(l.weight) then layer.weight = N.non_negative(l.weight, path, "weight", "weight") end
  ctx.layer = layer
  desc.layers[layer.index] = layer
  desc.layer_index[name] = layer.index
  layer.entry = machine.read_machine(ctx, l, path, nil).entry
  return layer
end

-- The mix table ----------------------------------------------------------------------------------

-- Every state path of the file (all layers), sorted.
local function all_paths(desc)
  local set, list = {}, {}
  for _, layer in ipairs(desc.layers) do
    for _, s in ipairs(layer.states) do
      if not set[s.path] then set[s.path] = true; list[#list + 1] = s.path end
    end
  end
  byteorder.sort(list)
  return set, list
end

-- (linear: "%s+$" on a mix key of 40,000 spaces between two letters took 5 s)
local trim = E.trim

-- The mix table read into { { from = path or "*", to = path or "*", d }, ... }
-- and resolved on each layer's states (layer.mix).
local function mix(m, desc)
  for _, layer in ipairs(desc.layers) do layer.mix = { pair = {}, from = {}, to = {} } end
  if absent(m) then return end
  local keys = N.sorted_keys(m, "mix", "mix")
  local set, list = all_paths(desc)
  for _, k in ipairs(keys) do
    local path = key("mix", k)
    local d = N.non_negative(m[k], path, nil, "a mix duration")
    local from, to
    if k == "*" then from, to = "*", "*"
    else
      local a, b = k:find("->", 1, true)
      if not a then
        fail(path, "a mix key is \"from->to\", \"from->*\", \"*->to\" or \"*\", got '%s'", shown(k))
      end
      from, to = trim(k:sub(1, a - 1)), trim(k:sub(b + 1))
      if from == "*" and to == "*" then fail(path, "write \"*\" for every pair") end
      for _, side in ipairs { from, to } do
        if side ~= "*" and not set[side] then
          N.lookup(side, set, list, path, nil, "state", "the states")
        end
      end
    end
    for _, layer in ipairs(desc.layers) do
      local lm, fi, ti = layer.mix, layer.by_path[from], layer.by_path[to]
      if from == "*" and to == "*" then lm.all = d
      elseif from == "*" then if ti then lm.to[ti] = d end
      elseif to == "*" then if fi then lm.from[fi] = d end
      elseif fi and ti then
        lm.pair[fi] = lm.pair[fi] or {}
        lm.pair[fi][ti] = d
      end
    end
  end
end

-- The layer named by index or name (a bug of the caller raises).
local function layer_of(desc, l)
  local layer = desc.layers[desc.layer_index[l] or l]
  if not layer then error("no layer " .. tostring(l), 3) end
  return layer
end

local function mix_duration(desc, l, from, to)
  local layer = layer_of(desc, l)
  local fi, ti, m = layer.by_path[from], layer.by_path[to], layer.mix
  local d = fi and ti and m.pair[fi] and m.pair[fi][ti]
  if d then return d end
  d = fi and m.from[fi]
  if d then return d end
  d = ti and m.to[ti]
  if d then return d end
  return m.all or 0
end

-- Entry points -----------------------------------------------------------------------------------

local function build(g, name)
  N.object(g, "", FIELDS.graph, "a graph")
  if absent(g.version) then fail("version", "a graph needs version (1)") end
  if g.version ~= 1 then
    fail("version", "unknown version %s (this reader reads version 1)", type(g.version) == "number" and num(g.version)
      or describe(g.version))
  end
  local desc = { version = 1, name = name, layers = {}, layer_index = {}, clips = {} }
  local params, by_name = parameters(g.parameters, desc)
  local names = {}
  for i, p in ipairs(params) do names[i] = p.name end
  local ctx = { params_by_name = by_name, param_names = names, clips = desc.clips }
  if absent(g.layers) then fail("layers", "a graph needs layers (an array of at least one layer)") end
  E.array(g.layers, "layers", "layers")
  if #g.layers == 0 then fail("layers", "a graph needs at least one layer") end
  local seen = {}
  for i, l in ipairs(g.layers) do read_layer(ctx, l, index("layers", i), desc, seen) end
  mix(g.mix, desc)
  function desc.mix_duration(l, from, to) return mix_duration(desc, l, from, to) end
  function desc.duration(l, t, from)
    if t.duration then return t.duration end
    local layer = layer_of(desc, l)
    local to = t.to and layer.states[t.to].path
    return mix_duration(desc, l, from, to)
  end
  return desc
end

-- decode(source [, name]) -> desc, warnings | nil, message
function M.decode(source, name)
  name = name or "graph"
  local desc, err = E.catch(name, function()
    local g
    if type(source) == "string" then g = json.decode(source)
    elseif type(source) == "table" then g = json.copy(source, true) -- (read raw, once: no metamethod runs)
    else fail("", "a graph is JSON text or a table, got %s", describe(source)) end
    return build(g, name)
  end)
  if not desc then return nil, err end
  return desc, M.lint(desc)
end

-- read(path) -> desc, warnings | nil, message
function M.read(path)
  local text, err = E.catch(path, json.read_file, path)
  if not text then return nil, err end
  return M.decode(text, path)
end

M.lint = lint.lint

-- check_clips(desc, has_clip [, known]) -> nil | message, lines: every clip
-- name of desc that has_clip (a function name -> truthy, or a table name
-- -> clip) does not resolve, each a line "json.path: unknown clip 'x'"
-- with the closest of `known` (a list of names; a table has_clip's keys
-- when left out) for the first 20; the message names the file and the
-- first 20.
M.check_clips = lint.check_clips

return M
