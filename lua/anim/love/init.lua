-- anim.love: 2D skeletons (Spine, DragonBones) drawn in LÖVE 11.
--
--   local draw2d = require "anim.love"
--   draw2d.draw(animator, images [, x, y, r, sx, sy])
--   draw2d.world_vertices(animator, slot) -> { x1, y1, x2, y2, ... } | nil
--
-- Loaded only in LÖVE (it uses love.graphics).  Each atlas page has one
-- mesh, made once and reused: a frame writes the attachments' triangles
-- into it in draw order (csrc/lua/lua_draw2d.c writes the vertices into
-- a ByteData, nothing is allocated), and draws it in runs of one page and
-- one blend mode.  Two-colour tinting (a slot's dark colour) goes through
-- a small shader; clipping attachments through the stencil.  Spine's
-- skeletons are y up: they are drawn flipped, so that up is up on screen.
require("anim.base.luajit").no_traversal_traces()
local attach2d = require "anim.runtime.attach2d"

local love = rawget(_G, "love")
local M = {}
local draw_run, slot_values = attach2d.run, attach2d.slot_values

-- x, y, u, v, r, g, b, a, and the dark colour (r, g, b, 1): 12 floats.
local FORMAT = { { "VertexPosition", "float", 2 }, { "VertexTexCoord", "float", 2 }, { "VertexColor", "float", 4 },
  { "VertexDark", "float", 4 } }
local STRIDE = 12

-- Spine's two-colour tint ("tint black"): the texel's colour times the
-- light colour, its missing light filled with the dark colour.
local SHADER = [[
varying vec4 vDark;
#ifdef VERTEX
attribute vec4 VertexDark;
vec4 position(mat4 transform_projection, vec4 vertex_position) {
  vDark = VertexDark;
  return transform_projection * vertex_position;
}
#endif
#ifdef PIXEL
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
  vec4 t = Texel(tex, uv);
  return vec4(t.rgb * color.rgb + (1.0 - t.rgb) * vDark.rgb, t.a * color.a);
}
#endif
]]

local BLEND = { normal = { "alpha", "alphamultiply" }, additive = { "add", "alphamultiply" },
  multiply = { "multiply", "premultiplied" }, screen = { "screen", "alphamultiply" } }

-- What is kept per animator (the world matrices, a scratch, the drawer
-- that places the attachments with them, the deform buffers of
-- world_vertices; weak: it goes with the animator) and for all: the
-- pages' meshes by image, and apart from them the shader and the
-- clipping's stencil mesh (which has no texture).
local per_animator = setmetatable({}, { __mode = "k" })
local pages = {}
local shared = { shader = nil, stencil = nil }

local function compiled(animator)
  local c = attach2d.of(animator)
  if not c then error("anim.love: the animator plays no 2D skeleton (make it with anim.animator(skeleton))", 3) end
  return c
end

