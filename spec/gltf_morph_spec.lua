-- glTF morph target weights as property channels (issue 23): the
-- `weights` channel of AnimatedMorphCube (../shared/data/gltf, the glTF
-- sample model) as a property `<node>.weights`, a vector of the morph
-- weights, sampled against what three.js plays: its
-- mesh.morphTargetInfluences at chosen times, written by
-- tools/morph-reference (npm run reference) into
-- spec/data/animated_morph_cube_three.json.  The keys are read here from
-- the model's .bin by hand, as the glTF importer gives them (checked): one
-- key per input time, the value the n weights of that time, `linear` for
-- LINEAR (`step` for STEP).
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local binary = require "spec.bytes"

local DIR = H.shared .. "/data/gltf/AnimatedMorphCube/glTF"

-- The floats of accessor i (0-based) of the model.
local function floats(gltf, bin, i)
  local acc = gltf.accessors[i + 1]
  local view = gltf.bufferViews[acc.bufferView + 1]
  assert(acc.componentType == 5126, "float accessors only")
  local n = acc.count * ({ SCALAR = 1, VEC2 = 2, VEC3 = 3, VEC4 = 4 })[acc.type]
  local out, at = {}, (view.byteOffset or 0) + (acc.byteOffset or 0) + 1
  for k = 1, n do out[k], at = binary.unpack("<f", bin, at) end
  return out
end

describe("glTF morph target weights as a property channel", function()
  local have = io.open(DIR .. "/AnimatedMorphCube.gltf")
  if not have then
    it("needs ../shared/data/gltf/AnimatedMorphCube", function() pending("no shared data here") end)
    return
  end
  have:close()
  local gltf = cjson.decode(H.read(DIR .. "/AnimatedMorphCube.gltf"))
  local bin = H.read(DIR .. "/" .. gltf.buffers[1].uri)
  local ref = cjson.decode(H.read(H.root .. "/spec/data/animated_morph_cube_three.json"))

  -- the clip the importer is to make of the model's one animation
  local anim_ = gltf.animations[1]
  local ch = anim_.channels[1]
  local sampler = anim_.samplers[ch.sampler + 1]
  local node = gltf.nodes[ch.target.node + 1].name
  local times = floats(gltf, bin, sampler.input)
  local values = floats(gltf, bin, sampler.output)
  local n = math.floor(#values / #times)
  local keys = {}
  for k, t in ipairs(times) do
    local v = {}
    for j = 1, n do v[j] = values[(k - 1) * n + j] end
    keys[k] = { t, v, sampler.interpolation == "STEP" and "step" or nil }
  end
  local clip = assert(anim.clip({ version = 3, joints = {}, properties = { [node .. ".weights"] = keys } }, anim_.name))

  it("the reference is three.js's, for this model", function()
    assert.are.equal("AnimatedMorphCube", ref.node)
    assert.are.equal(node, ref.node)
    assert.are.equal("weights", ch.target.path)
    assert.are.equal(2, n)
    assert.are.equal(17, #ref.samples)
  end)

  it("clip:sample gives three.js's morphTargetInfluences (within 1e-12: 1.1e-16 measured)", function()
    for _, s in ipairs(ref.samples) do
      local got = clip:sample(s.time).properties["AnimatedMorphCube.weights"]
      assert.are.equal(2, #got)
      for j = 1, 2 do
        assert.is_true(math.abs(got[j] - s.weights[j]) <= 1e-12,
          string.format("t=%s weight %d: %.17g, three.js %.17g", s.time, j, got[j], s.weights[j]))
      end
    end
  end)

  it("anim.import_gltf reads the channel as that property: the same keys, the same samples", function()
    local r = assert(anim.import_gltf(DIR .. "/AnimatedMorphCube.gltf"))
    local imported = r.clips[anim_.name]
    assert.are.same({ node .. ".weights" }, imported:properties())
    for _, s in ipairs(ref.samples) do
      local got = imported:sample(s.time).properties[node .. ".weights"]
      local want = clip:sample(s.time).properties[node .. ".weights"]
      assert.are.same(want, got)
      for j = 1, 2 do assert.is_true(math.abs(got[j] - s.weights[j]) <= 1e-12) end
    end
    -- played on the model's nodes
    local a = anim.animator(r.scene)
    local tr = a:play(imported, { fade = 0 })
    tr.time = 1.25
    a:update(0)
    assert.are.same(clip:sample(1.25).properties[node .. ".weights"], { a:property(node .. ".weights") })
  end)

  it("an animator playing it gives the same through animator:property", function()
    for _, s in ipairs(ref.samples) do
      local a = anim.animator(anim.rig{ joints = { { name = node } } })
      local tr = a:play(clip, { fade = 0 })
      tr.time = s.time
      a:update(0)
      local w1, w2 = a:property(node .. ".weights")
      local want = clip:sample(math.min(s.time, clip.length)).properties[node .. ".weights"]
      assert.are.same(want, { w1, w2 })
      assert.is_true(math.abs(w1 - s.weights[1]) <= 1e-12 and math.abs(w2 - s.weights[2]) <= 1e-12)
    end
  end)
end)
