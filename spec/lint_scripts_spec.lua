-- The two checks make lint runs beside luacheck and -Werror (issue 36):
-- scripts/sizes.lua (no source file over 700 lines, no function over 120,
-- C or Lua, each named) and scripts/callgraph.lua (the file-level call
-- graph of the core's objects has no cycle), each shown to fail on a
-- breach it is given and to pass on the tree as it is.
local H = require "spec.helper"

local sq = H.sq
local function run(cmd) return H.popen("cd " .. sq(H.root) .. " && " .. cmd .. " 2>&1") end

local function lines(n, fmt)
  local t = {}
  for i = 1, n do t[i] = fmt:format(i) end
  return table.concat(t, "\n")
end

describe("scripts/sizes.lua", function()
  local dir
  before_each(function() dir = H.tmpdir() end)
  after_each(function() os.execute("rm -rf " .. sq(dir)) end)

  it("names a Lua function over 120 lines, a C function over 120 and a file over 700, and fails", function()
    H.write(dir .. "/long.lua", "local function long()\n" .. lines(125, "  local x%d = 1") .. "\nend\nreturn long\n")
    H.write(dir .. "/long.c", "int long_one(void) {\n  int x = 0;\n" .. lines(125, "  x += %d;") .. "\n  return x;\n}\n")
    H.write(dir .. "/big.lua", lines(701, "x = %d"))
    local out, code = run("lua5.4 scripts/sizes.lua " .. sq(dir .. "/long.lua") .. " " .. sq(dir .. "/long.c") .. " " .. sq(dir .. "/big.lua"))
    assert.are.equal(1, code, out)
    assert.truthy(out:find(dir .. "/long.lua:1: function long: 127 lines (at most 120)", 1, true), out)
    assert.truthy(out:find(dir .. "/long.c:1: function long_one: 129 lines (at most 120)", 1, true), out)
    assert.truthy(out:find(dir .. "/big.lua: 701 lines (at most 700)", 1, true), out)
  end)

  it("passes functions of 120 lines and a file of 700", function()
    H.write(dir .. "/ok.lua", "local function ok()\n" .. lines(118, "  local x%d = 1") .. "\nend\nreturn ok\n")
    H.write(dir .. "/ok.c", "int ok_one(void) {\n  int x = 0;\n" .. lines(116, "  x += %d;") .. "\n  return x;\n}\n")
    local out, code = run("lua5.4 scripts/sizes.lua " .. sq(dir .. "/ok.lua") .. " " .. sq(dir .. "/ok.c"))
    assert.are.equal(0, code, out)
  end)

  it("passes the sources of csrc/ and lua/", function()
    local out, code = run("lua5.4 scripts/sizes.lua $(find csrc lua -name '*.c' -o -name '*.h' -o -name '*.lua') bin/anim")
    assert.are.equal(0, code, out)
  end)
end)

describe("scripts/callgraph.lua", function()
  it("names the files of a cycle and fails; passes a graph without one", function()
    local dir = H.tmpdir()
    H.write(dir .. "/a.c", "int b_fn(int);\nint a_fn(int x) { return x ? b_fn(x - 1) : 0; }\n")
    H.write(dir .. "/b.c", "int a_fn(int);\nint b_fn(int x) { return x ? a_fn(x - 1) : 1; }\n")
    H.write(dir .. "/c.c", "int a_fn(int);\nint c_fn(int x) { return a_fn(x); }\n")
    local out0, code0 = run(string.format("cd %s && cc -c a.c b.c c.c", sq(dir)))
    assert.are.equal(0, code0, out0)
    local out, code = run("lua5.4 scripts/callgraph.lua " .. sq(dir .. "/a.o") .. " " .. sq(dir .. "/b.o") .. " " .. sq(dir .. "/c.o"))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("callgraph: a cycle among a.c, b.c", 1, true), out)
    local out2, code2 = run("lua5.4 scripts/callgraph.lua " .. sq(dir .. "/a.o") .. " " .. sq(dir .. "/c.o"))
    os.execute("rm -rf " .. sq(dir))
    assert.are.equal(0, code2, out2)
    assert.truthy(out2:find("c.c%s+%-> a.c"), out2)
  end)

  -- (make asan's copy of the tree has no objects of the plain build)
  local objs = H.root .. "/" .. H.build .. "/obj/core"
  local have = io.open(objs .. "/update.o")
  if have then have:close() end;
  (have and it or pending)("finds no cycle among the core's objects", function()
    local out, code = run("lua5.4 scripts/callgraph.lua " .. sq(objs) .. "/*.o")
    assert.are.equal(0, code, out)
    assert.truthy(out:find("update.c", 1, true), out)
  end)
end)
