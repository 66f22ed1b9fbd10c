-- anim.import_dragonbones / anim.decode_dragonbones: bad input and the
-- rules that small files show best.  Every refusal is `nil, message` with
-- the file's name and the JSON path; what still plays when a part cannot is
-- a warning naming the part.  The files are made here from one small
-- skeleton (base()) with one thing changed.
local anim = require "anim"
local O = require "spec.offsets2d" -- (the clips hold offsets from the setup pose)
local S = O.sample
local cjson = require "cjson"

local function base()
  return {
    version = "5.5", frameRate = 10,
    armature = { {
      name = "a",
      bone = { { name = "root" }, { name = "head", parent = "root", transform = { x = 1 } } },
      slot = { { name = "s", parent = "head" } },
      skin = { { slot = { { name = "s", display = { { name = "img" } } } } } },
      animation = { { name = "go", duration = 10, bone = { { name = "head", translateFrame = {
        { duration = 5, tweenEasing = 0, x = 0 }, { duration = 5, x = 10 } } } } } },
    } },
  }
end

local function mesh_skin(m)
  return { { slot = { { name = "s", display = { m } } } } }
end
local function mesh()
  return { type = "mesh", name = "m", vertices = { 0, 0, 10, 0, 10, 10, 0, 10 },
    uvs = { 0, 0, 1, 0, 1, 1, 0, 1 }, triangles = { 0, 1, 2, 0, 2, 3 } }
end

local function decode(t, tex)
  local r, err = anim.decode_dragonbones(type(t) == "string" and t or cjson.encode(t), "x.json",
    tex and (type(tex) == "string" and tex or cjson.encode(tex)))
  return O.register(r), err
end

local function refused(t, want, tex)
  local r, err = decode(t, tex)
  assert.is_nil(r)
  assert.are.equal(want, err)
end

local function warned(r, pattern)
  for _, w in ipairs(r.warnings) do
    if w:find(pattern, 1, true) then return w end
  end
  error("no warning with '" .. pattern .. "' in:\n" .. table.concat(r.warnings, "\n"), 2)
end

local function with(fn)
  local t = base()
  fn(t, t.armature[1])
  return t
end

