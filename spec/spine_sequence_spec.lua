-- Spine 4.1+ attachment sequences played (issue 40;
-- lua/anim/import/spine/sequence.lua): the frame a sequence timeline
-- shows at chosen times in every mode, worked out by hand from the rules
-- of docs/formats.md ("Spine", sequences): after a key at k, step f =
-- floor((t - k) / delay), p = index + f, n frames; once min(p, n - 1),
-- loop p mod n, pingpong p mod (2n - 2) folded back over n - 1, the
-- reverse modes n - 1 - (the forward mode's frame), hold `index`; before
-- the first key the setup frame.  The setup frame in the setup pose, the
-- drawn region's uvs following the frame, and every message of bad input.
local anim = require "anim"
local spine = require "anim.import.spine"
local seqmod = require "anim.import.spine.sequence"
local attach2d = require "anim.runtime.attach2d"
local H = require "spec.helper"
local love_mock = require "spec.love_mock"

local DIR = H.root .. "/spec/fixtures/spine/"

-- The fixtures' sequence (tools/make-spine-fixtures): spark, 4 frames,
-- setup frame 1; its timeline's keys: 0.25 loop index 0 delay 0.125; 1
-- once index 2 delay 0.125; 1.5 pingpong index 1 delay 0.0625; 2
-- onceReverse index 0 delay 0.125; 2.5 loopReverse index 1 delay 0.25; 3
-- pingpongReverse index 0 delay 0.125; 3.5 hold index 3 (the clip's end).
local WANT = {
  { 0, 1 },     -- before the first key: the setup frame
  { 0.3, 0 },   -- loop: f = floor(0.05 / 0.125) = 0, p = 0
  { 0.4, 1 },   -- f = 1
  { 0.6, 2 },   -- f = 2
  { 0.9, 1 },   -- f = floor(0.65 / 0.125) = 5, 5 mod 4 = 1
  { 1.05, 2 },  -- once: f = 0, p = 2
  { 1.2, 3 },   -- f = 1, p = 3
  { 1.45, 3 },  -- f = 3, p = 5: held at n - 1 = 3
  { 1.55, 1 },  -- pingpong: f = floor(0.05 / 0.0625) = 0, p = 1
  { 1.7, 2 },   -- f = floor(0.2 / 0.0625) = 3, p = 4 mod 6 = 4 >= n: 2n - 2 - 4 = 2
  { 1.8, 1 },   -- f = 4, p = 5 -> 6 - 5 = 1
  { 1.95, 2 },  -- f = 7, p = 8 mod 6 = 2
  { 2.05, 3 },  -- onceReverse: f = 0, once 0, 3 - 0 = 3
  { 2.3, 1 },   -- f = 2, once 2, 3 - 2 = 1
  { 2.45, 0 },  -- f = 3, once 3, 0
  { 2.6, 2 },   -- loopReverse: f = 0, loop 1, 3 - 1 = 2
  { 2.8, 1 },   -- f = 1, loop 2, 3 - 2 = 1
  { 2.95, 1 },  -- f = 1 (0.45 / 0.25 = 1.8)
  { 3.05, 3 },  -- pingpongReverse: f = 0, pingpong 0, 3 - 0 = 3
  { 3.2, 2 },   -- f = 1, pingpong 1, 3 - 1 = 2
  { 3.4, 0 },   -- f = 3, pingpong 3, 0
  { 3.5, 3 },   -- hold: index 3 (the delay unused)
}

local function load(v)
  return assert(anim.import_spine(DIR .. "hero-" .. v .. ".json", DIR .. "hero-4.x.atlas"))
end

-- The uvs of the record an entry draws now (csrc/lua/lua_draw2d.c's
-- layout: 6 numbers, the geometry, then 2 per vertex).
local function uvs(a, slot)
  local c = attach2d.of(a)
  local e = attach2d.lookup(c, a:skin(), slot, (a:slot(slot)))
  local rec = attach2d.frame(a, e)
  local out = {}
  for i = 1, 2 * rec[3] do out[i] = rec[6 + rec[4] + i] end
  return out
end

describe("Spine sequences: the frame shown", function()
  it("follows the documented rule of each mode (the rule itself, at hand-picked steps)", function()
    local frame, M = seqmod.frame, {}
    for i, m in ipairs(seqmod.MODES) do M[m] = i end
    -- n = 4: once from 2 stops at 3; loop wraps; pingpong 0 1 2 3 2 1 0 1
    assert.are.same({ 2, 3, 3, 3 }, { frame(M.once, 2, 0, 4), frame(M.once, 2, 1, 4), frame(M.once, 2, 2, 4),
      frame(M.once, 2, 9, 4) })
    assert.are.same({ 3, 0, 1 }, { frame(M.loop, 3, 0, 4), frame(M.loop, 3, 1, 4), frame(M.loop, 3, 6, 4) })
    local pp = {}
    for f = 0, 7 do pp[#pp + 1] = frame(M.pingpong, 0, f, 4) end
    assert.are.same({ 0, 1, 2, 3, 2, 1, 0, 1 }, pp)
    local rp = {}
    for f = 0, 7 do rp[#rp + 1] = frame(M.pingpongReverse, 0, f, 4) end
    assert.are.same({ 3, 2, 1, 0, 1, 2, 3, 2 }, rp)
    assert.are.same({ 3, 2, 0, 0 }, { frame(M.onceReverse, 0, 0, 4), frame(M.onceReverse, 0, 1, 4),
      frame(M.onceReverse, 0, 3, 4), frame(M.onceReverse, 0, 7, 4) })
    assert.are.same({ 0, 3 }, { frame(M.loopReverse, 3, 0, 4), frame(M.loopReverse, 3, 1, 4) })
    -- one frame: pingpong stays; hold ignores the steps
    assert.are.same({ 0, 0, 2 }, { frame(M.pingpong, 0, 5, 1), frame(M.pingpongReverse, 0, 5, 1),
      frame(M.hold, 2, 9, 4) })
  end)

  for _, v in ipairs { "4.1", "4.2" } do
    it("in the fixture's timeline, every mode, sampled and played (" .. v .. ")", function()
      local r = load(v)
      for _, w in ipairs(r.warnings) do assert.is_nil(w.message:find("sequence", 1, true), w.message) end
      local c = r.clips.sequence
      assert.are.equal(3.5, c.length)
      local a = anim.animator(r.skeleton)
      a:play(c, { loop = "once" })
      local now = 0
      for _, tw in ipairs(WANT) do
        local t, want = tw[1], tw[2]
        assert.are.equal(want, c:sample(t).properties["sequence.default.fx.spark"], "sample at " .. t)
        if t > 0 then -- (an animator's tracks pose it at its first update of a time)
          a:update(t - now)
          now = t
          local att, name, frame = a:attachment("fx")
          assert.are.same({ "spark", want }, { name, frame }, "played at " .. t)
          assert.are.equal(4, att.sequence.count)
        end
      end
    end)
  end

  it("keys only the frame changes, up to the next key and to the clip's end", function()
    local keys = assert(seqmod.bake({ { t = 0.5, mode = 3, index = 0, delay = 0.25 }, { t = 1, mode = 1, index = 2,
      delay = 0 } }, 1, 3, 1.5, 100))
    -- the setup frame from 0; loop 0 at 0.5, 1 at 0.75 (1.0 is the next
    -- key's); hold 2 from 1 to the end
    assert.are.same({ { 0, { 1 }, "step" }, { 0.5, { 0 }, "step" }, { 0.75, { 1 }, "step" }, { 1, { 2 }, "step" } },
      keys)
    -- the last key runs to the clip's end, its end included: 3 steps of
    -- 0.25 from 1 to 1.5 (0, 1, 2), then once holds
    keys = assert(seqmod.bake({ { t = 1, mode = 2, index = 0, delay = 0.25 } }, 0, 5, 1.5, 100))
    assert.are.same({ { 0, { 0 }, "step" }, { 1, { 0 }, "step" }, { 1.25, { 1 }, "step" }, { 1.5, { 2 }, "step" } },
      keys)
    -- over the budget: nil and the count reached
    -- (1 key and 4 steps: 0.25, 0.5, 0.75 and the end, 1)
    assert.are.same({ nil, 5 }, { seqmod.bake({ { t = 0, mode = 3, index = 0, delay = 0.25 } }, 0, 5, 1, 3) })
  end)
end)

describe("Spine sequences: the setup pose and the drawn region", function()
  it("shows the setup frame with no track, and its region", function()
    local r = load("4.1")
    local sk = r.description.skins[1].attachments.fx.spark
    assert.are.equal("spark02", sk.region.name)
    assert.are.same({ "spark01", "spark02", "spark03", "spark04" }, { sk.regions[1].name, sk.regions[2].name,
      sk.regions[3].name, sk.regions[4].name })
    local a = anim.animator(r.skeleton)
    a:play(r.clips.sequence)
    a:update(0.1) -- (before the timeline's first key)
    assert.are.same({ "spark", 1 }, { select(2, a:attachment("fx")) })
    -- the setup pose proper: a skeleton whose slot shows the sequence
    local text = require("cjson").encode { skeleton = { spine = "4.1.24" }, bones = { { name = "root" } },
      slots = { { name = "s", bone = "root", attachment = "spark" } },
      skins = { { name = "default", attachments = { s = { spark = { width = 8, height = 8,
        sequence = { count = 4, start = 1, digits = 2, setupIndex = 2 } } } } } } }
    local atlas = io.open(DIR .. "hero-4.x.atlas", "rb"):read("*a")
    local r2 = assert(spine.decode_text(text, "s.json", atlas, "hero.atlas"))
    local b = anim.animator(assert(anim.skeleton2d(r2.skeleton)))
    assert.are.same({ "spark", 2 }, { select(2, b:attachment("s")) })
    -- spark03: x 20, y 44, 8 x 8 on a 64 x 64 page; corners bottom-left,
    -- top-left, top-right, bottom-right (y up)
    local u, v, u2, v2 = 20 / 64, 44 / 64, 28 / 64, 52 / 64
    assert.are.same({ u, v2, u, v, u2, v, u2, v2 }, uvs(b, "s"))
  end)

  it("draws each frame's region: the uvs change with the frame", function()
    local r = load("4.2")
    local a = anim.animator(r.skeleton)
    a:play(r.clips.sequence, { loop = "once" })
    local now = 0
    for _, tf in ipairs { { 0.3, 0 }, { 0.4, 1 }, { 0.6, 2 }, { 1.2, 3 }, { 0.1, 1 } } do
      local t, k = tf[1], tf[2]
      if t < now then
        a = anim.animator(r.skeleton)
        a:play(r.clips.sequence, { loop = "once" })
        now = 0
      end
      a:update(t - now)
      now = t
      local u, v, u2, v2 = 10 * k / 64, 44 / 64, (10 * k + 8) / 64, 52 / 64
      assert.are.same({ u, v2, u, v, u2, v, u2, v2 }, uvs(a, "fx"), "at " .. t)
    end
  end)
end)

describe("Spine sequences drawn by anim.love", function()
  it("writes the frame's uvs (LÖVE mocked), and allocates nothing a frame", function()
    -- LÖVE's calls mocked (spec/love_mock.lua); each setVertices' range
    -- is read back (12 floats a vertex: x, y, u, v, ...)
    local written, recording = {}, true
    local function vertices(data, from, n)
      if recording then written[#written + 1] = { data, from, n } end
    end
    love_mock.run({ vertices = vertices }, function(draw2d)
      local r = load("4.1")
      local a = anim.animator(r.skeleton)
      a:play(r.clips.sequence, { loop = "once" })
      local images = setmetatable({}, { __index = function(t, k) local v = {}; rawset(t, k, v); return v end })
      -- the spark frames' uv corners seen in a frame's vertices (spark0k: x
      -- 10 (k - 1), y 44, 8 x 8 on a 64 x 64 page; only they lie at v 44/64
      -- or 52/64 with u at a multiple of 10/64)
      local function frames_seen()
        local seen = {}
        for _, w in ipairs(written) do
          local data, from, n = w[1], w[2], w[3]
          for i = from, from + n - 1 do
            local u, v = data[12 * (i - 1) + 3], data[12 * (i - 1) + 4]
            if math.abs(v - 52 / 64) < 1e-6 then
              for k = 0, 3 do
                if math.abs(u - 10 * k / 64) < 1e-6 then seen[#seen + 1] = k end
              end
            end
          end
        end
        table.sort(seen)
        return seen
      end
      local now = 0
      -- (at 0.3 frame 0, 0.4 frame 1, 0.6 frame 2, 1.3 frame 3: the
      -- bottom-left and bottom-right corners at v2, each written by both
      -- triangles of the bottom-left one: the left corner twice, the right
      -- once, the left's u the frame's)
      for _, tf in ipairs { { 0.3, 0 }, { 0.4, 1 }, { 0.6, 2 }, { 1.3, 3 } } do
        a:update(tf[1] - now)
        now = tf[1]
        written = {}
        draw2d.draw(a, images)
        assert.are.same({ tf[2], tf[2] }, frames_seen(), "at " .. tf[1])
      end
      -- (the frames changing as it draws: 1.3 s to 1.8 s, once then pingpong)
      recording = false
      local grew = H.without_jit(function()
        collectgarbage("collect")
        collectgarbage("stop")
        for _ = 1, 10 do a:update(1 / 120); draw2d.draw(a, images) end
        local kb = collectgarbage("count")
        for _ = 1, 50 do a:update(1 / 120); draw2d.draw(a, images) end
        local d = collectgarbage("count") - kb
        collectgarbage("restart")
        return d
      end)
      assert.are.equal(0, grew)
    end)
  end)
end)

describe("Spine sequences: bad input", function()
  local ATLAS = "p.png\nsize: 64, 64\nfx1\n bounds: 0, 0, 8, 8\nfx2\n bounds: 8, 0, 8, 8\nfx3\n bounds: 16, 0, 8, 8\n"
  local function doc(keys, att)
    return require("cjson").encode { skeleton = { spine = "4.2.43" }, bones = { { name = "root" } },
      slots = { { name = "s", bone = "root", attachment = "fx" } },
      skins = { { name = "default", attachments = { s = { fx = att or { width = 8, height = 8,
        sequence = { count = 3 } } } } } },
      animations = { run = { attachments = { default = { s = { fx = { sequence = keys } } } } } } }
  end
  local P = "animations.run.attachments.default.s.fx.sequence"
  local function warns(keys, want, att, atlas)
    if atlas == nil then atlas = ATLAS end
    local r = assert(spine.decode_text(doc(keys, att), "seq.json", atlas or nil, "seq.atlas"))
    local got = {}
    for _, w in ipairs(r.warnings) do got[#got + 1] = { animation = w.animation, path = w.path, message = w.message } end
    assert.are.same(want, got)
    return r
  end

  it("an unknown mode, a negative delay, an index out of range: the timeline left out, named", function()
    local r = warns({ { mode = "lop" } }, { { animation = "run", path = P .. "[1].mode", message = "unknown sequence"
      .. " mode 'lop'; did you mean 'loop'? (expected hold, once, loop, pingpong, onceReverse, loopReverse,"
      .. " pingpongReverse): left out" } })
    assert.are.same({}, r.clips.run:properties()) -- (the rest plays)
    warns({ { mode = "loop", delay = -0.1 } }, { { animation = "run", path = P .. "[1].delay",
      message = "delay must be >= 0 (seconds a frame), got -0.1: left out" } })
    warns({ { time = 0.5 }, { time = 1, index = 3 } }, { { animation = "run", path = P .. "[2].index",
      message = "index must be a whole number from 0 to 2, got 3: left out" } })
    warns({ { index = 0.5 } }, { { animation = "run", path = P .. "[1].index",
      message = "index must be a whole number from 0 to 2, got 0.5: left out" } })
    warns({ { mode = 3 } }, { { animation = "run", path = P .. "[1].mode", message = "sequence mode must be one of"
      .. " hold, once, loop, pingpong, onceReverse, loopReverse, pingpongReverse, got number: left out" } })
    warns({ { time = 1 }, { time = 0.5 } }, { { animation = "run", path = P .. "[2].time",
      message = "keys must be in time order: 0.5 comes after 1: left out" } })
  end)

  it("a timeline of an attachment without a sequence", function()
    warns({ {} }, { { animation = "run", path = P, message = "a sequence timeline of a region attachment without a"
      .. " sequence: left out" } }, { width = 8, height = 8 }, false)
  end)

  it("a frame's region missing from the atlas: named, that frame draws nothing", function()
    local atlas = ATLAS:gsub("fx3\n[^\n]*\n", "")
    local r = warns({ { mode = "loop", delay = 0.5 }, { time = 1.5 } }, { { path = "skins[1].attachments.s.fx.sequence",
      message = "no region 'fx3' in the atlas: frame 2 of the sequence has no image; did you mean 'fx1'?" } }, nil, atlas)
    local a = anim.animator(assert(anim.skeleton2d(r.skeleton)))
    a:play(r.clips.run)
    local c = attach2d.of(a)
    local e = attach2d.lookup(c, nil, "s", "fx")
    a:update(0.75) -- (frame 1)
    assert.are.equal(2, select(2, attach2d.frame(a, e)))
    a:update(0.5) -- (frame 2: no region, no triangles)
    assert.are.equal(2, select(3, a:attachment("s")))
    assert.are.equal(0, select(2, attach2d.frame(a, e)))
  end)

  it("a timeline over anim.limits.keys: not played, said so", function()
    local old = anim.set_limits { keys = 10 }
    local ok, err = pcall(warns, { { mode = "loop", delay = 0.01 }, { time = 1 } }, { { animation = "run", path = P,
      message = "the sequence timeline would make 100 keys or more, more than the 10 the file's clips may still have"
        .. " (anim.limits.keys is 10): not played" } })
    anim.set_limits(old)
    assert(ok, err)
  end)

  it("a sequence's frames count as vertices (anim.limits.vertices)", function()
    local _, err = spine.decode_text(doc({}, { width = 8, height = 8, sequence = { count = 1e9 } }), "seq.json")
    assert.are.equal("seq.json: skins[1].attachments.s.fx.sequence: too many vertices: the attachments' frames would"
      .. " have 3999999996 (at most 1000000, anim.limits.vertices)", err)
  end)

  it("anim.skeleton2d checks a description's sequence", function()
    local function desc(seq)
      return { bones = { { name = "root" } }, slots = { { name = "s", bone = "root" } },
        skins = { { name = "default", attachments = { s = { fx = { type = "region", sequence = seq } } } } } }
    end
    assert(anim.skeleton2d(desc({ count = 2, setup_index = 1 })))
    local _, err = anim.skeleton2d(desc({ count = 0 }), "k")
    assert.are.equal("k: skins[1].attachments.s.fx.sequence.count: count must be a whole number from 1 to 1000000"
      .. " (anim.limits.vertices), got 0", err)
    _, err = anim.skeleton2d(desc({ count = 2, setup_index = 2 }), "k")
    assert.are.equal("k: skins[1].attachments.s.fx.sequence.setup_index: setup_index must be a whole number from 0"
      .. " to 1, got 2", err)
  end)
end)
