-- spec/offsets2d.lua: an imported 2D clip's sample (clip:sample(t): each
-- bone's channels as offsets from its setup pose, as the Spine and
-- DragonBones importers write them) made the bone's local values, as the
-- animator poses them (docs/format-reference.md, "Posing a joint": T(p0 +
-- p) R(q0 q) S(s0 s); on an axis whose setup scale is 0, s - 1), for the
-- specs that compare those with values computed from the format's rules.
require("anim.base.luajit").no_traversal_traces()
local M = {}

-- absolute(sample, desc) -> the same table, its joints' channels made local values
function M.absolute(sample, desc)
  for _, b in ipairs(desc.bones) do
    local j = sample[b.name]
    if j then
      local p, q, s = j.position, j.rotation, j.scale
      if p then p[1], p[2] = (b.x or 0) + p[1], (b.y or 0) + p[2] end
      if q then
        local h = math.rad(b.rotation or 0) / 2
        local sn, c = math.sin(h), math.cos(h)
        q[1], q[2], q[3], q[4] = c * q[1] - sn * q[2], c * q[2] + sn * q[1], c * q[3] + sn * q[4], c * q[4] - sn * q[3]
      end
      if s then
        local sx, sy = b.scale_x or 1, b.scale_y or 1
        s[1] = sx ~= 0 and sx * s[1] or s[1] - 1
        s[2] = sy ~= 0 and sy * s[2] or s[2] - 1
      end
    end
  end
  return sample
end

-- The descriptions of the clips of the results registered (weak keys).
local desc_of = setmetatable({}, { __mode = "k" })

-- register(result) -> result: its clips (and each armature's) known to M.sample
function M.register(r)
  local function desc(t)
    -- (an importer module's own result holds the table as `skeleton`)
    return t.description or (type(t.skeleton) == "table" and t.skeleton.bones and t.skeleton)
  end
  if type(r) ~= "table" then return r end
  for _, c in pairs(r.clips or {}) do desc_of[c] = desc(r) end
  for _, a in pairs(r.armatures or {}) do
    for _, c in pairs(a.clips or {}) do desc_of[c] = desc(a) end
  end
  return r
end

-- sample(clip, t): clip:sample(t), a registered clip's made local values
function M.sample(clip, t)
  local s = clip:sample(t)
  local d = desc_of[clip]
  if d then M.absolute(s, d) end
  return s
end

return M
