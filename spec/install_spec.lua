-- The rockspec builds and installs the module into a fresh tree, and
-- `require "anim"` works from that tree alone (plus Debian's lua-cjson).
local H = require "spec.helper"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, code
end

describe("installation", function()
  it("runs under Lua 5.4", function()
    assert.are.equal("Lua 5.4", _VERSION)
  end)

  it("luarocks make installs a tree from which require 'anim' works", function()
    local tree = H.tmpdir()
    local ok, out = sh(string.format(
      "cd %q && luarocks --lua-version=5.4 --tree=%q make --deps-mode=none anim-dev-1.rockspec", H.root, tree))
    assert(ok, out)
    local script = [==[
      local anim = require "anim"
      local core = package.searchpath("anim.core", package.cpath)
      local lua = package.searchpath("anim", package.path)
      assert(core:find(TREE, 1, true), "core from " .. core)
      assert(lua:find(TREE, 1, true), "anim from " .. lua)
      local c = assert(anim.decode('{"joints":{"a":{"position":[[0,[0,0,0]],[1,[2,4,6]]]}}}'))
      local p = c:sample(0.5).a.position
      assert(p[1] == 1 and p[2] == 2 and p[3] == 3)
      print("installed ok")
    ]==]
    local cmd = string.format(
      "cd / && LUA_PATH=%q LUA_PATH_5_4=%q LUA_CPATH=%q LUA_CPATH_5_4=%q lua5.4 -e %q",
      tree .. "/share/lua/5.4/?.lua;" .. tree .. "/share/lua/5.4/?/init.lua;;",
      tree .. "/share/lua/5.4/?.lua;" .. tree .. "/share/lua/5.4/?/init.lua;;",
      tree .. "/lib/lua/5.4/?.so;;", tree .. "/lib/lua/5.4/?.so;;",
      "TREE=" .. string.format("%q", tree) .. "\n" .. script)
    local ok2, out2 = sh(cmd)
    assert(ok2, out2)
    assert.truthy(out2:find("installed ok", 1, true))
    sh("rm -rf " .. string.format("%q", tree))
  end)

  it("keeps the core free of Lua headers outside the binding files", function()
    local ok, out = sh(string.format("cd %q && grep -rl 'lua\\.h\\|lauxlib\\.h\\|lualib\\.h' csrc", H.root))
    assert(ok, out)
    for file in out:gmatch("[^\n]+") do
      assert.truthy(file:match("^csrc/lua/[%w_]+%.[ch]$"), file .. " includes a Lua header")
    end
  end)
end)
