-- library.lua: res:// paths under a root the host gives (SEMANTICS 10).
-- lib:clip("res://a/b.anim") loads once and caches; a path that leaves the
-- root (.., an absolute path, a symlink out, even one put there between
-- the check and the read) is refused.
local core = require "anim.core"
local args = require "anim.base.args"
local clipmod = require "anim.format.clip"
local retarget = require "anim.format.retarget"
local limits = require "anim.base.limits"
local reload = require "anim.runtime.reload"

local M = {}
local methods = {}
-- (__metatable: no script changes the methods of every library)
local Library = { __index = methods, __name = "anim.library", __metatable = "anim.library" }

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
M.show = show

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
  -- read below the root component by component, links refused: a link put
  -- on the path from now on is not followed out, and what is not a regular
  -- file (a FIFO, a device, a directory) is refused once open, before
  -- anything is read (json.read_file)
  return real, { root = self.real, rel = real:sub(#prefix + 1) }
end

-- The cached result of loader(file, path), per kind of resource and per
-- file: two spellings of one path (res://a/b, res://a/./b) give the same
-- object, so a play of either restarts the same live track.  A path seen
-- before is answered without resolving it again (plays fire during
-- update: no system call there), and so is a failure: a `plays` item of a
-- missing clip is not looked for on disk again at every pass.  At most
-- MAX_FAILURES failures are kept per kind (the oldest go first), so that
-- a script asking for ever new paths does not grow the library without
-- bound; library:forget(path) drops what the library holds for a path.
local MAX_FAILURES = 4096
M.MAX_FAILURES = MAX_FAILURES

local function remember_failure(cache, path, msg)
  local order = cache.order
  if #order >= MAX_FAILURES then
    local oldest = table.remove(order, 1)
    cache.failed[oldest] = nil
  end
  order[#order + 1] = path
  cache.failed[path] = { msg = msg, limits = limits.generation }
  return nil, msg
end

local forget -- (below)

local function cached(self, kind, path, loader)
  local cache = self.cache[kind]
  if not cache then
    cache = { path = {}, file = {}, file_of = {}, failed = {}, order = {} }
    self.cache[kind] = cache
  end
  local hit = cache.path[path]
  -- (a clip a script finalized by hand is read again, not handed out dead)
  if hit and (kind ~= "clip" or clipmod.is_clip(hit)) then return hit end
  if hit then forget(cache, path) end
  -- (a failure under limits since changed is tried again)
  local failed = cache.failed[path]
  if failed and failed.limits == limits.generation then return nil, failed.msg end
  if failed then forget(cache, path) end
  local file, beneath = resolve(self, path, kind)
  if not file then return remember_failure(cache, path, beneath) end
  hit = cache.file[file]
  if not hit then
    local lerr
    hit, lerr = loader(file, path, beneath)
    if not hit then return remember_failure(cache, path, lerr) end
    cache.file[file] = hit
  end
  cache.path[path] = hit
  cache.file_of[path] = file
  return hit
end

-- Drops what cache holds for path: its failure, or its object (for every
-- spelling of that file).  Returns whether it held something, and the file
-- of the object it dropped.
function forget(cache, path)
  local held = false
  if cache.failed[path] then
    held = true
    cache.failed[path] = nil
    for i, p in ipairs(cache.order) do
      if p == path then table.remove(cache.order, i) break end
    end
  end
  local file = cache.file_of[path]
  if file then
    held = true
    cache.file[file] = nil
    for p, f in pairs(cache.file_of) do
      if f == file then cache.file_of[p] = nil; cache.path[p] = nil end
    end
  end
  return held, file
end

-- A clip is named by its res:// path (in messages and clip.name).  The
-- file's modification time is taken before it is read (library:changed
-- compares it): a change made while it is read shows as a change.
function methods.clip(self, path)
  return cached(self, "clip", path, function(file, name, beneath)
    local mtime = core.file_mtime(file)
    local c, err = clipmod.load_file(file, name, beneath)
    if c then self.loaded[file] = { path = name, mtime = mtime, clip = c } end
    return c, err
  end)
end

-- library:reload(path) -> clip | nil, message: the clip of that path (the
-- object library:clip gave and every track plays) gets the file's current
-- content, in place (runtime/reload.lua); a file that fails to load
-- leaves it as it was.  A path never loaded is loaded (library:clip).
function methods.reload(self, path)
  args.check(path, "string", 1, "reload")
  local cache = self.cache.clip
  local clip = cache and cache.path[path]
  -- (a clip finalized by hand is loaded again, as library:clip does)
  if not clip or not clipmod.is_clip(clip) then return methods.clip(self, path) end
  local file, beneath = resolve(self, path, "reload")
  if not file then return nil, beneath end
  local mtime = core.file_mtime(file)
  -- (whatever comes of it, this is the version seen: changed() lists the
  -- file again when it changes again, not at every call)
  for _, e in pairs(self.loaded) do
    if e.clip == clip then e.mtime = mtime end
  end
  local fresh, err = clipmod.load_file(file, path, beneath)
  if not fresh then return nil, err end
  return reload.replace(clip, fresh, path)
end

-- library:changed() -> { path, ... }: the res:// paths (as first loaded)
-- of the clips whose file's modification time is not the one seen when
-- it was loaded or last reloaded (a file gone counts as changed), sorted.
function methods.changed(self)
  local out = {}
  for file, e in pairs(self.loaded) do
    if core.file_mtime(file) ~= e.mtime then out[#out + 1] = e.path end
  end
  table.sort(out)
  return out
end

function methods.retarget(self, path)
  return cached(self, "retarget", path, retarget.load_file)
end

-- library:forget([path]) -> boolean: the next clip, retarget or `plays`
-- of path reads the file again (after it was fixed, added or changed);
-- without a path, everything is forgotten.  Tracks keep the clips they
-- play; a `plays` item after a clip was forgotten starts a track of the
-- new clip rather than restarting the live track of the old one.
function methods.forget(self, path)
  args.check(path, "string", 1, "forget", true)
  if path == nil then
    local held = next(self.cache) ~= nil
    self.cache, self.loaded = {}, {}
    return held
  end
  local held = false
  for kind, cache in pairs(self.cache) do
    local h, file = forget(cache, path)
    if h then held = true end
    -- (a clip forgotten is no longer watched by library:changed)
    if file and kind == "clip" then self.loaded[file] = nil end
  end
  return held
end

args.methods(methods, Library, "anim.library")

-- anim.library(root) -> library | nil, message
function M.new(root)
  args.check(root, "string", 1, "library")
  if root:find("\0", 1, true) then return nil, show(root) .. ": cannot open library root: the path holds a NUL byte" end
  local real, err = core.realpath(root)
  if not real then return nil, show(root) .. ": cannot open library root: " .. err end
  return setmetatable({ root = root, real = real, cache = {}, loaded = {} }, Library)
end

local getmt = debug.getmetatable
function M.is_library(v) return getmt(v) == Library end
return M
