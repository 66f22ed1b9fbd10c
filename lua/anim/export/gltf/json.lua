-- export/gltf/json.lua: the JSON text of a glTF document (arrays marked
-- as such, numbers written to round-trip), and padding to 4 bytes.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local compat = require "anim.base.compat"
local encode = require "anim.format.encode"
local byteorder = require "anim.base.order"

local M = {}
local fail = E.fail

-- Writing ------------------------------------------------------------------------------------

-- The glTF JSON: objects with their keys sorted, arrays marked by ARRAY
-- (an empty Lua table is an object otherwise), numbers as encode.lua writes
-- them (the shortest that reads back the same).
local ARRAY = {}
local function arr(t) return setmetatable(t or {}, ARRAY) end

-- (one string per value of the text, kept in `out` at n; each key's text
-- made once a document; integers written as number_text writes them)
local scalar_text, mtype, format, sort, concat = encode.scalar_text, compat.mtype, string.format, table.sort, table.concat

local function json_text(doc)
  local out, n, texts = {}, 0, {}
  local function key_text(k)
    local x = texts[k]
    if not x then
      x = scalar_text(k, "")
      texts[k] = x
    end
    return x
  end
  local function json(v)
    local ty = type(v)
    if ty ~= "table" then
      n = n + 1
      if ty == "number" and mtype(v) == "integer" then out[n] = format("%d", v) else out[n] = scalar_text(v, "") end
      return
    end
    local mt = getmetatable(v)
    if mt == ARRAY or (mt == nil and #v > 0 and E.is_array(v)) then
      n = n + 1
      out[n] = "["
      for i, x in ipairs(v) do
        if i > 1 then
          n = n + 1
          out[n] = ","
        end
        json(x)
      end
      n = n + 1
      out[n] = "]"
      return
    end
    local keys = {}
    for k in pairs(v) do
      if type(k) ~= "string" then fail("", "a table with keys that are not strings cannot be written as JSON") end
      keys[#keys + 1] = k
    end
    sort(keys, byteorder.less)
    n = n + 1
    out[n] = "{"
    for i, k in ipairs(keys) do
      n = n + 1
      out[n] = (i > 1 and "," or "") .. key_text(k) .. ":"
      json(v[k])
    end
    n = n + 1
    out[n] = "}"
  end
  json(doc)
  return concat(out)
end

local function pad4(s, with) return s .. string.rep(with, (4 - #s % 4) % 4) end

M.arr, M.json_text, M.pad4 = arr, json_text, pad4

return M
