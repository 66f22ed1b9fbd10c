-- luarocks --lua-version=5.4 make --deps-mode=none   (Debian provides lua-cjson)
rockspec_format = "3.0"
package = "anim"
version = "dev-1"
source = {
  url = "git+file:///dev/null", -- built from a checkout with `luarocks make`
}
description = {
  summary = "Animation clips, rigs and animators for Lua 5.4, with a C core",
  detailed = [[
Load .anim clips (and legacy XML), sample their curves exactly, play them on
rigs through animators that blend, layer and time several tracks, and react
to markers, events, sounds and chained clips through Lua callbacks.
]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
  "lua-cjson",
  "lpeg", -- the Blockbench importer's Molang parser (Debian: lua-lpeg)
  "luaexpat", -- the legacy XML importer's parser (Debian: lua-expat)
}
build = {
  type = "builtin",
  modules = {
    ["anim.core"] = {
      sources = {
        "csrc/amath.c", "csrc/curve.c", "csrc/clip.c", "csrc/rig.c", "csrc/animator.c",
        "csrc/lua_anim.c", "csrc/lua_clip.c", "csrc/lua_animator.c", "csrc/lua_check.c",
      },
      incdirs = { "csrc" },
      libraries = { "m" },
    },
    ["anim"] = "lua/anim/init.lua",
    ["anim.errors"] = "lua/anim/errors.lua",
    ["anim.quat"] = "lua/anim/quat.lua",
    ["anim.json"] = "lua/anim/json.lua",
    ["anim.format"] = "lua/anim/format.lua",
    ["anim.keys"] = "lua/anim/keys.lua",
    ["anim.clip"] = "lua/anim/clip.lua",
    ["anim.xml"] = "lua/anim/xml.lua",
    ["anim.molang"] = "lua/anim/molang.lua",
    ["anim.bake"] = "lua/anim/bake.lua",
    ["anim.bbchannel"] = "lua/anim/bbchannel.lua",
    ["anim.bbmodel"] = "lua/anim/bbmodel.lua",
    ["anim.bedrock"] = "lua/anim/bedrock.lua",
    ["anim.blockbench"] = "lua/anim/blockbench.lua",
    ["anim.rig"] = "lua/anim/rig.lua",
    ["anim.bind"] = "lua/anim/bind.lua",
    ["anim.animator"] = "lua/anim/animator.lua",
    ["anim.library"] = "lua/anim/library.lua",
    ["anim.retarget"] = "lua/anim/retarget.lua",
    ["anim.encode"] = "lua/anim/encode.lua",
    ["anim.cli"] = "lua/anim/cli.lua",
    ["anim.svg"] = "lua/anim/svg.lua",
    ["anim.plot"] = "lua/anim/plot.lua",
    ["anim.sheet"] = "lua/anim/sheet.lua",
  },
  install = { bin = { anim = "bin/anim" } }, -- the command (docs/cli.md)
}
