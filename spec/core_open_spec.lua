-- Opening anim.core: luaopen_anim_core pushes the delivery's upvalues (the
-- animators' metatable, the handlers, 19 keys...) on top of the module
-- table, more than the 20 slots Lua promises a C function; without
-- luaL_checkstack it wrote past the end of the Lua stack when the stack
-- had no room to spare (a script run with three arguments crashed at its
-- exit).  valgrind flags those writes: the first spec under `make
-- memcheck`, the second in a child process when the machine has valgrind.
local H = require "spec.helper"
local unpack = table.unpack or unpack -- luacheck: ignore 113 (5.1's global)

describe("anim.core opened", function()
  it("from coroutines whose stacks have from 0 to 40 slots in use", function()
    local path = assert(package.searchpath("anim.core", package.cpath))
    local open = assert(package.loadlib(path, "luaopen_anim_core"))
    local pad = {}
    for k = 0, 40 do
      local co = coroutine.create(function(...) return open(), select("#", ...) end)
      local ok, core, n = coroutine.resume(co, unpack(pad, 1, k))
      assert(ok, core)
      assert.are.equal(k, n)
      assert.are.equal("function", type(core.animators_update))
      assert.are.equal("function", type(core.deliver_handlers))
    end
  end)

  it("by a script given three arguments, where it crashed", function()
    -- (not under make asan: valgrind and the sanitizers' preloaded
    -- runtime do not go together)
    local vg = not H.sanitized and os.execute("command -v valgrind >/dev/null 2>&1")
    local run = (vg == true or vg == 0) and "valgrind -q --error-exitcode=9 " or ""
    local dir = H.tmpdir()
    H.write(dir .. "/open.lua", 'local core = require "anim.core"\nprint(type(core.animators_update))\n')
    local out, code = H.popen(string.format("cd %s && %s%s %s a b c 2>&1", H.sq(H.root), run, H.lua,
      H.sq(dir .. "/open.lua")))
    assert.are.equal(0, code, out)
    assert.are.equal("function\n", out)
  end)
end)
