-- anim.skeleton2d (issue 40): a 2D skeleton's description read and
-- checked (every error with its path), its module rig, and what an
-- animator made from it reads besides the bones: slots (attachment,
-- colour, dark colour) and the draw order from setup values or property
-- channels, skins switched at run time.
local anim = require "anim"
local H = require "spec.helper"

local function desc()
  return {
    format = "spine", version = "4.1.23",
    bones = {
      { name = "root" },
      { name = "body", parent = "root", x = 5, y = 10, rotation = 30, scale_x = 2, scale_y = 0.5 },
      { name = "head", parent = "body", x = 20, length = 8, inherit = "noScale" },
    },
    slots = {
      { name = "back", bone = "body", attachment = "cape", attachment_names = { "cape", "cape2" } },
      { name = "torso", bone = "body", color = { 1, 0.5, 0.25, 1 }, dark = { 0.1, 0.2, 0.3 }, attachment = "shirt",
        attachment_names = { "shirt" }, blend = "additive" },
      { name = "face", bone = "head", attachment = "smile", attachment_names = { "smile", "frown" } },
    },
    skins = {
      { name = "default", attachments = { face = { smile = { type = "region", width = 10 }, frown = { type = "region" } },
        back = { cape = { type = "mesh", vertices = { 0, 0, 1, 0, 0, 1 }, uvs = { 0, 0, 1, 0, 0, 1 }, triangles = { 0, 1, 2 } } } } },
      { name = "red", attachments = { face = { smile = { type = "region", width = 12 } } } },
    },
    draw_orders = { { "face", "torso", "back" } },
  }
end

