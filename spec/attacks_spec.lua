-- The attack review of issue 19 (docs/robustness.md): scripts and files
-- that made an update or an import quadratic or exponential, or that made
-- memory grow without bound.  Each is done, or refused with a message that
-- names the limit, in well under half a second, and memory stays bounded.
-- (Defect 1, finalizers by hand, is spec/finalized_spec.lua; the XML
-- importer's, spec/xml_spec.lua.)
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

-- seconds of CPU for any one input below (more under the sanitizers and
-- valgrind: H.slowdown)
local BUDGET = H.seconds(0.5)

-- Runs fn, returns its results after checking it took less than BUDGET.
local function quick(what, fn, ...)
  local t0 = os.clock()
  local res = compat.pack(fn(...))
  local took = os.clock() - t0
  assert(took < BUDGET, string.format("%s took %.2f s (budget %.1f s)", what, took, BUDGET))
  return compat.unpack(res, 1, res.n)
end

-- The resident size of this process, in MiB (Linux); 0 when instrumented
-- (ASan keeps what is freed in quarantine, valgrind its own heap).
local function rss()
  if H.instrumented then return 0 end
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmRSS:%s+(%d+)")
    if kb then return tonumber(kb) / 1024 end
  end
end

local function chain_rig(n)
  local joints = {}
  for i = 1, n do joints[i] = { name = "j" .. i, parent = i > 1 and "j" .. (i - 1) or nil } end
  return assert(anim.rig { joints = joints })
end

describe("callbacks that tie (defect 2)", function()
  it("two tracks of 4,000 markers at the same times at speed 1e15: one update sorts them in O(n log n)", function()
    local n = 4000
    local markers = {}
    for i = 1, n do markers[i] = { time = i / n, name = "m", value = tostring(i) } end
    local c = assert(anim.clip { loop = "loop", length = 1, markers = markers, joints = {} })
    local a = anim.animator(anim.rig("player"))
    local first = a:play(c, { speed = 1e15, fade = 0 })
    a:play(c, { speed = 1e15, fade = 0 })
    local got, k = {}, 0
    a:on_marker(function(track, _, value)
      k = k + 1
      got[k] = (track == first and 0 or n) + tonumber(value)
    end)
    -- (504,000 callbacks delivered: 5.1's and 5.2's interpreters take 2 to
    -- 3 times 5.4's time for them, so their budget is 1.5 s; a quadratic
    -- sort of them would take minutes on any)
    if compat.version <= 502 and not compat.jit then
      local t0 = os.clock()
      a:update(1)
      assert.is_true(os.clock() - t0 < H.seconds(1.5), string.format("the update took %.2f s (budget 1.5 s)", os.clock() - t0))
    else
      quick("the update", a.update, a, 1)
    end
    -- 63 whole passes of each track then the partial one, all within
    -- 1e-12 s of each other: one tie, won by the track started first
    local per = 63 * n
    assert.are.equal(2 * per, k)
    local want = {}
    for i = 1, per do want[i] = (i - 1) % n + 1 end
    for i = 1, per do want[per + i] = n + (i - 1) % n + 1 end
    assert.are.same(want, got)
  end)
end)

describe("core memory and Lua's collector (defect 6)", function()
  it("animators of a 4,096-joint rig made and dropped in a loop: resident memory stays bounded", function()
    local r = chain_rig(4096)
    collectgarbage()
    local before, peak = rss(), 0
    local function churn()
      for _ = 1, 300 do
        anim.animator(r) -- 1.6 MB of the core's each, dropped at once
        peak = math.max(peak, rss())
      end
    end
    if H.jit then
      -- LuaJIT's allocator (the core allocates through the state's) maps
      -- and unmaps every block this big, so each animator faults its pages
      -- in again: 5 to 15 times 5.4's time (docs/runtimes.md)
      local t0 = os.clock()
      churn()
      assert.is_true(os.clock() - t0 < H.seconds(3), string.format("300 animators took %.2f s (budget 3 s)", os.clock() - t0))
    else
      quick("300 animators", churn)
    end
    -- (they used to reach 480 MB: the collector saw userdata of 40 bytes)
    assert.is_true(peak - before < 64, string.format("resident memory grew by %.0f MiB", peak - before))
  end)

  it("a host that stopped the collector: the module does not step it", function()
    local r = chain_rig(4096)
    collectgarbage()
    collectgarbage("stop")
    local finalized = false
    H.finalizer(function() finalized = true end)
    for _ = 1, 20 do anim.animator(r) end
    local during = finalized
    collectgarbage("restart")
    -- (5.1 cannot tell the binding whether the collector runs, there is no
    -- LUA_GCISRUNNING: the core's accounting steps it, and a stopped 5.1
    -- collector runs again, docs/runtimes.md)
    assert.are.equal(compat.version == 501 and not compat.jit, during)
    collectgarbage()
    assert.is_true(finalized)
  end)
end)

