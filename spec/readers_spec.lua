-- The readers of one joint (animator:get, animated, local_transform,
-- world_transform) and pose_into: what they give, to the bit, against the
-- rule written out here in Lua, and what they refuse, with the messages of
-- the checked path.  The readers take the usual call (a live animator, an
-- integer index in range) by a shorter path than the rest
-- (csrc/lua/lua_pose.c, joint_reader); a name, a float index and
-- pose_into go the other ways, so comparing them compares the paths.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local S = require "spec.scenes"

local S2 = math.sqrt(0.5)

-- The player's joints with rests of every kind: translations, rotations
-- (a quaternion, Euler angles), scales (one axis 0, one negative).
local function rested_rig()
  return assert(anim.rig { joints = {
    { name = "root", translation = { 0.25, -1, 2 }, rotation = { 0, 0, S2, S2 } },
    { name = "torso", parent = "root", translation = { 0, 0.75, 0 }, rotation = { 10, -20, 30 }, scale = { 2, 2, 2 } },
    { name = "head", parent = "torso", translation = { 0, 0.75, 0 }, scale = { 1, 0, 3 } },
    { name = "rightArm", parent = "torso", translation = { -0.375, 0.625, 0 }, rotation = { 0, 0.6, 0, 0.8 } },
    { name = "leftArm", parent = "torso", translation = { 0.375, 0.625, 0 }, scale = { -1, 1, 0.5 } },
    { name = "rightLeg", parent = "root", translation = { -0.125, 0.75, 0 } },
    { name = "leftLeg", parent = "root", translation = { 0.125, 0.75, 0 }, rotation = { 45, 0, 0 } },
  } })
end

-- The rule of csrc/core/pose.c and amath.h, operation by operation (Lua's
-- numbers are the same doubles, the same roundings, left to right).
local function qmul(a, b)
  return a[4] * b[1] + a[1] * b[4] + a[2] * b[3] - a[3] * b[2],
    a[4] * b[2] - a[1] * b[3] + a[2] * b[4] + a[3] * b[1],
    a[4] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[4],
    a[4] * b[4] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]
end

-- (the pose of these scenes is finite: the test is there to say so)
local function finite10(v)
  local z = ((v[1] + v[2]) + (v[3] + v[4])) + ((v[5] + v[6]) + (v[7] + v[8])) + (v[9] + v[10])
  assert(z - z == 0 and (v[4] ~= 0 or v[5] ~= 0 or v[6] ~= 0 or v[7] ~= 0), "a pose that is not finite")
  return v
end

local function local_of(p, rest, scaled)
  local t, s = rest.translation, rest.scale
  local o = { t[1] + p[1], t[2] + p[2], t[3] + p[3] }
  o[4], o[5], o[6], o[7] = qmul(rest.rotation, { p[4], p[5], p[6], p[7] })
  for k = 1, 3 do
    if not scaled then o[7 + k] = p[7 + k]
    elseif s[k] ~= 0 then o[7 + k] = s[k] * p[7 + k]
    else o[7 + k] = p[7 + k] - 1 end
  end
  return finite10(o)
end

local function compose(pw, l)
  local v = { pw[8] * l[1], pw[9] * l[2], pw[10] * l[3] }
  local ux, uy, uz, w = pw[4], pw[5], pw[6], pw[7]
  local cx, cy, cz = uy * v[3] - uz * v[2], uz * v[1] - ux * v[3], ux * v[2] - uy * v[1]
  local dx, dy, dz = uy * cz - uz * cy, uz * cx - ux * cz, ux * cy - uy * cx
  local o = { v[1] + 2 * (w * cx + dx), v[2] + 2 * (w * cy + dy), v[3] + 2 * (w * cz + dz) }
  for k = 1, 3 do o[k] = o[k] + pw[k] end
  local q = { qmul({ pw[4], pw[5], pw[6], pw[7] }, { l[4], l[5], l[6], l[7] }) }
  local n = math.sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4])
  if n > 0 then
    local r = 1 / n
    for k = 1, 4 do o[3 + k] = q[k] * r end
  else
    o[4], o[5], o[6], o[7] = 0, 0, 0, 1
  end
  for k = 1, 3 do o[7 + k] = pw[7 + k] * l[7 + k] end
  return finite10(o)