local function state_of(animator, c)
  local st = per_animator[animator]
  if not st then
    st = { world = attach2d.buffer(6 * #c.bone_names), scratch = attach2d.buffer(2 * c.points), deform = {} }
    st.drawer = attach2d.drawer(c, st.world, st.scratch)
    st.reader = attach2d.slots(c)
    per_animator[animator] = st
  end
  return st
end

-- The bones' world matrices into st.world.
local function place(animator, c, st) attach2d.world_into(animator, c, st.world) end

-- A deform's offsets (its property, when a track animates it) in a
-- buffer kept per animator and name; nil when none.
local function deform_of(animator, st, e)
  local buf = attach2d.deform(animator, e, st.deform[e.deform])
  if buf then st.deform[e.deform] = buf end
  return buf
end

-- A mesh of at least `most` vertices and its ByteData, textured with
-- image when one is given.
local function new_mesh(most, image)
  local cap = math.max(most, 1024)
  local p = { cap = cap, mesh = love.graphics.newMesh(FORMAT, cap, "triangles", "stream"),
    data = love.data.newByteData(cap * STRIDE * 4) }
  if image then p.mesh:setTexture(image) end
  return p
end

-- A page's mesh and ByteData (made on first use, grown when a skeleton
-- needs more), per page image; the stencil's, one for all.
local function page_mesh(image, most)
  local p = pages[image]
  if not p or p.cap < most then
    p = new_mesh(most, image)
    pages[image] = p
  end
  return p
end
local function stencil_mesh(most)
  local p = shared.stencil
  if not p or p.cap < most then
    p = new_mesh(most)
    shared.stencil = p
  end
  return p
end

local function image_of(images, page)
  if type(images) ~= "table" then return images end
  local img = images[page or 1] or images[1]
  if not img then error("anim.love: no image for atlas page '" .. tostring(page) .. "'", 3) end
  return img
end

-- A frame's state, kept between frames so that drawing allocates nothing:
-- the run of triangles of one page and blend mode not drawn yet, the
-- vertices written per page this frame, the clipping attachment's stencil.
local run = { page = nil, start = 0, used = 0, blend = nil }
local used = {}
local stencil = { mesh = nil, n = 0 }

local function flush(g)
  local p = run.page
  if p and run.used > run.start then
    local n = run.used - run.start
    p.mesh:setVertices(p.data, run.start + 1, n)
    p.mesh:setDrawRange(run.start + 1, n)
    local b = BLEND[run.blend] or BLEND.normal
    g.setBlendMode(b[1], b[2])
    g.draw(p.mesh)
  end
  run.start = run.used
end

local function draw_stencil()
  stencil.mesh:setVertices(stencil.data, 1, stencil.n)
  stencil.mesh:setDrawRange(1, stencil.n)
  love.graphics.draw(stencil.mesh)
end

-- One attachment's triangles (its record now: rec, on page) added to the
-- run of its page and blend mode.
local function draw_one(g, st, c, e, blend, rec, page, images, cr, cg, cb, ca, dr, dg, db)
  local image = image_of(images, page)
  local p = page_mesh(image, c.most)
  if p ~= run.page or blend ~= run.blend then
    flush(g)
    run.page, run.blend = p, blend
    run.used = used[p] or 0
    run.start = run.used
  end
  local k = e.color
  local n = attach2d.draw(st.drawer, rec, p.data, run.used - run.start, cr * k[1], cg * k[2], cb * k[3], ca * k[4],
    dr, dg, db)
  run.used = run.used + n
  used[p] = run.used
  -- (what the run in C goes on with: slots drawn to this page's name and blend)
  run.page_id, run.blend_id = attach2d.page_id(c, page), attach2d.blend_id(c, blend)
end

-- draw(animator, images [, x, y, r, sx, sy]): images maps the atlas pages'
-- names to LÖVE images (or is the one image of a one-page atlas).
function M.draw(animator, images, x, y, r, sx, sy)
  local c = compiled(animator)
  local st = state_of(animator, c)
  attach2d.pose(st.drawer, animator, c) -- (the world matrices and deforms of this frame)
  local g = love.graphics
  shared.shader = shared.shader or g.newShader(SHADER)
  g.push("all")
  g.translate(x or 0, y or 0)
  g.rotate(r or 0)
  g.scale(sx or 1, (sy or sx or 1) * (c.y_down and 1 or -1))
  g.setShader(shared.shader)
  local reader, drawer = st.reader, st.drawer
  local order = c.orders[attach2d.read_slots(reader, animator)] or c.orders[0]
  local skin = animator:skin()
  local entries, dlist = attach2d.slot_entries(c, skin), attach2d.draw_list(c, skin)
  local stop = 0 -- (the slot that ends the clipping drawn, 0: none)
  run.page, run.start, run.used, run.blend = nil, 0, 0, nil
  for p in pairs(used) do used[p] = nil end -- (per page: the vertices written this frame)
  local o, n = 1, #order
  while o <= n do
    if run.page then
      -- (the slots on this run's page and blend, in C: csrc/lua/lua_draw2d_run.c)
      local wrote
      o, wrote = draw_run(drawer, reader, animator, dlist, order, o, run.page.data, run.used - run.start, run.page_id,
        run.blend_id, stop)
      run.used = run.used + wrote
      used[run.page] = run.used
      if o > n then break end
    end
    local i = order[o]
    -- (the slot's attachment and colours, as animator:slot gives them)
    local k, cr, cg, cb, ca, dr, dg, db = slot_values(reader, animator, i)
    local e = entries[i][k]
    if e and e.kind == "clipping" and e.ntri > 0 then
      flush(g)
      local sp = stencil_mesh(3 * e.ntri)
      stencil.mesh, stencil.data = sp.mesh, sp.data
      stencil.n = attach2d.draw(drawer, e.record, sp.data, 0, 1, 1, 1, 1, 0, 0, 0)
      g.stencil(draw_stencil, "replace", 1)
      g.setStencilTest("greater", 0)
      stop = c.slots[e.end_slot] or 0
    elseif e and e.ntri > 0 and e.kind ~= "clipping" then
      local rec, ntri, page = attach2d.frame(animator, e) -- (a sequence's frame now)
      if ntri > 0 then
        draw_one(g, st, c, e, c.slot_blend[i], rec, page, images, cr, cg, cb, ca, dr, dg, db)
      end
    end
    if i == stop then
      flush(g)
      g.setStencilTest()
      stop = 0
    end
    o = o + 1
  end
  flush(g)
  run.page = nil
  g.pop()
end

-- world_vertices(animator, slot) -> { x1, y1, ... } of the slot's
-- attachment (a bounding box, a mesh's vertices, a region's corners), or
-- nil when it shows none or one with no points (a DragonBones armature
-- display, an ellipse kept as data): for hit tests and bounding boxes.
function M.world_vertices(animator, slot)
  local c = compiled(animator)
  local st = state_of(animator, c)
  place(animator, c, st)
  local name = animator:slot(slot)
  local e = name and attach2d.lookup(c, animator:skin(), slot, name)
  if not e or not e.record then return nil end
  local n = attach2d.place(st.world, (attach2d.frame(animator, e)), deform_of(animator, st, e), st.scratch)
  local out = {}
  for i = 1, 2 * n do out[i] = st.scratch[i] end
  return out
end

return M
