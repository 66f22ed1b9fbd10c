-- Spine (issue 40): anim.import_spine reads the hero skeleton that
-- tools/make-spine-fixtures writes as Spine 3.8, 4.0, 4.1 and 4.2 JSON
-- into the 2D contract's description and clips.  Every expected value here
-- is computed in this file from the format's rules (a key's values are
-- relative to the setup pose: added, or multiplied for scale; a bezier's
-- time and value are cubics of one parameter, solved here by bisection);
-- the 3.8 and 4.x exports of one animation must sample alike.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local O = require "spec.offsets2d" -- (the clips hold offsets from the setup pose)
local S = O.sample
local H = require "spec.helper"

local DIR = H.root .. "/spec/fixtures/spine/"
local function load(v)
  local atlas = v == "3.8" and DIR .. "hero-3.8.atlas" or DIR .. "hero-4.x.atlas"
  return O.register(assert(anim.import_spine(DIR .. "hero-" .. v .. ".json", atlas)))
end

-- The cubic bezier of a key in (time, value) normalised to its segment
-- (spec/spine_rules.lua).
local bez = require("spec.spine_rules").bez
-- the same with handles given absolute (4.x)
local function bez_abs(c, t0, v0, t1, v1, t)
  local L, d = t1 - t0, v1 - v0
  return bez({ (c[1] - t0) / L, (c[2] - v0) / d, (c[3] - t0) / L, (c[4] - v0) / d }, t0, v0, t1, v1, t)
end
local BZ1, BZ2, BZ3 = { 0.25, 0, 0.75, 1 }, { 0.1, 0.4, 0.6, 0.9 }, { 0.3, 0.1, 0.7, 0.9 }

