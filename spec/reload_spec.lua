-- Hot reload (issue 23): anim.reload(clip, source) and library:reload(path)
-- replace a clip's content in place while tracks play it.  Each track goes
-- on at its time (clamped into the new length), nothing between the old
-- and the new time fires, callbacks and options stay, and the clip object
-- shows the new content; a source that fails to load changes nothing.
local anim = require "anim"
local H = require "spec.helper"

local rig = anim.rig("player")

local function source(len, markers, x)
  return { length = len, loop = "loop", joints = { head = { position = { { 0, { 0, 0, 0 } }, { len, { x, 0, 0 } } } } },
    markers = markers }
end

local function log_of(a)
  local log = {}
  a:on_marker(function(_, name, _, late) log[#log + 1] = string.format("%s %.6f", name, late) end)
  return log
end

describe("hot reload", function()
  it("keeps the playing track's time, callbacks and options; fires nothing twice nor between the two times", function()
    local clip = assert(anim.clip(source(1, { { time = 0.2, name = "a" }, { time = 0.6, name = "b" } }, 1), "walk"))
    local a = anim.animator(rig)
    local log = log_of(a)
    local tr = a:play(clip, { fade = 0, speed = 0.5, weight = 0.75 })
    local looped = 0
    tr:on_looped(function() looped = looped + 1 end)
    local per = {}
    tr:on_marker("c", function(_, _, late) per[#per + 1] = string.format("%.6f", late) end)
    a:update(1) -- to 0.5: fires a
    assert.are.same({ "a 0.600000" }, log)
    -- the new content: markers at 0.3 (passed: not fired) and 0.7, 0.9
    local ok, err = anim.reload(clip, source(1.2, { { time = 0.3, name = "c" }, { time = 0.7, name = "c" }, { time = 0.9, name = "d" } }, 2.4))
    assert.are.equal(clip, ok, err)
    assert.are.equal(0.5, tr.time)
    assert.are.equal(1.2, clip.length)
    assert.are.equal(1.2, tr.length)
    assert.are.equal("walk", clip.name)
    assert.are.equal(3, #clip:markers())
    a:update(0) -- the pose at 0.5 of the new content (weight 0.75 over the rest); nothing fires
    assert.are.equal(0.75, (a:get("head")))
    assert.are.same({ "a 0.600000" }, log)
    a:update(1) -- 0.5 .. 1.0 at speed 0.5: c at 0.7, d at 0.9
    assert.are.same({ "a 0.600000", "c 0.600000", "d 0.200000" }, log)
    assert.are.same({ "0.600000" }, per)
    assert.are.equal(0.75, tr.weight)
    assert.are.equal(0.5, tr.speed)
    a:update(1) -- 1.0 .. 1.2, wraps, 0 .. 0.3: c at 0.3
    assert.are.equal(1, looped)
    assert.are.same({ "a 0.600000", "c 0.600000", "d 0.200000", "c 0.000000" }, log)
  end)

  it("clamps a track beyond the new length to it", function()
    local clip = assert(anim.clip(source(2, { { time = 0.1, name = "start" } }, 2)))
    local a = anim.animator(rig)
    local log = log_of(a)
    local tr = a:play(clip, { fade = 0 })
    a:update(1.5)
    assert(anim.reload(clip, source(1, { { time = 0.5, name = "mid" }, { time = 1, name = "end" } }, 1)))
    assert.are.equal(1, tr.time)
    local looped = 0
    tr:on_looped(function() looped = looped + 1 end)
    -- from the end, where it sits (excluded, as after a seek: 'end' does not
    -- fire): wraps at once, then 0 .. 0.75 (mid at 0.5)
    a:update(0.75)
    assert.are.same({ "start 1.400000", "mid 0.250000" }, log)
    assert.are.equal(1, looped)
    assert.are.equal(0.75, tr.time)
  end)

  it("rebinds every track: joints added and removed, retargeted ones through their map", function()
    local clip = assert(anim.clip{ length = 1, joints = { head = { position = { { 0, { 1, 0, 0 } } } } } })
    local map = assert(anim.decode_retarget([[{"version": 1, "joints": {"skull": "head", "arm": "rightArm"}}]]))
    local a = anim.animator(rig)
    local plain = a:play(clip, { fade = 0 })
    local b = anim.animator(rig)
    b:play(clip, { fade = 0, retarget = map })
    a:update(0.1)
    b:update(0.1)
    assert(anim.reload(clip, { length = 1, joints = {
      skull = { position = { { 0, { 0, 2, 0 } } } }, arm = { position = { { 0, { 0, 0, 3 } } } },
      torso = { scale = { { 0, { 2, 2, 2 } } } } } }))
    assert.are.same({ "arm", "skull", "torso" }, clip:joints())
    a:update(0.1)
    b:update(0.1)
    assert.are.same({ false, false, false }, { a:animated("head") }) -- no joint 'head' in the clip now
    assert.are.same({ false, false, true }, { a:animated("torso") })
    assert.are.equal(2, select(2, b:get("head"))) -- skull -> head through the map
    assert.are.equal(3, select(3, b:get("rightArm")))
    assert.is_true(plain.is_playing)
  end)

  it("the clip encodes and samples its new content, after a collection too", function()
    local clip = assert(anim.decode('{"joints": {"head": {"position": [[0, [0, 0, 0]], [1, [1, 1, 1]]]}}}', "x.anim"))
    local a = anim.animator(rig)
    a:play(clip)
    assert(anim.reload(clip, '{"joints": {"b": {"rotation": [[0, [0, 10, 0]], [2, [0, 20, 0]]]}}, "properties": {"g": [[0, 1]]}}'))
    collectgarbage()
    collectgarbage()
    local text = assert(anim.encode(clip))
    local again = assert(anim.decode(text))
    assert.are.same({ "b" }, again:joints())
    assert.are.same(clip:sample(1), again:sample(1))
    assert.are.equal(1, clip:sample(1).properties.g)
    assert.are.equal("x.anim", clip.name)
  end)

  it("a track played and not yet updated starts at the new content's start", function()
    local clip = assert(anim.clip{ length = 1, speed = -1, joints = {}, markers = { { time = 2, name = "last" } } })
    local a = anim.animator(rig)
    local log = log_of(a)
    local tr = a:play(clip, { fade = 0 })
    assert.are.equal(1, tr.time)
    assert(anim.reload(clip, { length = 2, speed = -1, joints = {}, markers = { { time = 2, name = "last" } } }))
    assert.are.equal(2, tr.time)
    a:update(0.5) -- its first pass includes the start: 'last' fires
    assert.are.same({ "last 0.500000" }, log)
  end)

  it("leaves the clip untouched when the source fails to load", function()
    local clip = assert(anim.clip(source(1, { { time = 0.5, name = "m" } }, 1), "c"))
    local a = anim.animator(rig)
    local tr = a:play(clip, { fade = 0 })
    a:update(0.25)
    local before = { a:get("head") }
    local function fails(src, msg)
      local ok, err = anim.reload(clip, src)
      assert.is_nil(ok)
      assert.are.equal(msg, err)
      assert.are.equal(1, clip.length)
      assert.are.equal(0.25, tr.time)
      a:update(0)
      assert.are.same(before, { a:get("head") })
    end
    fails("{ not json", "c: not valid JSON: Expected object key string but found invalid token at character 3")
    fails({ joints = { head = { position = { { 0, { 1, 2 } } } } } },
      "c: joints.head.position[1][2]: position must be an array of 3 numbers, got an array of 2")
    fails(H.root .. "/no/such.anim", H.root .. "/no/such.anim: cannot open file: No such file or directory")
    local ok, err = pcall(anim.reload, clip, 42)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #2 to 'reload' (path, JSON text or table expected, got number)", 1, true), err)
    ok, err = pcall(anim.reload, {}, {})
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'reload' (anim.clip expected, got table)", 1, true), err)
    -- a table is checked for fields the format does not know, as anim.clip checks it
    ok, err = pcall(anim.reload, clip, { lenght = 2, joints = {} })
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #2 to 'reload' (lenght: unknown field; did you mean 'length'?)", 1, true), err)
    ok, err = pcall(anim.reload, clip, "{}", { strickt = true })
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #3 to 'reload' (unknown option 'strickt'; did you mean 'strict'?)", 1, true), err)
    local other = assert(anim.clip({ joints = {} }, "o"))
    assert(anim.reload(other, '{"joints": {}, "length": 2, "lenght": 2}')) -- (a file's unknown fields are kept: this loads)
    assert.are.equal(2, other.length)
    ok, err = anim.reload(clip, '{"joints": {}, "lenght": 3}', { strict = true })
    assert.is_nil(ok)
    assert.are.equal("c: lenght: unknown field (did you mean 'length'?)", err)
    a:update(0.5)
    assert.are.equal(0.75, tr.time)
  end)

  it("refuses new content whose property another clip's track gives another number of components", function()
    local clip = assert(anim.clip({ length = 1, joints = {}, properties = { glow = { { 0, 1 } } } }, "c"))
    local other = assert(anim.clip{ length = 1, joints = {}, properties = { glow = { { 0, 2 } } } })
    local a = anim.animator(rig)
    a:play(clip, { fade = 0 })
    a:play(other, { fade = 0 })
    a:update(0.1)
    local ok, err = anim.reload(clip, { length = 1, joints = {}, properties = { glow = { { 0, { 1, 2 } } } } })
    assert.is_nil(ok)
    assert.are.equal("c: properties.glow: has 2 components, but a track of another clip on an animator that plays it gives that property 1", err)
    assert.are.equal(1.5, a:property("glow"))
    -- alone on its animator, a property may change its number of components
    local b = anim.animator(rig)
    b:play(clip, { fade = 0 })
    local c2 = assert(anim.clip{ length = 1, joints = {} })
    local lone = assert(anim.clip({ length = 1, joints = {}, properties = { glow = { { 0, 1 } } } }, "lone"))
    b:play(lone, { fade = 0 })
    assert(anim.reload(lone, { length = 1, joints = {}, properties = { tint = { { 0, { 1, 2, 3 } } }, glow = { { 0, 5 } } } }))
    b:update(0.1)
    assert.are.same({ 1, 2, 3 }, { b:property("tint") })
    assert.are.equal(3, b:property("glow"))
    assert(c2)
  end)

  it("cannot run while callbacks are delivered", function()
    local clip = assert(anim.clip{ length = 1, joints = {}, markers = { { time = 0, name = "go" } } })
    local a = anim.animator(rig)
    local err
    a:on_marker(function() local _, e = pcall(anim.reload, clip, { joints = {} }); err = e end)
    a:play(clip)
    a:update(0.1)
    assert.truthy(err and err:find("a clip cannot be reloaded while an update delivers its callbacks", 1, true), err)
    assert.are.equal(1, clip.length)
    assert(anim.reload(clip, { length = 2, joints = {} })) -- and after it, it can
  end)

  it("a library reloads its files in place and lists the ones that changed", function()
    local dir = H.tmpdir()
    H.write(dir .. "/walk.anim", [[{"length": 1, "loop": "loop", "joints": {}, "markers": [{"time": 0.5, "name": "a"}]}]])
    H.write(dir .. "/idle.anim", [[{"length": 1, "joints": {}}]])
    local lib = assert(anim.library(dir))
    local walk = assert(lib:clip("res://walk.anim"))
    assert(lib:clip("res://./idle.anim"))
    local a = anim.animator(rig, { library = lib })
    local tr = a:play(walk, { fade = 0 })
    a:update(0.25)
    assert.are.same({}, lib:changed())
    H.write(dir .. "/walk.anim", [[{"length": 2, "loop": "loop", "joints": {}, "markers": [{"time": 1.5, "name": "b"}]}]])
    os.execute("touch -d '2000-01-01 00:00:00' " .. dir .. "/walk.anim")
    assert.are.same({ "res://walk.anim" }, lib:changed())
    assert.are.equal(walk, lib:reload("res://walk.anim"))
    assert.are.equal(2, walk.length)
    assert.are.equal("res://walk.anim", walk.name)
    assert.are.equal(0.25, tr.time)
    assert.are.same({}, lib:changed())
    -- a file that fails: the clip as it was, and not listed again until it changes again
    H.write(dir .. "/idle.anim", [[{"joints": 3}]])
    os.execute("touch -d '2001-01-01 00:00:00' " .. dir .. "/idle.anim")
    assert.are.same({ "res://./idle.anim" }, lib:changed())
    local ok, err = lib:reload("res://./idle.anim")
    assert.is_nil(ok)
    assert.are.equal("res://./idle.anim: joints: joints must be an object, got number", err)
    assert.are.same({}, lib:changed())
    os.remove(dir .. "/idle.anim")
    assert.are.same({ "res://./idle.anim" }, lib:changed())
    ok, err = lib:reload("res://../x.anim")
    assert.is_nil(ok)
    assert.are.equal("res://../x.anim: refused: the path leaves the library root", err)
    -- a path never loaded is loaded
    H.write(dir .. "/new.anim", [[{"length": 3, "joints": {}}]])
    assert.are.equal(3, assert(lib:reload("res://new.anim")).length)
    assert.are.equal(lib:clip("res://new.anim"), lib:reload("res://new.anim"))
    os.execute("rm -rf " .. dir)
  end)

  it("survives random reloads while random scenes play (sanitizers run this too)", function()
    math.randomseed(23)
    local function random_source()
      local joints = {}
      for _, j in ipairs { "head", "torso", "rightArm", "leftLeg" } do
        if math.random() < 0.6 then
          local keys = {}
          for k = 0, math.random(1, 4) do keys[#keys + 1] = { k * 0.3, { math.random(), math.random(), 0 } } end
          joints[j] = { position = keys }
        end
      end
      local markers = {}
      for i = 1, math.random(0, 3) do markers[i] = { time = math.random() * 1.5, name = "m" .. i } end
      local props = math.random() < 0.5 and { glow = { { 0, math.random() }, { 1, 2 } } } or nil
      return { length = 0.2 + math.random() * 1.3, loop = ({ "once", "loop", "pingpong", "hold" })[math.random(4)],
        joints = joints, markers = markers, properties = props }
    end
    local clips = {}
    for i = 1, 3 do clips[i] = assert(anim.clip(random_source())) end
    local as = { anim.animator(rig), anim.animator(rig) }
    for _, a in ipairs(as) do a:on_marker(function() end) end
    for step = 1, 300 do
      local a = as[math.random(2)]
      local r = math.random()
      if r < 0.1 then
        a:play(clips[math.random(3)], { fade = math.random() * 0.2, speed = math.random() * 2 - 0.5 })
      elseif r < 0.2 then
        assert(anim.reload(clips[math.random(3)], random_source()))
      elseif r < 0.25 then
        local ts = a:tracks()
        if #ts > 0 then ts[math.random(#ts)]:stop(math.random() * 0.1) end
      end
      if step % 50 == 0 then collectgarbage() end
      anim.update(as, math.random() * 0.1)
      for _, x in ipairs(as) do
        for _, j in ipairs { "head", "torso" } do
          for _, v in ipairs { x:get(j) } do assert.is_true(v == v) end
        end
        for _, t in ipairs(x:tracks()) do assert.is_true(t.time >= 0 and t.time <= t.length) end
      end
    end
  end)
end)
