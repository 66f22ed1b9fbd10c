-- What the fuzz targets of issue 35 found (fuzz/README.md: state, the
-- blend spaces and reloads of animator and script), each as a plain spec;
-- their inputs are replayed by spec/fuzz_regressions_spec.lua.
local anim = require "anim"

local rig = anim.rig("player")

describe("a state saved after its overrides or constraints were all removed", function()
  -- (fuzz_state: the restored animator wrote overrides_next 1 where the
  -- saved one had 2, so its next override took id 1 where the saved
  -- animator's took 2: the two animators' states parted)
  it("restores their next ids: the restored animator writes the same state, and goes on giving the same ids", function()
    local a = anim.animator(rig)
    a:override("head", { position = { 1, 2, 3 } }):remove()
    a:aim { joint = "rightArm", target = { 1, 1, 1 } }:remove()
    a:update(0.1)
    local s = a:state()
    assert.are.equal("2", s.animator.overrides_next)
    assert.are.equal("1", s.animator.ik_next)
    local b = anim.animator(rig)
    assert(b:restore(s))
    assert.are.same(s, b:state())
    for _, x in ipairs { a, b } do
      x:override("torso", { position = { 0, 1, 0 } })
      x:aim { joint = "head", target = { 0, 2, 1 } }
    end
    assert.are.same(a:state(), b:state())
    assert.are.equal("2", b:state().overrides[1].id)
    assert.are.equal("2", b:state().constraints[1].id)
  end)
end)

describe("a reload of a blend space's first clip", function()
  -- (fuzz_animator: track.length kept the length the first clip had when
  -- the space was made, and the track's time, clamped to the new length,
  -- read outside [0, track.length])
  it("gives the space's tracks the new length", function()
    local function looping(len)
      return { length = len, loop = "loop", joints = { head = { rotation = { { 0, { 0, 0, 0 } }, { len, { 0, 90, 0 } } } } } }
    end
    local first, second = assert(anim.clip(looping(0.5), "first")), assert(anim.clip(looping(0.5), "second"))
    local space = anim.blendspace { points = { { clip = first, at = 0 }, { clip = second, at = 1 } }, sync = false }
    local a = anim.animator(rig)
    local t = a:play(space, { fade = 0 })
    a:update(0.1)
    assert.are.equal(0.5, t.length)
    assert(anim.reload(first, looping(2)))
    assert.are.equal(2, t.length)
    a:update(1.2)
    assert.is_true(t.time > 0.5 and t.time <= t.length, tostring(t.time))
    assert(anim.reload(first, looping(0.25)))
    assert.are.equal(0.25, t.length)
    assert.is_true(t.time >= 0 and t.time <= 0.25, tostring(t.time))
  end)
end)

-- What the fuzz targets of the 2D importers found (issue 40: fuzz_spine,
-- fuzz_atlas, fuzz_dragonbones; fuzz/README.md).
describe("2D importers, fuzzed", function()
  local cjson = require "cjson"
  local function db(animation)
    return cjson.encode { version = "5.5", frameRate = 24, armature = { { name = "a", bone = { { name = "root" } },
      animation = { animation } } } }
  end

  -- (fuzz_dragonbones: playTimes 1e308, a whole number as a double, raised
  -- "number has no integer representation" formatting its warning)
  it("DragonBones: a whole number past 2^53 is refused, naming its path", function()
    for _, field in ipairs { "playTimes", "duration" } do
      local animation = { name = "walk", duration = 4 }
      animation[field] = 1e308
      local r, err = anim.decode_dragonbones(db(animation), "x.json")
      assert.is_nil(r)
      assert.are.equal("x.json: armature[1].animation[1]." .. field .. ": " .. field
        .. " must be a whole number from 0 to 2^53, got 1e+308", err)
    end
    local r, err = anim.decode_dragonbones(db { name = "walk", duration = 4, bone = { { name = "root",
      translateFrame = { { duration = 1e18 }, { duration = 0 } } } } }, "x.json")
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].bone[1].translateFrame[1].duration: duration must be a whole"
      .. " number from 0 to 2^53, got 1e+18", err)
    -- 2^53 itself is a whole number the file may hold
    -- (written out: cjson's 14 digits would round it up)
    local text = db { name = "walk", duration = 4, playTimes = 12345 }:gsub("12345", "9007199254740992")
    assert(anim.decode_dragonbones(text, "x.json"))
  end)

  -- (fuzz_spine: a bone's setup rotation of 1e308 degrees, a finite number,
  -- made rotation * pi overflow to inf, and the rig refused the NaN:
  -- "bones: joints[9].rotation[3]: ... got nan")
  it("2D skeleton: a bone turned 1e308 degrees is made, its rest rotation finite", function()
    local sk = assert(anim.skeleton2d({ bones = { { name = "root" }, { name = "leg", parent = "root", rotation = 1e308,
      scale_x = -1 } } }, "x"))
    local want = math.fmod(1e308, 720) * math.pi / 360
    local leg = sk.rig:joints()[2]
    assert.are.equal("leg", leg.name)
    assert.is_true(math.abs(leg.rotation[3] - math.sin(want)) < 1e-12, tostring(leg.rotation[3]))
    assert.is_true(math.abs(leg.rotation[4] - math.cos(want)) < 1e-12, tostring(leg.rotation[4]))
  end)

  -- (fuzz_dragonbones: an armature without bones imported, and
  -- anim.skeleton2d refused its description: "bones: a skeleton needs at
  -- least one bone")
  it("DragonBones: an armature without bones is refused, naming it", function()
    local r, err = anim.decode_dragonbones(cjson.encode { version = "5.5", armature = { { name = "a", bone = {} } } },
      "x.json")
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].bone: an armature needs at least one bone", err)
  end)
end)
