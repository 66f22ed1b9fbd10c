-- graph_lint.lua: what `anim validate` reports about a .animgraph file
-- beyond the errors of its reader (format/graph.lua): the warnings of
-- M.lint, each "json.path: message", and the check of its clip names
-- against what a resolver knows (M.check_clips).  All of it is linear in
-- the size of the description (a suggestion's work is bounded: suggest.lua).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local byteorder = require "anim.base.order"

local M = {}

local shown = E.shown

-- Whether a transition may fire as soon as its source is current:
-- neither conditions nor an exit time.
local function always(t) return #t.conditions == 0 and t.exit_time == nil end

-- The parameters the graph reads: { [index] = "condition" | "trigger" | "other" }.
local function uses(desc)
  local used = {}
  for _, layer in ipairs(desc.layers) do
    for _, s in ipairs(layer.states) do
      if s.speed_parameter then used[s.speed_parameter] = true end
      if s.space then for _, p in ipairs(s.space.parameters) do used[p] = true end end
    end
    for _, m in ipairs(layer.machines) do
      for _, t in ipairs(m.transitions) do
        for _, c in ipairs(t.conditions) do used[c.param] = true end
      end
    end
  end
  return used
end

local function parameters(desc, out)
  local used = uses(desc)
  for _, p in ipairs(desc.parameters) do
    if not used[p.index] then
      if p.type == "trigger" then
        out[#out + 1] = p.json .. ": a trigger no transition consumes (firing it does nothing)"
      else
        out[#out + 1] = p.json .. ": a parameter no transition, state or space uses"
      end
    end
  end
end

-- The warnings of one machine's transitions and states.  exits: the
-- layer's machines that have a transition to "exit".
local function machine(desc, layer, m, out, exits)
  local reached = { [m.entry] = true }
  for _, t in ipairs(m.transitions) do
    if t.to then reached[t.to] = true end
    local to = t.to and shown(layer.states[t.to].path) or "exit"
    if t.any then
      if always(t) then
        out[#out + 1] = t.json .. ": an any-state transition with neither conditions (when) nor exit_time: it fires at"
          .. " once from every state"
      end
      if not t.can_self_given and t.to then
        out[#out + 1] = string.format("%s: an any-state transition to '%s' does not fire while '%s' is current"
          .. " (can_self is false: write it, true to restart '%s', false to keep this)", t.json, to, to, to)
      end
    else
      if t.can_self_given then
        out[#out + 1] = t.json .. ".can_self: can_self applies to any-state transitions: it changes nothing here"
      end
    end
  end
  for _, si in ipairs(m.states) do
    local s = layer.states[si]
    if not reached[si] then
      out[#out + 1] = s.json .. ": no transition reaches this state (only a machine's entry is entered without one)"
    end
    -- (a machine state's transitions are evaluated once its machine exits:
    -- one without conditions is the way out, and none fires without an exit)
    local machine_state = s.kind == "machine"
    if machine_state and #s.transitions > 0 and not exits[s.child] then
      out[#out + 1] = string.format("%s: never fires: the machine of '%s' has no transition to \"exit\"",
        m.transitions[s.transitions[1]].json, shown(s.path))
    end
    local first -- the first transition from s that always may fire: the later ones never do
    for _, ti in ipairs(s.transitions) do
      local t = m.transitions[ti]
      if first then
        out[#out + 1] = string.format("%s: never fires: %s, from the same state before it, has neither conditions"
          .. " nor exit_time", t.json, first.json)
      elseif always(t) then
        first = t
        if not machine_state then
          out[#out + 1] = string.format("%s: a transition from '%s' with neither conditions (when) nor exit_time: it"
            .. " fires as soon as '%s' is current", t.json, shown(s.path), shown(s.path))
        end
      end
    end
    s.lint_next = not machine_state and first and first.to and desc.duration(layer.index, first, s.path) == 0 and first
      or nil
  end
end

-- Cycles of zero-duration transitions that always may fire: each state has
-- at most one (the first of its own: lint_next), so the states and these
-- make a functional graph, whose cycles one walk finds.  (A machine
-- state's transitions wait for its machine's exit: they take no part.)
local function cycles(layer, out)
  local mark = {} -- nil: not seen; a number: seen in walk n (done when another walk's)
  for walk, s0 in ipairs(layer.states) do
    local s = s0
    while s and not mark[s.index] do
      mark[s.index] = walk
      s = s.lint_next and layer.states[s.lint_next.to]
    end
    if s and mark[s.index] == walk then -- a cycle of this walk, from s
      local names, at = {}, s
      repeat
        names[#names + 1] = shown(at.path)
        at = layer.states[at.lint_next.to]
      until at == s
      names[#names + 1] = shown(s.path)
      local list = #names > 21 and (table.concat(names, " -> ", 1, 20) .. " -> ... (" .. (#names - 1) .. " states)")
        or table.concat(names, " -> ")
      out[#out + 1] = string.format("%s: zero-duration transitions with neither conditions nor exit_time form a cycle"
        .. " (%s): the runtime stops it at 8 transitions per layer and update", s.lint_next.json, list)
    end
  end
  for _, s in ipairs(layer.states) do s.lint_next = nil end
end

-- lint(desc) -> { "json.path: message", ... }: parameters first, then each
-- layer's machines (transitions, then states), then its cycles.
function M.lint(desc)
  local out = {}
  parameters(desc, out)
  for _, layer in ipairs(desc.layers) do
    local exits = {}
    for _, m in ipairs(layer.machines) do
      for _, t in ipairs(m.transitions) do if t.exit then exits[m.index] = true end end
    end
    for _, m in ipairs(layer.machines) do machine(desc, layer, m, out, exits) end
    cycles(layer, out)
  end
  return out
end

-- How many unresolved clips a message names (the lines list them all).
local LISTED = 20

function M.check_clips(desc, has_clip, known)
  local fn = has_clip
  if type(has_clip) == "table" then
    fn = function(n) return has_clip[n] ~= nil end
    if not known then
      known = {}
      for k in pairs(has_clip) do if type(k) == "string" then known[#known + 1] = k end end
      byteorder.sort(known)
    end
  end
  local prepared = known and suggest.prepare(known)
  -- (one budget for all the suggestions, and only the first LISTED
  -- names get one: each search also looks at every known name for one
  -- that differs in letter case alone, so 60,000 unknown names against
  -- 60,000 known took 105 s with a search each)
  local budget = { cells = 4 * suggest.MAX_CELLS }
  local searches = 0
  local found, lines = {}, {}
  for _, c in ipairs(desc.clips) do
    local ok = found[c.name]
    if ok == nil then
      ok = fn(c.name) and true or false
      found[c.name] = ok
    end
    if not ok then
      local s
      if prepared and searches < LISTED then
        searches = searches + 1
        s = suggest.closest(c.name, prepared, budget)
      end
      lines[#lines + 1] = string.format("%s: unknown clip '%s'%s", c.json, shown(c.name), E.did_you_mean(s))
    end
  end
  if #lines == 0 then return nil, lines end
  if #lines == 1 then return shown(desc.name) .. ": " .. lines[1], lines end
  local more = #lines > LISTED and string.format("; ... (%d in all)", #lines) or ""
  return string.format("%s: %d clips not found: %s%s", shown(desc.name), #lines,
    table.concat(lines, "; ", 1, math.min(#lines, LISTED)), more), lines
end

return M
