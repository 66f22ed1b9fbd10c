-- What anim.export_gltf writes, read by three.js: GLTFLoader loads each
-- file and an AnimationMixer plays each animation (tools/gltf-ref/sample.mjs,
-- node); the nodes' local transforms and world matrices must be what the
-- module plays -- each source clip on the rig of the file written --
-- within the 32-bit floats for what is exact and within the measured error
-- for what was baked.  It needs node and three.js in tools/gltf-ref
-- (`make gltf-ref` installs them and runs this; `make test-long` too).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local cjson = require "cjson"
local binary = require "spec.bytes"
local compat = require "anim.base.compat"

local REF = H.root .. "/tools/gltf-ref"
local q = H.sq
local have = compat.execute("command -v node >/dev/null 2>&1 && test -f " .. q(REF .. "/node_modules/three/package.json"))

-- The JSON of a written file (.gltf or .glb).
local function gltf_json(path)
  local bytes = H.read(path)
  if bytes:sub(1, 4) ~= "glTF" then return cjson.decode(bytes) end
  return cjson.decode(bytes:sub(21, 20 + binary.unpack("<I4", bytes, 13)))
end

local function matrix(px, py, pz, x, y, z, w, sx, sy, sz)
  local xx, yy, zz, xy, xz, yz, wx, wy, wz = x * x, y * y, z * z, x * y, x * z, y * z, w * x, w * y, w * z
  return { (1 - 2 * (yy + zz)) * sx, 2 * (xy + wz) * sx, 2 * (xz - wy) * sx, 0,
    2 * (xy - wz) * sy, (1 - 2 * (xx + zz)) * sy, 2 * (yz + wx) * sy, 0,
    2 * (xz + wy) * sz, 2 * (yz - wx) * sz, (1 - 2 * (xx + yy)) * sz, 0, px, py, pz, 1 }
end

local S = math.sqrt(0.5)

