-- Bad input (issue 2, SEMANTICS 10): every loading function returns exactly
-- `nil, message` for a malformed clip, and the message names the file (or
-- the name given), the JSON path of the bad field (indices from 1, as in
-- Lua), what was expected and what was there.  Wrong argument types are
-- programming errors and raise Lua errors instead.
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

-- Decodes `text` as "walk.anim"; the result must be exactly nil, message.
local function decode_err(text)
  local r = compat.pack(anim.decode(text, "walk.anim"))
  assert.are.equal(2, r.n, "expected exactly nil, message")
  assert.is_nil(r[1])
  assert.are.equal("string", type(r[2]))
  return r[2]
end

-- The same through anim.clip with a Lua table.
local function clip_err(t)
  local r = compat.pack(anim.clip(t, "t.anim"))
  assert.are.equal(2, r.n, "expected exactly nil, message")
  assert.is_nil(r[1])
  assert.are.equal("string", type(r[2]))
  return r[2]
end

local function expect(text, msg)
  assert.are.equal("walk.anim: " .. msg, decode_err(text))
end

-- A clip of one joint `a` whose `channel` has the given keys (JSON text).
local function keys(channel, list, extra)
  return '{"joints": {"a": {"' .. channel .. '": ' .. list .. (extra or "") .. '}}}'
end

