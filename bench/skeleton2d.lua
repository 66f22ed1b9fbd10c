-- bench/skeleton2d.lua: what a 2D skeleton's update and the CPU side of
-- its drawing cost (issue 40's target: the update per bone-sample at most
-- W1's per joint-sample, in the same run; nothing allocated per frame).
--
--   lua5.4 bench/skeleton2d.lua [--n N] [--rounds R] [--data w1.txt] [--grind]
--
-- N skeletons (default 1000) of 30 bones (a tree three bones deep under a
-- root, every inherit mode among them, shears), a two-bone IK constraint
-- (softness) and a transform constraint, 10 slots each showing a mesh of
-- 16 vertices and 18 triangles (five of them weighted to two bones), each
-- skeleton an animator playing two clips of 2 s at weight 0.5 (as W1's
-- characters do).  Two sets of clips:
-- - worst: every channel on every bone, absolute (the importers wrote
--   these before they wrote offsets): position, rotation (Euler about z,
--   keys up to 400 degrees apart) and scale, 30 keys each; the shear
--   property of ten bones; the IK's mix and softness keyed;
-- - real: what Spine animations key, as the importers write it (offsets
--   from the setup pose): rotation on 24 bones, translation on 10, scale
--   on 3, the shear of 2, 10 linear keys each in 2 s.
-- The W1 set: W1's N characters (20 joints, 2 clips, bench/w1data.lua).
-- Every set goes through anim.update(list, 1/60, { threads = 1 }); R
-- rounds (default 5) each time 600 frames of the three in slices of 60
-- taking turns (who starts rotates), process CPU time (os.clock).  The
-- real set's frames also write the vertices of its 10 meshes a skeleton
-- as anim.love does (lua/anim/love/init.lua without LÖVE: the world
-- matrices, the draw order, each slot's attachment and colours, its
-- triangles unrolled into a buffer of floats, 12 a vertex), timed apart.
-- One JSON line: the medians in ns per bone-sample (update time / (N x
-- 30)) of both 2D sets and per joint-sample (/ (N x 20)) of W1, the
-- ratios, the drawing's ns per skeleton and per vertex written, and the
-- Lua heap allocated per frame by update + vertices in steady play (the
-- collector stopped; 0 expected).
--
-- --grind runs this script again under valgrind --tool=callgrind (N = 100
-- unless --n says; build/bench/grind.so from make bench-grind), counting
-- only 120 frames of each set (bench.grind's client requests), dumped to
-- build/bench/skeleton2d.callgrind.1 (worst), .2 (real), .3 (the real
-- set's vertices) and .4 (W1) for callgrind_annotate; one JSON line
-- "skeleton2d-callgrind": the instructions per bone-sample, per
-- skeleton's vertices and per joint-sample, and the ratios: instruction
-- counts repeat where times move with the machine's load.
package.path = "lua/?.lua;lua/?/init.lua;./?.lua;" .. package.path
local anim = require "anim"
local attach2d = require "anim.runtime.attach2d"
local w1 = require "bench.w1data"
local median = require "bench.median"

local function usage(msg)
  io.stderr:write("skeleton2d.lua: ", msg, "\n",
    "usage: lua5.4 bench/skeleton2d.lua [--n N] [--rounds R] [--data w1.txt] [--grind]\n")
  os.exit(2)
end

local args = { n = 1000, rounds = 5 }
do
  local i = 1
  while arg[i] do
    local k, v = arg[i], arg[i + 1]
    if k == "--grind" then args.grind = true; i = i + 1
    else
      if k == "--n" then args.n = tonumber(v); args.n_given = true
      elseif k == "--rounds" then args.rounds = tonumber(v)
      elseif k == "--data" then args.path = v
      else usage("unknown argument " .. tostring(k)) end
      if v == nil then usage(k .. " needs a value") end
      i = i + 2
    end
  end
end
for _, k in ipairs { "n", "rounds" } do
  if not args[k] or args[k] < 1 or args[k] % 1 ~= 0 then usage("--" .. k .. " must be a whole number >= 1") end
end
local here = arg[0]:match("^(.*)/[^/]*$") or "."

local BONES, SLOTS, DT, SLICE, FRAMES = 30, 10, 1 / 60, 60, 600
local GRIND_FRAMES = 120

-- --grind outside valgrind: this script again under callgrind, then its dumps' totals
local has_grind, grind = pcall(require, "bench.grind")
if args.grind and not (has_grind and grind.running()) then
  if not has_grind then usage("--grind needs build/bench/grind.so (make bench-grind: valgrind's headers)") end
  local out = here .. "/../build/bench/skeleton2d.callgrind"
  for k = 1, 4 do os.remove(out .. "." .. k) end
  local n = args.n_given and args.n or 100
  local cmd = string.format("valgrind --tool=callgrind --collect-atstart=no --compress-strings=no --callgrind-out-file=%s %s %s --grind --n %d%s"
    .. " 2>/dev/null", out, arg[-1] or "lua5.4", arg[0], n, args.path and (" --data " .. args.path) or "")
  io.stderr:write("$ ", cmd, "\n")
  if not os.execute(cmd) then usage("valgrind failed: " .. cmd) end
  local function total(file)
    local f = io.open(file)
    if not f then usage("no " .. file .. " (valgrind --tool=callgrind failed?)") end
    local t = f:read("*a"):match("\ntotals: (%d+)") or ""
    f:close()
    return tonumber(t)
  end
  local worst, real, verts, three = total(out .. ".1"), total(out .. ".2"), total(out .. ".3"), total(out .. ".4")
  local per = function(x, j) return x / (GRIND_FRAMES * n * j) end
  print(string.format('{"workload":"skeleton2d-callgrind","n":%d,"frames":%d,"worst_ir_per_bone_sample":%.1f,'
    .. '"real_ir_per_bone_sample":%.1f,"w1_ir_per_joint_sample":%.1f,"worst_ratio":%.3f,"real_ratio":%.3f,'
    .. '"vertices_ir_per_skeleton":%.0f,"files":["%s.1","%s.2","%s.3","%s.4"],"tool":"valgrind --tool=callgrind"}',
    n, GRIND_FRAMES, per(worst, BONES), per(real, BONES), per(three, 20), per(worst, BONES) / per(three, 20),
    per(real, BONES) / per(three, 20), per(verts, 1), out, out, out, out))
  os.exit(0)
end

local INHERIT = { "normal", "normal", "normal", "onlyTranslation", "noRotationOrReflection", "noScale",
  "noScaleOrReflection" }

math.randomseed(40)
local r = math.random

-- The skeleton: bone 1 the root, each other under one of the three before it.
local bones = { { name = "b1" } }
for i = 2, BONES do
  bones[i] = { name = "b" .. i, parent = "b" .. math.max(1, i - r(3)), x = r() * 20, y = r() * 20 - 10,
    rotation = r() * 360, scale_x = 0.5 + r(), scale_y = 0.5 + r(), shear_x = r() * 10, shear_y = r() * 10,
    length = 10, inherit = INHERIT[r(#INHERIT)] }
end
-- the IK chain: b29 under b28, a target b30 under the root
bones[28].parent, bones[29].parent, bones[30].parent = "b1", "b28", "b1"
bones[29].x = 10

-- The slots: slot s on bone 3s - 1, its mesh a 4 x 4 grid of 16 vertices
-- (18 triangles); the even ones weighted to the bone and its parent.
local slots, atts = {}, {}
for s = 1, SLOTS do
  local b = 3 * s - 1
  local name = "s" .. s
  local verts, uvs, tris, weighted = {}, {}, {}, s % 2 == 0
  local parent = tonumber(bones[b].parent:sub(2))
  for y = 0, 3 do
    for x = 0, 3 do
      uvs[#uvs + 1], uvs[#uvs + 2] = x / 3, y / 3
      if weighted then
        for _, v in ipairs { 2, b - 1, x * 10, y * 10, 0.75, parent - 1, x * 10 + 5, y * 10 - 5, 0.25 } do
          verts[#verts + 1] = v
        end
      else
        verts[#verts + 1], verts[#verts + 2] = x * 10, y * 10
      end
    end
  end
  for y = 0, 2 do
    for x = 0, 2 do
      local k = 4 * y + x
      for _, v in ipairs { k, k + 1, k + 5, k, k + 5, k + 4 } do tris[#tris + 1] = v end
    end
  end
  slots[s] = { name = name, bone = "b" .. b, color = { 1, 1, 1, 1 }, attachment = "m" .. s, blend = "normal" }
  atts[name] = { ["m" .. s] = { type = "mesh", name = "m" .. s, path = "m" .. s, uvs = uvs, triangles = tris,
    vertices = verts, weighted = weighted, hull = 12, width = 30, height = 30,
    region = { page = "page", x = 0, y = 0, width = 64, height = 64, u = 0, v = 0, u2 = 1, v2 = 1 } } }
end

local sk = assert(anim.skeleton2d{ bones = bones, slots = slots,
  skins = { { name = "default", attachments = atts } },
  ik = { { name = "arm", bones = { "b28", "b29" }, target = "b30", softness = 3 } },
  transforms = { { name = "follow", bones = { "b27" }, target = "b2", mix_rotate = 0.5, mix_x = 0.5, mix_y = 0.5,
    mix_scale_x = 0, mix_scale_y = 0, mix_shear_y = 0 } } })

-- The worst case: every channel of every bone, absolute.
local function worst_clip(name)
  local joints, props = {}, {}
  for i = 1, BONES do
    local pos, rot, scl = {}, {}, {}
    for k = 0, 29 do
      local t = k * 2 / 29
      pos[k + 1] = { t, { r() * 20, r() * 20, 0 } }
      rot[k + 1] = { t, { 0, 0, (r() - 0.5) * 800 } }
      scl[k + 1] = { t, { 0.5 + r(), 0.5 + r(), 1 } }
    end
    joints["b" .. i] = { position = pos, rotation = rot, scale = scl }
    if i <= 10 then props["b" .. i .. ".shear"] = { { 0, { 0, 0 } }, { 1, { r() * 20, r() * 20 } }, { 2, { 0, 0 } } } end
  end
  props["ik.arm"] = { { 0, { 1, 3 } }, { 2, { 0.5, 5 } } }
  return assert(anim.clip({ absolute = true, euler = "xyz", length = 2, loop = "loop", joints = joints,
    properties = props }, name))
end

-- The realistic case: rotations on most bones, translations on some,
-- scale and shear rarely; offsets from the setup pose (no `absolute`), as
-- the importers write Spine's and DragonBones' timelines.
local function real_clip(name)
  local joints, props = {}, {}
  local function keys(f)
    local out = {}
    for k = 0, 9 do out[k + 1] = { k * 2 / 9, f(k) } end
    return out
  end
  for i = 1, BONES do
    local j = {}
    if i <= 24 then j.rotation = keys(function() return { 0, 0, (r() - 0.5) * 90 } end) end
    if i % 3 == 0 then j.position = keys(function() return { r() * 4 - 2, r() * 4 - 2, 0 } end) end
    if i == 5 or i == 11 or i == 17 then j.scale = keys(function() return { 0.8 + 0.4 * r(), 0.8 + 0.4 * r(), 1 } end) end
    if next(j) then joints["b" .. i] = j end
    if i == 7 or i == 13 then props["b" .. i .. ".shear"] = keys(function() return { r() * 10, r() * 10 } end) end
  end
  return assert(anim.clip({ euler = "xyz", length = 2, loop = "loop", joints = joints, properties = props }, name))
end

local function animators(clips)
  local list = {}
  for i = 1, args.n do
    local a = anim.animator(sk)
    for _, c in ipairs(clips) do
      local t = a:play(c, { fade = 0, weight = 0.5 })
      t.time = (i * 0.6180339887498949) % 1 * 2
    end
    list[i] = a
  end
  return list
end
local worst = animators { worst_clip("a"), worst_clip("b") }
local real = animators { real_clip("a"), real_clip("b") }

local path = args.path or (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local d = assert(w1.read(path))
local rig = w1.rig(d)
local clips = {}
for c = 1, d.C do clips[c] = w1.clip(d, c) end
local list3d = w1.characters(rig, clips, args.n, d.D)

-- The vertices, as anim.love's draw writes them (without its LÖVE calls):
-- each skeleton's triangles from the start of one buffer of floats (a
-- page's mesh: anim.love.draw starts each animator's vertices at the
-- page's first and hands them to LÖVE before the next animator's), per
-- skeleton its drawer (world matrices, a scratch, deforms) and its draw
-- order kept.
local compiled = attach2d.of(real[1])
local per_skeleton = 3 * 18 * SLOTS
local out = anim.buffer(12 * per_skeleton, "float")
local state = {}
for i, a in ipairs(real) do
  local st = { world = attach2d.buffer(6 * BONES), scratch = attach2d.buffer(32) }
  st.drawer, st.reader = attach2d.drawer(compiled, st.world, st.scratch), attach2d.slots(compiled)
  state[i] = st
  assert(attach2d.of(a) == compiled)
end
local draw, pose, read_slots, slot_entries = attach2d.draw, attach2d.pose, attach2d.read_slots, attach2d.slot_entries
local run, draw_list, page_id, blend_id = attach2d.run, attach2d.draw_list, attach2d.page_id, attach2d.blend_id
local slot_values = attach2d.slot_values
local orders = compiled.orders
local function vertices(list)
  local written = 0
  for i = 1, #list do
    local a, st, used = list[i], state[i], 0
    pose(st.drawer, a, compiled)
    local order = orders[read_slots(st.reader, a)] or orders[0]
    local skin = a:skin()
    local entries, dlist = slot_entries(compiled, skin), draw_list(compiled, skin)
    -- (as anim.love.draw: the slots of one page and blend in C, the
    -- others, each starting a run, in Lua)
    local o, n, page, blend = 1, #order, nil, nil
    while o <= n do
      if page then
        local wrote
        o, wrote = run(st.drawer, st.reader, a, dlist, order, o, out, used, page, blend, 0)
        used = used + wrote
        if o > n then break end
      end
      local s = order[o]
      local ki, cr, cg, cb, ca, dr, dg, db = slot_values(st.reader, a, s)
      local e = entries[s][ki]
      if e and e.ntri > 0 then
        local k = e.color
        used = used + draw(st.drawer, e.record, out, used, cr * k[1], cg * k[2], cb * k[3], ca * k[4], dr, dg, db)
        page, blend = page_id(compiled, e.page), blend_id(compiled, compiled.slot_blend[s])
      end
      o = o + 1
    end
    written = written + used
  end
  return written
end

local opts = { threads = 1 }
local clock = os.clock
local function frames(list, n)
  local t0 = clock()
  for _ = 1, n do anim.update(list, DT, opts) end
  return clock() - t0
end
-- the real set: its update, then its vertices, timed apart
local function frames_drawn(list, n)
  local tu, tv = 0, 0
  for _ = 1, n do
    local t0 = clock()
    anim.update(list, DT, opts)
    local t1 = clock()
    local written = vertices(list)
    tv = tv + (clock() - t1)
    tu = tu + (t1 - t0)
    assert(written == per_skeleton * #list)
  end
  return tu, tv
end

-- warm-up: a whole loop of each
frames(worst, 120)
frames_drawn(real, 120)
frames(list3d, 120)

if args.grind then
  -- (under valgrind: the counts of GRIND_FRAMES frames of each set)
  local function counted(name, f)
    grind.toggle(); f(); grind.toggle(); grind.dump(name)
  end
  counted("worst", function() frames(worst, GRIND_FRAMES) end)
  local function real_update() anim.update(real, DT, opts) end
  counted("real", function() for _ = 1, GRIND_FRAMES do real_update() end end)
  -- (the vertices of the real set's last frame, written GRIND_FRAMES times: the same work a frame)
  counted("vertices", function() for _ = 1, GRIND_FRAMES do vertices(real) end end)
  counted("w1", function() frames(list3d, GRIND_FRAMES) end)
  os.exit(0)
end

local tw, tr, tv, t3d, rw, rr = {}, {}, {}, {}, {}, {}
for round = 1, args.rounds do
  local a, b, v, c = 0, 0, 0, 0
  for s = 1, FRAMES / SLICE do
    local turn = (round + s) % 3
    for k = 0, 2 do
      local which = (turn + k) % 3
      if which == 0 then a = a + frames(worst, SLICE)
      elseif which == 1 then
        local u, x = frames_drawn(real, SLICE)
        b, v = b + u, v + x
      else c = c + frames(list3d, SLICE) end
    end
  end
  tw[round] = a * 1e9 / (FRAMES * args.n * BONES)
  tr[round] = b * 1e9 / (FRAMES * args.n * BONES)
  tv[round] = v * 1e9 / (FRAMES * args.n)
  t3d[round] = c * 1e9 / (FRAMES * args.n * d.J)
  rw[round] = tw[round] / t3d[round]
  rr[round] = tr[round] / t3d[round]
end

-- the Lua heap in steady play (update + vertices), the collector stopped
collectgarbage("collect")
collectgarbage("stop")
frames_drawn(real, 1)
frames(worst, 1)
local kb0 = collectgarbage("count")
frames_drawn(real, 60)
frames(worst, 60)
local alloc = (collectgarbage("count") - kb0) * 1024 / 60
collectgarbage("restart")

local unpack = rawget(table, "unpack") or rawget(_G, "unpack")
print(string.format('{"workload":"skeleton2d","n":%d,"bones":%d,"rounds":%d,"worst_ns_per_bone_sample":%.2f,'
  .. '"real_ns_per_bone_sample":%.2f,"w1_ns_per_joint_sample":%.2f,"worst_ratio":%.3f,"worst_ratio_min":%.3f,'
  .. '"worst_ratio_max":%.3f,"real_ratio":%.3f,"real_ratio_min":%.3f,"real_ratio_max":%.3f,'
  .. '"vertices_ns_per_skeleton":%.0f,"vertices_ns_per_vertex":%.2f,"lua_alloc_bytes_per_frame":%.1f,"clock":"os.clock"}',
  args.n, BONES, args.rounds, median(tw), median(tr), median(t3d), median(rw), math.min(unpack(rw)),
  math.max(unpack(rw)), median(rr), math.min(unpack(rr)), math.max(unpack(rr)), median(tv),
  median(tv) / per_skeleton, alloc))
