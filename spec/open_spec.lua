-- Rigs from every importer that has them, and any file by its content:
-- anim.import_blockbench / decode_blockbench return the model's rig beside
-- the clips and warnings (clips, warnings, rigs); anim.open(path [, options])
-- reads every format the command reads, told apart by content, into
-- { clips, rigs, warnings, kind }; anim.load on another format's file names
-- the function to read it with.  On the real files of ../shared/data and
-- examples/ (fixtures written here are labelled "synthetic").
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local deepcompare = require("luassert.util").deepcompare

local DATA = H.shared .. "/data/"
local STEVE = DATA .. "blockbench/BetterModel/steve.bbmodel"
local GEOMETRY = DATA .. "blockbench/hephaestus-engine/geometry.bbmodel"
local SNAKE = DATA .. "realfiles/toms-mobs/snake.ajblueprint"
local BAT = DATA .. "blockbench/geckolib/1.20.4/bat.animation.json"
local FOX = DATA .. "gltf/Fox/glTF-Binary/Fox.glb"
local WALK_XML = DATA .. "xml/Minecraft-Skin-Viewer/walk.xml"
local EX = H.root .. "/examples/clips/"

local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- The world transform of every joint of a rig at rest.
local function rest_world(rig)
  local a = anim.animator(rig)
  local out = {}
  for _, j in ipairs(rig:joints()) do out[j.name] = { a:world_transform(j.name) } end
  return out
end

-- A clip's skeleton made into a rig by hand, as docs/formats.md describes it.
local function rig_by_hand(clip)
  local joints = {}
  for name, j in pairs(anim.table(clip).skeleton) do
    joints[#joints + 1] = { name = name, parent = j.parent, position = j.position, rotation = j.rotation,
      translation = j.translation, scale = j.scale }
  end
  return assert(anim.rig { joints = joints })
end

local function assert_same_world(got, want)
  assert.are.same(keys(want), keys(got))
  for name, w in pairs(want) do
    local d = H.maxdiff(got[name], w)
    assert(d < 1e-12, name .. ": world transform differs by " .. d)
  end
end

