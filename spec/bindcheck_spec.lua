-- Nothing played silently on nothing: play refuses a clip none of whose
-- joints is on the rig; a clip that binds part of its joints is told once
-- per (clip, rig) pair to the default warn (runtime/bindcheck.lua).
local anim = require "anim"
local H = require "spec.helper"

local FOX = H.shared .. "/data/gltf/Fox/glTF-Binary/Fox.glb"
local player = anim.rig("player")

-- err with its "file:line: " position taken off.
local function bare(err) return (tostring(err):gsub("^[^:]*:%d+: ", "")) end

local function partial(name)
  return assert(anim.clip({ length = 1, joints = { rightArm = { rotation = { { 0, { 0, 10, 0 } } } },
    tail = { rotation = { { 0, { 0, 10, 0 } } } }, hed = { rotation = { { 0, { 0, 10, 0 } } } } } }, name))
end

local function unbound(name)
  return assert(anim.clip({ length = 1, joints = { tail = { rotation = { { 0, { 0, 10, 0 } } } },
    fin = { rotation = { { 0, { 0, 10, 0 } } } } } }, name))
end

-- Runs fn with Lua's warn (or, where there is none, io.stderr) replaced by
-- a recorder; returns the lines written.
local function warned(fn)
  local lines = {}
  local real_warn, real_stderr = rawget(_G, "warn"), io.stderr
  if real_warn then
    rawset(_G, "warn", function(...) lines[#lines + 1] = table.concat({ ... }) end)
  else
    rawset(io, "stderr", { write = function(_, ...) lines[#lines + 1] = table.concat({ ... }):gsub("\n$", "") end })
  end
  local ok, err = pcall(fn)
  rawset(_G, "warn", real_warn)
  rawset(io, "stderr", real_stderr)
  assert(ok, err)
  return lines
end

describe("play refuses a clip that plays on nothing", function()
  it("a glTF Fox clip on the player rig names the clip, both sides' joints and retargeting", function()
    local walk = assert(anim.import_gltf(FOX)).clips.Walk
    local a = anim.animator(player)
    local ok, err = pcall(a.play, a, walk)
    assert.is_false(ok)
    err = bare(err)
    assert.truthy(err:find("^bad argument #1 to 'play' %(clip 'Walk' plays on no joint of rig 'player': its joints "), err)
    assert.truthy(err:find("(20 in all), the rig's 'root', 'torso', 'head', 'rightArm', ... (7 in all); retarget? "
      .. "(play's retarget option takes a map from anim.load_retarget))", 1, true), err)
    assert.are.same({}, a:tracks()) -- nothing made
  end)

  it("gives the exact message, and no retarget hint when a map was given", function()
    local a = anim.animator(player)
    local c = unbound("c")
    local ok, err = pcall(a.play, a, c)
    assert.is_false(ok)
    assert.are.equal("bad argument #1 to 'play' (clip 'c' plays on no joint of rig 'player': its joints 'fin', 'tail',"
      .. " the rig's 'root', 'torso', 'head', 'rightArm', ... (7 in all); retarget? (play's retarget option takes a map"
      .. " from anim.load_retarget))", bare(err))
    local map = assert(anim.decode_retarget('{"version": 1, "joints": {"tail": "tial"}}'))
    ok, err = pcall(a.play, a, c, { retarget = map })
    assert.is_false(ok)
    assert.are.equal("bad argument #1 to 'play' (clip 'c' plays on no joint of rig 'player': its joints 'fin', 'tail',"
      .. " the rig's 'root', 'torso', 'head', 'rightArm', ... (7 in all))", bare(err))
    -- a map that binds them plays
    map = assert(anim.decode_retarget('{"version": 1, "joints": {"tail": "head", "fin": "torso"}}'))
    assert.truthy(a:play(c, { retarget = map }))
  end)

  it("names the point of a blend space whose clip plays on nothing", function()
    local s = anim.blendspace { sync = false, points = { { at = 0, clip = partial("walk") }, { at = 1, clip = unbound("swim") } } }
    local a = anim.animator(player, { warn = false })
    local ok, err = pcall(a.play, a, s)
    assert.is_false(ok)
    assert.truthy(bare(err):find("^bad argument #1 to 'play' %(blend space 'blendspace': points%[2%]%.clip 'swim' plays on no joint of rig 'player'"), err)
  end)

  it("plays a clip with a property channel, or with no joints, though no joint binds", function()
    local a = anim.animator(player, { warn = false })
    local glow = assert(anim.clip({ length = 1, joints = { tail = { rotation = { { 0, { 0, 10, 0 } } } } },
      properties = { glow = { { 0, 1 }, { 1, 2 } } } }, "glow"))
    assert.truthy(a:play(glow))
    local timer = assert(anim.clip({ length = 1, joints = {}, markers = { { time = 0.5, name = "ding" } } }, "timer"))
    local heard = {}
    a:on_marker(function(_, name) heard[#heard + 1] = name end)
    a:play(timer, { fade = 0 })
    a:update(0.6)
    assert.are.same({ "ding" }, heard)
    assert.is_true(math.abs(a:property("glow") - 1.6) < 1e-12)
  end)
end)

-- (found by fuzz_animator: a finalizer run while the unbound joints were
-- listed reloaded the clip; the list of the old content and the joint
-- count of the new said "no joint" of a clip whose joint was on the rig)
describe("a reload in the middle of play's check", function()
  local bind = require "anim.format.bind"
  local function rot() return { rotation = { { 0, { 0, 10, 0 } } } } end
  -- play(c) on the player rig, c reloaded to `to` (once, as a finalizer
  -- would) after its unbound joints were listed: ok, err
  local function play_reloaded(c, to)
    local unmatched, reloaded = bind.unmatched, false
    bind.unmatched = function(...)
      local u = unmatched(...)
      if not reloaded then
        reloaded = true
        assert(anim.reload(c, to))
      end
      return u
    end
    local ok, err = pcall(function() return anim.animator(player, { warn = false }):play(c) end)
    bind.unmatched = unmatched
    assert.is_true(reloaded)
    return ok, err
  end

  it("checks the clip's new content, not a mix of the two", function()
    -- head and tail (tail unbound) made head alone: it plays
    local c = assert(anim.clip({ length = 1, joints = { head = rot(), tail = rot() } }, "mixed"))
    local ok, err = play_reloaded(c, { length = 1, joints = { head = rot() } })
    assert(ok, err)
    -- made tail and fin, on no joint of the rig: refused, naming them
    local d = assert(anim.clip({ length = 1, joints = { head = rot(), tail = rot() } }, "flipped"))
    ok, err = play_reloaded(d, { length = 1, joints = { tail = rot(), fin = rot() } })
    assert.is_false(ok)
    assert.matches("clip 'flipped' plays on no joint of rig 'player': its joints 'fin', 'tail', the rig's", bare(err), 1, true)
  end)

  it("gives up, saying so, when the clip is reloaded at every try", function()
    local c = assert(anim.clip({ length = 1, joints = { head = rot() } }, "restless"))
    local unmatched, n = bind.unmatched, 0
    bind.unmatched = function(...)
      n = n + 1
      assert(anim.reload(c, { length = 1, joints = { head = rot(), [n % 2 == 0 and "tail" or "fin"] = rot() } }))
      return unmatched(...)
    end
    local ok, err = pcall(function() return anim.animator(player, { warn = false }):play(c) end)
    bind.unmatched = unmatched
    assert.is_false(ok)
    assert.are.equal(8, n)
    assert.are.equal("play: clip 'restless' kept being reloaded (by finalizers) while its joints were bound", bare(err))
  end)
end)

describe("the default warn", function()
  it("writes one line per clip and rig, whatever the animators and plays", function()
    local c, d = partial("c"), partial("d")
    local lines = warned(function()
      local a, b = anim.animator(player), anim.animator(player)
      a:play(c)
      a:play(c)
      b:play(c)
      a:play(d)
      -- another rig is another pair
      local rig2 = assert(anim.rig({ joints = { { name = "rightArm" }, { name = "head" } } }, "small"))
      anim.animator(rig2):play(c)
    end)
    assert.are.same({
      "anim: clip 'c' on rig 'player': 2 of its joints play on no joint of the rig: 'hed' (did you mean 'head'?), 'tail'",
      "anim: clip 'd' on rig 'player': 2 of its joints play on no joint of the rig: 'hed' (did you mean 'head'?), 'tail'",
      "anim: clip 'c' on rig 'small': 2 of its joints play on no joint of the rig: 'hed' (did you mean 'head'?), 'tail'",
    }, lines)
  end)

  it("names each clip of a blend space on its own line", function()
    local s = anim.blendspace { sync = false, points = { { at = 0, clip = partial("s1") }, { at = 1, clip = partial("s2") } } }
    local lines = warned(function() anim.animator(player):play(s) end)
    assert.are.equal(2, #lines)
    assert.truthy(lines[1]:find("^anim: clip 's1' on rig 'player'"))
    assert.truthy(lines[2]:find("^anim: clip 's2' on rig 'player'"))
  end)

  it("is silenced by warn = false on the animator or on play, and replaced by a function", function()
    local got
    local lines = warned(function()
      anim.animator(player, { warn = false }):play(partial("e"))
      anim.animator(player):play(partial("f"), { warn = false })
      anim.animator(player):play(partial("g"), { warn = function(_, list) got = list end })
    end)
    assert.are.same({}, lines)
    assert.are.equal(2, #got)
  end)

  it("lists at most four joints", function()
    local joints = { head = { rotation = { { 0, { 0, 10, 0 } } } } }
    for _, n in ipairs { "qa", "qb", "qc", "qd", "qe", "qf" } do joints[n] = { rotation = { { 0, { 0, 10, 0 } } } } end
    local c = assert(anim.clip({ length = 1, joints = joints }, "many"))
    local lines = warned(function() anim.animator(player):play(c) end)
    assert.are.equal(1, #lines)
    assert.truthy(lines[1]:find("^anim: clip 'many' on rig 'player': 6 of its joints play on no joint of the rig: 'q.', 'q.', 'q.', 'q.', %.%.%.$"), lines[1])
  end)
end)
