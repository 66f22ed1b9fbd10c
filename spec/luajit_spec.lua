-- LuaJIT's compiled table traversals (lua/anim/base/luajit.lua): every
-- file of the module, of the fuzz drivers the suite replays and of the
-- specs that walks a table with pairs or next turns LuaJIT's compiler off
-- for itself, and on LuaJIT no trace of the module's work holds a compiled
-- traversal.  (The specs' own walks crashed too: a compiled pairs loop of
-- spec/helper.lua's same_typed, the pointer lj_vm_next returns cut to 32
-- bits, about once in a hundred runs of spec/animc_plain_spec.lua.)
local H = require "spec.helper"
local compat = require "anim.base.compat"
local luajit = require "anim.base.luajit"

local GUARD = 'require("anim.base.luajit").no_traversal_traces()'

-- The code of a Lua file without its comments and its strings' contents
-- (so that "the next key" in a comment or a message is no traversal).
local function code_of(text)
  text = text:gsub("%-%-%[(=*)%[.-%]%1%]", "")
  text = text:gsub('\\.', "")
  text = text:gsub('"[^"\n]*"', '""'):gsub("'[^'\n]*'", "''")
  text = text:gsub("%-%-[^\n]*", "")
  return text
end

-- Whether code walks a table: pairs (not ipairs) or next, as a name
-- (t.next or obj:next is a field).
local function traverses(code)
  for pre in code:gmatch("(.?)%f[%w_]pairs%f[^%w_]") do
    if pre ~= "." and pre ~= ":" then return true end
  end
  for pre in code:gmatch("(.?)%f[%w_]next%f[^%w_]") do
    if pre ~= "." and pre ~= ":" then return true end
  end
  return false
end

local function files(cmd)
  local p = assert(io.popen("cd " .. H.root .. " && " .. cmd))
  local out = {}
  for f in p:lines() do out[#out + 1] = f end
  p:close()
  return out
end

describe("LuaJIT's compiled traversals", function()
  it("the rule's reader tells a traversal from a word of a comment or a message", function()
    assert.is_true(traverses(code_of("for k in pairs(t) do end")))
    assert.is_true(traverses(code_of("local k = next(t)")))
    assert.is_true(traverses(code_of("for k, v in next, t do end")))
    assert.is_false(traverses(code_of("for _, v in ipairs(t) do end")))
    assert.is_false(traverses(code_of("-- the next key, in pairs\nlocal x = t.next or o:next()")))
    assert.is_false(traverses(code_of('error("the next pairs(t)")')))
    assert.is_false(traverses(code_of("--[[ next ]] local y = 1")))
  end)

  -- (luajit.lua defines the guard; this file compiles a traversal on
  -- purpose below, outside the module's code)
  local EXEMPT = { ["lua/anim/base/luajit.lua"] = true, ["spec/luajit_spec.lua"] = true }

  it("every file of lua/anim, fuzz/ and spec/ that walks a table turns the compiler off for itself, at its top", function()
    local n, guarded, wrong = 0, 0, {}
    for _, f in ipairs(files("find lua/anim fuzz spec -name '*.lua' | sort")) do
      local text = H.read(H.root .. "/" .. f)
      local has = text:find("\n" .. GUARD:gsub("%p", "%%%0") .. "\n") ~= nil
      n = n + 1
      if not EXEMPT[f] then
        local walks = traverses(code_of(text))
        if has ~= walks then wrong[#wrong + 1] = f .. (walks and " walks a table without it" or " walks no table but calls it") end
        if has then guarded = guarded + 1 end
      end
    end
    assert(#wrong == 0, GUARD .. ": " .. table.concat(wrong, "; "))
    assert.is_true(n > 250 and guarded > 130, n .. " files, " .. guarded .. " guarded")
  end)

  it("acts on LuaJIT 2.1 only", function()
    assert.are.equal(compat.jit and not jit.version:find("^LuaJIT 2%.0"), luajit.guarded) -- luacheck: ignore 113
  end)

  if not compat.jit then return end
  local util, vmdef = require "jit.util", require "jit.vmdef"
  local bit = require "bit"

  -- The traces completed while fn runs (the compiler's traces flushed
  -- first), and how many of them call lj_vm_next: a compiled traversal.
  local function traversals_in_traces(fn)
    jit.flush() -- luacheck: ignore 113
    local done = {}
    local function on_trace(what, tr) if what == "stop" then done[#done + 1] = tr end end
    jit.attach(on_trace, "trace") -- luacheck: ignore 113
    local ok, err = pcall(fn)
    jit.attach(on_trace) -- luacheck: ignore 113
    assert(ok, err)
    local calls = 0
    for _, tr in ipairs(done) do
      local info = util.traceinfo(tr)
      for ref = 1, info and info.nins or 0 do
        local _, ot, _, op2 = util.traceir(tr, ref)
        local op = vmdef.irnames:sub(6 * bit.rshift(ot, 8) + 1, 6 * bit.rshift(ot, 8) + 6)
        if op:sub(1, 4) == "CALL" and vmdef.ircall[op2] == "lj_vm_next" then calls = calls + 1 end
      end
    end
    return calls, #done
  end

  it("this LuaJIT compiles a traversal, and the check sees it", function()
    local t = { a = 1, b = 2, c = 3 }
    local calls = traversals_in_traces(function()
      local s = 0
      for _ = 1, 2000 do
        for _, v in pairs(t) do s = s + v end
      end
      return s
    end)
    assert.is_true(calls > 0)
  end)

  it("nor does a trace of the specs' comparisons: the helper's and luassert's", function()
    local a, b = { x = 1, y = { 2, z = 3 } }, { x = 1, y = { 2, z = 3 } }
    local calls, traces = traversals_in_traces(function()
      for _ = 1, 2000 do
        assert.is_true(H.same_typed(a, b))
        assert.are.same(a, b)
      end
    end)
    assert.are.equal(0, calls, traces .. " traces")
  end)

  it("no trace of the module's work holds a compiled traversal", function()
    local anim = require "anim"
    local text = H.read(H.root .. "/spec/fixtures/dragonbones/hero_ske.json")
    local import = require("anim.import.dragonbones").decode
    -- (a clip's name found here, outside the traced work: this spec's
    -- own loops walk no table)
    local first = assert(import(text, "hero_ske.json"))
    local names = {}
    for name in pairs(first.armatures[first.stage].clips) do names[#names + 1] = name end
    table.sort(names)
    local calls, traces = traversals_in_traces(function()
      for _ = 1, 60 do
        local r = assert(import(text, "hero_ske.json"))
        local arm = r.armatures[r.stage]
        local a = anim.animator(assert(anim.skeleton2d(arm.skeleton, "hero")), { warn = false })
        a:play(arm.clips[names[1]], { fade = 0 })
        a:update(1 / 60)
        assert(anim.table(arm.clips[names[1]]))
        assert(anim.encode(arm.clips[names[1]]))
        assert.is_nil((anim.decode('{"joints": {"a": {"rotation": [[0, [1, 2]]]}}, "length": 1}', "bad.anim")))
      end
    end)
    assert.are.equal(0, calls, traces .. " traces")
  end)
end)
