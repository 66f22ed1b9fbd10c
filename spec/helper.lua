-- spec/helper.lua: shared by the specs (paths to the repository and to the
-- shared data laid beside it, and comparisons).
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local H = {}

-- luassert's deep comparisons and copies walk tables with next, in every
-- assert.are.same: on LuaJIT they are kept from the compiler as the
-- module's own walks are (lua/anim/base/luajit.lua).
if require("anim.base.luajit").guarded then
  local ok, util = pcall(require, "luassert.util")
  if ok and type(util) == "table" then
    for _, f in pairs(util) do
      if type(f) == "function" then jit.off(f, true) end -- luacheck: ignore 113
    end
  end
end

local here = debug.getinfo(1, "S").source:match("^@(.*)/spec/helper%.lua$") or "."
H.root = here
-- The interpreter the suite runs under (the Makefile's ANIM_LUA: lua5.4,
-- luajit, lua5.1...), for the subprocesses the specs start, and where the
-- core built for it lies.
H.lua = os.getenv("ANIM_LUA") or "lua5.4"
H.build = H.lua == "lua5.4" and "build" or "build/" .. H.lua
H.jit = type(rawget(_G, "jit")) == "table"
-- What the runtimes do differently (docs/runtimes.md): whether numbers
-- have an integer subtype (5.3+), whether a table's __gc runs (5.2+),
-- whether the collector has a generational mode (5.4).
H.integers = compat.integers
H.table_gc = compat.version >= 502
-- whether pairs and # on a table consult its __pairs and __len (5.2+)
H.meta_pairs = compat.version >= 502
H.generational = compat.version >= 504

-- Whether v is an integer: on 5.3+ of the integer subtype (12, not 12.0);
-- 5.1, 5.2 and LuaJIT have no subtype, 12 and 12.0 are one number there,
-- and an integer is an integral number.
function H.is_integer(v)
  if H.integers then return math.type(v) == "integer" end
  return type(v) == "number" and v % 1 == 0
end

