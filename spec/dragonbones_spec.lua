-- anim.import_dragonbones (issue 40): DragonBones 4.5-5.5 JSON with its
-- TextureAtlas JSON, on our own skeleton (spec/fixtures/dragonbones, made
-- by tools/make-dragonbones-fixtures in both layouts).
--
-- First the description and the clips at chosen times against values
-- worked out by hand from the format's rules (the comments give the
-- sums).  Then against DragonBones' own MIT runtime
-- (tools/dragonbones-reference: npm @cocos/dragonbones-js, the setup and
-- 10 frame instants of each animation, spec/data/dragonbones_*.json):
-- every bone's world matrix as animator:world2d gives it (an animator of
-- the skeleton playing the clip: the 2D stage plays DragonBones' inherit
-- flags and IK solver), every slot's display and colour (animator:slot),
-- the draw order.  The hero's bones hold every flag the format has
-- (inheritRotation, inheritScale, inheritTranslation false, both without
-- scale; inheritReflection false under a reflecting parent) and both IK
-- kinds (two bones with bendPositive and weight animated, one bone at
-- weight 0.5).
--
-- Tolerances: the runtime keeps its frame values as 32-bit floats, so
-- matrices agree within 1e-5 (measured: 6e-6; the setup pose, IK
-- included: 4e-11).  Where the runtime plays a `curve` it samples the
-- curve once per frame of its segment plus one and reads between the
-- samples linearly (ObjectDataParser._samplingEasingCurve,
-- TweenTimelineState._getEasingCurveValue); the module plays the exact
-- bezier.  The only such segment on a bone the comparison reads is the
-- body's turn over frames 0-16 of the 5.5 walk (0 to 170 degrees, curve
-- [0.25, 0, 0.75, 1], 18 samples): there the matrices differ by up to
-- 0.172 (the hand's position, ~80 units out: 0.12 degrees), and the
-- tolerance is 0.25; the exact value is checked by hand below.  The head,
-- which the one-bone IK turns, sits on that body (up to 0.267 there: the
-- IK aims from the moved origin; tolerance 0.3) and plays keys the module
-- plays closer than the runtime itself: a `curve` (walk frames 24-32,
-- wave 0-8) and tweenEasing 1.5 (walk 12-24; the importer warns with its
-- bound): up to 0.0072 there, tolerance 0.01.
local anim = require "anim"
local O = require "spec.offsets2d" -- (the clips hold offsets from the setup pose)
local S = O.sample
local cjson = require "cjson"
local W = require "spec.dragonbones_world"

-- (Lua 5.1 and LuaJIT: math.atan2 and unpack; 5.4: two-argument math.atan)
local atan2 = math.atan2 or math.atan -- luacheck: ignore 143
local unpack = table.unpack or unpack -- luacheck: ignore 113

local DIR = "spec/fixtures/dragonbones/"
local TEX = DIR .. "hero_tex.json"

local function read_json(path)
  local f = assert(io.open(path, "rb"))
  local t = cjson.decode(f:read("*a"))
  f:close()
  return t
end

local function near(a, b, tol, what)
  if math.abs(a - b) > (tol or 1e-9) then
    error(string.format("%s: expected %.12g, got %.12g", what or "value", b, a), 2)
  end
end

local function near_list(got, want, tol, what)
  assert.are.equal(#want, #got, what)
  for i = 1, #want do near(got[i], want[i], tol, (what or "list") .. "[" .. i .. "]") end
end

-- an angle's difference brought into (-180, 180]
local function angle_near(got, want, tol, what)
  local d = math.fmod(got - want, 360)
  if d > 180 then d = d - 360 elseif d <= -180 then d = d + 360 end
  near(d, 0, tol, what)
end

local function z_angle(q) return 2 * atan2(q[3], q[4]) * 180 / math.pi end

local hero, hero45
local function load()
  if not hero then
    hero = O.register(assert(anim.import_dragonbones(DIR .. "hero_ske.json", TEX)))
    hero45 = O.register(assert(anim.import_dragonbones(DIR .. "hero45_ske.json", TEX)))
  end
  return hero, hero45
end

local function bone(desc, name)
  for i, b in ipairs(desc.bones) do if b.name == name then return b, i end end
end
local function slot(desc, name)
  for i, s in ipairs(desc.slots) do if s.name == name then return s, i end end
end

describe("anim.import_dragonbones: the description", function()
  it("takes the stage armature as the skeleton, and every armature", function()
    local r = load()
    assert.are.equal("hero", r.stage)
    assert.are.equal("5.5", r.version)
    assert.are.equal(r.armatures.hero.skeleton, r.skeleton)
    assert.are.equal(r.armatures.hero.description, r.description)
    -- (another armature's skeleton is made when first read)
    assert.is_nil(rawget(r.armatures.prop, "skeleton"))
    assert.are.equal(1, #r.armatures.prop.skeleton:bones())
    assert.are.equal(r.armatures.prop.skeleton, rawget(r.armatures.prop, "skeleton"))
    assert.are.equal(r.armatures.hero.clips, r.clips)
    assert.is_not_nil(r.armatures.prop.clips.spin)
    assert.are.same({ "default", "gold" }, r.skins)
    local s = r.description
    assert.are.equal("dragonbones", s.format)
    assert.is_true(s.y_down)
    assert.are.same({ -80, -90, 200, 180 }, { s.x, s.y, s.width, s.height })
    -- the 4.5 file has no stage: its first armature
    local _, r45 = load()
    assert.are.equal("hero", r45.stage)
    assert.are.equal("4.5", r45.version)
  end)

  it("maps transforms and inherit flags onto the contract's bones", function()
    local s = load().description
    local b = bone(s, "body")
    -- x, y, rotation = skY, shear_y = skX - skY, scales; parents first
    assert.are.same({ "root", 10, -20, 30, 0, 1.5, 0.75, 60, "normal" },
      { b.parent, b.x, b.y, b.rotation, b.shear_y, b.scale_x, b.scale_y, b.length, b.inherit })
    local h = bone(s, "head")
    assert.are.same({ 5, -15, 1, 1.25 }, { h.rotation, h.shear_y, h.scale_x, h.scale_y })
    assert.are.equal("noRotationOrReflection", bone(s, "arm").inherit)
    assert.are.equal("noScale", bone(s, "hand").inherit)
    assert.are.equal("onlyTranslation", bone(s, "tail").inherit)
    assert.are.equal("noScaleOrReflection", bone(s, "mirror_drop").inherit)
    assert.is_false(bone(s, "badge").dragonbones.inherit_translation)
    for i, x in ipairs(s.bones) do
      if x.parent then assert.is_true(select(2, bone(s, x.parent)) < i) end
    end
  end)

  it("keeps the inherit flags for the 2D stage, which plays them: no warning", function()
    local r = load()
    local text = table.concat(r.warnings, "\n")
    assert.not_matches("inheritRotation", text)
    assert.not_matches("inheritTranslation", text)
    assert.are.same({ inherit_translation = true, inherit_rotation = false, inherit_scale = true,
      inherit_reflection = true }, bone(r.description, "arm").dragonbones)
    assert.are.same({ inherit_translation = true, inherit_rotation = true, inherit_scale = false,
      inherit_reflection = false }, bone(r.description, "mirror_drop").dragonbones)
  end)

  it("reads slots: bone, colour, blend, display list, setup attachment", function()
    local s = load().description
    local h = slot(s, "head_slot")
    assert.are.same({ 0.5, 1, 1, 0.8 }, h.color)
    assert.are.equal("head", h.attachment)
    local a = slot(s, "arm_slot")
    -- displayIndex 1 is a null display: nothing shown
    assert.is_nil(a.attachment)
    assert.are.same({ "arm", "arm_up" }, a.attachment_names)
    assert.are.equal("additive", a.blend)
    assert.are.equal("multiply", slot(s, "cape").blend)
    assert.are.equal("body", slot(s, "body_slot").attachment)
    assert.is_nil(slot(s, "cape_copy").attachment)
    -- setup draw order: the file's
    local names = {}
    for i, x in ipairs(s.slots) do names[i] = x.name end
    assert.are.same({ "body_slot", "head_slot", "cape", "arm_slot", "hitbox", "weapon", "cape_copy" }, names)
  end)

  it("reads displays: regions with their atlas regions, meshes, boxes, armatures", function()
    local s = load().description
    local d = s.skins[1].attachments
    local body = d.body_slot.body
    assert.are.same({ "region", 20, 2, 10, 0, 1.5, 64, 32 },
      { body.type, body.x, body.y, body.rotation, body.shear_y, body.scale_x, body.width, body.height })
    assert.are.equal("body", d.body_slot.body_alt.path)
    assert.are.equal("body", d.body_slot.body_alt.region.page == "hero_tex.png" and "body" or nil)
    local head = d.head_slot.head.region
    -- trimmed: frameX -2, frameY -4 in a 36 x 44 original
    assert.are.same({ 64, 0, 32, 40, 2, 4, 36, 44, 0.25, 0, 0.375, 40 / 128 },
      { head.x, head.y, head.width, head.height, head.offset_x, head.offset_y,
        head.original_width, head.original_height, head.u, head.v, head.u2, head.v2 })
    assert.are.same({ 36, 44 }, { d.head_slot.head.width, d.head_slot.head.height })
    assert.is_true(d.arm_slot.arm.region.rotate)
    local box = d.hitbox.box
    assert.are.same({ "boundingbox", "polygon" }, { box.type, box.shape })
    assert.are.same({ -10, -10, 10, -10, 10, 10, -10, 10 }, box.vertices)
    assert.are.same({ "armature", "prop" }, { d.weapon.prop.type, d.weapon.prop.path })
    local link = d.cape_copy.cape_link
    assert.are.same({ "linkedmesh", "cape", "default", true }, { link.type, link.parent, link.skin, link.deform })
  end)

  it("turns a weighted mesh into the bones' bind spaces (Spine's layout)", function()
    local s = load().description
    local m = s.skins[1].attachments.cape.cape
    assert.are.same({ "mesh", true, 4 }, { m.type, m.weighted, m.vertex_count })
    assert.are.same({ 0, 1, 2, 0, 2, 3 }, m.triangles)
    assert.are.same({ 0, 0, 1, 0, 1, 1, 0, 1 }, m.uvs)
    -- slotPose identity; body's bind a translation (10, -20): v - (10, -20);
    -- head's bind a quarter turn then (40, -20): x' = -y + 40, y' = x - 20,
    -- so its inverse takes (48, -8) to (12, -8).  Bone indices 0-based in
    -- desc.bones (root 0, body 1, head 2).
    near_list(m.vertices, {
      1, 1, -26, 12, 1,
      2, 1, 38, 12, 0.75, 2, 12, -8, 0.25,
      2, 1, 38, 44, 0.5, 2, 44, -8, 0.5,
      1, 2, 44, 56, 1,
    }, 1e-12, "cape vertices")
  end)

  it("files another skin's displays under the default skin's names, index by index", function()
    local s = load().description
    assert.are.equal("gold", s.skins[2].name)
    local att = s.skins[2].attachments.head_slot.head
    assert.are.same({ "head_gold", "head" }, { att.name, att.path })
  end)

  it("reads IK constraints: chains, weights, bend", function()
    local s = load().description
    assert.are.same({ "leg_ik", { "leg_upper", "leg_lower" }, "foot_target", 1, -1 },
      { s.ik[1].name, s.ik[1].bones, s.ik[1].target, s.ik[1].mix, s.ik[1].bend })
    assert.are.same({ "aim", { "head" }, 0.5, 1 }, { s.ik[2].name, s.ik[2].bones, s.ik[2].mix, s.ik[2].bend })
    -- DragonBones' own solver (its scale flag kept as data)
    assert.are.same({ scale = false }, s.ik[1].dragonbones)
  end)
end)

describe("anim.import_dragonbones: IK in the runtime's order", function()
  it("applies a constraint whose target lies below a later one's root after that one", function()
    -- 'a' (first in the file) aims 'aimer' at 'hand', below 'arm', which 'b'
    -- turns toward 'tb' (0, -10): the runtime sorts arm before hand before
    -- aimer (a root after its target), so b runs first: hand at (0, -10)
    -- and aimer, at (0, 20), points straight down (DragonBones' runtime:
    -- aimer [0, -1, 1, 0, 0, 20] in its order, x' = a·x + c·y + tx); in
    -- the file's order it would aim at (10, 0).  world2d: x' = a·x + b·y + x.
    local ske = [[{"frameRate":24,"name":"order","version":"5.5","armature":[{"type":"Armature","name":"a",
      "bone":[{"name":"root"},{"name":"arm","parent":"root","length":10},
        {"name":"hand","parent":"arm","transform":{"x":10}},
        {"name":"aimer","parent":"root","length":5,"transform":{"y":20}},
        {"name":"tb","parent":"root","transform":{"y":-10}}],
      "ik":[{"name":"a","bone":"aimer","target":"hand"},{"name":"b","bone":"arm","target":"tb"}]}]}]]
    local r = assert(anim.decode_dragonbones(ske, "order_ske.json"))
    local ik = r.description.ik
    assert.is_true(ik[2].order < ik[1].order)
    local a = anim.animator(r.skeleton)
    a:update(0)
    near_list({ a:world2d("aimer") }, { 0, 1, -1, 0, 0, 20 }, 1e-12, "aimer")
    near_list({ a:world2d("hand") }, { 0, 1, -1, 0, 0, -10 }, 1e-12, "hand")
  end)
end)

describe("anim.import_dragonbones: the clips at chosen times", function()
  local walk
  before_each(function() walk = load().clips.walk end)

  it("times the animation by the armature's frame rate; playTimes 0 loops", function()
    assert.are.equal(2, walk.length) -- 32 frames at 16 a second
    assert.are.equal("loop", anim.table(walk).loop)
    assert.are.equal("once", anim.table(load().clips.wave).loop)
  end)

  it("adds the setup pose to linear and quad-eased translations", function()
    -- frame 4: linear (0, 0) -> (6, -4) half way, plus (10, -20)
    near_list({ unpack(S(walk, 4 / 16).body.position, 1, 2) }, { 13, -22 }, 1e-12, "f4")
    -- frame 16: tweenEasing -0.5 from frame 8 ((6, -4) -> (-2, 2)), half
    -- way: p + 0.5 (p^2 - p) = 0.375: (3, -1.75), plus (10, -20)
    near_list({ unpack(S(walk, 1).body.position, 1, 2) }, { 13, -21.75 }, 1e-12, "f16")
  end)

  it("plays a curve as the exact bezier and unrolls clockwise turns", function()
    -- frame 8: curve [0.25, 0, 0.75, 1] is symmetric: half way, 85 + 30
    angle_near(z_angle(S(walk, 0.5).body.rotation), 115, 1e-9, "f8")
    -- the turn's keys: 30, 30 + 170, then -170 after clockwise 2 from 170:
    -- the raw -170 is not past 170 going clockwise, so no turn is taken
    -- off: -170 + 2 * 360 = 550 (offsets from the setup's 30)
    local keys = anim.table(walk).joints.body.rotation
    assert.are.same({ 0, 170, 550 }, { keys[1][2][3], keys[2][2][3], keys[3][2][3] })
    -- frame 24: half way from 200 to 580
    angle_near(z_angle(S(walk, 1.5).body.rotation), 390, 1e-9, "f24")
  end)

  it("eases scale by tweenEasing 1 (quad out) and multiplies the setup scale", function()
    -- frame 8: 1 - (1 - 0.5)^2 = 0.75 of (1, 1) -> (1.5, 0.5): (1.375, 0.625)
    local sc = S(walk, 0.5).body.scale
    near_list({ sc[1], sc[2] }, { 1.375 * 1.5, 0.625 * 0.75 }, 1e-12, "scale")
  end)

  it("plays tweenEasing 2 as a sine in-out, with its skew", function()
    -- frame 6: half of 0 -> -30 (sine in-out: 0.5), plus 5; skew 0 -> 10: 5 - 15
    local s = S(walk, 6 / 16)
    angle_near(z_angle(s.head.rotation), -10, 1e-9, "head")
    near_list(s.properties["head.shear"], { 0, -10 }, 1e-12, "head.shear")
  end)

  it("gives slots' displays, colours, the draw order and deform offsets", function()
    local r = load()
    local s = r.description
    local at = function(t) return S(walk, t).properties end
    -- display frames 0, 1 (body_alt), -1 (none) at frames 0, 12, 20
    assert.are.same({ 1, 2, 0 }, { at(0)["slot.body_slot.attachment"], at(12 / 16)["slot.body_slot.attachment"],
      at(20 / 16)["slot.body_slot.attachment"] })
    assert.are.same({ "body", "body_alt" }, slot(s, "body_slot").attachment_names)
    -- colour: linear (0.5, 1, 1, 0.8) -> (1, 0.25, 0.75, 0.5), half way
    near_list(at(0.5)["slot.head_slot.color"], { 0.75, 0.625, 0.875, 0.65 }, 1e-12, "colour")
    -- zOrder [0, 3, 2, -1] from frame 8: body_slot 3 down the list, cape 1 up
    assert.are.equal(1, at(0.5).draworder)
    assert.are.equal(0, at(0).draworder)
    assert.are.same({ "head_slot", "cape", "arm_slot", "body_slot", "hitbox", "weapon", "cape_copy" }, s.draw_orders[1])
    -- deform at frame 24: half way back from (offset 2) {4, -2, 8, 6}:
    -- per vertex (0, 0), (2, -1), (4, 3), (0, 0); per weight in its bone's
    -- space: body's bind is a translation (the same), head's a quarter
    -- turn ((dx, dy) -> (dy, -dx))
    near_list(at(1.5)["deform.default.cape.cape"], { 0, 0, 2, -1, -1, -2, 4, 3, 3, -4, 0, 0 }, 1e-12, "deform")
  end)

  it("gives IK mixes and flags, events and sounds", function()
    local p = S(walk, 0.5).properties
    near_list(p["ik.leg_ik"], { 0.75, 0 }, 1e-12, "ik mix")
    assert.are.same({ -1, 0, 0 }, p["ik.leg_ik.flags"])
    assert.are.same({ 1, 0, 0 }, S(walk, 1).properties["ik.leg_ik.flags"])
    local ev = walk:events()
    assert.are.equal(2, #ev)
    assert.are.same({ 0.25, "step" }, { ev[1].time, ev[1].name })
    assert.are.same({ ints = { 1, 2 }, floats = { 0.5 }, strings = { "left" } }, ev[1].payload)
    assert.are.same({ 1.25, { ints = { 2 }, strings = { "right" }, bone = "leg_lower" } }, { ev[2].time, ev[2].payload })
    assert.are.same({ { time = 1.25, sound = "whoosh" } }, (function()
      local out = {}
      for i, s in ipairs(walk:sounds()) do out[i] = { time = s.time, sound = s.sound } end
      return out
    end)())
    assert.is_table(load().description.events.step)
  end)

  it("reads the 4.5 layout into the same channels", function()
    local _, r45 = load()
    local w = r45.clips.walk
    -- body: frame 16 (x 6, y -4, skX = skY = 170, scale 1.5 x 0.5): the key
    near_list({ unpack(S(w, 1).body.position, 1, 2) }, { 16, -24 }, 1e-12, "position")
    angle_near(z_angle(S(w, 1).body.rotation), 200, 1e-9, "rotation")
    -- head as in 5.5: frame 6
    angle_near(z_angle(S(w, 6 / 16).head.rotation), -10, 1e-9, "head")
    -- a 4.5 slot frame list drives display and colour
    assert.are.equal(2, S(w, 12 / 16).properties["slot.body_slot.attachment"])
    near_list(S(w, 0.5).properties["slot.head_slot.color"], { 0.75, 0.625, 0.875, 0.65 }, 1e-12, "colour")
    near_list(S(w, 1.5).properties["deform.default.cape.cape"], { 0, 0, 2, -1, -1, -2, 4, 3, 3, -4, 0, 0 },
      1e-12, "deform")
    assert.are.same({ 0.25, 1.25 }, { w:events()[1].time, w:events()[2].time })
  end)
end)

-- The runtime's reference ----------------------------------------------------------

-- The tolerance of a matrix element of `bone` in a sample (see the top).
local function tolerance(file, kind, ik)
  if kind == "exact" then return 1e-5 end
  local walk, f = kind.animation == "walk", kind.frame
  if file == "hero" and walk and f > 0 and f < 16 then return ik and 0.3 or 0.25 end
  if ik and ((walk and f > 12) or (kind.animation == "wave" and f > 0 and f < 8)) then return 0.01 end
  return 1e-5
end

local function compare(file, ref_file)
  local r = select(file == "hero" and 1 or 2, load())
  local ref = read_json("spec/data/dragonbones_" .. ref_file .. ".json")
  assert.are.equal(ref.stage, r.stage)
  local checked = 0
  W.compare(r, ref, read_json(ref.source), cjson.null, function(label, what, got, want, kind)
    if what == "bone" or what == "ik bone" then
      near(got, want, tolerance(file, kind, what == "ik bone"), label)
      checked = checked + 1
    elseif what == "colour" then
      near(got, want, 1e-6, label)
    else
      assert.are.equal(want, got, label)
    end
  end)
  return checked / 6
end

describe("anim.import_dragonbones against DragonBones' runtime", function()
  it("5.5: world matrices, slots and draw order at 10 frame instants an animation", function()
    -- 2 armatures: hero (14 bones, 3 moved by IK) x (setup + 20 samples),
    -- prop (1 bone) x (setup + 10)
    assert.are.equal(14 * 21 + 11, compare("hero", "hero"))
  end)

  it("4.5: the same", function()
    assert.are.equal(14 * 21 + 11, compare("hero45", "hero45"))
  end)
end)
