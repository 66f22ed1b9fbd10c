-- attach2d.lua: a 2D skeleton's attachments made ready to be placed in the
-- world every frame (csrc/lua/lua_draw2d.c): once per skeleton, each
-- attachment of each skin becomes a record of doubles in a module buffer
-- (its points in its bone's frame, or its weighted vertices; its uvs on
-- its atlas page; its triangles), so that drawing and hit tests allocate
-- nothing and read no Lua table per vertex.
--
-- The geometry is Spine's (esotericsoftware.com "spine-json-format"): a
-- region is an image of width x height centred at x, y in its bone's
-- frame, turned by rotation and scaled (csrc/core/verts2d.c places its
-- corners, its atlas whitespace kept); a mesh's uvs are 0..1 across its
-- atlas region, v down the image; a weighted mesh lists per vertex the
-- bones that move it.  An atlas region turned when packed (`rotate` 90,
-- 180 or 270 degrees; `true` is 90) had its image turned that far
-- counter-clockwise on the page: its uvs are turned back here.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local skeleton2d = require "anim.format.skeleton2d"
local attachments2d = require "anim.format.attachments2d"

local M = {}

local HEAD = 6

-- A record (csrc/lua/lua_draw2d.c: checked once, here): kind 1 (points
-- on bone) or 2 (weighted), its geometry, uvs (or nil), triangles
-- (0-based) and the index of its deform among the skeleton's (or nil).
local function record(kind, bone, n, geom, uvs, tris, deform)
  local ntri = tris and #tris / 3 or 0
  local b = core.buffer(HEAD + #geom + (uvs and 2 * n or 0) + 3 * ntri, "double")
  b[1], b[2], b[3], b[4], b[5], b[6] = kind, bone or -1, n, #geom, ntri, uvs and 1 or 0
  local at = HEAD
  for i = 1, #geom do b[at + i] = geom[i] end
  at = at + #geom
  if uvs then
    for i = 1, 2 * n do b[at + i] = uvs[i] end
    at = at + 2 * n
  end
  for i = 1, 3 * ntri do b[at + i] = tris[i] end
  return core.record2d(b, deform)
end
M.record = record

-- The page's uv of the point (s, t) of a region's image (s right, t down,
-- 0..1): the region's rectangle on the page is u..u2, v..v2.
function M.page_uv(region, s, t)
  local u, v, u2, v2 = region.u, region.v, region.u2, region.v2
  local turn = region.rotate
  if turn == true then turn = 90 elseif not turn then turn = 0 end
  turn = turn % 360
  if turn == 90 then return u + t * (u2 - u), v2 - s * (v2 - v) end
  if turn == 180 then return u2 - s * (u2 - u), v2 - t * (v2 - v) end
  if turn == 270 then return u2 - t * (u2 - u), v + s * (v2 - v) end
  return u + s * (u2 - u), v + t * (v2 - v)
end

-- Ear clipping of a simple polygon (2n numbers): its triangles, 0-based
-- (a clipping attachment's stencil; made once, valid under any affine
-- world transform).
function M.triangulate(pts)
  local n = #pts / 2
  local idx, tris = {}, {}
  for i = 1, n do idx[i] = i - 1 end
  local area = 0
  for i = 1, n do
    local j = i % n + 1
    area = area + pts[2 * i - 1] * pts[2 * j] - pts[2 * j - 1] * pts[2 * i]
  end
  local sign = area >= 0 and 1 or -1
  local function x(k) return pts[2 * k + 1] end
  local function y(k) return pts[2 * k + 2] end
  local function cross(a, b, c) return ((x(b) - x(a)) * (y(c) - y(a)) - (y(b) - y(a)) * (x(c) - x(a))) * sign end
  local guard = 0
  while #idx > 3 and guard < 10 * n * n do
    guard = guard + 1
    local m, cut = #idx, false
    for i = 1, m do
      local a, b, c = idx[(i - 2) % m + 1], idx[i], idx[i % m + 1]
      if cross(a, b, c) > 0 then
        local inside = false
        for _, p in ipairs(idx) do
          if p ~= a and p ~= b and p ~= c and cross(a, b, p) >= 0 and cross(b, c, p) >= 0 and cross(c, a, p) >= 0 then
            inside = true
            break
          end
        end
        if not inside then
          tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = a, b, c
          table.remove(idx, i)
          cut = true
          break
        end
      end
    end
    if not cut then break end -- (a degenerate polygon: the rest as a fan)
  end
  for i = 2, #idx - 1 do tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = idx[1], idx[i], idx[i + 1] end
  return tris
end

local function color_of(att)
  local c = att.color
  if type(c) == "table" then return { c[1] or c.r or 1, c[2] or c.g or 1, c[3] or c.b or 1, c[4] or c.a or 1 } end
  return { 1, 1, 1, 1 }
end

-- The points of a mesh-like attachment (mesh, bounding box, clipping,
-- path) as a record: weighted ones with their bones as indices.
local function geometry(att, bone, n, uvs, tris, deform)
  if att.weighted then return record(2, nil, n, att.vertices, uvs, tris, deform) end
  return record(1, bone, n, att.vertices, uvs, tris, deform)
end

-- The vertex count of a mesh-like attachment: its uvs', else counted from
-- its vertices.
local function count(att)
  if att.uvs then return #att.uvs / 2 end
  if att.weighted then
    local n, at, v = 0, 1, att.vertices
    while at <= #v do
      n = n + 1
      at = at + 1 + 4 * v[at]
    end
    return n
  end
  return #att.vertices / 2
end

-- Whether a region has its rectangle on its page (u, v, u2, v2): an
-- atlas page of no size gives none (the importers warn), nor may a
-- description's region.
local function on_page(region)
  return region ~= nil and type(region.u) == "number" and type(region.v) == "number" and type(region.u2) == "number"
    and type(region.v2) == "number"
end

-- A region's or mesh's record drawn with `region` (nil, or a region not
-- on_page: no image, no triangles; a region's own size still places its
-- corners), its deform the skeleton's deform-th: record, n, ntri, page.
local function placed(desc, att, region, bone, parent, deform)
  if att.type == "region" then
    local r = region or {}
    local c = { core.region2d_corners(att.x or 0, att.y or 0, att.rotation or 0, att.scale_x or 1, att.scale_y or 1,
      att.width or 0, att.height or 0, r.width or 0, r.height or 0, r.offset_x or 0, r.offset_y or 0,
      r.original_width or 0, r.original_height or 0) }
    local uvs
    if on_page(region) then
      -- (corners bottom-left, top-left, top-right, bottom-right in y-up
      -- axes: the image's bottom-left first; in y-down axes its top-left)
      local ts = desc.y_down and { 0, 1, 1, 0 } or { 1, 0, 0, 1 }
      local ss = { 0, 0, 1, 1 }
      uvs = {}
      for i = 1, 4 do uvs[2 * i - 1], uvs[2 * i] = M.page_uv(region, ss[i], ts[i]) end
    end
    return record(1, bone, 4, c, uvs, uvs and { 0, 1, 2, 2, 3, 0 }, deform), 4, uvs and 2 or 0, region and region.page
  end
  local src = parent or att
  local n = count(src)
  local uvs
  if on_page(region) and src.uvs then
    uvs = {}
    for i = 1, n do uvs[2 * i - 1], uvs[2 * i] = M.page_uv(region, src.uvs[2 * i - 1], src.uvs[2 * i]) end
  end
  local tris = uvs and src.triangles or nil
  return geometry(src, bone, n, uvs, tris, deform), n, tris and #tris / 3 or 0, region and region.page
end

-- A sequence's frames (a region's or mesh's `sequence`): e.frames[1 + i]
-- = { record, ntri, page } of frame i (its region att.regions[1 + i]),
-- e.sequence the property that plays them, e.setup_index; the entry's own
-- record is the setup frame's.  (e.ntri: the most of any frame's.)
local function frames(desc, e, att, bone, skin, slot, name, deform)
  local seq = att.sequence
  e.frames, e.setup_index = {}, seq.setup_index or 0
  e.sequence = "sequence." .. skin .. "." .. slot .. "." .. name
  local most = 0
  for i = 1, seq.count do
    local r -- (a description with no frames' regions: its region the setup frame's)
    if att.regions then r = att.regions[i] elseif i == e.setup_index + 1 then r = att.region end
    local rec, _, ntri, page = placed(desc, att, r, bone, nil, deform)
    e.frames[i] = { record = rec, ntri = ntri, page = page }
    if ntri > most then most = ntri end
  end
  local f = e.frames[e.setup_index + 1]
  e.record, e.page, e.ntri = f.record, f.page, most
end

-- One attachment made ready: { kind, name, slot, record, n, ntri, page,
-- color, deform (its property name), end_slot, x, y, rotation [, frames,
-- sequence, setup_index] }; one with no points (a DragonBones armature
-- display, a bounding box kept as data) has no record.  The records
-- drawn (a region's, a mesh's, a sequence's frames') name their deform
-- by its index in c.deforms (deform_index gives it, made on first use).
local function compile_one(desc, skin, slot, name, att, bone, parent, parent_slot, deform_index)
  local e = { kind = att.type, name = name, slot = slot, color = color_of(att),
    deform = "deform." .. skin .. "." .. slot .. "." .. name }
  if att.type == "linkedmesh" and att.deform ~= false and parent then
    e.deform = "deform." .. (att.skin or "default") .. "." .. (parent_slot or slot) .. "." .. (att.parent or name)
  end
  if (att.type == "region" or att.type == "mesh") and type(att.sequence) == "table" then
    e.n = att.type == "region" and 4 or count(att)
    frames(desc, e, att, bone, skin, slot, name, deform_index(e.deform))
  elseif att.type == "region" then
    e.record, e.n, e.ntri, e.page = placed(desc, att, att.region, bone, nil, deform_index(e.deform))
  elseif att.type == "mesh" or att.type == "linkedmesh" then
    e.record, e.n, e.ntri, e.page = placed(desc, att, att.region, bone, parent, deform_index(e.deform))
  elseif (att.type == "boundingbox" or att.type == "clipping" or att.type == "path") and att.vertices then
    local n = count(att)
    if att.type == "clipping" and not att.weighted then
      local tris = M.triangulate(att.vertices)
      local zeros = {}
      for i = 1, 2 * n do zeros[i] = 0 end
      e.record, e.ntri = record(1, bone, n, att.vertices, zeros, tris), #tris / 3
    else
      e.record, e.ntri = geometry(att, bone, n), 0
    end
    e.n, e.end_slot = n, att["end"]
  elseif att.type == "point" then
    e.x, e.y, e.rotation = att.x or 0, att.y or 0, att.rotation or 0
    e.record, e.n, e.ntri = record(1, bone, 1, { e.x, e.y }), 1, 0
  else -- (nothing to place: a DragonBones armature display, an ellipse kept as data)
    e.n, e.ntri = 0, 0
  end
  return e
end

-- compile(desc) -> { bones = { name = 0-based }, bone_names, slots = { name
-- = index }, skins = { skin = { slot = { name = entry } } }, most, points,
-- deforms } with `most` the largest number of triangle vertices one frame
-- can draw, `points` the most vertices of one attachment (at least 8),
-- `deforms` the deform properties' names the records name by index.
function M.compile(desc)
  local c = { bones = {}, bone_names = {}, slots = {}, skins = {}, y_down = desc.y_down and true or false,
    deforms = {}, points = 8 }
  local deforms = {}
  local function deform_index(name)
    local k = deforms[name]
    if not k then
      k = #c.deforms + 1
      c.deforms[k], deforms[name] = name, k
    end
    return k
  end
  for i, b in ipairs(desc.bones) do
    c.bones[b.name] = i - 1
    c.bone_names[i] = b.name
  end
  local slot_bone = {}
  for i, s in ipairs(desc.slots or {}) do
    c.slots[s.name] = i
    slot_bone[s.name] = c.bones[s.bone]
  end
  local most_per_slot = {}
  for _, sk in ipairs(desc.skins or {}) do
    local out = {}
    c.skins[sk.name] = out
    for slot, atts in pairs(sk.attachments or {}) do
      out[slot] = {}
      for name, att in pairs(atts) do
        local parent, parent_slot
        -- (a linked mesh's parent: anim.skeleton2d refused one with none)
        if att.type == "linkedmesh" then
          parent, parent_slot = attachments2d.parent(desc, att.skin or "default", slot, att.parent)
        end
        local e = compile_one(desc, sk.name, slot, name, att, slot_bone[slot] or 0, parent, parent_slot, deform_index)
        out[slot][name] = e
        c.points = math.max(c.points, e.n)
        most_per_slot[slot] = math.max(most_per_slot[slot] or 0, 3 * e.ntri)
      end
    end
  end
  c.most = 0
  for _, m in pairs(most_per_slot) do c.most = c.most + m end
  return c
end

-- What the drawing's slot reader (csrc/lua/lua_draw2d_slots.c) needs to
-- read every slot in C instead of through animator:slot: the properties' names (the draw order's, then each slot's
-- attachment, colour and dark colour: false without a setup dark colour,
-- as animator:slot reads none then) and the setup's numbers (8 a slot:
-- its attachment's index, -1 for the setup attachment, 0 none; colour;
-- dark colour, 0s without one); the draw orders as slot indices (0: the
-- setup's), each slot's blend mode and name, and the entries by index
-- per skin (slot_entries).
local function slot_tables(c, s)
  local names, setup = { "draworder" }, core.buffer(8 * #s.slots, "double")
  c.slot_list, c.slot_blend, c.by_skin, c.orders = {}, {}, {}, { [0] = {} }
  c.lists, c.page_ids, c.blend_ids = {}, { of = {}, n = 0 }, { of = {}, n = 0 }
  for i, sl in ipairs(s.slots) do
    names[#names + 1], names[#names + 2], names[#names + 3] = sl.p_attachment, sl.p_color, sl.dark and sl.p_dark or false
    local b = 8 * (i - 1)
    setup[b + 1] = sl.attachment and -1 or 0
    for k = 1, 4 do setup[b + 1 + k] = sl.color[k] end
    for k = 1, 3 do setup[b + 5 + k] = sl.dark and sl.dark[k] or 0 end
    c.slot_list[i], c.slot_blend[i], c.orders[0][i] = sl, c.blend[sl.name], i
  end
  for k, order in ipairs(s.draw_orders) do
    local o = {}
    for j, name in ipairs(order) do o[j] = s.slot_index[name] end
    c.orders[k] = o
  end
  c.slot_props, c.slot_setup = names, setup
end

-- The compiled attachments of an animator's 2D skeleton (made once per
-- skeleton: weak), with `rig_map` (each bone's joint of the rig, a buffer
-- for core.world2d_into); nil when the animator has no 2D skeleton.
local by_skeleton = setmetatable({}, { __mode = "k" })
function M.of(animator)
  local sk = core.animator_state(animator).skeleton
  if not sk then return nil end
  local c = by_skeleton[sk]
  if not c then
    local s = skeleton2d.data(sk)
    c = M.compile(s.desc)
    c.rig_map = core.buffer(#c.bone_names, "double")
    for i, name in ipairs(c.bone_names) do c.rig_map[i] = s.rig_index[name] - 1 end
    c.blend = {}
    for _, sl in ipairs(s.desc.slots or {}) do c.blend[sl.name] = sl.blend or "normal" end
    slot_tables(c, s)
    by_skeleton[sk] = c
  end
  return c
end

-- Every bone's world matrix into buf (6 doubles a bone, the description's order).
function M.world_into(animator, c, buf) core.world2d_into(animator, buf, c.rig_map) end

-- buffer(n): n doubles; place(world, record, deform, scratch) -> n
-- (csrc/lua/lua_draw2d.c)
function M.buffer(n) return core.buffer(n, "double") end

-- drawer(c, world, scratch) -> the drawer of one animator's attachments
-- (csrc/lua/lua_draw2d.c), placing them with the world matrices in world
-- (6 doubles a bone) through scratch (2 doubles a vertex: c.points');
-- pose(drawer, animator, c): world and deforms of this frame (c.rig_map:
-- attach2d.of's); draw(drawer, record, out, first, r, g, b, a, dr, dg,
-- db) -> vertices written.
function M.drawer(c, world, scratch) return core.drawer2d(world, scratch, c.deforms) end
local drawer_pose = core.drawer2d_pose
function M.pose(drawer, animator, c) drawer_pose(drawer, animator, c.rig_map) end
M.draw = core.draw2d
-- deform(animator, entry [, buf]) -> buf | nil: the entry's deform offsets
M.deform = function(animator, e, buf) return core.property_buffer(animator, e.deform, buf) end
M.place = core.attachment2d

-- The record an entry draws now, its triangles and page: a sequence's
-- frame by its property (when a track plays it), else its setup frame.
local core_property, floor = core.animator_property, math.floor
function M.frame(animator, e)
  local fr = e.frames
  if not fr then return e.record, e.ntri, e.page end
  local k = core_property(animator, e.sequence)
  local f = k and fr[floor(k + 0.5) + 1] or fr[e.setup_index + 1]
  return f.record, f.ntri, f.page
end

-- slots(c) -> a reader of the slots' attachments and colours (one per
-- animator); read_slots(reader, animator [, out]) -> the draw order's
-- index into c.orders (0 the setup's; csrc/lua/lua_draw2d_slots.c), with
-- out[8 (i - 1) + 1 .. 8 i] slot i's attachment index (into
-- slot_entries' lists), colour and dark colour, as animator:slot gives
-- them; slot_values(reader, animator, i) -> those 8 numbers of slot i.
function M.slots(c) return core.slots2d(c.slot_props, c.slot_setup) end
M.read_slots = core.slots2d_read
M.slot_values = core.slots2d_slot

-- slot_entries(c, skin) -> { [slot index] = { [attachment index] = entry
-- } }: the entry each of a slot's attachment names (and, at -1, its setup
-- attachment) draws under skin (M.lookup's), made once per skin.
function M.slot_entries(c, skin)
  local key = skin or false
  local t = c.by_skin[key]
  if t then return t end
  t = {}
  for i, sl in ipairs(c.slot_list) do
    local e = {}
    for k, name in ipairs(sl.attachment_names) do e[k] = M.lookup(c, skin, sl.name, name) end
    if sl.attachment then e[-1] = M.lookup(c, skin, sl.name, sl.attachment) end
    t[i] = e
  end
  c.by_skin[key] = t
  return t
end

-- The ids a draw list (core.draw2d_list) gives pages and blend modes: a
-- page's name (false: none) or a blend's, numbered in the order first
-- met, per skeleton (ids.of: by name; ids.n: the count, apart from the
-- names, one of which may be "n").
local function id_of(ids, name)
  local key = name == nil and false or name
  local id = ids.of[key]
  if not id then
    ids.n = ids.n + 1
    id = ids.n
    ids.of[key] = id
  end
  return id
end
function M.page_id(c, page) return id_of(c.page_ids, page) end
function M.blend_id(c, blend) return id_of(c.blend_ids, blend) end

-- draw_list(c, skin) -> the draw list of skin (made once per skin:
-- csrc/lua/lua_draw2d_run.c): for each slot, its blend's id, and for each
-- of its attachment indices (-1 its setup attachment, 0 none, 1.. its
-- names) what slot_entries' entry draws: nothing (none, or no
-- triangles), its record on its page with its colour, or Lua's (a
-- clipping, a sequence).  run(drawer, reader, animator, list, order, o,
-- out, first, page, blend, stop) -> o', written: draw2d_run.
local NOCOLOR = { 0, 0, 0, 0 }
function M.draw_list(c, skin)
  local key = skin or false
  local l = c.lists[key]
  if l then return l end
  local entries, rows = M.slot_entries(c, skin), {}
  for i, sl in ipairs(c.slot_list) do
    local m = #sl.attachment_names
    local row = { M.blend_id(c, c.slot_blend[i]), m }
    for k = -1, m do
      local e = k ~= 0 and entries[i][k]
      local flag, page, rec, col = 0, 0, false, NOCOLOR
      if e and e.ntri > 0 then
        if e.kind == "clipping" or e.frames then flag = 2
        else flag, page, rec, col = 1, M.page_id(c, e.page), e.record, e.color end
      end
      local b = #row
      row[b + 1], row[b + 2], row[b + 3], row[b + 4], row[b + 5], row[b + 6], row[b + 7] = flag, page, rec, col[1],
        col[2], col[3], col[4]
    end
    rows[i] = row
  end
  l = core.draw2d_list(rows)
  c.lists[key] = l
  return l
end
M.run = core.draw2d_run

-- The entry of attachment `name` on `slot` under skin `skin` (the default
-- skin after it, as Spine looks attachments up), or nil.
function M.lookup(c, skin, slot, name)
  local s = skin and c.skins[skin]
  local e = s and s[slot] and s[slot][name]
  if e then return e end
  s = c.skins.default
  return s and s[slot] and s[slot][name]
end

return M
