-- library.lua: res:// paths under a root the host gives (SEMANTICS 10).
-- lib:clip("res://a/b.anim") loads once and caches; a path that leaves the
-- root (.., an absolute path, a symlink out, even one put there between
-- the check and the read) is refused.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local clipmod = require "anim.format.clip"
local animc = require "anim.format.animc"
local retarget = require "anim.format.retarget"
local limits = require "anim.base.limits"
local reload = require "anim.runtime.reload"
local json = require "anim.base.json"
local graphs = require "anim.runtime.graph"
local byteorder = require "anim.base.order"

local M = {}
local methods = {}
-- (__metatable: no script changes the methods of every library)
local Library = { __name = "anim.library", __metatable = "anim.library" }
Library.__index = function(_, k)
  local m = methods[k]
  if m then return m end
  args.no_field("anim.library", k, methods)
end

-- A path as messages show it: control characters (a NUL byte too) written
-- \ddd, and cut short with its length (E.cut: reads at most 200 bytes of
-- it), so that a message is one line of readable text.
local function show(path) return E.cut(path, true) end

local MAX_PATH = 4096 -- bytes of a res:// path, at most (PATH_MAX on Linux)

-- Why a res:// path is refused before it reaches the file system, or nil.
-- Only plain relative paths inside the root pass: no .., no absolute path
-- or drive, no backslash (a separator elsewhere), no NUL or other control
-- character (the C library would cut the path there), no % (a res:// path
-- is not URL-decoded, so %2e%2e would name a file called "%2e%2e": refused
-- so that no layer that does decode can be tricked).
M.show = show

