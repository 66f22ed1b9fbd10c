-- svg.lua: a small SVG writer for the pictures of `anim plot` and `anim
-- sheet`.  It only builds text: elements are appended in drawing order
-- (later ones paint over earlier ones), attribute values and text are
-- escaped, and numbers are written short (two decimals are far below a
-- pixel), so the files stay small enough to commit and diff.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local byteorder = require "anim.base.order"

local M = {}

local ESC = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }

local REPLACEMENT = "\239\191\189" -- U+FFFD

-- Text for XML content or a quoted attribute, always well-formed XML 1.0:
-- what is not a character of XML 1.0 becomes U+FFFD rather than making the
-- file unreadable -- bytes that are not UTF-8 (each byte of a broken,
-- overlong or surrogate sequence, or one beyond U+10FFFF), the control
-- characters other than tab, newline and carriage return, and the
-- non-characters U+FFFE and U+FFFF (which JSON strings may hold).
function M.escape(s)
  s = tostring(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local _, bad = compat.utf8_len(s, i) -- strict: no surrogates, nothing past U+10FFFF
    local stop = bad or n + 1
    if stop > i then
      local chunk = s:sub(i, stop - 1):gsub("[&<>\"']", ESC)
      chunk = chunk:gsub("[%z\1-\8\11\12\14-\31]", REPLACEMENT):gsub("\239\191[\190\191]", REPLACEMENT)
      out[#out + 1] = chunk
    end
    if bad then out[#out + 1] = REPLACEMENT end
    i = stop + 1
  end
  return table.concat(out)
end

-- A coordinate or length: at most two decimals, no "-0", no trailing zeros.
function M.num(x)
  local s = string.format("%.2f", x):gsub("0+$", ""):gsub("%.$", "")
  if s == "-0" then s = "0" end
  return s
end

local Doc = {}
Doc.__index = Doc

-- Attributes in a stable order (sorted by name), so that the same picture
-- is always the same bytes.
local function attrs(a)
  if not a then return "" end
  local ks = {}
  for k in pairs(a) do ks[#ks + 1] = k end
  byteorder.sort(ks)
  local out = {}
  for _, k in ipairs(ks) do
    local v = a[k]
    if type(v) == "number" then v = M.num(v) end
    out[#out + 1] = string.format(' %s="%s"', k, M.escape(v))
  end
  return table.concat(out)
end

-- A new document of width x height user units (the viewBox).
function M.new(width, height, title)
  local d = setmetatable({ width = width, height = height, parts = {}, depth = 1 }, Doc)
  d.parts[1] = string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s"' ..
    ' font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="12">',
    M.num(width), M.num(height), M.num(width), M.num(height))
  if title then d.parts[2] = "<title>" .. M.escape(title) .. "</title>" end
  return d
end

function Doc:add(text)
  self.parts[#self.parts + 1] = string.rep("  ", self.depth) .. text
end

-- <name attrs/>
function Doc:el(name, a)
  self:add("<" .. name .. attrs(a) .. "/>")
end

function Doc:rect(x, y, w, h, a)
  a = a or {}
  a.x, a.y, a.width, a.height = x, y, w, h
  self:el("rect", a)
end

function Doc:line(x1, y1, x2, y2, a)
  a = a or {}
  a.x1, a.y1, a.x2, a.y2 = x1, y1, x2, y2
  self:el("line", a)
end

function Doc:circle(cx, cy, r, a)
  a = a or {}
  a.cx, a.cy, a.r = cx, cy, r
  self:el("circle", a)
end

-- A polygon or polyline through points { {x, y}, ... }.
local function points(pts)
  local out = {}
  for i, p in ipairs(pts) do out[i] = M.num(p[1]) .. "," .. M.num(p[2]) end
  return table.concat(out, " ")
end

function Doc:polygon(pts, a)
  a = a or {}
  a.points = points(pts)
  self:el("polygon", a)
end

-- The points of a polyline without those that lie within eps of the line
-- their neighbours make (Ramer-Douglas-Peucker): a densely sampled curve
-- keeps its shape to eps user units with far fewer points.
function M.simplify(pts, eps)
  local n = #pts
  if n < 3 then return pts end
  local keep = { [1] = true, [n] = true }
  local stack = { { 1, n } }
  while #stack > 0 do
    local seg = table.remove(stack)
    local i, j = seg[1], seg[2]
    local ax, ay, bx, by = pts[i][1], pts[i][2], pts[j][1], pts[j][2]
    local dx, dy = bx - ax, by - ay
    local len = math.sqrt(dx * dx + dy * dy)
    local far, at = -1, nil
    for k = i + 1, j - 1 do
      local px, py = pts[k][1] - ax, pts[k][2] - ay
      local d = len > 0 and math.abs(px * dy - py * dx) / len or math.sqrt(px * px + py * py)
      if d > far then far, at = d, k end
    end
    if at and far > eps then
      keep[at] = true
      stack[#stack + 1] = { i, at }
      stack[#stack + 1] = { at, j }
    end
  end
  local out = {}
  for k = 1, n do if keep[k] then out[#out + 1] = pts[k] end end
  return out
end

-- A path through points { {x, y}, ... } (M then L), for the curves.
function Doc:path(pts, a)
  local d = {}
  for i, p in ipairs(pts) do d[i] = (i == 1 and "M" or "L") .. M.num(p[1]) .. " " .. M.num(p[2]) end
  a = a or {}
  a.d = table.concat(d)
  self:el("path", a)
end

function Doc:text(x, y, s, a)
  a = a or {}
  a.x, a.y = x, y
  self:add("<text" .. attrs(a) .. ">" .. M.escape(s) .. "</text>")
end

-- <g attrs> ... </g> around what fn draws.
function Doc:group(a, fn)
  self:add("<g" .. attrs(a) .. ">")
  self.depth = self.depth + 1
  fn()
  self.depth = self.depth - 1
  self:add("</g>")
end

function Doc:render()
  return table.concat(self.parts, "\n") .. "\n</svg>\n"
end

-- One picture of several that M.new made, one under the other (a page
-- each: `anim plot` and `anim sheet` of a file of several animations):
-- each kept whole as a nested <svg> placed at its height.
function M.stack(pictures, title)
  local width, height, pages = 0, 0, {}
  for _, text in ipairs(pictures) do
    local w, h = text:match('^<svg xmlns="http://www.w3.org/2000/svg" width="([%d.]+)" height="([%d.]+)"')
    w, h = assert(tonumber(w), "svg.stack: not a picture of svg.new"), tonumber(h)
    pages[#pages + 1] = text:gsub("^<svg ", '<svg y="' .. M.num(height) .. '" ', 1)
    width, height = math.max(width, w), height + h
  end
  local d = M.new(width, height, title)
  for _, page in ipairs(pages) do d.parts[#d.parts + 1] = page end
  return d:render()
end

return M