describe("anim.import_dragonbones refuses", function()
  it("versions it does not read, naming them, and reads a compatibleVersion it does", function()
    refused(with(function(t) t.version = "4.0" end),
      "x.json: version: DragonBones data version '4.0' is not read (read: 4.5, 5.0 and 5.5): " ..
      "export it from DragonBones Pro 5.5 or later as JSON")
    refused(with(function(t) t.version = "5.6"; t.compatibleVersion = "5.1" end),
      "x.json: version: DragonBones data version '5.6' (compatibleVersion '5.1') is not read (read: 4.5, 5.0 and 5.5): " ..
      "export it from DragonBones Pro 5.5 or later as JSON")
    refused(with(function(t) t.version = nil end),
      "x.json: version: a DragonBones skeleton names its data version (version), none here")
    local r = assert(decode(with(function(t) t.version = "5.6"; t.compatibleVersion = "5.5" end)))
    assert.are.equal("5.5", r.version)
  end)

  it("the binary export, naming the JSON one; other files for the skeleton", function()
    refused("DBDT\3\0\0\0rest",
      "x.json: this is DragonBones' binary export (DBDT): export the skeleton as JSON (DragonBones Pro: Export, data type JSON)")
    refused({ SubTexture = {} }, "x.json: this is a DragonBones TextureAtlas JSON (_tex.json): give the skeleton (_ske.json) first")
    refused("{", "x.json: not valid JSON: Expected object key string but found T_END at character 2")
    refused({ 1, 2 }, "x.json: expected a DragonBones skeleton (an object with version and armature), got array")
    refused(with(function(t) t.armature = {} end), "x.json: armature: a DragonBones skeleton needs at least one armature")
  end)

  it("an atlas that is not one, naming the atlas", function()
    refused(base(), "x.json (texture atlas): this is a DragonBones skeleton (_ske.json), not its TextureAtlas JSON (_tex.json)",
      base())
    refused(base(), "x.json (texture atlas): SubTexture[2].name: two regions are named 'img' (SubTexture[1] and [2])",
      { SubTexture = { { name = "img" }, { name = "img" } } })
    local r, err = anim.import_dragonbones("spec/fixtures/dragonbones/hero_ske.json", "spec/fixtures/dragonbones/nothere.json")
    assert.is_nil(r)
    assert.matches("^spec/fixtures/dragonbones/nothere%.json: cannot open file", err)
  end)

  it("bones: a missing parent, a cycle, two of one name, a surface", function()
    refused(with(function(_, a) a.slot[1].parent = "hed" end),
      "x.json: armature[1].slot[1].parent: unknown bone 'hed'; did you mean 'head'?")
    refused(with(function(_, a) a.bone[2].parent = "rot" end),
      "x.json: armature[1].bone[2].parent: unknown parent bone 'rot'; did you mean 'root'?")
    refused(with(function(_, a) a.bone[1].parent = "head" end),
      "x.json: armature[1].bone[1].parent: bone 'root' is its own ancestor")
    refused(with(function(_, a) a.bone[2].name = "root" end),
      "x.json: armature[1].bone[2].name: two bones are named 'root' (bone[1] and bone[2])")
    refused(with(function(_, a) a.bone[2].type = "surface" end),
      "x.json: armature[1].bone[2].type: bone type 'surface' is not read (DragonBones 4.5-5.5 have bones only)")
    refused(with(function(_, a) a.slot[1].parent = nil end),
      "x.json: armature[1].slot[1].parent: slot 's' needs its bone (parent)")
    refused(with(function(_, a) a.bone[2].transform.x = "1" end),
      "x.json: armature[1].bone[2].transform.x: x must be a finite number, got string")
  end)

  it("meshes whose uvs, weights or triangles do not match their vertices", function()
    refused(with(function(_, a) local m = mesh(); m.uvs[8] = nil; a.skin = mesh_skin(m) end),
      "x.json: armature[1].skin[1].slot[1].display[1].uvs: uvs holds 7 numbers for 4 vertices (2 a vertex): they do not match the vertex count")
    refused(with(function(_, a) local m = mesh(); m.triangles[6] = 4; a.skin = mesh_skin(m) end),
      "x.json: armature[1].skin[1].slot[1].display[1].triangles[6]: a triangle's vertex index must be a whole number from 0 to 3, got 4")
    local function weighted(w)
      return with(function(_, a)
        local m = mesh()
        m.weights, m.bonePose = w, { 1, 1, 0, 0, 1, 0, 0 }
        a.skin = mesh_skin(m)
      end)
    end
    refused(weighted { 1, 1, 1, 1, 1, 1, 1, 1, 1 },
      "x.json: armature[1].skin[1].slot[1].display[1].weights: the weights end at vertex 4 of 4: they do not match the vertex count")
    refused(weighted { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
      "x.json: armature[1].skin[1].slot[1].display[1].weights: weights holds 13 numbers, 1 more than its 4 vertices use: " ..
      "they do not match the vertex count")
    refused(weighted { 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
      "x.json: armature[1].skin[1].slot[1].display[1].weights[2]: vertex 1 is weighted to bone 0, which bonePose does not list")
    refused(with(function(_, a)
      local m = mesh()
      m.weights, m.bonePose = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, { 5, 1, 0, 0, 1, 0, 0 }
      a.skin = mesh_skin(m)
    end), "x.json: armature[1].skin[1].slot[1].display[1].bonePose[1]: bonePose names bone 5; the armature has bones 0..1")
  end)

  it("curves it cannot read, durations below 0, offsets past a mesh, a bad zOrder", function()
    local function frame0(set)
      return with(function(_, a) set(a.animation[1].bone[1].translateFrame[1]) end)
    end
    refused(frame0(function(f) f.curve = { 0.5, 0, 0.5 } end),
      "x.json: armature[1].animation[1].bone[1].translateFrame[1].curve: a curve holds 4 numbers (x1, y1, x2, y2), " ..
      "or 4 + 6 for each point more, got 3")
    refused(frame0(function(f) f.curve = { 1.5, 0, 0.5, 1 } end),
      "x.json: armature[1].animation[1].bone[1].translateFrame[1].curve[1]: a curve's x (its time) must be within 0..1, got 1.5")
    refused(frame0(function(f) f.duration = -1 end),
      "x.json: armature[1].animation[1].bone[1].translateFrame[1].duration: duration must be a whole number >= 0, got -1")
    refused(with(function(_, a)
      a.skin = mesh_skin(mesh())
      a.animation[1].ffd = { { name = "m", slot = "s", frame = { { offset = 6, vertices = { 1, 2, 3 } } } } }
    end), "x.json: armature[1].animation[1].ffd[1].frame[1].vertices: 3 offsets from 6 run past the mesh's 4 vertices (8 numbers)")
    refused(with(function(_, a) a.animation[1].zOrder = { frame = { { zOrder = { 0, 1 } } } } end),
      "x.json: armature[1].animation[1].zOrder.frame[1].zOrder[2]: slot 0's zOrder offset 1 puts it outside the slots")
  end)

  it("a stage that names no armature, two animations of one name, an unknown display type", function()
    refused(with(function(t) t.stage = "A" end), "x.json: stage: stage names armature 'A', which the file does not have; did you mean 'a'?")
    refused(with(function(_, a) a.animation[2] = a.animation[1] end),
      "x.json: armature[1].animation[2].name: two animations are named 'go'")
    refused(with(function(_, a) a.skin[1].slot[1].display[1].type = "meshh" end),
      "x.json: armature[1].skin[1].slot[1].display[1].type: unknown display type 'meshh'; did you mean 'mesh'? " ..
      "(expected image, mesh, armature, boundingBox or path)")
  end)

  -- the rest of the refusals, one change each
  local function weighted_mesh(set)
    return function(_, a)
      local m = mesh()
      m.weights, m.bonePose = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, { 1, 1, 0, 0, 1, 0, 0 }
      set(m)
      a.skin = mesh_skin(m)
    end
  end
  local D = "x.json: armature[1].skin[1].slot[1].display[1]"
  local CASES = {
    { function(t) t.version = true end, "x.json: version: version must be a string, got boolean" },
    { function(t) t.armature[2] = base().armature[1] end, "x.json: armature[2].name: two armatures are named 'a'" },
    { function(_, a) a.slot[2] = { name = "s", parent = "root" } end,
      "x.json: armature[1].slot[2].name: two slots are named 's' (slot[1] and slot[2])" },
    { function(_, a) a.skin[2] = { name = "default" } end,
      "x.json: armature[1].skin[2].name: two skins are named 'default' (skin[1] and skin[2])" },
    { function(_, a) a.skin[1].slot[1].name = "S" end, "x.json: armature[1].skin[1].slot[1].name: unknown slot 'S'; did you mean 's'?" },
    { function(_, a) a.ik = { { bone = "heda", target = "root" } } end,
      "x.json: armature[1].ik[1].bone: unknown bone 'heda'; did you mean 'head'?" },
    { function(_, a) a.ik = { { bone = "head", target = "roo" } } end,
      "x.json: armature[1].ik[1].target: unknown bone 'roo'; did you mean 'root'?" },
    { function(_, a) a.ik = { { name = "k", bone = "head", target = "root" }, { name = "k", bone = "head", target = "root" } } end,
      "x.json: armature[1].ik[2].name: two IK constraints are named 'k'" },
    -- (a target that moves with the bones it aims: the runtime's bone sort never ends)
    { function(_, a) a.ik = { { bone = "root", target = "head" } } end,
      "x.json: armature[1].ik[1].target: the target 'head' cannot be a constrained bone or below one ('root')" },
    { function(_, a) a.ik = { { bone = "head", target = "head" } } end,
      "x.json: armature[1].ik[1].target: the target 'head' cannot be a constrained bone or below one ('head')" },
    { function(_, a) a.ik = { { bone = "head", chain = 1, target = "head" } } end,
      "x.json: armature[1].ik[1].target: the target 'head' cannot be a constrained bone or below one ('root')" },
    { function(_, a) local m = mesh(); m.vertices = nil; a.skin = mesh_skin(m) end, D .. ".vertices: a mesh needs its vertices" },
    { function(_, a) local m = mesh(); m.uvs = nil; a.skin = mesh_skin(m) end, D .. ".uvs: a mesh needs its uvs" },
    { function(_, a) local m = mesh(); m.triangles = nil; a.skin = mesh_skin(m) end, D .. ".triangles: a mesh needs its triangles" },
    { function(_, a) local m = mesh(); m.vertices[9] = 1; a.skin = mesh_skin(m) end, D .. ".vertices: vertices holds x, y pairs, got 9 numbers" },
    { function(_, a) local m = mesh(); m.triangles[7] = 1; a.skin = mesh_skin(m) end,
      D .. ".triangles: triangles holds 3 indices a triangle, got 7 numbers" },
    { weighted_mesh(function(m) m.bonePose = nil end), D .. ".bonePose: a weighted mesh needs bonePose (the bones' bind matrices)" },
    { weighted_mesh(function(m) m.bonePose[8] = 1 end),
      D .. ".bonePose: bonePose holds 7 numbers a bone (index, a, b, c, d, tx, ty), got 8 numbers" },
    { weighted_mesh(function(m) m.bonePose = { 1, 1, 1, 1, 1, 0, 0 } end),
      D .. ".bonePose[1]: the bind matrix of bone 'head' cannot be inverted (its determinant is 0)" },
    { weighted_mesh(function(m) m.weights[1] = 0 end), D .. ".weights[1]: a vertex's bone count must be a whole number >= 1, got 0" },
    { weighted_mesh(function(m) m.weights = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1 } end),
      D .. ".weights: the weights end inside vertex 4 of 4: they do not match the vertex count" },
    { weighted_mesh(function(m) m.slotPose = { 1, 0, 0, 1, 0 } end),
      D .. ".slotPose: slotPose needs 6 finite numbers at 1, got nil" },
    { function(_, a) a.skin[1].slot[1].display[1] = { type = "boundingBox", subType = "polygon", vertices = { 1, 2, 3 } } end,
      D .. ".vertices: vertices holds x, y pairs, got 3 numbers" },
    { function(_, a) a.animation[1].zOrder = { frame = { { zOrder = { 0 } } } } end,
      "x.json: armature[1].animation[1].zOrder.frame[1].zOrder: zOrder holds slot index, offset pairs, got 1 numbers" },
    { function(_, a)
        a.slot[2] = { name = "t", parent = "root" }
        a.animation[1].zOrder = { frame = { { zOrder = { 1, -1, 0, 1 } } } }
      end, "x.json: armature[1].animation[1].zOrder.frame[1].zOrder[3]: zOrder's slot indices must be whole, increasing, " ..
      "from 0 to 1, got 0" },
    { function(_, a) a.bone[2].inheritScale = {} end,
      "x.json: armature[1].bone[2].inheritScale: inheritScale must be true or false, got empty table" },
    { function(_, a) a.slot[1].parent = 3 end, "x.json: armature[1].slot[1].parent: parent must be a string, got number" },
    { function(_, a) a.animation[1].bone[1].translateFrame[1].curve = { 0.5, "a", 0.5, 1 } end,
      "x.json: armature[1].animation[1].bone[1].translateFrame[1].curve[2]: curve must hold finite numbers, got string" },
  }
  it("the rest, each naming its field (" .. #CASES .. " cases)", function()
    for _, c in ipairs(CASES) do refused(with(c[1]), c[2]) end
  end)

  it("atlases that are not, naming the atlas", function()
    refused(base(), "x.json (texture atlas): expected DragonBones' TextureAtlas JSON (an object with SubTexture), got array", { 1 })
    refused(base(), "x.json (texture atlas): SubTexture: a TextureAtlas JSON needs its SubTexture list", { imagePath = "a.png" })
    refused(base(), "x.json (texture atlas): SubTexture[1]: a region's width and height must be >= 0",
      { SubTexture = { { name = "img", width = -1 } } })
  end)

  it("what is past anim.limits", function()
    local old = anim.set_limits { joints = 1 }
    local r, err = decode(base())
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].bone: too many bones: 2 (at most 1, anim.limits.joints)", err)
    old = anim.set_limits { keys = 5 }
    r, err = decode(base())
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].bone[1].translateFrame: too many keys: the clips would have more than 5 " ..
      "(anim.limits.keys)", err)
    old = anim.set_limits { keys = 7 }
    r, err = decode(with(function(_, a) a.skin = mesh_skin(mesh()) end))
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].skin[1].slot[1].display[1]: too many mesh numbers: the armatures' vertices, uvs " ..
      "and weights come to more than 7 (anim.limits.keys)", err)
    -- vertices: a mesh's 4, a polygon box's, deform frames' 4 each, across the armatures
    old = anim.set_limits { vertices = 3 }
    r, err = decode(with(function(_, a) a.skin = mesh_skin(mesh()) end))
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].skin[1].slot[1].display[1]: too many vertices: the armatures' attachments " ..
      "would have 4 (at most 3, anim.limits.vertices)", err)
    old = anim.set_limits { vertices = 6 }
    r, err = decode(with(function(t, a)
      a.skin = mesh_skin(mesh())
      local b = base().armature[1]
      b.name = "b"
      b.skin = mesh_skin({ type = "boundingbox", subType = "polygon", name = "box", vertices = { 0, 0, 1, 0, 1, 1 } })
      t.armature[2] = b
    end))
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[2].skin[1].slot[1].display[1]: too many vertices: the armatures' attachments " ..
      "would have 7 (at most 6, anim.limits.vertices)", err)
    local function deformed(_, a)
      a.skin = mesh_skin(mesh())
      a.animation[1].ffd = { { name = "m", slot = "s", frame = { { duration = 5 }, { duration = 5 } } } }
    end
    old = anim.set_limits { vertices = 11 }
    r, err = decode(with(deformed))
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].ffd[1].frame: too many vertices: the armatures' attachments and " ..
      "deform frames would have 12 (at most 11, anim.limits.vertices)", err)
    old = anim.set_limits { vertices = 12 }
    r, err = decode(with(deformed))
    anim.set_limits(old)
    assert.is_table(r, err)
    old = anim.set_limits { items = 1 }
    r, err = decode(with(function(_, a) a.animation[1].frame = { { duration = 1, event = "a" }, { event = "b" } } end))
    anim.set_limits(old)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].frame[2].event: too many timed items: animation 'go' has more than 1 " ..
      "(anim.limits.items)", err)
  end)

  it("an animation whose clip cannot be made, naming the animation's path (not the clip's)", function()
    -- (found after fuzz_dragonbones: 1e15 frames at a frameRate of 1e-300 are
    -- at an infinite time, and the message named joints.root.position[2][1],
    -- a path of no file)
    local t = with(function(d, a)
      d.frameRate = 1e-300
      a.animation[1].duration = 1e15 + 5
      a.animation[1].bone[1].translateFrame[1].duration = 1e15
    end)
    refused(t, "x.json: armature[1].animation[1]: the clip made of animation 'go' is refused (joints.head.position[2][1]:"
      .. " time must be a finite number, got inf)")
  end)

  it("arguments that are not strings (raises, as every function does)", function()
    assert.has_error(function() anim.import_dragonbones(nil) end,
      "bad argument #1 to 'import_dragonbones' (string expected, got nil)")
    assert.has_error(function() anim.import_dragonbones("x", 3) end,
      "bad argument #2 to 'import_dragonbones' (string expected, got number)")
  end)
