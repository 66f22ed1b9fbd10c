-- Compressed clips blended in floats (csrc/core/blendpq.c): when every
-- track of an animator's pose is of one level and plays a compressed clip
-- whose every joint it binds has a position and a rotation with keys, the
-- pose is summed in single precision, four joints at a time.  The rules
-- are the blend's (weights, the weights' sum over 1, the identity's share
-- under 1, the first counted rotation's hemisphere): checked against them
-- worked out here in doubles from clip:sample, and the float path told by
-- its numbers, every one a float.
local anim = require "anim"
local H = require "spec.helper"

-- (under valgrind, fewer updates: each is checked against clip:sample)
local function updates(n) return H.valgrind and math.ceil(n / 3) or n end

-- Whether x is a 32-bit float's value (scaled by powers of two, exact, to
-- [1, 2): then 23 bits after the point at most).
local function is_float(x)
  local a = math.abs(x)
  if a == 0 then return true end
  while a >= 2 do a = a / 2 end
  while a < 1 do a = a * 2 end
  return (a * 8388608) % 1 == 0
end

-- A rig of n joints in a chain (`extra`: one more, no clip animates it)
-- and a clip keying every joint's position and rotation (`scaled`: a joint
-- "tail" the rig lacks, keying a scale; `muted`: that joint's name muted;
-- j2's position one key: a channel of one key), compressed on the rig.
local made = {}
local function setup(n, extra, scaled, muted)
  -- (each compressed once: anim.compress takes most of this file's time)
  local key = table.concat({ n, tostring(extra), tostring(scaled), tostring(muted) }, " ")
  local m = made[key]
  if m then return m[1], m[2], m[3] end
  local js, joints = {}, {}
  for i = 1, n do
    local rot, pos = {}, {}
    for k = 0, 45 do
      local t = k / 30
      -- (a turn of 300 degrees about z: samples of the tracks in opposite hemispheres)
      rot[#rot + 1] = { t, { 40 * math.sin(3 * t + i), 25 * math.cos(2 * t + i), 200 * t } }
      pos[#pos + 1] = { t, { 0.1 * math.sin(3 * t + i), 0.2 + 0.05 * math.cos(2 * t), 0.03 * i * t } }
    end
    if i == 2 then pos = { { 0, { 0.05, 0.25, -0.02 } } } end
    js["j" .. i] = { rotation = rot, position = pos, muted = muted == "j" .. i or nil }
    joints[i] = { name = "j" .. i, parent = i > 1 and "j" .. (i - 1) or nil, translation = { 0, 0.2, 0 } }
  end
  if extra then joints[#joints + 1] = { name = "extra", parent = "j1", translation = { 0.1, 0, 0 } } end
  if scaled then
    js.tail = { scale = { { 0, { 1, 1, 1 } }, { 0.5, { 1.5, 1, 1 } }, { 1.5, { 1, 1, 1 } } } }
  end
  local rig = assert(anim.rig { joints = joints })
  local c = assert(anim.clip({ version = 3, length = 1.5, loop = "loop", euler = "xyz", joints = js }, "pq"))
  made[key] = { rig, c, assert(anim.compress(c, { rig = rig })) }
  return setup(n, extra, scaled, muted)
end

-- The pose (offsets) the blend's rules give in doubles for the tracks
-- { track, clip, weight }: each joint's samples weighted, the positions
-- summed (over the weights' sum W when it is over 1), the rotations in the
-- hemisphere of the first of weight > 0, the identity taking 1 - W, made
-- unit; scale 1.
local function reference(rig, plays, muted)
  local out = {}
  for j, joint in ipairs(rig:joints()) do
    local W, P, R, ref = 0, { 0, 0, 0 }, { 0, 0, 0, 0 }, nil
    for _, p in ipairs(plays) do
      local s = joint.name ~= muted and p.clip:sample(p.track.time)[joint.name]
      if s then
        local w = p.weight
        W = W + w
        for k = 1, 3 do P[k] = P[k] + w * s.position[k] end
        if w > 0 then
          local q, sw = s.rotation, w
          if not ref then ref = q
          elseif ref[1] * q[1] + ref[2] * q[2] + ref[3] * q[3] + ref[4] * q[4] < 0 then sw = -w end
          for k = 1, 4 do R[k] = R[k] + sw * q[k] end
        end
      end
    end
    local sh, left = 1, 1 - W
    if W > 1 then sh, left = 1 / W, 0 end
    local o = 10 * (j - 1)
    for k = 1, 3 do out[o + k] = sh * P[k] end
    if ref then
      local q = { sh * R[1], sh * R[2], sh * R[3], sh * R[4] + (ref[4] < 0 and -left or left) }
      local l = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
      for k = 1, 4 do out[o + 3 + k] = q[k] / l end
    else
      out[o + 4], out[o + 5], out[o + 6], out[o + 7] = 0, 0, 0, 1
    end
    out[o + 8], out[o + 9], out[o + 10] = 1, 1, 1
  end
  return out
end

-- Plays `weights` (one track of cc each) on rig for `frames` updates of
-- dt (or of what step(k, plays), called before each, returns); checks every pose against the
-- reference (within tol) and whether its numbers are all floats (floats);
-- muted: the name of a joint the clips mute.
local function check(rig, clips, weights, frames, dt, floats, step, muted)
  local a = anim.animator(rig)
  local plays = {}
  for i, w in ipairs(weights) do
    local tr = a:play(clips[i] or clips[1], { weight = w, fade = 0 })
    tr.time = 0.37 * (i - 1)
    plays[i] = { track = tr, clip = clips[i] or clips[1], weight = w }
  end
  local worst, all_floats, out = 0, true, {}
  for k = 1, frames do
    a:update(step and step(k, plays) or dt)
    a:pose_array(out, "offsets")
    local want = reference(rig, plays, muted)
    for i = 1, #want do
      worst = math.max(worst, math.abs(out[i] - want[i]))
      all_floats = all_floats and is_float(out[i])
    end
  end
  assert.is_true(worst < (floats and 1e-6 or 1e-12), "worst " .. worst)
  assert.are.equal(floats, all_floats)
  return worst
end

describe("compressed tracks blended in floats", function()
  it("pose two tracks as the blend's rules say, in floats, within their rounding", function()
    -- (9 clip joints and one the clip lacks: groups of four with a
    -- lane of no binding; seeks onto a key, onto the clip's first and
    -- last frames, posed there (an update of 0): a segment's start, the
    -- last key held; one track played backwards)
    local rig, _, cc = setup(9, true)
    local worst = check(rig, { cc, cc }, { 0.5, 0.5 }, H.valgrind and 105 or 160, 1 / 60, true, function(k, plays)
      if k == 40 then plays[1].track.time = 10 / 30; return 0 end
      if k == 41 then plays[2].track.time = 0; return 0 end
      if k == 90 then plays[1].track.time = 1.5; return 0 end
      if k == 100 then plays[2].track:adjust_speed(-1.3) end
    end)
    assert.is_true(worst > 0, "the doubles' pose and the floats' differ somewhere") -- (not the double path)
  end)

  it("weights the tracks: the identity's share under 1, the weights' sum over 1, weight 0, three tracks", function()
    local rig, _, cc = setup(9, true)
    -- (1e-50: a weight no float holds, still > 0: its rotation the reference)
    for _, ws in ipairs { { 0.3, 0.2 }, { 2, 1 }, { 0.5, 0.25, 1 }, { 0, 0.7 }, { 0.6 }, { 1e-50, 0.5 } } do
      check(rig, { cc }, ws, updates(40), 1 / 30, true)
    end
  end)

  it("writes +0, not -0, where every weight is 0, and sums positions near the floats' limit", function()
    local rig, _, cc = setup(9, true)
    local a = anim.animator(rig)
    a:play(cc, { weight = 0, fade = 0 }).time = 0.9
    a:update(0)
    local out = a:pose_array({}, "offsets")
    for j = 0, 9 do
      for k = 1, 3 do assert.are.equal(math.huge, 1 / out[10 * j + k], "joint " .. (j + 1)) end
    end
    -- positions of 5e37 at weights 4 and 4: their sum times the weights is
    -- beyond a float's 3.4e38, the mean is not
    local pos = {}
    for k = 0, 10 do pos[#pos + 1] = { k / 10, { 5e37 * (1 - k / 20), -4e37, 1 } } end
    local big = assert(anim.clip({ version = 3, length = 1, joints = { j1 = { position = pos,
      rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 0, 90 } } } } } }, "big"))
    local bc = assert(anim.compress(big, { rig = rig }))
    local b = anim.animator(rig)
    b:play(bc, { weight = 4, fade = 0 }).time = 0.3
    b:play(bc, { weight = 4, fade = 0 }).time = 0.3
    b:update(0)
    local got, want = b:pose_array({}, "offsets"), bc:sample(0.3).j1.position
    for k = 1, 2 do assert.is_true(math.abs(got[k] / want[k] - 1) < 1e-6, got[k] .. " " .. want[k]) end
  end)

  it("finds each joint's channels itself when the clip has a joint that is not a position and rotation", function()
    -- (the clip's joint "tail" keys a scale; the rig lacks it: every
    -- joint bound is still one of a position and a rotation)
    local rig, _, cc = setup(5, false, true)
    check(rig, { cc, cc }, { 0.5, 0.5 }, updates(60), 1 / 60, true)
  end)

  it("leaves the double blend to any other level: a muted joint, an exact clip beside", function()
    local rig, c, cc = setup(9, true)
    -- an exact clip and a compressed one on one level
    check(rig, { c, cc }, { 0.5, 0.5 }, updates(30), 1 / 60, false)
    -- a compressed clip with a muted joint (its track samples joint by joint)
    local mrig, _, mcc = setup(5, false, false, "j2")
    check(mrig, { mcc, mcc }, { 0.5, 0.5 }, updates(30), 1 / 60, false, nil, "j2")
  end)

  it("poses bit for bit the same on one and two threads", function()
    local rig, _, cc = setup(9, true)
    local function run(threads)
      local list = {}
      for i = 1, 6 do
        local a = anim.animator(rig)
        a:play(cc, { weight = 0.4 + 0.1 * i, fade = 0 }).time = 0.11 * i
        a:play(cc, { weight = 0.5, fade = 0 }).time = 0.23 * i
        list[i] = a
      end
      local out = {}
      for _ = 1, updates(50) do
        anim.update(list, 1 / 60, { threads = threads })
        for _, a in ipairs(list) do
          for _, v in ipairs(a:pose_array({})) do out[#out + 1] = v end
        end
      end
      return out
    end
    local one, two = run(1), run(2)
    assert.are.equal(#one, #two)
    for i = 1, #one do assert.are.equal(one[i], two[i], i) end
  end)
end)
