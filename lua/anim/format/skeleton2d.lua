-- skeleton2d.lua: 2D skeletons (issue 40: Spine and DragonBones).
-- anim.skeleton2d(desc [, name]) -> skeleton | nil, message reads the
-- description the importers make (docs/api.md, "2D skeletons": bones,
-- slots, skins, draw orders, IK and transform constraints), checks every
-- field (messages name the description's path and suggest a misspelt
-- name), and builds:
--   * skeleton.rig: the module rig, a joint per bone of the same name (rest
--     position [x, y, 0], rest rotation [0, 0, rotation] degrees about z,
--     rest scale [scale_x, scale_y, 1]), so that a 2D skeleton's clips play
--     through the animators as any other (their channels absolute);
--   * the 2D stage's description (csrc/lua/lua_world2d.c): per bone its
--     inherit mode, setup shear and length, the IK and transform constraints, and the
--     update order: each bone's world after its parent's and after the
--     constraints that move it (a constraint's target and its bones'
--     parents posed before it, the bones below the ones it moves posed
--     again after it).
-- Path and physics constraints are kept as data (not played).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local json = require "anim.base.json"
local args = require "anim.base.args"
local codes = require "anim.base.codes"
local rigmod = require "anim.format.rig"
local limits = require "anim.base.limits"
local byteorder = require "anim.base.order"
local attachments2d = require "anim.format.attachments2d"

local M = {}
M.MAX_BONES = codes.const.max_rig_joints
-- The most steps of the update order (a bone posed, a constraint applied)
-- a frame: what a skeleton may cost per update (docs/robustness.md).
M.MAX_STEPS = codes.const.max_2d_steps

local fail, key, index, shown = E.fail, E.key, E.index, E.shown
local hint = E.hint

M.INHERIT = { "normal", "onlyTranslation", "noRotationOrReflection", "noScale", "noScaleOrReflection" }
local BLENDS = { "normal", "additive", "multiply", "screen" }
-- the steps of the update order (csrc/core/world2d.h: ANIM_W2D_*)
local STEP_BONE, STEP_IK, STEP_TRANSFORM = 1, 2, 3

local function num(t, k, path, dflt)
  local v = t[k]
  if E.absent(v) then return dflt end
  return E.number(v, key(path, k), k)
end

local db_flags -- (below)

local function bool(t, k, path, dflt)
  local v = t[k]
  if E.absent(v) then return dflt end
  return E.boolean(v, key(path, k), k)
end

local function opt_array(t, k, path)
  local v = t[k]
  if E.absent(v) then return {} end
  return E.array(v, key(path, k), k)
end

