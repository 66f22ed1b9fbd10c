-- Typos are caught (issue 17): a misspelt option, field or joint name
-- raises or is reported with a suggestion from the known names (letter
-- case first, then edit distance; none when nothing is close), at the
-- script's own line.
local anim = require "anim"
local H = require "spec.helper"
local suggest = require "anim.base.suggest"

local SRC = debug.getinfo(1, "S").short_src
local function raises_here(fn, msg)
  local line = debug.getinfo(fn, "S").linedefined
  local ok, err = pcall(fn)
  assert.is_false(ok, "no error")
  assert.are.equal(string.format("%s:%d: %s", SRC, line, msg), err)
end

local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
local rig = anim.rig("player")

describe("suggestions", function()
  it("prefer a name that differs only in letter case, then the nearest close one", function()
    assert.are.equal("rightArm", suggest.closest("rightarm", { "rightLeg", "rightArm" }))
    assert.are.equal("weight", suggest.closest("wieght", { "fade", "weight", "speed" }))
    assert.are.equal("length", suggest.closest("lenght", { "loop", "length" }))
    assert.are.equal("info", suggest.closest("infoo", { "info", "validate" }))
    assert.are.equal("side", suggest.closest("sid", { "side", "space" }))
    assert.is_nil(suggest.closest("banana", { "fade", "weight", "speed" }))
    assert.is_nil(suggest.closest("x", { "fade" }))
    -- a set works as well as a list
    assert.are.equal("scale", suggest.closest("scael", { scale = true, speed = true }))
  end)
end)

describe("an options table with a name nobody knows raises, with a suggestion", function()
  it("play", function()
    local a = anim.animator(rig)
    raises_here(function() a:play(walk, { wieght = 0.5 }) end,
      "bad argument #2 to 'play' (unknown option 'wieght'; did you mean 'weight'?)")
    raises_here(function() a:play(walk, { FADE = 0.5 }) end,
      "bad argument #2 to 'play' (unknown option 'FADE'; did you mean 'fade'?)")
    raises_here(function() a:play(walk, { loudness = 1 }) end, "bad argument #2 to 'play' (unknown option 'loudness';"
      .. " expected one of fade, weight, speed, priority, retarget, warn, at, after, loop)")
    raises_here(function() a:play(walk, { 0.5 }) end,
      "bad argument #2 to 'play' (options are named: number is not an option name"
      .. " (the options are fade, weight, speed, priority, retarget, warn, at, after, loop))")
    raises_here(function() a:play(walk, 5) end, "bad argument #2 to 'play' (table of options expected, got number)")
  end)

  it("anim.animator", function()
    raises_here(function() anim.animator(rig, { sid = "client" }) end,
      "bad argument #2 to 'animator' (unknown option 'sid'; did you mean 'side'?)")
    raises_here(function() anim.animator(rig, { libary = 1 }) end,
      "bad argument #2 to 'animator' (unknown option 'libary'; did you mean 'library'?)")
  end)

  it("anim.encode, anim.save and anim.set_limits", function()
    raises_here(function() anim.encode(walk, { verison = 3 }) end,
      "bad argument #2 to 'encode' (unknown option 'verison'; did you mean 'version'?)")
    raises_here(function() anim.save(walk, "/tmp/x.anim", { versoin = 3 }) end,
      "bad argument #3 to 'save' (unknown option 'versoin'; did you mean 'version'?)")
    raises_here(function() anim.set_limits { kyes = 5 } end,
      "bad argument #1 to 'set_limits' (unknown limit 'kyes'; did you mean 'keys'?)")
  end)

  it("the loading functions", function()
    raises_here(function() anim.load("x.anim", { stict = true }) end,
      "bad argument #2 to 'load' (unknown option 'stict'; did you mean 'strict'?)")
    raises_here(function() anim.decode("{}", "n", { strcit = true }) end,
      "bad argument #3 to 'decode' (unknown option 'strcit'; did you mean 'strict'?)")
    raises_here(function() anim.load_retarget("x.retarget", { Strict = true }) end,
      "bad argument #2 to 'load_retarget' (unknown option 'Strict'; did you mean 'strict'?)")
    raises_here(function() anim.load("x.anim", { strict = 1 }) end,
      "bad argument #2 to 'load' (option 'strict' must be a boolean, got number)")
  end)

  it("anim.clip and anim.rig: the tables are the script's own, so a field nobody knows raises", function()
    raises_here(function() anim.clip { lenght = 2, joints = {} } end,
      "bad argument #1 to 'clip' (lenght: unknown field; did you mean 'length'?)")
    raises_here(function() anim.clip { joints = { arm = { rotaton = {} } } } end,
      "bad argument #1 to 'clip' (joints.arm.rotaton: unknown field; did you mean 'rotation'?)")
    raises_here(function() anim.clip { joints = {}, markers = { { time = 0, nmae = "x" } } } end,
      "bad argument #1 to 'clip' (markers[1].nmae: unknown field; did you mean 'name'?)")
    raises_here(function() anim.clip { joints = {}, author = "me" } end,
      "bad argument #1 to 'clip' (author: unknown field)")
    raises_here(function() anim.clip({ joints = {} }, "c", { stirct = false }) end,
      "bad argument #3 to 'clip' (unknown option 'stirct'; did you mean 'strict'?)")
    raises_here(function() anim.rig { joints = { { name = "arm", parnet = "body" } } } end,
      "bad argument #1 to 'rig' (joints[1].parnet: unknown field; did you mean 'parent'?)")
    raises_here(function() anim.rig { name = "bat", joints = { { name = "arm" } } } end,
      "bad argument #1 to 'rig' (name: unknown field; a rig's name is anim.rig's second argument:"
        .. " anim.rig(definition, name))")
    raises_here(function() anim.rig { joint = {} } end, "bad argument #1 to 'rig' (joint: unknown field; did you mean 'joints'?)")
    -- strict = false keeps such fields, as a file's are kept
    local c = assert(anim.clip({ joints = {}, author = "me" }, "c", { strict = false }))
    assert.truthy(assert(anim.encode(c)):find('"author": "me"', 1, true))
    -- editor fields are known
    assert(anim.clip { joints = { a = { locked = true, interpolation = "linear", rotation = { { 0, { 0, 0, 0 }, "linear",
      { type = "breakdown", left = "auto" } } } } }, fps = 30, rig = "player", viewModel = {},
      events = { { time = 0, name = "e", preview = {} } } })
  end)
end)

