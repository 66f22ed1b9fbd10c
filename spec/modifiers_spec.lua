-- Curve modifiers (SEMANTICS 3, anim-format.txt "Curve modifiers"), one
-- behaviour at a time, with values worked out by hand from the formulas.
-- Most cases put the modifiers on the x axis of a position channel whose
-- keys make a straight line, so that the expected values are plain
-- arithmetic; the shared conformance vectors check the same code against
-- Blender on busier curves.
local anim = require "anim"
local core = require "anim.core"
local compat = require "anim.base.compat"

local function near(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-9)
end

-- Asserts f(t) for every { t, expected } pair, naming the time on failure.
local function expect(f, pairs_)
  for _, p in ipairs(pairs_) do
    local got = f(p[1])
    assert(near(got, p[2], p[3]), string.format("at t=%.17g: got %.17g, expected %.17g", p[1], got, p[2]))
  end
end

-- A clip with one joint "j" whose position keys are { time, x } (y, z = 0,
-- interpolation optional third field) and whose position modifiers are mods.
local function xclip(keys, mods)
  local list = {}
  for i, k in ipairs(keys) do list[i] = { k[1], { k[2], 0, 0 }, k[3] } end
  local c, err = anim.clip({ version = 3, joints = { j = { position = list, modifiers = { position = mods } } } }, "m")
  assert(c, err)
  return c
end

-- x(t) of such a clip.
local function xcurve(keys, mods)
  local c = xclip(keys, mods)
  return function(t) return c:sample(t).j.position[1] end
end

-- The keys used most: x goes from 0 at t=1 to 10 at t=3 in a straight line.
local LINE = { { 1, 0 }, { 3, 10 } }

describe("cycles", function()
  it("repeats the keyed range before and after it by default", function()
    local f = xcurve(LINE, { { type = "cycles" } })
    expect(f, {
      { 2, 5 }, { 1.5, 2.5 },        -- inside the range: the keys
      { 3.5, 2.5 }, { 4, 5 }, { 5.5, 2.5 }, { 101.5, 2.5 },
      { 0.5, 7.5 }, { -2, 5 }, { -1.5, 7.5 },
    })
  end)

  it("none holds the first and the last value", function()
    local f = xcurve(LINE, { { type = "cycles", before = "none", after = "none" } })
    expect(f, { { 0, 0 }, { -5, 0 }, { 4, 10 }, { 100, 10 }, { 2, 5 } })
  end)

  it("after: repeat and before: none act on their own side only", function()
    local f = xcurve(LINE, { { type = "cycles", before = "none", after = "repeat" } })
    expect(f, { { 0.5, 0 }, { -2, 0 }, { 4, 5 }, { 3.5, 2.5 } })
    local g = xcurve(LINE, { { type = "cycles", before = "repeat", after = "none" } })
    expect(g, { { 0.5, 7.5 }, { -2, 5 }, { 4, 10 }, { 3.5, 10 } })
  end)

  it("offset climbs by the change over the range every cycle, both ways", function()
    -- on a straight line, offset continues the line: x = 5 (t - 1)
    local f = xcurve(LINE, { { type = "cycles", before = "offset", after = "offset" } })
    expect(f, {
      { 4, 15 }, { 5, 20 }, { 6, 25 }, { 7.5, 32.5 },
      { 0.5, -2.5 }, { -1, -10 }, { -3, -20 },
    })
  end)

  it("mirror runs every second cycle backwards, both ways", function()
    local f = xcurve(LINE, { { type = "cycles", before = "mirror", after = "mirror" } })
    expect(f, {
      { 3.5, 7.5 }, { 4, 5 }, { 4.5, 2.5 },  -- cycle 1: backwards from 10
      { 5.5, 2.5 }, { 6.5, 7.5 },            -- cycle 2: forwards again
      { 7.5, 7.5 },                           -- cycle 3: backwards
      { 0.5, 2.5 }, { -0.5, 7.5 }, { -1, 10 }, -- cycle -1: backwards
      { -1.5, 7.5 }, { -2, 5 },               -- cycle -2: forwards
    })
  end)

  it("mirror and repeat differ on a curve that is not symmetric", function()
    -- quad eases in: x = 8 s^2 with s = (t - 1) / 2
    local keys = { { 1, 0, "quad" }, { 3, 8 } }
    local m = xcurve(keys, { { type = "cycles", after = "mirror" } })
    local r = xcurve(keys, { { type = "cycles", after = "repeat" } })
    expect(m, { { 3.5, 4.5 }, { 4.5, 0.5 } }) -- t' = 2.5 (s = 0.75), t' = 1.5 (s = 0.25)
    expect(r, { { 3.5, 0.5 }, { 4.5, 4.5 } }) -- t' = 1.5, t' = 2.5
  end)

  it("a range of length 0 behaves as none", function()
    local one = xcurve({ { 2, 7 } }, { { type = "cycles", before = "offset", after = "repeat" } })
    expect(one, { { 0, 7 }, { 10, 7 } })
    -- two keys at one time (a jump): the first value before, the last after
    local jump = xcurve({ { 2, 1 }, { 2, 5 } }, { { type = "cycles", before = "offset", after = "offset" } })
    expect(jump, { { 0, 1 }, { 3, 5 }, { -10, 1 }, { 10, 5 } })
  end)
end)

