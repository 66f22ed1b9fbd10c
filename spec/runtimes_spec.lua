-- What the runtimes do differently (docs/runtimes.md), checked on the one
-- the suite runs under: each case states what that runtime does.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"
local core = require "anim.core"

local rig = anim.rig("player")

-- a clip firing one event (payload) and one marker (value) at 0
local function items_clip(payload, value)
  return assert(anim.clip({ joints = {}, length = 1, events = { { time = 0, name = "e", payload = payload } },
    markers = { { time = 0, name = "m", value = value } } }, "items"))
end

describe("runtimes", function()
  it("compat tells the runtime as the interpreter is", function()
    local want = { lua5_1 = 501, lua5_2 = 502, lua5_3 = 503, lua5_4 = 504, luajit = 501 }
    assert.are.equal(want[H.lua:gsub("%.", "_")], compat.version)
    assert.are.equal(H.lua == "luajit", compat.jit)
    assert.are.equal(compat.version >= 503, compat.integers)
  end)

  it("integers: a file's 12 is the integer 12 on 5.3+, the number 12 before (no 12.0 of its own)", function()
    local c = assert(anim.decode('{"joints": {}, "length": 1, "events": [{"time": 0, "name": "e", "payload": {"n": 12}}]}', "p"))
    local a = anim.animator(rig)
    local got
    a:on_event(function(_, _, p) got = p.n end)
    a:play(c, { fade = 0 })
    a:update(0.1)
    assert.are.equal(12, got)
    if compat.integers then
      assert.are.equal("integer", math.type(got))
      assert.are.equal("12", tostring(got))
    else
      -- 12 and 12.0 are one value; math.type does not exist
      assert.is_nil(rawget(math, "type"))
      assert.are.equal("float", compat.mtype(got))
      assert.are.equal("12", tostring(12.0))
    end
  end)

  it("integers: a script's 12.0 stays a float on 5.3+, is 12 before", function()
    local c = items_clip({ f = 12.0 }, 2.0)
    assert.are.equal(12, c:events()[1].payload.f)
    if compat.integers then assert.are.equal("float", math.type(c:markers()[1].value)) end
    assert.are.equal(compat.integers and "2.0" or "2", tostring(c:markers()[1].value))
  end)

  -- (by: the animator's callback, or the track's: the lone marker of the
  -- update, which C delivers by itself where nothing can yield)
  for _, by in ipairs { "animator", "track" } do
    it("a callback that yields inside a coroutine: the same error everywhere; on 5.1 the yield itself fails (the "
      .. by .. "'s callback)", function()
      local a = anim.animator(rig)
      local tr = a:play(items_clip(1, 1), { fade = 0 })
      local caught, after = nil, false
      local function cb()
        caught = { pcall(coroutine.yield, "x") }
        after = true
      end
      if by == "animator" then a:on_marker(cb) else tr:on_marker("m", cb) end
      local co = coroutine.create(function() return a:update(0.1) end)
      local ok, err = coroutine.resume(co)
      if compat.pcall_yields then
        -- 5.2+, LuaJIT: the callback runs in a coroutine of its own; its
        -- yield suspends it (across its pcall), and it is dropped
        assert.is_false(ok)
        assert.truthy(err:find("^a callback cannot yield %(animator:update delivers callbacks and cannot be suspended%)"), err)
        assert.is_nil(caught)
        assert.is_false(after)
      else
        -- 5.1: nothing under the delivering pcall can yield: the yield fails
        -- where it is, the callback's pcall catches it, and it goes on
        assert.is_true(ok, err)
        assert.is_false(caught[1])
        assert.truthy(caught[2]:find("attempt to yield across metamethod/C-call boundary", 1, true), caught[2])
        assert.is_true(after)
      end
    end)
  end

  it("a callback that yields uncaught on 5.1: the module's message, then 5.1's", function()
    local a = anim.animator(rig)
    a:play(items_clip(1, 1), { fade = 0 })
    a:on_marker(function() coroutine.yield("x") end)
    local co = coroutine.create(function() return a:update(0.1) end)
    local ok, err = coroutine.resume(co)
    assert.is_false(ok)
    assert.truthy(err:find("^a callback cannot yield %(animator:update delivers callbacks and cannot be suspended%)"), err)
    if not compat.pcall_yields then
      assert.truthy(err:find("attempt to yield across metamethod/C-call boundary", 1, true), err)
    end
  end)

  it("__gc: a table's finalizer runs on 5.2+, only a userdata's on 5.1 and LuaJIT", function()
    local ran_table, ran_proxy = false, false
    setmetatable({}, { __gc = function() ran_table = true end })
    if not H.table_gc then
      local p = newproxy(true) -- luacheck: ignore 113
      getmetatable(p).__gc = function() ran_proxy = true end
      p = nil -- luacheck: ignore 311
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal(H.table_gc, ran_table)
    assert.are.equal(not H.table_gc, ran_proxy)
    -- the module's objects are userdata: finalized everywhere
    assert.are.equal("userdata", type(anim.animator(rig)))
  end)

  it("__gc: a track the collector finalizes after its animator raises nothing; by hand, a finalized one raises", function()
    for _ = 1, 20 do
      local a = anim.animator(rig)
      a:play(items_clip(1, 1), { fade = 0 })
      a:update(0.1)
    end
    -- (5.1 to 5.3 and LuaJIT would raise an error of a finalizer here)
    assert.is_true(pcall(function() collectgarbage(); collectgarbage() end))
    local a = anim.animator(rig)
    local tr = a:play(items_clip(1, 1))
    local gc = debug.getmetatable(tr).__gc
    gc(tr)
    assert.has_error(function() gc(tr) end, "anim.track used after it was finalized (garbage collected, or its __gc called by hand)")
  end)

  it("collectgarbage('generational') is 5.4's (5.2's experimental mode aside); the module plays under either mode", function()
    local ok = pcall(collectgarbage, "generational")
    if compat.version == 504 or compat.version == 502 then
      assert.is_true(ok)
      collectgarbage("incremental")
    else
      assert.is_false(ok)
    end
  end)

  it("__pairs: anim.limits and the codes are walked by pairs on 5.2+; copies everywhere", function()
    local n = 0
    for _ in pairs(anim.limits) do n = n + 1 end
    assert.are.equal(H.meta_pairs and 12 or 0, n)
    local all = anim.set_limits {}
    assert.are.equal(anim.limits.keys, all.keys)
    assert.are.equal(128, all.depth)
    assert.are.equal(core.codes.loop.once, core.codes_copy().loop.once)
  end)

  it("__close: every file of lua/ parses on this runtime (no 5.4 syntax: no <close>, //, bit operators, goto)", function()
    local p = assert(io.popen("cd " .. H.root .. " && find lua bin -type f | sort"))
    local n = 0
    for file in p:lines() do
      assert(loadfile(H.root .. "/" .. file), file)
      n = n + 1
    end
    p:close()
    assert.is_true(n > 40)
    for _, mt in ipairs { debug.getmetatable(anim.animator(rig)), debug.getmetatable(rig) } do
      assert.is_nil(rawget(mt, "__close"))
    end
  end)

  it("compat's functions answer alike everywhere", function()
    assert.are.equal(8, compat.band(12, 10))
    assert.are.equal(6, compat.bxor(12, 10))
    assert.are.equal(4294967294, compat.bxor(0xffffffff, 1))
    assert.are.equal(3, compat.rshift(12, 2))
    assert.are.equal(0x04030201, compat.u32le(compat.pack_u32le(0x04030201), 1))
    assert.is_nil(compat.u32le("abc", 1))
    assert.are.equal(3, compat.utf8_len("aé€"))
    assert.are.same({ nil, 2 }, { compat.utf8_len("a\255") })
    assert.are.equal(5, compat.tointeger(5.0))
    assert.is_nil(compat.tointeger(5.5))
    assert.is_nil(compat.tointeger("5"))
    assert.is_true(compat.execute("true"))
    assert.is_nil(compat.execute("false"))
    assert.are.equal(3, compat.log10(1000))
    assert.is_true(math.abs(compat.atan2(1, -1) - 3 * math.pi / 4) < 1e-15)
    assert.are.equal(7, compat.load("return x + 2", "t", "t", { x = 5 })())
    assert.are.same({ true, 3 }, { compat.xpcall(function(a, b) return a + b end, debug.traceback, 1, 2) })
    local packed = compat.pack(1, nil, 3)
    assert.are.equal(3, packed.n)
    assert.are.equal(3, select("#", compat.unpack(packed, 1, packed.n)))
  end)
  -- (docs/runtimes.md: Debian 12's LuaJIT misses the fix of LuaJIT issue
  -- #827, which made a compiled `for k in next, t` loop start from a wrong
  -- node; the options check of every call ran into it: an option refused
  -- at random, spec/deliver_spec.lua under LuaJIT about one run in ten)
  it("the options check walks its table without LuaJIT's ITERN loop", function()
    if not H.jit then
      pending("LuaJIT's bytecode")
      return
    end
    local ju, names = require "jit.util", require("jit.vmdef").bcnames
    local ops, pc = {}, 1
    while true do
      local ins = ju.funcbc(require("anim.base.args").options, pc)
      if not ins then break end
      local op = names:sub(6 * (ins % 256) + 1, 6 * (ins % 256) + 6):gsub(" +$", "")
      ops[op] = true
      pc = pc + 1
    end
    assert.is_true(ops.TGETV and ops.CALL) -- (the walk read)
    assert.is_nil(ops.ISNEXT)
    assert.is_nil(ops.ITERN)
    assert.is_nil(ops.ITERC)
  end)
end)
