-- plot.lua: the curves of a clip drawn as a graph editor draws them, as
-- SVG (`anim plot`).  One panel per joint channel, one path per axis (x
-- red, y green, z blue, w grey), keys marked by their interpolation,
-- bezier handles, markers and events as labelled vertical lines.
--
-- Where the values come from:
-- * Keys, interpolations and handles are read from the clip's source table
--   (what the file said), so the picture shows what an author wrote.
-- * Position, scale and quaternion curves are clip:sample(t): exactly what
--   plays.
-- * Property channels (curves that are not joints: a 2D skeleton's shears,
--   slot colours, attachments, deforms, constraint mixes) are drawn as
--   their components, sampled by clip:sample(t).properties.
-- * Euler rotation curves cannot be read back from clip:sample, which
--   gives quaternions (angles beyond 180 degrees, or past gimbal lock, do
--   not come back).  Angles are evaluated one axis at a time with exactly
--   the scalar curves of positions (SEMANTICS 2), so a "shadow" clip whose
--   position channels are the rotation keys (with the clip's loop, length
--   and rotation modifiers) samples the Euler curves themselves.
local anim = require "anim"
local clipmod = require "anim.format.clip"
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local rigmod = require "anim.format.rig"
local svg = require "anim.tool.svg"

local M = {}