describe("stepped", function()
  local KEYS = { { 0, 0 }, { 1, 10 } } -- x = 10 t

  it("holds the curve on a grid of step seconds", function()
    local f = xcurve(KEYS, { { type = "stepped", step = 0.25 } })
    expect(f, { { 0.2, 0 }, { 0.3, 2.5 }, { 0.5, 5 }, { 0.99, 7.5 } })
  end)

  it("starts the grid at offset", function()
    local f = xcurve(KEYS, { { type = "stepped", step = 0.25, offset = 0.1 } })
    expect(f, { { 0.3, 1 }, { 0.36, 3.5 }, { 0.1, 1 } })
  end)

  it("rounds down before the offset too (floor, not truncation toward it)", function()
    -- t' = 0.6 + floor(-0.1 / 0.25) * 0.25 = 0.35; truncation would give 0.6
    local f = xcurve(KEYS, { { type = "stepped", step = 0.25, offset = 0.6 } })
    expect(f, { { 0.5, 3.5 } })
  end)

  it("defaults to step 0.1 and offset 0", function()
    local f = xcurve(KEYS, { { type = "stepped" } })
    expect(f, { { 0.05, 0 }, { 0.35, 3 }, { 0.71, 7 } })
  end)
end)

-- The noise function exactly as docs/formats.md defines it, written again
-- in Lua from that text: the C core must give the same bits (it is built
-- without FMA contraction, and the definition uses only +, -, * and floor
-- on doubles and 32-bit integer arithmetic).
local G = 0.70710678118654752
local GRADIENTS = { { 1, 0 }, { G, G }, { 0, 1 }, { -G, G }, { -1, 0 }, { -G, -G }, { 0, -1 }, { G, -G } }
-- (32-bit arithmetic through compat, in doubles below 2^53: the spec runs
-- on 5.1 and LuaJIT, which have no integers nor bit operators)
local bxor, rshift = compat.bxor, compat.rshift
local function u32(v) return v % 4294967296 end
-- a * b modulo 2^32, exactly: each partial product stays below 2^49
local function mul32(a, b)
  a, b = u32(a), u32(b)
  local ah, al = math.floor(a / 65536), a % 65536
  return u32(al * b + (ah * b % 65536) * 65536)
end
local function hash2(ix, iy)
  local h = bxor(mul32(ix, 0x8da6b343), mul32(iy, 0xd8163841))
  h = bxor(h, rshift(h, 15))
  h = mul32(h, 0x2c1b3c6d)
  h = bxor(h, rshift(h, 12))
  h = mul32(h, 0x297a2d39)
  h = bxor(h, rshift(h, 15))
  return h
