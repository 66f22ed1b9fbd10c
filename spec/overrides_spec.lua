-- Per-joint overrides from scripts (issue 23): animator:override(joint,
-- opts) on top of the blended pose, after the blend, in creation order;
-- `replace` sets the offsets, `add` composes them with the blended value;
-- the weight slerps (rotation) or lerps (position, scale) from the
-- blended value to that result.
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local rig = anim.rig("player")
-- the head turns 90 degrees about y and moves up, its scale grows
local clip = assert(anim.clip{ length = 1, loop = "loop", joints = {
  head = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } }, position = { { 0, { 0, 0, 0 } }, { 1, { 0, 1, 0 } } },
    scale = { { 0, { 1, 1, 1 } }, { 1, { 2, 2, 2 } } } },
} })

local function get(a, j)
  local v = { a:get(j) }
  return { v[1], v[2], v[3] }, { v[4], v[5], v[6], v[7] }, { v[8], v[9], v[10] }
end

-- The pose the clip alone gives at time t (an animator of its own).
local function blended(t)
  local a = anim.animator(rig)
  local tr = a:play(clip, { fade = 0 })
  tr.time = t
  a:update(0)
  return get(a, "head")
end

-- A slerp of our own, for the spec (shortest arc).
local function slerp(q, r, w)
  local d = q[1] * r[1] + q[2] * r[2] + q[3] * r[3] + q[4] * r[4]
  local s = d < 0 and -1 or 1
  d = d * s
  local th = math.acos(math.min(1, d))
  local out = {}
  if th < 1e-9 then
    for i = 1, 4 do out[i] = (1 - w) * q[i] + w * s * r[i] end
  else
    for i = 1, 4 do out[i] = (math.sin((1 - w) * th) * q[i] + math.sin(w * th) * s * r[i]) / math.sin(th) end
  end
  local n = math.sqrt(out[1] ^ 2 + out[2] ^ 2 + out[3] ^ 2 + out[4] ^ 2)
  for i = 1, 4 do out[i] = out[i] / n end
  return out
end

local function lerp3(a, b, w)
  return { (1 - w) * a[1] + w * b[1], (1 - w) * a[2] + w * b[2], (1 - w) * a[3] + w * b[3] }
end

