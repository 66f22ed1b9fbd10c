-- Retargeting (SEMANTICS 8): retarget maps, name resolution and guessing,
-- rest-rotation carry-over checked on world transforms, scale, masks.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end

local qmul, rotate = H.qmul, H.qrotate
local function axis_quat(x, y, z, deg)
  local h = math.rad(deg) / 2
  return { x * math.sin(h), y * math.sin(h), z * math.sin(h), math.cos(h) }
end

local function world(a, joint)
  local w = { a:world_transform(joint) }
  return { w[1], w[2], w[3] }, { w[4], w[5], w[6], w[7] }
end

describe("retarget maps", function()
  it("decode a version 1 file: plain names, empty names, { to, source, target }, scale", function()
    local m = assert(anim.decode_retarget([[{
      "version": 1, "source": "res://models/knight.bbmodel", "target": "res://models/goblin.bbmodel",
      "scale": 0.8,
      "joints": { "Body": "spine", "LeftArm": { "to": "arm_l", "source": [0, 0, 0], "target": [0, 0, -90] }, "Cape": "" } }]],
      "knight.retarget"))
    assert.are.equal(0.8, m.scale)
    assert.are.same({ Body = "spine", LeftArm = "arm_l", Cape = "" }, m.joints)
    assert.are.equal("knight.retarget", m.name)
  end)

  it("load from a file", function()
    local dir = H.tmpdir()
    H.write(dir .. "/a.retarget", [[{"version": 1, "joints": {"x": "y"}}]])
    local m = assert(anim.load_retarget(dir .. "/a.retarget"))
    assert.are.same({ x = "y" }, m.joints)
    local _, err = anim.load_retarget(dir .. "/missing.retarget")
    assert.truthy(err:find(dir .. "/missing.retarget: cannot open file", 1, true))
  end)

  it("refuse bad files with the JSON path", function()
    local function err(text) return select(2, anim.decode_retarget(text, "m.retarget")) end
    assert.are.equal("m.retarget: version: unknown version 2 (expected 1)", err [[{"version": 2, "joints": {}}]])
    assert.are.equal("m.retarget: version: missing (expected 1)", err [[{"joints": {}}]])
    assert.are.equal("m.retarget: scale: scale must be a finite number, got string", err [[{"version": 1, "scale": "big"}]])
    assert.are.equal("m.retarget: joints.a: joint entry must be a rig joint name or { to, source, target }, got number",
      err [[{"version": 1, "joints": {"a": 5}}]])
    assert.are.equal("m.retarget: joints.a.to: to must be a string, got null", err [[{"version": 1, "joints": {"a": {"to": null}}}]])
    assert.are.equal("m.retarget: joints.a.target: rotation must be [x, y, z] degrees or an [x, y, z, w] quaternion, got an array of 2",
      err [[{"version": 1, "joints": {"a": {"to": "b", "target": [1, 2]}}}]])
    assert.truthy(err("{"):find("^m.retarget: not valid JSON"))
    assert.are.equal("m.retarget: joints: joints must be an object, got array", err [[{"version": 1, "joints": ["a"]}]])
    assert.has_error(function() anim.decode_retarget(5) end)
    assert.has_error(function() anim.load_retarget(nil) end)
  end)
end)

