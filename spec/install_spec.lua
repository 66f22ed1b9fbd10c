-- The rockspec builds and installs the module into a fresh tree, and
-- `require "anim"` works from that tree alone (plus Debian's lua-cjson).
-- The rockspec builds through the Makefile (build type "make"), so the
-- core it installs is compiled with the flags `make test` tests.
local H = require "spec.helper"

local function sh(cmd)
  local out, code = H.popen(cmd .. " 2>&1")
  return code == 0, out, code
end

local function lines(text)
  local out = {}
  for l in text:gmatch("[^\n]+") do out[#out + 1] = l end
  return out
end

-- The Lua the suite runs under, as luarocks names it, and the headers it
-- builds with (LuaJIT is a 5.1 to luarocks, with its own headers).
local VER = H.jit and "5.1" or _VERSION:match("%d+%.%d+")
local INCDIR = H.jit and " LUA_INCDIR=/usr/include/luajit-2.1" or ""

describe("installation", function()
  it("runs under the Lua the suite was started for (ANIM_LUA)", function()
    if H.lua == "luajit" then
      assert.is_true(H.jit, "not LuaJIT")
      assert.are.equal("Lua 5.1", _VERSION)
    else
      assert.are.equal("Lua " .. H.lua:match("lua(%d+%.%d+)"), _VERSION)
      assert.is_false(H.jit)
    end
  end)

  it("luarocks make --local installs a tree from which require 'anim' works after eval \"$(luarocks path)\"", function()
    -- README.md's setup ("Use it from your own code"), in a home of its own
    local home, src = H.tmpdir(), H.tmpdir()
    local tree = home .. "/.luarocks"
    -- from a copy of the checkout's files without build/: a build of its own
    -- (make asan runs the suite in a copy that is no git checkout: then
    -- every file but build/)
    assert(sh(string.format("cd %q && { if [ -e .git ]; then git ls-files -co --exclude-standard;"
      .. " else find . -path ./build -prune -o -type f -print; fi; } | tar -cf - -T - | tar -xf - -C %q", H.root, src)))
    local ok, log = sh(string.format(
      "cd %q && HOME=%q luarocks --lua-version=%s make --local --deps-mode=none anim-dev-1.rockspec%s", src, home, VER, INCDIR))
    assert(ok, log)
    -- the core was compiled with the Makefile's flags (a compile line per
    -- source file, then the link), against this Lua's headers
    local compiled, linked = {}, nil
    for _, l in ipairs(lines(log)) do
      local file = l:match(" %-c (csrc/%S+%.c) ")
      if file then compiled[file] = l end
      if l:find("-o build/luarocks/anim/core.so", 1, true) then linked = l end
    end
    assert(linked, log)
    for _, file in ipairs(lines(select(2, sh("cd " .. H.root .. " && ls csrc/core/*.c csrc/lua/*.c csrc/io/*.c")))) do
      local line = compiled[file]
      assert.truthy(line, file .. " not compiled: " .. log)
      for _, flag in ipairs { "-std=c99", "-pedantic", "-Wall", "-Wextra", "-ffp-contract=off", "-fPIC" } do
        assert.truthy(line:find(" " .. flag .. " ", 1, true), flag .. " missing from: " .. line)
      end
      assert.truthy(line:find(H.jit and "-I/usr/include/luajit-2.1" or ("-I/usr/include/lua" .. VER), 1, true), line)
      local object = file:gsub("^csrc/", "build/luarocks/obj/"):gsub("%.c$", ".o")
      assert.truthy(linked:find(object, 1, true), object .. " not linked: " .. linked)
    end
    -- every Lua file of lua/ is installed, unchanged
    local _, files = sh("cd " .. H.root .. " && find lua -name '*.lua' | sort")
    local n = 0
    for _, f in ipairs(lines(files)) do
      local a = assert(io.open(H.root .. "/" .. f, "rb")):read("*a")
      local b = io.open(tree .. "/share/lua/" .. VER .. "/" .. f:sub(5), "rb")
      assert(b, f .. " is not installed")
      assert(a == b:read("*a"), f .. " differs once installed")
      b:close()
      n = n + 1
    end
    assert.is_true(n > 20)
    -- (the script: no comment in it, its lines reach the shell joined; the
    -- importers' and exporters' subfolders, import/gltf/..., load from the tree)
    local script = [==[
      local function where(name, path)
        for p in path:gmatch("[^;]+") do
          local f = p:gsub("%?", (name:gsub("%.", "/")))
          local h = io.open(f)
          if h then h:close() return f end
        end
      end
      local anim = require "anim"
      local core = where("anim.core", package.cpath)
      local lua = where("anim", package.path)
      assert(core:find(TREE, 1, true), "core from " .. core)
      assert(lua:find(TREE, 1, true), "anim from " .. lua)
      for _, name in ipairs { "anim.import.gltf", "anim.import.gltf.accessor", "anim.export.gltf" } do
        local at = where(name, package.path)
        assert(at and at:find(TREE, 1, true), name .. " from " .. tostring(at))
        require(name)
      end
      local c = assert(anim.decode('{"joints":{"a":{"position":[[0,[0,0,0]],[1,[2,4,6]]]}}}'))
      local p = c:sample(0.5).a.position
      assert(p[1] == 1 and p[2] == 2 and p[3] == 3)
      print("installed ok")
    ]==]
    -- from a fresh shell: PATH and HOME alone, then the README's line
    H.write(home .. "/mygame.lua", "TREE = " .. string.format("%q", tree) .. "\n" .. script)
    local out2, code2 = H.fresh(string.format('cd / && eval "$(luarocks --lua-version=%s path)" && %s "$HOME/mygame.lua"',
      VER, H.lua), home)
    assert(code2 == 0, out2)
    assert.truthy(out2:find("installed ok", 1, true), out2)
    sh(string.format("rm -rf %q %q", home, src))
  end)

  it("has a rockspec luarocks lint accepts, with a real source url", function()
    local ok, out = sh(string.format("cd %q && luarocks lint anim-dev-1.rockspec", H.root))
    assert(ok, out)
    local spec = assert(io.open(H.root .. "/anim-dev-1.rockspec")):read("*a")
    local url = spec:match('url%s*=%s*"([^"]+)"')
    assert.truthy(url and url:match("^git%+https://"), url)
  end)

  it("keeps the core free of Lua headers outside the binding files (and csrc/io's)", function()
    local ok, out = sh(string.format("cd %q && grep -rl 'lua\\.h\\|lauxlib\\.h\\|lualib\\.h' csrc", H.root))
    assert(ok, out)
    for file in out:gmatch("[^\n]+") do
      assert.truthy(file:match("^csrc/lua/[%w_]+%.[ch]$") or file:match("^csrc/io/[%w_]+%.[ch]$"),
        file .. " includes a Lua header")
    end
  end)
end)
