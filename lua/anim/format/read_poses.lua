-- read_poses.lua: version 1 of a .anim clip: poses at keyframes (a
-- position, a rotation or Euler angles, an easing and a weight per joint
-- and keyframe), turned into curves with a key per keyframe for every
-- joint, in the C core's description of the joints.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local Q = require "anim.base.quat"
local codes = require "anim.base.codes"
local limits = require "anim.base.limits"
local V = require "anim.format.read_values"

local M = {}

local fail, describe, key, index, num, shown = E.fail, E.describe, E.key, E.index, E.num, E.shown
local INTERPS, INTERP_CODE, EASE_CODE = V.INTERPS, codes.interp, codes.ease
local FIRST_EASING, LAST_EASING = INTERP_CODE.sine, INTERP_CODE.elastic
local MAX_CURVE_KEYS = codes.const.max_curve_keys
local EASE_UNIT = V.EASE_UNIT
local L = limits.current
local vec, quat, count_joints, sorted_keys = V.vec, V.quat, V.count_joints, V.sorted_keys

local V1_EASINGS = { linear = INTERP_CODE.linear, constant = INTERP_CODE.step }
for i = FIRST_EASING + 1, LAST_EASING + 1 do V1_EASINGS[INTERPS[i]] = i - 1 end
local V1_DIRS = { ["in"] = 0, out = 1, inout = 2 }
local IDENTITY = { 0, 0, 0, 1 }
local ZERO = { 0, 0, 0 }

-- angles are composed in yxz: R = Ry * Rx * Rz (SEMANTICS 4)
local function euler_to_quat(deg) return Q.from_euler(deg, "yxz") end

local function read_v1(c, info, desc)
  local kfs = E.array(c.keyframes, "keyframes", "keyframes")
  if #kfs > MAX_CURVE_KEYS then
    fail("keyframes", "too many keyframes (%d; at most %d)", #kfs, MAX_CURVE_KEYS)
  end
  local times, poses = {}, {}
  local joints = {} -- name -> { pos = bool, rot = bool, w = bool }
  local prev
  for i, kf in ipairs(kfs) do
    local p = index("keyframes", i)
    E.object(kf, p, "keyframe")
    local t = E.number(kf.time, key(p, "time"), "time")
    if prev and t < prev then
      fail(key(p, "time"), "keyframe times must not decrease (%s comes after %s)", num(t), num(prev))
    end
    prev = t
    times[i] = t
    local ps = {}
    if not E.absent(kf.poses) then
      E.object(kf.poses, key(p, "poses"), "poses")
      for name, pose in pairs(kf.poses) do
        local pp = key(key(p, "poses"), name)
        E.object(pose, pp, "pose")
        local jr = joints[name] or {}
        joints[name] = jr
        local out = {}
        if not E.absent(pose.position) then
          out.pos = vec(pose.position, 3, key(pp, "position"), "position")
          jr.pos = true
        end
        if not E.absent(pose.rotation) then
          out.rot = quat(pose.rotation, key(pp, "rotation"), "rotation")
          jr.rot = true
        elseif not E.absent(pose.angles) then
          out.rot = euler_to_quat(vec(pose.angles, 3, key(pp, "angles"), "angles"))
          jr.rot = true
        end
        out.interp = INTERP_CODE.linear
        if not E.absent(pose.easing) then
          local ez = pose.easing
          local names = "linear, constant, " .. table.concat(INTERPS, ", ", FIRST_EASING + 1, LAST_EASING + 1)
          if type(ez) ~= "string" then
            fail(key(pp, "easing"), "easing must be a name (%s), got %s", names, describe(ez))
          end
          local code = V1_EASINGS[ez:lower()]
          if not code then
            local list = { "linear", "constant" }
            for e = FIRST_EASING + 1, LAST_EASING + 1 do list[#list + 1] = INTERPS[e] end
            fail(key(pp, "easing"), "unknown easing '%s'%s (expected %s)", shown(ez), E.hint(ez, list), names)
          end
          out.interp = code
        end
        out.ease = EASE_CODE.inOut
        if not E.absent(pose.direction) then
          local d = pose.direction
          if type(d) ~= "string" then
            fail(key(pp, "direction"), "direction must be in, out or inOut, got %s", describe(d))
          end
          local code = V1_DIRS[d:lower()]
          if not code then
            fail(key(pp, "direction"), "unknown direction '%s' (expected in, out or inOut)", shown(d))
          end
          out.ease = code
        end
        out.w = 1
        if not E.absent(pose.weight) then
          local w = E.number(pose.weight, key(pp, "weight"), "weight")
          if w < 0 or w > 1 then fail(key(pp, "weight"), "weight must be between 0 and 1, got %s", num(w)) end
          out.w = w
          if w ~= 1 then jr.w = true end
        end
        ps[name] = out
      end
    end
    poses[i] = ps
  end
  local names = sorted_keys(joints)
  count_joints(#names, "keyframes")
  -- every joint gets a key at every keyframe
  if #names > 0 and #times * #names > L.keys then
    fail("keyframes", "too many keys: %d keyframes for %d joints make %d (at most %d, anim.limits.keys)",
      #times, #names, #times * #names, L.keys)
  end
  desc.joints = {}
  info.weights_vary = false
  for _, name in ipairs(names) do
    local jr = joints[name]
    local dj = { name = name }
    local ie, pv, qv, wv = {}, {}, {}, {}
    for i = 1, #times do
      local pose = poses[i][name]
      local pos = pose and pose.pos or ZERO
      local rot = pose and pose.rot or IDENTITY
      ie[i] = (pose and pose.interp or INTERP_CODE.linear) + EASE_UNIT * (pose and pose.ease or EASE_CODE.inOut)
      for a = 1, 3 do pv[3 * (i - 1) + a] = pos[a] end
      for a = 1, 4 do qv[4 * (i - 1) + a] = rot[a] end
      wv[i] = pose and pose.w or 1
    end
    if jr.pos then dj.pos = { t = times, v = pv, ie = ie } end
    if jr.rot then dj.qrot = { t = times, v = qv, ie = ie } end
    if jr.w then
      dj.pw = { t = times, v = wv, ie = ie }
      for i = 2, #wv do
        if wv[i] ~= wv[1] then info.weights_vary = true end
      end
    end
    desc.joints[#desc.joints + 1] = dj
  end
  info.joints = names
  return times[#times]
end
M.read_v1 = read_v1

return M
