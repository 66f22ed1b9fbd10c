-- import/spine/skeleton.lua: the setup pose of a Spine JSON export read into
-- the skeleton description of the 2D contract (bones, slots, skins and
-- their attachments, IK and transform constraints, events; path and
-- physics constraints kept as data).  Every field is the "JSON export
-- format" page's (esotericsoftware.com/spine-json-format for 4.x, and its
-- 3.8 version), each with that page's default:
--   bones: name, parent, length 0, x 0, y 0, rotation 0, scaleX 1,
--     scaleY 1, shearX 0, shearY 0, transform (3.8 to 4.1) / inherit
--     (4.2) "normal"; skin, color, icon, visible: editor data, read past.
--   slots: name, bone, color "FFFFFFFF", dark (none), attachment (none),
--     blend "normal".
--   skins (an array since 3.8): name, attachments { slot: { name: att } },
--     bones, ik, transform, path (a skin's constraints: kept).
--   attachments: type "region" (x y scaleX scaleY rotation width height
--     color path), "mesh" (uvs triangles vertices hull edges width height
--     color path), "linkedmesh" (parent skin deform / 4.x timelines),
--     "boundingbox" (vertexCount vertices), "point" (x y rotation),
--     "clipping" (end vertexCount vertices), "path" (kept).  A region's or
--     mesh's sequence (4.1: count, start 1, digits 0, setup 0) names
--     its regions path .. (start + i) with at least `digits` digits
--     (att.sequence; the frames played: sequence.lua).  A mesh's
--     vertices are weighted when there are more numbers than its uvs:
--     per vertex a bone count, then bone index, x, y, weight per bone.
--   ik: name order bones target mix 1 softness 0 bendPositive true
--     compress false stretch false uniform false.
--   transform: name order bones target rotation x y scaleX scaleY shearY
--     (offsets) local relative; mixes 3.8 rotateMix translateMix scaleMix
--     shearMix (1), 4.x mixRotate mixX mixY(=mixX) mixScaleX
--     mixScaleY(=mixScaleX) mixShearY (1).
--   events: name -> int 0, float 0, string "", audio, volume 1, balance 0.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local skeleton2d = require "anim.format.skeleton2d"
local byteorder = require "anim.base.order"

local M = {}

local key, index, fail, shown, hint = E.key, E.index, E.fail, E.shown, E.hint

M.INHERIT = { "normal", "onlyTranslation", "noRotationOrReflection", "noScale", "noScaleOrReflection" }
local BLENDS = { "normal", "additive", "multiply", "screen" }
local TYPES = { "region", "mesh", "linkedmesh", "boundingbox", "point", "clipping", "path" }
local BLEND_SET, TYPE_SET = {}, {}
for _, b in ipairs(BLENDS) do BLEND_SET[b] = true end
for _, t in ipairs(TYPES) do TYPE_SET[t] = true end

-- Field f of an object at path p, with its default when absent: the
-- field's path is made only for a message (a file may hold a million
-- slots or attachments).
local function opt_number(v, p, f, default)
  if v == nil then return default end
  if type(v) == "number" and v - v == 0 then return v end
  if E.absent(v) then return default end
  return E.number(v, key(p, f), f)
end

local function opt_bool(v, p, f, default)
  if v == nil or E.absent(v) then return default end
  if type(v) == "boolean" then return v end
  return E.boolean(v, key(p, f), f)
end

local function opt_string(v, p, f)
  if v == nil or E.absent(v) then return nil end
  if type(v) == "string" then return v end
  return E.string(v, key(p, f), f)
end

-- Colour field f of the object at path p (M.color's rule, the path made
-- only for a message).
local function opt_color(v, p, f, n, default)
  if type(v) == "string" and #v == 2 * n and not v:find("[^%x]") then return M.color(v, "", n) end
  return M.color(v, E.absent(v) and "" or key(p, f), n, default)
end