end
local function grad(ix, iy, dx, dy)
  local g = GRADIENTS[hash2(ix, iy) % 8 + 1]
  return g[1] * dx + g[2] * dy
end
local function fade(u) return u * u * u * (u * (u * 6 - 15) + 10) end
local function ref_noise(x, y)
  local fx, fy = math.floor(x), math.floor(y)
  if not (math.abs(fx) < 4e15 and math.abs(fy) < 4e15) then return 0.5 end
  local ix, iy = compat.tointeger(fx), compat.tointeger(fy)
  local dx, dy = x - fx, y - fy
  local u, v = fade(dx), fade(dy)
  local a = grad(ix, iy, dx, dy) + u * (grad(ix + 1, iy, dx - 1, dy) - grad(ix, iy, dx, dy))
  local b = grad(ix, iy + 1, dx, dy - 1) + u * (grad(ix + 1, iy + 1, dx - 1, dy - 1) - grad(ix, iy + 1, dx, dy - 1))
  local n = 0.5 + (a + v * (b - a)) * G
  return n < 0 and 0 or n > 1 and 1 or n
end

describe("noise", function()
  local FLAT = { { 0, 5 } } -- x = 5 everywhere: what changes is the noise

  it("is the documented function, bit for bit", function()
    for i = 0, 3000 do
      local x, y = -40 + i * 0.0271, -3 + (i % 61) * 0.173
      assert.are.equal(ref_noise(x, y), core.noise(x, y))
    end
    -- negative lattice cells, and far from the origin
    assert.are.equal(ref_noise(-123456.789, -77.5), core.noise(-123456.789, -77.5))
    assert.are.equal(ref_noise(3e15 + 0.5, 0.25), core.noise(3e15 + 0.5, 0.25))
    -- beyond the lattice's range the noise is its mean
    assert.are.equal(0.5, core.noise(1e20, 0))
    assert.are.equal(0.5, core.noise(0 / 0, 0))
  end)

  it("adds strength * (n((t - offset) / scale, phase) - 0.5)", function()
    local f = xcurve(FLAT, { { type = "noise", scale = 0.5, strength = 2, phase = 0.3, offset = 0.25 } })
    for i = 0, 400 do
      local t = -2 + i * 0.0123
      assert.are.equal(5 + 2 * (ref_noise((t - 0.25) / 0.5, 0.3) - 0.5), f(t))
    end
  end)

  it("defaults to scale 1, strength 1, phase 0, offset 0", function()
    local f = xcurve(FLAT, { { type = "noise" } })
    for i = 0, 100 do
      local t = i * 0.037
      assert.are.equal(5 + (ref_noise(t, 0) - 0.5), f(t))
    end
  end)

  it("is 0 on the lattice: at every multiple of scale after offset, for a whole phase", function()
    -- gradient noise vanishes where both coordinates are whole numbers
    local f = xcurve(FLAT, { { type = "noise", scale = 0.5, strength = 3, offset = 0.25 } })
    for k = -4, 4 do assert(near(f(0.25 + 0.5 * k), 5, 1e-12), "at lattice point " .. k) end
    assert.is_true(math.abs(f(0.5) - 5) > 1e-3) -- and not everywhere
  end)

  it("gives the same values on every call, in any order, and in another clip", function()
    local mods = { { type = "noise", scale = 0.3, strength = 1.5, phase = 2.7 } }
    local f, g = xcurve(FLAT, mods), xcurve(FLAT, mods)
    local first = {}
    for i = 0, 200 do first[i] = f(i * 0.01) end
    for i = 200, 0, -1 do assert.are.equal(first[i], f(i * 0.01)) end -- backwards
    for i = 0, 200, 7 do assert.are.equal(first[i], g(i * 0.01)) end  -- another clip, skipping
  end)

  it("stays within strength/2 either way, and uses most of that range", function()
    local f = xcurve(FLAT, { { type = "noise", scale = 0.2, strength = 4, phase = 0.37 } })
    local lo, hi = math.huge, -math.huge
    for i = 0, 20000 do
      local v = f(-50 + i * 0.00517) - 5
      assert(v >= -2 and v <= 2, "out of range: " .. v)
      lo, hi = math.min(lo, v), math.max(hi, v)
    end
    assert.is_true(hi - lo > 2, string.format("the noise hardly moves (%g .. %g)", lo, hi))
  end)

  it("is smooth (C1): its slope has no jumps, also across lattice cells", function()
    local f = xcurve(FLAT, { { type = "noise", scale = 1, strength = 1, phase = 0.37 } })
    local h, step = 1e-5, 0.003
    local function slope(t) return (f(t + h) - f(t - h)) / (2 * h) end
    local prev, steepest = slope(-3), 0
    for i = 1, 2000 do
      local d = slope(-3 + i * step)
      -- a kink (a C0 noise) makes the slope jump by O(1) from one sample
      -- to the next; a C1 one changes it by at most |f''| * step
      assert(math.abs(d - prev) < 0.1, string.format("slope jumps at t=%g: %g -> %g", -3 + i * step, prev, d))
      steepest = math.max(steepest, math.abs(d))
      prev = d
    end
    -- at the lattice points themselves: left and right slopes agree
    for k = -2, 2 do
      local left, right = (f(k) - f(k - h)) / h, (f(k + h) - f(k)) / h
      assert(math.abs(left - right) < 1e-3, string.format("kink at %d: %g vs %g", k, left, right))
    end
    assert.is_true(steepest > 0.1) -- the slopes compared were not all flat
  end)

  it("takes another pattern for another phase", function()
    local a = xcurve(FLAT, { { type = "noise", phase = 0 } })
    local b = xcurve(FLAT, { { type = "noise", phase = 0.5 } })
    local c = xcurve(FLAT, { { type = "noise", phase = 7 } })
    local differ_b, differ_c = 0, 0
    for i = 1, 100 do
      local t = i * 0.0731
      if math.abs(a(t) - b(t)) > 1e-3 then differ_b = differ_b + 1 end
      if math.abs(a(t) - c(t)) > 1e-3 then differ_c = differ_c + 1 end
    end
    assert.is_true(differ_b > 80, differ_b .. " of 100 samples differ")
    assert.is_true(differ_c > 80, differ_c .. " of 100 samples differ")
  end)

  it("offset shifts the pattern in time, scale stretches it, strength scales it", function()
    local base = xcurve(FLAT, { { type = "noise", phase = 0.4 } })
    local shifted = xcurve(FLAT, { { type = "noise", phase = 0.4, offset = 0.3 } })
    local stretched = xcurve(FLAT, { { type = "noise", phase = 0.4, scale = 2 } })
    local stronger = xcurve(FLAT, { { type = "noise", phase = 0.4, strength = 3 } })
    for i = 0, 100 do
      local t = -1 + i * 0.0377
      assert.are.equal(base(t - 0.3), shifted(t))
      assert.are.equal(base(t / 2), stretched(t))
      assert(near(stronger(t) - 5, 3 * (base(t) - 5), 1e-12))
    end
    assert.are_not.equal(base(0.5), shifted(0.5))
  end)

  it("adds to the keyed curve", function()
    local f = xcurve({ { 0, 0 }, { 1, 10 } }, { { type = "noise", phase = 0.6 } })
    local flat = xcurve(FLAT, { { type = "noise", phase = 0.6 } })
    for i = 0, 20 do
      local t = i * 0.05
      assert(near(f(t) - 10 * t, flat(t) - 5, 1e-12))
    end
  end)

  it("reads the time after the time modifiers (held on a stepped grid)", function()
    local f = xcurve(FLAT, { { type = "stepped", step = 0.25 }, { type = "noise", phase = 0.6 } })
    assert.are.equal(f(0.3), f(0.45))
    assert.are.equal(5 + (ref_noise(0.25, 0.6) - 0.5), f(0.3))
    assert.are_not.equal(f(0.3), f(0.55))
  end)
end)

