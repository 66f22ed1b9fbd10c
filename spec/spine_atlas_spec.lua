-- Spine atlases (issue 40): both layouts of the "Atlas export format" page
-- (3.8's libgdx xy/size/orig/offset, 4.x's bounds/offsets/rotate), rotated
-- and whitespace-stripped regions, two pages, and the regions given to the
-- attachments that draw them; every error and warning message.
local anim = require "anim"
local spine = require "anim.import.spine"
local H = require "spec.helper"

local DIR = H.root .. "/spec/fixtures/spine/"

local function read(path) return assert(io.open(path, "rb")):read("*a") end

describe("Spine atlases", function()
  for _, f in ipairs { "hero-3.8.atlas", "hero-4.x.atlas" } do
    it("reads pages and regions of " .. f, function()
      local a = assert(spine.atlas(read(DIR .. f), f))
      assert.are.equal(2, #a.pages)
      assert.are.equal("hero.png", a.pages[1].name)
      assert.are.same({ 128, 64 }, { a.pages[1].width, a.pages[1].height })
      assert.are.equal("hero2.png", a.pages[2].name)
      assert.are.equal("Linear, Linear", (a.pages[1].filter:gsub(",%s*", ", ")))
      assert.are.equal(15, #a.order) -- (11, and the 4.1 sequence's 4 frames)
      -- body: rotated (its 30 x 44 takes 44 x 30 of the page), stripped of
      -- whitespace (36 x 50 originally, 3, 2 from its bottom left)
      local b = a.regions.body
      assert.are.same({ page = "hero.png", name = "body", x = 2, y = 2, width = 30, height = 44, rotate = 90,
        offset_x = 3, offset_y = 2, original_width = 36, original_height = 50, index = -1,
        u = 2 / 128, v = 2 / 64, u2 = (2 + 44) / 128, v2 = (2 + 30) / 64 }, b)
      local h = a.regions.head
      assert.are.same({ 18, 20, 1, 0, 20, 20, 0 }, { h.width, h.height, h.offset_x, h.offset_y, h.original_width,
        h.original_height, h.rotate })
      assert.are.same({ 50 / 128, 2 / 64, 68 / 128, 22 / 64 }, { h.u, h.v, h.u2, h.v2 })
      -- not stripped: the original size is the size
      local r = a.regions["leg-red"]
      assert.are.same({ "hero2.png", 12, 40, 0, 0, 12, 40 }, { r.page, r.width, r.height, r.offset_x, r.offset_y,
        r.original_width, r.original_height })
      assert.are.same({ 0, 0, 12 / 64, 40 / 64 }, { r.u, r.v, r.u2, r.v2 })
      assert.are.equal(0, a.regions.leg.index)
    end)
  end

  it("reads both layouts alike", function()
    local a = assert(spine.atlas(read(DIR .. "hero-3.8.atlas"), "a"))
    local b = assert(spine.atlas(read(DIR .. "hero-4.x.atlas"), "b"))
    assert.are.same(a.order, b.order)
    for _, n in ipairs(a.order) do assert.are.same(a.regions[n], b.regions[n], n) end
  end)

  it("gives each drawn attachment its region, skins' included", function()
    local r = assert(anim.import_spine(DIR .. "hero-4.2.json", DIR .. "hero-4.x.atlas"))
    local sk = r.description.skins
    assert.are.equal("hero.png", sk[1].attachments.body.body.region.page)
    assert.are.equal(90, sk[1].attachments.body.body.region.rotate)
    assert.are.equal("head", sk[1].attachments.head.head.region.name)
    assert.are.equal("head-red", sk[2].attachments.head.head.region.name)
    assert.are.equal("hero2.png", sk[3].attachments.leg.leg.region.page)
    assert.is_nil(sk[1].attachments.hitbox.hitbox.region)
    assert.are.equal(2, #r.atlas.pages)
    -- without an atlas: no regions, no warnings about them
    local bare = assert(anim.import_spine(DIR .. "hero-4.2.json"))
    assert.is_nil(bare.description.skins[1].attachments.body.body.region)
    assert.is_nil(bare.atlas)
  end)

  it("reads CRLF lines, spaces anywhere, rotate in degrees and a page without size", function()
    local a = assert(spine.atlas("\r\n  p.png  \r\n size:10 ,20\r\nr1\r\n bounds:1,2,3,4\r\n rotate: 270\r\n"
      .. "r2\r\n xy: 0, 0\r\n size: 2, 2\r\n\r\nq.png\r\nr3\r\n bounds: 0,0,1,1\r\n", "t"))
    assert.are.same({ "p.png", 10, 20 }, { a.pages[1].name, a.pages[1].width, a.pages[1].height })
    assert.are.same({ 1 / 10, 2 / 20, (1 + 4) / 10, (2 + 3) / 20, 270 }, { a.regions.r1.u, a.regions.r1.v,
      a.regions.r1.u2, a.regions.r1.v2, a.regions.r1.rotate })
    assert.are.equal("q.png", a.regions.r3.page)
    assert.is_nil(a.regions.r3.u) -- (a page without size: no UVs)
  end)

  it("says what is wrong with an atlas, naming it and the line", function()
    local cases = {
      { "p.png\nr\n bounds: 1, 2\n", "t.atlas: line 3: bounds: expected 4 numbers separated by commas, got '1, 2'" },
      { "p.png\nr\n xy: a, 2\n", "t.atlas: line 3: xy: expected 2 numbers separated by commas, got 'a, 2'" },
      { "p.png\nr\n rotate: 45\n bounds: 0,0,1,1\n", "t.atlas: line 3: rotate: expected true, false, 0, 90, 180 or 270, got '45'" },
      { "p.png\nr\n index: 0\n", "t.atlas: the region 'r' (page 'p.png') has no bounds (nor xy and size)" },
      { "p.png\nr\n bounds: 0,0,1,1\nr\n bounds: 0,0,1,1\n", "t.atlas: line 4: the region 'r' comes twice (first on page 'p.png')" },
      { "\nsize: 1, 2\n", "t.atlas: line 2: expected a page's image name, got the field 'size'" },
      { "\n\n", "t.atlas: an atlas needs at least one page (an image name, then its fields)" },
    }
    for _, c in ipairs(cases) do
      local a, err = spine.atlas(c[1], "t.atlas")
      assert.is_nil(a)
      assert.are.equal(c[2], err)
    end
  end)

  it("refuses an import whose atlas is bad, naming the atlas", function()
    local tmp = os.tmpname()
    local f = assert(io.open(tmp, "wb"))
    f:write("p.png\nr\n bounds: 1\n")
    f:close()
    local r, err = anim.import_spine(DIR .. "hero-4.1.json", tmp)
    os.remove(tmp)
    assert.is_nil(r)
    assert.are.equal(tmp .. ": line 3: bounds: expected 4 numbers separated by commas, got '1'", err)
  end)

  it("warns of an attachment whose region the atlas lacks", function()
    local text = read(DIR .. "hero-4.1.json")
    local atlas = read(DIR .. "hero-4.x.atlas"):gsub("\nleg%-blue\n[^\n]*\n", "\n")
    local r = assert(spine.decode_text(text, "hero.json", atlas, "hero.atlas"))
    local found
    for _, w in ipairs(r.warnings) do if w.path == "skins[3].attachments.leg.leg" then found = w end end
    assert.are.same({ path = "skins[3].attachments.leg.leg",
      message = "no region 'leg-blue' in the atlas: the attachment has no image" }, found)
    assert.is_nil(r.skeleton.skins[3].attachments.leg.leg.region)
  end)
end)

-- Hostile atlases: what a line may hold is bounded only by anim.limits.bytes.
describe("Spine 4.1 sequences", function()
  -- a sequence's regions are its path numbered start + i, at least
  -- `digits` digits long: each frame's looked up, the setup frame's drawn
  -- in the setup pose
  local ATLAS = "p.png\nsize: 64, 64\nfx1\n bounds: 0, 0, 8, 8\nfx2\n bounds: 8, 0, 8, 8\nfx003\n bounds: 16, 0, 8, 8\n"
  local function doc(sequence)
    return require("cjson").encode { skeleton = { spine = "4.1.24" }, bones = { { name = "root" } },
      slots = { { name = "s", bone = "root", attachment = "fx" } },
      skins = { { name = "default", attachments = { s = { fx = { width = 8, height = 8, sequence = sequence } } } } } }
  end
  local function imported(sequence)
    return spine.decode_text(doc(sequence), "seq.json", ATLAS, "seq.atlas")
  end

  it("gives each frame its region, the setup frame's drawn; a frame the atlas lacks is named", function()
    local r = assert(imported({ count = 3, setupIndex = 1 }))
    local att = r.skeleton.skins[1].attachments.s.fx
    assert.are.equal("fx2", att.path)
    assert.are.equal(8, att.region.x)
    assert.are.same({ count = 3, start = 1, digits = 0, setup_index = 1, path = "fx" }, att.sequence)
    assert.are.same({ 0, 8 }, { att.regions[1].x, att.regions[2].x })
    assert.is_nil(att.regions[3])
    assert.are.same({ { path = "skins[1].attachments.s.fx.sequence", message = "no region 'fx3' in the atlas: frame 2"
      .. " of the sequence has no image; did you mean 'fx1'?" } }, (function()
        local out = {}
        for _, w in ipairs(r.warnings) do out[#out + 1] = { path = w.path, message = w.message } end
        return out
      end)())
    r = assert(imported({ count = 5, start = 1, digits = 3, setupIndex = 2 }))
    assert.are.equal(16, r.skeleton.skins[1].attachments.s.fx.region.x)
    -- (the exports' `setup`; `setupIndex` read only when it is left out)
    r = assert(imported({ count = 5, start = 1, digits = 3, setup = 2 }))
    assert.are.equal(16, r.skeleton.skins[1].attachments.s.fx.region.x)
    r = assert(imported({ count = 3, setup = 0, setupIndex = 1 }))
    assert.are.equal(0, r.skeleton.skins[1].attachments.s.fx.region.x)
    -- (defaults: start 1, setup index 0)
    assert.are.equal("fx1", assert(imported({ count = 1 })).skeleton.skins[1].attachments.s.fx.path)
  end)

  it("leaves out an attachment whose sequence cannot be read, naming why", function()
    for _, c in ipairs {
      { {}, "sequence: count is required" },
      { { count = 0 }, "sequence: count must be a whole number from 1 to 1000000000, got 0" },
      { { count = 2, setupIndex = 2 }, "sequence: setupIndex must be a whole number from 0 to 1, got 2" },
      { { count = 2, setup = -1 }, "sequence: setup must be a whole number from 0 to 1, got -1" },
      { { count = 2, digits = 1e9 }, "sequence: digits must be a whole number from 0 to 20, got 1000000000" },
      { { count = 2, start = 1.5 }, "sequence: start must be a whole number from 0 to 1000000000, got 1.5" },
    } do
      local r = assert(imported(c[1]))
      assert.is_nil((r.skeleton.skins[1].attachments.s or {}).fx)
      assert.are.equal("attachment skipped: " .. c[2], r.warnings[1].message)
    end
    local r, err = imported(5)
    assert.is_nil(r)
    assert.are.equal("seq.json: skins[1].attachments.s.fx.sequence: a sequence must be an object, got number", err)
  end)
end)

describe("Spine atlases, hostile", function()
  local pad = string.rep(" ", 60000)

  it("trims lines and numbers padded with 60,000 spaces in linear time (13 s each, quadratic, before)", function()
    -- (the trailing-space pattern "%s+$" was tried at every space of a run
    -- followed by anything else: a page name, a field's value, a number)
    local a = assert(H.quick(0.5, "a padded page name", spine.atlas, "p" .. pad .. "q.png\nr\n bounds: 1,2,3,4\n", "t"))
    assert.are.equal("p" .. pad .. "q.png", a.pages[1].name)
    a = assert(H.quick(0.5, "padded numbers", spine.atlas, "p.png\nr\n bounds: 1" .. pad .. ", " .. pad .. "2" .. pad
      .. "," .. pad .. "3,4" .. pad .. "\n", "t"))
    assert.are.same({ 1, 2, 3, 4 }, { a.regions.r.x, a.regions.r.y, a.regions.r.width, a.regions.r.height })
    local _, err = H.quick(0.5, "a padded number with junk", spine.atlas, "p.png\nr\n bounds: 1," .. pad .. "x,2,3\n", "t")
    assert.truthy(err:find("^t: line 3: bounds: expected 4 numbers separated by commas, got '1,   "), err)
    _, err = H.quick(0.5, "a padded value with junk", spine.atlas, "p.png\nr\n rotate: 9" .. pad .. "x\n", "t")
    assert.truthy(err:find("^t: line 3: rotate: expected true, false, 0, 90, 180 or 270, got '9   "), err)
  end)
end)

describe("Spine atlases, numbers out of range", function()
  it("refuses a region whose texture coordinates are not finite, naming its line", function()
    -- (each number is finite, but 1e308 + 1e308 or 1e300 over a page of
    -- 1e-320 pixels is not: the UVs were inf, drawn as garbage)
    local cases = {
      { "p.png\nsize: 10, 10\nr\n bounds: 1e308, 0, 1e308, 1\n",
        "t: line 3: the region 'r': its texture coordinates are not finite (bounds 1e+308, 0, 1e+308, 1 on a page of 10 x 10)" },
      { "p.png\nsize: 10, 10\nq\n bounds: 0, 0, 1, 1\n\nz.png\nsize: 1e-320, 1\nr\n xy: 1e300, 0\n size: 1, 1\n",
        "t: line 8: the region 'r': its texture coordinates are not finite (bounds 1e+300, 0, 1, 1 on a page of 1e-320 x 1)" },
    }
    for _, c in ipairs(cases) do
      local a, err = spine.atlas(c[1], "t")
      assert.is_nil(a)
      assert.are.equal(c[2], err)
    end
  end)
end)
