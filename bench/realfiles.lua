-- bench/realfiles.lua: imports every file under ../shared/data/realfiles and
-- ../shared/data/blockbench and counts the animations imported against those
-- present, per kind (realfiles/MANIFEST.tsv gives the kind and count of
-- each of its files; the older data folder's files are counted from their
-- JSON), and the time of the slowest file.
--   lua5.4 bench/realfiles.lua [--files] [--warnings]
-- Works with the API before and after import_blockbench gained warnings.
local anim = require "anim"
local cjson = require "cjson"
local shared = os.getenv("ANIM_SHARED") or "../shared"
local show_files, show_warn = false, false
for _, a in ipairs(arg) do
  if a == "--files" then show_files = true end
  if a == "--warnings" then show_warn = true end
end

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local files = {}
local m = read(shared .. "/data/realfiles/MANIFEST.tsv")
local first = true
for line in m:gmatch("[^\n]+") do
  if first then first = false else
    local cols = {}
    for c in (line .. "\t"):gmatch("([^\t]*)\t") do cols[#cols + 1] = c end
    files[#files + 1] = { path = shared .. "/data/realfiles/" .. cols[1], kind = cols[6], n = tonumber(cols[7]) }
  end
end
local p = io.popen("cd " .. shared .. "/data/blockbench && find . -name '*.bbmodel' -o -name '*.json' | sort")
for l in p:lines() do
  local path = shared .. "/data/blockbench/" .. l:gsub("^%./", "")
  local ok, doc = pcall(cjson.decode, read(path))
  local n = 0
  if ok and type(doc.animations) == "table" then for _ in pairs(doc.animations) do n = n + 1 end end
  files[#files + 1] = { path = path, kind = l:match("%.bbmodel$") and "bbmodel" or "geckolib", n = n }
end
p:close()

local by, slowest, slow_path = {}, 0, nil
local most = { samples = 0, molang = 0, keys = 0 }
local bb = package.loaded["anim.import.blockbench"]
local total_got, total_n = 0, 0
for _, f in ipairs(files) do
  local t0 = os.clock()
  local clips, w = anim.import_blockbench(f.path)
  local dt = os.clock() - t0
  if dt > slowest then slowest, slow_path = dt, f.path end
  bb = bb or package.loaded["anim.import.blockbench"]
  local u = bb and bb.last_usage
  if u then for k, v in pairs(u) do if v > (most[k] or 0) then most[k] = v end end end
  local got = 0
  if clips then for _ in pairs(clips) do got = got + 1 end end
  local k = by[f.kind] or { got = 0, n = 0, files = 0, whole = 0 }
  by[f.kind] = k
  k.got, k.n, k.files = k.got + got, k.n + f.n, k.files + 1
  if got == f.n then k.whole = k.whole + 1 end
  total_got, total_n = total_got + got, total_n + f.n
  if show_files then
    print(string.format("%-70s %-15s %3d/%3d %6.3f s %s", f.path:sub(#shared + 7), f.kind, got, f.n, dt,
      clips and "" or tostring(w)))
  end
  if show_warn and clips and type(w) == "table" then
    for _, x in ipairs(w) do print("   ", x.animation, x.channel, x.message) end
  end
end
local kinds = {}
for k in pairs(by) do kinds[#kinds + 1] = k end
table.sort(kinds)
for _, k in ipairs(kinds) do
  local v = by[k]
  print(string.format("%-15s %4d / %4d animations (%d of %d files whole)", k, v.got, v.n, v.whole, v.files))
end
print(string.format("%-15s %4d / %4d animations (%.0f%%)", "all", total_got, total_n, 100 * total_got / total_n))
print(string.format("slowest: %s %.3f s", slow_path, slowest))
if bb and bb.last_usage then
  print(string.format("most of one file's budgets: %d bake samples, %d Molang steps, %d keys", most.samples, most.molang,
    most.keys))
end
