-- fuzz/atlas.lua: the driver of the fuzz_atlas target: the Spine atlas
-- reader (fuzz/README.md).
--
-- run(bytes): the bytes are an atlas text (either layout).  Reading it
-- must give pages and regions or `nil, message` naming the atlas, never
-- raise, within the budget; every number of a region read is finite.  An
-- atlas that reads is then given to the import of the hero fixture
-- (spec/fixtures/spine/hero-4.1.json), whose attachments take its regions
-- (or warn of the missing ones), and the result is used as fuzz_spine
-- uses one.
local D = require "fuzz.common2d"
local spine = require "anim.import.spine"
local C = require "fuzz.common"
local anim = require "anim"

local M = { budget = D.budget }
local NAME = C.NAME

local HERO
do
  local root = rawget(_G, "ANIM_ROOT") or os.getenv("ANIM_ROOT") or "."
  local f = io.open(root .. "/spec/fixtures/spine/hero-4.1.json", "rb")
  if f then HERO = f:read("*a"); f:close() end
end

local FIELDS = { "x", "y", "width", "height", "u", "v", "u2", "v2", "rotate", "offset_x", "offset_y",
  "original_width", "original_height", "index" }

function M.run(data)
  local atlas, err = D.timed("the atlas reader", spine.atlas, data, NAME)
  if not atlas then return D.refused("the atlas reader", err, NAME) end
  if type(atlas.pages) ~= "table" or type(atlas.regions) ~= "table" or type(atlas.order) ~= "table" then
    C.bug("the atlas reader gave no pages, regions and order")
  end
  for _, name in ipairs(atlas.order) do
    local r = atlas.regions[name]
    if type(r) ~= "table" then C.bug("the atlas lists region '%s' but has none of that name", name) end
    for _, f in ipairs(FIELDS) do
      if r[f] ~= nil and not D.finite(r[f]) then C.bug("region '%s': %s is %s", name, f, tostring(r[f])) end
    end
  end
  if not HERO then return end
  local r, why = D.timed("anim.import_spine with the atlas", spine.decode, HERO, "hero.json", atlas)
  if not r then
    if not (type(why) == "string" and why:find("^hero%.json: ")) then C.bug("the hero fixture: %s", tostring(why)) end
    return
  end
  D.use("anim.import_spine", r, anim.limits, spine.MAX_WARNINGS + 1)
end

return M