end

local function pack(...) return { n = select("#", ...), ... } end

-- The arrays an animator's pose_array fills from frame to frame, one per
-- `which`, each holding entries past the pose that must stay: a plain
-- table (lua_seti on 5.3+), one whose metatable refuses everything
-- (lua_rawseti; the numbers are read raw here), and one that starts with
-- its pose's keys in the hash part and a hole.
local REFUSE = { __index = function() error("__index ran") end, __newindex = function() error("__newindex ran") end }
local function kept_arrays(n)
  local past = 10 * n + 1
  return { ["local"] = { [past] = "past", name = "kept" }, world = setmetatable({ [past] = "past" }, REFUSE),
    offsets = { [past] = "past", [past + 1] = 0.5, [3] = "x", [7] = 7 } }
end

-- pose_array's ten numbers of joint i (1-based) in t, raw.
local function slice(t, i)
  local o = {}
  for k = 1, 10 do o[k] = rawget(t, 10 * (i - 1) + k) end
  return o
end

-- Every reader of every joint of a against the rule, by name, integer and
-- float index, pose_into, and pose_array into new arrays and into the kept
-- ones (kept_arrays).
local function check_readers(a, rig, where, kept)
  local rests, index, scaled = {}, {}, false
  for i, j in ipairs(rig:joints()) do
    rests[j.name], index[j.name] = j, i
    for k = 1, 3 do scaled = scaled or j.scale[k] ~= 1 end
  end
  local into = { offsets = a:pose_into({}, "offsets"), ["local"] = a:pose_into({}, "local"),
    world = a:pose_into({}, "world") }
  local n, arrays = #rig:joints(), { offsets = a:pose_array({}, "offsets"), ["local"] = a:pose_array({}),
    world = a:pose_array({}, "world") }
  for mode, t in pairs(kept) do
    assert(rawequal(t, a:pose_array(t, mode)), where .. " pose_array returns its array")
    assert(rawget(t, 10 * n + 1) == "past", where .. " pose_array wrote past the pose")
  end
  assert(kept["local"].name == "kept" and kept.offsets[10 * n + 2] == 0.5, where .. " pose_array wrote past the pose")
  for _, t in pairs(arrays) do assert(#t == 10 * n and next(t, 10 * n) == nil, where .. " pose_array's length") end
  local world = {}
  for _, j in ipairs(rig:joints()) do
    local name, i = j.name, index[j.name]
    local p = pack(a:get(i))
    local l = local_of(p, rests[name], scaled)
    world[name] = j.parent and compose(world[j.parent], l) or l
    local want = { get = p, local_transform = l, world_transform = world[name] }
    for reader, v in pairs(want) do
      v.n = nil
      for _, arg in ipairs { i, name, i + 0.0 } do
        local got = pack(a[reader](a, arg))
        assert(got.n == 10, string.format("%s %s(%s): %d results", where, reader, tostring(arg), got.n))
        got.n = nil
        local d = H.bitdiff(v, got)
        assert(not d, string.format("%s %s(%s) %s", where, reader, tostring(arg), tostring(d)))
      end
    end
    for mode, reader in pairs { offsets = "get", ["local"] = "local_transform", world = "world_transform" } do
      local d = H.bitdiff(want[reader], into[mode][name])
      assert(not d, string.format("%s pose_into %s %s %s", where, mode, name, tostring(d)))
      for _, t in ipairs { arrays[mode], kept[mode] } do
        d = H.bitdiff(want[reader], slice(t, i))
        assert(not d, string.format("%s pose_array %s %s %s", where, mode, name, tostring(d)))
      end
    end
    local f = pack(a:animated(i))
    assert(f.n == 3 and H.bitdiff(f, pack(a:animated(name))) == nil, where .. " animated " .. name)
  end
end

describe("the readers of one joint", function()
  it("give the offsets, and the local and world transforms the rests make of them, to the bit (pose_array too)", function()
    local map = assert(anim.decode_retarget(S.retarget))
    for seed = 1, H.valgrind and 2 or 4 do
      local clips, spaces = S.pool(2000 + seed, 6)
      local scenes = { { anim.rig("player"), S.scene(seed, 4, clips, map, {}, spaces) } }
      local rig = rested_rig()
      math.randomseed(seed)
      local list, kept = {}, {}
      for _, a in ipairs(scenes[1][2]) do kept[a] = kept_arrays(#scenes[1][1]:joints()) end
      for i = 1, 4 do
        list[i] = anim.animator(rig)
        kept[list[i]] = kept_arrays(#rig:joints())
        for k = 1, math.random(3) do
          list[i]:play(clips[math.random(#clips)], { fade = k == 1 and 0 or 0.2, weight = math.random() })
        end
      end
      scenes[2] = { rig, list }
      for frame = 1, 40 do
        local dt = ({ 1 / 60, 0.1, 0.35 })[math.random(3)]
        for s, sc in ipairs(scenes) do
          for i, a in ipairs(sc[2]) do
            a:update(dt)
            check_readers(a, sc[1], string.format("seed %d scene %d frame %d animator %d", seed, s, frame, i), kept[a])
          end
        end
      end
    end
  end)

  -- (called as a game hoists them, lt = a.local_transform, then lt(x, j):
  -- the checks are the C function's)
  local READERS = { "get", "animated", "local_transform", "world_transform" }
  local FINALIZED = "anim.animator used after it was finalized (garbage collected, or its __gc called by hand)"

  local function refuses(f, x, j, why)
    local ok, err = pcall(f, x, j)
    assert.is_false(ok)
    if why == FINALIZED then assert.are.equal(FINALIZED, err)
    else assert.truthy(err:find("(" .. why .. ")", 1, true), err) end
  end

  it("refuse what is not a live animator with the checked path's messages", function()
    local rig = anim.rig("player")
    local a = anim.animator(rig)
    local gone = anim.animator(rig)
    local amt = debug.getmetatable(a)
    debug.getmetatable(gone).__gc(gone)
    local tr = a:play(anim.clip { length = 1, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } })
    for _, m in ipairs(READERS) do
      local f = a[m]
      refuses(f, gone, 1, FINALIZED)
      refuses(f, {}, 1, "anim.animator expected, got table")
      refuses(f, nil, 1, "anim.animator expected, got nil")
      refuses(f, "head", 1, "anim.animator expected, got string")
      refuses(f, tr, 1, "anim.animator expected, got anim.track")
      -- a box of another kind, any userdata, given the animator's metatable
      local rmt, fmt = debug.getmetatable(rig), debug.getmetatable(io.stdout)
      debug.setmetatable(rig, amt)
      refuses(f, rig, 1, "anim.animator expected, got another userdata with its metatable")
      debug.setmetatable(rig, rmt)
      debug.setmetatable(io.stdout, amt)
      refuses(f, io.stdout, 1, "anim.animator expected, got another userdata with its metatable")
      debug.setmetatable(io.stdout, fmt)
      if rawget(_G, "newproxy") then -- (5.1, LuaJIT: a userdata of no bytes; its size is checked before its tag is read)
        local u = newproxy() -- luacheck: ignore 113
        debug.setmetatable(u, amt)
        refuses(f, u, 1, "anim.animator expected, got another userdata with its metatable")
        debug.setmetatable(u, nil) -- (else the animator's __gc runs on it, and refuses it too)
      end
      assert.are.equal(m == "animated" and 3 or 10, select("#", f(a, 1)))
    end
    -- pose_array, the same way (its table: after the animator)
    local f = a.pose_array
    refuses(f, gone, {}, FINALIZED)
    refuses(f, {}, {}, "anim.animator expected, got table")
    refuses(f, nil, {}, "anim.animator expected, got nil")
    refuses(f, tr, {}, "anim.animator expected, got anim.track")
    refuses(f, gone, 5, FINALIZED)
    local t = {}
    assert.are.equal(t, f(a, t))
  end)

  it("refuse what is not a joint with the checked path's messages, and take an integral float as its integer", function()
    local rig = anim.rig("player")
    local a = anim.animator(rig)
    local names = {}
    for i, j in ipairs(rig:joints()) do names[i] = j.name end
    a:play(S.pool(7, 1)[1], { fade = 0 })
    a:update(0.3)
    for _, m in ipairs(READERS) do
      local f = a[m]
      refuses(f, a, 0, "joint index 0 out of range 1..7")
      refuses(f, a, 8, "joint index 8 out of range 1..7")
      refuses(f, a, -1, "joint index -1 out of range 1..7")
      refuses(f, a, 2 ^ 53, "joint index 9007199254740992 out of range 1..7")
      refuses(f, a, 1.5, "joint index must be an integer, got 1.5")
      refuses(f, a, "1", "no joint '1' in rig 'player'")
      refuses(f, a, "heda", "no joint 'heda' in rig 'player'; did you mean 'head'?")
      refuses(f, a, "head\0", "unknown joint (the name holds a NUL byte)")
      refuses(f, a, true, "joint name or index expected, got boolean")
      refuses(f, a, nil, "joint name or index expected, got nil")
      if H.integers then
        refuses(f, a, math.maxinteger, "joint index " .. tostring(math.maxinteger) .. " out of range 1..7")
        refuses(f, a, math.mininteger, "joint index " .. tostring(math.mininteger) .. " out of range 1..7")
      end
      for j = 1, #names do
        assert.is_nil(H.bitdiff(pack(f(a, j)), pack(f(a, j + 0.0))))
        assert.is_nil(H.bitdiff(pack(f(a, j)), pack(f(a, names[j]))))
      end
    end
  end)
end)

describe("animator:pose_array", function()
  local function playing(rig)
    local a = anim.animator(rig or rested_rig())
    a:play(S.pool(11, 1)[1], { fade = 0 })
    a:update(0.3)
    return a
  end

  it("reads 'local' by default and for an explicit nil, and grows an empty or short array", function()
    local a = playing()
    local want = a:pose_array({}, "local")
    assert.are.equal(70, #want)
    assert.is_nil(H.bitdiff(want, a:pose_array({}, nil)))
    assert.is_nil(H.bitdiff(want, a:pose_array({})))
    -- a short array, one with the pose's keys in its hash part, one with holes
    for _, t in ipairs { { 1, 2, 3 }, { [70] = 1, [35] = 2, [1] = 3 }, { 1, nil, 3, [69] = 0 } } do
      assert.is_nil(H.bitdiff(want, a:pose_array(t)))
    end
  end)

  it("allocates nothing into an array already as long as the pose, with or without a metatable", function()
    local a = playing(anim.rig("player"))
    local plain, guarded = {}, setmetatable({}, REFUSE)
    -- (what the reads allocate, not the updates: a clip's items may)
    local grew, count, modes = 0, collectgarbage, { "local", "world", "offsets" }
    local function frames(n)
      for _ = 1, n do
        a:update(1 / 60)
        local before = count("count")
        for _, mode in ipairs(modes) do
          a:pose_array(plain, mode)
          a:pose_array(guarded, mode)
        end
        grew = grew + (count("count") - before)
      end
    end
    -- (H.without_jit: LuaJIT's compiler allocates in the Lua heap)
    H.without_jit(function()
      frames(1)
      -- (a full collection shrinks the Lua stack, which the next calls grow
      -- again once: a frame after it)
      collectgarbage("collect")
      frames(1)
      collectgarbage("stop")
      grew = 0
      frames(100)
      collectgarbage("restart")
    end)
    assert.are.equal(0, grew)
    assert.is_nil(H.bitdiff({ a:get(7) }, slice(guarded, 7)))
  end)

  it("does not read the array it writes: a metatable's __index or __newindex never runs", function()
    local a = playing()
    local calls = 0
    local function count() calls = calls + 1 end
    local t = setmetatable({}, { __index = count, __newindex = count, __len = count })
    assert.are.equal(t, a:pose_array(t, "world"))
    assert.are.equal(t, a:pose_array(t, "offsets"))
    assert.are.equal(0, calls)
    assert.is_nil(H.bitdiff(a:pose_array({}, "offsets"), t))
  end)
end)
