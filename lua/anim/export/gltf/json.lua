-- export/gltf/json.lua: the JSON text of a glTF document (arrays marked
-- as such, numbers written to round-trip), and padding to 4 bytes.
local E = require "anim.base.errors"
local encode = require "anim.format.encode"

local M = {}
local fail = E.fail

-- Writing ------------------------------------------------------------------------------------

-- The glTF JSON: objects with their keys sorted, arrays marked by ARRAY
-- (an empty Lua table is an object otherwise), numbers as encode.lua writes
-- them (the shortest that reads back the same).
local ARRAY = {}
local function arr(t) return setmetatable(t or {}, ARRAY) end

local function json(v, out)
  local ty = type(v)
  if ty ~= "table" then
    out[#out + 1] = encode.scalar_text(v, "")
    return
  end
  local mt = getmetatable(v)
  if mt == ARRAY or (mt == nil and #v > 0 and E.is_array(v)) then
    out[#out + 1] = "["
    for i, x in ipairs(v) do
      if i > 1 then out[#out + 1] = "," end
      json(x, out)
    end
    out[#out + 1] = "]"
    return
  end
  local keys = {}
  for k in pairs(v) do
    if type(k) ~= "string" then fail("", "a table with keys that are not strings cannot be written as JSON") end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  out[#out + 1] = "{"
  for i, k in ipairs(keys) do
    if i > 1 then out[#out + 1] = "," end
    out[#out + 1] = encode.scalar_text(k, "")
    out[#out + 1] = ":"
    json(v[k], out)
  end
  out[#out + 1] = "}"
end

local function json_text(v)
  local out = {}
  json(v, out)
  return table.concat(out)
end

local function pad4(s, with) return s .. string.rep(with, (4 - #s % 4) % 4) end

M.arr, M.json_text, M.pad4 = arr, json_text, pad4

return M
