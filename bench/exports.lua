-- bench/exports.lua: the sizes and times of `anim convert` (issue 41, small
-- exports): for each real file, its conversion to .glb and to .anim written
-- exactly (--exact: what the command wrote before keyframe reduction) and
-- reduced (the default), with the worst model-space error measured and
-- the bound; the time to read the file (anim.open) beside the times to
-- convert it (read and write), and the time to write (the conversion's
-- less the read's) over the read's ("as fast to write as to read": 1).
-- One JSON line per file and format.
--   lua5.4 bench/exports.lua [FILE ...]     (not part of `make bench`)
local anim = require "anim"
local cli = require "anim.tool.cli"
local shared = os.getenv("ANIM_SHARED") or "../shared"
local R = shared .. "/data/realfiles/"

local files = { ... }
if #files == 0 then
  files = { R .. "geckolib/gecko_habitat.animation.json", R .. "toms-mobs/showmaster.ajblueprint",
    R .. "toms-mobs/ice_spike.ajblueprint", R .. "toms-mobs/snake.ajblueprint", R .. "toms-mobs/firemoth.ajblueprint",
    R .. "toms-mobs/sculkling.ajblueprint", R .. "Geckolib-Unofficial-1.7.10/geo_npc.animation.json" }
end

local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p " .. tmp))

local function size(p)
  local f = io.open(p, "rb")
  if not f then return 0 end
  local n = f:seek("end")
  f:close()
  return n
end

-- The bytes of OUT (and, for .anim, of the files named after it).
local function out_bytes(out)
  if out:match("%.glb$") then return size(out) end
  local n = 0
  local p = io.popen("ls " .. tmp)
  for l in p:lines() do if l:match("%.anim$") then n = n + size(tmp .. "/" .. l) end end
  p:close()
  return n
end

-- Runs `anim convert` in this process: CPU seconds (the best of 3) and
-- what it wrote on standard error.
local function convert(path, out, extra)
  local best, text = math.huge, nil
  for _ = 1, 3 do
    os.execute("rm -f " .. tmp .. "/*")
    local lines = {}
    local real = io.stderr
    io.stderr = { write = function(_, ...) for _, s in ipairs { ... } do lines[#lines + 1] = s end end } -- luacheck: ignore
    local t0 = os.clock()
    local argv = { "convert", path, "-o", out }
    if extra then argv[#argv + 1] = extra end
    local code = cli.main(argv)
    local dt = os.clock() - t0
    io.stderr = real -- luacheck: ignore
    assert(code == 0, table.concat(lines))
    best, text = math.min(best, dt), table.concat(lines)
  end
  return best, text
end

local function read_time(path)
  local best = math.huge
  for _ = 1, 3 do
    local t0 = os.clock()
    assert(anim.open(path))
    best = math.min(best, os.clock() - t0)
  end
  return best
end

for _, path in ipairs(files) do
  local src = size(path)
  local read = read_time(path)
  for _, fmt in ipairs { "glb", "anim" } do
    local out = tmp .. "/out." .. fmt
    local t_exact = convert(path, out, "--exact")
    local exact = out_bytes(out)
    local t, text = convert(path, out)
    local bytes = out_bytes(out)
    local worst, bound, dist = 0, nil, nil
    for e, b, d in text:gmatch("the largest error ([%d.e+-]+) %(the bound ([%d.e+-]+) at distance ([%d.e+-]+)%)") do
      worst = math.max(worst, tonumber(e))
      bound, dist = tonumber(b), tonumber(d)
    end
    print(string.format('{"bench": "exports", "file": "%s", "format": "%s", "source_bytes": %d, "bytes_exact": %d, '
      .. '"bytes": %d, "ratio_to_source": %.3f, "worst_error": %.3g, "bound": %s, "distance": %s, "read_s": %.3f, '
      .. '"convert_exact_s": %.3f, "convert_s": %.3f, "write_to_read": %.2f}', path:match("[^/]+$"), fmt, src, exact,
      bytes, bytes / src, worst, bound and string.format("%.3g", bound) or "null",
      dist and string.format("%.3g", dist) or "null", read, t_exact, t, (t - read) / math.max(read, 1e-9)))
  end
end
os.execute("rm -rf " .. tmp)
