-- import/dragonbones/animation.lua: one DragonBones animation as a clip of
-- the module, in the contract's channels (docs/formats.md, DragonBones):
-- offsets from each bone's setup pose, as the file's frames are
-- (position [x, y, 0] added, rotation [0, 0, degrees] in "xyz" added,
-- scale [sx, sy, 1] multiplied: the module's offset clips, played without
-- a conversion a sample), the property channels
-- `<bone>.shear`, `slot.<slot>.attachment` / `.color`,
-- `deform.<skin>.<slot>.<attachment>`, `draworder`, `ik.<name>` and
-- `ik.<name>.flags`, and the frames' events, sounds and actions as timed
-- items.
--
-- The format's rules (DragonBonesJS ObjectDataParser._parseAnimation and
-- the timeline states of src/dragonBones/animation/TimelineState.ts): a
-- bone's frames are offsets from its setup pose -- x, y and the angles
-- added, the scales multiplied (Bone._updateGlobalTransformMatrix:
-- origin + animationPose) -- so each key here is the file's offset (the
-- rig's rests are the setup pose); only on an axis whose setup scale is 0
-- the scale is 1 (an offset clip's scale adds to a rest of 0, less 1:
-- Bone's 0 x s is 0).  The skew is the absolute `<bone>.shear` property.  A slot's display and colour frames are
-- absolute; a 4.5 slot timeline ("frame") drives both, a frame without a
-- colour being white and opaque.  Deform (ffd) frames are offsets of the
-- mesh's vertices from `offset` on (zero elsewhere).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local F = require "anim.import.dragonbones.fields"
local K = require "anim.import.dragonbones.keys"
local armature = require "anim.import.dragonbones.armature"

local M = {}

local key, index, fail, shown = E.key, E.index, E.fail, E.shown

local function frames_of(raw, k, p)
  local list = raw[k]
  if E.absent(list) then return nil end
  return E.array(list, key(p, k), k), key(p, k)
end

-- Timed items of a frame (ObjectDataParser._parseActionDataInFrame):
-- `event`, `sound`, `action` (a name each, 4.5 and 5.x) and `events`,
-- `actions` (lists of { name, type, bone, slot, ints, floats, strings }).
-- An event is an event of the module (its data as the payload), a sound a
-- sound, an action (gotoAndPlay: play another animation) a marker named
-- "play" with the animation's name as its value.
local ACTION_TYPES = { [0] = "play", [10] = "frame", [11] = "sound" }
local function items(f, fp, t, C, bone, slot)
  local function add(kind, name, data, p)
    if kind == "frame" then
      local ev = { time = t, name = name }
      local payload
      for _, k in ipairs { "ints", "floats", "strings" } do
        if data and not E.absent(data[k]) then
          local v = E.array(data[k], key(p, k), k)
          payload = payload or {}
          payload[k] = v
        end
      end
      local b = data and F.string(data, "bone", p, nil) or bone
      local s = data and F.string(data, "slot", p, nil) or slot
      if b or s then payload = payload or {}; payload.bone, payload.slot = b, s end
      ev.payload = payload
      C.events[#C.events + 1] = ev
      C.number(ev, p)
      C.event_names[name] = true
    elseif kind == "sound" then
      local it = { time = t, sound = name }
      C.sounds[#C.sounds + 1] = it
      C.number(it, p)
    else
      local it = { time = t, name = "play", value = name }
      C.markers[#C.markers + 1] = it
      C.number(it, p)
    end
  end
  for _, pair in ipairs { { "event", "frame" }, { "sound", "sound" }, { "action", "play" } } do
    local k, kind = pair[1], pair[2]
    local v = f[k]
    if not E.absent(v) then add(kind, E.string(v, key(fp, k), k), nil, key(fp, k)) end
  end
  for _, pair in ipairs { { "events", "frame" }, { "actions", "play" } } do
    local k, default = pair[1], pair[2]
    local list = f[k]
    if not E.absent(list) then
      local lp = key(fp, k)
      E.array(list, lp, k)
      for i, a in ipairs(list) do
        local ap = index(lp, i)
        E.object(a, ap, "action")
        local kind = a.type
        if type(kind) == "number" then kind = ACTION_TYPES[kind] or default
        elseif type(kind) == "string" then kind = kind:lower() else kind = default end
        if kind ~= "frame" and kind ~= "sound" then kind = "play" end
        local name = F.string(a, "gotoAndPlay", ap, nil) or F.string(a, "name", ap, "")
        add(kind, name, a, ap)
      end
    end
  end
end

-- values[i] of the frames by fn(frame, path, i)
local function values(frames, p, fn)
  local out = {}
  for i, f in ipairs(frames) do out[i] = fn(f, index(p, i), i) end
  return out
end

local function timeline_ctx(C, what)
  local ctx = C.ctx
  ctx.what = what
  return ctx
end

-- The bone or slot (what) a timeline names, from map (names: all of
-- them); nil, with a warning, when there is none: the timeline is skipped.
local function named(raw, p, C, map, names, what)
  local name = F.string(raw, "name", p, "")
  local found = map[name]
  if not found then
    C.warn(key(p, "name"), "a timeline for an unknown %s '%s'%s is skipped", what, shown(name), E.hint(name, names))
  end
  return found, name
end

-- A scale frame's offset on an axis whose setup scale is s0: the frame's
-- factor, or 1 when s0 is 0 (the offset clip's scale then adds to the rest
-- less 1: 0, as 0 x the factor is).
local function scale(s0, v)
  if s0 == 0 then return 1 end
  return v
end

-- Bones: 5.x translateFrame / rotateFrame / scaleFrame, 4.5 frame.
local function bone_timeline(raw, p, C, A)
  local b, name = named(raw, p, C, A.bones, A.bone_names, "bone")
  if not b then return end
  local setup = b.bone
  local joint = C.joints[name] or {}
  C.joints[name] = joint
  local what = "bone '" .. shown(name) .. "'"
  local function rotation(frames, fp, angles, skews, turns, tw)
    local starts = K.starts(frames, fp)
    local un = K.unroll(angles, turns, starts)
    joint.rotation = K.build(frames, fp, values(frames, fp, function(_, _, i)
      return { 0, 0, un[i] } end), starts, timeline_ctx(C, what .. " rotation"), tw)
    C.props[name .. ".shear"] = K.build(frames, fp, values(frames, fp, function(_, _, i)
      return { 0, setup.shear_y + skews[i] } end), starts, timeline_ctx(C, what .. " skew"), tw)
  end
  local frames, fp = frames_of(raw, "translateFrame", p)
  if frames then
    local starts = K.starts(frames, fp)
    joint.position = K.build(frames, fp, values(frames, fp, function(f, q)
      return { F.number(f, "x", q, 0), F.number(f, "y", q, 0), 0 } end),
      starts, timeline_ctx(C, what .. " translateFrame"), true)
  end
  frames, fp = frames_of(raw, "rotateFrame", p)
  if frames then
    local angles, skews, turns = {}, {}, {}
    for i, f in ipairs(frames) do
      local q = index(fp, i)
      E.object(f, q, "frame")
      angles[i], skews[i] = F.number(f, "rotate", q, 0), F.number(f, "skew", q, 0)
      turns[i] = F.number(f, "clockwise", q, 0)
    end
    rotation(frames, fp, angles, skews, turns, true)
  end
  frames, fp = frames_of(raw, "scaleFrame", p)
  if frames then
    local starts = K.starts(frames, fp)
    joint.scale = K.build(frames, fp, values(frames, fp, function(f, q)
      return { scale(setup.scale_x, F.number(f, "x", q, 1)), scale(setup.scale_y, F.number(f, "y", q, 1)), 1 } end),
      starts, timeline_ctx(C, what .. " scaleFrame"), true)
  end
  frames, fp = frames_of(raw, "frame", p)
  if frames then
    -- 4.5: the whole transform a frame, its angles brought into
    -- [-180, 180) first (_parseBoneAllFrame reads it by _parseTransform)
    local starts = K.starts(frames, fp)
    local ts, angles, skews, turns = {}, {}, {}, {}
    for i, f in ipairs(frames) do
      local q = index(fp, i)
      ts[i] = F.transform(F.object(f, "transform", q), key(q, "transform"), true)
      angles[i], skews[i] = ts[i].rotation, ts[i].skew
      turns[i] = F.number(f, "tweenRotate", q, 0)
      items(f, q, starts[i] / C.ctx.rate, C, name, nil)
    end
    joint.position = K.build(frames, fp, values(frames, fp, function(_, _, i)
      return { ts[i].x, ts[i].y, 0 } end), starts, timeline_ctx(C, what), true)
    joint.scale = K.build(frames, fp, values(frames, fp, function(_, _, i)
      return { scale(setup.scale_x, ts[i].scale_x), scale(setup.scale_y, ts[i].scale_y), 1 } end), starts,
      timeline_ctx(C, what), true)
    rotation(frames, fp, angles, skews, turns, true)
  end
end

-- Slots: displayFrame / colorFrame (5.x), frame (4.5: both).
local function slot_timeline(raw, p, C, A)
  local s, name = named(raw, p, C, A.slots, A.slot_names, "slot")
  if not s then return end
  local what = "slot '" .. shown(name) .. "'"
  local display, dp = frames_of(raw, "displayFrame", p)
  local color, cp = frames_of(raw, "colorFrame", p)
  local both, bp = frames_of(raw, "frame", p)
  display, dp = display or both, dp or bp
  color, cp = color or both, cp or bp
  if display then
    local starts = K.starts(display, dp)
    local vals = values(display, dp, function(f, q, i)
      local v = f.value
      if E.absent(v) then v = f.displayIndex end
      local idx = F.whole({ v = v }, "v", key(q, E.absent(f.value) and "displayIndex" or "value"), 0, -1)
      items(f, q, starts[i] / C.ctx.rate, C, s.slot.bone, name)
      return { armature.attachment_value(s, idx) }
    end)
    C.discrete["slot." .. name .. ".attachment"] = K.build(display, dp, vals, starts, timeline_ctx(C, what .. " display"), false)
  end
  if color then
    local starts = K.starts(color, cp)
    local vals = values(color, cp, function(f, q)
      local c = f.value
      local ck = "value"
      if E.absent(c) then c, ck = f.color, "color" end
      if not E.absent(c) then E.object(c, key(q, ck), "colour") else c = nil end
      return armature.color(c, key(q, ck), C.warn, what)
    end)
    C.props["slot." .. name .. ".color"] = K.build(color, cp, vals, starts, timeline_ctx(C, what .. " colour"), true)
  end
end

-- Deform (ffd): offsets of a mesh's vertices; a weighted mesh's turned
-- into each weight's bone space as its vertices are (the runtime:
-- ObjectDataParser._parseSlotFFDFrame: slotPose's 2x2, then each bone's
-- inverse bind 2x2).
local function deform_timeline(raw, p, C, A)
  local skin = F.string(raw, "skin", p, "")
  if skin == "" then skin = "default" end
  local slot = F.string(raw, "slot", p, "")
  local name = F.string(raw, "name", p, "")
  local m = A.meshes[skin] and A.meshes[skin][slot] and A.meshes[skin][slot][name]
  if not m then
    C.warn(p, "a deform (ffd) timeline for mesh '%s' of slot '%s' in skin '%s', which is not there, is skipped",
      shown(name), shown(slot), shown(skin))
    return
  end
  local frames, fp = frames_of(raw, "frame", p)
  if not frames then return end
  local n = m.att.vertex_count
  local starts = K.starts(frames, fp)
  local width = m.binding and (#m.att.vertices - n) / 2 or 2 * n -- (weighted: 2 a weight entry)
  K.reserve(C.ctx, #frames * width, fp)
  armature.count_vertices(A, #frames * n, fp, "attachments and deform frames")
  local vals = values(frames, fp, function(f, q)
    local offset = F.whole(f, "offset", q, 0, 0)
    local verts = F.numbers(f, "vertices", q) or {}
    if offset + #verts > 2 * n then
      fail(key(q, "vertices"), "%d offsets from %d run past the mesh's %d vertices (%d numbers)", #verts, offset, n, 2 * n)
    end
    local d = {}
    for i = 1, 2 * n do d[i] = verts[i - offset] or 0 end
    if not m.binding then return d end
    local out = {}
    for v = 1, n do
      local dx, dy = F.apply(m.binding.slot_pose, d[2 * v - 1], d[2 * v], true)
      for _, inv in ipairs(m.binding.entries[v]) do
        local lx, ly = F.apply(inv, dx, dy, true)
        out[#out + 1] = lx
        out[#out + 1] = ly
      end
    end
    return out
  end)
  C.props["deform." .. skin .. "." .. slot .. "." .. m.key] = K.build(frames, fp, vals, starts,
    timeline_ctx(C, "deform of '" .. shown(name) .. "'"), true)
end

-- Draw order: a frame's zOrder [slot index, offset, ...] moves those slots
-- by their offsets, the others keeping their order in the gaps
-- (ObjectDataParser._parseZOrderFrame).  Each order is desc.draw_orders[k]
-- (the same order once), the `draworder` channel k; none: 0 (setup).
local function draw_order(list, p, A)
  local n = #A.slot_names
  if #list % 2 ~= 0 then fail(p, "zOrder holds slot index, offset pairs, got %d numbers", #list) end
  local placed, moved = {}, {}
  for i = 1, #list, 2 do
    local si, off = list[i], list[i + 1]
    if si % 1 ~= 0 or si < 0 or si >= n or (i > 1 and si <= list[i - 2]) then
      fail(index(p, i), "zOrder's slot indices must be whole, increasing, from 0 to %d, got %s", n - 1, E.num(si))
    end
    local to = si + off
    if off % 1 ~= 0 or to < 0 or to >= n or placed[to] then
      fail(index(p, i + 1), "slot %d's zOrder offset %s puts it %s", si, E.num(off),
        placed[to] and "where another slot moved" or "outside the slots")
    end
    placed[to], moved[si] = si, true
  end
  local rest = {}
  for i = 0, n - 1 do if not moved[i] then rest[#rest + 1] = i end end
  local order, r = {}, 1
  for i = 0, n - 1 do
    local si = placed[i]
    if si == nil then si, r = rest[r], r + 1 end
    order[i + 1] = A.slot_names[si + 1]
  end
  return order
end

local function zorder_timeline(raw, p, C, A)
  local frames, fp = frames_of(raw, "frame", p)
  if not frames then return end
  local starts = K.starts(frames, fp)
  K.reserve(C.ctx, #frames * #A.slot_names, fp) -- (an order of every slot a frame)
  local orders = A.desc.draw_orders
  local vals = values(frames, fp, function(f, q)
    local z = F.numbers(f, "zOrder", q)
    if not z or #z == 0 then return { 0 } end
    local order = draw_order(z, key(q, "zOrder"), A)
    local text = table.concat(order, "\0")
    local k = C.order_index[text]
    if not k then
      orders[#orders + 1] = order
      k = #orders
      C.order_index[text] = k
    end
    return { k }
  end)
  C.discrete.draworder = K.build(frames, fp, vals, starts, timeline_ctx(C, "zOrder"), false)
end

local function ik_timeline(raw, p, C, A)
  local name = F.string(raw, "name", p, "")
  local ik = A.ik[name]
  if not ik then
    C.warn(key(p, "name"), "a timeline for an unknown IK constraint '%s' is skipped", shown(name))
    return
  end
  local frames, fp = frames_of(raw, "frame", p)
  if not frames then return end
  local starts = K.starts(frames, fp)
  C.props["ik." .. name] = K.build(frames, fp, values(frames, fp, function(f, q)
    return { F.number(f, "weight", q, 1), 0 } end), starts, timeline_ctx(C, "IK '" .. shown(name) .. "'"), true)
  C.discrete["ik." .. name .. ".flags"] = K.build(frames, fp, values(frames, fp, function(f, q)
    return { F.boolean(f, "bendPositive", q, true) and 1 or -1, 0, 0 } end), starts,
    timeline_ctx(C, "IK '" .. shown(name) .. "' flags"), false)
end

local function each(raw, k, p, fn, C, A)
  for i, t in ipairs(F.array(raw, k, p)) do
    local q = index(key(p, k), i)
    E.object(t, q, k .. " timeline")
    fn(t, q, C, A)
  end
end

-- The clip table of animation `raw` (at path p) of armature A (armature.lua);
-- rate: the armature's frame rate.  count: the import's key counter.
-- Returns name, table (for anim.format.clip.build), play times.
function M.read(raw, p, A, rate, count, warn)
  E.object(raw, p, "animation")
  local name = F.string(raw, "name", p, "")
  if name == "" then name = "default" end
  local total = math.max(F.whole(raw, "duration", p, 1, 0), 1)
  local play_times = F.whole(raw, "playTimes", p, 1, 0)
  local C = {
    joints = {}, props = {}, discrete = {}, events = {}, sounds = {}, markers = {}, event_names = {},
    order_index = {}, warn = warn, seq = {}, items = 0,
    ctx = { rate = rate, total = total, loops = play_times ~= 1, count = count, warn = warn },
  }
  -- each timed item's place in the order read (sorting keeps it at one time)
  function C.number(it, ip)
    C.items = C.items + 1
    if C.items > limits.current.items then
      fail(ip, "too many timed items: animation '%s' has more than %d (anim.limits.items)", shown(name), limits.current.items)
    end
    C.seq[it] = C.items
  end
  each(raw, "bone", p, bone_timeline, C, A)
  each(raw, "slot", p, slot_timeline, C, A)
  each(raw, "ffd", p, deform_timeline, C, A)
  each(raw, "ik", p, ik_timeline, C, A)
  local z = F.object(raw, "zOrder", p)
  if z then zorder_timeline(z, key(p, "zOrder"), C, A) end
  if not E.absent(raw.surface) then warn(key(p, "surface"), "surface timelines (DragonBones 5.7) are not read") end
  local frames, fp = frames_of(raw, "frame", p)
  if frames then
    local starts = K.starts(frames, fp)
    for i, f in ipairs(frames) do
      if starts[i] <= total then items(f, index(fp, i), starts[i] / rate, C, nil, nil) end
    end
  end
  if play_times > 1 then
    warn(key(p, "playTimes"), "animation '%s' plays %d times: the clip loops (stop its track after %d passes)",
      shown(name), play_times, play_times)
  end
  local properties = {}
  for k, keys in pairs(C.props) do properties[k] = keys end
  for k, keys in pairs(C.discrete) do properties[k] = { keys = keys, discrete = true } end
  for ev in pairs(C.event_names) do A.desc.events[ev] = A.desc.events[ev] or {} end
  -- by time, then in the order read (the runtime's order at one frame)
  local function by_time(a, b)
    if a.time ~= b.time then return a.time < b.time end
    return C.seq[a] < C.seq[b]
  end
  table.sort(C.events, by_time)
  table.sort(C.sounds, by_time)
  table.sort(C.markers, by_time)
  local t = {
    version = 3, euler = "xyz", length = total / rate,
    loop = play_times == 1 and "once" or "loop",
    joints = C.joints,
  }
  if next(properties) then t.properties = properties end
  if #C.events > 0 then t.events = C.events end
  if #C.sounds > 0 then t.sounds = C.sounds end
  if #C.markers > 0 then t.markers = C.markers end
  return name, t, play_times
end

return M
