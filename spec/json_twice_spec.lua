-- A name an object holds twice (RFC 8259, 4: what a reader then does "is
-- unpredictable"; cjson, as JavaScript's JSON.parse, keeps the last): a
-- joint's block pasted twice under one name lost the first without a word.
-- The module's own files refuse it, naming the member's path and both
-- lines; the importers read it as the tools that read those files do (the
-- last kept) and say so in a warning (lua/anim/base/json.lua,
-- core.json_duplicate in csrc/io/jsonkeys.c; docs/format-reference.md).
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local function file(name, text)
  local path = H.tmpdir() .. "/" .. name
  H.write(path, text)
  return path
end

describe("a name an object holds twice, in the module's own files", function()
  it("is refused with the member's path and both lines (it kept the last joint's channels)", function()
    local text = '{"version": 3, "length": 1, "joints": {\n'
      .. '  "head": {"position": [[0, [1, 2, 3]]]},\n'
      .. '  "head": {"rotation": [[0, [0, 45, 0]]]}}}'
    local c, err = anim.decode(text, "walk")
    assert.is_nil(c)
    assert.are.equal("walk: joints.head: named twice in one object (lines 2 and 3), where JSON keeps only the last:"
      .. " give each its own name", err)
    local path = file("walk.anim", text)
    c, err = anim.load(path)
    assert.is_nil(c)
    assert.are.equal(path .. ": joints.head: named twice in one object (lines 2 and 3), where JSON keeps only the"
      .. " last: give each its own name", err)
  end)

  it("finds it inside arrays (1-based) and compares names as decoded", function()
    local c, err = anim.decode('{"version": 3, "length": 1, "joints": {},\n "markers": [{"time": 0, "name": "a"},\n'
      .. ' {"time": 0.5, "name": "b", "n\\u0061me": "c"}]}', "m")
    assert.is_nil(c)
    assert.are.equal("m: markers[2].name: named twice in one object (lines 3 and 3), where JSON keeps only the last:"
      .. " give each its own name", err)
    -- (a surrogate pair and the character it encodes are one name)
    local path, name = core.json_duplicate('[{"x": {"\\ud83d\\ude00": 1, "\240\159\152\128": 2}}]')
    assert.are.same({ 1, "x" }, path)
    assert.are.equal("\240\159\152\128", name)
    -- (300 escaped names between the two: the decoded names' room grows
    -- and moves while the first is kept)
    local names = {}
    for i = 1, 300 do names[i] = string.format('"\\u0062%d": %d', i, i) end
    local l1, l2
    path, name, l1, l2 = core.json_duplicate('{"o": {"\\u0061\\u0062": 0,\n' .. table.concat(names, ", ") .. ',\n"ab": 1}}')
    assert.are.same({ { "o" }, "ab", 1, 3 }, { path, name, l1, l2 })
  end)

  it("passes names that differ, empty objects and arrays, and names equal only in other objects", function()
    assert.is_nil(core.json_duplicate('{"a": {"x": 1}, "b": {"x": 2}, "c": [], "d": {}, "e": [{"x": 1}, {"x": 2}]}'))
    assert.is_nil(core.json_duplicate('{"ab": 1, "a": 2, "a\\\\": 3, "a\\"": 4}'))
    assert.is_nil(core.json_duplicate('[1, "a", true, null]'))
    local path, name, l1, l2 = core.json_duplicate('{"": 1, "": 2}')
    assert.are.same({}, path)
    assert.are.same({ "", 1, 1 }, { name, l1, l2 })
  end)

  it("is refused in a retarget map and a graph too", function()
    local r, err = anim.load_retarget(file("m.retarget", '{"version": 1, "source": "a", "target": "b",\n'
      .. '"joints": {"x": "y",\n "x": "z"}}'))
    assert.is_nil(r)
    assert.truthy(err:find(": joints.x: named twice in one object (lines 2 and 3)", 1, true), err)
    local g, gerr = anim.graph('{"version": 1, "version": 1, "layers": []}', {})
    assert.is_nil(g)
    assert.truthy(gerr:find("version: named twice in one object (lines 1 and 1)", 1, true), gerr)
  end)
end)

describe("a name an object holds twice, in an imported file", function()
  it("Bedrock: the last kept, and a warning", function()
    local clips, warnings = anim.decode_blockbench('{"format_version": "1.8.0", "animations": {"a": {\n'
      .. '"animation_length": 1, "bones": {"b": {"position": [1, 2, 3]},\n'
      .. '"b": {"position": [4, 5, 6]}}}}}', "x.animation.json")
    assert(clips, warnings)
    -- (the second block's [4, 5, 6]: Bedrock's units are sixteenths, x mirrored)
    assert.are.same({ -0.25, 0.3125, 0.375 }, clips.a:sample(0.5).b.position)
    assert.are.same({ channel = "animations.a.bones.b", message = "named twice in one object (lines 2 and 3),"
      .. " where JSON keeps only the last: the last is read" }, warnings[1])
  end)

  it("Bedrock with comments: the lines of the file as written (a comment's line ends kept)", function()
    local clips, warnings = anim.decode_blockbench('{"format_version": "1.8.0", /* one\ntwo\nthree */ "animations": {"a": {\n'
      .. '"animation_length": 1, "animation_length": 2, "bones": {}}}}', "x.animation.json")
    assert(clips, warnings)
    assert.are.equal("named twice in one object (lines 4 and 4), where JSON keeps only the last: the last is read",
      warnings[1].message)
    assert.are.equal(2, clips.a.length)
  end)

  it("Spine, DragonBones (skeleton and texture atlas) and glTF: a warning each", function()
    local spine = file("s.json", '{"skeleton": {"spine": "4.1.00"}, "bones": [{"name": "root", "name": "root"}]}')
    local r = assert(anim.import_spine(spine))
    assert.are.same({ path = "bones[1].name", message = "named twice in one object (lines 1 and 1), where JSON"
      .. " keeps only the last: the last is read" }, { path = r.warnings[1].path, message = r.warnings[1].message })
    local ske = file("d_ske.json", '{"version": "5.5", "name": "x", "frameRate": 24, "frameRate": 24,\n'
      .. '"armature": [{"name": "a", "type": "Armature", "bone": [{"name": "root"}]}]}')
    local tex = file("d_tex.json", '{"imagePath": "d.png", "imagePath": "d.png", "SubTexture": []}')
    r = assert(anim.import_dragonbones(ske, tex))
    assert.are.equal("frameRate: named twice in one object (lines 1 and 1), where JSON keeps only the last: the last"
      .. " is read", r.warnings[1])
    assert.are.equal("the texture atlas: imagePath: named twice in one object (lines 1 and 1), where JSON keeps only"
      .. " the last: the last is read", r.warnings[2])
    local gltf = file("g.gltf", '{"asset": {"version": "2.0"}, "nodes": [{"name": "a"},\n {"name": "b", "name": "c"}]}')
    r = assert(anim.import_gltf(gltf))
    assert.are.equal(gltf .. ": nodes[1].name: named twice in one object (lines 2 and 2), where JSON keeps only the"
      .. " last: the last is read", r.warnings[1])
  end)

  it("Aseprite: refused, a frame name twice by the frames' own words", function()
    local frame = '{"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 10}'
    local c, err = anim.decode_aseprite('{"frames": {"a": ' .. frame .. '}, "meta": {"frameTags": [], "frameTags": []}}', "k.json")
    assert.is_nil(c)
    assert.are.equal("k.json: meta.frameTags: named twice in one object (lines 1 and 1), where JSON keeps only the"
      .. " last: give each its own name", err)
    c, err = anim.decode_aseprite('{"frames": {"a": ' .. frame .. ', "a": ' .. frame .. '}}', "k.json")
    assert.is_nil(c)
    assert.are.equal("k.json: frames.a: the frame name 'a' comes twice", err)
  end)
end)