-- The unknown fields of a file: `anim.load` keeps them (the format says
-- so), `strict = true` refuses the first, each with its JSON path.
describe("a field of a file nobody knows", function()
  local cases = {
    { "clip top level", '{"joints": {}, "lenght": 2}', "lenght: unknown field (did you mean 'length'?)" },
    { "joint", '{"joints": {"a": {"rotaton": []}}}', "joints.a.rotaton: unknown field (did you mean 'rotation'?)" },
    { "key extra", '{"joints": {"a": {"position": [[0, [0,0,0], "sine", {"eas": "out"}]]}}}',
      "joints.a.position[1][4].eas: unknown field (did you mean 'ease'?)" },
    { "modifier", '{"joints": {"a": {"position": [[0, [0,0,0]]], "modifiers": {"position": [{"type": "noise", "scael": 2}]}}}}',
      "joints.a.modifiers.position[1].scael: unknown field (did you mean 'scale'?)" },
    { "marker", '{"joints": {}, "markers": [{"time": 0, "name": "m", "vlaue": "x"}]}',
      "markers[1].vlaue: unknown field (did you mean 'value'?)" },
    { "event", '{"joints": {}, "events": [{"time": 0, "name": "e", "paylaod": 1}]}',
      "events[1].paylaod: unknown field (did you mean 'payload'?)" },
    { "sound", '{"joints": {}, "sounds": [{"time": 0, "sound": "s", "volumne": 1}]}',
      "sounds[1].volumne: unknown field (did you mean 'volume'?)" },
    { "play", '{"joints": {}, "plays": [{"time": 0, "clip": "res://a.anim", "fdae": 1}]}',
      "plays[1].fdae: unknown field (did you mean 'fade'?)" },
    { "skeleton joint", '{"joints": {}, "skeleton": {"a": {"parnet": "b"}}}',
      "skeleton.a.parnet: unknown field (did you mean 'parent'?)" },
    { "version 1 keyframe", '{"version": 1, "keyframes": [{"time": 0, "pose": {}}]}',
      "keyframes[1].pose: unknown field (did you mean 'poses'?)" },
    { "version 1 pose", '{"version": 1, "keyframes": [{"time": 0, "poses": {"a": {"angels": [0,0,0]}}}]}',
      "keyframes[1].poses.a.angels: unknown field (did you mean 'angles'?)" },
  }
  for _, case in ipairs(cases) do
    it("in a " .. case[1] .. ": kept by default, refused with strict, with its path and suggestion", function()
      assert.is_truthy(anim.decode(case[2], "f.anim"))
      assert.are.same({ nil, "f.anim: " .. case[3] }, { anim.decode(case[2], "f.anim", { strict = true }) })
    end)
  end

  it("in a .retarget file", function()
    local text = '{"version": 1, "scael": 2, "joints": {"a": {"to": "b", "sorce": [0, 0, 0]}}}'
    assert.is_truthy(anim.decode_retarget(text, "m.retarget"))
    assert.are.same({ nil, "m.retarget: joints.a.sorce: unknown field (did you mean 'source'?)" },
      { anim.decode_retarget(text, "m.retarget", { strict = true }) })
    -- (the fields in path order: joints.a.sorce before scael)
  end)

  it("editor fields are not reported", function()
    local text = [==[{"joints": {"a": {"locked": true, "interpolation": "linear",
      "position": [[0, [0,0,0], "bezier", {"type": "hold", "left": "vector", "right": "free"}]]}},
      "rig": "player", "fps": 24, "viewModel": {"x": 1},
      "events": [{"time": 0, "name": "e", "preview": {"sound": "x"}}]}]==]
    assert.is_truthy(anim.decode(text, "f.anim", { strict = true }))
    assert.is_truthy(anim.decode_retarget('{"version": 1, "source": "a", "target": {"b": 1}}', "m", { strict = true }))
  end)

  it("anim.load takes the option too", function()
    local dir = H.tmpdir()
    H.write(dir .. "/f.anim", '{"joints": {}, "lopp": "loop"}')
    assert.is_truthy(anim.load(dir .. "/f.anim"))
    assert.are.same({ nil, dir .. "/f.anim: lopp: unknown field (did you mean 'loop'?)" },
      { anim.load(dir .. "/f.anim", { strict = true }) })
  end)
end)

