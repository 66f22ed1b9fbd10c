-- import/dragonbones/atlas.lua: DragonBones' TextureAtlas JSON (the
-- `_tex.json` beside a `_ske.json`): { name, imagePath, width, height,
-- SubTexture = [{ name, x, y, width, height, frameX, frameY, frameWidth,
-- frameHeight, rotated }] }, as the format's parser reads it
-- (DragonBonesJS ObjectDataParser.parseTextureAtlasData).
--
-- Each region as the contract's `region` table: page (the image path), x,
-- y, width, height on the page, u, v, u2, v2 (its corners over the page's
-- size when the atlas gives it), rotate (the region is stored turned a
-- quarter: `rotated`), offset_x, offset_y (where the trimmed region sits
-- in the original image: -frameX, -frameY) and original_width/height
-- (frameWidth/Height, else the region's own).
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local F = require "anim.import.dragonbones.fields"

local M = {}

local key, index, fail = E.key, E.index, E.fail

-- The regions by name of a decoded TextureAtlas JSON; raises a failure.
function M.read(doc)
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected DragonBones' TextureAtlas JSON (an object with SubTexture), got %s", E.describe(doc))
  end
  if E.absent(doc.SubTexture) then
    if not E.absent(doc.armature) then
      fail("", "this is a DragonBones skeleton (_ske.json), not its TextureAtlas JSON (_tex.json)")
    end
    fail("SubTexture", "a TextureAtlas JSON needs its SubTexture list")
  end
  local page = F.string(doc, "imagePath", "", F.string(doc, "name", "", ""))
  local pw, ph = F.number(doc, "width", "", nil), F.number(doc, "height", "", nil)
  local regions, count, at = {}, 0, {}
  for i, s in ipairs(F.array(doc, "SubTexture", "")) do
    local p = index("SubTexture", i)
    E.object(s, p, "SubTexture")
    local name = E.string(s.name, key(p, "name"), "name")
    if regions[name] then
      fail(key(p, "name"), "two regions are named '%s' (SubTexture[%d] and [%d])", E.shown(name), at[name], i)
    end
    at[name] = i
    local r = {
      page = page,
      x = F.number(s, "x", p, 0), y = F.number(s, "y", p, 0),
      width = F.number(s, "width", p, 0), height = F.number(s, "height", p, 0),
      rotate = F.boolean(s, "rotated", p, false),
    }
    if r.width < 0 or r.height < 0 then fail(p, "a region's width and height must be >= 0") end
    r.offset_x = -F.number(s, "frameX", p, 0)
    r.offset_y = -F.number(s, "frameY", p, 0)
    r.original_width = F.number(s, "frameWidth", p, r.width)
    r.original_height = F.number(s, "frameHeight", p, r.height)
    if pw and ph and pw > 0 and ph > 0 then
      -- (a rotated region lies on the page height-by-width)
      local w, h = r.width, r.height
      if r.rotate then w, h = h, w end
      r.u, r.v, r.u2, r.v2 = r.x / pw, r.y / ph, (r.x + w) / pw, (r.y + h) / ph
      -- (each number finite, not always what they make: 1e308 pixels over
      -- a page of 1e-300; refused as the Spine atlas's are)
      if not (E.finite(r.u) and E.finite(r.v) and E.finite(r.u2) and E.finite(r.v2)) then
        fail(p, "the region '%s': its texture coordinates are not finite (x %s, y %s, width %s, height %s on a page"
          .. " of %s x %s)", E.shown(name), E.num(r.x), E.num(r.y), E.num(r.width), E.num(r.height), E.num(pw), E.num(ph))
      end
    end
    regions[name] = r
    count = count + 1
  end
  return { page = page, width = pw, height = ph, regions = regions, count = count }
end

return M
