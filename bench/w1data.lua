-- bench/w1data.lua: the W1 data of ../shared/bench/README.md, read once for
-- the scripts that play it (bench/w1.lua, bench/gameplay.lua).
--
--   local w1 = require "bench.w1data"
--   local d = w1.read(path [, euler]) -- nil, why when the file cannot be read
--   d.J, d.C, d.K, d.D     joints, clips, keys per channel, clip length
--   d.joints[c]            clip c's joints table in anim.clip's shape
--   w1.clip(d, c [, shift]) the clip (shift: its values moved `shift` keys on)
--   w1.rig(d)              W1's rig: joints j0 .. j(J-1), identity rests
--   w1.characters(rig, clips, n, D) W1's n characters: an animator each,
--                          every clip at weight 0.5, no fade, from
--                          frac((i + 1) * phi) * D (i 0-based)
--   w1.check(a, J)         the cross-check's figures of animator a:
--                          { q3 = j3's rotation (w >= 0), p3 = its
--                          position, psum = the sum of the 3J positions }
--   w1.check_error(got)    nil, or what of got is off the README's values
local anim = require "anim"
local compat = require "anim.base.compat"

local M = {}

local PHI = 0.6180339887498949

-- Quaternion to yxz Euler degrees (W1e; R = Ry Rx Rz, as anim reads "yxz"),
-- unwrapped against the previous key so consecutive keys differ by < 180°.
local function to_yxz(q, prev)
  local x, y, z, w = q[1], q[2], q[3], q[4]
  local m12 = 2 * (y * z - w * x) -- = -sin(ax)
  local ax = math.asin(math.max(-1, math.min(1, -m12)))
  local ay = compat.atan2(2 * (x * z + w * y), 1 - 2 * (x * x + y * y))
  local az = compat.atan2(2 * (x * y + w * z), 1 - 2 * (x * x + z * z))
  local e = { math.deg(ax), math.deg(ay), math.deg(az) }
  if prev then
    for k = 1, 3 do
      while e[k] - prev[k] > 180 do e[k] = e[k] - 360 end
      while e[k] - prev[k] < -180 do e[k] = e[k] + 360 end
    end
  end
  return e
end

