-- spec/dragonbones_world.lua: an imported DragonBones armature played by
-- the module -- an animator of its skeleton playing a clip from its start
-- (no fade), advanced once to the time asked -- against DragonBones' own
-- runtime (spec/data/dragonbones_*.json, made by tools/dragonbones-
-- reference), for spec/dragonbones_spec.lua and
-- spec/dragonbones_demos_spec.lua: every bone's world matrix
-- (animator:world2d: the 2D stage plays DragonBones' inherit flags and IK
-- solver, csrc/core/dragonbones2d.c), every slot's display and colour
-- (animator:slot) and the draw order (animator:draw_order).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"

local M = {}

-- The animator of skeleton `sk` at time t of clip (nil: the setup pose).
function M.posed(sk, clip, t)
  local a = anim.animator(sk)
  if clip then a:play(clip, { fade = 0 }) end
  a:update(clip and t or 0)
  return a
end

-- Bone `name`'s world matrix in DragonBones' order { a, b, c, d, tx, ty }
-- (x' = a·x + c·y + tx): world2d gives Spine's (x' = a·x + b·y + x).
function M.world(a, name)
  local wa, wb, wc, wd, x, y = a:world2d(name)
  return { wa, wc, wb, wd, x, y }
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
-- for the setup pose.  `ik` tells the bones an IK constraint moves (the
-- reference's ik_bones) by check's what "ik bone" instead of "bone".
function M.compare(r, ref, raw, null, check)
  for aname, a in pairs(ref.armatures) do
    local ra = assert(r.armatures[aname], aname)
    local raw_arm
    for _, x in ipairs(raw.armature) do if x.name == aname then raw_arm = x end end
    local ik = {}
    for _, b in ipairs(a.ik_bones) do ik[b] = true end
    local function one(label, clip, t, sample, kind)
      local an = M.posed(ra.skeleton, clip, t)
      for name, m in pairs(sample.bones) do
        local got = M.world(an, name)
        for i = 1, 6 do
          check(label .. " bone " .. name .. "[" .. i .. "]", ik[name] and "ik bone" or "bone", got[i], m[i], kind)
        end
      end
      for _, s in ipairs(ra.description.slots) do
        local want = sample.slots[s.name]
        local got = { an:slot(s.name) }
        check(label .. " slot " .. s.name, "slot", got[1], display_name(raw_arm, s.name, want.display, null), kind)
        for i = 1, 4 do
          check(label .. " colour of " .. s.name .. "[" .. i .. "]", "colour", got[i + 1], want.color[i], kind)
        end
      end
      check(label .. " draw order", "order", table.concat(an:draw_order(), ","), table.concat(sample.order, ","), kind)
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
