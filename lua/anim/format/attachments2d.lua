-- attachments2d.lua: what anim.skeleton2d checks of a description's
-- attachments before anything draws them (lua/anim/runtime/attach2d.lua
-- places and draws a region's, a mesh's and a polygon's points): their
-- numbers are numbers, a mesh's uvs, vertices and triangles agree, a
-- weighted layout names bones of the skeleton, a linked mesh's parent is
-- there. The importers give only such attachments (what they cannot read
-- they leave out with a warning); a description made by hand is refused
-- with the path of the first thing wrong, instead of an error from the
-- drawing's depths at its first frame. The rest of an attachment's fields
-- are kept as data, unread.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"

local M = {}

local fail, key, index = E.fail, E.key, E.index

-- v[k], when present, a finite number.
local function opt_num(v, k, p)
  if v[k] ~= nil then E.number(v[k], key(p, k), k) end
end

-- v[k], when present, an array of finite numbers: it (nil when absent).
local function numbers(v, k, p)
  local t = v[k]
  if t == nil then return nil end
  E.array(t, key(p, k), k)
  for i = 1, #t do E.number(t[i], index(key(p, k), i), "a number of " .. k) end
  return t
end

local function whole(x, lo, hi) return x % 1 == 0 and x >= lo and x <= hi end

-- A colour: its components (1 to 4, or r, g, b, a) finite numbers.
local function colour(c, p)
  if type(c) ~= "table" then return end
  for i = 1, 4 do if c[i] ~= nil then E.number(c[i], index(p, i), "a colour's component") end end
  for _, k in ipairs { "r", "g", "b", "a" } do opt_num(c, k, p) end
end

-- A region's numbers: its rectangle on its page (u, v, u2, v2: all four or
-- none, as an atlas page without a size gives none), its sizes, its turn.
local function region(r, p)
  if r == nil then return end
  E.object(r, p, "region")
  for _, k in ipairs { "u", "v", "u2", "v2", "x", "y", "width", "height", "offset_x", "offset_y", "original_width",
    "original_height" } do opt_num(r, k, p) end
  local n = (r.u and 1 or 0) + (r.v and 1 or 0) + (r.u2 and 1 or 0) + (r.v2 and 1 or 0)
  if n ~= 0 and n ~= 4 then fail(p, "a region's u, v, u2 and v2 come together (its rectangle on its page), got %d of them", n) end
  if r.rotate ~= nil and type(r.rotate) ~= "boolean" and not E.finite(r.rotate) then
    fail(key(p, "rotate"), "rotate must be true, false or a finite number of degrees, got %s", E.describe(r.rotate))
  end
end

