-- blendspace.lua: blend spaces, the Lua face of csrc/core/blendspace.c.
--   anim.blendspace{ points = { { clip = walk, at = 0 }, { clip = run, at = 1 } } [, sync = true]
--                    [, markers = "dominant" | "all" | "none"] [, name] }
-- `at` is a number (1D) or { x, y } (2D); animator:play(space, { at = ... })
-- plays it (runtime/animator.lua), track.at moves its parameter.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local args = require "anim.base.args"
local codes = require "anim.base.codes"
local clipmod = require "anim.format.clip"
local E = require "anim.base.errors"
local finite, shown = E.finite, E.shown
local suggest = require "anim.base.suggest"

local M = {}

-- The options of anim.blendspace and the fields of a point, each listed
-- once (unknown names raise with a suggestion).
local OPTIONS = args.names { "points", "sync", "markers", "name" }
-- Which points fire their items (csrc/core/spaceplay.c), in code order.
local MARKERS = codes.names("markers")
local POINT = args.names { "clip", "at" }

local MAX = codes.const.max_space_points
local info_of, clip_info = core.space_info, clipmod.info
local argerror, show = args.error, args.show

local function fail(msg) argerror(1, "blendspace", msg) end

-- A point's place: a number (1D) or { x, y } (2D), finite; its dimensions.
local function place(at, path)
  if type(at) == "number" then
    if not finite(at) then fail(path .. " must be a finite number, got " .. show(at)) end
    return 1, at
  end
  if type(at) == "table" then
    local x, y = rawget(at, 1), rawget(at, 2)
    if not (finite(x) and finite(y)) or rawget(at, 3) ~= nil then
      fail(path .. " must be { x, y } of finite numbers, got { " .. show(x) .. ", " .. show(y) .. (rawget(at, 3) ~= nil and ", ..." or "") .. " }")
    end
    return 2, { x, y }
  end
  fail(path .. " must be a number (1D) or { x, y } (2D), got " .. args.typename(at))
end

-- clip -> the spaces made with it -> the count of spaces made when it was
-- (weak: neither is kept alive by it)
local holding = setmetatable({}, { __mode = "k" })
local made = 0

-- What keeps a point's clip (its info) out of a space whose first point's
-- clip has info `first`: nil, or the end of a message after the point's
-- path (a clip reloaded while a space holds it must keep to it too:
-- runtime/reload.lua).
function M.point_problem(info, first, sync)
  if info.blend ~= first.blend then
    return string.format(" blends %s, points[1].clip %s: a blend space's clips blend one way", info.blend, first.blend)
  end
  if not sync then return nil end
  local why
  if info.length <= 0 then why = "a length above 0"
  elseif info.speed <= 0 then why = "a speed above 0 (it has " .. show(info.speed) .. ")"
  elseif info.loop ~= first.loop then why = "the loop mode of points[1].clip (" .. first.loop .. ", this one " .. info.loop .. ")"
  end
  if why then return ": a synced blend space needs clips with " .. why .. " (sync = false plays any)" end
end

