-- json.lua: JSON decoding for the readers, with the module's limits.
local cjson = require "cjson"
local E = require "anim.errors"

local M = {}

M.MAX_BYTES = 64 * 1024 * 1024  -- largest file or string read
M.MAX_DEPTH = 128               -- deepest nesting of arrays and objects
M.null = cjson.null

local decoder = cjson.new()
decoder.decode_max_depth(M.MAX_DEPTH)
decoder.decode_invalid_numbers(false)

-- Decodes text or raises a failure (errors.lua) saying why it is not JSON.
function M.decode(text)
  if #text > M.MAX_BYTES then
    E.fail("", "too large (%d bytes; at most %d)", #text, M.MAX_BYTES)
  end
  local ok, v = pcall(decoder.decode, text)
  if not ok then
    local msg = tostring(v):gsub("^.-:%d+: ", "")
    E.fail("", "not valid JSON: %s", msg)
  end
  return v
end

-- Reads a whole file, or raises a failure.
function M.read_file(path)
  local f, err = io.open(path, "rb")
  if not f then
    -- io.open says "path: reason"; the message names the path already
    err = tostring(err)
    local prefix = path .. ": "
    if err:sub(1, #prefix) == prefix then err = err:sub(#prefix + 1) end
    E.fail("", "cannot open file: %s", err)
  end
  -- a directory opens, but reading it fails (and its size is nonsense)
  local probe, rerr = f:read(0)
  if probe == nil and rerr then
    f:close()
    E.fail("", "cannot read file: %s", tostring(rerr))
  end
  local size = f:seek("end")
  if size and size > M.MAX_BYTES then
    f:close()
    E.fail("", "too large (%d bytes; at most %d)", size, M.MAX_BYTES)
  end
  f:seek("set")
  local text = f:read("a")
  f:close()
  if not text then E.fail("", "cannot read file") end
  return text
end

return M
