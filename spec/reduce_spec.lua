-- Small exports (issue 41): anim.export_gltf and `anim convert` reduce
-- dense channels to few keys within an error bound measured in model
-- space: the largest distance between where the original and the written
-- clip (read back) put the points +-distance on each axis of every joint,
-- world transforms composed down the rig (so a parent's error counts in
-- its children).  Measured here from the animator's world transforms, at
-- every original key time, halfway between and at random times.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local dir = H.tmpdir()
local REAL = H.shared .. "/data/realfiles/"
local GECKO = REAL .. "geckolib/gecko_habitat.animation.json"
local AJ = REAL .. "toms-mobs/showmaster.ajblueprint"
-- (the files are written in 32-bit floats: a value's rounding, about 1e-7
-- of it, is beyond what the exporter measures in doubles)
local F32 = 1e-6

local D = require "spec.dense_clips"
local seed, random_rig, random_clip = D.seed, D.random_rig, D.random_clip
local model_error = D.model_error

local function size(path)
  local f = assert(io.open(path, "rb"))
  local n = f:seek("end")
  f:close()
  return n
end

describe("small exports", function()
  it("keep random clips within the bound in model space, deep chains included, read back from glTF", function()
    seed(41)
    for _, case in ipairs { { depth = 3, err = 0.001, d = 0.1 }, { depth = 12, err = 0.001, d = 0.1 },
      { depth = 8, err = 0.0002, d = 0.03 } } do
      local skel, rig = random_rig(case.depth)
      local clip = random_clip(skel, 60, 1.5)
      local exact, small = dir .. "/exact.glb", dir .. "/small.glb"
      assert(anim.export_gltf(clip, rig, exact, { reduce = false }))
      local approx = assert(anim.export_gltf(clip, rig, small, { error = case.err, distance = case.d }))
      local r = approx.reduced[1]
      local what = string.format("depth %d: %d keys to %d, error %g, %d bytes to %d", case.depth, r.before, r.after,
        r.error, size(exact), size(small))
      -- (a deep chain keeps more: a turn of its root moves points a chain's length away)
      assert.is_true(r.after < r.before * (case.depth > 3 and 0.9 or 0.4) and r.error <= case.err, what)
      assert.is_true(size(small) < size(exact) * (case.depth > 3 and 1 or 0.67), what)
      local back = assert(anim.import_gltf(small))
      local worst = model_error(rig, clip, back.rig, back.clips.wave, 60, 1.5, case.d)
      assert.is_true(worst <= case.err + F32, "depth " .. case.depth .. ": " .. worst)
      assert.is_true(worst > case.err / 10, "depth " .. case.depth .. ": the bound is used, " .. worst)
      -- markers are kept exactly
      assert.are.same({ { time = 0.5, name = "step" } }, back.clips.wave:markers())
    end
  end)

  it("keep random clips within the bound written as .anim by anim convert", function()
    seed(4141)
    local skel, rig = random_rig(10)
    local clip = random_clip(skel, 60, 1.5)
    local src, out = dir .. "/dense.anim", dir .. "/small.anim"
    assert(anim.save(clip, src))
    local cmd = string.format("%s %s convert %s -o %s --error 0.001 --distance 0.1 2>&1", H.lua,
      H.sq(H.root .. "/bin/anim"), H.sq(src), H.sq(out))
    local text, code = H.popen(cmd)
    assert.are.equal(0, code, text)
    assert.matches("reduced %d+ keys to %d+, the largest error", text)
    assert.is_true(size(out) < size(src) / 2, text .. size(src) .. " bytes to " .. size(out))
    local back = assert(anim.load(out))
    local worst = model_error(rig, clip, rig, back, 60, 1.5, 0.1)
    assert.is_true(worst <= 0.001 and worst > 0.0001, tostring(worst))
    assert.are.same({ { time = 0.5, name = "step" } }, back:markers())
    -- --exact writes every key, as before
    text, code = H.popen(cmd:gsub(" 2>&1$", " --exact 2>&1"))
    assert.are.equal(0, code, text)
    assert.are.equal(size(src), size(out))
  end)

  it("write the real files small: GeckoLib and Animated Java #long", function()
    -- the sizes of docs/performance.md ("Small exports"): the .glb of
    -- gecko_habitat was 1,154,016 bytes, showmaster's 68,992; gecko_habitat's
    -- was 1.75x its source with keys on the curve, 1.43x with keys placed
    local limits = { [GECKO] = 1.5, [AJ] = 1.5 }
    for path, ratio in pairs(limits) do
      local out = dir .. "/real.glb"
      local cmd = string.format("%s %s convert %s -o %s 2>&1", H.lua, H.sq(H.root .. "/bin/anim"), H.sq(path), H.sq(out))
      local text, code = H.popen(cmd)
      assert.are.equal(0, code, text)
      assert.is_true(size(out) <= ratio * size(path), path .. ": " .. size(out))
      -- within the bound printed, against the exact export read back
      local bound, d = text:match("the bound ([%d.e-]+) at distance ([%d.e-]+)")
      bound, d = tonumber(bound), tonumber(d)
      local exact = dir .. "/real-exact.glb"
      local t2, c2 = H.popen((cmd:gsub(H.sq(out), H.sq(exact)):gsub(" 2>&1$", " --exact 2>&1")))
      assert.are.equal(0, c2, t2)
      local a, b = assert(anim.import_gltf(exact)), assert(anim.import_gltf(out))
      for name, ca in pairs(a.clips) do
        local worst = model_error(a.rig, ca, b.rig, b.clips[name], 30, ca.length, d)
        assert.is_true(worst <= bound + F32, path .. " " .. name .. ": " .. worst)
      end
      -- the .anim files, played on the same node tree (the glTF's: the player rig and the
      -- clips' other joints), against the --exact ones
      for _, exact_anim in ipairs { false, true } do
        local o = dir .. (exact_anim and "/exact/x.anim" or "/small/x.anim")
        local t3, c3 = H.popen(string.format("%s %s convert %s -o %s%s 2>&1", H.lua, H.sq(H.root .. "/bin/anim"),
          H.sq(path), H.sq(o), exact_anim and " --exact" or ""))
        assert.are.equal(0, c3, t3)
      end
      for _, f in ipairs(H.ls(dir .. "/exact")) do
        local ca, cb = assert(anim.load(dir .. "/exact/" .. f)), assert(anim.load(dir .. "/small/" .. f))
        local worst = model_error(a.rig, ca, a.rig, cb, 30, ca.length, d)
        assert.is_true(worst <= bound, path .. " " .. f .. ": " .. worst)
      end
      os.execute("rm -rf " .. H.sq(dir .. "/exact") .. " " .. H.sq(dir .. "/small"))
    end
  end)

  it("write a clip too large to measure whole, and say so", function()
    local R = require "anim.export.gltf.reduce"
    local skel, rig = random_rig(3)
    local clip = random_clip(skel, 60, 1)
    local was = R.MAX_WORK
    R.MAX_WORK = 100
    local ok, approx = pcall(anim.export_gltf, clip, rig, dir .. "/big.glb")
    R.MAX_WORK = was
    assert(ok, approx)
    -- 6 joints moved (the chain of 3, its branch of 3), 121 times measured (61 keys, 60 halfway)
    assert.are.same({ { clip = "wave", skipped = "not reduced: measuring it would take 726 joint poses a round (the most: 100)" } },
      approx.reduced)
    for _, a in ipairs(approx) do assert.is_nil(a.reduced) end
  end)

  it("return a clip with nothing dense as it is, before its node tree is made (.anim)", function()
    local RC = require "anim.export.gltf.reduce_clip"
    local N = require "anim.export.gltf.nodes"
    local sparse = assert(anim.clip { length = 2, joints = { head = {
      rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 40, 0 } }, { 2, { 0, 0, 0 } } },
      position = { { 0, { 0, 0, 0 } }, { 2, { 0, 1, 0 } } } } } })
    local skel, rig = random_rig(3)
    local dense = random_clip(skel, 60, 1)
    local node_tree, trees = N.node_tree, 0
    N.node_tree = function(...)
      trees = trees + 1
      return node_tree(...)
    end
    local ok, err = pcall(function()
      assert.are.equal(sparse, RC.reduce(sparse, anim.rig("player")))
      assert.are.equal(0, trees)
      local c2, report = RC.reduce(dense, rig)
      assert.are_not.equal(dense, c2)
      assert.is_true(report.after < report.before)
      assert.are.equal(1, trees)
    end)
    N.node_tree = node_tree
    assert(ok, err)
  end)

  it("refuse bad options, naming them", function()
    local c = anim.clip { version = 3, length = 1, joints = {} }
    assert.has_error(function() anim.export_gltf(c, "x.glb", { error = 0 }) end,
      "bad argument #3 to 'export_gltf' (option 'error' must be a number above 0, got 0)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { distance = "far" }) end,
      "bad argument #3 to 'export_gltf' (option 'distance' must be a number above 0, got string)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { reduce = 1 }) end,
      "bad argument #3 to 'export_gltf' (option 'reduce' must be a boolean, got number)")
    local text, code = H.popen(string.format("%s %s convert %s -o %s --error -1 2>&1", H.lua,
      H.sq(H.root .. "/bin/anim"), H.sq(GECKO), H.sq(dir .. "/x.glb")))
    assert.are.equal(2, code)
    assert.are.equal("anim convert: --error must be a number above 0, got '-1' (see anim convert --help)\n", text)
  end)
end)