describe("a joint name nobody knows", function()
  it("raises naming the rig, with a suggestion", function()
    local a = anim.animator(rig)
    raises_here(function() a:get("rightarm") end,
      "bad argument #1 to 'get' (no joint 'rightarm' in rig 'player'; did you mean 'rightArm'?)")
    raises_here(function() a:world_transform("haed") end,
      "bad argument #1 to 'world_transform' (no joint 'haed' in rig 'player'; did you mean 'head'?)")
    raises_here(function() a:local_transform("tail") end,
      "bad argument #1 to 'local_transform' (no joint 'tail' in rig 'player')")
    raises_here(function() a:animated("LEFTLEG") end,
      "bad argument #1 to 'animated' (no joint 'LEFTLEG' in rig 'player'; did you mean 'leftLeg'?)")
    local named = anim.animator(assert(anim.rig({ joints = { { name = "wing" } } }, "bat")))
    raises_here(function() named:get("wign") end, "bad argument #1 to 'get' (no joint 'wign' in rig 'bat'; did you mean 'wing'?)")
  end)
end)

describe("clip joints that bind to no rig joint", function()
  local clip = assert(anim.clip({ joints = {
    rightarm = { rotation = { { 0, { 10, 0, 0 } } } }, -- a guess finds rightArm
    tail = { rotation = { { 0, { 10, 0, 0 } } } },     -- nothing
    hed = { rotation = { { 0, { 10, 0, 0 } } } },      -- nothing, but close to head
  } }, "c"))

  it("are reported once per track to the play's warn, with the best suggestion", function()
    local a = anim.animator(rig)
    local calls = {}
    local t = a:play(clip, { warn = function(track, list) calls[#calls + 1] = { track, list } end })
    a:update(0.1)
    assert.are.equal(1, #calls)
    assert.are.equal(t, calls[1][1])
    table.sort(calls[1][2], function(x, y) return x.joint < y.joint end)
    assert.are.same({ { joint = "hed", suggestion = "head", clip = clip }, { joint = "tail", clip = clip } }, calls[1][2])
  end)

  it("go to the animator's warn when the play has none; silence when every joint binds", function()
    local seen = {}
    local a = anim.animator(rig, { warn = function(_, list) seen[#seen + 1] = #list end })
    a:play(clip)
    a:play(walk) -- binds whole: no call
    assert.are.same({ 2 }, seen)
  end)

  it("name what a map asked for when it names a joint the rig does not have", function()
    local map = assert(anim.decode_retarget('{"version": 1, "joints": {"tail": "leftarm"}}'))
    local got
    anim.animator(rig):play(clip, { retarget = map, warn = function(_, list) got = list end })
    table.sort(got, function(x, y) return x.joint < y.joint end)
    assert.are.same({ { joint = "hed", suggestion = "head", clip = clip },
      { joint = "tail", wanted = "leftarm", suggestion = "leftArm", clip = clip } }, got)
  end)

  it("a warn that is not a function raises", function()
    raises_here(function() anim.animator(rig):play(clip, { warn = true }) end,
      "bad argument #2 to 'play' (warn must be a function or false, got boolean)")
    raises_here(function() anim.animator(rig, { warn = 1 }) end,
      "bad argument #2 to 'animator' (warn must be a function or false, got number)")
  end)
end)

describe("values keep their type", function()
  it("whole numbers of a file's payloads and marker values are Lua integers", function()
    local c = assert(anim.decode([[{"joints": {}, "length": 1,
      "events": [{"time": 0, "name": "e", "payload": {"n": 12, "f": 2.5, "list": [1, 2.0, 3.25], "big": 1e300}}],
      "markers": [{"time": 0, "name": "m", "value": 7}, {"time": 0, "name": "s", "value": "x"}]}]], "p"))
    local a = anim.animator(rig)
    local payload, values = nil, {}
    a:on_event(function(_, _, p) payload = p end)
    a:on_marker(function(_, name, v) values[name] = v end)
    a:play(c, { fade = 0 })
    a:update(0.1)
    assert.are.equal(12, payload.n)
    assert.are.equal("x", values.s)
    if not H.integers then
      -- 5.1, 5.2 and LuaJIT: numbers have no integer subtype, 12 and 12.0
      -- are one value; each payload number is the number the file wrote
      -- (docs/runtimes.md)
      assert.are.same({ 12, 2.5, { 1, 2, 3.25 }, 1e300, 7 },
        { payload.n, payload.f, payload.list, payload.big, values.m })
      return
    end
    assert.are.equal("integer", math.type(payload.n))
    assert.are.equal("float", math.type(payload.f))
    assert.are.equal("integer", math.type(payload.list[2]))
    assert.are.equal("float", math.type(payload.big)) -- beyond 2^53: a double
    assert.are.equal("integer", math.type(values.m))
  end)

  it("a script's table keeps the types it wrote", function()
    local c = assert(anim.clip({ joints = {}, events = { { time = 0, name = "e", payload = { n = 12.0, i = 3 } } },
      markers = { { time = 0, name = "m", value = 2.0 } } }))
    if not H.integers then
      -- (no subtype to keep before 5.3: the values are the numbers written)
      assert.are.same({ 12, 3, 2 }, { c:events()[1].payload.n, c:events()[1].payload.i, c:markers()[1].value })
      return
    end
    assert.are.equal("float", math.type(c:events()[1].payload.n))
    assert.are.equal("integer", math.type(c:events()[1].payload.i))
    assert.are.equal("float", math.type(c:markers()[1].value))
  end)
end)

describe("a new animator", function()
  it("reads as the rest pose before its first update", function()
    local a = anim.animator(rig)
    assert.are.same({ -0.375, 1.375, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:world_transform("rightArm") })
    assert.are.same({ 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 }, { a:get("rightArm") })
    local before = { a:world_transform("head") }
    a:update(0)
    assert.are.same(before, { a:world_transform("head") })
  end)
end)

-- (issue 37: these took a second argument and ignored it)
describe("functions that take no options", function()
  it("refuse a table of options, naming its key: anim.library, import_xml, decode_xml", function()
    local cases = {
      { function() anim.library(H.root .. "/examples/clips", { zqxjv = true }) end,
        "bad argument #2 to 'library' (unknown option 'zqxjv'; 'library' takes no options)" },
      { function() anim.import_xml(H.root .. "/examples/clips/none.xml", { stirct = true }) end,
        "bad argument #2 to 'import_xml' (unknown option 'stirct'; 'import_xml' takes no options)" },
      { function() anim.decode_xml("<a/>", "a.xml", { stirct = true }) end,
        "bad argument #3 to 'decode_xml' (unknown option 'stirct'; 'decode_xml' takes no options)" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(c[1])
      assert.is_false(ok)
      assert.truthy(tostring(err):find(c[2], 1, true), err)
      -- the message carries the caller's line
      assert.truthy(tostring(err):find("typos_spec.lua:%d+: bad argument"), err)
    end
  end)

  it("accept nil or an empty table", function()
    assert.truthy(anim.library(H.root .. "/examples/clips", {}))
    assert.truthy(anim.library(H.root .. "/examples/clips", nil))
  end)
end)
