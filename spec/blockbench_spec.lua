-- The Blockbench and Bedrock importer (anim.import_blockbench,
-- anim.decode_blockbench): every file of ../shared/data/blockbench imports
-- (or fails with the documented Molang message), sampled values match
-- values worked out by hand from the files, both .bbmodel layouts and
-- every Bedrock channel shape read right, the hephaestus rotation tests
-- turn the way Blockbench shows them, and imported clips survive
-- anim.encode.  Fixtures written here (not copied from a project) are
-- labelled "synthetic".
--
-- Conventions used in the working below (../shared/spec/import-notes.md):
-- clips are in Blockbench's internal axes, Euler order zyx (R = Rz·Ry·Rx),
-- positions in blocks (pixels / 16).  Bedrock files and .bbmodel files
-- before format 5.0 store position x and rotation x, y with the opposite
-- sign, so those change sign on import.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local cjson = require "cjson"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local DATA = H.shared .. "/data/blockbench/"

local function import(rel)
  local clips, err = anim.import_blockbench(DATA .. rel)
  assert(clips, err)
  return clips
end

local function decode(doc, name)
  local text = type(doc) == "string" and doc or cjson.encode(doc)
  return anim.decode_blockbench(text, name or "synthetic")
end

local function source(clip) return core.clip_info(clip).source end

-- The specs' quaternion kit (spec/helper.lua), independent of the importer's.
local qaxis, qmul, rotate = H.qaxis, H.qmul, H.qrotate
local function zyx(x, y, z) return qmul(qmul(qaxis(3, z), qaxis(2, y)), qaxis(1, x)) end
-- angle between two rotations, degrees
local function qangle(a, b)
  local r = qmul({ -a[1], -a[2], -a[3], a[4] }, b)
  return 2 * compat.atan2(math.sqrt(r[1] ^ 2 + r[2] ^ 2 + r[3] ^ 2), math.abs(r[4])) * 180 / math.pi
end

local function assert_rot(clip, joint, t, want, tol)
  local got = clip:sample(t)[joint].rotation
  local d = qangle(got, want)
  assert(d <= (tol or 1e-9), string.format("%s rotation at t=%g is %.6g degrees off", joint, t, d))
end
local function assert_vec(clip, joint, ch, t, want, tol)
  local got = clip:sample(t)[joint][ch]
  local d = H.maxdiff(got, want)
  assert(d <= (tol or 1e-12), string.format("%s %s at t=%g: got {%s}, want {%s}", joint, ch, t,
    table.concat(got, ", "), table.concat(want, ", ")))
end

