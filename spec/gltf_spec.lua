-- glTF 2.0 import (anim.import_gltf) on the thirteen sample models of
-- ../shared/data/gltf: every sample of reference.json (three.js's
-- GLTFLoader + AnimationMixer, checked against the specification's
-- sampling rules), the names, lengths and warnings its _meta records, the
-- rigs against the files' nodes, and world transforms against world.json
-- (three.js's world matrices).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local binary = require "spec.bytes"

local DIR = H.shared .. "/data/gltf/"
local REF = cjson.decode(H.read(DIR .. "reference.json"))
local WORLD = cjson.decode(H.read(DIR .. "world.json"))
local META = REF._meta

local function files()
  local list = {}
  for f in pairs(REF) do if f ~= "_meta" then list[#list + 1] = f end end
  table.sort(list)
  return list
end

local cache = {}
local function import(file)
  if not cache[file] then cache[file] = assert(anim.import_gltf(DIR .. file)) end
  return cache[file]
end

-- The JSON of a .gltf or a .glb, read here without the module.
local function gltf_json(file)
  local bytes = H.read(DIR .. file)
  if bytes:sub(1, 4) ~= "glTF" then return cjson.decode(bytes) end
  local len = binary.unpack("<I4", bytes, 13)
  return cjson.decode(bytes:sub(21, 20 + len))
end

-- A transform (position, quaternion, scale) as a column-major 4x4 matrix.
local function matrix(px, py, pz, x, y, z, w, sx, sy, sz)
  local xx, yy, zz, xy, xz, yz, wx, wy, wz = x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z
  return { (1 - 2 * (yy + zz)) * sx, 2 * (xy + wz) * sx, 2 * (xz - wy) * sx, 0,
    2 * (xy - wz) * sy, (1 - 2 * (xx + zz)) * sy, 2 * (yz + wx) * sy, 0,
    2 * (xz + wy) * sz, 2 * (yz - wx) * sz, (1 - 2 * (xx + yy)) * sz, 0, px, py, pz, 1 }
end

local count = H.count

describe("glTF import of the sample models", function()
  it("samples every animation as reference.json does", function()
    local checked = 0
    for _, file in ipairs(files()) do
      local r = import(file)
      local meta = META[file]
      for aname, times in pairs(REF[file]) do
        local clip = r.clips[aname]
        assert.is_truthy(clip, file .. ": no clip " .. aname)
        local tol = meta.rotation_tolerance[aname] or {}
        for ts, nodes in pairs(times) do
          local s = clip:sample(tonumber(ts))
          for node, channels in pairs(nodes) do
            assert.is_truthy(s[node], file .. " " .. aname .. ": no joint " .. node)
            for ch, want in pairs(channels) do
              local got = s[node][ch]
              local d = ch == "rotation" and H.quatdiff(got, want) or H.maxdiff(got, want)
              local lim = ch == "rotation" and math.max(tol[node] or 0, 1e-5) or 1e-5
              assert(d <= lim, string.format("%s %s at %s: %s %s off by %.3g", file, aname, ts, node, ch, d))
              checked = checked + 1
            end
          end
        end
      end
    end
    assert.is_true(checked > 10000, "checked " .. checked)
  end)

  it("makes one clip per animation, of the animation's length, animating what it animates", function()
    for _, file in ipairs(files()) do
      local r = import(file)
      local meta = META[file]
      assert.are.equal(count(meta.animations), count(r.clips), file)
      for aname, m in pairs(meta.animations) do
        local clip = r.clips[aname]
        assert.are.equal(m.length, clip.length, file .. " " .. aname)
        assert.is_true(clip.absolute)
        -- the joints and channels the reference samples, and no others
        local want = {}
        for _, nodes in pairs(REF[file][aname] or {}) do
          for node in pairs(nodes) do want[node] = true end
        end
        local got = {}
        for _, j in ipairs(clip:joints()) do got[j] = true end
        assert.are.same(want, got, file .. " " .. aname)
      end
    end
  end)

  it("names nodes, animations and skins as the issue says: name, node<i>, #<i> for a duplicate", function()
    local r = import("DuplicateNames/DuplicateNames.gltf")
    local names = {}
    for n in pairs(r.clips) do names[#names + 1] = n end
    table.sort(names)
    assert.are.same({ "CubicSpline Rotation", "CubicSpline Translation", "Linear Rotation", "Linear Translation",
      "Step Rotation", "Step Scale", "Step Scale#1", "Step Translation", "animation2" }, names)
    assert.are.same({ "Cube" }, r.clips["Step Scale"]:joints())
    assert.are.same({ "Cube#3" }, r.clips["Step Scale#1"]:joints())
    assert.are.same({ "Cube#4" }, r.clips.animation2:joints())
    assert.are.same({ "node5" }, r.clips["Step Rotation"]:joints())
    local skins = {}
    for n in pairs(import("RecursiveSkeletons/glTF-Binary/RecursiveSkeletons.glb").rigs) do skins[n] = true end
    assert.are.equal(84, count(skins))
    assert.is_true(skins.skin0 and skins.skin83)
  end)

  it("reads morph target weights as a property <node>.weights, its times in the length", function()
    local r = import("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")
    assert.are.same({}, r.clips.Square:joints())
    assert.are.same({ "AnimatedMorphCube.weights" }, r.clips.Square:properties())
    assert.are.equal(META["AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"].animations.Square.length, r.clips.Square.length)
    assert.are.same({}, r.warnings)
    for _, file in ipairs(files()) do assert.are.same({}, import(file).warnings, file) end
  end)

  it("gives one rig per skin: its joints and every node above them, parents from the node tree", function()
    for _, file in ipairs(files()) do
      local r = import(file)
      local meta = META[file]
      assert.are.equal(count(meta.skins), count(r.rigs), file)
      for sname, joints in pairs(meta.skins) do
        local rig = r.rigs[sname]
        assert.is_truthy(rig, file .. ": no rig " .. sname)
        local want = {}
        for _, j in ipairs(joints) do
          local n = j
          while n ~= nil and not want[n] do
            want[n] = true
            n = meta.parents[n] or nil
            if n == cjson.null then n = nil end
          end
        end
        local got, seen = {}, {}
        for _, j in ipairs(rig:joints()) do
          got[j.name] = true
          -- parents first, and the parent the file's node tree gives
          local p = meta.parents[j.name]
          if p == cjson.null then p = nil end
          assert.are.equal(p, j.parent, file .. " " .. j.name)
          if j.parent then assert.is_true(seen[j.parent], j.name .. " before its parent") end
          seen[j.name] = true
        end
        assert.are.same(want, got, file .. " " .. sname)
      end
      if next(meta.skins) then assert.are.equal(r.rigs[next(meta.skins)] ~= nil, true) end
    end
    assert.are.equal(import("Fox/glTF-Binary/Fox.glb").rigs.skin0, import("Fox/glTF-Binary/Fox.glb").rig)
  end)

  it("gives the rigs the nodes' rest transforms: translation, rotation and scale, or the matrix", function()
    for _, file in ipairs(files()) do
      local r = import(file)
      local doc = gltf_json(file)
      local byname = {}
      -- the scene rig holds every node, by the same names
      local joints = r.scene:joints()
      assert.are.equal(#doc.nodes, #joints, file)
      for _, j in ipairs(joints) do byname[j.name] = j end
      for i, node in ipairs(doc.nodes) do
        local name = node.name
        if name == nil or name == "" then name = "node" .. (i - 1) end
        if file:match("DuplicateNames") then
          -- (the naming rules are checked above)
          name = nil
        end
        local j = name and byname[name]
        if j then
          local got = matrix(j.translation[1], j.translation[2], j.translation[3], j.rotation[1], j.rotation[2],
            j.rotation[3], j.rotation[4], j.scale[1], j.scale[2], j.scale[3])
          local want = node.matrix
          if not want then
            local t, q, s = node.translation or { 0, 0, 0 }, node.rotation or { 0, 0, 0, 1 }, node.scale or { 1, 1, 1 }
            local n = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
            want = matrix(t[1], t[2], t[3], q[1] / n, q[2] / n, q[3] / n, q[4] / n, s[1], s[2], s[3])
            assert.are.same(t, j.translation, file .. " " .. name)
            assert.are.same(s, j.scale, file .. " " .. name)
          end
          assert(H.maxdiff(got, want) < 1e-12, file .. " " .. name)
        end
      end
    end
  end)

  it("plays the clips on the rigs to the world matrices of world.json (three.js's)", function()
    local checked = 0
    for file, w in pairs(WORLD) do
      local r = import(file)
      for _, rig in pairs(r.rigs) do
        local function check(an, nodes, label)
          for node, m in pairs(nodes) do
            if rig:has(node) then
              local d = H.maxdiff(matrix(an:world_transform(node)), m)
              assert(d <= w.tolerance, string.format("%s %s: %s off by %.3g", file, label, node, d))
              checked = checked + 1
            end
          end
        end
        local an = anim.animator(rig)
        an:update(0)
        check(an, w.rest, "rest")
        for aname, times in pairs(w.anims) do
          for ts, nodes in pairs(times) do
            local a = anim.animator(rig)
            a:play(r.clips[aname], { fade = 0 })
            a:update(tonumber(ts))
            check(a, nodes, aname .. " at " .. ts)
          end
        end
      end
    end
    assert.is_true(checked > 9000, "checked " .. checked)
  end)
end)
