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
        "csrc/core/amath.c", "csrc/core/curve.c", "csrc/core/clip.c", "csrc/core/rig.c", "csrc/core/animator.c",
        "csrc/lua/lua_module.c", "csrc/lua/lua_clip.c", "csrc/lua/lua_animator.c", "csrc/lua/lua_check.c",
      },
      incdirs = { "csrc" },
      libraries = { "m" },
    },
    ["anim"] = "lua/anim/init.lua",
    ["anim.base.errors"] = "lua/anim/base/errors.lua",
    ["anim.base.quat"] = "lua/anim/base/quat.lua",
    ["anim.base.json"] = "lua/anim/base/json.lua",
    ["anim.format.read"] = "lua/anim/format/read.lua",
    ["anim.format.keys"] = "lua/anim/format/keys.lua",
    ["anim.format.clip"] = "lua/anim/format/clip.lua",
    ["anim.import.xml"] = "lua/anim/import/xml.lua",
    ["anim.import.molang"] = "lua/anim/import/molang.lua",
    ["anim.import.bake"] = "lua/anim/import/bake.lua",
    ["anim.import.bbchannel"] = "lua/anim/import/bbchannel.lua",
    ["anim.import.bbmodel"] = "lua/anim/import/bbmodel.lua",
    ["anim.import.bedrock"] = "lua/anim/import/bedrock.lua",
    ["anim.import.blockbench"] = "lua/anim/import/blockbench.lua",
    ["anim.format.rig"] = "lua/anim/format/rig.lua",
    ["anim.format.bind"] = "lua/anim/format/bind.lua",
    ["anim.runtime.animator"] = "lua/anim/runtime/animator.lua",
    ["anim.runtime.library"] = "lua/anim/runtime/library.lua",
    ["anim.format.retarget"] = "lua/anim/format/retarget.lua",
    ["anim.format.encode"] = "lua/anim/format/encode.lua",
    ["anim.tool.cli"] = "lua/anim/tool/cli.lua",
    ["anim.tool.svg"] = "lua/anim/tool/svg.lua",
    ["anim.tool.plot"] = "lua/anim/tool/plot.lua",
    ["anim.tool.sheet"] = "lua/anim/tool/sheet.lua",
  },
  install = { bin = { anim = "bin/anim" } }, -- the command (docs/cli.md)
}
