-- import/gltf/file.lua: the container of a glTF 2.0 asset (the JSON of a .gltf,
-- the chunks of a .glb) and the buffers its JSON names: data: URIs in
-- base64, the .glb's BIN chunk, files beside it.  Everything it reads is
-- bounded by anim.limits (bytes: the JSON and every buffer together), and
-- no file outside the model's folder (or options.root) is read: a uri that
-- leaves it (.., an absolute path, a link out) is refused, a FIFO or a
-- folder is never read.  Failures carry the glTF JSON's own 0-based paths
-- (buffers[1].uri) or, for a .glb's structure, a byte offset.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local library = require "anim.runtime.library"
local core = require "anim.core"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local limits = require "anim.base.limits"

local M = {}
local fail, describe = E.fail, E.describe
local L = limits.current

-- A path in glTF's 0-based JSON: at("buffers", 0, "uri") -> buffers[0].uri;
-- the first argument is a path already (at("buffers[0]", "uri") is the same).
-- (The keys are the format's own names: identifiers, joined with a dot.)
local function at(path, ...)
  for i = 1, select("#", ...) do
    local k = select(i, ...)
    if type(k) == "number" then path = path .. "[" .. compat.tointeger(k) .. "]"
    elseif path == "" then path = k
    else path = path .. "." .. k end
  end
  return path
end
M.at = at

-- v as an integer when it is a whole number in [lo, hi), else nil: the
-- common case checked without building a path (cjson gives floats).
function M.whole(v, lo, hi)
  if type(v) == "number" and v >= lo and (hi == nil or v < hi) and v % 1 == 0 and v < 2 ^ 53 then
    return compat.tointeger(v)
  end
end

-- A whole number at least lo, or nil when absent (dflt then).
function M.count(v, path, what, lo, dflt)
  if v == nil and dflt ~= nil then return dflt end
  local w = M.whole(v, lo or 0)
  if w then return w end
  if E.absent(v) then
    if dflt ~= nil then return dflt end
    fail(path, "%s is required", what)
  end
  if compat.mtype(v) ~= "integer" and not (type(v) == "number" and v % 1 == 0 and v == v and math.abs(v) < 2 ^ 53) then
    if type(v) == "number" and v % 1 == 0 and v >= 2 ^ 53 then
      -- (a whole number beyond the integers a double holds exactly)
      fail(path, "%s is out of range: %s (at most %d)", what, E.num(v), 2 ^ 53 - 1)
    end
    fail(path, "%s must be a whole number, got %s", what, type(v) == "number" and E.num(v) or describe(v))
  end
  v = compat.tointeger(v)
  if v < (lo or 0) then fail(path, "%s must be at least %d, got %d", what, lo or 0, v) end
  return v
end

-- An index into the top-level array `of` of the document (0-based).
-- path may be a function that makes it (called for a message only).
function M.index(doc, v, path, of)
  local list = doc[of]
  local n = type(list) == "table" and #list or 0
  local w = M.whole(v, 0, n)
  if w then return w end
  if type(path) == "function" then path = path() end
  local i = M.count(v, path, "index")
  if i >= n then fail(path, "index %d out of range: the file has %d %s", i, n, of) end
  return i
end

-- The byte budget: the JSON and every buffer of one import together.
local function spend(ctx, n, path)
  ctx.spent = ctx.spent + n
  if ctx.spent > L.bytes then
    fail(path, "too large: the file and its buffers would be %d bytes (at most %d, anim.limits.bytes)",
      ctx.spent, L.bytes)
  end
end

-- A path's folder ("." for a bare name) and last component.
local function split(path)
  local dir, base = path:match("^(.*)/([^/]*)$")
  if not dir then return ".", path end
  if dir == "" then dir = "/" end
  return dir, base
end

-- What read_beneath's refusals say.
local BENEATH = {
  link = "refused: the path leaves the model's folder (through a link)",
  directory = "refused: it is a directory, not a file",
  other = "refused: not a regular file",
}

-- The regular file `real` (a canonical path) below the canonical folder
-- `root`, read without following links and never more than the bytes the
-- budget leaves; a FIFO, a device or a folder is refused without reading.
local function read_below(ctx, root, real, path, shown)
  local prefix = root:sub(-1) == "/" and root or root .. "/"
  if real:sub(1, #prefix) ~= prefix then
    fail(path, "refused: %s leaves the model's folder%s", shown,
      ctx.root_given and " and options.root" or " (options.root can name a folder that holds it)")
  end
  local left = L.bytes - ctx.spent
  local text, why, detail = core.read_beneath(root, real:sub(#prefix + 1), left)
  if not text then
    if why == "large" or why == nil then spend(ctx, tonumber(detail) or left + 1, path) end
    if BENEATH[why] then fail(path, "%s%s%s", shown and shown .. ": " or "", BENEATH[why], why == "other" and " (" .. detail .. ")" or "") end
    fail(path, "cannot %s%s: %s", why == "read" and "read" or "open", shown and " " .. shown or " file", tostring(detail))
  end
  spend(ctx, #text, path)
  return text
end

-- The document of the asset's bytes `text` into ctx: a .glb's chunks or a
-- .gltf's JSON, checked to be a glTF 2.0 asset.
local function parse(ctx, text)
  if text:sub(1, 4) == "glTF" then
    M.read_glb(ctx, text)
  else
    ctx.doc = M.decode_json(text, "", ctx)
  end
  local doc = ctx.doc
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected a glTF asset (a JSON object), got %s", describe(doc))
  end
  -- the top-level lists the importer indexes
  for _, k in ipairs { "nodes", "skins", "animations", "accessors", "bufferViews", "buffers" } do
    if not E.absent(doc[k]) then E.array(doc[k], k, k) else doc[k] = nil end
  end
  E.object(doc.asset, "asset", "asset")
  local v = doc.asset.version
  if type(v) ~= "string" or not v:match("^2%.%d+$") then
    fail("asset.version", "unsupported glTF version %s (expected \"2.0\")",
      type(v) == "string" and string.format("%q", v) or describe(v))
  end
  return ctx
end

-- Opens the asset at `path`: returns ctx { doc (the decoded JSON), bin (the
-- .glb's BIN chunk, or nil), ... }.  options.root: the folder buffers may
-- be read from (default: the folder of path).
function M.open(path, options)
  local ctx = { spent = 0, buffers = {}, warnings = {}, file = path }
  if path:find("\0", 1, true) then fail("", "cannot open file: the path holds a NUL byte") end
  local real, err = core.realpath(path)
  if not real then fail("", "cannot open file: %s", err) end
  local rdir = split(real)
  local text = read_below(ctx, rdir, real, "", nil)
  -- buffers are relative to the folder of the path as given (as a browser
  -- resolves them against the URL), confined to it or to options.root
  ctx.dir = split(path)
  local root = options and options.root or ctx.dir
  ctx.root_given = options and options.root ~= nil
  local rreal, rerr = core.realpath(root)
  if not rreal then
    fail("", "cannot open the folder %s: %s", ctx.root_given and "options.root" or "of the file", rerr)
  end
  ctx.root = rreal
  return parse(ctx, text)
end

-- The asset of the bytes `text` (a .gltf's JSON or a .glb), `name` in
-- messages and the folder of its textures' paths (anim.decode_gltf: a game
-- reads it through love.filesystem, which a fused .love archive needs).  A
-- buffer in a file is read by read(uri) -> bytes | nil, message (the uri
-- percent-decoded, as the file names it); with no read, such a buffer is
-- refused, naming its file.  No file is opened here.
function M.open_text(text, name, read)
  local ctx = { spent = 0, buffers = {}, warnings = {}, file = name, read = read or false }
  spend(ctx, #text, "")
  ctx.dir = split(name)
  return parse(ctx, text)
end

-- JSON text (a .gltf, or a .glb's JSON chunk at byte `where`), after a
-- UTF-8 byte order mark if there is one (three.js's TextDecoder drops it).
-- A name an object holds twice: the last kept, as three.js's JSON.parse
-- keeps it, and a warning in ctx's.
function M.decode_json(text, where, ctx)
  if text:sub(1, 3) == "\239\187\191" then text = text:sub(4) end
  local ok, doc, twice, words = pcall(json.decode, text, "warn", 0)
  if ok then
    if twice then
      ctx.warnings[#ctx.warnings + 1] = string.format("%s: %s%s: %s", ctx.file,
        where == "" and "" or "the JSON chunk at " .. where .. ": ", E.path(twice), words)
    end
    return doc
  end
  if not E.is_failure(doc) then error(doc, 0) end
  fail(where, "%s", doc.msg)
end

local GLB_JSON, GLB_BIN = 0x4E4F534A, 0x004E4942

-- A .glb: a 12-byte header (magic, version 2, length), then chunks of
-- (length, type, data): JSON first, then an optional BIN, then chunks of
-- other types, read past (Specification.adoc, "GLB File Format
-- Specification").  Offsets in messages are bytes from the file's start.
function M.read_glb(ctx, text)
  local size = #text
  if size < 12 then fail("byte 0", "truncated .glb: %d bytes, the header alone is 12", size) end
  local version, length = compat.u32le(text, 5), compat.u32le(text, 9)
  if version ~= 2 then fail("byte 4", "unsupported .glb version %d (expected 2)", version) end
  if length ~= size then
    fail("byte 8", "the header says the .glb is %d bytes, the file has %d%s", length, size,
      length > size and " (truncated)" or "")
  end
  local pos, n = 12, 0
  while pos < size do
    if size - pos < 8 then
      fail("byte " .. pos, "truncated .glb: %d bytes left, a chunk header is 8", size - pos)
    end
    local clen, ctype = compat.u32le(text, pos + 1), compat.u32le(text, pos + 5)
    if clen > size - pos - 8 then
      fail("byte " .. pos, "chunk %d says it holds %d bytes, only %d are left in the file", n, clen, size - pos - 8)
    end
    local data = pos + 8
    if n == 0 then
      if ctype ~= GLB_JSON then
        fail("byte " .. (pos + 4), "the first chunk must be JSON (type 0x4E4F534A), got 0x%08X", ctype)
      end
      ctx.doc = M.decode_json(text:sub(data + 1, data + clen), "byte " .. data, ctx)
    elseif ctype == GLB_BIN and not ctx.bin then
      ctx.bin = text:sub(data + 1, data + clen)
    elseif ctype == GLB_JSON then
      fail("byte " .. (pos + 4), "a second JSON chunk (chunk %d)", n)
    end
    -- chunks of other types: read past (extensions may define them)
    pos = data + clen
    n = n + 1
  end
  if n == 0 then fail("byte 12", "the .glb has no JSON chunk") end
end

-- A uri's path, percent-decoded (Specification.adoc, "URIs": reserved
-- characters are percent-encoded), without a query or fragment.
local function decode_uri(uri, path)
  local p = uri:match("^[^?#]*")
  if p:find("%%") then
    p = p:gsub("%%(.?.?)", function(h)
      if not h:match("^%x%x$") then fail(path, "bad percent-escape '%%%s' in the uri", h) end
      return string.char(tonumber(h, 16))
    end)
  end
  if p:find("\0", 1, true) then fail(path, "refused: the uri holds a NUL byte") end
  if p == "" then fail(path, "the uri names no file") end
  return p
end
M.decode_uri = decode_uri

-- The bytes of a data: URI (RFC 2397), which must be base64.
local function data_uri(ctx, uri, path)
  local meta, at_comma = uri:match("^[dD][aA][tT][aA]:([^,]*)(),")
  if not meta then fail(path, "a data: URI needs a comma before its data") end
  if not meta:lower():match(";base64$") then
    fail(path, "a data: URI of a buffer must be base64 (\"data:application/octet-stream;base64,...\"), got \"data:%s,...\"",
      #meta > 60 and meta:sub(1, 57) .. "..." or meta)
  end
  spend(ctx, #uri - at_comma, path)
  local bytes, bad = core.base64_decode(uri, at_comma + 1)
  if not bytes then
    fail(path, "the data: URI is not valid base64 (at character %d of the uri)", bad)
  end
  return bytes
end
M.data_uri = data_uri

-- A file a buffer names: relative to the model's folder (or an absolute
-- path), confined to the root.
local function file_uri(ctx, uri, path)
  local scheme = uri:match("^(%a[%w+.-]*):")
  if scheme then
    fail(path, "refused: only relative paths and data: URIs are read, not a '%s:' URI", scheme)
  end
  local rel = decode_uri(uri, path)
  local shown = string.format("'%s'", library.show(rel))
  if ctx.read ~= nil then
    -- (an asset given as bytes: the caller's function reads the file)
    if not ctx.read then
      fail(path, "the buffer is the file %s: anim.decode_gltf reads no file itself (options.read can)", shown)
    end
    local bytes, err = ctx.read(rel)
    if type(bytes) ~= "string" then
      if bytes == nil then
        fail(path, "cannot read %s: %s", shown, err == nil and "options.read gave nil" or E.shown(tostring(err)))
      end
      fail(path, "options.read must give the bytes of %s as a string, got %s", shown, describe(bytes))
    end
    spend(ctx, #bytes, path)
    return bytes
  end
  local file = rel:sub(1, 1) == "/" and rel or (ctx.dir == "/" and "/" or ctx.dir .. "/") .. rel
  local real, err = core.realpath(file)
  if not real then fail(path, "cannot open %s: %s", shown, err) end
  return read_below(ctx, ctx.root, real, path, shown)
end

-- The bytes of buffer i (0-based), read once: at least its byteLength
-- (the data may be longer: a .glb's BIN chunk is padded).
function M.buffer(ctx, i)
  local b = ctx.buffers[i]
  if b then return b end
  local def = ctx.doc.buffers[i + 1]
  local path = at("buffers", i)
  E.object(def, path, "buffer")
  local len = M.count(def.byteLength, at("buffers", i, "byteLength"), "byteLength", 1)
  local data
  if E.absent(def.uri) then
    if i ~= 0 or not ctx.bin then
      fail(path, "a buffer without a uri is the .glb's BIN chunk, and %s",
        i ~= 0 and "only buffers[0] can be" or "this file has none")
    end
    data = ctx.bin
  else
    local up = at("buffers", i, "uri")
    local uri = E.string(def.uri, up, "uri")
    if uri:match("^[dD][aA][tT][aA]:") then data = data_uri(ctx, uri, up) else data = file_uri(ctx, uri, up) end
  end
  if #data < len then
    fail(at("buffers", i, "byteLength"), "the buffer holds %d bytes, byteLength says %d", #data, len)
  end
  ctx.buffers[i] = data
  return data
end

return M
