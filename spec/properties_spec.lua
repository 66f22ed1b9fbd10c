-- Property channels (issue 23): named scalar or vector curves of a clip
-- that are not joints.  Reading (the `properties` object of a table or a
-- version 3 file), sampling (clip:sample and every interpolation against
-- the same keys on a joint's position), encoding (lossless), blending on
-- an animator (priorities, weights, fades, normalised over the tracks
-- that animate a name; additive tracks; masks do not apply) and bad input.
local anim = require "anim"
local codes = require "anim.base.codes"

local INTERPS = codes.names("interp")
local EASES = codes.names("ease")

local function must(c, err) return assert(c, err) end

describe("property channels: reading and sampling", function()
  it("reads scalar and vector properties and samples them under pose.properties", function()
    local c = must(anim.clip{ joints = {}, properties = {
      glow = { { 0, 0 }, { 1, 1, "sine" } },
      tint = { { 0, { 1, 1, 1 } }, { 0.5, { 1, 0, 0 }, "step" } },
    } })
    assert.are.same({ "glow", "tint" }, c:properties())
    assert.are.equal(1, c.length) -- the last property key, no length given
    local s = c:sample(0.25)
    assert.are.equal(0.25, s.properties.glow)
    assert.are.same({ 1, 0.5, 0.5 }, s.properties.tint)
    assert.are.same({ 1, 0, 0 }, c:sample(0.75).properties.tint)
    -- a clip without properties has no `properties` in its samples
    assert.is_nil(must(anim.clip{ joints = {} }):sample(0).properties)
  end)

  it("reads the object form with modifiers, from a version 3 file", function()
    local c = must(anim.decode([=[{"version": 3, "length": 2, "joints": {},
      "properties": {"bob": {"keys": [[0, 0], [1, 1]], "modifiers": [{"type": "cycles"}], "note": "kept"}}}]=], "bob.anim"))
    assert.are.equal(0.5, c:sample(1.5).properties.bob) -- cycles repeat
    assert.are.equal(2, c.length)
    local text = anim.encode(c)
    assert.truthy(text:find('"note": "kept"', 1, true))
  end)

  it("a property with no keys plays nothing and is not among clip:properties()", function()
    local c = must(anim.clip{ joints = {}, properties = { idle = {}, glow = { { 0, 2 } } } })
    assert.are.same({ "glow" }, c:properties())
  end)

  -- Every interpolation (each easing in each direction, bezier with
  -- handles of one number and of one per component, catmull-rom in a
  -- looping clip) and every modifier give a property exactly what they
  -- give the same keys on a joint's position channel.
  it("samples every interpolation and modifier exactly as a joint's position channel", function()
    local vec, scalar, joint_y = {}, {}, {}
    local t = 0
    local values = { { 0, 1, -2 }, { 3, -1, 0.5 }, { -2, 4, 1 }, { 1, 1, 1 } }
    -- extra: the key extra of the vector keys; yextra: of the scalar ones;
    -- jextra: of the joint's keys that carry the scalar on y
    local function add(interp, extra, yextra, jextra)
      for _, v in ipairs(values) do
        vec[#vec + 1] = { t, { v[1], v[2], v[3] }, interp, extra }
        scalar[#scalar + 1] = { t, v[2], interp, yextra or extra }
        joint_y[#joint_y + 1] = { t, { 0, v[2], 0 }, interp, jextra or yextra or extra }
        t = t + 0.25
      end
    end
    for _, name in ipairs(INTERPS) do
      local code = codes.interp[name]
      if name == "cubicspline" then
        -- glTF's Hermite spline: tangents per component (left out: 0)
        add(name, { in_tangent = { 1, -2, 0.5 }, out_tangent = { 0.3, 4, -1 } },
          { in_tangent = { -2 }, out_tangent = { 4 } }, { in_tangent = { 0, -2, 0 }, out_tangent = { 0, 4, 0 } })
        add(name, { out_tangent = { 2, 2, 2 } }, { out_tangent = { 2 } }, { out_tangent = { 0, 2, 0 } })
        add(name)
      elseif code >= codes.interp.sine and code <= codes.interp.elastic then
        for _, e in ipairs(EASES) do add(name, { ease = e }) end
        add(name) -- (its default direction)
      elseif name == "bezier" then
        add(name, { out = { 0.1, { 1, -2, 0.5 } }, ["in"] = { -0.05, { 0.3, 0, -1 } } },
          { out = { 0.1, -2 }, ["in"] = { -0.05, 0 } })
        add(name, { out = { 0.3, 2 }, ["in"] = { -0.4, -1 } }) -- handles beyond the segment, one number
        add(name)
      else
        add(name)
      end
    end
    local mods = { { type = "noise", axis = 1, strength = 0.5 }, { type = "limits", axis = 2, max = 2 } }
    for _, loop in ipairs { "once", "loop" } do
      local c = must(anim.clip{ loop = loop, joints = {
        a = { position = vec },
        b = { position = vec, modifiers = { position = mods } },
        y = { position = joint_y, modifiers = { position = {
          { type = "noise", axis = 1, strength = 0.5 }, { type = "stepped", axis = 1, step = 0.3 } } } },
      }, properties = {
        v = vec,
        m = { keys = vec, modifiers = mods },
        s = { keys = scalar, modifiers = { { type = "noise", strength = 0.5 }, { type = "stepped", step = 0.3 } } },
      } })
      for i = -4, math.floor(t / 0.01) + 4 do
        local time = i * 0.01
        local sm = c:sample(time)
        assert.are.same(sm.a.position, sm.properties.v, loop .. " at " .. time)
        assert.are.same(sm.b.position, sm.properties.m, loop .. " at " .. time)
        assert.are.equal(sm.y.position[2], sm.properties.s, loop .. " at " .. time)
      end
    end
  end)
end)

describe("property channels: bad input", function()
  local function bad(t, msg)
    local c, err = anim.clip(t, "p")
    assert.is_nil(c)
    assert.are.equal(msg, err)
  end

  it("names the field and says what is wrong", function()
    bad({ joints = {}, properties = { tint = { { 0, { 1, 1, 1 } }, { 0.5, { 1, 0 } } } } },
      "p: properties.tint[2][2]: this value has 2 components, the first key's had 3 (a property keeps one number of components)")
    bad({ joints = {}, properties = { glow = { { 0, 1 }, { 1, { 1, 2 } } } } },
      "p: properties.glow[2][2]: this value has 2 components, the first key's had 1 (a property keeps one number of components)")
    bad({ joints = {}, properties = { frame = { { 0, 1, "step" }, { 0.5, 1.5, "step" } } } },
      "p: properties.frame[2][2]: a step key of the frame property must be a whole number (a frame index), got 1.5")
    bad({ joints = {}, properties = { frame = { { 0, { 1, 2 }, "step" } } } },
      "p: properties.frame[1][2]: a frame property is one number per key (a frame index), got 2 components")
    bad({ joints = {}, properties = { glow = { { 0, "bright" } } } },
      "p: properties.glow[1][2]: a property value must be a number or an array of numbers, got string")
    bad({ joints = {}, properties = { glow = { { 0, {} } } } },
      "p: properties.glow[1][2]: a property value must be a number or an array of numbers, got an empty array")
    bad({ joints = {}, properties = { glow = { { 0, { 1, 0 / 0 } } } } },
      "p: properties.glow[1][2][2]: property value component must be a finite number, got nan")
    bad({ joints = {}, properties = { glow = { { 1, 0 }, { 0, 1 } } } },
      "p: properties.glow[2][1]: key times must not decrease (0 comes after 1)")
    bad({ joints = {}, properties = { glow = { { 0, 0, "wobble" } } } },
      "p: properties.glow[1][3]: unknown interpolation 'wobble' (expected " .. table.concat(INTERPS, ", ") .. ")")
    bad({ joints = {}, properties = { tint = { { 0, { 1, 2 }, "bezier", { out = { 0.1, { 1, 2, 3 } } } } } } },
      "p: properties.tint[1][4].out[2]: out handle value must be an array of 2 numbers, got an array of 3")
    bad({ joints = {}, properties = { glow = { keys = { { 0, 1 } }, modifiers = { { type = "noise", axis = 1 } } } } },
      "p: properties.glow.modifiers[1].axis: axis must be 0 (the property has one component), got 1")
    bad({ joints = {}, properties = { tint = { keys = { { 0, { 1, 2 } } }, modifiers = { { type = "noise", axis = 2 } } } } },
      "p: properties.tint.modifiers[1].axis: axis must be a component index from 0 to 1, got 2")
    bad({ joints = {}, properties = { glow = { modifiers = {} } } },
      "p: properties.glow: a property object needs its keys in 'keys'")
    bad({ joints = {}, properties = { 1, 2 } },
      "p: properties: properties must be an object, got array")
    bad({ joints = { properties = { position = { { 0, { 0, 0, 0 } } } } }, properties = { glow = { { 0, 1 } } } },
      "p: joints.properties: a clip with property channels cannot have a joint named 'properties' "
        .. "(clip:sample puts the properties under that name)")
    local big = {}
    for i = 1, codes.const.max_prop_arity + 1 do big[i] = 0 end
    bad({ joints = {}, properties = { m = { { 0, big } } } },
      "p: properties.m[1][2]: a property value has at most 1024 components, got 1025")
  end)

  it("counts each component's keys against anim.limits.keys", function()
    local old = anim.set_limits{ keys = 10 }
    local ok, c, err = pcall(anim.clip, { joints = {}, properties = { tint = { { 0, { 1, 2, 3, 4 } }, { 1, { 1, 2, 3, 4 } },
      { 2, { 1, 2, 3, 4 } } } } }, "p")
    anim.set_limits(old)
    assert.is_true(ok)
    assert.is_nil(c)
    assert.are.equal("p: properties.tint: too many keys: the clip would have 12 (at most 10, anim.limits.keys)", err)
  end)

  it("a file's properties must be JSON within the limits", function()
    local c, err = anim.decode([=[{"joints": {}, "properties": {"glow": [[0, 1e999]]}}]=], "f.anim")
    assert.is_nil(c)
    assert.truthy(err:find("^f%.anim: properties%.glow%[1%]%[2%]"), err)
  end)
end)

describe("property channels: encoding", function()
  it("anim.encode keeps properties losslessly (every number, form and field)", function()
    local src = [=[{
  "version": 3,
  "joints": {},
  "properties": {
    "glow": [[0, 0.1], [0.3, 0.30000000000000004, "sine", { "ease": "inOut" }], [1, 1e-300]],
    "tint": {
      "keys": [[0, [1, 0.5, 0.25]], [0.5, [1, 0, 0], "bezier", { "out": [0.1, 2], "in": [-0.1, [1, 2, 3]] }], [1, [0, 0, 1]]],
      "modifiers": [{ "type": "noise", "axis": 2, "scale": 0.5 }],
      "editor": { "color": "#ff0000" }
    },
    "frame": [[0, 3, "step"], [0.1, 4, "step"]]
  }
}]=]
    local c = must(anim.decode(src, "p.anim"))
    local text = assert(anim.encode(c))
    local c2 = must(anim.decode(text, "p.anim"))
    assert.are.same(require("cjson").decode(src), require("cjson").decode(text))
    assert.are.equal(text, anim.encode(c2))
    for i = 0, 120 do
      local t = i / 100
      assert.are.same(c:sample(t).properties, c2:sample(t).properties)
    end
    -- and numbers cjson's 14 digits would round are kept to the bit
    assert.truthy(text:find("0.30000000000000004", 1, true))
  end)

  it("anim.table gives the table anim.encode writes, which anim.clip takes back", function()
    local c = must(anim.clip{ joints = {}, properties = { glow = { { 0, 0 }, { 1, 2, "quad" } } } })
    local t = assert(anim.table(c))
    t.markers = { { time = 0.5, name = "half" } }
    local c2 = must(anim.clip(t))
    assert.are.equal(1, #c2:markers())
    assert.are.same(c:sample(0.4).properties, c2:sample(0.4).properties)
    -- a fresh table each time: changing it changes nothing of the clip
    t.properties.glow[1][2] = 7
    assert.are.equal(0, anim.table(c).properties.glow[1][2])
  end)
end)

-- The blend, computed here the way docs/format-reference.md says it:
-- levels by priority, each taking min(W, budget) of its budget; a track's
-- factor f = (w / W) * (take / T) with T the takes of all levels; then
-- each additive track adds w (v - v(0)).
local function expected(tracks)
  local levels, order = {}, {}
  for _, tr in ipairs(tracks) do
    if not tr.additive then order[#order + 1] = tr end
  end
  table.sort(order, function(x, y)
    if x.priority ~= y.priority then return x.priority > y.priority end
    return x.id < y.id
  end)
  local i = 1
  while i <= #order do
    local l = { order[i] }
    local k = i + 1
    while k <= #order and order[k].priority == order[i].priority do l[#l + 1] = order[k]; k = k + 1 end
    levels[#levels + 1] = l
    i = k
  end
  local budget, T, parts = 1, 0, {}
  for _, l in ipairs(levels) do
    local W = 0
    for _, tr in ipairs(l) do W = W + tr.w end
    local take = W <= budget and W or budget
    budget = budget - take
    T = T + take
    for _, tr in ipairs(l) do parts[#parts + 1] = { tr = tr, a = W > 0 and tr.w / W or 0, take = take } end
  end
  local v, valid = 0, false
  if T > 0 then
    for _, p in ipairs(parts) do
      if p.take > 0 then
        v = v + p.a * (p.take / T) * p.tr.v
        valid = true
      end
    end
  end
  local adds = {}
  for _, tr in ipairs(tracks) do if tr.additive then adds[#adds + 1] = tr end end
  table.sort(adds, function(x, y)
    if x.priority ~= y.priority then return x.priority < y.priority end
    return x.id < y.id
  end)
  for _, tr in ipairs(adds) do
    v = v + tr.w * (tr.v - tr.v0)
    valid = true
  end
  return valid and v or nil
end

describe("property channels: blending on an animator", function()
  local rig = anim.rig("player")
  local ramp = must(anim.clip{ joints = {}, length = 4, loop = "loop", properties = { glow = { { 0, 0 }, { 4, 8 } } } })
  local high = must(anim.clip{ joints = {}, length = 2, loop = "loop", priority = "action",
    properties = { glow = { { 0, 10 }, { 2, 30, "quad" } } } })
  local pulse = must(anim.clip{ joints = {}, length = 1, loop = "loop", blend = "additive",
    properties = { glow = { { 0, 1 }, { 1, 3 } } } })

  it("a lone track gives its own value, whatever its weight and fade", function()
    local a = anim.animator(rig)
    local tr = a:play(high, { fade = 0.7, weight = 0.3 })
    for _ = 1, 20 do
      a:update(0.05)
      assert.are.equal(high:sample(tr.time).properties.glow, a:property("glow"))
    end
  end)

  it("blends two tracks with fades and priorities, and an additive one, exactly as the rule says", function()
    local a = anim.animator(rig)
    local base = a:play(ramp, { fade = 0.3 })
    local tracks = { { track = base, clip = ramp, id = 1 } }
    local log = {}
    for step = 1, 90 do
      if step == 10 then tracks[#tracks + 1] = { track = a:play(high, { fade = 0.25, weight = 0.6 }), clip = high, id = 2 } end
      if step == 20 then tracks[#tracks + 1] = { track = a:play(pulse, { fade = 0.1, weight = 0.5, priority = 1 }), clip = pulse, id = 3, additive = true } end
      if step == 40 then tracks[2].track:stop(0.3) end
      if step == 50 then base:adjust_weight(0.2, 0.2) end
      if step == 60 then tracks[2].track = a:play(high, { fade = 0, weight = 0.8, priority = "idle" }); tracks[2].id = 4 end
      a:update(1 / 30)
      local now = {}
      for _, e in ipairs(tracks) do
        local tr = e.track
        if tr.is_playing or tr.fade > 0 then
          local p = e.clip:sample(tr.time).properties.glow
          now[#now + 1] = { v = p, w = tr.weight * tr.fade, priority = e.clip.priority, id = e.id,
            additive = e.additive, v0 = e.clip:sample(0).properties.glow }
          if e.id == 4 then now[#now].priority = 1 end
          if e.id == 3 then now[#now].priority = 1 end
        end
      end
      local want = expected(now)
      local got = a:property("glow")
      assert.are.equal(want, got, "update " .. step)
      log[#log + 1] = got
    end
    -- every part of the scene counted: the values are not those of one track
    assert.are_not.equal(log[30], ramp:sample(base.time).properties.glow)
  end)

  it("masks do not apply, and a known name no track animates reads nil", function()
    local a = anim.animator(rig)
    local masked = must(anim.clip{ mask = { "head" }, joints = { torso = { position = { { 0, { 1, 0, 0 } } } } },
      properties = { glow = { { 0, 5 } } } })
    local tr = a:play(masked, { fade = 0 })
    assert.is_nil(a:property("glow")) -- played, not updated yet: known, no value
    assert.are.equal(1, select("#", a:property("glow")))
    a:update(0.1)
    assert.are.equal(5, a:property("glow"))
    assert.are.equal(0, (a:get("torso"))) -- (the mask keeps the joint)
    tr:adjust_weight(0, 0)
    a:update(0.1)
    assert.is_nil(a:property("glow")) -- its only track at weight 0
    tr:stop(0)
    a:update(0.1) -- ended in this update: still on the animator
    a:update(0.1) -- dropped: the name is no longer known
    local ok, err = pcall(a.property, a, "glow")
    assert.is_false(ok)
    assert.truthy(err:find("unknown property 'glow' (no track on this animator has property channels)", 1, true), err)
  end)

  it("returns every component as numbers, no table", function()
    local a = anim.animator(rig)
    a:play(must(anim.clip{ joints = {}, properties = { tint = { { 0, { 0.25, 0.5, 0.75, 1 } } } } }), { fade = 0 })
    a:update(0)
    assert.are.same({ 0.25, 0.5, 0.75, 1 }, { a:property("tint") })
    -- the most components a property may have, through clip:sample and the animator
    local up, down = {}, {}
    for i = 1, codes.const.max_prop_arity do up[i], down[i] = i, -i end
    local big = must(anim.clip{ joints = {}, properties = { m = { { 0, up }, { 1, down } } } })
    local s = big:sample(0.25).properties.m
    assert.are.equal(1024, #s)
    assert.are.equal(0.5, s[1])
    assert.are.equal(512, s[1024])
    local b = anim.animator(rig)
    b:play(big, { fade = 0 })
    b:update(0.75)
    local got = { b:property("m") }
    assert.are.equal(1024, #got)
    assert.are.equal(-0.5, got[1])
    assert.are.equal(-512, got[1024])
  end)

  it("an unknown name raises with a suggestion, at the caller's line", function()
    local a = anim.animator(rig)
    a:play(ramp)
    a:play(must(anim.clip{ joints = {}, properties = { tint = { { 0, 1 } } } }))
    local ok, err = pcall(function() local v = a:property("golw"); return v end)
    assert.is_false(ok)
    assert.truthy(err:find("properties_spec.lua:%d+: bad argument #1 to 'property' %(unknown property 'golw'; did you mean 'glow'%? %(the properties: glow, tint%)%)"), err)
    ok, err = pcall(a.property, a, 3)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'property' (property name expected, got number)", 1, true), err)
  end)

  it("refuses a clip whose property has another number of components than a track on the animator gives it", function()
    local a = anim.animator(rig)
    a:play(ramp)
    local three = must(anim.clip({ joints = {}, properties = { glow = { { 0, { 1, 2, 3 } } } } }, "three"))
    local ok, err = pcall(function() a:play(three) end)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'play' (clip 'three': its property 'glow' has 3 components, but a track on this animator gives it 1)", 1, true), err)
    -- once no track has the name, it may change
    local b = anim.animator(rig)
    local tr = b:play(ramp, { fade = 0 })
    b:update(0.1)
    tr:stop(0)
    b:update(0.1)
    b:update(0.1)
    b:play(three, { fade = 0 })
    b:update(0.1)
    assert.are.same({ 1, 2, 3 }, { b:property("glow") })
  end)

  it("gives the same values through anim.update as through animator:update", function()
    local a, b = anim.animator(rig), anim.animator(rig)
    for _, x in ipairs { a, b } do
      x:play(ramp, { fade = 0.2 })
      x:play(high, { fade = 0.3, weight = 0.4 })
      x:play(pulse, { weight = 0.7 })
    end
    for _ = 1, 50 do
      a:update(1 / 60)
      anim.update({ b }, 1 / 60)
      assert.are.equal(a:property("glow"), b:property("glow"))
    end
  end)
end)

-- What bench/beyond.lua measures, as a check that can fail: through
-- tests/c/failalloc.c (built by `make test`), in front of the state's
-- allocator before anything is made, every allocation of Lua and of the
-- core is counted.
describe("steady state with properties, overrides and a sprite-frame track", function()
  it("a frame allocates nothing, in Lua or in the core", function()
    local H = require "spec.helper"
    local fa = H.failalloc()
    local body = must(anim.clip{ length = 2, loop = "loop", joints = { head = { rotation = { { 0, { 0, -20, 0 } }, { 2, { 0, 20, 0 } } } } },
      properties = { glow = { { 0, 0 }, { 1, 1, "quad" }, { 2, 0 } }, tint = { { 0, { 1, 1, 1 } }, { 2, { 1, 0, 0 } } },
        alpha = { keys = { { 0, 1 }, { 2, 0.5 } }, modifiers = { { type = "noise", strength = 0.1 } } } } })
    local sway = must(anim.clip{ length = 1, loop = "pingpong", blend = "additive", joints = {},
      properties = { sway = { { 0, { 0, 0 } }, { 1, { 0.3, -0.1 }, "sine" } } } })
    local sprites = assert(anim.import_aseprite(H.root .. "/examples/clips/slime.json"))
    local a = anim.animator(anim.rig("player"))
    a:play(body, { fade = 0.2 })
    a:play(sway, { fade = 0.2, weight = 0.5 })
    a:play(sprites.idle, { fade = 0 })
    local look = a:override("head", { mode = "add", rotation = { 0, 0, 0, 1 }, weight = 0.8 })
    local recoil = a:override("rightArm", { position = { 0, 0, 0 }, weight = 0.5 })
    local q, p, sum = { 0, 0, 0, 1 }, { 0, 0, 0 }, 0
    local function frame(i)
      q[2] = math.sin(i * 0.01) * 0.2
      look.rotation = q
      p[3] = -q[2]
      recoil.position = p
      a:update(1 / 60)
      local r, g, b = a:property("tint")
      local sx, sy = a:property("sway")
      sum = sum + a:property("glow") + r + g + b + a:property("alpha") + sx + sy + a:property("frame") + a:get("head")
    end
    local n = H.frame_allocations(fa, frame)
    assert.is_true(sum == sum)
    assert.are.equal(0, n)
  end)
end)
