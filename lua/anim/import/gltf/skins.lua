-- import/gltf/skins.lua: what the glTF importer reads of a skin beyond its
-- joints (init.lua makes the rig): its inverse bind matrices, which the
-- rig keeps for animator:skin.
local compat = require "anim.base.compat"
local E = require "anim.base.errors"
local F = require "anim.import.gltf.file"
local A = require "anim.import.gltf.accessor"

local M = {}
local fail, at = E.fail, F.at

-- A skin's inverse bind matrices, one a joint (16 numbers, column-major),
-- or nil (identities).  Specification.adoc, "Skins": skin.inverseBindMatrices
-- is "the index of the accessor containing the floating-point 4x4
-- inverse-bind matrices.  Its accessor.count property MUST be greater than
-- or equal to the number of elements of the joints array.  When undefined,
-- each matrix is a 4x4 identity matrix."  Matrices that cannot be read
-- are left out with a warning (the rig still plays its clips; its
-- skinning matrices are then the world transforms).
function M.inverse_binds(ctx, def, sp, n, warn)
  if E.absent(def.inverseBindMatrices) then return nil end
  local ok, res = pcall(function()
    local acc = F.index(ctx.doc, def.inverseBindMatrices, at(sp, "inverseBindMatrices"), "accessors")
    local a = A.shape(ctx, acc)
    if a.type ~= "MAT4" then fail(at(a.path, "type"), "inverse bind matrices must be MAT4, got %s", a.type) end
    if a.count < n then
      fail(at(a.path, "count"), "%d inverse bind matrices for %d joints: one a joint is needed", a.count, n)
    end
    local v, list = A.read(ctx, acc, n).values, {}
    for k = 1, n do list[k] = { compat.unpack(v, 16 * (k - 1) + 1, 16 * k) } end
    return list
  end)
  if ok then return res end
  if not E.is_failure(res) then error(res, 0) end
  warn(ctx, res.path, "%s: the skin's inverse bind matrices are left out (identities)", res.msg)
end

return M