local function near(a, b, tol, what)
  tol = tol or 1e-9
  if type(a) == "table" then
    assert.are.equal(#a, #b, what)
    for i = 1, #a do near(a[i], b[i], tol, (what or "") .. "[" .. i .. "]") end
    return
  end
  if math.abs(a - b) > tol then error(string.format("%s: expected %.15g, got %.15g", what or "value", a, b), 2) end
end

-- The angle (degrees) of a rotation channel's quaternion about z.
local atan2 = require("anim.base.compat").atan2
local function angle(q) return 2 * math.deg(atan2(q[3], q[4])) end

describe("anim.import_spine: the skeleton", function()
  for _, v in ipairs { "3.8", "4.0", "4.1", "4.2" } do
    it("reads the setup pose of the " .. v .. " export", function()
      local r = load(v)
      local d = r.description
      assert.are.equal("spine", d.format)
      assert.are.equal(false, d.y_down)
      assert.are.equal(12, #d.bones)
      local by = {}
      for _, b in ipairs(d.bones) do by[b.name] = b end
      assert.are.same({ name = "hip", parent = "root", x = 0, y = 50, rotation = 10, scale_x = 1.2, scale_y = 0.8,
        shear_x = 5, shear_y = -3, length = 0, inherit = "normal" }, by.hip)
      assert.are.equal("noScale", by.head.inherit)
      assert.are.equal("noRotationOrReflection", by.hand.inherit)
      assert.are.equal("onlyTranslation", by.leg.inherit)
      assert.are.equal("noScaleOrReflection", by.foot.inherit)
      assert.are.equal(-1, by.leg.scale_x)
      -- slots in setup draw order, colours 0..1, the setup attachment first
      assert.are.equal(10, #d.slots)
      local arm = d.slots[3]
      assert.are.equal("arm", arm.name)
      near({ 1, 1, 1, 0xc0 / 255 }, arm.color)
      near({ 0x20 / 255, 0x20 / 255, 0x20 / 255 }, arm.dark)
      assert.are.equal("multiply", d.slots[2].blend)
      assert.are.equal("screen", d.slots[5].blend)
      assert.are.equal("additive", d.slots[6].blend)
      assert.is_nil(d.slots[1].dark)
      assert.are.same({ "eye-open", "eye-closed" }, d.slots[5].attachment_names)
      -- skins and attachments
      assert.are.same({ "default", "red", "blue" }, r.skins)
      local def = d.skins[1].attachments
      assert.are.equal("region", def.body.body.type)
      assert.are.equal(1.1, def.body.body.scale_x)
      local am = def.arm.arm
      assert.are.equal("mesh", am.type)
      assert.is_true(am.weighted)
      assert.are.same({ 1, 4, 0, -3, 1, 2, 4, 30, 0, 0.5, 5, 0, 0, 0.5, 1, 5, 25, 3, 1 }, am.vertices)
      assert.are.equal(8, am.deform_count) -- 2 per weight entry
      assert.is_false(def.head.head.weighted)
      assert.are.same({ 0, 1, 2, 2, 3, 0 }, def.head.head.triangles)
      assert.are.equal(4, def.head.head.hull)
      assert.are.equal("boundingbox", def.hitbox.hitbox.type)
      assert.are.equal("point", def.muzzle.muzzle.type)
      assert.are.equal(5, def.muzzle.muzzle.rotation)
      assert.are.equal("clipping", def.clip.clip.type)
      assert.are.equal("fx", def.clip.clip["end"])
      assert.are.equal("path", def.rail.rail.type)
      local red, blue = d.skins[2].attachments, d.skins[3].attachments
      assert.are.equal("linkedmesh", red.head.head.type)
      assert.are.equal("head", red.head.head.parent)
      assert.are.equal("default", red.head.head.skin)
      assert.is_true(red.head.head.deform)
      assert.is_false(blue.head.head.deform)
      assert.are.equal("leg-blue", blue.leg.leg.path)
      -- constraints
      assert.are.same({ name = "arm_ik", order = 0, bones = { "arm_upper", "arm_lower" }, target = "target_arm", mix = 1,
        softness = 5, bend = -1, compress = false, stretch = true, uniform = false }, d.ik[1])
      assert.are.same({ "foot" }, d.ik[2].bones)
      assert.are.equal(0.5, d.ik[2].mix)
      assert.is_true(d.ik[2].compress)
      assert.is_true(d.ik[2].uniform)
      local tc = d.transforms[1]
      assert.are.same({ 0.5, 0.25, 0.25, 0.75, 0.75, 0 },
        { tc.mix_rotate, tc.mix_x, tc.mix_y, tc.mix_scale_x, tc.mix_scale_y, tc.mix_shear_y })
      assert.are.same({ 15, 2, -1, 0.1, 0, 5 }, { tc.offset_rotation, tc.offset_x, tc.offset_y, tc.offset_scale_x,
        tc.offset_scale_y, tc.offset_shear_y })
      local tc2 = d.transforms[2]
      assert.are.same({ "hand_tc", 1, true, true, 0.5, 0.1, 0.1, 1, 1, 1, 5, 1, 0, 0, 0.2, 3 }, { tc2.name, tc2.order,
        tc2["local"], tc2.relative, tc2.mix_rotate, tc2.mix_x, tc2.mix_y, tc2.mix_scale_x, tc2.mix_scale_y,
        tc2.mix_shear_y, tc2.offset_rotation, tc2.offset_x, tc2.offset_y, tc2.offset_scale_x, tc2.offset_scale_y,
        tc2.offset_shear_y })
      assert.are.same({ int = 1, float = 0.5, string = "left", volume = 1, balance = 0 }, d.events.step)
      assert.are.same({ int = 0, float = 0, string = "", audio = "shout.ogg", volume = 0.8, balance = -0.5 }, d.events.shout)
      -- path (and 4.2 physics) constraints: data, and one warning
      assert.are.equal("rail_path", d.paths[1].name)
      local kept = v == "4.2" and "kept as data, not played: path 'rail_path', physics 'head_physics' (path and physics"
        .. " constraints and their timelines)" or "kept as data, not played: path 'rail_path' (path and physics"
        .. " constraints and their timelines)"
      assert.are.same({ path = "", message = kept }, r.warnings[1])
      if v == "4.2" then assert.are.equal("head_physics", d.physics[1].name) end
    end)
  end
end)

describe("anim.import_spine: each timeline at chosen times", function()
  for _, v in ipairs { "3.8", "4.1" } do
    local r
    setup(function() r = load(v) end)
    local function at(clip, t) return S(r.clips[clip], t) end

    it("rotate: setup + bezier keys (" .. v .. ")", function()
      -- torso: setup 80; keys 0 -> 30 (BZ1) -> -20 (BZ2)
      near(80 + bez(BZ1, 0, 0, 0.5, 30, 0.1), angle(at("walk", 0.1).torso.rotation), 1e-9, "0.1")
      near(80 + bez(BZ2, 0.5, 30, 1, -20, 0.8), angle(at("walk", 0.8).torso.rotation), 1e-9, "0.8")
      -- arm_lower: setup 20, linear 0 -> 45 (no wrapping: 20 + 45 * 0.5)
      near(42.5, angle(at("walk", 0.5).arm_lower.rotation), 1e-9)
    end)

    it("translate, scale and shear (" .. v .. ")", function()
      local s = at("walk", 0.2)
      near({ bez(BZ3, 0, 0, 0.4, 10, 0.2), 50 + bez(BZ3, 0, 0, 0.4, -4, 0.2), 0 }, s.hip.position)
      near({ 5, 48, 0 }, at("walk", 0.7).hip.position) -- linear (10, -4) -> (0, 0), half way, + setup (0, 50)
      -- scale multiplies the setup's (0.9, 1.1): linear half way, then stepped
      near({ 1.1 * 0.9, 0.9 * 1.1, 1 }, at("walk", 0.25).head.scale)
      near({ 1.2 * 0.9, 0.8 * 1.1, 1 }, at("walk", 0.75).head.scale)
      near({ 0.9, 1.1, 1 }, at("walk", 1).head.scale)
      -- shear: setup (5, -3) + stepped (0, 0) from 0.2, (10, -5) from 0.6
      near({ 5, -3 }, s.properties["hip.shear"])
      near({ 5, -3 }, at("walk", 0.59).properties["hip.shear"])
      near({ 15, -8 }, at("walk", 0.6).properties["hip.shear"])
    end)

    it("attachment, colour and two-colour (" .. v .. ")", function()
      -- eye's names: the setup's eye-open (1), eye-closed (2); null is 0
      local function eye(t) return at("walk", t).properties["slot.eye.attachment"] end
      assert.are.same({ 1, 2, 1, 0 }, { eye(0.1), eye(0.35), eye(0.5), eye(0.9) })
      near({ 1, 1 - bez(BZ1, 0, 0, 0.5, 1, 0.1), 1 - bez(BZ1, 0, 0, 0.5, 1, 0.1), 1 + bez(BZ1, 0, 0, 0.5, 0.8 - 1, 0.1) },
        at("walk", 0.1).properties["slot.body.color"])
      -- body: ff0000cc -> ffffffff, linear
      near({ 1, 0.5, 0.5, 0.9 }, at("walk", 0.75).properties["slot.body.color"])
      local l = 0x80 / 255
      near({ (1 + l) / 2, 1, (1 + l) / 2, 1 }, at("walk", 0.25).properties["slot.arm.color"])
      near({ 0x40 / 255 / 2, 0x20 / 255 / 2, 0 }, at("walk", 0.25).properties["slot.arm.dark"])
      near({ l, 1, l, 1 }, at("walk", 0.9).properties["slot.arm.color"]) -- stepped from 0.5
      near({ 0x40 / 255, 0x20 / 255, 0 }, at("walk", 0.9).properties["slot.arm.dark"])
    end)

    it("deform: full offsets, unweighted and weighted (" .. v .. ")", function()
      near({ 0, 0, 0.5, 1, 1.5, 2, 0, 0 }, at("act", 0.25).properties["deform.default.head.head"])
      local from, to = { 0, 0, 1, 2, 3, 4, 0, 0 }, { 0, 0, 0, 0, 0, 0, -2, -2 }
      local want = {}
      for i = 1, 8 do want[i] = bez(BZ2, 0.5, from[i], 1, to[i], 0.8) end
      near(want, at("act", 0.8).properties["deform.default.head.head"])
      -- weighted: 2 per weight entry, offset 4 fills from the fifth
      near({ 0.5, 0.5, 1, 1, 4, 4, 2, 2 }, at("act", 0.3).properties["deform.default.arm.arm"])
    end)

    it("draw order: the key's orders by the format's rule (" .. v .. ")", function()
      local d = r.description
      assert.are.same({ "head", "body", "leg", "arm", "eye", "fx", "hitbox", "muzzle", "clip", "rail" }, d.draw_orders[1])
      assert.are.same({ "body", "arm", "fx", "head", "leg", "eye", "hitbox", "muzzle", "clip", "rail" }, d.draw_orders[2])
      local function k(t) return at("act", t).properties.draworder end
      assert.are.same({ 0, 1, 2, 0 }, { k(0.1), k(0.3), k(0.8), k(1.1) })
    end)

    it("events with their payloads, and sounds (" .. v .. ")", function()
      local ev = r.clips.act:events()
      assert.are.equal(4, #ev)
      assert.are.same({ time = 0.1, name = "step", on = "both", payload = { int = 1, float = 0.5, string = "left",
        volume = 1, balance = 0 } }, ev[1])
      assert.are.same({ int = 2, float = 0.5, string = "right", volume = 1, balance = 0 }, ev[2].payload)
      assert.are.same({ int = 0, float = 0, string = "", volume = 0.5, balance = -0.5, audio = "shout.ogg" }, ev[3].payload)
      assert.are.equal("hit", ev[4].name)
      local so = r.clips.act:sounds()
      assert.are.equal(1, #so)
      assert.are.equal(0.9, so[1].time)
      assert.are.equal("shout.ogg", so[1].sound)
      assert.are.equal(0.5, so[1].volume)
    end)

    it("IK and transform constraint timelines (" .. v .. ")", function()
      local p = at("act", 0.25).properties
      -- arm_ik: mix 1, softness 4 -> 0 over 0.1 .. 0.3; then to 0.2 at 0.5
      near({ 1, 2 }, at("act", 0.2).properties["ik.arm_ik"])
      near({ 0.6, 0 }, at("act", 0.4).properties["ik.arm_ik"])
      assert.are.same({ -1, 0, 1 }, p["ik.arm_ik.flags"])
      near({ bez(BZ1, 0.5, 0.2, 1.2, 1, 0.85), 0 }, at("act", 0.85).properties["ik.arm_ik"])
      assert.are.same({ 1, 1, 0 }, at("act", 1.2).properties["ik.arm_ik.flags"])
      -- foot_ik: before its first key (0.3) the setup's mix 0.5, softness 0
      near({ 0.5, 0 }, p["ik.foot_ik"])
      assert.are.same({ 1, 1, 0 }, p["ik.foot_ik.flags"])
      near({ 0, 2 }, at("act", 0.5).properties["ik.foot_ik"])
      local from = { 0.5, 0.25, 0.25, 0.75, 0.75, 0 }
      local want = {}
      for i = 1, 6 do want[i] = bez(BZ3, 0, from[i], 0.6, 1, 0.3) end
      near(want, at("act", 0.3).properties["transform.gun_tc"])
    end)

    it("lengths and loops (" .. v .. ")", function()
      assert.are.equal(1, r.clips.walk.length)
      assert.are.equal(1.2, r.clips.act.length)
      assert.are.equal("loop", r.clips.walk.loop)
      assert.is_falsy(r.clips.walk.absolute) -- (offsets from the setup pose, as the file's)
    end)
  end
end)

describe("anim.import_spine: clips on an animator", function()
  it("play on a rig of the bones: the local pose and the properties after an update", function()
    local r = load("3.8")
    local joints = {}
    for i, b in ipairs(r.description.bones) do
      joints[i] = { name = b.name, parent = b.parent, position = { b.x, b.y, 0 },
        rotation = { 0, 0, b.rotation }, scale = { b.scale_x, b.scale_y, 1 } }
    end
    local rig = assert(anim.rig { joints = joints })
    local a = anim.animator(rig)
    a:play(r.clips.walk, { fade = 0 })
    a:update(0.35)
    -- the absolute values of the clip, as the rig's local transform
    local want = S(r.clips.walk, 0.35)
    local px, py = a:local_transform("hip")
    near(want.hip.position[1], px)
    near(want.hip.position[2], py)
    near(angle(want.torso.rotation), angle({ 0, 0, select(6, a:local_transform("torso")) }), 1e-9)
    local _, _, _, _, _, _, _, sx, sy = a:local_transform("head")
    near({ (1 + 0.2 * 0.7) * 0.9, (1 - 0.2 * 0.7) * 1.1 }, { sx, sy }) -- (linear to 0.5: 0.7 of the way)
    assert.are.equal(2, a:property("slot.eye.attachment"))
    local b = anim.animator(rig)
    b:play(r.clips.act, { fade = 0 })
    b:update(0.25)
    near({ 1, 1 }, { b:property("ik.arm_ik") })
    assert.are.same({ -1, 0, 1 }, { b:property("ik.arm_ik.flags") })
    assert.are.equal(1, b:property("draworder"))
  end)
end)

describe("anim.import_spine: versions agree", function()
  it("samples the 3.8, 4.0, 4.1 and 4.2 exports of one animation alike", function()
    local base = load("3.8")
    for _, v in ipairs { "4.0", "4.1", "4.2" } do
      local other = load(v)
      for _, name in ipairs { "walk", "act" } do
        for i = 0, 48 do
          local t = i * 0.025
          local a, b = S(base.clips[name], t), S(other.clips[name], t)
          for joint, ch in pairs(a) do
            assert.is_table(b[joint], joint)
            for cn, val in pairs(ch) do near(val, b[joint][cn], 1e-9, v .. " " .. name .. " " .. joint .. "." .. cn) end
          end
          for joint in pairs(b) do assert.is_table(a[joint], joint) end
        end
      end
    end
  end)
end)

describe("anim.import_spine: 3.8's curve forms", function()
  it("reads cx1 with c2, c3, c4, the older array and \"linear\" alike", function()
    local spine = require "anim.import.spine"
    local function clip(key1)
      local text = require("cjson").encode {
        skeleton = { spine = "3.8.99" }, bones = { { name = "root", rotation = 5 } },
        animations = { a = { bones = { root = { rotate = { key1, { time = 2, angle = 40 } } } } } },
      }
      local r = O.register(assert(spine.decode_text(text, "c.json")))
      return r.clips.a
    end
    local a = clip { angle = 0, curve = 0.1, c2 = 0.4, c3 = 0.6, c4 = 0.9 }
    local b = clip { angle = 0, curve = { 0.1, 0.4, 0.6, 0.9 } }
    local l = clip { angle = 0, curve = "linear" }
    for _, t in ipairs { 0.3, 1, 1.7 } do
      near(5 + bez(BZ2, 0, 0, 2, 40, t), angle(S(a, t).root.rotation), 1e-9, "number form")
      near(5 + bez(BZ2, 0, 0, 2, 40, t), angle(S(b, t).root.rotation), 1e-9, "array form")
      near(5 + 20 * t, angle(S(l, t).root.rotation), 1e-9, "linear")
    end
  end)
end)

describe("anim.import_spine: rotate keys more than half a turn apart", function()
  it("turn the short way in 3.8, as written in 4.x", function()
    local spine = require "anim.import.spine"
    local function clip(version, f)
      local text = require("cjson").encode {
        skeleton = { spine = version }, bones = { { name = "root", rotation = 10 } },
        animations = { a = { bones = { root = { rotate = { { [f] = 0 }, { time = 1, [f] = 300 }, { time = 2, [f] = -100 },
          { time = 3, [f] = 80, curve = "stepped" }, { time = 4, [f] = 260 } } } } } },
      }
      return O.register(assert(spine.decode_text(text, "r.json"))).clips.a
    end
    local old, new = clip("3.8.99", "angle"), clip("4.1.24", "value")
    -- 3.8: 0 -> 300 is 0 -> -60; -60 -> -100 (-40); -100 -> 80 (180: -180, so -280); -280 -> 260 (-180: -460)
    local function deg(q) return angle(q) % 360 end
    for _, c in ipairs { { 0.5, -30, 150 }, { 1.5, -80, 100 }, { 3.5, -280, 80 }, { 4, -460, 260 } } do
      near(((10 + c[2]) % 360 + 360) % 360, deg(S(old, c[1]).root.rotation), 1e-9, "3.8 at " .. c[1])
      near(((10 + c[3]) % 360 + 360) % 360, deg(S(new, c[1]).root.rotation), 1e-9, "4.1 at " .. c[1])
    end
    near(((10 - 190) % 360 + 360) % 360, deg(S(old, 2.5).root.rotation), 1e-9, "3.8 half way -100 -> -280")
    -- (the clip's keys hold the unwrapped angles, offsets from the setup's 10: the pose is the same)
    assert.are.same({ 0, 0, -460 }, anim.table(old).joints.root.rotation[5][2])
  end)
end)

describe("anim.import_spine: offset clips", function()
  it("hold the timelines' offsets; a setup scale of 0 stays 0 under a scale timeline", function()
    local text = require("cjson").encode {
      skeleton = { spine = "4.1.24" }, bones = { { name = "root", x = 3, rotation = 10, scaleX = 0, scaleY = 2 } },
      animations = { a = { bones = { root = { scale = { { x = 3, y = 0.5 } }, translate = { { x = 1, y = 2 } },
        rotate = { { value = 20 } } } } } },
    }
    local r = assert(require("anim.import.spine").decode_text(text, "z.json"))
    assert.is_falsy(r.clips.a.absolute)
    local a = anim.animator(assert(anim.skeleton2d(r.skeleton)))
    a:play(r.clips.a, { fade = 0 })
    a:update(0)
    local px, py, _, _, _, qz, qw, sx, sy = a:local_transform("root")
    near({ 4, 2, 0, 1 }, { px, py, sx, sy }, 1e-12)
    near(30, angle({ 0, 0, qz, qw }), 1e-9)
  end)
end)

describe("anim.import_spine: 4.x split timelines", function()
  for _, v in ipairs { "4.0", "4.1", "4.2" } do
    it("merges translatex and translatey keys exactly (" .. v .. ")", function()
      local c = load(v).clips.split
      for _, t in ipairs { 0.05, 0.1, 0.25, 0.4, 0.5, 0.7, 0.85, 1, 1.1 } do
        local x = t < 0.5 and bez_abs({ 0.125, 5, 0.375, 15 }, 0, 0, 0.5, 20, t) or math.max(0, 20 - 40 * (t - 0.5))
        -- y: setup 50 before its first key (0.2), linear 5 -> -5, stepped, then 0
        local y = t < 0.2 and 0 or t < 0.8 and 5 - 10 * (t - 0.2) / 0.6 or t < 1.1 and -5 or 0
        near({ x, 50 + y, 0 }, S(c, t).hip.position, 1e-9, "t = " .. t)
      end
    end)

    it("merges rgb and alpha, and a lone scalex keeps the setup's y (" .. v .. ")", function()
      local c = load(v).clips.split
      -- alpha's first key is at 0.1: the setup's alpha (1) before it
      near({ 1 - 0.05 / 0.4, 1, 1 - 0.05 / 0.4, 1 }, S(c, 0.05).properties["slot.body.color"], 1e-9)
      local a = bez_abs({ 0.2, 1, 0.3, 0.5 }, 0.1, 1, 0.5, 0.25, 0.2)
      near({ 0.5, 1, 0.5, a }, S(c, 0.2).properties["slot.body.color"], 1e-9)
      near({ 1.5 * 0.9, 1.1, 1 }, S(c, 0.3).head.scale)
      near({ 0.5 * (1 + 0x80 / 255), 0.5 * (1 + 0x80 / 255), 1, 1 }, S(c, 0.5).properties["slot.head.color"])
      near({ 0.5, 0, 0 }, S(c, 0.5).properties["slot.head.dark"])
    end)

    it("plays one channel's axes with handles at different times exactly, each on its own (" .. v .. ")", function()
      local r = load(v)
      for _, w in ipairs(r.warnings) do
        assert.are_not.equal("animations.split.bones.torso.translate", w.path, w.message)
      end
      -- torso's setup (5, 2) plus x: 0 -> 10 with handles (0.1, 2), (0.4, 8);
      -- y: 0 -> -4 with (0.3, -1), (0.4, -3); held after 0.5
      local c = r.clips.split
      for _, t in ipairs { 0.02, 0.1, 0.2, 0.25, 0.3, 0.37, 0.45, 0.49, 0.5, 0.7 } do
        local x = t < 0.5 and bez_abs({ 0.1, 2, 0.4, 8 }, 0, 0, 0.5, 10, t) or 10
        local y = t < 0.5 and bez_abs({ 0.3, -1, 0.4, -3 }, 0, 0, 0.5, -4, t) or -4
        near({ 5 + x, 2 + y, 0 }, S(c, t).torso.position, 1e-9, "t = " .. t)
      end
      -- the clip keeps a handle time per axis
      local keys = require("anim.core").clip_info(c).source.joints.torso.position
      assert.are.same({ 0.1, 0.3, 0.1 }, keys[1][4].out[1])
    end)
  end
end)

describe("anim.import_spine: merging random split timelines", function()
  -- The format's value of one 4.x timeline at t: the setup before its
  -- first key; a key's curve up to the next; the last key after.
  local function value(keys, setup, t)
    if t < keys[1].time then return setup end
    for i = #keys, 1, -1 do
      local k = keys[i]
      if t >= k.time then
        local n = keys[i + 1]
        if not n then return k.value end
        if k.curve == "stepped" then return k.value end
        if k.curve == nil then return k.value + (n.value - k.value) * (t - k.time) / (n.time - k.time) end
        return bez_abs(k.curve, k.time, k.value, n.time, n.value, t)
      end
    end
  end
  local function random_keys(rnd)
    local keys, t = {}, rnd(0, 3) * 0.125
    for i = 1, rnd(1, 6) do
      local k = { time = t, value = rnd(-20, 20) }
      keys[i] = k
      t = t + rnd(1, 4) * 0.125
    end
    for i = 1, #keys - 1 do
      local k, n, c = keys[i], keys[i + 1], rnd(1, 3)
      if c == 2 then k.curve = "stepped" end
      if c == 3 and n.value ~= k.value then
        local L = n.time - k.time
        -- (handles within the segment, never both at its far ends: a time
        -- curve whose slope reaches 0 leaves this spec's own solution
        -- short of precision there)
        k.curve = { k.time + L * rnd(1, 9) / 10, k.value + rnd(-30, 30), n.time - L * rnd(1, 9) / 10, n.value + rnd(-30, 30) }
      end
    end
    return keys
  end
  it("samples every component as its own timeline, exactly", function()
    local spine = require "anim.import.spine"
    local cjson = require "cjson"
    local seed = 4040
    -- (Park and Miller's generator: exact in doubles, the same on every runtime)
    local function rnd(a, b) seed = (seed * 16807) % 2147483647 return a + seed % (b - a + 1) end
    local warned = 0
    for _ = 1, 60 do
      local x, y, sx = random_keys(rnd), random_keys(rnd), random_keys(rnd)
      for _, k in ipairs(sx) do k.value = k.value / 10 end
      local text = cjson.encode {
        skeleton = { spine = "4.2.43" }, bones = { { name = "root", x = 3, y = -2, scaleX = 2, scaleY = 0.5 } },
        animations = { a = { bones = { root = { translatex = x, translatey = y, scalex = sx } } } },
      }
      local r = O.register(assert(spine.decode_text(text, "r.json")))
      local c = r.clips.a
      -- exact, each component on its own handle times, but where a cut
      -- leaves a handle outside its piece: there a warning gives the
      -- deviation measured (63 samples a segment), which the error found
      -- here may pass by a little
      local bound = 1e-9
      for _, w in ipairs(r.warnings) do
        local d = tonumber(w.message:match("deviates by up to ([%d.e+-]+)"))
        assert.is_number(d, w.message)
        bound = math.max(bound, 1.25 * d + 1e-9)
        warned = warned + 1
      end
      for i = 0, 160 do
        local t = i / 160 * 3.5
        local s = S(c, t).root
        local what = "t = " .. t .. " of " .. text
        local e = math.max(math.abs(3 + value(x, 0, t) - s.position[1]), math.abs(-2 + value(y, 0, t) - s.position[2]))
        assert(e <= bound, what .. ": error " .. e .. " over " .. bound)
        near({ 2 * value(sx, 1, t), 0.5, 1 }, s.scale, 1e-9, what)
      end
    end
    -- (all exact but 2 of the seed's 60 files: a time of the other axis cuts
    -- a bezier whose handle times cross (x1 > x2), and the
    -- in handle of the piece after the cut starts before the piece; with
    -- one handle time per channel, 6 files were approximate)
    assert.are.equal(2, warned)
  end)
end)

describe("tools/make-spine-fixtures", function()
  it("wrote the committed fixtures", function()
    local tmp = os.tmpname()
    os.remove(tmp)
    assert.is_true(os.execute("mkdir -p " .. tmp) == true or os.execute("true") == 0)
    local ok = os.execute(H.lua .. " " .. H.root .. "/tools/make-spine-fixtures " .. tmp)
    assert.is_truthy(ok == true or ok == 0)
    for _, f in ipairs { "hero-3.8.json", "hero-4.0.json", "hero-4.1.json", "hero-4.2.json", "hero-3.8.atlas",
      "hero-4.x.atlas" } do
      local a = assert(io.open(tmp .. "/" .. f, "rb")):read("*a")
      local b = assert(io.open(DIR .. f, "rb")):read("*a")
      assert.are.equal(b, a, f)
      os.remove(tmp .. "/" .. f)
    end
    os.remove(tmp)
  end)
end)

describe("anim.decode_spine", function()
  it("reads the texts as import_spine reads the files: the same skeleton and clips", function()
    local json, atlas = DIR .. "hero-4.1.json", DIR .. "hero-4.x.atlas"
    local a = assert(anim.import_spine(json, atlas))
    local b = assert(anim.decode_spine(H.read(json), "hero-4.1.json", H.read(atlas), "hero-4.x.atlas"))
    assert.are.same(a.description, b.description)
    assert.is_table(b.skeleton)
    assert.are.same(a.skeleton.rig:joints(), b.skeleton.rig:joints())
    local names = {}
    for n in pairs(a.clips) do names[#names + 1] = n end
    table.sort(names)
    assert.is_true(#names > 0)
    for _, n in ipairs(names) do
      assert.are.same(anim.table(a.clips[n]), anim.table(b.clips[n]), n)
    end
    assert.are.same(a.warnings, b.warnings)
    -- (no atlas: as import_spine without one)
    local c = assert(anim.decode_spine(H.read(json), "hero-4.1.json"))
    local d = assert(anim.import_spine(json))
    assert.are.same(d.description, c.description)
  end)

  it("names the texts as given in its messages, and checks its arguments", function()
    local _, err = anim.decode_spine("{", "mine.json")
    assert.truthy(err:find("^mine%.json: "), err)
    _, err = anim.decode_spine(H.read(DIR .. "hero-4.1.json"), "mine.json", "p.png\nr\n bounds: 1\n", "mine.atlas")
    assert.are.equal("mine.atlas: line 3: bounds: expected 4 numbers separated by commas, got '1'", err)
    _, err = anim.decode_spine("{")
    assert.truthy(err:find("^spine: "), err)
    local ok, e = pcall(anim.decode_spine, 1)
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #1 to 'decode_spine' (string expected, got number)", 1, true), e)
    ok, e = pcall(anim.decode_spine, "{}", "x", {})
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #3 to 'decode_spine' (string expected, got table)", 1, true), e)
  end)
end)
