-- bench/allocs.lua: heap allocations per frame in steady play, C core and
-- Lua together.
--
--   lua5.4 bench/allocs.lua [--n N]
--
-- Runs bench/w1.lua (W1 update, batch update, update+read with pose_array
-- and with a call a joint, W1e update; N = 100 by default, one timed run),
-- bench/gameplay.lua (the blend space and the IK sets), bench/callbacks.lua
-- and bench/beyond.lua (4 property channels, 2 overrides and a
-- sprite-frame track) with
-- LD_PRELOAD=build/bench/malloc_count.so (from `make bench-ref`), which
-- counts every malloc, calloc and realloc call; the scripts report the
-- calls of 60 frames after their timed runs, with the collector stopped.
-- One JSON line: malloc calls per frame and per animator update, per set.
local args = { n = 100 }
if arg[1] == "--n" then args.n = tonumber(arg[2]) end
local lua = arg[-1] or "lua5.4"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local shim = here .. "/../build/bench/malloc_count.so"

-- (set: the line of that set, for a script that prints several)
local function calls(script, opts, n, set)
  local cmd = string.format("LD_PRELOAD=%s %s %s/%s %s", shim, lua, here, script, opts)
  local p = io.popen(cmd)
  local out = p:read("*a")
  p:close()
  if set then out = out:match('[^\n]*"set":"' .. set .. '"[^\n]*') or "" end
  local c = tonumber(out:match('"malloc_calls_per_frame":([%d.]+)'))
  return c, c and c / n
end

local sets = {
  { "w1 update", "w1.lua", "--runs 1", args.n },
  { "w1 update(batch)", "w1.lua", "--runs 1 --batch", args.n },
  { "w1 update(batch,threads=2)", "w1.lua", "--runs 1 --threads 2", args.n },
  { "w1 update+read", "w1.lua", "--runs 1 --read", args.n },
  { "w1 update+read_joints", "w1.lua", "--runs 1 --read-joints", args.n },
  { "w1e update", "w1.lua", "--runs 1 --variant w1e", args.n },
  { "callbacks", "callbacks.lua", "--runs 1", 1000 },
  { "beyond", "beyond.lua", "--runs 1 --frames 2000", 1 },
  { "space2d4", "gameplay.lua", "--runs 1", args.n, "space2d4" },
  { "ik2", "gameplay.lua", "--runs 1", args.n, "ik2" },
}
local have = io.open(shim) ~= nil
local parts = {}
for _, s in ipairs(sets) do
  local n = s[4]
  local opts = s[2] ~= "callbacks.lua" and (s[3] .. " --n " .. n) or s[3]
  local per_frame, per_update
  if have then per_frame, per_update = calls(s[2], opts, n, s[5]) end
  parts[#parts + 1] = string.format('"%s":{"n":%d,"per_frame":%s,"per_update":%s}', s[1], n,
    per_frame and string.format("%.2f", per_frame) or "null", per_update and string.format("%.4f", per_update) or "null")
end
print(string.format('{"workload":"allocs","frames":60,"malloc_calls":{%s},"tool":"LD_PRELOAD malloc_count.so"}',
  table.concat(parts, ",")))
