-- Small exports (issue 41): a channel that holds a dense run of linear keys
-- between keys of other kinds (an importer's bake of Molang between
-- hand-keyed easings, as GeckoLib's files hold) has its runs reduced: the
-- keys inside a run cut within the bound, every other key and each run's
-- two ends written as they were.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local D = require "spec.dense_clips"
local RC = require "anim.export.gltf.reduce_clip"

local dir = H.tmpdir()
local BOUND = { error = 0.001, distance = 0.1 }
local GECKO = H.shared .. "/data/realfiles/geckolib/gecko_habitat.animation.json"

-- A turn on a cone of 10 degrees, half a turn a second, keyed at 60 a second from
-- t0 to t1: a dense run of [t, [x, y, z]] keys.
local function cone(t0, t1, keys)
  for k = 0, math.floor((t1 - t0) * 60 + 0.5) do
    local t = t0 + k / 60
    keys[#keys + 1] = { t, { 10 * math.sin(math.pi * t), 0, 10 * math.cos(math.pi * t) } }
  end
  return keys
end

-- The keys of a channel of clip c's table.
local function keys_of(c, joint, ch)
  return assert(anim.table(c, { version = 3 })).joints[joint][ch]
end

describe("reduced runs in mixed channels", function()
  -- j2's rotation: an eased key, a run (0.5 .. 2.5), a bezier key, a run
  -- (3 .. 4) parted from a third (4 .. 5) by a key marked a breakdown, a
  -- stepped key; j1's position: a whole dense channel
  local function clip_and_rig()
    D.seed(7)
    local skel, rig = D.random_rig(3)
    local rot = { { 0, { 0, 0, 0 }, "sine", { ease = "inOut" } } }
    cone(0.5, 2.5, rot)
    rot[#rot] = { rot[#rot][1], rot[#rot][2], "bezier", { out = { 0.1, { 0, 2, 0 } } } }
    cone(3, 4, rot)
    rot[#rot] = { rot[#rot][1], rot[#rot][2], "linear", { type = "breakdown" } }
    local third = cone(4, 5, {})
    for i = 2, #third do rot[#rot + 1] = third[i] end
    rot[#rot] = { rot[#rot][1], rot[#rot][2], "step" }
    rot[#rot + 1] = { 6, { 0, 5, 0 } }
    local pos = {}
    for k = 0, 360 do pos[#pos + 1] = { k / 60, { 0.1 * math.sin(3 * k / 60), 0, 0 } } end
    local clip = assert(anim.clip { version = 3, length = 6, skeleton = skel,
      joints = { j2 = { rotation = rot }, j1 = { position = pos } } })
    return clip, rig, rot
  end

  it("cut the keys inside each run, keeping every other key and the runs' ends as they were", function()
    local clip, rig, rot = clip_and_rig()
    local small, report = RC.reduce(clip, rig, BOUND)
    assert.are_not.equal(clip, small)
    assert.is_true(report.error <= report.bound, tostring(report.error))
    local out = keys_of(small, "j2", "rotation")
    -- the keys that are not inside a run, as the source wrote them (the
    -- table the clip gives back)
    local src = keys_of(clip, "j2", "rotation")
    assert.are.equal(#rot, #src)
    local kept = {}
    for _, k in ipairs(out) do kept[k[1]] = k end
    for i, k in ipairs(src) do
      if #k > 2 or i == 1 or i == #src then assert.are.same(k, kept[k[1]], "key " .. i) end
    end
    -- the runs' ends (0.5, 3: after a key of another kind) as they were
    assert.are.same(src[2], kept[0.5])
    -- no key written twice, times in order
    for i = 2, #out do assert.is_true(out[i][1] > out[i - 1][1], "key " .. i) end
    -- each run cut: its 121, 61 and 61 keys to a few a turn
    assert.is_true(#out < #src / 3, #out .. " of " .. #src)
    local inside = 0
    for _, k in ipairs(out) do if k[1] > 0.5 and k[1] < 2.5 then inside = inside + 1 end end
    assert.is_true(inside > 8 and inside < 60, tostring(inside))
    -- the whole channel reduced too
    assert.is_true(#keys_of(small, "j1", "position") < 361 / 4)
    -- within the bound in model space, at times between the keys
    local worst = D.model_error(rig, clip, rig, small, 240, 6, 0.1)
    assert.is_true(worst <= report.bound, tostring(worst))
    assert.is_true(worst > report.bound / 20, "the bound is used: " .. worst)
  end)

  it("write such a channel through anim convert, smaller, its eased keys kept", function()
    local clip = clip_and_rig()
    local src, out = dir .. "/mixed.anim", dir .. "/mixed-small.anim"
    assert(anim.save(clip, src))
    local text, code = H.popen(string.format("%s %s convert %s -o %s --error 0.001 --distance 0.1 2>&1", H.lua,
      H.sq(H.root .. "/bin/anim"), H.sq(src), H.sq(out)))
    assert.are.equal(0, code, text)
    assert.matches("reduced %d+ keys to %d+", text)
    local back = assert(anim.load(out))
    local n = 0
    for _, k in ipairs(keys_of(back, "j2", "rotation")) do
      if k[3] then n = n + 1 end
    end
    -- the sine, the bezier, the breakdown and the step
    assert.are.equal(4, n)
  end)

  it("leave a run shorter than dense, or too sparse, as it is", function()
    D.seed(8)
    local skel, rig = D.random_rig(3)
    -- seven keys of a run (dense needs eight), then a sparse one
    local rot = { { 0, { 0, 0, 0 }, "sine" } }
    cone(1, 1.1, rot)
    rot[#rot] = { rot[#rot][1], rot[#rot][2], "sine" }
    for k = 0, 10 do rot[#rot + 1] = { 2 + k * 0.5, { k, 0, 0 } } end
    local clip = assert(anim.clip { version = 3, length = 8, skeleton = skel, joints = { j2 = { rotation = rot } } })
    assert.are.equal(clip, RC.reduce(clip, rig, BOUND))
  end)

  it("write gecko_habitat's baked Molang between its easings in fewer keys (misc.idle's tail, head, body)", function()
    local r = assert(anim.open(GECKO))
    local idle = r.clips["misc.idle"]
    local small = RC.reduce(idle, anim.rig("player"))
    -- before: the tail's 123 keys, the head's 88 and the body's position's 81
    -- were written whole (easing keys among them)
    for _, jc in ipairs { { "tail", "rotation", 123 }, { "head", "rotation", 88 }, { "gecko", "position", 81 } } do
      local before, after = #keys_of(idle, jc[1], jc[2]), #keys_of(small, jc[1], jc[2])
      assert.are.equal(jc[3], before)
      assert.is_true(after < before / 2, jc[1] .. ": " .. after)
    end
  end)
  local mixed, worst_between = D.mixed_clip, D.worst_between

  it("keep the keys a Catmull-Rom segment is bent by (the one before it, the one after next)", function()
    D.seed(9)
    local skel, rig = D.random_rig(3)
    local rot = cone(0, 1, {})
    local at = #rot -- (the key at 1 s)
    rot[at] = { rot[at][1], rot[at][2], "catmullrom" }
    local rest = cone(1, 2, {})
    for i = 2, #rest do rot[#rot + 1] = rest[i] end
    local clip = assert(anim.clip { version = 3, length = 2, skeleton = skel, joints = { j2 = { rotation = rot } } })
    local small, report = RC.reduce(clip, rig, BOUND)
    assert.is_true(report.after < report.before / 3, report.after .. " of " .. report.before)
    local src, out = keys_of(clip, "j2", "rotation"), keys_of(small, "j2", "rotation")
    local kept = {}
    for _, k in ipairs(out) do kept[k[1]] = k end
    -- keys at - 1 .. at + 2: the segment's own two and its neighbours, as they were
    for i = at - 1, at + 2 do assert.are.same(src[i], kept[src[i][1]], "key " .. i) end
    assert.is_true(worst_between(clip, small, rig, 2) <= BOUND.error)
  end)

  -- (seed 116: a joint's channels loosened while its parent's stayed as an
  -- earlier round reduced them were measured through the parent's exact
  -- frames: 0.00122 against the bound 0.001, reported 0.00098; seed 114:
  -- the value arriving at a jump, at its left, was measured nowhere:
  -- 0.00107)
  for _, case in ipairs { { "a joint loosened under a parent reduced before", 116, false },
    { "just before a jump", 114, true } } do
    it("hold the bound between the times measured: " .. case[1], function()
      local clip, rig, L = mixed(case[2], case[3])
      local small, report = RC.reduce(clip, rig, BOUND)
      assert.is_true(report.after < report.before / 4, report.after .. " of " .. report.before)
      local worst = worst_between(clip, small, rig, L)
      assert.is_true(worst <= BOUND.error, tostring(worst))
      assert.is_true(report.error <= BOUND.error and worst > BOUND.error / 4, report.error .. " " .. worst)
    end)
  end
  it("export to glTF within the bound of the clip itself, an ease shorter than a frame followed", function()
    -- (seed 34: an ease in and out over 1/60 s, baked at 60 a second at
    -- its two keys alone, became the line through them, which it meets
    -- halfway: 0.00118 against the bound 0.001, the bake's error listed
    -- per channel only; now its quarters are baked too)
    local clip, rig, L = mixed(34, false)
    local path = dir .. "/short-ease.glb"
    local approx = assert(anim.export_gltf(clip, rig, path, BOUND))
    assert.is_true(approx.reduced[1].after < approx.reduced[1].before / 4)
    local back = assert(anim.import_gltf(path))
    local worst = worst_between(clip, back.clips[next(back.clips)], rig, L)
    -- (the file's 32-bit floats: their rounding beyond the measure's doubles)
    assert.is_true(worst <= BOUND.error + 1e-6, tostring(worst))
  end)
end)
