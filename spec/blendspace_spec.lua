-- Blend spaces (issue 22): the weights of the points at a parameter (1D:
-- linear between neighbours, clamped; 2D: barycentric in the Delaunay
-- triangulation, points on one circle split from the lowest index, the
-- nearest hull point outside), synced and free clocks, the pose, the
-- timed items of the points, track.at, and every message.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local function near(a, b, tol) return math.abs(a - b) <= (tol or 1e-12) end

-- A looping clip of length len on joint j: its x position goes from 0 to
-- 1 over the clip (so the pose shows the clip's phase), with markers.
local function ramp(name, len, j, markers, extra)
  local t = {
    length = len, loop = "loop",
    joints = { [j or "j"] = { position = { { 0, { 0, 0, 0 } }, { len, { 1, 0, 0 } } } } },
    markers = markers,
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return assert(anim.clip(t, name))
end

local rig = assert(anim.rig { joints = { { name = "j" }, { name = "k" }, { name = "l" }, { name = "m" } } })

-- Checks weights: each >= 0, summing to 1, and their blend of the points
-- is `want` (the parameter, or the point of the hull nearest it).
local function check_weights(space, at, want, tol)
  local w = space:weights(at)
  local pts = space.points
  local sum, x, y = 0, 0, 0
  for i, v in ipairs(w) do
    assert(v >= 0, "weight " .. i .. " is " .. v)
    sum = sum + v
    local p = pts[i].at
    if type(p) == "table" then x, y = x + v * p[1], y + v * p[2] else x = x + v * p end
  end
  assert(near(sum, 1, 1e-12), "weights sum to " .. sum)
  if type(want) == "table" then
    assert(near(x, want[1], tol or 1e-12) and near(y, want[2], tol or 1e-12),
      string.format("the weights blend the points to (%.15g, %.15g), want (%.15g, %.15g)", x, y, want[1], want[2]))
  else
    assert(near(x, want, tol or 1e-12), "the weights blend the points to " .. x .. ", want " .. want)
  end
  return w
end

describe("a 1D blend space", function()
  local a, b, c = ramp("a", 1), ramp("b", 1), ramp("c", 1)
  -- given out of order: places -1, 2, 0.5
  local space = anim.blendspace { points = { { clip = a, at = -1 }, { clip = b, at = 2 }, { clip = c, at = 0.5 } } }

  it("gives the clip of a point alone at that point", function()
    assert.are.same({ 1, 0, 0 }, space:weights(-1))
    assert.are.same({ 0, 1, 0 }, space:weights(2))
    assert.are.same({ 0, 0, 1 }, space:weights(0.5))
  end)

  it("is linear between the two neighbouring points", function()
    local w = check_weights(space, -0.25, -0.25)
    assert.is_true(near(w[1], 0.5) and near(w[3], 0.5) and w[2] == 0)
    w = check_weights(space, 1.25, 1.25)
    assert.is_true(near(w[3], 0.5) and near(w[2], 0.5) and w[1] == 0)
    w = check_weights(space, 0.8, 0.8)
    assert.is_true(near(w[2], 0.2) and near(w[3], 0.8))
  end)

  it("is clamped at the ends", function()
    assert.are.same({ 1, 0, 0 }, space:weights(-100))
    assert.are.same({ 0, 1, 0 }, space:weights(1e300))
  end)

  it("of one point gives it everything", function()
    local one = anim.blendspace { points = { { clip = a, at = 3 } } }
    assert.are.same({ 1 }, one:weights(-7))
    assert.are.same({}, one:triangles())
  end)
end)

describe("a 2D blend space", function()
  local clips = {}
  for i = 1, 6 do clips[i] = ramp("c" .. i, 1) end

  local function space_of(places)
    local pts = {}
    for i, p in ipairs(places) do pts[i] = { clip = clips[i], at = p } end
    return anim.blendspace { points = pts }
  end

  local tri = space_of { { 0, 0 }, { 2, 0 }, { 0, 2 } }

  it("gives a point's clip alone exactly on it", function()
    assert.are.same({ 1, 0, 0 }, tri:weights { 0, 0 })
    assert.are.same({ 0, 1, 0 }, tri:weights { 2, 0 })
    assert.are.same({ 0, 0, 1 }, tri:weights { 0, 2 })
  end)

  it("is barycentric inside a triangle and on its edges", function()
    local w = check_weights(tri, { 0.5, 0.5 }, { 0.5, 0.5 })
    assert.is_true(near(w[1], 0.5) and near(w[2], 0.25) and near(w[3], 0.25))
    w = check_weights(tri, { 1, 0 }, { 1, 0 })
    assert.is_true(near(w[1], 0.5) and near(w[2], 0.5) and w[3] == 0)
    w = check_weights(tri, { 1, 1 }, { 1, 1 }) -- on the long edge
    assert.is_true(w[1] == 0 and near(w[2], 0.5) and near(w[3], 0.5))
  end)

  it("outside the hull, takes the nearest point of the hull", function()
    check_weights(tri, { 1, -3 }, { 1, 0 })       -- below the bottom edge
    check_weights(tri, { -5, -5 }, { 0, 0 })      -- beyond a corner: the corner
    check_weights(tri, { 3, 3 }, { 1, 1 })        -- beyond the long edge
    check_weights(tri, { 10, -1 }, { 2, 0 })
    assert.are.same({ 0, 0, 1 }, tri:weights { -1, 5 })
  end)

  it("splits points on one circle by the diagonal from the lowest-indexed point", function()
    -- a square (four points on one circle): either diagonal would be Delaunay
    local sq = space_of { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } }
    assert.are.same({ { 1, 2, 3 }, { 1, 3, 4 } }, sq:triangles())
    -- near the other diagonal's middle: the weights are those of the
    -- triangle 1, 2, 3 (point 4 gets nothing)
    local w = check_weights(sq, { 0.6, 0.45 }, { 0.6, 0.45 })
    assert.are.equal(0, w[4])
    -- the same square given from another corner: the diagonal from point 1
    -- again, now the other one: the corner (0, 0) has no part there
    assert.is_true(w[1] > 0)
    local sq2 = space_of { { 1, 0 }, { 1, 1 }, { 0, 1 }, { 0, 0 } }
    assert.are.same({ { 1, 2, 3 }, { 1, 3, 4 } }, sq2:triangles())
    w = check_weights(sq2, { 0.6, 0.45 }, { 0.6, 0.45 })
    assert.are.equal(0, w[4])
    assert.is_true(w[2] > 0)
    -- five points on one circle (radius 5), out of order round it: a fan
    -- from the lowest-indexed point
    local pent = space_of { { -3, 4 }, { 5, 0 }, { 0, -5 }, { 3, 4 }, { -5, 0 } }
    for _, t in ipairs(pent:triangles()) do assert.are.equal(1, t[1]) end
    assert.are.equal(3, #pent:triangles())
  end)

  it("triangulates random points as Delaunay does: no point inside a triangle's circle", function()
    math.randomseed(22)
    for _ = 1, 20 do
      local places = {}
      for i = 1, 6 do places[i] = { math.random() * 10, math.random() * 10 } end
      local s = space_of(places)
      local ts = s:triangles()
      assert.is_true(#ts >= 4)
      for _, t in ipairs(ts) do
        local a, b, c = places[t[1]], places[t[2]], places[t[3]]
        assert.is_true((b[1] - a[1]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[1] - a[1]) > 0, "counter-clockwise")
        for i, d in ipairs(places) do
          if i ~= t[1] and i ~= t[2] and i ~= t[3] then
            local ax, ay, bx, by, cx, cy = a[1] - d[1], a[2] - d[2], b[1] - d[1], b[2] - d[2], c[1] - d[1], c[2] - d[2]
            local det = (ax * ax + ay * ay) * (bx * cy - cx * by) - (bx * bx + by * by) * (ax * cy - cx * ay)
              + (cx * cx + cy * cy) * (ax * by - bx * ay)
            assert.is_true(det <= 1e-9, "point " .. i .. " is inside a triangle's circle")
          end
        end
      end
      -- and the weights blend back to any parameter inside the hull
      for _ = 1, 20 do
        local w = s:weights { math.random() * 10, math.random() * 10 }
        local sum = 0
        for _, v in ipairs(w) do assert.is_true(v >= 0); sum = sum + v end
        assert.is_true(near(sum, 1))
      end
    end
  end)

  it("with every point on one line, interpolates along it", function()
    local line = space_of { { 0, 0 }, { 2, 2 }, { 1, 1 } }
    assert.are.same({}, line:triangles())
    local w = check_weights(line, { 1.5, 1.5 }, { 1.5, 1.5 })
    assert.is_true(near(w[2], 0.5) and near(w[3], 0.5))
    check_weights(line, { 0, 2 }, { 1, 1 })
    assert.are.same({ 1, 0, 0 }, line:weights { -3, -3 })
    local two = space_of { { 0, 0 }, { 4, 0 } }
    check_weights(two, { 1, 5 }, { 1, 0 })
  end)
end)

describe("playing a blend space", function()
  it("on one point poses exactly as its clip alone", function()
    local walk = assert(anim.clip({ length = 1, loop = "loop", joints = {
      j = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 40, 10, 0 }, "sine" } }, position = { { 0, { 0, 0, 0 } }, { 1, { 1, 2, 3 } } } },
    } }, "walk"))
    local run = assert(anim.clip({ length = 0.6, loop = "loop", joints = {
      j = { rotation = { { 0, { 0, 90, 0 } }, { 0.6, { 10, 0, 30 } } } }, k = { position = { { 0, { 1, 1, 1 } } } },
    } }, "run"))
    local space = anim.blendspace { points = { { clip = walk, at = 0 }, { clip = run, at = 1 } } }
    local a, b = anim.animator(rig), anim.animator(rig)
    a:play(space, { at = 0, fade = 0.2 })
    b:play(walk, { fade = 0.2 })
    for _ = 1, 50 do
      a:update(1 / 30); b:update(1 / 30)
      local x, y = { a:get("j") }, { b:get("j") }
      for i = 1, 10 do assert.are.equal(y[i], x[i]) end
    end
  end)

  it("synced, keeps the clips' phases equal and lasts the weighted mean of their lengths", function()
    -- clip a (length 1) moves joint j, clip b (length 0.5) joint k: each
    -- joint's x is its clip's phase times the point's weight
    local a, b = ramp("a", 1, "j"), ramp("b", 0.5, "k")
    local space = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }
    local an = anim.animator(rig)
    local tr = an:play(space, { at = 0.25, fade = 0 })
    -- weights 0.75, 0.25: a cycle of 0.75 x 1 + 0.25 x 0.5 = 0.875 s
    local cycle, t = 0.875, 0
    for _ = 1, 40 do
      an:update(0.05)
      t = t + 0.05
      local phase = (t / cycle) % 1
      local ja, kb = an:get("j"), an:get("k")
      local pa, pb = ja / 0.75, kb / 0.25
      assert.is_true(near(pa, pb, 1e-9), string.format("phases %.12g and %.12g", pa, pb))
      assert.is_true(near(pa, phase, 1e-9) or near(math.abs(pa - phase), 1, 1e-9),
        string.format("phase %.12g, want %.12g", pa, phase))
      assert.is_true(near(tr.time, pa * tr.length, 1e-9))
    end
    assert.are.equal(1, tr.length) -- the first point's clip's
    assert.are.equal(math.floor(2 / cycle), tr.loops)
  end)

  it("not synced, runs each clip on its own clock", function()
    local a, b = ramp("a", 1, "j"), ramp("b", 0.3, "k")
    local space = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } }, sync = false }
    assert.is_false(space.sync)
    local an = anim.animator(rig)
    local tr = an:play(space, { at = 0.5, fade = 0 })
    local t = 0
    for _ = 1, 30 do
      an:update(0.07)
      t = t + 0.07
      local ja, kb = an:get("j"), an:get("k")
      assert.is_true(near(ja / 0.5, (t / 1) % 1, 1e-9))
      local pb = (t / 0.3) % 1
      assert.is_true(near(kb / 0.5, pb, 1e-9) or near(math.abs(kb / 0.5 - pb), 1, 1e-9))
    end
    assert.is_true(near(tr.time, t % 1, 1e-9))
    assert.are.equal(2, tr.loops) -- the first point's clip's wraps
  end)

  it("reads and moves its parameter through track.at, from the next update", function()
    local a, b = ramp("a", 1, "j"), ramp("b", 1, "k")
    local space = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }
    local an = anim.animator(rig)
    local tr = an:play(space, { fade = 0 })
    assert.are.equal(0, tr.at) -- left out: the first point's place
    an:update(0.5)
    assert.is_true(near(an:get("j"), 0.5) and an:get("k") == 0)
    tr.at = 0.75
    assert.are.equal(0.75, tr.at)
    assert.is_true(near(an:get("j"), 0.5) and an:get("k") == 0) -- not before the next update
    an:update(0.25)
    assert.is_true(near(an:get("j"), 0.25 * 0.75) and near(an:get("k"), 0.75 * 0.75))
    tr:set_at(1)
    an:update(0)
    assert.is_true(an:get("j") == 0 and near(an:get("k"), 0.75))
    -- 2D: a table, or set_at(x, y)
    local s2 = anim.blendspace { points = { { clip = a, at = { 0, 0 } }, { clip = b, at = { 1, 0 } }, { clip = ramp("c", 1, "l"), at = { 0, 1 } } } }
    local t2 = an:play(s2, { at = { 0.2, 0.3 } })
    assert.are.same({ 0.2, 0.3 }, t2.at)
    t2.at = { 0, 1 }
    assert.are.same({ 0, 1 }, t2.at)
    t2:set_at(1, 0)
    assert.are.same({ 1, 0 }, t2.at)
    assert.are.equal(s2, t2.clip)
  end)

  it("is one track: tracks() lists it once, stop and seek act on every point", function()
    local a, b = ramp("a", 1, "j"), ramp("b", 0.5, "k")
    local space = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }
    local an = anim.animator(rig)
    local tr = an:play(space, { at = 0.5, fade = 0 })
    assert.are.same({ tr }, an:tracks())
    an:update(0.1)
    tr.time = 0.5 -- phase 0.5 for both
    an:update(0)
    assert.is_true(near(an:get("j"), 0.25) and near(an:get("k"), 0.25))
    tr:stop(0)
    an:update(0.1)
    assert.is_false(tr.is_playing)
    assert.are.same({}, an:tracks())
    assert.are.equal(0, an:get("j"))
    assert.are.equal(0, an:get("k"))
  end)