describe("the list of anim.update (defect 7)", function()
  local rig = anim.rig("player")

  it("a table of keys 1, 2, 4, ... 2^26 (a raw length of 2^26) is refused before anything is grown for it", function()
    -- (made from the largest key down: the keys stay in the hash part, where
    -- the border search doubles its way up to 2^26)
    local list = {}
    for p = 26, 1, -1 do list[compat.tointeger(2 ^ p)] = anim.animator(rig) end
    list[1] = anim.animator(rig)
    assert.are.equal(2 ^ 26, #list)
    collectgarbage()
    local kb, mb = collectgarbage("count"), rss()
    local ok, err = quick("the refusal", pcall, anim.update, list, 0.1)
    assert.is_false(ok)
    assert.are.equal("bad argument #1 to 'update' (animator expected at index 3, got nil)", err:gsub("^.-:%d+: ", ""))
    collectgarbage()
    assert.is_true(collectgarbage("count") - kb < 1024, "the Lua heap grew by " .. (collectgarbage("count") - kb) .. " KiB")
    assert.is_true(rss() - mb < 64, "resident memory grew by " .. (rss() - mb) .. " MiB")
  end)

  it("a key the length leaves out is refused, naming it, not ignored", function()
    local a, b = anim.animator(rig), anim.animator(rig)
    local tr = a:play(assert(anim.clip { length = 1, joints = {} }), { fade = 0 })
    for _, case in ipairs {
      { { [1] = a, [1e9] = b }, "key 1000000000 is not an index from 1 to #list (1)" },
      { { a, b, x = true }, 'key "x" is not an index from 1 to #list (2)' },
      { { a, [2.5] = b }, "key 2.5 is not an index from 1 to #list (1)" },
      { { [2] = a }, "key 2 is not an index from 1 to #list (0)" },
      { { a, [true] = b }, "key true is not an index from 1 to #list (1)" },
    } do
      local ok, err = pcall(anim.update, case[1], 0.25)
      assert.is_false(ok)
      assert.are.equal("bad argument #1 to 'update' (" .. case[2] .. ": a list of animators holds them at 1 to #list"
        .. " and nothing else)", err:gsub("^.-:%d+: ", ""))
    end
    assert.are.equal(0, tr.time) -- nothing was updated
    -- a list built out of order, in a table's hash part, is a list
    anim.update({ [2] = b, [1] = a }, 0.25)
    assert.are.equal(0.25, tr.time)
  end)

  it("the scratch shrinks back once the lists are short again", function()
    local core = require "anim.core"
    local list = {}
    for i = 1, 5000 do list[i] = anim.animator(rig) end
    anim.update(list, 0.1)
    assert.are.equal(8192, core.batch_room())
    anim.update({ list[1] }, 0.1)
    assert.are.equal(64, core.batch_room())
    -- and the table of what is pending, kept for reuse, with it
    collectgarbage()
    local kb = collectgarbage("count")
    anim.update(list, 0.1)
    anim.update({ list[1] }, 0.1)
    collectgarbage()
    assert.is_true(collectgarbage("count") - kb < 64, "kept " .. (collectgarbage("count") - kb) .. " KiB")
  end)
end)

describe("a library's failed loads (defect 8)", function()
  local dir = H.tmpdir()
  os.execute("mkdir -p " .. dir .. "/fx")
  local core = require "anim.core"

  -- counts the paths the library resolves on disk while fn runs
  local function resolved(fn)
    local real, n = core.realpath, 0
    core.realpath = function(...) n = n + 1; return real(...) end
    local ok, err = pcall(fn)
    core.realpath = real
    assert(ok, err)
    return n
  end

  it("are kept: a plays item of a missing clip is not looked for on disk again at every pass", function()
    local lib = assert(anim.library(dir))
    local a = anim.animator(anim.rig("player"), { library = lib })
    local c = assert(anim.clip { loop = "loop", length = 1, joints = {},
      plays = { { time = 0.5, clip = "res://fx/missing.anim" } } })
    a:play(c, { fade = 0, speed = 1e6 })
    local errors = 0
    local n = resolved(function()
      for _ = 1, 10 do
        local ok, err = pcall(a.update, a, 1)
        assert.is_false(ok)
        assert.truthy(err:find("plays 'res://fx/missing.anim': res://fx/missing.anim: cannot open file", 1, true), err)
        errors = errors + 1
      end
    end)
    assert.are.equal(10, errors)
    assert.are.equal(1, n) -- (it was once per pass: 630)
  end)

  it("library:forget(path) reads the file again; library:forget() forgets everything", function()
    local lib = assert(anim.library(dir))
    local path = "res://fx/late.anim"
    local _, err = lib:clip(path)
    assert.are.equal("res://fx/late.anim: cannot open file: No such file or directory", err)
    H.write(dir .. "/fx/late.anim", '{"joints": {}}')
    assert.are.same({ nil, err }, { lib:clip(path) })
    assert.is_true(lib:forget(path))
    local c = assert(lib:clip(path))
    assert.are.equal(c, lib:clip("res://fx/./late.anim"))
    -- forgetting one spelling forgets the file's object under every spelling
    assert.is_true(lib:forget("res://fx/./late.anim"))
    local again = assert(lib:clip(path))
    assert.are_not.equal(c, again)
    assert.is_false(lib:forget("res://fx/never.anim"))
    assert.is_true(lib:forget())
    assert.is_false(lib:forget())
    assert.are_not.equal(again, lib:clip(path))
    assert.has_error(function() lib:forget(1) end, "bad argument #1 to 'forget' (string expected, got number)")
  end)

  it("at most 4,096 are kept: a script asking for ever new paths does not grow the library", function()
    local lib = assert(anim.library(dir))
    for i = 1, 5000 do assert.is_nil(lib:clip("res://fx/none" .. i .. ".anim")) end
    local n = 0
    for _ in pairs(lib.cache.clip.failed) do n = n + 1 end
    assert.are.equal(4096, n)
    -- the oldest went first
    assert.are.equal(1, resolved(function() lib:clip("res://fx/none1.anim") end))
    assert.are.equal(0, resolved(function() lib:clip("res://fx/none5000.anim") end))
  end)
end)

describe("tables given to anim.clip (defect 9)", function()
  it("a table shared at every level of 25 is copied once (it was copied 2^25 times), and written out nowhere", function()
    local t = { v = 1 }
    for _ = 1, 25 do t = { a = t, b = t } end
    local c = assert(quick("anim.clip", anim.clip, { joints = {}, extra = t }, "dag", { strict = false }))
    -- its text would hold 2^26 values: anim.encode and anim.table refuse it, at once
    local msg = "dag: the text would hold more than 16777216 values, beyond anim.limits.bytes (a table held at"
      .. " several places is written at each)"
    assert.are.same({ nil, msg }, { quick("anim.encode", anim.encode, c) })
    assert.are.same({ nil, msg }, { quick("anim.table", anim.table, c) })
    -- the strict walk of the fields walks a shared table once
    local joints, keys = {}, {}
    for i = 1, 20000 do keys[i] = { i / 20000, { 0, 0, 0 } } end
    for i = 1, 4096 do joints["j" .. i] = { position = keys } end
    local ok, err = quick("anim.clip of 4,096 joints sharing 20,000 keys", pcall, anim.clip, { joints = joints, lenght = 1 })
    assert.is_false(ok)
    assert.truthy(err:find("lenght: unknown field; did you mean 'length'?", 1, true), err)
  end)

  it("a table used at several places plays as each of them; one that holds itself is refused", function()
    local zero, up = { 0, 0, 0 }, { 0, 1, 0 }
    local c = assert(anim.clip { length = 1, joints = { a = { position = { { 0, zero }, { 1, up } } },
      b = { position = { { 0, up }, { 1, zero } } } } })
    local pose = c:sample(0.25)
    assert.are.same({ 0, 0.25, 0 }, pose.a.position)
    assert.are.same({ 0, 0.75, 0 }, pose.b.position)
    local t = { joints = { j = {} } }
    t.joints.j.up = t.joints
    local _, err = anim.clip(t, "cycle", { strict = false })
    assert.are.equal("cycle: joints.j.up: the table holds itself (it is the table at joints)", err)
  end)

  it("is read raw: its metamethods neither run nor decide what the clip holds", function()
    local calls = 0
    local function count() calls = calls + 1 end
    local forever = function() return function() count(); return 1, 1 end end -- a __pairs that never ends
    local joints = setmetatable({ j = { position = { { 0, { 1, 2, 3 } } } } },
      { __pairs = forever, __index = count, __len = function() count(); return 1e9 end })
    local c = assert(quick("anim.clip", anim.clip, setmetatable({ joints = joints, length = 1 }, { __pairs = forever })))
    assert.are.equal(0, calls)
    assert.are.same({ "j" }, c:joints())
  end)

  it("anim.rig reads its table raw too, where one table may serve several joints", function()
    local at = { 0, 1, 0 }
    local calls = 0
    local joints = setmetatable({ { name = "a", position = at }, { name = "b", parent = "a", position = at } },
      { __index = function() calls = calls + 1 end, __len = function() calls = calls + 1; return 1e9 end })
    local r = assert(anim.rig { joints = joints })
    assert.are.equal(0, calls)
    assert.are.equal(2, #r:joints())
  end)
end)

describe("smaller defects (defect 11)", function()
  local dir = H.tmpdir()
  local clip = assert(anim.clip { length = 1, joints = { a = { position = { { 0, { 0, 0, 0 } } } } } }, "c")

  it("host paths with a NUL byte are refused everywhere, and shown with it spelled out", function()
    H.write(dir .. "/x", '{"version": 1, "joints": {}}')
    local path = dir .. "/x\0y"
    local shown = dir .. "/x\\000y"
    for _, load in ipairs { anim.load, anim.import_xml, anim.import_blockbench, anim.load_retarget } do
      local v, err = load(path)
      assert.is_nil(v)
      assert.are.equal(shown .. ": cannot open file: the path holds a NUL byte", err)
    end
    assert.are.same({ nil, dir .. "/z\\000y: cannot save: the path holds a NUL byte" }, { anim.save(clip, dir .. "/z\0y") })
    assert.is_nil(io.open(dir .. "/z")) -- (it used to write z)
  end)

  it("joint names with a NUL byte: refused in rigs, kept whole in clips, never read as the name before it", function()
    local r, err = anim.rig { joints = { { name = "a\0b" }, { name = "a" } } }
    assert.is_nil(r)
    assert.are.equal("rig: joints[1].name: a joint name cannot hold a NUL byte", err)
    local c = assert(anim.clip { length = 1, joints = {
      ["a\0b"] = { position = { { 0, { 1, 0, 0 } } } }, a = { position = { { 0, { 2, 0, 0 } } } } } })
    local pose = c:sample(0)
    assert.are.equal(1, pose["a\0b"].position[1])
    assert.are.equal(2, pose.a.position[1])
    local a = anim.animator(anim.rig("player"))
    assert.has_error(function() a:get("root\0x") end, "bad argument #1 to 'get' (unknown joint (the name holds a NUL byte))")
  end)

  it("anim.save over a symbolic link to nothing refuses, and leaves the link as it was", function()
    local link = dir .. "/dangling.anim"
    assert(compat.execute("ln -s '" .. dir .. "/nowhere/x.anim' '" .. link .. "'"))
    local ok, err = anim.save(clip, link)
    assert.is_nil(ok)
    assert.are.equal(link .. ": cannot save: it is a symbolic link to a file that does not exist"
      .. " (anim.save writes through links only to existing files)", err)
    local p = io.popen("readlink '" .. link .. "'")
    assert.are.equal(dir .. "/nowhere/x.anim", p:read("*l"))
    p:close()
  end)

  it("anim.encode and anim.save of a clip while the state closes: nil, message, no internal path", function()
    local script = dir .. "/closing.lua"
    H.write(script, [[
      local anim = require "anim"
      -- made before the clip: finalized after it when the state closes
      local function finalizer(o)
        print(anim.encode(o.c))
        print(anim.save(o.c, "]] .. dir .. [[/closing.anim"))
      end
      -- (5.1 and LuaJIT run __gc for userdata only: a newproxy's calls it)
      if newproxy then
        _G.holder = {}
        local p = newproxy(true)
        getmetatable(p).__gc = function() finalizer(_G.holder) end
        _G.holder.p = p
      else
        _G.holder = setmetatable({}, { __gc = finalizer })
      end
      _G.holder.c = assert(anim.clip({ length = 1, joints = { a = { position = { { 0, { 0, 0, 0 } } } } } }, "c"))
    ]])
    local p = io.popen(string.format("cd '%s' && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_PATH_5_4='lua/?.lua;lua/?/init.lua;;'"
      .. " LUA_CPATH='%s/?.so;;' LUA_CPATH_5_4='%s/?.so;;' %s '%s' 2>&1", H.root, H.build, H.build, H.lua, script))
    local out = p:read("*a")
    p:close()
    local msg = "c: cannot encode: the clip was finalized (garbage collected, or its __gc called by hand)"
    assert.are.equal("nil\t" .. msg .. "\nnil\t" .. msg .. "\n", out)
  end)
end)

describe("what the module shares, finalized by hand", function()
  local getmt = debug.getmetatable

  it("the built-in player rig is made again (it stayed finalized for every later anim.rig('player'))", function()
    local p = anim.rig("player")
    getmt(p).__gc(p)
    local q = anim.rig("player")
    assert.are_not.equal(p, q)
    assert.is_truthy(anim.animator(q))
    assert.are.equal(q, anim.rig("player"))
  end)

  it("a library's clip is read again", function()
    local dir = H.tmpdir()
    H.write(dir .. "/c.anim", '{"length": 1, "joints": {}}')
    local lib = assert(anim.library(dir))
    local c = assert(lib:clip("res://c.anim"))
    getmt(c).__gc(c)
    local again = assert(lib:clip("res://c.anim"))
    assert.are_not.equal(c, again)
    assert.are.equal(1, again.length)
  end)

  it("a library's failure under limits since changed is tried again", function()
    local dir = H.tmpdir()
    H.write(dir .. "/big.anim", '{"length": 1, "joints": {"a": {"position": [[0, [0, 0, 0]], [1, [1, 1, 1]]]}}}')
    local lib = assert(anim.library(dir))
    local old = anim.set_limits { keys = 1 }
    local c, err = lib:clip("res://big.anim")
    anim.set_limits(old)
    assert.is_nil(c)
    assert.truthy(err:find("anim.limits.keys", 1, true), err)
    assert.is_truthy(lib:clip("res://big.anim"))
  end)
end)

describe("anim.core's C functions called directly", function()
  local core = require "anim.core"

  it("core.clip_reload not told of a live track that plays the clip refuses, changing nothing", function()
    local player = anim.rig("player")
    local joints = {}
    for _, j in ipairs { "root", "torso", "head", "rightArm", "leftArm", "rightLeg", "leftLeg" } do
      joints[j] = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 1, 1 } } } }
    end
    local c = assert(anim.clip { loop = "loop", length = 1, joints = joints })
    local fresh = assert(anim.clip { loop = "loop", length = 1, joints = { head = joints.head } })
    local a, same = anim.animator(player), anim.animator(player)
    local tr = a:play(c, { fade = 0 })
    same:play(assert(anim.clip { loop = "loop", length = 1, joints = joints }), { fade = 0 })
    a:update(0.25)
    same:update(0.25)
    -- (the Lua side lists every track: anim.reload; a script need not, and
    -- the track would go on with arrays laid out for the old content)
    assert.are.same({ false, 0 }, { core.clip_reload(c, fresh, {}, {}) })
    assert.are.equal(7, #c:joints())
    assert.is_true(tr.is_playing)
    a:update(0.25)
    same:update(0.25)
    assert.are.same({ same:get("leftLeg") }, { a:get("leftLeg") })
    -- an ended track may be left out: it plays nothing more
    tr:stop(0)
    a:update(0)
    assert.is_false(tr.is_playing)
    assert.is_true(core.clip_reload(c, fresh, {}, {}))
    assert.are.same({ "head" }, c:joints())
    for _ = 1, 3 do a:update(0.25) end
    assert.is_false(tr.is_playing)
    for _, v in ipairs { a:world_transform("leftLeg") } do assert.is_true(v == v) end
    -- (anim.reload itself rebinds every track: spec/reload_spec.lua)
  end)
end)
