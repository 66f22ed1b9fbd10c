-- library.lua: res:// paths under a root the host gives (SEMANTICS 10).
-- lib:clip("res://a/b.anim") loads once and caches; a path that leaves the
-- root (.., an absolute path, a symlink out, even one put there between
-- the check and the read) is refused.
local core = require "anim.core"
local args = require "anim.base.args"
local clipmod = require "anim.format.clip"
local retarget = require "anim.format.retarget"

local M = {}
local methods = {}
local Library = { __index = methods, __name = "anim.library" }

-- A path as messages show it: control characters (a NUL byte too) written
-- \ddd, and cut short, so that a message is one line of readable text.
local SHOWN = 200
local function show(path)
  local s = path:gsub("%c", function(c) return string.format("\\%03d", c:byte()) end)
  if #s > SHOWN then s = s:sub(1, SHOWN - 3) .. "..." end
  return s
end

local MAX_PATH = 4096 -- bytes of a res:// path, at most (PATH_MAX on Linux)

-- Why a res:// path is refused before it reaches the file system, or nil.
-- Only plain relative paths inside the root pass: no .., no absolute path
-- or drive, no backslash (a separator elsewhere), no NUL or other control
-- character (the C library would cut the path there), no % (a res:// path
-- is not URL-decoded, so %2e%2e would name a file called "%2e%2e": refused
-- so that no layer that does decode can be tricked).
local function refusal(rel)
  if #rel > MAX_PATH then return string.format("refused: the path is longer than %d bytes", MAX_PATH) end
  if rel == "" or rel:sub(1, 1) == "/" or rel:match("^%a:") then
    return "refused: the path must be relative to the library root"
  end
  if rel:find("\\", 1, true) then return "refused: backslashes are not path separators in res:// paths" end
  if rel:find("%c") then return "refused: the path holds a control character" end
  if rel:find("%", 1, true) then return "refused: percent-escapes are not decoded in res:// paths" end
  for seg in rel:gmatch("[^/]+") do
    if seg == ".." then return "refused: the path leaves the library root" end
  end
end

local function resolve(self, path, fname)
  args.check(path, "string", 1, fname)
  local rel = path:match("^res://(.*)$")
  if not rel then return nil, show(path) .. ": not a res:// path" end
  local why = refusal(rel)
  if why then return nil, show(path) .. ": " .. why end
  local real, err = core.realpath(self.real .. "/" .. rel)
  if not real then return nil, show(path) .. ": cannot open file: " .. err end
  local prefix = self.real:sub(-1) == "/" and self.real or self.real .. "/" -- the root may be "/"
  if real:sub(1, #prefix) ~= prefix then
    return nil, show(path) .. ": refused: the path leaves the library root (through a link)"
  end
  -- a FIFO would block the read, a device never end it
  local kind, kerr = core.file_kind(real)
  if not kind then return nil, show(path) .. ": cannot open file: " .. kerr end -- gone meanwhile
  if kind ~= "file" then
    return nil, show(path) .. (kind == "directory" and ": cannot open file: it is a directory"
      or ": refused: not a regular file")
  end
  -- read below the root component by component, links refused: a link put
  -- on the path from now on is not followed out (json.read_file)
  return real, { root = self.real, rel = real:sub(#prefix + 1) }
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
  local file, beneath = resolve(self, path, kind)
  if not file then return nil, beneath end
  hit = cache.file[file]
  if not hit then
    local lerr
    hit, lerr = loader(file, path, beneath)
    if not hit then return nil, lerr end
    cache.file[file] = hit
  end
  cache.path[path] = hit
  return hit
end

-- A clip is named by its res:// path (in messages and clip.name).
function methods.clip(self, path)
  return cached(self, "clip", path, clipmod.load_file)
end

function methods.retarget(self, path)
  return cached(self, "retarget", path, retarget.load_file)
end

args.methods(methods, Library, "anim.library")

-- anim.library(root) -> library | nil, message
function M.new(root)
  args.check(root, "string", 1, "library")
  if root:find("\0", 1, true) then return nil, show(root) .. ": cannot open library root: the path holds a NUL byte" end
  local real, err = core.realpath(root)
  if not real then return nil, show(root) .. ": cannot open library root: " .. err end
  return setmetatable({ root = root, real = real, cache = {} }, Library)
end

function M.is_library(v) return getmetatable(v) == Library end
return M
