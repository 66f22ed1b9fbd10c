-- bench/table.lua: the markdown table of a `make bench` run.
--
--   lua5.4 bench/table.lua [results.jsonl] [--doc docs/performance.md]
--
-- Reads the JSON lines of bench/run.lua (default build/bench/results.jsonl)
-- and prints the figures next to the peers' (../shared/bench/README.md) and
-- the targets of issue 8, each marked met or not met.  With --doc, also
-- replaces the text between the lines "<!-- bench:begin -->" and
-- "<!-- bench:end -->" of that file with the table.
local cjson = require "cjson"
local compat = require "anim.base.compat"

local path, doc = "build/bench/results.jsonl", nil
do
  local i = 1
  while i <= #arg do
    if arg[i] == "--doc" then i = i + 1; doc = arg[i] else path = arg[i] end
    i = i + 1
  end
end

-- The peers, ns per joint-sample (../shared/bench/README.md, this machine).
local PEERS = {
  [1] = { three = 335, ozz = 43, c_o2 = 25, c_o3 = 20 },
  [100] = { three = 394, ozz = 45, c_o2 = 33, c_o3 = 25 },
  [1000] = { three = 858, ozz = 59, c_o2 = 40, c_o3 = 24 },
  [10000] = { three = 1080, ozz = 88, c_o2 = 30, c_o3 = 24 },
}