M.AXIS_COLOURS = { "#d62728", "#2ca02c", "#1f77b4", "#7f7f7f" }
M.AXIS_NAMES = { "x", "y", "z", "w" }
M.SAMPLES = 600 -- evenly spaced samples per curve, besides the key times
-- the components of a property drawn (a deform's may be thousands): the first
M.MAX_COMPONENTS = 32
-- past the four axes, a property's components in a cycle of these
local MORE_COLOURS = { "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf" }
local function colour_of(a) return M.AXIS_COLOURS[a] or MORE_COLOURS[(a - 5) % #MORE_COLOURS + 1] end
local function axis_name(c, a) return c.kind == "prop" and tostring(a) or M.AXIS_NAMES[a] end

local EASINGS = { sine = true, quad = true, cubic = true, quart = true, quint = true,
  expo = true, circ = true, back = true, bounce = true, elastic = true }
local ITEM_COLOURS = { marker = "#e67e22", event = "#8e44ad", sound = "#16a085", play = "#8b5a2b" }

-- The marker family of an interpolation name.
local function family(interp)
  if EASINGS[interp] then return "easing" end
  if interp == "step" or interp == "catmullrom" or interp == "bezier" then return interp end
  return "linear"
end

-- Channels -------------------------------------------------------------------------

local function present(v) return not E.absent(v) end

-- Channels of a clip of curves (versions 2 and 3, and imported clips):
-- { joint, channel, kind = "euler" | "quat" | "vec", keys = { {t, v, interp, extra} } }.
local function curve_channels(src, names)
  local out = {}
  for _, name in ipairs(names) do
    local j = src.joints[name]
    for _, ch in ipairs { "rotation", "position", "scale" } do
      local list = j[ch]
      if present(list) and #list > 0 then
        local c = { joint = name, channel = ch, keys = {}, muted = j.muted == true, weight = j.weight }
        for i, k in ipairs(list) do
          local v = k[2]
          if ch == "rotation" and #v == 4 then v = rigmod.rest_quat(v, "rotation") end -- normalised, as played
          c.keys[i] = { t = k[1], v = v, interp = present(k[3]) and k[3] or "linear",
            extra = present(k[4]) and k[4] or nil }
        end
        c.kind = ch == "rotation" and (#list[1][2] == 4 and "quat" or "euler") or "vec"
        out[#out + 1] = c
      end
    end
  end
  return out
end

-- The property channels of `names`: { joint = the property's name,
-- channel = "property", kind = "prop", n = components drawn, arity, discrete, keys }.
local function property_channels(src, names)
  local out = {}
  for _, name in ipairs(names) do
    local def = src.properties[name]
    local list = E.is_array(def) and def or def.keys
    local c = { joint = name, channel = "property", kind = "prop", keys = {},
      discrete = not E.is_array(def) and def.discrete == true }
    for i, k in ipairs(list) do
      local v = type(k[2]) == "number" and { k[2] } or k[2]
      c.keys[i] = { t = k[1], v = v, interp = present(k[3]) and k[3] or "linear", extra = present(k[4]) and k[4] or nil }
    end
    c.arity = #c.keys[1].v
    c.n = math.min(c.arity, M.MAX_COMPONENTS)
    out[#out + 1] = c
  end
  return out
end

-- Channels of a version 1 clip (poses at keyframes): a key at every
-- keyframe, at rest where the pose leaves the joint out (SEMANTICS 4).
local function pose_channels(src, names)
  local out = {}
  for _, name in ipairs(names) do
    local pos, rot = { joint = name, channel = "position", kind = "vec", keys = {} },
      { joint = name, channel = "rotation", kind = "quat", keys = {} }
    local has_pos, has_rot = false, false
    for i, kf in ipairs(src.keyframes) do
      local pose = present(kf.poses) and kf.poses[name] or nil
      local interp = "linear"
      if pose and present(pose.easing) then
        interp = pose.easing:lower()
        if interp == "constant" then interp = "step" end
      end
      local p, q = { 0, 0, 0 }, { 0, 0, 0, 1 }
      if pose and present(pose.position) then p, has_pos = pose.position, true end
      if pose and present(pose.rotation) then q, has_rot = rigmod.rest_quat(pose.rotation, "rotation"), true
      elseif pose and present(pose.angles) then q, has_rot = rigmod.rest_quat(pose.angles, "angles"), true end
      pos.keys[i] = { t = kf.time, v = p, interp = interp }
      rot.keys[i] = { t = kf.time, v = q, interp = interp }
    end
    if has_rot then out[#out + 1] = rot end
    if has_pos then out[#out + 1] = pos end
  end
  return out
end

-- The shadow clip whose position channels are the Euler rotation curves.
local function euler_clip(info, src, channels)
  local joints, any = {}, false
  for _, c in ipairs(channels) do
    if c.kind == "euler" then
      local j = src.joints[c.joint]
      local mods = present(j.modifiers) and j.modifiers.rotation or nil
      joints[c.joint] = { position = j.rotation, modifiers = mods and { position = mods } or nil }
      any = true
    end
  end
  if not any then return nil end
  local loop = info.loop
  local shadow, err = anim.clip({ version = 3, length = info.length, loop = loop, joints = joints }, "euler curves")
  if not shadow then error("plot: the Euler curves do not build: " .. err) end
  return shadow
end

-- Samples ----------------------------------------------------------------------------

-- The times to sample: an even grid over [t0, t1], each key time, and a
-- hair before each key time so that a step or jump draws as a vertical.
local function sample_times(t0, t1, channels)
  local ts, seen = {}, {}
  local function add(t)
    if t >= t0 and t <= t1 and not seen[t] then seen[t] = true ts[#ts + 1] = t end
  end
  for i = 0, M.SAMPLES do add(t0 + (t1 - t0) * i / M.SAMPLES) end
  local eps = (t1 - t0) * 1e-6
  for _, c in ipairs(channels) do
    for _, k in ipairs(c.keys) do add(k.t) add(k.t - eps) end
  end
  table.sort(ts)
  return ts
end

-- Per channel, c.curve[axis] = { {t, v}, ... }.
local function sample_curves(clip, shadow, channels, ts)
  for _, c in ipairs(channels) do
    c.curve = {}
    for a = 1, (c.kind == "quat" and 4 or c.n or 3) do c.curve[a] = {} end
  end
  for _, t in ipairs(ts) do
    local pose = clip:sample(t)
    local spose = shadow and shadow:sample(t)
    for _, c in ipairs(channels) do
      local v
      if c.kind == "euler" then
        v = spose[c.joint] and spose[c.joint].position
      elseif c.kind == "prop" then
        v = pose.properties[c.joint]
        if type(v) == "number" then v = { v } end
      else
        v = pose[c.joint] and pose[c.joint][c.channel]
      end
      if v then
        if c.kind == "quat" then
          -- q and -q are the same turn: keep the curve on one side, the
          -- side of the previous sample (or of the first key)
          local prev = #c.curve[1] > 0 and { c.curve[1][#c.curve[1]][2], c.curve[2][#c.curve[2]][2],
            c.curve[3][#c.curve[3]][2], c.curve[4][#c.curve[4]][2] } or c.keys[1].v
          local dot = prev[1] * v[1] + prev[2] * v[2] + prev[3] * v[3] + prev[4] * v[4]
          if dot < 0 then v = { -v[1], -v[2], -v[3], -v[4] } end
        end
        for a = 1, #c.curve do c.curve[a][#c.curve[a] + 1] = { t, v[a] } end
      end
    end
  end
end

-- The values a key is drawn at: its own, except that a quaternion key is
-- drawn on the side (q or -q) where the sign-aligned curve passes.
local function place_keys(channels)
  for _, c in ipairs(channels) do
    for _, k in ipairs(c.keys) do
      k.shown = k.v
      if c.kind == "quat" then
        local dot
        for i, p in ipairs(c.curve[1]) do
          if p[1] == k.t then
            dot = k.v[1] * p[2] + k.v[2] * c.curve[2][i][2] + k.v[3] * c.curve[3][i][2] + k.v[4] * c.curve[4][i][2]
          end
        end
        if dot and dot < 0 then k.shown = { -k.v[1], -k.v[2], -k.v[3], -k.v[4] } end
      end
    end
  end
end

-- Bezier handles as drawn: { key, t = { time per axis }, v = { value per
-- axis } } (the handle's ends) for the out handle of each bezier key and
-- the in handle of the key after it, with the corrections playback
-- applies (SEMANTICS 2.7).  A handle's dt and dv are each one number or
-- one per axis.
local function handle_part(h, i, a)
  local x = h[i]
  if type(x) == "table" then return x[a] end
  return x
end

local function handles(c)
  local out = {}
  if c.kind == "quat" then return out end -- bezier on quaternions plays as linear
  for i = 1, #c.keys - 1 do
    local k, n = c.keys[i], c.keys[i + 1]
    local len = n.t - k.t
    if k.interp == "bezier" and len > 0 then
      local ho = k.extra and present(k.extra.out) and k.extra.out or { len / 3, 0 }
      local hi = n.extra and present(n.extra["in"]) and n.extra["in"] or { -len / 3, 0 }
      for _, side in ipairs { { k, ho, 1 }, { n, hi, -1 } } do
        local key, h, dir = side[1], side[2], side[3]
        local ends, times = {}, {}
        for a = 1, c.n or 3 do
          local dt = handle_part(h, 1, a)
          if dt * dir < 0 then dt = 0 end
          local scale = math.abs(dt) > len and len / math.abs(dt) or 1
          times[a] = key.t + dt * scale
          ends[a] = key.v[a] + handle_part(h, 2, a) * scale
        end
        out[#out + 1] = { key = key, t = times, v = ends }
      end
    end
  end
  return out
end

-- Axes ------------------------------------------------------------------------------

-- A "nice" tick step (1, 2, 2.5 or 5 times a power of ten) for a span.
local function nice_step(span, n)
  local raw = span / n
  local p = 10 ^ math.floor(compat.log10(raw))
  for _, m in ipairs { 1, 2, 2.5, 5, 10 } do
    if m * p >= raw then return m * p end
  end
  return 10 * p
end

local function tick_label(v, step)
  local decimals = math.max(0, -math.floor(compat.log10(step) + 1e-9))
  if step * 10 ^ decimals % 1 ~= 0 then decimals = decimals + 1 end
  -- (%d: LuaJIT's -math.floor(0.5) is -0, which tostring writes "-0")
  local fmt = string.format("%%.%df", decimals)
  local s = string.format(fmt, v)
  if tonumber(s) == 0 then s = string.format(fmt, 0) end
  return s
end

local function ticks(lo, hi, n)
  local step = nice_step(hi - lo, n)
  local out = {}
  local first = math.ceil(lo / step - 1e-9)
  for i = first, math.floor(hi / step + 1e-9) do
    out[#out + 1] = { v = i * step, label = tick_label(i * step, step) }
  end
  return out
end

-- Drawing ------------------------------------------------------------------------------

local LEFT, RIGHT, WIDTH = 70, 30, 960
local PANEL_H, TITLE_H, AXIS_H, GAP = 130, 22, 18, 12

-- A key marker of an interpolation family, centred at x, y.
local function marker(doc, fam, x, y, fill, a)
  a = a or {}
  a.fill, a.stroke, a["stroke-width"] = fill, "#222", 0.8
  a["data-interp"] = a["data-interp"] or fam
  local r = 4
  if fam == "step" then
    doc:rect(x - r + 0.5, y - r + 0.5, 2 * r - 1, 2 * r - 1, a)
  elseif fam == "catmullrom" then
    doc:polygon({ { x, y - r - 1 }, { x + r + 1, y }, { x, y + r + 1 }, { x - r - 1, y } }, a)
  elseif fam == "bezier" then
    doc:polygon({ { x, y - r - 1 }, { x + r + 1, y + r }, { x - r - 1, y + r } }, a)
  elseif fam == "easing" then
    doc:polygon({ { x, y + r + 1 }, { x + r + 1, y - r }, { x - r - 1, y - r } }, a)
  else
    doc:circle(x, y, r, a)
  end
end

local function channel_title(c, euler)
  if c.kind == "prop" then
    return string.format("%s · property (%s%s)%s", c.joint, c.arity == 1 and "1 component" or (c.arity .. " components"),
      c.n < c.arity and (", the first " .. c.n .. " drawn") or "", c.discrete and "  [discrete]" or "")
  end
  local what = ({ position = "position (blocks)", scale = "scale (factor)" })[c.channel]
  if c.channel == "rotation" then
    what = c.kind == "euler" and ("rotation (degrees, Euler " .. euler .. ")") or "rotation (quaternion x y z w)"
  end
  local extra = {}
  if c.weight ~= nil and c.weight ~= 1 then extra[#extra + 1] = "weight " .. E.num(c.weight) end
  if c.muted then extra[#extra + 1] = "muted" end
  return c.joint .. " · " .. what .. (#extra > 0 and ("  [" .. table.concat(extra, ", ") .. "]") or "")
end

-- The value range of a channel: curves, keys and handle ends.
local function value_range(c, hs)
  local lo, hi = math.huge, -math.huge
  local function see(v) if v < lo then lo = v end if v > hi then hi = v end end
  for _, pts in ipairs(c.curve) do for _, p in ipairs(pts) do see(p[2]) end end
  for _, k in ipairs(c.keys) do for a = 1, #c.curve do see(k.shown[a]) end end
  for _, h in ipairs(hs) do for a = 1, #h.v do see(h.v[a]) end end
  if lo > hi then lo, hi = 0, 1 end
  if hi - lo < 1e-9 then
    local pad = math.max(math.abs(hi) * 0.1, 1)
    lo, hi = lo - pad, hi + pad
  end
  local pad = (hi - lo) * 0.08
  return lo - pad, hi + pad
end

-- Timed items (markers, events, sounds, plays) as { t, kind, label }.
local function items(clip)
  local out = {}
  for _, m in ipairs(clip:markers()) do
    out[#out + 1] = { t = m.time, kind = "marker", label = m.name .. (m.value and (" " .. m.value) or "") }
  end
  for _, e in ipairs(clip:events()) do out[#out + 1] = { t = e.time, kind = "event", label = "event " .. e.name } end
  for _, s in ipairs(clip:sounds()) do out[#out + 1] = { t = s.time, kind = "sound", label = "sound " .. s.sound } end
  for _, p in ipairs(clip:plays()) do out[#out + 1] = { t = p.time, kind = "play", label = "play " .. p.clip } end
  return out
end

-- Places item labels in rows so that none overlaps another; returns rows used.
local function place_labels(list, xof)
  local ends = {}
  table.sort(list, function(a, b) return a.t < b.t end)
  for _, it in ipairs(list) do
    local x = xof(it.t)
    local w = 7 * #it.label + 8
    local row = 1
    while ends[row] and ends[row] > x do row = row + 1 end
    ends[row] = x + w
    it.row, it.x = row, x
  end
  return #ends
end

local function draw_legend(doc, y, kinds)
  local x = LEFT
  for a = 1, 4 do
    doc:line(x, y - 4, x + 18, y - 4, { stroke = M.AXIS_COLOURS[a], ["stroke-width"] = 2.5, class = "legend" })
    doc:text(x + 22, y, M.AXIS_NAMES[a], { class = "legend" })
    x = x + 44
  end
  x = x + 16
  for _, k in ipairs(kinds) do
    marker(doc, k[1], x + 4, y - 4, "#bbb", { class = "legend" })
    doc:text(x + 13, y, k[2], { class = "legend" })
    x = x + 20 + 7 * #k[2]
  end
  doc:line(x, y - 4, x + 14, y - 4, { stroke = "#444", ["stroke-width"] = 1, class = "legend" })
  doc:circle(x + 14, y - 4, 2.5, { fill = "#fff", stroke = "#444", class = "legend" })
  doc:text(x + 22, y, "bezier handle", { class = "legend" })
end

local KINDS = { { "linear", "linear" }, { "step", "step" }, { "catmullrom", "catmullrom" },
  { "bezier", "bezier" }, { "easing", "easing (sine, quad, back …)" } }

-- plot.curves(clip [, joint]) -> channels, t0, t1 | nil, message
-- The channels drawn (of one joint, or all), each { joint, channel, kind,
-- keys = { {t, v, shown, interp, extra} }, curve = { [axis] = { {t, value},
-- ... } } }, over [t0, t1]: the clip, widened to any key or timed item
-- outside it.  Quaternion curves keep to one side of q / -q (continuous),
-- and `shown` is where a key is drawn on them.
function M.curves(clip, joint)
  local info = clipmod.info(clip)
  local names, props = clip:joints(), clip:properties()
  if joint then
    -- the joint's channels, and its properties ("<joint>.shear")
    local found, mine = false, {}
    for _, n in ipairs(names) do if n == joint then found = true end end
    for _, p in ipairs(props) do
      if p:sub(1, #joint + 1) == joint .. "." then mine[#mine + 1] = p end
    end
    if not found and #mine == 0 then
      return nil, string.format("no joint '%s' in the clip (its joints: %s)", E.shown(joint),
        #names > 0 and E.shown_list(names) or "none")
    end
    names, props = found and { joint } or {}, mine
  end
  -- info.source is rebuilt at each read (keys.lua): read once
  local src = info.source
  local channels = info.layout == "poses" and pose_channels(src, names) or curve_channels(src, names)
  for _, c in ipairs(#props > 0 and property_channels(src, props) or {}) do channels[#channels + 1] = c end
  local t0, t1 = 0, info.length
  for _, c in ipairs(channels) do
    t0 = math.min(t0, c.keys[1].t)
    t1 = math.max(t1, c.keys[#c.keys].t)
  end
  for _, it in ipairs(items(clip)) do t0, t1 = math.min(t0, it.t), math.max(t1, it.t) end
  if t1 - t0 < 1e-9 then t1 = t0 + 1 end
  sample_curves(clip, euler_clip(info, src, channels), channels, sample_times(t0, t1, channels))
  place_keys(channels)
  return channels, t0, t1
end

-- plot.render(clip [, { joint = name, title = text }]) -> svg text | nil, message
function M.render(clip, opts)
  opts = opts or {}
  local info = clipmod.info(clip)
  local channels, t0, t1 = M.curves(clip, opts.joint)
  if not channels then return nil, t0 end

  local plot_w = WIDTH - LEFT - RIGHT
  local function xof(t) return LEFT + (t - t0) / (t1 - t0) * plot_w end
  local its = items(clip)
  local rows = place_labels(its, xof)
  local top = 62 + rows * 16
  local block = TITLE_H + PANEL_H + AXIS_H + GAP
  local height = top + math.max(#channels, 1) * block + 8
  local title = opts.title or tostring(info.name)
  local doc = svg.new(WIDTH, height, title .. " — curves")
  doc:rect(0, 0, WIDTH, height, { fill = "#ffffff" })
  doc:text(LEFT, 22, string.format("%s — %g s, %s, Euler %s", title, info.length, info.loop, info.euler),
    { ["font-size"] = 15, ["font-weight"] = "bold", class = "title" })
  draw_legend(doc, 44, KINDS)
  for _, it in ipairs(its) do
    local y = 62 + it.row * 16
    doc:text(it.x + 3, y - 3, it.label, { fill = ITEM_COLOURS[it.kind], class = "item-label", ["font-size"] = 11 })
  end
  if #channels == 0 then
    doc:text(LEFT, top + 30, "no animated channels", { fill = "#666" })
  end
  local tticks = ticks(t0, t1, 10)
  for ci, c in ipairs(channels) do
    local py = top + (ci - 1) * block + TITLE_H
    local hs = handles(c)
    local lo, hi = value_range(c, hs)
    local function yof(v) return py + PANEL_H - (v - lo) / (hi - lo) * PANEL_H end
    doc:group({ class = "panel", ["data-joint"] = c.joint, ["data-channel"] = c.channel, ["data-kind"] = c.kind }, function()
      doc:text(LEFT, py - 7, channel_title(c, info.euler), { ["font-weight"] = "bold", class = "panel-title" })
      doc:rect(LEFT, py, plot_w, PANEL_H, { fill = "#fafafa", stroke = "#999", ["stroke-width"] = 1 })
      -- the clip's own span, where it is not the whole axis
      if t0 < 0 or t1 > info.length then
        doc:rect(xof(0), py, xof(info.length) - xof(0), PANEL_H, { fill = "#eef3fb" })
      end
      for _, tk in ipairs(ticks(lo, hi, 4)) do
        local y = yof(tk.v)
        doc:line(LEFT, y, LEFT + plot_w, y, { stroke = "#e3e3e3", ["stroke-width"] = 1 })
        doc:line(LEFT - 4, y, LEFT, y, { stroke = "#666" })
        doc:text(LEFT - 7, y + 4, tk.label, { ["text-anchor"] = "end", ["font-size"] = 11, fill = "#333" })
      end
      for _, tk in ipairs(tticks) do
        local x = xof(tk.v)
        doc:line(x, py, x, py + PANEL_H, { stroke = "#e3e3e3", ["stroke-width"] = 1 })
        doc:line(x, py + PANEL_H, x, py + PANEL_H + 4, { stroke = "#666" })
        doc:text(x, py + PANEL_H + 15, tk.label, { ["text-anchor"] = "middle", ["font-size"] = 11, fill = "#333" })
      end
      if lo < 0 and hi > 0 then
        doc:line(LEFT, yof(0), LEFT + plot_w, yof(0), { stroke = "#bbb", ["stroke-width"] = 1 })
      end
      doc:text(LEFT + plot_w + 12, py + PANEL_H + 15, "s", { ["font-size"] = 11, fill = "#333" })
      for _, it in ipairs(its) do
        doc:line(it.x, py, it.x, py + PANEL_H, { stroke = ITEM_COLOURS[it.kind], ["stroke-dasharray"] = "4 3",
          ["stroke-width"] = 1.2, class = it.kind, ["data-time"] = E.num(it.t) })
      end
      for a, pts in ipairs(c.curve) do
        local xy = {}
        for i, p in ipairs(pts) do xy[i] = { xof(p[1]), yof(p[2]) } end
        doc:path(svg.simplify(xy, 0.05), { fill = "none", stroke = colour_of(a), ["stroke-width"] = 1.8, class = "curve",
          ["stroke-linejoin"] = "round", ["data-joint"] = c.joint, ["data-channel"] = c.channel,
          ["data-axis"] = axis_name(c, a) })
      end
      for _, h in ipairs(hs) do
        for a = 1, #h.v do
          local x1, y1, x2, y2 = xof(h.key.t), yof(h.key.v[a]), xof(h.t[a]), yof(h.v[a])
          doc:line(x1, y1, x2, y2, { stroke = colour_of(a), ["stroke-width"] = 1, class = "handle",
            ["data-axis"] = axis_name(c, a) })
          doc:circle(x2, y2, 2.5, { fill = "#fff", stroke = colour_of(a), class = "handle-point" })
        end
      end
      for _, k in ipairs(c.keys) do
        for a = 1, #c.curve do
          marker(doc, family(k.interp), xof(k.t), yof(k.shown[a]), colour_of(a),
            { class = "key", ["data-axis"] = axis_name(c, a), ["data-interp"] = k.interp })
        end
      end
    end)
  end
  -- the labels' ticks, joining each label to its line in the first panel
  for _, it in ipairs(its) do
    doc:line(it.x, 62 + it.row * 16 - 12, it.x, top + TITLE_H, { stroke = ITEM_COLOURS[it.kind],
      ["stroke-width"] = 1, ["stroke-dasharray"] = "1 2" })
  end
  return doc:render()
end

return M
