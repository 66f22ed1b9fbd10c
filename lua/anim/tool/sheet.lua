-- sheet.lua: a contact sheet of a clip played on a rig, as SVG (`anim
-- sheet`): the pose at N evenly spaced times, each in a front view (x
-- across, y up, the figure facing the viewer) and a side view (z across:
-- the figure faces right).  The rig is the blocky player, drawn as its
-- body parts, or the clip's own skeleton (the `skeleton` field; a
-- .bbmodel's clips carry the file's groups, pivots and rotations), drawn
-- as its bones: a box from each joint to each of its children.
--
-- The poses are what a game sees: an animator plays the clip with no fade,
-- the track is sought to each time and updated by 0 (a seek fires nothing,
-- SEMANTICS 7a.6), and every part is a box placed by its joint's world
-- transform, drawn as the convex outline of its 8 projected corners.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local clipmod = require "anim.format.clip"
local E = require "anim.base.errors"
local bind = require "anim.format.bind"
local rigmod = require "anim.format.rig"
local svg = require "anim.tool.svg"
local rotate = require("anim.base.quat").rotate

local M = {}

-- The player's parts in blocks, in each joint's own frame (origin at the
-- pivot).  The torso pivot is its bottom; the arms hang from 0.125 above
-- their pivot as in the Minecraft model (shoulders level with the top of
-- the torso); legs hang from their pivot; the head sits on its pivot.
M.PLAYER_PARTS = {
  { joint = "rightLeg", min = { -0.125, -0.75, -0.125 }, max = { 0.125, 0, 0.125 }, fill = "#3f51a3" },
  { joint = "leftLeg", min = { -0.125, -0.75, -0.125 }, max = { 0.125, 0, 0.125 }, fill = "#5c6fc4" },
  { joint = "torso", min = { -0.25, 0, -0.125 }, max = { 0.25, 0.75, 0.125 }, fill = "#2a9d8f" },
  { joint = "rightArm", min = { -0.125, -0.625, -0.125 }, max = { 0.125, 0.125, 0.125 }, fill = "#c98d63" },
  { joint = "leftArm", min = { -0.125, -0.625, -0.125 }, max = { 0.125, 0.125, 0.125 }, fill = "#e0a77d" },
  { joint = "head", min = { -0.25, 0, -0.25 }, max = { 0.25, 0.5, 0.25 }, fill = "#e8b98f" },
}

-- The 8 corners of a part in its joint's own frame: its box (min, max),
-- or the corners it lists.
local function local_corners(part)
  if part.corners then return part.corners end
  local out = {}
  for i = 0, 7 do
    out[#out + 1] = { i % 2 == 0 and part.min[1] or part.max[1], i % 4 < 2 and part.min[2] or part.max[2],
      i < 4 and part.min[3] or part.max[3] }
  end
  return out
end

-- The 8 world-space corners of a part from its joint's world transform
-- (px, py, pz, qx, qy, qz, qw, sx, sy, sz).
local function corners(part, w)
  local out = {}
  local q, s = { w[4], w[5], w[6], w[7] }, { w[8], w[9], w[10] }
  for _, c in ipairs(local_corners(part)) do
    local r = rotate(q, { c[1] * s[1], c[2] * s[2], c[3] * s[3] })
    out[#out + 1] = { w[1] + r[1], w[2] + r[2], w[3] + r[3] }
  end
  return out
end

-- A skeleton's rig (format/rig.lua's one rule), or nil and why.
local function skeleton_rig(skeleton)
  return E.catch("skeleton", rigmod.from_skeleton, skeleton, "skeleton")
end

local BONE_FILLS = { "#2a9d8f", "#e76f51", "#3f51a3", "#e9c46a", "#8d6cab", "#f4a261", "#5c8d4a", "#c98d63" }

