-- import/spine/atlas.lua: Spine's texture atlas text read into pages and
-- regions, both layouts (the "Atlas export format" page,
-- esotericsoftware.com/spine-atlas-format, and its libgdx-era version):
--
--   page entries separated by a blank line; a page's first line is its
--   image's name, then `key: values` lines (size, format, filter, repeat,
--   pma); then regions, each a line with its name followed by its
--   `key: values` lines.  Whitespace other than newlines is optional.
--   3.8 (libgdx): rotate (true/false), xy, size, orig, offset, index.
--   4.x: bounds (x, y, width, height), offsets (x, y, original width,
--   original height), rotate (true, false or degrees: 90 = true), index;
--   other names (split, pad, custom values) are read past.
--
-- A region's width and height are its size before rotation; a region
-- rotated by 90 or 270 degrees takes height x width pixels of its page.
-- Whitespace stripping: the packed image is width x height of the original
-- original_width x original_height, offset_x, offset_y pixels from its
-- bottom left.  u, v, u2, v2 are the packed rectangle's corners over the
-- page's size (nil when the page gives no size).
local E = require "anim.base.errors"
local json = require "anim.base.json"
local dot_number = require("anim.base.compat").number

local M = {}

-- (s without the white space around it, in linear time: a line of 60,000
-- spaces and a letter took 13 s with "%s+$"; errors.lua)
local trim = E.trim

local function numbers(s, n, where, key)
  local out = {}
  for part in (s .. ","):gmatch("([^,]*),") do
    local v = dot_number(trim(part))
    if not v or not E.finite(v) then
      E.fail(where, "%s: expected %d numbers separated by commas, got '%s'", key, n, E.shown(s))
    end
    out[#out + 1] = v
  end
  if #out ~= n then
    E.fail(where, "%s: expected %d numbers separated by commas, got '%s'", key, n, E.shown(s))
  end
  return out
end

local function rotation(s, where)
  if s == "true" then return 90 end
  if s == "false" then return 0 end
  local d = dot_number(s)
  if d == 0 or d == 90 or d == 180 or d == 270 then return d end
  E.fail(where, "rotate: expected true, false, 0, 90, 180 or 270, got '%s'", E.shown(s))
end

-- (line: the region's first line, for a message)
local function finish(r, page, line)
  if not r.x then return end -- (refused once the text is read)
  r.width = r.width or 0
  r.height = r.height or 0
  r.offset_x, r.offset_y = r.offset_x or 0, r.offset_y or 0
  r.original_width = r.original_width or r.width
  r.original_height = r.original_height or r.height
  r.rotate = r.rotate or 0
  local pw, ph = page.width, page.height
  if pw and ph and pw > 0 and ph > 0 then
    local w, h = r.width, r.height
    if r.rotate == 90 or r.rotate == 270 then w, h = h, w end
    r.u, r.v = r.x / pw, r.y / ph
    r.u2, r.v2 = (r.x + w) / pw, (r.y + h) / ph
    -- (each number is finite, not always what they make: 1e308 + 1e308,
    -- or 1e300 pixels over a page of 1e-320)
    if not (E.finite(r.u) and E.finite(r.v) and E.finite(r.u2) and E.finite(r.v2)) then
      E.fail("line " .. line, "the region '%s': its texture coordinates are not finite (bounds %s, %s, %s, %s on a page"
        .. " of %s x %s)", E.shown(r.name), E.num(r.x), E.num(r.y), E.num(r.width), E.num(r.height), E.num(pw), E.num(ph))
    end
  end
end

-- { pages = { { name, width, height, format, filter, ["repeat"], pma } },
-- regions = { [name] = region }, order = { names } } from an atlas text;
-- raises a failure naming the line.
function M.parse(text)
  local pages, regions, order = {}, {}, {}
  local page, region, region_line
  local lineno = 0
  local blank = true
  -- (a UTF-8 byte order mark first is left out, as JSON's readers do)
  text = json.bom_off(text)
  if json.is_utf16(text) then
    E.fail("", "the atlas is UTF-16 text (it starts with a UTF-16 byte order mark): save it as UTF-8")
  end
  for line in (text:gsub("\r\n?", "\n") .. "\n"):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    local where = "line " .. lineno
    local s = trim(line)
    if s == "" then
      blank = true
      if region then finish(region, page, region_line) end
      region = nil
    else
      local key, value = s:match("^([%w_]+)%s*:%s*(.-)$")
      if blank or not page then
        -- a page's first line: its image
        if key then E.fail(where, "expected a page's image name, got the field '%s'", E.shown(key)) end
        page = { name = s, regions = {} }
        pages[#pages + 1] = page
        blank = false
      elseif not key then
        if region then finish(region, page, region_line) end
        if regions[s] then
          E.fail(where, "the region '%s' comes twice (first on page '%s')", E.shown(s), E.shown(regions[s].page))
        end
        region = { name = s, page = page.name, index = -1 }
        region_line = lineno
        regions[s] = region
        order[#order + 1] = s
        page.regions[#page.regions + 1] = s
      elseif not region then
        if key == "size" then
          local v = numbers(value, 2, where, key)
          page.width, page.height = v[1], v[2]
        elseif key == "pma" then
          page.pma = value == "true"
        elseif key == "format" or key == "filter" or key == "repeat" then
          page[key] = value
        end
      elseif key == "bounds" then
        local v = numbers(value, 4, where, key)
        region.x, region.y, region.width, region.height = v[1], v[2], v[3], v[4]
      elseif key == "xy" then
        local v = numbers(value, 2, where, key)
        region.x, region.y = v[1], v[2]
      elseif key == "size" then
        local v = numbers(value, 2, where, key)
        region.width, region.height = v[1], v[2]
      elseif key == "offsets" then
        local v = numbers(value, 4, where, key)
        region.offset_x, region.offset_y, region.original_width, region.original_height = v[1], v[2], v[3], v[4]
      elseif key == "offset" then
        local v = numbers(value, 2, where, key)
        region.offset_x, region.offset_y = v[1], v[2]
      elseif key == "orig" then
        local v = numbers(value, 2, where, key)
        region.original_width, region.original_height = v[1], v[2]
      elseif key == "rotate" then
        region.rotate = rotation(value, where)
      elseif key == "index" then
        region.index = numbers(value, 1, where, key)[1]
      end
    end
  end
  if region then finish(region, page, region_line) end
  for _, name in ipairs(order) do
    local r = regions[name]
    if not r.x then
      E.fail("", "the region '%s' (page '%s') has no bounds (nor xy and size)", E.shown(name), E.shown(r.page))
    end
  end
  if #pages == 0 then E.fail("", "an atlas needs at least one page (an image name, then its fields)") end
  return { pages = pages, regions = regions, order = order }
end

return M