describe("name resolution", function()
  local player = anim.rig("player")
  local function clip_of(names, extra)
    local joints = {}
    for _, n in ipairs(names) do joints[n] = { position = { { 0, { 1, 2, 3 } } } } end
    local t = { joints = joints }
    for k, v in pairs(extra or {}) do t[k] = v end
    return assert(anim.clip(t))
  end

  it("guesses left-arm, arm_l, LeftArm -> leftArm and body -> torso", function()
    for _, n in ipairs { "left-arm", "arm_l", "LeftArm", "left_arm", "ARM-L", "leftarm", "LEFTARM", "Leftarm",
      "LeftARM", "left_Arm", "armLeft", "ARMLEFT" } do
      assert.are.same({ joint = "leftArm", by = "guess" }, clip_of { n }:bindings(player)[n])
    end
    for _, n in ipairs { "body", "chest", "upperBody", "Body" } do
      assert.are.same({ joint = "torso", by = "guess" }, clip_of { n }:bindings(player)[n])
    end
    assert.are.same({ joint = "rightLeg", by = "guess" }, clip_of { "r_leg" }:bindings(player).r_leg)
    assert.are.same({ joint = "rightLeg", by = "guess" }, clip_of { "RIGHTLEG" }:bindings(player).RIGHTLEG)
    assert.are.same({ joint = "torso", by = "guess" }, clip_of { "UPPER_BODY" }:bindings(player).UPPER_BODY)
  end)

  it("leaves an ambiguous guess unmatched", function()
    -- two rig joints with the same key
    local r = assert(anim.rig { joints = { { name = "arm_l" }, { name = "ArmL" } } })
    assert.are.same({ by = "unmatched" }, clip_of { "left-arm" }:bindings(r)["left-arm"])
    -- two clip joints guessing one rig joint
    local b = clip_of { "left-arm", "LeftArm" }:bindings(player)
    assert.are.same({ by = "unmatched" }, b["left-arm"])
    assert.are.same({ by = "unmatched" }, b.LeftArm)
    -- no side word: 'arm' is neither arm
    assert.are.same({ by = "unmatched" }, clip_of { "arm" }:bindings(player).arm)
  end)

  it("makes each name's guessing key once (the glTF export resolves a clip several times)", function()
    local bind = require "anim.format.bind"
    local c, guess, calls = clip_of { "arm_L_x1", "BodyX1" }, bind.guess_key, {}
    bind.guess_key = function(n)
      calls[n] = (calls[n] or 0) + 1
      return guess(n)
    end
    local ok, err = pcall(function()
      for _ = 1, 3 do
        local r = bind.resolve(c, player)
        assert.are.same({ by = "unmatched" }, r.arm_L_x1)
      end
    end)
    bind.guess_key = guess
    assert(ok, err)
    assert.are.same(1, calls.arm_L_x1)
    assert.are.same(1, calls.BodyX1)
    -- (the same keys as made afresh: a guess found through the kept ones)
    assert.are.same({ joint = "leftArm", by = "guess" }, clip_of { "ARM-L" }:bindings(player)["ARM-L"])
    assert.are.same({ joint = "leftArm", by = "guess" }, clip_of { "ARM-L" }:bindings(player)["ARM-L"])
  end)

  it("takes the map first, then the clip's retarget field, then the same name, then a guess", function()
    local c = clip_of({ "head", "torso", "body", "left-arm" }, { retarget = { head = "leftLeg", ["left-arm"] = "" } })
    local m = assert(anim.decode_retarget [[{"version": 1, "joints": {"head": "rightArm", "torso": ""}}]])
    local b = c:bindings(player, m)
    assert.are.same({ joint = "rightArm", by = "map" }, b.head)
    assert.are.same({ by = "map" }, b.torso)               -- an empty name: kept still
    assert.are.same({ joint = "torso", by = "guess" }, b.body) -- torso is free: the map kept it off
    assert.are.same({ by = "field" }, b["left-arm"])
    local b2 = c:bindings(player)
    assert.are.same({ joint = "leftLeg", by = "field" }, b2.head)
    assert.are.same({ joint = "torso", by = "same name" }, b2.torso)
    assert.are.same({ by = "unmatched" }, b2.body)          -- torso is taken by its own name
  end)

  it("a map naming a joint the rig lacks leaves the clip joint unmatched", function()
    local m = assert(anim.decode_retarget [[{"version": 1, "joints": {"head": "nope"}}]])
    assert.are.same({ by = "unmatched" }, clip_of { "head" }:bindings(player, m).head)
  end)

  it("checks its arguments", function()
    assert.has_error(function() clip_of { "a" }:bindings("player") end)
    assert.has_error(function() clip_of { "a" }:bindings(player, {}) end)
  end)
end)

