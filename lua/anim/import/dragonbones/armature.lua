-- import/dragonbones/armature.lua: one DragonBones armature's setup -- its
-- bones, slots, skins with their displays, and IK constraints -- as the
-- 2D skeleton description of the contract (docs/formats.md, DragonBones).
-- The rules are the format's as its MIT runtime's parser reads them
-- (DragonBonesJS src/dragonBones/parser/ObjectDataParser.ts: _parseBone,
-- _parseSlot, _parseSkin, _parseDisplay, _parseMesh, _parseIKConstraint);
-- the code is ours.
--
-- What it gives back beside the description (`A` below, which the
-- animations read): bones and slots by name, the raw bone order (a mesh's
-- weights and bonePose name bones by their index in the file), each
-- slot's display index -> attachment channel value, and the meshes by
-- skin, slot and display name (a deform timeline's offsets are turned into
-- the bones' spaces as the mesh's weights are).
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local F = require "anim.import.dragonbones.fields"

local M = {}

local key, index, fail, shown = E.key, E.index, E.fail, E.shown

local function unknown(path, what, name, names)
  fail(path, "unknown %s '%s'%s", what, shown(name), E.hint(name, names))
end

-- Bones -------------------------------------------------------------------------

-- DragonBones' inherit flags (inheritTranslation, inheritRotation,
-- inheritScale, inheritReflection) go to the description as the bone's
-- `dragonbones` table: the 2D stage then poses the bone by DragonBones'
-- own rule (csrc/core/dragonbones2d.c, Bone._updateGlobalTransformMatrix
-- of DragonBonesJS), exactly.  `inherit` holds the nearest of the
-- contract's modes for a reader of the description that knows no flags
-- (the same where both agree: all flags, or none but translation):
--   all inherited                        normal
--   scale, not rotation                  noRotationOrReflection
--   rotation, not scale (reflection)     noScale / noScaleOrReflection
--   neither                              onlyTranslation
local function inherit_mode(rot, sc, refl)
  if sc then return rot and "normal" or "noRotationOrReflection" end
  if rot then return refl and "noScale" or "noScaleOrReflection" end
  return "onlyTranslation"
end