-- The clip without its joints' weights: a weight is how much of a joint
-- the clip takes in a blend, which glTF has no place for (what is written
-- is the clip's curves, as clip:sample gives them).
local function unweighted(c)
  local info = require("anim.core").clip_info(c)
  local t = info.source
  for _, j in pairs(t.joints or {}) do j.weight = nil end
  return assert(anim.clip(t, info.name))
end

describe("glTF files as three.js reads them #long", function()
  if not have then
    pending("needs node and three.js in tools/gltf-ref: run `make gltf-ref`")
    return
  end

  it("play as the module plays the clips they were written from", function()
    local dir = H.tmpdir()
    local player = anim.rig("player")
    -- what is written: { file, clips, rig (or nil: the clips' skeletons) }
    local jobs = {}
    local examples = {}
    for _, n in ipairs { "walk", "wave", "attack", "spark" } do
      examples[#examples + 1] = assert(anim.load(H.root .. "/examples/clips/" .. n .. ".anim"))
    end
    examples[#examples + 1] = assert(anim.import_xml(H.root .. "/examples/clips/nod.xml"))
    jobs[#jobs + 1] = { file = dir .. "/examples.glb", clips = examples, rig = player }
    -- a Blockbench project: its skeleton (rest turns) as the node tree
    local bb = assert(anim.import_blockbench(H.shared .. "/data/blockbench/hephaestus-engine/correct_x_axis_rotation_test.bbmodel"))
    local bbl = {}
    for _, c in pairs(bb) do bbl[#bbl + 1] = c end
    jobs[#jobs + 1] = { file = dir .. "/blockbench.gltf", clips = bbl }
    -- every kind of key glTF holds exactly, on a rig with rests
    local rig = assert(anim.rig { joints = {
      { name = "a", translation = { 1, 2, 3 }, rotation = { 0, math.sin(math.pi / 12), 0, math.cos(math.pi / 12) }, scale = { 2, 2, 2 } },
      { name = "b", parent = "a", translation = { 0, 1, 0 }, rotation = { S, 0, 0, S }, scale = { 0.5, 0.5, 0.5 } } } })
    local exact = assert(anim.clip({ length = 3, joints = {
      a = { position = { { 0, { 0, 0, 0 } }, { 0.5, { 1, 2, 3 }, "step" }, { 1, { 2, 2, 2 } }, { 1, { 5, 5, 5 } },
          { 1.5, { 0, 1, 0 }, "cubicspline", { out_tangent = { 1, 2, 3 } } }, { 2, { 1, 1, 1 }, "bezier" },
          { 2.5, { 0, 0, 0 }, "catmullrom" }, { 2.75, { 1, 0, 0 }, "quad", { ease = "out" } }, { 3, { 2, 0, 0 } } },
        rotation = { { 0, { 0, 0, 0 } }, { 1, { 90, 0, 0 } }, { 2, { -60, 0, 0 }, "step" }, { 3, { 10, 0, 0 } } } },
      b = { rotation = { { 0, { 0, 0, 0, 1 }, "step" }, { 1, { 0, S, 0, S }, "cubicspline", { out_tangent = { 0, 1, 0, 0 } } },
          { 2, { 0, 0, 0, 1 } } },
        scale = { { 0, { 1, 1, 1 } }, { 3, { 3, 3, 3 } } } } } }, "exact"))
    jobs[#jobs + 1] = { file = dir .. "/exact.glb", clips = { exact }, rig = rig }
    -- a glTF model written again (absolute clips, their skeleton)
    local fox = assert(anim.import_gltf(H.shared .. "/data/gltf/Fox/glTF-Binary/Fox.glb"))
    jobs[#jobs + 1] = { file = dir .. "/fox.gltf", clips = { fox.clips.Walk, fox.clips.Survey } }

    local request = {}
    for _, j in ipairs(jobs) do
      if j.rig then j.approx = assert(anim.export_gltf(j.clips, j.rig, j.file))
      else j.approx = assert(anim.export_gltf(j.clips, j.file)) end
      j.back = assert(anim.import_gltf(j.file))
      j.doc = gltf_json(j.file)
      j.times = {}
      for i, c in ipairs(j.clips) do
        local ts = {}
        for k = 0, 7 do ts[#ts + 1] = c.length * k / 8 end
        ts[#ts + 1] = c.length * 0.999
        j.times[tostring(i - 1)] = ts
      end
      request[#request + 1] = { file = j.file, times = j.times }
    end
    local reqf = dir .. "/request.json"
    H.write(reqf, cjson.encode(request))
    local text, code = H.popen("node " .. q(REF .. "/sample.mjs") .. " " .. q(reqf))
    assert.are.equal(0, code, text)
    local answer = cjson.decode(text)

    local checked = 0
    for _, j in ipairs(jobs) do
      local got = answer[j.file]
      -- the error allowed per clip joint and channel: what approx measured
      local allowed = {}
      local worst_baked = 0
      for _, a in ipairs(j.approx) do
        allowed[a.clip .. "|" .. a.joint .. "|" .. a.channel] = a.error
        worst_baked = math.max(worst_baked, a.error)
      end
      local rig_back = j.back.rig
      for i, c in ipairs(j.clips) do
        local ans = got.animations[tostring(i - 1)]
        local info = require("anim.core").clip_info(c)
        local map = c:bindings(rig_back)
        local node_of = {}
        for cj, r in pairs(map) do if r.joint then node_of[r.joint] = cj end end
        local plain = unweighted(c)
        for _, entry in pairs(ans.times) do
          local a = anim.animator(rig_back)
          local tr = a:play(plain, { fade = 0 })
          a:update(0)
          tr.time = entry.t
          a:update(0)
          for ni, three in pairs(entry.nodes) do
            local name = j.doc.nodes[tonumber(ni) + 1].name
            local l = { a:local_transform(name) }
            local cj = node_of[name]
            local function tol(ch)
              local e = cj and allowed[info.name .. "|" .. cj .. "|" .. ch]
              return e and (2 * e + 1e-5) or 2e-6
            end
            local what = string.format("%s %s at %g: %s", j.file:match("[^/]+$"), ans.name, entry.t, name)
            assert(H.maxdiff(three.position, { l[1], l[2], l[3] }) <= tol("position"), what .. " position")
            assert(H.quatdiff(three.quaternion, { l[4], l[5], l[6], l[7] }) <= tol("rotation"), what .. " rotation")
            assert(H.maxdiff(three.scale, { l[8], l[9], l[10] }) <= tol("scale"), what .. " scale")
            -- the world matrices: three.js's product of matrices, the
            -- module's world transforms (uniform scales: the same)
            local w = matrix(a:world_transform(name))
            assert(H.maxdiff(three.world, w) <= 1e-4 + 10 * worst_baked, what .. " world matrix")
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > 500, "checked " .. checked)
    os.execute("rm -rf " .. q(dir))
  end)
end)
