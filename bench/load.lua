-- bench/load.lua: loading a large .anim.
--
--   lua5.4 bench/load.lua [--runs R] [--out path.anim]
--
-- Writes a deterministic clip of ~6 MB (default build/bench/load.anim):
-- 256 joints with position, rotation (Euler on half the joints, quaternion
-- on the other half) and scale channels, 130 keys each, cycling through
-- every interpolation (linear, step, bezier with in/out handles, catmullrom,
-- the ten easings with in/out/inOut, and keys that leave it out), some keys
-- with editor extras (`type`, handle kinds), markers and events.  Then
-- measures, as one JSON line:
-- - the median times of anim.load(path), anim.decode(text) (the share of
--   reading the file) and cjson.decode of the same text alone, timed in
--   turn in each of R rounds, and the median of the rounds' ratios of
--   load to cjson.decode;
-- - memory per key with the clip held, against 8 x (1 + arity) bytes
--   (arity 3 for position, scale and Euler keys, 4 for quaternion keys):
--   three figures, each before/after the first load of the process, after
--   full collections: the Lua heap (collectgarbage "count"), malloc's bytes
--   in use (mallinfo2, through build/bench/memstat.so from `make bench-ref`;
--   null without it) and the process's VmRSS.  Memory the C core takes with
--   malloc is invisible to the Lua heap figure; malloc's figure counts the
--   Lua heap and the C core (the Lua allocator is malloc); the RSS figure
--   also counts what the allocator keeps after freeing the load's
--   temporaries, an upper bound.
-- Time is os.clock() (process CPU time).
local anim = require "anim"
local median = require "bench.median"
local cjson = require "cjson"

local args = { runs = 7, out = "build/bench/load.anim" }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--runs" then i = i + 1; args.runs = tonumber(arg[i])
    elseif a == "--out" then i = i + 1; args.out = arg[i]
    else
      io.stderr:write("usage: lua5.4 bench/load.lua [--runs R] [--out path.anim]\n")
      os.exit(2)
    end
    i = i + 1
  end
end

-- Generation ---------------------------------------------------------------

local JOINTS, KEYS, LENGTH = 256, 130, 8
local INTERPS = { "linear", "step", "bezier", "catmullrom", "sine", "quad", "cubic", "quart", "quint",
  "expo", "circ", "back", "bounce", "elastic", false } -- false: interpolation left out (linear)
local EASES = { false, "in", "out", "inOut" }
local TYPES = { "breakdown", "extreme", "jitter", "hold" }

local seed = 12345
local function rand() -- 32-bit LCG (Numerical Recipes), in [0, 1)
  seed = (1664525 * seed + 1013904223) % 4294967296
  return seed / 4294967296
end
local function r(a, b) return a + (b - a) * rand() end
local function g(x) return string.format("%.6g", x) end

local keys, target_bytes = 0, 0
local pick = 0
local editor = true -- write the editor's extras (key types, handle kinds)

