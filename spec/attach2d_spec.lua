-- A 2D skeleton's attachments placed in the world for drawing and hit
-- tests (lua/anim/runtime/attach2d.lua, csrc/lua/lua_draw2d.c,
-- csrc/core/verts2d.c), against values worked out by hand.
local anim = require "anim"
local core = require "anim.core"
local attach2d = require "anim.runtime.attach2d"
local H = require "spec.helper"
local love_mock = require "spec.love_mock"

local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-12) end
local function same(got, want, tol)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    assert(near(got[i], want[i], tol), string.format("[%d] %.17g, expected %.17g", i, got[i], want[i]))
  end
end

local function world(...)
  local m = { ... }
  local b = attach2d.buffer(#m)
  for i = 1, #m do b[i] = m[i] end
  return b
end

-- The corners (x, y each) of entry e's one triangle, drawn by drawer d
-- into out (doubles) with animator a's pose of this frame.
local function triangle(d, a, c, e, out)
  attach2d.pose(d, a, c)
  assert.are.equal(3, attach2d.draw(d, e.record, out, 0, 1, 1, 1, 1, 0, 0, 0))
  return { out[1], out[2], out[13], out[14], out[25], out[26] }
end

local function numbers(buf, from, n)
  local out = {}
  for i = 1, n do out[i] = buf[from + i] end
  return out
end

-- (a region of 40 x 20 pixels at 10, 30 on a 100 x 100 page)
local REGION = { page = "p.png", u = 0.1, v = 0.3, u2 = 0.5, v2 = 0.5, width = 40, height = 20 }

local DESC = {
  bones = { { name = "root" }, { name = "arm", parent = "root" } },
  slots = { { name = "body", bone = "root" }, { name = "hand", bone = "arm" } },
  skins = {
    { name = "default", attachments = {
      body = { box = { type = "region", x = 10, y = 0, width = 4, height = 2, region = REGION, color = { 1, 0.5, 1, 1 } } },
      hand = {
        hit = { type = "boundingbox", vertices = { 0, 0, 1, 0, 0, 1 } },
        skin = { type = "mesh", weighted = true, uvs = { 0, 0, 1, 1 }, triangles = {}, region = REGION,
          vertices = { 1, 0, 2, 3, 1, 2, 0, 1, 1, 0.5, 1, 1, 1, 0.5 } },
        tip = { type = "point", x = 3, y = 4, rotation = 90 },
      } } },
    { name = "gold", attachments = {
      body = { box = { type = "region", x = 0, y = 0, width = 2, height = 2, region = REGION } } } },
  },
}

describe("attach2d", function()
  it("maps a region's image onto its page, turned as the atlas says", function()
    local r = { u = 0.1, v = 0.3, u2 = 0.5, v2 = 0.5 }
    same({ attach2d.page_uv(r, 0, 0) }, { 0.1, 0.3 })
    same({ attach2d.page_uv(r, 1, 1) }, { 0.5, 0.5 })
    r.rotate = 90 -- (the image's top-left went to the page's bottom-left)
    same({ attach2d.page_uv(r, 0, 0) }, { 0.1, 0.5 })
    same({ attach2d.page_uv(r, 1, 0) }, { 0.1, 0.3 })
    r.rotate = true
    same({ attach2d.page_uv(r, 1, 0) }, { 0.1, 0.3 })
    r.rotate = 180
    same({ attach2d.page_uv(r, 0, 0) }, { 0.5, 0.5 })
    r.rotate = 270
    same({ attach2d.page_uv(r, 0, 0) }, { 0.5, 0.3 })
  end)

  it("triangulates a concave polygon into n - 2 triangles of its area", function()
    local l = { 0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2 } -- (an L: area 3)
    local tris = attach2d.triangulate(l)
    assert.are.equal(12, #tris)
    local area = 0
    for i = 1, #tris, 3 do
      local a, b, c = tris[i], tris[i + 1], tris[i + 2]
      local ax, ay, bx, by, cx, cy = l[2 * a + 1], l[2 * a + 2], l[2 * b + 1], l[2 * b + 2], l[2 * c + 1], l[2 * c + 2]
      local s = ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) / 2
      assert(s > 0, "each triangle turns the polygon's way")
      area = area + s
    end
    assert(near(area, 3))
  end)

  it("compiles every skin's attachments and looks them up in the skin, then the default", function()
    local c = attach2d.compile(DESC)
    assert.are.same({ root = 0, arm = 1 }, c.bones)
    assert.are.equal("region", attach2d.lookup(c, "gold", "body", "box").kind)
    assert.are.equal(2, attach2d.lookup(c, "gold", "body", "box").record[6 + 4 + 1] - attach2d.lookup(c, "gold", "body", "box").record[6 + 1])
    assert.are.equal("boundingbox", attach2d.lookup(c, "gold", "hand", "hit").kind)
    assert.is_nil(attach2d.lookup(c, "gold", "hand", "nothing"))
    assert.are.equal("deform.default.hand.skin", attach2d.lookup(c, nil, "hand", "skin").deform)
    assert.are.equal(6, c.most) -- (one region of two triangles; the mesh has none)
  end)

  it("draws a region's two triangles through its bone: places, page uvs, tint", function()
    local c = attach2d.compile(DESC)
    local e = attach2d.lookup(c, nil, "body", "box")
    -- the root turned 90 degrees and moved to (100, 50): (x, y) -> (-y + 100, x + 50)
    local w = world(0, -1, 1, 0, 100, 50, 1, 0, 0, 1, 0, 0)
    local out = anim.buffer(6 * 12 + 12, "double")
    local n = attach2d.draw(attach2d.drawer(c, w, attach2d.buffer(8)), e.record, out, 1, 0.5, 1, 1, 0.8, 0.1, 0.2, 0.3)
    assert.are.equal(6, n)
    -- corners (8, -1) (8, 1) (12, 1) (12, -1) -> (101, 58) (99, 58) (99, 62) (101, 62); triangles 0 1 2, 2 3 0
    local pos = { { 101, 58 }, { 99, 58 }, { 99, 62 }, { 99, 62 }, { 101, 62 }, { 101, 58 } }
    local uv = { { 0.1, 0.5 }, { 0.1, 0.3 }, { 0.5, 0.3 }, { 0.5, 0.3 }, { 0.5, 0.5 }, { 0.1, 0.5 } }
    for i = 1, 6 do
      same(numbers(out, 12 * i, 12), { pos[i][1], pos[i][2], uv[i][1], uv[i][2], 0.5, 1, 1, 0.8, 0.1, 0.2, 0.3, 1 })
    end
    same(numbers(out, 0, 12), { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }) -- (from vertex 1: vertex 0 untouched)
  end)

  it("places a weighted mesh by its bones and weights, with a deform", function()
    local c = attach2d.compile(DESC)
    local e = attach2d.lookup(c, nil, "hand", "skin")
    local w = world(1, 0, 0, 1, 0, 0, 0, -1, 1, 0, 10, 0)
    local scratch = attach2d.buffer(4)
    assert.are.equal(2, attach2d.place(w, e.record, world(0, 0, 1, 0, 0, 1), scratch))
    same(numbers(scratch, 0, 4), { 2, 3, 5, 1 })
  end)

  it("compiles DragonBones' attachments: a linked mesh of another slot's mesh, displays with no points", function()
    -- (DragonBones' `share` names a mesh of any slot; an armature display
    -- and an ellipse bounding box are kept as data: nothing to place)
    local desc = {
      bones = { { name = "root" }, { name = "arm", parent = "root" } },
      slots = { { name = "cape", bone = "root" }, { name = "copy", bone = "arm" }, { name = "weapon", bone = "arm" } },
      skins = { { name = "default", attachments = {
        cape = { cape = { type = "mesh", weighted = false, uvs = { 0, 0, 1, 0, 0, 1 }, triangles = { 0, 1, 2 },
          vertices = { 0, 0, 4, 0, 0, 2 } } },
        copy = { link = { type = "linkedmesh", parent = "cape", skin = "default", deform = true } },
        weapon = { prop = { type = "armature", path = "prop" },
          ring = { type = "boundingbox", shape = "ellipse", width = 4, height = 2 } },
      } } },
    }
    local c = attach2d.compile(desc)
    local e = attach2d.lookup(c, nil, "copy", "link")
    assert.are.equal(3, e.n)
    assert.are.equal("deform.default.cape.cape", e.deform) -- (the parent's timelines)
    local scratch = attach2d.buffer(6)
    -- placed through its own slot's bone (arm: moved by 10, 0)
    assert.are.equal(3, attach2d.place(world(1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 10, 0), e.record, nil, scratch))
    same(numbers(scratch, 0, 6), { 10, 0, 14, 0, 10, 2 })
    for _, name in ipairs { "prop", "ring" } do
      local d = attach2d.lookup(c, nil, "weapon", name)
      assert.is_nil(d.record)
      assert.are.same({ 0, 0 }, { d.n, d.ntri })
    end
  end)

  it("anim.love.world_vertices: nil for a display with no points, the box's corners otherwise", function()
    local love2d = require "anim.love" -- (world_vertices needs no LÖVE)
    local r = assert(anim.import_dragonbones("spec/fixtures/dragonbones/hero_ske.json"))
    local a = anim.animator(r.skeleton)
    a:update(0)
    assert.are.equal("prop", (a:slot("weapon"))) -- (an armature display)
    assert.is_nil(love2d.world_vertices(a, "weapon"))
    local box = r.description.skins[1].attachments.hitbox.box.vertices
    local m = { a:world2d("body") }
    local got = assert(love2d.world_vertices(a, "hitbox"))
    local want = {}
    for i = 1, #box, 2 do
      want[i], want[i + 1] = m[1] * box[i] + m[2] * box[i + 1] + m[5], m[3] * box[i] + m[4] * box[i + 1] + m[6]
    end
    same(got, want, 1e-9)
  end)

  it("refuses what would read or write out of bounds, naming it", function()
    local c = attach2d.compile(DESC)
    local e = attach2d.lookup(c, nil, "hand", "skin")
    local w = world(1, 0, 0, 1, 0, 0, 0, -1, 1, 0, 10, 0)
    local function err(f, ...)
      local ok, msg = pcall(f, ...)
      assert.is_false(ok)
      return tostring(msg)
    end
    local function has(msg, want) assert(msg:find(want, 1, true), msg) end
    -- (what a record does not know: the bones, its deform, the scratch)
    has(err(attach2d.place, world(1, 0, 0, 1, 0, 0), e.record, nil, attach2d.buffer(4)),
      "its weights are broken at number 10 of its layout (a count, or a bone not one of the 1)")
    has(err(attach2d.place, w, e.record, world(0, 0), attach2d.buffer(4)), "2 offsets, the attachment needs 6")
    has(err(attach2d.place, w, e.record, nil, attach2d.buffer(3)), "too small: 3 doubles, 4 needed")
    has(err(attach2d.place, w, core.record2d(world(1, 5, 1, 2, 0, 0, 0, 0)), nil, attach2d.buffer(4)),
      "its bone 5 is not one of the 2 bones")
    has(err(attach2d.place, world(1, 2, 3), e.record, nil, attach2d.buffer(4)), "3 numbers: not 6 a bone")
    has(err(attach2d.place, w, world(1, 0, 1, 2, 0, 0, 0, 0), nil, attach2d.buffer(4)),
      "an attachment record (core.record2d) expected, got anim.buffer")
    -- (drawing)
    local d = attach2d.drawer(c, w, attach2d.buffer(8))
    local box = attach2d.lookup(c, nil, "body", "box")
    has(err(attach2d.draw, d, box.record, anim.buffer(71), 0, 1, 1, 1, 1, 0, 0, 0),
      "too small: 72 floats needed (72 from offset 0), it holds 71")
    -- (a mesh with uvs and no triangles draws nothing)
    assert.are.equal(0, attach2d.draw(d, e.record, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0))
    local hit = attach2d.lookup(c, nil, "hand", "hit")
    has(err(attach2d.draw, d, hit.record, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0), "the attachment has no uvs: it is not drawn")
    has(err(attach2d.draw, d, box.record, anim.buffer(72), 0.5, 1, 1, 1, 1, 0, 0, 0), "first must be an integer in [0, 2^26), got 0.5")
    has(err(attach2d.draw, w, box.record, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0), "a drawer (core.drawer2d) expected, got anim.buffer")
    has(err(attach2d.draw, d, w, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0), "an attachment record (core.record2d) expected, got anim.buffer")
    local arm = attach2d.record(1, 1, 3, { 0, 0, 1, 0, 0, 1 }, { 0, 0, 0, 0, 0, 0 }, { 0, 1, 2 })
    has(err(attach2d.draw, attach2d.drawer(c, world(1, 0, 0, 1, 0, 0), attach2d.buffer(8)), arm, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0),
      "its bone 1 is not one of the 1 bones")
    has(err(attach2d.draw, attach2d.drawer(c, w, attach2d.buffer(6)), box.record, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0),
      "4 vertices: the drawer's scratch holds 3")
    has(err(attach2d.draw, core.drawer2d(w, attach2d.buffer(8), {}), box.record, anim.buffer(72), 0, 1, 1, 1, 1, 0, 0, 0),
      "is not one of the drawer's 0")
    -- (a drawer made)
    has(err(core.drawer2d, world(1, 2, 3), attach2d.buffer(8), {}), "3 numbers: not 6 a bone")
    has(err(core.drawer2d, w, anim.buffer(8), {}), "the scratch must be an anim.buffer of doubles, got a buffer of floats")
    has(err(core.drawer2d, w, attach2d.buffer(8), { "deform.a", 3 }), "deform 2: a property's name expected, got number")
  end)

  it("checks a record once, when it is made, naming what is broken", function()
    local function err(...)
      local ok, msg = pcall(core.record2d, ...)
      assert.is_false(ok)
      return tostring(msg)
    end
    local function has(msg, want) assert(msg:find(want, 1, true), msg) end
    has(err(world(1, 0, 2, 3, 0, 0)), "its header says 9")
    has(err(world(7, 0, 1, 2, 0, 0, 0, 0)), "its header is broken")
    has(err(anim.buffer(8, "float")), "an anim.buffer of doubles, got a buffer of floats")
    has(err(world(1, 0, 1, 4, 0, 0, 0, 0, 0, 0)), "not an attachment record (4 numbers for 1 points)")
    has(err(world(1, -1, 1, 2, 0, 0, 0, 0)), "its bone -1 is not a bone's index")
    has(err(world(2, -1, 1, 5, 0, 0, 1, 1.5, 0, 0, 1)),
      "its weights are broken at number 1 of its layout (a count, or a bone not a bone's index)")
    has(err(world(2, -1, 2, 5, 0, 0, 1, 0, 0, 0, 1)), "its weights give 1 vertices, its header 2")
    has(err(world(1, 0, 1, 2, 0, 0, 0, 0), 0), "a deform's index (1, 2, ...) expected")
    local ok, msg = pcall(attach2d.record, 1, 0, 3, { 0, 0, 1, 0, 0, 1 }, { 0, 0, 0, 0, 0, 0 }, { 0, 1, 3 })
    assert.is_false(ok)
    has(tostring(msg), "triangle corner 3 is not a vertex (of 3)")
    -- (made, it is read as it was made, and never written)
    local r = core.record2d(world(1, 0, 1, 2, 0, 0, 5, 6))
    assert.are.same({ 8, 1, 5, 6 }, { #r, r[1], r[7], r[8] })
    has(select(2, pcall(function() return r[9] end)), "index 9 out of the record's 8 numbers")
    assert.is_false(pcall(function() r[1] = 2 end))
  end)

  it("draws a mesh with its deform of this frame, its slot found again when the animator knows new names", function()
    local desc = {
      bones = { { name = "root" }, { name = "arm", parent = "root", x = 10 } },
      slots = { { name = "hand", bone = "arm", attachment = "m" } },
      skins = { { name = "default", attachments = { hand = { m = { type = "mesh", weighted = false,
        uvs = { 0, 0, 1, 0, 0, 1 }, triangles = { 0, 1, 2 }, vertices = { 0, 0, 4, 0, 0, 2 }, region = REGION } } } } },
    }
    local sk = assert(anim.skeleton2d(desc))
    local a = anim.animator(sk)
    local function clip(name, v)
      -- (a root turned by 0: a clip needs a joint)
      return assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
        properties = { [name] = { { 0, v }, { 1, v } } } }, name))
    end
    local c = attach2d.of(a)
    local wm, scratch = attach2d.buffer(12), attach2d.buffer(2 * c.points)
    local d = attach2d.drawer(c, wm, scratch)
    local e = attach2d.lookup(c, nil, "hand", "m")
    local out = anim.buffer(3 * 12, "double")
    local function xs() return triangle(d, a, c, e, out) end
    a:update(0)
    same(xs(), { 10, 0, 14, 0, 10, 2 })
    a:play(clip("other", { 1 }), { fade = 0 })
    a:update(0.1)
    same(xs(), { 10, 0, 14, 0, 10, 2 })
    a:play(clip("deform.default.hand.m", { 1, 0, 0, 1, 0, 0 }), { fade = 0 })
    a:update(0.1)
    same(xs(), { 11, 0, 14, 1, 10, 2 }) -- (a new name known: the deform found)
    -- (as the hit tests place it, given the deform)
    assert.are.equal(3, attach2d.place(wm, e.record, attach2d.deform(a, e), scratch))
    same(numbers(scratch, 0, 6), { 11, 0, 14, 1, 10, 2 })
    -- (another animator through the same drawer: its slots looked up again;
    -- its deform of another size refused)
    a = anim.animator(sk)
    a:play(clip("deform.default.hand.m", { 1, 0 }), { fade = 0 })
    a:update(0.1)
    local ok, msg = pcall(xs)
    assert.is_false(ok)
    assert.truthy(tostring(msg):find("its deform 'deform.default.hand.m': 2 offsets, the attachment needs 6", 1, true), msg)
    local function err(...)
      local okp, m = pcall(attach2d.pose, ...)
      assert.is_false(okp)
      return tostring(m)
    end
    assert.truthy(err(d, a, { rig_map = attach2d.buffer(3) }):find("3 joints for 2 bones", 1, true))
    local map = attach2d.buffer(2)
    map[1], map[2] = 0, 7
    assert.truthy(err(d, a, { rig_map = map }):find("bone 2: no 2D bone 7 on this animator", 1, true))
  end)
end)

describe("attach2d's drawer after a restore", function()
  it("finds its deforms again when a restore puts another animator in the box", function()
    local desc = {
      bones = { { name = "root" } },
      slots = { { name = "hand", bone = "root", attachment = "m" } },
      skins = { { name = "default", attachments = { hand = { m = { type = "mesh", weighted = false,
        uvs = { 0, 0, 1, 0, 0, 1 }, triangles = { 0, 1, 2 }, vertices = { 0, 0, 4, 0, 0, 2 }, region = REGION } } } } },
    }
    local sk = assert(anim.skeleton2d(desc))
    local clips = {}
    for _, name in ipairs { "deform.default.hand.m", "other" } do
      local v = name == "other" and { 1 } or { 1, 0, 0, 1, 0, 0 }
      clips[name] = assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
        properties = { [name] = { { 0, v }, { 1, v } } } }, name))
    end
    local function resolve(name) return clips[name] end
    local a, b = anim.animator(sk), anim.animator(sk)
    a:play(clips["deform.default.hand.m"], { fade = 0 })
    b:play(clips.other, { fade = 0 })
    a:update(0.1)
    b:update(0.1)
    local c = attach2d.of(a)
    local d = attach2d.drawer(c, attach2d.buffer(6), attach2d.buffer(2 * c.points))
    local e = attach2d.lookup(c, nil, "hand", "m")
    local out = anim.buffer(3 * 12, "double")
    local function xs() return triangle(d, a, c, e, out) end
    same(xs(), { 1, 0, 4, 1, 0, 2 })
    -- (two restores between poses: the animator the drawer saw is freed and
    -- the one in the box now may have its address, as many names known)
    local sa, sb = a:state(), b:state()
    assert(a:restore(sb, resolve))
    assert(a:restore(sb, resolve))
    same(xs(), { 0, 0, 4, 0, 0, 2 })
    assert(a:restore(sa, resolve))
    same(xs(), { 1, 0, 4, 1, 0, 2 })
  end)