describe("joint overrides", function()
  it("replace sets the offsets get returns, exactly at weight 1", function()
    local a = anim.animator(rig)
    local tr = a:play(clip, { fade = 0 })
    local q = H.qaxis(1, 30)
    a:override("head", { rotation = q, position = { 0.5, 0, -0.25 }, scale = { 1, 3, 1 } })
    tr.time = 0.5
    a:update(0)
    local p, r, s = get(a, "head")
    assert.are.same({ 0.5, 0, -0.25 }, p)
    assert.are.same({ 1, 3, 1 }, s)
    assert.is_true(H.quatdiff(q, r) < 1e-15)
    assert.are.same({ true, true, true }, { a:animated("head") })
  end)

  it("weights lerp and slerp from the blended value, in both modes", function()
    local q = H.qaxis(3, 40)
    for _, mode in ipairs { "replace", "add" } do
      for _, w in ipairs { 0, 0.25, 0.5, 1 } do
        local a = anim.animator(rig)
        local tr = a:play(clip, { fade = 0 })
        a:override("head", { mode = mode, weight = w, rotation = q, position = { 1, 0, 2 }, scale = { 2, 1, 0.5 } })
        tr.time = 0.3
        a:update(0)
        local bp, br, bs = blended(0.3)
        local p, r, s = get(a, "head")
        local tp, tq, ts
        if mode == "replace" then
          tp, tq, ts = { 1, 0, 2 }, q, { 2, 1, 0.5 }
        else
          tp = { bp[1] + 1, bp[2], bp[3] + 2 }
          tq = H.qmul(br, q)
          ts = { bs[1] * 2, bs[2], bs[3] * 0.5 }
        end
        local what = mode .. " w=" .. w
        -- positions and scales: (1 - w) blended + w target, to the bit
        assert.are.same(lerp3(bp, tp, w), p, what)
        assert.are.same(lerp3(bs, ts, w), s, what)
        assert.is_true(H.quatdiff(slerp(br, tq, w), r) < 1e-12, what)
        if w == 0 then assert.are.same(br, r, what) end
      end
    end
  end)

  it("applies in creation order, each on the result of those before", function()
    local function run(first, second)
      local a = anim.animator(rig)
      a:play(clip, { fade = 0 })
      a:override("head", first)
      a:override("head", second)
      a:update(0.5)
      return (get(a, "head"))
    end
    local rep, add = { position = { 0, 5, 0 } }, { mode = "add", position = { 0, 1, 0 } }
    assert.are.same({ 0, 6, 0 }, run(rep, add))
    assert.are.same({ 0, 5, 0 }, run(add, rep))
  end)

  it("local_transform, world_transform and pose_into show the result", function()
    local a = anim.animator(rig)
    a:override("torso", { position = { 0, 1, 0 } })
    a:update(0)
    local _, ty = a:local_transform("torso")
    assert.are.equal(0.75 + 1, ty)
    local _, hy = a:world_transform("head")
    assert.are.equal(1.5 + 1, hy)
    local pose = a:pose_into({}, "world")
    assert.are.equal(1.5 + 1, pose.head[2])
  end)

  it("has settable fields, takes effect from the next update, and :remove() ends it", function()
    local a = anim.animator(rig)
    a:play(clip, { fade = 0 })
    local h = a:override(2, { position = { 1, 2, 3 } }) -- joint by index (torso)
    assert.are.equal("torso", h.joint)
    assert.are.same({ 1, 2, 3 }, h.position)
    assert.is_nil(h.rotation)
    assert.are.equal("replace", h.mode)
    assert.are.equal(1, h.weight)
    a:update(0.1)
    assert.are.same({ 1, 2, 3 }, (get(a, "torso")))
    local v = { 0, 0, 0 }
    v[1] = 4
    h.position = v
    v[1] = 9 -- (copied when set: changing the table later changes nothing)
    h.weight = 0.5
    assert.are.same({ 1, 2, 3 }, (get(a, "torso"))) -- until the next update
    a:update(0.1)
    assert.are.same({ 2, 0, 0 }, (get(a, "torso")))
    h.position = nil -- that channel is no longer overridden
    h.scale = { 3, 3, 3 }
    a:update(0.1)
    local p, _, s = get(a, "torso")
    assert.are.same({ 0, 0, 0 }, p)
    assert.are.same({ 2, 2, 2 }, s)
    assert.are.same({ h }, a:overrides())
    h:remove()
    h:remove() -- (twice is nothing)
    assert.is_true(h.removed)
    assert.are.same({}, a:overrides())
    a:update(0.1)
    assert.are.same({ 1, 1, 1 }, select(3, get(a, "torso")))
    local ok, err = pcall(function() h.weight = 1 end)
    assert.is_false(ok)
    assert.truthy(err:find("overrides_spec.lua:%d+: override of joint 'torso' was removed: its fields cannot be set"), err)
  end)

  it("refuses bad arguments and values, naming them", function()
    local a = anim.animator(rig)
    local function bad(msg, ...)
      local args = compat.pack(...)
      local ok, err = pcall(function() a:override(compat.unpack(args, 1, args.n)) end)
      assert.is_false(ok)
      assert.truthy(err:find(msg, 1, true), err)
    end
    bad("bad argument #1 to 'override' (unknown joint 'neck')", "neck", {})
    bad("bad argument #1 to 'override' (joint index 8 out of range 1..7)", 8, {})
    bad("bad argument #1 to 'override' (joint name or index expected, got table)", {}, {})
    bad("bad argument #2 to 'override' (table of options expected, got nil)", "head")
    bad("bad argument #2 to 'override' (rotation must be {x, y, z, w}: four finite numbers)", "head", { rotation = { 0, 0, 1 } })
    bad("bad argument #2 to 'override' (rotation must not be a zero quaternion)", "head", { rotation = { 0, 0, 0, 0 } })
    bad("bad argument #2 to 'override' (position must be {x, y, z}: three finite numbers)", "head", { position = { 0, 0 / 0, 1 } })
    bad("bad argument #2 to 'override' (scale must be {x, y, z}, got number)", "head", { scale = 2 })
    bad("bad argument #2 to 'override' (mode must be \"replace\" or \"add\", got 'multiply')", "head", { mode = "multiply" })
    bad("bad argument #2 to 'override' (weight must be a number from 0 to 1, got 1.5)", "head", { weight = 1.5 })
    bad("bad argument #2 to 'override' (unknown option 'rotaton'; did you mean 'rotation'?)", "head", { rotaton = { 0, 0, 0, 1 } })
    local h = a:override("head", {})
    local ok, err = pcall(function() h.colour = 1 end)
    assert.is_false(ok)
    assert.truthy(err:find("cannot set override field 'colour' (the settable ones: rotation, position, scale, mode, weight)", 1, true), err)
    ok, err = pcall(function() h.wieght = 1 end)
    assert.is_false(ok)
    assert.truthy(err:find("cannot set override field 'wieght'; did you mean 'weight'? (the settable ones", 1, true), err)
    ok, err = pcall(h.remove, {})
    assert.is_false(ok)
    assert.truthy(err:find("calling 'remove' on bad self (anim.override expected, got table)", 1, true), err)
    ok, err = pcall(function() h.weight = -1 end)
    assert.is_false(ok)
    assert.truthy(err:find("override weight must be a number from 0 to 1, got -1", 1, true), err)
  end)

  it("poses to the bit the same through anim.update", function()
    local a, b = anim.animator(rig), anim.animator(rig)
    for _, x in ipairs { a, b } do
      x:play(clip, { fade = 0.2 })
      x:override("head", { mode = "add", rotation = H.qaxis(1, 10), weight = 0.7 })
      x:override("rightArm", { position = { 0, 0.1, 0 }, weight = 0.3 })
    end
    for _ = 1, 40 do
      a:update(1 / 60)
      anim.update({ b }, 1 / 60)
      assert.are.same({ a:get("head") }, { b:get("head") })
      assert.are.same({ a:get("rightArm") }, { b:get("rightArm") })
    end
  end)
end)
