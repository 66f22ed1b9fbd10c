-- Spine's bad input (issue 40): a file that cannot be read at all gives
-- exactly nil, message with its name and the JSON path; what can be left
-- out while the rest still plays is a warning naming its path and why.
-- Every message of the importer is here.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local spine = require "anim.import.spine"
local cjson = require "cjson"
local H = require "spec.helper"

-- A small valid export, changed by each case.
local function base(version)
  return {
    skeleton = { spine = version or "4.1.24" },
    bones = { { name = "root" }, { name = "head", parent = "root" }, { name = "arm", parent = "root" } },
    slots = { { name = "a", bone = "root", attachment = "img" }, { name = "b", bone = "head" },
      { name = "c", bone = "arm" } },
    skins = { { name = "default", attachments = {
      a = { img = { width = 10, height = 10 },
        m = { type = "mesh", uvs = { 0, 0, 1, 0, 1, 1 }, triangles = { 0, 1, 2 }, vertices = { 0, 0, 1, 0, 1, 1 }, hull = 3 } },
    } } },
    ik = { { name = "k", bones = { "arm" }, target = "head" } },
    transform = { { name = "t", bones = { "arm" }, target = "head" } },
    events = { ev = { int = 3 } },
    animations = { run = { bones = { head = { rotate = { { value = 10 }, { time = 1, value = 20 } } } } } },
  }
end

local function decode(doc, name)
  return spine.decode_text(type(doc) == "string" and doc or cjson.encode(doc), name or "x.json")
end

local function fails(doc, want, name)
  local r, err = decode(doc, name)
  assert.is_nil(r)
  assert.are.equal(want, err)
end

