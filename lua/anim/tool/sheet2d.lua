-- sheet2d.lua: a contact sheet of a 2D skeleton's clip (`anim sheet` of a
-- Spine or DragonBones file), as SVG: the skeleton posed at N evenly
-- spaced times (sheet.lua's), each frame its attachments in draw order,
-- drawn from their outlines in world space -- a region's four corners, a
-- mesh's triangles filled and its boundary edges stroked, bounding boxes
-- and clipping polygons dashed, points as dots -- over the bones as lines.
--
-- The poses are what a game sees: an animator of the skeleton plays the
-- clip with no fade, sought to each time and updated by 0; each
-- attachment's world vertices come from the bones' world matrices
-- (animator:world2d's, read by attach2d.world_into) through
-- lua/anim/runtime/attach2d.lua's compile (attach2d.of), lookup and place:
-- the vertices anim.love draws, its deform included.
-- Spine's skeletons are y up, DragonBones' y down: the sheet shows up as
-- up.
local anim = require "anim"
local clipmod = require "anim.format.clip"
local attach2d = require "anim.runtime.attach2d"
local sheet = require "anim.tool.sheet"

local M = {}

local FILLS = { "#2a9d8f", "#e76f51", "#3f51a3", "#e9c46a", "#8d6cab", "#f4a261", "#5c8d4a", "#c98d63" }

-- The triangles of a mesh-like attachment of the description (a linked
-- mesh's are its parent's), or nil.
local function triangles_of(desc, skin, slot, name)
  local function find(sk, sl, n)
    for _, s in ipairs(desc.skins or {}) do
      if s.name == sk then return s.attachments and s.attachments[sl] and s.attachments[sl][n] end
    end
  end
  local att = find(skin, slot, name) or find("default", slot, name)
  if att and att.type == "linkedmesh" then att = find(att.skin or "default", slot, att.parent) end
  return att and att.triangles
end

-- The edges of a triangle list that belong to one triangle only: the
-- mesh's outline (its hull and any hole), as pairs of 0-based indices.
function M.boundary(tris)
  local count, order = {}, {}
  for i = 1, #tris - 2, 3 do
    for k = 0, 2 do
      local a, b = tris[i + k], tris[i + (k + 1) % 3]
      local key = a < b and (a .. ":" .. b) or (b .. ":" .. a)
      if not count[key] then order[#order + 1] = { a, b, key } end
      count[key] = (count[key] or 0) + 1
    end
  end
  local out = {}
  for _, e in ipairs(order) do
    if count[e[3]] == 1 then out[#out + 1] = { e[1], e[2] } end
  end
  return out
end

-- The skeleton (anim.skeleton2d's) posed by the clip at time t: { shapes =
-- { { slot, attachment, kind, points = { {x, y}, ... }, edges, tris,
-- color = { r, g, b, a }, index } }, bones = { { name, x1, y1, x2, y2 } } },
-- in the file's axes, shapes in draw order.
function M.pose(skeleton, clip, t)
  local desc = skeleton.desc
  local a = anim.animator(skeleton)
  local track = a:play(clip, { fade = 0 })
  track.time = t
  a:update(0)
  local c = attach2d.of(a)
  local world = attach2d.buffer(6 * math.max(#c.bone_names, 1))
  attach2d.world_into(a, c, world)
  local bones = {}
  for i, name in ipairs(c.bone_names) do
    local k = 6 * (i - 1)
    local len = desc.bones[i].length or 0
    bones[i] = { name = name, x1 = world[k + 5], y1 = world[k + 6], x2 = world[k + 5] + world[k + 1] * len,
      y2 = world[k + 6] + world[k + 3] * len }
  end
  local shapes = {}
  local skin = a:skin()
  for _, slot in ipairs(a:draw_order()) do
    local name, r, g, b, al = a:slot(slot)
    local e = name and attach2d.lookup(c, skin, slot, name)
    if e and e.record then
      local scratch = attach2d.buffer(2 * math.max(e.n, 1))
      local n = attach2d.place(world, (attach2d.frame(a, e)), attach2d.deform(a, e), scratch)
      local pts = {}
      for i = 1, n do pts[i] = { scratch[2 * i - 1], scratch[2 * i] } end
      local sh = { slot = slot, attachment = name, kind = e.kind, points = pts, color = { r, g, b, al },
        index = c.slots[slot] }
      if e.kind == "mesh" or e.kind == "linkedmesh" then
        sh.tris = triangles_of(desc, skin or "default", slot, name)
        sh.edges = sh.tris and M.boundary(sh.tris)
      end
      shapes[#shapes + 1] = sh
    end
  end
  return { shapes = shapes, bones = bones }
end

local VIEW_W, VIEW_H = 220, 220

local function hex(v) return string.format("%02x", math.floor(math.max(0, math.min(1, v)) * 255 + 0.5)) end

-- sheet2d.render(skeleton, clip, { frames = n, title = text }) -> svg text
function M.render(skeleton, clip, opts)
  local info = clipmod.info(clip)
  local desc = skeleton.desc
  local times = sheet.times(info.length, info.loop, opts.frames or 8)
  local poses = {}
  for i, t in ipairs(times) do poses[i] = M.pose(skeleton, clip, t) end
  -- one scale for every frame, so that motion compares across the sheet
  local flip = desc.y_down and 1 or -1
  local b = { math.huge, math.huge, -math.huge, -math.huge }
  local function see(x, y)
    y = y * flip
    b[1], b[2], b[3], b[4] = math.min(b[1], x), math.min(b[2], y), math.max(b[3], x), math.max(b[4], y)
  end
  for _, p in ipairs(poses) do
    for _, sh in ipairs(p.shapes) do for _, pt in ipairs(sh.points) do see(pt[1], pt[2]) end end
    for _, bn in ipairs(p.bones) do see(bn.x1, bn.y1) see(bn.x2, bn.y2) end
  end
  if b[1] > b[3] then b = { -1, -1, 1, 1 } end
  local scale = math.min((VIEW_W - 16) / math.max(b[3] - b[1], 1e-9), (VIEW_H - 16) / math.max(b[4] - b[2], 1e-9))
  local title = opts.title or tostring(info.name)
  return sheet.grid(times, VIEW_W, sheet.LABEL_H + VIEW_H + 8, title, string.format("%s — %g s, %s, %d frames", title,
    info.length, info.loop, #times), function(doc, i, x0, y0)
      local ox = x0 + VIEW_W / 2 - (b[1] + b[3]) / 2 * scale
      local oy = y0 + sheet.LABEL_H + VIEW_H / 2 - (b[2] + b[4]) / 2 * scale
      local function to(x, y) return ox + x * scale, oy + y * flip * scale end
      for _, sh in ipairs(poses[i].shapes) do
        local pts = {}
        for k, p in ipairs(sh.points) do pts[k] = { to(p[1], p[2]) } end
        local col3 = sh.color
        local fill = FILLS[(sh.index - 1) % #FILLS + 1]
        local tint = "#" .. hex(col3[1]) .. hex(col3[2]) .. hex(col3[3])
        local a = { class = "attachment", ["data-slot"] = sh.slot, ["data-attachment"] = sh.attachment,
          ["data-kind"] = sh.kind }
        if sh.kind == "region" then
          a.fill, a["fill-opacity"], a.stroke, a["stroke-width"] = fill, 0.45 * col3[4], tint == "#ffffff" and "#333" or tint, 1
          doc:polygon(pts, a)
        elseif sh.kind == "mesh" or sh.kind == "linkedmesh" then
          local d = {}
          for k = 1, sh.tris and #sh.tris - 2 or 0, 3 do
            local p, q, r = pts[sh.tris[k] + 1], pts[sh.tris[k + 1] + 1], pts[sh.tris[k + 2] + 1]
            if p and q and r then
              d[#d + 1] = string.format("M%.2f %.2f L%.2f %.2f L%.2f %.2f Z", p[1], p[2], q[1], q[2], r[1], r[2])
            end
          end
          for _, ed in ipairs(sh.edges or {}) do
            local p, q = pts[ed[1] + 1], pts[ed[2] + 1]
            if p and q then d[#d + 1] = string.format("M%.2f %.2f L%.2f %.2f", p[1], p[2], q[1], q[2]) end
          end
          if #d == 0 then -- no triangles: the vertices' convex outline
            local h = sheet.hull(pts)
            for k, p in ipairs(h) do d[#d + 1] = string.format("%s%.2f %.2f", k == 1 and "M" or "L", p[1], p[2]) end
            d[#d + 1] = "Z"
          end
          a.d, a.fill, a["fill-opacity"], a.stroke, a["stroke-width"] = table.concat(d, " "), fill, 0.3 * col3[4], "#333", 0.8
          doc:el("path", a)
        elseif sh.kind == "point" then
          a.fill, a.stroke = "none", "#d62728"
          doc:circle(pts[1][1], pts[1][2], 3, a)
        elseif #pts > 0 then -- boundingbox, clipping, path
          a.fill, a.stroke, a["stroke-dasharray"], a["stroke-width"] = "none", sh.kind == "clipping" and "#8d6cab" or "#d62728",
            "4 3", 1
          doc:polygon(pts, a)
        end
      end
      for _, bn in ipairs(poses[i].bones) do
        local x1, y1 = to(bn.x1, bn.y1)
        local x2, y2 = to(bn.x2, bn.y2)
        doc:line(x1, y1, x2, y2, { stroke = "#222", ["stroke-width"] = 1.2, class = "bone", ["data-bone"] = bn.name })
        doc:circle(x1, y1, 1.8, { fill = "#222", class = "bone-origin" })
      end
    end)
end

return M