-- The corners of a box along v (in a joint's frame) from its origin, w wide.
local function segment(v, w)
  local len = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
  local u = { v[1] / len, v[2] / len, v[3] / len }
  -- two directions across u
  local a = math.abs(u[1]) < 0.9 and { 1, 0, 0 } or { 0, 1, 0 }
  local p = { u[2] * a[3] - u[3] * a[2], u[3] * a[1] - u[1] * a[3], u[1] * a[2] - u[2] * a[1] }
  local pl = math.sqrt(p[1] ^ 2 + p[2] ^ 2 + p[3] ^ 2)
  p = { p[1] / pl * w, p[2] / pl * w, p[3] / pl * w }
  local r = { u[2] * p[3] - u[3] * p[2], u[3] * p[1] - u[1] * p[3], u[1] * p[2] - u[2] * p[1] }
  local out = {}
  for _, t in ipairs { 0, 1 } do
    for _, sp in ipairs { -1, 1 } do
      for _, sr in ipairs { -1, 1 } do
        out[#out + 1] = { v[1] * t + sp * p[1] + sr * r[1], v[2] * t + sp * p[2] + sr * r[2], v[3] * t + sp * p[3] + sr * r[3] }
      end
    end
  end
  return out
end

-- The bones of a rig: for each joint, a box to each child (in the joint's
-- frame, from the rest pose), a small cube for a joint without children.
local function bone_parts(rig)
  local a = anim.animator(rig) -- its pose is the rest until it is updated
  local joints = rig:joints()
  local world, extent = {}, 0
  for _, j in ipairs(joints) do
    world[j.name] = { a:world_transform(j.name) }
    for k = 1, 3 do extent = math.max(extent, math.abs(world[j.name][k])) end
  end
  local w = math.max(extent, 0.5) * 0.03
  local parts, children = {}, {}
  for _, j in ipairs(joints) do
    if j.parent then children[j.parent] = (children[j.parent] or 0) + 1 end
  end
  for i, j in ipairs(joints) do
    local fill = BONE_FILLS[(i - 1) % #BONE_FILLS + 1]
    if j.parent then
      -- this joint's pivot in its parent's frame
      local pw, cw = world[j.parent], world[j.name]
      local d = { cw[1] - pw[1], cw[2] - pw[2], cw[3] - pw[3] }
      local inv = { -pw[4], -pw[5], -pw[6], pw[7] }
      local v = rotate(inv, d)
      if v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2 > 1e-18 then
        parts[#parts + 1] = { joint = j.parent, fill = BONE_FILLS[(i - 2) % #BONE_FILLS + 1], corners = segment(v, w) }
      end
    end
    if not children[j.name] then
      parts[#parts + 1] = { joint = j.name, fill = fill, min = { -w * 1.5, -w * 1.5, -w * 1.5 }, max = { w * 1.5, w * 1.5, w * 1.5 } }
    end
  end
  return parts
end

-- The rig to draw a clip on and its parts: which = "player", "skeleton"
-- (the clip's), or nil (the clip's skeleton when it has one that makes a
-- rig, else the player).  Returns rig, parts, the rig's name, and a note
-- when the skeleton could not be used.
function M.setup(clip, which)
  local sk = clipmod.info(clip).skeleton
  if which ~= "player" and sk and next(sk) ~= nil then
    local rig, err = skeleton_rig(sk)
    if rig then return rig, bone_parts(rig), "skeleton" end
    if which == "skeleton" then return nil, nil, nil, err end
    return anim.rig("player"), M.PLAYER_PARTS, "player", "the clip's skeleton makes no rig (" .. err .. ")"
  end
  if which == "skeleton" then return nil, nil, nil, "the clip has no skeleton" end
  return anim.rig("player"), M.PLAYER_PARTS, "player"
end

-- Convex hull of 2D points (Andrew's monotone chain), counter-clockwise.
local function hull(pts)
  table.sort(pts, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  if #pts < 3 then return pts end
  local function cross(o, a, b) return (a[1] - o[1]) * (b[2] - o[2]) - (a[2] - o[2]) * (b[1] - o[1]) end
  local lower, upper = {}, {}
  for _, p in ipairs(pts) do
    while #lower >= 2 and cross(lower[#lower - 1], lower[#lower], p) <= 1e-12 do lower[#lower] = nil end
    lower[#lower + 1] = p
  end
  for i = #pts, 1, -1 do
    local p = pts[i]
    while #upper >= 2 and cross(upper[#upper - 1], upper[#upper], p) <= 1e-12 do upper[#upper] = nil end
    upper[#upper + 1] = p
  end
  lower[#lower] = nil
  upper[#upper] = nil
  for _, p in ipairs(upper) do lower[#lower + 1] = p end
  return lower
end
M.hull = hull

-- The views: which world axis goes across, and how to sort parts so that
-- the nearer ones paint last (front: the viewer is at +z; side: at -x).
local VIEWS = {
  { name = "front", across = 1, depth = function(c) return c[3] end },
  { name = "side", across = 3, depth = function(c) return -c[1] end },
}

-- The times of the frames: a looping clip's end is its start again, so
-- it is left out; otherwise the last frame is the end.
function M.times(length, loop, n)
  local out = {}
  for i = 0, n - 1 do
    if loop == "loop" then out[#out + 1] = length * i / n
    else out[#out + 1] = n == 1 and 0 or length * i / (n - 1) end
  end
  return out
end

-- The outlines of every part at clip time t: { view name -> list of
-- { joint, fill, points (2D, world units), depth } }, nearest last.
-- rig, parts: from M.setup (default: the player).  A clip none of whose
-- joints plays on the rig (play refuses it) leaves the rig at rest.
function M.outlines(clip, t, rig, parts)
  rig, parts = rig or anim.rig("player"), parts or M.PLAYER_PARTS
  local a = anim.animator(rig, { space = clipmod.info(clip).space })
  if #M.joints_on_rig(clip, rig) > 0 then
    local track = a:play(clip, { fade = 0 })
    track.time = t
  end
  a:update(0)
  local out = {}
  for _, view in ipairs(VIEWS) do
    local list = {}
    for _, part in ipairs(parts) do
      local cs = corners(part, { a:world_transform(part.joint) })
      local pts, depth = {}, 0
      for i, c in ipairs(cs) do
        pts[i] = { c[view.across], c[2] }
        depth = depth + view.depth(c) / 8
      end
      list[#list + 1] = { joint = part.joint, fill = part.fill, points = hull(pts), depth = depth }
    end
    table.sort(list, function(p, q) return p.depth < q.depth end)
    out[view.name] = list
  end
  return out
end

-- Which of the clip's joints play on the rig (by name, retarget field or guess).
function M.joints_on_rig(clip, rig)
  local on = {}
  local resolved = bind.resolve(clip, rig)
  for _, name in ipairs(clip:joints()) do
    if resolved[name] and resolved[name].joint then on[#on + 1] = name end
  end
  return on
end

local CELL_GAP, LABEL_H, MAX_SCALE = 18, 22, 70
local VIEW_W, VIEW_H = 130, 200

-- The sheet's picture: a title line, then a cell of cell_w x cell_h per
-- frame time (4 a row), each framed and labelled with its time, its
-- content drawn by draw(doc, i, x0, y0) (the cell's top-left).
function M.grid(times, cell_w, cell_h, title, heading, draw)
  local cols = math.min(#times, 4)
  local rows = math.ceil(#times / cols)
  local top = 44
  local width = cols * cell_w + (cols + 1) * CELL_GAP
  local height = top + rows * cell_h + (rows + 1) * CELL_GAP
  local doc = svg.new(width, height, title .. " — contact sheet")
  doc:rect(0, 0, width, height, { fill = "#ffffff" })
  doc:text(CELL_GAP, 26, heading, { ["font-size"] = 15, ["font-weight"] = "bold", class = "title" })
  for i, t in ipairs(times) do
    local col, row = (i - 1) % cols, math.floor((i - 1) / cols)
    local x0 = CELL_GAP + col * (cell_w + CELL_GAP)
    local y0 = top + CELL_GAP + row * (cell_h + CELL_GAP)
    doc:group({ class = "frame", ["data-time"] = E.num(t) }, function()
      doc:rect(x0, y0, cell_w, cell_h, { fill = "#f7f7f4", stroke = "#ccc", rx = 6 })
      doc:text(x0 + cell_w / 2, y0 + 16, string.format("t = %s s", E.num(tonumber(string.format("%.4g", t)))),
        { ["text-anchor"] = "middle", ["font-weight"] = "bold", class = "frame-label" })
      draw(doc, i, x0, y0)
    end)
  end
  return doc:render()
end
M.LABEL_H = LABEL_H

-- sheet.render(clip, { frames = n, title = text, rig = "player" | "skeleton" | nil })
-- -> svg text | nil, why (a skeleton asked for that the clip has not)
function M.render(clip, opts)
  local info = clipmod.info(clip)
  local times = M.times(info.length, info.loop, opts.frames or 8)
  local rig, parts, rigname, note = M.setup(clip, opts.rig)
  if not rig then return nil, note end
  local poses = {}
  for i, t in ipairs(times) do poses[i] = M.outlines(clip, t, rig, parts) end
  -- one scale for every frame, so that motion compares across the sheet
  local box = {}
  for _, view in ipairs(VIEWS) do
    local b = { math.huge, math.huge, -math.huge, -math.huge }
    for _, p in ipairs(poses) do
      for _, part in ipairs(p[view.name]) do
        for _, pt in ipairs(part.points) do
          b[1], b[2] = math.min(b[1], pt[1]), math.min(b[2], pt[2])
          b[3], b[4] = math.max(b[3], pt[1]), math.max(b[4], pt[2])
        end
      end
    end
    b[2] = math.min(b[2], 0) -- the ground is always in the picture
    box[view.name] = b
  end
  local scale = MAX_SCALE
  for _, b in pairs(box) do
    scale = math.min(scale, (VIEW_W - 16) / math.max(b[3] - b[1], 1e-9), (VIEW_H - 16) / math.max(b[4] - b[2], 1e-9))
  end
  local title = opts.title or tostring(info.name)
  local text = M.grid(times, 2 * VIEW_W + 8, LABEL_H + VIEW_H + 16, title, string.format("%s — %g s, %s, on the %s rig, %d frames",
    title, info.length, info.loop, rigname == "skeleton" and "clip's own" or rigname, #times), function(doc, i, x0, y0)
      for vi, view in ipairs(VIEWS) do
        local b = box[view.name]
        local vx = x0 + (vi - 1) * (VIEW_W + 8)
        local vy = y0 + LABEL_H
        -- centre the view's box in its area; y up
        local ox = vx + VIEW_W / 2 - (b[1] + b[3]) / 2 * scale
        local oy = vy + VIEW_H / 2 + (b[2] + b[4]) / 2 * scale
        local function to(p) return { ox + p[1] * scale, oy - p[2] * scale } end
        doc:line(vx + 4, oy, vx + VIEW_W - 4, oy, { stroke = "#999", ["stroke-dasharray"] = "3 3", class = "ground" })
        for _, part in ipairs(poses[i][view.name]) do
          local pts = {}
          for k, p in ipairs(part.points) do pts[k] = to(p) end
          doc:polygon(pts, { fill = part.fill, stroke = "#333", ["stroke-width"] = 1, ["stroke-linejoin"] = "round",
            class = "part", ["data-joint"] = part.joint, ["data-view"] = view.name })
        end
        doc:text(vx + VIEW_W / 2, vy + VIEW_H + 10, view.name, { ["text-anchor"] = "middle", ["font-size"] = 10,
          fill = "#666", class = "view-label" })
      end
    end)
  return text, note
end

return M
