-- spec/format_spec.lua: the reader checks plain keys inline (fast) and any
-- other key field by field (format.lua, read_keys and read_key).  Both must
-- give the same clip for the same keys, and the same message for the same
-- mistake: random channels, well formed and not, read both ways.
local anim = require "anim"
local cjson = require "cjson"
local format = require "anim.format.read"

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

local function rnd_extra(r)
  local e = {}
  if r() < 0.4 then e.ease = ({ "in", "out", "inOut", "sideways", 3 })[math.floor(r() * (bad > 0 and 5 or 3)) + 1] end
  if r() < 0.4 then e.out = rnd_handle(r) end
  if r() < 0.4 then e["in"] = rnd_handle(r) end
  if r() < 0.3 then e.type = "breakdown"; e.left = "auto" end
  if r() < 0.03 * bad then return { 1, 2 } end
  if r() < 0.02 * bad then return "extra" end
  return e
end

local function rnd_channel(r, n, arity)
  local keys, t = {}, 0
  for i = 1, n do
    t = t + math.floor(r() * 100) / 1000
    if r() < 0.02 * bad then t = t - 0.5 end
    local k = { r() < 0.03 * bad and "t" or t, rnd_vec(r, arity) }
    if r() < 0.5 then k[3] = INTERPS[math.floor(r() * (bad > 0 and #INTERPS or 7)) + 1] end
    if r() < 0.5 then k[3] = k[3] or "linear"; k[4] = rnd_extra(r) end
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

local function read_both(text)
  format.plain_keys = true
  local a, ea = anim.decode(text, "c")
  format.plain_keys = false
  local b, eb = anim.decode(text, "c")
  format.plain_keys = true
  return a, ea, b, eb
end

describe("the key reader", function()
  after_each(function() format.plain_keys = true end)

  it("gives the same clip and the same messages with and without its inline checks", function()
    local same_clip, same_msg = 0, 0
    for seed = 1, 400 do
      local r = lcg(seed)
      bad = seed % 2
      local rot = r() < 0.5 and 4 or 3
      local doc = { length = 2, joints = { j = {
        position = rnd_channel(r, 1 + math.floor(r() * 6), 3),
        rotation = rnd_channel(r, 1 + math.floor(r() * 6), rot),
      } } }
      local text = cjson.encode(doc):gsub("7%.25e%+300", "1e999")
      local a, ea, b, eb = read_both(text)
      assert.are.equal(eb, ea, text)
      if a then
        same_clip = same_clip + 1
        for i = 0, 20 do
          assert.are.same(b:sample(i / 10), a:sample(i / 10), text)
        end
      else
        same_msg = same_msg + 1
      end
    end
    -- both kinds are exercised
    assert.is_true(same_clip > 40, same_clip .. " clips")
    assert.is_true(same_msg > 40, same_msg .. " messages")
  end)
end)
