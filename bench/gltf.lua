-- bench/gltf.lua: importing glTF models.
--
--   lua5.4 bench/gltf.lua [--runs R] [--data DIR]
--
-- For each sample model of ../shared/data/gltf (ANIM_SHARED or --data to
-- look elsewhere), one JSON line: the median time of anim.import_gltf(path)
-- against cjson.decode of the model's JSON alone (the .gltf file, or a
-- .glb's JSON chunk), the file's size, and the keys and joints it imports.
-- The largest model is the figure docs/performance.md gives.  Time is
-- os.clock() (process CPU time).
local anim = require "anim"
local cjson = require "cjson"
local binary = require "spec.bytes"

local args = { runs = 9, data = (os.getenv("ANIM_SHARED") or "../shared") .. "/data/gltf" }
do
  local i = 1
  while i <= #arg do
    local a = arg[i]
    if a == "--runs" then i = i + 1; args.runs = tonumber(arg[i])
    elseif a == "--data" then i = i + 1; args.data = arg[i]
    else
      io.stderr:write("usage: lua5.4 bench/gltf.lua [--runs R] [--data DIR]\n")
      os.exit(2)
    end
    i = i + 1
  end
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function median(fn)
  fn() -- warm-up
  local t = {}
  for r = 1, args.runs do
    collectgarbage()
    local t0 = os.clock()
    fn()
    t[r] = os.clock() - t0
  end
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

local ref = cjson.decode(read(args.data .. "/reference.json"))
local files = {}
for f in pairs(ref) do if f ~= "_meta" then files[#files + 1] = f end end
table.sort(files)
for _, f in ipairs(files) do
  local path = args.data .. "/" .. f
  local bytes = read(path)
  local json = bytes
  if bytes:sub(1, 4) == "glTF" then json = bytes:sub(21, 20 + binary.unpack("<I4", bytes, 13)) end
  local r = assert(anim.import_gltf(path))
  local keys, joints = 0, 0
  for _, c in pairs(r.clips) do
    local src = require("anim.core").clip_info(c).source
    for _, j in pairs(src.joints) do
      joints = joints + 1
      for _, ch in ipairs { "position", "rotation", "scale" } do keys = keys + (j[ch] and #j[ch] or 0) end
    end
  end
  local t_import = median(function() assert(anim.import_gltf(path)) end)
  local t_json = median(function() cjson.decode(json) end)
  print(cjson.encode {
    bench = "gltf", file = f, bytes = #bytes, json_bytes = #json, keys = keys, clip_joints = joints,
    import_ms = t_import * 1000, cjson_decode_ms = t_json * 1000, ratio = t_import / t_json,
  })
end
