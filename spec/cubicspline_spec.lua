-- The cubicspline interpolation (this module's extension of .anim, glTF's
-- CUBICSPLINE): a Hermite spline through the keys with their in- and
-- out-tangents scaled by the segment's length; quaternions made unit.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

-- The glTF 2.0 specification's formula (Appendix C), written out here.
local function hermite(v0, b0, v1, a1, td, s)
  local s2, s3 = s * s, s * s * s
  return (2 * s3 - 3 * s2 + 1) * v0 + td * (s3 - 2 * s2 + s) * b0 + (-2 * s3 + 3 * s2) * v1 + td * (s3 - s2) * a1
end

local clip = assert(anim.decode([=[{"length": 3, "joints": {
  "a": {"position": [[1, [0, 1, 2], "cubicspline", {"out_tangent": [1, -2, 0.5], "in_tangent": [9, 9, 9]}],
                     [3, [4, 0, -1], "cubicspline", {"in_tangent": [0, 3, -1], "out_tangent": [7, 7, 7]}]],
        "rotation": [[0, [0, 0, 0, 2], "cubicspline", {"out_tangent": [0.5, 0, 1, 0]}],
                     [2, [0, 0, 0.7071067811865476, 0.7071067811865476], "cubicspline", {"in_tangent": [0, 1, 0, -1]}]]},
  "e": {"rotation": [[0, [0, 0, 0], "cubicspline", {"out_tangent": [0, 90, 0]}], [1, [0, 30, 0]]]}}}]=], "spline"))

describe("cubicspline keys", function()
  it("follow the Hermite spline of glTF, tangents in units per second scaled by the segment", function()
    for _, t in ipairs { 1, 1.3, 2, 2.5, 2.999 } do
      local s = (t - 1) / 2
      local p = clip:sample(t).a.position
      assert.is_true(H.maxdiff(p, { hermite(0, 1, 4, 0, 2, s), hermite(1, -2, 0, 3, 2, s),
        hermite(2, 0.5, -1, -1, 2, s) }) < 1e-14, "at " .. t)
    end
  end)

  it("hold their ends and ignore the first in-tangent and the last out-tangent", function()
    assert.are.same({ 0, 1, 2 }, clip:sample(0).a.position)
    assert.are.same({ 4, 0, -1 }, clip:sample(5).a.position)
  end)

  it("on quaternions: the spline of the keys as written, then made unit", function()
    local s = 0.5 * 0.7
    local raw = {}
    local v0, b0 = { 0, 0, 0, 2 }, { 0.5, 0, 1, 0 }
    local v1, a1 = { 0, 0, 0.7071067811865476, 0.7071067811865476 }, { 0, 1, 0, -1 }
    for i = 1, 4 do raw[i] = hermite(v0[i], b0[i], v1[i], a1[i], 2, s) end
    local n = math.sqrt(raw[1] ^ 2 + raw[2] ^ 2 + raw[3] ^ 2 + raw[4] ^ 2)
    for i = 1, 4 do raw[i] = raw[i] / n end
    assert.is_true(H.maxdiff(clip:sample(0.7).a.rotation, raw) < 1e-14)
    -- at a key, the key made unit
    assert.are.same({ 0, 0, 0, 1 }, clip:sample(0).a.rotation)
  end)

  it("on Euler angles: per axis, in degrees", function()
    local deg = hermite(0, 90, 30, 0, 1, 0.25)
    assert.is_true(H.quatdiff(clip:sample(0.25).e.rotation, H.qaxis(2, deg)) < 1e-14)
  end)

  it("encode with their tangents and decode to the same samples", function()
    local text = assert(anim.encode(clip))
    assert.matches('"cubicspline", { "in_tangent": %[9, 9, 9%], "out_tangent": %[1, %-2, 0.5%] }', text)
    local again = assert(anim.decode(text, "again"))
    for _, t in ipairs { 0.3, 1.1, 2.4 } do
      assert.are.same(clip:sample(t), again:sample(t))
    end
    assert.are.equal(text, anim.encode(again))
  end)

  it("read by the checker alone as the scanner reads them, bit for bit", function()
    local K = require "anim.format.read_keys"
    local core = require "anim.core"
    local function floats(t)
      local out = {}
      for k, x in pairs(t) do out[k] = type(x) == "table" and floats(x) or x + 0.0 end
      return out
    end
    local tree = require("cjson").decode((anim.encode(clip)))
    local n = 0
    for j, name in ipairs(clip:joints()) do
      for slot, chname in ipairs({ "position", "rotation", "scale" }) do
        local list = tree.joints[name][chname]
        if list then
          local ch, prev, v = { t = {}, vals = {}, ie = {} }, nil, {}
          for i, k in ipairs(list) do prev = K.read_key(ch, i, k, "p", chname, prev) end
          for i, val in ipairs(ch.vals) do
            for a = 1, #val do v[(i - 1) * #val + a] = val[a] end
          end
          local t, cv, ie, _, _, tan = core.clip_keys(clip, j, slot - 1)
          assert.is_nil(H.bitdiff(floats({ t, cv, ie, tan }), floats({ ch.t, v, ch.ie, ch.tan })))
          n = n + 1
        end
      end
    end
    assert.are.equal(3, n)
  end)

  it("refuse tangents of the wrong size or with numbers that are not finite", function()
    local _, err = anim.decode('{"joints": {"a": {"position": [[0, [0, 0, 0], "cubicspline", {"out_tangent": [1, 2]}]]}}}', "x")
    assert.are.equal("x: joints.a.position[1][4].out_tangent: out tangent must be an array of 3 numbers, got an array of 2", err)
    _, err = anim.decode('{"joints": {"a": {"rotation": [[0, [0, 0, 0, 1], "cubicspline", {"in_tangent": [0, 0, 0]}]]}}}', "x")
    assert.are.equal("x: joints.a.rotation[1][4].in_tangent: in tangent must be an array of 4 numbers, got an array of 3", err)
    _, err = anim.decode('{"joints": {"a": {"scale": [[0, [1, 1, 1], "cubicspline", {"in_tangent": [0, "a", 0]}]]}}}', "x")
    assert.are.equal("x: joints.a.scale[1][4].in_tangent[2]: in tangent component must be a finite number, got string", err)
  end)

  it("are not an easing of version 1 poses", function()
    local _, err = anim.decode('{"keyframes": [{"time": 0, "poses": {"a": {"angles": [0, 0, 0], "easing": "cubicspline"}}}]}', "x")
    assert.matches("unknown easing 'cubicspline'", err)
  end)
end)