end)

describe("anim.love's draw", function()
  it("allocates nothing a frame once its meshes are made (meshes, a clipping, the draw order kept)", function()
    -- LÖVE's calls mocked (spec/love_mock.lua)
    local calls, stencils = 0, 0
    love_mock.run({ vertices = function() calls = calls + 1 end, stencil = function() stencils = stencils + 1 end },
      function(draw2d)
      local dir = "spec/fixtures/spine/"
      local r = assert(anim.import_spine(dir .. "hero-4.1.json", dir .. "hero-4.x.atlas"))
      local a = anim.animator(r.skeleton)
      a:play(r.clips.walk, { fade = 0 })
      local images = setmetatable({}, { __index = function(t, k) local v = {}; rawset(t, k, v); return v end })
      local function frames(n)
        for _ = 1, n do
          a:update(1 / 60)
          draw2d.draw(a, images)
        end
      end
      frames(200) -- (the meshes made)
      -- (LuaJIT's traces are counted in its heap, and which it makes varies
      -- from run to run: measured with its compiler off)
      local grew = H.without_jit(function()
        collectgarbage("collect")
        collectgarbage("stop")
        frames(10) -- (what the collection let go of, made again once)
        local kb = collectgarbage("count")
        calls = 0
        frames(100)
        local grown = collectgarbage("count") - kb
        collectgarbage("restart")
        return grown
      end)
      assert.is_true(calls >= 100, calls)
      assert.is_true(stencils >= 100, stencils) -- (the clipping drawn each frame)
      assert.are.equal(0, grew)
    end)
  end)
end)