end)

describe("the timed items of a blend space", function()
  -- Records every callback as "name@late" (late to 1e-9), with its track.
  local function recorder(a)
    local log = {}
    a:on_marker(function(tr, name, _, late) log[#log + 1] = { tr, string.format("%s@%.9f", name, late) } end)
    return log
  end
  local function names(log, from)
    local out = {}
    for i = from or 1, #log do out[#out + 1] = log[i][2] end
    return table.concat(out, " ")
  end

  -- at 0.5 a cycle lasts 0.5 x 0.5 + 0.5 x 1.5 = 1 s
  local a = ramp("a", 0.5, "j", { { time = 0, name = "a0" }, { time = 0.25, name = "a.25" }, { time = 0.375, name = "a.375" } })
  local b = ramp("b", 1.5, "k", { { time = 0, name = "b0" }, { time = 0.75, name = "b.75" }, { time = 1.2, name = "b1.2" } })
  local space = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }
  -- (every point with a weight fires: spec/blendspace_markers_spec.lua has the other modes)
  local all = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } }, markers = "all" }

  it("on a point, fire exactly what that clip alone fires", function()
    for _, at in ipairs { 0, 1 } do
      local one, alone = anim.animator(rig), anim.animator(rig)
      local l1, l2 = recorder(one), recorder(alone)
      one:play(space, { at = at, fade = 0 })
      alone:play(at == 0 and a or b, { fade = 0 })
      for _, dt in ipairs { 0.1, 0.3, 0.05, 0.7, 0.125, 1.5, 0, 0.2, 1 / 3, 2.5 } do one:update(dt); alone:update(dt) end
      assert.is_true(#l1 > 8)
      assert.are.equal(names(l2), names(l1))
    end
  end)

  it("with markers = \"all\", fire when their point's weight is above 0, once per pass of its phase, points in order at one phase", function()
    local an = anim.animator(rig)
    local log = recorder(an)
    local tr = an:play(all, { at = 0.5, fade = 0 })
    -- the phases: a0 b0 at 0, a.25 and b.75 at 0.5 (a before b: point
    -- order), a.375 at 0.75, b1.2 at 0.8
    an:update(0.4)
    assert.are.equal("a0@0.400000000 b0@0.400000000", names(log))
    for _, e in ipairs(log) do assert.are.equal(tr, e[1]) end
    local n = #log
    an:update(0.6) -- to the end: the wrap with late 0, then a0 b0 (7a.1)
    assert.are.equal("a.25@0.500000000 b.75@0.500000000 a.375@0.250000000 b1.2@0.200000000 a0@0.000000000 b0@0.000000000",
      names(log, n + 1))
    assert.are.equal(1, tr.loops)
    -- at point a only, b's items no longer fire (a alone: 0.5 s a cycle)
    n = #log
    tr.at = 0
    an:update(1)
    assert.are.equal("a.25@0.750000000 a.375@0.625000000 a0@0.500000000 a.25@0.250000000 a.375@0.125000000 a0@0.000000000",
      names(log, n + 1))
    -- and at point b only, a's
    n = #log
    tr.at = 1
    an:update(0.75)
    assert.are.equal("b.75@0.000000000", names(log, n + 1))
  end)

  it("not synced, with markers = \"all\", fire on each clip's own clock", function()
    local free = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } }, sync = false, markers = "all" }
    local an = anim.animator(rig)
    local log = recorder(an)
    an:play(free, { at = 0.5, fade = 0 })
    an:update(0.45) -- a: 0..0.45 (a0, a.25, a.375); b: 0..0.45 (b0)
    assert.are.equal("a0@0.450000000 b0@0.450000000 a.25@0.200000000 a.375@0.075000000", names(log))
    local n = #log
    an:update(0.35) -- a: ..0.8, wraps at 0.5 (a0 at 0.05, a.25 at 0.3); b: ..0.8 (b.75 at 0.3: after a's)
    assert.are.equal("a0@0.300000000 a.25@0.050000000 b.75@0.050000000", names(log, n + 1))
  end)
