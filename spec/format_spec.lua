-- spec/format_spec.lua: the reader checks plain keys inline (fast) and any
-- other key field by field (format.lua, read_keys and read_key); for a
-- decoded file the inline checks run in C first (core.key_scanner), whose
-- keys reach the core in key blocks and whose lists the tree check leaves
-- out.  All three must give the same clip for the same keys, bit for bit
-- (the core's times, values, key bytes, handles and tangents, and what the
-- clip encodes to), and the same message for the same mistake: random
-- channels, well formed and not, the conformance clips and a channel of
-- every kind the loading benchmark writes, read the three ways.
local anim = require "anim"
local cjson = require "cjson"
local core = require "anim.core"
local compat = require "anim.base.compat"
local format = require "anim.format.read"
local H = require "spec.helper"

-- the chance of each kind of mistake is multiplied by `bad` (0: a clean
-- channel that must read)
local bad = 1

local INTERPS = { "linear", "step", "bezier", "catmullrom", "sine", "back", "elastic", "bogus", 7, false }

local function rnd_number(r)
  local x = r()
  if x < 0.03 * bad then return "1" end
  if x < 0.05 * bad then return 7.25e300 end   -- written as 1e999 (inf) below
  if x < 0.06 * bad then return -7.25e300 end
  return math.floor((r() * 20 - 10) * 1000) / 1000
end

