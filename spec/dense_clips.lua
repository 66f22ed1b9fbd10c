-- dense_clips.lua: random rigs (deep chains included) and dense clips on
-- them, the same on every runtime, and the model-space error of one clip
-- against another measured from the animator's world transforms: the
-- specs of keyframe reduction (spec/reduce_spec.lua) and of compressed
-- clips (spec/compress_spec.lua).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"


-- A generator of the same numbers on every runtime (math.random's differ
-- between 5.1, 5.4 and LuaJIT, and these specs' sizes depend on the clip):
-- Park and Miller's, exact in doubles.
local seed_state = 1
local function seed(s) seed_state = s % 2147483646 + 1 end
local function random()
  seed_state = (seed_state * 16807) % 2147483647
  return (seed_state - 1) / 2147483646
end

-- A random rig: a chain of `depth` joints (each 0.05 to 0.25 from its
-- parent, turned a little at rest) and a branch of three off its middle;
-- as a clip's skeleton and as a rig.
local function random_rig(depth)
  local skel, joints = {}, {}
  local function add(name, parent)
    local t = { (random() - 0.5) * 0.1, 0.05 + 0.2 * random(), (random() - 0.5) * 0.1 }
    local q = H.qmul(H.qaxis(1, (random() - 0.5) * 40), H.qaxis(3, (random() - 0.5) * 40))
    skel[name] = { parent = parent, translation = t, rotation = q }
    joints[#joints + 1] = { name = name, parent = parent, translation = t, rotation = q }
  end
  for i = 1, depth do add("j" .. i, i > 1 and "j" .. (i - 1) or nil) end
  local mid = "j" .. math.floor(depth / 2)
  add("b1", mid); add("b2", "b1"); add("b3", "b2")
  return skel, assert(anim.rig { joints = joints })
end

-- A dense clip on it: every joint turning (Euler degrees, sums of sines),
-- the root moving and one joint scaling, keyed at `rate` keys a second.
local function random_clip(skel, rate, L)
  local joints = {}
  local names = {}
  for n in pairs(skel) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    local wave = {}
    for a = 1, 3 do
      wave[a] = { amp = 3 + 12 * random(), f = 0.2 + 0.8 * random(), ph = 6 * random() }
    end
    local rot, pos, scl = {}, {}, {}
    for k = 0, math.floor(L * rate) do
      local t = k / rate
      local v = {}
      for a = 1, 3 do v[a] = wave[a].amp * math.sin(2 * math.pi * wave[a].f * t + wave[a].ph) end
      rot[#rot + 1] = { t, v }
      pos[#pos + 1] = { t, { 0.1 * math.sin(3 * t), 0.05 * math.cos(2 * t), 0 } }
      scl[#scl + 1] = { t, { 1 + 0.2 * math.sin(4 * t), 1, 1 } }
    end
    joints[n] = { rotation = rot }
    if n == "j1" then joints[n].position = pos end
    if n == "b2" then joints[n].scale = scl end
  end
  return assert(anim.clip({ version = 3, length = L, loop = "loop", euler = "xyz", skeleton = skel, joints = joints,
    markers = { { time = 0.5, name = "step" } } }, "wave"))
end

-- A function giving the world pose of rig when clip plays alone on it at
-- t: { name = { position, rotation, scale } }.
local function world_of(rig, clip)
  local a = anim.animator(rig)
  local tr = a:play(clip, { fade = 0 })
  a:update(0)
  return function(t)
    tr.time = t
    a:update(0)
    local out = {}
    for _, j in ipairs(rig:joints()) do
      local w = { a:world_transform(j.name) }
      out[j.name] = { { w[1], w[2], w[3] }, { w[4], w[5], w[6], w[7] }, { w[8], w[9], w[10] } }
    end
    return out
  end
end

-- The largest distance between the points +-d on the axes of every joint
-- of two world poses.
local function pose_error(pa, pb, d)
  local worst = 0
  for name, a in pairs(pa) do
    local b = assert(pb[name], name)
    for ax = 1, 3 do
      for _, sg in ipairs { -1, 1 } do
        local va, vb = { 0, 0, 0 }, { 0, 0, 0 }
        va[ax], vb[ax] = sg * d * a[3][ax], sg * d * b[3][ax]
        local ra, rb = H.qrotate(a[2], va), H.qrotate(b[2], vb)
        local dx = a[1][1] + ra[1] - b[1][1] - rb[1]
        local dy = a[1][2] + ra[2] - b[1][2] - rb[2]
        local dz = a[1][3] + ra[3] - b[1][3] - rb[3]
        worst = math.max(worst, math.sqrt(dx * dx + dy * dy + dz * dz))
      end
    end
  end
  return worst
end

-- The worst model-space error of clip b on rig rb against clip a on rig
-- ra: at every key time (1 / rate), halfway between, and at random times.
local function model_error(ra, a, rb, b, rate, L, d)
  local times = {}
  for k = 0, math.floor(L * rate) * 2 do times[#times + 1] = math.min(L - 1e-6, k / (2 * rate)) end
  for _ = 1, 20 do times[#times + 1] = L * random() end
  local worst = 0
  local wa, wb = world_of(ra, a), world_of(rb, b)
  for _, t in ipairs(times) do worst = math.max(worst, pose_error(wa(t), wb(t), d)) end
  return worst
end

-- A clip of every kind of timed item and property channel, on a chain.
local function full_clip()
  local skel = { root = { translation = { 0, 0, 0 } }, a = { parent = "root", translation = { 0, 0.5, 0 } },
    b = { parent = "a", translation = { 0, 0.5, 0 } }, still = { parent = "root", translation = { 0.2, 0, 0 } } }
  local rot = {}
  for k = 0, 60 do rot[#rot + 1] = { k / 30, { 30 * math.sin(k / 10), 5 * k / 60, 0 } } end
  return assert(anim.clip({ version = 3, length = 2, loop = "loop", skeleton = skel,
    joints = { root = { position = { { 0, { 0, 0, 0 } }, { 2, { 1, 0, 0 } } } }, a = { rotation = rot },
      b = { rotation = rot, weight = 0.5 },
      still = { rotation = { { 0, { 0, 0, 0 } }, { 2, { 0, 0, 0 } } }, scale = { { 0, { 2, 2, 2 } }, { 1, { 2, 2, 2 } } } } },
    markers = { { time = 0.5, name = "step" }, { time = 1.5, name = "step", value = 2 } },
    events = { { time = 1, name = "hit", payload = { damage = 3, tags = { "a", "b" }, none = anim.null, f = 0.25 } } },
    sounds = { { time = 0.25, sound = "swish", volume = 0.5 } }, plays = { { time = 1.75, clip = "other" } },
    properties = { glow = { { 0, 0 }, { 1, 1, "sine" }, { 2, 0 } }, tint = { { 0, { 1, 1, 1 } }, { 0.5, { 1, 0, 0 }, "step" } } },
  }, "full"))
end

-- The rig full_clip plays on.
local function full_rig()
  return assert(anim.rig { joints = { { name = "root" }, { name = "a", parent = "root", translation = { 0, 0.5, 0 } },
    { name = "b", parent = "a", translation = { 0, 0.5, 0 } }, { name = "still", parent = "root" } } })
end

-- A random clip of mixed channels (this file's generator, the same on every
-- runtime): channels of linear keys at 60 a second with gaps, a few eased
-- keys among them, and with jumps (two keys at one time) when asked.
local function mixed_clip(s, jumps)
  seed(s)
  local R = random
  local skel, rig = random_rig(2 + math.floor(R() * 4))
  local joints, names = {}, {}
  local L = 1 + R() * 4
  for n in pairs(skel) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    if R() < 0.7 then
      local j = {}
      for _, ch in ipairs { "rotation", "position", "scale" } do
        if R() < 0.6 then
          local keys, t = {}, 0
          local amp, f = R() * 20, 0.2 + R() * 2
          while t <= L do
            local v
            if ch == "rotation" then v = { amp * math.sin(f * t), amp * math.cos(f * t * 0.7), 0 }
            elseif ch == "position" then v = { 0.01 * amp * math.sin(f * t), 0, 0 }
            else v = { 1 + 0.01 * amp * math.sin(f * t), 1, 1 } end
            local k, r = { t, v }, R()
            if r < 0.02 then k[3], k[4] = "sine", { ease = "inOut" }
            elseif r < 0.04 and jumps then keys[#keys + 1] = { t, { v[1] + 1, v[2], v[3] } } end
            keys[#keys + 1] = k
            t = t + (R() < 0.9 and 1 / 60 or R() * 0.3)
          end
          j[ch] = keys
        end
      end
      joints[n] = j
    end
  end
  return assert(anim.clip { version = 3, length = L, skeleton = skel, joints = joints }), rig, L
end

-- The worst error of small against clip by the reductions' own measure
-- (every joint's world matrix, the points +-0.1 on its axes), at 480
-- times a second: between the times a reduction measures at.
local function worst_between(clip, small, rig, L)
  local N = require "anim.export.gltf.nodes"
  local bind = require "anim.format.bind"
  local R = require "anim.export.gltf.reduce"
  local RC = require "anim.export.gltf.reduce_clip"
  local tree = N.node_tree({ clip }, rig)
  local tj = tree:joints()
  local rest = {}
  for i, j in ipairs(tj) do rest[i] = { t = j.translation, r = j.rotation, s = j.scale } end
  local times = {}
  for k = 0, math.floor(L * 480) do times[#times + 1] = k / 480 end
  return R.measure(tj, RC.local_of(clip, bind.get(clip, tree), rest), RC.local_of(small, bind.get(small, tree), rest),
    times, 0.1)
end

return { full_clip = full_clip, full_rig = full_rig, seed = seed, random = random, random_rig = random_rig, random_clip = random_clip, world_of = world_of,
  pose_error = pose_error, model_error = model_error, mixed_clip = mixed_clip, worst_between = worst_between }
