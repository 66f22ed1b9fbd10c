-- bench/compress.lua: compressed clips' figures (anim.compress, .animc):
-- for each clip of the skinned glTF models of ../shared/data/gltf and of
-- real Blockbench / Bedrock files (baked by the importer), at the default
-- bound (0.001 at 0.1 for a rig of human size in metres, scaled by the
-- rest pose's extent over 1.7) and the tight one (0.0001 at 0.03, scaled
-- alike): bytes raw (10 float32 a joint at every key time of the densest
-- channel, as ozz-animation and ACL count it), of the exact .anim file, of
-- the pack and of the .animc file, the ratio, the worst and 99th-percentile
-- errors, the time to compress, to load the .animc against the .anim, and
-- to sample (100 animators updated by anim.update, ns a joint) compressed
-- against exact; then two generated rigs of 20 and 60 joints.  One JSON
-- line per clip, then a Markdown table.
--   lua5.4 bench/compress.lua [FILE ...]        (make bench-compress)
local anim = require "anim"
local R = require "anim.export.gltf.reduce"
local shared = os.getenv("ANIM_SHARED") or "../shared"
local G, B = shared .. "/data/gltf/", shared .. "/data/realfiles/"

local files = { ... }
if #files == 0 then
  files = { G .. "CesiumMan/glTF-Binary/CesiumMan.glb", G .. "Fox/glTF-Binary/Fox.glb",
    G .. "RiggedFigure/glTF-Binary/RiggedFigure.glb", B .. "geckolib/gecko_habitat.animation.json",
    B .. "Geckolib-Unofficial-1.7.10/geo_npc.animation.json", B .. "toms-mobs/showmaster.ajblueprint" }
end

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p " .. tmp))

local function size(p)
  local f = assert(io.open(p, "rb"))
  local n = f:seek("end")
  f:close()
  return n
end

-- CPU seconds of fn, the best of 3 runs of `reps` calls.
local function best(reps, fn)
  local b = math.huge
  for _ = 1, 3 do
    local t0 = os.clock()
    for _ = 1, reps do fn() end
    b = math.min(b, (os.clock() - t0) / reps)
  end
  return b
end

-- ns a joint of 100 animators playing clip c on rig, 120 updates.
local function sample_ns(c, rig)
  local list = {}
  for i = 1, 100 do
    local a = anim.animator(rig, { warn = false })
    local t = a:play(c, { fade = 0 })
    t.time = (i * 0.618) % 1 * c.length
    list[i] = a
  end
  local opts = { threads = 1 }
  anim.update(list, 1 / 60, opts)
  local s = best(1, function() for _ = 1, 120 do anim.update(list, 1 / 60, opts) end end)
  return s / (120 * 100 * #rig:joints()) * 1e9
end

local rows = {}
local function measure(file, name, clip, rig, tight)
  local cl = R.bound(rig:joints(), nil)
  local opts = { rig = rig }
  if tight then opts.error, opts.distance = cl * 0.1, cl * 30 end
  local t0 = os.clock()
  local cc = assert(anim.compress(clip, opts))
  local compress_s = os.clock() - t0
  local f = cc:compression()
  local exact, packed = tmp .. "/x.anim", tmp .. "/x.animc"
  assert(anim.save(clip, exact))
  assert(anim.save(cc, packed))
  local load_anim = best(5, function() assert(anim.load(exact)) end)
  local load_animc = best(5, function() assert(anim.load(packed)) end)
  local row = {
    file = file:match("[^/]+$"), clip = name, tight = tight or false, joints = #clip:joints(), length = clip.length,
    bytes_raw = f.bytes_raw, anim_bytes = size(exact), pack_bytes = f.bytes, animc_bytes = size(packed),
    ratio = f.ratio, error = f.error, distance = f.distance, worst = f.worst, p99 = f.p99, compress_s = compress_s,
    load_anim_ms = load_anim * 1e3, load_animc_ms = load_animc * 1e3,
    sample_ns = not tight and sample_ns(cc, rig) or nil, sample_exact_ns = not tight and sample_ns(clip, rig) or nil,
  }
  local parts = {}
  for _, k in ipairs { "file", "clip", "tight", "joints", "length", "bytes_raw", "anim_bytes", "pack_bytes", "animc_bytes",
    "ratio", "error", "distance", "worst", "p99", "compress_s", "load_anim_ms", "load_animc_ms", "sample_ns", "sample_exact_ns" } do
    local v = row[k]
    if v ~= nil then
      parts[#parts + 1] = string.format("%q:%s", k, type(v) == "string" and string.format("%q", v)
        or type(v) == "boolean" and tostring(v) or string.format("%.6g", v))
    end
  end
  print("{" .. table.concat(parts, ",") .. "}")
  io.stdout:flush()
  rows[#rows + 1] = row
end

for _, file in ipairs(files) do
  local r = assert(anim.open(file))
  local names = {}
  for n in pairs(r.clips) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    local clip = r.clips[n]
    local rig = r.rig or anim.rig("player")
    measure(file, n, clip, rig)
    measure(file, n, clip, rig, true)
  end
end

-- Generated rigs (BrainStem-like: a tree of n joints, each turning on its
-- own sines, keyed at 30 a second for 2 s; the root moving too), when no
-- file is named: a load's cost by the joints.
local function generated(n)
  local skel, joints, rigj = {}, {}, {}
  for i = 1, n do
    local name = string.format("joint_%02d", i)
    local parent = i > 1 and string.format("joint_%02d", math.floor((i - 2) / 3) + 1) or nil
    skel[name] = { parent = parent, translation = { 0, 0.1 * (i % 5), 0.05 }, rotation = { 0, 0, 0, 1 }, scale = { 1, 1, 1 } }
    rigj[i] = { name = name, parent = parent, translation = { 0, 0.1 * (i % 5), 0.05 } }
    local rot, pos = {}, {}
    for k = 0, 60 do
      local t = k / 30
      rot[#rot + 1] = { t, { 20 * math.sin(t * 3 + i), 10 * math.cos(t * 2 + i), 5 * math.sin(t + i) } }
      pos[#pos + 1] = { t, { 0.1 * math.sin(t), 0, 0.2 * t } }
    end
    joints[name] = { rotation = rot, position = i == 1 and pos or nil }
  end
  local c = assert(anim.clip({ version = 3, length = 2, loop = "loop", skeleton = skel, joints = joints }, "generated"))
  return c, assert(anim.rig { joints = rigj })
end
if select("#", ...) == 0 then
  for _, n in ipairs { 20, 60 } do
    local c, rig = generated(n)
    measure("generated-" .. n, "joints " .. n, c, rig)
  end
end

print("")
print("| file | clip | bound (at) | bytes raw | .anim | pack | .animc | ratio | worst | p99 | load .anim / .animc ms | sample ns (exact) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for _, w in ipairs(rows) do
  print(string.format("| %s | %s | %.3g (%.3g) | %d | %d | %d | %d | **%.1f** | %.3g | %.3g | %.2f / %.2f | %s |", w.file, w.clip,
    w.error, w.distance, w.bytes_raw, w.anim_bytes, w.pack_bytes, w.animc_bytes, w.ratio, w.worst, w.p99,
    w.load_anim_ms, w.load_animc_ms, w.sample_ns and string.format("%.0f (%.0f)", w.sample_ns, w.sample_exact_ns) or ""))
end
os.execute("rm -rf " .. tmp)
