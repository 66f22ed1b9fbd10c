-- anim.export_gltf: clips written as glTF animations, then imported again:
-- what glTF holds is exact (within 1e-6, the 32-bit floats), what it does
-- not is baked and listed in approx with the difference measured.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"

local DIR = H.shared .. "/data/gltf/"
local dir = H.tmpdir()

local function files()
  local ref = cjson.decode(H.read(DIR .. "reference.json"))
  local list = {}
  for f in pairs(ref) do if f ~= "_meta" then list[#list + 1] = f end end
  table.sort(list)
  return list
end

-- The local transform the animator gives each joint of rig when clip
-- plays alone on it, at time t: { joint = { position, rotation, scale } }.
local function played(rig, clip, t)
  local a = anim.animator(rig)
  local tr = a:play(clip, { fade = 0 })
  a:update(0)
  tr.time = t
  a:update(0)
  local out = {}
  for _, j in ipairs(rig:joints()) do
    local l = { a:local_transform(j.name) }
    out[j.name] = { position = { l[1], l[2], l[3] }, rotation = { l[4], l[5], l[6], l[7] }, scale = { l[8], l[9], l[10] } }
  end
  return out
end

local function diff(ch, a, b)
  return ch == "rotation" and H.quatdiff(a, b) or H.maxdiff(a, b)
end

-- The largest difference, per joint and channel, between what `back` (a
-- clip imported from the written file) samples and what `clip` plays on
-- `rig`, at n + 1 times over the clip (and extra_times).
local function compare(rig, clip, back, n, extra_times)
  local worst = {}
  local times = {}
  -- (not the length itself: a looping track resting there wraps to 0)
  for k = 0, n - 1 do times[#times + 1] = clip.length * k / n end
  times[#times + 1] = clip.length - 1e-6
  for _, t in ipairs(extra_times or {}) do times[#times + 1] = t end
  for _, t in ipairs(times) do
    local want = played(rig, clip, t)
    for j, chans in pairs(back:sample(t)) do
      for ch, v in pairs(chans) do
        local key = j .. "." .. ch
        worst[key] = math.max(worst[key] or 0, diff(ch, v, want[j][ch]))
      end
    end
  end
  return worst
end

local S = math.sqrt(0.5)
local RIG = assert(anim.rig { joints = {
  { name = "a", translation = { 1, 2, 3 }, rotation = { 0, math.sin(math.pi / 12), 0, math.cos(math.pi / 12) }, scale = { 2, 2, 2 } },
  { name = "b", parent = "a", translation = { 0, 1, 0 }, rotation = { S, 0, 0, S }, scale = { 1, 0.5, 1 } },
} })

describe("anim.export_gltf", function()
  it("writes every sample model's clips back: imported again, they sample the same", function()
    for _, file in ipairs(files()) do
      local r = assert(anim.import_gltf(DIR .. file))
      local list = {}
      for _, c in pairs(r.clips) do list[#list + 1] = c end
      for _, ext in ipairs { ".gltf", ".glb" } do
        local out = dir .. "/rt" .. ext
        -- (exact: reduce = false, else CesiumMan's dense keys are reduced within the bound)
        local approx = assert(anim.export_gltf(list, out, { reduce = false }))
        assert.are.same({}, approx, file)
        local back = assert(anim.import_gltf(out))
        for name, c in pairs(r.clips) do
          local b = back.clips[name]
          assert.is_truthy(b, file .. ": " .. name)
          assert.are.equal(c.length, b.length, file .. ": " .. name)
          for k = 0, 60 do
            local t = c.length * k / 60
            local sa, sb = c:sample(t), b:sample(t)
            for j, chans in pairs(sa) do
              if j ~= "properties" then
                for ch, v in pairs(chans) do
                  assert(diff(ch, v, sb[j][ch]) <= 1e-6, string.format("%s %s %s %s at %g", file, name, j, ch, t))
                end
              end
            end
            -- property channels (morph weights) come back the same (in extras)
            for p, v in pairs(sa.properties or {}) do
              assert.are.same(v, sb.properties[p], string.format("%s %s property %s at %g", file, name, p, t))
            end
          end
        end
      end
    end
  end)

  it("keeps with the rig's node tree the nodes, parents and rests of the file it came from", function()
    local r = assert(anim.import_gltf(DIR .. "CesiumMan/glTF-Binary/CesiumMan.glb"))
    local out = dir .. "/man.glb"
    assert(anim.export_gltf(r.clips.animation0, r.rig, out))
    local back = assert(anim.import_gltf(out))
    local a, b = r.rig:joints(), back.rig:joints()
    assert.are.equal(#a, #b)
    for i = 1, #a do
      assert.are.equal(a[i].name, b[i].name)
      assert.are.equal(a[i].parent, b[i].parent)
      assert.are.same(a[i].translation, b[i].translation)
      -- (made unit again on reading: the last bit may differ)
      assert.is_true(H.maxdiff(a[i].rotation, b[i].rotation) < 1e-15)
      assert.are.same(a[i].scale, b[i].scale)
    end
  end)

  it("writes exactly what glTF holds: linear, step, jumps, cubicspline, bezier thirds, catmullrom, quad; one-axis Euler; keys past the ends", function()
    local clip = assert(anim.clip({ length = 3, loop = "loop", joints = {
      a = {
        position = { { 0, { 0, 0, 0 } }, { 0.5, { 1, 2, 3 }, "step" }, { 1, { 2, 2, 2 } }, { 1, { 5, 5, 5 } },
          { 1.5, { 0, 1, 0 }, "cubicspline", { out_tangent = { 1, 2, 3 } } }, { 2, { 1, 1, 1 }, "bezier" },
          { 2.5, { 0, 0, 0 }, "catmullrom" }, { 2.75, { 1, 0, 0 }, "quad", { ease = "out" } }, { 3, { 2, 0, 0 } } },
        rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } }, { 2, { -60, 0, 0 }, "step" }, { 3, { 10, 0, 0 } } },
        scale = { { -1, { 1, 1, 1 } }, { 0.5, { 2, 2, 2 } }, { 4, { 1, 3, 1 } } },
      },
      b = {
        rotation = { { 0, { 0, 0, 0, 1 }, "step" }, { 1, { 0, S, 0, S }, "cubicspline", { out_tangent = { 0, 1, 0, 0 } } },
          { 2, { 0, 0, 0, 1 } } },
        position = { { 0.25, { 0, 0, 1 }, "bezier", { out = { 0.25, { 1, 0, 0 } } } }, { 1, { 0, 1, 0 }, "bezier", { ["in"] = { -0.25, { 0, 2, 0 } } } } },
      },
    } }, "exact"))
    for _, ext in ipairs { ".gltf", ".glb" } do
      local out = dir .. "/exact" .. ext
      local approx = assert(anim.export_gltf(clip, RIG, out))
      assert.are.same({}, approx)
      local back = assert(anim.import_gltf(out))
      assert.are.equal(3, back.clips.exact.length)
      -- right at the jumps and steps, and just after them
      local worst = compare(RIG, clip, back.clips.exact, 240, { 0.5, 1, 2, 0.5 + 1e-9, 1 + 1e-9, 2 + 1e-9, 2.999 })
      for key, d in pairs(worst) do assert(d <= 1e-6, key .. " off by " .. d) end
      assert.is_truthy(worst["a.position"] and worst["a.rotation"] and worst["a.scale"] and worst["b.rotation"] and worst["b.position"])
    end
  end)

  it("turns tangents (df) only for CUBICSPLINE keys: LINEAR and STEP write none", function()
    local K = require "anim.export.gltf.keys"
    local turned = 0
    local function f(v) return { v[1] + 1, v[2], v[3] } end
    local function df(m)
      turned = turned + 1
      return { 2 * m[1], m[2], m[3] }
    end
    local lin = { { t = 0, v = { 0, 0, 0 }, kind = "lin" }, { t = 0.5, v = { 1, 2, 3 }, kind = "lin" },
      { t = 1, v = { 2, 2, 2 } } }
    local out, mode = K.gltf_keys(lin, f, df)
    assert.are.equal("LINEAR", mode)
    assert.are.equal(0, turned)
    assert.are.same({ 0, 0.5, 1 }, { out[1].t, out[2].t, out[3].t })
    assert.are.same({ { 1, 0, 0 }, { 2, 2, 3 }, { 3, 2, 2 } }, { out[1].v, out[2].v, out[3].v })
    local herm = { { t = 0, v = { 0, 0, 0 }, kind = "herm", m0 = { 1, 0, 0 }, m1 = { 0, 1, 0 } }, { t = 1, v = { 1, 1, 1 } } }
    out, mode = K.gltf_keys(herm, f, df)
    assert.are.equal("CUBICSPLINE", mode)
    assert.are.equal(4, turned)
    assert.are.same({ 2, 0, 0 }, out[1].b)
    assert.are.same({ 0, 1, 0 }, out[2].a)
  end)

  it("reads handles with a time per axis: thirds on every axis exact, other times baked and listed", function()
    -- a: the channel keeps a time per axis (the linear key's out handle, which
    -- plays no part) and its bezier handles are thirds: a Hermite segment
    -- b: the out handle's times differ between the axes: baked
    local clip = assert(anim.clip({ length = 1, joints = {
      a = { position = { { 0, { 0, 0, 0 }, "bezier", { out = { { 0.25, 0.25, 0.25 }, { 1, 0, -1 } } } },
        { 0.75, { 0, 1, 0 }, "linear", { ["in"] = { -0.25, { 0, 2, 0 } }, out = { { 0.1, 0.2, 0.3 }, 1 } } },
        { 1, { 1, 1, 1 } } } },
      b = { position = { { 0, { 0, 0, 0 }, "bezier", { out = { { 0.1, 0.5, 0.9 }, { 1, 1, 1 } } } }, { 1, { 0, 1, 0 } } } },
    } }, "per_axis"))
    local approx = assert(anim.export_gltf(clip, RIG, dir .. "/per_axis.glb", { reduce = false }))
    assert.are.equal(1, #approx)
    assert.are.equal("b", approx[1].joint)
    assert.are.equal("position", approx[1].channel)
    local back = assert(anim.import_gltf(dir .. "/per_axis.glb")).clips.per_axis
    local worst = compare(RIG, clip, back, 97)
    assert(worst["a.position"] <= 1e-6, worst["a.position"])
    assert(worst["b.position"] > 1e-9 and worst["b.position"] <= 1.5 * approx[1].error + 1e-9, worst["b.position"])
  end)

  it("bakes what glTF cannot hold at options.fps, and says how far it is", function()
    local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
    local rig = anim.rig("player")
    local out = dir .. "/walk.glb"
    -- (the bake itself: reduce = false, else the baked keys are reduced within the bound)
    local approx = assert(anim.export_gltf(walk, rig, out, { reduce = false }))
    -- sine eases (the arms), catmullrom Euler angles (the legs: a cubic in
    -- degrees is no slerp), bezier handles shorter than a third (the torso)
    local listed = {}
    for _, a in ipairs(approx) do
      assert.are.equal(H.root .. "/examples/clips/walk.anim", a.clip)
      listed[a.joint .. "." .. a.channel] = a.error
      assert.is_true(a.error > 0 and a.error < 1e-3, a.joint)
    end
    assert.are.same({ "leftArm.rotation", "leftLeg.rotation", "rightArm.rotation", "rightLeg.rotation", "torso.position" },
      (function() local k = {} for n in pairs(listed) do k[#k + 1] = n end table.sort(k) return k end)())
    local back = assert(anim.import_gltf(out))
    local b = back.clips.walk
    -- 61 keys at 60 fps over 1 s, and the quarters of its two eased
    -- segments between frames (0.125, 0.375, 0.625, 0.875)
    local src = require("anim.core").clip_info(b).source
    assert.are.equal(65, #src.joints.leftArm.rotation)
    -- what it plays, up to the error measured (at 4 x fps; between those
    -- times the difference may be a little larger)
    local off = {}
    for key, d in pairs(compare(rig, walk, b, 97)) do off[key] = d end
    -- (the torso's joint weight, 0.8, is the animator's blending: not written)
    for key, e in pairs(listed) do
      if key ~= "torso.position" then assert(off[key] <= 1.5 * e + 1e-9, key) end
    end
    -- a finer rate, a smaller error
    local fine = assert(anim.export_gltf(walk, rig, dir .. "/walk240.glb", { fps = 240, reduce = false }))
    for _, a in ipairs(fine) do assert.is_true(a.error < listed[a.joint .. "." .. a.channel], a.joint) end
  end)

  it("puts markers, events, sounds, plays and the playback fields in extras, and reads them back", function()
    local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
    local out = dir .. "/walk-extras.gltf"
    assert(anim.export_gltf(walk, anim.rig("player"), out))
    local doc = cjson.decode(H.read(out))
    local x = doc.animations[1].extras
    assert.are.equal("loop", x.loop)
    assert.are.equal(2, x.priority)
    assert.are.equal("step", x.markers[1].name)
    local back = assert(anim.import_gltf(out)).clips.walk
    assert.are.same(walk:markers(), back:markers())
    assert.are.equal("loop", back.loop)
    assert.are.equal(2, back.priority)
  end)

  it("builds the node tree from the clips' skeletons without a rig, and adds joints found in neither as roots", function()
    local c = assert(anim.clip({ length = 1, joints = {
      arm = { rotation = { { 0, { 0, 0, 0, 1 } }, { 1, { 0, 0, S, S } } } },
      loose = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
      skeleton = { body = { position = { 0, 1, 0 } }, arm = { parent = "body", position = { 0.5, 1.5, 0 }, rotation = { 0, 0, 90 } } } }, "sk"))
    local out = dir .. "/sk.gltf"
    assert.are.same({}, assert(anim.export_gltf(c, out)))
    local doc = cjson.decode(H.read(out))
    local nodes = {}
    for i, nd in ipairs(doc.nodes) do nodes[nd.name] = nd; nd.index = i - 1 end
    assert.are.same({ 0.5, 0.5, 0 }, nodes.arm.translation)
    assert.are.same({ nodes.arm.index }, nodes.body.children)
    assert.is_nil(nodes.loose.children)
    local roots = doc.scenes[1].nodes
    table.sort(roots)
    assert.are.same({ nodes.body.index, nodes.loose.index }, roots)
    -- the offsets are written put together with the rests
    local back = assert(anim.import_gltf(out))
    local q = back.clips.sk:sample(1).arm.rotation
    local rest = H.qaxis(3, 90)
    assert.is_true(H.quatdiff(q, H.qmul(rest, { 0, 0, S, S })) < 1e-6)
  end)

  it("checks its arguments, and returns nil, message for what cannot be written", function()
    local c = assert(anim.clip { joints = { a = { position = { { 0, { 1e39, 0, 0 } } } } } })
    assert.has_error(function() anim.export_gltf(5, "x.glb") end,
      "bad argument #1 to 'export_gltf' (clip or list of clips expected, got number)")
    assert.has_error(function() anim.export_gltf({ c, 5 }, "x.glb") end,
      "bad argument #1 to 'export_gltf' (clip expected at index 2, got number)")
    assert.has_error(function() anim.export_gltf(c, {}, "x.glb") end,
      "bad argument #2 to 'export_gltf' (rig or path expected, got table)")
    assert.has_error(function() anim.export_gltf(c, "x.fbx") end,
      "bad argument #2 to 'export_gltf' (the path must end in .gltf or .glb, got 'x.fbx')")
    assert.has_error(function() anim.export_gltf(c, anim.rig("player"), "x.glb", { fps = 0 }) end,
      "bad argument #4 to 'export_gltf' (option 'fps' must be a number above 0 and at most 10000, got 0)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { speed = 1 }) end,
      "bad argument #3 to 'export_gltf' (unknown option 'speed'; expected one of fps, error, distance, reduce)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { distanse = 1 }) end,
      "bad argument #3 to 'export_gltf' (unknown option 'distanse'; did you mean 'distance'?)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { reduce = "no" }) end,
      "bad argument #3 to 'export_gltf' (option 'reduce' must be a boolean, got string)")
    assert.has_error(function() anim.export_gltf(c, "x.glb", { error = -1 }) end,
      "bad argument #3 to 'export_gltf' (option 'error' must be a number above 0, got -1)")
    local r, err = anim.export_gltf(c, dir .. "/big.glb")
    assert.is_nil(r)
    assert.are.equal(dir .. "/big.glb: clip: joint 'a' position: 1e+39 cannot be written as a 32-bit float", err)
    os.execute("mkdir -p '" .. dir .. "/adir.glb'")
    r, err = anim.export_gltf(anim.clip { joints = {} }, dir .. "/adir.glb")
    assert.is_nil(r)
    assert.are.equal(dir .. "/adir.glb: cannot save: it is a directory, not a regular file", err)
  end)

  it("writes a clip that animates nothing as an animation of its length", function()
    local c = assert(anim.clip({ length = 2, joints = {}, markers = { { time = 1, name = "m" } } }, "empty"))
    assert.are.same({}, assert(anim.export_gltf(c, dir .. "/empty.glb")))
    local back = assert(anim.import_gltf(dir .. "/empty.glb")).clips.empty
    assert.are.equal(2, back.length)
    assert.are.equal("m", back:markers()[1].name)
  end)

  it("packs rotations' normalized shorts as glTF's little-endian SHORT, refusing a value beyond one", function()
    local core = require "anim.core"
    -- n = floor(x * 32767 + 0.5): 1 -> 32767, -1 -> -32767 (0x8001), 0.5 -> 16384, -0.25 -> -8192 (0xe000)
    assert.are.equal("\255\127\001\128\000\064\000\224\000\000",
      core.gltf_pack_shorts({ 1, -1, 0.5, -0.25, 0 }))
    assert.are.equal("", core.gltf_pack_shorts({}))
    for _, bad in ipairs { 2, -1.01, 0 / 0 } do
      local ok, err = pcall(core.gltf_pack_shorts, { 0, bad })
      assert.is_false(ok)
      assert.truthy(tostring(err):find("a value out of a normalized short's range", 1, true), err)
    end
  end)
end)