describe("playing through a map", function()
  local goblin = assert(anim.rig { joints = {
    { name = "hips", position = { 0, 0.6, 0 } },
    { name = "spine", parent = "hips", position = { 0, 0.6, 0 } },
    { name = "arm_l", parent = "spine", position = { 0.3, 1.1, 0 }, rotation = { 0, 0, -90 } },
    { name = "cape", parent = "spine", position = { 0, 1.1, -0.2 } },
  } })
  local swing = assert(anim.clip({ length = 1, loop = "loop", joints = {
    Body = { position = { { 0, { 0, 0.5, 0 } } } },
    LeftArm = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } } } },
    Cape = { rotation = { { 0, { 45, 0, 0 } } } },
  } }, "swing"))
  local map = assert(anim.decode_retarget [[{"version": 1, "scale": 0.8,
    "joints": {"Body": "spine", "LeftArm": {"to": "arm_l", "source": [0, 0, 0], "target": [0, 0, -90]}, "Cape": ""}}]])

  it("renames joints, scales positions and keeps empty-named joints still", function()
    local a = anim.animator(goblin)
    a:play(swing, { fade = 0, retarget = map })
    a:update(0.5)
    local x, y, z = a:get("spine")
    assert.is_true(near(x, 0) and near(y, 0.4) and near(z, 0)) -- 0.5 * 0.8
    assert.are.same({ false, false, false }, { a:animated("cape") })
    assert.are.same({ false, true, false }, { a:animated("arm_l") })
  end)

  it("carries a turn across a sideways rest as the same turn in the world", function()
    -- on a rig whose arm rests like the clip's (no turn) the swing at t = .5
    -- is 45 degrees about x in the world
    local plain = assert(anim.rig { joints = { { name = "LeftArm", position = { 0.3, 1.1, 0 } } } })
    local a = anim.animator(plain)
    a:play(swing, { fade = 0 })
    a:update(0.5)
    local _, qsrc = world(a, "LeftArm")
    local R = axis_quat(1, 0, 0, 45)
    assert.is_true(H.quatdiff(qsrc, R) < 1e-9)
    -- the goblin's arm rests turned -90 about z; through the map its world
    -- rotation is R * T: the same world turn applied to its rest
    local b = anim.animator(goblin)
    b:play(swing, { fade = 0, retarget = map })
    b:update(0.5)
    local _, qdst = world(b, "arm_l")
    local T = axis_quat(0, 0, 1, -90)
    assert.is_true(H.quatdiff(qdst, qmul(R, T)) < 1e-9)
    -- so the bone's own axis (down its length, local -y) swings as the clip's did
    local rest_dir = rotate(T, { 0, -1, 0 })
    local now = rotate(qdst, { 0, -1, 0 })
    local want = rotate(R, rest_dir)
    assert.is_true(near(now[1], want[1]) and near(now[2], want[2]) and near(now[3], want[3]))
    -- without the carry-over the swing would turn about the bone's own x
    local naive = rotate(qmul(T, R), { 0, -1, 0 })
    assert.is_false(near(naive[3], want[3], 1e-3) and near(naive[1], want[1], 1e-3))
  end)

  it("takes source rests from the clip's skeleton and target rests from the rig", function()
    local c = assert(anim.clip { length = 1, joints = {
      arm = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } } } } },
      skeleton = { root = {}, arm = { parent = "root", rotation = { 0, 0, 0 } } } })
    local r = assert(anim.rig { joints = { { name = "arm", rotation = { 0, 0, -90 } } } })
    local a = anim.animator(r)
    a:play(c, { fade = 0 })
    a:update(0.5)
    local _, q = world(a, "arm")
    assert.is_true(H.quatdiff(q, qmul(axis_quat(1, 0, 0, 45), axis_quat(0, 0, 1, -90))) < 1e-9)
    -- a skeleton rest composed down its parents: the source arm rests turned
    -- 90 about y through its parent; S = Ry(90)
    local c2 = assert(anim.clip { length = 1, joints = {
      arm = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } } } } },
      skeleton = { root = { rotation = { 0, 90, 0 } }, arm = { parent = "root" } } })
    local r2 = assert(anim.rig { joints = { { name = "arm" } } })
    local b = anim.animator(r2)
    b:play(c2, { fade = 0 })
    b:update(0.5)
    local _, q2 = world(b, "arm")
    -- T^-1 S R S^-1 T with T = 1: Ry(90) Rx(45) Ry(-90) = a 45 degree turn about -z... about Ry(90)*x = -z
    local S = axis_quat(0, 1, 0, 90)
    local want = qmul(qmul(S, axis_quat(1, 0, 0, 45)), { -S[1], -S[2], -S[3], S[4] })
    assert.is_true(H.quatdiff(q2, want) < 1e-9)
  end)

  it("masks take either the clip name or the rig name", function()
    for _, mask in ipairs { { "LeftArm" }, { "arm_l" } } do
      local c = assert(anim.clip { mask = mask, joints = {
        LeftArm = { rotation = { { 0, { 10, 0, 0 } } } }, Body = { position = { { 0, { 0, 1, 0 } } } } } })
      local a = anim.animator(goblin)
      a:play(c, { fade = 0, retarget = map })
      a:update(0.1)
      assert.are.same({ false, true, false }, { a:animated("arm_l") })
      assert.are.same({ false, false, false }, { a:animated("spine") })
    end
  end)

  it("resolves a res:// map through the animator's library, and refuses bad retarget options", function()
    local dir = H.tmpdir()
    H.write(dir .. "/g.retarget", [[{"version": 1, "scale": 2, "joints": {"Body": "spine"}}]])
    local a = anim.animator(goblin, { library = assert(anim.library(dir)) })
    a:play(swing, { fade = 0, retarget = "res://g.retarget" })
    a:update(0.1)
    assert.is_true(near((select(2, a:get("spine"))), 1))
    assert.has_error(function() a:play(swing, { retarget = "res://missing.retarget" }) end)
    assert.has_error(function() anim.animator(goblin):play(swing, { retarget = "res://g.retarget" }) end)
    assert.has_error(function() a:play(swing, { retarget = 5 }) end)
  end)

  it("computes the bindings once per clip, rig and map", function()
    local bind = require "anim.format.bind"
    assert.are.equal(bind.get(swing, goblin, map), bind.get(swing, goblin, map))
    assert.are_not.equal(bind.get(swing, goblin, map), bind.get(swing, goblin))
  end)
end)
