-- spec/format_spec.lua: one reader of a channel's keys, the C scanner
-- (core.key_scanner), takes every plain key, of a decoded file or of a
-- table from Lua; the checker (read_keys.lua's read_key) reads any key
-- the scanner does not take, and names what is wrong.  The two must agree:
-- every key the scanner refuses, the checker explains with its message (or
-- takes, kept whole), and keys the checker reads give the same clip, bit
-- for bit (the core's times, values, key bytes, handles and tangents, and
-- what the clip encodes to), as the scanner gives: random channels, well
-- formed and not, the conformance clips and a channel of every kind the
-- loading benchmark writes, read by anim.decode and by the checker alone.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local cjson = require "cjson"
local core = require "anim.core"
local compat = require "anim.base.compat"
local codes = require "anim.base.codes"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local format = require "anim.format.read"
local K = require "anim.format.read_keys"
local keyset = require "anim.format.keys"
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
  if x < 0.4 then return { r() * 0.1, rnd_number(r) } end
  if x < 0.7 then return { r() * 0.1, rnd_vec(r, 3) } end
  -- a time per axis: different, or one (written three times, -0 too)
  if x < 0.8 then return { rnd_vec(r, 3), r() < 0.5 and rnd_number(r) or rnd_vec(r, 3) } end
  if x < 0.85 then local dt = r() < 0.5 and -0.0 or r() * 0.1; return { { dt, dt, dt }, rnd_number(r) } end
  if x < 0.9 then return { { 0.0, -0.0, 0.0 }, rnd_vec(r, 3) } end
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

local CHANNELS = { "position", "rotation", "scale" }
local FIELD = { position = "pos", scale = "scl" }

-- Every key of every channel of the decoded tree read by the checker
-- alone, in the order the reader reads them (joints by name; position,
-- rotation, scale), then the tree check over the whole tree (nothing left
-- out): { { joint index, channel name, channel read } ...}, or a failure.
local function check_all(tree)
  local names = {}
  for name in pairs(tree.joints) do names[#names + 1] = name end
  table.sort(names)
  local out = {}
  for ji, name in ipairs(names) do
    for _, chname in ipairs(CHANNELS) do
      local list = tree.joints[name][chname]
      if list ~= nil then
        local ch, prev = { t = {}, vals = {}, ie = {} }, nil
        local path = E.key(E.key("joints", name), chname)
        for n = 1, #list do prev = K.read_key(ch, n, list[n], path, chname, prev) end
        out[#out + 1] = { ji, chname, ch }
      end
    end
  end
  json.check(tree)
  return out
end

-- What the core holds of a channel, every number a float: from the clip
-- (core.clip_keys), or from a channel the checker read.
local function floats(t)
  local out = {}
  for k, x in pairs(t) do
    if type(x) == "table" then out[k] = floats(x) else out[k] = x + 0.0 end
  end
  return out
end
local function core_channel(clip, ji, slot)
  local t, v, ie, h, arity, tan = core.clip_keys(clip, ji, slot)
  return floats({ t = t, v = v, ie = ie, h = h or {}, arity = arity, tan = tan or {} })
end
-- (a channel where some key's handle has a time per axis keeps every
-- record so, csrc/core/curve.h: the checker's records of one time a
-- handle widened as the core widens them)
local function checker_records(h)
  local wide = false
  for _, r in pairs(h) do wide = wide or #r == 13 end
  if not wide then return h end
  local out = {}
  for k, r in pairs(h) do
    out[k] = #r == 13 and r or { r[1], r[1], r[1], r[2], r[2], r[2], compat.unpack(r, 3, 9) }
  end
  return out
end
local function checker_channel(ch)
  local v, arity = {}, #ch.vals[1]
  for i, val in ipairs(ch.vals) do
    for a = 1, arity do v[(i - 1) * arity + a] = val[a] end
  end
  return floats({ t = ch.t, v = v, ie = ch.ie, h = checker_records(ch.h or {}), arity = arity, tan = ch.tan or {} })
end

-- The checker's channels (check_all) against the numbers of clip c.
local function same_numbers(c, chans, what)
  for _, r in ipairs(chans) do
    local ji, chname, ch = r[1], r[2], r[3]
    if #ch.t > 0 then
      local d = H.bitdiff(core_channel(c, ji, codes.slot[chname]), checker_channel(ch), chname)
      assert(d == nil, "the scanner and the checker differ at " .. tostring(d) .. " for " .. what)
    end
  end
end

-- The clip of the checker's channels: the reader's description with
-- every channel replaced by the checker's (for clips without modifiers).
local function checker_clip(text, chans)
  local desc, info = format.read(json.decode(text), true)
  for _, r in ipairs(chans) do
    local ch = r[3]
    if #ch.t > 0 then desc.joints[r[1]][FIELD[r[2]] or (ch.quat and "qrot" or "rot")] = K.channel_desc(ch) end
  end
  return keyset.build(desc, info)
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

-- Reads text with anim.decode (the scanner, and the checker where it
-- stops) and with the checker alone: the same message (false), or clips
-- the same bit for bit (both clips).
local function scanner_and_checker(text, build)
  local c, err = anim.decode(text, "c")
  local chans, cerr = E.catch("c", check_all, json.decode(text))
  if not chans then
    assert.are.equal(cerr, err, text)
    return false
  end
  assert(c, "the checker takes what anim.decode refuses (" .. tostring(err) .. "): " .. text)
  same_numbers(c, chans, text)
  if not build then return c end
  local b = checker_clip(text, chans)
  local d = H.bitdiff(contents(c), contents(b), "clip")
  assert(d == nil, "the scanner and the checker differ at " .. tostring(d) .. " for " .. text)
  return c, b
end

describe("the key reader", function()
  it("gives the clip and the messages the checker alone gives", function()
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
      local c, b = H.with_limits({ strings = seed % 5 == 0 and 16 or strings },
        function() return scanner_and_checker(text, true) end)
      if c then
        same_clip = same_clip + 1
        for i = 0, 20 do
          assert.are.same(b:sample(i / 10), c:sample(i / 10), text)
        end
      else
        same_msg = same_msg + 1
      end
    end
    -- both kinds are exercised
    assert.is_true(same_clip > 40, same_clip .. " clips")
    assert.is_true(same_msg > 40, same_msg .. " messages")
  end)

  it("gives the conformance clips the numbers the checker reads", function()
    local dir = H.shared .. "/conformance"
    local files = H.ls(dir, "%.json$")
    assert.is_true(#files >= 3, "expected the conformance files in " .. dir)
    local n = 0
    for _, file in ipairs(files) do
      for _, case in ipairs(cjson.decode(H.read(dir .. "/" .. file)).cases) do
        if case.clip.joints then
          assert.is_truthy(scanner_and_checker(cjson.encode(case.clip)), case.id)
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
    local list = {}
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
      list[i] = k
    end
    return list
  end

  it("takes every key of the loading benchmark's kinds in C, and reads them as the checker does", function()
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
      assert.is_truthy(scanner_and_checker(cjson.encode(doc), true))
    end
  end)

  it("hands the first key it does not take to the checker, and takes over again after it", function()
    local text = '[[0,[1,2,3]],[0.5,[1,2,3],"sine",{"ease":null}],[1,[4,5,6]],[2,[7,8,9],"step"]]'
    local list = cjson.decode(text)
    local ch = { t = {}, vals = {}, ie = {} }
    local nxt, prev, checked = format.scanner(list, #list, ch, false, 65536, 128, 4)
    assert.are.equal(2, nxt)
    assert.are.equal(0, prev)
    assert.is_false(checked)
    assert.is_nil(ch.block)
    assert.are.equal(1, #ch.t)
    assert.are.equal(list[1][2], ch.vals[1])
    -- the checker takes key 2 (its null kept whole), the scanner the rest,
    -- into the channel's tables (no key block after a refused key)
    prev = K.read_key(ch, 2, list[2], "p", "position", prev)
    assert.are.equal(list[2], ch.whole[2])
    nxt, prev, checked = format.scanner(list, #list, ch, false, 65536, 128, 4, 3, prev)
    assert.are.equal(5, nxt)
    assert.are.equal(2, prev)
    assert.is_false(checked)
    assert.is_nil(ch.block)
    assert.are.same({ 0, 0.5, 1, 2 }, ch.t)
    assert.are.equal(list[4][2], ch.vals[4])
    assert.are.equal(codes.interp.step + format.HAS_INTERP, ch.ie[4])
    -- a time before the checker's key: not taken
    nxt = format.scanner(list, #list, { t = {}, vals = {}, ie = {} }, false, 65536, 128, 4, 3, 1.5)
    assert.are.equal(3, nxt)
    -- (what it is given is checked: a time, a channel's tables)
    local ok, err = pcall(format.scanner, list, #list, ch, false, 65536, 128, 4, 3, "1")
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #9 to '[^']+' %(number expected, got string%)"), err)
    ok, err = pcall(format.scanner, list, #list, {}, false, 65536, 128, 4, 3, 1)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("scan: a channel of read_keys expected", 1, true), err)
    assert.is_truthy(scanner_and_checker('{"joints":{"a":{"position":' .. text .. '}}}', true))
  end)

  it("reads alternating plain and checked keys in linear work", function()
    -- the memory a read allocates (the collector stopped) grows as the
    -- keys: no key block, nor any copy of the keys before, per call
    local function allocated(n)
      local parts = {}
      for i = 1, n do parts[i] = string.format(i % 2 == 1 and "[%d,[1,2,3]]" or "[%d,[1,2,3],null]", i) end
      local text = '{"joints":{"a":{"position":[' .. table.concat(parts, ",") .. ']}}}'
      collectgarbage()
      collectgarbage("stop")
      local before = collectgarbage("count")
      local c = anim.decode(text, "x")
      local kb = collectgarbage("count") - before
      collectgarbage("restart")
      assert.is_truthy(c)
      return kb
    end
    local small, large = allocated(500), allocated(2000)
    assert.is_true(large < 4.6 * small, string.format("%.0f KB for 500 keys, %.0f KB for 2000", small, large))
    -- and the scanner reads each key of the list once (a list read
    -- through __index, with __len: 5.2 on)
    if #setmetatable({}, { __len = function() return 1 end }) == 1 then
      local reads, n = 0, 2000
      local list = setmetatable({}, {
        __len = function() return n end,
        __index = function(_, i)
          reads = reads + 1
          return i % 2 == 1 and { i, { 1, 2, 3 } } or { i, { 1, 2, 3 }, json.null }
        end })
      local ch = K.read_keys(list, "p", "position", 4)
      assert.are.equal(n, #ch.t)
      assert.is_true(reads <= 2 * n, reads .. " reads of " .. n .. " keys")
    end
  end)

  it("reads a table from Lua as the reader always did: metatables through # and indexing, big integers", function()
    local function build(t)
      local desc, info = format.read(t)
      return keyset.build(desc, info)
    end
    local MT = {}
    local odd = { joints = { a = { position = setmetatable({
      setmetatable({ 0, { 1, 2, 3 } }, MT),
      setmetatable({ 0.5, setmetatable({ 4, 5, 6 }, MT) }, { __index = { [3] = "step" } }),
      { 1, { 7, 8, 9 }, "bezier", setmetatable({ out = { 0.1, 2 }, type = "breakdown" }, { __index = { ease = "out" } }) },
    }, MT) } } }
    local plain = { joints = { a = { position = {
      { 0, { 1, 2, 3 } }, { 0.5, { 4, 5, 6 }, "step" },
      { 1, { 7, 8, 9 }, "bezier", { out = { 0.1, 2 }, type = "breakdown", ease = "out" } } } } } }
    local c = build(odd)
    assert.is_nil(H.bitdiff({ core.clip_keys(build(plain), 1, 0) }, { core.clip_keys(c, 1, 0) }))
    -- taken as plain keys: none kept whole (the extra with more than the
    -- core keeps is kept, as it is)
    local placeholder = rawget(core.clip_info(c), "tree").joints.a.position
    assert.is_false(placeholder[2])
    assert.are.equal('[1, [7, 8, 9], "bezier", { "type": "breakdown", "out": [0.1, 2] }]',
      anim.encode(c):match('%[1, %[7.-}%]'))
    if compat.integers then
      -- beyond 2^53: a time kept whole, as written; a tangent made a double
      c = assert(anim.clip({ joints = { a = { position = {
        { 0, { 1, 2, 3 }, "cubicspline", { in_tangent = { 9007199254740993, 0, 0 } } },
        { 9007199254740993, { 1, 2, 3 } } } } } }))
      local text = anim.encode(c)
      assert.matches('"in_tangent": %[9007199254740992, 0, 0%]', text)
      assert.matches('%[9007199254740993, %[1, 2, 3%]%]', text)
    end
  end)

  it("leaves a list out of the tree check only when it found nothing there", function()
    local text = '{"joints":{"a":{"position":[[0,[1,2,3],"linear",{"type":"breakdown-breakdown"}],[1,[4,5,6]]]}}}'
    local list = cjson.decode(text).joints.a.position
    local _, _, checked = format.scanner(list, #list, { t = {}, vals = {}, ie = {} }, false, 16, 128, 4)
    assert.is_false(checked)
    local c, err = H.with_limits({ strings = 16 }, function() return anim.decode(text, "c") end)
    assert.is_nil(c)
    assert.are.equal("c: joints.a.position[1][4].type: string too long (19 bytes; at most 16, anim.limits.strings)", err)
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
