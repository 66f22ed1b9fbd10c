-- luarocks --lua-version=5.4 make --deps-mode=none   (Debian provides lua-cjson,
-- lua-lpeg, lua-expat and lua-argparse).  The build is the Makefile's: `make build` with
-- LuaRocks' CFLAGS and Lua headers, then `make install` into the rock's
-- folders, so the core is compiled with the flags `make test` tests
-- (-std=c99 -ffp-contract=off, -pthread) and every Lua file under lua/ is installed.
rockspec_format = "3.0"
package = "anim"
version = "dev-1"
source = {
  url = "git+https://github.com/anim-lua/anim.git",
  branch = "main",
}
description = {
  summary = "Animation clips, rigs and animators for Lua 5.1 to 5.4 and LuaJIT, with a C core",
  detailed = [[
Load .anim clips (and legacy XML, Blockbench and Bedrock animations), sample
their curves exactly, play them on rigs through animators that blend, layer
and time several tracks, retarget clips between rigs, and react to markers,
events, sounds and chained clips through Lua callbacks.
]],
  homepage = "https://github.com/anim-lua/anim",
  license = "MIT",
}
dependencies = {
  "lua >= 5.1", -- 5.1 to 5.4, and LuaJIT 2.1: luarocks --lua-version=5.1 make LUA_INCDIR=/usr/include/luajit-2.1
  "lua-cjson",
  "lpeg", -- the Blockbench importer's Molang parser (Debian: lua-lpeg)
  "luaexpat", -- the legacy XML importer's parser (Debian: lua-expat)
  "argparse", -- the command's command line (Debian: lua-argparse)
}
build = {
  type = "make",
  build_target = "build",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LUA_INC = "$(LUA_INCDIR)",
    BUILD = "build/luarocks",
    THREADS = "-pthread", -- the batch update's worker threads (csrc/core/pool.c)
  },
  install_target = "install",
  install_variables = {
    BUILD = "build/luarocks",
    INST_LIBDIR = "$(LIBDIR)",
    INST_LUADIR = "$(LUADIR)",
    INST_BINDIR = "$(BINDIR)",
  },
}