-- Deep equality of a and b, down to a number's subtype where there is one
-- (12 and 12.0 differ on 5.3+).
function H.same_typed(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "number" then return a == b and H.is_integer(a) == H.is_integer(b) end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not H.same_typed(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- A table whose finalizer calls fn(t) when it is collected.  5.2+ run a
-- table's __gc; 5.1 and LuaJIT run __gc for userdata only, so there the
-- table holds a newproxy (its key hidden from the specs' fields) whose
-- finalizer calls fn(t).
local PROXY = {}
function H.finalizer(fn)
  local t = {}
  if H.table_gc then return setmetatable(t, { __gc = fn }) end
  local p = newproxy(true) -- luacheck: ignore 113 (5.1's and LuaJIT's)
  getmetatable(p).__gc = function() fn(t) end
  t[PROXY] = p
  return t
end

-- ../shared beside the clone (CI lays it there); ANIM_SHARED overrides.
H.shared = os.getenv("ANIM_SHARED") or (here .. "/../shared")

-- Under make asan (the sanitizers' runtime preloaded) or make memcheck
-- (valgrind: ANIM_MEMCHECK) the specs run many times slower, and resident
-- memory says nothing (ASan keeps freed memory in quarantine): time bounds
-- go through H.seconds, specs of resident memory skip it (H.instrumented).
H.valgrind = os.getenv("ANIM_MEMCHECK") ~= nil
H.sanitized = (os.getenv("LD_PRELOAD") or ""):find("san", 1, true) ~= nil
H.instrumented = H.valgrind or H.sanitized
H.slowdown = H.valgrind and 60 or H.sanitized and 4 or 1

-- Whether track t takes controls: it has not ended (playing, or queued).
-- Random scenes control tracks that may have ended, which raises.
function H.live(t)
  return t.is_playing or require("anim.core").track_queued(t)
end

-- fn raises msg at the line it is defined on (an error naming the
-- script's line, not the module's).
function H.raises_here(fn, msg)
  local info = debug.getinfo(fn, "S")
  local ok, err = pcall(fn)
  assert(not ok, "no error")
  assert(err == string.format("%s:%d: %s", info.short_src, info.linedefined, msg),
    string.format("expected %q, got %q", msg, tostring(err)))
end

function H.read(path)
  local f = assert(io.open(path, "rb"), "missing file " .. path)
  local s = f:read("*a")
  f:close()
  return s
end

-- Files of a directory (sorted), through ls: the specs need no lfs.
function H.ls(dir, pattern)
  local p = assert(io.popen('ls -1 "' .. dir .. '" 2>/dev/null'))
  local out = {}
  for line in p:lines() do
    if not pattern or line:match(pattern) then out[#out + 1] = line end
  end
  p:close()
  table.sort(out)
  return out
end

-- The number of a table's keys.
function H.count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

function H.near(a, b, tol)
  return math.abs(a - b) <= tol
end

-- Largest component difference of two vectors.
function H.maxdiff(a, b)
  local m = 0
  for i = 1, #b do m = math.max(m, math.abs(a[i] - b[i])) end
  return m
end

-- Quaternion difference up to sign.
function H.quatdiff(a, b)
  local d1, d2 = 0, 0
  for i = 1, 4 do
    d1 = math.max(d1, math.abs(a[i] - b[i]))
    d2 = math.max(d2, math.abs(a[i] + b[i]))
  end
  return math.min(d1, d2)
end

-- A small quaternion kit for the specs, independent of the module's code
-- (quaternions {x, y, z, w}).
function H.qaxis(i, deg)
  local h = math.rad(deg) / 2
  local q = { 0, 0, 0, math.cos(h) }
  q[i] = math.sin(h)
  return q
end

function H.qmul(a, b)
  return {
    a[4] * b[1] + a[1] * b[4] + a[2] * b[3] - a[3] * b[2],
    a[4] * b[2] - a[1] * b[3] + a[2] * b[4] + a[3] * b[1],
    a[4] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[4],
    a[4] * b[4] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
  }
end

function H.qrotate(q, v)
  local p = H.qmul(H.qmul(q, { v[1], v[2], v[3], 0 }), { -q[1], -q[2], -q[3], q[4] })
  return { p[1], p[2], p[3] }
end

-- Asserts that a log of callbacks { { name, late }, ... } is `want`: the
-- same names in the same order, each late within 1e-9 (the timing specs).
function H.same_log(log, want)
  local function show(l)
    local s = {}
    for i, e in ipairs(l) do s[i] = string.format("%s@%.12g", e[1], e[2]) end
    return table.concat(s, " ")
  end
  local ok = #log == #want
  for i = 1, math.min(#log, #want) do
    if log[i][1] ~= want[i][1] or math.abs(log[i][2] - want[i][2]) > 1e-9 then ok = false end
  end
  assert(ok, "got  " .. show(log) .. "\nwant " .. show(want))
end

-- Updates animator a by each dt of dts in turn; returns the part of log
-- (a list its callbacks append to) that each update added.
function H.per_update(a, log, dts)
  local per = {}
  for i, dt in ipairs(dts) do
    local from = #log
    a:update(dt)
    local l = {}
    for k = from + 1, #log do l[#l + 1] = log[k] end
    per[i] = l
  end
  return per
end

-- Runs a shell command; returns its output and its exit status.  (5.1's
-- and LuaJIT's close of a popen file gives no status: the shell prints it
-- after the output, and it is taken off here.)
function H.popen(cmd)
  local p = assert(io.popen("{ " .. cmd .. "\n}; printf '\\n\\001%d' $?"))
  local out = p:read("*a")
  p:close()
  local body, code = out:match("^(.*)\n\001(%d+)$")
  return body, tonumber(code)
end

-- s quoted for the shell: in single quotes, a quote as '\''.
function H.sq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs cmd in `sh -c` from an environment of PATH and HOME alone (home;
-- env: more NAME=value words, already quoted), as a fresh login has it,
-- without the variables make test sets; returns output (stderr too) and
-- status.
function H.fresh(cmd, home, env)
  return H.popen(string.format("env -i PATH=%s HOME=%s %s sh -c %s 2>&1", H.sq(os.getenv("PATH")), H.sq(home), env or "",
    H.sq(cmd)))
end

-- A folder's absolute path; and runs the checkout's `anim ARGS` (a shell fragment) in dir, with no
-- LUA_PATH (every variable by which Lua 5.1 to 5.4 take their module
-- paths unset), as a user runs it: status, stdout, stderr.
function H.absolute(path)
  local p = assert(io.popen("cd " .. H.sq(path) .. " && pwd"))
  local d = p:read("*l")
  p:close()
  return d
end
function H.anim_command(dir, args)
  local root = H.absolute(H.root)
  local errf = dir .. "/.stderr"
  local out, code = H.popen(string.format("cd %s && env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4"
    .. " -u LUA_PATH_5_3 -u LUA_CPATH_5_3 -u LUA_PATH_5_2 -u LUA_CPATH_5_2 %s %s %s 2>%s", H.sq(dir), H.lua,
    H.sq(root .. "/bin/anim"), args, H.sq(errf)))
  local err = H.read(errf)
  os.remove(errf)
  return code, out, err
end

-- A clip from a table: length 1, looping, joint j moving along x, unless
-- t says otherwise (t is filled in).
function H.clip(t)
  t.length = t.length or 1
  t.loop = t.loop or "loop"
  t.joints = t.joints or { j = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } }
  return assert(require("anim").clip(t))
end

-- Parses XML with expat (the pictures of the command); returns the
-- elements as { name, attrs, text }, failing on text that is not
-- well-formed.
function H.parse_xml(text)
  local lxp = require "lxp"
  local els, stack = {}, {}
  local p = lxp.new {
    StartElement = function(_, name, attrs)
      local e = { name = name, attrs = attrs, text = "" }
      els[#els + 1] = e
      stack[#stack + 1] = e
    end,
    EndElement = function() stack[#stack] = nil end,
    CharacterData = function(_, s) if #stack > 0 then stack[#stack].text = stack[#stack].text .. s end end,
  }
  local ok, err, line = p:parse(text)
  assert(ok, "not well-formed XML: " .. tostring(err) .. " at line " .. tostring(line))
  ok, err = p:parse()
  assert(ok, "not well-formed XML: " .. tostring(err))
  p:close()
  return els
end

function H.tmpdir()
  local p = assert(io.popen("mktemp -d"))
  local d = p:read("*l")
  p:close()
  return d
end

function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- A time bound of the specs for a target of s CPU seconds (the targets of
-- docs/robustness.md, which bench/attacks.lua measures and prints): four
-- times s, so that a machine loaded by other work does not fail a spec
-- (an update of spec/attacks_spec.lua took 0.61 s of CPU at a load of 7,
-- 0.3 s alone), while each blow-up a bound guards against (5 s to 80 s
-- before its fix) still fails it; longer again under valgrind and the
-- sanitizers (H.slowdown), which slow everything down.
H.LOAD_MARGIN = 4
function H.seconds(s) return s * H.LOAD_MARGIN * H.slowdown end

-- fn's results, after checking that it took less than H.seconds(s) of CPU
-- (what: named in the failure).
function H.quick(s, what, fn, ...)
  local t0 = os.clock()
  local res = compat.pack(fn(...))
  local took = os.clock() - t0
  assert(took < H.seconds(s), string.format("%s took %.2f s (budget %.1f s)", what, took, H.seconds(s)))
  return compat.unpack(res, 1, res.n)
end

-- fn's results, failing it (rather than hanging) past n million Lua
-- instructions: work that must be bounded, counted.
function H.bounded(n, fn)
  debug.sethook(function() error("more than " .. n .. " million instructions: not bounded", 2) end, "", n * 1000000)
  local r = compat.pack(pcall(fn))
  debug.sethook()
  if not r[1] then error(r[2], 0) end
  return compat.unpack(r, 2, r.n)
end

-- Runs f with LuaJIT's compiler off (elsewhere, just runs it): it
-- allocates its traces in the Lua heap, through the state's allocator, so
-- collectgarbage("count") and the allocation counters count them; a spec
-- measuring what the module allocates measures with it off.
function H.without_jit(f)
  if not H.jit then return f() end
  local jit = rawget(_G, "jit")
  jit.off()
  jit.flush() -- (the traces already made, which may exit into allocations)
  local r = compat.pack(pcall(f))
  jit.on()
  if not r[1] then error(r[2], 0) end
  return compat.unpack(r, 2, r.n)
end

-- The allocation counter of tests/c/failalloc.c (built by `make test`)
-- put in front of the state's allocator: what is made after this call
-- allocates through it (the core takes the wrapper as its allocator).
function H.failalloc()
  local ok, fa = pcall(require, "failalloc")
  assert(ok, "build/failalloc.so is missing: run `make test` (it builds tests/c/failalloc.c)")
  fa.start(0)
  fa.stop()
  return fa
end

-- How many allocations 2,000 calls of frame(i) make, in Lua and in the
-- core, once 300 of them have warmed up (fa from H.failalloc; the
-- collector stopped while counting, LuaJIT's compiler off).
function H.frame_allocations(fa, frame)
  for i = 1, 300 do frame(i) end
  collectgarbage(); collectgarbage()
  collectgarbage("stop")
  local n = H.without_jit(function()
    for i = 1, 64 do frame(i) end -- (a collection shrinks the stack: grown back once)
    fa.start(0)
    for i = 1, 2000 do frame(i) end
    return fa.stop()
  end)
  collectgarbage("restart")
  return n
end

-- Where a and b differ (tables compared field by field, numbers to the
-- bit: their subtype, the sign of zero, a NaN's bits where the runtime can
-- read them, 5.3+), or nil.
local function bits(x)
  if x ~= x then return string.pack and string.pack("<d", x) or "nan" end
  return x
end
function H.bitdiff(a, b, path)
  path = path or "$"
  if type(a) == "number" and type(b) == "number" then
    -- (compat.mtype: before 5.3 every number is a "float")
    if bits(a) == bits(b) and (a ~= 0 or 1 / a == 1 / b) and compat.mtype(a) == compat.mtype(b) then return nil end
    return string.format("%s: %s (%s) vs %s (%s)", path, a, compat.mtype(a), b, compat.mtype(b))
  end
  if type(a) ~= type(b) then return string.format("%s: %s vs %s", path, type(a), type(b)) end
  if type(a) ~= "table" then return a ~= b and string.format("%s: %s vs %s", path, tostring(a), tostring(b)) or nil end
  for k, v in pairs(a) do
    local d = H.bitdiff(v, b[k], path .. "." .. tostring(k))
    if d then return d end
  end
  for k in pairs(b) do
    if a[k] == nil then return path .. "." .. tostring(k) .. ": only on the right" end
  end
end

-- Runs f with some anim limits changed (anim.set_limits), restoring them
-- even when f fails.
function H.with_limits(t, f)
  local anim = require "anim"
  local old = anim.set_limits(t)
  local r = compat.pack(pcall(f))
  anim.set_limits(old)
  if not r[1] then error(r[2], 0) end
  return compat.unpack(r, 2, r.n)
end

-- An animator's local pose (pose_array) and its last root motion, in one
-- list; whether every number of a list is finite (false, the first index
-- that is not).
function H.pose_and_motion(a)
  local out = a:pose_array({}, "local")
  for _, v in ipairs { a:root_motion() } do out[#out + 1] = v end
  return out
end
function H.finite(list)
  for i, v in ipairs(list) do
    if not (v == v and v > -math.huge and v < math.huge) then return false, i end
  end
  return true
end

-- Runs fn while a finalizer runs action() at one of the allocations fn
-- makes (in the C functions of the module: where a pointer or a count
-- taken before the allocation would then be stale).  In generational
-- mode (5.4) Lua runs every pending finalizer at the end of each minor
-- collection, and a minor collection comes once the program allocated a
-- share of the heap (1 %: collectgarbage("generational", 1)): the
-- finalizer is made right after one, and runs at the next, inside fn when
-- fn allocates more than that.  5.1 to 5.3 and LuaJIT have no generational
-- mode: there the incremental collector runs with no pause between
-- cycles, and each try halves its step, from one that ends the cycle (and
-- runs the finalizer) before fn starts to ones that end it later: the
-- first try where it ends inside fn ends it at one of fn's first
-- allocations, as the generational mode does.  Retries until it fired
-- inside fn; returns pcall's results.
local DURING_TRIES = H.generational and 10 or 20

-- Sets the collector as try number `try` of during_finalizer does, so
-- that a finalizer made right after runs at one of the next allocations;
-- returns the function that sets it back.
function H.arm_finalizers(try)
  if H.generational then
    collectgarbage("generational", 1, 100)
    collectgarbage("step")
    return function() collectgarbage("incremental") end
  end
  local pause, stepmul = collectgarbage("setpause", 0), collectgarbage("setstepmul", 100 * 2 ^ (21 - try))
  collectgarbage("collect")
  return function()
    collectgarbage("setpause", pause)
    collectgarbage("setstepmul", stepmul)
  end
end

-- (Once it fired, the collector is set back there and then on 5.1 to 5.3
-- and LuaJIT: the rest of fn would run a whole cycle at every few
-- allocations, minutes for a call that allocates much.  5.4 ignores a
-- change of mode from a finalizer; its minor collections cost little.)
local function fired_now(disarm)
  if not H.generational then disarm() end
end

function H.during_finalizer(action, fn)
  for try = 1, DURING_TRIES do
    local inside, fired = false, false
    local disarm = H.arm_finalizers(try)
    H.finalizer(function()
      if inside then fired = true; fired_now(disarm); action() end
    end)
    inside = true
    local ok, err = pcall(fn)
    inside = false
    disarm()
    if fired then return ok, err end
  end
  error("the finalizer never ran inside the call")
end

-- The same for a function of table `tbl` (the C function anim.core[name])
-- that fn calls: the finalizer is set just before the first call of it,
-- and runs action() only while that call runs (the Lua code around it
-- allocates too, and would run it first).  fn must be one that can run
-- again: each try calls it anew.
function H.during_finalizer_in(tbl, name, action, fn)
  local orig = tbl[name]
  for try = 1, DURING_TRIES do
    local inside, fired = false, false
    tbl[name] = function(...)
      tbl[name] = orig
      local disarm = H.arm_finalizers(try)
      H.finalizer(function()
        if inside then fired = true; fired_now(disarm); action() end
      end)
      inside = true
      local r = compat.pack(pcall(orig, ...))
      inside = false
      disarm()
      if not r[1] then error(r[2], 0) end
      return compat.unpack(r, 2, r.n)
    end
    local r = compat.pack(pcall(fn))
    tbl[name] = orig
    if fired then return compat.unpack(r, 1, r.n) end
  end
  error("the finalizer never ran inside " .. name)
end

return H