-- World rotation of a joint: a rig built from the clip's skeleton plays
-- the clip, and the animator's world transform gives the joint's rotation
-- (rests and offsets composed down the hierarchy, SEMANTICS 1).
local function world_rotation(clip, joint, t)
  local joints = {}
  for name, j in pairs(core.clip_info(clip).skeleton) do
    joints[#joints + 1] = { name = name, parent = j.parent, position = j.position, rotation = j.rotation }
  end
  local a = anim.animator(assert(anim.rig { joints = joints }))
  -- (speed 0: a looping track seeked to its end would wrap in update(0), 7a.21)
  local track = a:play(clip, { fade = 0, speed = 0 })
  track.time = t
  a:update(0)
  local w = { a:world_transform(joint) }
  return { w[4], w[5], w[6], w[7] }
end

local function assert_dir(v, want, tol)
  local d = H.maxdiff(v, want)
  assert(d <= (tol or 1e-4), string.format("direction {%.5f, %.5f, %.5f}, want {%.5f, %.5f, %.5f}",
    v[1], v[2], v[3], want[1], want[2], want[3]))
end

-- Every data file ---------------------------------------------------------------------------

local FILES = {
  "hephaestus-engine/correct_x_axis_rotation_test.bbmodel",
  "hephaestus-engine/correct_y_axis_rotation_test.bbmodel",
  "hephaestus-engine/correct_z_axis_rotation_test.bbmodel",
  "hephaestus-engine/geometry.bbmodel",
  "BetterModel/steve.bbmodel",
  "geckolib/1.12/magma_spider.animation.json",
  "geckolib/1.16/extendedrendererentity.animation.json",
  "geckolib/1.20.4/bat.animation.json",
  "geckolib/1.20.4/creeper.animation.json",
  "geckolib/1.20.4/gremlin.animation.json",
  "geckolib/1.20.4/mutant_zombie.animation.json",
  "geckolib/1.20.4/parasite.animation.json",
  "geckolib/1.20.4/race_car.animation.json",
}
local ANIMATIONS = {
  ["geckolib/1.12/magma_spider.animation.json"] = 5,
  ["geckolib/1.16/extendedrendererentity.animation.json"] = 22,
  ["geckolib/1.20.4/bat.animation.json"] = 4,
  ["geckolib/1.20.4/creeper.animation.json"] = 3,
  ["geckolib/1.20.4/gremlin.animation.json"] = 22,
  ["geckolib/1.20.4/mutant_zombie.animation.json"] = 12,
  ["geckolib/1.20.4/parasite.animation.json"] = 5,
  ["geckolib/1.20.4/race_car.animation.json"] = 2,
  ["hephaestus-engine/geometry.bbmodel"] = 2,
}

describe("Blockbench import: the data files", function()
  it("covers every file of the data folder", function()
    local found = {}
    local p = assert(io.popen('cd "' .. DATA .. '" && find . -name "*.bbmodel" -o -name "*.animation.json" | sort'))
    for line in p:lines() do found[#found + 1] = line:gsub("^%./", "") end
    p:close()
    local listed = { ["BetterModel/knight.bbmodel"] = true }
    for _, f in ipairs(FILES) do listed[f] = true end
    assert.is_true(#found >= 14, "expected the data files in " .. DATA)
    for _, f in ipairs(found) do assert.is_true(listed[f], f .. " is not covered by this spec") end
  end)

  for _, f in ipairs(FILES) do
    it("imports " .. f, function()
      local clips = import(f)
      local n = 0
      for name, c in pairs(clips) do
        n = n + 1
        assert.is_true(anim.is_clip(c))
        assert.are.equal(name, c.name)
        assert.are.equal("zyx", c.euler)
        assert.are.equal(DATA .. f, source(c).rig)
        -- every clip samples to finite values over its length
        for i = 0, 20 do
          for _, j in pairs(c:sample(c.length * i / 20)) do
            for _, v in pairs(j) do
              for _, x in ipairs(v) do assert.is_true(x == x and math.abs(x) < 1e6) end
            end
          end
        end
      end
      assert.are.equal(ANIMATIONS[f] or 1, n)
    end)
  end

  it("imports knight.bbmodel with its placeholder degrees = 180, saying so for every channel that reads it", function()
    local clips, warnings = anim.import_blockbench(DATA .. "BetterModel/knight.bbmodel")
    for _, n in ipairs { "roll", "left_attack_1", "left_attack_2", "left_attack_3" } do
      assert.is_true(anim.is_clip(clips[n]), n)
    end
    -- Blockbench's variable placeholder panel says degrees=180: its preview
    -- value, read as Blockbench reads it, with a warning per channel
    assert.is_true(#warnings > 0)
    for _, w in ipairs(warnings) do
      assert.truthy(w.message:match(": degrees read as 180 %(the file's variable placeholders%)$"), w.message)
      assert.truthy(w.animation:match("^left_attack_%d$"), w.animation)
    end
  end)
end)

-- Hand-worked samples -----------------------------------------------------------------------

describe("Blockbench import: .bbmodel before 5.0 (nested outliner, Bedrock signs)", function()
  it("geometry.bbmodel: loops, lengths, positions, uniform scale", function()
    local clips = import("hephaestus-engine/geometry.bbmodel")
    local crate, test = clips.crate, clips.test
    assert.are.equal("hold", crate.loop)
    assert.are.equal(6, crate.length)
    assert.are.equal("loop", test.loop)
    assert.are.equal(1.25, test.length)
    -- crate, root position y: 0 px at 0, 24.29 px at 0.88, 25.29 px at 2.24 (linear)
    assert_vec(crate, "root", "position", 0.44, { 0, 24.29 / 2 / 16, 0 })
    assert_vec(crate, "root", "position", 1.56, { 0, (24.29 + 25.29) / 2 / 16, 0 })
    -- bone5 position x: 0 at 1.4, 2.07 px at 1.56: half way is 1.035 px,
    -- and x changes sign (format 4.5 stores Bedrock's sign): -1.035/16
    assert_vec(crate, "bone5", "position", 1.48, { -1.035 / 16, 0, 0 })
    -- bone5 scale, uniform keys: 1 at 2.24, "0" at 2.64 (x only; uniform copies it)
    assert_vec(crate, "bone5", "scale", 2.44, { 0.5, 0.5, 0.5 })
    -- root2 position y: 7 px at 3.84, 4 px at 4.64
    assert_vec(crate, "root2", "position", 4.24, { 0, 5.5 / 16, 0 })
    -- test, root rotation y: 0 at 0, -25 at 1/3 -> +25 inside; 12.5 half way
    assert_rot(test, "root", 1 / 6, zyx(0, 12.5, 0))
    -- test, root scale: (1, 0.925, 1) at 1/3 to (1, 1, 2) at 0.5417
    local mid = (1 / 3 + 0.5416666666666666) / 2
    assert_vec(test, "root", "scale", mid, { 1, (0.9249999999999999 + 1) / 2, 1.5 })
    -- root2 scale z is the string "1\n" at 0.375 and 1.9 at 0.5417
    assert_vec(test, "root2", "scale", (0.375 + 0.5416666666666666) / 2, { 1, 1, (1 + 1.899999999999999) / 2 })
  end)

  it("geometry.bbmodel: the skeleton comes from the nested groups (pivots in blocks)", function()
    local sk = source(import("hephaestus-engine/geometry.bbmodel").crate).skeleton
    assert.are.same({ parent = "root2", position = { 0, 0, 5.4144000000000005 / 16 }, rotation = { 0, 0, 0, 1 } }, sk.bone7)
    assert.are.equal("root", sk.root2.parent)
    assert.is_nil(sk.root.parent)
    local n = 0
    for _ in pairs(sk) do n = n + 1 end
    assert.are.equal(10, n)
  end)
end)

describe("Blockbench import: .bbmodel 5.0 (flat groups, uuid outliner, internal signs)", function()
  it("steve.bbmodel: catmullrom positions as Blockbench's uniform spline", function()
    local roll = import("BetterModel/steve.bbmodel").roll
    assert.are.equal("once", roll.loop)
    assert.are.equal(0.66667, roll.length)
    -- player_root position y: 0, -1, -3, 0 px at 0, 0.08333, 0.16667, 0.25.
    -- Segment 0.08333..0.16667 at s = 0.5: p0 = 0, p1 = -1, p2 = -3, p3 = 0;
    -- m1 = (p2 - p0)/2 = -1.5, m2 = (p3 - p1)/2 = 0.5; at s = 1/2 the spline is
    -- (p1 + p2)/2 + (m1 - m2)/8 = -2 - 0.25 = -2.25 px.  z: 0, 0, 0.31, 0:
    -- m1 = 0.155, m2 = 0: 0.155 + 0.155/8 = 0.174375 px.
    assert_vec(roll, "player_root", "position", 0.125, { 0, -2.25 / 16, 0.174375 / 16 }, 1e-12)
    -- first segment, no key before (a once clip does not wrap): y: p0 = p1 = 0,
    -- p2 = -1, p3 = -3: m1 = -0.5, m2 = -1.5: -0.5 + 1/8 = -0.375 px; z: p0 = p1
    -- = p2 = 0, p3 = 0.31: m1 = 0, m2 = 0.155: -0.155/8 = -0.019375 px
    assert_vec(roll, "player_root", "position", 0.041665, { 0, -0.375 / 16, -0.019375 / 16 }, 1e-12)
  end)

  it("steve.bbmodel: rotation x keeps its sign in a 5.0 file", function()
    local roll = import("BetterModel/steve.bbmodel").roll
    -- the key at 0.25 as written
    assert_rot(roll, "player_root", 0.25, zyx(-67.8452700461, 14.7668896086, -2.6639876167))
  end)

  it("steve.bbmodel: the skeleton comes from the flat groups and the uuid outliner", function()
    local sk = source(import("BetterModel/steve.bbmodel").roll).skeleton
    assert.are.same({ parent = "pw_waist", position = { 0, 18.75 / 16, 0 }, rotation = { 0, 0, 0, 1 } }, sk.pc_chest)
    -- pri_right_item rests at x = -90
    assert.are.equal("prfa_right_forearm", sk.pri_right_item.parent)
    assert.is_true(qangle(sk.pri_right_item.rotation, zyx(-90, 0, 0)) < 1e-9)
    assert.are.equal("player_root", sk.tag_name.parent)
  end)

  it("reads the same key the same way in both layouts and sign conventions (synthetic)", function()
    local function doc(fv, rx, px, layout)
      -- (a rest about z alone, so that rest + angles is R(rest)·R(angles))
      local group = { name = "arm", uuid = "g1", origin = { 4, 24, 0 }, rotation = { 0, 0, 10 } }
      local d = {
        meta = { format_version = fv },
        animations = { {
          name = "a", loop = "loop", length = 1,
          animators = { g1 = { name = "arm", type = "bone", keyframes = {
            { channel = "rotation", time = 0, data_points = { { x = rx, y = "5", z = 7 } } },
            { channel = "position", time = 0, data_points = { { x = px, y = 16, z = 0 } } },
          } } },
        } },
      }
      if layout == "flat" then
        d.groups = { group }
        d.outliner = { { uuid = "g1", isOpen = true, children = {} } }
      else
        group.children = {}
        d.outliner = { group }
      end
      return d
    end
    local old = assert(decode(doc("4.9", 30, 8, "nested"))).a
    local new = assert(decode(doc("5.0", -30, -8, "flat"))).a
    -- 4.9: x and y of the rotation, x of the position change sign
    assert_rot(old, "arm", 0, zyx(-30, -5, 7))
    assert_vec(old, "arm", "position", 0, { -0.5, 1, 0 })
    assert_rot(new, "arm", 0, zyx(-30, 5, 7))
    assert_vec(new, "arm", "position", 0, { -0.5, 1, 0 })
    for _, c in ipairs { old, new } do
      local sk = source(c).skeleton
      assert.are.same({ 0.25, 1.5, 0 }, sk.arm.position)
      assert.is_true(qangle(sk.arm.rotation, zyx(0, 0, 10)) < 1e-12)
    end
  end)

  it("flips a group's z rotation in files before 3.2 (synthetic)", function()
    local c = assert(decode {
      meta = { format_version = "3.1" },
      outliner = { { name = "b", uuid = "u", origin = { 0, 0, 0 }, rotation = { 0, 0, 30 }, children = {} } },
      animations = { { name = "a", length = 1, animators = {} } },
    }).a
    assert.is_true(qangle(source(c).skeleton.b.rotation, zyx(0, 0, -30)) < 1e-12)
  end)
end)

describe("Blockbench import: the hephaestus rotation tests turn the way Blockbench shows them", function()
  -- format 4.9: the files store Bedrock signs; Blockbench negates x and y
  -- on load and adds the angles to the bone's rest angles.

  it("correct_x_axis_rotation_test: the arms turn about their x axes", function()
    local c = import("hephaestus-engine/correct_x_axis_rotation_test.bbmodel").rotate_arms_in_x
    assert.are.equal("loop", c.loop)
    assert.are.equal(2.0416666666666665, c.length)
    local L = c.length
    -- right: x 0 at 0, -44.23 at 1/6, -82.5 at the end (file): +44.23, +82.5 inside
    assert_rot(c, "right", 1 / 12, qaxis(1, 44.230000000000004 / 2))
    assert_rot(c, "right", L, qaxis(1, 82.5))
    -- left: -42.5 at 0, 45 at the end: +42.5 to -45, -1.25 half way
    assert_rot(c, "left", L / 2, qaxis(1, -1.25), 1e-9)
    -- In the world: right rests at zyx(45, 0, 45); at the end Blockbench
    -- shows zyx(45 + 82.5, 0, 45) = Rz(45)·Rx(127.5).  The arm's top face
    -- normal (0, 1, 0): Rx(127.5) gives (0, cos 127.5, sin 127.5) =
    -- (0, -0.60876, 0.79335); Rz(45) turns it to (0.43046, -0.43046, 0.79335).
    local up = rotate(world_rotation(c, "right", L), { 0, 1, 0 })
    assert_dir(up, { 0.43046, -0.43046, 0.79335 })
    -- the same with the file's sign taken as it is would face (-0.561, 0.561, -0.609)
    -- Left at 0: zyx(45 + 42.5, 0, 0): the top face turns from +y to
    -- (0, cos 87.5, sin 87.5) = (0, 0.04362, 0.99905), nearly forward (+z).
    assert_dir(rotate(world_rotation(c, "left", 0), { 0, 1, 0 }), { 0, 0.04362, 0.99905 })
    -- the arm itself (along x) stays put: a turn about x
    assert_dir(rotate(world_rotation(c, "left", 0), { 1, 0, 0 }), { 1, 0, 0 }, 1e-12)
  end)

  it("correct_y_axis_rotation_test: the body turns left and right about y", function()
    local c = import("hephaestus-engine/correct_y_axis_rotation_test.bbmodel").rotate_body_left_and_right
    -- root rests at y = 45; keys y: 45, 0, 90 at 0, 1, 2 (file) -> -45, 0, -90
    assert_rot(c, "root", 0, qaxis(2, -45))
    assert_rot(c, "root", 0.5, qaxis(2, -22.5))
    assert_rot(c, "root", 2, qaxis(2, -90))
    -- world: rest + angle = 0, 45, -45 at 0, 1, 2.  The front (0, 0, 1) faces
    -- (sin a, 0, cos a): straight, then toward +x, then toward -x
    assert_dir(rotate(world_rotation(c, "root", 0), { 0, 0, 1 }), { 0, 0, 1 }, 1e-12)
    assert_dir(rotate(world_rotation(c, "root", 1), { 0, 0, 1 }), { 0.70711, 0, 0.70711 })
    assert_dir(rotate(world_rotation(c, "root", 2), { 0, 0, 1 }), { -0.70711, 0, 0.70711 })
    -- children turn with it: right rests at zyx(45, 0, 45) under the root
    local want = qmul(zyx(0, 45, 0), zyx(45, 0, 45))
    assert.is_true(qangle(world_rotation(c, "right", 1), want) < 1e-9)
  end)

  it("correct_z_axis_rotation_test: the arms wave about z", function()
    local c = import("hephaestus-engine/correct_z_axis_rotation_test.bbmodel").wave_right_and_left
    -- right rests at z = -22.5; keys z: 0, 0, 92.5, -40 at 0, 1, 1.5, 2 (z keeps its sign)
    assert_rot(c, "right", 1.25, qaxis(3, 46.25))
    assert_rot(c, "right", 1.75, qaxis(3, 26.25))
    -- left rests at z = 22.5; keys z: 0, -57.5, 37.5 at 0, 0.5, 1, held after
    assert_rot(c, "left", 0.25, qaxis(3, -28.75))
    assert_rot(c, "left", 1.5, qaxis(3, 37.5))
    -- The right arm reaches out along -x from its pivot.  At rest Rz(-22.5)
    -- lifts it to (-cos 22.5, sin 22.5, 0) = (-0.92388, 0.38268, 0); at 1.5
    -- Rz(-22.5 + 92.5) = Rz(70) swings it down to (-0.34202, -0.93969, 0).
    assert_dir(rotate(world_rotation(c, "right", 0), { -1, 0, 0 }), { -0.92388, 0.38268, 0 })
    assert_dir(rotate(world_rotation(c, "right", 1.5), { -1, 0, 0 }), { -0.34202, -0.93969, 0 })
    -- The left arm (+x): at 0.5 Rz(22.5 - 57.5) = Rz(-35) lowers it to
    -- (0.81915, -0.57358, 0); at 1 Rz(60) raises it to (0.5, 0.86603, 0).
    assert_dir(rotate(world_rotation(c, "left", 0.5), { 1, 0, 0 }), { 0.81915, -0.57358, 0 })
    assert_dir(rotate(world_rotation(c, "left", 1), { 1, 0, 0 }), { 0.5, 0.86603, 0 })
  end)
end)

describe("Blockbench import: rest + angles", function()
  it("composes exactly where R(rest)·R(angles) = R(rest + angles): no hephaestus bone is baked", function()
    for _, f in ipairs { "correct_x_axis_rotation_test", "correct_y_axis_rotation_test", "correct_z_axis_rotation_test" } do
      for _, c in pairs(import("hephaestus-engine/" .. f .. ".bbmodel")) do
        assert.is_nil(core.clip_info(c).approx, f)
        for _, j in pairs(source(c).joints) do
          for _, k in ipairs(j.rotation or {}) do assert.are.equal(3, #k[2]) end -- Euler keys
        end
      end
    end
  end)

  it("bakes R(rest)^-1·R(rest + angles) as quaternions where they differ (synthetic)", function()
    -- rest x = 30, the animation turns y from 0 to 90 in 1 s.  Blockbench:
    -- R = Rz(0)·Ry(y)·Rx(30); the offset after the rest is Rx(-30)·Ry(y)·Rx(30),
    -- which is not R(0, y, 0).
    local c = assert(decode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 }, rotation = { 30, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 1, animators = { u = { name = "b", keyframes = {
        { channel = "rotation", time = 0, data_points = { { x = 0, y = 0, z = 0 } } },
        { channel = "rotation", time = 1, data_points = { { x = 0, y = 90, z = 0 } } },
      } } } } },
    }).a
    for i = 0, 40 do
      local t = i / 40
      local y = 90 * t
      local want = qmul(qaxis(1, -30), qmul(qaxis(2, y), qaxis(1, 30)))
      assert_rot(c, "b", t, want, 0.01)
      -- and in the world, rest then offset is what Blockbench shows
      assert.is_true(qangle(world_rotation(c, "b", t), zyx(30, y, 0)) <= 0.01)
    end
    assert.are.equal(4, #source(c).joints.b.rotation[1][2]) -- quaternion keys
    local approx = core.clip_info(c).approx
    assert.are.equal(0.01, approx.bound)
    assert.truthy(approx.note:find("b.rotation baked for rest rotation", 1, true))
  end)

  it("knight.bbmodel's item bone, with Blockbench's placeholder degrees = 180, bakes its rest", function()
    -- knight's own placeholder panel says degrees=180 (a preview value, which
    -- is why the file itself is refused); with it written in, left_attack_3
    -- turns pri_right_item (rest x = -90) about y and z as well.
    local text = H.read(DATA .. "BetterModel/knight.bbmodel"):gsub("degrees", "180")
    local c = assert(anim.decode_blockbench(text, "knight.bbmodel")).left_attack_3
    -- the same as the file itself, read with its placeholder
    local d = assert(anim.import_blockbench(DATA .. "BetterModel/knight.bbmodel")).left_attack_3
    for t = 0, 0.75, 0.05 do
      assert.is_true(qangle(c:sample(t).pri_right_item.rotation, d:sample(t).pri_right_item.rotation) <= 1e-9)
    end
    assert.are.equal(4, #source(c).joints.pri_right_item.rotation[1][2])
    -- the key at 0.25: Blockbench shows zyx(-90 + 27.697928082, -29.8984523542, -46.3767048046)
    local want = zyx(-90 + 27.697928082, -29.8984523542, -46.3767048046)
    local sk = source(c).skeleton.pri_right_item.rotation
    local got = qmul(sk, c:sample(0.25).pri_right_item.rotation)
    assert.is_true(qangle(got, want) <= 0.01)
  end)
end)

describe("Blockbench import: Bedrock files (GeckoLib)", function()
  it("bat.animation.json: static arrays, Molang baked, length from the sin/cos periods", function()
    local clips = import("geckolib/1.20.4/bat.animation.json")
    local fly = clips["move.fly"]
    assert.are.equal("loop", fly.loop)
    -- sin(t*360): 1 s; misc.idle has sin(t*90): 4 s; move.walk 720 and 360: 1 s
    assert.are.equal(1, fly.length)
    assert.are.equal(4, clips["misc.idle"].length)
    assert.are.equal(1, clips["move.walk"].length)
    -- main: rotation [60, 0, 0] -> x = -60; position [0, sin(360t)*2, sin(360t)*-4] px
    assert_rot(fly, "main", 0.3, zyx(-60, 0, 0))
    for _, t in ipairs { 0.1, 0.25, 0.6, 0.93 } do
      local s = math.sin(math.rad(360 * t))
      assert_vec(fly, "main", "position", t, { 0, s * 2 / 16, s * -4 / 16 }, 0.01)
    end
    -- leftArm: [0, cos(360t)*20, sin(360t)*50-60]: y changes sign.  At 0.25:
    -- y = -cos 90 * 20 = 0, z = 50 - 60 = -10.
    assert_rot(fly, "leftArm", 0.25, zyx(0, 0, -10), 0.01)
    -- misc.living: {"vector": [cos(360t)*20 x3]} at 0: x = -20, y = -20, z = 20
    assert_rot(clips["misc.living"], "leftear", 0, zyx(-20, -20, 20), 0.01)
    -- baked: the clip says so, and within what
    local approx = core.clip_info(fly).approx
    assert.are.equal(0.01, approx.bound)
    assert.truthy(approx.note:find("leftArm.rotation baked for Molang", 1, true))
    assert.truthy(approx.note:find("no animation length: 1 s", 1, true))
  end)

  it("race_car.animation.json: a full turn per axis, Molang position, a sound", function()
    local drive = import("geckolib/1.20.4/race_car.animation.json")["move.drive"]
    assert.are.equal(1, drive.length)
    -- backwheels rotation x 0 -> 360 over 1 s, per axis (so a whole turn):
    -- at 0.25 x = 90 in the file, -90 inside
    assert_rot(drive, "backwheels", 0.25, qaxis(1, -90))
    assert_rot(drive, "backwheels", 0.75, qaxis(1, -270))
    -- racecar position [0, sin(360t)*0.2, cos(360t)*0.2] px
    assert_vec(drive, "racecar", "position", 0, { 0, 0, 0.2 / 16 }, 1e-12)
    assert_vec(drive, "racecar", "position", 0.25, { 0, 0.2 / 16, 0 }, 0.01)
    assert.are.same({ { time = 0, sound = "drive", volume = 1, pitch = 1 } }, drive:sounds())
  end)

  it("magma_spider.animation.json: capital Math., periods, the 10 s span and its seam", function()
    local clips = import("geckolib/1.12/magma_spider.animation.json")
    local walk = clips["animation.magmaspider.walk"]
    -- periods: cos(200t) 1.8 s, cos(600t) 0.6 s, cos(400t) 0.9 s: 1.8 s
    assert.are.equal(1.8, walk.length)
    -- magma_spider rotation [0, Math.cos((t+0.1)*200)*-10, Math.cos(t*200)*-3];
    -- y changes sign: y = 10 cos((t+0.1)*200), z = -3 cos(200t).
    -- At 0.35: y = 10 cos 90 = 0, z = -3 cos 70 = -1.02606
    assert_rot(walk, "magma_spider", 0.35, zyx(0, 10 * math.cos(math.rad(90)), -3 * math.cos(math.rad(70))), 0.01)
    assert_rot(walk, "magma_spider", 0, zyx(0, 10 * math.cos(math.rad(20)), -3), 0.01)
    -- idle has animation_length 7.55 and Molang inside time keys
    assert.are.equal(7.55, clips["animation.magmaspider.idle"].length)
    -- idlelayer: cos(100t), cos(150t), cos(204t), cos(120t): periods 3.6,
    -- 2.4, 30/17, 3 s have no common multiple within 10 s: 10 s.  Its
    -- seam: back x = 2 cos((t+0.4)*120) goes from 2 cos 48 = 1.33826 at 0
    -- to 2 cos 1248 = 2 cos 168 = -1.95630 at 10: 3.29456 (the largest).
    local layer = clips["animation.magmaspider.idlelayer"]
    assert.are.equal(10, layer.length)
    local approx = core.clip_info(layer).approx
    local seam = 2 * math.cos(math.rad(48)) - 2 * math.cos(math.rad(168))
    assert.is_true(math.abs(approx.seam - seam) < 1e-9, tostring(approx.seam))
    assert.truthy(approx.note:find("does not repeat within 10 s", 1, true))
    -- idle: Molang inside time keys is evaluated at the current time at both
    -- ends of a segment.  head 1.9 -> 3.65 at 2.775 (s = 1/2):
    --   x: -2 and 3 + cos(104 t) * -2.5 (cos 288.6 = 0.31896): 2.20259 -> 0.10130
    --   y: -10 + cos(220 t) * -2 (cos 610.5 = -0.33381): -9.33237 and
    --      -10 + cos(120 t) * -2 (cos 333 = 0.89101): -11.78201 -> -10.55719
    --   z: 11.  x and y change sign.
    local t = 2.775
    local x1 = 3 + math.cos(math.rad(104 * t)) * -2.5
    local y0 = -10 + math.cos(math.rad(220 * t)) * -2
    local y1 = -10 + math.cos(math.rad(120 * t)) * -2
    assert_rot(clips["animation.magmaspider.idle"], "head", t, zyx(-(-2 + x1) / 2, -(y0 + y1) / 2, 11), 0.01)
    -- attack: keyed arrays, no Molang, exact
    assert.is_nil(core.clip_info(clips["animation.magmaspider.attack"]).approx)
  end)

  it("creeper.animation.json: loop true and absent, time keys of {vector}", function()
    local clips = import("geckolib/1.20.4/creeper.animation.json")
    assert.are.equal("loop", clips["misc.idle"].loop)
    local ex = clips["attack.explode"]
    assert.are.equal("once", ex.loop)
    assert.are.equal(1.5, ex.length)
    -- head scale 1 at 0, 1.03 at 0.52, 1 at 0.96, 1.1 at 1.48, held after
    assert_vec(ex, "head", "scale", 0.26, { 1.015, 1.015, 1.015 }, 1e-12)
    assert_vec(ex, "head", "scale", 1.22, { 1.05, 1.05, 1.05 }, 1e-12)
    assert_vec(ex, "head", "scale", 1.49, { 1.1, 1.1, 1.1 })
  end)

  it("gremlin.animation.json: GeckoLib easings the clip easings express exactly, particles", function()
    local clips = import("geckolib/1.20.4/gremlin.animation.json")
    local cast = clips["attack.cast"]
    -- bipedHead rotation x: 0 at 0, 60 at 0.4 with easeInOutSine (the
    -- easing of a key shapes the segment that ends at it).  At 0.1, s = 1/4:
    -- (1 - cos(pi/4))/2 = 0.146447; x = 60 * 0.146447 = 8.7868, -8.7868 inside
    assert_rot(cast, "bipedHead", 0.1, qaxis(1, -60 * (1 - math.cos(math.pi / 4)) / 2))
    local key = source(cast).joints.bipedHead.rotation[1]
    assert.are.same({ 0, { 0, 0, 0 }, "sine", { ease = "inOut" } }, key)
    assert.is_nil(core.clip_info(cast).approx)
    -- attack.greatsword bipedArms: 0 -> -60 at 0.12 easeOutCubic, back to 0
    -- at 0.32 easeInQuad.  0.06: 1 - 0.5^3 = 0.875 -> -52.5; 0.22: 0.25 -> -45
    local gs = clips["attack.greatsword"]
    assert_rot(gs, "bipedArms", 0.06, qaxis(1, 52.5), 1e-9)
    assert_rot(gs, "bipedArms", 0.22, qaxis(1, 45), 1e-9)
    -- particle_effects with a locator become events
    local ev = cast:events()
    assert.are.equal(5, #ev)
    assert.are.same({ time = 0.28, name = "particle", on = "both",
      payload = { effect = "magic_particles", locator = "hands" } }, ev[2])
  end)

  it("parasite.animation.json: back, elastic and expo with easingArgs", function()
    local clips = import("geckolib/1.20.4/parasite.animation.json")
    local spawn = clips["misc.spawn"]
    assert.are.equal("once", clips["attack.strike"].loop) -- "loop": false
    -- head rotation z (keeps its sign):
    -- 0 -> 27.5 at 0.2, easeOutBack with easingArgs [5]: overshoot c = 5 * 1.70158;
    -- out(s) = 1 - back(1 - s), back(u) = u^2 ((c + 1) u - c).  At 0.1, s = 1/2:
    -- back(1/2) = 0.25 (0.5 (c + 1) - c) -> z = 27.5 * (1 - back(1/2)).  Baked.
    local c = 5 * 1.70158
    local b = 0.25 * (0.5 * (c + 1) - c)
    assert_rot(spawn, "head", 0.1, qaxis(3, 27.5 * (1 - b)), 0.01)
    -- 27.5 at 0.52 -> 115 at 1.08, easeInElastic: 1 - cos(s pi/2)^3 cos(s pi).
    -- At 0.66, s = 1/4: 1 - cos(pi/8)^3 cos(pi/4) = 0.44239 -> z = 66.209.  Baked.
    local e = 1 - math.cos(math.pi / 8) ^ 3 * math.cos(math.pi / 4)
    assert_rot(spawn, "head", 0.66, qaxis(3, 27.5 + 87.5 * e), 0.01)
    -- 115 at 1.56 -> 205 at 2.24, easeInOutExpo: exact.  At 1.73, s = 1/4:
    -- 2^(10(2s - 1))/2 = 1/64 -> z = 115 + 90/64
    assert_rot(spawn, "head", 1.73, qaxis(3, 115 + 90 / 64), 1e-9)
    -- 205 at 2.84 -> (-90.49724, -20.38834, 180.27398) at 3.16 easeOutBack
    -- with easingArgs [0]: no overshoot, which is cubic out: 1 - (1/2)^3 at 3.0.
    -- x and y change sign.
    local f = 0.875
    assert_rot(spawn, "head", 3.0, zyx(90.49724 * f, 20.38834 * f, 205 + (180.27398 - 205) * f), 1e-9)
    -- head position 0 at 2.88 -> (0, -14, -3) px at 3.16, easeOutCirc: exact.
    -- At 3.02, s = 1/2: 1 - (1 - sqrt(1 - (1/2)^2)) = 0.866025
    local circ = math.sqrt(0.75)
    assert_vec(spawn, "head", "position", 3.02, { 0, -14 * circ / 16, -3 * circ / 16 }, 1e-12)
    local approx = core.clip_info(spawn).approx
    assert.truthy(approx.note:find("GeckoLib easing easeInElastic", 1, true))
    assert.truthy(approx.note:find("GeckoLib easing easeOutBack", 1, true))
  end)

  it("mutant_zombie.animation.json: hold_on_last_frame is hold", function()
    local clips = import("geckolib/1.20.4/mutant_zombie.animation.json")
    assert.are.equal("hold", clips["misc.sit"].loop)
    assert.are.equal("loop", clips["move.sneak"].loop)
    assert.are.equal("once", clips["attack.spear"].loop)
  end)

  it("extendedrendererentity.animation.json: particle events with a locator, animations with no bones", function()
    local clips = import("geckolib/1.16/extendedrendererentity.animation.json")
    local cast = clips["animation.biped.arms.cast-spell"]
    local times = {}
    for i, ev in ipairs(cast:events()) do
      times[i] = ev.time
      assert.are.equal("particle", ev.name)
      assert.are.same({ effect = "magic_particles", locator = "hands" }, ev.payload)
    end
    assert.are.same({ 0, 0.28, 0.52, 0.8, 1.04 }, times)
    local walk = clips["animation.biped.legs.walk"]
    assert.are.same({}, walk:joints())
    assert.are.equal(0, walk.length)
  end)
end)

-- Synthetic fixtures for what the data lacks -------------------------------------------------

local function bedrock(anims)
  return { format_version = "1.8.0", animations = anims }
end

describe("Blockbench import: Bedrock channel shapes (synthetic)", function()
  it("pre/post make a jump: two keys at one time", function()
    local c = assert(decode(bedrock { a = { animation_length = 2, bones = { b = { rotation = {
      ["0.0"] = { 0, 0, 0 },
      ["1.0"] = { pre = { 10, 0, 0 }, post = { 20, 0, 0 } },
      ["2.0"] = { 0, 0, 0 },
    } } } } })).a
    -- x changes sign: 0 -> -10 arriving at 1, leaving from -20 -> 0 at 2
    assert_rot(c, "b", 0.5, qaxis(1, -5))
    assert_rot(c, "b", 1 - 1e-9, qaxis(1, -10), 1e-6)
    assert_rot(c, "b", 1, qaxis(1, -20))
    assert_rot(c, "b", 1.5, qaxis(1, -10))
    local keys = source(c).joints.b.rotation
    assert.are.equal(4, #keys)
    assert.are.equal(keys[2][1], keys[3][1])
  end)

  it("a static {post} object, a scalar (all three axes) and equal pre/post", function()
    local c = assert(decode(bedrock { a = { bones = {
      b = { position = { post = { 16, 0, 0 } }, scale = 2, rotation = { ["0.0"] = { pre = 5, post = 5 } } },
    } } })).a
    assert_vec(c, "b", "position", 0, { -1, 0, 0 })
    assert_vec(c, "b", "scale", 0, { 2, 2, 2 })
    assert_rot(c, "b", 0, zyx(-5, -5, 5))
    assert.are.equal(1, #source(c).joints.b.rotation) -- equal pre and post: one key
  end)

  it("lerp_mode catmullrom, with and without looping", function()
    local function clip(loop)
      return assert(decode(bedrock { a = { loop = loop, animation_length = 3, bones = { b = { position = {
        ["0.0"] = { post = { 0, 0, 0 }, lerp_mode = "catmullrom" },
        ["1.0"] = { post = { 0, 16, 0 }, lerp_mode = "catmullrom" },
        ["2.0"] = { post = { 0, 32, 0 }, lerp_mode = "catmullrom" },
        ["3.0"] = { post = { 0, 16, 0 }, lerp_mode = "catmullrom" },
      } } } } })).a
    end
    local once, loop = clip(false), clip(true)
    -- y px 0, 16, 32, 16.  1..2: p0 = 0, p1 = 16, p2 = 32, p3 = 16: m1 = 16,
    -- m2 = 0: 24 + 16/8 = 26 px (linear would be 24)
    assert_vec(once, "b", "position", 1.5, { 0, 26 / 16, 0 })
    -- 0..1 once: p0 = p1 = 0, p3 = 32: m1 = 8, m2 = 16: 8 - 8/8 = 7 px
    assert_vec(once, "b", "position", 0.5, { 0, 7 / 16, 0 })
    -- looping: p0 is the second-to-last key, 32: m1 = -8: 8 - 24/8 = 5 px
    assert_vec(loop, "b", "position", 0.5, { 0, 5 / 16, 0 })
  end)

  it("lerp_mode catmullrom next to Molang of time: baked with the same neighbours", function()
    -- "32 + 0 * q.anim_time" is 32 but depends on time as written, so the
    -- channel is baked from Blockbench's evaluation rather than keyed
    local c = assert(decode(bedrock { a = { loop = true, animation_length = 3, bones = { b = { position = {
      ["0.0"] = { post = { 0, 0, 0 }, lerp_mode = "catmullrom" },
      ["1.0"] = { post = { 0, 16, 0 }, lerp_mode = "catmullrom" },
      ["2.0"] = { post = { 0, "32 + 0 * q.anim_time", 0 }, lerp_mode = "catmullrom" },
      ["3.0"] = { post = { 0, 16, 0 }, lerp_mode = "catmullrom" },
    } } } } })).a
    assert.truthy(core.clip_info(c).approx.note:find("b.position baked for Molang", 1, true))
    assert_vec(c, "b", "position", 0.5, { 0, 5 / 16, 0 }, 0.01)  -- wrapped, as above
    assert_vec(c, "b", "position", 1.5, { 0, 26 / 16, 0 }, 0.01)
  end)

  it("detects Blockbench's exported steps", function()
    local c = assert(decode(bedrock { a = { bones = { b = { position = {
      ["0.0"] = { 0, 0, 0 },
      ["1.0"] = { pre = { 0, 0, 0 }, post = { 0, 8, 0 } },
      ["2.0"] = { pre = { 0, 8, 0 }, post = { 0, 16, 0 } },
    } } } } })).a
    assert_vec(c, "b", "position", 0.5, { 0, 0, 0 })
    assert_vec(c, "b", "position", 1, { 0, 0.5, 0 })
    assert_vec(c, "b", "position", 1.999, { 0, 0.5, 0 })
    assert_vec(c, "b", "position", 2, { 0, 1, 0 })
    local keys = source(c).joints.b.position
    assert.are.same({ { 0, { 0, 0, 0 }, "step" }, { 1, { 0, 0.5, 0 }, "step" }, { 2, { 0, 1, 0 } } }, keys)
  end)

  it("GeckoLib's step and bounce, and an unknown easing (linear, as GeckoLib reads it)", function()
    local c = assert(decode(bedrock { a = { animation_length = 3, bones = { b = { position = {
      ["0.0"] = { vector = { 0, 0, 0 } },
      ["1.0"] = { vector = { 0, 16, 0 }, easing = "step", easingArgs = { 4 } },
      ["2.0"] = { vector = { 0, 0, 0 }, easing = "easeOutBounce" },
      ["3.0"] = { vector = { 0, 16, 0 }, easing = "easeWobbly" },
    } } } } })).a
    -- step(4): floor(4s)/4, at most 3/4: 0.3 -> 1/4, 0.8 -> 3/4 of 16 px
    assert_vec(c, "b", "position", 0.3, { 0, 0.25, 0 }, 1e-9)
    assert_vec(c, "b", "position", 0.8, { 0, 0.75, 0 }, 1e-9)
    -- out bounce: 1 - bounce(1 - s), bounce(x) = min of four parabolas (k = 0.5);
    -- at s = 0.5 x = 0.5: 121/16 * 0.25 = 1.890625, 121/4 * 0.5 (0.5 - 6/11)^2 + 0.5
    -- = 0.53125, 121 * 0.25 (0.5 - 9/11)^2 + 0.75 = 3.8125, 484 / 8 (0.5 - 10.5/11)^2
    -- + 0.875 = 13.375: 0.53125 -> 1 - 0.53125 = 0.46875 of the way from 16 to 0 px
    assert_vec(c, "b", "position", 1.5, { 0, (16 - 16 * 0.46875) / 16, 0 }, 0.01)
    assert_vec(c, "b", "position", 2.5, { 0, 0.5, 0 }, 1e-12)
  end)

  it("GeckoLib back: easings.net's in and out when it has no argument; its own inOut is baked", function()
    local c = assert(decode(bedrock { a = { animation_length = 3, bones = {
      b = { position = {
        ["0.0"] = { vector = { 0, 0, 0 } },
        ["1.0"] = { vector = { 0, 16, 0 }, easing = "easeInBack" },
        ["2.0"] = { vector = { 0, 0, 0 }, easing = "easeInOutBack" },
      } },
      c = { position = {
        ["0.0"] = { vector = { 0, 0, 0 } },
        ["1.0"] = { vector = { 0, 16, 0 }, easing = "catmullrom" },
      } },
    } } })).a
    -- back(s) = s^2 (2.70158 s - 1.70158); back(1/2) = -0.0876975
    local function back(s) return s * s * (2.70158 * s - 1.70158) end
    assert_vec(c, "b", "position", 0.5, { 0, back(0.5), 0 }, 1e-12)
    assert.are.same({ 0, { 0, 0, 0 }, "back", { ease = "in" } }, source(c).joints.b.position[1])
    -- GeckoLib's inOut is the plain mirror, back(2s)/2 before the middle
    -- (easings.net's uses 1.70158 * 1.525): at 1.25, 1 - back(1/2)/2 of the way down
    assert_vec(c, "b", "position", 1.25, { 0, 1 - (back(0.5) / 2), 0 }, 0.01)
    assert.truthy(core.clip_info(c).approx.note:find("GeckoLib easing easeInOutBack", 1, true))
    -- GeckoLib's "catmullrom" easing is read as a catmullrom segment
    assert.are.same({ 0, { 0, 0, 0 }, "catmullrom" }, source(c).joints.c.position[1])
  end)

  it("sound_effects, particle_effects and timeline become sounds and events", function()
    local c = assert(decode(bedrock { a = {
      animation_length = 1,
      sound_effects = { ["0.5"] = { { effect = "step" }, { effect = "clank" } } },
      particle_effects = { ["0.25"] = { effect = "smoke", locator = "mouth", bind_to_actor = false } },
      timeline = { ["0.75"] = { "v.x = 1;", "v.y = 2;" } },
    } })).a
    assert.are.same({ { time = 0.5, sound = "step", volume = 1, pitch = 1 },
      { time = 0.5, sound = "clank", volume = 1, pitch = 1 } }, c:sounds())
    assert.are.same({
      { time = 0.25, name = "particle", on = "both", payload = { effect = "smoke", locator = "mouth", bind_to_actor = false } },
      { time = 0.75, name = "timeline", on = "both", payload = { script = "v.x = 1;" } },
      { time = 0.75, name = "timeline", on = "both", payload = { script = "v.y = 2;" } },
    }, c:events())
  end)

  it("without animation_length, a whole number of periods that holds every key", function()
    -- sin(360 t) repeats each second; the last key is at 1.5: 2 s.  With
    -- q.anim_time outside sin/cos nothing repeats: 10 s, and the seam says
    -- how far the end is from the start (2 * 10 - 0 = 20 degrees)
    local clips = assert(decode(bedrock {
      a = { loop = true, bones = {
        b = { rotation = { 0, 0, "math.sin(q.anim_time * 360) * 10" } },
        c = { position = { ["0.0"] = { 0, 0, 0 }, ["1.5"] = { 0, 16, 0 } } },
      } },
      b = { loop = true, bones = { b = { rotation = { 0, 0, "q.anim_time * 2" } } } },
    }))
    assert.are.equal(2, clips.a.length)
    assert.is_nil(core.clip_info(clips.a).approx.seam)
    assert.are.equal(10, clips.b.length)
    assert.is_true(math.abs(core.clip_info(clips.b).approx.seam - 20) < 1e-9)
    assert_rot(clips.b, "b", 7.5, qaxis(3, 15), 1e-9) -- linear in time: two keys say it exactly
  end)

  it("a constant blend_weight becomes the joints' weight", function()
    local c = assert(decode(bedrock { a = { blend_weight = "0.5", bones = { b = { rotation = { 0, 0, 0 } } } } })).a
    assert.are.equal(0.5, source(c).joints.b.weight)
  end)

  it("reads the default anim_time_update in any of its spellings, a constant rate as the clip's speed, and says it follows no other", function()
    for _, atu in ipairs { "query.anim_time + query.delta_time", "q.anim_time + q.delta_time",
      "query.delta_time + query.anim_time", "q.delta_time+query.anim_time", "(Query.Anim_Time + Q.Delta_Time)",
      " q.anim_time\n+ q.delta_time " } do
      local clips, w = decode(bedrock { a = { anim_time_update = atu, bones = { b = { rotation = { 0, 0, 0 } } } } })
      assert.are.same({}, w)
      assert.are.equal(1, clips.a.speed)
    end
    -- query.anim_time + query.delta_time * k: the time runs k times as fast
    for _, atu in ipairs { "q.anim_time + q.delta_time * 2", "q.anim_time + 2 * q.delta_time", "2*q.delta_time+q.anim_time" } do
      local clips, w = decode(bedrock { a = { anim_time_update = atu, bones = { b = { rotation = { 0, 0, 0 } } } } })
      assert.are.same({}, w)
      assert.are.equal(2, clips.a.speed, atu)
    end
    for _, atu in ipairs { "q.anim_time", "q.anim_time - q.delta_time", "q.anim_time + q.anim_time",
      "q.anim_time + q.delta_time + 0", "v.anim_time + q.delta_time", "query.modified_distance_moved",
      "q.anim_time + q.delta_time * v.speed", "q.anim_time +" } do
      local clips, w = decode(bedrock { a = { anim_time_update = atu, bones = { b = { rotation = { 0, 0, 0 } } } } })
      assert.is_true(anim.is_clip(clips.a), atu)
      assert.are.equal(1, clips.a.speed)
      assert.are.same({ { animation = "a", channel = "animations.a.anim_time_update", message = string.format(
        "animation 'a': anim_time_update '%s' is not followed: the clip's time runs at the animation's speed (as"
        .. " Blockbench previews it)", atu) } }, w)
    end
  end)

  it("orders time keys that are the same number by their text: both kept, a jump", function()
    -- "0.5" and "0.50" (and ".5") are one time; they sort by their text,
    -- byte-wise (".5" < "0.5" < "0.50"), and the clip jumps through them in
    -- that order, showing the last at the time itself.  Many bones with
    -- different strings, so that no hash order can pass by chance.
    local bones, sounds = {}, {}
    for i = 1, 24 do
      local t = i / 32
      local short, long = string.format("%.5f", t):gsub("0+$", ""), string.format("%.5f", t) .. "0"
      bones["b" .. i] = { rotation = {
        ["0.0"] = { 0, 0, 0 },
        [long] = { 0, 0, 20 },
        [short] = { 0, 0, 10 },
        ["1.0"] = { 0, 0, 0 },
      } }
      sounds[short] = { effect = "first" .. i }
      sounds[long] = { effect = "second" .. i }
    end
    local c = assert(decode(bedrock { a = { animation_length = 1, bones = bones, sound_effects = sounds } })).a
    for i = 1, 24 do
      local t = i / 32
      local keys = source(c).joints["b" .. i].rotation
      assert.are.equal(4, #keys)
      assert.are.equal(keys[2][1], keys[3][1])
      assert.are.same({ 0, 0, 10 }, keys[2][2], "b" .. i)
      assert.are.same({ 0, 0, 20 }, keys[3][2], "b" .. i)
      assert_rot(c, "b" .. i, t, qaxis(3, 20))
    end
    local got = {}
    for _, snd in ipairs(c:sounds()) do got[#got + 1] = snd.sound end
    local want = {}
    for i = 1, 24 do want[#want + 1] = "first" .. i; want[#want + 1] = "second" .. i end
    assert.are.same(want, got)
  end)
end)

describe("Blockbench import: .bbmodel keys the data lacks (synthetic)", function()
  local function bb(keys, extra)
    local a = { name = "a", loop = "once", length = 2, animators = { u = { name = "b", type = "bone", keyframes = keys } } }
    for k, v in pairs(extra or {}) do a.animators[k] = v end
    return decode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { a },
    }
  end

  -- x(u) = t for a cubic bezier from (t0, v0) with control points, by bisection
  local function bezier(p, t)
    local function cub(a, b, c, d, u) local w = 1 - u return a * w ^ 3 + 3 * b * u * w * w + 3 * c * u * u * w + d * u ^ 3 end
    local lo, hi = 0, 1
    for _ = 1, 100 do
      local m = (lo + hi) / 2
      if cub(p[1][1], p[2][1], p[3][1], p[4][1], m) < t then lo = m else hi = m end
    end
    return cub(p[1][2], p[2][2], p[3][2], p[4][2], lo)
  end

  it("bezier handles whose times agree on the moving axes are exact", function()
    local c = assert(bb {
      { channel = "rotation", time = 0, interpolation = "bezier", data_points = { { x = 0, y = 0, z = 0 } },
        bezier_right_time = { 0.2, 0.7, 0.1 }, bezier_right_value = { 10, 0, 0 } },
      { channel = "rotation", time = 1, interpolation = "bezier", data_points = { { x = 90, y = 0, z = 0 } },
        bezier_left_time = { -0.3, -0.1, -0.9 }, bezier_left_value = { -20, 0, 0 } },
    }).a
    -- y and z stay 0 whatever their handle times say; x: (0,0) (0.2,10) (0.7,70) (1,90)
    for _, t in ipairs { 0.1, 0.5, 0.8 } do
      assert_rot(c, "b", t, qaxis(1, bezier({ { 0, 0 }, { 0.2, 10 }, { 0.7, 70 }, { 1, 90 } }, t)), 1e-6)
    end
    assert.is_nil(core.clip_info(c).approx)
    local keys = source(c).joints.b.rotation
    assert.are.same({ 0, { 0, 0, 0 }, "bezier", { out = { 0.2, { 10, 0, 0 } } } }, keys[1])
    assert.are.same({ 1, { 90, 0, 0 }, "linear", { ["in"] = { -0.3, { -20, 0, 0 } } } }, keys[2])
  end)

  it("bezier handles longer than the segment are clamped in time, not scaled", function()
    local c = assert(bb {
      { channel = "position", time = 0, interpolation = "bezier", data_points = { { x = 0, y = 0, z = 0 } },
        bezier_right_time = { 2, 2, 2 }, bezier_right_value = { 0, 16, 0 } },
      { channel = "position", time = 1, interpolation = "linear", data_points = { { x = 0, y = 16, z = 0 } } },
    }).a
    -- (0,0) (1,16) (1 - 0.1, 16) (1,16): the left handle of a linear key is its default -0.1 s
    assert_vec(c, "b", "position", 0.5, { 0, bezier({ { 0, 0 }, { 1, 16 }, { 0.9, 16 }, { 1, 16 } }, 0.5) / 16, 0 }, 1e-9)
  end)

  it("bezier handle times that differ between moving axes are kept, a time per axis", function()
    local c = assert(bb {
      { channel = "rotation", time = 0, interpolation = "bezier", data_points = { { x = 0, y = 0, z = 0 } },
        bezier_right_time = { 0.2, 1.6, 0.1 }, bezier_right_value = { 10, 30, 0 } },
      { channel = "rotation", time = 1, interpolation = "bezier", data_points = { { x = 90, y = 45, z = 0 } } },
    }).a
    -- y's handle (1.6 s) is clamped to the 1 s segment, its value kept
    for i = 1, 19 do
      local t = i / 20
      local x = bezier({ { 0, 0 }, { 0.2, 10 }, { 0.9, 90 }, { 1, 90 } }, t)
      local y = bezier({ { 0, 0 }, { 1, 30 }, { 0.9, 45 }, { 1, 45 } }, t)
      assert_rot(c, "b", t, zyx(x, y, 0), 1e-9)
    end
    assert.is_nil(core.clip_info(c).approx)
    local keys = source(c).joints.b.rotation
    assert.are.same({ 0, { 0, 0, 0 }, "bezier", { out = { { 0.2, 1, 0.1 }, { 10, 30, 0 } } } }, keys[1])
  end)

  it("bezier handle values move an axis keyed 0 at both ends: the rest then bakes", function()
    -- rest (45, 0, 45); x keyed 0 -> 90, z keyed 0 at both ends but with
    -- handle values of 40: z rises to 30 in between.  R(rest)·R(angles) is
    -- not R(rest + angles) once z moves, so this is no "x only" channel.
    local c = assert(decode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 }, rotation = { 45, 0, 45 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 1, animators = { u = { name = "b", keyframes = {
        { channel = "rotation", time = 0, interpolation = "bezier", data_points = { { x = 0, y = 0, z = 0 } },
          bezier_right_time = { 0.3, 0.3, 0.3 }, bezier_right_value = { 0, 0, 40 } },
        { channel = "rotation", time = 1, interpolation = "bezier", data_points = { { x = 90, y = 0, z = 0 } },
          bezier_left_time = { -0.3, -0.3, -0.3 }, bezier_left_value = { 0, 0, 40 } },
      } } } } },
    }).a
    for i = 0, 40 do
      local t = i / 40
      local x = bezier({ { 0, 0 }, { 0.3, 0 }, { 0.7, 90 }, { 1, 90 } }, t)
      local z = bezier({ { 0, 0 }, { 0.3, 40 }, { 0.7, 40 }, { 1, 0 } }, t)
      local d = qangle(world_rotation(c, "b", t), zyx(45 + x, 0, 45 + z))
      assert(d <= 0.01, string.format("t=%g: %.4g degrees from Blockbench", t, d))
    end
    assert.are.equal(4, #source(c).joints.b.rotation[1][2]) -- quaternion keys
    assert.truthy(core.clip_info(c).approx.note:find("b.rotation baked for rest rotation", 1, true))
  end)

  it("reads blend_weight, start_delay, loop_delay and anim_time_update as the Bedrock reader does", function()
    local function doc(fields)
      local a = { name = "a", length = 1, animators = { u = { name = "b", keyframes = {
        { channel = "rotation", time = 0, data_points = { { x = 0, y = 0, z = 10 } } } } } } }
      for k, v in pairs(fields) do a[k] = v end
      return {
        meta = { format_version = "5.0" },
        groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
        outliner = { { uuid = "u", children = {} } },
        animations = { a },
      }
    end
    -- Blockbench writes "" for each when unused
    local c = assert(decode(doc { blend_weight = "", start_delay = "", loop_delay = "", anim_time_update = "" })).a
    assert.is_nil(source(c).joints.b.weight)
    c = assert(decode(doc { blend_weight = "0.5", start_delay = "0", anim_time_update = "q.anim_time + q.delta_time" })).a
    assert.are.equal(0.5, source(c).joints.b.weight)
    local CASES = {
      { { blend_weight = "2" }, "animations[1].blend_weight", "animation 'a': blend_weight 2 read as 1 (a joint's weight is at most 1)" },
      { { blend_weight = "q.anim_time" }, "animations[1].blend_weight",
        "animation 'a': blend_weight 'q.anim_time' depends on the game: the clip plays at full weight" },
      { { start_delay = "0.5" }, "animations[1].start_delay",
        "animation 'a': start_delay '0.5' is not followed: a clip has no delays (Blockbench's preview ignores it too)" },
      { { loop_delay = "1" }, "animations[1].loop_delay",
        "animation 'a': loop_delay '1' is not followed: a clip has no delays (Blockbench's preview ignores it too)" },
      { { anim_time_update = "q.anim_time + q.delta_time * v.x" }, "animations[1].anim_time_update",
        "animation 'a': anim_time_update 'q.anim_time + q.delta_time * v.x' is not followed: the clip's time runs at the"
        .. " animation's speed (as Blockbench previews it)" },
    }
    for _, case in ipairs(CASES) do
      local clips, w = decode(doc(case[1]))
      assert.is_true(anim.is_clip(clips.a))
      assert.are.same({ { animation = "a", channel = case[2], message = case[3] } }, w)
    end
  end)

  it("keeps every field of a particle key, bind_to_actor included", function()
    local c = assert(bb({}, { effects = { name = "Effects", type = "effect", keyframes = {
      { channel = "particle", time = 1, data_points = {
        { effect = "smoke", locator = "head", script = "v.x = 1;", file = "smoke.json", bind_to_actor = false },
        { effect = "spark", bind_to_actor = true },
      } },
    } } })).a
    assert.are.same({
      { time = 1, name = "particle", on = "both",
        payload = { effect = "smoke", locator = "head", script = "v.x = 1;", file = "smoke.json", bind_to_actor = false } },
      { time = 1, name = "particle", on = "both", payload = { effect = "spark", bind_to_actor = true } },
    }, c:events())
  end)

  it("step keys and two data points (a jump)", function()
    local c = assert(bb {
      { channel = "position", time = 0, interpolation = "step", data_points = { { x = 0, y = 16, z = 0 } } },
      { channel = "position", time = 1, data_points = { { x = 0, y = 32, z = 0 }, { x = 0, y = 0, z = 0 } } },
      { channel = "position", time = 2, data_points = { { x = 0, y = 16, z = 0 } } },
    }).a
    assert_vec(c, "b", "position", 0.99, { 0, 1, 0 })
    assert_vec(c, "b", "position", 1, { 0, 0, 0 })
    assert_vec(c, "b", "position", 1.5, { 0, 0.5, 0 })
  end)

  it("an effects animator gives sounds and events", function()
    local c = assert(bb({}, { effects = { name = "Effects", type = "effect", keyframes = {
      { channel = "sound", time = 0.5, data_points = { { effect = "step", file = "" } } },
      { channel = "particle", time = 1, data_points = { { effect = "smoke", locator = "head", script = "" } } },
      { channel = "timeline", time = 1.5, data_points = { { script = "v.x = 1;" } } },
    } } })).a
    assert.are.same({ { time = 0.5, sound = "step", volume = 1, pitch = 1 } }, c:sounds())
    assert.are.same({
      { time = 1, name = "particle", on = "both", payload = { effect = "smoke", locator = "head", script = "" } },
      { time = 1.5, name = "timeline", on = "both", payload = { script = "v.x = 1;" } },
    }, c:events())
  end)

  it("an animator with quaternion_interpolation slerps whole rotations: exact quaternion keys", function()
    local c = assert(decode {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 }, rotation = { 20, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 1, animators = { u = { name = "b", quaternion_interpolation = true, keyframes = {
        { channel = "rotation", time = 0, data_points = { { x = 0, y = 0, z = 0 } } },
        { channel = "rotation", time = 1, data_points = { { x = 70, y = 90, z = 0 } } },
      } } } } },
    }).a
    -- Blockbench: slerp(R(20, 0, 0), R(90, 90, 0), s) (rest + angles at each key).
    -- Half way that is the rotation half way along the arc between them.
    local A, B = zyx(20, 0, 0), zyx(90, 90, 0)
    local d = qmul({ -A[1], -A[2], -A[3], A[4] }, B) -- A^-1 B, a turn of angle th about n
    local th = 2 * math.acos(d[4])
    local n = math.sin(th / 2)
    local half = { d[1] / n * math.sin(th / 4), d[2] / n * math.sin(th / 4), d[3] / n * math.sin(th / 4), math.cos(th / 4) }
    assert.is_true(qangle(world_rotation(c, "b", 0.5), qmul(A, half)) < 1e-9)
    assert.is_true(qangle(world_rotation(c, "b", 1), B) < 1e-9)
    assert.is_nil(core.clip_info(c).approx)
    assert.are.equal(4, #source(c).joints.b.rotation[2][2])
  end)

  it("animators keyed by bone name and pre-3.7 keyframe lists", function()
    local c = assert(decode {
      meta = { format_version = "3.6" },
      outliner = { { name = "Head", uuid = "h", origin = { 0, 24, 0 }, children = {} } },
      animations = { { name = "a", length = 1, bones = { head = {
        { channel = "rotation", time = 0, data_points = { { x = 10, y = 0, z = 0 } } },
      } } } },
    }).a
    assert.are.same({ "Head" }, c:joints())
    assert_rot(c, "Head", 0, qaxis(1, -10))
  end)
end)

-- Refusals and bad input ------------------------------------------------------------------

describe("Blockbench import: messages", function()
  local function bbdoc(kf, more)
    local d = {
      meta = { format_version = "5.0" },
      groups = { { name = "b", uuid = "u", origin = { 0, 0, 0 } } },
      outliner = { { uuid = "u", children = {} } },
      animations = { { name = "a", length = 1, animators = { u = { name = "b", keyframes = { kf } } } } },
    }
    for k, v in pairs(more or {}) do d[k] = v end
    return d
  end
  local function kf(dp, extra)
    local k = { channel = "rotation", time = 0, data_points = { dp } }
    for a, v in pairs(extra or {}) do k[a] = v end
    return k
  end
  local P = 'animations[1].animators.u.keyframes[1]'
  -- kind: "file" (nil, message), "refused" (the animation is not
  -- imported: a warning "not imported: ..." at the path), "warned" (the
  -- animation is imported, with this warning at the path; animation = nil
  -- for one about the file as a whole)
  local CASES = {
    { "a variable in a .bbmodel key (read as 0)", bbdoc(kf { x = "v.speed * 2", y = 0, z = 0 }), "warned",
      "f: animations[1].animators.u.keyframes: animation 'a', bone 'b', rotation: variable.speed read as 0 (unknown here:"
        .. " the game gives it; options.molang.variables can)" },
    { "another query in a Bedrock channel (life_time follows the time)",
      bedrock { walk = { bones = { leg = { rotation = { "q.life_time * 10", 0, 0 } } } } }, "warned",
      "f: animations.walk.bones.leg.rotation: animation 'walk', bone 'leg', rotation: query.life_time read as the"
        .. " animation's time (as Blockbench previews it)", "walk" },
    { "Molang that is not an expression", bedrock { walk = { bones = { leg = { position = { 0, "1 +", 0 } } } } }, "refused",
      "f: animations.walk.bones.leg.position[2]: animation 'walk', bone 'leg', position y: cannot import Molang "
        .. "'1 +': not an expression (stopped at column 3, '+')", "walk" },
    { "a constant that is not finite", bedrock { walk = { bones = { leg = { position = { 0, "1/0", 0 } } } } }, "refused",
      "f: animations.walk.bones.leg.position[2]: animation 'walk', bone 'leg', position y: Molang '1/0' evaluates to inf",
      "walk" },
    { "Molang of time that is not finite", bedrock { walk = { bones = { leg = { position = { 0, "1/math.sin(q.anim_time*360)", 0 } } } } },
      "refused", "f: animations.walk.bones.leg.position[2]: animation 'walk', bone 'leg', position y: Molang "
        .. "'1/math.sin(q.anim_time*360)' evaluates to inf at query.anim_time = 0", "walk" },
    { "a number too large", '{"animations": {"w": {"bones": {"b": {"scale": [1e999, 1, 1]}}}}}', "refused",
      "f: animations.w.bones.b.scale[1]: animation 'w', bone 'b', scale x: value must be a finite number, got inf", "w" },
    { "a value of the wrong type (the default, as Blockbench)", bedrock { w = { bones = { b = { scale = { true, 1, 1 } } } } },
      "warned", "f: animations.w.bones.b.scale: animation 'w', bone 'b', scale: a value that is boolean read as 1 (as"
        .. " Blockbench reads what is neither a number nor a string)" },
    { "a channel array of two (the missing axis is the default)", bedrock { w = { bones = { b = { scale = { 1, 1 } } } } },
      "warned", "f: animations.w.bones.b.scale: animation 'w', bone 'b', scale: a value of 2 numbers: the axes it lacks"
        .. " read as the channel's default (as Blockbench reads it)" },
    { "a channel value of another type", bedrock { w = { bones = { b = { scale = true } } } }, "refused",
      "f: animations.w.bones.b.scale: animation 'w', bone 'b', scale: value must be [x, y, z], a number or a Molang"
        .. " string, got boolean" },
    { "a key object of neither shape", bedrock { w = { bones = { b = { scale = { ["0.5"] = { value = 1 } } } } } }, "refused",
      "f: animations.w.bones.b.scale[\"0.5\"]: animation 'w', bone 'b', scale: a key must be [x, y, z], a number, "
        .. "a Molang string, {\"pre\", \"post\"} or {\"vector\"}" },
    { "a time that is not a number", bedrock { w = { bones = { b = { scale = { soon = { 1, 1, 1 } } } } } }, "refused",
      "f: animations.w.bones.b.scale.soon: animation 'w', bone 'b', scale: key time must be a number in a string like \"0.5\", got 'soon'" },
    { "an unknown lerp_mode", bedrock { w = { bones = { b = { scale = { ["0"] = { post = 1, lerp_mode = "bezier" } } } } } }, "refused",
      "f: animations.w.bones.b.scale[\"0\"].lerp_mode: animation 'w', bone 'b', scale: unknown lerp_mode 'bezier' (expected linear or catmullrom)" },
    { "an easing that is not a string", bedrock { w = { bones = { b = { scale = { ["0"] = { vector = { 1, 1, 1 }, easing = 3 } } } } } }, "refused",
      "f: animations.w.bones.b.scale[\"0\"].easing: easing must be a string, got number" },
    { "easingArgs that are not an array", bedrock { w = { bones = { b = { scale = { ["0"] = { vector = { 1, 1, 1 }, easing = "easeInBack", easingArgs = 2 } } } } } },
      "refused", "f: animations.w.bones.b.scale[\"0\"].easingArgs: easingArgs must be an array, got number" },
    { "an easing argument that changes", bedrock { w = { bones = { b = { scale = { ["0"] = { vector = { 1, 1, 1 }, easing = "easeInBack", easingArgs = { "q.anim_time" } } } } } } },
      "refused", "f: animations.w.bones.b.scale[\"0\"].easingArgs[1]: animation 'w', bone 'b', scale: easing argument must be a constant number, got 'q.anim_time'" },
    { "relative_to (read as relative to the parent)", bedrock { w = { bones = { b = { rotation = { 0, 0, 0 }, relative_to = { rotation = "entity" } } } } },
      "warned", "f: animations.w.bones.b.relative_to: animation 'w', bone 'b': relative_to is not followed: the clip's"
        .. " rotations are relative to the parent joint" },
    { "anim_time_update of distance", bedrock { w = { anim_time_update = "query.modified_distance_moved" } }, "warned",
      "f: animations.w.anim_time_update: animation 'w': anim_time_update 'query.modified_distance_moved' is not"
        .. " followed: the clip's time runs at the animation's speed (as Blockbench previews it)" },
    { "a blend_weight above 1", bedrock { w = { blend_weight = 2 } }, "warned",
      "f: animations.w.blend_weight: animation 'w': blend_weight 2 read as 1 (a joint's weight is at most 1)" },
    { "a blend_weight that changes", bedrock { w = { blend_weight = "q.anim_time" } }, "warned",
      "f: animations.w.blend_weight: animation 'w': blend_weight 'q.anim_time' depends on the game: the clip plays at full weight" },
    { "a blend_weight of a variable", bedrock { w = { blend_weight = "v.weight" } }, "warned",
      "f: animations.w.blend_weight: animation 'w': blend_weight 'v.weight' depends on the game: the clip plays at full weight" },
    { "a start_delay", bedrock { w = { start_delay = 0.5 } }, "warned",
      "f: animations.w.start_delay: animation 'w': start_delay 0.5 is not followed: a clip has no delays (Blockbench's"
        .. " preview ignores it too)" },
    { "a loop_delay of Molang", bedrock { w = { loop = true, loop_delay = "math.random(1, 2)" } }, "warned",
      "f: animations.w.loop_delay: animation 'w': loop_delay 'math.random(1, 2)' is not followed: a clip has no delays"
        .. " (Blockbench's preview ignores it too)" },
    { "a negative animation_length", bedrock { w = { animation_length = -1 } }, "refused",
      "f: animations.w.animation_length: animation_length must be >= 0" },
    { "a sound effect without effect", bedrock { w = { sound_effects = { ["0"] = { sound = "x" } } } }, "refused",
      "f: animations.w.sound_effects[\"0\"].effect: sound effect name must be a string, got nil" },
    { "a particle effect without effect", bedrock { w = { particle_effects = { ["0"] = { locator = "x" } } } }, "refused",
      "f: animations.w.particle_effects[\"0\"].effect: particle effect name must be a string, got nil" },
    { "a timeline entry that is not a string", bedrock { w = { timeline = { ["0"] = 5 } } }, "refused",
      "f: animations.w.timeline[\"0\"]: timeline script must be a string, got number" },
    { "an effect time that is not a number", bedrock { w = { timeline = { later = "v.x = 1;" } } }, "refused",
      "f: animations.w.timeline.later: animation 'w': time must be a number in a string like \"0.5\", got 'later'" },
    { "animation controllers", { format_version = "1.10.0", animation_controllers = {} }, "file",
      "f: animation_controllers: animation controllers are state machines, not animations: nothing to import" },
    { "neither kind of file", { hello = 1 }, "file", "f: not a Bedrock animation file: no 'animations'" },
    { "not an object", "[1, 2]", "file",
      "f: expected a Blockbench project or a Bedrock animation file (a JSON object), got array" },
    { "not JSON", "{", "file", nil },
    { "rotation_global (read as relative to the parent)", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].animators.u.rotation_global = true
      return d
    end)(), "warned", "f: animations[1].animators.u.rotation_global: animation 'a', bone 'b': rotation_global is not"
      .. " followed: the clip's rotations are relative to the parent joint" },
    { "an unknown interpolation", bbdoc(kf({ x = 0, y = 0, z = 0 }, { interpolation = "smooth" })), "refused",
      "f: " .. P .. ".interpolation: animation 'a', bone 'b': unknown interpolation 'smooth' (expected linear, catmullrom, bezier or step)" },
    { "three data points (the first and the last play)", bbdoc { channel = "rotation", time = 0, data_points = { {}, {}, {} } },
      "warned", "f: animations[1].animators.u.keyframes: animation 'a', bone 'b', rotation: a keyframe at 0 s has 3 data"
        .. " points: the first and the last are played (as Blockbench plays them)" },
    { "a sound keyframe without a sound", bbdoc { channel = "sound", time = 0, data_points = { { effect = "" } } }, "refused",
      "f: " .. P .. ".data_points[1]: animation 'a', effects: a sound keyframe needs an 'effect' (or a 'file')" },
    { "a keyframe time that is not a number", bbdoc { channel = "rotation", time = "soon", data_points = { {} } }, "refused",
      "f: " .. P .. ".time: time must be a finite number, got string" },
    { "an outliner uuid without a group", bbdoc(kf { x = 0 }, { outliner = { { uuid = "nope" } } }), "warned",
      "f: outliner[1]: outliner entry 'nope' names no group in 'groups': skipped, with what it holds", nil, "file" },
    { "an outliner entry of the wrong type", bbdoc(kf { x = 0 }, { outliner = { 5 } }), "warned",
      "f: outliner[1]: outliner entry must be a group or an element uuid, got number (the bone hierarchy cannot be"
        .. " read: the clips have no skeleton)", nil, "file" },
    { "two groups with one name", bbdoc(kf { x = 0 }, { outliner = { { name = "b", uuid = "u" }, { name = "b", uuid = "v" } }, groups = cjson.empty_array }),
      "warned", "f: outliner[2].name: two groups are named 'b': this one is joint 'b#2'", nil, "file" },
    { "a group origin of two numbers", bbdoc(kf { x = 0 }, { outliner = { { name = "b", uuid = "u", origin = { 1, 2 } } } }),
      "warned", "f: outliner[1].origin: origin must be [x, y, z], got an array of 2 (the bone hierarchy cannot be"
        .. " read: the clips have no skeleton)", nil, "file" },
    { "two animations with one name", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[2] = { name = "a", length = 1 }
      return d
    end)(), "warned", "f: animations[2].name: two animations are named 'a': this one is 'a#2'", nil, "file" },
    { "a format_version of the wrong type", bbdoc(kf { x = 0 }, { meta = { format_version = true } }), "warned",
      "f: meta.format_version: format_version must be a version like \"5.0\", got boolean: read as before 5.0", nil, "file" },
    { "a negative length", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].length = -2
      return d
    end)(), "refused", "f: animations[1].length: length must be >= 0" },
    -- the shapes every field must have
    { "animations that are not an object", { animations = 5 }, "file",
      "f: animations: animations must be an object, got number" },
    { "an animation that is not an object", bedrock { w = 5 }, "refused",
      "f: animations.w: animation must be an object, got number" },
    { "an animation_length that is not a number (absent, as Blockbench)", bedrock { w = { animation_length = "long" } }, "warned",
      "f: animations.w.animation_length: animation 'w': animation_length 'long' is not a number: read as absent (as"
        .. " Blockbench reads it)" },
    { "bones that are not an object", bedrock { w = { bones = { 1, 2 } } }, "refused",
      "f: animations.w.bones: bones must be an object, got array" },
    { "a bone that is not an object", bedrock { w = { bones = { b = 5 } } }, "refused",
      "f: animations.w.bones.b: bone must be an object, got number" },
    { "an easing argument that is not Molang", bedrock { w = { bones = { b = { scale = { ["0"] = { vector = { 1, 1, 1 }, easing = "easeInBack", easingArgs = { "1 +" } } } } } } },
      "refused", "f: animations.w.bones.b.scale[\"0\"].easingArgs[1]: animation 'w', bone 'b', scale: cannot import Molang '1 +': "
        .. "not an expression (stopped at column 3, '+')" },
    { "sound_effects that are not an object", bedrock { w = { sound_effects = 5 } }, "refused",
      "f: animations.w.sound_effects: sound_effects must be an object, got number" },
    { "a sound effect that is not an object", bedrock { w = { sound_effects = { ["0"] = "boom" } } }, "refused",
      "f: animations.w.sound_effects[\"0\"]: sound effect must be an object, got string" },
    { "a particle effect that is not an object", bedrock { w = { particle_effects = { ["0"] = 1 } } }, "refused",
      "f: animations.w.particle_effects[\"0\"]: particle effect must be an object, got number" },
    { "meta that is not an object", bbdoc(kf { x = 0 }, { meta = 5 }), "warned",
      "f: meta: meta must be an object, got number: read as absent (format before 5.0)", nil, "file" },
    { "groups that are not an array", bbdoc(kf { x = 0 }, { groups = 5 }), "warned",
      "f: groups: groups must be an array, got number (the bone hierarchy cannot be read: the clips have no skeleton)",
      nil, "file" },
    { "a group that is not an object", bbdoc(kf { x = 0 }, { groups = { 5 } }), "warned",
      "f: groups[1]: group must be an object, got number (the bone hierarchy cannot be read: the clips have no skeleton)",
      nil, "file" },
    { "a group without a name", bbdoc(kf { x = 0 }, { outliner = { { uuid = "u", name = true } } }), "warned",
      "f: outliner[1].name: group name must be a string, got boolean (the bone hierarchy cannot be read: the clips have"
        .. " no skeleton)", nil, "file" },
    { "outliner children that are not an array", bbdoc(kf { x = 0 }, { outliner = { { name = "b", uuid = "u", children = 5 } } }),
      "warned", "f: outliner[1].children: outliner children must be an array, got number (the bone hierarchy cannot be"
        .. " read: the clips have no skeleton)", nil, "file" },
    { "animations that are not an array", bbdoc(kf { x = 0 }, { animations = { x = 1 } }), "file",
      "f: animations: animations must be an array, got object" },
    { "an animation without a name", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].name = nil
      return d
    end)(), "refused", "f: animations[1].name: animation name must be a string, got nil", false },
    { "a length that is not a number", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].length = "long"
      return d
    end)(), "warned", "f: animations[1].length: animation 'a': length 'long' is not a number: read as absent (as"
      .. " Blockbench reads it)" },
    { "animators that are not an object", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].animators = 5
      return d
    end)(), "refused", "f: animations[1].animators: animators must be an object, got number" },
    { "an animator that is not an object", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].animators.u = 5
      return d
    end)(), "refused", "f: animations[1].animators.u: animator must be an object, got number" },
    { "keyframes that are not an array", (function()
      local d = bbdoc(kf { x = 0 })
      d.animations[1].animators.u.keyframes = 5
      return d
    end)(), "refused", "f: animations[1].animators.u.keyframes: keyframes must be an array, got number" },
    { "a keyframe that is not an object", bbdoc(5), "refused", "f: " .. P .. ": keyframe must be an object, got number" },
    { "data_points that are not an array", bbdoc { channel = "rotation", time = 0, data_points = 5 }, "refused",
      "f: " .. P .. ".data_points: data_points must be an array, got number" },
    { "a data point that is not an object", bbdoc { channel = "rotation", time = 0, data_points = { 5 } }, "refused",
      "f: " .. P .. ".data_points[1]: data point must be an object, got number" },
    { "a bezier handle of two numbers", bbdoc(kf({ x = 0 }, { bezier_left_time = { 1, 2 } })), "refused",
      "f: " .. P .. ".bezier_left_time: bezier_left_time must be [x, y, z], got an array of 2" },
    { "an effect field that is not a string", bbdoc { channel = "particle", time = 0, data_points = { { effect = 5 } } },
      "refused", "f: " .. P .. ".data_points[1].effect: effect must be a string, got number" },
  }
  for _, case in ipairs(CASES) do
    it(case[1], function()
      local clips, w = decode(case[2], "f")
      local kind, want = case[3], case[4]
      if kind == "file" then
        assert.is_nil(clips)
        if want then assert.are.equal(want, w) else assert.truthy(w:match("^f: not valid JSON"), w) end
        return
      end
      assert.are.equal("table", type(clips), tostring(w))
      local path, msg = want:match("^f: (.-): (.*)$")
      if not path then path, msg = nil, want:match("^f: (.*)$") end
      local name = case[5]
      if name == nil then name = case[2].animations and (case[2].animations.w and "w" or "a") end
      if name == false then name = nil end
      local who = name
      if case[6] == "file" then who = nil end
      local found
      for _, x in ipairs(w) do
        if x.message == (kind == "refused" and "not imported: " .. msg or msg) then found = x end
      end
      assert(found, "no warning '" .. msg .. "' among:\n" .. (function()
        local t = {}
        for _, x in ipairs(w) do t[#t + 1] = tostring(x.channel) .. ": " .. x.message end
        return table.concat(t, "\n")
      end)())
      assert.are.equal(path, found.channel)
      assert.are.equal(who, found.animation)
      if kind == "refused" then
        if name then assert.is_nil(clips[name]) end
        assert.is_nil(next(clips), "the animation was refused: no clip")
      else
        assert.is_true(anim.is_clip(clips[name]), "the animation is imported")
      end
    end)
  end

  it("reads keyframes of other channels as events named after them (Animated Java's variant and function keys)", function()
    local d = bbdoc { channel = "colour", time = 0.5, data_points = { { x = "1", tint = "red" } } }
    d.animations[1].animators.effects = { type = "effect", keyframes = {
      { channel = "variant", time = 0.25, data_points = { { variant = "f00-uuid", execute_condition = "" } } },
      { channel = "function", time = 0.75, data_points = { { ["function"] = "say hi", execute_condition = "" } } },
    } }
    local clips, w = decode(d, "f")
    assert.are.same({}, w)
    assert.are.same({
      { time = 0.25, name = "variant", payload = { variant = "f00-uuid", execute_condition = "" }, on = "both" },
      { time = 0.5, name = "colour", payload = { x = "1", tint = "red", bone = "b" }, on = "both" },
      { time = 0.75, name = "function", payload = { ["function"] = "say hi", execute_condition = "" }, on = "both" },
    }, clips.a:events())
  end)

  it("names the file when it cannot be read", function()
    local clips, err = anim.import_blockbench("/nonexistent/x.bbmodel")
    assert.is_nil(clips)
    assert.truthy(err:match("^/nonexistent/x%.bbmodel: cannot open file"), err)
  end)

  it("checks its arguments", function()
    assert.has_error(function() anim.import_blockbench(5) end,
      "bad argument #1 to 'import_blockbench' (string expected, got number)")
    assert.has_error(function() anim.decode_blockbench({}) end,
      "bad argument #1 to 'decode_blockbench' (string expected, got table)")
    assert.has_error(function() anim.decode_blockbench("{}", 5) end,
      "bad argument #2 to 'decode_blockbench' (string expected, got number)")
  end)
end)

-- Converting -------------------------------------------------------------------------------

describe("Blockbench import: anim.encode of imported clips", function()
  -- The encoder writes the clip's table; re-imported, the clip samples the
  -- same (the baking happened at import, so the file says exactly what the
  -- imported clip plays).
  for _, f in ipairs(FILES) do
    it("re-imports " .. f .. " to the same samples", function()
      for name, c in pairs(import(f)) do
        local text, approx = anim.encode(c)
        assert(text, approx)
        assert.are.equal(core.clip_info(c).approx, approx)
        local back = assert(anim.decode(text, name))
        assert.are.equal(c.length, back.length)
        assert.are.equal(c.loop, back.loop)
        assert.are.same(c:sounds(), back:sounds())
        assert.are.same(c:events(), back:events())
        for i = 0, 200 do
          local t = c.length * i / 200
          local a, b = c:sample(t), back:sample(t)
          for j, p in pairs(a) do
            for ch, v in pairs(p) do
              for k = 1, #v do
                assert(v[k] == b[j][ch][k], string.format("%s %s.%s at %g: %.17g vs %.17g", name, j, ch, t, v[k], b[j][ch][k]))
              end
            end
          end
        end
      end
    end)
  end
end)