describe("limits", function()
  local KEYS = { { 0, -10 }, { 1, 10 } } -- x = 20 t - 10

  it("min only: clamps from below, no upper limit", function()
    local f = xcurve(KEYS, { { type = "limits", min = -5 } })
    expect(f, { { 0, -5 }, { 0.2, -5 }, { 0.5, 0 }, { 1, 10 } })
  end)

  it("max only: clamps from above, no lower limit", function()
    local f = xcurve(KEYS, { { type = "limits", max = 5 } })
    expect(f, { { 0, -10 }, { 0.5, 0 }, { 0.8, 5 }, { 1, 5 } })
  end)

  it("both", function()
    local f = xcurve(KEYS, { { type = "limits", min = -2, max = 3 } })
    expect(f, { { 0, -2 }, { 0.5, 0 }, { 0.6, 2 }, { 1, 3 } })
  end)

  it("min equal to max pins the value; no sides change nothing", function()
    expect(xcurve(KEYS, { { type = "limits", min = 1, max = 1 } }), { { 0, 1 }, { 1, 1 } })
    expect(xcurve(KEYS, { { type = "limits" } }), { { 0, -10 }, { 1, 10 } })
  end)
end)

describe("envelope", function()
  local KEYS = { { 0, 0 }, { 4, 4 } } -- x = t

  it("maps reference+min and reference+max onto the points' min and max, linear between points", function()
    -- defaults reference 0, min -1, max 1: v' = lo + (v + 1) (hi - lo) / 2
    local f = xcurve(KEYS, { { type = "envelope", points = { { 1, -2, 2 }, { 3, 0, 4 } } } })
    expect(f, {
      { 1, 2 },  -- lo -2, hi 2
      { 2, 5 },  -- halfway: lo -1, hi 3
      { 3, 8 },  -- lo 0, hi 4
    })
  end)

  it("holds the first point before it and the last after it", function()
    local f = xcurve(KEYS, { { type = "envelope", points = { { 1, -2, 2 }, { 3, 0, 4 } } } })
    -- extrapolating would give 0.5 at t=0.5 and 9.5 at t=3.5
    expect(f, { { 0, 0 }, { 0.5, 1 }, { 3.5, 9 }, { 4, 10 } })
  end)

  it("jumps where points share a time: from that time on the last of them counts, also at the first", function()
    -- at t = 1 the second point (lo 0, hi 4) counts: v' = 0 + (1 + 1) * 4 / 2 = 4; before it the first (-2, 2)
    local f = xcurve(KEYS, { { type = "envelope", points = { { 1, -2, 2 }, { 1, 0, 4 }, { 3, 0, 4 } } } })
    expect(f, { { 0.5, 1 }, { 1, 4 }, { 2, 6 } })
    -- a jump in the middle: at t = 2 the later point (10, 20) counts: 10 + (2 + 1) * 10 / 2
    local g = xcurve(KEYS, { { type = "envelope", points = { { 0, -1, 1 }, { 2, -1, 1 }, { 2, 10, 20 } } } })
    expect(g, { { 1.5, 1.5 }, { 2, 25 } })
  end)

  it("finds the points around the time among many", function()
    -- 201 points at t = k/50 with lo = -k, hi = k: between them lo and hi are linear
    local pts = {}
    for k = 0, 200 do pts[#pts + 1] = { k / 50, -k, k } end
    local f = xcurve(KEYS, { { type = "envelope", points = pts } })
    -- at t = 1.01 (between k = 50 and 51, halfway): lo = -50.5, hi = 50.5, v = 1.01:
    -- v' = -50.5 + (1.01 + 1) * 101 / 2
    expect(f, { { 1.01, -50.5 + 2.01 * 101 / 2 }, { 3.3, -165 + 4.3 * 330 / 2 } })
  end)

  it("uses reference, min and max", function()
    -- v' = 10 + (v - 1) * (20 - 10) / (2 - 0)
    local f = xcurve(KEYS, { { type = "envelope", reference = 1, min = 0, max = 2, points = { { 0, 10, 20 } } } })
    expect(f, { { 1, 10 }, { 2, 15 }, { 3, 20 } })
  end)

  it("min above max turns the curve over", function()
    -- v' = -1 + (v - 1) * (1 - -1) / (-1 - 1) = -v
    local f = xcurve(KEYS, { { type = "envelope", min = 1, max = -1, points = { { 0, -1, 1 } } } })
    expect(f, { { 2, -2 }, { 3.5, -3.5 } })
  end)

  it("without points changes nothing", function()
    expect(xcurve(KEYS, { { type = "envelope" } }), { { 1, 1 }, { 2.5, 2.5 } })
    expect(xcurve(KEYS, { { type = "envelope", points = {}, min = -3, max = 7 } }), { { 1, 1 }, { 2.5, 2.5 } })
  end)

  it("reads the time after the time modifiers", function()
    -- stepped holds t' = 1 over [1, 2): v = 1, lo = -0.5, hi = 1.5, so v' = 1.5;
    -- at the raw t = 1.5 it would be lo = -0.25: 1.75
    local f = xcurve(KEYS, { { type = "stepped", step = 1 },
      { type = "envelope", points = { { 0, -1, 1 }, { 2, 0, 2 } } } })
    expect(f, { { 1.5, 1.5 } })
  end)
end)

describe("several modifiers on one channel", function()
  local KEYS = { { 0, 0 }, { 1, 10 } } -- x = 10 t
  local DOUBLE = { type = "envelope", points = { { 0, -2, 2 } } } -- v' = 2 v

  it("run the time modifiers in listed order", function()
    -- stepped then cycles: 1.3 -> 1.2 -> 0.2 (x = 2); cycles then stepped: 1.3 -> 0.3 -> 0
    local a = xcurve(KEYS, { { type = "stepped", step = 0.4 }, { type = "cycles" } })
    local b = xcurve(KEYS, { { type = "cycles" }, { type = "stepped", step = 0.4 } })
    expect(a, { { 1.3, 2 } })
    expect(b, { { 1.3, 0 } })
  end)

  it("run the value modifiers in listed order", function()
    local a = xcurve(KEYS, { { type = "limits", max = 5 }, DOUBLE })
    local b = xcurve(KEYS, { DOUBLE, { type = "limits", max = 5 } })
    expect(a, { { 1, 10 }, { 0.25, 5 } })
    expect(b, { { 1, 5 }, { 0.25, 5 } })
  end)

  it("run the time modifiers before the value modifiers, wherever they are listed", function()
    -- stepped first: t' = 0.5, x = 5, doubled 10 (not 15, which doubling 7.5 gives)
    local a = xcurve(KEYS, { DOUBLE, { type = "stepped", step = 0.5 } })
    local b = xcurve(KEYS, { { type = "stepped", step = 0.5 }, DOUBLE })
    expect(a, { { 0.75, 10 } })
    expect(b, { { 0.75, 10 } })
  end)

  it("cycles with offset, then limits", function()
    local f = xcurve(KEYS, { { type = "cycles", after = "offset" }, { type = "limits", max = 12 } })
    expect(f, { { 1.1, 11 }, { 1.2, 12 }, { 1.5, 12 }, { 0.5, 5 } })
  end)
end)

describe("axis and enabled", function()
  local function pos_clip(mods)
    local c, err = anim.clip({ joints = { j = {
      position = { { 0, { 0, 0, 0 } }, { 1, { 10, 20, 30 } } },
      modifiers = { position = mods },
    } } }, "m")
    assert(c, err)
    return c
  end

  it("axis limits a modifier to x (0), y (1) or z (2); every axis when left out", function()
    local lim = function(axis) return { { type = "limits", max = 5, axis = axis } } end
    assert.are.same({ 5, 20, 30 }, pos_clip(lim(0)):sample(1).j.position)
    assert.are.same({ 10, 5, 30 }, pos_clip(lim(1)):sample(1).j.position)
    assert.are.same({ 10, 20, 5 }, pos_clip(lim(2)):sample(1).j.position)
    assert.are.same({ 5, 5, 5 }, pos_clip(lim(nil)):sample(1).j.position)
  end)

  it("modifiers on different axes of one channel", function()
    local c = pos_clip({ { type = "limits", max = 5, axis = 0 }, { type = "limits", min = 35, axis = 2 } })
    assert.are.same({ 5, 20, 35 }, c:sample(1).j.position)
  end)

  it("enabled: false skips a modifier; true is the default", function()
    assert.are.same({ 10, 20, 30 }, pos_clip({ { type = "limits", max = 5, enabled = false } }):sample(1).j.position)
    assert.are.same({ 5, 5, 5 }, pos_clip({ { type = "limits", max = 5, enabled = true } }):sample(1).j.position)
    -- a disabled time modifier too: after the keys the value is held
    assert.are.same({ 10, 20, 30 }, pos_clip({ { type = "cycles", enabled = false } }):sample(1.5).j.position)
    assert.are.same({ 5, 10, 15 }, pos_clip({ { type = "cycles" } }):sample(1.5).j.position)
  end)

  it("work on Euler rotation channels (on the angles) and on scale", function()
    local c = assert(anim.clip({ joints = { j = {
      rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } } },
      scale = { { 0, { 0, 0, 0 } }, { 1, { 2, 4, 6 } } },
      position = { { 0, { 0, 0, 0 } }, { 1, { 10, 20, 30 } } },
      modifiers = {
        rotation = { { type = "limits", max = 45, axis = 0 } },
        scale = { { type = "limits", min = 1 } },
      },
    } } }))
    local q = c:sample(1).j.rotation -- 45 degrees about x
    local s = math.sin(math.rad(22.5))
    assert(near(q[1], s, 1e-12) and near(q[2], 0, 1e-12) and near(q[3], 0, 1e-12) and near(q[4], math.cos(math.rad(22.5)), 1e-12),
      table.concat(q, ", "))
    assert.are.same({ 1, 1, 1 }, c:sample(0).j.scale)
    assert.are.same({ 2, 4, 6 }, c:sample(1).j.scale)
    -- the position channel has no modifiers of its own
    assert.are.same({ 10, 20, 30 }, c:sample(1).j.position)
  end)
