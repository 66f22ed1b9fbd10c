-- controller.lua: animator:control(graph) -> controller, a state machine
-- run on an animator.  The core runs it inside the update
-- (csrc/core/controller.c): this file checks what scripts give (names
-- with suggestions, types), gives the tracks the core starts their
-- objects before their callbacks are delivered (the adopt handler), and
-- delivers the controller's exits, transitions and entries to on_exit,
-- on_transition and on_enter (the state handler), in the update's one
-- time-ordered stream.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local codes = require "anim.base.codes"
local bind = require "anim.format.bind"
local clipmod = require "anim.format.clip"
local rigmod = require "anim.format.rig"
local graphs = require "anim.runtime.graph"
local spaces = require "anim.runtime.blendspace"
local bindcheck = require "anim.runtime.bindcheck"
local connections = require "anim.runtime.connect"
local delivery = require "anim.runtime.deliver"
local dispatch = require "anim.runtime.dispatch"
local playing = require "anim.runtime.playing"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"

local M = {}

local shown, show, argerror = E.shown, args.show, args.error
local STATE_LAYER = require("anim.runtime.state_check").OFFSET.state_layer
local animator_state = core.animator_state
local EV = codes.event

-- The track every layer's entries are queued on: a clip of no joints.
local MARK = clipmod.build({ joints = {} }, "controller", true, true)

local cmt = { __name = "anim.controller", __metatable = "anim.controller" }
-- graph -> the controllers running it (weak both ways): a library's
-- reload moves them onto the new graph (M.move), a clip's reload hosts
-- and rebinds them.  (Each controller is its own value, weak too: the
-- collector clears a weak value found unreachable before it runs the
-- finalizers, a weak key only a cycle later, so that no reload reaches
-- the controller of an animator whose finalizer is still to run, which
-- may then run in the middle of what the reload does to it.)
local running = setmetatable({}, { __mode = "k" })
local methods = {}

-- The controller of self, live (a detached one raises).
local function live(self)
  if getmetatable(self) ~= "anim.controller" then args.raise("controller expected, got " .. args.typename(self)) end
  local ctl = rawget(self, "_")
  if ctl.detached then args.raise("the controller was detached from its animator") end
  return ctl
end

-- The bindings of clip c on the rig for a layer's mask (a set of rig
-- joint names, or nil): bind.get's, or a filtered copy.
local function bindings_masked(b, mask, rinfo)
  local out = { gen = b.gen }
  for _, x in ipairs(b) do
    if mask[rinfo.joints[x.rj].name] then out[#out + 1] = x end
  end
  return out
end
local function bindings(c, rig, mask, rinfo)
  local b = bind.get(c, rig, nil)
  if not mask then return b end
  return bindings_masked(b, mask, rinfo)
end

-- Bindings list b kept to layer `layer`'s mask (graph info's layer),
-- as the layer's tracks play: for a restored track of the layer.
function M.masked(b, layer, rig)
  if not layer.mask then return b end
  local set = {}
  for _, j in ipairs(layer.mask) do set[j] = true end
  return bindings_masked(b, set, rigmod.info(rig))
end