end)

describe("anim.import_dragonbones warns and goes on", function()
  it("for a timeline of an unknown bone or slot, a missing region, colour offsets, a blend it draws as normal", function()
    local r = assert(decode(with(function(_, a)
      a.animation[1].bone[2] = { name = "haed", translateFrame = { { x = 1 } } }
      a.animation[1].slot = { { name = "t", displayFrame = { { value = 0 } } } }
      a.slot[1].color = { rO = 10 }
      a.slot[1].blendMode = "overlay"
    end), { SubTexture = { { name = "other" } } }))
    assert.are.equal("armature[1].animation[1].bone[2].name: a timeline for an unknown bone 'haed'; did you mean 'head'? is skipped",
      warned(r, "haed"))
    assert.are.equal("armature[1].animation[1].slot[1].name: a timeline for an unknown slot 't' is skipped", warned(r, "slot 't'"))
    assert.are.equal("armature[1].skin[1].slot[1].display[1].path: display 'img': no region 'img' in the texture atlas; " ..
      "it is drawn without one", warned(r, "no region"))
    assert.are.equal("armature[1].slot[1].color: slot 's': colour offsets (rO = 10) are not played: the colour is the " ..
      "multipliers only", warned(r, "offsets"))
    assert.are.equal("armature[1].slot[1].blendMode: slot 's': blend mode 'overlay' is drawn as normal " ..
      "(the contract has normal, additive, multiply, screen)", warned(r, "overlay"))
    -- the rest plays
    assert.are.equal(6, S(r.clips.go, 0.25).head.position[1])
  end)

  it("for a linked mesh whose mesh is not there, and regions of an atlas without a page size", function()
    local r = assert(decode(with(function(_, a)
      a.skin = mesh_skin({ type = "mesh", name = "link", share = "m" })
    end)))
    assert.are.equal("armature[1].skin[1].slot[1].display[1]: display 'link': it shares mesh 'm' of skin 'default', which"
      .. " no slot of that skin has; it is skipped", warned(r, "shares"))
    assert.is_nil(r.description.skins[1].attachments.s.link)
    r = assert(decode(with(function(_, a)
      a.skin = { { name = "4.2.0", slot = { { name = "s", display = { mesh(), { type = "mesh", name = "link", share = "m" } } } } } }
    end)))
    assert.are.equal("armature[1].skin[1].slot[1].display[2]: display 'link': it shares mesh 'm' of skin 'default', which"
      .. " is not a skin; it is skipped", warned(r, "shares"))
    -- (a mesh named by its display name, in a skin that files it under the
    -- default skin's name at its index: its parent is that name)
    r = assert(decode(with(function(_, a)
      local red = mesh()
      red.name = "mRed"
      a.skin = { { slot = { { name = "s", display = { mesh(), { name = "img" } } } } },
        { name = "red", slot = { { name = "s", display = { red, { type = "mesh", name = "link", share = "mRed", skin = "red" } } } } } }
    end)))
    local red = r.description.skins[2].attachments.s
    assert.are.same({ "linkedmesh", "m", "red" }, { red.img.type, red.img.parent, red.img.skin })
    assert.are.same({ "mesh", "mRed" }, { red.m.type, red.m.name })
    r = assert(decode(base(), { SubTexture = { { name = "img", width = 4, height = 4 } } }))
    assert.are.equal("armature[1].skin[1].slot[1].display[1].path: display 'img': the texture atlas gives no page size"
      .. " (width, height), so region 'img' has no texture coordinates; it is drawn without an image", warned(r, "page size"))
    refused(base(), "x.json (texture atlas): SubTexture[1]: the region 'img': its texture coordinates are not finite (x 1e+308,"
      .. " y 0, width 1e+308, height 1 on a page of 1 x 1)",
      { width = 1, height = 1, SubTexture = { { name = "img", x = 1e308, width = 1e308, height = 1 } } })
  end)

  it("for a tweenEasing it approximates, with the bound", function()
    local r = assert(decode(with(function(_, a) a.animation[1].bone[1].translateFrame[1].tweenEasing = 1.5 end)))
    -- 0.5 (the blend) x 0.0100085067 (smoothstep against the sine) x 10
    local w = warned(r, "tweenEasing 1.5")
    local bound = tonumber(w:match("off by at most (%S+)$"))
    assert.is_true(math.abs(bound - 0.0500425335) < 1e-9, w)
    -- and it is a bound: the clip within it of the runtime's blend
    local worst = 0
    for i = 1, 99 do
      local p = i / 100
      local want = 1 + 10 * (p + 0.5 * (0.5 * (1 - math.cos(math.pi * p)) - p))
      worst = math.max(worst, math.abs(S(r.clips.go, p * 0.5).head.position[1] - want))
    end
    assert.is_true(worst <= bound + 1e-9 and worst > bound * 0.9, worst)
  end)
end)

describe("anim.import_dragonbones' timing rules", function()
  it("the last frame tweens back to the first when the animation loops, holds when it plays once", function()
    local function at(play_times, t)
      local r = assert(decode(with(function(_, a)
        local an = a.animation[1]
        an.playTimes = play_times
        an.bone[1].translateFrame[2].tweenEasing = 0
      end)))
      return S(r.clips.go, t).head.position[1]
    end
    -- frames 0-5: 0 -> 10; frames 5-10: the last frame (10) back to 0 when looping
    assert.are.equal(1 + 5, at(0, 0.75))
    assert.are.equal(1 + 10, at(1, 0.75))
  end)

  it("plays a curve of several points through its points, each piece a bezier", function()
    -- (0,0) -> (0.5, 0.8) -> (1,1): the handles of each piece on its chord,
    -- so each piece is a line in (time, progress)
    local r = assert(decode(with(function(_, a)
      a.animation[1].bone[1].translateFrame[1] = { duration = 5, x = 0,
        curve = { 1 / 6, 0.8 / 3, 2 / 6, 1.6 / 3, 0.5, 0.8, 4 / 6, 0.8 + 0.2 / 3, 5 / 6, 0.8 + 0.4 / 3 } }
    end)))
    local c = r.clips.go
    -- x(t) = 1 + 10·progress; frames 0-5 are 0 .. 0.5 s
    assert.is_true(math.abs(S(c, 0.125).head.position[1] - (1 + 4)) < 1e-9)
    assert.is_true(math.abs(S(c, 0.25).head.position[1] - (1 + 8)) < 1e-9)
    assert.is_true(math.abs(S(c, 0.375).head.position[1] - (1 + 9)) < 1e-9)
  end)

  it("counts frames past the animation's end out, with a warning", function()
    local r = assert(decode(with(function(_, a)
      a.animation[1].bone[1].translateFrame = { { duration = 10, tweenEasing = 0, x = 0 }, { duration = 5, x = 10 }, { x = 20 } }
    end)))
    assert.are.equal("armature[1].animation[1].bone[1].translateFrame[3]: bone 'head' translateFrame: 1 frame past the " ..
      "animation's end (frame 10) never reached", warned(r, "past the"))
    assert.are.equal(11, S(r.clips.go, 1).head.position[1])
  end)

  it("an empty frame list is no timeline (the demos have them)", function()
    local r = assert(decode(with(function(_, a)
      a.animation[1].bone[1].rotateFrame = {} -- (encoded {}: read as an empty list)
      a.animation[1].slot = { { name = "s", colorFrame = {} } }
    end)))
    local s = S(r.clips.go, 0.5)
    assert.is_nil(s.head.rotation)
    assert.is_nil(s.properties)
  end)

  it("a playTimes above 1 loops, with a warning", function()
    local r = assert(decode(with(function(_, a) a.animation[1].playTimes = 3 end)))
    assert.are.equal("loop", anim.table(r.clips.go).loop)
    assert.are.equal("armature[1].animation[1].playTimes: animation 'go' plays 3 times: the clip loops (stop its track after " ..
      "3 passes)", warned(r, "plays 3 times"))
  end)
end)

-- Hostile files: work bounded by what the file holds and by anim.limits,
-- counted in Lua instructions (H.bounded), never timed.
describe("anim.import_dragonbones' work on hostile files", function()
  local H = require "spec.helper"

  -- a file of base()'s with `extra` spliced into armature[1] (text: the
  -- lists are too long to build as tables cheaply)
  local function spliced(t, extra)
    local text = cjson.encode(t)
    return (text:gsub('"name":"a"', function() return extra .. '"name":"a"' end, 1))
  end
  -- (string.rep with a separator is 5.2+)
  local function rep(s, n, sep) return (s .. sep):rep(n - 1) .. s end

  it("refuses deform frames that stand for more offsets than anim.limits.keys, before making them", function()
    -- a mesh of 20,000 vertices and 100,000 empty deform frames of 2
    -- bytes each: 4e9 offsets
    local n = 20000
    local verts = rep("0,0", n, ",")
    local tris = rep("0,0,0", 10, ",")
    local t = with(function(_, a) a.skin = nil; a.animation = nil end)
    local text = spliced(t, string.format(
      '"skin":[{"slot":[{"name":"s","display":[{"type":"mesh","name":"m","vertices":[%s],"uvs":[%s],"triangles":[%s]}]}]}],' ..
      '"animation":[{"name":"go","duration":10,"ffd":[{"name":"m","slot":"s","frame":[%s]}]}],',
      verts, verts, tris, rep("{}", 100000, ",")))
    local r, err = H.bounded(30, function() return anim.decode_dragonbones(text, "x.json") end)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].ffd[1].frame: too many keys: the clips would have more than 1000000 " ..
      "(anim.limits.keys)", err)
  end)

  it("refuses draw-order frames that stand for more than anim.limits.keys, before making them", function()
    -- 4,000 slots and 100,000 zOrder frames: 4e8 slot places
    local slots = {}
    for i = 1, 4000 do slots[i] = string.format('{"name":"s%d","parent":"root"}', i) end
    local t = with(function(_, a) a.slot = nil; a.skin = nil; a.animation = nil end)
    local text = spliced(t, '"slot":[' .. table.concat(slots, ",") .. '],' ..
      '"animation":[{"name":"go","duration":10,"zOrder":{"frame":[' .. rep('{"zOrder":[0,1]}', 100000, ",") .. ']}}],')
    local r, err = H.bounded(30, function() return anim.decode_dragonbones(text, "x.json") end)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].zOrder.frame: too many keys: the clips would have more than 1000000 " ..
      "(anim.limits.keys)", err)
  end)

  it("stops a curve of many points at anim.limits.keys as its keys are made", function()
    local pts = {}
    for i = 1, 100000 do
      local x = i / 100001
      pts[i] = string.format("%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", x, x, x, x, x, x)
    end
    local t = with(function(_, a) a.animation = nil end)
    local text = spliced(t, '"animation":[{"name":"go","duration":10,"bone":[{"name":"head","translateFrame":[' ..
      '{"duration":10,"x":0,"curve":[0,0,0,0,' .. table.concat(pts, ",") .. ']},{"x":1}]}]}],')
    local old = anim.set_limits { keys = 30000 }
    -- (20 million instructions, most of them checking the 600,000 numbers;
    -- making all 100,000 keys before counting them took 33 million)
    local ok, r, err = pcall(H.bounded, 25, function() return anim.decode_dragonbones(text, "x.json") end)
    anim.set_limits(old)
    assert(ok, r)
    assert.is_nil(r)
    assert.are.equal("x.json: armature[1].animation[1].bone[1].translateFrame: too many keys: the clips would have more " ..
      "than 30000 (anim.limits.keys)", err)
  end)

  it("numbers 20,000 displays of one name in linear work", function()
    local t = with(function(_, a) a.skin = nil end)
    local text = spliced(t, '"skin":[{"slot":[{"name":"s","display":[' .. rep('{"name":"x"}', 20000, ",") .. ']}]}],')
    local r = assert(H.bounded(60, function() return anim.decode_dragonbones(text, "x.json") end))
    local names = r.description.slots[1].attachment_names
    assert.are.same({ 20000, "x", "x#2", "x#20000" }, { #names, names[1], names[2], names[20000] })
  end)
end)
