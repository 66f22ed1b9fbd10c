-- keys.lua: a clip's keys are held once, by the C core.
--
-- A clip remembers the table it was read from, so that anim.encode writes
-- every field back (editor-only ones, unknown ones).  Keeping the keys
-- there too would cost ten times what the core needs for them (a Lua
-- table per key and per value), so once the clip is built each list of
-- keys in that table gives way to a placeholder naming the core's channel
-- and holding, by key, only what the core does not: a key extra with
-- fields beyond ease and handles (`keep`), and keys read the long way
-- because they hold something the core cannot say (`whole`: a null, an
-- integer beyond 2^53).  info.source rebuilds the whole table on demand,
-- from the core's numbers (the file's own: csrc/core/curve.h) and those.
-- Version 1 clips (poses at keyframes) keep their table as it is.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
local format = require "anim.format.read"
local codes = require "anim.base.codes"

local M = {}

local PLACEHOLDER = { __name = "anim.keys" }
-- The placeholder of a channel whose keys are all in the core; others are
-- { keep or false, whole or false }.  The joint and the channel are those
-- of the place it is at.
local IN_CORE = setmetatable({}, PLACEHOLDER)
local SLOT = codes.slot -- position, rotation, scale: the core's key slots
-- the core's interpolation byte: code | ease << ease_shift | HAS_INTERP | HAS_EASE
local INTERPS, EASES, HAS_INTERP, HAS_EASE = format.INTERPS, format.EASES, format.HAS_INTERP, format.HAS_EASE
local INTERP_MASK, EASE_MASK, EASE_SHIFT = codes.keybyte.interp_mask, codes.keybyte.ease_mask, codes.keybyte.ease_shift
local OUT_ONE, IN_ONE = codes.handle.out_one, codes.handle.in_one
local OUT_DTS, IN_DTS = codes.handle.out_dts, codes.handle.in_dts
local band = compat.band

-- Handle `side` (1 out, 2 in) of a handle record r (csrc/core/curve.h: a
-- time a handle, or one per axis; then dv[dims] each, and the form) as the
-- file wrote it, or nil when absent.
local function record_handle(r, side, dims, one, dts)
  local nt = (#r - 1 - 2 * dims) / 2
  local at = (side - 1) * nt
  if r[at + 1] ~= r[at + 1] then return nil end
  local form = compat.tointeger(r[#r])
  local dt = r[at + 1]
  if band(form, dts) ~= 0 then
    dt = {}
    for a = 1, dims do dt[a] = r[at + (nt > 1 and a or 1)] end
  end
  local b = 2 * nt + (side - 1) * dims
  return { dt, band(form, one) ~= 0 and r[b + 1] or { compat.unpack(r, b + 1, b + dims) } }
end

-- The lists of keys made here, by list: true, or the table of the keys
-- kept whole (by index: the file's own tables).  anim.encode writes the
-- others without looking them over again (encode.lua's fresh_key): each
-- is { t, values[, interpolation[, extra]] } of the core's numbers.
M.made = setmetatable({}, { __mode = "k" })

-- The list of keys of channel ch of joint j (1-based, in info.joints'
-- order) with placeholder p, as the file had it.
local function keys_of(clip, j, ch, p)
  local t, v, ie, h, arity, tan = core.clip_keys(clip, j, ch)
  local out, keep, whole = {}, p[1], p[2]
  for i = 1, #t do
    local k = whole and whole[i]
    if not k then
      local b, val = (i - 1) * arity, {}
      for a = 1, arity do val[a] = v[b + a] end
      local byte = ie[i]
      k = { t[i], val }
      if band(byte, HAS_INTERP) ~= 0 then k[3] = INTERPS[band(byte, INTERP_MASK) + 1] end
      local extra = keep and keep[i] or nil
      local r = h and h[i]
      local tg = tan and tan[i]
      if not extra and (band(byte, HAS_EASE) ~= 0 or r or tg) then
        extra = {}
        if band(byte, HAS_EASE) ~= 0 then extra.ease = EASES[compat.rshift(band(byte, EASE_MASK), EASE_SHIFT) + 1] end
        if r then
          local dims = arity == 1 and 1 or 3
          extra.out = record_handle(r, 1, dims, OUT_ONE, OUT_DTS)
          extra["in"] = record_handle(r, 2, dims, IN_ONE, IN_DTS)
        end
        if tg then
          -- cubicspline tangents: in then out, NaN when the key gave none
          if tg[1] == tg[1] then extra.in_tangent = { compat.unpack(tg, 1, arity) } end
          if tg[arity + 1] == tg[arity + 1] then extra.out_tangent = { compat.unpack(tg, arity + 1, 2 * arity) } end
        end
      end
      k[4] = extra
    end
    out[i] = k
  end
  M.made[out] = whole or true
  return out
end

-- The clip's table rebuilt: the top and each joint copied, lists of keys
-- rebuilt, everything else shared with what the clip keeps.
local function rebuild(info)
  local tree, clip = rawget(info, "tree"), rawget(info, "clip")
  local out = {}
  for k, x in pairs(tree) do out[k] = x end
  local index = {}
  for i, name in ipairs(info.joints) do index[name] = i end
  local joints = {}
  for name, j in pairs(tree.joints) do
    local cj = {}
    for k, x in pairs(j) do
      if getmetatable(x) == PLACEHOLDER then cj[k] = keys_of(clip, index[name], SLOT[k], x) else cj[k] = x end
    end
    joints[name] = cj
  end
  out.joints = joints
  return out
end

local INFO = { __index = function(info, k) if k == "source" then return rebuild(info) end end }

-- A clip whose table is decoded when first asked for (a .animc's whose
-- info the core made from the file's bytes: format/animc.lua): decode()
-- gives what info.tree holds for a clip built from the table.  (The
-- functions sit in a table of weak keys: info holds no field of its own.)
local DECODE = setmetatable({}, { __mode = "k" })
local LAZY = { __index = function(info, k)
  if k ~= "tree" and k ~= "source" then return nil end
  local tree = DECODE[info]()
  DECODE[info] = nil
  rawset(info, "tree", tree)
  setmetatable(info, INFO)
  return info[k]
end }

function M.lazy(info, clip, decode)
  info.clip = clip
  DECODE[info] = decode
  setmetatable(info, LAZY)
end

-- core.clip_new(desc, info), then the keys of info.source handed over to
-- the core.  format.read listed the channels (info.compact); a channel
-- whose description an importer replaced (its exact curves) keeps its keys.
function M.build(desc, info)
  local clip = core.clip_new(desc, info)
  local list = info.compact
  info.compact = nil
  if list then
    for _, r in ipairs(list) do
      if desc.joints[r.joint][r.field] == r.d then
        r.src[r.name] = (r.keep or r.whole) and setmetatable({ r.keep or false, r.whole or false }, PLACEHOLDER)
          or IN_CORE
      end
    end
    info.tree, info.clip, info.source = info.source, clip, nil
    setmetatable(info, INFO)
  end
  return clip
end

return M