end)

describe("blend space errors", function()
  local a, b = ramp("a", 1), ramp("b", 0.5)
  local function err(f, ...)
    local ok, e = pcall(f, ...)
    assert.is_false(ok)
    return e
  end
  local function bs(def)
    local s = anim.blendspace(def) -- (not a tail call: the message names this line)
    return s
  end

  it("name the bad point and field", function()
    local cases = {
      { 42, "table of options expected, got number" },
      { { points = { { clip = a, at = 0 } }, snyc = true }, "unknown option 'snyc'; did you mean 'sync'?" },
      { { points = { { clip = a, att = 0 } } }, "points[1]: unknown field 'att'; did you mean 'at'? (a point has clip and at)" },
      { {}, "points must be a list of { clip = clip, at = place }, got nil" },
      { { points = {} }, "points must hold 1 to 64 points, got 0" },
      { { points = { 3 } }, "points[1] must be a table { clip = clip, at = place }, got number" },
      { { points = { { clip = 1, at = 0 } } }, "points[1].clip: clip expected, got number" },
      { { points = { { clip = a } } }, "points[1].at must be a number (1D) or { x, y } (2D), got nil" },
      { { points = { { clip = a, at = 0 / 0 } } }, "points[1].at must be a finite number, got nan" },
      { { points = { { clip = a, at = { 1, "x" } } } }, "points[1].at must be { x, y } of finite numbers, got { 1, string }" },
      { { points = { { clip = a, at = 0 }, { clip = b, at = { 1, 1 } } } },
        "points[2].at must be a number, as points[1].at is (a 1D space), got table" },
      { { points = { { clip = a, at = 0 }, { clip = b, at = 0 } } },
        "points[2].at is the place of points[1].at: each point needs a place of its own" },
      { { points = { { clip = a, at = 0 } }, sync = "yes" }, "sync must be a boolean, got string" },
      { { points = { { clip = a, at = 0 } }, name = 3 }, "name must be a string, got number" },
    }
    for _, c in ipairs(cases) do
      local e = err(bs, c[1])
      assert.truthy(e:find("bad argument #1 to 'blendspace' (" .. c[2] .. ")", 1, true), e)
      assert.truthy(e:find("spec/blendspace_spec.lua", 1, true), e)
    end
  end)

  it("refuse clips a synced space cannot keep in phase", function()
    local once = ramp("once", 1, "j", nil, { loop = "once" })
    local still = assert(anim.clip({ length = 0, joints = {} }, "still"))
    local back = ramp("back", 1, "j", nil, { speed = -1 })
    local add = ramp("add", 1, "j", nil, { blend = "additive" })
    assert.truthy(err(bs, { points = { { clip = a, at = 0 }, { clip = once, at = 1 } } }):find(
      "points[2].clip: a synced blend space needs clips with the loop mode of points[1].clip (loop, this one once) (sync = false plays any)", 1, true))
    assert.truthy(err(bs, { points = { { clip = still, at = 0 } } }):find(
      "points[1].clip: a synced blend space needs clips with a length above 0", 1, true))
    assert.truthy(err(bs, { points = { { clip = a, at = 0 }, { clip = back, at = 1 } } }):find(
      "points[2].clip: a synced blend space needs clips with a speed above 0 (it has -1)", 1, true))
    assert.truthy(err(bs, { points = { { clip = a, at = 0 }, { clip = add, at = 1 } } }):find(
      "points[2].clip blends additive, points[1].clip normal: a blend space's clips blend one way", 1, true))
    -- not synced, they play
    assert.truthy(anim.blendspace { points = { { clip = a, at = 0 }, { clip = once, at = 1 }, { clip = still, at = 2 } }, sync = false })
  end)

  it("of play, track.at and weights name the parameter", function()
    local s1 = anim.blendspace { points = { { clip = a, at = 0 }, { clip = b, at = 1 } } }
    local s2 = anim.blendspace { points = { { clip = a, at = { 0, 0 } }, { clip = b, at = { 1, 0 } } } }
    local an = anim.animator(rig)
    assert.truthy(err(an.play, an, s1, { at = "x" }):find("bad argument #2 to 'play' (at must be a finite number (a 1D blend space), got string)", 1, true))
    assert.truthy(err(an.play, an, s2, { at = 3 }):find("bad argument #2 to 'play' (at must be { x, y } of finite numbers (a 2D blend space), got number)", 1, true))
    assert.truthy(err(an.play, an, a, { at = 0 }):find("bad argument #2 to 'play' (at: only a blend space takes a parameter (this is clip 'a'))", 1, true))
    assert.truthy(err(an.play, an, 7):find("bad argument #1 to 'play' (clip or blend space expected, got number)", 1, true))
    assert.truthy(err(an.play, an, s1, { att = 0.5 }):find("bad argument #2 to 'play' (unknown option 'att'; did you mean 'at'?)", 1, true))
    local t1, t2, tc = an:play(s1), an:play(s2), an:play(a)
    assert.truthy(err(function() t1.at = { 1 } end):find("track.at must be a finite number (a 1D blend space), got table", 1, true))
    assert.truthy(err(function() t2.at = 1 end):find("track.at must be { x, y } of finite numbers (a 2D blend space), got number", 1, true))
    assert.truthy(err(function() tc.at = 1 end):find("track.at: the track plays a clip, not a blend space", 1, true))
    assert.truthy(err(tc.set_at, tc, 1):find("track:set_at: the track plays a clip, not a blend space", 1, true))
    assert.truthy(err(t2.set_at, t2, 1, 0 / 0):find("bad argument #1 to 'set_at' (x, y must be finite numbers (a 2D blend space), got 1, nan)", 1, true))
    assert.truthy(err(t1.set_at, t1, "0"):find("bad argument #1 to 'set_at' (x must be a finite number (a 1D blend space), got string)", 1, true))
    assert.is_nil(tc.at)
    assert.truthy(err(s1.weights, s1, { 1 }):find("bad argument #1 to 'weights' (at must be a finite number (a 1D blend space), got table)", 1, true))
    assert.truthy(err(function() s1.sync = false end):find("blend spaces are read-only (cannot set 'sync')", 1, true))
    local view = ramp("v", 1, "j", nil, { space = "view" })
    local vs = anim.blendspace { points = { { clip = view, at = 0 } } }
    assert.truthy(err(an.play, an, vs):find("bad argument #1 to 'play' (blend space 'blendspace' is a view clip: a body animator cannot play it)", 1, true))
  end)
end)