-- The first point (of the clips' infos, in order) whose clip gives a
-- property another number of components than an earlier point's clip
-- does (the points play on one animator, where a name has one number of
-- components): nil, or its index and the end of a message after its path.
function M.props_problem(infos)
  local arity, from = {}, {}
  for i, info in ipairs(infos) do
    for _, prop in ipairs(info.properties or {}) do
      local n = arity[prop.name]
      if n and n ~= prop.arity then
        return i, string.format(": its property '%s' has %d component%s, points[%d].clip's has %d", shown(prop.name),
          prop.arity, prop.arity == 1 and "" or "s", from[prop.name], n)
      end
      arity[prop.name], from[prop.name] = prop.arity, from[prop.name] or i
    end
  end
end

-- "view" when a clip of the list is a view clip, else "body".
function M.space_of(clips)
  for _, c in ipairs(clips) do if clip_info(c).space == "view" then return "view" end end
  return "body"
end

-- anim.blendspace(def) -> space
function M.new(def)
  if def == nil then fail("table of options expected, got nil") end
  def = args.options(def, OPTIONS, 1, "blendspace")
  local points = def.points
  if type(points) ~= "table" then
    fail("points must be a list of { clip = clip, at = place }, got " .. args.typename(points))
  end
  local n = #points
  if n < 1 or n > MAX then fail("points must hold 1 to " .. MAX .. " points, got " .. n) end
  local sync = def.sync
  if sync == nil then sync = true end
  if type(sync) ~= "boolean" then fail("sync must be a boolean, got " .. args.typename(sync)) end
  local markers = def.markers
  if markers == nil then markers = MARKERS[1] end
  if type(markers) ~= "string" or codes.markers[markers] == nil then
    fail((type(markers) == "string" and "unknown markers mode '" .. shown(markers) .. "'" .. E.hint(markers, MARKERS)
      or "markers must be a mode name, got " .. args.typename(markers)) .. " (the modes: " .. table.concat(MARKERS, ", ") .. ")")
  end
  local name = def.name
  if name ~= nil and type(name) ~= "string" then fail("name must be a string, got " .. args.typename(name)) end
  local clips, places, copies, dim = {}, {}, {}, nil
  for i = 1, n do
    local p, path = points[i], "points[" .. i .. "]"
    if type(p) ~= "table" then fail(path .. " must be a table { clip = clip, at = place }, got " .. args.typename(p)) end
    for k in pairs(p) do
      if not POINT.set[k] then
        fail(string.format("%s: unknown field %s%s (a point has clip and at)", path,
          type(k) == "string" and ("'" .. shown(k) .. "'") or args.typename(k), suggest.hint(k, POINT.list)))
      end
    end
    local c = p.clip
    if not clipmod.is_clip(c) then fail(path .. ".clip: clip expected, got " .. args.typename(c)) end
    local d, at = place(p.at, path .. ".at")
    if dim and d ~= dim then
      fail(string.format("%s.at must be %s, as points[1].at is (a %dD space), got %s", path,
        dim == 1 and "a number" or "{ x, y }", dim, args.typename(p.at)))
    end
    dim = d
    for k = 1, i - 1 do
      local o = places[k]
      if (dim == 1 and o == at) or (dim == 2 and o[1] == at[1] and o[2] == at[2]) then
        fail(path .. ".at is the place of points[" .. k .. "].at: each point needs a place of its own")
      end
    end
    local why = M.point_problem(clip_info(c), clip_info(clips[1] or c), sync)
    if why then fail(path .. ".clip" .. why) end
    clips[i], places[i] = c, at
    copies[i] = { clip = c, at = dim == 2 and { at[1], at[2] } or at }
  end
  do
    local infos = {}
    for i = 1, n do infos[i] = clip_info(clips[i]) end
    local i, why = M.props_problem(infos)
    if i then fail("points[" .. i .. "].clip" .. why) end
  end
  local info = {
    name = name or "blendspace", points = copies, clips = clips, dimensions = dim, sync = sync,
    markers = markers, space = M.space_of(clips),
  }
  local s, err = core.space_new(clips, places, dim, sync, info, codes.markers[markers])
  if not s then fail(err) end
  made = made + 1
  for i = 1, n do
    local set = holding[clips[i]]
    if not set then set = setmetatable({}, { __mode = "k" }); holding[clips[i]] = set end
    set[s] = made
  end
  return s
end

-- The spaces that hold `clip` as a point's clip, in the order they were
-- made (a reload keeps to what they need of it: runtime/reload.lua).
function M.holding(clip)
  local list, order = {}, {}
  for space, k in pairs(holding[clip] or {}) do list[#list + 1], order[space] = space, k end
  table.sort(list, function(a, b) return order[a] < order[b] end)
  return list
end

local mt = core.space_metatable

local getmt = debug.getmetatable -- (getmetatable(space) is the string "anim.blendspace")
function M.is_space(v) return getmt(v) == mt end
-- A space, or one finalized (what a track that plays it still holds).
local dead = core.space_metatable_finalized
function M.is_space_box(v)
  local m = getmt(v)
  return m == mt or m == dead
end
M.info = info_of

-- The parameter `at` of space s as numbers x[, y], else raises bad
-- argument #n to fname naming `what`.
function M.check_at(s, at, n, fname, what)
  local dim = info_of(s).dimensions
  if dim == 1 then
    if not finite(at) then argerror(n, fname, what .. " must be a finite number (a 1D blend space), got " .. show(at)) end
    return at
  end
  local x, y = type(at) == "table" and rawget(at, 1), type(at) == "table" and rawget(at, 2)
  if not (finite(x) and finite(y)) then
    argerror(n, fname, what .. " must be { x, y } of finite numbers (a 2D blend space), got "
      .. (type(at) == "table" and "{ " .. show(x) .. ", " .. show(y) .. " }" or args.typename(at)))
  end
  return x, y
end

local methods = {}

-- space:weights(at) -> { w1, ..., wn }: each point's weight at `at`
function methods.weights(self, at)
  return core.space_weights(self, M.check_at(self, at, 1, "weights", "at"))
end

-- space:triangles() -> { { i, j, k }, ... }: a 2D space's triangulation
-- (point indices, counter-clockwise); empty for a 1D space
function methods.triangles(self) return core.space_triangles(self) end

local fields = {
  name = function(info) return info.name end,
  sync = function(info) return info.sync end,
  markers = function(info) return info.markers end,
  dimensions = function(info) return info.dimensions end,
  points = function(info)
    local out = {}
    for i, p in ipairs(info.points) do
      out[i] = { clip = p.clip, at = type(p.at) == "table" and { p.at[1], p.at[2] } or p.at }
    end
    return out
  end,
}

mt.__name = "anim.blendspace"
mt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  local f = fields[k]
  if f then return f(info_of(self)) end
  args.no_field("anim.blendspace", k, methods, fields)
end
mt.__newindex = function(_, k) args.raise("blend spaces are read-only (cannot set '" .. shown(k) .. "')") end
mt.__tostring = function(self)
  local info = info_of(self)
  return string.format("anim.blendspace(%s, %d points, %dD)", shown(info.name), #info.points, info.dimensions)
end

-- (the methods, for docs/api.md's quick reference: spec/api_index_spec.lua)
M.methods = methods

return M