-- The bindings of graph info's states on animator state st's rig, in the
-- core's order (M.control); raises (argument 1 of fname, default
-- `control`) for a mask joint the rig has not, or a clip that plays on
-- nothing.  swap: { [clip] = clip } played instead (a reload's check).
function M.bindings_for(st, info, fname, swap)
  fname = fname or "control"
  swap = swap or {}
  local rig, rinfo = st.rig, rigmod.info(st.rig)
  local binds, seen = {}, {}
  for _, layer in ipairs(info.layers) do
    local mask
    if layer.mask then
      mask = {}
      for _, j in ipairs(layer.mask) do
        if not rinfo.index[j] then
          argerror(1, fname, string.format("graph '%s': layer '%s': mask joint '%s' is not in rig '%s'%s",
            shown(info.name), shown(layer.name), shown(j), shown(rinfo.name or "rig"), E.hint(j, rinfo.names)))
        end
        mask[j] = true
      end
    end
    for si in ipairs(layer.states) do
      local src = info.state_clips[layer.state0 + si]
      local list = src and (spaces.is_space_box(src) and spaces.info(src).clips or { src }) or {}
      for pi, c in ipairs(list) do
        local where = string.format("graph '%s': layer '%s': state '%s': %s", shown(info.name), shown(layer.name),
          shown(layer.states[si]), #list > 1 and "points[" .. pi .. "]." or "")
        -- (a reload's content blends as the layer does: anim.graph's rule)
        if swap[c] and clipmod.info(swap[c]).blend ~= layer.blend then
          argerror(1, fname, string.format("%sclip '%s' would blend %s, its layer %s (a layer's clips blend as it says)", where,
            shown(clipmod.info(c).name), clipmod.info(swap[c]).blend, layer.blend))
        end
        c = swap[c] or c
        -- (a body animator plays no view clip, by play or by a state: play's rule)
        if clipmod.info(c).space == "view" and st.space ~= "view" then
          argerror(1, fname, string.format("%sclip '%s' is a view clip: a body animator cannot play it", where,
            shown(clipmod.info(c).name)))
        end
        -- (and gives each property the components the graph's other clips give it: anim.graph's rule)
        local why = graphs.components_problem(seen, c, string.format("layer '%s': state '%s'%s", shown(layer.name),
          shown(layer.states[si]), #list > 1 and ": points[" .. pi .. "]" or ""))
        if why then argerror(1, fname, where .. why) end
        bindcheck.check(c, rig, nil, fname, where)
        local b = bindings(c, rig, mask, rinfo)
        if mask and #b == 0 then
          argerror(1, fname, string.format("%sclip '%s' plays on no joint of the layer's mask (%s)", where,
            shown(clipmod.info(c).name), table.concat(layer.mask, ", ")))
        end
        binds[#binds + 1] = b
      end
    end
  end
  return binds
end

-- f(bindings) with the bindings of graph info's states on st's rig
-- (M.bindings_for): made again while the core refuses them because a
-- finalizer reloaded one of the graph's clips after they were made (a
-- finalizer runs once: a few tries).
local STALE = "was reloaded while its bindings were made"
local function with_bindings(st, info, fname, f)
  for _ = 1, 8 do
    local ok, res = pcall(f, M.bindings_for(st, info, fname))
    if ok then return res end
    if not (type(res) == "string" and res:find(STALE, 1, true)) then error(res, 0) end
  end
  args.raise(fname .. ": the clips of graph '" .. shown(info.name) .. "' kept being reloaded (by finalizers) while it was bound")
end

-- The core queues the exits, transitions and entries someone listens to
-- (an entry nobody hears costs nothing): told at every (dis)connection.
local function hear(ctl)
  if ctl.detached then return end
  local function any(list) return list ~= nil and #list > 0 end
  core.controller_hear(ctl.animator, (any(ctl.on_exit) and 1 or 0) + (any(ctl.on_transition) and 2 or 0)
    + (any(ctl.on_enter) and 4 or 0))
end

-- animator:control(graph) -> controller
function M.control(animator, graph)
  local st = animator_state(animator)
  if not graphs.is_graph(graph) then argerror(1, "control", "anim.graph expected, got " .. args.typename(graph)) end
  if st.controller then
    args.raise("control: the animator has a controller already (controller:detach() it first)")
  end
  local info = graphs.info(graph)
  local cbs = {}
  for i = 1, #info.layers do cbs[i] = {} end
  local marks = with_bindings(st, info, "control", function(binds) return core.controller_new(animator, graph, binds, MARK, cbs) end)
  for _, m in ipairs(marks) do core.track_slot(m) end
  local ctl = { animator = animator, graph = graph, info = info, marks = marks, over_warned = {}, clash_warned = {} }
  connections.hooks[ctl] = hear
  local self = setmetatable({ _ = ctl }, cmt)
  st.controller = self
  running[graph] = running[graph] or setmetatable({}, { __mode = "kv" })
  running[graph][self] = self
  return self
end

-- The index of parameter `name` (0-based for the core) and its record, or
-- raises argument n of fname with a suggestion.
local function param(ctl, name, n, fname)
  local info = ctl.info
  local i = type(name) == "string" and info.param_index[name]
  if i then return i - 1, info.params[i] end
  local names = {}
  for k, p in ipairs(info.params) do names[k] = p.name end
  if type(name) ~= "string" then argerror(n, fname, "parameter name expected, got " .. args.typename(name)) end
  argerror(n, fname, "unknown parameter '" .. shown(name) .. "'" .. E.hint(name, names)
    .. (#names > 0 and " (the parameters: " .. table.concat(names, ", ") .. ")" or " (the graph has none)"))
end

-- controller:set(name, value)
function methods.set(self, name, v)
  local ctl = live(self)
  local i, p = param(ctl, name, 1, "set")
  if p.type == "trigger" then argerror(1, "set", "'" .. shown(name) .. "' is a trigger: fire it (controller:fire('" .. shown(name) .. "'))") end
  if p.type == "bool" then
    if type(v) ~= "boolean" then argerror(2, "set", "'" .. shown(name) .. "' is a bool parameter: true or false expected, got " .. show(v)) end
    v = v and 1 or 0
  elseif not E.finite(v) then
    argerror(2, "set", "'" .. shown(name) .. "' is a" .. (p.type == "int" and "n int" or " float") .. " parameter: a finite number expected, got " .. show(v))
  elseif p.type == "int" and v ~= math.floor(v) then
    argerror(2, "set", "'" .. shown(name) .. "' is an int parameter: an integer expected, got " .. show(v))
  end
  core.controller_param(ctl.animator, i, v)
end

-- controller:get(name) -> value (a trigger: whether it is armed)
function methods.get(self, name)
  local ctl = live(self)
  local i, p = param(ctl, name, 1, "get")
  local v = core.controller_param(ctl.animator, i)
  if p.type == "bool" or p.type == "trigger" then return v ~= 0 end
  if p.type == "int" then return compat.tointeger(v) or v end
  return v
end

local FIRE_OPTIONS = args.names { "buffer" }

-- controller:fire(name [, { buffer = s }])
function methods.fire(self, name, opts)
  local ctl = live(self)
  local i, p = param(ctl, name, 1, "fire")
  if p.type ~= "trigger" then
    argerror(1, "fire", "'" .. shown(name) .. "' is a" .. (p.type == "int" and "n " or " ") .. p.type
      .. " parameter: set it (controller:set('" .. shown(name) .. "', value))")
  end
  -- (no options: no table made, a fire each frame allocates nothing)
  local b = opts ~= nil and args.options(opts, FIRE_OPTIONS, 2, "fire").buffer or nil
  if b ~= nil and (not E.finite(b) or b < 0) then argerror(2, "fire", "buffer must be a finite number >= 0, got " .. show(b)) end
  core.controller_fire(ctl.animator, i, b or -1)
end

-- controller:current([layer]) -> state, normalized time
function methods.current(self, layer)
  local ctl = live(self)
  local l = graphs.layer(ctl.info, layer, 1, "current")
  local s, nt = core.controller_current(ctl.animator, l - 1)
  return ctl.info.layers[l].states[s + 1], nt
end

-- controller:transition([layer]) -> from, to, progress | nil
function methods.transition(self, layer)
  local ctl = live(self)
  local l = graphs.layer(ctl.info, layer, 1, "transition")
  local tr, from, progress = core.controller_transition(ctl.animator, l - 1)
  if not tr then return nil end
  local states = ctl.info.layers[l].states
  local s = core.controller_current(ctl.animator, l - 1)
  return states[from + 1], states[s + 1], progress
end

local TRAVEL_OPTIONS = args.names { "teleport" }

-- The state of layer l (its index) by name, or raises argument n of fname
-- with a suggestion and the list.
local function state_index(ctl, l, state, n, fname)
  local layer = ctl.info.layers[l]
  local s = type(state) == "string" and layer.by_path[state]
  if s then return s end
  if type(state) ~= "string" then argerror(n, fname, "state name expected, got " .. args.typename(state)) end
  argerror(n, fname, "unknown state '" .. shown(state) .. "' in layer '" .. shown(layer.name) .. "'"
    .. E.hint(state, layer.states) .. " (the states: " .. table.concat(layer.states, ", ") .. ")")
end

-- controller:force(state [, layer [, fade]])
function methods.force(self, state, layer, fade)
  local ctl = live(self)
  local l = graphs.layer(ctl.info, layer, 2, "force")
  local s = state_index(ctl, l, state, 1, "force")
  if fade ~= nil and (not E.finite(fade) or fade < 0) then argerror(3, "force", "fade must be a finite number >= 0, got " .. show(fade)) end
  -- (a sub-machine: its entry's state, down)
  core.controller_force(ctl.animator, l - 1, ctl.info.layers[l].leaf(s) - 1, fade or 0)
end

-- controller:travel(state [, layer] [, { teleport = true }]): the shortest
-- path of transitions from the current state (ties by evaluation order),
-- taken whatever their conditions; none raises unless teleport, which
-- goes there as force does.
function methods.travel(self, state, layer, opts)
  local ctl = live(self)
  if type(layer) == "table" and opts == nil then layer, opts = nil, layer end
  local l = graphs.layer(ctl.info, layer, 2, "travel")
  opts = args.options(opts, TRAVEL_OPTIONS, 3, "travel")
  local info = ctl.info.layers[l]
  local target = info.leaf(state_index(ctl, l, state, 1, "travel"))
  local start = core.controller_current(ctl.animator, l - 1) + 1
  if start == target then return end
  -- breadth first: the first path found is the shortest, ties by order
  local prev, queue, head = { [start] = false }, { start }, 1
  while head <= #queue and prev[target] == nil do
    local u = queue[head]
    head = head + 1
    for _, e in ipairs(info.edges(u)) do
      local v = e[3]
      if prev[v] == nil then
        prev[v] = { u, e }
        queue[#queue + 1] = v
      end
    end
  end
  if prev[target] == nil then
    if opts.teleport then
      core.controller_force(ctl.animator, l - 1, target - 1, 0)
      return
    end
    argerror(1, "travel", string.format("no path of transitions from '%s' to '%s' in layer '%s' (teleport = true goes there at once)",
      shown(info.states[start]), shown(info.states[target]), shown(info.name)))
  end
  local trs, fins, v = {}, {}, target
  while v ~= start do
    local p = prev[v]
    table.insert(trs, 1, p[2][1])
    table.insert(fins, 1, p[2][2])
    v = p[1]
  end
  if not core.controller_travel(ctl.animator, l - 1, trs, fins) then
    argerror(1, "travel", string.format("the path from '%s' to '%s' takes %d transitions (at most %d)", shown(info.states[start]),
      shown(info.states[target]), #trs, 64))
  end
end

-- controller:weight(layer, w [, fade])
function methods.weight(self, layer, w, fade)
  local ctl = live(self)
  local l = graphs.layer(ctl.info, layer, 1, "weight")
  if not E.finite(w) or w < 0 then argerror(2, "weight", "weight must be a finite number >= 0, got " .. show(w)) end
  if fade ~= nil and (not E.finite(fade) or fade < 0) then argerror(3, "weight", "fade must be a finite number >= 0, got " .. show(fade)) end
  core.controller_weight(ctl.animator, l - 1, w, fade or 0)
end

function methods.on_enter(self, fn) return connections.connect(live(self), "on_enter", fn, "on_enter") end
function methods.on_exit(self, fn) return connections.connect(live(self), "on_exit", fn, "on_exit") end
function methods.on_transition(self, fn) return connections.connect(live(self), "on_transition", fn, "on_transition") end

-- The tracks of controller ctl's masked layers keep playing on the mask
-- once no layer holds them (a detach, a move): st.masks[track] = the
-- mask, which the animator's state writes (runtime/state.lua).
local function keep_masks(ctl)
  local st = animator_state(ctl.animator)
  for _, t in ipairs(core.animator_state_export(ctl.animator).tracks) do
    local layer = t.point == 0 and ctl.info.layers[t.f[STATE_LAYER] + 1]
    local track = layer and layer.mask and st.live[t.id]
    if track then
      st.masks = st.masks or setmetatable({}, { __mode = "k" })
      st.masks[track] = layer.mask
    end
  end
end

-- controller:detach(): the animator keeps its tracks as they are (a
-- script may stop them); the controller is no longer usable.
function methods.detach(self)
  local ctl = live(self)
  delivery.host(ctl.animator)
  keep_masks(ctl)
  core.controller_detach(ctl.animator)
  animator_state(ctl.animator).controller = nil
  ctl.detached = true
end

local fields = {
  graph = function(ctl) return ctl.graph end,
  animator = function(ctl) return ctl.animator end,
}

cmt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local f = fields[k]
  if f then return f(rawget(self, "_")) end
  args.no_field("anim.controller", k, methods, fields)
end
cmt.__newindex = function(_, k) args.raise("cannot set controller field '" .. shown(k) .. "'") end
cmt.__tostring = function(self)
  local ctl = rawget(self, "_")
  return string.format("anim.controller(%s%s)", shown(ctl.info.name), ctl.detached and ", detached" or "")
end

-- A reloaded graph ----------------------------------------------------------------------

-- Controller self moves onto graph g2 (a library's reload of its graph):
-- the parameters of the same name and type keep their values (triggers
-- their arming); a layer of the same name keeps its current state where
-- g2 has it (its track, when the state plays the same clip or space; else
-- it enters it again at the next update), else goes to its entry at the
-- next update; transitions under way and travels are dropped (their
-- tracks fade on as they were); a new layer starts at its entry.  The
-- script's object and its callbacks stay.
function M.move(self, g2)
  local ctl = rawget(self, "_")
  -- (a collected animator's controller may stay known until the next cycle)
  if ctl.detached or not core.animator_live(ctl.animator) then return end
  local animator, info, info2, from = ctl.animator, ctl.info, graphs.info(g2), ctl.graph
  local st = animator_state(animator)
  delivery.host(animator)
  local old = core.controller_save(animator)
  local cur = {}
  for l, layer in ipairs(info.layers) do
    local r = old.layers[l]
    local s = r[2] + 1
    local track
    for _, t in pairs(st.live) do
      local _, _, _, _, _, _, id = core.track_state(t)
      if id == r[17] then track = t end
    end
    cur[layer.name] = { path = layer.states[s], src = info.state_clips[layer.state0 + s], r = r, track = track }
  end
  local raw = { params = {}, buffers = {}, armed = {}, layers = {} }
  for l = 1, #info2.layers do raw.armed[l] = {} end
  for i, p in ipairs(info2.params) do
    local k = info.param_index[p.name]
    local same = k and info.params[k].type == p.type
    local d = p.default
    raw.params[i] = same and old.params[k] or type(d) == "boolean" and (d and 1 or 0) or d or 0
    raw.buffers[i] = same and old.buffers[k] or -1
    for l, layer in ipairs(info2.layers) do
      local l1 = info.layer_index[layer.name]
      raw.armed[l][i] = same and l1 and old.armed[l1][k] or 0
    end
  end
  local tracks = {}
  for l, layer in ipairs(info2.layers) do
    local c = cur[layer.name]
    local s = c and layer.by_path[c.path]
    local leaf = s and layer.leaf(s) == s
    local r = c and c.r
    -- started, cur, tr, src, force, nplan, iplan, nt, src_nt, fade_end, fade_dur, force_fade, weight
    if leaf then
      local same = info2.state_clips[layer.state0 + s] == c.src
      raw.layers[l] = { r[1], s - 1, -1, s - 1, same and -1 or s - 1, 0, 0, r[8], r[8], 0, 0, 0, r[13], r[14], r[15], r[16], plan = {} }
      tracks[l] = c.track or false
    elseif c then
      local e = layer.leaf(info2.desc.layers[l].entry) - 1
      raw.layers[l] = { r[1], e, -1, e, e, 0, 0, 0, 0, 0, 0, 0, r[13], r[14], r[15], r[16], plan = {} }
      tracks[l] = c.track or false
    else
      local e = layer.leaf(info2.desc.layers[l].entry) - 1
      local w = info2.desc.layers[l].weight
      raw.layers[l] = { 0, e, -1, e, -1, 0, 0, 0, 0, 0, 0, 0, w, w, 0, 0, plan = {} }
      tracks[l] = false
    end
  end
  keep_masks(ctl)
  core.controller_detach(animator)
  st.controller = nil
  local fresh = M.control(animator, g2)
  local l, why = core.controller_load(animator, raw, tracks)
  if l then error(string.format("controller: moving onto the reloaded graph: layer %d: %s out of range", l, why), 0) end
  -- (the script's object and its callbacks' table stay -- the connections
  -- it gave hold that table -- with the new controller's insides)
  for k, v in pairs(rawget(fresh, "_")) do ctl[k] = v end
  running[g2][fresh] = nil
  running[g2][self] = self
  -- (no longer running the graph it left: a later reload of a graph the
  -- file made before does not move it again)
  if running[from] and from ~= g2 then running[from][self] = nil end
  st.controller = self
  hear(ctl)
end

-- (a library's reload of a graph: runtime/library.lua)
require("anim.runtime.library").on_graph_reload = function(old, g2)
  local list = {}
  for self in pairs(running[old] or {}) do list[#list + 1] = self end
  for _, self in ipairs(list) do
    -- (an animator found unreachable may be finalized by the collector in
    -- the middle of its move -- LuaJIT runs a pending finalizer at any
    -- allocation --: its controller is gone then, and so is the error.
    -- Its finalizer marks the controller detached: whether the animator
    -- lives decides, as delivery.rebind's does; move passes over one
    -- detached before it)
    local ctl = rawget(self, "_")
    local ok, err = pcall(M.move, self, g2)
    if not ok and core.animator_live(ctl.animator) then error(err, 0) end
  end
end

-- The handlers of the delivery (runtime/deliver.lua) --------------------------------------

-- The tracks the last update started: their objects and slots, as play
-- gives them; then the queue's entries find them.
-- (per graph: what playing.note would set for each state's track)
local adopt_notes = setmetatable({}, { __mode = "k" })
local function notes_of(info)
  local notes = adopt_notes[info]
  if notes then return notes end
  notes = {}
  for gs, src in pairs(info.state_clips) do
    if src then notes[gs] = spaces.is_space_box(src) and playing.notes(nil, spaces.info(src).clips) or playing.notes(src) end
  end
  adopt_notes[info] = notes
  return notes
end

-- The tracks animator's controller started that have no object yet get
-- theirs (all of them, or only those with entries queued): -> the layers
-- (bits) over the bound in its last update.
local function adopt(animator, all)
  local st = animator_state(animator)
  local self = st.controller
  if not self then return 0 end
  local ctl = rawget(self, "_")
  return core.controller_adopt(animator, ctl.info.state_clips, st.live, st.cbs, st.src, notes_of(ctl.info),
    dispatch.marks, all)
end

-- The warning of a state entered with no track: its clip (a point's)
-- gives a property another number of components than a track on the
-- animator (csrc/core/controller.c, clashes); once per state.
local function warn_clash(ctl, l, si, point, p, other)
  local layer = ctl.info.layers[l]
  local key = layer.state0 + si
  if ctl.clash_warned[key] then return end
  ctl.clash_warned[key] = true
  local src = ctl.info.state_clips[key]
  local c = spaces.is_space_box(src) and spaces.info(src).clips[point] or src
  local cinfo = clipmod.info(c)
  local prop = cinfo.properties[p]
  E.warn(string.format("anim: graph '%s': layer '%s': state '%s': %sclip '%s': its property '%s' has %d component%s, but a"
    .. " track on the animator gives it %d: the state plays no track (a property keeps one number of components on an"
    .. " animator)", shown(ctl.info.name), shown(layer.name), shown(layer.states[si]),
    spaces.is_space_box(src) and "points[" .. point .. "]." or "", shown(cinfo.name), shown(prop.name), prop.arity,
    prop.arity == 1 and "" or "s", other))
end

-- At a delivery: the tracks whose entries are queued (their callbacks
-- reach them), and the warnings of a layer over the bound and of a state
-- that plays no track.
function delivery.adopt(animator)
  local over = adopt(animator, false)
  local cl, si, point, p, other = core.controller_clash(animator)
  local self = animator_state(animator).controller
  if cl and self then warn_clash(rawget(self, "_"), cl, si, point, p, other) end
  if over ~= 0 then
    local ctl = rawget(animator_state(animator).controller, "_")
    for l, layer in ipairs(ctl.info.layers) do
      local bit = 2 ^ math.min(l - 1, 31)
      if over % (2 * bit) >= bit and not ctl.over_warned[l] then
        ctl.over_warned[l] = true
        E.warn(string.format("anim: graph '%s': layer '%s' had more than 8 transitions in one update; the rest wait"
          .. " for the next update (a cycle of instant transitions?)", shown(ctl.info.name), shown(layer.name)))
      end
    end
  end
end

-- Before a script reads or changes an animator's tracks (tracks(), stop(),
-- state(), restore(), a `plays` item, a detach or a move): all of them.
function delivery.host(animator) adopt(animator, true) end
-- A clip's reload (runtime/reload.lua): the controllers whose graphs play
-- it (their states, their blend spaces' points).
-- Every controller running on a live animator (a collected animator's
-- controller may stay in `running` until the next cycle: passed over).
local function live_controllers()
  local out = {}
  for _, set in pairs(running) do
    for self in pairs(set) do
      local ctl = rawget(self, "_")
      if not ctl.detached and core.animator_live(ctl.animator) and animator_state(ctl.animator).controller == self then
        out[#out + 1] = ctl
      end
    end
  end
  return out
end

local function plays(ctl, clip)
  for _, src in pairs(ctl.info.state_clips) do
    for _, c in ipairs(src and (spaces.is_space_box(src) and spaces.info(src).clips or { src }) or {}) do
      if c == clip then return true end
    end
  end
  return false
end
local function playing_clip(clip)
  local out = {}
  for _, ctl in ipairs(live_controllers()) do
    if plays(ctl, clip) then out[#out + 1] = ctl end
  end
  return out
end
-- What fresh content for clip would break (a message), or nil: a state
-- of a controller's graph would play on no joint of its rig or mask.
-- (An animator finalized meanwhile keeps its state table: checked alike.)
function delivery.reload_problem(clip, fresh)
  for _, ctl in ipairs(playing_clip(clip)) do
    local ok, err = pcall(M.bindings_for, animator_state(ctl.animator), ctl.info, "reload", { [clip] = fresh })
    if not ok then return tostring(err) end
  end
end
-- After the reload: those controllers' states play it with new bindings.
-- (A finalizer run by an allocation here may finalize an animator listed
-- live: its controller is gone then, and so is the error.)
function delivery.rebind(clip)
  for _, ctl in ipairs(playing_clip(clip)) do
    local ok, err = pcall(function()
      with_bindings(animator_state(ctl.animator), ctl.info, "reload",
        function(binds) core.controller_rebind(ctl.animator, binds) end)
    end)
    if not ok and core.animator_live(ctl.animator) then error(err, 0) end
  end
end

-- The bindings b of track (of st's animator) for a reloaded clip: kept to
-- the mask of the layer that started it, or to the one it kept from a
-- detach or a move (keep_masks).
function delivery.track_bindings(st, track, b)
  local mask = st.masks and st.masks[track]
  if mask then b = M.masked(b, { mask = mask }, st.rig) end
  -- (a finalizer may have finalized the track meanwhile: the reload
  -- passes over it then)
  local ok, l = pcall(core.track_layer, track)
  local layer = ok and st.controller and l >= 0 and rawget(st.controller, "_").info.layers[l + 1]
  if layer then b = M.masked(b, layer, st.rig) end
  return b
end

-- Before a clip's reload rebinds the tracks that play it: every
-- controller's.
function delivery.host_all()
  for _, ctl in ipairs(live_controllers()) do adopt(ctl.animator, true) end
end

-- An exit, transition or entry to the controller's callbacks.
function delivery.state(animator, ty, l, s, other, late, in_co, batch)
  local self = animator_state(animator).controller
  if not self then return end
  local ctl = rawget(self, "_")
  local layer = ctl.info.layers[l + 1]
  local states = layer.states
  if ty == EV.exit then return delivery.call(ctl.on_exit, nil, in_co, batch, layer.name, states[s + 1], late)
  elseif ty == EV.enter then return delivery.call(ctl.on_enter, nil, in_co, batch, layer.name, states[s + 1], late)
  else return delivery.call(ctl.on_transition, nil, in_co, batch, layer.name, states[other + 1], states[s + 1], late) end
end

args.methods(methods, cmt, "anim.controller")
M.is_controller = function(x) return getmetatable(x) == "anim.controller" end
M.methods = methods
return M
