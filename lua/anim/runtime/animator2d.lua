-- animator2d.lua: what an animator made from a 2D skeleton
-- (anim.animator(skeleton)) reads: a bone's world matrix (the 2D stage of
-- csrc/core/world2d.c, after each update), a slot's attachment and
-- colours, the draw order, the skin.  Slots, draw orders and skins are
-- the skeleton's setup values unless a track animates them, through the
-- property channels of docs/api.md, "2D skeletons" (`slot.<slot>.color`,
-- `slot.<slot>.dark`, `slot.<slot>.attachment` and `draworder`, the last
-- two discrete).  Unknown names raise with a suggestion, at the script's
-- line, as animator:property does.
local core = require "anim.core"
local args = require "anim.base.args"
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local skeleton2d = require "anim.format.skeleton2d"

local M = {}

local animator_state, core_world2d, core_property = core.animator_state, core.animator_world2d, core.animator_property
local argerror = args.error
local floor = math.floor

-- v when it is a 2D skeleton, else nil.
function M.skeleton(v) return skeleton2d.is_skeleton(v) and v or nil end

-- anim.animator(skeleton, ...)'s part: the animator's 2D stage (a block
-- of the skeleton's shape, made at its first animator and shared by all),
-- and the skeleton kept in its state.
function M.attach(a, st, sk)
  local s = skeleton2d.data(sk)
  s.shape = s.shape or core.world2d_shape(s.stage)
  core.world2d_attach(a, s.shape)
  st.skeleton = sk
  st.skin = nil
end

local function data(self, fname)
  local sk = animator_state(self).skeleton
  if not sk then
    args.raise(string.format("%s: this animator has no 2D skeleton (made from a rig, not anim.skeleton2d's)", fname))
  end
  return skeleton2d.data(sk)
end

local function unknown(fname, what, name, names)
  if type(name) ~= "string" then argerror(1, fname, what .. " name expected, got " .. args.typename(name)) end
  argerror(1, fname, string.format("unknown %s '%s'%s", what, E.shown(name), suggest.hint(name, names)))
end

-- animator:world2d(bone) -> a, b, c, d, x, y: x' = a x + b y + x, y' = c x
-- + d y + y in the file's axes
function M.world2d(self, bone)
  local s = data(self, "world2d")
  local i = s.rig_index[bone]
  if not i then unknown("world2d", "bone", bone, s.bone_names) end
  return core_world2d(self, i)
end

-- Three components of a property, each the setup's where the property
-- has no value (false: unknown or none) or fewer components (as
-- csrc/lua/lua_draw2d_slots.c reads them for the drawing)
local function prop3(self, name, d1, d2, d3)
  local a, b, c = core_property(self, name)
  if not a then return d1, d2, d3 end
  if b == nil then b = d2 end
  if c == nil then c = d3 end
  return a, b, c
end

-- animator:slot(name) -> attachment name | nil, r, g, b, a [, dr, dg, db]
function M.slot(self, name)
  local s = data(self, "slot")
  local i = s.slot_index[name]
  if not i then unknown("slot", "slot", name, s.slot_names) end
  local sl = s.slots[i]
  local att = sl.attachment
  local k = core_property(self, sl.p_attachment)
  if k then
    k = floor(k + 0.5)
    att = k >= 1 and sl.attachment_names[k] or nil
  end
  local c = sl.color
  local r, g, b, al = core_property(self, sl.p_color)
  if not r then r, g, b, al = c[1], c[2], c[3], c[4]
  else
    if g == nil then g = c[2] end
    if b == nil then b = c[3] end
    if al == nil then al = c[4] end
  end
  local dk = sl.dark
  if not dk then return att, r, g, b, al end
  local dr, dg, db = prop3(self, sl.p_dark, dk[1], dk[2], dk[3])
  return att, r, g, b, al, dr, dg, db
end

-- animator:draw_order([into]) -> { slot names }: a new table, or `into`
-- filled (its entries beyond the slots cleared), so that a frame's drawing
-- allocates nothing
function M.draw_order(self, into)
  local s = data(self, "draw_order")
  if into ~= nil and type(into) ~= "table" then
    argerror(1, "draw_order", "a table to fill expected, got " .. args.typename(into))
  end
  local k = core_property(self, "draworder")
  local order = k and s.draw_orders[floor(k + 0.5)] or s.slot_names
  local out, n = into or {}, #order
  for i = 1, n do out[i] = order[i] end
  for i = #out, n + 1, -1 do out[i] = nil end
  return out
end

-- animator:skin() -> the current skin's name | nil; animator:skin(name):
-- switches (the default skin is consulted after the current one).  The
-- method is the skinning matrices' too (animator:skin(out [, options])):
-- its C side (csrc/lua/lua_skin.c) calls this on an animator of a 2D
-- skeleton given a name or nothing, and raises with the message of a false
-- answer (at the script's line, naming 'skin').
function M.skin_handler(self, name)
  local st = animator_state(self)
  local s = skeleton2d.data(st.skeleton)
  if name == nil then return true, st.skin end
  if not s.skin_index[name] then
    return false, string.format("unknown skin '%s'%s", E.shown(name), suggest.hint(name, s.skin_names))
  end
  st.skin = name
  return true, name
end
core.world2d_skin_handler(M.skin_handler)

-- animator:attachment(slot) -> the attachment table, its name [, frame] |
-- nil: the slot's attachment now, from the current skin, else the
-- `default` skin; with a sequence, the frame it shows (0-based: its
-- property sequence.<skin>.<slot>.<attachment> when a track plays it,
-- else the sequence's setup_index)
function M.attachment(self, slot)
  local s = data(self, "attachment")
  if not s.slot_index[slot] then unknown("attachment", "slot", slot, s.slot_names) end
  local att = M.slot(self, slot)
  if not att then return nil end
  local function find(skin)
    local k = skin and s.skin_index[skin]
    local byslot = k and s.skins[k].attachments[slot]
    return byslot and byslot[att], skin
  end
  local found, skin = find(animator_state(self).skin)
  if not found then found, skin = find("default") end
  if not found then return nil end
  local seq = found.sequence
  if type(seq) ~= "table" or (found.type ~= "region" and found.type ~= "mesh") then return found, att end
  local k = core_property(self, "sequence." .. skin .. "." .. slot .. "." .. att)
  k = k and floor(k + 0.5)
  if not k or k < 0 or k >= seq.count then k = seq.setup_index or 0 end
  return found, att, k
end

-- (the animator's methods that are these; `skin` is the C method's)
M.METHODS = { "world2d", "slot", "draw_order", "attachment" }

return M
