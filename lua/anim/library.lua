-- library.lua: res:// paths under a root the host gives (SEMANTICS 10).
-- lib:clip("res://a/b.anim") loads once and caches; a path that leaves the
-- root (.., an absolute path, a symlink out) is refused.
local core = require "anim.core"

local M = {}
local methods = {}
local Library = { __index = methods, __name = "anim.library" }

local function resolve(self, path)
  if type(path) ~= "string" then
    error("bad argument #1 to 'clip' (string expected, got " .. type(path) .. ")", 3)
  end
  local rel = path:match("^res://(.*)$")
  if not rel then return nil, path .. ": not a res:// path" end
  if rel == "" or rel:sub(1, 1) == "/" then return nil, path .. ": refused: the path must be relative to the library root" end
  for seg in rel:gmatch("[^/]+") do
    if seg == ".." then return nil, path .. ": refused: the path leaves the library root" end
  end
  local real, err = core.realpath(self.root .. "/" .. rel)
  if not real then return nil, path .. ": cannot open file: " .. err end
  local prefix = self.real:sub(-1) == "/" and self.real or self.real .. "/" -- the root may be "/"
  if real:sub(1, #prefix) ~= prefix then
    return nil, path .. ": refused: the path leaves the library root (through a link)"
  end
  return real
end

-- The cached result of loader(file, path), per kind of resource and per
-- file: two spellings of one path (res://a/b, res://a/./b) give the same
-- object, so a play of either restarts the same live track.  A path seen
-- before is answered without resolving it again (plays fire during
-- update: no system call there).
local function cached(self, kind, path, loader)
  local cache = self.cache[kind]
  if not cache then cache = { path = {}, file = {} }; self.cache[kind] = cache end
  local hit = cache.path[path]
  if hit then return hit end
  local file, err = resolve(self, path)
  if not file then return nil, err end
  hit = cache.file[file]
  if not hit then
    local lerr
    hit, lerr = loader(file, path)
    if not hit then return nil, lerr end
    cache.file[file] = hit
  end
  cache.path[path] = hit
  return hit
end
M.cached = cached

-- A clip is named by its res:// path (in messages and clip.name).
function methods.clip(self, path)
  return cached(self, "clip", path, require("anim.clip").load_file)
end

function methods.retarget(self, path)
  return cached(self, "retarget", path, require("anim.retarget").load_file)
end

-- anim.library(root) -> library | nil, message
function M.new(root)
  if type(root) ~= "string" then
    error("bad argument #1 to 'library' (string expected, got " .. type(root) .. ")", 2)
  end
  local real, err = core.realpath(root)
  if not real then return nil, root .. ": cannot open library root: " .. err end
  return setmetatable({ root = root, real = real, cache = {} }, Library)
end

function M.is_library(v) return getmetatable(v) == Library end
return M