-- "RRGGBBAA" (or "RRGGBB" when n is 3) as numbers 0..1.
function M.color(v, path, n, default)
  if E.absent(v) then return default end
  if type(v) ~= "string" or #v ~= 2 * n or v:find("[^%x]") then
    fail(path, "a colour must be %d hexadecimal digits (%s), got %s", 2 * n, n == 4 and "RRGGBBAA" or "RRGGBB",
      type(v) == "string" and ("'" .. shown(v) .. "'") or E.describe(v))
  end
  local out = {}
  for i = 1, n do out[i] = tonumber(v:sub(2 * i - 1, 2 * i), 16) / 255 end
  return out
end

-- A name among `names` (a list) with its lookup `by` (name -> index).
-- (hint_of: the caller's rationed hints, else every failure gets one)
local function ref(v, by, names, path, what, hint_of)
  E.string(v, path, what)
  local i = by[v]
  if not i then fail(path, "unknown %s '%s'%s", what, shown(v), (hint_of or hint)(v, names)) end
  return i
end
M.ref = ref

local function numbers(v, path, what)
  if type(v) ~= "table" or (v[1] == nil and next(v) ~= nil) then E.array(v, path, what) end
  for i = 1, #v do
    local x = v[i]
    if type(x) ~= "number" or x - x ~= 0 then E.number(x, index(path, i), what) end
  end
  return v
end

local function read_bones(doc, desc, look)
  local list = doc.bones
  if E.absent(list) then list = {} end
  E.array(list, "bones", "bones")
  if #list > limits.current.joints then
    fail("bones", "too many bones: %d (at most %d, anim.limits.joints)", #list, limits.current.joints)
  end
  for i, b in ipairs(list) do
    local p = index("bones", i)
    E.object(b, p, "a bone")
    local name = E.string(b.name, key(p, "name"), "name")
    if look.bone[name] then fail(key(p, "name"), "two bones are named '%s' (bones %d and %d)", shown(name), look.bone[name], i) end
    local parent
    if not E.absent(b.parent) then
      local pi = ref(b.parent, look.bone, look.bone_names, key(p, "parent"), "bone")
      parent = look.bone_names[pi]
    elseif i > 1 then
      -- (the format: only the first bone, the root, has no parent)
      fail(key(p, "parent"), "only the first bone may have no parent; bone '%s' has none", shown(name))
    end
    local inherit = b.inherit
    local ip = key(p, "inherit")
    if E.absent(inherit) then inherit, ip = b.transform, key(p, "transform") end
    if E.absent(inherit) then inherit = "normal" end
    E.enum(inherit, M.INHERIT, ip, "inherit mode")
    desc.bones[i] = {
      name = name, parent = parent,
      x = opt_number(b.x, p, "x", 0), y = opt_number(b.y, p, "y", 0),
      rotation = opt_number(b.rotation, p, "rotation", 0),
      scale_x = opt_number(b.scaleX, p, "scaleX", 1),
      scale_y = opt_number(b.scaleY, p, "scaleY", 1),
      shear_x = opt_number(b.shearX, p, "shearX", 0),
      shear_y = opt_number(b.shearY, p, "shearY", 0),
      length = opt_number(b.length, p, "length", 0),
      inherit = inherit,
    }
    look.bone[name] = i
    look.bone_names[i] = name
  end
end

local function read_slots(doc, desc, look)
  local list = doc.slots
  if E.absent(list) then list = {} end
  E.array(list, "slots", "slots")
  for i, s in ipairs(list) do
    -- (checked without making a path unless it is wrong: a file may hold
    -- a million slots)
    local p = index("slots", i)
    if type(s) ~= "table" or s[1] ~= nil then E.object(s, p, "a slot") end
    local name = s.name
    if type(name) ~= "string" then E.string(name, key(p, "name"), "name") end
    if look.slot[name] then fail(key(p, "name"), "two slots are named '%s' (slots %d and %d)", shown(name), look.slot[name], i) end
    local bi = look.bone[s.bone] or ref(s.bone, look.bone, look.bone_names, key(p, "bone"), "bone")
    local blend = E.absent(s.blend) and "normal" or s.blend
    if not BLEND_SET[blend] then E.enum(blend, BLENDS, key(p, "blend"), "blend mode") end
    desc.slots[i] = {
      name = name, bone = look.bone_names[bi],
      color = opt_color(s.color, p, "color", 4, { 1, 1, 1, 1 }),
      dark = opt_color(s.dark, p, "dark", 3, nil),
      attachment = opt_string(s.attachment, p, "attachment"),
      blend = blend,
      attachment_names = {},
    }
    look.slot[name] = i
    look.slot_names[i] = name
  end
end

-- The deform components of an attachment: unweighted 2 per vertex,
-- weighted 2 per weight entry (the order of Spine's layout).
local function weighted(att, verts, n, nbones)
  local i, entries = 1, 0
  for v = 1, n do
    local c = verts[i]
    if c == nil then
      return nil, string.format("vertex %d of %d: the weighted vertices end early (%d numbers)", v, n, #verts)
    end
    if c % 1 ~= 0 or c < 1 then
      return nil, string.format("vertex %d: the bone count must be a whole number >= 1, got %s", v, E.num(c))
    end
    for _ = 1, c do
      local b = verts[i + 1]
      if b == nil or verts[i + 4] == nil then
        return nil, string.format("vertex %d of %d: the weighted vertices end early (%d numbers)", v, n, #verts)
      end
      if b % 1 ~= 0 or b < 0 or b >= nbones then
        return nil, string.format("vertex %d: bone index %s is not a bone (0 to %d)", v, E.num(b), nbones - 1)
      end
      i = i + 4
      entries = entries + 1
    end
    i = i + 1
  end
  if i - 1 ~= #verts then
    return nil, string.format("the weighted vertices of %d uvs pairs take %d numbers, the array has %d", n, i - 1, #verts)
  end
  att.deform_count = 2 * entries
  return true
end

-- n vertices' numbers: 2 each (unweighted), else Spine's weighted layout.
local function layout(att, verts, n, nbones)
  if #verts == 2 * n then
    att.weighted = false
    att.deform_count = #verts
    return true
  end
  att.weighted = true
  return weighted(att, verts, n, nbones)
end

-- The region name of frame number `number` of a sequence on path `path`:
-- the number written with at least `digits` digits.
function M.frame_path(path, number, digits)
  local n = string.format("%d", number)
  return path .. string.rep("0", digits - #n) .. n
end

-- A region's or mesh's sequence: { count, start, digits, setup_index,
-- path (the attachment's, which the frames number) }, or nil and why it
-- cannot be read.
local MAX_DIGITS = 20
local function read_sequence(s, path, p)
  local sp = key(p, "sequence")
  if type(s) ~= "table" or s[1] ~= nil then E.object(s, sp, "a sequence") end
  local function whole(f, default, lo, hi)
    local v = opt_number(s[f], sp, f, default)
    if v == nil then return nil, string.format("sequence: %s is required", f) end
    if v % 1 ~= 0 or v < lo or v > hi then
      return nil, string.format("sequence: %s must be a whole number from %d to %d, got %s", f, lo, hi, E.num(v))
    end
    return v
  end
  local count, why = whole("count", nil, 1, 1e9)
  if not count then return nil, why end
  local start, digits, setup
  start, why = whole("start", 1, 0, 1e9)
  if not start then return nil, why end
  digits, why = whole("digits", 0, 0, MAX_DIGITS)
  if not digits then return nil, why end
  -- (the exports write `setup`, as the files converted from .skel by
  -- tools show; `setupIndex`, the runtimes' name of it, is read when
  -- `setup` is left out)
  setup, why = whole(s.setup == nil and s.setupIndex ~= nil and "setupIndex" or "setup", 0, 0, count - 1)
  if not setup then return nil, why end
  return { count = count, start = start, digits = digits, setup_index = setup, path = path }
end

-- One attachment, or nil and why it was skipped (the rest still plays).
local function read_attachment(a, name, p, look, ctx)
  if type(a) ~= "table" or a[1] ~= nil then E.object(a, p, "an attachment") end
  local ty = E.absent(a.type) and "region" or a.type
  if not TYPE_SET[ty] then E.enum(ty, TYPES, key(p, "type"), "attachment type") end
  local att = { type = ty, name = name }
  att.path = opt_string(a.path, p, "path") or (opt_string(a.name, p, "name") or name)
  if ty == "region" then
    att.x = opt_number(a.x, p, "x", 0)
    att.y = opt_number(a.y, p, "y", 0)
    att.rotation = opt_number(a.rotation, p, "rotation", 0)
    att.scale_x = opt_number(a.scaleX, p, "scaleX", 1)
    att.scale_y = opt_number(a.scaleY, p, "scaleY", 1)
    att.width = opt_number(a.width, p, "width", 32)
    att.height = opt_number(a.height, p, "height", 32)
    att.color = opt_color(a.color, p, "color", 4, { 1, 1, 1, 1 })
  elseif ty == "mesh" then
    local uvs = numbers(a.uvs, key(p, "uvs"), "uvs")
    local verts = numbers(a.vertices, key(p, "vertices"), "vertices")
    local tris = numbers(a.triangles, key(p, "triangles"), "triangles")
    if #uvs % 2 ~= 0 then return nil, string.format("%d uvs: not pairs", #uvs) end
    local n = #uvs / 2
    ctx.vertices(n, p)
    att.uvs, att.vertices, att.triangles = uvs, verts, tris
    local ok, why = layout(att, verts, n, #look.bone_names)
    if not ok then return nil, why end
    if #tris % 3 ~= 0 then return nil, string.format("%d triangle indices: not a multiple of 3", #tris) end
    for i = 1, #tris do
      local t = tris[i]
      if t % 1 ~= 0 or t < 0 or t >= n then
        return nil, string.format("triangles[%d]: %s is not a vertex (0 to %d)", i, E.num(t), n - 1)
      end
    end
    att.hull = opt_number(a.hull, p, "hull", 0)
    if att.hull > n then return nil, string.format("hull %s is more than the %d vertices", E.num(att.hull), n) end
    if not E.absent(a.edges) then att.edges = numbers(a.edges, key(p, "edges"), "edges") end
    att.width = opt_number(a.width, p, "width", 0)
    att.height = opt_number(a.height, p, "height", 0)
    att.color = opt_color(a.color, p, "color", 4, { 1, 1, 1, 1 })
  elseif ty == "linkedmesh" then
    att.parent = E.string(a.parent, key(p, "parent"), "parent")
    att.skin = opt_string(a.skin, p, "skin") or "default"
    local d = a.timelines
    if E.absent(d) then d = a.deform end
    att.deform = opt_bool(d, p, E.absent(a.timelines) and "deform" or "timelines", true)
    att.width = opt_number(a.width, p, "width", 0)
    att.height = opt_number(a.height, p, "height", 0)
    att.color = opt_color(a.color, p, "color", 4, { 1, 1, 1, 1 })
  elseif ty == "point" then
    att.x = opt_number(a.x, p, "x", 0)
    att.y = opt_number(a.y, p, "y", 0)
    att.rotation = opt_number(a.rotation, p, "rotation", 0)
    att.path = nil
  else
    -- boundingbox, clipping, path: a vertex list (weighted like a mesh's)
    local verts = numbers(a.vertices, key(p, "vertices"), "vertices")
    local n = opt_number(a.vertexCount, p, "vertexCount", #verts / 2)
    if n % 1 ~= 0 or n < 0 then return nil, string.format("vertexCount %s is not a count", E.num(n)) end
    ctx.vertices(n, p)
    att.vertices = verts
    local ok, why = layout(att, verts, n, #look.bone_names)
    if not ok then return nil, why end
    att.path = nil
    if ty == "clipping" and not E.absent(a["end"]) then
      local si = ref(a["end"], look.slot, look.slot_names, key(p, "end"), "slot")
      att["end"] = look.slot_names[si]
    end
    if ty == "path" then
      att.closed = opt_bool(a.closed, p, "closed", false)
      att.constant_speed = opt_bool(a.constantSpeed, p, "constantSpeed", true)
      if not E.absent(a.lengths) then att.lengths = numbers(a.lengths, key(p, "lengths"), "lengths") end
    end
    if not E.absent(a.color) then att.color = opt_color(a.color, p, "color", 4) end
  end
  if (ty == "region" or ty == "mesh") and not E.absent(a.sequence) then
    local seq, why = read_sequence(a.sequence, att.path, p)
    if not seq then return nil, why end
    -- (each frame draws the attachment's vertices with its own region's
    -- uvs: counted as vertices, a region's 4, beyond the first frame's)
    ctx.vertices((seq.count - 1) * (ty == "mesh" and #att.uvs / 2 or 4), key(p, "sequence"), "attachments' frames")
    att.sequence = seq
    att.path = M.frame_path(seq.path, seq.start + seq.setup_index, seq.digits)
  end
  return att
end

local function read_skins(doc, desc, look, ctx)
  local list = doc.skins
  if E.absent(list) then list = {} end
  if type(list) == "table" and next(list) ~= nil and not E.is_array(list) then
    fail("skins", "skins must be an array of skins (Spine 3.8 and later), got an object (the 3.7 layout)")
  end
  E.array(list, "skins", "skins")
  for i, s in ipairs(list) do
    local p = index("skins", i)
    E.object(s, p, "a skin")
    local name = E.string(s.name, key(p, "name"), "name")
    if look.skin[name] then fail(key(p, "name"), "two skins are named '%s'", shown(name)) end
    local skin = { name = name, attachments = {} }
    for _, f in ipairs { "bones", "ik", "transform", "path", "physics" } do
      if not E.absent(s[f]) then skin[f] = s[f] end
    end
    local atts = s.attachments
    if not E.absent(atts) then
      E.object(atts, key(p, "attachments"), "attachments")
      local slots = {}
      for sname in pairs(atts) do slots[#slots + 1] = sname end
      byteorder.sort(slots)
      for _, sname in ipairs(slots) do
        local sp = key(key(p, "attachments"), sname)
        if not look.slot[sname] then ref(sname, look.slot, look.slot_names, sp, "slot") end
        E.object(atts[sname], sp, "a slot's attachments")
        local names = {}
        for an in pairs(atts[sname]) do names[#names + 1] = an end
        byteorder.sort(names)
        local out = {}
        for _, an in ipairs(names) do
          local ap = key(sp, an)
          local att, why = read_attachment(atts[sname][an], an, ap, look, ctx)
          if att then
            out[an] = att
          else
            ctx.warn(ap, "attachment skipped: " .. why)
          end
        end
        skin.attachments[sname] = out
      end
    end
    desc.skins[i] = skin
    look.skin[name] = i
    look.skin_names[i] = name
  end
  -- linked meshes: their parent mesh, in its skin and the same slot
  for i, skin in ipairs(desc.skins) do
    for sname, atts in pairs(skin.attachments) do
      for an, att in pairs(atts) do
        if att.type == "linkedmesh" then
          local p = key(key(key(index("skins", i), "attachments"), sname), an)
          local si = look.skin[att.skin]
          local parent = si and desc.skins[si].attachments[sname] and desc.skins[si].attachments[sname][att.parent]
          if not si then
            ctx.warn(key(p, "skin"), string.format("linked mesh skipped: unknown skin '%s'%s", shown(att.skin),
              hint(att.skin, look.skin_names)))
            atts[an] = nil
          elseif not parent or parent.type ~= "mesh" then
            ctx.warn(key(p, "parent"), string.format("linked mesh skipped: no mesh '%s' for slot '%s' in skin '%s'",
              shown(att.parent), shown(sname), shown(att.skin)))
            atts[an] = nil
          else
            att.deform_count = parent.deform_count
            att.parent_mesh = parent
          end
        end
      end
    end
  end
  for _, skin in ipairs(desc.skins) do
    for _, atts in pairs(skin.attachments) do
      for _, att in pairs(atts) do att.parent_mesh = nil end
    end
  end
end

-- The bone names of a constraint (no bone twice: the 2D skeleton would
-- pose it twice).
local function bone_list(v, p, look)
  E.array(v, p, "bones")
  if #v == 0 then fail(p, "a constraint needs at least one bone") end
  local out, seen = {}, {}
  for i = 1, #v do
    out[i] = look.bone_names[ref(v[i], look.bone, look.bone_names, index(p, i), "bone")]
    if seen[out[i]] then fail(index(p, i), "bone '%s' twice in one constraint", shown(out[i])) end
    seen[out[i]] = true
  end
  return out
end

-- below(a, b): whether bone a is bone b or below it (names), in O(1), by
-- anim.skeleton2d's own test (each bone's interval of one depth-first walk).
local function below_test(desc, look)
  local list = {}
  for i, b in ipairs(desc.bones) do list[i] = { parent = b.parent and look.bone[b.parent] } end
  local below = skeleton2d.intervals(list)
  return function(a, b) return below(look.bone[a], look.bone[b]) end
end

-- What the 2D skeleton refuses of a constraint (anim.skeleton2d's rules),
-- with the file's path: a name twice in one kind, a target that is a
-- constrained bone or below one.
local function check_constraint(c, p, bones, target, names, kind, list, below)
  if names[c.name] then
    fail(key(p, "name"), "two %s are named '%s' (%s %d and %d)", kind, shown(c.name), list, names[c.name], c.index)
  end
  for _, b in ipairs(bones) do
    if below(target, b) then
      fail(key(p, "target"), "the target '%s' cannot be a constrained bone or below one ('%s')", shown(target), shown(b))
    end
  end
end

local function read_constraints(doc, desc, look, ver, ctx)
  local below = below_test(desc, look)
  local ik = doc.ik
  if not E.absent(ik) then
    E.array(ik, "ik", "ik")
    for i, c in ipairs(ik) do
      local p = index("ik", i)
      E.object(c, p, "an IK constraint")
      local bones = bone_list(c.bones, key(p, "bones"), look)
      if #bones > 2 then fail(key(p, "bones"), "an IK constraint has one or two bones, got %d", #bones) end
      if bones[2] and desc.bones[look.bone[bones[2]]].parent ~= bones[1] then
        fail(index(key(p, "bones"), 2), "the second bone of an IK constraint is a child of the first ('%s'), got '%s'",
          shown(bones[1]), shown(bones[2]))
      end
      local name = E.string(c.name, key(p, "name"), "name")
      local target = look.bone_names[ref(c.target, look.bone, look.bone_names, key(p, "target"), "bone")]
      check_constraint({ name = name, index = i }, p, { bones[1] }, target, look.ik, "IK constraints", "ik", below)
      desc.ik[i] = {
        name = name, order = opt_number(c.order, p, "order", 0), bones = bones,
        target = target,
        mix = opt_number(c.mix, p, "mix", 1),
        softness = opt_number(c.softness, p, "softness", 0),
        bend = opt_bool(c.bendPositive, p, "bendPositive", true) and 1 or -1,
        compress = opt_bool(c.compress, p, "compress", false),
        stretch = opt_bool(c.stretch, p, "stretch", false),
        uniform = opt_bool(c.uniform, p, "uniform", false),
      }
      look.ik[name] = i
      look.ik_names[i] = name
    end
  end
  local tc = doc.transform
  if not E.absent(tc) then
    E.array(tc, "transform", "transform")
    for i, c in ipairs(tc) do
      local p = index("transform", i)
      E.object(c, p, "a transform constraint")
      local name = E.string(c.name, key(p, "name"), "name")
      local function n(f, d) return opt_number(c[f], p, f, d) end
      local t = {
        name = name, order = n("order", 0), bones = bone_list(c.bones, key(p, "bones"), look),
        target = look.bone_names[ref(c.target, look.bone, look.bone_names, key(p, "target"), "bone")],
        offset_rotation = n("rotation", 0), offset_x = n("x", 0), offset_y = n("y", 0),
        offset_scale_x = n("scaleX", 0), offset_scale_y = n("scaleY", 0), offset_shear_y = n("shearY", 0),
        ["local"] = opt_bool(c["local"], p, "local", false),
        relative = opt_bool(c.relative, p, "relative", false),
      }
      if ver < 4 then
        t.mix_rotate = n("rotateMix", 1)
        t.mix_x = n("translateMix", 1)
        t.mix_y = t.mix_x
        t.mix_scale_x = n("scaleMix", 1)
        t.mix_scale_y = t.mix_scale_x
        t.mix_shear_y = n("shearMix", 1)
      else
        t.mix_rotate = n("mixRotate", 1)
        t.mix_x = n("mixX", 1)
        t.mix_y = n("mixY", t.mix_x)
        t.mix_scale_x = n("mixScaleX", 1)
        t.mix_scale_y = n("mixScaleY", t.mix_scale_x)
        t.mix_shear_y = n("mixShearY", 1)
      end
      check_constraint({ name = name, index = i }, p, t.bones, t.target, look.transform, "transform constraints",
        "transform", below)
      desc.transforms[i] = t
      look.transform[name] = i
      look.transform_names[i] = name
    end
  end
  -- kept as data: played by no stage yet
  local kept = {}
  for _, f in ipairs { "path", "physics" } do
    local v = doc[f]
    if not E.absent(v) then
      E.array(v, f, f)
      local field = f == "path" and "paths" or "physics"
      desc[field] = v
      for i, c in ipairs(v) do
        local nm = type(c) == "table" and type(c.name) == "string" and c.name or ("#" .. i)
        kept[#kept + 1] = f .. " '" .. shown(nm) .. "'"
        look[f][nm] = true
      end
    end
  end
  if #kept > 0 then
    ctx.warn("", "kept as data, not played: " .. E.shown_list(kept) .. " (path and physics constraints and their timelines)")
  end
end

local function read_events(doc, desc)
  local ev = doc.events
  if E.absent(ev) then return end
  E.object(ev, "events", "events")
  for name, e in pairs(ev) do
    local p = key("events", name)
    E.object(e, p, "an event")
    desc.events[name] = {
      int = opt_number(e.int, p, "int", 0),
      float = opt_number(e.float, p, "float", 0),
      string = opt_string(e.string, p, "string") or "",
      audio = opt_string(e.audio, p, "audio"),
      volume = opt_number(e.volume, p, "volume", 1),
      balance = opt_number(e.balance, p, "balance", 0),
    }
  end
end

-- The description and the lookups the timelines need; raises a failure.
function M.read(doc, version, ver, ctx)
  local sk = doc.skeleton
  local desc = {
    format = "spine", version = version, y_down = false,
    bones = {}, slots = {}, skins = {}, draw_orders = {}, ik = {}, transforms = {}, events = {},
  }
  for _, f in ipairs { "x", "y", "width", "height" } do
    if type(sk[f]) == "number" then desc[f] = sk[f] end
  end
  local look = {
    bone = {}, bone_names = {}, slot = {}, slot_names = {}, skin = {}, skin_names = {},
    ik = {}, ik_names = {}, transform = {}, transform_names = {}, path = {}, physics = {},
  }
  read_bones(doc, desc, look)
  read_slots(doc, desc, look)
  read_skins(doc, desc, look, ctx)
  read_constraints(doc, desc, look, ver, ctx)
  read_events(doc, desc)
  return desc, look
end

return M
