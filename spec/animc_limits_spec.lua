-- A .animc's table against the limits a file's table is held to (issue
-- 41: the load walks it no more when the decoding found it within them):
-- a string, a key or a nesting beyond anim.limits refused as a .anim's is,
-- naming the place.
local anim = require "anim"
local H = require "spec.helper"
local core = require "anim.core"

local dir = H.tmpdir()

-- A compressed clip whose event carries payload, saved; its path.
local function saved(payload, name)
  local c = assert(anim.clip({ version = 3, length = 1, skeleton = { a = {} },
    joints = { a = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } } },
    events = { { time = 0.5, name = "hit", payload = payload } } }, name))
  local path = dir .. "/" .. name .. ".animc"
  assert(anim.save(assert(anim.compress(c)), path))
  return path
end

local function deep(n)
  local t = 1
  for _ = 1, n do t = { t } end
  return t
end

describe(".animc and the limits", function()
  local before
  before_each(function() before = anim.set_limits {} end)
  after_each(function() anim.set_limits(before) end)

  it("the decoding tells the longest string or key and the deepest table", function()
    local path = saved({ s = string.rep("x", 100), [string.rep("k", 120)] = 1, d = deep(6) }, "told")
    local _, _, _, _, longest, deepest = core.animc_read(H.read(path))
    assert.are.equal(120, longest)
    -- the top, events, the event, its payload, d and its 6 levels
    assert.are.equal(10, deepest)
  end)

  it("refuses a string over anim.limits.strings, naming it", function()
    local path = saved({ s = string.rep("x", 100) }, "long")
    assert(anim.load(path))
    anim.set_limits { strings = 99 }
    local c, err = anim.load(path)
    assert.is_nil(c)
    assert.are.equal(path .. ": events[1].payload.s: string too long (100 bytes; at most 99, anim.limits.strings)", err)
    anim.set_limits { strings = 100 }
    assert(anim.load(path))
  end)

  it("refuses a key over anim.limits.strings, naming its table", function()
    local path = saved({ [string.rep("k", 120)] = 1 }, "key")
    anim.set_limits { strings = 119 }
    local c, err = anim.load(path)
    assert.is_nil(c)
    assert.are.equal(path .. ": events[1].payload: key too long (120 bytes; at most 119, anim.limits.strings)", err)
  end)

  it("refuses a table nested beyond anim.limits.depth, naming it", function()
    local path = saved({ d = deep(6) }, "deep")
    anim.set_limits { depth = 10 }
    assert(anim.load(path))
    anim.set_limits { depth = 9 }
    local c, err = anim.load(path)
    assert.is_nil(c)
    assert.are.equal(path .. ": events[1].payload.d[1][1][1][1][1]: nested deeper than 9 levels (anim.limits.depth)", err)
  end)
end)
