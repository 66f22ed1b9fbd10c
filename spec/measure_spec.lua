-- The model-space measure in C (csrc/core/measure.c, csrc/lua/lua_measure.c)
-- gives the Lua measure's bits (lua/anim/export/gltf/reduce.lua's world_into
-- and point_error over reduce_clip.lua's local_of): the worst error, each
-- joint's, every error, the keys the reduction keeps; so does the greedy
-- choice of a channel's keys in C (csrc/core/keyreduce.c); and their
-- arguments are checked.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local D = require "spec.dense_clips"
local R = require "anim.export.gltf.reduce"
local RC = require "anim.export.gltf.reduce_clip"
local N = require "anim.export.gltf.nodes"
local bind = require "anim.format.bind"
local K = require "anim.export.gltf.keys"
local codes = require "anim.base.codes"
local unpack = table.unpack or unpack -- luacheck: ignore 113 (5.1's global)

-- The node tree of clip on rig: its joints, the rests, local_of for a clip
-- (C-measured) and the same in a plain closure (Lua-measured).
local function setup(clip, rig)
  local tree = N.node_tree({ clip }, rig)
  local tjoints = tree:joints()
  local rest = {}
  for i, j in ipairs(tjoints) do rest[i] = { t = j.translation, r = j.rotation, s = j.scale } end
  local function native(c) return RC.local_of(c, bind.get(c, tree), rest) end
  local function plain(c)
    local f = native(c)
    return function(i, t) return f(i, t) end
  end
  return tjoints, native, plain
end

-- A dense clip's table on a random rig (its skeleton's rests: bindings
-- with pre and post turns), and the clip made of it.
local function clip_table(absolute)
  D.seed(4242)
  local skel, rig = D.random_rig(6)
  local c = D.random_clip(skel, 30, 1)
  local t = anim.table(c)
  t.absolute = absolute or nil
  return assert(anim.clip(t, "wave")), rig
end

-- What run() gives with the measure in C, and with reduce.lua's Lua (no
-- function handed to the C measure, no rests as it takes them: the glTF
-- export's bake and check in Lua too).
local function both(run)
  local ok, with_c = pcall(run)
  assert(ok, with_c)
  local native, flat_rest = R.native, R.flat_rest
  R.native = function(f) return f end
  R.flat_rest = function() return nil end
  local ok2, in_lua = pcall(run)
  R.native, R.flat_rest = native, flat_rest
  assert(ok2, in_lua)
  return with_c, in_lua
end

-- Every error of localB against localA at the times, with R.measure.
local function measured(tjoints, localA, localB, times, d)
  local errs = {}
  local worst, per = R.measure(tjoints, localA, localB, times, d, errs)
  return { worst = worst, per = per, errs = errs }
end