-- The warnings of a decoded document other than the kept constraints'.
local function warns(doc, want)
  local r, err = decode(doc)
  assert.is_table(r, err)
  local got = {}
  for _, w in ipairs(r.warnings) do got[#got + 1] = { animation = w.animation, path = w.path, message = w.message } end
  assert.are.same(want, got)
  return r
end

describe("anim.import_spine refuses", function()
  it("a file that is not a Spine JSON export", function()
    fails("[1, 2]", "x.json: expected a Spine JSON export (an object with skeleton, bones, slots...), got array")
    fails("{}", "x.json: skeleton: a Spine JSON export has a skeleton object with its version (skeleton.spine);"
      .. " this file has none")
    local d = base()
    d.skeleton.spine = nil
    fails(d, "x.json: skeleton.spine: the file names no Spine version: this importer reads the JSON exports of"
      .. " Spine 3.8 and 4.0 to 4.2, which name theirs")
    fails("{\"skeleton\": {\"spine\": 3.8}}", "x.json: skeleton.spine: the Spine version must be a string, got number")
  end)

  it("versions it does not read, naming the version and those it reads", function()
    for _, v in ipairs { "3.7.94", "4.3.01", "2.1.27", "beta" } do
      fails(base(v), "x.json: skeleton.spine: Spine '" .. v .. "' is not read: this importer reads the JSON exports"
        .. " of Spine 3.8 and 4.0 to 4.2 (re-export the skeleton from one of those editor versions)")
    end
  end)

  it("a binary export, naming the JSON export", function()
    local want = ": a binary Spine export (.skel) is not read: export the skeleton as JSON (Spine's Export dialog,"
      .. " JSON) and import that"
    fails("\1\2binary", "hero.skel" .. want, "hero.skel")
    fails("\200\3\0\0", "hero.bin" .. want, "hero.bin")
  end)

  it("a bad setup pose, with the JSON path and a suggestion", function()
    local d = base()
    d.slots[3].bone = "hed"
    fails(d, "x.json: slots[3].bone: unknown bone 'hed'; did you mean 'head'?")
    d = base(); d.bones[3].parent = "roo"
    fails(d, "x.json: bones[3].parent: unknown bone 'roo'; did you mean 'root'?")
    d = base(); d.bones[3].name = "head"
    fails(d, "x.json: bones[3].name: two bones are named 'head' (bones 2 and 3)")
    d = base(); d.bones[2].parent = nil
    fails(d, "x.json: bones[2].parent: only the first bone may have no parent; bone 'head' has none")
    d = base(); d.bones[2].name = 7
    fails(d, "x.json: bones[2].name: name must be a string, got number")
    d = base(); d.slots[1].color = "fff"
    fails(d, "x.json: slots[1].color: a colour must be 8 hexadecimal digits (RRGGBBAA), got 'fff'")
    d = base(); d.slots[2].dark = "zz0000"
    fails(d, "x.json: slots[2].dark: a colour must be 6 hexadecimal digits (RRGGBB), got 'zz0000'")
    d = base(); d.bones[2].inherit = "noscale"
    fails(d, "x.json: bones[2].inherit: unknown inherit mode 'noscale'; did you mean 'noScale'? (expected normal,"
      .. " onlyTranslation, noRotationOrReflection, noScale, noScaleOrReflection)")
    d = base("3.8.99"); d.bones[2].transform = "onlytranslation"
    fails(d, "x.json: bones[2].transform: unknown inherit mode 'onlytranslation'; did you mean 'onlyTranslation'?"
      .. " (expected normal, onlyTranslation, noRotationOrReflection, noScale, noScaleOrReflection)")
    d = base(); d.slots[1].blend = "add"
    fails(d, "x.json: slots[1].blend: unknown blend mode 'add'; did you mean 'additive'? (expected normal, additive, multiply, screen)")
    d = base(); d.slots[3].name = "a"
    fails(d, "x.json: slots[3].name: two slots are named 'a' (slots 1 and 3)")
    d = base(); d.ik[1].bones = { "arm", "head", "root" }
    fails(d, "x.json: ik[1].bones: an IK constraint has one or two bones, got 3")
    d = base(); d.ik[1].target = "hea"
    fails(d, "x.json: ik[1].target: unknown bone 'hea'; did you mean 'head'?")
    d = base(); d.transform[1].bones = {}
    fails(d, "x.json: transform[1].bones: a constraint needs at least one bone")
    d = base(); d.skins = { default = {} }
    fails(d, "x.json: skins: skins must be an array of skins (Spine 3.8 and later), got an object (the 3.7 layout)")
    d = base(); d.skins[1].attachments.q = {}
    fails(d, "x.json: skins[1].attachments.q: unknown slot 'q'")
    d = base(); d.skins[1].attachments.a.img.type = "sprite"
    fails(d, "x.json: skins[1].attachments.a.img.type: unknown attachment type 'sprite' (expected region, mesh,"
      .. " linkedmesh, boundingbox, point, clipping, path)")
  end)

  it("constraints the 2D skeleton cannot pose, with the JSON path (not only when anim.skeleton2d reads them)", function()
    -- (found by fuzz_spine: such a file imported, and anim.skeleton2d then
    -- refused its description, naming the description's path)
    local d = base(); d.ik[2] = { name = "k", bones = { "arm" }, target = "head" }
    fails(d, "x.json: ik[2].name: two IK constraints are named 'k' (ik 1 and 2)")
    d = base(); d.transform[2] = { name = "t", bones = { "head" }, target = "arm" }
    fails(d, "x.json: transform[2].name: two transform constraints are named 't' (transform 1 and 2)")
    d = base(); d.transform[1].bones = { "arm", "arm" }
    fails(d, "x.json: transform[1].bones[2]: bone 'arm' twice in one constraint")
    d = base(); d.bones[4] = { name = "hand", parent = "arm" }; d.transform[1].target = "hand"
    fails(d, "x.json: transform[1].target: the target 'hand' cannot be a constrained bone or below one ('arm')")
    d = base(); d.bones[4] = { name = "hand", parent = "arm" }; d.ik[1].target = "hand"
    fails(d, "x.json: ik[1].target: the target 'hand' cannot be a constrained bone or below one ('arm')")
    d = base(); d.ik[1].target = "arm"
    fails(d, "x.json: ik[1].target: the target 'arm' cannot be a constrained bone or below one ('arm')")
    d = base(); d.ik[1].bones = { "head", "arm" }
    fails(d, "x.json: ik[1].bones[2]: the second bone of an IK constraint is a child of the first ('head'), got 'arm'")
    -- what the importer reads, anim.skeleton2d makes
    d = base(); d.bones[4] = { name = "hand", parent = "arm" }; d.ik[1].bones = { "arm", "hand" }
    assert(anim.skeleton2d(assert(decode(d)).skeleton))
  end)

  it("more bones than anim.limits.joints, more vertices than anim.limits.vertices", function()
    local old = anim.set_limits { joints = 2 }
    fails(base(), "x.json: bones: too many bones: 3 (at most 2, anim.limits.joints)")
    anim.set_limits(old)
    old = anim.set_limits { vertices = 2 }
    fails(base(), "x.json: skins[1].attachments.a.m: too many vertices: the attachments would have 3 (at most 2,"
      .. " anim.limits.vertices)")
    anim.set_limits(old)
    -- bounding boxes, clippings and paths count too
    local d = base()
    d.skins[1].attachments.b = { box = { type = "boundingbox", vertexCount = 4, vertices = { 0, 0, 1, 0, 1, 1, 0, 1 } } }
    old = anim.set_limits { vertices = 6 }
    fails(d, "x.json: skins[1].attachments.b.box: too many vertices: the attachments would have 7 (at most 6,"
      .. " anim.limits.vertices)")
    anim.set_limits(old)
    -- a count that is whole but beyond the integers (fuzz/regressions/spine/
    -- vertex-count-1e300: the message's %d raised)
    d = base()
    d.skins[1].attachments.b = { box = { type = "boundingbox", vertexCount = 1e300, vertices = { 0, 0, 1, 0 } } }
    fails(d, "x.json: skins[1].attachments.b.box: too many vertices: the attachments"
      .. " would have 1e+300 (at most " .. anim.limits.vertices .. ", anim.limits.vertices)")
    -- (not the keys' limit any more)
    old = anim.set_limits { keys = 2, vertices = 3 }
    local r, err = decode(base())
    anim.set_limits(old)
    assert.is_table(r, err)
  end)

  it("a file too large (anim.limits.bytes), before reading it", function()
    local tmp = os.tmpname()
    local f = assert(io.open(tmp, "wb"))
    f:write(cjson.encode(base()))
    f:close()
    local old = anim.set_limits { bytes = 100 }
    local r, err = anim.import_spine(tmp)
    anim.set_limits(old)
    os.remove(tmp)
    assert.is_nil(r)
    assert.matches("anim.limits.bytes", err, 1, true)
  end)
end)

describe("anim.import_spine warns, and imports the rest", function()
  local function mesh(fields)
    local d = base()
    for k, v in pairs(fields) do d.skins[1].attachments.a.m[k] = v end
    return d
  end
  local P = "skins[1].attachments.a.m"
  local function skipped(why) return { { path = P, message = "attachment skipped: " .. why } } end

  it("a mesh whose weights or uvs do not match its vertices", function()
    local r = warns(mesh { vertices = { 1, 0, 0, 0, 1, 1, 1, 1, 0, 1 } },
      skipped("vertex 3 of 3: the weighted vertices end early (10 numbers)"))
    assert.is_nil(r.skeleton.skins[1].attachments.a.m)
    assert.is_true(anim.is_clip(r.clips.run))
    warns(mesh { vertices = { 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 7 } },
      skipped("the weighted vertices of 3 uvs pairs take 15 numbers, the array has 16"))
    warns(mesh { vertices = { 1, 5, 0, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1 } },
      skipped("vertex 1: bone index 5 is not a bone (0 to 2)"))
    warns(mesh { vertices = { 0.5, 0, 0, 0, 1 } }, skipped("vertex 1: the bone count must be a whole number >= 1, got 0.5"))
    warns(mesh { uvs = { 0, 0, 1 } }, skipped("3 uvs: not pairs"))
    warns(mesh { triangles = { 0, 1, 3 } }, skipped("triangles[3]: 3 is not a vertex (0 to 2)"))
    warns(mesh { triangles = { 0, 1 } }, skipped("2 triangle indices: not a multiple of 3"))
    warns(mesh { hull = 4 }, skipped("hull 4 is more than the 3 vertices"))
  end)

  it("a linked mesh without its parent or skin", function()
    local d = base()
    d.skins[2] = { name = "red", attachments = { a = { l = { type = "linkedmesh", parent = "mm" } } } }
    warns(d, { { path = "skins[2].attachments.a.l.parent",
      message = "linked mesh skipped: no mesh 'mm' for slot 'a' in skin 'default'" } })
    d.skins[2].attachments.a.l = { type = "linkedmesh", parent = "m", skin = "defualt" }
    warns(d, { { path = "skins[2].attachments.a.l.skin",
      message = "linked mesh skipped: unknown skin 'defualt'; did you mean 'default'?" } })
    d.skins[2].attachments.a.l.skin = nil
    local r = warns(d, {})
    assert.are.equal(6, r.skeleton.skins[2].attachments.a.l.deform_count)
  end)

  local function anim_warns(timelines, want, version)
    local d = base(version)
    d.animations = { run = timelines }
    return warns(d, want)
  end
  local function W(path, message) return { animation = "run", path = "animations.run." .. path, message = message } end

  it("a timeline of an unknown bone, slot or constraint, or of an unknown type", function()
    local r = anim_warns({ bones = { hed = { rotate = { { value = 1 } } }, head = { rotate = { { value = 5 } } } } },
      { W("bones.hed", "unknown bone 'hed'; did you mean 'head'?: left out") })
    assert.is_table(r.clips.run:sample(0).head)
    anim_warns({ bones = { head = { rotat = { { value = 1 } } } } },
      { W("bones.head.rotat", "unknown bone timeline 'rotat'; did you mean 'rotate'?: left out") })
    anim_warns({ slots = { a = { color = { { color = "ffffffff" } } } } },
      { W("slots.a.color", "unknown slot timeline 'color' for Spine 4.1.24: left out") })
    anim_warns({ slots = { z = { rgba = {} } } }, { W("slots.z", "unknown slot 'z': left out") })
    anim_warns({ ik = { kk = { { mix = 1 } } } }, { W("ik.kk", "unknown IK constraint 'kk': left out") })
    anim_warns({ transform = { tt = { {} } } },
      { W("transform.tt", "unknown transform constraint 'tt': left out") })
    anim_warns({ bone = {} }, { W("bone", "unknown animation field 'bone'; did you mean 'bones'?: left out") })
    -- 4.2's inherit timeline: a mode it does not know, or not a string
    anim_warns({ bones = { head = { inherit = { { inherit = "noScale" }, { time = 1, inherit = "noscale" } } } } },
      { W("bones.head.inherit[2].inherit", "unknown inherit mode 'noscale'; did you mean 'noScale'? (expected normal,"
        .. " onlyTranslation, noRotationOrReflection, noScale, noScaleOrReflection): left out") }, "4.2.43")
    r = anim_warns({ bones = { head = { inherit = { { time = 0.5, inherit = 3 } }, rotate = { { value = 5 } } } } },
      { W("bones.head.inherit[1].inherit", "inherit mode must be one of normal, onlyTranslation,"
        .. " noRotationOrReflection, noScale, noScaleOrReflection, got number: left out") }, "4.2.43")
    assert.are.same({}, r.clips.run:properties()) -- (the rest plays)
    assert.is_table(r.clips.run:sample(0).head)
  end)

  it("an unknown curve, a curve of the wrong size, keys out of order", function()
    anim_warns({ bones = { head = { rotate = { { value = 1, curve = "bezier" }, { time = 1 } } } } },
      { W("bones.head.rotate[1].curve", "unknown curve 'bezier' (expected \"stepped\" or an array of 4 numbers): left out") })
    anim_warns({ bones = { head = { translate = { { curve = { 0, 0, 1, 1 } }, { time = 1 } } } } },
      { W("bones.head.translate[1].curve", "a bezier curve of this timeline has 8 numbers (4 per value), got 4: left out") })
    anim_warns({ bones = { head = { rotate = { { angle = 1, curve = "stepd" }, { time = 1 } } } } },
      { W("bones.head.rotate[1].curve", "unknown curve 'stepd'; did you mean 'stepped'? (expected \"linear\","
        .. " \"stepped\", or cx1 with c2, c3, c4): left out") }, "3.8.99")
    anim_warns({ bones = { head = { rotate = { { angle = 1, curve = 1.5 }, { time = 1 } } } } },
      { W("bones.head.rotate[1].curve", "a curve's cx1 and cx2 must be within 0..1, got 1.5 and 1: left out") },
      "3.8.99")
    anim_warns({ bones = { head = { rotate = { { time = 1 }, { time = 0.5 } } } } },
      { W("bones.head.rotate[2].time", "keys must be in time order: 0.5 comes after 1: left out") })
  end)

  it("a deform that does not fit, or of an attachment not there", function()
    anim_warns({ attachments = { default = { a = { m = { deform = { { offset = 4, vertices = { 1, 2, 3 } } } } } } } },
      { W("attachments.default.a.m.deform[1].vertices", "offset 4 and 3 vertices do not fit the attachment's 6 deform"
        .. " numbers: left out") })
    anim_warns({ attachments = { default = { a = { n = { deform = { {} } } } } } },
      { W("attachments.default.a.n", "no attachment 'n' for slot 'a' in skin 'default': left out") })
    anim_warns({ attachments = { default = { a = { img = { deform = { {} } } } } } },
      { W("attachments.default.a.img", "a region attachment has no vertices to deform: left out") })
    anim_warns({ deform = { red = { a = { m = { {} } } } } },
      { W("deform.red", "unknown skin 'red': left out") }, "4.0.64")
  end)

  it("deform keys past anim.limits.vertices", function()
    -- the mesh's 3 vertices, then 3 a key: 3 keys would make 12
    local keys = { { vertices = { 1, 2 } }, { time = 0.5 }, { time = 1, offset = 2, vertices = { 3, 4 } } }
    local old = anim.set_limits { vertices = 11 }
    local r = anim_warns({ attachments = { default = { a = { m = { deform = keys } } } } },
      { W("attachments.default.a.m.deform", "too many vertices: the attachments and deform keys would have 12 (at"
        .. " most 11, anim.limits.vertices): left out") })
    anim.set_limits(old)
    assert.are.same({}, r.clips.run:properties())
    -- 3.8's layout, the same count
    old = anim.set_limits { vertices = 11 }
    anim_warns({ deform = { default = { a = { m = keys } } } },
      { W("deform.default.a.m", "too many vertices: the attachments and deform keys would have 12 (at most 11,"
        .. " anim.limits.vertices): left out") }, "3.8.99")
    anim.set_limits { vertices = 12 }
    r = anim_warns({ attachments = { default = { a = { m = { deform = keys } } } } }, {})
    anim.set_limits(old)
    assert.are.same({ "deform.default.a.m" }, r.clips.run:properties())
  end)

  it("empty deform keys standing for a whole mesh's offsets: left out before they are made", function()
    -- a mesh of 512 vertices and 20,000 keys of 13 bytes each (0.3 MB):
    -- 20 million offsets.  (Made and then refused at anim.limits.keys,
    -- they took 44 s and 7 GB.)
    local d, uv, keys = base(), {}, {}
    for i = 1, 1024 do uv[i] = 0 end
    d.skins[1].attachments.a.big = { type = "mesh", uvs = uv, vertices = uv, triangles = { 0, 1, 2 } }
    for i = 1, 20000 do keys[i] = { time = i } end
    d.animations = { run = { attachments = { default = { a = { big = { deform = keys } } } } } }
    local text = cjson.encode(d)
    local r = H.bounded(30, function() return assert(decode(text)) end)
    assert.are.same({ { animation = "run", path = "animations.run.attachments.default.a.big.deform",
      message = "too many vertices: the attachments and deform keys would have 10240515 (at most 1000000,"
        .. " anim.limits.vertices): left out" } }, r.warnings)
  end)

  it("a draw order offset outside the order, an unknown event", function()
    anim_warns({ drawOrder = { { offsets = { { slot = "b", offset = 5 } } } } },
      { W("drawOrder[1].offsets[1].offset", "offset 5 moves slot 'b' to place 7, which is outside the draw order: left out") })
    anim_warns({ drawOrder = { { offsets = { { slot = "c", offset = -1 }, { slot = "b", offset = 0 } } } } },
      { W("drawOrder[1].offsets[2].slot", "the offsets must list slots in setup order ('b' comes too late): left out") })
    local r = anim_warns({ events = { { name = "ev" }, { time = 0.5, name = "eve" } } },
      { W("events[2].name", "unknown event 'eve'; did you mean 'ev'?: left out") })
    assert.are.equal(1, #r.clips.run:events())
    assert.are.equal(3, r.clips.run:events()[1].payload.int)
  end)

  it("an animation whose clip would pass anim.limits.keys", function()
    local d = base()
    d.animations.big = { bones = { arm = { translate = { { x = 1 }, { time = 1, x = 2 } } } } }
    -- (big, first by name, takes 4 keys: 2 times x 2 axes; run's 2 pass the 1 left)
    local old = anim.set_limits { keys = 5 }
    local r = warns(d, { { animation = "run", path = "animations.run", message = "animation not imported: the clip would"
      .. " have 2 keys, more than the 1 the file's clips may still have (anim.limits.keys is 5 for a file;"
      .. " anim.set_limits raises it)" } })
    anim.set_limits(old)
    assert.is_true(anim.is_clip(r.clips.big))
    assert.is_nil(r.clips.run)
  end)

  it("draw order keys past anim.limits.keys places", function()
    local offs = { offsets = { { slot = "b", offset = -1 } } }
    local old = anim.set_limits { keys = 8 }
    local r = anim_warns({ drawOrder = { offs, offs, offs } }, { W("drawOrder[3]", "too many draw order places: the keys"
      .. " would order 9 slots in all (at most 8, anim.limits.keys): left out") })
    anim.set_limits(old)
    assert.are.same({}, r.clips.run:properties())
  end)

  it("handles of one channel's axes at different times: no warning, each axis its own", function()
    local keys = { { x = 0, y = 0, curve = { 0.1, 2, 0.4, 8, 0.3, -1, 0.4, -3 } },
      { time = 0.5, x = 10, y = -4, curve = { 0.6, 10, 0.9, 5, 0.8, -4, 0.9, 0 } }, { time = 1, x = 0, y = 0 } }
    local r = anim_warns({ bones = { head = { translate = keys } } }, {})
    local out = require("anim.core").clip_info(r.clips.run).source.joints.head.position[2][4].out
    assert.are.same({ 0.6 - 0.5, 0.8 - 0.5, 0.6 - 0.5 }, out[1])
  end)

  it("a bezier handle outside its segment, moved into it, measured on the file's first segments", function()
    -- y's beziers have handle times that cross (x1 > x2); x's keys cut them
    -- at 0.25 and 0.75 s, and the in handle of each piece after a cut
    -- starts before the piece (the format's curve scales it to the piece)
    local tl = { translatex = { { time = 0.25, value = 0 }, { time = 0.75, value = 0 } },
      translatey = { { time = 0.125, value = -1, curve = { 0.525, -18, 0.175, -25 } },
        { time = 0.625, value = -2, curve = { 1.025, 10, 0.675, -20 } }, { time = 1.125, value = 3 } } }
    local r = anim_warns({ bones = { head = tl } }, { W("bones.head.translatex", "a bezier handle"
      .. " outside its segment at the key at 0.75 s: moved into it, head.position deviates by up to 0.66") })
    assert.is_true(anim.is_clip(r.clips.run))
    local was = spine.MEASURED
    spine.MEASURED = 1
    anim_warns({ bones = { head = tl } }, { W("bones.head.translatex", "a bezier handle"
      .. " outside its segment at the key at 0.25 s: moved into it, head.position deviates by up to 0.395"
      .. " (measured on the file's first 1 such segments)") })
    spine.MEASURED = was
  end)

  it("animations past anim.limits.animations, by name", function()
    local d = base()
    d.animations = { c = {}, a = {}, b = {}, d = {} }
    local old = anim.set_limits { animations = 2 }
    local r = warns(d, { { path = "animations", message = "2 animations not imported, from 'c' on (by name): the file"
      .. " has 4, more than anim.limits.animations (2; anim.set_limits raises it)" } })
    anim.set_limits(old)
    assert.is_true(anim.is_clip(r.clips.a) and anim.is_clip(r.clips.b))
    assert.is_nil(r.clips.c)
  end)

  it("at most the first 20 misspelt names get a suggestion, the first MAX_WARNINGS are listed", function()
    local bones = {}
    for c = string.byte("A"), string.byte("Y") do bones["head" .. string.char(c)] = { rotate = { {} } } end
    local d = base()
    d.animations = { run = { bones = bones } }
    local r = assert(decode(d))
    assert.are.equal(25, #r.warnings)
    for i, w in ipairs(r.warnings) do
      local name = "head" .. string.char(string.byte("A") + i - 1)
      assert.are.equal("animations.run.bones." .. name, w.path)
      assert.are.equal("unknown bone '" .. name .. "'" .. (i <= 20 and "; did you mean 'head'?" or "") .. ": left out",
        w.message)
    end
    local was = spine.MAX_WARNINGS
    spine.MAX_WARNINGS = 3
    r = assert(decode(d))
    spine.MAX_WARNINGS = was
    assert.are.equal(4, #r.warnings)
    assert.are.same({ path = "", message = "22 more warnings not listed (the first 3 are)" }, r.warnings[4])
  end)

  it("returns nil, message and never raises for damaged texts", function()
    local text = cjson.encode(base())
    math.randomseed(40)
    for _ = 1, 300 do
      local i = math.random(#text)
      local bad = text:sub(1, i - 1) .. string.char(math.random(32, 126)) .. text:sub(i + 1)
      local ok, r, err = pcall(decode, bad)
      assert.is_true(ok, r)
      assert.is_true(type(r) == "table" or type(err) == "string")
    end
  end)
end)