-- (what can be told from the spelling's first bytes and length)
local function refusal(rel)
  if #rel > MAX_PATH then return string.format("refused: the path is longer than %d bytes", MAX_PATH) end
  if rel == "" or rel:sub(1, 1) == "/" or rel:match("^%a:") then
    return "refused: the path must be relative to the library root"
  end
end

-- (what needs every byte: read on the key's path, which has the same
-- bytes but its "." and empty segments, and is short when a hostile
-- spelling is long with them)
local function content_refusal(rel)
  if rel:find("\\", 1, true) then return "refused: backslashes are not path separators in res:// paths" end
  if rel:find("%c") then return "refused: the path holds a control character" end
  if rel:find("%", 1, true) then return "refused: percent-escapes are not decoded in res:// paths" end
  if ("/" .. rel .. "/"):find("/../", 1, true) then return "refused: the path leaves the library root" end
end

-- The key of a res:// path: nil and the message when it is not one or is
-- refused (nothing on disk is asked), else "res://" and its segments but
-- empty and "." ones (res://a/./b and res://a//b are res://a/b), and that
-- relative path.  Every spelling of a path is one key: the cache below
-- holds one entry per file a script or state names, not one per spelling
-- (eight states naming 9,990 spellings each grew the heap by 185 MB).  A
-- path of more than MAX_SKIPPED of those segments is refused: the work of
-- a spelling that loads is then that of its file's path, give or take
-- 128 bytes (a state of 10,000 spellings of 4 kB, all runs of "./", took
-- a second), and no pattern reads a spelling past them.
local MAX_SKIPPED = 64
local function key_of(path, fname)
  args.check(path, "string", 1, fname)
  if path:sub(1, 6) ~= "res://" then
    -- (a path relative to the root, or a misspelt scheme: the path meant)
    local rel = path:match("^%a+:/+(.*)$") or path:match("^%.?/?(.*)$")
    return nil, show(path) .. ": not a res:// path (paths under the library's root are written res://"
      .. (rel ~= "" and ("...; did you mean 'res://" .. show(rel) .. "'?)") or "...)")
  end
  local rel = path:sub(7)
  local why = refusal(rel)
  if why then return nil, show(path) .. ": " .. why end
  -- (each gsub stops at the bound: a run of k slashes is k - 1 empty
  -- segments, /%.%f[/] a "." segment)
  local s, n, m = "/" .. rel .. "/", 0, 0
  if s:find("//", 1, true) then
    s = s:gsub("//+", function(run) n = n + #run - 1; return "/" end, MAX_SKIPPED + 1)
  end
  if n <= MAX_SKIPPED and s:find("/./", 1, true) then s, m = s:gsub("/%.%f[/]", "", MAX_SKIPPED + 1 - n) end
  if n + m > MAX_SKIPPED then
    return nil, show(path) .. ": refused: the path holds more than " .. MAX_SKIPPED .. " '.' or empty segments"
  end
  -- (a name followed by / or /. names a directory: kept so)
  local last = rel:sub(-2)
  local key = s:sub(2, (s ~= "/" and (last:sub(-1) == "/" or last == "/.")) and -1 or -2)
  why = content_refusal(key)
  if why then return nil, show(path) .. ": " .. why end
  return "res://" .. key, key
end

-- The real file of a key's relative path below the root, and where it is
-- beneath it (json.read_file); else nil and why (the message names the
-- path as the script spelt it: the caller prefixes it).
local function resolve(self, rel)
  local real, err = core.realpath(self.real .. "/" .. rel)
  if not real then return nil, "cannot open file: " .. err end
  local prefix = self.real:sub(-1) == "/" and self.real or self.real .. "/" -- the root may be "/"
  if real:sub(1, #prefix) ~= prefix then
    return nil, "refused: the path leaves the library root (through a link)"
  end
  -- read below the root component by component, links refused: a link put
  -- on the path from now on is not followed out, and what is not a regular
  -- file (a FIFO, a device, a directory) is refused once open, before
  -- anything is read (json.read_file)
  return real, { root = self.real, rel = real:sub(#prefix + 1) }
end

-- The cached result of loader(file, path) (the object named as first
-- asked for), per kind of resource and per key: two spellings of one path (res://a/b, res://a/./b) give the same
-- object, so a play of either restarts the same live track; so do two
-- keys of one file (through a link in the root).  A key seen before is
-- answered without resolving it again (plays fire during update: no
-- system call there), and so is a failure: a `plays` item of a missing
-- clip is not looked for on disk again at every pass.  Both are bounded:
-- at most MAX_FAILURES failures and MAX_KEYS keys of loaded files are kept
-- per kind, and MAX_BYTES bytes of keys and messages for each (the oldest
-- go first: a key forgotten is resolved again, its file's object is kept),
-- so that a script or state naming ever new paths does not grow the
-- library without bound.  library:forget(path) drops what the library
-- holds for a path.
local MAX_FAILURES, MAX_KEYS, MAX_BYTES = 4096, 4096, 1024 * 1024
M.MAX_FAILURES, M.MAX_KEYS, M.MAX_BYTES = MAX_FAILURES, MAX_KEYS, MAX_BYTES

-- A record of keys, oldest first, of at most `max` keys and MAX_BYTES
-- bytes; past either the oldest still held is dropped (drop(key)).  A key
-- let go of (release) is skipped when its turn comes.
local function new_fifo(max, drop)
  return { max = max, drop = drop, first = 1, last = 0, n = 0, bytes = 0, keys = {}, sizes = {}, at = {} }
end

local function release(q, key)
  local i = q.at[key]
  if not i then return end
  q.at[key], q.keys[i] = nil, false
  q.n, q.bytes = q.n - 1, q.bytes - q.sizes[i]
end

local function push(q, key, size)
  release(q, key)
  q.last = q.last + 1
  q.keys[q.last], q.sizes[q.last], q.at[key] = key, size, q.last
  q.n, q.bytes = q.n + 1, q.bytes + size
  while q.n > q.max or q.bytes > MAX_BYTES do
    local i = q.first
    local old = q.keys[i]
    q.keys[i], q.first = nil, i + 1
    if old then
      q.at[old] = nil
      q.n, q.bytes = q.n - 1, q.bytes - q.sizes[i]
      q.drop(old)
    end
    q.sizes[i] = nil
  end
end

local function new_cache()
  local cache = { path = {}, file = {}, file_of = {}, failed = {} }
  cache.failures = new_fifo(MAX_FAILURES, function(key) cache.failed[key] = nil end)
  cache.keys = new_fifo(MAX_KEYS, function(key) cache.path[key], cache.file_of[key] = nil, nil end)
  return cache
end

-- A failure of key: `why` for a path that did not resolve (the message
-- names each spelling asked for), `msg` for a file that did not load (it
-- names the spelling that loaded it).
local function remember_failure(cache, key, why, msg)
  cache.failed[key] = { why = why, msg = msg, limits = limits.generation }
  push(cache.failures, key, #key + #(why or msg))
end

local function failure_message(failed, path)
  return failed.msg or show(path) .. ": " .. failed.why
end

local forget -- (below)

local function cached(self, kind, path, loader)
  local key, rel = key_of(path, kind)
  if not key then return nil, rel end
  local cache = self.cache[kind]
  if not cache then
    cache = new_cache()
    self.cache[kind] = cache
  end
  local hit = cache.path[key]
  -- (a clip a script finalized by hand is read again, not handed out dead)
  if hit and (kind ~= "clip" or clipmod.is_clip(hit)) then return hit end
  if hit then forget(cache, key) end
  -- (a failure under limits since changed is tried again)
  local failed = cache.failed[key]
  if failed and failed.limits == limits.generation then return nil, failure_message(failed, path) end
  if failed then forget(cache, key) end
  local file, beneath = resolve(self, rel)
  if not file then
    remember_failure(cache, key, beneath)
    return nil, show(path) .. ": " .. beneath
  end
  hit = cache.file[file]
  if not hit then
    local lerr
    hit, lerr = loader(file, path, beneath)
    if not hit then
      remember_failure(cache, key, nil, lerr)
      return nil, lerr
    end
    cache.file[file] = hit
  end
  cache.path[key] = hit
  cache.file_of[key] = file
  push(cache.keys, key, #key)
  return hit
end

-- Drops what cache holds for key: its failure, or its object (for every
-- key of that file).  Returns whether it held something, and the file of
-- the object it dropped.
function forget(cache, key)
  local held = false
  if cache.failed[key] then
    held = true
    cache.failed[key] = nil
    release(cache.failures, key)
  end
  local file = cache.file_of[key]
  if file then
    held = true
    cache.file[file] = nil
    for p, f in pairs(cache.file_of) do
      if f == file then
        cache.file_of[p], cache.path[p] = nil, nil
        release(cache.keys, p)
      end
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
    local c, err = animc.load_any(file, name, beneath)
    if c then self.loaded[file] = { path = name, mtime = mtime, clip = c } end
    return c, err
  end)
end

-- library:reload(path) -> clip | nil, message: the clip of that path (the
-- object library:clip gave and every track plays) gets the file's current
-- content, in place (runtime/reload.lua); a file that fails to load
-- leaves it as it was.  A path never loaded is loaded (library:clip).
function methods.reload(self, path)
  local key, rel = key_of(path, "reload")
  if not key then return nil, rel end
  local gcache = self.cache.graph
  if gcache and gcache.path[key] then return M.reload_graph(self, key, rel, path) end
  local cache = self.cache.clip
  local clip = cache and cache.path[key]
  -- (a clip finalized by hand is loaded again, as library:clip does)
  if not clip or not clipmod.is_clip(clip) then return methods.clip(self, path) end
  local file, beneath = resolve(self, rel)
  if not file then return nil, show(path) .. ": " .. beneath end
  local mtime = core.file_mtime(file)
  -- (whatever comes of it, this is the version seen: changed() lists the
  -- file again when it changes again, not at every call)
  for _, e in pairs(self.loaded) do
    if e.clip == clip then e.mtime = mtime end
  end
  local fresh, err = animc.load_any(file, path, beneath)
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
  byteorder.sort(out)
  return out
end

function methods.retarget(self, path)
  return cached(self, "retarget", path, retarget.load_file)
end

-- A graph's file read and made (anim.graph), its clip names found through
-- the library: a res:// path as it is, another name relative to the
-- graph's folder (".anim" added when it names no extension): "walk" in
-- res://hero/hero.animgraph is res://hero/walk.anim.
local function load_graph(self, file, name, beneath)
  local ok, text = pcall(json.read_file, file, beneath)
  if not ok then return nil, name .. ": " .. (E.is_failure(text) and text.msg or tostring(text)) end
  local dir = name:match("^(res://.*/)") or "res://"
  local why = {}
  local function find(n)
    local p = n:match("^res://") and n or dir .. n .. (n:match("%.[%w]+$") and "" or ".anim")
    local c, err = methods.clip(self, p)
    if not c then why[#why + 1] = err end
    return c
  end
  local g, err = graphs.new(text, find, name)
  if not g and #why > 0 then err = err .. " (" .. table.concat(why, "; ", 1, math.min(#why, 4)) .. ")" end
  return g, err
end

-- library:graph(path) -> graph | nil, message: a .animgraph file (cached
-- as clips are; library:reload(path) makes it again and moves the
-- controllers running it onto the new graph).
function methods.graph(self, path)
  return cached(self, "graph", path, function(file, name, beneath)
    local mtime = core.file_mtime(file)
    local g, err = load_graph(self, file, name, beneath)
    if g then self.loaded[file] = { path = name, mtime = mtime, graph = g } end
    return g, err
  end)
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
  local key = key_of(path, "forget")
  if not key then return false end
  local held = false
  for kind, cache in pairs(self.cache) do
    local h, file = forget(cache, key)
    if h then held = true end
    -- (a clip forgotten is no longer watched by library:changed)
    if file and (kind == "clip" or kind == "graph") then self.loaded[file] = nil end
  end
  return held
end

args.methods(methods, Library, "anim.library")

-- anim.library(root) -> library | nil, message
-- (it takes no options: a table of them is refused, naming the key)
local NO_OPTIONS = args.names {}
-- A graph reloaded: made again from its file (a file that fails leaves the
-- old one in place); every controller running the old one, or a graph the
-- file made before it (a script may hold one and control an animator with
-- it after a reload), moves onto the new (runtime/controller.lua: current
-- states kept where they still exist, else the entry).
function M.reload_graph(self, key, rel, path)
  local cache = self.cache.graph
  local old = cache.path[key]
  local file, beneath = resolve(self, rel)
  if not file then return nil, show(path) .. ": " .. beneath end
  local mtime = core.file_mtime(file)
  for _, e in pairs(self.loaded) do
    if e.graph == old then e.mtime = mtime end
  end
  local g, err = load_graph(self, file, path, beneath)
  if not g then return nil, err end
  forget(cache, key)
  cache.path[key], cache.file[file], cache.file_of[key] = g, g, file
  push(cache.keys, key, #key)
  self.loaded[file] = { path = path, mtime = mtime, graph = g }
  -- (the file's earlier graphs, weak: a collected one has no controller)
  local earlier = self.earlier[key] or setmetatable({}, { __mode = "k" })
  self.earlier[key] = earlier
  if old then earlier[old] = true end
  for before in pairs(earlier) do M.on_graph_reload(before, g) end
  return g
end

-- (set by runtime/controller.lua: moves the controllers of a graph)
function M.on_graph_reload() end

function M.new(root, opts)
  args.check(root, "string", 1, "library")
  args.options(opts, NO_OPTIONS, 2, "library")
  if root:find("\0", 1, true) then return nil, show(root) .. ": cannot open library root: the path holds a NUL byte" end
  local real, err = core.realpath(root)
  if not real then return nil, show(root) .. ": cannot open library root: " .. err end
  -- (earlier: per graph path, the graphs its file made before the current one)
  return setmetatable({ root = root, real = real, cache = {}, loaded = {}, earlier = {} }, Library)
end

local getmt = debug.getmetatable
function M.is_library(v) return getmt(v) == Library end
-- (the methods, for docs/api.md's quick reference: spec/api_index_spec.lua)
M.methods = methods

return M
