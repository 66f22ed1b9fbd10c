-- clip:sample(t) against hand-worked values (SEMANTICS 1, 2 and 4).  The
-- working is written next to each expectation; the easing and rotation
-- expectations are computed here with independent formulas (easings.net
-- verbatim, rotation matrices), not with the module's code.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local TOL = 1e-12
local SQ = math.sqrt(0.5) -- sin 45 = cos 45

local function clip_of(t)
  local c, err = anim.clip(t)
  assert.is_nil(err)
  return c
end

local function decode(text)
  local c, err = anim.decode(text)
  assert.is_nil(err)
  return c
end

-- A clip whose joint `a` has one position channel of the given keys.
local function pos_clip(keys, fields)
  local t = { joints = { a = { position = keys } } }
  for k, v in pairs(fields or {}) do t[k] = v end
  return clip_of(t)
end

local function near_vec(want, got, tol, what)
  assert.are.equal(#want, #got, what)
  local d = H.maxdiff(got, want)
  assert(d <= (tol or TOL), string.format("%s: got {%s}, want {%s} (off by %.3g)", what or "value",
    table.concat(got, ", "), table.concat(want, ", "), d))
end

local function near(want, got, tol, what)
  assert(math.abs(got - want) <= (tol or TOL),
    string.format("%s: got %.17g, want %.17g", what or "value", got, want))
end

local function near_quat(want, got, tol, what)
  assert.are.equal(4, #got, what)
  local d = H.quatdiff(got, want)
  assert(d <= (tol or TOL), string.format("%s: got {%s}, want {%s} up to sign (off by %.3g)", what or "rotation",
    table.concat(got, ", "), table.concat(want, ", "), d))
end

-- x of joint a's position at time t.
local function px(c, t) return c:sample(t).a.position[1] end

-- Independent rotation helpers -------------------------------------------------

-- Quaternion of a turn of `deg` degrees about axis 1 (x), 2 (y) or 3 (z).
local function qaxis(axis, deg)
  local h = math.rad(deg) / 2
  local q = { 0, 0, 0, math.cos(h) }
  q[axis] = math.sin(h)
  return q
end

-- The rotation matrix of a unit quaternion, applied to v.
local function qrotate(q, v)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local m = {
    { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
    { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
    { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) },
  }
  return {
    m[1][1] * v[1] + m[1][2] * v[2] + m[1][3] * v[3],
    m[2][1] * v[1] + m[2][2] * v[2] + m[2][3] * v[3],
    m[3][1] * v[1] + m[3][2] * v[2] + m[3][3] * v[3],
  }
end

-- Right-handed rotation matrices about x, y, z.
local function rmat(axis, deg)
  local c, s = math.cos(math.rad(deg)), math.sin(math.rad(deg))
  if axis == "x" then return { { 1, 0, 0 }, { 0, c, -s }, { 0, s, c } } end
  if axis == "y" then return { { c, 0, s }, { 0, 1, 0 }, { -s, 0, c } } end
  return { { c, -s, 0 }, { s, c, 0 }, { 0, 0, 1 } }
end

local function mmul(a, b)
  local o = {}
  for i = 1, 3 do
    o[i] = {}
    for j = 1, 3 do o[i][j] = a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j] end
  end
  return o
end

local function column(m, j) return { m[1][j], m[2][j], m[3][j] } end

-- Easings, verbatim from easings.net ------------------------------------------------

local PI = math.pi
local c1 = 1.70158
local c2 = c1 * 1.525
local c3 = c1 + 1
local c4 = (2 * PI) / 3
local c5 = (2 * PI) / 4.5

local function bounce_out(x)
  local n1, d1 = 7.5625, 2.75
  if x < 1 / d1 then
    return n1 * x * x
  elseif x < 2 / d1 then
    x = x - 1.5 / d1
    return n1 * x * x + 0.75
  elseif x < 2.5 / d1 then
    x = x - 2.25 / d1
    return n1 * x * x + 0.9375
  end
  x = x - 2.625 / d1
  return n1 * x * x + 0.984375
end

local EASE = {
  sine = {
    ["in"] = function(x) return 1 - math.cos((x * PI) / 2) end,
    out = function(x) return math.sin((x * PI) / 2) end,
    inOut = function(x) return -(math.cos(PI * x) - 1) / 2 end,
  },
  quad = {
    ["in"] = function(x) return x * x end,
    out = function(x) return 1 - (1 - x) * (1 - x) end,
    inOut = function(x) return x < 0.5 and 2 * x * x or 1 - (-2 * x + 2) ^ 2 / 2 end,
  },
  cubic = {
    ["in"] = function(x) return x * x * x end,
    out = function(x) return 1 - (1 - x) ^ 3 end,
    inOut = function(x) return x < 0.5 and 4 * x * x * x or 1 - (-2 * x + 2) ^ 3 / 2 end,
  },
  quart = {
    ["in"] = function(x) return x * x * x * x end,
    out = function(x) return 1 - (1 - x) ^ 4 end,
    inOut = function(x) return x < 0.5 and 8 * x * x * x * x or 1 - (-2 * x + 2) ^ 4 / 2 end,
  },
  quint = {
    ["in"] = function(x) return x * x * x * x * x end,
    out = function(x) return 1 - (1 - x) ^ 5 end,
    inOut = function(x) return x < 0.5 and 16 * x * x * x * x * x or 1 - (-2 * x + 2) ^ 5 / 2 end,
  },
  expo = {
    ["in"] = function(x) return x == 0 and 0 or 2 ^ (10 * x - 10) end,
    out = function(x) return x == 1 and 1 or 1 - 2 ^ (-10 * x) end,
    inOut = function(x)
      if x == 0 then return 0 end
      if x == 1 then return 1 end
      return x < 0.5 and 2 ^ (20 * x - 10) / 2 or (2 - 2 ^ (-20 * x + 10)) / 2
    end,
  },
  circ = {
    ["in"] = function(x) return 1 - math.sqrt(1 - x ^ 2) end,
    out = function(x) return math.sqrt(1 - (x - 1) ^ 2) end,
    inOut = function(x)
      return x < 0.5 and (1 - math.sqrt(1 - (2 * x) ^ 2)) / 2 or (math.sqrt(1 - (-2 * x + 2) ^ 2) + 1) / 2
    end,
  },
  back = {
    ["in"] = function(x) return c3 * x * x * x - c1 * x * x end,
    out = function(x) return 1 + c3 * (x - 1) ^ 3 + c1 * (x - 1) ^ 2 end,
    inOut = function(x)
      return x < 0.5 and ((2 * x) ^ 2 * ((c2 + 1) * 2 * x - c2)) / 2
        or ((2 * x - 2) ^ 2 * ((c2 + 1) * (x * 2 - 2) + c2) + 2) / 2
    end,
  },
  elastic = {
    ["in"] = function(x)
      if x == 0 then return 0 end
      if x == 1 then return 1 end
      return -(2 ^ (10 * x - 10)) * math.sin((x * 10 - 10.75) * c4)
    end,
    out = function(x)
      if x == 0 then return 0 end
      if x == 1 then return 1 end
      return 2 ^ (-10 * x) * math.sin((x * 10 - 0.75) * c4) + 1
    end,
    inOut = function(x)
      if x == 0 then return 0 end
      if x == 1 then return 1 end
      return x < 0.5 and -(2 ^ (20 * x - 10) * math.sin((20 * x - 11.125) * c5)) / 2
        or (2 ^ (-20 * x + 10) * math.sin((20 * x - 11.125) * c5)) / 2 + 1
    end,
  },
  bounce = {
    ["in"] = function(x) return 1 - bounce_out(1 - x) end,
    out = bounce_out,
    inOut = function(x)
      return x < 0.5 and (1 - bounce_out(1 - 2 * x)) / 2 or (1 + bounce_out(2 * x - 1)) / 2
    end,
  },
}
local EASING_NAMES = { "sine", "quad", "cubic", "quart", "quint", "expo", "circ", "back", "bounce", "elastic" }
-- SEMANTICS 2.5: left out, back, bounce and elastic ease out, the rest ease in.
local DEFAULT_DIR = { back = "out", bounce = "out", elastic = "out" }

describe("sampling", function()
  describe("linear", function()
    -- keys (0, [0, 0, 0]) and (2, [2, 4, -6]); at t the value is t/2 of the way
    local c = pos_clip { { 0, { 0, 0, 0 } }, { 2, { 2, 4, -6 } } }

    it("moves in a straight line on every axis", function()
      near_vec({ 0.5, 1, -1.5 }, c:sample(0.5).a.position)   -- s = 0.25
      near_vec({ 1, 2, -3 }, c:sample(1).a.position)         -- s = 0.5
      near_vec({ 1.5, 3, -4.5 }, c:sample(1.5).a.position)   -- s = 0.75
    end)

    it("is the default when the interpolation is left out, null, or the extra has none", function()
      local d = decode('{"joints": {"a": {"position": [[0, [0, 0, 0], null, {"type": "breakdown"}], [2, [2, 4, -6]]]}}}')
      near_vec({ 0.5, 1, -1.5 }, d:sample(0.5).a.position)
    end)

    it("hits the keys exactly", function()
      assert.are.same({ 0, 0, 0 }, c:sample(0).a.position)
      assert.are.same({ 2, 4, -6 }, c:sample(2).a.position)
    end)
  end)

  describe("before the first key and after the last", function()
    -- keys at 1 (3) and 2 (7): the first value before, the last value after
    local c = pos_clip({ { 1, { 3, 3, 3 } }, { 2, { 7, 7, 7 } } }, { length = 1 })

    it("holds the first key's value before it", function()
      near(3, px(c, 0))
      near(3, px(c, -5))
      near(3, px(c, 0.999))
    end)

    it("holds the last key's value after it", function()
      near(7, px(c, 2))
      near(7, px(c, 100))
    end)

    it("evaluates the curves outside [0, length] (no wrapping, no clamping to the length)", function()
      -- length 1, but the curve runs to 2: at 1.5 the value is halfway, 5
      near(5, px(c, 1.5))
    end)

    it("a single key is constant", function()
      local one = pos_clip { { 0.5, { 1, 2, 3 } } }
      assert.are.same({ 1, 2, 3 }, one:sample(-1).a.position)
      assert.are.same({ 1, 2, 3 }, one:sample(9).a.position)
    end)
  end)

  describe("step", function()
    -- (0, 0) step, (1, 10) step, (2, 20): 0 on [0,1), 10 on [1,2), then 20
    local c = pos_clip { { 0, { 0, 0, 0 }, "step" }, { 1, { 10, 10, 10 }, "step" }, { 2, { 20, 20, 20 } } }

    it("holds the key's value over its whole segment", function()
      assert.are.equal(0, px(c, 0))
      assert.are.equal(0, px(c, 0.5))
      assert.are.equal(0, px(c, 0.999999))
      assert.are.equal(10, px(c, 1.5))
      assert.are.equal(10, px(c, 1.999999))
    end)

    it("jumps to the next key exactly at its time", function()
      assert.are.equal(10, px(c, 1))
      assert.are.equal(20, px(c, 2))
      assert.are.equal(20, px(c, 3))
    end)
  end)

  describe("jumps (keys at the same time)", function()
    -- (0, 0) (1, 5) (1, 7) (1, 10) (2, 20), all linear:
    -- arriving: 0 -> 5 on [0, 1); at 1 the last of the three, 10; leaving: 10 -> 20
    local c = pos_clip {
      { 0, { 0, 0, 0 } }, { 1, { 5, 5, 5 } }, { 1, { 7, 7, 7 } }, { 1, { 10, 10, 10 } }, { 2, { 20, 20, 20 } },
    }

    it("arrives at the first key of the jump", function()
      near(2.5, px(c, 0.5))                -- halfway from 0 to 5
      near(5 * 0.999, px(c, 0.999))        -- just before, near 5 (not 7 or 10)
    end)

    it("is right-continuous: at the time itself the value is the last key's", function()
      assert.are.equal(10, px(c, 1))
    end)

    it("leaves from the last key of the jump", function()
      near(15, px(c, 1.5))                 -- halfway from 10 to 20
    end)

    it("a jump on the first key: the later value from its time on", function()
      local d = pos_clip { { 0, { 1, 1, 1 } }, { 0, { 3, 3, 3 } }, { 1, { 5, 5, 5 } } }
      assert.are.equal(1, px(d, -1))       -- before the first key: the first key's value
      assert.are.equal(3, px(d, 0))        -- at the jump: the last one's
      near(4, px(d, 0.5))                  -- 3 -> 5
    end)

    it("a jump on the last key: the last value from its time on", function()
      local d = pos_clip { { 0, { 0, 0, 0 } }, { 1, { 2, 2, 2 } }, { 1, { 9, 9, 9 } } }
      near(1, px(d, 0.5))
      assert.are.equal(9, px(d, 1))
      assert.are.equal(9, px(d, 2))
    end)
  end)

  describe("catmullrom", function()
    -- Uniform Catmull-Rom, p(s) = h00 p1 + h10 m1 + h01 p2 + h11 m2 with
    -- m1 = (p2 - p0)/2, m2 = (p3 - p1)/2 and at s = 0.5: h00 = 0.5,
    -- h10 = 0.125, h01 = 0.5, h11 = -0.125; at s = 0.25: h00 = 0.84375,
    -- h10 = 0.140625, h01 = 0.15625, h11 = -0.046875.
    local function cr(vals, times, loop)
      local keys = {}
      for i, v in ipairs(vals) do keys[i] = { times and times[i] or (i - 1), { v, v, v }, "catmullrom" } end
      return pos_clip(keys, { loop = loop })
    end

    it("uses the keys on either side (Blockbench's uniform rule)", function()
      -- values 0, 1, 3, 6 at 0, 1, 2, 3
      local c = cr { 0, 1, 3, 6 }
      -- middle segment: p0..p3 = 0, 1, 3, 6; m1 = 1.5, m2 = 2.5
      -- 0.5*1 + 0.125*1.5 + 0.5*3 - 0.125*2.5 = 1.875
      near(1.875, px(c, 1.5))
      -- first segment: no key before, p0 = p1 = 0; p2 = 1, p3 = 3; m1 = 0.5, m2 = 1.5
      -- 0 + 0.0625 + 0.5 - 0.1875 = 0.375
      near(0.375, px(c, 0.5))
      -- last segment: p0 = 1, p1 = 3, p2 = 6, no key after: p3 = p2 = 6; m1 = 2.5, m2 = 1.5
      -- 1.5 + 0.3125 + 3 - 0.1875 = 4.625
      near(4.625, px(c, 2.5))
      -- at s = 0.25 in the middle: 0.84375*1 + 0.140625*1.5 + 0.15625*3 - 0.046875*2.5 = 1.40625
      near(1.40625, px(c, 1.25))
    end)

    it("passes through every key", function()
      local c = cr { 0, 1, 3, 6 }
      near(1, px(c, 1))
      near(3, px(c, 2))
      near(6, px(c, 3))
    end)

    it("a jump breaks the neighbourhood", function()
      -- values 0, 2, 10, 12, 20 at 0, 1, 1, 2, 3 (a jump 2 -> 10 at t = 1)
      local c = cr({ 0, 2, 10, 12, 20 }, { 0, 1, 1, 2, 3 })
      -- arriving at the jump: p3 = p2 = 2 (not 10). p0 = p1 = 0, p2 = 2; m1 = 1, m2 = 1
      -- s = 0.5: 0 + 0.125 + 1 - 0.125 = 1   (with p3 = 10 it would be 0.5)
      near(1, px(c, 0.5))
      -- s = 0.25: 0.140625*1 + 0.15625*2 - 0.046875*1 = 0.40625
      near(0.40625, px(c, 0.25))
      -- at the jump: the last key, 10
      assert.are.equal(10, px(c, 1))
      -- leaving the jump: p0 = p1 = 10 (not 2). p2 = 12, p3 = 20; m1 = 1, m2 = 5
      -- 5 + 0.125 + 6 - 0.625 = 10.5   (with p0 = 2 it would be 11)
      near(10.5, px(c, 1.5))
      -- the segment after: p0 = 10, p1 = 12, p2 = 20, p3 = 20; m1 = 5, m2 = 4
      -- 6 + 0.625 + 10 - 0.5 = 16.125
      near(16.125, px(c, 2.5))
    end)

    it("wraps around the ends in a loop clip of 3+ keys", function()
      -- values 0, 4, 8, 0 at 0, 1, 2, 3, loop = "loop"
      local c = cr({ 0, 4, 8, 0 }, nil, "loop")
      -- first segment: the missing p0 is the second-to-last key, 8 (not the last, 0)
      -- p0..p3 = 8, 0, 4, 8; m1 = -2, m2 = 4: 0 - 0.25 + 2 - 0.5 = 1.25
      near(1.25, px(c, 0.5))
      -- last segment: the missing p3 is the second key, 4
      -- p0..p3 = 4, 8, 0, 4; m1 = -2, m2 = -2: 4 - 0.25 + 0 + 0.25 = 4
      near(4, px(c, 2.5))
      -- the middle does not change: p0..p3 = 0, 4, 8, 0; m1 = 4, m2 = -2: 2 + 0.5 + 4 + 0.25 = 6.75
      near(6.75, px(c, 1.5))
    end)

    it("does not wrap in a once clip", function()
      local c = cr({ 0, 4, 8, 0 }, nil, "once")
      -- first: p0 = p1 = 0; m1 = 2, m2 = 4: 0.25 + 2 - 0.5 = 1.75
      near(1.75, px(c, 0.5))
      -- last: p3 = p2 = 0; m1 = -2, m2 = -4: 4 - 0.25 + 0.5 = 4.25
      near(4.25, px(c, 2.5))
      near(6.75, px(c, 1.5))
    end)

    it("does not wrap in hold or pingpong clips, nor when loop is left out", function()
      for _, loop in ipairs { "hold", "pingpong", false } do
        local c = cr({ 0, 4, 8, 0 }, nil, loop or nil)
        near(1.75, px(c, 0.5), TOL, tostring(loop))
        near(4.25, px(c, 2.5), TOL, tostring(loop))
      end
    end)

    it("a loop clip of 3 keys wraps", function()
      -- values 0, 4, 0 at 0, 1, 2: p0 of the first segment is the second-to-last key, 4
      -- p0..p3 = 4, 0, 4, 0; m1 = 0, m2 = 0: at s = 0.25: 0.15625*4 = 0.625
      near(0.625, px(cr({ 0, 4, 0 }, nil, "loop"), 0.25))
      -- once: p0 = 0: m1 = 2, m2 = 0: 0.140625*2 + 0.625 = 0.90625
      near(0.90625, px(cr({ 0, 4, 0 }, nil, "once"), 0.25))
    end)
  end)

  describe("bezier", function()
    -- Blender's segment: control points (t0, v0), (t0 + out.dt, v0 + out.dv),
    -- (t1 + in.dt, v1 + in.dv), (t1, v1).  With out.dt = len/3 and in.dt =
    -- -len/3 the time is linear in u (t = t0 + len*u), so u is known.
    local function bz(keys) return clip_of { joints = { a = { position = keys } } } end

    it("explicit handles", function()
      -- (0, 0) out [1, 3]; (3, 0) in [-1, 6]: t = 3u,
      -- v(u) = 3*3 u(1-u)^2 + 3*6 u^2(1-u) = 9u(1-u)^2 + 18u^2(1-u)
      local c = bz { { 0, { 0, 0, 0 }, "bezier", { out = { 1, 3 } } }, { 3, { 0, 0, 0 }, "linear", { ["in"] = { -1, 6 } } } }
      -- t = 1.5, u = 0.5: 9*0.125 + 18*0.125 = 3.375
      near_vec({ 3.375, 3.375, 3.375 }, c:sample(1.5).a.position)
      -- t = 1, u = 1/3: 9*(1/3)(4/9) + 18*(1/9)(2/3) = 4/3 + 4/3 = 8/3 (swapped handles: 10/3)
      near(8 / 3, px(c, 1))
    end)

    it("takes the in handle from the next key whatever its own interpolation", function()
      local c = bz { { 0, { 0, 0, 0 }, "bezier", { out = { 1, 3 } } }, { 3, { 0, 0, 0 }, "step", { ["in"] = { -1, 6 } } } }
      near(3.375, px(c, 1.5))
    end)

    it("per-axis dv moves each axis by its own amount", function()
      -- out [1, [3, 0, -3]], in [-1, [3, 0, -3]]: v(u) = dv * 9u(1-u); u = 0.5 -> 2.25 dv/3
      local c = bz {
        { 0, { 0, 0, 0 }, "bezier", { out = { 1, { 3, 0, -3 } } } },
        { 3, { 0, 0, 0 }, "linear", { ["in"] = { -1, { 3, 0, -3 } } } },
      }
      near_vec({ 2.25, 0, -2.25 }, c:sample(1.5).a.position)
      -- t = 1, u = 1/3: 9 (1/3)(2/3) = 2
      near_vec({ 2, 0, -2 }, c:sample(1).a.position)
    end)

    it("per-axis dt: each axis travels the segment on its own time line", function()
      -- out [[1, 2, 0.5], [3, 0, 1]] on (0, 0); in [[-1, -2, -0.5], [6, 8, 1]] on (3, 0):
      -- x: times 0, 1, 2, 3: t = 3u, v = 9u(1-u)^2 + 18u^2(1-u)
      -- y: times 0, 2, 1, 3: t = 6u(1-u)^2 + 3u^2(1-u) + 3u^3, v = 24u^2(1-u)
      -- z: times 0, 0.5, 2.5, 3: t = 1.5u(1-u)^2 + 7.5u^2(1-u) + 3u^3, v = 3u(1-u)
      local keys = {
        { 0, { 0, 0, 0 }, "bezier", { out = { { 1, 2, 0.5 }, { 3, 0, 1 } } } },
        { 3, { 0, 0, 0 }, "linear", { ["in"] = { { -1, -2, -0.5 }, { 6, 8, 1 } } } },
      }
      local function x(u) return 9 * u * (1 - u) ^ 2 + 18 * u * u * (1 - u) end
      for _, c in ipairs { bz(keys), decode(anim.encode(bz(keys))) } do
        -- t = 1.5: u = 0.5 on every axis (each time line is symmetric)
        near_vec({ 3.375, 3, 0.75 }, c:sample(1.5).a.position)
        -- t = 1.03125: y at u = 0.25 (6 0.25 0.5625 + 3 0.0625 0.75 + 3 0.015625), x at u = t/3
        local p = c:sample(1.03125).a.position
        near(24 * 0.0625 * 0.75, p[2])
        near(x(1.03125 / 3), p[1])
        -- t = 0.609375: z at u = 0.25 (1.5 0.25 0.5625 + 7.5 0.0625 0.75 + 3 0.015625)
        near(3 * 0.25 * 0.75, c:sample(0.609375).a.position[3])
      end
      -- a property's components likewise (here x and y of the channel above)
      local c = clip_of { joints = {}, properties = { p = {
        { 0, { 0, 0 }, "bezier", { out = { { 1, 2 }, { 3, 0 } } } },
        { 3, { 0, 0 }, "linear", { ["in"] = { { -1, -2 }, { 6, 8 } } } },
      } } }
      near_vec({ 3.375, 3 }, c:sample(1.5).properties.p)
      near_vec({ x(1.03125 / 3), 1.125 }, c:sample(1.03125).properties.p)
    end)

    it("a scalar dv applies to all three axes", function()
      local c = bz {
        { 0, { 0, 0, 0 }, "bezier", { out = { 1, 3 } } },
        { 3, { 0, 0, 0 }, "linear", { ["in"] = { -1, 3 } } },
      }
      near_vec({ 2.25, 2.25, 2.25 }, c:sample(1.5).a.position)
    end)

    it("missing handles are flat and a third of the segment long", function()
      -- (0, [0, 0, 0]) -> (2, [10, 20, -10]): t = 2u, v = v0 + dv (3u^2 - 2u^3)
      local c = bz { { 0, { 0, 0, 0 }, "bezier" }, { 2, { 10, 20, -10 } } }
      -- t = 0.5, u = 0.25: 3/16 - 2/64 = 0.15625
      near_vec({ 1.5625, 3.125, -1.5625 }, c:sample(0.5).a.position)
      -- t = 1, u = 0.5: halfway
      near_vec({ 5, 10, -5 }, c:sample(1).a.position)
      -- one handle given, the other missing: (0, 0) out [1, 3]; (3, 0), in flat [-1, 0]
      -- v(u) = 9u(1-u)^2; u = 0.5 -> 1.125
      local d = bz { { 0, { 0, 0, 0 }, "bezier", { out = { 1, 3 } } }, { 3, { 0, 0, 0 } } }
      near(1.125, px(d, 1.5))
    end)

    it("an out handle with dt < 0 counts as dt = 0", function()
      -- (0, 0) out [-1, 3] -> P1 = (0, 3); (3, 0) in flat -> P2 = (2, 0)
      -- t(u) = 3*2 u^2(1-u) + 3u^3 = 6u^2 - 3u^3; at u = 0.5: 1.5 - 0.375 = 1.125
      -- v(u) = 3*3 u(1-u)^2 = 9u(1-u)^2; at u = 0.5: 1.125
      local c = bz { { 0, { 0, 0, 0 }, "bezier", { out = { -1, 3 } } }, { 3, { 0, 0, 0 } } }
      near(1.125, px(c, 1.125), 1e-12)
    end)

    it("an in handle with dt > 0 counts as dt = 0", function()
      -- (0, 0) out flat -> P1 = (1, 0); (3, 0) in [1, 3] -> P2 = (3, 3)
      -- t(u) = 3u(1-u)^2 + 9u^2(1-u) + 3u^3 = 3u + 3u^2 - 3u^3; at u = 0.5: 1.875
      -- v(u) = 3*3 u^2(1-u); at u = 0.5: 1.125
      local c = bz { { 0, { 0, 0, 0 }, "bezier" }, { 3, { 0, 0, 0 }, "linear", { ["in"] = { 1, 3 } } } }
      near(1.125, px(c, 1.875), 1e-12)
    end)

    it("a handle longer than the segment is scaled down to it, keeping its slope", function()
      -- (0, 0) out [2, 4] on a segment of 1 -> [1, 2]; (1, 0) in flat [-1/3, 0]
      -- P = (0,0), (1,2), (2/3,0), (1,0): t(u) = 3u(1-u)^2 + 2u^2(1-u) + u^3 = 3u - 4u^2 + 2u^3
      -- at u = 0.5: 1.5 - 1 + 0.25 = 0.75; v(u) = 6u(1-u)^2 = 0.75
      local c = bz { { 0, { 0, 0, 0 }, "bezier", { out = { 2, 4 } } }, { 1, { 0, 0, 0 } } }
      near(0.75, px(c, 0.75), 1e-12)
      -- the in side: (0, 0) out flat [1/3, 0]; (1, 0) in [-3, 6] -> [-1, 2]
      -- P = (0,0), (1/3,0), (0,2), (1,0): t(u) = u(1-u)^2 + u^3 = u - 2u^2 + 2u^3, 0.25 at u = 0.5
      -- v(u) = 6u^2(1-u) = 0.75
      local d = bz { { 0, { 0, 0, 0 }, "bezier" }, { 1, { 0, 0, 0 }, "linear", { ["in"] = { -3, 6 } } } }
      near(0.75, px(d, 0.25), 1e-12)
    end)

    it("only the key that starts the segment decides it is bezier", function()
      -- a linear key with an out handle is linear
      local c = bz { { 0, { 0, 0, 0 }, "linear", { out = { 1, 30 } } }, { 3, { 3, 3, 3 } } }
      near(1.5, px(c, 1.5))
    end)
  end)

  describe("easings", function()
    -- key (1, 2) eased to (3, 6): s = (t - 1)/2 and v = 2 + 4 e(s)
    local FRACTIONS = { 0.1, 0.25, 0.5, 0.7, 0.9 }

    local function eased(name, ease)
      local extra = ease and { ease = ease } or nil
      return pos_clip { { 1, { 2, 2, 2 }, name, extra }, { 3, { 6, 6, 6 } } }
    end

    for _, name in ipairs(EASING_NAMES) do
      for _, dir in ipairs { "in", "out", "inOut" } do
        it(name .. " " .. dir, function()
          local c = eased(name, dir)
          for _, s in ipairs(FRACTIONS) do
            near(2 + 4 * EASE[name][dir](s), px(c, 1 + 2 * s), 1e-12, name .. " " .. dir .. " at s=" .. s)
          end
        end)
      end

      it(name .. " by default eases " .. (DEFAULT_DIR[name] or "in"), function()
        local want = EASE[name][DEFAULT_DIR[name] or "in"]
        local c = eased(name, nil)
        -- the same default when the extra is there but has no ease
        local d = pos_clip { { 1, { 2, 2, 2 }, name, { type = "breakdown" } }, { 3, { 6, 6, 6 } } }
        for _, s in ipairs(FRACTIONS) do
          near(2 + 4 * want(s), px(c, 1 + 2 * s), 1e-12, name .. " default at s=" .. s)
          near(2 + 4 * want(s), px(d, 1 + 2 * s), 1e-12, name .. " default (extra) at s=" .. s)
        end
      end)
    end

    it("every easing starts exactly at its key", function()
      -- e(0) = 0 for every curve and direction (expo and elastic by their
      -- special cases: the bare formulas give 2^-10 and -2^-10 sin(...))
      for _, name in ipairs(EASING_NAMES) do
        for _, dir in ipairs { "in", "out", "inOut" } do
          near(2, px(eased(name, dir), 1), 1e-15, name .. " " .. dir .. " at its key")
        end
      end
    end)

    it("the directions differ (the checks above can tell them apart)", function()
      -- quad at s = 0.25: in 0.0625, out 0.4375, inOut 0.125
      near(2 + 4 * 0.0625, px(eased("quad", "in"), 1.5))
      near(2 + 4 * 0.4375, px(eased("quad", "out"), 1.5))
      near(2 + 4 * 0.125, px(eased("quad", "inOut"), 1.5))
    end)

    it("expo is exactly 0 at s = 0 (2^-10 by the bare formula)", function()
      for _, dir in ipairs { "in", "inOut" } do
        assert.are.equal(2, px(eased("expo", dir), 1))
      end
    end)

    it("back overshoots past the next key", function()
      -- back out at s = 0.7: 1 + 2.70158 (-0.3)^3 + 1.70158 (0.3)^2 = 1.0802...
      local v = px(eased("back", "out"), 1 + 2 * 0.7)
      assert.is_true(v > 6, "back out should overshoot 6, got " .. v)
    end)
  end)

  describe("quaternion keys", function()
    local function qclip(keys)
      return clip_of { joints = { a = { rotation = keys } } }
    end
    local function rot(c, t) return c:sample(t).a.rotation end

    it("slerp at constant angular speed", function()
      -- identity -> 90 degrees about z: at s the turn is 90 s degrees
      local c = qclip { { 0, { 0, 0, 0, 1 } }, { 1, qaxis(3, 90) } }
      near_quat(qaxis(3, 22.5), rot(c, 0.25))
      near_quat(qaxis(3, 45), rot(c, 0.5))
      near_quat(qaxis(3, 67.5), rot(c, 0.75))
    end)

    it("take the shortest arc", function()
      -- the second key is -q(y, 90), the same turn: halfway is 45 about y, not -135
      local neg = qaxis(2, 90)
      for i = 1, 4 do neg[i] = -neg[i] end
      local c = qclip { { 0, { 0, 0, 0, 1 } }, { 1, neg } }
      near_quat(qaxis(2, 45), rot(c, 0.5))
      near_quat(qaxis(2, 22.5), rot(c, 0.25))
    end)

    it("step holds", function()
      local c = qclip { { 0, { 0, 0, 0, 1 }, "step" }, { 1, qaxis(1, 90) } }
      near_quat({ 0, 0, 0, 1 }, rot(c, 0.5))
      near_quat({ 0, 0, 0, 1 }, rot(c, 0.999))
      near_quat(qaxis(1, 90), rot(c, 1))
    end)

    it("easings shape the slerp fraction", function()
      -- quad (in by default) at s = 0.5: fraction 0.25, so 22.5 degrees
      local c = qclip { { 0, { 0, 0, 0, 1 }, "quad" }, { 1, qaxis(3, 90) } }
      near_quat(qaxis(3, 22.5), rot(c, 0.5))
      -- sine out at s = 0.5: sin(pi/4) = 0.7071..., so 63.6396... degrees
      local d = qclip { { 0, { 0, 0, 0, 1 }, "sine", { ease = "out" } }, { 1, qaxis(3, 90) } }
      near_quat(qaxis(3, 90 * math.sin(PI / 4)), rot(d, 0.5))
    end)

    it("an overshooting easing carries on along the arc past the key", function()
      -- back out at s = 0.7: fraction 1.0802..., so 97.2 degrees about z
      local c = qclip { { 0, { 0, 0, 0, 1 }, "back" }, { 1, qaxis(3, 90) } }
      local f = EASE.back.out(0.7)
      assert.is_true(f > 1)
      near_quat(qaxis(3, 90 * f), rot(c, 0.7))
    end)

    it("catmullrom and bezier act as linear", function()
      for _, interp in ipairs { "catmullrom", "bezier" } do
        local c = qclip { { 0, { 0, 0, 0, 1 }, interp }, { 1, qaxis(3, 60) }, { 2, qaxis(3, 180) } }
        near_quat(qaxis(3, 15), rot(c, 0.25), TOL, interp)
      end
    end)

    it("non-unit keys are normalised", function()
      local c = qclip { { 0, { 0, 0, 0, 2 } }, { 1, { 0, 3, 0, 3 } } }
      near_quat({ 0, 0, 0, 1 }, rot(c, 0))
      near_quat({ 0, SQ, 0, SQ }, rot(c, 1))
      near_quat(qaxis(2, 45), rot(c, 0.5))
    end)

    it("jumps: arrive at the first, right-continuous, leave from the last", function()
      -- identity (0) -> x 90 (1) | x -90 (1) -> identity (2)
      local c = qclip { { 0, { 0, 0, 0, 1 } }, { 1, qaxis(1, 90) }, { 1, qaxis(1, -90) }, { 2, { 0, 0, 0, 1 } } }
      near_quat(qaxis(1, 45), rot(c, 0.5))
      near_quat(qaxis(1, -90), rot(c, 1))
      near_quat(qaxis(1, -45), rot(c, 1.5))
    end)

    it("hold before the first key and after the last", function()
      local c = qclip { { 1, qaxis(1, 30) }, { 2, qaxis(1, 60) } }
      near_quat(qaxis(1, 30), rot(c, 0))
      near_quat(qaxis(1, 60), rot(c, 5))
    end)
  end)

  describe("Euler angles", function()
    local function eclip(angles, euler)
      return clip_of { euler = euler, joints = { a = { rotation = { { 0, angles } } } } }
    end
    local function rot(c) return c:sample(0).a.rotation end

    it("one axis: [90, 0, 0] is a quarter turn about x", function()
      near_quat({ SQ, 0, 0, SQ }, rot(eclip { 90, 0, 0 }))
      near_quat({ 0, SQ, 0, SQ }, rot(eclip { 0, 90, 0 }))
      near_quat({ 0, 0, SQ, SQ }, rot(eclip { 0, 0, 90 }))
    end)

    it("the default order is yxz: R = Ry Rx Rz", function()
      -- [90, 90, 0]: Rx(90) takes y to z, Ry(90) takes z to x, so y -> x;
      -- x is left by Rx and Ry(90) takes it to -z
      local q = rot(eclip { 90, 90, 0 })
      near_vec({ 0, 0, -1 }, qrotate(q, { 1, 0, 0 }), 1e-12, "x")
      near_vec({ 1, 0, 0 }, qrotate(q, { 0, 1, 0 }), 1e-12, "y")
    end)

    it("xyz is R = Rx Ry Rz", function()
      -- [90, 90, 0]: Ry(90) takes x to -z, Rx(90) takes -z to y
      local q = rot(eclip({ 90, 90, 0 }, "xyz"))
      near_vec({ 0, 1, 0 }, qrotate(q, { 1, 0, 0 }), 1e-12, "x")
    end)

    it("every order composes R = R_a R_b R_c (checked against rotation matrices)", function()
      local angles = { 30, 50, 70 }
      local by = { x = angles[1], y = angles[2], z = angles[3] }
      for _, order in ipairs { "xyz", "xzy", "yxz", "yzx", "zxy", "zyx" } do
        local a, b, cc = order:sub(1, 1), order:sub(2, 2), order:sub(3, 3)
        local m = mmul(mmul(rmat(a, by[a]), rmat(b, by[b])), rmat(cc, by[cc]))
        local q = rot(eclip(angles, order))
        for j = 1, 3 do
          local e = { 0, 0, 0 }
          e[j] = 1
          near_vec(column(m, j), qrotate(q, e), 1e-12, order .. " column " .. j)
        end
      end
    end)

    it("the orders give different rotations (the check above can fail)", function()
      local q1, q2 = rot(eclip({ 30, 50, 70 }, "xyz")), rot(eclip({ 30, 50, 70 }, "zyx"))
      assert.is_true(H.quatdiff(q1, q2) > 0.1)
    end)

    it("angles are interpolated one axis at a time (more than half a turn is possible)", function()
      local c = clip_of { joints = { a = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 360, 0 } } } } } }
      near_quat(qaxis(2, 90), c:sample(0.25).a.rotation)
      near_quat(qaxis(2, 180), c:sample(0.5).a.rotation)
      near_quat(qaxis(2, 270), c:sample(0.75).a.rotation)
    end)

    it("sampled rotations are unit quaternions", function()
      local c = clip_of { euler = "zyx", joints = { a = { rotation = {
        { 0, { 10, 20, 30 }, "catmullrom" }, { 0.4, { 200, -50, 7 }, "back" }, { 1, { -30, 90, 400 }, "bezier" }, { 2, { 0, 0, 0 } },
      } } } }
      for i = 0, 40 do
        local q = c:sample(i / 20).a.rotation
        near(1, math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2), 1e-14, "norm at " .. i / 20)
      end
    end)
  end)

  describe("what sample returns", function()
    local c = decode [==[{
      "joints": {
        "p": {"position": [[0, [1, 2, 3]]]},
        "r": {"rotation": [[0, [0, 0, 0, 1]]]},
        "s": {"scale": [[0, [2, 2, 2]]]},
        "all": {"position": [[0, [0, 0, 0]]], "rotation": [[0, [0, 90, 0]]], "scale": [[0, [1, 1, 1]]]},
        "none": {"weight": 0.5},
        "empty": {"position": []}
      }
    }]==]

    local function keys_of(t)
      local ks = {}
      for k in pairs(t) do ks[#ks + 1] = k end
      table.sort(ks)
      return ks
    end

    it("holds only the joints and channels the clip animates", function()
      local pose = c:sample(0)
      -- "none" has no channel and "empty" an empty one: neither is animated
      assert.are.same({ "all", "p", "r", "s" }, keys_of(pose))
      assert.are.same({ "position" }, keys_of(pose.p))
      assert.are.same({ "rotation" }, keys_of(pose.r))
      assert.are.same({ "scale" }, keys_of(pose.s))
      assert.are.same({ "position", "rotation", "scale" }, keys_of(pose.all))
    end)

    it("gives each channel as a plain array of numbers", function()
      local pose = c:sample(0)
      local function is_plain(v, n)
        local count = 0
        for k, x in pairs(v) do
          count = count + 1
          if not H.is_integer(k) or k < 1 or k > n or type(x) ~= "number" then return false end
        end
        return count == n
      end
      assert.is_true(is_plain(pose.all.position, 3))
      assert.is_true(is_plain(pose.all.rotation, 4))
      assert.is_true(is_plain(pose.all.scale, 3))
      assert.are.same({ 1, 2, 3 }, pose.p.position)
      assert.are.same({ 2, 2, 2 }, pose.s.scale)
      near_quat({ 0, SQ, 0, SQ }, pose.all.rotation)
    end)

    it("gives fresh tables each time", function()
      local a, b = c:sample(0), c:sample(0)
      assert.are_not.equal(a, b)
      assert.are_not.equal(a.p.position, b.p.position)
      a.p.position[1] = 99
      assert.are.equal(1, c:sample(0).p.position[1])
    end)
  end)

  describe("version 1 poses", function()
    -- a: position 0 -> 4 -> 4; b: 2 -> (left out: rest 0) -> 6;
    -- r: angles 0 -> y 90 -> (left out: rest, no turn)
    local c = decode [==[{
      "keyframes": [
        {"time": 0, "poses": {"a": {"position": [0, 0, 0]}, "b": {"position": [2, 0, 0]}, "r": {"angles": [0, 0, 0]}}},
        {"time": 1, "poses": {"a": {"position": [4, 0, 0]}, "r": {"angles": [0, 90, 0]}}},
        {"time": 2, "poses": {"a": {"position": [4, 0, 0]}, "b": {"position": [6, 0, 0]}}}
      ],
      "markers": [{"time": 3, "name": "late"}]
    }]==]

    it("interpolates linearly by default", function()
      near_vec({ 2, 0, 0 }, c:sample(0.5).a.position)
      near_vec({ 4, 0, 0 }, c:sample(1.5).a.position)
    end)

    it("a joint left out of a keyframe is at rest there, reached and left linearly", function()
      near_vec({ 1, 0, 0 }, c:sample(0.5).b.position)  -- 2 -> 0
      near_vec({ 0, 0, 0 }, c:sample(1).b.position)    -- the rest key
      near_vec({ 3, 0, 0 }, c:sample(1.5).b.position)  -- 0 -> 6, linear from the rest key
      near_quat(qaxis(2, 45), c:sample(0.5).r.rotation)   -- slerp 0 -> 90
      near_quat(qaxis(2, 45), c:sample(1.5).r.rotation)   -- 90 -> rest
      near_quat({ 0, 0, 0, 1 }, c:sample(2).r.rotation)
    end)

    it("animates only the channels some pose gives", function()
      local pose = c:sample(0.5)
      assert.is_nil(pose.a.rotation)
      assert.is_nil(pose.r.position)
      assert.is_nil(pose.a.scale)
    end)

    it("takes the length from the last keyframe, not the markers", function()
      assert.are.equal(2, c.length)
      assert.are.equal(5, decode('{"length": 5, "keyframes": [{"time": 0}, {"time": 2}]}').length)
    end)

    it("defaults: once, priority 0, yxz", function()
      assert.are.equal("once", c.loop)
      assert.are.equal(0, c.priority)
      assert.are.equal("yxz", c.euler)
    end)

    it("looped true is loop, false is once; priority names and numbers", function()
      local l = decode('{"looped": true, "priority": "action", "keyframes": [{"time": 0}]}')
      assert.are.equal("loop", l.loop)
      assert.are.equal(3, l.priority)
      local o = decode('{"looped": false, "priority": 4.5, "keyframes": [{"time": 0}]}')
      assert.are.equal("once", o.loop)
      assert.are.equal(4.5, o.priority)
    end)

    local function v1_pos(easing, direction)
      local pose = { position = { 0, 0, 0 }, easing = easing, direction = direction }
      return clip_of { keyframes = {
        { time = 0, poses = { a = pose } },
        { time = 1, poses = { a = { position = { 4, 0, 0 } } } },
      } }
    end

    it("constant is step", function()
      local s = v1_pos("constant")
      assert.are.equal(0, px(s, 0.5))
      assert.are.equal(0, px(s, 0.999))
      assert.are.equal(4, px(s, 1))
    end)

    it("easing names in any letter case, direction inOut by default", function()
      -- quad inOut at 0.25: 2 * 0.0625 = 0.125 -> 0.5
      near(0.5, px(v1_pos("QUAD"), 0.25))
      near(4 * EASE.quad.inOut(0.25), px(v1_pos("quad"), 0.25))
      -- back inOut (not out as in version 3)
      near(4 * EASE.back.inOut(0.25), px(v1_pos("Back"), 0.25))
      near(4 * EASE.sine.inOut(0.3), px(v1_pos("sInE"), 0.3))
      -- and Constant / LINEAR
      assert.are.equal(0, px(v1_pos("Constant"), 0.5))
      near(2, px(v1_pos("LINEAR"), 0.5))
    end)

    it("directions in any letter case", function()
      near(4 * EASE.cubic["in"](0.3), px(v1_pos("cubic", "In"), 0.3))
      near(4 * EASE.cubic.out(0.3), px(v1_pos("cubic", "OUT"), 0.3))
      near(4 * EASE.elastic.inOut(0.3), px(v1_pos("elastic", "inout"), 0.3))
      near(4 * EASE.bounce.out(0.6), px(v1_pos("bounce", "out"), 0.6))
    end)

    it("eases rotations too (the easing shapes the slerp)", function()
      -- quad inOut at 0.25: fraction 0.125 of 90 degrees
      local q = clip_of { keyframes = {
        { time = 0, poses = { a = { angles = { 0, 0, 0 }, easing = "quad" } } },
        { time = 1, poses = { a = { angles = { 0, 0, 90 } } } },
      } }
      near_quat(qaxis(3, 11.25), q:sample(0.25).a.rotation)
    end)

    it("composes angles in yxz", function()
      local q = clip_of { keyframes = { { time = 0, poses = { a = { angles = { 90, 90, 0 } } } } } }
      local r = q:sample(0).a.rotation
      near_vec({ 0, 0, -1 }, qrotate(r, { 1, 0, 0 }), 1e-12, "x")
      near_vec({ 1, 0, 0 }, qrotate(r, { 0, 1, 0 }), 1e-12, "y")
    end)

    it("a rotation quaternion wins over angles, and is normalised", function()
      local q = clip_of { keyframes = { { time = 0, poses = { a = { rotation = { 0, 0, 2, 2 }, angles = { 90, 0, 0 } } } } } }
      near_quat({ 0, 0, SQ, SQ }, q:sample(0).a.rotation)
    end)
  end)
end)

