-- bench/run.lua: everything `make bench` runs, in one go.
--
--   lua5.4 bench/run.lua [--n 1,100,1000,10000] [--runs 1:21,100:9,1000:5,10000:1] [--out build/bench]
--
-- For each N, in this order so that the figures to compare are measured
-- minutes apart at most: the hand-tuned C loops (float, exact;
-- build/bench/w1_ref from `make bench-ref`), then bench/w1.lua for W1
-- update (animator:update on each character, then the batch anim.update,
-- then the batch on compressed clips: "update(batch,compressed)"),
-- W1 update+read (pose_array, a call a joint, pose_into's tables) and W1e
-- update, and for N >= 1000 the batch on one thread and on two by the wall
-- clock (in one process, their runs taking turns).  Then the float loop
-- and the batch at N = 1000 in slices taking turns (issue 24's target:
-- bench/w1pair.lua), bench/gameplay.lua, bench/load.lua,
-- bench/callbacks.lua, bench/allocs.lua (valgrind) and bench/graph.lua.
-- Each JSON line goes to <out>/results.jsonl and to the terminal; bench/table.lua then writes
-- <out>/table.md and prints it.  Exits 1 if a cross-check failed.
local opts = { n = "1,100,1000,10000", runs = "1:21,100:9,1000:5,10000:1", out = "build/bench" }
do
  local i = 1
  while i <= #arg do
    local k = arg[i]:match("^%-%-(%a+)$")
    if not (k and opts[k] and arg[i + 1]) then
      io.stderr:write("usage: lua5.4 bench/run.lua [--n LIST] [--runs N:R,...] [--out DIR]\n")
      os.exit(2)
    end
    opts[k] = arg[i + 1]
    i = i + 2
  end
end

local lua = arg[-1] or "lua5.4"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local data = (os.getenv("ANIM_SHARED") or (here .. "/../../shared")) .. "/bench/w1.txt"
local runs_for = {}
for n, r in opts.runs:gmatch("(%d+):(%d+)") do runs_for[tonumber(n)] = tonumber(r) end
local function runs(n)
  if runs_for[n] then return runs_for[n] end
  return n >= 10000 and 1 or n >= 1000 and 5 or 9
end

os.execute("mkdir -p '" .. opts.out .. "'")
local results = opts.out .. "/results.jsonl"
local res = assert(io.open(results, "w"))
local failed = {}

-- what was measured: the commit (with -dirty for uncommitted changes)
local function first_line(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  local l = p and p:read("*l")
  if p then p:close() end
  return l
end
local commit = first_line("git describe --always --dirty")
res:write(string.format('{"workload":"meta","commit":%s,"date":"%s"}\n',
  commit and string.format("%q", commit) or "null", os.date("!%Y-%m-%d")))

-- Runs cmd, prints its lines and keeps its JSON lines in the results.
local function run(cmd)
  io.stderr:write("$ ", cmd, "\n")
  local p = assert(io.popen(cmd))
  for line in p:lines() do
    print(line)
    if line:match("^{") then res:write(line, "\n"); res:flush() end
  end
  local ok = p:close()
  if not ok then failed[#failed + 1] = cmd end
end

for n in opts.n:gmatch("%d+") do
  n = tonumber(n)
  local r = runs(n)
  for _, kind in ipairs { "float", "exact" } do
    run(string.format("%s/../build/bench/w1_ref --kind %s --n %d --runs %d --data %s", here, kind, n, r, data))
  end
  for _, how in ipairs { "", " --batch", " --batch --compressed", " --read", " --read-joints", " --read-table", " --variant w1e" } do
    run(string.format("%s %s/w1.lua --n %d --runs %d --data %s%s", lua, here, n, r, data, how))
  end
  -- the batch on one thread and on two, by the wall clock, their runs
  -- taking turns in one process (issue 24)
  if n >= 1000 then
    run(string.format("%s %s/w1.lua --n %d --runs %d --data %s --threads 1,2", lua, here, n, math.max(r, 3), data))
  end
end
-- Issue 24's W1 target: the float loop and the batch update at N = 1000
-- in one process, in slices of 60 frames taking turns, nine rounds
-- (bench/w1pair.lua); the figure is the median of the rounds' own ratios.
-- (Measured minutes apart above, the ratio moved between 1.46 and 1.76
-- from one make bench to the next; in pairs of runs taking turns, a
-- process each, between 1.24 and 2.25 within one make bench.)
run(string.format("%s %s/w1pair.lua --n 1000 --rounds 9 --data %s", lua, here, data))
run(string.format("%s %s/gameplay.lua --n 1000 --runs 5 --data %s", lua, here, data))
run(string.format("%s %s/load.lua --runs 7 --out %s/load.anim", lua, here, opts.out))
run(string.format("%s %s/callbacks.lua --n 1000 --runs 7", lua, here))
run(string.format("%s %s/beyond.lua --runs 5", lua, here))
run(string.format("%s %s/allocs.lua --n 100", lua, here))
-- issue 38: 1,000 characters under a state machine against the same
-- tracks with no controller, on 1 and 2 threads, and what a transition
-- allocates (make bench-graph also counts instructions with callgrind)
run(string.format("%s %s/graph.lua --n 1000 --rounds 7", lua, here))
run(string.format("%s %s/graph.lua --n 1000 --rounds 7 --threads 1 --quiet", lua, here))
run(string.format("LD_PRELOAD=%s/../build/bench/malloc_count.so %s %s/graph.lua --n 1000 --allocs", here, lua, here))
res:close()

run(string.format("%s %s/table.lua %s > %s/table.md", lua, here, results, opts.out))
local t = assert(io.open(opts.out .. "/table.md"))
io.write("\n", t:read("*a"))
t:close()
io.stderr:write("written: ", results, ", ", opts.out, "/table.md\n")
if #failed > 0 then
  io.stderr:write("failed:\n  ", table.concat(failed, "\n  "), "\n")
  os.exit(1)
end
