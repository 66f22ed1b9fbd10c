-- controller_state.lua: a state machine's controller in a saved state
-- (runtime/state.lua writes and reads the rest).  Saved: the graph's name,
-- each parameter by name (a float as a "%a" hex string, an int, a bool; a
-- trigger: armed per layer and its buffer), each layer's current state,
-- normalized time, transition under way, travel, force and weight, and
-- its current track by id.  Read back strictly, before the animator
-- changes: a wrong field is "state.controller.path: why".
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local graphs = require "anim.runtime.graph"
local controller = require "anim.runtime.controller"
local C = require "anim.runtime.state_check"

local M = {}

local hex, tointeger = compat.hexfloat, compat.tointeger
local fail, key, index = E.fail, E.key, E.index
local num, nums, fields_of, got, names = C.num, C.nums, C.fields_of, C.got, C.names

local KEYS = names { "graph", "parameters", "layers" }
local LAYER_KEYS = names { "name", "started", "state", "time", "transition", "source", "source_time", "fade_end",
  "fade_duration", "force", "force_fade", "weight", "travel", "travel_next", "track" }
local TRIGGER_KEYS = names { "armed", "buffer" }

-- The record of controller self (runtime/controller.lua's object).
function M.save(self)
  local ctl = rawget(self, "_")
  local raw = core.controller_save(ctl.animator)
  local info = ctl.info
  local rec = { graph = info.name, parameters = {}, layers = {} }
  for i, p in ipairs(info.params) do
    local v = raw.params[i]
    if p.type == "trigger" then
      local armed = {}
      for l = 1, #info.layers do armed[l] = raw.armed[l][i] == 1 end
      rec.parameters[p.name] = { armed = armed, buffer = raw.buffers[i] >= 0 and hex(raw.buffers[i]) or false }
    elseif p.type == "bool" then rec.parameters[p.name] = v ~= 0
    elseif p.type == "int" then rec.parameters[p.name] = tointeger(v) or v
    else rec.parameters[p.name] = hex(v) end
  end
  for l, layer in ipairs(info.layers) do
    local r, states = raw.layers[l], layer.states
    local travel = {}
    for k, x in ipairs(r.plan) do travel[k] = x end
    rec.layers[l] = {
      name = layer.name, started = r[1] == 1, state = states[r[2] + 1], transition = r[3], source = states[r[4] + 1],
      force = r[5] >= 0 and states[r[5] + 1] or false, travel = travel, travel_next = r[7], time = hex(r[8]),
      source_time = hex(r[9]), fade_end = hex(r[10]), fade_duration = hex(r[11]), force_fade = hex(r[12]),
      weight = { hex(r[13]), hex(r[14]), hex(r[15]), hex(r[16]) },
      track = r[17] >= 0 and string.format("%d", r[17]) or false,
    }
  end
  return rec
end

-- An integer in [lo, hi] at r[k].
local function int(v, path, k, lo, hi)
  local i = type(v) == "number" and tointeger(v)
  if not i or i < lo or i > hi then fail(key(path, k), "must be an integer from %d to %d, got %s", lo, hi, got(v)) end
  return i
end

-- A state of layer `layer` by name (its leaf's index, 0-based).
local function state_of(v, layer, path, k, optional)
  if optional and v == false then return -1 end
  local s = type(v) == "string" and layer.by_path[v]
  if not s or layer.leaf(s) ~= s then
    fail(key(path, k), "must be a state of layer '%s' (%s), got %s", E.shown(layer.name), table.concat(layer.states, ", "), got(v))
  end
  return s - 1
end

-- The plan of record r (at `path`): its graph through find(name, path),
-- every field checked; ids: the ids of the state's tracks (digits ->
-- true).  Returns { graph =, raw = (core.controller_load's shape),
-- tracks = { [layer] = id digits or false } }.
function M.plan(r, path, find, ids)
  fields_of(r, path, KEYS, "an object { graph, parameters, layers }")
  local graph = find(r.graph, path, "graph")
  if not graphs.is_graph(graph) then fail(key(path, "graph"), "did not resolve to a graph (got %s)", got(graph)) end
  local info = graphs.info(graph)
  local nl = #info.layers
  local raw = { params = {}, buffers = {}, armed = {}, layers = {} }
  local ps = r.parameters
  if type(ps) ~= "table" then fail(key(path, "parameters"), "must be an object, got %s", got(ps)) end
  for k in pairs(ps) do
    if not info.param_index[k] then fail(key(key(path, "parameters"), tostring(k)), "no such parameter in graph '%s'", E.shown(info.name)) end
  end
  for l = 1, nl do raw.armed[l] = {} end
  for i, p in ipairs(info.params) do
    local pp, v = key(path, "parameters"), ps[p.name]
    raw.buffers[i] = -1
    for l = 1, nl do raw.armed[l][i] = 0 end
    if v == nil then fail(key(pp, p.name), "missing")
    elseif p.type == "trigger" then
      fields_of(v, key(pp, p.name), TRIGGER_KEYS, "an object { armed, buffer }")
      if type(v.armed) ~= "table" or #v.armed ~= nl then fail(key(key(pp, p.name), "armed"), "must be an array of %d booleans", nl) end
      for l = 1, nl do
        if type(v.armed[l]) ~= "boolean" then fail(index(key(key(pp, p.name), "armed"), l), "must be true or false, got %s", got(v.armed[l])) end
        raw.armed[l][i] = v.armed[l] and 1 or 0
      end
      if v.buffer ~= false then
        raw.buffers[i] = num(v.buffer, key(pp, p.name), "buffer")
        if raw.buffers[i] < 0 then fail(key(key(pp, p.name), "buffer"), "must be >= 0 or false") end
      end
      raw.params[i] = 0
    elseif p.type == "bool" then
      if type(v) ~= "boolean" then fail(key(pp, p.name), "must be true or false, got %s", got(v)) end
      raw.params[i] = v and 1 or 0
    elseif p.type == "int" then
      raw.params[i] = int(v, pp, p.name, -2 ^ 53, 2 ^ 53)
    else
      raw.params[i] = num(v, pp, p.name)
    end
  end
  local ls = r.layers
  if type(ls) ~= "table" or #ls ~= nl then fail(key(path, "layers"), "must be an array of %d layers (the graph's), got %s", nl, got(ls)) end
  local tracks = {}
  for l, layer in ipairs(info.layers) do
    local lp, x = index(key(path, "layers"), l), ls[l]
    fields_of(x, lp, LAYER_KEYS, "a layer")
    if x.name ~= layer.name then fail(key(lp, "name"), "must be '%s' (the graph's layer %d), got %s", E.shown(layer.name), l, got(x.name)) end
    if type(x.started) ~= "boolean" then fail(key(lp, "started"), "must be true or false, got %s", got(x.started)) end
    local travel = x.travel
    if type(travel) ~= "table" or #travel % 2 ~= 0 or #travel > 128 then
      fail(key(lp, "travel"), "must be an array of pairs of transitions (at most 64), got %s", got(travel))
    end
    local plan = {}
    for k = 1, #travel do plan[k] = int(travel[k], key(lp, "travel"), k, 0, 1e6) end
    local w = nums(x.weight, lp, "weight", 4)
    raw.layers[l] = { x.started and 1 or 0, state_of(x.state, layer, lp, "state"), int(x.transition, lp, "transition", -2, 1e6),
      state_of(x.source, layer, lp, "source"), state_of(x.force, layer, lp, "force", true), #plan / 2,
      int(x.travel_next, lp, "travel_next", 0, #plan / 2), num(x.time, lp, "time"), num(x.source_time, lp, "source_time"),
      num(x.fade_end, lp, "fade_end"), num(x.fade_duration, lp, "fade_duration"), num(x.force_fade, lp, "force_fade"),
      w[1], w[2], w[3], w[4], plan = plan }
    if x.track ~= false and not ids[x.track] then
      fail(key(lp, "track"), "must be the id of one of the state's tracks, or false, got %s", got(x.track))
    end
    tracks[l] = x.track
  end
  return { graph = graph, raw = raw, tracks = tracks }
end

-- After the animator is restored: its controller made again from plan p
-- (M.plan's), its current tracks those of the restored state (by_id:
-- digits -> track).
function M.apply(animator, p, by_id)
  local ctl = controller.control(animator, p.graph)
  local tracks = {}
  for l, d in ipairs(p.tracks) do tracks[l] = d and by_id[d] or false end
  local l, why = core.controller_load(animator, p.raw, tracks)
  if l then error(string.format("state.controller.layers[%d]: %s out of range", l, why), 0) end
  return ctl
end

return M
