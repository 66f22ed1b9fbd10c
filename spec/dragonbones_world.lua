-- spec/dragonbones_world.lua: the world matrices of an imported
-- DragonBones armature at a time of a clip, composed here from the clip's
-- sampled local pose (for spec/dragonbones_spec.lua, which compares them
-- with DragonBones' own runtime: spec/data/dragonbones_*.json).
--
-- The local matrix of a bone, Spine-style from the contract's fields (y
-- down, the file's axes): columns sx·(cos r, sin r) and sy·(−sin(r + shy),
-- cos(r + shy)), r = rotation, shy = shear_y (DragonBones' skX − skY), in
-- DragonBones' order { a, b, c, d, tx, ty }: x' = a·x + c·y + tx.  Composed
-- down the parents by the rules of DragonBones' runtime for its inherit
-- flags (Bone._updateGlobalTransformMatrix of DragonBonesJS, armature not
-- flipped): inheritScale: the local matrix (its rotation less the parent's
-- decomposed world rotation without inheritRotation) times the parent's;
-- without inheritScale: the position through the parent's matrix, the
-- rotation plus the parent's decomposed rotation (reflected under a
-- reflecting parent, skew turned half a turn with inheritReflection), the
-- bone's own scale.  Without inheritTranslation the position is the
-- bone's own.
local O = require "spec.offsets2d"

local M = {}

local rad = math.pi / 180
-- (Lua 5.1 and LuaJIT: math.atan2; 5.4: two-argument math.atan)
local atan2 = math.atan2 or math.atan -- luacheck: ignore 143

local function to_matrix(rot, skew, sx, sy, x, y)
  -- (Transform.toMatrix: radians)
  local a, b = math.cos(rot), math.sin(rot)
  local c, d = -math.sin(skew + rot), math.cos(skew + rot)
  return { a * sx, b * sx, c * sy, d * sy, x, y }
end

-- this · parent (apply this, then parent): Matrix.concat
local function concat(m, p)
  return {
    m[1] * p[1] + m[2] * p[3], m[1] * p[2] + m[2] * p[4],
    m[3] * p[1] + m[4] * p[3], m[3] * p[2] + m[4] * p[4],
    m[5] * p[1] + m[6] * p[3] + p[5], m[5] * p[2] + m[6] * p[4] + p[6],
  }
end