describe("anim.skeleton2d", function()
  it("builds the module rig: a joint per bone, rests from the setup pose", function()
    local sk = assert(anim.skeleton2d(desc(), "hero"))
    assert.are.equal("anim.skeleton2d(hero, 3 bones)", tostring(sk))
    local j = {}
    for _, x in ipairs(sk.rig:joints()) do j[x.name] = x end
    assert.are.same({ 5, 10, 0 }, j.body.translation)
    assert.are.same({ 2, 0.5, 1 }, j.body.scale)
    local q = j.body.rotation
    assert.is_true(math.abs(q[3] - math.sin(math.pi / 12)) < 1e-12 and math.abs(q[4] - math.cos(math.pi / 12)) < 1e-12)
    assert.are.equal("body", j.head.parent)
    local bones = sk:bones()
    assert.are.equal("noScale", bones[3].inherit)
    assert.are.equal(8, bones[3].length)
    assert.is_nil(bones[3].dragonbones)
    -- DragonBones' flags, each true when absent
    local d = desc()
    d.bones[3].dragonbones = { inherit_scale = false }
    assert.are.same({ inherit_translation = true, inherit_rotation = true, inherit_scale = false,
      inherit_reflection = true }, assert(anim.skeleton2d(d)):bones()[3].dragonbones)
    assert.are.same({ "default", "red" }, sk:skins())
    local slots = sk:slots()
    assert.are.equal("additive", slots[2].blend)
    assert.are.same({ 1, 1, 1, 1 }, slots[1].color)
    assert.are.equal("head", slots[3].bone)
  end)

  it("gives slots and the draw order their setup values, or the properties' where tracks animate them", function()
    local sk = assert(anim.skeleton2d(desc()))
    local a = anim.animator(sk)
    a:update(0)
    assert.are.same({ "cape", 1, 1, 1, 1 }, { a:slot("back") })
    assert.are.same({ "shirt", 1, 0.5, 0.25, 1, 0.1, 0.2, 0.3 }, { a:slot("torso") })
    assert.are.same({ "back", "torso", "face" }, a:draw_order())
    local clip = assert(anim.clip{ joints = {}, length = 2, properties = {
      ["slot.face.attachment"] = { keys = { { 0, 2, "step" }, { 1, 0, "step" } }, discrete = true },
      ["slot.torso.color"] = { { 0, { 0, 0, 0, 1 } }, { 2, { 1, 1, 1, 0 } } },
      ["slot.torso.dark"] = { { 0, { 1, 1, 1 } } },
      ["draworder"] = { keys = { { 0, 1, "step" }, { 1.5, 0, "step" } }, discrete = true },
    } })
    a:play(clip, { fade = 0 })
    a:update(0.5)
    assert.are.same({ "frown" }, { (a:slot("face")) })
    assert.are.same({ "shirt", 0.25, 0.25, 0.25, 0.75, 1, 1, 1 }, { a:slot("torso") })
    assert.are.same({ "face", "torso", "back" }, a:draw_order())
    a:update(0.75)
    assert.is_nil((a:slot("face"))) -- attachment 0: none
    assert.are.same({ "face", "torso", "back" }, a:draw_order())
    a:update(0.5)
    assert.are.same({ "back", "torso", "face" }, a:draw_order()) -- 0: the setup order
  end)

  it("fills a table given to draw_order (nothing allocated a frame), its extra entries cleared", function()
    local sk = assert(anim.skeleton2d(desc()))
    local a = anim.animator(sk)
    local clip = assert(anim.clip{ joints = {}, length = 2, properties = {
      ["draworder"] = { keys = { { 0, 1, "step" } }, discrete = true } } })
    a:update(0)
    local into = { "x", "y", "z", "w", "v" }
    assert.are.equal(into, a:draw_order(into))
    assert.are.same({ "back", "torso", "face" }, into)
    a:play(clip, { fade = 0 })
    a:update(0.5)
    local function frames(n) for _ = 1, n do a:draw_order(into) end end
    frames(200)
    -- (LuaJIT's traces are counted in its heap: measured with its compiler off)
    local grew = H.without_jit(function()
      collectgarbage("collect")
      collectgarbage("stop")
      local kb = collectgarbage("count")
      frames(200)
      local g = collectgarbage("count") - kb
      collectgarbage("restart")
      return g
    end)
    assert.are.equal(0, grew)
    assert.are.same({ "face", "torso", "back" }, into)
    local err = select(2, pcall(a.draw_order, a, "order"))
    assert.truthy(err:find("bad argument #1 to 'draw_order' (a table to fill expected, got string)", 1, true), err)
  end)

  it("switches skins: the current one first, then the default skin", function()
    local a = anim.animator(assert(anim.skeleton2d(desc())))
    a:update(0)
    assert.is_nil(a:skin())
    local att, name = a:attachment("face")
    assert.are.equal(10, att.width)
    assert.are.equal("smile", name)
    assert.are.equal("red", a:skin("red"))
    assert.are.equal("red", a:skin())
    assert.are.equal(12, (a:attachment("face")).width)
    assert.are.equal("mesh", (a:attachment("back")).type) -- not in red: the default's
    assert.is_nil(a:attachment("torso")) -- in no skin
    local ok, err = pcall(a.skin, a, "rde")
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'skin' (unknown skin 'rde'; did you mean 'red'?)", 1, true), err)
    -- given somewhere to write, skin is the skinning matrices' method still (mat3x4: 12 a bone)
    local out = {}
    assert.are.equal(3 * 12, a:skin(out))
    assert.are.equal(36, #out)
    assert.are.equal("red", a:skin())
    err = select(2, pcall(a.slot, a, "fcae"))
    assert.truthy(err:find("bad argument #1 to 'slot' (unknown slot 'fcae'; did you mean 'face'?)", 1, true), err)
    err = select(2, pcall(a.attachment, a, "bak"))
    assert.truthy(err:find("bad argument #1 to 'attachment' (unknown slot 'bak'; did you mean 'back'?)", 1, true), err)
    local plain = anim.animator(anim.rig("player"))
    err = select(2, pcall(plain.draw_order, plain))
    assert.truthy(err:find("draw_order: this animator has no 2D skeleton", 1, true), err)
  end)

  it("saves the skin in the animator's state, restores it, and refuses a skin the skeleton lacks", function()
    local sk = assert(anim.skeleton2d(desc(), "hero"))
    local a = anim.animator(sk)
    a:update(0)
    assert.is_false(a:state().skin) -- (no skin set: the default's attachments)
    a:skin("red")
    local saved = a:state()
    assert.are.equal("red", saved.skin)
    local b = anim.animator(sk)
    assert(b:restore(saved))
    assert.are.equal("red", b:skin())
    assert.are.equal(12, (b:attachment("face")).width)
    -- a state with no skin (or one written before the field) puts the default back
    saved.skin = false
    assert(b:restore(saved))
    assert.is_nil(b:skin())
    saved.skin = nil
    b:skin("red")
    assert(b:restore(saved))
    assert.is_nil(b:skin())
    -- refused: the animator is left as it was
    b:skin("red")
    saved.skin = "rde"
    local ok, err = b:restore(saved)
    assert.is_nil(ok)
    assert.are.equal("state.skin: skeleton 'hero' has no skin 'rde'; did you mean 'red'? (its skins: default, red)", err)
    saved.skin = 3
    assert.are.equal("state.skin: must be a skin's name or false, got number", select(2, b:restore(saved)))
    assert.are.equal("red", b:skin())
    -- (at most 8 of a skeleton's skins named; none: said so)
    local many = desc()
    for i = 3, 12 do many.skins[i] = { name = "k" .. i, attachments = {} } end
    local m = anim.animator(assert(anim.skeleton2d(many, "crowd")))
    local ms = m:state()
    ms.skin = "zzz"
    assert.are.equal("state.skin: skeleton 'crowd' has no skin 'zzz' (its skins: default, red, k3, k4, k5, k6, k7, k8,"
      .. " ... (12 in all))", select(2, m:restore(ms)))
    local bare = desc()
    bare.skins = nil
    local n = anim.animator(assert(anim.skeleton2d(bare, "bare")))
    local ns = n:state()
    ns.skin = "red"
    assert.are.equal("state.skin: skeleton 'bare' has no skin 'red' (its skins: none)", select(2, n:restore(ns)))
    -- an animator made from a rig has no skin: its state has none and takes none
    local plain = anim.animator(anim.rig("player"))
    local ps = plain:state()
    assert.is_nil(ps.skin)
    ps.skin = "red"
    assert.are.equal("state.skin: this animator has no 2D skeleton (a state of one made from anim.skeleton2d's?)",
      select(2, plain:restore(ps)))
  end)

  it("refuses a bad description with nil and the path, suggesting misspelt names", function()
    local function bad(edit, msg)
      local d = desc()
      edit(d)
      local sk, err = anim.skeleton2d(d)
      assert.is_nil(sk)
      assert.are.equal(msg, err)
    end
    bad(function(d) d.slots[3].bone = "hed" end, "skeleton: slots[3].bone: unknown bone 'hed'; did you mean 'head'?")
    bad(function(d) d.bones = {} end, "skeleton: bones: a skeleton needs at least one bone")
    bad(function(d) d.bones = nil end, "skeleton: bones: bones must be an array, got nil")
    bad(function(d) d.bones[3].name = "body" end, "skeleton: bones[3].name: two bones named 'body'")
    bad(function(d) d.bones[3].parent = "bdy" end, "skeleton: bones[3].parent: unknown bone 'bdy'; did you mean 'body'?")
    bad(function(d) d.bones[2].parent = "head" end,
      "skeleton: bones[2].parent: parent 'head' must come before its child (parents first)")
    bad(function(d) d.bones[3].inherit = "noscale" end,
      "skeleton: bones[3].inherit: unknown inherit mode 'noscale'; did you mean 'noScale'? (expected normal, "
        .. "onlyTranslation, noRotationOrReflection, noScale, noScaleOrReflection)")
    bad(function(d) d.bones[3].dragonbones = 5 end,
      "skeleton: bones[3].dragonbones: DragonBones inherit flags must be an object, got number")
    bad(function(d) d.bones[3].dragonbones = { inherit_scale = "no" } end,
      "skeleton: bones[3].dragonbones.inherit_scale: inherit_scale must be true or false, got string")
    bad(function(d) d.ik = { { name = "k", bones = { "head" }, target = "root", dragonbones = true } } end,
      "skeleton: ik[1].dragonbones: DragonBones IK options must be an object, got boolean")
    bad(function(d) d.ik = { { name = "k", bones = { "head" }, target = "root", dragonbones = { scale = 1 } } } end,
      "skeleton: ik[1].dragonbones.scale: scale must be true or false, got number")
    bad(function(d) d.bones[2].rotation = 0 / 0 end, "skeleton: bones[2].rotation: rotation must be a finite number, got nan")
    bad(function(d) d.slots[2].color = { 1, 1, 1 } end, "skeleton: slots[2].color: a colour has 4 numbers, got 3")
    bad(function(d) d.slots[2].blend = "add" end,
      "skeleton: slots[2].blend: unknown blend mode 'add'; did you mean 'additive'? (expected normal, additive, multiply, screen)")
    bad(function(d) d.skins[2].attachments = { fase = {} } end,
      "skeleton: skins[2].attachments.fase: unknown slot 'fase'; did you mean 'face'?")
    bad(function(d) d.draw_orders[1] = { "face", "torso" } end,
      "skeleton: draw_orders[1]: a draw order lists every slot once (3), got 2")
    bad(function(d) d.draw_orders[1] = { "face", "torso", "face" } end,
      "skeleton: draw_orders[1][3]: slot 'face' twice in one draw order")
    bad(function(d) d.slots[1].attachment_names = { 1 } end,
      "skeleton: slots[1].attachment_names[1]: attachment name must be a string, got number")
    bad(function(d) d.transforms = { { name = "tc", bones = { "hed" }, target = "body" } } end,
      "skeleton: transforms[1].bones[1]: unknown bone 'hed'; did you mean 'head'?")
    -- a misspelt field is refused, not left out unread (the first, by its
    -- bytes, when there are more)
    bad(function(d) d.bones[2].lenght = 3 end, "skeleton: bones[2].lenght: unknown field; did you mean 'length'?")
    bad(function(d) d.bones[2].scaleX, d.bones[2].Rotation = 2, 1 end,
      "skeleton: bones[2].Rotation: unknown field; did you mean 'rotation'?")
    bad(function(d) d.bones[2][1] = 0 end, "skeleton: bones[2]: unknown field [1]")
    bad(function(d) d.bones[3].dragonbones = { inherit_scal = false } end,
      "skeleton: bones[3].dragonbones.inherit_scal: unknown field; did you mean 'inherit_scale'?")
    bad(function(d) d.slots[2].colour = { 1, 1, 1, 1 } end, "skeleton: slots[2].colour: unknown field; did you mean 'color'?")
    bad(function(d) d.skins[2].atachments = {} end,
      "skeleton: skins[2].atachments: unknown field; did you mean 'attachments'?")
    bad(function(d) d.ik = { { name = "k", bones = { "head" }, target = "root", softnes = 1 } } end,
      "skeleton: ik[1].softnes: unknown field; did you mean 'softness'?")
    bad(function(d) d.ik = { { name = "k", bones = { "head" }, target = "root", dragonbones = { scal = true } } } end,
      "skeleton: ik[1].dragonbones.scal: unknown field; did you mean 'scale'?")
    bad(function(d) d.transforms = { { name = "tc", bones = { "head" }, target = "body", mixRotate = 0.5 } } end,
      "skeleton: transforms[1].mixRotate: unknown field; did you mean 'mix_rotate'?")
    local ok, err = pcall(anim.skeleton2d, 5)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'skeleton2d' (table expected, got number)", 1, true), err)
  end)

  it("refuses an attachment the drawing could not read, naming its path", function()
    local function bad(edit, msg)
      local d = desc()
      local cape = d.skins[1].attachments.back.cape
      edit(cape, d)
      local sk, err = anim.skeleton2d(d)
      assert.is_nil(sk, msg)
      assert.are.equal("skeleton: skins[1].attachments.back.cape" .. msg, err)
    end
    -- (the description's mesh as it is: made)
    assert(anim.skeleton2d(desc()))
    bad(function(c) c.vertices = nil end, ".vertices: a mesh must have its vertices")
    bad(function(c) c.vertices = { 0, 0, 1 } end, ".vertices: vertices holds 3 numbers: not 2 a vertex")
    bad(function(c) c.vertices = { 0, 0, 1, 0, 0, "1" } end, ".vertices[6]: a number of vertices must be a finite number, got string")
    bad(function(c) c.vertices = { 0, 0, 1, 0, 0, 1 / 0 } end, ".vertices[6]: a number of vertices must be a finite number, got inf")
    bad(function(c) c.uvs = { 0, 0, 1, 0 } end, ".uvs: uvs holds 4 numbers for 3 vertices (2 a vertex)")
    bad(function(c) c.uvs = { 0, 0, 1 } end, ".uvs: uvs holds 3 numbers for 3 vertices (2 a vertex)")
    bad(function(c) c.triangles = { 0, 1 } end, ".triangles: triangles holds 2 corners: not 3 a triangle")
    bad(function(c) c.triangles = { 0, 1, 3 } end, ".triangles[3]: a corner must be a vertex's index from 0 to 2, got 3")
    bad(function(c) c.triangles = { 0, 1, 0.5 } end, ".triangles[3]: a corner must be a vertex's index from 0 to 2, got 0.5")
    -- (weighted: per vertex its count, then bone, x, y, weight; the bones 0-based)
    bad(function(c) c.weighted, c.vertices = true, { 1, 0, 0, 0, 1, 1, 9, 1, 0, 1, 1, 0, 0, 1, 1 } end,
      ".vertices[7]: a bone's index must be a whole number from 0 to 2, got 9")
    bad(function(c) c.weighted, c.vertices = true, { 1, 0, 0, 0, 1, 2, 0, 1, 0, 1 } end,
      ".vertices[6]: a vertex's count of bones must be a whole number, its 4 numbers each after it, got 2")
    bad(function(c) c.weighted, c.uvs = 1, nil end, ".weighted: weighted must be true or false, got number")
    bad(function(c) c.region = { u = 0, v = 0 } end, ".region: a region's u, v, u2 and v2 come together (its rectangle on"
      .. " its page), got 2 of them")
    bad(function(c) c.region = { u = 0, v = 0, u2 = 1, v2 = 0 / 0 } end, ".region.v2: v2 must be a finite number, got nan")
    bad(function(c) c.x = "1" end, ".x: x must be a finite number, got string")
    -- (a weighted mesh of the skeleton's bones, and a linked mesh of it: made)
    local d = desc()
    local cape = d.skins[1].attachments.back.cape
    cape.weighted, cape.vertices = true, { 1, 0, 0, 0, 1, 2, 1, 1, 0, 0.5, 2, 1, 0, 0.5, 1, 2, 0, 1, 1 }
    d.skins[1].attachments.back.cape2 = { type = "linkedmesh", parent = "cape" }
    assert(anim.skeleton2d(d))
    d.skins[1].attachments.back.cape2.parent = "cap"
    local sk, err = anim.skeleton2d(d)
    assert.is_nil(sk)
    assert.are.equal("skeleton: skins[1].attachments.back.cape2.parent: no mesh 'cap' in skin 'default' (on slot 'back'"
      .. " or another)", err)
    -- (a region's turn, a colour, a sequence's frames with a hole: the
    -- Spine importer leaves a frame the atlas lacks out)
    bad(function(c) c.region = { rotate = "x" } end, ".region.rotate: rotate must be true, false or a finite number of"
      .. " degrees, got string")
    bad(function(c) c.color = { 1, "1", 1, 1 } end, ".color[2]: a colour's component must be a finite number, got string")
    bad(function(c) c.regions = { [1] = {}, x = {} } end, ".regions: regions holds a key 'x': frame i's region is at 1 + i")
    d = desc()
    d.skins[1].attachments.back.cape.regions = { [1] = {}, [3] = {} }
    d.skins[1].attachments.back.cape.sequence = { count = 3 }
    assert(anim.skeleton2d(d))
  end)

  it("bounds what a skeleton costs a frame: constraints above long chains are refused, in bounded work", function()
    local n = 2500
    -- two chains under a root, each constraint turning the top of one at the
    -- bottom of the other: each poses the other chain again
    local bones = { { name = "root" } }
    for _, c in ipairs({ "a", "b" }) do
      for i = 1, n do bones[#bones + 1] = { name = c .. i, parent = i == 1 and "root" or c .. (i - 1), x = 1 } end
    end
    local ik = {}
    for k = 1, 500 do
      ik[k] = k % 2 == 1 and { name = "c" .. k, bones = { "a1" }, target = "b" .. n }
        or { name = "c" .. k, bones = { "b1" }, target = "a" .. n }
    end
    local sk, err = H.bounded(400, function() return anim.skeleton2d({ bones = bones, ik = ik }, "s") end)
    assert.is_nil(sk)
    assert.are.equal("s: the update order would pose more than 250000 bones and constraints a frame "
      .. "(constraints above long chains of bones pose them again after each)", err)
    -- 90 of them: 230,002 steps, played
    for k = 91, 500 do ik[k] = nil end
    sk = assert(anim.skeleton2d({ bones = bones, ik = ik }, "s"))
    local a = anim.animator(sk)
    a:update(0)
    local w = { a:world2d("a" .. n) }
    assert.is_true(w[5] == w[5] and math.abs(w[5]) <= n + 1)
    -- transform constraints listing 250,000 bones and more
    local all = {}
    for i = 1, n do all[i] = "b" .. i end
    for i = 2, n do all[n + i - 1] = "a" .. i end
    local tcs = {}
    for k = 1, 51 do tcs[k] = { name = "x" .. k, bones = all, target = "a1" } end
    sk, err = H.bounded(400, function() return anim.skeleton2d({ bones = bones, transforms = tcs }, "s") end)
    assert.is_nil(sk)
    assert.are.equal("s: transforms[51].bones: the transform constraints list more than 250000 bones in all", err)
  end)
end)