-- The fields each kind of object in a description may have (docs/api.md):
-- another (a misspelt `lenght`, Spine's `mixRotate` for `mix_rotate`) is
-- refused with a suggestion, where it would be left out unread.  (The
-- mixes and offsets of a transform constraint in the order of the
-- property transform.<name>.)
local TC_MIX = { "mix_rotate", "mix_x", "mix_y", "mix_scale_x", "mix_scale_y", "mix_shear_y" }
local TC_OFFSET = { "offset_rotation", "offset_x", "offset_y", "offset_scale_x", "offset_scale_y", "offset_shear_y" }
local function field_set(...)
  local list, set = {}, {}
  for _, l in ipairs { ... } do
    for _, k in ipairs(l) do list[#list + 1], set[k] = k, true end
  end
  return { list = byteorder.sort(list), set = set }
end
local FIELDS = {
  bone = field_set { "name", "parent", "inherit", "dragonbones", "x", "y", "rotation", "scale_x", "scale_y", "shear_x",
    "shear_y", "length" },
  dragonbones_bone = field_set { "inherit_translation", "inherit_rotation", "inherit_scale", "inherit_reflection" },
  slot = field_set { "name", "bone", "attachment", "attachment_names", "blend", "color", "dark" },
  -- (a Spine skin's bones and constraints kept as data)
  skin = field_set { "name", "attachments", "bones", "ik", "transform", "path", "physics" },
  sequence = field_set { "count", "setup_index", "regions", "start", "digits", "path" },
  ik = field_set { "name", "order", "bones", "target", "mix", "softness", "bend", "compress", "stretch", "uniform",
    "dragonbones" },
  dragonbones_ik = field_set { "scale" },
  transform = field_set({ "name", "order", "bones", "target", "local", "relative" }, TC_MIX, TC_OFFSET),
}

-- Object v (at path) has only the fields of `fields`: else the first other
-- one (by its bytes) fails, with a suggestion.
local function only(v, path, fields)
  local bad = byteorder.first_unknown(v, fields.set)
  if bad == nil then return end
  if type(bad) ~= "string" then
    fail(path, "unknown field [%s]", type(bad) == "number" and E.num(bad) or E.describe(bad))
  end
  fail(key(path, bad), "unknown field%s", hint(bad, fields.list))
end

-- A name of a list: a string, not seen before in it.
local function new_name(v, path, seen, what)
  E.string(v, path, what .. " name")
  if seen[v] then fail(path, "two %ss named '%s'", what, shown(v)) end
  return v
end

-- A name that must be one of names (an index map, its list for hints).
local function known(v, path, map, list, what)
  E.string(v, path, what .. " name")
  local i = map[v]
  if not i then fail(path, "unknown %s '%s'%s", what, shown(v), hint(v, list)) end
  return i
end

local function color(v, path, n)
  if E.absent(v) then return nil end
  E.array(v, path, "colour")
  if #v ~= n then fail(path, "a colour has %d numbers, got %d", n, #v) end
  local out = {}
  for i = 1, n do out[i] = E.number(v[i], index(path, i), "colour component") end
  return out
end

-- A list of named objects at d[field] (absent: none): each checked an
-- object with a new name, then read(item, path, name, i, map, names)
-- makes its record (map and names: the ones before it).  Returns the
-- records, name -> index, the names.
local function named(list, field, what, read)
  local out, map, names = {}, {}, {}
  for i, item in ipairs(list) do
    local p = index(field, i)
    E.object(item, p, what)
    local name = new_name(item.name, key(p, "name"), map, what)
    out[i] = read(item, p, name, i, map, names)
    map[name] = i
    names[i] = name
  end
  return out, map, names
end

-- A bone's DragonBones inherit flags (absent: its inherit mode's rule):
-- { inherit_translation, inherit_rotation, inherit_scale,
-- inherit_reflection } booleans, true when absent, as the stage's bits
-- (csrc/core/world2d.h: ANIM_DB_*).
local DB_FLAGS = { { "inherit_translation", 2 }, { "inherit_rotation", 4 }, { "inherit_scale", 8 },
  { "inherit_reflection", 16 } }
db_flags = function(v, path)
  if E.absent(v) then return nil end
  E.object(v, path, "DragonBones inherit flags")
  only(v, path, FIELDS.dragonbones_bone)
  local bits = 1
  for _, f in ipairs(DB_FLAGS) do
    if bool(v, f[1], path, true) then bits = bits + f[2] end
  end
  return bits
end

local function read_bones(d)
  local list = E.array(d.bones, "bones", "bones")
  if #list == 0 then fail("bones", "a skeleton needs at least one bone") end
  if #list > rigmod.MAX_JOINTS then fail("bones", "too many bones (%d; at most %d)", #list, rigmod.MAX_JOINTS) end
  return named(list, "bones", "bone", function(b, p, name, i, map, names)
    only(b, p, FIELDS.bone)
    local parent
    if not E.absent(b.parent) then
      local pp = key(p, "parent")
      E.string(b.parent, pp, "parent name")
      parent = map[b.parent]
      if not parent then
        for j = i + 1, #list do
          if type(list[j]) == "table" and list[j].name == b.parent then
            fail(pp, "parent '%s' must come before its child (parents first)", shown(b.parent))
          end
        end
        fail(pp, "unknown bone '%s'%s", shown(b.parent), hint(b.parent, names))
      end
    end
    local inherit = 1
    if not E.absent(b.inherit) then inherit = E.enum(b.inherit, M.INHERIT, key(p, "inherit"), "inherit mode") end
    return {
      name = name, parent = parent, inherit = inherit, dragonbones = db_flags(b.dragonbones, key(p, "dragonbones")),
      x = num(b, "x", p, 0), y = num(b, "y", p, 0), rotation = num(b, "rotation", p, 0),
      scale_x = num(b, "scale_x", p, 1), scale_y = num(b, "scale_y", p, 1),
      shear_x = num(b, "shear_x", p, 0), shear_y = num(b, "shear_y", p, 0), length = num(b, "length", p, 0),
    }
  end)
end

local function read_slots(d, bmap, bnames)
  return named(opt_array(d, "slots", ""), "slots", "slot", function(s, p, name)
    only(s, p, FIELDS.slot)
    local bone = known(s.bone, key(p, "bone"), bmap, bnames, "bone")
    local att = s.attachment
    if not E.absent(att) then E.string(att, key(p, "attachment"), "attachment name") else att = nil end
    local anames = {}
    for k, a in ipairs(opt_array(s, "attachment_names", p)) do
      anames[k] = E.string(a, index(key(p, "attachment_names"), k), "attachment name")
    end
    local blend = 1
    if not E.absent(s.blend) then blend = E.enum(s.blend, BLENDS, key(p, "blend"), "blend mode") end
    return { name = name, bone = bone, bone_name = bnames[bone], attachment = att, attachment_names = anames,
      color = color(s.color, key(p, "color"), 4) or { 1, 1, 1, 1 }, dark = color(s.dark, key(p, "dark"), 3),
      blend = BLENDS[blend],
      -- the properties that animate it (made once: read every frame)
      p_attachment = "slot." .. name .. ".attachment", p_color = "slot." .. name .. ".color",
      p_dark = "slot." .. name .. ".dark" }
  end)
end

-- An attachment's sequence (a region's or mesh's frames, docs/api.md):
-- count (1 to anim.limits.vertices), setup_index (0 to count - 1, 0
-- when absent), regions (absent, or an array: frame i's region at 1 + i).
local function sequence(v, p)
  E.object(v, p, "sequence")
  only(v, p, FIELDS.sequence)
  local count = E.number(v.count, key(p, "count"), "count")
  local most = limits.current.vertices
  if count % 1 ~= 0 or count < 1 or count > most then
    fail(key(p, "count"), "count must be a whole number from 1 to %d (anim.limits.vertices), got %s", most, E.num(count))
  end
  local setup = num(v, "setup_index", p, 0)
  if setup % 1 ~= 0 or setup < 0 or setup >= count then
    fail(key(p, "setup_index"), "setup_index must be a whole number from 0 to %d, got %s", count - 1, E.num(setup))
  end
  if not E.absent(v.regions) then E.array(v.regions, key(p, "regions"), "regions") end
end

local function read_skins(d, smap, snames)
  return named(opt_array(d, "skins", ""), "skins", "skin", function(s, p, name)
    only(s, p, FIELDS.skin)
    local atts = s.attachments
    if E.absent(atts) then atts = {} end
    E.object(atts, key(p, "attachments"), "attachments")
    for slot, byname in pairs(atts) do
      local sp = key(key(p, "attachments"), slot)
      known(slot, sp, smap, snames, "slot")
      E.object(byname, sp, "attachments of a slot")
      for an, att in pairs(byname) do
        E.string(an, sp, "attachment name")
        E.object(att, key(sp, an), "attachment")
        if not E.absent(att.sequence) then sequence(att.sequence, key(key(sp, an), "sequence")) end
      end
    end
    return { name = name, attachments = atts }
  end)
end

local function read_draw_orders(d, smap, snames)
  local out = {}
  for i, order in ipairs(opt_array(d, "draw_orders", "")) do
    local p = index("draw_orders", i)
    E.array(order, p, "draw order")
    if #order ~= #snames then fail(p, "a draw order lists every slot once (%d), got %d", #snames, #order) end
    local seen = {}
    for k, n in ipairs(order) do
      local np = index(p, k)
      known(n, np, smap, snames, "slot")
      if seen[n] then fail(np, "slot '%s' twice in one draw order", shown(n)) end
      seen[n] = true
    end
    out[i] = order
  end
  return out
end

-- Each bone's interval in a depth-first walk (pre, post): a is b or below
-- it when b's interval holds a's, in O(1) (walking up from a for every
-- constraint's bones made a chain of 65,536 bones quadratic).
local function intervals(bones)
  local children, pre, post = {}, {}, {}
  for i, b in ipairs(bones) do
    if b.parent then
      children[b.parent] = children[b.parent] or {}
      local c = children[b.parent]
      c[#c + 1] = i
    end
  end
  local clock, stack = 0, {}
  for i, b in ipairs(bones) do
    if not b.parent then
      stack[1] = { i, 0 }
      while #stack > 0 do
        local top = stack[#stack]
        if top[2] == 0 then clock = clock + 1; pre[top[1]] = clock end
        top[2] = top[2] + 1
        local c = children[top[1]] and children[top[1]][top[2]]
        if c then stack[#stack + 1] = { c, 0 }
        else clock = clock + 1; post[top[1]] = clock; stack[#stack] = nil end
      end
    end
  end
  return function(a, b) return pre[b] <= pre[a] and post[a] <= post[b] end, children
end
M.intervals = intervals -- (the Spine importer checks its constraints by it)

-- An IK constraint solved by DragonBones' solver: its `dragonbones`
-- options { scale = boolean } (data: DragonBones' runtime reads no scale
-- either).
local function db_ik(v, path)
  if E.absent(v) then return false end
  E.object(v, path, "DragonBones IK options")
  only(v, path, FIELDS.dragonbones_ik)
  bool(v, "scale", path, false)
  return true
end

local function read_ik(d, bones, bmap, bnames, below)
  local all = opt_array(d, "ik", "")
  if #all > M.MAX_BONES then fail("ik", "too many IK constraints (%d; at most %d)", #all, M.MAX_BONES) end
  return named(all, "ik", "IK constraint", function(c, p, name, i)
    only(c, p, FIELDS.ik)
    local bp = key(p, "bones")
    local list = E.array(c.bones, bp, "bones")
    if #list < 1 or #list > 2 then fail(bp, "an IK constraint has one or two bones, got %d", #list) end
    local b1 = known(list[1], index(bp, 1), bmap, bnames, "bone")
    local b2 = list[2] and known(list[2], index(bp, 2), bmap, bnames, "bone") or nil
    if b2 and bones[b2].parent ~= b1 then
      fail(index(bp, 2), "the second bone of an IK constraint is a child of the first ('%s'), got '%s'",
        shown(bnames[b1]), shown(bnames[b2]))
    end
    local target = known(c.target, key(p, "target"), bmap, bnames, "bone")
    if below(target, b1) then
      fail(key(p, "target"), "the target '%s' cannot be a constrained bone or below one", shown(bnames[target]))
    end
    local bend = num(c, "bend", p, 1)
    if bend ~= 1 and bend ~= -1 then fail(key(p, "bend"), "bend must be 1 or -1, got %s", E.num(bend)) end
    return { name = name, order = num(c, "order", p, i - 1), bone1 = b1, bone2 = b2 or 0, target = target,
      mix = num(c, "mix", p, 1), softness = num(c, "softness", p, 0), bend = bend,
      compress = bool(c, "compress", p, false), stretch = bool(c, "stretch", p, false),
      uniform = bool(c, "uniform", p, false), prop = "ik." .. name, flags = "ik." .. name .. ".flags",
      dragonbones = db_ik(c.dragonbones, key(p, "dragonbones")) }
  end)
end


local function read_transforms(d, bmap, bnames, below)
  local all = opt_array(d, "transforms", "")
  if #all > M.MAX_BONES then fail("transforms", "too many transform constraints (%d; at most %d)", #all, M.MAX_BONES) end
  local listed = 0
  return named(all, "transforms", "transform constraint", function(c, p, name, i)
    only(c, p, FIELDS.transform)
    local bp = key(p, "bones")
    local list, seen = {}, {}
    listed = listed + #E.array(c.bones, bp, "bones")
    if listed > M.MAX_STEPS then
      fail(bp, "the transform constraints list more than %d bones in all", M.MAX_STEPS)
    end
    for k, b in ipairs(c.bones) do
      list[k] = known(b, index(bp, k), bmap, bnames, "bone")
      if seen[list[k]] then fail(index(bp, k), "bone '%s' twice in one constraint", shown(b)) end
      seen[list[k]] = true
    end
    if #list == 0 then fail(bp, "a transform constraint needs at least one bone") end
    local target = known(c.target, key(p, "target"), bmap, bnames, "bone")
    for k, b in ipairs(list) do
      if below(target, b) then
        fail(key(p, "target"), "the target '%s' cannot be a constrained bone or below one ('%s')",
          shown(bnames[target]), shown(bnames[list[k]]))
      end
    end
    local mix, offset = {}, {}
    for k = 1, 6 do
      mix[k] = num(c, TC_MIX[k], p, 1)
      offset[k] = num(c, TC_OFFSET[k], p, 0)
    end
    return { name = name, order = num(c, "order", p, i - 1), bones = list, target = target, mix = mix,
      offset = offset, ["local"] = bool(c, "local", p, false), relative = bool(c, "relative", p, false),
      prop = "transform." .. name }
  end)
end

-- The update order (the steps of csrc/core/world2d.c): constraints by
-- `order` (ties: IK first, then by their place in their list), each after
-- its target and its bones are posed; the bones below the ones a
-- constraint moves are posed again after it; then every bone not posed
-- yet.
local function update_order(bones, ik, tcs, children)
  local sorted, ops, work = {}, {}, 0
  -- (the steps, and the bones looked at to find them: bounded together)
  local function spend(n)
    work = work + n
    if work > 4 * M.MAX_STEPS or #ops > 2 * M.MAX_STEPS then
      fail("", "the update order would pose more than %d bones and constraints a frame (constraints above long "
        .. "chains of bones pose them again after each)", M.MAX_STEPS)
    end
  end
  local function step(kind, at)
    ops[#ops + 1] = kind
    ops[#ops + 1] = at
    spend(1)
  end
  local function pose(i)
    -- (the parents not posed yet, then i: a loop, not a recursion as deep as the chain)
    local chain, k = {}, i
    while k and not sorted[k] do chain[#chain + 1] = k; k = bones[k].parent end
    for n = #chain, 1, -1 do
      step(STEP_BONE, chain[n])
      sorted[chain[n]] = true
    end
  end
  local function reset(i)
    -- (the bones below i posed so far: to be posed again; each one unmarked
    -- here is posed once more later, so the walk costs what the steps do)
    local stack = { i }
    while #stack > 0 do
      local b = stack[#stack]
      stack[#stack] = nil
      spend(children[b] and #children[b] or 0)
      for _, c in ipairs(children[b] or {}) do
        if sorted[c] then
          sorted[c] = false
          stack[#stack + 1] = c
        end
      end
    end
  end
  local byorder = {}
  for k, c in ipairs(ik) do byorder[#byorder + 1] = { c = c, k = k, kind = STEP_IK, at = k } end
  for k, c in ipairs(tcs) do byorder[#byorder + 1] = { c = c, k = #ik + k, kind = STEP_TRANSFORM, at = k } end
  table.sort(byorder, function(a, b)
    if a.c.order ~= b.c.order then return a.c.order < b.c.order end
    return a.k < b.k
  end)
  for _, e in ipairs(byorder) do
    local c = e.c
    local moved = e.kind == STEP_IK and { c.bone1, c.bone2 ~= 0 and c.bone2 or nil } or c.bones
    pose(c.target)
    for _, b in ipairs(moved) do pose(b) end
    step(e.kind, e.at)
    -- (the bones below those it moves: posed again after it; its own
    -- bones it poses itself)
    for _, b in ipairs(moved) do reset(b) end
    for _, b in ipairs(moved) do sorted[b] = true end
  end
  for i = 1, #bones do pose(i) end
  return ops
end

local function build(d, name)
  E.object(d, "", "skeleton")
  local bones, bmap, bnames = read_bones(d)
  local slots, smap, snames = read_slots(d, bmap, bnames)
  local skins, kmap, knames = read_skins(d, smap, snames)
  -- (each attachment's geometry, in the skins' order, the slots', then by name)
  for i, sk in ipairs(skins) do
    for _, sname in ipairs(snames) do
      local byname = sk.attachments[sname]
      if byname then
        local names = {}
        for an in pairs(byname) do names[#names + 1] = an end
        byteorder.sort(names)
        for _, an in ipairs(names) do
          attachments2d.check({ skins = skins, slots = slots }, byname[an], sname,
            key(key(key(index("skins", i), "attachments"), sname), an), #bones)
        end
      end
    end
  end
  local orders = read_draw_orders(d, smap, snames)
  local below, children = intervals(bones)
  local ik = read_ik(d, bones, bmap, bnames, below)
  local transforms = read_transforms(d, bmap, bnames, below)
  local joints = {}
  for i, b in ipairs(bones) do
    -- (reduced first, exactly: 1e308 * pi overflowed to inf, whose sine is NaN)
    local h = math.fmod(b.rotation, 720) * math.pi / 360
    joints[i] = { name = b.name, parent = b.parent and bnames[b.parent] or nil,
      translation = { b.x, b.y, 0 }, rotation = { 0, 0, math.sin(h), math.cos(h) },
      scale = { b.scale_x, b.scale_y, 1 } }
  end
  local rig, err = rigmod.new({ joints = joints }, name)
  if not rig then fail("bones", "%s", err) end
  -- the rig orders its joints as it likes (parents first): the stage's
  -- indices are the rig's
  local at, by_name = {}, rigmod.info(rig).index
  for i, b in ipairs(bones) do at[i] = by_name[b.name] end
  local cbones = {}
  for i, b in ipairs(bones) do
    cbones[at[i]] = { inherit = b.inherit - 1, shear_x = b.shear_x, shear_y = b.shear_y, length = b.length,
      shear_name = b.name .. ".shear", inherit_name = b.name .. ".inherit", dragonbones = b.dragonbones or 0 }
  end
  local cik = {}
  for k, c in ipairs(ik) do
    cik[k] = { bone1 = at[c.bone1], bone2 = c.bone2 ~= 0 and at[c.bone2] or 0, target = at[c.target], mix = c.mix,
      softness = c.softness, bend = c.bend, compress = c.compress, stretch = c.stretch, uniform = c.uniform,
      dragonbones = c.dragonbones, name = c.prop, flags = c.flags }
  end
  local ctc = {}
  for k, c in ipairs(transforms) do
    local list = {}
    for i, b in ipairs(c.bones) do list[i] = at[b] end
    ctc[k] = { bones = list, target = at[c.target], mix = c.mix, offset = c.offset, ["local"] = c["local"],
      relative = c.relative, name = c.prop }
  end
  local ops = update_order(bones, ik, transforms, children)
  for i = 2, #ops, 2 do
    if ops[i - 1] == STEP_BONE then ops[i] = at[ops[i]] end
  end
  local rig_index = {}
  for i, b in ipairs(bones) do rig_index[b.name] = at[i] end
  return {
    name = name, rig = rig, desc = d, bones = bones, bone_index = bmap, bone_names = bnames, rig_index = rig_index,
    slots = slots, slot_index = smap, slot_names = snames, skins = skins, skin_index = kmap, skin_names = knames,
    draw_orders = orders, ik = ik, transforms = transforms,
    stage = { bones = cbones, ik = cik, tc = ctc, ops = ops },
  }
end

local methods = {}
local mt = { __name = "anim.skeleton2d" }

-- skeleton:bones() -> { { name, parent, x, y, rotation, scale_x, scale_y,
-- shear_x, shear_y, length, inherit [, dragonbones] }, ... } (copies, in
-- order; dragonbones: the four flags, when the bone has them)
function methods.bones(self)
  local s, out = rawget(self, "_s"), {}
  for i, b in ipairs(s.bones) do
    local db
    if b.dragonbones then
      db = {}
      for _, f in ipairs(DB_FLAGS) do db[f[1]] = b.dragonbones % (2 * f[2]) >= f[2] end
    end
    out[i] = { name = b.name, parent = b.parent and s.bone_names[b.parent] or nil, x = b.x, y = b.y,
      rotation = b.rotation, scale_x = b.scale_x, scale_y = b.scale_y, shear_x = b.shear_x, shear_y = b.shear_y,
      length = b.length, inherit = M.INHERIT[b.inherit], dragonbones = db }
  end
  return out
end

-- skeleton:slots() -> { { name, bone, attachment, color, dark, blend,
-- attachment_names }, ... } (copies, in the setup draw order)
function methods.slots(self)
  local out = {}
  for i, sl in ipairs(rawget(self, "_s").slots) do
    local names = {}
    for k, n in ipairs(sl.attachment_names) do names[k] = n end
    out[i] = { name = sl.name, bone = sl.bone_name, attachment = sl.attachment, blend = sl.blend,
      color = { sl.color[1], sl.color[2], sl.color[3], sl.color[4] },
      dark = sl.dark and { sl.dark[1], sl.dark[2], sl.dark[3] } or nil, attachment_names = names }
  end
  return out
end

-- skeleton:skins() -> { name, ... }
function methods.skins(self)
  local out = {}
  for i, n in ipairs(rawget(self, "_s").skin_names) do out[i] = n end
  return out
end

local fields = { rig = true, name = true, desc = true }
mt.__index = function(self, k)
  local m = methods[k]
  if m then return m end
  if fields[k] then return rawget(self, "_s")[k] end
  args.no_field("anim.skeleton2d", k, methods, fields)
end
mt.__newindex = function() args.raise("skeletons are read-only") end
mt.__tostring = function(self)
  local s = rawget(self, "_s")
  return "anim.skeleton2d(" .. s.name .. ", " .. #s.bones .. " bones)"
end
args.methods(methods, mt, "anim.skeleton2d")
M.methods = methods

function M.is_skeleton(v) return getmetatable(v) == mt end

-- What the runtime reads (runtime/animator2d.lua): the checked tables.
function M.data(sk) return rawget(sk, "_s") end

-- anim.skeleton2d(desc [, name]) -> skeleton | nil, message
function M.new(desc, name)
  if type(desc) ~= "table" then args.error(1, "skeleton2d", "table expected, got " .. args.typename(desc)) end
  if name ~= nil and type(name) ~= "string" then
    args.error(2, "skeleton2d", "string expected, got " .. args.typename(name))
  end
  name = name or "skeleton"
  -- read raw, once: a table found twice is copied once (as rigs are)
  local copy, err = E.catch(name, json.copy, desc)
  if not copy then return nil, err end
  local s
  s, err = E.catch(name, build, copy, name)
  if not s then return nil, err end
  return setmetatable({ _s = s }, mt)
end

M.STEP_BONE, M.STEP_IK, M.STEP_TRANSFORM = STEP_BONE, STEP_IK, STEP_TRANSFORM

return M
