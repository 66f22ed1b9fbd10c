-- glTF round trips keep the rig (issue 35, defect 13): anim.export_gltf of
-- a file's clips with the rig imported from it, then anim.import_gltf,
-- gives back the same joints (names, parents, rests) for every model of
-- ../shared/data/gltf and for rigs built in Lua; the skin holds the rig's
-- joints only, its inverse bind matrices the rests' inverses, and the
-- model's other nodes keep their places; export then import is a fixed
-- point for files of several skins and scenes and of unnamed nodes.  Before,
-- RecursiveSkeletons gave 10 joints out and 840 back, flat.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local binary = require "spec.bytes"

local DIR = H.shared .. "/data/gltf/"
local dir = H.tmpdir()

local function models()
  local list = {}
  local p = assert(io.popen("cd '" .. DIR .. "' && ls */*.gl* */*/*.gl* 2>/dev/null"))
  for line in p:lines() do list[#list + 1] = line end
  p:close()
  table.sort(list)
  return list
end

local function sorted_clips(r)
  local names, list = {}, {}
  for name in pairs(r.clips) do names[#names + 1] = name end
  table.sort(names)
  for i, name in ipairs(names) do list[i] = r.clips[name] end
  return list
end

-- The joints of a rig by name: { parent, translation, rotation, scale }.
local function by_name(rig)
  local out = {}
  for _, j in ipairs(rig:joints()) do out[j.name] = j end
  return out
end

-- Asserts that rig b has the joints of rig a: the same names, each with
-- the same parent and rest (rotations made unit again: within 1e-15).
local function same_rig(a, b, what)
  local ja, jb = by_name(a), by_name(b)
  for name, j in pairs(ja) do
    local k = jb[name]
    assert(k, what .. ": joint " .. name .. " is missing")
    assert.are.equal(j.parent, k.parent, what .. ": parent of " .. name)
    assert(H.maxdiff(j.translation, k.translation) < 1e-12, what .. ": translation of " .. name)
    assert(H.quatdiff(j.rotation, k.rotation) < 1e-12, what .. ": rotation of " .. name)
    assert(H.maxdiff(j.scale, k.scale) < 1e-12, what .. ": scale of " .. name)
  end
  for name in pairs(jb) do assert(ja[name], what .. ": joint " .. name .. " was not in the rig") end
end

-- The JSON and BIN chunk of a .glb, read here without the module.
local function glb(path)
  local bytes = H.read(path)
  local jlen = binary.unpack("<I4", bytes, 13)
  local doc = cjson.decode(bytes:sub(21, 20 + jlen))
  local blen = binary.unpack("<I4", bytes, 21 + jlen)
  return doc, bytes:sub(29 + jlen, 28 + jlen + blen)
end

-- A node's TRS as a column-major 4x4 matrix, and the product of two.
local function matrix(nd)
  local t, q, s = nd.translation or { 0, 0, 0 }, nd.rotation or { 0, 0, 0, 1 }, nd.scale or { 1, 1, 1 }
  local x, y, z, w = q[1], q[2], q[3], q[4]
  return { (1 - 2 * (y * y + z * z)) * s[1], 2 * (x * y + z * w) * s[1], 2 * (x * z - y * w) * s[1], 0,
    2 * (x * y - z * w) * s[2], (1 - 2 * (x * x + z * z)) * s[2], 2 * (y * z + x * w) * s[2], 0,
    2 * (x * z + y * w) * s[3], 2 * (y * z - x * w) * s[3], (1 - 2 * (x * x + y * y)) * s[3], 0,
    t[1], t[2], t[3], 1 }
end
local function mul(a, b)
  local out = {}
  for c = 0, 3 do
    for r = 1, 4 do
      local v = 0
      for k = 0, 3 do v = v + a[k * 4 + r] * b[c * 4 + k + 1] end
      out[c * 4 + r] = v
    end
  end
  return out
end

-- A sample model imported, its clips exported with its rig (the first
-- skin's, or the scene's) to a .glb, and that imported: r, the path, back
-- (once per model: RecursiveSkeletons takes most of a second to write).
local done = {}
local function round_trip(file)
  if not done[file] then
    local r = assert(anim.import_gltf(DIR .. file))
    local out = dir .. "/" .. file:match("([^/]+)%.gl[bt]f?$") .. ".glb"
    -- (exact: reduce = false, else CesiumMan's dense keys are reduced within the bound)
    assert(anim.export_gltf(sorted_clips(r), r.rig or r.scene, out, { reduce = false }))
    done[file] = { r, out, assert(anim.import_gltf(out)) }
  end
  return done[file][1], done[file][2], done[file][3]
end

describe("glTF round trips", function()
  it("give back the rig of every sample model, and the places of its other nodes", function()
    for _, file in ipairs(models()) do
      local r, _, back = round_trip(file)
      same_rig(r.rig or r.scene, back.rig, file)
      assert.are.same({ "skeleton" }, (function()
        local names = {}
        for name in pairs(back.rigs) do names[#names + 1] = name end
        return names
      end)(), file)
      -- the model's other nodes the clips need: where the file had them
      local scene = by_name(r.scene)
      for _, j in ipairs(back.scene:joints()) do
        assert(scene[j.name], file .. ": " .. j.name)
        assert.are.equal(scene[j.name].parent, j.parent, file .. ": parent of " .. j.name)
      end
      -- and the clips play the same
      for name, c in pairs(r.clips) do
        local b = back.clips[name]
        for k = 0, 10 do
          local t = c.length * k / 10
          local sa, sb = c:sample(t), b:sample(t)
          for j, chans in pairs(sa) do
            for ch, v in pairs(j ~= "properties" and chans or {}) do
              local d = ch == "rotation" and H.quatdiff(v, sb[j][ch]) or H.maxdiff(v, sb[j][ch])
              assert(d <= 1e-6, string.format("%s %s %s %s at %g: %g", file, name, j, ch, t, d))
            end
          end
        end
      end
    end
  end)

  it("write the rig's joints as one skin: its joints list, and inverse bind matrices of the rests", function()
    local r, out = round_trip("RecursiveSkeletons/glTF-Binary/RecursiveSkeletons.glb")
    local doc, bin = glb(out)
    -- the skin lists the rig's 10 joints; the file holds the 840 animated
    -- nodes and those above them
    local skin = doc.skins[1]
    assert.are.equal(10, #skin.joints)
    assert.are.equal(840, #doc.nodes)
    local names = {}
    for i, j in ipairs(skin.joints) do names[i] = doc.nodes[j + 1].name end
    table.sort(names)
    local want = {}
    for i, j in ipairs(r.rig:joints()) do want[i] = j.name end
    table.sort(want)
    assert.are.same(want, names)
    -- each joint's world rest times its inverse bind matrix is the identity
    local parent = {}
    for i, nd in ipairs(doc.nodes) do
      for _, c in ipairs(nd.children or {}) do parent[c + 1] = i end
    end
    local function world(i)
      local m = matrix(doc.nodes[i])
      if parent[i] then return mul(world(parent[i]), m) end
      return m
    end
    local acc = doc.accessors[skin.inverseBindMatrices + 1]
    assert.are.same({ "MAT4", 5126, 10 }, { acc.type, acc.componentType, acc.count })
    local view = doc.bufferViews[acc.bufferView + 1]
    for k, j in ipairs(skin.joints) do
      local ibm = { binary.unpack("<" .. string.rep("f", 16), bin, (view.byteOffset or 0) + (k - 1) * 64 + 1) }
      local id = mul(world(j + 1), ibm)
      for c = 0, 3 do
        for row = 1, 4 do
          assert(math.abs(id[c * 4 + row] - (c + 1 == row and 1 or 0)) < 1e-5, doc.nodes[j + 1].name)
        end
      end
    end
  end)

  it("give back rigs built in Lua: the player rig, rigs of positions, translations, rotations and scales", function()
    local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
    local S = math.sqrt(0.5)
    local rigs = {
      anim.rig("player"),
      assert(anim.rig { joints = {
        { name = "hips", position = { 0, 1, 0 }, rotation = { 0, 30, 0 } },
        { name = "spine", parent = "hips", position = { 0, 1.5, 0.1 }, scale = { 1, 2, 1 } },
        { name = "head", parent = "spine", translation = { 0, 0.5, 0 }, rotation = { S, 0, 0, S } },
        { name = "tail", parent = "hips", position = { 0, 0.9, -0.5 } },
        { name = "prop" },
      } }),
    }
    for i, rig in ipairs(rigs) do
      local out = dir .. "/lua" .. i .. ".gltf"
      assert(anim.export_gltf(walk, rig, out))
      local back = assert(anim.import_gltf(out))
      same_rig(rig, back.rig, "rig " .. i)
      -- (the walk plays on the player's joints: no other node)
      if i == 1 then assert.are.equal(back.rig, back.scene) end
    end
  end)

  it("place a clip joint the rig lacks where its skeleton puts it, unless that moves another off the rig", function()
    local S = math.sqrt(0.5)
    local rig = assert(anim.rig { joints = { { name = "body" }, { name = "leftArm", parent = "body", position = { 1, 0, 0 } } } })
    local function export(skeleton)
      local c = assert(anim.clip({ length = 1, joints = {
        left_arm = { rotation = { { 0, { 0, 0, 0, 1 } }, { 1, { 0, 0, S, S } } } },
        hand = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } }, skeleton = skeleton }, "g"))
      local out = dir .. "/g.glb"
      assert(anim.export_gltf(c, rig, out))
      local back = assert(anim.import_gltf(out))
      same_rig(rig, back.rig, "g")
      return by_name(back.scene), back.clips.g:joints()
    end
    -- the hand under the rig's leftArm, as the skeleton says (left_arm is
    -- guessed to be leftArm: its channel plays there)
    local nodes, joints = export({ leftArm = { position = { 1, 0, 0 } },
      hand = { parent = "leftArm", position = { 2, 0, 0 } } })
    assert.are.equal("leftArm", nodes.hand.parent)
    assert.are.same({ 1, 0, 0 }, nodes.hand.translation)
    assert.are.same({ "hand", "leftArm" }, joints)
    -- under a node of its own named left_arm, the guessed clip joint would
    -- play there: the hand stays a root
    nodes, joints = export({ left_arm = { position = { 1, 0, 0 } }, hand = { parent = "left_arm", position = { 2, 0, 0 } } })
    assert.is_nil(nodes.hand.parent)
    assert.is_nil(nodes.left_arm)
    assert.are.same({ "hand", "leftArm" }, joints)
  end)

  it("are a fixed point for files of several skins and scenes and of unnamed nodes", function()
    -- nodes: 0 (unnamed) > 1 "hip" > 2 (unnamed); 3 "x" > 4 "node2" (the
    -- name the importer gives node 2); 5 (unnamed) alone in scene 1.  Two
    -- skins: [2] and [4, 5]; one animation of nodes 2, 4 and 5.
    local bin = binary.pack("<ff", 0, 1) .. binary.pack("<ffffff", 0, 0, 0, 1, 2, 3)
    local doc = { asset = { version = "2.0" }, scene = 0, scenes = { { nodes = { 0, 3 } }, { nodes = { 5 } } },
      nodes = { { children = { 1 } }, { name = "hip", children = { 2 }, translation = { 0, 1, 0 } },
        { name = "", rotation = { 0, 0, 1, 0 } }, { name = "x", children = { 4 } }, { name = "node2", scale = { 2, 2, 2 } },
        {} },
      skins = { { joints = { 2 } }, { name = "second", joints = { 4, 5 } } },
      buffers = { { byteLength = #bin, uri = "fp.bin" } },
      bufferViews = { { buffer = 0, byteLength = 8 }, { buffer = 0, byteOffset = 8, byteLength = 24 } },
      accessors = { { bufferView = 0, componentType = 5126, count = 2, type = "SCALAR" },
        { bufferView = 1, componentType = 5126, count = 2, type = "VEC3" } },
      animations = { { samplers = { { input = 0, output = 1 } },
        channels = { { sampler = 0, target = { node = 2, path = "translation" } },
          { sampler = 0, target = { node = 4, path = "translation" } },
          { sampler = 0, target = { node = 5, path = "translation" } } } } } }
    H.write(dir .. "/fp.bin", bin)
    H.write(dir .. "/fp.gltf", cjson.encode(doc))
    local r = assert(anim.import_gltf(dir .. "/fp.gltf"))
    -- the importer's rig: the first skin's joints and the nodes above them,
    -- unnamed nodes named by their index, a name met before with #<index>
    local want = { hip = "node0", node0 = false, node2 = "hip" }
    for name, p in pairs(want) do assert.are.equal(p or nil, by_name(r.rig)[name].parent, name) end
    assert.are.equal(3, #r.rig:joints())
    assert.are.equal("x", by_name(r.rigs.second)["node2#4"].parent)
    -- export, import, export, import: the same rig each time, and the
    -- clip's other nodes where the file had them
    local first = r
    for round = 1, 2 do
      local out = dir .. "/fp" .. round .. ".glb"
      assert(anim.export_gltf(sorted_clips(r), r.rig, out))
      local back = assert(anim.import_gltf(out))
      same_rig(first.rig, back.rig, "round " .. round)
      local scene = by_name(first.scene)
      for _, j in ipairs(back.scene:joints()) do assert.are.equal(scene[j.name].parent, j.parent, j.name) end
      assert.are.same({ 1, 2, 3 }, back.clips.animation0:sample(1)["node2#4"].position)
      r = back
    end
  end)
end)