local function rnd_vec(r, n)
  local v = {}
  for i = 1, n do v[i] = rnd_number(r) end
  if r() < 0.03 * bad then v[#v + 1] = 1 end
  if r() < 0.02 * bad then v.x = 1 end
  if r() < 0.02 * bad then v = { 0, 0, 0, 0 } end
  return v
end

local function rnd_handle(r)
  local x = r()
  if x < 0.5 then return { r() * 0.1, rnd_number(r) } end
  if x < 0.9 then return { r() * 0.1, rnd_vec(r, 3) } end
  if x < 0.9 + 0.05 * bad then return { 1 } end
  if bad > 0 then return "h" end
  return { 0.1, 1 }
end

local function rnd_extra(r, arity)
  local e = {}
  if r() < 0.4 then e.ease = ({ "in", "out", "inOut", "sideways", 3 })[math.floor(r() * (bad > 0 and 5 or 3)) + 1] end
  if r() < 0.4 then e.out = rnd_handle(r) end
  if r() < 0.4 then e["in"] = rnd_handle(r) end
  if r() < 0.15 then e.in_tangent = rnd_vec(r, arity) end
  if r() < 0.15 then e.out_tangent = rnd_vec(r, arity) end
  if r() < 0.3 then e.type = "breakdown"; e.left = "auto" end
  -- what the tree check looks at: a string over the limit (16 bytes in
  -- some runs), a number that is not finite, a table, a null
  if r() < 0.05 * bad then e.right = "autoClampedAutoClamped" end
  if r() < 0.03 * bad then e.weight = 7.25e300 end
  if r() < 0.05 then e.editor = { tags = { "a", r() < 0.5 * bad and 7.25e300 or 1 } } end
  if r() < 0.05 then e[({ "ease", "in", "out", "in_tangent", "locked" })[math.floor(r() * 5) + 1]] = cjson.null end
  if r() < 0.03 * bad then return { 1, 2 } end
  if r() < 0.02 * bad then return "extra" end
  if r() < 0.02 * bad then e = {} end
  return e
end

local function rnd_channel(r, n, arity)
  local keys, t = {}, 0
  for i = 1, n do
    t = t + math.floor(r() * 100) / 1000
    if r() < 0.02 * bad then t = t - 0.5 end
    local k = { r() < 0.03 * bad and "t" or t, rnd_vec(r, arity) }
    if r() < 0.5 then k[3] = INTERPS[math.floor(r() * (bad > 0 and #INTERPS or 7)) + 1] end
    if r() < 0.5 then k[3] = k[3] or "linear"; k[4] = rnd_extra(r, arity) end
    if r() < 0.02 * bad then k[3] = cjson.null end
    if r() < 0.01 * bad then k = { t } end
    if r() < 0.01 * bad then k = 5 end
    keys[i] = k
  end
  return keys
end

-- A deterministic generator (the specs are repeatable).
local function lcg(seed)
  local s = seed
  return function()
    s = (s * 1103515245 + 12345) % 2147483648
    return s / 2147483648
  end
end

-- The three readers: the scanner in C, the inline checks in Lua, the
-- general reader.
local MODES = {
  { name = "scanner", scan = true, plain = true },
  { name = "inline checks", scan = false, plain = true },
  { name = "general reader", scan = false, plain = false },
}
local function read_modes(text)
  local out = {}
  for i, m in ipairs(MODES) do
    format.scan_keys, format.plain_keys = m.scan, m.plain
    local c, err = anim.decode(text, "c")
    out[i] = { clip = c, err = err }
  end
  format.scan_keys, format.plain_keys = true, true
  return out
end

-- What the core holds of each channel of clip c (core.clip_keys: times,
-- values, key bytes, handle records, arity, tangents), and what it
-- encodes to.
local function contents(c)
  local out = { joints = c:joints(), encoded = anim.encode(c) }
  for j = 1, #out.joints do
    for ch = 0, 2 do out[j .. ":" .. ch] = { core.clip_keys(c, j, ch) } end
  end
  return out
end

-- Reads text the three ways: the same message (false), or the same clip
-- (the clips read).
local function same_three_ways(text)
  local r = read_modes(text)
  for i = 2, #r do
    assert.are.equal(r[1].err, r[i].err, MODES[i].name .. ": " .. text)
  end
  if not r[1].clip then return false end
  local c1 = contents(r[1].clip)
  for i = 2, #r do
    local d = H.bitdiff(c1, contents(r[i].clip), "clip")
    assert(d == nil, MODES[1].name .. " and " .. MODES[i].name .. " differ at " .. tostring(d) .. " for " .. text)
  end
  return r
end

describe("the key reader", function()
  after_each(function() format.plain_keys, format.scan_keys = true, true end)

  it("gives the same clip and the same messages with and without its inline checks", function()
    local same_clip, same_msg = 0, 0
    local strings = anim.limits.strings
    for seed = 1, 400 do
      local r = lcg(seed)
      bad = seed % 2
      local rot = r() < 0.5 and 4 or 3
      local doc = { length = 2, joints = { j = {
        position = rnd_channel(r, 1 + math.floor(r() * 6), 3),
        rotation = rnd_channel(r, 1 + math.floor(r() * 6), rot),
      } } }
      local text = cjson.encode(doc):gsub("7%.25e%+300", "1e999")
      -- some runs with short strings: the tree check's messages
      local read = H.with_limits({ strings = seed % 5 == 0 and 16 or strings }, function() return same_three_ways(text) end)
      if read then
        same_clip = same_clip + 1
        for i = 0, 20 do
          assert.are.same(read[3].clip:sample(i / 10), read[1].clip:sample(i / 10), text)
        end
      else
        same_msg = same_msg + 1
      end
    end
    -- both kinds are exercised
    assert.is_true(same_clip > 40, same_clip .. " clips")
    assert.is_true(same_msg > 40, same_msg .. " messages")
  end)

  it("reads the conformance clips the same three ways", function()
    local dir = H.shared .. "/conformance"
    local files = H.ls(dir, "%.json$")
    assert.is_true(#files >= 3, "expected the conformance files in " .. dir)
    local n = 0
    for _, file in ipairs(files) do
      for _, case in ipairs(cjson.decode(H.read(dir .. "/" .. file)).cases) do
        if case.clip.joints then
          assert.is_truthy(same_three_ways(cjson.encode(case.clip)), case.id)
          n = n + 1
        end
      end
    end
    assert.is_true(n >= 10, n .. " clips")
  end)

  -- a channel of every kind of key bench/load.lua writes: every
  -- interpolation and ease, handles with one and three numbers, editor
  -- extras, and tangents
  local function bench_channel(quat)
    local keys = {}
    local interps = format.INTERPS
    for i = 1, 4 * #interps do
      local interp = interps[(i - 1) % #interps + 1]
      local v = quat and { 0.5, -0.5, 0.5, i % 3 == 0 and -0.5 or 0.5 } or { i / 7, -i / 3, 0.25 }
      local k = { (i - 1) / 8, v }
      local e = {}
      if i % 5 ~= 0 then k[3] = interp end
      if interp == "bezier" then
        e.out = { 0.01, i % 2 == 0 and 0.5 or { 0.5, -0.25, 1 } }
        e["in"] = { -0.02, -1.5 }
        if i % 3 == 0 then e.left, e.right = "autoClamped", "free" end
      elseif interp == "cubicspline" then
        e.in_tangent = { 1, 2, 3, quat and 4 or nil }
        if i % 2 == 0 then e.out_tangent = { -1, -2, -3, quat and -4 or nil } end
      elseif format.is_easing(format.interp_code(interp)) then
        e.ease = ({ false, "in", "out", "inOut" })[math.floor(i / #interps) % 4 + 1] or nil
      end
      if i % 7 == 0 then e.type = "breakdown" end
      if next(e) then k[3] = k[3] or "linear"; k[4] = e end
      keys[i] = k
    end
    return keys
  end

  it("takes every key of the loading benchmark's kinds in C, and reads them as the inline checks do", function()
    for _, quat in ipairs({ false, true }) do
      local list = cjson.decode(cjson.encode(bench_channel(quat)))
      local ch = { t = {}, vals = {}, ie = {} }
      local nxt, prev, checked = format.scanner(list, #list, ch, true, 65536, 128, 4)
      assert.are.equal(#list + 1, nxt)
      assert.are.equal(list[#list][1], prev)
      assert.is_true(checked)
      assert.are.equal(quat, ch.quat)
      assert.are.equal("userdata", type(ch.block))
      assert.is_truthy(ch.h)
      assert.is_truthy(ch.tan)
      assert.is_truthy(ch.keep)
      local doc = { joints = { a = { position = bench_channel(false), rotation = bench_channel(quat),
        scale = bench_channel(false) } } }
      assert.is_truthy(same_three_ways(cjson.encode(doc)))
    end
  end)

  it("hands the first key it does not take to the Lua reader, the keys before it in tables", function()
    local list = cjson.decode('[[0,[1,2,3]],[0.5,[1,2,3],"sine",{"ease":null}],[1,[4,5,6]]]')
    local ch = { t = {}, vals = {}, ie = {} }
    local nxt, prev, checked = format.scanner(list, #list, ch, false, 65536, 128, 4)
    assert.are.equal(2, nxt)
    assert.are.equal(0, prev)
    assert.is_false(checked)
    assert.is_nil(ch.block)
    assert.are.equal(1, #ch.t)
    assert.are.equal(list[1][2], ch.vals[1])
    assert.is_truthy(same_three_ways('{"joints":{"a":{"position":' .. cjson.encode(list) .. '}}}'))
  end)

  it("leaves a list out of the tree check only when it found nothing there", function()
    local text = '{"joints":{"a":{"position":[[0,[1,2,3],"linear",{"type":"breakdown-breakdown"}],[1,[4,5,6]]]}}}'
    local list = cjson.decode(text).joints.a.position
    local _, _, checked = format.scanner(list, #list, { t = {}, vals = {}, ie = {} }, false, 16, 128, 4)
    assert.is_false(checked)
    local r = H.with_limits({ strings = 16 }, function() return read_modes(text) end)
    for i = 1, #r do
      assert.is_nil(r[i].clip)
      assert.are.equal("c: joints.a.position[1][4].type: string too long (19 bytes; at most 16, anim.limits.strings)",
        r[i].err)
    end
    -- nested deeper than the list's keys may be for the check to be left
    -- out: the tree check looks
    local _, _, deep = format.scanner(cjson.decode("[[0,[1,2,3]]]"), 1, { t = {}, vals = {}, ie = {} }, false,
      65536, 7, 4)
    assert.is_false(deep)
    if compat.integers then
      -- an integer beyond 2^53 (a table from Lua): not taken
      local n = format.scanner({ { 9007199254740993, { 1, 2, 3 } } }, 1, { t = {}, vals = {}, ie = {} }, false,
        65536, 128, 4)
      assert.are.equal(1, n)
    end
  end)
end)