describe("anim.import_blockbench returns the model's rig", function()
  it("steve.bbmodel: clips, warnings, then { steve = rig }, its joints the groups in file order", function()
    local clips, warnings, rigs = anim.import_blockbench(STEVE)
    assert.are.same({ "roll" }, keys(clips))
    assert.are.same({}, warnings)
    assert.are.same({ "steve" }, keys(rigs))
    local rig = rigs.steve
    assert.are.equal("steve", rig.name)
    local joints = rig:joints()
    assert.are.equal(18, #joints)
    -- parents before children (the outliner's order), every group of the skeleton
    local seen, sk = {}, anim.table(clips.roll).skeleton
    for _, j in ipairs(joints) do
      if j.parent then assert.is_true(seen[j.parent], j.name .. " before its parent") end
      seen[j.name] = true
      assert.are.equal(sk[j.name].parent, j.parent)
    end
    assert.are.same(keys(sk), keys(seen))
    -- the rig the skeleton makes by hand, joint for joint
    assert_same_world(rest_world(rig), rest_world(rig_by_hand(clips.roll)))
    -- and the clip binds every joint of it by name
    for joint, b in pairs(clips.roll:bindings(rig)) do assert.are.equal(joint, b.joint) end
  end)

  it("geometry.bbmodel (nested groups) and an Animated Java project (snake) give theirs", function()
    local clips, _, rigs = anim.import_blockbench(GEOMETRY)
    assert.are.same({ "geometry" }, keys(rigs))
    assert_same_world(rest_world(rigs.geometry), rest_world(rig_by_hand(clips.crate)))
    clips, _, rigs = anim.import_blockbench(SNAKE)
    -- (an Animated Java project has no `name`: the file's name without its extension)
    assert.are.same({ "snake" }, keys(rigs))
    local any = clips[keys(clips)[1]]
    assert_same_world(rest_world(rigs.snake), rest_world(rig_by_hand(any)))
  end)

  it("a Bedrock animation file holds no geometry: its rigs are an empty table", function()
    local clips, warnings, rigs = anim.import_blockbench(BAT)
    assert.are.equal(4, #keys(clips))
    assert.are.same({}, warnings)
    assert.are.same({}, rigs)
  end)

  it("decode_blockbench too; without a name field the rig is named after the name given", function()
    local clips, _, rigs = anim.decode_blockbench(H.read(STEVE), "steve.bbmodel")
    assert.truthy(clips.roll)
    assert.are.same({ "steve" }, keys(rigs))
    -- synthetic: two nested groups, no name field, no animation
    local text = [[{"meta": {"format_version": "4.5"}, "outliner": [{"name": "a", "origin": [0, 16, 0],
      "children": [{"name": "b", "origin": [0, 32, 0]}]}]}]]
    clips, _, rigs = anim.decode_blockbench(text, "models/thing.bbmodel")
    assert.are.same({}, clips)
    assert.are.same({ "thing" }, keys(rigs))
    local j = rigs.thing:joints()
    assert.are.same({ "a", "b" }, { j[1].name, j[2].name })
    assert.are.same({ 0, 2, 0 }, j[2].position)
    assert.are.same({ "blockbench" }, keys(select(3, anim.decode_blockbench(text))))
  end)

  it("bones that make no rig are a warning, and the clips are imported all the same", function()
    -- synthetic: a group whose name holds a NUL byte
    local text = [[{"meta": {"format_version": "4.5"}, "name": "m", "outliner": [{"name": "a\u0000b"}],
      "animations": [{"name": "x", "length": 1, "animators": {}}]}]]
    local clips, warnings, rigs = anim.decode_blockbench(text, "m.bbmodel")
    assert.truthy(clips.x)
    assert.are.same({}, rigs)
    assert.are.same({ { channel = "outliner",
      message = "the bones make no rig: joints[1].name: a joint name cannot hold a NUL byte" } }, warnings)
    -- more groups than anim.limits.joints: no rig (the clips' skeletons are refused there too)
    text = [[{"meta": {"format_version": "4.5"}, "name": "m", "outliner": [{"name": "a"}, {"name": "b"},
      {"name": "c"}]}]]
    warnings, rigs = H.with_limits({ joints = 2 }, function()
      return select(2, anim.decode_blockbench(text, "m.bbmodel"))
    end)
    assert.are.same({}, rigs)
    assert.are.same({ { channel = "outliner",
      message = "the bones make no rig: too many groups (3; at most 2, anim.limits.joints)" } }, warnings)
    assert.are.same({ "m" }, keys(select(3, anim.decode_blockbench(text, "m.bbmodel"))))
  end)
end)

describe("the one rule from a skeleton to a rig", function()
  it("takes a glTF skeleton's translations and scales: Fox's rig as the file's", function()
    local r = assert(anim.import_gltf(FOX))
    local rigmod = require "anim.format.rig"
    local sk = anim.table(r.clips.Walk).skeleton
    local rig = rigmod.from_skeleton(sk, "fox")
    local got, want = rest_world(rig), rest_world(r.scene)
    for name, w in pairs(got) do
      assert(H.maxdiff(w, want[name]) < 1e-9, name)
    end
  end)

  it("anim sheet draws a glTF clip's bones where they are, not at one point", function()
    local sheet = require "anim.tool.sheet"
    local clip = assert(anim.import_gltf(FOX)).clips.Walk
    local rig, _, name = sheet.setup(clip)
    assert.are.equal("skeleton", name)
    local lo, hi = math.huge, -math.huge
    for _, w in pairs(rest_world(rig)) do
      lo, hi = math.min(lo, w[2]), math.max(hi, w[2])
    end
    assert.is_true(hi - lo > 10, "the bones span " .. (hi - lo) .. " in y")
  end)
end)

describe("anim.open", function()
  it("reads a .anim file: its clip by the file's name, no rig", function()
    local r = assert(anim.open(EX .. "walk.anim"))
    assert.are.equal("anim", r.kind)
    assert.are.same({ "walk" }, keys(r.clips))
    assert.are.equal(EX .. "walk.anim", r.clips.walk.name)
    assert.are.same({}, r.rigs)
    assert.is_nil(r.rig)
    assert.are.same({}, r.warnings)
  end)

  it("reads a .bbmodel: the clips, warnings and rig import_blockbench gives", function()
    local r = assert(anim.open(STEVE))
    assert.are.equal("blockbench", r.kind)
    assert.are.same({ "roll" }, keys(r.clips))
    assert.are.same({ "steve" }, keys(r.rigs))
    assert.are.equal(r.rigs.steve, r.rig)
    local clips = anim.import_blockbench(STEVE)
    assert.are.same(clips.roll:sample(0.3), r.clips.roll:sample(0.3))
  end)

  it("reads an Animated Java project and a Bedrock file (no rig)", function()
    local r = assert(anim.open(SNAKE))
    assert.are.same({ "snake" }, keys(r.rigs))
    r = assert(anim.open(BAT))
    assert.are.equal("blockbench", r.kind)
    assert.are.equal(4, #keys(r.clips))
    assert.are.same({}, r.rigs)
    assert.is_nil(r.rig)
  end)

  it("gives the importer's warnings as 'file: json.path: message' lines", function()
    local path = DATA .. "blockbench/BetterModel/knight.bbmodel"
    local _, warnings = anim.import_blockbench(path)
    assert.is_true(#warnings > 0)
    local r = assert(anim.open(path))
    assert.are.equal(#warnings, #r.warnings)
    local w = warnings[1]
    assert.are.equal(path .. ": " .. require("anim.base.errors").path(w.channel) .. ": " .. w.message, r.warnings[1])
  end)

  it("reads a .glb and a .gltf: clips, the skins' rigs, rig, scene", function()
    local r = assert(anim.open(FOX))
    assert.are.equal("gltf", r.kind)
    assert.are.same({ "Run", "Survey", "Walk" }, keys(r.clips))
    assert.are.same({ "skin0" }, keys(r.rigs))
    assert.are.equal(r.rigs.skin0, r.rig)
    assert.truthy(r.scene)
    r = assert(anim.open(EX .. "critter.gltf"))
    assert.are.equal("gltf", r.kind)
    assert.truthy(r.rig)
  end)

  it("reads an Aseprite sheet's JSON: clips and the sheet", function()
    local r = assert(anim.open(EX .. "slime.json"))
    assert.are.equal("aseprite", r.kind)
    local clips, sheet = anim.import_aseprite(EX .. "slime.json")
    assert.are.same(keys(clips), keys(r.clips))
    assert.are.same(sheet, r.sheet)
    assert.are.same({}, r.rigs)
  end)

  it("reads legacy XML: its clip by the file's name, on the player rig", function()
    local r = assert(anim.open(WALK_XML))
    assert.are.equal("xml", r.kind)
    assert.are.same({ "walk" }, keys(r.clips))
    assert.are.equal(anim.rig("player"), r.rigs.player)
    assert.are.equal(r.rigs.player, r.rig)
    assert.are.same(anim.import_xml(WALK_XML):sample(0.4), r.clips.walk:sample(0.4))
  end)

  it("tells formats by content, not by name", function()
    local dir = H.tmpdir()
    local path = dir .. "/model.txt"
    H.write(path, H.read(STEVE))
    local r = assert(anim.open(path))
    os.remove(path)
    os.remove(dir)
    assert.are.equal("blockbench", r.kind)
    assert.are.same({ "steve" }, keys(r.rigs))
  end)

  it("a .anim file's skeleton gives its rig, and its unknown fields are warnings", function()
    local dir = H.tmpdir()
    local path = dir .. "/roll.anim"
    local t = assert(anim.table(anim.import_blockbench(STEVE).roll))
    t.lenght = 2 -- (a misspelt field: kept, and said)
    assert(anim.save(assert(anim.clip(t, "roll", { strict = false })), path))
    local r = assert(anim.open(path))
    os.remove(path)
    os.remove(dir)
    assert.are.same({ "roll" }, keys(r.rigs))
    assert.are.equal(18, #r.rig:joints())
    assert.are.same({ path .. ": lenght: unknown field (did you mean 'length'?)" }, r.warnings)
  end)

  it("returns nil and a message for a file it cannot read, naming it", function()
    assert.are.same({ nil, "nope.anim: cannot open file: No such file or directory" }, { anim.open("nope.anim") })
    assert.are.same({ nil, EX .. "goblin.retarget: a retarget map: read it with anim.load_retarget" },
      { anim.open(EX .. "goblin.retarget") })
    -- the importer's own message (a name that claims a format decides when the content says none)
    local dir = H.tmpdir()
    local path = dir .. "/bad.bbmodel"
    H.write(path, "[1, 2]")
    local r, err = anim.open(path)
    local want = { anim.import_blockbench(path) }
    os.remove(path)
    os.remove(dir)
    assert.is_nil(r)
    assert.are.same(want, { nil, err })
    assert.matches("bad%.bbmodel: expected a Blockbench project or a Bedrock animation file %(a JSON object%), got array$", err)
  end)

  it("passes each importer its options", function()
    local r = assert(anim.open(FOX, { loop = "pingpong" }))
    assert.are.equal("pingpong", r.clips.Walk.loop)
    -- whose easings: GeckoLib's by default in a Bedrock file, none when asked
    local gremlin = DATA .. "blockbench/geckolib/1.20.4/gremlin.animation.json"
    local want = anim.import_blockbench(gremlin, { easings = "blockbench" })
    local plain = anim.import_blockbench(gremlin)
    r = assert(anim.open(gremlin, { easings = "blockbench" }))
    local differ = false
    for name, c in pairs(want) do
      for _, t in ipairs { 0.1, 0.37, 0.8 } do
        assert.are.same(c:sample(t), r.clips[name]:sample(t))
        differ = differ or not deepcompare(c:sample(t), plain[name]:sample(t))
      end
    end
    assert.is_true(differ)
    -- strict for a .anim file
    local dir = H.tmpdir()
    local path = dir .. "/x.anim"
    H.write(path, '{"length": 1, "lenght": 2, "joints": {}}')
    local c, err = anim.open(path, { strict = true })
    os.remove(path)
    os.remove(dir)
    assert.is_nil(c)
    assert.are.equal(path .. ": lenght: unknown field (did you mean 'length'?)", err)
  end)

  it("refuses unknown option keys with a suggestion, and wrong values, naming 'open'", function()
    local function refused(opts)
      local ok, err = pcall(anim.open, STEVE, opts)
      assert.is_false(ok)
      return err
    end
    assert.matches("bad argument #2 to 'open' %(unknown option 'stirct'; did you mean 'strict'%?%)$", refused { stirct = true })
    assert.matches("bad argument #2 to 'open' %(unknown option 'easing'; did you mean 'easings'%?%)$", refused { easing = "x" })
    assert.matches("bad argument #2 to 'open' %(unknown option 'lop'; did you mean 'loop'%?%)$", refused { lop = "once" })
    assert.matches("bad argument #2 to 'open' %(option 'strict' must be a boolean, got number%)$", refused { strict = 1 })
    assert.matches("bad argument #2 to 'open' %(option 'root' must be a string, got number%)$", refused { root = 5 })
    assert.matches("bad argument #2 to 'open' %(option 'loop' must be once, loop, hold or pingpong, got 'forever'%)$",
      refused { loop = "forever" })
    assert.matches("bad argument #2 to 'open' %(options.easings must be \"blockbench\", \"geckolib\" or \"animated_java\","
      .. " got gecko%)$", refused { easings = "gecko" })
    assert.matches("bad argument #2 to 'open' %(table of options expected, got string%)$", refused "strict")
    local ok, err = pcall(anim.open, 5)
    assert.is_false(ok)
    assert.matches("bad argument #1 to 'open' %(string expected, got number%)$", err)
  end)
end)

describe("anim.open on 2D skeletons", function()
  local DB = H.root .. "/spec/fixtures/dragonbones/"
  local HERO, HERO45, TEX = DB .. "hero_ske.json", DB .. "hero45_ske.json", DB .. "hero_tex.json"

  it("reads a DragonBones skeleton with the atlas beside it: clips, skeleton, a rig per armature, warnings", function()
    local want = assert(anim.import_dragonbones(HERO, TEX))
    local r = assert(anim.open(HERO))
    assert.are.equal("dragonbones", r.kind)
    assert.are.same({ "walk", "wave" }, keys(r.clips))
    for name, c in pairs(want.clips) do
      assert.are.equal(c.name, r.clips[name].name)
      for _, t in ipairs { 0, 0.3, 1.1 } do assert.are.same(c:sample(t), r.clips[name]:sample(t)) end
    end
    assert.are.same(want.description, r.description) -- (the atlas's regions in it)
    assert.truthy(r.description.skins[1].attachments.head_slot.head.region)
    -- the skeleton an animator plays, as the importer makes it
    assert.is_true(tostring(r.skeleton):find("^anim.skeleton2d%(") ~= nil)
    assert.are.same(want.skeleton:bones(), r.skeleton:bones())
    assert.are.same(want.skins, r.skins)
    assert.are.same(keys(want.armatures), keys(r.armatures))
    assert.are.same({ "hero", "prop" }, keys(r.rigs))
    assert.are.equal(r.rigs.hero, r.rig)
    assert.are.equal(r.skeleton.rig, r.rig)
    assert.are.equal(r.armatures.prop.skeleton.rig, r.rigs.prop)
    -- a joint per bone, at rest in its setup pose: body x 10, y -20, 30 degrees, scale 1.5 x 0.75
    assert.are.equal(#want.description.bones, #r.rig:joints())
    local a = anim.animator(r.rig)
    local t = { a:local_transform("body") }
    assert(H.maxdiff(t, { 10, -20, 0, 0, 0, math.sin(math.pi / 12), math.cos(math.pi / 12), 1.5, 0.75, 1 }) < 1e-15)
    -- the importer's warnings as "file: json.path: message"
    assert.are.equal(#want.warnings, #r.warnings)
    for i, w in ipairs(want.warnings) do assert.are.equal(HERO .. ": " .. w, r.warnings[i]) end
    assert.are.equal(HERO .. ": armature[2].skin[1].slot[5].display[2]: bounding box 'ring': an ellipse is kept as data"
      .. " (width, height), without vertices", r.warnings[1])
  end)

  it("reads the atlas the option names; without one beside the file, none", function()
    local r = assert(anim.open(HERO45))
    assert.is_nil(r.description.skins[1].attachments.head_slot.head.region)
    r = assert(anim.open(HERO45, { atlas = TEX }))
    assert.are.same(assert(anim.import_dragonbones(HERO45, TEX)).description, r.description)
    assert.truthy(r.description.skins[1].attachments.head_slot.head.region)
  end)

  it("reads a Spine export with the atlas beside it (X.json, X.atlas) or the one named", function()
    local SP = H.root .. "/spec/fixtures/spine/"
    local want = assert(anim.import_spine(SP .. "hero-3.8.json", SP .. "hero-3.8.atlas"))
    local r = assert(anim.open(SP .. "hero-3.8.json"))
    assert.are.equal("spine", r.kind)
    assert.are.same(keys(want.clips), keys(r.clips))
    for name, c in pairs(want.clips) do assert.are.same(c:sample(0.4), r.clips[name]:sample(0.4)) end
    assert.are.same(want.description, r.description)
    assert.truthy(r.description.skins[1].attachments.body.body.region)
    assert.are.equal(r.skeleton.rig, r.rig)
    assert.are.same({ "hero-3.8" }, keys(r.rigs))
    assert.are.equal(r.rigs["hero-3.8"], r.rig)
    assert.are.equal(#want.description.bones, #r.rig:joints())
    -- the warnings as "file: json.path: message" (the file's own: no path)
    assert.are.equal(#want.warnings, #r.warnings)
    for i, w in ipairs(want.warnings) do
      assert.are.equal(SP .. "hero-3.8.json: " .. (w.path ~= "" and (w.path .. ": ") or "") .. w.message, r.warnings[i])
    end
    -- 4.x: no hero-4.2.atlas beside it; the one shared by name
    r = assert(anim.open(SP .. "hero-4.2.json"))
    assert.is_nil(r.description.skins[1].attachments.body.body.region)
    r = assert(anim.open(SP .. "hero-4.2.json", { atlas = SP .. "hero-4.x.atlas" }))
    assert.are.same(assert(anim.import_spine(SP .. "hero-4.2.json", SP .. "hero-4.x.atlas")).description, r.description)
    assert.truthy(r.description.skins[1].attachments.body.body.region)
  end)

  it("refuses a DragonBones texture atlas alone, a bad atlas, and an atlas option that is no string", function()
    assert.are.same({ nil, TEX .. ": a DragonBones texture atlas, not a skeleton: open the skeleton it goes with"
      .. " (anim.open reads X_tex.json beside X_ske.json, or the file the option atlas names)" }, { anim.open(TEX) })
    assert.are.same({ nil, "nope_tex.json: cannot open file: No such file or directory" },
      { anim.open(HERO, { atlas = "nope_tex.json" }) })
    -- the atlas's own message, naming it (a skeleton given as the atlas)
    local r, err = anim.open(HERO, { atlas = HERO45 })
    assert.is_nil(r)
    assert.are.same({ nil, err }, { anim.import_dragonbones(HERO, HERO45) })
    assert.matches("^" .. HERO45:gsub("%p", "%%%0") .. ": ", err)
    local ok, e = pcall(anim.open, HERO, { atlas = 1 })
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'open' %(option 'atlas' must be a string, got number%)$", e)
    ok, e = pcall(anim.open, HERO, { atlass = TEX })
    assert.is_false(ok)
    assert.matches("bad argument #2 to 'open' %(unknown option 'atlass'; did you mean 'atlas'%?%)$", e)
  end)
end)

describe("anim.load on another format's file names the function to use", function()
  local function hint(path)
    local c, err = anim.load(path)
    assert.is_nil(c)
    return err
  end
  it("Blockbench, Animated Java, Bedrock", function()
    assert.are.equal(STEVE .. ": a Blockbench model: read it with anim.import_blockbench or anim.open", hint(STEVE))
    assert.are.equal(SNAKE .. ": a Blockbench model: read it with anim.import_blockbench or anim.open", hint(SNAKE))
    assert.are.equal(BAT .. ": a Bedrock animation file: read it with anim.import_blockbench or anim.open", hint(BAT))
  end)

  it("glTF (.glb and .gltf), Aseprite, legacy XML, a retarget map", function()
    assert.are.equal(FOX .. ": a glTF asset: read it with anim.import_gltf or anim.open", hint(FOX))
    assert.are.equal(EX .. "critter.gltf: a glTF asset: read it with anim.import_gltf or anim.open", hint(EX .. "critter.gltf"))
    assert.are.equal(EX .. "slime.json: an Aseprite sprite sheet's JSON: read it with anim.import_aseprite or anim.open",
      hint(EX .. "slime.json"))
    assert.are.equal(WALK_XML .. ": a legacy XML animation: read it with anim.import_xml or anim.open", hint(WALK_XML))
    assert.are.equal(EX .. "nod.xml: a legacy XML animation: read it with anim.import_xml or anim.open", hint(EX .. "nod.xml"))
    assert.are.equal(EX .. "goblin.retarget: a retarget map: read it with anim.load_retarget", hint(EX .. "goblin.retarget"))
  end)

  it("a state machine, by its content whatever its name: anim.open says the same", function()
    local GRAPH = "a state machine (.animgraph): read it with anim.graph, or library:graph to find its clips beside it"
    assert.are.equal(EX .. "hero.animgraph: " .. GRAPH, hint(EX .. "hero.animgraph"))
    assert.are.same({ nil, EX .. "hero.animgraph: " .. GRAPH }, { anim.open(EX .. "hero.animgraph") })
    local dir = H.tmpdir()
    local path = dir .. "/hero.json"
    H.write(path, H.read(EX .. "hero.animgraph"))
    assert.are.equal(path .. ": " .. GRAPH, hint(path))
    os.remove(path)
    os.remove(dir)
  end)

  it("a broken .anim file keeps its own message; so does a name that only claims a format", function()
    local dir = H.tmpdir()
    local function with(name, text)
      local path = dir .. "/" .. name
      H.write(path, text)
      local err = hint(path)
      os.remove(path)
      return (err:gsub("^" .. dir:gsub("%p", "%%%0") .. "/", ""))
    end
    assert.are.equal("a.anim: expected an object with joints or keyframes, got an object without either", with("a.anim", "{}"))
    assert.matches("^b%.bbmodel: not valid JSON: ", with("b.bbmodel", "{ truncated"))
    -- (joints of names in a file not named .retarget: a broken clip, said as such)
    assert.are.equal("c.anim: joints.a: joint must be an object, got string", with("c.anim", '{"joints": {"a": "b"}}'))
    os.remove(dir)
  end)

  it("so do a library's res:// paths", function()
    local lib = assert(anim.library(H.root .. "/examples"))
    local c, err = lib:clip("res://clips/critter.gltf")
    assert.is_nil(c)
    assert.are.equal("res://clips/critter.gltf: a glTF asset: read it with anim.import_gltf or anim.open", err)
  end)
end)