-- W1 file: line 1 "W1 joints clips keys duration", then per clip, per joint:
-- rotation times, rotation xyzw, position times, position xyz.
function M.read(path, euler)
  local f = io.open(path)
  if not f then return nil, "cannot read " .. path .. " (set ANIM_SHARED or --data)" end
  local J, C, K, D = f:read("*l"):match("^W1 (%d+) (%d+) (%d+) (%S+)")
  J, C, K, D = tonumber(J), tonumber(C), tonumber(K), tonumber(D)
  local function numbers()
    local t = {}
    for x in f:read("*l"):gmatch("%S+") do t[#t + 1] = tonumber(x) end
    return t
  end
  local out = { J = J, C = C, K = K, D = D, joints = {} }
  for c = 1, C do
    local joints = {}
    for j = 0, J - 1 do
      local rt, rv, pt, pv = numbers(), numbers(), numbers(), numbers()
      local rot, pos, prev = {}, {}, nil
      for k = 1, K do
        local q = { rv[4 * k - 3], rv[4 * k - 2], rv[4 * k - 1], rv[4 * k] }
        if euler then prev = to_yxz(q, prev); q = prev end
        rot[k] = { rt[k], q }
        pos[k] = { pt[k], { pv[3 * k - 2], pv[3 * k - 1], pv[3 * k] } }
      end
      joints["j" .. j] = { rotation = rot, position = pos }
    end
    out.joints[c] = joints
  end
  f:close()
  return out
end

-- Clip c of the data; with shift, each channel's values moved `shift` keys
-- on (the same times: another clip of the same shape and cost).
function M.clip(d, c, shift)
  local joints = d.joints[c]
  if shift then
    local moved = {}
    for name, jt in pairs(joints) do
      local m = {}
      for ch, keys in pairs(jt) do
        local n, ks = #keys, {}
        for k = 1, n do ks[k] = { keys[k][1], keys[(k - 1 + shift) % n + 1][2] } end
        m[ch] = ks
      end
      moved[name] = m
    end
    joints = moved
  end
  return assert(anim.clip({ version = 3, length = d.D, loop = "loop", euler = "yxz", joints = joints },
    "w1-" .. (c - 1) .. (shift and ("+" .. shift) or "")))
end

function M.rig(d)
  local rj = {}
  for j = 0, d.J - 1 do rj[#rj + 1] = { name = "j" .. j } end
  return assert(anim.rig { joints = rj })
end

function M.characters(rig, clips, n, D)
  local list = {}
  for i = 0, n - 1 do
    local a = anim.animator(rig)
    local start = ((i + 1) * PHI) % 1 * D
    for k = 1, #clips do
      local t = a:play(clips[k], { fade = 0, weight = 0.5 })
      t.time = start
    end
    list[i + 1] = a
  end
  return list
end

-- The README's cross-check (W1, not W1e): joint j3 of character 0 (w >= 0)
-- and the sum of the 60 position components of character 0, from its local
-- transforms (identity rests: the blended offsets).
local EXPECT = { q3 = { -0.1487, -0.0030, -0.1411, 0.9788 }, p3 = { 0.3329, 0.9340, -0.1903 }, psum = 20.024 }
local TOL = 1e-3

function M.check(a, J)
  local px, py, pz, qx, qy, qz, qw = a:local_transform("j3")
  if qw < 0 then qx, qy, qz, qw = -qx, -qy, -qz, -qw end
  local sum = 0
  for j = 0, J - 1 do
    local x, y, z = a:local_transform("j" .. j)
    sum = sum + x + y + z
  end
  return { q3 = { qx, qy, qz, qw }, p3 = { px, py, pz }, psum = sum }
end

local function close(a, b) return math.abs(a - b) <= TOL end -- false for NaN

function M.check_error(got)
  local bad = {}
  for _, k in ipairs { "q3", "p3" } do
    for i, v in ipairs(EXPECT[k]) do
      if not close(got[k][i], v) then bad[#bad + 1] = string.format("%s[%d] %.6f (README %.4f)", k, i, got[k][i], v) end
    end
  end
  if not close(got.psum, EXPECT.psum) then
    bad[#bad + 1] = string.format("psum %.6f (README %.3f)", got.psum, EXPECT.psum)
  end
  return #bad > 0 and table.concat(bad, ", ") or nil
end

-- The command line of a paired W1 script (bench/w1pair.lua, bench/skin.lua):
-- { n, rounds, path, [flag] = true } from arg, n and rounds whole numbers
-- >= 1 (defaults 1000 and 9), the W1 file's path (--data, else the shared
-- one beside the repository); flags: the names of options without a value
-- ("allocs" for --allocs).  usage(msg) is called for anything else.
function M.pair_args(usage, flags)
  local args, takes = { n = 1000, rounds = 9 }, {}
  for _, f in ipairs(flags or {}) do takes["--" .. f] = f end
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if takes[a] then args[takes[a]], i = true, i + 1
    else
      if a == "--n" then args.n = tonumber(v)
      elseif a == "--rounds" then args.rounds = tonumber(v)
      elseif a == "--data" then args.path = v
      else usage("unknown argument " .. a) end
      if v == nil then usage(a .. " needs a value") end
      i = i + 2
    end
  end
  for _, k in ipairs { "n", "rounds" } do
    if not args[k] or args[k] < 1 or args[k] % 1 ~= 0 then usage("--" .. k .. " must be a whole number >= 1") end
  end
  local here = arg[0]:match("^(.*)/[^/]*$") or "."
  args.path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
  return args
end

return M
