-- The fields, elements and attributes a Bedrock, Blockbench or legacy XML
-- file's format does not know are warnings naming where they are, with
-- the nearest known name (issue 37: `anim validate` said all good of
-- `animation_lenght`, `lenght` and `rol`); the real files of ../shared/data
-- give none: the known lists are the writers' (Blockbench and its plugins).
local H = require "spec.helper"
local anim = require "anim"

-- "path: message" of each warning of an importer ({ channel, message })
local function texts(list)
  local out = {}
  for i, w in ipairs(list) do out[i] = (w.channel or "") .. ": " .. w.message end
  return out
end

describe("unknown fields of imported files", function()
  it("of a Bedrock file: animations, bones, keys, effects", function()
    local clips, warnings = assert(anim.decode_blockbench([==[{"format_version": "1.8.0", "animations": {"a": {
      "animation_lenght": 1, "bones": {"b": {"rotaton": [1, 2, 3], "rotation": {"0.0": {"post": [0, 0, 0],
      "lerp_mod": "catmullrom"}, "1.0": [1, 1, 1]}}}, "sound_effects": {"0.5": {"effect": "s", "effekt": 1}},
      "zqxjv": 1}}}]==], "w.animation.json"))
    assert.truthy(clips.a)
    assert.are.same({
      "animations.a.animation_lenght: unknown field (did you mean 'animation_length'?)",
      "animations.a.zqxjv: unknown field",
      "animations.a.bones.b.rotaton: unknown field (did you mean 'rotation'?)",
      'animations.a.bones.b.rotation["0.0"].lerp_mod: unknown field (did you mean \'lerp_mode\'?)',
      'animations.a.sound_effects["0.5"].effekt: unknown field (did you mean \'effect\'?)',
    }, texts(warnings))
    -- the file's other fields are read as ever: the length is the keys'
    assert.are.equal(1, clips.a.length)
  end)

  it("of a .bbmodel: animations, animators, keyframes, data points; near misses of the top level and groups", function()
    local clips, warnings = assert(anim.decode_blockbench([==[{"meta": {"format_version": "4.5", "model_formt": "free"},
      "nmae": "m", "geckolibSettings": {}, "outliner": [{"name": "b", "orign": [0, 0, 0], "uuid": "u1", "nbt": "{}",
      "children": []}], "animations": [{"name": "walk", "loop": "loop", "lenght": 2, "animators": {"u1": {"name": "b",
      "type": "bone", "keyframs": [], "keyframes": [{"channel": "rotation", "tim": 0, "time": 0,
      "data_points": [{"x": "1", "y": "0", "zed": "0"}]}]}}}]}]==], "m.bbmodel"))
    assert.truthy(clips.walk)
    assert.are.same({
      "nmae: unknown field (did you mean 'name'?)",
      "meta.model_formt: unknown field (did you mean 'model_format'?)",
      "outliner[1].orign: unknown field (did you mean 'origin'?)",
      "animations[1].lenght: unknown field (did you mean 'length'?)",
      "animations[1].animators.u1.keyframs: unknown field (did you mean 'keyframes'?)",
      "animations[1].animators.u1.keyframes[1].tim: unknown field (did you mean 'time'?)",
      "animations[1].animators.u1.keyframes[1].data_points[1].zed: unknown field",
    }, texts(warnings))
  end)

  it("of a legacy XML file: elements and attributes, an extra return value", function()
    local xml = '<animation name="w" lenght="2">\n<right-arm rol="3">\n<rol><keyframe t="0">1</keyframe></rol>\n'
      .. '<pitch i="LINEAR" lenth="1"><keyframe t="0" tt="1">1</keyframe></pitch>\n</right-arm></animation>'
    local clip, warnings = assert(anim.decode_xml(xml, "rol.xml"))
    assert.are.equal(1, clip.length) -- `lenght` is not read: the viewer's default length
    local want = {
      "animation (line 1): unknown attribute 'lenght' (did you mean 'length'?)",
      "animation/right-arm (line 2): unknown attribute 'rol' (did you mean the element 'roll'?)",
      "animation/right-arm/rol (line 3): unknown element (did you mean 'roll'?)",
      "animation/right-arm/pitch (line 4): unknown attribute 'lenth' (did you mean 'length'?)",
      "animation/right-arm/pitch/keyframe[1] (line 4): unknown attribute 'tt'",
    }
    assert.are.same(want, texts(warnings))
    local path = H.tmpdir() .. "/rol.xml"
    H.write(path, xml)
    local clip2, warnings2 = assert(anim.import_xml(path))
    assert.are.equal(1, clip2.length)
    assert.are.same(want, texts(warnings2))
    -- anim.open gives them as lines: "file: path: message"
    local res = assert(anim.open(path))
    assert.are.equal(5, #res.warnings)
    assert.are.equal(path .. ": " .. want[3], res.warnings[3])
    os.execute("rm -rf '" .. path:match("^(.*)/") .. "'")
    -- a file with none: an empty list
    assert.are.same({}, select(2, anim.decode_xml('<animation><head><pitch><keyframe>1</keyframe></pitch></head></animation>')))
  end)

  it("none in the real files of ../shared/data (Blockbench, Bedrock, GeckoLib, Animated Java, XML)", function()
    local files = {}
    local p = assert(io.popen("find -L '" .. H.shared .. "/data/blockbench' '" .. H.shared .. "/data/realfiles' '"
      .. H.shared .. "/data/xml' -type f \\( -name '*.json' -o -name '*.bbmodel' -o -name '*.ajblueprint' -o -name"
      .. " '*.xml' \\) 2>/dev/null"))
    for f in p:lines() do files[#files + 1] = f end
    p:close()
    assert.is_true(#files >= 60, "the real files are not there: " .. #files)
    local imported = 0
    for _, f in ipairs(files) do
      local _, warnings
      if f:match("%.xml$") then
        _, warnings = anim.import_xml(f)
      elseif not f:match("MANIFEST") then
        _, warnings = anim.import_blockbench(f)
      end
      if type(warnings) == "table" then
        imported = imported + 1
        for _, w in ipairs(warnings) do
          assert.is_nil(w.message:match("^unknown"), f .. ": " .. (w.channel or "") .. ": " .. w.message)
        end
      end
    end
    assert.is_true(imported >= 60, "imported " .. imported)
  end)
end)

describe("a file of many unknown fields", function()
  it("lists the first 64, in order, and says the rest are not listed", function()
    local parts = {}
    for i = 1, 100 do parts[i] = string.format('"zz%03d": 1', i) end
    local text = '{"format_version": "1.8.0", "animations": {"a": {' .. table.concat(parts, ", ") .. ', "bones": {}}}}'
    local _, warnings = anim.decode_blockbench(text, "u.json")
    assert.are.equal(65, #warnings)
    local lines = {}
    for i, w in ipairs(warnings) do lines[i] = tostring(w.channel) .. ": " .. tostring(w.message) end
    local all = table.concat(lines, "\n")
    assert.truthy(all:find("zz001", 1, true) and all:find("zz064", 1, true), all)
    assert.is_nil(all:find("zz065", 1, true))
    assert.truthy(all:find("more unknown fields, not listed (the first 64 are)", 1, true), all)

    local xml = {}
    for i = 1, 100 do xml[i] = string.format('<zz%03d/>', i) end
    local _, xw = anim.decode_xml("<animation>" .. table.concat(xml) .. "</animation>", "u.xml")
    assert.are.equal(65, #xw)
    assert.are.equal("36 more unknown elements and attributes, not listed (the first 64 are)", xw[65].message)
  end)
end)
