-- spec/helper.lua: shared by the specs (paths to the repository and to the
-- shared data laid beside it, and comparisons).
local H = {}

local here = debug.getinfo(1, "S").source:match("^@(.*)/spec/helper%.lua$") or "."
H.root = here
-- ../shared beside the clone (CI lays it there); ANIM_SHARED overrides.
H.shared = os.getenv("ANIM_SHARED") or (here .. "/../shared")

function H.read(path)
  local f = assert(io.open(path, "rb"), "missing file " .. path)
  local s = f:read("a")
  f:close()
  return s
end

-- Files of a directory (sorted), through ls: the specs need no lfs.
function H.ls(dir, pattern)
  local p = assert(io.popen('ls -1 "' .. dir .. '" 2>/dev/null'))
  local out = {}
  for line in p:lines() do
    if not pattern or line:match(pattern) then out[#out + 1] = line end
  end
  p:close()
  table.sort(out)
  return out
end

function H.near(a, b, tol)
  return math.abs(a - b) <= tol
end

-- Largest component difference of two vectors.
function H.maxdiff(a, b)
  local m = 0
  for i = 1, #b do m = math.max(m, math.abs(a[i] - b[i])) end
  return m
end

-- Quaternion difference up to sign.
function H.quatdiff(a, b)
  local d1, d2 = 0, 0
  for i = 1, 4 do
    d1 = math.max(d1, math.abs(a[i] - b[i]))
    d2 = math.max(d2, math.abs(a[i] + b[i]))
  end
  return math.min(d1, d2)
end

function H.tmpdir()
  local p = assert(io.popen("mktemp -d"))
  local d = p:read("l")
  p:close()
  return d
end

function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

return H