-- Transform.fromMatrix's rotation and scaleX of a world matrix, `backup`
-- the scaleX the transform held before (the bone's local one).
local function decompose(m, backup)
  local r = math.atan(m[2] / m[1])
  local sx
  if r > -math.pi / 4 and r < math.pi / 4 then sx = m[1] / math.cos(r) else sx = m[2] / math.sin(r) end
  if backup >= 0 and sx < 0 then sx, r = -sx, r - math.pi end
  return r, sx
end

-- The local pose of each bone at time t of clip (nil: the setup pose):
-- name -> { x, y, rotation, scale_x, scale_y, shear_y } (degrees).
function M.pose(desc, clip, t)
  -- (the clip's channels are offsets from the setup pose, made local values)
  local s = clip and O.absolute(clip:sample(t), desc) or {}
  local props = s.properties or {}
  local out = {}
  for _, b in ipairs(desc.bones) do
    local p = { x = b.x, y = b.y, rotation = b.rotation, scale_x = b.scale_x, scale_y = b.scale_y, shear_y = b.shear_y }
    local j = s[b.name]
    if j then
      if j.position then p.x, p.y = j.position[1], j.position[2] end
      if j.rotation then p.rotation = 2 * atan2(j.rotation[3], j.rotation[4]) / rad end
      if j.scale then p.scale_x, p.scale_y = j.scale[1], j.scale[2] end
    end
    local sh = props[b.name .. ".shear"]
    if sh then p.shear_y = sh[2] end
    out[b.name] = p
  end
  return out
end

-- name -> world matrix { a, b, c, d, tx, ty } of the pose.
-- TODO(lead): use animator:world2d once merged (core2d's 2D stage), with
-- the inherit modes the importer maps DragonBones' flags onto.
function M.world(desc, pose)
  local world = {}
  for _, b in ipairs(desc.bones) do
    local l = pose[b.name]
    local rot, skew = l.rotation * rad, l.shear_y * rad
    local m
    local parent = b.parent and world[b.parent]
    local f = b.dragonbones
    if not parent then
      m = to_matrix(rot, skew, l.scale_x, l.scale_y, l.x, l.y)
    elseif f.inherit_scale then
      if not f.inherit_rotation then
        local pr = decompose(parent, pose[b.parent].scale_x)
        rot = rot - pr
      end
      m = concat(to_matrix(rot, skew, l.scale_x, l.scale_y, l.x, l.y), parent)
      if not f.inherit_translation then m[5], m[6] = l.x, l.y end
    else
      local x, y = l.x, l.y
      if f.inherit_translation then
        x, y = parent[1] * l.x + parent[3] * l.y + parent[5], parent[2] * l.x + parent[4] * l.y + parent[6]
      end
      if f.inherit_rotation then
        local pr, psx = decompose(parent, pose[b.parent].scale_x)
        local r = rot + pr
        if psx < 0 then r = r + math.pi end
        if parent[1] * parent[4] - parent[2] * parent[3] < 0 then
          r = r - rot * 2
          if f.inherit_reflection then skew = skew + math.pi end
        end
        rot = r
      end
      m = to_matrix(rot, skew, l.scale_x, l.scale_y, x, y)
    end
    world[b.name] = m
  end
  return world
end

-- The name of display `index` of slot `slot_name` in the default skin of
-- the file's armature `raw_armature` (nil for -1 or a null display).
local function display_name(raw_armature, slot_name, index, null)
  if index < 0 then return nil end
  for _, skin in ipairs(raw_armature.skin or {}) do
    if (skin.name or "") == "" or skin.name == "default" then
      for _, s in ipairs(skin.slot or {}) do
        if s.name == slot_name then
          local d = (s.display or {})[index + 1]
          return d ~= null and d and d.name or nil
        end
      end
    end
  end
end

-- The import `r` of a skeleton against the runtime's reference `ref` (a
-- decoded spec/data/dragonbones_*.json), `raw` the decoded skeleton file,
-- `null` its JSON null: calls check(label, what, got, want, tol_kind) for
-- every number and name the reference has -- what is "bone" (a matrix
-- element), "slot", "colour" or "order"; tol_kind "curve" for an
-- animation sample (the caller decides what a curve may cost), "exact"
-- for the setup pose.  Bones an IK constraint moves are left out.
function M.compare(r, ref, raw, null, check)
  for aname, a in pairs(ref.armatures) do
    local ra = assert(r.armatures[aname], aname)
    local desc = ra.description
    local raw_arm
    for _, x in ipairs(raw.armature) do if x.name == aname then raw_arm = x end end
    local skip = {}
    for _, b in ipairs(a.ik_bones) do skip[b] = true end
    local function one(label, clip, t, sample, kind)
      local world = M.world(desc, M.pose(desc, clip, t))
      for name, m in pairs(sample.bones) do
        if not skip[name] then
          for i = 1, 6 do check(label .. " bone " .. name .. "[" .. i .. "]", "bone", world[name][i], m[i], kind) end
        end
      end
      local props = clip and clip:sample(t).properties or {}
      for _, s in ipairs(desc.slots) do
        local want = sample.slots[s.name]
        local k = props["slot." .. s.name .. ".attachment"]
        local got = s.attachment
        if k then got = k > 0 and s.attachment_names[k] or nil end
        check(label .. " slot " .. s.name, "slot", got, display_name(raw_arm, s.name, want.display, null), kind)
        local c = props["slot." .. s.name .. ".color"] or s.color
        for i = 1, 4 do check(label .. " colour of " .. s.name .. "[" .. i .. "]", "colour", c[i], want.color[i], kind) end
      end
      local order = desc.draw_orders[props.draworder or 0]
      if not order then
        order = {}
        for i, s in ipairs(desc.slots) do order[i] = s.name end
      end
      check(label .. " draw order", "order", table.concat(order, ","), table.concat(sample.order, ","), kind)
    end
    one(aname .. " setup", nil, 0, a.setup, "exact")
    for an, anim_ref in pairs(a.animations) do
      local clip = assert(ra.clips[an], an)
      for _, s in ipairs(anim_ref.samples) do
        one(string.format("%s %s frame %d", aname, an, s.frame), clip, s.time, s, { animation = an, frame = s.frame })
      end
    end
  end
end

return M
