-- The `anim` command on 2D skeletons (issue 40): info, validate, plot and
-- convert of DragonBones files (spec/fixtures/dragonbones: our own
-- skeleton, its atlas beside it), run as a subprocess as spec/cli_spec.lua
-- runs the command.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local anim = require "anim"

local q = H.sq

local DB = H.absolute(H.root) .. "/spec/fixtures/dragonbones/"
local HERO, HERO45, TEX = DB .. "hero_ske.json", DB .. "hero45_ske.json", DB .. "hero_tex.json"

local tmp
before_each(function() tmp = H.tmpdir() end)
after_each(function() os.execute("rm -rf " .. q(tmp)) end)

-- `anim ARGS` in the temp dir: status, stdout, stderr.
local function run(args) return H.anim_command(tmp, args) end

local function lines(s)
  local out = {}
  for l in s:gmatch("([^\n]*)\n") do out[#out + 1] = l end
  return out
end

-- The lines of a section of `anim info` ("bones (14)" up to the next
-- heading, a line that does not start with a space).
local function section(text, heading)
  local out, inside = {}, false
  for _, l in ipairs(lines(text)) do
    if inside and not l:match("^ ") then break end
    if inside then out[#out + 1] = l end
    if l == heading then inside = true end
  end
  assert(inside, "no section " .. heading)
  return out
end

local function copy(from, to)
  H.write(to, H.read(from))
  return to
end

describe("anim --help", function()
  it("names the 2D skeletons among what the command reads", function()
    local code, out = run("--help")
    assert.are.equal(0, code)
    assert.truthy(out:find("2D skeletons (Spine, DragonBones)", 1, true))
  end)
end)

describe("anim info of a 2D skeleton", function()
  it("prints the skeleton: format, bones with parents and inherit modes, slots, skins by type, IK, data", function()
    local code, out, err = run("info " .. q(HERO))
    assert.are.equal(0, code, err)
    local l = lines(out)
    assert.are.equal(HERO .. "  skeleton", l[1])
    assert.are.equal("  format     DragonBones 5.5 (y down)", l[2])
    assert.are.equal("  bounds     200 x 180 at -80, -90", l[3])
    assert.are.equal("  armatures  hero (14 bones, 2 animations; shown), prop (1 bone, 1 animation)", l[5])
    local bones = section(out, "bones (14)")
    assert.are.equal(14, #bones)
    assert.are.equal("  root         (root)  normal  at 0, 0  rotation 0  scale 1, 1", bones[1])
    assert.are.equal("  head         parent body  normal  at 60, 0  rotation 5  scale 1, 1.25  shear 0, -15  length 30",
      bones[3])
    -- (a bone that leaves out some of its parent's transform: DragonBones' own rule, its flags)
    assert.are.equal("  arm          parent body  DragonBones' rule, inheriting no rotation  at 20, 10  rotation 45"
      .. "  scale 1, 1", bones[4])
    assert.are.equal("  tail         parent body  DragonBones' rule, inheriting no rotation, no scale  at -10, 5"
      .. "  rotation 90  scale 1, 1", bones[6])
    local slots = section(out, "slots (7, in draw order)")
    assert.are.equal("  body_slot  bone body  attachment body (of body, body_alt)  blend normal  color 1 1 1 1", slots[1])
    assert.are.equal("  head_slot  bone head  attachment head (of head)  blend normal  color 0.5 1 1 0.8", slots[2])
    assert.are.equal("  arm_slot   bone arm  attachment (none) (of arm, arm_up)  blend additive  color 1 1 1 1", slots[4])
    assert.are.same({
      "  default: 10 attachments: 5 region, 1 mesh, 1 linkedmesh, 2 boundingbox, 1 armature",
      "    region      body_slot/body, body_slot/body_alt, head_slot/head, arm_slot/arm, arm_slot/arm_up",
      "    mesh        cape/cape (weighted)",
      "    linkedmesh  cape_copy/cape_link",
      "    boundingbox hitbox/box, hitbox/ring",
      "    armature    weapon/prop",
      "  gold: 1 attachment: 1 region",
      "    region      head_slot/head",
    }, section(out, "skins (2)"))
    assert.are.same({
      "  leg_ik  bones leg_upper, leg_lower -> target foot_target  mix 1  bend -1",
      "  aim  bones head -> target aim_target  mix 0.5  bend 1",
    }, section(out, "ik constraints (2)"))
    assert.are.same({ "  1  head_slot, cape, arm_slot, body_slot, hitbox, weapon, cape_copy" },
      section(out, "draw orders (1, of the animations)"))
    assert.are.same({ "  step" }, section(out, "events (1)"))
    assert.are.same({
      "  bounding box 'ring' (skin default, slot hitbox): an ellipse, no vertices",
      "  armature display 'prop' (skin default, slot weapon): shows armature 'prop'",
    }, section(out, "kept as data, not played (2)"))
    -- then the animations as for other files, and the warnings last, "file: json.path: message"
    assert.are.same({ "  arm       position 3 keys", "  body      position 4 keys, rotation 3 keys (Euler), scale 3 keys",
      "  head      rotation 4 keys (Euler)", "  mirror    rotation 2 keys (Euler)" }, section(out, "joints (4)"))
    assert.truthy(out:find("\n" .. HERO .. "  animation walk\n", 1, true))
    assert.truthy(out:find("\n" .. HERO .. "  animation wave\n", 1, true))
    assert.truthy(out:find("\n  slot.head_slot.color       4 components, 3 keys\n", 1, true))
    assert.truthy(out:find("\n  slot.body_slot.attachment  1 component, 3 keys, discrete\n", 1, true))
    local warnings = section(out, "warnings (3)")
    assert.are.equal("  " .. HERO .. ": armature[2].skin[1].slot[5].display[2]: bounding box 'ring': an ellipse is kept"
      .. " as data (width, height), without vertices", warnings[1])
  end)

  it("shows the regions an atlas gives, and says so of those without one", function()
    local path = copy(HERO45, tmp .. "/lone_ske.json") -- (no lone_tex.json beside it)
    local code, out, err = run("info lone_ske.json --animation wave")
    assert.are.equal(0, code, err)
    assert.are.equal("    region      body_slot/body (no atlas region), body_slot/body_alt (no atlas region),"
      .. " head_slot/head (no atlas region), arm_slot/arm (no atlas region), arm_slot/arm_up (no atlas region)",
      section(out, "skins (2)")[2])
    copy(TEX, tmp .. "/lone_tex.json")
    code, out = run("info lone_ske.json --animation wave")
    assert.are.equal(0, code)
    assert.are.equal("    region      body_slot/body, body_slot/body_alt, head_slot/head, arm_slot/arm, arm_slot/arm_up",
      section(out, "skins (2)")[2])
    -- --animation: the skeleton, then that animation only
    assert.falsy(out:find("animation walk", 1, true))
    assert.truthy(out:find("lone_ske.json  animation wave", 1, true))
    os.remove(path)
  end)
end)

describe("anim validate of 2D skeletons", function()
  it("checks a skeleton with the atlas beside it; a folder's atlases are skipped, said why", function()
    local dir = tmp .. "/db"
    os.execute("mkdir " .. q(dir))
    copy(HERO, dir .. "/hero_ske.json")
    copy(TEX, dir .. "/hero_tex.json")
    local code, out, err = run("validate db")
    assert.are.equal(0, code, err)
    local want = assert(anim.import_dragonbones(HERO, TEX)).warnings
    local got = lines(out)
    assert.are.equal(#want, #got)
    for i, w in ipairs(want) do assert.are.equal("db/hero_ske.json: " .. w, got[i]) end
    assert.are.same({ "anim validate: skipped db/hero_tex.json: a DragonBones texture atlas (checked with the skeleton"
      .. " beside it)", "anim validate: 1 file checked, all good (3 warnings), 1 file skipped" }, lines(err))
    code = run("validate --strict db")
    assert.are.equal(1, code)
  end)

  it("reports a skeleton that does not load, a bad atlas beside it, and an atlas given alone", function()
    local dir = tmp .. "/db"
    os.execute("mkdir " .. q(dir))
    local text = H.read(HERO):gsub('"parent"%s*:%s*"head"', '"parent": "hed"', 1)
    H.write(dir .. "/bad_ske.json", text)
    local _, want = anim.import_dragonbones(dir .. "/bad_ske.json")
    assert.truthy(want)
    copy(HERO, dir .. "/ok_ske.json")
    H.write(dir .. "/ok_tex.json", '{"imagePath": "ok.png", "SubTexture": [{"name": 5}]}')
    local _, want_tex = anim.import_dragonbones(dir .. "/ok_ske.json", dir .. "/ok_tex.json")
    assert.truthy(want_tex)
    local code, out, err = run("validate db " .. q(TEX))
    assert.are.equal(1, code)
    local got = lines(out)
    assert.are.equal(want:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", ""), got[1])
    assert.are.equal(want_tex:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", ""), got[2])
    assert.are.equal(TEX .. ": a DragonBones texture atlas, not a skeleton: open the skeleton it goes with"
      .. " (anim.open reads X_tex.json beside X_ske.json, or the file the option atlas names)", got[3])
    assert.matches("anim validate: 3 files checked, 3 files with problems, 1 file skipped\n$", err)
  end)
end)

describe("anim plot of a 2D skeleton's clips", function()
  it("draws the bones' channels and every property channel, a curve per component", function()
    local code, _, err = run("plot " .. q(HERO) .. " --animation walk -o walk.svg")
    assert.are.equal(0, code, err)
    local els = H.parse_xml(H.read(tmp .. "/walk.svg"))
    local curves = {}
    for _, e in ipairs(els) do
      if e.name == "path" and e.attrs.class == "curve" then
        local k = e.attrs["data-joint"] .. " " .. e.attrs["data-channel"]
        curves[k] = (curves[k] or 0) + 1
      end
    end
    assert.are.same({
      ["arm position"] = 3, ["body position"] = 3, ["body rotation"] = 3, ["body scale"] = 3, ["head rotation"] = 3,
      ["mirror rotation"] = 3, ["body.shear property"] = 2, ["deform.default.cape.cape property"] = 12,
      ["draworder property"] = 1, ["head.shear property"] = 2, ["ik.leg_ik property"] = 2,
      ["ik.leg_ik.flags property"] = 3, ["mirror.shear property"] = 2, ["slot.arm_slot.attachment property"] = 1,
      ["slot.body_slot.attachment property"] = 1, ["slot.head_slot.color property"] = 4,
    }, curves)
    local titles = {}
    for _, e in ipairs(els) do if e.attrs.class == "panel-title" then titles[#titles + 1] = e.text end end
    assert.are.same({ "slot.body_slot.attachment · property (1 component)  [discrete]",
      "slot.head_slot.color · property (4 components)" }, { titles[15], titles[16] })
  end)

  it("samples a property's components as the clip plays them, and --joint adds the joint's own properties", function()
    local plot = require "anim.tool.plot"
    local r = assert(anim.open(HERO))
    local channels = assert(plot.curves(r.clips.walk, "head"))
    assert.are.same({ "head rotation", "head.shear property" },
      { channels[1].joint .. " " .. channels[1].channel, channels[2].joint .. " " .. channels[2].channel })
    local shear = channels[2]
    assert.are.equal(2, #shear.curve)
    for _, p in ipairs(shear.curve[2]) do
      assert.are.equal(r.clips.walk:sample(p[1]).properties["head.shear"][2], p[2])
    end
    -- a bezier key's handles, per component: out [0.25, [0, -2.5]] from the key at 0.75 (0, -5)
    assert.are.equal("bezier", shear.keys[2].interp)
    channels = assert(plot.curves(r.clips.walk))
    local color
    for _, c in ipairs(channels) do if c.joint == "slot.head_slot.color" then color = c end end
    for a = 1, 4 do
      for _, p in ipairs(color.curve[a]) do
        assert.are.equal(r.clips.walk:sample(p[1]).properties["slot.head_slot.color"][a], p[2])
      end
    end
  end)

  it("draws at most plot.MAX_COMPONENTS components of a property, and says so", function()
    local plot = require "anim.tool.plot"
    local v0, v1 = {}, {}
    for i = 1, 40 do v0[i], v1[i] = 0, i end
    local c = assert(anim.clip { length = 1, joints = {}, properties = { ["deform.s.a.b"] = { { 0, v0 }, { 1, v1 } } } })
    local ch = assert(plot.curves(c))[1]
    assert.are.equal(plot.MAX_COMPONENTS, #ch.curve)
    local svg = assert(plot.render(c))
    assert.truthy(svg:find("deform.s.a.b · property (40 components, the first 32 drawn)", 1, true))
  end)
end)

describe("anim convert of a 2D skeleton", function()
  it("writes each clip to .anim, bones and properties alike, and names what the file cannot hold", function()
    local code, _, err = run("convert " .. q(HERO) .. " -o hero.anim")
    assert.are.equal(0, code, err)
    assert.truthy(err:find("anim convert: " .. HERO .. ": the skeleton's 7 slots (body_slot, head_slot, cape, arm_slot,"
      .. " hitbox, weapon, cape_copy), 2 skins (default, gold), 11 attachments (default/body_slot/body,", 1, true))
    assert.truthy(err:find("gold/head_slot/head), 2 IK constraints (leg_ik, aim) are not in a .anim file (the clips keep"
      .. " their bones' channels and property channels)\n", 1, true))
    local r = assert(anim.open(HERO))
    for _, name in ipairs { "walk", "wave" } do
      local c = assert(anim.load(tmp .. "/hero." .. name .. ".anim"))
      for _, t in ipairs { 0, 0.3, 0.75, 1.3, 1.9 } do
        assert.are.same(r.clips[name]:sample(t), c:sample(t))
      end
      assert.are.same(r.clips[name]:events(), c:events())
    end
  end)

  it("writes the clips as glTF on the skeleton's rig, a node per bone", function()
    local code, _, err = run("convert " .. q(HERO) .. " -o hero.glb")
    assert.are.equal(0, code, err)
    assert.truthy(err:find("are not in a glTF file", 1, true))
    local g = assert(anim.import_gltf(tmp .. "/hero.glb"))
    local names = {}
    for _, j in ipairs(g.rig:joints()) do names[#names + 1] = j.name end
    table.sort(names)
    local want = {}
    for _, b in ipairs(assert(anim.open(HERO)).description.bones) do want[#want + 1] = b.name end
    table.sort(want)
    assert.are.same(want, names)
    -- (the animations named as the clips are: the file's path, #armature/animation)
    assert.truthy(g.clips[HERO .. "#hero/walk"])
  end)
end)

describe("the command on Spine exports", function()
  local SP = H.absolute(H.root) .. "/spec/fixtures/spine/"

  it("info prints the skeleton: version, dark colours, IK and transform constraints, data kept", function()
    local code, out, err = run("info " .. q(SP .. "hero-4.2.json") .. " --animation walk")
    assert.are.equal(0, code, err)
    local l = lines(out)
    assert.are.equal("  format     Spine 4.2.43 (y up)", l[2])
    local bones = section(out, "bones (12)")
    assert.are.equal("  head         parent torso  noScale  at 40, 0  rotation -10  scale 0.9, 1.1  length 20", bones[4])
    assert.are.equal("  arm     bone arm_upper  attachment arm (of arm)  blend normal  color 1 1 1 0.7529  dark 0.1255"
      .. " 0.1255 0.1255", section(out, "slots (10, in draw order)")[3])
    assert.are.same({ "  arm_ik  bones arm_upper, arm_lower -> target target_arm  mix 1  bend -1  softness 5  stretch",
      "  foot_ik  bones foot -> target target_foot  mix 0.5  bend 1  compress" }, section(out, "ik constraints (2)"))
    assert.are.same({ "  gun_tc  bones gun -> target head  mix rotate 0.5, x 0.25, y 0.25, scale x 0.75, scale y 0.75,"
      .. " shear y 0", "  hand_tc  bones hand -> target head  mix rotate 0.5, x 0.1, y 0.1, scale x 1, scale y 1,"
      .. " shear y 1  local  relative" }, section(out, "transform constraints (2)"))
    assert.are.same({ "  path constraint 'rail_path'", "  physics constraint 'head_physics'",
      "  path attachment 'rail' (skin default, slot rail)" }, section(out, "kept as data, not played (3)"))
    assert.truthy(out:find("\n" .. SP .. "hero-4.2.json  animation walk\n", 1, true))
    assert.falsy(out:find("animation act", 1, true))
  end)

  it("info shows a skeleton without animations; --animation says there are none", function()
    H.write(tmp .. "/bare.json", '{"skeleton":{"spine":"4.1.24"},"bones":[{"name":"root"}],"slots":[{"name":"s",'
      .. '"bone":"root","attachment":"a"}],"skins":[{"name":"default","attachments":{"s":{"a":{"width":2,"height":2}}}}]}')
    local code, out, err = run("info bare.json")
    assert.are.equal(0, code, err)
    assert.are.same({ "  default: 1 attachment: 1 region", "    region      s/a (no atlas region)" }, section(out, "skins (1)"))
    assert.falsy(out:find("bare.json  animation", 1, true))
    code, out, err = run("info bare.json --animation walk")
    assert.are.same({ 2, "" }, { code, out })
    assert.are.equal("anim info: bare.json: no animation 'walk' (it has: none) (see anim info --help)\n", err)
  end)

  it("files each warning under its animation (info --animation), and says which were not imported", function()
    local code, out, err = run("info " .. q(SP .. "hero-4.2.json") .. " --animation walk")
    assert.are.equal(0, code, err)
    assert.are.same({ "  " .. SP .. "hero-4.2.json: kept as data, not played: path 'rail_path', physics 'head_physics'"
      .. " (path and physics constraints and their timelines)" }, section(out, "warnings (1)"))
    -- (an animation's own warning under it alone, after the file's)
    H.write(tmp .. "/own.json", '{"skeleton":{"spine":"4.2.43"},"bones":[{"name":"r"}],"animations":{'
      .. '"a":{"bones":{"r":{"translate":[{"x":1}]}}},"b":{"bones":{"r":{"rotat":[{"value":1}]}}}}}')
    code, out = run("info own.json --animation b")
    assert.are.equal(0, code)
    assert.are.same({ "  own.json: animations.b.bones.r.rotat: unknown bone timeline 'rotat'; did you mean 'rotate'?:"
      .. " left out" }, section(out, "warnings (1)"))
    code, out = run("info own.json --animation a")
    assert.are.equal(0, code)
    assert.falsy(out:find("warnings", 1, true), out)
    -- (an animation past anim.limits.keys is not imported: the command says so, as of other files)
    local C = require "anim.tool.cli_common"
    H.write(tmp .. "/two.json", '{"skeleton":{"spine":"4.1.24"},"bones":[{"name":"r"}],"animations":{'
      .. '"a":{"bones":{"r":{"translate":[{"x":1},{"time":1,"x":2}]}}},'
      .. '"b":{"bones":{"r":{"translate":[{"x":1},{"time":1,"x":2}]}}}}}')
    local old = anim.set_limits { keys = 5 }
    local list, warnings = C.read_clips(tmp .. "/two.json")
    anim.set_limits(old)
    assert.are.equal(1, #list)
    assert.are.equal("a", list[1].name)
    assert.are.equal(1, #warnings)
    assert.matches("two%.json: animations%.b: animation not imported: ", warnings[1].text)
    assert.is_true(warnings[1].not_imported)
  end)

  it("walks each skin's own attachments, not skins times slots (3,000 skins beside 30,000 slots)", function()
    local skel = require "anim.tool.cli_skeleton"
    local desc = { bones = { { name = "r" } }, slots = {}, skins = {} }
    for i = 1, 30000 do desc.slots[i] = { name = "s" .. i, bone = "r" } end
    for i = 1, 3000 do desc.skins[i] = { name = "k" .. i, attachments = {} } end
    desc.skins[7].attachments.s20000 = { a = { type = "path", vertices = { 0, 0 } } }
    -- (90 million slot visits took 6 s; now a few instructions a skin and a slot)
    local kept = H.bounded(2, function() return skel.kept(desc) end)
    assert.are.same({ "path attachment 'a' (skin k7, slot s20000)" }, kept)
    local left = H.bounded(5, function() return skel.left_out(desc) end)
    assert.truthy(left:find("1 attachment (k7/s20000/a)", 1, true))
  end)

  it("validate reads the atlas beside the export and skips it in a folder; convert names what .anim leaves out", function()
    local dir = tmp .. "/sp"
    os.execute("mkdir " .. q(dir))
    copy(SP .. "hero-3.8.json", dir .. "/hero.json")
    H.write(dir .. "/hero.atlas", "broken.png\nsize: x\n")
    local code, out, err = run("validate sp")
    assert.are.equal(1, code)
    local _, want = anim.import_spine(dir .. "/hero.json", dir .. "/hero.atlas")
    assert.are.equal(want:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", "") .. "\n", out)
    assert.truthy(err:find("anim validate: skipped sp/hero.atlas: a texture atlas (a Spine skeleton's is checked with it)\n",
      1, true))
    copy(SP .. "hero-3.8.atlas", dir .. "/hero.atlas")
    code = run("validate sp")
    assert.are.equal(0, code)
    code, _, err = run("convert " .. q(SP .. "hero-4.2.json") .. " -o sp.anim")
    assert.are.equal(0, code, err)
    assert.truthy(err:find(", 2 IK constraints (arm_ik, foot_ik), 2 transform constraints (gun_tc, hand_tc), 1 path"
      .. " constraint (rail_path), 1 physics constraint (head_physics) are not in a .anim file", 1, true))
    local r = assert(anim.open(SP .. "hero-4.2.json"))
    for name, c0 in pairs(r.clips) do
      local c = assert(anim.load(tmp .. "/sp." .. name .. ".anim"))
      for _, t in ipairs { 0, 0.35, 0.9 } do assert.are.same(c0:sample(t), c:sample(t)) end
    end
  end)
end)

describe("anim sheet of a 2D skeleton", function()
  it("draws each frame's attachments in draw order from their world outlines, over the bones", function()
    local code, out, err = run("sheet " .. q(HERO) .. " --animation walk -o walk.svg")
    assert.are.equal(0, code, err)
    assert.are.equal("", out .. err)
    local els = H.parse_xml(H.read(tmp .. "/walk.svg"))
    local frames, current = {}, nil
    for _, e in ipairs(els) do
      if e.attrs.class == "frame" then
        current = { time = tonumber(e.attrs["data-time"]), slots = {}, kinds = {}, bones = 0 }
        frames[#frames + 1] = current
      elseif e.attrs.class == "attachment" then
        current.slots[#current.slots + 1] = e.attrs["data-slot"]
        current.kinds[e.attrs["data-slot"]] = e.name .. " " .. e.attrs["data-kind"]
      elseif e.attrs.class == "bone" then
        current.bones = current.bones + 1
      end
    end
    assert.are.equal(8, #frames)
    -- the draw order: the setup's at 0, the animation's order 1 from 0.5 to 1.5 (arm_slot shows
    -- nothing until 1, cape_copy nothing; the weapon's armature display and no points)
    assert.are.same({ "body_slot", "head_slot", "cape", "hitbox" }, frames[1].slots)
    assert.are.equal(0.5, frames[3].time)
    assert.are.same({ "head_slot", "cape", "body_slot", "hitbox" }, frames[3].slots)
    assert.are.same({ "head_slot", "cape", "arm_slot", "body_slot", "hitbox" }, frames[5].slots)
    assert.are.same({ body_slot = "polygon region", head_slot = "polygon region", cape = "path mesh",
      hitbox = "polygon boundingbox" }, frames[1].kinds)
    assert.are.equal(14, frames[1].bones)
  end)

  it("places the outlines by the bones' world matrices: a bounding box by hand", function()
    local sheet2d = require "anim.tool.sheet2d"
    local r = assert(anim.open(HERO))
    local sk = r.skeleton
    local box = sk.desc.skins[1].attachments.hitbox.box
    for _, t in ipairs { 0, 0.6, 1.3 } do
      local pose = sheet2d.pose(sk, r.clips.walk, t)
      local a = anim.animator(sk)
      a:play(r.clips.walk, { fade = 0 }).time = t
      a:update(0)
      local ma, mb, mc, md, mx, my = a:world2d("body")
      local shape
      for _, sh in ipairs(pose.shapes) do if sh.slot == "hitbox" then shape = sh end end
      assert.are.equal(#box.vertices / 2, #shape.points)
      for i, p in ipairs(shape.points) do
        local x, y = box.vertices[2 * i - 1], box.vertices[2 * i]
        assert(math.abs(p[1] - (ma * x + mb * y + mx)) < 1e-9 and math.abs(p[2] - (mc * x + md * y + my)) < 1e-9,
          string.format("t %g, vertex %d", t, i))
      end
    end
  end)

  it("outlines a mesh by the edges of one triangle only, and refuses the player rig", function()
    local sheet2d = require "anim.tool.sheet2d"
    -- a square of two triangles: its four sides, not the diagonal
    assert.are.same({ { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } }, sheet2d.boundary { 0, 1, 2, 0, 2, 3 })
    local code, _, err = run("sheet " .. q(HERO) .. " --rig player -o x.svg")
    assert.are.equal(2, code)
    assert.are.equal("anim sheet: --rig player: " .. HERO .. " is a 2D skeleton, drawn on its own bones (see anim sheet"
      .. " --help)\n", err)
  end)

  it("made docs/img/hero2d-sheet.svg (regenerate: see lua/anim/tool/cli.lua)", function()
    local now = H.popen(string.format("cd %s && %s bin/anim sheet spec/fixtures/spine/hero-4.2.json --animation walk"
      .. " --frames 4 -o -", q(H.root), H.lua))
    assert.are.equal(H.read(H.root .. "/docs/img/hero2d-sheet.svg"), now)
  end)
end)
