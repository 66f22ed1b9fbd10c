-- export/gltf/nodes.lua: the node tree the clips are written on (a rig,
-- or the clips' skeletons, or the built-in player rig) and the skin's
-- inverse bind matrices.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local mat4 = require "anim.base.mat4"
local rigmod = require "anim.format.rig"
local bind = require "anim.format.bind"
local byteorder = require "anim.base.order"

local M = {}
local fail = E.fail

-- The clips' node tree --------------------------------------------------------------------

local function info_of(c) return core.clip_info(c) end

-- The source table a clip keeps (its joints' muted flags and modifiers).
local function source_of(info)
  return info.tree or rawget(info, "source") or {}
end

-- Nodes from the clips' skeletons: { name, parent, translation, rotation,
-- scale }, the first clip naming a joint giving it.
local function skeleton_nodes(clips)
  local list, seen = {}, {}
  for _, c in ipairs(clips) do
    local sk = info_of(c).skeleton
    if sk then
      local names = {}
      for n in pairs(sk) do names[#names + 1] = n end
      byteorder.sort(names)
      for _, n in ipairs(names) do
        if not seen[n] then
          local j = sk[n]
          local t = j.translation
          if not t then
            local pp = j.parent and sk[j.parent] and sk[j.parent].position or { 0, 0, 0 }
            t = { j.position[1] - pp[1], j.position[2] - pp[2], j.position[3] - pp[3] }
          end
          seen[n] = true
          list[#list + 1] = { name = n, parent = j.parent, translation = t,
            rotation = j.rotation and rigmod.rest_quat(j.rotation, "skeleton") or { 0, 0, 0, 1 },
            scale = j.scale or { 1, 1, 1 } }
        end
      end
    end
  end
  return list
end

local function build_rig(joints, what)
  if #joints == 0 then return nil end
  local rig, err = rigmod.new({ joints = joints }, what)
  if not rig then fail("", "cannot make a node tree of %s: %s", what, err) end
  return rig
end

-- The clip joints that play on no joint of `base` (nil: there is none),
-- in the clips' order: { name = true } and the list.
local function unplayed(clips, base, have)
  local list, seen = {}, {}
  for _, c in ipairs(clips) do
    local resolved = base and bind.resolve(c, base) or {}
    for _, name in ipairs(info_of(c).joints) do
      local r = resolved[name]
      if (not r or (r.by == "unmatched" and not r.wanted)) and not have[name] and not seen[name] then
        seen[name] = true
        list[#list + 1] = name
      end
    end
  end
  return list
end

-- Does every clip joint that plays on a joint of `base` play on the joint
-- of the same name in `tree`?
local function same_bindings(clips, base, tree)
  for _, c in ipairs(clips) do
    local before, after = bind.resolve(c, base), bind.resolve(c, tree)
    for name, r in pairs(before) do
      if r.joint and after[name].joint ~= r.joint then return false end
    end
  end
  return true
end

-- The node tree: the rig's joints (or the clips' skeletons), then every clip
-- joint that plays on none of them.  Beside a rig, such a joint is placed
-- as its clip's skeleton places it, with the skeleton's joints above it
-- that the rig lacks (a model's other nodes, which a skin's rig leaves
-- out: see import/gltf/init.lua), or else as a root with no rest; without a rig it is
-- a root with no rest.  Returns the tree and, with a rig, the names of
-- the rig's joints (the skin).
local function node_tree(clips, rig)
  local joints = {}
  if rig then
    for _, j in ipairs(rig:joints()) do
      joints[#joints + 1] = { name = j.name, parent = j.parent, translation = j.translation, rotation = j.rotation,
        scale = j.scale }
    end
  else
    joints = skeleton_nodes(clips)
  end
  local base = build_rig(joints, rig and "the rig" or "the clips' skeletons")
  local have = {}
  for _, j in ipairs(joints) do have[j.name] = true end
  local extra = unplayed(clips, base, have)
  -- (clips that animate nothing: one node, for the channel every glTF
  -- animation needs)
  if #joints == 0 and #extra == 0 then extra[1] = "root" end
  local function flat()
    local list = {}
    for i, j in ipairs(joints) do list[i] = j end
    for _, name in ipairs(extra) do list[#list + 1] = { name = name, translation = { 0, 0, 0 } } end
    return list
  end
  local tree = base
  if rig and #extra > 0 then
    local skel = {}
    for _, j in ipairs(skeleton_nodes(clips)) do skel[j.name] = j end
    local list, at, placed = flat(), {}, {}
    for i = #joints + 1, #list do at[list[i].name] = i end
    for i = #joints + 1, #list do
      -- the joint and the skeleton's joints above it, up to a rig joint or
      -- one placed already
      local name = list[i].name
      while name and not placed[name] and not have[name] and skel[name] do
        local j = skel[name]
        placed[name] = true
        if at[name] then list[at[name]] = j else list[#list + 1] = j end
        name = j.parent
      end
    end
    tree = build_rig(list, "the clips' joints")
    -- (a skeleton's joint named as a rig joint a clip joint was guessed
    -- or mapped to would take that clip joint: then roots, as before)
    if not same_bindings(clips, base, tree) then tree = nil end
  end
  if (not rig or tree == nil or tree == base) and #extra > 0 then tree = build_rig(flat(), "the clips' joints") end
  local skin
  if rig then
    skin = {}
    for i, j in ipairs(joints) do skin[i] = j.name end
  end
  return tree, skin
end

-- (T * R * S and products: base/mat4.lua)
local trs_matrix, mat_mul = mat4.trs, mat4.mul

-- The inverse of an affine column-major matrix, or nil when it has none.
local function affine_inverse(m)
  local a, b, c = m[1], m[5], m[9]
  local d, e, f = m[2], m[6], m[10]
  local g, h, k = m[3], m[7], m[11]
  local det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
  if det == 0 or det ~= det then return nil end
  local i11, i12, i13 = (e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det
  local i21, i22, i23 = (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det
  local i31, i32, i33 = (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det
  local tx, ty, tz = m[13], m[14], m[15]
  return { i11, i21, i31, 0, i12, i22, i32, 0, i13, i23, i33, 0,
    -(i11 * tx + i12 * ty + i13 * tz), -(i21 * tx + i22 * ty + i23 * tz), -(i31 * tx + i32 * ty + i33 * tz), 1 }
end

-- The inverse bind matrices of the skin's joints (names): each the inverse
-- of the joint's world transform in the tree's rest pose, 16 numbers after
-- 16 (Specification.adoc, "Joint Hierarchy": a joint's world transform
-- times its inverse bind matrix is the identity at rest); nil when a rest
-- has no inverse (a scale of 0).
local function inverse_binds(tjoints, node_of, skin)
  local world = {}
  for i, j in ipairs(tjoints) do
    -- (the tree's joints come parents first)
    local m = trs_matrix(j.translation, j.rotation, j.scale)
    local p = j.parent and node_of[j.parent]
    world[i] = p and mat_mul(world[p + 1], m) or m
  end
  local out = {}
  for _, name in ipairs(skin) do
    local inv = affine_inverse(world[node_of[name] + 1])
    if not inv then return nil end
    for k = 1, 16 do out[#out + 1] = inv[k] end
  end
  return out
end

M.info_of, M.source_of, M.node_tree, M.inverse_binds = info_of, source_of, node_tree, inverse_binds

return M
