-- Sprite frames (issue 23): anim.import_aseprite reads the JSON Aseprite
-- exports with a sprite sheet (spec/data/knight*.aseprite.json, written by
-- hand in that shape: frames as a hash and as an array, per-frame
-- durations, tags in every direction, with and without repeat) into clips
-- whose `frame` property plays as Aseprite plays the tag.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"

local HASH = H.root .. "/spec/data/knight.aseprite.json"
local ARRAY = H.root .. "/spec/data/knight-array.aseprite.json"
-- the frames' durations in the files, in ms
local MS = { 100, 150, 100, 200, 50, 50 }

-- The frame Aseprite shows at time t (seconds) of a run of frames that
-- loops or not: the run's frames one after another, each for its duration.
local function aseprite_frame(run, loops, t)
  local total = 0
  for _, f in ipairs(run) do total = total + MS[f + 1] end
  local ms = t * 1000
  if loops then ms = ms % total elseif ms >= total then return run[#run] end
  for _, f in ipairs(run) do
    if ms < MS[f + 1] then return f end
    ms = ms - MS[f + 1]
  end
  return run[#run]
end

-- What each tag of the files shows, frame by frame (Aseprite's playback:
-- a ping-pong bounce shows each end frame once; repeat N plays N passes,
-- a ping-pong pass being one direction).
local RUNS = {
  all = { { 0, 1, 2, 3, 4, 5 }, true },
  walk = { { 0, 1, 2, 3 }, true },                  -- forward 0..3
  back = { { 3, 2, 1, 0 }, true },                  -- reverse 0..3
  idle = { { 1, 2, 3, 2 }, true },                  -- pingpong 1..3
  swing = { { 5, 4, 3, 4 }, true },                 -- pingpong_reverse 3..5
  attack = { { 3, 4, 5, 3, 4, 5 }, false },         -- forward 3..5, repeat "2"
  bob = { { 1, 2, 3, 2, 1, 2, 3 }, false },         -- pingpong 1..3, repeat "3"
}

describe("anim.import_aseprite", function()
  for _, file in ipairs { HASH, ARRAY } do
    it("reads the sheet and a clip per tag from " .. file:match("[^/]+$"), function()
      local clips, sheet = anim.import_aseprite(file)
      assert.is_table(clips, sheet)
      assert.are.equal("knight.png", sheet.image)
      assert.are.equal(64, sheet.w)
      assert.are.equal(48, sheet.h)
      assert.are.equal(6, #sheet.frames)
      -- in the file's order, the hash's too (its names sort otherwise)
      assert.are.same({ x = 16, y = 0, w = 16, h = 24, duration = 0.15, name = "walk 1" }, sheet.frames[2])
      assert.are.same({ x = 0, y = 24, w = 16, h = 24, duration = 0.05, name = "attack 0" }, sheet.frames[5])
      for tag, run in pairs(RUNS) do
        local c = clips[tag]
        assert.is_true(anim.is_clip(c), tag)
        assert.are.same({ "frame" }, c:properties())
        assert.are.equal(run[2] and "loop" or "once", c.loop, tag)
        local total = 0
        for _, f in ipairs(run[1]) do total = total + MS[f + 1] end
        assert.are.equal(total / 1000, c.length, tag)
      end
    end)
  end

  it("plays each tag on an animator exactly as Aseprite shows it, per-frame durations and all", function()
    local clips = assert(anim.import_aseprite(HASH))
    for tag, run in pairs(RUNS) do
      local a = anim.animator(anim.rig("player"))
      local tr = a:play(clips[tag], { fade = 0 })
      local t, ended = 0, nil
      tr:on_ended(function(_, late) ended = t - late end)
      -- steps of 10 ms for 3 s (several loops), read every update, 5 ms off
      -- the frames' bounds (all on multiples of 50 ms)
      for step = 0, 300 do
        t = 0.005 + step / 100 -- (the time this update reaches: callbacks see it)
        a:update(step == 0 and 0.005 or 0.01)
        local want = aseprite_frame(run[1], run[2], t)
        if ended and ended < t then break end
        assert.are.equal(want, a:property("frame"), tag .. " at " .. t)
      end
      if not run[2] then
        -- the track ended on the last frame shown, at the end of the last pass
        assert.is_true(ended ~= nil, tag)
        assert.is_true(math.abs(ended - clips[tag].length) < 1e-9, tag)
      end
    end
  end)

  it("markers added from Lua fire on the frame they are put at", function()
    local clips = assert(anim.import_aseprite(HASH))
    local t = assert(anim.table(clips.walk))
    -- frame 2 of walk starts at 250 ms
    t.markers = { { time = 0.25, name = "step", value = "left" } }
    local walk = assert(anim.clip(t, "walk"))
    local a = anim.animator(anim.rig("player"))
    local seen = {}
    a:on_marker(function(_, name, value) seen[#seen + 1] = { name, value, a:property("frame") } end)
    a:play(walk, { fade = 0 })
    for _ = 1, 30 do a:update(0.05) end
    assert.are.same({ "step", "left", 2 }, seen[1])
    assert.are.equal(3, #seen) -- three loops of 0.55 s in 1.5 s
    -- and in place: reloading the imported clip itself with them
    assert(anim.reload(clips.walk, t))
    assert.are.equal(1, #clips.walk:markers())
  end)

  it("decodes text too, and names its clips <name>#<tag>", function()
    local clips, sheet = anim.decode_aseprite(H.read(ARRAY), "knight")
    assert.is_table(sheet)
    assert.are.equal("knight#walk", clips.walk.name)
    assert.are.equal("knight#all", clips.all.name)
  end)
end)

describe("anim.import_aseprite: bad input", function()
  local base = require("cjson").decode(H.read(ARRAY))
  local function doc(edit)
    local d = require("cjson").decode(H.read(ARRAY))
    edit(d)
    return require("cjson").encode(d)
  end
  local function bad(text, msg)
    local clips, err = anim.decode_aseprite(text, "k.json")
    assert.is_nil(clips)
    assert.are.equal(msg, err)
  end
  assert(base)

  it("names the field and says what is wrong", function()
    bad("[1]", "k.json: expected the JSON Aseprite exports with a sprite sheet (an object with frames and meta), got array")
    bad(doc(function(d) d.frames = nil end), "k.json: frames: an Aseprite sheet needs its frames (File > Export Sprite Sheet, JSON data)")
    bad(doc(function(d) d.frames = 3 end), "k.json: frames: frames must be an array or an object of frames, got number")
    bad(doc(function(d) d.frames[3].duration = 0 end), "k.json: frames[3].duration: a frame's duration must be more than 0 ms, got 0")
    bad(doc(function(d) d.frames[2].duration = -10 end), "k.json: frames[2].duration: a frame's duration must be more than 0 ms, got -10")
    bad(doc(function(d) d.frames[2].duration = nil end), "k.json: frames[2].duration: duration must be a finite number, got nil")
    bad(doc(function(d) d.frames[1].frame.w = -1 end), "k.json: frames[1].frame.w: w must be >= 0, got -1")
    bad(doc(function(d) d.meta.frameTags[2].to = 6 end), "k.json: meta.frameTags[2].to: the tag's range 0..6 is outside the frames 0..5")
    bad(doc(function(d) d.meta.frameTags[2].from = 4 end),
      "k.json: meta.frameTags[2].from: the tag's range 4..3 is outside the frames 0..5 (from comes after to)")
    bad(doc(function(d) d.meta.frameTags[1].from = 1.5 end), "k.json: meta.frameTags[1].from: from must be a whole number >= 0, got 1.5")
    bad(doc(function(d) d.meta.frameTags[3].direction = "bounce" end),
      "k.json: meta.frameTags[3].direction: unknown direction 'bounce' (expected forward, reverse, pingpong or pingpong_reverse)")
    bad(doc(function(d) d.meta.frameTags[5]["repeat"] = "twice" end),
      "k.json: meta.frameTags[5].repeat: repeat must be a whole number of passes (as a string, as Aseprite writes it), got 'twice'")
    bad(doc(function(d) d.meta.frameTags[5]["repeat"] = -1 end), "k.json: meta.frameTags[5].repeat: repeat must be a whole number >= 0, got -1")
    bad(doc(function(d) d.meta.frameTags[4].name = "walk" end),
      "k.json: meta.frameTags[4].name: two tags are named 'walk' (tags 1 and 4): each clip is named by its tag")
    bad(doc(function(d) d.meta.frameTags[1].name = "all" end),
      "k.json: meta.frameTags[1].name: a tag named 'all' would hide clips.all (every frame): rename the tag")
    bad("{", "k.json: not valid JSON: Expected object key string but found T_END at character 2")
    bad([[{"frames": {}}]], "k.json: frames: an Aseprite sheet needs at least one frame")
    bad([[{"frames": {"a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 10}, "a": {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 10}}}]],
      "k.json: frames.a: the frame name 'a' comes twice")
    local clips, err = anim.import_aseprite(H.root .. "/spec/data/none.json")
    assert.is_nil(clips)
    assert.are.equal(H.root .. "/spec/data/none.json: cannot open file: No such file or directory", err)
  end)

  it("repeat \"0\" loops, as Aseprite's for ever does", function()
    local clips = assert(anim.decode_aseprite(doc(function(d) d.meta.frameTags[5]["repeat"] = "0" end), "k"))
    assert.are.equal("loop", clips.attack.loop)
  end)

  it("bounds the keys a repeat asks for by anim.limits.keys before building anything", function()
    local text = doc(function(d) d.meta.frameTags[5]["repeat"] = "100000000" end)
    local clips, err = anim.decode_aseprite(text, "k")
    assert.is_nil(clips)
    assert.truthy(err:find("^k: meta%.frameTags%[5%]: too many keys: the clips would have %d+ %(at most 1000000, anim%.limits%.keys%)"), err)
  end)
end)

-- Hostile sheets (issue 35): every number that becomes an integer is
-- range-checked first (a `to` of 1e20 or a `repeat` of 1e300 raised
-- "attempt to compare nil with number"), the keys of each tag are counted
-- exactly before anything is built, and a large sheet imports in work
-- linear in its size (320,000 frames with a ping-pong tag took 7.8 s: the
-- keys were read again, making a path for each, as for a file).
describe("anim.import_aseprite: hostile sheets", function()
  local compat = require "anim.base.compat"
  local F = '{"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 100}'
  local function sheet(tag, frames)
    return '{"frames": [' .. (frames or F .. ", " .. F) .. '], "meta": {"frameTags": [' .. tag .. "]}}"
  end
  local function bad(text, msg)
    local r = compat.pack(anim.decode_aseprite(text, "k.json"))
    assert.are.same({ n = 2, nil, msg }, r)
  end

  it("refuses frame indices, repeats and durations beyond the integers, naming the field", function()
    bad(sheet('{"name": "a", "from": 0, "to": 1e20}'),
      "k.json: meta.frameTags[1].to: the tag's range 0..1e+20 is outside the frames 0..1")
    bad(sheet('{"name": "a", "from": 0, "to": 9223372036854775808}'),
      "k.json: meta.frameTags[1].to: the tag's range 0..9.223372036854776e+18 is outside the frames 0..1")
    bad(sheet('{"name": "a", "from": 1e20, "to": 1}'),
      "k.json: meta.frameTags[1].from: the tag's range 1e+20..1 is outside the frames 0..1 (from comes after to)")
    bad(sheet('{"name": "a", "from": 0, "to": 1, "repeat": 1e300}'),
      "k.json: meta.frameTags[1]: too many keys: the clips would have 2e+300 (at most 1000000, anim.limits.keys)")
    bad(sheet('{"name": "a", "from": 0, "to": 1, "repeat": "99999999999999999999"}'),
      "k.json: meta.frameTags[1]: too many keys: the clips would have 2e+20 (at most 1000000, anim.limits.keys)")
    bad(sheet('{"name": "a", "from": 0, "to": 0, "direction": "pingpong", "repeat": 9223372036854775807}'),
      "k.json: meta.frameTags[1]: too many keys: the clips would have 9.223372036854776e+18 (at most 1000000, anim.limits.keys)")
    bad(sheet('{"name": "a", "from": 0, "to": 1}', F .. ', {"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 1e300}'),
      "k.json: frames[2].duration: a frame's duration must be at most 2147483647 ms, got 1e+300")
  end)

  it("counts the keys of each tag exactly, against anim.limits.keys and the core's bound on one clip", function()
    -- 2 frames (clips.all) and 4 frames a ping-pong tag of repeat 3 shows
    -- (0 1, 0, 1), then 2 a ping-pong loop shows (0 1)
    local text = sheet('{"name": "a", "from": 0, "to": 1, "direction": "pingpong", "repeat": "3"}, '
      .. '{"name": "b", "from": 0, "to": 1, "direction": "pingpong_reverse"}')
    local old = anim.set_limits { keys = 8 }
    local ok, clips, err = pcall(anim.decode_aseprite, text, "k.json")
    anim.set_limits { keys = 7 }
    local r = compat.pack(pcall(anim.decode_aseprite, text, "k.json"))
    anim.set_limits(old)
    assert(ok and clips, ok and err or clips)
    assert.are.equal(4, #anim.table(clips.a).properties.frame)
    assert.are.equal(2, #anim.table(clips.b).properties.frame)
    assert.are.same({ n = 3, true, nil, "k.json: meta.frameTags[2]: too many keys: the clips would have 8 "
      .. "(at most 7, anim.limits.keys)" }, r)
    -- one clip holds at most a million keys, whatever the limit
    old = anim.set_limits { keys = 3000000 }
    r = compat.pack(pcall(anim.decode_aseprite, sheet('{"name": "a", "from": 0, "to": 1, "repeat": 500001}'), "k.json"))
    anim.set_limits(old)
    assert.are.same({ n = 3, true, nil, "k.json: meta.frameTags[1]: too many keys: the tag's clip would have 1000002 "
      .. "(at most 1000000)" }, r)
  end)

  it("builds each clip as anim.clip builds it from the clip's table", function()
    local clips = assert(anim.import_aseprite(HASH))
    for name, c in pairs(clips) do
      local again = assert(anim.clip(anim.table(c), c.name))
      assert.are.equal(anim.encode(again), anim.encode(c))
      assert.are.same({ again.length, again.loop, again:properties() }, { c.length, c.loop, c:properties() })
      for t = 0, c.length + 0.1, 0.01 do
        assert.are.same(again:sample(t), c:sample(t), name .. " at " .. t)
      end
    end
  end)

  it("reads the names of a hash's frames as JSON, escapes and all", function()
    local text = '{"frames": {"a\\"b": ' .. F .. ', "\\u00e9": ' .. F .. ', "c": ' .. F .. '}}'
    local _, s = assert(anim.decode_aseprite(text, "k.json"))
    assert.are.same({ 'a"b', "\195\169", "c" }, { s.frames[1].name, s.frames[2].name, s.frames[3].name })
  end)

  it("core.json_members reads an object's members in order, or gives nil for what it cannot follow", function()
    local core = require "anim.core"
    local names, starts = core.json_members(' {"b": [1, {"}": "]"}], "a\\"x": "{", "c" : 2, "d":{}}', 2)
    assert.are.same({ "b", 'a\\"x', "c", "d" }, names)
    assert.are.same({ 8, 33, 44, 51 }, starts)
    assert.are.same({ {}, {} }, { core.json_members("{ }", 1) })
    for _, odd in ipairs { '{"a": 1', '{"a": [1, 2}', '{"a": "x}', '{"a" 1}', '{"a": 1,}', '{a: 1}', '{"a": 1 "b": 2}',
      '{"a": }', '{"a\\', "[1]", "" } do
      assert.are.same({}, { core.json_members(odd, 1) }, odd)
    end
    assert.are.same({}, { core.json_members("{}", 0) })
    assert.are.same({}, { core.json_members("{}", 3) })
  end)

  -- the Lua instructions an import runs, in millions (C work, the JSON
  -- decoding, is not counted)
  local function instructions(f)
    local n = 0
    debug.sethook(function() n = n + 1 end, "", 1000)
    local r = compat.pack(pcall(f))
    debug.sethook()
    assert(r[1], r[2])
    return n / 1000, compat.unpack(r, 2, r.n)
  end

  it("imports a large ping-pong sheet in work linear in its size, each key read once", function()
    -- 20,000 frames and a ping-pong tag over them all: 60,000 keys.  About
    -- 165 instructions a frame; 1,230 before (a path made for each key)
    local frames = {}
    for i = 1, 20000 do frames[i] = '{"frame": {"x": 0, "y": 0, "w": 0, "h": 0}, "duration": 1}' end
    local text = sheet('{"name": "p", "from": 0, "to": 19999, "direction": "pingpong"}', table.concat(frames, ","))
    local m, clips = H.without_jit(function()
      return instructions(function() return anim.decode_aseprite(text, "k.json") end)
    end)
    assert.is_table(clips)
    assert(m < 8, string.format("%.1f million instructions for 20,000 frames (at most 8)", m))
    assert.are.equal(39998, #anim.table(clips.p).properties.frame)
    assert.are.equal(39.998, clips.p.length)
  end)
end)