local function times_of(n, L)
  local out = {}
  for k = 0, n do out[#out + 1] = L * k / n end
  out[#out + 1] = L * 0.377
  return out
end

describe("the measure in C", function()
  for _, absolute in ipairs { false, true } do
    it("gives the Lua measure's bits" .. (absolute and " (an absolute clip)" or ""), function()
      local clip, rig = clip_table(absolute)
      local cc = assert(anim.compress(clip, { rig = rig, level = "fast" }))
      local tjoints, native, plain = setup(clip, rig)
      local times = times_of(40, clip.length)
      local c_side = measured(tjoints, native(clip), native(cc), times, 0.1)
      local lua_side = measured(tjoints, plain(clip), plain(cc), times, 0.1)
      -- (the frames made in C read back for a localB in Lua)
      local mixed = measured(tjoints, native(clip), plain(cc), times, 0.1)
      assert.is_true(lua_side.worst > 0 and #lua_side.errs == #tjoints * #times)
      assert.are.same(lua_side, c_side)
      assert.are.same(lua_side, mixed)
      -- (and bit for bit: are.same compares numbers with ==; 17 digits tell
      -- every double apart, and -0 from 0)
      for k, e in ipairs(lua_side.errs) do
        assert(string.format("%.17g", e) == string.format("%.17g", c_side.errs[k]), "error " .. k)
      end
    end)
  end

  it("gives the .anim reduction and anim.compress the Lua measure's results", function()
    local clip, rig = clip_table()
    local base = os.tmpname()
    local path = base .. ".animc"
    local function run()
      local c2, report = RC.reduce(clip, rig)
      local cc = assert(anim.compress(clip, { rig = rig, level = "fast" }))
      assert(anim.save(cc, path))
      local f = assert(io.open(path, "rb"))
      local bytes = f:read("*a")
      f:close()
      return { anim.table(c2), report, cc:compression(), bytes }
    end
    local with_c, in_lua = both(run)
    os.remove(path)
    os.remove(base)
    assert.is_true(with_c[2].after < with_c[2].before, "the reduction cut keys")
    assert.are.same(in_lua, with_c)
  end)

  for _, absolute in ipairs { false, true } do
    it("measures the glTF export's channels and reduced keys as its Lua does" .. (absolute and " (absolute)" or ""),
      function()
        local clip, rig = clip_table(absolute)
        local base = os.tmpname()
        local path = base .. ".glb"
        local function run()
          local approx = assert(anim.export_gltf({ clip }, rig, path))
          local f = assert(io.open(path, "rb"))
          local bytes = f:read("*a")
          f:close()
          return { approx, bytes }
        end
        -- (the C measure was given the export's channels and reduced keys;
        -- the bake and the check read back sampled in C)
        local measure_error, keyed, calls = core.measure_error, 0, {}
        core.measure_error = function(...)
          local chans = select(10, ...)
          if chans and chans.mask and chans.keys and next(chans.keys) then keyed = keyed + 1 end
          return measure_error(...)
        end
        local saved = {}
        for _, f in ipairs { "measure_bake", "measure_compare" } do
          saved[f], calls[f] = core[f], 0
          core[f] = function(...)
            calls[f] = calls[f] + 1
            return saved[f](...)
          end
        end
        local ok, with_c, in_lua = pcall(both, run)
        core.measure_error = measure_error
        for f, g in pairs(saved) do core[f] = g end
        os.remove(path)
        os.remove(base)
        assert(ok, with_c)
        assert.is_true(keyed > 0, "measured in C")
        assert.is_true(calls.measure_bake > 0 and calls.measure_compare > 0, "baked and checked in C")
        assert.is_true(with_c[1].reduced[1].after < with_c[1].reduced[1].before, "the reduction cut keys")
        assert.are.same(in_lua, with_c)
      end)
  end

  -- (a clip that steps and jumps, quaternions crossing hemispheres)
  local function jumpy()
    local S2 = math.sqrt(0.5)
    return assert(anim.clip({ length = 3, joints = {
      j1 = {
        position = { { 0, { 0, 0, 0 } }, { 0.5, { 1, 2, 3 }, "step" }, { 1, { 2, 2, 2 } }, { 1, { 5, 5, 5 } },
          { 2.5, { 0, 0, 0 }, "catmullrom" }, { 3, { 2, 0, 0 } } },
        rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 40, 0 } }, { 2, { -60, 0, 170 }, "step" }, { 3, { 10, 0, 0 } } },
      },
      j2 = { rotation = { { 0, { 0, 0, 0, 1 }, "step" }, { 1, { 0, S2, 0, S2 } }, { 2, { 0, 0, 0, -1 } } } },
    } }, "jumpy"))
  end

  for _, case in ipairs { "offset", "absolute", "jumpy" } do
    it("bakes a channel in C (core.measure_bake) as in Lua (" .. case .. ")", function()
      local S = require "anim.export.gltf.sample"
      local clip, rig = clip_table(case == "absolute")
      if case == "jumpy" then clip = jumpy() end
      local tree = N.node_tree({ clip }, rig)
      local rest, zeros = {}, {}
      for i, j in ipairs(tree:joints()) do
        rest[i] = { t = j.translation, r = j.rotation, s = j.scale }
        zeros[i] = 0
      end
      local mtree = { parent = zeros, rest = R.flat_rest(rest) }
      local binds, n, jumps = bind.get(clip, tree), 0, 0
      for _, b in ipairs(binds) do
        for chi, ch in ipairs { "position", "rotation", "scale" } do
          local keys = core.clip_keys(clip, b.cj, chi - 1) or {}
          local function conv(s) return S.played(clip, b, rest[b.rj], ch, s) end
          local function native(ts)
            return core.measure_bake(mtree, clip, { gen = binds.gen, b }, clip.absolute, b.rj, chi, ts, true)
          end
          local lua = S.bake(S.sampler(clip, b.cj), conv, clip.length, 60, keys, ch == "rotation")
          local c_side, _, times, vals = S.bake(S.sampler(clip, b.cj), conv, clip.length, 60, keys, ch == "rotation",
            native)
          assert.are.same(lua, c_side)
          -- (the keys' times, and their values: a rotation's as shorts, else the keys' own)
          assert.are.equal(#lua, #times)
          for k, key in ipairs(c_side) do
            assert(key.t == times[k])
            if ch == "rotation" then assert.are.same(K.short_quat(key.v), vals[k]) else assert(key.v == vals[k]) end
          end
          for k = 2, #lua do
            assert(string.format("%.17g", lua[k].t) == string.format("%.17g", c_side[k].t))
            if lua[k].t - lua[k - 1].t < 1e-6 then jumps = jumps + 1 end
          end
          n = n + #lua
        end
      end
      assert.is_true(n > 100)
      if case == "jumpy" then assert.is_true(jumps >= 2, "keys one float apart at the jumps") end
      local b = binds[1]
      local function err(...)
        local ok, e = pcall(core.measure_bake, ...)
        assert.is_false(ok)
        return tostring(e)
      end
      local one = { gen = binds.gen, b }
      assert.matches("node", err(mtree, clip, one, false, #zeros + 1, 1, { 0 }))
      assert.matches("channel", err(mtree, clip, one, false, b.rj, 4, { 0 }))
      assert.matches("times%[2%] must be a number", err(mtree, clip, one, false, b.rj, 1, { 0, "x" }))
      assert.matches("times%[1%] must be finite", err(mtree, clip, one, false, b.rj, 1, { 1 / 0 }))
      assert.matches("binding out of range", err({ parent = { 0 }, rest = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 } }, clip,
        { gen = binds.gen, { cj = b.cj, rj = 2 } }, false, 1, 1, { 0 }))
      assert.are.same({}, core.measure_bake(mtree, clip, one, false, b.rj, 2, {}))
      assert.are.equal(0, core.measure_compare(mtree, clip, one, false, clip, one, false, b.rj, 2, { 0, 0.5 }))
      assert.matches("channel", select(2, pcall(core.measure_compare, mtree, clip, one, false, clip, one, false, b.rj, 0,
        { 0 })))
      assert.matches("times%[1%] must be finite", select(2, pcall(core.measure_compare, mtree, clip, one, false, clip,
        one, false, b.rj, 1, { 0 / 0 })))
      -- a node's channels compared in one pass (a list of channels): the
      -- differences of one channel at a time, in the list's order
      local two, ts, each = { gen = binds.gen, { cj = binds[#binds].cj, rj = b.rj } }, { 0, 0.3, 0.5, 1, 1.7, 2.5 }, {}
      local function cmp(chs) return { core.measure_compare(mtree, clip, one, false, clip, two, false, b.rj, chs, ts) } end
      for chi = 1, 3 do each[chi] = cmp(chi)[1] end
      assert.is_true(each[1] + each[2] + each[3] > 0)
      assert.are.same(each, cmp { 1, 2, 3 })
      assert.are.same({ each[3], each[1] }, cmp { 3, 1 })
      assert.are.same({ each[2] }, cmp { 2 })
      assert.matches("channel", select(2, pcall(cmp, { 1, 4 })))
      assert.matches("1 to 3 channels", select(2, pcall(cmp, {})))
    end)
  end

  it("knows an Euler channel turning about several axes from its values (keys.euler_turns_several)", function()
    local lin = codes.interp.linear
    for _, case in ipairs { { { 0, 0, 0, 10, 0, 0, 20, 0, 0 }, false }, { { 0, 0, 0, 10, 5, 0, 20, 0, 0 }, true },
      { { 1, 2, 3, 1, 2, 3, 1, 2, 3 }, false }, { { 0, 0, 0, 0, 0, 0, 0, 0, 7 }, false },
      { { 0, 0, 0, 0, 1, 0, 0, 0, 7 }, true } } do
      local v = case[1]
      local keys = K.segments({ t = { 0, 1, 2 }, v = v, ie = { lin, lin, lin } }, 3, false, false)
      assert.are.equal(case[2], K.euler_turns_several(v))
      assert.are.equal(case[2], K.euler_as_quats(keys, "xyz") == nil)
    end
  end)

  it("gives sample_times' times in C as in Lua (core.keys_times)", function()
    D.seed(4545)
    local chans = {}
    for c = 1, 4 do
      local ts = {}
      for k = 1, 300 do ts[k] = math.floor(D.random() * 400) / 97 - 0.3 end
      ts[#ts + 1] = 2
      chans[c] = { times = ts }
    end
    chans[5] = { times = {} }
    -- jumps: two and three keys at one time, at 0 and beyond 1
    chans[6] = { times = { 0, 0, 0.25, 0.5, 0.5, 1.5, 1.5, 1.5, 2 } }
    local keys_times = core.keys_times
    for _, L in ipairs { 3, 0.5, 0, -1 } do
      for _, jumps in ipairs { true, false } do
        local c_side = R.sample_times(chans, L, jumps)
        core.keys_times = function() return nil end
        local ok, lua = pcall(R.sample_times, chans, L, jumps)
        core.keys_times = keys_times
        assert(ok, lua)
        assert.are.same(lua, c_side)
        assert.is_true(#c_side > (L > 1 and 500 or 0))
      end
    end
    -- just before a jump (at 0: before the clip, left out)
    local function has(list, t)
      for _, x in ipairs(list) do if x == t then return true end end
      return false
    end
    local with, without = R.sample_times({ chans[6] }, 3), R.sample_times({ chans[6] }, 3, false)
    assert.is_true(has(with, 0.5 - 1e-9) and has(with, 1.5 - 1e-9 * 1.5) and not has(with, -1e-9))
    assert.is_false(has(without, 0.5 - 1e-9) or has(without, 1.5 - 1e-9 * 1.5))
    assert.are.equal(#without + 4, #with) -- (two times and their halfways)
    assert.are.same({ 0 }, core.keys_times({}, 1))
    assert.is_nil(core.keys_times({ { 0, "x" } }, 1))
    assert.matches("lists%[2%] must be a table", select(2, pcall(core.keys_times, { {}, 1 }, 1)))
  end)

  it("chooses the Lua choice's keys of a dense channel (reduce_curve.simplify)", function()
    local C = require "anim.export.gltf.reduce_curve"
    D.seed(4343)
    local function walk(n, m, quat, nan)
      local times, vals, v = {}, {}, {}
      for a = 1, m do v[a] = D.random() end
      for k = 1, n do
        times[k] = (k - 1) / 60 + (k % 7 == 0 and 1e-4 or 0)
        local x = {}
        for a = 1, m do
          v[a] = v[a] + (D.random() - 0.5) * 0.05 + 0.01 * math.sin(k / 9)
          x[a] = v[a]
        end
        if nan and k == math.floor(n / 2) then x[2] = 0 / 0 end
        vals[k] = x
      end
      if quat then
        for k, x in ipairs(vals) do
          local l = math.sqrt(x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4])
          vals[k] = { x[1] / l, x[2] / l, x[3] / l, x[4] / l }
        end
      end
      return times, vals
    end
    local n = 0
    for _, case in ipairs { { 600, 4, true }, { 600, 3 }, { 300, 5 }, { 200, 3, false, true }, { 2, 3 }, { 1, 4, true } } do
      local times, vals = walk(case[1], case[2], case[3], case[4])
      for _, tol in ipairs { 1e-4, 1e-3, 0.01, 0.05, 0.3 } do
        local kept, st = C.simplify(times, vals, tol, case[3])
        assert.is_truthy(st.packed, "the channel went to C")
        local lua = C.simplify(times, vals, tol, case[3], { vals = st.vals, far = st.far, packed = false })
        assert.are.same(lua, kept)
        n = n + #kept
      end
    end
    assert.is_true(n > 100)
    -- the choice with values placed off the samples (the fit's least
    -- squares and distances in C), rounded as the glTF export rounds
    local placed = 0
    local function smooth(nk, m, quat)
      local times, vals = {}, {}
      for k = 1, nk do
        local t = (k - 1) / 60
        times[k] = t
        local x = {}
        for a = 1, m do x[a] = math.sin(1.3 * a * t + a) + 0.3 * math.cos(3.1 * t) end
        if quat then
          local l = math.sqrt(x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4])
          for a = 1, 4 do x[a] = x[a] / l end
        end
        vals[k] = x
      end
      return times, vals
    end
    -- (the fit's rounds in C: core.keys_fit, as the Lua's fit)
    local keys_fit, fits = core.keys_fit, 0
    core.keys_fit = function(...)
      fits = fits + 1
      return keys_fit(...)
    end
    for _, case in ipairs { { 900, 4, true }, { 900, 3 }, { 400, 4, true, false, K.short_quat } } do
      local times, vals = smooth(case[1], case[2], case[3])
      for _, tol in ipairs { 1e-3, 0.01, 0.05 } do
        local st0 = select(2, C.simplify(times, vals, tol, case[3]))
        local calls = fits
        local kept, st = C.choose(times, vals, tol, case[3], nil, case[5])
        assert.is_true(fits > calls or not kept.vals, "fitted in C")
        calls = fits
        assert.is_truthy(st.lsq_packed)
        local lua = C.choose(times, vals, tol, case[3], { vals = st0.vals, far = st0.far, packed = false }, case[5])
        assert.are.equal(calls, fits)
        assert.are.same(lua, kept)
        assert.are.same(lua.vals, kept.vals)
        placed = placed + (kept.vals and 1 or 0)
      end
    end
    -- quaternions not unit, in both hemispheres: made unit and in one
    -- hemisphere in C (keys_pack's unit, keys_cont) as in Lua
    local qtimes, qvals = smooth(600, 4, true)
    for k, q in ipairs(qvals) do
      local f = (k % 3 == 0 and -1 or 1) * (1 + (k % 5) / 7)
      qvals[k] = { q[1] * f, q[2] * f, q[3] * f, q[4] * f }
    end
    for _, round in ipairs { false, K.short_quat } do
      local kept, st = C.choose(qtimes, qvals, 0.01, true, nil, round or nil)
      assert.is_truthy(st.cont_packed)
      assert.is_nil(rawget(st, "vals"), "no Lua tables of the samples")
      local st0 = select(2, C.simplify(qtimes, qvals, 0.01, true))
      local lua = C.choose(qtimes, qvals, 0.01, true, { vals = st0.vals, far = st0.far, packed = false }, round or nil)
      assert.are.same(lua, kept)
      assert.are.same(lua.vals, kept.vals)
      assert.is_truthy(kept.vals)
    end
    core.keys_fit = keys_fit
    assert.is_true(placed >= 3, "some choices placed their values")
    -- (values of more than 16 numbers: Lua's)
    local times, vals = walk(50, 17)
    local kept, st = C.simplify(times, vals, 0.01)
    assert.is_false(st.packed)
    assert.is_true(#kept > 2)
  end)

  it("refuses bad arguments, naming them", function()
    local clip, rig = clip_table()
    local tjoints = setup(clip, rig)
    local tree = N.node_tree({ clip }, rig)
    local binds = bind.get(clip, tree)
    local n = #tjoints
    local parent, rest = {}, {}
    local index = {}
    for i, j in ipairs(tjoints) do index[j.name] = i end
    for i, j in ipairs(tjoints) do
      parent[i] = j.parent and index[j.parent] or 0
      for _, x in ipairs { j.translation[1], j.translation[2], j.translation[3], j.rotation[1], j.rotation[2],
        j.rotation[3], j.rotation[4], j.scale[1], j.scale[2], j.scale[3] } do rest[#rest + 1] = x end
    end
    local tr = { parent = parent, rest = rest }
    local all = {}
    -- (parents first: the tree's joints are)
    local order = {}
    local depth = {}
    for i = 1, n do
      local d, p = 0, parent[i]
      while p ~= 0 do d, p = d + 1, parent[p] end
      depth[i] = d
      order[i] = i
    end
    table.sort(order, function(a, b) return depth[a] < depth[b] or (depth[a] == depth[b] and a < b) end)
    for i = 1, n do all[i] = order[i] end
    local function err(f, ...)
      local ok, e = pcall(f, ...)
      assert.is_false(ok)
      return tostring(e)
    end
    local fr = core.measure_frames(tr, clip, binds, false, { 0, 0.5 }, all, all)
    assert.are.equal(12 * 2, #core.measure_frame(fr, 1))
    assert.matches("tree.rest must be 10 a node", err(core.measure_frames, { parent = parent, rest = { 1 } }, clip,
      binds, false, { 0 }, all, all))
    assert.matches("tree.parent%[1%] must be 0 or a node index", err(core.measure_frames,
      { parent = { 1, unpack(parent, 2) }, rest = rest }, clip, binds, false, { 0 }, all, all))
    assert.matches("times%[2%] must be a number", err(core.measure_frames, tr, clip, binds, false, { 0, "x" }, all, all))
    local child = order[n]
    assert.matches("neither listed before it nor measured", err(core.measure_frames, tr, clip, binds, false, { 0 },
      { child }, {}))
    assert.matches("is not in the list", err(core.measure_frames, tr, clip, binds, false, { 0 }, { order[1] },
      { order[1], child }))
    assert.matches("listed twice", err(core.measure_frames, tr, clip, binds, false, { 0 }, { order[1], order[1] }, {}))
    assert.matches("must be a node index in 1%.%.", err(core.measure_frames, tr, clip, binds, false, { 0 }, { n + 1 },
      {}))
    assert.matches("the bindings are not of the clip's content", err(core.measure_frames, tr, clip, { gen = 99 }, false,
      { 0 }, all, all))
    assert.matches("anim.clip expected", err(core.measure_frames, tr, {}, binds, false, { 0 }, all, all))
    assert.matches("measure frames expected", err(core.measure_error, {}, tr, clip, binds, false, all, 0.1, {}))
    local part = core.measure_frames(tr, clip, binds, false, { 0 }, { order[1] }, { order[1] })
    assert.matches("was not measured", err(core.measure_error, part, tr, clip, binds, false, { order[2] }, 0.1, {}))
    assert.matches("the node was not measured", err(core.measure_frame, part, order[2]))
    assert.matches("keys expected", err(core.keys_simplify, fr, 0.1))
    local keys = core.keys_pack({ 0, 1, 2 }, { { 0, 0, 0 }, { 1, 1, 1 }, { 2, 2, 2 } }, false)
    assert.matches("knots%[2%] is not after knots%[1%]", err(core.keys_lsq, keys, { 2, 1 }, { 1, 1, 1 }))
    assert.matches("w%[3%] must be a number", err(core.keys_lsq, keys, { 1, 3 }, { 1, 1 }))
    assert.matches("#fv ~= #knots", err(core.keys_errors, keys, { 1, 3 }, { { 0, 0, 0 } }, {}))
    assert.matches("fv%[2%] must hold 3 numbers", err(core.keys_errors, keys, { 1, 3 }, { { 0, 0, 0 }, { 1 } }, {}))
    assert.matches("#times ~= #vals", err(core.keys_pack, { 0 }, {}, false))
    assert.matches("quaternion keys expected", err(core.keys_cont, keys))
    assert.matches("keys expected", err(core.keys_cont, {}))
    local q4 = core.keys_pack({ 0, 1, 2 }, { { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 } }, true)
    local k2 = core.keys_pack({ 0, 1 }, { { 0, 0, 0 }, { 1, 1, 1 } }, false)
    assert.are.same({ { 1, 3 }, { { 0, 0, 0 }, { 2, 2, 2 } } }, { core.keys_fit(keys, keys, { 1, 3 }, 0.1, 3, 4, 3) })
    assert.is_nil(core.keys_fit(keys, keys, { 1, 3 }, -1, 3, 4, 3))
    assert.matches("keys expected", err(core.keys_fit, keys, {}, { 1, 3 }, 0.1, 3, 4, 3))
    assert.matches("as many, of as many numbers", err(core.keys_fit, keys, k2, { 1, 2 }, 0.1, 3, 4, 3))
    assert.matches("as many, of as many numbers", err(core.keys_fit, keys, q4, { 1, 3 }, 0.1, 3, 4, 3))
    assert.matches("must begin at the first sample and end at the last", err(core.keys_fit, keys, keys, { 1, 2 }, 0.1,
      3, 4, 3))
    assert.matches("lawson", err(core.keys_fit, keys, keys, { 1, 3 }, 0.1, 3, 0, 3))
    assert.matches("cont and shorts are for quaternions", err(core.keys_fit, keys, keys, { 1, 3 }, 0.1, 3, 4, 3, true))
    assert.matches("knots%[2%] is not after", err(core.keys_fit, keys, keys, { 3, 1 }, 0.1, 3, 4, 3))
    -- the glTF export's channels (chans)
    local mask = {}
    for i = 1, n do mask[i] = 7 end
    local q3 = core.keys_pack({ 0, 1 }, { { 0, 0, 0, 1 }, { 0, 0, 0, 1 } }, true)
    local k3 = core.keys_pack({ 0, 1 }, { { 0, 0, 0 }, { 1, 1, 1 } }, false)
    local function chans_err(chans)
      return err(core.measure_error, fr, tr, clip, binds, false, all, 0.1, {}, nil, chans)
    end
    assert.matches("chans.mask must hold a number a node", chans_err({ mask = { 7 } }))
    assert.matches("chans.mask%[1%] must be channel flags", chans_err({ mask = { 8, unpack(mask, 2) } }))
    assert.matches("chans.mask%[2%] must be channel flags", chans_err({ mask = { 1, 0.5, unpack(mask, 3) } }))
    assert.matches("chans.keys must be a table", chans_err({ mask = mask, keys = 1 }))
    assert.matches("chans.keys%[1%] must be 3%-number keys", chans_err({ mask = mask, keys = { q3 } }))
    assert.matches("chans.keys%[2%] must be quaternion keys", chans_err({ mask = mask, keys = { nil, k3 } }))
    assert.matches("chans.keys%[3%] must be 3%-number keys", chans_err({ mask = mask, keys = { [3] = "x" } }))
    assert.matches("chans.mask must hold", err(core.measure_frames, tr, clip, binds, false, { 0 }, all, all, { mask = {} }))
    assert.matches("chans.keys%[1%] must be 3%-number keys", err(core.measure_frames, tr, clip, binds, false, { 0 }, all,
      all, { mask = mask, keys = { fr } }))
    local per = {}
    core.measure_error(fr, tr, clip, binds, false, all, 0.1, per, nil, { mask = mask, keys = { [2] = q3 } })
    core.measure_error(fr, tr, clip, binds, false, all, 0.1, per)
    for i = 1, n do assert.are.equal(0, per[i]) end
  end)
end)
