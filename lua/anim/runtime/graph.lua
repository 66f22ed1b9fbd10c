-- graph.lua: anim.graph(source [, clips]) -> graph | nil, message.  A
-- .animgraph description (format/graph.lua reads and checks the file)
-- with its clips resolved, compiled into the core's graph (csrc/core/graph.h:
-- flat arrays of parameters, layers, states, transitions in evaluation
-- order, conditions, and every transition's fade durations resolved from
-- the mix table).  The graph is shared by the animators it controls
-- (runtime/controller.lua) and never changes.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
local gformat = require "anim.format.graph"
local clipmod = require "anim.format.clip"
local spaces = require "anim.runtime.blendspace"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local byteorder = require "anim.base.order"

local M = {}

local shown = E.shown
local GPARAM = codes.gparam
local EXIT = -2  -- (csrc/core/graph.h: ANIM_GRAPH_EXIT)

-- What a graph may say but cannot mean here: an exit time on a transition
-- from a sub-machine (the message's end, or nil).
local function unsupported(desc)
  for _, layer in ipairs(desc.layers) do
    for _, m in ipairs(layer.machines) do
      for _, t in ipairs(m.transitions) do
        if t.exit_time and not t.any and layer.states[t.from].kind == "machine" then
          return t.json .. ".exit_time: a transition from a sub-machine fires when one to \"exit\" inside it does:"
            .. " it has no exit time of its own"
        end
      end
    end
  end
end

-- The clip of each name: clips a table name -> clip (or a function name ->
-- clip or nil); nil, message naming every one missing.
local function resolve(desc, clips)
  local byname = {}
  local function get(name)
    if byname[name] == nil then
      local c
      if type(clips) == "function" then c = clips(name)
      elseif type(clips) == "table" then c = clips[name] end
      byname[name] = clipmod.is_clip(c) and c or false
    end
    return byname[name]
  end
  local msg = gformat.check_clips(desc, get, type(clips) == "table" and (function()
    local known = {}
    for k, v in pairs(clips) do if type(k) == "string" and clipmod.is_clip(v) then known[#known + 1] = k end end
    byteorder.sort(known)
    return known
  end)() or nil)
  -- (no clips given: where they come from)
  if msg and clips == nil then msg = msg .. " (no clips given: pass them, or read the graph with library:graph)" end
  if msg then return nil, msg end
  return get
end

-- A property keeps one number of components on an animator (play
-- refuses a clip that would break that), so every clip of a graph gives a
-- property one number: two that differ could not play at once, in two
-- layers or in a transition's fade.  seen: name -> { components, where,
-- clip name } of the first clip that gave it; clip c (named `where` in a
-- message) checked against them: nil, or the message's end.
function M.components_problem(seen, c, where)
  local info = clipmod.info(c)
  for _, prop in ipairs(info.properties) do
    local s = seen[prop.name]
    if not s then
      seen[prop.name] = { prop.arity, where, info.name }
    elseif s[1] ~= prop.arity then
      return string.format("clip '%s': its property '%s' has %d component%s, clip '%s' (%s) gives it %d (a property keeps"
        .. " one number of components on an animator)", shown(info.name), shown(prop.name), prop.arity,
        prop.arity == 1 and "" or "s", shown(s[3]), s[2], s[1])
    end
  end
end

-- The blend space of each space state (anim.blendspace's checks: a
-- problem is nil, message with the state's path); the clips of a layer
-- must blend as it says, and give each property one number of components.
local function check_states(desc, get)
  local made, seen = {}, {}
  for _, layer in ipairs(desc.layers) do
    for _, s in ipairs(layer.states) do
      local clips = {}
      if s.kind == "clip" then clips[1] = get(s.clip)
      elseif s.kind == "space" then
        local points = {}
        for i, p in ipairs(s.space.points) do
          points[i] = { at = p.at, clip = get(p.clip) }
          clips[i] = points[i].clip
        end
        local ok, sp = pcall(spaces.new, { points = points, sync = s.space.sync, name = s.path })
        if not ok then
          return nil, string.format("%s.space: %s", s.json, (tostring(sp):gsub("^.-bad argument #1 to 'blendspace' %((.*)%)$", "%1")))
        end
        made[s] = sp
      end
      for i, c in ipairs(clips) do
        local blend = clipmod.info(c).blend
        if blend ~= layer.blend then
          return nil, string.format("%s: clip '%s' blends %s, its layer '%s' %s (a layer's clips blend as it says)",
            s.json, shown(clipmod.info(c).name), blend, shown(layer.name), layer.blend)
        end
        local where = s.kind == "space" and string.format("%s.space.points[%d]", s.json, i) or s.json
        local why = M.components_problem(seen, c, where)
        if why then return nil, where .. ": " .. why end
      end
    end
  end
  return made
end

-- The transitions a travel may take from state u of a layer (edges(u) ->
-- { { tr, fin, to }, ... }: the core's indices, the leaf state reached),
-- in evaluation order: the any-state ones of every machine around u,
-- outermost first, then u's own, an exit followed by each of the parent's
-- transitions from the sub-machine in file order (up again while one
-- exits too).
function M.edges_of(layer, leaf, gindex)
  local function from_machine_state(ms, out, tr, depth)
    for _, ti in ipairs(layer.states[ms].transitions) do
      local t = layer.machines[layer.states[ms].machine].transitions[ti]
      if t.exit then
        if depth < 16 then from_machine_state(layer.machines[layer.states[ms].machine].parent, out, tr, depth + 1) end
      else
        out[#out + 1] = { tr, gindex[t], leaf(t.to) }
      end
    end
  end
  return function(u)
    local out, chain = {}, {}
    local m = layer.states[u].machine
    while m do
      table.insert(chain, 1, m)
      local ms = layer.machines[m].parent
      m = ms and layer.states[ms].machine
    end
    for _, mi in ipairs(chain) do
      local mc = layer.machines[mi]
      for k = 1, mc.any do
        local t = mc.transitions[k]
        if leaf(t.to) ~= u or t.can_self then out[#out + 1] = { gindex[t], gindex[t], leaf(t.to) } end
      end
    end
    local mc = layer.machines[layer.states[u].machine]
    for _, ti in ipairs(layer.states[u].transitions) do
      local t = mc.transitions[ti]
      if t.exit then from_machine_state(mc.parent, out, gindex[t], 0)
      else out[#out + 1] = { gindex[t], gindex[t], leaf(t.to) } end
    end
    return out
  end
end

-- The core's spec (every index 0-based, -1 for none) and the graph's info.
local function compile(desc, get, made)
  local spec = { params = {}, layers = {}, machines = {}, states = {}, trans = {}, conds = {}, durs = {}, clips = {},
    spaces = {} }
  local info = { name = desc.name, desc = desc, layers = {}, state_clips = {}, params = desc.parameters,
    param_index = desc.parameter_index, layer_index = desc.layer_index }
  local clip_index = {}
  for i, p in ipairs(desc.parameters) do
    local d = p.default
    spec.params[i] = { GPARAM[p.type], type(d) == "boolean" and (d and 1 or 0) or d or 0 }
  end
  for li, layer in ipairs(desc.layers) do
    local state0, machine0 = #spec.states, #spec.machines
    -- the state a transition to a sub-machine goes to: its entry's, down
    local function leaf(si)
      while layer.states[si].kind == "machine" do si = layer.machines[layer.states[si].child].entry end
      return si
    end
    -- each machine's transitions in evaluation order: any-state first,
    -- then each state's (together, in file order)
    local first, names, gindex = {}, {}, {}
    for mi, m in ipairs(layer.machines) do
      local any0 = #spec.trans
      for _, t in ipairs(m.transitions) do
        local n0 = #spec.conds
        for _, c in ipairs(t.conditions) do
          local v = c.value
          spec.conds[#spec.conds + 1] = { c.param - 1, c.op, type(v) == "boolean" and (v and 1 or 0) or v or 0 }
        end
        local dur = #spec.durs
        if t.any then
          for _, s in ipairs(layer.states) do spec.durs[#spec.durs + 1] = desc.duration(li, t, s.path) end
        else
          spec.durs[#spec.durs + 1] = t.exit and 0 or desc.duration(li, t, layer.states[t.from].path)
          first[t.from] = first[t.from] or #spec.trans
        end
        gindex[t] = #spec.trans
        spec.trans[#spec.trans + 1] = { t.any and -1 or t.from - 1, t.exit and EXIT or leaf(t.to) - 1, n0,
          #t.conditions, dur, t.exit_time or -1, t.offset or 0, t.curve_interp, t.curve_ease, t.sync and 1 or 0,
          t.interrupt_code, t.can_self and 1 or 0 }
      end
      spec.machines[machine0 + mi] = { m.parent and m.parent - 1 or -1, any0, m.any }
    end
    for si, s in ipairs(layer.states) do
      names[si] = s.path
      local ci, sp, at = -1, -1, { -1, -1 }
      if s.kind == "clip" then
        local c = get(s.clip)
        if not clip_index[c] then
          spec.clips[#spec.clips + 1] = c
          clip_index[c] = #spec.clips - 1
        end
        ci = clip_index[c]
        info.state_clips[state0 + si] = c
      elseif s.kind == "space" then
        spec.spaces[#spec.spaces + 1] = made[s]
        sp = #spec.spaces - 1
        for k, p in ipairs(s.space.parameters) do at[k] = p - 1 end
        info.state_clips[state0 + si] = made[s]
      else
        info.state_clips[state0 + si] = false
      end
      spec.states[#spec.states + 1] = { machine0 + s.machine - 1, s.kind == "machine" and machine0 + s.child - 1 or -1,
        sp, at[1], at[2], ci, s.loop_code or -1, s.speed or 1, s.speed_parameter and s.speed_parameter - 1 or -1,
        first[si] or #spec.trans, #s.transitions }
    end
    spec.layers[li] = { state0, #layer.states, machine0, leaf(layer.entry) - 1, layer.weight, li - 1 }
    info.layers[li] = { name = layer.name, states = names, by_path = layer.by_path, mask = layer.mask, blend = layer.blend,
      state0 = state0, leaf = leaf, edges = M.edges_of(layer, leaf, gindex) }
  end
  return spec, info
end

-- Graphs: the core's boxes, their info their first user value.
local gmt = core.graph_metatable
M.info = core.graph_info

local methods = {}
function methods.parameters(self)
  local out = {}
  for i, p in ipairs(M.info(self).params) do out[i] = { name = p.name, type = p.type, default = p.default } end
  return out
end
function methods.layers(self)
  local out = {}
  for i, l in ipairs(M.info(self).layers) do out[i] = l.name end
  return out
end
function methods.states(self, layer)
  local info = M.info(self)
  local l = M.layer(info, layer, 1, "states")
  local out = {}
  for i, p in ipairs(info.layers[l].states) do out[i] = p end
  return out
end

local fields = { name = function(info) return info.name end }
gmt.__name = "anim.graph"
gmt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local f = fields[k]
  if f then return f(M.info(self)) end
  args.no_field("anim.graph", k, methods, fields)
end
gmt.__tostring = function(self)
  local info = M.info(self)
  return string.format("anim.graph(%s, %d layer%s)", shown(info.name), #info.layers, #info.layers == 1 and "" or "s")
end
args.methods(methods, gmt, "anim.graph")

-- The index of a layer given by name or index (default 1), or raises
-- argument n of fname with a suggestion.
function M.layer(info, l, n, fname)
  if l == nil then return 1 end
  if type(l) == "number" and info.layers[l] then return l end
  if type(l) == "string" and info.layer_index[l] then return info.layer_index[l] end
  local names = {}
  for i, x in ipairs(info.layers) do names[i] = x.name end
  if type(l) == "string" then
    args.error(n, fname, "unknown layer '" .. shown(l) .. "'" .. E.hint(l, names) .. " (the layers: " .. table.concat(names, ", ") .. ")")
  end
  args.error(n, fname, "layer must be a layer name or index (1 to " .. #names .. "), got " .. args.show(l))
end

function M.is_graph(g) return debug.getmetatable(g) == gmt end
M.methods = methods

-- anim.graph(source [, clips]) -> graph | nil, message (name: what a
-- JSON text or a table is called in messages; a library's graph: its
-- res:// path)
function M.new(source, clips, name)
  if type(source) ~= "string" and type(source) ~= "table" then
    args.error(1, "graph", "a path, JSON text or a table expected, got " .. args.typename(source))
  end
  if clips ~= nil and type(clips) ~= "table" and type(clips) ~= "function" then
    args.error(2, "graph", "clips must be a table (name -> clip) or a function (name -> clip), got " .. args.typename(clips))
  end
  local desc, err
  if type(source) == "string" and not source:find("^%s*{") then desc, err = gformat.read(source)
  else desc, err = gformat.decode(source, name) end
  if not desc then return nil, err end
  local why = unsupported(desc)
  if why then return nil, desc.name .. ": " .. why end
  local get, msg = resolve(desc, clips)
  if not get then return nil, msg end
  local made
  made, why = check_states(desc, get)
  if not made then return nil, desc.name .. ": " .. why end
  local spec, info = compile(desc, get, made)
  info.warnings = err
  return core.graph_new(spec, info)
end

return M