describe("bad input", function()
  describe("not JSON", function()
    it("names the file and says it is not JSON", function()
      local msg = decode_err('{"joints": {')
      assert.truthy(msg:find("^walk%.anim: not valid JSON: "), msg)
    end)

    it("reports an empty text as not JSON", function()
      local msg = decode_err("")
      assert.truthy(msg:find("^walk%.anim: not valid JSON: "), msg)
    end)

    it("reports nesting beyond the documented limit as not JSON, without crashing", function()
      local msg = decode_err(string.rep("[", 1000) .. string.rep("]", 1000))
      assert.truthy(msg:find("^walk%.anim: not valid JSON: "), msg)
    end)

    it("names the clip 'clip' when no name is given", function()
      local clip, msg = anim.decode("nope")
      assert.is_nil(clip)
      assert.truthy(msg:find("^clip: not valid JSON: "), msg)
    end)
  end)

  describe("the top level", function()
    it("must be an object: an array", function()
      expect('[1, 2]', "expected an object with joints or keyframes, got array")
    end)

    it("must be an object: a string, a number, null", function()
      expect('"walk"', "expected an object with joints or keyframes, got string")
      expect('5', "expected an object with joints or keyframes, got number")
      expect('null', "expected an object with joints or keyframes, got null")
    end)

    it("needs joints or keyframes", function()
      expect('{"length": 1}', "expected an object with joints or keyframes, got an object without either")
      expect('{}', "expected an object with joints or keyframes, got an object without either")
    end)

    it("joints must be an object of joints", function()
      expect('{"joints": 5}', "joints: joints must be an object, got number")
      expect('{"joints": [1]}', "joints: joints must be an object, got array")
      expect('{"joints": {"a": 5}}', "joints.a: joint must be an object, got number")
    end)

    it("a Lua table with joints as an array is refused", function()
      assert.are.equal("t.anim: joints: joints must be an object, got array",
        clip_err { joints = { { position = {} } } })
    end)
  end)

  describe("keys", function()
    it("a channel must be an array of keys", function()
      expect(keys("position", '5'), "joints.a.position: position keys must be an array, got number")
      expect(keys("rotation", '{"t": 0}'), "joints.a.rotation: rotation keys must be an array, got object")
    end)

    it("a key must be an array of 2 to 4", function()
      expect(keys("position", '[5]'),
        "joints.a.position[1]: key must be [time, value, interpolation, extra], got number")
      expect(keys("position", '[[0, [0, 0, 0]], [1]]'),
        "joints.a.position[2]: key must be [time, value, interpolation, extra], got an array of 1")
      expect(keys("scale", '[[0, [1, 1, 1], "linear", {}, 5]]'),
        "joints.a.scale[1]: key must be [time, value, interpolation, extra], got an array of 5")
    end)

    it("names joints that are not identifiers with a quoted key", function()
      expect('{"joints": {"left arm": {"position": [[0, [0, 0]]]}}}',
        'joints["left arm"].position[1][2]: position must be an array of 3 numbers, got an array of 2')
    end)
  end)

  describe("value arity", function()
    it("position and scale need 3 numbers", function()
      expect(keys("position", '[[0, [0, 0, 0]], [1, [1, 2]]]'),
        "joints.a.position[2][2]: position must be an array of 3 numbers, got an array of 2")
      expect(keys("scale", '[[0, [1, 1, 1, 1]]]'),
        "joints.a.scale[1][2]: scale must be an array of 3 numbers, got an array of 4")
      expect(keys("position", '[[0, 5]]'),
        "joints.a.position[1][2]: position must be an array of 3 numbers, got number")
    end)

    it("rotation needs 3 angles or 4 quaternion components", function()
      expect(keys("rotation", '[[0, [0, 0]]]'),
        "joints.a.rotation[1][2]: rotation must be [x, y, z] degrees or an [x, y, z, w] quaternion, got an array of 2")
      expect(keys("rotation", '[[0, [0, 0, 0, 1, 0]]]'),
        "joints.a.rotation[1][2]: rotation must be [x, y, z] degrees or an [x, y, z, w] quaternion, got an array of 5")
    end)

    it("components must be numbers", function()
      expect(keys("position", '[[0, [0, "1", 0]]]'),
        "joints.a.position[1][2][2]: position component must be a finite number, got string")
      expect(keys("position", '[[0, [0, null, 0]]]'),
        "joints.a.position[1][2][2]: position component must be a finite number, got null")
    end)

    it("times must be numbers", function()
      expect(keys("rotation", '[[0, [0, 0, 0]], ["1", [0, 90, 0]]]'),
        "joints.a.rotation[2][1]: time must be a finite number, got string")
    end)
  end)

  describe("non-finite numbers", function()
    it("JSON 1e999 (decodes to inf) as a key time", function()
      expect(keys("position", '[[0, [0, 0, 0]], [1e999, [1, 1, 1]]]'),
        "joints.a.position[2][1]: time must be a finite number, got inf")
    end)

    it("JSON -1e999 as a component", function()
      expect(keys("scale", '[[0, [1, -1e999, 1]]]'),
        "joints.a.scale[1][2][2]: scale component must be a finite number, got -inf")
    end)

    it("NaN and infinity from Lua tables", function()
      assert.are.equal("t.anim: joints.a.position[1][1]: time must be a finite number, got nan",
        clip_err { joints = { a = { position = { { 0 / 0, { 0, 0, 0 } } } } } })
      assert.are.equal("t.anim: joints.a.position[1][2][3]: position component must be a finite number, got inf",
        clip_err { joints = { a = { position = { { 0, { 0, 0, math.huge } } } } } })
      assert.are.equal("t.anim: joints.a.rotation[1][2][4]: rotation component must be a finite number, got nan",
        clip_err { joints = { a = { rotation = { { 0, { 0, 0, 0, 0 / 0 } } } } } })
    end)

    it("in clip fields", function()
      assert.are.equal("t.anim: length: length must be a finite number, got nan",
        clip_err { joints = {}, length = 0 / 0 })
      assert.are.equal("t.anim: speed: speed must be a finite number, got inf",
        clip_err { joints = {}, speed = math.huge })
      assert.are.equal("t.anim: priority: priority must be a level name or a finite number, got -inf",
        clip_err { joints = {}, priority = -math.huge })
      assert.are.equal("t.anim: joints.a.weight: weight must be a finite number, got nan",
        clip_err { joints = { a = { weight = 0 / 0 } } })
      expect('{"joints": {}, "markers": [{"time": 1e999, "name": "m"}]}',
        "markers[1].time: time must be a finite number, got inf")
    end)

    it("in handles", function()
      assert.are.equal("t.anim: joints.a.position[1][4].out[1]: out handle time must be a finite number, got inf",
        clip_err { joints = { a = { position = { { 0, { 0, 0, 0 }, "bezier", { out = { math.huge, 0 } } } } } } })
      assert.are.equal("t.anim: joints.a.position[1][4].in[2]: in handle value must be a finite number, got nan",
        clip_err { joints = { a = { position = { { 0, { 0, 0, 0 }, "bezier", { ["in"] = { -0.1, 0 / 0 } } } } } } })
    end)
  end)

  describe("key order", function()
    it("key times must not decrease", function()
      expect(keys("position", '[[0, [0, 0, 0]], [1, [1, 1, 1]], [0.5, [2, 2, 2]]]'),
        "joints.a.position[3][1]: key times must not decrease (0.5 comes after 1)")
    end)

    it("prints the numbers as written, not with 17 digits", function()
      expect(keys("position", '[[0.3, [0, 0, 0]], [0.1, [1, 1, 1]]]'),
        "joints.a.position[2][1]: key times must not decrease (0.1 comes after 0.3)")
    end)

    it("equal times are a jump, not an error", function()
      assert.is_truthy(anim.decode(keys("position", '[[0, [0, 0, 0]], [0, [1, 1, 1]], [1, [1, 1, 1]]]')))
    end)
  end)

  describe("unknown names", function()
    it("interpolation", function()
      expect(keys("position", '[[0, [0, 0, 0], "wobble"]]'),
        "joints.a.position[1][3]: unknown interpolation 'wobble' (expected linear, step, catmullrom, bezier, "
        .. "sine, quad, cubic, quart, quint, expo, circ, back, bounce, elastic, cubicspline)")
      expect(keys("position", '[[0, [0, 0, 0], 5]]'),
        "joints.a.position[1][3]: interpolation must be a string, got number")
    end)

    it("interpolation names are case-sensitive in version 3", function()
      local msg = decode_err(keys("position", '[[0, [0, 0, 0], "Linear"]]'))
      assert.truthy(msg:find("unknown interpolation 'Linear'", 1, true), msg)
    end)

    it("ease", function()
      expect(keys("position", '[[0, [0, 0, 0], "sine", {"ease": "sideways"}]]'),
        "joints.a.position[1][4].ease: unknown ease 'sideways' (expected in, out or inOut)")
      expect(keys("position", '[[0, [0, 0, 0], "sine", {"ease": 1}]]'),
        "joints.a.position[1][4].ease: ease must be in, out or inOut, got number")
    end)

    it("loop", function()
      expect('{"loop": "forever", "joints": {}}',
        "loop: unknown loop mode 'forever' (expected once, loop, hold, pingpong)")
      expect('{"loop": true, "joints": {}}',
        "loop: loop mode must be one of once, loop, hold, pingpong, got boolean")
    end)

    it("priority", function()
      expect('{"priority": "urgent", "joints": {}}',
        "priority: unknown priority 'urgent' (expected core, idle, movement, action, action2, action3, action4, or a number)")
      expect('{"priority": [1], "joints": {}}',
        "priority: priority must be a level name or a finite number, got array")
    end)

    it("blend", function()
      expect('{"blend": "mix", "joints": {}}', "blend: unknown blend 'mix' (expected normal, additive)")
    end)

    it("space", function()
      expect('{"space": "world", "joints": {}}', "space: unknown space 'world' (expected body, view)")
    end)

    it("euler", function()
      expect('{"euler": "xxy", "joints": {}}',
        "euler: unknown euler order 'xxy' (expected a permutation of xyz such as yxz or zyx)")
      expect('{"euler": 3, "joints": {}}', 'euler: euler must be a string like "yxz", got number')
    end)

    it("event side", function()
      expect('{"joints": {}, "events": [{"time": 0, "name": "x", "on": "nowhere"}]}',
        "events[1].on: unknown side 'nowhere' (expected both, server, client)")
    end)
  end)

  describe("handles", function()
    local function h(extra)
      return keys("position", '[[0, [0, 0, 0], "bezier", ' .. extra .. '], [1, [1, 1, 1]]]')
    end

    it("a handle must be [dt, dv]", function()
      expect(h('{"out": [0.1]}'), "joints.a.position[1][4].out: out handle must be [dt, dv], got an array of 1")
      expect(h('{"in": 5}'), "joints.a.position[1][4].in: in handle must be [dt, dv], got number")
      expect(h('{"out": {"dt": 0.1}}'), "joints.a.position[1][4].out: out handle must be [dt, dv], got object")
    end)

    it("dt must be a number", function()
      expect(h('{"in": ["x", 1]}'), "joints.a.position[1][4].in[1]: in handle time must be a finite number, got string")
    end)

    it("dt may be three numbers, one per axis, checked as dv is", function()
      expect(h('{"out": [[0.1, 0.2], 1]}'),
        "joints.a.position[1][4].out[1]: out handle time must be an array of 3 numbers, got an array of 2")
      expect(h('{"in": [[-0.1, -0.2, -0.3, -0.4], 1]}'),
        "joints.a.position[1][4].in[1]: in handle time must be an array of 3 numbers, got an array of 4")
      expect(h('{"out": [[0.1, "x", 0.3], 1]}'),
        "joints.a.position[1][4].out[1][2]: out handle time component must be a finite number, got string")
      expect(h('{"in": [[-0.1, -0.2, 1e999], 1]}'),
        "joints.a.position[1][4].in[1][3]: in handle time component must be a finite number, got inf")
      assert.are.equal("t.anim: joints.a.position[1][4].out[1][1]: out handle time component must be a finite number, got nan",
        clip_err { joints = { a = { position = { { 0, { 0, 0, 0 }, "bezier", { out = { { 0 / 0, 0, 0 }, 0 } } } } } } })
      -- a property's: as many as its components
      expect('{"joints": {}, "properties": {"p": [[0, [1, 2], "bezier", {"out": [[0.1, 0.2, 0.3], 1]}], [1, [0, 0]]]}}',
        "properties.p[1][4].out[1]: out handle time must be an array of 2 numbers, got an array of 3")
    end)

    it("dv must be a number or three", function()
      expect(h('{"out": [0.1, [1, 2]]}'),
        "joints.a.position[1][4].out[2]: out handle value must be an array of 3 numbers, got an array of 2")
      expect(h('{"out": [0.1, "up"]}'),
        "joints.a.position[1][4].out[2]: out handle value must be a finite number, got string")
      expect(h('{"out": [0.1, [1, true, 3]]}'),
        "joints.a.position[1][4].out[2][2]: out handle value component must be a finite number, got boolean")
    end)

    it("the extra must be an object", function()
      expect(keys("position", '[[0, [0, 0, 0], "bezier", 5]]'),
        "joints.a.position[1][4]: key extra must be an object, got number")
    end)
  end)

  describe("weights", function()
    it("joint weight above 1", function()
      expect('{"joints": {"a": {"weight": 1.5}}}', "joints.a.weight: weight must be between 0 and 1, got 1.5")
    end)

    it("joint weight below 0", function()
      expect('{"joints": {"a": {"weight": -0.1}}}', "joints.a.weight: weight must be between 0 and 1, got -0.1")
    end)

    it("joint weight not a number", function()
      expect('{"joints": {"a": {"weight": "heavy"}}}', "joints.a.weight: weight must be a finite number, got string")
    end)

    it("the ends 0 and 1 are allowed", function()
      assert.is_truthy(anim.decode('{"joints": {"a": {"weight": 0}, "b": {"weight": 1}}}'))
      assert.is_truthy(anim.decode('{"keyframes": [{"time": 0, "poses": {"a": {"weight": 0}}}]}'))
    end)

    it("version 1 pose weight", function()
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"weight": 2}}}]}',
        "keyframes[1].poses.a.weight: weight must be between 0 and 1, got 2")
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"weight": -0.5}}}]}',
        "keyframes[1].poses.a.weight: weight must be between 0 and 1, got -0.5")
    end)
  end)

  describe("rotations", function()
    it("mixing Euler and quaternion keys in one channel", function()
      expect(keys("rotation", '[[0, [0, 0, 0]], [1, [0, 0, 0, 1]]]'),
        "joints.a.rotation[2][2]: a rotation channel must be all Euler angles or all quaternions; "
        .. "this key is a quaternion, the first was Euler angles")
      expect(keys("rotation", '[[0, [0, 0, 0, 1]], [1, [0, 0, 0, 1]], [2, [0, 90, 0]]]'),
        "joints.a.rotation[3][2]: a rotation channel must be all Euler angles or all quaternions; "
        .. "this key is Euler angles, the first was a quaternion")
    end)

    it("a zero quaternion", function()
      expect(keys("rotation", '[[0, [0, 0, 0, 1]], [1, [0, 0, 0, 0]]]'),
        "joints.a.rotation[2][2]: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])")
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"rotation": [0, 0, 0, 0]}}}]}',
        "keyframes[1].poses.a.rotation: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])")
    end)

    it("a huge but finite quaternion is normalised, not refused", function()
      local clip, err = anim.clip { joints = { a = { rotation = { { 0, { 1e300, 0, 0, 1e300 } } } } } }
      assert.is_nil(err)
      local q = clip:sample(0).a.rotation
      assert.is_true(H.quatdiff(q, { math.sqrt(0.5), 0, 0, math.sqrt(0.5) }) < 1e-12)
    end)

    it("a modifier on a quaternion channel", function()
      expect(keys("rotation", '[[0, [0, 0, 0, 1]]]', ', "modifiers": {"rotation": [{"type": "noise"}]}'),
        "joints.a.modifiers.rotation[1]: curve modifiers work on Euler angles, not on quaternion keys")
    end)

    it("the same modifier on Euler angles is fine", function()
      assert.is_truthy(anim.decode(keys("rotation", '[[0, [0, 0, 0]]]', ', "modifiers": {"rotation": [{"type": "noise"}]}')))
    end)
  end)

  describe("version", function()
    it("unknown numbers", function()
      expect('{"version": 4, "joints": {}}', "version: unknown version 4 (expected 1, 2 or 3)")
      expect('{"version": 2.5, "joints": {}}', "version: unknown version 2.5 (expected 1, 2 or 3)")
      expect('{"version": 1e999, "joints": {}}', "version: unknown version inf (expected 1, 2 or 3)")
    end)

    it("not a number", function()
      expect('{"version": "3", "joints": {}}', "version: version must be 1, 2 or 3, got string")
    end)

    it("1, 2 and 3 are read", function()
      for v = 1, 3 do
        assert.is_truthy(anim.decode('{"version": ' .. v .. ', "joints": {}}'))
      end
    end)
  end)

  describe("version 1", function()
    it("keyframes must be an array of objects", function()
      expect('{"keyframes": 5}', "keyframes: keyframes must be an array, got number")
      expect('{"keyframes": [5]}', "keyframes[1]: keyframe must be an object, got number")
    end)

    it("keyframes out of order", function()
      expect('{"keyframes": [{"time": 0}, {"time": 1}, {"time": 0.5}]}',
        "keyframes[3].time: keyframe times must not decrease (0.5 comes after 1)")
    end)

    it("keyframe without a time", function()
      expect('{"keyframes": [{"poses": {}}]}', "keyframes[1].time: time must be a finite number, got nil")
    end)

    it("unknown easing", function()
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"angles": [0, 0, 0], "easing": "wobble"}}}]}',
        "keyframes[1].poses.a.easing: unknown easing 'wobble' (expected linear, constant, sine, quad, cubic, "
        .. "quart, quint, expo, circ, back, bounce, elastic)")
      -- (issue 37: a near one is suggested)
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"angles": [0, 0, 0], "easing": "bounse"}}}]}',
        "keyframes[1].poses.a.easing: unknown easing 'bounse'; did you mean 'bounce'? (expected linear, constant, sine, quad, cubic, "
        .. "quart, quint, expo, circ, back, bounce, elastic)")
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"easing": 5}}}]}',
        "keyframes[1].poses.a.easing: easing must be a name (linear, constant, sine, quad, cubic, "
        .. "quart, quint, expo, circ, back, bounce, elastic), got number")
    end)

    it("unknown direction", function()
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"easing": "sine", "direction": "up"}}}]}',
        "keyframes[1].poses.a.direction: unknown direction 'up' (expected in, out or inOut)")
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"direction": false}}}]}',
        "keyframes[1].poses.a.direction: direction must be in, out or inOut, got boolean")
    end)

    it("pose values", function()
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"angles": [0, 0]}}}]}',
        "keyframes[1].poses.a.angles: angles must be an array of 3 numbers, got an array of 2")
      expect('{"keyframes": [{"time": 0, "poses": {"a": {"position": [0, 0, "x"]}}}]}',
        "keyframes[1].poses.a.position[3]: position component must be a finite number, got string")
      expect('{"keyframes": [{"time": 0, "poses": {"a": 5}}]}',
        "keyframes[1].poses.a: pose must be an object, got number")
    end)

    it("looped and priority", function()
      expect('{"keyframes": [], "looped": "yes"}', "looped: looped must be true or false, got string")
      expect('{"keyframes": [], "priority": "x"}',
        "priority: unknown priority 'x' (expected core, idle, movement, action, action2, action3, action4, or a number)")
    end)
  end)

  describe("timed items", function()
    local function items(field, list)
      return '{"joints": {}, "' .. field .. '": ' .. list .. '}'
    end

    it("lists must be arrays", function()
      expect(items("markers", '5'), "markers: markers must be an array, got number")
      expect(items("events", '{"a": 1}'), "events: events must be an array, got object")
      expect(items("sounds", '"s"'), "sounds: sounds must be an array, got string")
      expect(items("plays", 'true'), "plays: plays must be an array, got boolean")
    end)

    it("markers", function()
      expect(items("markers", '[5]'), "markers[1]: marker must be an object, got number")
      expect(items("markers", '[{"time": 0, "name": "a"}, {"time": 0}]'),
        "markers[2].name: name must be a string, got nil")
      expect(items("markers", '[{"time": "x", "name": "a"}]'), "markers[1].time: time must be a finite number, got string")
      expect(items("markers", '[{"time": 0, "name": "a", "value": {"x": 1}}]'),
        "markers[1].value: marker value must be a string, a number or a boolean, got object")
      expect(items("markers", '[{"time": 0, "name": "a", "value": [1]}]'),
        "markers[1].value: marker value must be a string, a number or a boolean, got array")
    end)

    it("events", function()
      expect(items("events", '[{"time": 0}]'), "events[1].name: name must be a string, got nil")
      expect(items("events", '[{"name": "x"}]'), "events[1].time: time must be a finite number, got nil")
      expect(items("events", '[{"time": 0, "name": "x", "on": 1}]'),
        "events[1].on: side must be one of both, server, client, got number")
    end)

    it("sounds", function()
      expect(items("sounds", '[{"time": 0}]'), "sounds[1]: sound needs a sound id in 'sound' (or 'id')")
      expect(items("sounds", '[{"time": 0, "sound": 5}]'), "sounds[1].sound: sound id must be a string, got number")
      expect(items("sounds", '[{"time": 0, "id": 5}]'), "sounds[1].id: sound id must be a string, got number")
      expect(items("sounds", '[{"time": 0, "sound": "s", "volume": "loud"}]'),
        "sounds[1].volume: volume must be a finite number, got string")
      expect(items("sounds", '[{"time": 0, "sound": "s", "pitch": [1]}]'),
        "sounds[1].pitch: pitch must be a finite number, got array")
    end)

    it("plays", function()
      expect(items("plays", '[{"time": 0}]'), "plays[1].clip: clip path must be a string, got nil")
      expect(items("plays", '[{"time": 0, "clip": "res://a.anim", "fade": -1}]'), "plays[1].fade: fade must be >= 0, got -1")
      expect(items("plays", '[{"time": 0, "clip": "res://a.anim", "fade": "slow"}]'),
        "plays[1].fade: fade must be a finite number, got string")
    end)
  end)

  describe("other clip fields", function()
    it("mask", function()
      expect('{"mask": 5, "joints": {}}', "mask: mask must be an array of joint names or a string of names, got number")
      expect('{"mask": ["a", 5], "joints": {}}', "mask[2]: mask name must be a string, got number")
    end)

    it("length", function()
      expect('{"length": -1, "joints": {}}', "length: length must be >= 0, got -1")
      expect('{"length": "1", "joints": {}}', "length: length must be a finite number, got string")
    end)

    it("autoplay and muted", function()
      expect('{"autoplay": 1, "joints": {}}', "autoplay: autoplay must be true or false, got number")
      expect('{"joints": {"a": {"muted": "yes"}}}', "joints.a.muted: muted must be true or false, got string")
    end)

    it("skeleton", function()
      expect('{"skeleton": [1], "joints": {}}', "skeleton: skeleton must be an object, got array")
      expect('{"skeleton": {"a": 5}, "joints": {}}', "skeleton.a: skeleton joint must be an object, got number")
      expect('{"skeleton": {"a": {"parent": "b"}}, "joints": {}}', "skeleton.a.parent: unknown parent 'b'")
      expect('{"skeleton": {"a": {"parent": 5}}, "joints": {}}', "skeleton.a.parent: parent must be a string, got number")
      expect('{"skeleton": {"a": {"position": [1, 2]}}, "joints": {}}',
        "skeleton.a.position: position must be an array of 3 numbers, got an array of 2")
      expect('{"skeleton": {"a": {"rotation": [0, 0, 0, 0]}}, "joints": {}}',
        "skeleton.a.rotation: rotation is a zero quaternion (a rotation needs a non-zero [x, y, z, w])")
    end)

    it("skeleton parents must form a hierarchy, not a cycle", function()
      expect('{"skeleton": {"a": {"parent": "a"}}, "joints": {}}',
        "skeleton.a.parent: parents form a cycle through 'a'")
      expect('{"skeleton": {"root": {}, "b": {"parent": "c"}, "c": {"parent": "d"}, "d": {"parent": "b"}}, "joints": {}}',
        "skeleton.b.parent: parents form a cycle through 'b'")
    end)

    it("retarget", function()
      expect('{"retarget": {"a": 5}, "joints": {}}', "retarget.a: retarget joint name must be a string, got number")
    end)
  end)

  describe("files", function()
    it("an unreadable file names the path", function()
      local r = compat.pack(anim.load("/nonexistent/dir/walk.anim"))
      assert.are.equal(2, r.n)
      assert.is_nil(r[1])
      assert.are.equal("/nonexistent/dir/walk.anim: cannot open file: No such file or directory", r[2])
    end)

    it("a path with ': ' in it keeps its whole reason", function()
      local clip, err = anim.load("/nonexistent: odd/walk.anim")
      assert.is_nil(clip)
      assert.are.equal("/nonexistent: odd/walk.anim: cannot open file: No such file or directory", err)
    end)

    it("a directory is not a file", function()
      local dir = H.tmpdir()
      local clip, err = anim.load(dir)
      os.remove(dir)
      assert.is_nil(clip)
      assert.are.equal(dir .. ": cannot open file: it is a directory", err)
    end)

    it("a bad file names the path and the field", function()
      local dir = H.tmpdir()
      local path = dir .. "/walk.anim"
      H.write(path, '{"joints": {"rightLeg": {"rotation": [[0, [0, 0, 0]], ["1", [0, 90, 0]]]}}}')
      local r = compat.pack(anim.load(path))
      os.remove(path)
      os.remove(dir)
      assert.are.equal(2, r.n)
      assert.is_nil(r[1])
      assert.are.equal(path .. ": joints.rightLeg.rotation[2][1]: time must be a finite number, got string", r[2])
    end)

    it("an empty file is not JSON", function()
      local dir = H.tmpdir()
      local path = dir .. "/empty.anim"
      H.write(path, "")
      local clip, err = anim.load(path)
      os.remove(path)
      os.remove(dir)
      assert.is_nil(clip)
      assert.truthy(err:find(path .. ": not valid JSON: ", 1, true), err)
    end)
  end)

  describe("API arguments", function()
    local good = '{"joints": {"a": {"position": [[0, [0, 0, 0]], [1, [2, 4, 6]]]}}}'

    it("anim.load(5) raises", function()
      assert.has_error(function() anim.load(5) end, "bad argument #1 to 'load' (string expected, got number)")
      assert.has_error(function() anim.load() end, "bad argument #1 to 'load' (string expected, got nil)")
    end)

    it("anim.decode({}) raises", function()
      assert.has_error(function() anim.decode({}) end, "bad argument #1 to 'decode' (string expected, got table)")
      assert.has_error(function() anim.decode(good, 5) end, "bad argument #2 to 'decode' (string expected, got number)")
    end)

    it("anim.clip('x') raises", function()
      assert.has_error(function() anim.clip("x") end, "bad argument #1 to 'clip' (table expected, got string)")
      assert.has_error(function() anim.clip({ joints = {} }, {}) end,
        "bad argument #2 to 'clip' (string expected, got table)")
    end)

    it("clip:sample('a') raises", function()
      local clip = assert(anim.decode(good))
      assert.has_error(function() clip:sample("a") end, "bad argument #1 to 'sample' (number expected, got string)")
      assert.has_error(function() clip:sample() end, "bad argument #1 to 'sample' (number expected, got nil)")
      assert.has_error(function() clip:sample(0 / 0) end)
    end)

    it("accepts an explicit nil for every optional argument", function()
      local c1, e1 = anim.decode(good, nil)
      assert.is_nil(e1)
      assert.are.equal("clip", c1.name)
      assert.are.same({ 1, 2, 3 }, c1:sample(0.5).a.position)
      local c2, e2 = anim.clip({ joints = { a = { position = { { 0, { 0, 0, 0 } }, { 1, { 2, 4, 6 } } } } } }, nil)
      assert.is_nil(e2)
      assert.are.equal("clip", c2.name)
      assert.are.same({ 1, 2, 3 }, c2:sample(0.5).a.position)
      local _, e3 = anim.decode("[", nil)
      assert.truthy(e3:find("^clip: not valid JSON"), e3)
    end)
  end)

  describe("nothing half built", function()
    it("every failing loader returns exactly nil and a string", function()
      local cases = {
        function() return anim.decode("{") end,
        function() return anim.decode('{"joints": {"a": {"position": [[0, [0, 0, 0]], [1, [1]]]}}}') end,
        function() return anim.clip { joints = { a = { weight = 2 } } } end,
        function() return anim.clip { keyframes = { { time = 1 }, { time = 0 } } } end,
        function() return anim.load("/nonexistent.anim") end,
      }
      for i, f in ipairs(cases) do
        local r = compat.pack(f())
        assert.are.equal(2, r.n, "case " .. i)
        assert.is_nil(r[1], "case " .. i)
        assert.are.equal("string", type(r[2]), "case " .. i)
      end
    end)

    it("a success returns exactly one clip", function()
      local r = compat.pack(anim.decode('{"joints": {}}'))
      assert.are.equal(1, r.n)
      assert.is_true(anim.is_clip(r[1]))
    end)

    it("an error in the last joint does not leave the earlier ones anywhere", function()
      -- a is valid, z is not: the result is nil, not a clip of a
      local clip, err = anim.clip { joints = { a = { position = { { 0, { 1, 2, 3 } } } }, z = { scale = { { 0, { 1 } } } } } }
      assert.is_nil(clip)
      assert.are.equal("clip: joints.z.scale[1][2]: scale must be an array of 3 numbers, got an array of 1", err)
    end)
  end)
end)