end)

describe("bad modifier parameters", function()
  -- nil, message for a clip whose position channel has these modifiers
  local function load_err(mods, channel, quat)
    local keys = quat and { { 0, { 0, 0, 0, 1 } }, { 1, { 0, 1, 0, 0 } } } or { { 0, { 0, 0, 0 } }, { 1, { 1, 1, 1 } } }
    channel = channel or "position"
    local c, err = anim.clip({ joints = { j = { [channel] = keys, modifiers = { [channel] = mods } } } }, "m")
    assert.is_nil(c)
    return err
  end
  local P = "m: joints.j.modifiers.position[1]"

  it("unknown or missing type", function()
    assert.are.equal(P .. ".type: unknown modifier type 'wobble' (expected cycles, stepped, noise, limits, envelope)",
      load_err({ { type = "wobble" } }))
    assert.are.equal(P .. ".type: modifier type must be one of cycles, stepped, noise, limits, envelope, got nil",
      load_err({ { axis = 0 } }))
  end)

  it("unknown cycles mode, before or after", function()
    assert.are.equal(P .. ".before: unknown cycles mode 'bounce' (expected none, repeat, offset, mirror)",
      load_err({ { type = "cycles", before = "bounce" } }))
    assert.are.equal(P .. ".after: unknown cycles mode 'pingpong' (expected none, repeat, offset, mirror)",
      load_err({ { type = "cycles", after = "pingpong" } }))
    assert.are.equal(P .. ".after: cycles mode must be one of none, repeat, offset, mirror, got number",
      load_err({ { type = "cycles", after = 1 } }))
  end)

  it("step <= 0", function()
    assert.are.equal(P .. ".step: step must be greater than 0, got 0", load_err({ { type = "stepped", step = 0 } }))
    assert.are.equal(P .. ".step: step must be greater than 0, got -1", load_err({ { type = "stepped", step = -1 } }))
  end)

  it("noise scale <= 0", function()
    assert.are.equal(P .. ".scale: scale must be greater than 0, got 0", load_err({ { type = "noise", scale = 0 } }))
    assert.are.equal(P .. ".scale: scale must be greater than 0, got -2", load_err({ { type = "noise", scale = -2 } }))
  end)

  it("limits max < min, envelope max = min", function()
    assert.are.equal(P .. ".max: max (1) must not be less than min (2)", load_err({ { type = "limits", min = 2, max = 1 } }))
    assert.are.equal(P .. ".max: max must differ from min (both 1)", load_err({ { type = "envelope", min = 1, max = 1 } }))
  end)

  it("malformed envelope points", function()
    assert.are.equal(P .. ".points: points must be an array, got string", load_err({ { type = "envelope", points = "x" } }))
    assert.are.equal(P .. ".points[1]: envelope point [time, min, max] must be an array of 3 numbers, got an array of 2",
      load_err({ { type = "envelope", points = { { 0, 1 } } } }))
    assert.are.equal(P .. ".points[1]: envelope point [time, min, max] must be an array of 3 numbers, got number",
      load_err({ { type = "envelope", points = { 5 } } }))
    assert.are.equal(P .. ".points[2][3]: envelope point [time, min, max] component must be a finite number, got string",
      load_err({ { type = "envelope", points = { { 0, 0, 1 }, { 1, 0, "x" } } } }))
    assert.are.equal(P .. ".points[2][1]: envelope point times must not decrease (0 comes after 1)",
      load_err({ { type = "envelope", points = { { 1, 0, 1 }, { 0, 0, 1 } } } }))
  end)

  it("a modifier on a quaternion channel", function()
    assert.are.equal("m: joints.j.modifiers.rotation[1]: curve modifiers work on Euler angles, not on quaternion keys",
      load_err({ { type = "limits", max = 1 } }, "rotation", true))
  end)

  it("bad axis, enabled and parameter types", function()
    assert.are.equal(P .. ".axis: axis must be 0, 1 or 2 (x, y or z), got 3", load_err({ { type = "limits", axis = 3 } }))
    assert.are.equal(P .. ".axis: axis must be 0, 1 or 2 (x, y or z), got string", load_err({ { type = "limits", axis = "x" } }))
    assert.are.equal(P .. ".enabled: enabled must be true or false, got string",
      load_err({ { type = "limits", enabled = "yes" } }))
    assert.are.equal(P .. ".strength: strength must be a finite number, got string",
      load_err({ { type = "noise", strength = "x" } }))
  end)

  it("a modifier that is not an object, a list that is not an array, an unknown channel", function()
    assert.are.equal(P .. ": modifier must be an object, got number", load_err({ 5 }))
    local c, err = anim.clip({ joints = { j = { position = { { 0, { 0, 0, 0 } } },
      modifiers = { position = { type = "noise" } } } } }, "m")
    assert.is_nil(c)
    assert.are.equal("m: joints.j.modifiers.position: modifier list must be an array, got object", err)
    c, err = anim.clip({ joints = { j = { position = { { 0, { 0, 0, 0 } } },
      modifiers = { weight = { { type = "noise" } } } } } }, "m")
    assert.is_nil(c)
    assert.are.equal("m: joints.j.modifiers.weight: unknown channel 'weight' (expected position, rotation or scale)", err)
  end)

  it("names the modifier and the channel it is in", function()
    assert.are.equal("m: joints.j.modifiers.position[2].step: step must be greater than 0, got 0",
      load_err({ { type = "limits" }, { type = "stepped", step = 0 } }))
    assert.are.equal("m: joints.j.modifiers.rotation[1].step: step must be greater than 0, got 0",
      load_err({ { type = "stepped", step = 0 } }, "rotation"))
  end)
end)
