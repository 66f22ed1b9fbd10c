-- graph_svg.lua: a state machine (format/graph.lua's description) drawn
-- as SVG for `anim graph`: a panel per layer, one under the other.  The
-- layout is simple and deterministic: the nodes of a machine (an "any"
-- box when it has any-state transitions, its states in name order, an
-- "exit" box when it leaves) stand on a circle wide enough that
-- neighbours keep a gap for the labels; a sub-machine's state is a box
-- holding its own circle.  Arrows go from box edge to box edge (several
-- between one pair side by side), a transition to its own state is a loop
-- over the box, and each label sits near its arrow's middle, on its left,
-- on a white halo.
-- Classes for the specs and for styling: rect.state (data-path),
-- path.transition, text.label, g.entry.
local svg = require "anim.tool.svg"
local E = require "anim.base.errors"

local M = {}

local CHAR = 7 -- the width of a character at font-size 12, roughly
local PAD, GAP, TITLE = 32, 70, 26
local LEAF_H = 42

local function text_width(s) return #s * CHAR end

-- The size of a state's box, and for a machine state the layout inside it.
local layout_machine
local function measure(ctx, layer, s)
  if s.kind == "machine" then
    local inner = layout_machine(ctx, layer, layer.machines[s.child])
    return math.max(inner.w + 2 * 10, text_width(s.name) + 30), inner.h + TITLE + 10, inner
  end
  local sub = ctx.state_text(s)
  return math.max(90, text_width(E.shown(s.name)) + 24, math.min(text_width(sub), 280) + 24), LEAF_H
end

-- A machine's nodes on a circle: { w, h, nodes = { { kind, state, x, y,
-- w, h, inner } } }, x and y the centres relative to the layout's corner.
function layout_machine(ctx, layer, m)
  local nodes = {}
  if m.any > 0 then nodes[#nodes + 1] = { kind = "any", w = 60, h = 30 } end
  for _, si in ipairs(m.states) do
    local s = layer.states[si]
    local w, h, inner = measure(ctx, layer, s)
    nodes[#nodes + 1] = { kind = "state", state = s, w = w, h = h, inner = inner }
  end
  for _, t in ipairs(m.transitions) do
    if t.exit then nodes[#nodes + 1] = { kind = "exit", w = 60, h = 30 } break end
  end
  local n = #nodes
  -- the widest label between each pair of nodes (keyed both ways)
  local widest = {}
  local function id(t, side)
    if side == "from" then return t.any and "any" or t.from end
    return t.exit and "exit" or t.to
  end
  for _, t in ipairs(m.transitions) do
    local a, b = id(t, "from"), id(t, "to")
    local wl = text_width(ctx.label(layer, t))
    for _, k in ipairs { a .. ">" .. b, b .. ">" .. a } do widest[k] = math.max(widest[k] or 0, wl) end
  end
  local function node_id(nd) return nd.kind == "state" and nd.state.index or nd.kind end
  -- the radius at which each pair of neighbours keeps GAP between their
  -- boxes' circumscribed circles (more for a wider label between them)
  local r = 0
  for i = 1, n > 1 and n or 0 do
    local a, b = nodes[i], nodes[i % n + 1]
    local gap = math.max(GAP, (widest[node_id(a) .. ">" .. node_id(b)] or 0) + 20)
    local d = (math.sqrt(a.w * a.w + a.h * a.h) + math.sqrt(b.w * b.w + b.h * b.h)) / 2 + gap
    r = math.max(r, d / (2 * math.sin(math.pi / n)))
  end
  -- placed on the circle, then the layout is the boxes' bounds
  local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
  for i, nd in ipairs(nodes) do
    local a = -math.pi / 2 + 2 * math.pi * (i - 1) / n
    nd.x, nd.y = r * math.cos(a), r * math.sin(a)
    x0, x1 = math.min(x0, nd.x - nd.w / 2), math.max(x1, nd.x + nd.w / 2)
    y0, y1 = math.min(y0, nd.y - nd.h / 2), math.max(y1, nd.y + nd.h / 2)
  end
  local top = PAD + 36 -- (room for the loops over boxes)
  for _, nd in ipairs(nodes) do nd.x, nd.y = nd.x - x0 + PAD, nd.y - y0 + top end
  return { w = x1 - x0 + 2 * PAD, h = y1 - y0 + top + PAD, nodes = nodes, machine = m }
end

-- Where the segment from a box's centre towards (dx, dy) leaves the box.
local function edge(nd, dx, dy)
  local hw, hh = nd.w / 2, nd.h / 2
  local t = math.min(dx ~= 0 and hw / math.abs(dx) or math.huge, dy ~= 0 and hh / math.abs(dy) or math.huge)
  return nd.x + t * dx, nd.y + t * dy
end

local function label(d, x, y, s)
  d:text(x, y, s, { class = "label", ["text-anchor"] = "middle", ["paint-order"] = "stroke", stroke = "white",
    ["stroke-width"] = 3, fill = "#333", ["font-size"] = 11 })
end

-- The arrows of machine layout `lay` placed at (ox, oy).
local function arrows(ctx, d, layer, lay, ox, oy)
  local m = lay.machine
  local by_state, any, exit = {}, nil, nil
  for _, nd in ipairs(lay.nodes) do
    if nd.kind == "state" then by_state[nd.state.index] = nd
    elseif nd.kind == "any" then any = nd else exit = nd end
  end
  local seen = {} -- pair -> how many arrows drawn between it
  for _, t in ipairs(m.transitions) do
    local a = t.any and any or by_state[t.from]
    local b = t.exit and exit or by_state[t.to]
    local text = ctx.label(layer, t)
    if a == b then
      -- a loop over the box
      local k = (seen[a] or 0)
      seen[a] = k + 1
      local x, top = ox + a.x, oy + a.y - a.h / 2
      local lift = 28 + 14 * k
      d:el("path", { class = "transition", d = string.format("M%s %sC%s %s %s %s %s %s", svg.num(x - 12), svg.num(top),
        svg.num(x - 34), svg.num(top - lift), svg.num(x + 34), svg.num(top - lift), svg.num(x + 12), svg.num(top)),
        fill = "none", stroke = "#555", ["marker-end"] = "url(#arrow)", ["data-json"] = t.json })
      label(d, x, top - lift + 4, text)
    else
      local key = tostring(a) .. tostring(b)
      local back = tostring(b) .. tostring(a)
      local k = (seen[key] or 0) + (seen[back] or 0)
      seen[key] = (seen[key] or 0) + 1
      local dx, dy = b.x - a.x, b.y - a.y
      local len = math.sqrt(dx * dx + dy * dy)
      dx, dy = dx / len, dy / len
      -- side by side: each arrow of a pair shifted to its own left
      local shift = 6 + 12 * k
      local px, py = dy * shift, -dx * shift
      local x1, y1 = edge(a, dx, dy)
      local x2, y2 = edge(b, -dx, -dy)
      x1, y1, x2, y2 = ox + x1 + px, oy + y1 + py, ox + x2 + px, oy + y2 + py
      d:el("path", { class = "transition", d = string.format("M%s %sL%s %s", svg.num(x1), svg.num(y1), svg.num(x2),
        svg.num(y2)), fill = "none", stroke = "#555", ["marker-end"] = "url(#arrow)", ["data-json"] = t.json })
      -- (on the arrow's own left, so that the two ways of a pair stand
      -- apart; at 40%, 50% or 60% of it by the transition's index, so
      -- that the labels of two arrows crossing at their middles do not)
      local lx, ly = dy * (shift + 9), -dx * (shift + 9)
      local f = 0.4 + 0.1 * (t.index % 3)
      label(d, x1 + f * (x2 - x1) + lx - px, y1 + f * (y2 - y1) + ly - py + 4, text)
    end
  end
end

-- Machine layout `lay` at (ox, oy): its boxes, nested machines, arrows.
local function draw_machine(ctx, d, layer, lay, ox, oy)
  for _, nd in ipairs(lay.nodes) do
    local x, y = ox + nd.x - nd.w / 2, oy + nd.y - nd.h / 2
    if nd.kind ~= "state" then
      d:rect(x, y, nd.w, nd.h, { class = nd.kind, rx = 15, fill = "#f4f4f4", stroke = "#777", ["stroke-dasharray"] = "4 3" })
      d:text(ox + nd.x, oy + nd.y + 4, nd.kind, { ["text-anchor"] = "middle", fill = "#555" })
    else
      local s = nd.state
      d:rect(x, y, nd.w, nd.h, { class = "state", rx = 6, fill = s.kind == "machine" and "#f7f9ff" or "#ffffff",
        stroke = s.kind == "machine" and "#5570a0" or "#333", ["data-path"] = s.path, ["data-kind"] = s.kind })
      if s.kind == "machine" then
        d:text(x + 8, y + 17, E.shown(s.name), { ["font-weight"] = "bold" })
        draw_machine(ctx, d, layer, nd.inner, x + (nd.w - nd.inner.w) / 2, y + TITLE)
      else
        d:text(ox + nd.x, y + 17, E.shown(s.name), { ["text-anchor"] = "middle", ["font-weight"] = "bold" })
        local sub = ctx.state_text(s)
        if #sub > 40 then sub = sub:sub(1, 37):gsub("[\128-\191]*$", ""):gsub("[\192-\255]$", "") .. "..." end
        d:text(ox + nd.x, y + 33, sub, { ["text-anchor"] = "middle", fill = "#666", ["font-size"] = 10 })
      end
    end
  end
  -- the entry: a dot and a short arrow into its box's left side
  for _, nd in ipairs(lay.nodes) do
    if nd.state and nd.state.index == lay.machine.entry then
      local x, y = ox + nd.x - nd.w / 2, oy + nd.y
      d:group({ class = "entry" }, function()
        d:circle(x - 22, y, 4, { fill = "#333" })
        d:line(x - 18, y, x - 2, y, { stroke = "#333", ["marker-end"] = "url(#arrow)" })
      end)
    end
  end
  arrows(ctx, d, layer, lay, ox, oy)
end

-- render(desc, { title, label = fn(layer, t) -> text, state_text = fn(s) -> text }) -> SVG text
function M.render(desc, opts)
  local ctx = { label = opts.label, state_text = opts.state_text }
  local panels, width, height = {}, 300, 10
  for _, layer in ipairs(desc.layers) do
    local lay = layout_machine(ctx, layer, layer.machines[1])
    panels[#panels + 1] = { layer = layer, lay = lay, y = height }
    width = math.max(width, lay.w + 20)
    height = height + lay.h + 40
  end
  local d = svg.new(width, height, opts.title)
  d:add('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7"'
    .. ' orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#555"/></marker></defs>')
  d:rect(0, 0, width, height, { fill = "white" })
  for _, p in ipairs(panels) do
    local layer = p.layer
    d:group({ class = "layer", ["data-name"] = layer.name }, function()
      d:text(10, p.y + 18, string.format("layer %s (%s, weight %s%s)", E.shown(layer.name), layer.blend,
        E.num(layer.weight), layer.mask and (", mask: " .. E.shown_list(layer.mask, 8)) or ""), { ["font-weight"] = "bold" })
      d:rect(10, p.y + 26, p.lay.w, p.lay.h, { fill = "none", stroke = "#ccc" })
      draw_machine(ctx, d, layer, p.lay, 10, p.y + 26)
    end)
  end
  return d:render()
end

return M