local function read_bones(raw, path, A)
  local list = F.array(raw, "bone", path)
  -- (a 2D skeleton has at least one bone: anim.skeleton2d refused such an
  -- armature's description, naming no path of the file)
  if #list == 0 then fail(key(path, "bone"), "an armature needs at least one bone") end
  if #list > limits.current.joints then
    fail(key(path, "bone"), "too many bones: %d (at most %d, anim.limits.joints)", #list, limits.current.joints)
  end
  local by_name, read, names = {}, {}, {}
  for i, b in ipairs(list) do
    local p = index(key(path, "bone"), i)
    E.object(b, p, "bone")
    local name = E.string(b.name, key(p, "name"), "bone name")
    if by_name[name] then fail(key(p, "name"), "two bones are named '%s' (bone[%d] and bone[%d])", shown(name), by_name[name], i) end
    local btype = b.type
    if not E.absent(btype) and btype ~= "bone" and btype ~= 0 then
      fail(key(p, "type"), "bone type %s is not read (DragonBones 4.5-5.5 have bones only)",
        type(btype) == "string" and "'" .. shown(btype) .. "'" or E.describe(btype))
    end
    by_name[name] = i
    names[i] = name
    local t = F.transform(F.object(b, "transform", p), key(p, "transform"))
    local tr = F.boolean(b, "inheritTranslation", p, true)
    local rot = F.boolean(b, "inheritRotation", p, true)
    local sc = F.boolean(b, "inheritScale", p, true)
    local refl = F.boolean(b, "inheritReflection", p, true)
    local mode = inherit_mode(rot, sc, refl)
    read[i] = {
      path = p, parent = F.string(b, "parent", p, nil),
      bone = {
        name = name, x = t.x, y = t.y, rotation = t.rotation, scale_x = t.scale_x, scale_y = t.scale_y,
        shear_x = 0, shear_y = t.skew, length = F.number(b, "length", p, 0), inherit = mode,
        -- the file's own flags: the 2D stage plays DragonBones' rule by them
        dragonbones = { inherit_translation = tr, inherit_rotation = rot, inherit_scale = sc,
                        inherit_reflection = refl },
      },
    }
  end
  for _, r in ipairs(read) do
    if r.parent == "" then r.parent = nil end
    if r.parent and not by_name[r.parent] then unknown(key(r.path, "parent"), "parent bone", r.parent, names) end
    r.bone.parent = r.parent
  end
  -- parents before children (the file may name a parent later: the
  -- runtime's parser waits for it, so this sorts); a cycle is refused
  local order, state = {}, {}
  local function visit(i, depth)
    if state[i] == 2 then return end
    if state[i] == 1 or depth > #read then
      fail(key(read[i].path, "parent"), "bone '%s' is its own ancestor", shown(names[i]))
    end
    state[i] = 1
    local parent = read[i].parent
    if parent then visit(by_name[parent], depth + 1) end
    state[i] = 2
    order[#order + 1] = i
  end
  for i = 1, #read do visit(i, 0) end
  A.desc.bones = {}
  A.bones = {}      -- name -> { index (1-based in desc.bones), bone }
  A.raw_bones = {}  -- file index (0-based) -> name
  for k, i in ipairs(order) do
    A.desc.bones[k] = read[i].bone
    A.bones[names[i]] = { index = k, bone = read[i].bone }
  end
  for i, name in ipairs(names) do A.raw_bones[i - 1] = name end
  A.bone_names = names
end

-- Slots -------------------------------------------------------------------------

local BLENDS = { normal = "normal", add = "additive", multiply = "multiply", screen = "screen" }
-- the format's numbers for its blend modes (DragonBonesJS BlendMode)
local BLEND_NUMBERS = { [0] = "normal", "add", "alpha", "darken", "difference", "erase", "hardlight",
  "invert", "layer", "lighten", "multiply", "overlay", "screen", "subtract" }

-- A colour transform { aM, rM, gM, bM (percent), aO, rO, gO, bO (0..255) }
-- as the contract's colour { r, g, b, a } 0..1; offsets are not played.
function M.color(c, path, warn, what)
  if c == nil then return { 1, 1, 1, 1 } end
  local out = { F.number(c, "rM", path, 100) / 100, F.number(c, "gM", path, 100) / 100,
    F.number(c, "bM", path, 100) / 100, F.number(c, "aM", path, 100) / 100 }
  for _, k in ipairs { "rO", "gO", "bO", "aO" } do
    if F.number(c, k, path, 0) ~= 0 then
      warn(path, "%s: colour offsets (%s = %s) are not played: the colour is the multipliers only", what, k, E.num(c[k]))
      break
    end
  end
  return out
end

local function read_slots(raw, path, A, warn)
  local list = F.array(raw, "slot", path)
  if #list > limits.current.joints then
    fail(key(path, "slot"), "too many slots: %d (at most %d, anim.limits.joints)", #list, limits.current.joints)
  end
  A.desc.slots = {}
  A.slots = {}
  A.slot_names = {}
  for i, s in ipairs(list) do
    local p = index(key(path, "slot"), i)
    E.object(s, p, "slot")
    local name = E.string(s.name, key(p, "name"), "slot name")
    if A.slots[name] then fail(key(p, "name"), "two slots are named '%s' (slot[%d] and slot[%d])", shown(name), A.slots[name].index, i) end
    local bone = F.string(s, "parent", p, nil)
    if bone == nil then fail(key(p, "parent"), "slot '%s' needs its bone (parent)", shown(name)) end
    if not A.bones[bone] then unknown(key(p, "parent"), "bone", bone, A.bone_names) end
    local blend = s.blendMode
    if type(blend) == "number" then blend = BLEND_NUMBERS[blend] or tostring(blend) end
    blend = F.string({ blendMode = blend }, "blendMode", p, "normal"):lower()
    if not BLENDS[blend] then
      warn(key(p, "blendMode"), "slot '%s': blend mode '%s' is drawn as normal (the contract has normal, additive, multiply, screen)",
        shown(name), shown(blend))
    end
    local slot = {
      name = name, bone = bone, blend = BLENDS[blend] or "normal",
      color = M.color(F.object(s, "color", p), key(p, "color"), warn, "slot '" .. shown(name) .. "'"),
      attachment_names = {},
    }
    A.desc.slots[i] = slot
    A.slots[name] = { index = i, slot = slot, display_index = F.whole(s, "displayIndex", p, 0, -1),
                      path = p, keys = {}, names = {}, suffix = {} }
    A.slot_names[i] = name
  end
end

-- Displays ------------------------------------------------------------------------

local DISPLAY_TYPES = { "image", "armature", "mesh", "boundingbox", "path" }
local BOX_TYPES = { [0] = "rectangle", "ellipse", "polygon" }

-- The vertices of the file's attachments and deform frames (a frame of a
-- mesh of n vertices counting n), across its armatures: at most
-- anim.limits.vertices.  what: "attachments" or "attachments and deform frames".
function M.count_vertices(A, n, path, what)
  local c = A.count
  if c.vertices + n > limits.current.vertices then
    -- (%s: a count the file gave may be whole but no integer)
    fail(path, "too many vertices: the armatures' %s would have %s (at most %d, anim.limits.vertices)", what,
      E.num(c.vertices + n), limits.current.vertices)
  end
  c.vertices = c.vertices + n
end

local function count_values(A, n, path)
  A.values = A.values + n
  if A.values > limits.current.keys then
    fail(path, "too many mesh numbers: the armatures' vertices, uvs and weights come to more than %d (anim.limits.keys)",
      limits.current.keys)
  end
end

-- A weighted mesh's vertices in the contract's (Spine's) layout: per
-- vertex its bone count, then per bone the bone's index in desc.bones
-- (0-based), the vertex in that bone's bind space, its weight.  The
-- format's mesh stores the vertices in the slot's space at bind time with
-- slotPose (that space's matrix) and bonePose (each bone's bind matrix);
-- the bind-space vertex is bonePose^-1 · slotPose · v, as the runtime
-- computes it (ObjectDataParser._parseMesh).
local function weighted(d, p, n, A)
  local weights = F.numbers(d, "weights", p)
  local slot_pose = F.matrix(F.numbers(d, "slotPose", p) or { 1, 0, 0, 1, 0, 0 }, 1, key(p, "slotPose"), "slotPose")
  local bone_pose = F.numbers(d, "bonePose", p)
  if not bone_pose then fail(key(p, "bonePose"), "a weighted mesh needs bonePose (the bones' bind matrices)") end
  if #bone_pose % 7 ~= 0 then
    fail(key(p, "bonePose"), "bonePose holds 7 numbers a bone (index, a, b, c, d, tx, ty), got %d numbers", #bone_pose)
  end
  local inverse = {} -- file bone index -> inverse bind matrix
  for j = 1, #bone_pose, 7 do
    local bi = bone_pose[j]
    local name = A.raw_bones[bi]
    if not name then
      fail(index(key(p, "bonePose"), j), "bonePose names bone %s; the armature has bones 0..%d", E.num(bi), #A.bone_names - 1)
    end
    inverse[bi] = F.invert(F.matrix(bone_pose, j + 1, key(p, "bonePose"), "a bone's bind matrix"),
      index(key(p, "bonePose"), j), "the bind matrix of bone '" .. shown(name) .. "'")
  end
  local verts = d.vertices
  local out, entries, w = {}, {}, 1
  for v = 1, n do
    local c = weights[w]
    local wp = index(key(p, "weights"), w)
    if c == nil then fail(key(p, "weights"), "the weights end at vertex %d of %d: they do not match the vertex count", v, n) end
    if c % 1 ~= 0 or c < 1 then fail(wp, "a vertex's bone count must be a whole number >= 1, got %s", E.num(c)) end
    local x, y = F.apply(slot_pose, verts[2 * v - 1], verts[2 * v])
    out[#out + 1] = c
    local spaces = {}
    for k = 1, c do
      local bi, weight = weights[w + 2 * k - 1], weights[w + 2 * k]
      if bi == nil or weight == nil then
        fail(key(p, "weights"), "the weights end inside vertex %d of %d: they do not match the vertex count", v, n)
      end
      local inv = inverse[bi]
      if not inv then
        fail(index(key(p, "weights"), w + 2 * k - 1), "vertex %d is weighted to bone %s, which bonePose does not list", v, E.num(bi))
      end
      local lx, ly = F.apply(inv, x, y)
      out[#out + 1] = A.bones[A.raw_bones[bi]].index - 1
      out[#out + 1] = lx
      out[#out + 1] = ly
      out[#out + 1] = weight
      spaces[k] = inv
    end
    entries[v] = spaces
    w = w + 1 + 2 * c
  end
  if w - 1 ~= #weights then
    fail(key(p, "weights"), "weights holds %d numbers, %d more than its %d vertices use: they do not match the vertex count",
      #weights, #weights - (w - 1), n)
  end
  count_values(A, #weights, key(p, "weights"))
  return out, { slot_pose = slot_pose, entries = entries }
end

local function mesh(d, p, att, A)
  local verts = F.numbers(d, "vertices", p)
  local uvs = F.numbers(d, "uvs", p)
  local tris = F.numbers(d, "triangles", p)
  if not verts then fail(key(p, "vertices"), "a mesh needs its vertices") end
  if not uvs then fail(key(p, "uvs"), "a mesh needs its uvs") end
  if not tris then fail(key(p, "triangles"), "a mesh needs its triangles") end
  if #verts % 2 ~= 0 then fail(key(p, "vertices"), "vertices holds x, y pairs, got %d numbers", #verts) end
  local n = #verts / 2
  if #uvs ~= #verts then
    fail(key(p, "uvs"), "uvs holds %d numbers for %d vertices (2 a vertex): they do not match the vertex count", #uvs, n)
  end
  if #tris % 3 ~= 0 then fail(key(p, "triangles"), "triangles holds 3 indices a triangle, got %d numbers", #tris) end
  count_values(A, #verts + #uvs + #tris, p)
  M.count_vertices(A, n, p, "attachments")
  for i = 1, #tris do
    local t = tris[i]
    if t % 1 ~= 0 or t < 0 or t >= n then
      fail(index(key(p, "triangles"), i), "a triangle's vertex index must be a whole number from 0 to %d, got %s", n - 1, E.num(t))
    end
  end
  att.type = "mesh"
  att.uvs, att.triangles = uvs, tris
  att.width, att.height = F.number(d, "width", p, 0), F.number(d, "height", p, 0)
  att.edges = F.numbers(d, "edges", p)
  att.vertex_count = n
  if not E.absent(d.weights) then
    att.weighted = true
    att.vertices, att.binding = weighted(d, p, n, A)
  else
    att.weighted = false
    att.vertices = verts
  end
end

local function bounding_box(d, p, att, warn, A)
  att.type = "boundingbox"
  local sub = d.subType
  if type(sub) == "number" then sub = BOX_TYPES[sub] end
  sub = F.string({ subType = sub }, "subType", p, "rectangle"):lower()
  att.shape = sub
  att.width, att.height = F.number(d, "width", p, 0), F.number(d, "height", p, 0)
  if sub == "polygon" then
    att.vertices = F.numbers(d, "vertices", p) or {}
    if #att.vertices % 2 ~= 0 then fail(key(p, "vertices"), "vertices holds x, y pairs, got %d numbers", #att.vertices) end
    M.count_vertices(A, #att.vertices / 2, p, "attachments")
  elseif sub == "rectangle" then
    local w, h = att.width / 2, att.height / 2
    att.vertices = { -w, -h, w, -h, w, h, -w, h }
  else
    warn(p, "bounding box '%s': an %s is kept as data (width, height), without vertices", shown(att.name), shown(sub))
  end
end

local function display(d, p, A, warn, atlas)
  E.object(d, p, "display")
  local name = F.string(d, "name", p, "")
  local path = F.string(d, "path", p, "")
  if path == "" then path = name end
  local dtype = d.type
  if type(dtype) == "number" then dtype = DISPLAY_TYPES[dtype + 1] end
  dtype = F.string({ type = dtype }, "type", p, "image"):lower()
  local att = { name = name, path = path }
  local tp = key(p, "transform")
  local t = F.transform(F.object(d, "transform", p), tp)
  if dtype == "image" then
    att.type = "region"
    att.x, att.y, att.rotation, att.shear_y = t.x, t.y, t.rotation, t.skew
    att.scale_x, att.scale_y = t.scale_x, t.scale_y
    local pivot = F.object(d, "pivot", p)
    att.pivot_x = pivot and F.number(pivot, "x", key(p, "pivot"), 0) or 0.5
    att.pivot_y = pivot and F.number(pivot, "y", key(p, "pivot"), 0) or 0.5
  elseif dtype == "mesh" then
    if not E.absent(d.share) then
      att.type = "linkedmesh"
      att.parent = F.string(d, "share", p, nil)
      local skin = F.string(d, "skin", p, "")
      att.skin = skin == "" and "default" or skin
      att.deform = F.boolean(d, "inheritDeform", p, true)
    else
      mesh(d, p, att, A)
    end
  elseif dtype == "boundingbox" then
    bounding_box(d, p, att, warn, A)
  elseif dtype == "armature" then
    att.type = "armature" -- the armature it shows is result.armatures[path]: kept as data
  elseif dtype == "path" then
    att.type = "path"
    att.raw = d
    warn(p, "display '%s': a path is kept as data (DragonBones 5.6 path constraints are not played)", shown(name))
  else
    fail(key(p, "type"), "unknown display type '%s'%s (expected image, mesh, armature, boundingBox or path)",
      shown(dtype), E.hint(dtype, DISPLAY_TYPES))
  end
  if (att.type == "region" or att.type == "mesh" or att.type == "linkedmesh") and atlas then
    local r = atlas.regions[path]
    if r then
      att.region = r
      if att.type == "region" then att.width, att.height = r.original_width, r.original_height end
      if not r.u then
        warn(key(p, "path"), "display '%s': the texture atlas gives no page size (width, height), so region '%s' has"
          .. " no texture coordinates; it is drawn without an image", shown(name), shown(path))
      end
    else
      warn(key(p, "path"), "display '%s': no region '%s' in the texture atlas; it is drawn without one",
        shown(name), shown(path))
    end
  end
  return att
end

-- Skins: the first skin named "" or "default" is the default one (the
-- file may omit the name); its displays name the slots' attachments. A
-- slot's display index i is the channel value k of the attachment at i
-- (0 for none, or for a null display). Another skin's display at index i
-- is filed under the name the default skin gives index i, so that
-- switching skins swaps the display at the same index, as the format's
-- runtime does (BaseFactory._buildSlots takes a skin's list for a slot
-- whole); a display at an index the default skin lacks adds its own name.
local function read_skins(raw, path, A, warn, atlas)
  local list = F.array(raw, "skin", path)
  A.desc.skins = {}
  A.meshes = {}
  local default_at
  local skins, links = {}, {}
  for i, s in ipairs(list) do
    local p = index(key(path, "skin"), i)
    E.object(s, p, "skin")
    local name = F.string(s, "name", p, "")
    if name == "" then name = "default" end
    for j = 1, i - 1 do
      if skins[j].name == name then fail(key(p, "name"), "two skins are named '%s' (skin[%d] and skin[%d])", shown(name), j, i) end
    end
    skins[i] = { name = name, raw = s, path = p }
    if name == "default" and not default_at then default_at = i end
  end
  -- the default skin first: its names are the attachments'
  local order = {}
  if default_at then order[1] = default_at end
  for i = 1, #skins do if i ~= default_at then order[#order + 1] = i end end
  for n, i in ipairs(order) do
    local s = skins[i]
    local skin = { name = s.name, attachments = {} }
    A.desc.skins[n] = skin
    A.meshes[s.name] = {}
    for j, rs in ipairs(F.array(s.raw, "slot", s.path)) do
      local p = index(key(s.path, "slot"), j)
      E.object(rs, p, "skin slot")
      local sname = E.string(rs.name, key(p, "name"), "slot name")
      local slot = A.slots[sname]
      if not slot then unknown(key(p, "name"), "slot", sname, A.slot_names) end
      local atts = {}
      skin.attachments[sname] = atts
      A.meshes[s.name][sname] = {}
      for k, d in ipairs(F.array(rs, "display", p)) do
        local dp = index(key(p, "display"), k)
        if not E.absent(d) then
          local att = display(d, dp, A, warn, atlas)
          -- the attachment's name: the default skin's at this index
          local at = slot.keys[k - 1]
          if not at then
            local nm = att.name
            if slot.names[nm] then
              -- (the next number of this name, not searched from 2 again)
              local m = (slot.suffix[nm] or 1) + 1
              while slot.names[nm .. "#" .. m] do m = m + 1 end
              slot.suffix[nm] = m
              warn(key(dp, "name"), "slot '%s' has two displays named '%s': the second is '%s#%d'", shown(sname), shown(nm), shown(nm), m)
              nm = nm .. "#" .. m
            end
            local names = slot.slot.attachment_names
            names[#names + 1] = nm
            slot.names[nm] = #names
            slot.keys[k - 1] = nm
            at = nm
          end
          atts[at] = att
          if att.type == "linkedmesh" then
            links[#links + 1] = { att = att, atts = atts, key = at, slot = sname, path = dp }
          end
          if att.type == "mesh" then
            A.meshes[s.name][sname][att.name] = { key = at, att = att, binding = att.binding }
            att.binding = nil
          end
        end
      end
    end
  end
  -- linked meshes (`share`, the display name of a mesh of the skin it
  -- names): their parent by its key in that skin (the name its display is
  -- filed under, the default skin's at its index), on the display's slot,
  -- else on the first slot in setup order that has it (attach2d.compile
  -- looks for it so); one whose mesh is not there is skipped, as Spine's
  -- are, with a warning at the display
  for _, l in ipairs(links) do
    local att = l.att
    local bys = A.meshes[att.skin]
    local m = bys and bys[l.slot] and bys[l.slot][att.parent]
    if bys and not m then
      for _, other in ipairs(A.slot_names) do
        m = bys[other] and bys[other][att.parent]
        if m then break end
      end
    end
    if m then
      att.parent = m.key
    else
      warn(l.path, "display '%s': it shares mesh '%s' of skin '%s', which %s; it is skipped", shown(att.name),
        shown(att.parent), shown(att.skin), bys and "no slot of that skin has" or "is not a skin")
      l.atts[l.key] = nil
    end
  end
  -- a skin that lists a slot replaces the default skin's displays of it
  -- whole (BaseFactory._buildSlots): an index it leaves null, or does not
  -- reach, shows nothing under it, where the contract would fall back to
  -- the default skin's attachment of that name; such a name is filed as
  -- an attachment that draws nothing ({ type = "none" })
  if default_at then
    for n = 2, #order do
      local skin = A.desc.skins[n]
      for _, sname in ipairs(A.slot_names) do
        local atts = skin.attachments[sname]
        if atts then
          for _, nm in ipairs(A.slots[sname].slot.attachment_names) do
            if atts[nm] == nil then atts[nm] = { type = "none" } end
          end
        end
      end
    end
  end
  -- the setup attachment: the display at displayIndex of the default skin
  for _, name in ipairs(A.slot_names) do
    local slot = A.slots[name]
    local at = slot.keys[slot.display_index]
    slot.slot.attachment = at
  end
end

-- The contract's attachment channel value of display index i of a slot.
function M.attachment_value(slot, i)
  local at = slot.keys[i]
  return at and slot.names[at] or 0
end

-- IK ----------------------------------------------------------------------------

-- The order the runtime applies the IK constraints in: each when its root
-- bone (the chain's parent, or the bone) updates, and it sorts its bones
-- parents first and a root after the targets of its constraints
-- (ArmatureData.sortBones).  Any such order gives the runtime's result (a
-- constraint reads only its target, its bones and the root's parent, all
-- sorted before its root), so a topological order of those edges (Kahn's,
-- O(bones + constraints)) numbers them; ties keep the file's order.  Roots
-- the edges make wait for each other (the runtime's sort never ends) come
-- after the others, in the file's order.
local function runtime_order(A)
  local bones, at, waits, count, out = A.desc.bones, {}, {}, {}, {}
  for k, b in ipairs(bones) do
    at[b.name] = k
    count[k] = b.parent and 1 or 0
    waits[k] = {}
  end
  for k, b in ipairs(bones) do
    if b.parent then local w = waits[at[b.parent]]; w[#w + 1] = k end
  end
  for _, c in ipairs(A.desc.ik) do
    local root, target = at[c.bones[1]], at[c.target]
    count[root] = count[root] + 1
    waits[target][#waits[target] + 1] = root
  end
  local queue, head, rank = {}, 1, {}
  for k = 1, #bones do if count[k] == 0 then queue[#queue + 1] = k end end
  while queue[head] do
    local k = queue[head]
    head = head + 1
    rank[k] = head - 1
    for _, n in ipairs(waits[k]) do
      count[n] = count[n] - 1
      if count[n] == 0 then queue[#queue + 1] = n end
    end
  end
  for i, c in ipairs(A.desc.ik) do out[i] = rank[at[c.bones[1]]] or #bones + i end
  return out
end

local function read_ik(raw, path, A)
  A.desc.ik = {}
  A.ik = {}
  for i, c in ipairs(F.array(raw, "ik", path)) do
    local p = index(key(path, "ik"), i)
    E.object(c, p, "ik constraint")
    local bone = E.string(c.bone, key(p, "bone"), "bone")
    local target = E.string(c.target, key(p, "target"), "target")
    if not A.bones[bone] then unknown(key(p, "bone"), "bone", bone, A.bone_names) end
    if not A.bones[target] then unknown(key(p, "target"), "bone", target, A.bone_names) end
    local name = F.string(c, "name", p, "")
    if name == "" then name = bone end -- (the runtime finds an unnamed constraint by ""; a name is needed here)
    if A.ik[name] then fail(key(p, "name"), "two IK constraints are named '%s'", shown(name)) end
    local bones = { bone }
    local parent = A.bones[bone].bone.parent
    if F.whole(c, "chain", p, 0, 0) > 0 and parent then bones = { parent, bone } end
    -- a target that moves with the chain: the runtime's sort of the bones
    -- never ends (the chain's root waits for the target, the target for its
    -- parent), and anim.skeleton2d refuses it, as the Spine importer does
    local up = target
    while up and up ~= bones[1] do up = A.bones[up].bone.parent end
    if up then
      fail(key(p, "target"), "the target '%s' cannot be a constrained bone or below one ('%s')", shown(target), shown(bones[1]))
    end
    local ik = {
      name = name, bones = bones, target = target, -- (order: below)
      mix = F.number(c, "weight", p, 1), softness = 0,
      -- bendPositive: the bend the runtime gives in its own axes (y down)
      bend = F.boolean(c, "bendPositive", p, true) and 1 or -1,
      compress = false, stretch = false, uniform = false,
      -- DragonBones' own solver in the 2D stage (IKConstraint._computeA/B);
      -- `scale` kept as data: the runtime reads it into nothing either
      dragonbones = { scale = F.boolean(c, "scale", p, false) },
    }
    A.desc.ik[i] = ik
    A.ik[name] = ik
  end
  for i, order in ipairs(runtime_order(A)) do A.desc.ik[i].order = order end
end

-- The description of armature `raw` at `path`; raises a failure.  count:
-- the import's counters ({ vertices = n }: count_vertices).
function M.read(raw, path, warn, atlas, version, count)
  local A = { desc = { format = "dragonbones", version = version, y_down = true }, values = 0,
    count = count or { vertices = 0 } }
  A.name = F.string(raw, "name", path, "")
  local aabb = F.object(raw, "aabb", path)
  if aabb then
    local ap = key(path, "aabb")
    A.desc.x, A.desc.y = F.number(aabb, "x", ap, 0), F.number(aabb, "y", ap, 0)
    A.desc.width, A.desc.height = F.number(aabb, "width", ap, 0), F.number(aabb, "height", ap, 0)
  end
  read_bones(raw, path, A)
  read_slots(raw, path, A, warn)
  read_skins(raw, path, A, warn, atlas)
  read_ik(raw, path, A)
  A.desc.transforms, A.desc.draw_orders, A.desc.events = {}, {}, {}
  return A
end

return M