local rows, load, callbacks, allocs, meta, gameplay, paired = {}, nil, nil, nil, {}, {}, nil
local ns_seen, ns_list = {}, {}
local f = assert(io.open(path), "no " .. path .. " (run `make bench` first)")
for line in f:lines() do
  local ok, r = pcall(cjson.decode, line)
  if ok and type(r) == "table" then
    if r.workload == "meta" then meta = r
    elseif r.workload == "load" then load = r
    elseif r.workload == "callbacks" then callbacks = r
    elseif r.workload == "w1-paired" then paired = r
    elseif r.workload == "allocs" then allocs = r
    elseif r.workload == "gameplay" then gameplay[r.set] = r
    elseif r.n then
      local key = r.workload == "W1" and (r.variant .. " " .. r.mode) or r.workload
      rows[key] = rows[key] or {}
      rows[key][r.n] = r
      if not ns_seen[r.n] then ns_seen[r.n] = true; ns_list[#ns_list + 1] = r.n end
    end
  end
end
f:close()
table.sort(ns_list)

local function ns(key, n)
  local r = rows[key] and rows[key][n]
  return r and r.ns_per_joint_sample
end
local function fmt(x)
  if x == nil then return "—" end
  if compat.mtype(x) == "integer" or x >= 100 then return string.format("%.0f", x) end
  return string.format("%.1f", x)
end

local function first_line(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local s = p:read("*l")
  p:close()
  return s
end

local out = {}
local function say(s) out[#out + 1] = s or "" end

local cpu = first_line("grep -m1 'model name' /proc/cpuinfo") or "?"
cpu = cpu:gsub("^model name%s*:%s*", "")
local cores = first_line("nproc") or "?"
local deb = first_line("cat /etc/debian_version")
local gcc = first_line("cc --version")
local luav = (first_line((arg[-1] or "lua5.4") .. " -v") or _VERSION):match("^(Lua %S+)")
say(string.format("Measured %s on %s (%s CPUs), Debian %s, %s, %s; `make bench` at commit %s.",
  type(meta.date) == "string" and meta.date or os.date("!%Y-%m-%d"), cpu, cores, deb or "?", luav or _VERSION,
  gcc or "cc", type(meta.commit) == "string" and meta.commit or "?"))
say("Times are process CPU time (`os.clock`; `CLOCK_PROCESS_CPUTIME_ID` in C), medians; the peers' columns were measured earlier on this machine (\"Workload W1\" above), the others in this run.")
say()
say("**W1, ns per joint-sample** (run time / (600 × N × 20))")
say()
say("| N | anim W1 update | anim W1 update, batch | anim W1 update+read | anim W1 update+read, per joint | anim W1e update | C float/nlerp -O2 | C exact/slerp -O2 | three.js r187 | ozz 0.16 | README C -O2 | README C -O3 native |")
say("|---|---|---|---|---|---|---|---|---|---|---|---|")
for _, n in ipairs(ns_list) do
  local p = PEERS[n] or {}
  say(string.format("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", n,
    fmt(ns("w1 update", n)), fmt(ns("w1 update(batch)", n)), fmt(ns("w1 update+read", n)),
    fmt(ns("w1 update+read_joints", n)), fmt(ns("w1e update", n)),
    fmt(ns("W1-ref-float", n)), fmt(ns("W1-ref-exact", n)),
    fmt(p.three), fmt(p.ozz), fmt(p.c_o2), fmt(p.c_o3)))
end
say()
say("`update`: `animator:update(dt)` on each character; `batch`: one `anim.update(list, dt)` a frame. "
  .. "The W1 update targets below use the faster of the two, named in each row. "
  .. "`update+read`: `animator:update(dt)`, then the character's pose read with one `animator:pose_array(t)` "
  .. "into its array and summed in Lua; `per joint`: with `animator:local_transform(j)` a joint, its ten numbers "
  .. "summed (the update+read target uses the faster of the two, named in its row).")
say()

-- Targets -------------------------------------------------------------------

local targets = {}
local function target(name, figure, ok)
  local mark = ok == nil and "not measured" or ok and "**met**" or "not met"
  targets[#targets + 1] = string.format("| %s | %s | %s |", name, figure, mark)
end
local function ratio(a, b) return (a and b) and a / b or nil end
local function rfmt(x) return x and string.format("%.2f×", x) or "—" end

-- W1 update: the faster of the two ways of the API (per animator, batch)
local WAYS = { { key = "w1 update", name = "animator:update" }, { key = "w1 update(batch)", name = "anim.update batch" } }
local function fastest(n)
  local v, way
  for _, w in ipairs(WAYS) do
    local x = ns(w.key, n)
    if x and (not v or x < v) then v, way = x, w.name end
  end
  return v, way
end
local u1000, way1000 = fastest(1000)
local f1000, e1000 = ns("W1-ref-float", 1000), ns("W1-ref-exact", 1000)
local by = way1000 and (" (" .. way1000 .. ")") or ""
local function cmp(a, b, limit)
  if not (a and b) then return nil end
  return a <= b * limit
end
target("W1 update, N = 1000, ≤ the exact loop (same run)",
  string.format("%s%s vs %s ns (%s)", fmt(u1000), by, fmt(e1000), rfmt(ratio(u1000, e1000))), cmp(u1000, e1000, 1))
target("goal: W1 update, N = 1000, ≤ 1.5 × the float loop (same run)",
  string.format("%s%s vs 1.5 × %s = %s ns (%s)", fmt(u1000), by, fmt(f1000), fmt(f1000 and 1.5 * f1000),
    rfmt(ratio(u1000, f1000))), cmp(u1000, f1000, 1.5))
target("goal: W1 update, N = 1000, ahead of ozz-animation (README: 59 ns)",
  string.format("%s%s vs 59 ns", fmt(u1000), by), u1000 and u1000 < 59)
target("W1 update, N = 1000, ≥ 10 × faster than three.js (README: 858 ns)",
  string.format("%s%s vs 85.8 ns (%s faster)", fmt(u1000), by, u1000 and string.format("%.1f×", 858 / u1000) or "—"),
  u1000 and u1000 <= 85.8)
-- update+read and W1e run animator:update on each character: compared
-- with the same way of W1 update
local p1000 = ns("w1 update", 1000)
do
  -- the read the fastest way a game has (issue 8): one pose_array a
  -- character, or a local_transform a joint, the other beside it
  local best = { name = "pose_array", ns = ns("w1 update+read", 1000) }
  local other = { name = "local_transform a joint", ns = ns("w1 update+read_joints", 1000) }
  if other.ns and (not best.ns or other.ns < best.ns) then best, other = other, best end
  if not best.ns then best = nil end
  if not other.ns then other = nil end
  local r1000 = best and best.ns
  target("W1 update+read, N = 1000, ≤ 2 × W1 update (both animator:update)",
    string.format("%s%s vs %s ns (%s)%s", fmt(r1000), best and (" (" .. best.name .. ")") or "", fmt(p1000),
      rfmt(ratio(r1000, p1000)),
      other and string.format("; %s %s ns (%s)", other.name, fmt(other.ns), rfmt(ratio(other.ns, p1000))) or ""),
    cmp(r1000, p1000, 2))
end
local eu1000 = ns("w1e update", 1000)
target("W1e update, N = 1000, ≤ 2.5 × W1 update (both animator:update)",
  string.format("%s vs %s ns (%s)", fmt(eu1000), fmt(p1000), rfmt(ratio(eu1000, p1000))), cmp(eu1000, p1000, 2.5))
do
  local lo, hi = ns_list[1], ns_list[#ns_list]
  local ga, gway
  for _, w in ipairs(WAYS) do
    local g = ratio(ns(w.key, hi), ns(w.key, lo))
    if g and (not ga or g < ga) then ga, gway = g, w.name end
  end
  local gf = ratio(ns("W1-ref-float", hi), ns("W1-ref-float", lo))
  local ge = ratio(ns("W1-ref-exact", hi), ns("W1-ref-exact", lo))
  local other = {}
  for _, w in ipairs(WAYS) do
    local g = ratio(ns(w.key, hi), ns(w.key, lo))
    if g and w.name ~= gway then other[#other + 1] = string.format("%s %s", w.name, rfmt(g)) end
  end
  target(string.format("growth N = %d → %d ≤ the float loop's growth × 1.2", lo, hi),
    string.format("anim %s%s, float loop %s (limit %s), exact loop %s%s", rfmt(ga),
      gway and (" (" .. gway .. ")") or "", rfmt(gf), rfmt(gf and gf * 1.2), rfmt(ge),
      #other > 0 and ("; " .. table.concat(other, ", ")) or ""), cmp(ga, gf, 1.2))
end
if load then
  target("loading ≤ 3 × cjson.decode alone",
    string.format("anim.load %.0f ms vs cjson.decode %.0f ms (%s)", load.load_ms, load.cjson_decode_ms,
      rfmt(load.load_over_cjson)), load.load_over_cjson <= 3)
  local best = load.malloc_bytes_per_key
  local ok
  if best and best ~= cjson.null then ok = best <= 1.5 * load.target_bytes_per_key
  elseif load.lua_heap_bytes_per_key > 1.5 * load.target_bytes_per_key then ok = false end
  target("memory per key ≤ 1.5 × 8 × (1 + arity)",
    string.format("%s bytes (malloc, Lua + C) vs 1.5 × %.1f = %.0f; Lua heap alone %.0f, RSS delta %s",
      (best and best ~= cjson.null) and string.format("%.0f", best) or "—", load.target_bytes_per_key,
      1.5 * load.target_bytes_per_key, load.lua_heap_bytes_per_key,
      load.rss_delta_bytes_per_key ~= cjson.null and string.format("%.0f", load.rss_delta_bytes_per_key) or "—")
      .. (load.editor_malloc_bytes_per_key and load.editor_malloc_bytes_per_key ~= cjson.null
        and string.format("; the same clip with its editor extras (not counted) %.0f", load.editor_malloc_bytes_per_key)
        or ""), ok)
end
do
  local worst, any = 0, false
  for key, byn in pairs(rows) do
    if key:match("^w1") then
      for _, r in pairs(byn) do
        if r.lua_alloc_bytes_per_frame then any = true; worst = math.max(worst, r.lua_alloc_bytes_per_frame) end
      end
    end
  end
  local fig = any and string.format("Lua heap: %.1f bytes per frame (worst W1 set)", worst) or "—"
  local ok = any and worst == 0 or nil
  local m = allocs and allocs.malloc_calls
  if m and m["w1 update"] and m["w1 update"].per_frame ~= cjson.null then
    local list, all0 = {}, true
    for _, k in ipairs { "w1 update", "w1 update(batch)", "w1 update(batch,threads=2)", "w1 update+read",
      "w1 update+read_joints", "w1e update", "callbacks", "beyond", "space2d4", "ik2" } do
      local e = m[k]
      if e and e.per_frame ~= cjson.null then
        list[#list + 1] = string.format("%s %.2f (N = %d)", k, e.per_frame, e.n)
        all0 = all0 and e.per_frame == 0
      end
    end
    fig = fig .. "; malloc calls per frame, C and Lua: " .. table.concat(list, ", ")
    ok = ok and all0
  else
    fig = fig .. "; C side not measured (no build/bench/malloc_count.so)"
    if ok then ok = nil end
  end
  target("no allocation per frame in steady play", fig, ok)
end

say("**Targets of issue 8** (N = 1000 unless said; ns per joint-sample)")
say()
say("| target | figures | |")
say("|---|---|---|")
for _, t in ipairs(targets) do say(t) end
say()

-- Issue 24: unheard markers, delivered track callbacks, sampling, loading, threads
targets = {}
if callbacks and callbacks.ns_per_unheard_marker then
  target("a marker crossing with no listener ≤ 15 ns more than the same update without markers (same run)",
    string.format("%.1f ns (update per animator %.0f ns with markers, %.0f without)", callbacks.ns_per_unheard_marker,
      callbacks.ns_per_update_markers, callbacks.ns_per_update_plain), callbacks.ns_per_unheard_marker <= 15)
  target("a delivered `track:on_marker` callback ≤ 60 ns more than calling the same Lua function from a Lua loop",
    string.format("%.0f ns more (the update with it %.0f ns, without markers %.0f, the Lua call %.1f)%s",
      callbacks.ns_track_callback_over_lua_call, callbacks.ns_per_update_track, callbacks.ns_per_update_plain,
      callbacks.ns_per_lua_call, callbacks.ns_track_callback_over_lua_call_batch
        and string.format("; through anim.update %.0f ns more (%.0f with it, %.0f without)",
          callbacks.ns_track_callback_over_lua_call_batch, callbacks.ns_per_update_track_batch,
          callbacks.ns_per_update_plain_batch) or "")
      -- (the floor of any delivery from C: bench/ref/callfloor.c; JSON null before it was built)
      .. (type(callbacks.ns_floor_over_lua_call) == "number"
        and string.format("; the least delivery from C, %.0f ns more (bench/ref/callfloor.c)",
          callbacks.ns_floor_over_lua_call) or ""),
    callbacks.ns_track_callback_over_lua_call <= 60)
end
-- (the sampling's error bound is asserted by tests/c/core_test.c's sweep
-- of angles, not measured here)
do
  local name = "W1 update, N = 1000, ≤ 1.5 × the float/nlerp loop (same run), within 1e-7 of the exact results"
  local bound = "error ≤ 2e-11 (tests/c/core_test.c's sweep)"
  if paired then
    -- (slice_frames: bench/w1pair.lua, one process; else the runs of
    -- the older bench/run.lua, a process each)
    local how = paired.slice_frames
      and string.format("the median of %d rounds in one process, the two taking turns in slices of %d frames",
        paired.rounds, paired.slice_frames)
      or string.format("the median of %d pairs taking turns", paired.rounds)
    target(name, string.format("%.2f× (anim.update batch over the float loop: %s, "
      .. "%.2f× to %.2f×; medians %.1f vs %.1f ns); %s", paired.batch_over_float, how, paired.ratio_min,
      paired.ratio_max, paired.batch_ns, paired.float_ns, bound), paired.batch_over_float <= 1.5)
  else
    target(name, string.format("%s%s vs 1.5 × %s = %s ns (%s); %s", fmt(u1000), by, fmt(f1000),
      fmt(f1000 and 1.5 * f1000), rfmt(ratio(u1000, f1000)), bound), cmp(u1000, f1000, 1.5))
  end
end
if load then
  target("loading ≤ 2 × cjson.decode of the same file (same run)",
    string.format("anim.load %.0f ms vs cjson.decode %.0f ms (%s)", load.load_ms, load.cjson_decode_ms,
      rfmt(load.load_over_cjson)), load.load_over_cjson <= 2)
end
for _, n in ipairs { 1000, 10000 } do
  local t1, t2 = rows["w1 update(batch,threads=1)"], rows["w1 update(batch,threads=2)"]
  t1, t2 = t1 and t1[n], t2 and t2[n]
  if t1 and t2 then
    local sp = t1.ms_per_frame / t2.ms_per_frame
    -- (the calling thread's CPU time: its share of the work, which shows
    -- the split even when the machine's cores are busy with other work)
    local split = t2.caller_cpu_ms_per_frame and t2.caller_cpu_ms_per_frame > 0
      and string.format("; the calling thread's %.2f ms of it (%.2f× less than the process's)", t2.caller_cpu_ms_per_frame,
        t2.cpu_ms_per_frame / t2.caller_cpu_ms_per_frame) or ""
    target(string.format("W1 `anim.update` on 2 threads, N = %d: wall-clock speed-up ≥ 1.7×", n),
      string.format("%.2f ms a frame on 1 thread, %.2f on 2 (%.2f×; CPU time %.2f ms on 2%s)", t1.ms_per_frame,
        t2.ms_per_frame, sp, t2.cpu_ms_per_frame or 0, split), sp >= 1.7)
  end
end
if #targets > 0 then
  say("**Targets of issue 24** (bench/callbacks.lua: 1000 animators, one marker each a frame; "
    .. "W1 on threads: `bench/w1.lua --threads 1,2`, wall clock, the two counts taking turns in one process, the machine shared)")
  say()
  say("| target | figures | |")
  say("|---|---|---|")
  for _, t in ipairs(targets) do say(t) end
  say()
end

if gameplay.w1 then
  local g = gameplay
  local function row(name, r, note)
    if not r then return end
    say(string.format("| %s | %.2f | %.0f | %.2f× | %s |", name, r.ms_per_frame, r.ns_per_character,
      r.ns_per_character / g.w1.ns_per_character, note))
  end
  say(string.format("**Gameplay features** (N = %d characters of 20 joints, one `anim.update(list, dt)` a frame; bench/gameplay.lua)", g.w1.n))
  say()
  say("| set | ms per frame | ns per character | × W1 | |")
  say("|---|---|---|---|---|")
  row("W1 (two clips at 0.5)", g.w1, "the baseline of this run")
  row("2D blend space of 4 clips", g.space2d4, "synced; the parameter moved every frame with `track:set_at`")
  row("W1, the rig's first three joints chained", g.w1chain, "the baseline of the next row")
  row("W1 + a two-bone IK", g.ik2, g.ik2 and string.format("the target moved every frame with `set_target`; the constraint alone %.0f ns",
    g.ik2.ns_per_constraint) or "")
  say()
end

if load or callbacks then
  say("**Loading and callbacks**")
  say()
  if load then
    say(string.format("- Load: a %.1f MB `.anim` (%d joints, %d keys, every interpolation): `anim.load` %.0f ms, "
      .. "`anim.decode` of the text %.0f ms, `cjson.decode` alone %.0f ms (load / cjson = %.2f). "
      .. "Memory per key with the clip held (the clip without its editor extras, which the target does not count): "
      .. "%s bytes through malloc (Lua heap and C core), of which the Lua heap %.0f; "
      .. "RSS delta %s (an upper bound); target 8 × (1 + arity) = %.1f on average.",
      load.bytes / 1e6, load.joints, load.keys, load.load_ms, load.decode_ms, load.cjson_decode_ms,
      load.load_over_cjson,
      load.malloc_bytes_per_key ~= cjson.null and string.format("%.0f", load.malloc_bytes_per_key) or "—",
      load.lua_heap_bytes_per_key,
      load.rss_delta_bytes_per_key ~= cjson.null and string.format("%.0f", load.rss_delta_bytes_per_key) or "—",
      load.target_bytes_per_key))
  end
  if callbacks then
    say(string.format("- Callbacks: %d animators, one marker each per frame: %.0f ns per delivered `on_marker` callback "
      .. "(over the same markers with no callback connected); %.0f ns per marker with its callback over the same "
      .. "clip without markers. Update per animator: %.0f ns without markers, %.0f with markers, %.0f with callbacks.",
      callbacks.n, callbacks.ns_per_callback, callbacks.ns_per_marker_with_callback, callbacks.ns_per_update_plain,
      callbacks.ns_per_update_markers, callbacks.ns_per_update_callback))
  end
  say()
end

local text = table.concat(out, "\n")
print(text)

if doc then
  local d = assert(io.open(doc))
  local s = d:read("*a")
  d:close()
  local a, b = s:find("<!%-%- bench:begin %-%->\n", 1)
  local c = s:find("<!%-%- bench:end %-%->", b or 1)
  if not (a and c) then
    io.stderr:write("table.lua: ", doc, " has no <!-- bench:begin --> ... <!-- bench:end --> lines\n")
    os.exit(1)
  end
  d = assert(io.open(doc, "w"))
  d:write(s:sub(1, b), text, "\n", s:sub(c))
  d:close()
end