describe("clip:sample's key cursors", function()
  it("give the same values in any order of times as a fresh search", function()
    -- forward, backward and random orders over a clip with jumps, steps,
    -- easings, bezier, catmullrom and quaternion keys
    local src = [==[{"length": 2, "loop": "loop", "joints": {
      "a": {"position": [[0, [0, 0, 0], "catmullrom"], [0.5, [1, 2, 3], "step"], [0.5, [2, 2, 2], "bezier"],
                         [1.2, [-1, 0, 1], "back"], [2, [0, 0, 0]]]},
      "b": {"rotation": [[0, [0, 0, 0, 1], "sine"], [0.7, [0, 0.7071, 0, 0.7071]], [1.4, [1, 0, 0, 0], "step"], [2, [0, 0, 0, 1]]]}}}]==]
    local c = assert(anim.decode(src))
    local times = {}
    for i = 0, 400 do times[#times + 1] = i / 200 - 0.01 end
    for i = 400, 0, -1 do times[#times + 1] = i / 200 end
    math.randomseed(7)
    for _ = 1, 400 do times[#times + 1] = math.random() * 2.2 - 0.1 end
    for _, t in ipairs(times) do
      local fresh = assert(anim.decode(src)):sample(t)
      local got = c:sample(t)
      assert.are.same(fresh, got)
    end
  end)
end)
