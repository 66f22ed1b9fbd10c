-- cli_graph.lua: the command's side of .animgraph files (state machines:
-- format/graph.lua): `anim validate` and `anim info` of one (cli_validate.lua
-- and cli_info.lua hand them here), and the verb `anim graph`, which draws
-- one (tool/graph_svg.lua).
local anim = require "anim"
local E = require "anim.base.errors"
local graph = require "anim.format.graph"
local N = require "anim.format.graph_names"
local C = require "anim.tool.cli_common"
local draw = require "anim.tool.graph_svg"
local byteorder = require "anim.base.order"
local fail, USAGE, INPUT, out, bold, one_line, shown, num, count, write_output =
  C.fail, C.USAGE, C.INPUT, C.out, C.bold, C.one_line, C.shown, C.num, C.count, C.write_output

local M = {}
M.verbs = {}

-- Whether the command reads a file as a graph: by its name (*.animgraph).
function M.is_graph(path)
  return path:lower():match("%.animgraph$") ~= nil
end

-- The folder a file is in ("." for a bare name).
local function folder(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- Clips beside a graph ------------------------------------------------------------------

-- The res:// path a clip name of the graph is looked up as, in a library
-- rooted at the graph's folder: res://x as written, else the name with
-- .anim added unless it ends so ("walk" and "walk.anim": res://walk.anim).
function M.clip_path(name)
  if name:sub(1, 6) == "res://" then return name end
  return "res://" .. name .. (name:match("%.anim$") and "" or ".anim")
end

-- The names of the .anim files under dir (sub/walk for dir/sub/walk.anim),
-- for suggestions.
local function names_under(dir)
  local files, arg = C.find(dir, "-name '*.anim' -type f")
  local list = {}
  for i, f in ipairs(files) do list[i] = f:sub(#arg + 2):gsub("%.anim$", "") end
  byteorder.sort(list)
  return list
end

-- The problems of desc's clips, looked up beside the graph file: lines
-- "json.path: unknown clip 'x'" (with the closest .anim file's name), and
-- "json.path: clip 'x': the loader's message" for a file that does not load.
function M.clip_problems(path, desc)
  local lib = anim.library(folder(path))
  local broken = {}
  local function has(name)
    local c, err = lib:clip(M.clip_path(name))
    if c then return true end
    if err:find(": cannot open file: ", 1, true) then return false end
    if not broken[name] then -- (there, but it does not load: said below, once)
      broken[name] = true
      broken[#broken + 1] = { name = name, err = err }
    end
    return true
  end
  local _, lines = graph.check_clips(desc, has)
  if #lines > 0 then
    -- (the folder is walked for suggestions only when a clip is missing;
    -- the library remembers what it found)
    _, lines = graph.check_clips(desc, has, names_under(folder(path)))
  end
  for _, b in ipairs(broken) do
    for _, c in ipairs(desc.clips) do
      if c.name == b.name then lines[#lines + 1] = string.format("%s: clip '%s': %s", c.json, shown(c.name), b.err) end
    end
  end
  return lines
end

-- anim validate FILE.animgraph: its error, or its warnings and clip
-- problems, one line each; returns whether it has a problem, the count of
-- warnings.
function M.validate(path, strict)
  local desc, warnings = graph.read(path)
  if not desc then
    out("%s", one_line(warnings))
    return true, 0
  end
  local bad = false
  for _, line in ipairs(M.clip_problems(path, desc)) do
    out("%s", one_line(shown(path) .. ": " .. line))
    bad = true
  end
  for _, w in ipairs(warnings) do out("%s", one_line(shown(path) .. ": " .. w)) end
  return bad or (strict and #warnings > 0), #warnings
end

-- anim info FILE.animgraph ----------------------------------------------------------------

local function condition_text(desc, c)
  local p = desc.parameters[c.param]
  if c.op == N.SET then return shown(p.name) end
  return string.format("%s %s %s", shown(p.name), N.OPS[c.op + 1], type(c.value) == "number" and num(c.value)
    or tostring(c.value))
end
M.condition_text = condition_text

-- An any-state transition's durations from the mix table (the pair
-- current state -> destination): "0.05 s (mix)" when every state it may
-- leave gives the same, else the most common one and the others by
-- source, "0.2 s (mix; 0.3 s from run, walk)"; "" when all are 0.
local function any_mix(desc, layer, t)
  local by, order = {}, {}
  for _, s in ipairs(layer.states) do
    if s.kind ~= "machine" and (t.can_self or s.index ~= t.to) then
      local d = desc.duration(layer.index, t, s.path)
      if not by[d] then by[d] = {}; order[#order + 1] = d end
      by[d][#by[d] + 1] = s.path
    end
  end
  table.sort(order, function(x, y) return #by[x] > #by[y] or (#by[x] == #by[y] and x < y) end)
  if #order == 0 or (#order == 1 and order[1] == 0) then return "" end
  local rest = {}
  for i = 2, #order do rest[#rest + 1] = num(order[i]) .. " s from " .. table.concat(by[order[i]], ", ") end
  return num(order[1]) .. " s (mix" .. (#rest > 0 and "; " .. table.concat(rest, "; ") or "") .. ")"
end

-- A transition's conditions, exit time and duration in words, as the
-- picture labels it: "jump, 0.1 s", "exit 0.9", "grounded == true, 0.15 s sineinout".
function M.transition_text(desc, layer, t)
  local parts = {}
  for _, c in ipairs(t.conditions) do parts[#parts + 1] = condition_text(desc, c) end
  local words = { table.concat(parts, " & ") }
  if t.exit_time then words[#words + 1] = "exit " .. num(t.exit_time) end
  local d = t.duration
  if not d and t.from and t.to then d = desc.duration(layer.index, t, layer.states[t.from].path) end
  -- (the mix table's duration when it gives one; none: 0, said by nothing)
  if d and (t.duration or d > 0) then words[#words + 1] = num(d) .. " s" .. (t.duration and "" or " (mix)") end
  if not d and not t.from and t.to then words[#words + 1] = any_mix(desc, layer, t) end
  if t.curve ~= "linear" then words[#words + 1] = t.curve end
  local s = {}
  for _, w in ipairs(words) do if w ~= "" then s[#s + 1] = w end end
  return table.concat(s, ", ")
end

local function state_text(desc, s)
  if s.kind == "clip" then
    return "clip " .. shown(s.clip) .. (s.loop and (", " .. s.loop) or "") .. (s.speed ~= 1 and (", speed " .. num(s.speed)) or "")
      .. (s.speed_parameter and (" x " .. shown(desc.parameters[s.speed_parameter].name)) or "")
  elseif s.kind == "space" then
    local ps = {}
    for i, p in ipairs(s.space.parameters) do ps[i] = shown(desc.parameters[p].name) end
    return string.format("%dD space over %s, %s", s.space.dimensions, table.concat(ps, ", "), count(#s.space.points, "point"))
  elseif s.kind == "machine" then
    return "machine"
  end
  return "empty"
end

function M.info(path)
  local desc, warnings = graph.read(path)
  if not desc then fail(INPUT, "%s", warnings) end
  local function field(k, v) out("  %-10s %s", k, v) end
  out(bold(one_line(path)))
  field("version", "1 (state machine)")
  out(bold(string.format("parameters (%d)", #desc.parameters)))
  for _, p in ipairs(desc.parameters) do
    out("  %-12s %s%s", one_line(shown(p.name)), p.type, p.default ~= nil and ("  default " .. (type(p.default) == "number" and num(p.default) or tostring(p.default))) or "")
  end
  local nstates, ntrans = 0, 0
  for _, layer in ipairs(desc.layers) do
    nstates = nstates + #layer.states
    for _, m in ipairs(layer.machines) do ntrans = ntrans + #m.transitions end
  end
  out(bold(string.format("layers (%d, %s, %s)", #desc.layers, count(nstates, "state"), count(ntrans, "transition"))))
  for _, layer in ipairs(desc.layers) do
    out("  %s  blend %s, weight %s, %s, entry %s", one_line(shown(layer.name)), layer.blend, num(layer.weight),
      layer.mask and ("mask " .. one_line(E.shown_list(layer.mask))) or "all joints",
      one_line(shown(layer.states[layer.entry].path)))
    out("    states (%d)", #layer.states)
    for _, s in ipairs(layer.states) do
      local m = s.child and layer.machines[s.child]
      out("      %-14s %s%s", one_line(shown(s.path)), one_line(state_text(desc, s)),
        m and (", entry " .. one_line(shown(layer.states[m.entry].path))) or "")
    end
    local n = 0
    for _, m in ipairs(layer.machines) do n = n + #m.transitions end
    out("    transitions (%d)", n)
    for _, m in ipairs(layer.machines) do
      for _, t in ipairs(m.transitions) do
        local from = t.any and ((m.path == "" and "" or (m.path .. "/")) .. "any") or layer.states[t.from].path
        local to = t.exit and ((m.path) .. "/exit") or layer.states[t.to].path
        local text = M.transition_text(desc, layer, t)
        out("      %s -> %s%s", one_line(shown(from)), one_line(shown(to)), text ~= "" and ("  " .. one_line(text)) or "")
      end
    end
  end
  if #warnings > 0 then
    out(bold(string.format("warnings (%d)", #warnings)))
    for _, w in ipairs(warnings) do out("  %s", one_line(w)) end
  end
  return 0
end

-- anim graph ----------------------------------------------------------------------------------

M.verbs.graph = {
  usage = "anim graph FILE.animgraph -o graph.svg",
  options = { output = true },
  summary = "draw a state machine (.animgraph) as an SVG picture",
  help = [[
Draws each layer of a state machine file (.animgraph) as an SVG picture,
one panel per layer, one under the other: its states as boxes (a
sub-machine as a box holding its own states), the entry state marked by a
dot and an arrow, the transitions as arrows labelled with their conditions,
exit time, duration (its own, or the mix table's: "(mix)") and curve; the
any-state transitions start from a dashed "any" box, a sub-machine's
"exit" transitions end at a dashed "exit" box.  The states of a machine
stand on a circle, in the order of their names.  A file that does not load
is reported as anim validate does, and nothing is written.  -o - writes the
SVG to standard output.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local desc, err = graph.read(pos[1])
    if not desc then fail(INPUT, "%s", err) end
    write_output(opt.output, draw.render(desc, {
      title = pos[1], label = function(layer, t) return M.transition_text(desc, layer, t) end,
      state_text = function(s) return state_text(desc, s) end,
    }))
    return 0
  end,
}

return M
