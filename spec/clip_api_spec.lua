-- Clip metadata as Lua sees it (issue 2, SEMANTICS 5): scalar fields,
-- joint names, timed items with their defaults, editor-only and unknown
-- fields kept, the skeleton checked, and clips read-only.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"

local function decode(text)
  local c, err = anim.decode(text, "api.anim")
  assert.is_nil(err)
  assert.is_true(anim.is_clip(c))
  return c
end

local function with(fields)
  local t = { joints = { a = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 1, 1 } } } } } }
  for k, v in pairs(fields) do t[k] = v end
  local c, err = anim.clip(t)
  assert.is_nil(err)
  return c
end

describe("clip metadata", function()
  describe("length", function()
    it("an explicit length is kept, also shorter than the keys", function()
      assert.are.equal(2.5, with({ length = 2.5 }).length)
      assert.are.equal(0.25, with({ length = 0.25 }).length)
      assert.are.equal(0, with({ length = 0 }).length)
    end)

    it("defaults to the last key time over all joints and channels", function()
      local c = decode [==[{"joints": {
        "a": {"position": [[0, [0, 0, 0]], [1.5, [1, 1, 1]]]},
        "b": {"rotation": [[0.5, [0, 0, 0]], [2.25, [0, 90, 0]]], "scale": [[0, [1, 1, 1]]]}
      }}]==]
      assert.are.equal(2.25, c.length)
    end)

    it("defaults to the last marker when it comes after the last key", function()
      local c = decode '{"joints": {"a": {"position": [[0, [0, 0, 0]], [1, [1, 1, 1]]]}}, "markers": [{"time": 3, "name": "end"}]}'
      assert.are.equal(3, c.length)
      local d = decode '{"joints": {"a": {"position": [[0, [0, 0, 0]], [4, [1, 1, 1]]]}}, "markers": [{"time": 3, "name": "m"}]}'
      assert.are.equal(4, d.length)
    end)

    it("is 0 for a clip with nothing in it", function()
      assert.are.equal(0, decode('{"joints": {}}').length)
    end)
  end)

  describe("loop", function()
    it("defaults to once", function()
      assert.are.equal("once", with({}).loop)
    end)

    it("reads every mode", function()
      for _, m in ipairs { "once", "loop", "hold", "pingpong" } do
        assert.are.equal(m, with({ loop = m }).loop)
      end
    end)
  end)

  describe("priority", function()
    it("defaults to 0 (core)", function()
      assert.are.equal(0, with({}).priority)
    end)

    it("turns level names into numbers", function()
      local levels = { core = 0, idle = 1, movement = 2, action = 3, action2 = 4, action3 = 5, action4 = 6 }
      for name, n in pairs(levels) do
        local p = with({ priority = name }).priority
        assert.are.equal("number", type(p), name)
        assert.are.equal(n, p, name)
      end
    end)

    it("takes any finite number", function()
      assert.are.equal(2.5, with({ priority = 2.5 }).priority)
      assert.are.equal(-3, with({ priority = -3 }).priority)
      assert.are.equal(100, with({ priority = 100 }).priority)
    end)
  end)

  describe("speed", function()
    it("defaults to 1", function()
      assert.are.equal(1, with({}).speed)
    end)

    it("may be negative or 0", function()
      assert.are.equal(-2, with({ speed = -2 }).speed)
      assert.are.equal(0, with({ speed = 0 }).speed)
      assert.are.equal(0.5, with({ speed = 0.5 }).speed)
    end)
  end)

  describe("blend, space, autoplay, euler", function()
    it("have their defaults", function()
      local c = with({})
      assert.are.equal("normal", c.blend)
      assert.are.equal("body", c.space)
      assert.are.equal(false, c.autoplay)
      assert.are.equal("yxz", c.euler)
    end)

    it("read their values", function()
      local c = with({ blend = "additive", space = "view", autoplay = true, euler = "zyx" })
      assert.are.equal("additive", c.blend)
      assert.are.equal("view", c.space)
      assert.are.equal(true, c.autoplay)
      assert.are.equal("zyx", c.euler)
      for _, e in ipairs { "xyz", "xzy", "yxz", "yzx", "zxy", "zyx" } do
        assert.are.equal(e, with({ euler = e }).euler)
      end
    end)
  end)

  describe("mask", function()
    it("is nil when left out", function()
      assert.is_nil(with({}).mask)
    end)

    it("a list of names", function()
      assert.are.same({ "rightLeg", "leftLeg", "torso" }, with({ mask = { "rightLeg", "leftLeg", "torso" } }).mask)
    end)

    it("a string split on commas and/or white space", function()
      assert.are.same({ "a", "b", "c", "d", "e" }, with({ mask = "a, b c,,d\t\ne" }).mask)
      assert.are.same({ "head" }, with({ mask = "head" }).mask)
    end)

    it("is a copy: changing it does not change the clip", function()
      local c = with({ mask = { "a", "b" } })
      local m = c.mask
      m[1] = "zzz"
      assert.are.same({ "a", "b" }, c.mask)
    end)
  end)

  describe("joints", function()
    it("lists the joint names in name order", function()
      local c = decode '{"joints": {"torso": {}, "leftArm": {"position": [[0, [0, 0, 0]]]}, "head": {"weight": 0.5}}}'
      assert.are.same({ "head", "leftArm", "torso" }, c:joints())
    end)

    it("lists version 1 joints", function()
      local c = decode '{"keyframes": [{"time": 0, "poses": {"b": {"angles": [0, 0, 0]}}}, {"time": 1, "poses": {"a": {}}}]}'
      assert.are.same({ "a", "b" }, c:joints())
    end)

    it("is a copy", function()
      local c = decode '{"joints": {"a": {}, "b": {}}}'
      c:joints()[1] = "x"
      assert.are.same({ "a", "b" }, c:joints())
    end)
  end)

  describe("timed items", function()
    local c = decode [==[{
      "joints": {},
      "markers": [{"time": 0.25, "name": "step", "value": "right"}, {"time": 0.75, "name": "step"},
                  {"time": 0.5, "name": "nulled", "value": null}],
      "events": [{"time": 0.75, "name": "sound", "payload": {"effect": "step", "volume": 0.6}},
                 {"time": 0.1, "name": "hit", "payload": [1, 2], "on": "server"},
                 {"time": 0.2, "name": "fx", "on": "client", "preview": true}],
      "sounds": [{"time": 0.3, "sound": "res://step.ogg"}, {"time": 0.4, "id": "res://id.ogg", "volume": 0.5, "pitch": 2}],
      "plays": [{"time": 0.9, "clip": "res://wave.anim"}, {"time": 1, "clip": "res://b.anim", "fade": 0.5}]
    }]==]

    it("markers in file order; a marker without value has a nil value", function()
      local m = c:markers()
      assert.are.equal(3, #m)
      assert.are.same({ time = 0.25, name = "step", value = "right" }, m[1])
      assert.are.same({ time = 0.75, name = "step" }, m[2])
      assert.is_nil(m[2].value)
      assert.is_nil(m[3].value)
      assert.are.equal("nulled", m[3].name)
    end)

    it("events with their payload, on both by default", function()
      local e = c:events()
      assert.are.equal(3, #e)
      assert.are.equal(0.75, e[1].time)
      assert.are.equal("sound", e[1].name)
      assert.are.same({ effect = "step", volume = 0.6 }, e[1].payload)
      assert.are.equal("both", e[1].on)
      assert.are.equal("server", e[2].on)
      assert.are.same({ 1, 2 }, e[2].payload)
      assert.are.equal("client", e[3].on)
      assert.is_nil(e[3].payload)
    end)

    it("sounds: id is accepted for sound; volume and pitch default to 1", function()
      local s = c:sounds()
      assert.are.equal(2, #s)
      assert.are.same({ time = 0.3, sound = "res://step.ogg", volume = 1, pitch = 1 }, s[1])
      assert.are.same({ time = 0.4, sound = "res://id.ogg", volume = 0.5, pitch = 2 }, s[2])
    end)

    it("plays: fade defaults to 0.1", function()
      local p = c:plays()
      assert.are.equal(2, #p)
      assert.are.same({ time = 0.9, clip = "res://wave.anim", fade = 0.1 }, p[1])
      assert.are.same({ time = 1, clip = "res://b.anim", fade = 0.5 }, p[2])
    end)

    it("empty lists when left out", function()
      local d = decode '{"joints": {}}'
      assert.are.same({}, d:markers())
      assert.are.same({}, d:events())
      assert.are.same({}, d:sounds())
      assert.are.same({}, d:plays())
    end)

    it("version 1 markers", function()
      local d = decode '{"keyframes": [{"time": 0}], "markers": [{"time": 0.5, "name": "m", "value": "v"}]}'
      assert.are.same({ { time = 0.5, name = "m", value = "v" } }, d:markers())
    end)

    it("are copies: changing them does not change the clip", function()
      local m = c:markers()
      m[1].name = "changed"
      m[2] = nil
      assert.are.equal("step", c:markers()[1].name)
      assert.are.equal(3, #c:markers())
    end)
  end)

  describe("editor-only and unknown fields", function()
    local text = [==[{
      "version": 3, "rig": "player", "fps": 24, "viewModel": {"camera": 1}, "futureField": {"x": [1, 2]},
      "joints": {
        "a": {
          "locked": true, "interpolation": "bezier", "colour": "red",
          "rotation": [[0, [0, 0, 0], "bezier", {"type": "extreme", "left": "autoClamped", "right": "free", "mystery": 1}],
                       [1, [0, 90, 0]]]
        }
      },
      "events": [{"time": 0, "name": "e", "preview": {"sound": "x"}}]
    }]==]

    it("are read past", function()
      local c = decode(text)
      -- the rotation still plays: at 1 it is 90 degrees about y
      local q = c:sample(1).a.rotation
      assert.is_true(math.abs(math.abs(q[2]) - math.sqrt(0.5)) < 1e-12)
    end)

    it("are kept on the clip: its source is the table read", function()
      local c = decode(text)
      local src = core.clip_info(c).source
      assert.are.equal("player", src.rig)
      assert.are.equal(24, src.fps)
      assert.are.same({ camera = 1 }, src.viewModel)
      assert.are.same({ x = { 1, 2 } }, src.futureField)
      assert.are.equal(true, src.joints.a.locked)
      assert.are.equal("bezier", src.joints.a.interpolation)
      assert.are.equal("red", src.joints.a.colour)
      assert.are.equal("extreme", src.joints.a.rotation[1][4].type)
      assert.are.equal("autoClamped", src.joints.a.rotation[1][4].left)
      assert.are.equal("free", src.joints.a.rotation[1][4].right)
      assert.are.equal(1, src.joints.a.rotation[1][4].mystery)
      assert.are.same({ sound = "x" }, src.events[1].preview)
    end)

    it("anim.clip keeps a copy of the table it was given: changing the table later changes nothing", function()
      local t = { joints = {}, fps = 30, whatever = { 1 } }
      local c = assert(anim.clip(t, nil, { strict = false }))
      local src = core.clip_info(c).source
      assert.are_not.equal(t, src)
      assert.are.same(t, src)
      t.whatever[1] = 2
      t.fps = 60
      assert.are.same({ 1 }, src.whatever)
      assert.are.equal(30, src.fps)
    end)

    it("an imported clip tells how far its version 3 table is from what it plays", function()
      local exact = assert(anim.decode_xml([[<animation length="1"><head><pitch>
        <keyframe t="0" i="LINEAR">0</keyframe><keyframe t="1">10</keyframe></pitch></head></animation>]], "x"))
      assert.is_nil(exact.approx)
      assert.is_nil(assert(anim.decode('{"joints": {}}')).approx)
      -- pitch and yaw with different key times and eased segments: version 3 approximates
      local approx = assert(anim.decode_xml([[<animation length="1"><head>
        <pitch i="SMOOTH"><keyframe t="0">0</keyframe><keyframe t="0.5">20</keyframe><keyframe t="1">0</keyframe></pitch>
        <yaw i="SMOOTH"><keyframe t="0">0</keyframe><keyframe t="0.3">20</keyframe><keyframe t="1">0</keyframe></yaw>
      </head></animation>]], "y"))
      local a = approx.approx
      assert.is_true(a.bound > 0 and a.bound < 1e-4)
      assert.are.equal("string", type(a.note))
      local _, second = anim.encode(approx)
      assert.are.equal(a.bound, second.bound)
    end)

    it("anim.clip refuses a table that holds itself", function()
      local t = { joints = {} }
      t.joints.loop = t
      local c, err = anim.clip(t, "self.anim", { strict = false })
      assert.is_nil(c)
      assert.are.equal("self.anim: joints.loop: the table holds itself (it is the table at the top level)", err)
    end)
  end)

  describe("skeleton", function()
    it("is read in the shape joint -> { parent, position, rotation }", function()
      local c = decode [==[{
        "joints": {},
        "skeleton": {
          "root": {"position": [0, 0, 0]},
          "body": {"parent": "root", "position": [0, 24, 0], "rotation": [0, 90, 0]},
          "head": {"parent": "body", "position": [0, 32, 0], "rotation": [0, 0, 0, 2]}
        }
      }]==]
      local s = core.clip_info(c).skeleton
      assert.is_nil(s.root.parent)
      assert.are.same({ 0, 0, 0 }, s.root.position)
      assert.is_nil(s.root.rotation)
      assert.are.equal("root", s.body.parent)
      assert.are.same({ 0, 24, 0 }, s.body.position)
      assert.are.same({ 0, 90, 0 }, s.body.rotation)
      assert.are.equal("body", s.head.parent)
      assert.are.same({ 0, 0, 0, 1 }, s.head.rotation) -- normalised
    end)

    it("a joint's position defaults to the origin", function()
      local s = core.clip_info(decode('{"joints": {}, "skeleton": {"a": {}}}')).skeleton
      assert.are.same({ 0, 0, 0 }, s.a.position)
    end)

    it("is checked: a parent it does not name, a cycle, bad values", function()
      local function err(sk)
        local c, e = anim.decode('{"joints": {}, "skeleton": ' .. sk .. '}')
        assert.is_nil(c)
        return e
      end
      assert.are.equal("clip: skeleton.a.parent: unknown parent 'nobody'", err('{"a": {"parent": "nobody"}}'))
      assert.are.equal("clip: skeleton.a.parent: parents form a cycle through 'a'",
        err('{"a": {"parent": "b"}, "b": {"parent": "a"}}'))
      assert.are.equal("clip: skeleton.a.rotation: rotation must be [x, y, z] degrees or an [x, y, z, w] quaternion, got an array of 2",
        err('{"a": {"rotation": [1, 2]}}'))
    end)
  end)

  describe("other fields", function()
    it("name, version and layout", function()
      local c = decode '{"version": 3, "joints": {}}'
      assert.are.equal("api.anim", c.name)
      assert.are.equal(3, c.version)
      -- an integer, as a version is (JSON numbers decode as floats; on
      -- 5.1, 5.2 and LuaJIT, without integers, an integral number)
      assert.is_true(H.is_integer(c.version))
      assert.are.equal("curves", c.layout)
      assert.are.equal(2, decode('{"joints": {}}').version)
      local v1 = decode '{"keyframes": []}'
      assert.are.equal(1, v1.version)
      assert.are.equal("poses", v1.layout)
    end)

    it("a file with joints is curves whatever its version", function()
      local c = decode '{"version": 1, "joints": {"a": {"position": [[0, [0, 0, 0]], [1, [2, 2, 2]]]}}}'
      assert.are.equal("curves", c.layout)
      assert.are.same({ 1, 1, 1 }, c:sample(0.5).a.position)
    end)

    -- (issue 37: they read as nil, so a misspelt read was silent)
    it("an unknown name raises, with a suggestion when one is near", function()
      local c = with({})
      assert.has_error(function() return c.nonsense end, "no field 'nonsense' on anim.clip")
      assert.has_error(function() return c.source end, "no field 'source' on anim.clip")
      local ok, err = pcall(function() return c.lenght end)
      assert.is_false(ok)
      assert.truthy(err:find("clip_api_spec.lua:%d+: no field 'lenght' on anim.clip; did you mean 'length'%?$"), err)
      -- a documented field that is absent reads as nil
      assert.is_nil(c.approx)
    end)
  end)

  describe("clips are read-only", function()
    it("refuses to set a field", function()
      local c = with({ length = 1 })
      assert.has_error(function() c.length = 5 end, "clips are read-only (cannot set 'length')")
      assert.has_error(function() c.anything = 1 end, "clips are read-only (cannot set 'anything')")
      assert.has_error(function() c.sample = function() end end)
      assert.are.equal(1, c.length)
      assert.has_error(function() return c.anything end, "no field 'anything' on anim.clip")
    end)

    it("its info cannot be reached through the clip", function()
      local c = with({ loop = "loop" })
      assert.are.equal("userdata", type(c))
      assert.has_error(function() return c.info end, "no field 'info' on anim.clip")
      assert.are.equal("loop", c.loop)
    end)

    it("tostring names the clip", function()
      local c = decode('{"length": 2, "joints": {"a": {}, "b": {}}}')
      assert.are.equal("anim.clip(api.anim, 2 s, 2 joints)", tostring(c))
    end)
  end)
end)