-- One key: [time, value, interpolation, extra].
local function key(t, value, channel)
  pick = pick + 1
  local interp = INTERPS[pick % #INTERPS + 1]
  local parts = { g(t), "[" .. table.concat(value, ",") .. "]" }
  local extra = {}
  if interp == "bezier" then
    local out_dv = pick % 2 == 0 and g(r(-2, 2)) or string.format("[%s,%s,%s]", g(r(-2, 2)), g(r(-2, 2)), g(r(-2, 2)))
    extra[#extra + 1] = string.format('"out":[%s,%s]', g(r(0.005, 0.03)), out_dv)
    extra[#extra + 1] = string.format('"in":[%s,%s]', g(-r(0.005, 0.03)), g(r(-2, 2)))
    if editor and pick % 3 == 0 then extra[#extra + 1] = '"left":"autoClamped","right":"free"' end
  elseif interp and interp ~= "linear" and interp ~= "step" and interp ~= "catmullrom" then
    local ease = EASES[math.floor(pick / #INTERPS) % #EASES + 1]
    if ease then extra[#extra + 1] = string.format('"ease":"%s"', ease) end
  end
  if editor and pick % 7 == 0 then extra[#extra + 1] = string.format('"type":"%s"', TYPES[math.floor(pick / 7) % #TYPES + 1]) end
  if interp or #extra > 0 then parts[3] = interp and ('"' .. interp .. '"') or '"linear"' end
  if #extra > 0 then parts[4] = "{" .. table.concat(extra, ",") .. "}" end
  keys = keys + 1
  local arity = (channel == "rotation" and #value == 4) and 4 or 3
  target_bytes = target_bytes + 8 * (1 + arity)
  return "[" .. table.concat(parts, ",") .. "]"
end

local function channel(name, quat)
  local out, t = {}, 0
  local step = LENGTH / KEYS
  for k = 1, KEYS do
    local v
    if quat then
      local x, y, z, w = r(-1, 1), r(-1, 1), r(-1, 1), r(0.5, 1.5)
      local l = math.sqrt(x * x + y * y + z * z + w * w)
      v = { g(x / l), g(y / l), g(z / l), g(w / l) }
    elseif name == "rotation" then
      v = { g(r(-90, 90)), g(r(-90, 90)), g(r(-90, 90)) }
    elseif name == "scale" then
      v = { g(r(0.8, 1.2)), g(r(0.8, 1.2)), g(r(0.8, 1.2)) }
    else
      v = { g(r(-1, 1)), g(r(-1, 1)), g(r(-1, 1)) }
    end
    out[k] = key(t, v, name)
    t = math.min(LENGTH, t + step * r(0.5, 1.5))
    if k == KEYS - 1 then t = LENGTH end
  end
  return string.format('"%s":[\n%s]', name, table.concat(out, ",\n"))
end

local function generate(path)
  local parts = {}
  keys, target_bytes, pick, seed = 0, 0, 0, 12345
  for j = 1, JOINTS do
    local quat = j % 2 == 0
    local body = { channel("position"), channel("rotation", quat), channel("scale") }
    if j % 16 == 1 then body[#body + 1] = '"interpolation":"bezier","locked":false' end
    parts[j] = string.format('"bone%03d":{%s}', j, table.concat(body, ",\n"))
  end
  local markers, events = {}, {}
  for m = 1, 64 do
    markers[m] = string.format('{"time":%s,"name":"m%d","value":"v%d"}', g((m - 0.5) * LENGTH / 64), m, m)
    events[m] = string.format('{"time":%s,"name":"e%d","payload":{"n":%d,"tags":["a","b"]},"on":"both"}',
      g((m - 0.25) * LENGTH / 64), m, m)
  end
  local text = string.format('{"version":3,"length":%s,"loop":"loop","priority":"movement","euler":"zyx",'
    .. '"rig":"player","fps":60,\n"joints":{\n%s},\n"markers":[%s],\n"events":[%s]}\n',
    g(LENGTH), table.concat(parts, ",\n"), table.concat(markers, ","), table.concat(events, ","))
  os.execute("mkdir -p '" .. (path:match("^(.*)/[^/]*$") or ".") .. "'")
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return text
end

-- the same clip without the editor's extras, for memory per key (the
-- target counts the sampled numbers; editor extras are kept as they are)
editor = false
local plain_path = args.out:gsub("%.anim$", "") .. "-plain.anim"
generate(plain_path)
editor = true
local text = generate(args.out)

-- Measurement -------------------------------------------------------------

local function status_kb(field)
  local s = io.open("/proc/self/status")
  if not s then return nil end
  local kb = s:read("*a"):match(field .. ":%s*(%d+)")
  s:close()
  return tonumber(kb)
end

local function full_gc()
  collectgarbage("collect")
  collectgarbage("collect")
end

-- every module the load needs, loaded before measuring
assert(anim.decode('{"version":3,"joints":{"a":{"rotation":[[0,[0,0,0],"bezier",{"out":[0.1,1]}],[1,[0,0,0]]]},'
  .. '"b":{"rotation":[[0,[0,0,0,1],"sine"],[1,[0,0,0,1]]]}},"markers":[{"time":0,"name":"m"}]}'))
full_gc()

-- Memory: the first load of the process (so that the allocator reuses
-- nothing freed by an earlier one), the clip held.
local has_memstat, memstat = pcall(require, "bench.memstat")
local function in_use() return has_memstat and memstat.in_use() or 0 end
local function memory(path)
  local lua0, malloc0, rss0 = collectgarbage("count"), in_use(), status_kb("VmRSS")
  local clip = assert(anim.load(path))
  full_gc()
  local lua1, malloc1, rss1 = collectgarbage("count"), in_use(), status_kb("VmRSS")
  assert(#clip:joints() == JOINTS)
  return (lua1 - lua0) * 1024 / keys, has_memstat and (malloc1 - malloc0) / keys or nil,
    rss0 and (rss1 - rss0) * 1024 / keys
end
local lua_bpk, malloc_bpk, rss_bpk = memory(plain_path)
full_gc()
local lua_ed, malloc_ed = memory(args.out)
full_gc()

-- Time: R rounds, each timing anim.load, anim.decode and cjson.decode in
-- turn after full collections, so that the three meet the same state of
-- the heap and of the machine (timed one after the other in blocks, the
-- ratio moved between 1.6 and 2.7 from one run to the next on the same
-- commit: cjson.decode's time follows what the heap went through before).
-- The figures are the medians of each; the ratio is the median of the
-- rounds' ratios of load to cjson.
local function timed(fn)
  full_gc()
  local t0 = os.clock()
  local v = fn()
  local t = os.clock() - t0
  assert(v)
  return t
end

local loads, decodes, cjsons, ratios = {}, {}, {}, {}
for round = 1, args.runs do
  loads[round] = timed(function() return anim.load(args.out) end)
  decodes[round] = timed(function() return anim.decode(text, args.out) end)
  cjsons[round] = timed(function() return cjson.decode(text) end)
  ratios[round] = loads[round] / cjsons[round]
end
local t_load, t_decode, t_cjson, ratio = median(loads), median(decodes), median(cjsons), median(ratios)

local target = target_bytes / keys
local function opt(x, fmt) return x and string.format(fmt, x) or "null" end
print(string.format('{"workload":"load","bytes":%d,"joints":%d,"keys":%d,"runs":%d,'
  .. '"load_ms":%.2f,"decode_ms":%.2f,"cjson_decode_ms":%.2f,"load_over_cjson":%.2f,'
  .. '"target_bytes_per_key":%.1f,"lua_heap_bytes_per_key":%.1f,"malloc_bytes_per_key":%s,'
  .. '"rss_delta_bytes_per_key":%s,"lua_heap_over_target":%.2f,"malloc_over_target":%s,'
  .. '"rss_delta_over_target":%s,"editor_lua_heap_bytes_per_key":%.1f,"editor_malloc_bytes_per_key":%s,'
  .. '"peak_rss_kb":%s,"clock":"os.clock"}',
  #text, JOINTS, keys, args.runs, t_load * 1e3, t_decode * 1e3, t_cjson * 1e3, ratio,
  target, lua_bpk, opt(malloc_bpk, "%.1f"), opt(rss_bpk, "%.1f"),
  lua_bpk / target, opt(malloc_bpk and malloc_bpk / target, "%.2f"), opt(rss_bpk and rss_bpk / target, "%.2f"),
  lua_ed, opt(malloc_ed, "%.1f"), opt(status_kb("VmHWM"), "%d")))
