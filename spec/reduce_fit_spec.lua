-- Keyframe reduction with keys placed off the curve (issue 41, small
-- exports): once the key times are chosen, reduce.lua places the keys'
-- values to follow the samples (least squares, then the largest errors
-- weighted up), so a line between two keys strays from a bend by about half
-- its sagitta instead of all of it, and a looser choice of keys holds the
-- same tolerance.  A circle is the case that shows it: keys on the curve
-- cannot span more than a set number of samples.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local R = require "anim.export.gltf.reduce"
local RC = require "anim.export.gltf.reduce_clip"
local D = require "spec.dense_clips"

-- n + 1 samples at `rate` a second of a circle of radius r turning `turns`
-- times a second: positions, and the rotations of a cone of half-angle
-- `cone` degrees about y (the turn's axis tilted, turning 0.6 rad about it).
local function circle(n, rate, r, turns, cone)
  local times, pos, rot = {}, {}, {}
  local h, th = 0.3, math.rad(cone)
  for k = 0, n do
    local t = k / rate
    local a = 2 * math.pi * turns * t
    times[k + 1] = t
    pos[k + 1] = { r * math.cos(a), r * math.sin(a), 0 }
    local ax = { math.sin(th) * math.cos(a), math.cos(th), math.sin(th) * math.sin(a) }
    rot[k + 1] = { ax[1] * math.sin(h), ax[2] * math.sin(h), ax[3] * math.sin(h), math.cos(h) }
  end
  return times, pos, rot
end

-- The largest error at the samples of keys `kept` (values kept.vals, else
-- the samples') played as reduce.lua plays them (slerp for quaternions):
-- the angle for a quaternion, else the largest difference of a component.
local function worst_of(times, vals, kept, quat)
  local kt, kv = {}, {}
  for n, k in ipairs(kept) do kt[n], kv[n] = times[k], kept.vals and kept.vals[n] or vals[k] end
  local at = R.evaluator(kt, kv, quat)
  local worst = 0
  for i, t in ipairs(times) do
    local v, s = at(t), vals[i]
    local e = 0
    if quat then
      local n = math.sqrt(s[1] ^ 2 + s[2] ^ 2 + s[3] ^ 2 + s[4] ^ 2)
      local d = math.abs(v[1] * s[1] + v[2] * s[2] + v[3] * s[3] + v[4] * s[4]) / n
      e = d < 1 and 2 * math.acos(d) or 0
    else
      for c = 1, #s do e = math.max(e, math.abs(v[c] - s[c])) end
    end
    worst = math.max(worst, e)
  end
  return worst
end

describe("keys placed off the curve", function()
  it("keep fewer keys of a circle than any choice on it, within the tolerance", function()
    -- 60 samples a second of a circle of radius 0.175 turning twice a
    -- second: 12 degrees a step.  A line between two samples 4 steps apart
    -- strays from the middle one by 0.175 (1 - cos 24 deg) = 0.0151, above
    -- 0.01: keys on the curve are at most 3 steps apart, 181 of them at least
    local times, pos = circle(540, 60, 0.175, 2, 10)
    local kept = R.choose(times, pos, 0.01, false)
    assert.is_true(#kept <= 0.8 * 181, #kept .. " keys")
    assert.is_true(worst_of(times, pos, kept, false) <= 0.01)
    -- (the values are placed: off the samples at their times)
    assert.is_table(kept.vals)
    local off = 0
    for n, k in ipairs(kept) do
      local v, s = kept.vals[n], pos[k]
      off = math.max(off, math.abs(v[1] - s[1]), math.abs(v[2] - s[2]))
    end
    assert.is_true(off > 0.002, tostring(off))
  end)

  it("place quaternions as slerp plays them: fewer keys of a cone, within the tolerance", function()
    local times, _, rot = circle(540, 60, 0.175, 2, 10)
    for _, tol in ipairs { 0.01, 0.003 } do
      local on = R.simplify(times, rot, tol, true)
      local kept = R.choose(times, rot, tol, true)
      assert.is_true(#kept <= 0.85 * #on, tol .. ": " .. #kept .. " keys against " .. #on)
      assert.is_true(worst_of(times, rot, kept, true) <= tol)
      -- unit, as written
      for _, q in ipairs(kept.vals) do
        assert.is_true(math.abs(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2 - 1) < 1e-12)
      end
    end
  end)

  it("keep the samples where no placing helps: a line, noise", function()
    local times, line, noise = {}, {}, {}
    D.seed(7)
    for k = 0, 60 do
      times[k + 1] = k / 60
      line[k + 1] = { k / 60, 2 * k / 60, 0 }
      noise[k + 1] = { D.random(), D.random(), D.random() }
    end
    local kept = R.choose(times, line, 0.001, false)
    assert.are.same({ 1, 61 }, { kept[1], kept[2], kept[3] })
    assert.is_nil(kept.vals)
    kept = R.choose(times, noise, 0.01, false)
    assert.is_true(worst_of(times, noise, kept, false) <= 0.01)
  end)

  it("write a circling joint in fewer keys than on the curve, glTF and .anim, within the bound", function()
    -- a root moving on that circle for 3 s: on the curve, at least 61 keys
    -- (3 steps apart: the bound is the joint's whole tolerance)
    local times, pos = circle(180, 60, 0.175, 2, 10)
    local keys = {}
    for i, t in ipairs(times) do keys[i] = { t, pos[i] } end
    local rig = assert(anim.rig { joints = { { name = "root" } } })
    local clip = assert(anim.clip({ version = 3, length = 3, joints = { root = { position = keys } } }, "circle"))
    local dir = require("spec.helper").tmpdir()
    local approx = assert(anim.export_gltf(clip, rig, dir .. "/circle.glb", { error = 0.01, distance = 0.1 }))
    local r = approx.reduced[1]
    assert.is_true(r.after <= 0.8 * 61 and r.error <= 0.01, r.after .. " keys, error " .. r.error)
    local back = assert(anim.import_gltf(dir .. "/circle.glb"))
    assert.is_true(D.model_error(rig, clip, back.rig, back.clips.circle, 60, 3, 0.1) <= 0.01 + 1e-6)
    local small, report = RC.reduce(clip, rig, { error = 0.01, distance = 0.1 })
    assert.is_true(report.after <= 0.8 * 61 and report.error <= 0.01, report.after .. " keys, error " .. report.error)
    assert.is_true(D.model_error(rig, clip, rig, small, 60, 3, 0.1) <= 0.01)
  end)

  it("loosen a clip well inside its bound, and keep it within", function()
    -- only the root of a chain of 6 turns: the hierarchy's share of the
    -- bound (over the square root of the chain's length) leaves room, which
    -- a looser tolerance uses, measured again
    D.seed(7)
    local skel, rig = D.random_rig(6)
    local rot = {}
    for k = 0, 90 do
      local t = k / 60
      rot[#rot + 1] = { t, { 20 * math.sin(3 * t), 10 * math.cos(5 * t), 0 } }
    end
    local clip = assert(anim.clip({ version = 3, length = 1.5, euler = "xyz", skeleton = skel,
      joints = { j1 = { rotation = rot } } }, "root"))
    local dir = require("spec.helper").tmpdir()
    local function both()
      local approx = assert(anim.export_gltf(clip, rig, dir .. "/root.glb", { error = 0.001, distance = 0.1 }))
      local small, report = RC.reduce(clip, rig, { error = 0.001, distance = 0.1 })
      return approx.reduced[1], report, small
    end
    local was = R.LOOSEN
    R.LOOSEN = 0
    local g0, a0 = both()
    R.LOOSEN = was
    local g, a, small = both()
    -- (0.000295 and 0.000209 of the bound, 42 and 68 keys, not loosened)
    for _, r in ipairs { { g, g0 }, { a, a0 } } do
      local what = string.format("%d keys (%d not loosened), error %g (%g)", r[1].after, r[2].after, r[1].error, r[2].error)
      assert.is_true(r[1].after < 0.7 * r[2].after and r[1].error > 0.6 * 0.001 and r[1].error <= 0.001, what)
    end
    local back = assert(anim.import_gltf(dir .. "/root.glb"))
    assert.is_true(D.model_error(rig, clip, back.rig, back.clips.root, 60, 1.5, 0.1) <= 0.001 + 1e-6)
    assert.is_true(D.model_error(rig, clip, rig, small, 60, 1.5, 0.1) <= 0.001)
  end)
  it("loosen a glTF export only where it writes fewer bytes", function()
    -- (CesiumMan's channels share their samplers' times; a looser choice parts
    -- them: 30,800 bytes loosened blindly, 30,340 not loosened, 29,692 loosened)
    local H = require "spec.helper"
    local m = assert(anim.import_gltf(H.shared .. "/data/gltf/CesiumMan/glTF-Binary/CesiumMan.glb"))
    local dir, list = H.tmpdir(), {}
    for _, c in pairs(m.clips) do list[#list + 1] = c end
    local function bytes(path)
      assert(anim.export_gltf(list, m.rig, path))
      local f = assert(io.open(path, "rb"))
      local n = f:seek("end")
      f:close()
      return n
    end
    local was = R.LOOSEN
    R.LOOSEN = 0
    local ok, before = pcall(bytes, dir .. "/tight.glb")
    R.LOOSEN = was
    assert(ok, before)
    local after = bytes(dir .. "/loose.glb")
    assert.is_true(after <= before, after .. " bytes against " .. before)
  end)
  it("loosen around a channel written exactly: a dense constant one", function()
    -- (its joint's error is 0: loosening compared nil with a number)
    local keys = {}
    for k = 0, 60 do keys[#keys + 1] = { k / 60, { 0, 1, 0 } } end
    local rig = assert(anim.rig { joints = { { name = "root" } } })
    local clip = assert(anim.clip({ version = 3, length = 1, joints = { root = { position = keys } } }, "still"))
    local dir = require("spec.helper").tmpdir()
    local approx = assert(anim.export_gltf(clip, rig, dir .. "/still.glb"))
    assert.are.same({ 61, 2, 0 }, { approx.reduced[1].before, approx.reduced[1].after, approx.reduced[1].error })
  end)
  it("leave anim.compress unloosened: within the bound at every joint's sample times", function()
    -- (the pack is measured at the times of every joint's samples, the reduction at its
    -- subtree's: loosened at the latter, showmaster's walk strayed 0.000508 against 0.000441)
    local H = require "spec.helper"
    local r = assert(anim.open(H.shared .. "/data/realfiles/toms-mobs/showmaster.ajblueprint"))
    local f = assert(anim.compress(r.clips.walk, { rig = r.rig or anim.rig("player") })):compression()
    assert.is_true(f.worst <= f.error, f.worst .. " against " .. f.error)
    assert.are.equal(2, R.LOOSEN)
  end)
end)
