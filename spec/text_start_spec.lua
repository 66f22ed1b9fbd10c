-- What a text file starts with.  A UTF-8 byte order mark (EF BB BF) at the
-- start of a JSON or atlas file is
-- left out, as RFC 8259 (8.1) lets a JSON parser do: editors such as older
-- Windows Notepad saved one.  Before, an .anim with one was "not valid
-- JSON" at character 1 and a Spine export with one was taken for the
-- binary .skel.  A message's positions stay those of the file's bytes.
-- Text saved as UTF-16 (Windows' "Unicode") is refused saying so, and so
-- is a compressed Blockbench file ("<lz>": Blockbench's backups), which
-- was "not valid XML".
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local BOM = "\239\187\191"

-- What an import gave, told apart from another: its warnings, the
-- description's slot names and each clip's first joint sampled.
local function summary(r)
  local clips = {}
  for name, c in pairs(r.clips) do
    local j = c:joints()[1]
    clips[name] = j and c:sample(c.length / 3)[j] or false
  end
  local slots = {}
  for i, s in ipairs(r.description.slots) do slots[i] = s.name end
  return { warnings = r.warnings, slots = slots, clips = clips }
end

local function with_bom(dir, name, source)
  local path = dir .. "/" .. name
  H.write(path, BOM .. H.read(source))
  return path
end

describe("a UTF-8 byte order mark first", function()
  local dir = H.tmpdir()

  it("is left out of an .anim file and text", function()
    local src = H.root .. "/examples/clips/attack.anim"
    local c = assert(anim.load(with_bom(dir, "attack.anim", src)))
    local want = assert(anim.load(src))
    assert.are.same(want:sample(0.3), c:sample(0.3))
    assert.truthy(anim.decode(BOM .. '{"version": 3, "length": 1, "joints": {}}', "t"))
  end)

  it("leaves a message's positions those of the file's bytes", function()
    -- (43 bytes: the mark and 40 of an object not closed, the end found
    -- after the last, at character 44)
    local text = BOM .. '{"version": 3, "length": 1, "joints": {}'
    local c, err = anim.decode(text, "t")
    assert.is_nil(c)
    assert.are.equal("t: not valid JSON: Expected comma or object end but found T_END at character 44", err)
    c, err = anim.decode(text:sub(4), "t")
    assert.is_nil(c)
    assert.are.equal("t: not valid JSON: Expected comma or object end but found T_END at character 41", err)
  end)

  it("is refused anywhere else", function()
    local c, err = anim.decode(' ' .. BOM .. '{"version": 3, "length": 1, "joints": {}}', "t")
    assert.is_nil(c)
    assert.truthy(err:find("^t: not valid JSON: .* at character 2"), err)
  end)

  -- (import(file, atlas) of the fixtures in folder, with a mark before each
  -- file and without: the same result)
  local function same_import(import, folder, file, atlas)
    local F = H.root .. "/spec/fixtures/" .. folder .. "/"
    local r = assert(import(with_bom(dir, "m_" .. file, F .. file), with_bom(dir, "m_" .. atlas, F .. atlas)))
    assert.are.same(summary(assert(import(F .. file, F .. atlas))), summary(r))
  end

  it("is left out of a Spine export and its atlas", function()
    same_import(anim.import_spine, "spine", "hero-4.1.json", "hero-4.x.atlas")
  end)

  it("is left out of a DragonBones skeleton and its texture atlas", function()
    same_import(anim.import_dragonbones, "dragonbones", "hero_ske.json", "hero_tex.json")
  end)
end)

describe("UTF-16 text", function()
  -- (a UTF-16 byte order mark, little- or big-endian, and the text's first
  -- characters in two bytes each)
  local function utf16(le, ascii)
    local out = { le and "\255\254" or "\254\255" }
    for c in ascii:gmatch(".") do out[#out + 1] = le and (c .. "\0") or ("\0" .. c) end
    return table.concat(out)
  end
  local WHY = "the text is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8"

  it("is refused saying so: an .anim, a Blockbench file, a Spine export, an atlas", function()
    local dir = H.tmpdir()
    for _, le in ipairs { true, false } do
      local text = utf16(le, '{"version": 3, "length": 1, "joints": {}}')
      assert.are.same({ nil, "t: not valid JSON: " .. WHY }, { anim.decode(text, "t") })
      H.write(dir .. "/g.animation.json", text)
      assert.are.same({ nil, dir .. "/g.animation.json: not valid JSON: " .. WHY }, { anim.open(dir .. "/g.animation.json") })
      H.write(dir .. "/h.json", text)
      assert.are.same({ nil, dir .. "/h.json: not valid JSON: " .. WHY }, { anim.import_spine(dir .. "/h.json") })
      H.write(dir .. "/h.atlas", utf16(le, "hero.png\nsize: 4, 4\n"))
      local r, err = anim.import_spine(H.root .. "/spec/fixtures/spine/hero-4.1.json", dir .. "/h.atlas")
      assert.is_nil(r)
      assert.are.equal(dir .. "/h.atlas: the atlas is UTF-16 text (it starts with a UTF-16 byte order mark): save it as UTF-8", err)
    end
  end)
end)

describe("a compressed Blockbench file", function()
  it("is refused saying so, not read as XML", function()
    local dir = H.tmpdir()
    -- ('<lz>' and LZ-UTF8 in a StorageBinaryString, as Blockbench writes it)
    local text = "<lz>\228\184\128\231\137\128abc"
    local why = "a compressed Blockbench file ('<lz>', as Blockbench writes its backups) is not read: open it in"
      .. " Blockbench and save the project (File > Save Project)"
    for _, name in ipairs { "x.bbmodel", "y.animation.json", "z.json" } do
      local path = dir .. "/" .. name
      H.write(path, text)
      assert.are.same({ nil, path .. ": " .. why }, { anim.open(path) })
      H.write(path, BOM .. text)
      assert.are.same({ nil, path .. ": " .. why }, { anim.open(path) })
    end
    assert.are.same({ nil, dir .. "/x.bbmodel: " .. why }, { anim.import_blockbench(dir .. "/x.bbmodel") })
    assert.are.same({ nil, "b: " .. why }, { anim.decode_blockbench(text, "b") })
  end)
end)