-- The vertex count of the points of an attachment (vertices, weighted or
-- not: Spine's layout, per vertex its count then (bone, x, y, weight) of
-- each bone, the bone 0-based among nbones), checked with its uvs when it
-- has them (a pair a vertex); nil when it has no vertices.
local function points(att, p, nbones)
  local v = numbers(att, "vertices", p)
  if not v then return nil end
  local n
  if att.weighted == nil or att.weighted == false then
    if #v % 2 ~= 0 then fail(key(p, "vertices"), "vertices holds %d numbers: not 2 a vertex", #v) end
    n = #v / 2
  else
    E.boolean(att.weighted, key(p, "weighted"), "weighted")
    local at = 1
    n = 0
    while at <= #v do
      local k = v[at]
      if not whole(k, 0, (#v - at) / 4) then
        fail(index(key(p, "vertices"), at), "a vertex's count of bones must be a whole number, its 4 numbers each after it,"
          .. " got %s", E.num(k))
      end
      for e = 0, k - 1 do
        local b = v[at + 1 + 4 * e]
        if not whole(b, 0, nbones - 1) then
          fail(index(key(p, "vertices"), at + 1 + 4 * e), "a bone's index must be a whole number from 0 to %d, got %s",
            nbones - 1, E.num(b))
        end
      end
      n, at = n + 1, at + 1 + 4 * k
    end
  end
  local uvs = numbers(att, "uvs", p)
  if uvs and #uvs ~= 2 * n then
    fail(key(p, "uvs"), "uvs holds %d numbers for %d vertices (2 a vertex)", #uvs, n)
  end
  return n
end

-- A mesh's vertices and triangles (corners among them).
local function mesh(att, p, nbones)
  local n = points(att, p, nbones)
  if not n then fail(key(p, "vertices"), "a mesh must have its vertices") end
  local tris = numbers(att, "triangles", p)
  if tris then
    if #tris % 3 ~= 0 then fail(key(p, "triangles"), "triangles holds %d corners: not 3 a triangle", #tris) end
    for i = 1, #tris do
      if not whole(tris[i], 0, n - 1) then
        fail(index(key(p, "triangles"), i), "a corner must be a vertex's index from 0 to %d, got %s", n - 1, E.num(tris[i]))
      end
    end
  end
  opt_num(att, "hull", p)
end

-- parent(desc, skin, slot, name) -> the mesh a linked mesh on `slot`
-- shows and its slot, or nil: in skin `skin` of desc, the mesh `name` on
-- that slot (Spine), else on the first slot of the description's order
-- that has one (DragonBones' `share` names a mesh of any slot). The one
-- rule of the check here and of the drawing (attach2d.compile).
function M.parent(desc, skin, slot, name)
  for _, sk in ipairs(desc.skins or {}) do
    if sk.name == skin then
      local atts = sk.attachments or {}
      local own = atts[slot] and atts[slot][name]
      if own and own.type == "mesh" then return own, slot end
      for _, s in ipairs(desc.slots or {}) do
        local a = atts[s.name] and atts[s.name][name]
        if a and a.type == "mesh" then return a, s.name end
      end
      return nil
    end
  end
end

-- A sequence's frames' regions: any table, frame i's at 1 + i (a frame
-- the atlas lacked has none: the importer warned, it draws nothing).
local function frames(att, p)
  local rs = att.regions
  if rs == nil then return end
  if type(rs) ~= "table" then fail(key(p, "regions"), "regions must be a table (frame i's region at 1 + i), got %s", E.describe(rs)) end
  for i, r in pairs(rs) do
    if type(i) ~= "number" or not whole(i, 1, math.huge) then
      fail(key(p, "regions"), "regions holds a key %s: frame i's region is at 1 + i",
        type(i) == "string" and "'" .. E.shown(i) .. "'" or type(i) == "number" and E.num(i) or E.describe(i))
    end
    region(r, index(key(p, "regions"), i))
  end
end

-- Attachment att (at path p, on slot `slot`) of description desc, whose
-- bones are nbones: raises a failure naming what is wrong.
function M.check(desc, att, slot, p, nbones)
  local t = att.type
  for _, k in ipairs { "x", "y", "rotation", "scale_x", "scale_y", "width", "height" } do opt_num(att, k, p) end
  colour(att.color, key(p, "color"))
  if t == "region" or t == "mesh" or t == "linkedmesh" then region(att.region, key(p, "region")) end
  if t == "region" or t == "mesh" then frames(att, p) end
  if t == "mesh" then
    mesh(att, p, nbones)
  elseif t == "linkedmesh" then
    E.string(att.parent, key(p, "parent"), "parent")
    if att.skin ~= nil then E.string(att.skin, key(p, "skin"), "skin") end
    if not M.parent(desc, att.skin or "default", slot, att.parent) then
      fail(key(p, "parent"), "no mesh '%s' in skin '%s' (on slot '%s' or another)", E.shown(att.parent),
        E.shown(att.skin or "default"), E.shown(slot))
    end
  elseif t == "boundingbox" or t == "clipping" or t == "path" then
    points(att, p, nbones)
  end
end

return M
