-- The dependency rule of docs/architecture.md, read from the sources: each
-- `require` of lua/anim/ and each `#include` of csrc/.  A layer uses only
-- the layers below it (and its own):
--   Lua:  anim.core < base < format < runtime < import < export < anim (init.lua) < love < tool
-- (anim.love: lua/anim/love/init.lua, the drawing of 2D skeletons in LÖVE)
-- A layer's folder may hold one level of subfolders, one per family
-- (import/gltf/, import/blockbench/, export/gltf/): a family uses the
-- families of the layers below it, and of its own layer only itself.
--   C:    csrc/core (no Lua header) < csrc/lua (the binding, over lua_helpers.h,
--         which alone includes lua_compat.h); csrc/io (the readers' byte
--         and file utilities) beside the binding, over lua/lua_helpers.h,
--         registered by lua_module.c alone (through io/io.h)
-- and anim.core is reached only from base, format, runtime, import and
-- export (importers and exporters read and write bytes through C: glTF);
-- the face and the tools go through the layers.
local H = require "spec.helper"

local LAYERS = { core = 0, base = 1, format = 2, runtime = 3, import = 4, export = 5, anim = 6, love = 7, tool = 8 }
local LAYER_NAMES = { [0] = "anim.core", "base", "format", "runtime", "import", "export", "anim", "love", "tool" }
local EXTERNAL = { cjson = true, lpeg = true, lxp = true, argparse = true }
local REACH_CORE = { base = true, format = true, runtime = true, import = true, export = true }

local function sh(cmd)
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  return out
end

local function files(pattern_cmd)
  local out = {}
  for f in sh("cd " .. H.root .. " && " .. pattern_cmd):gmatch("[^\n]+") do out[#out + 1] = f end
  return out
end

-- The layer of a module name (nil: not one of the module's), and its
-- family: the subfolder of the layer it is in, or is (anim.import.gltf,
-- anim.import.gltf.file: gltf), nil for a file of the layer's own folder.
local function module_layer(name)
  if name == "anim.core" then return "core" end
  if name == "anim" then return "anim" end
  if name == "anim.love" then return "love", "love" end
  local layer, rest = name:match("^anim%.(%w+)%.([%w_.]+)$")
  if layer and LAYERS[layer] then
    local family = rest:match("^([%w_]+)%.[%w_]+$")
    if family or io.open(H.root .. "/lua/anim/" .. layer .. "/" .. rest .. "/init.lua") then
      return layer, family or rest
    end
    return layer
  end
end

-- Whether module `name` is a file of lua/ (lua/a/b.lua or lua/a/b/init.lua).
local function module_exists(name)
  local base = H.root .. "/lua/" .. name:gsub("%.", "/")
  for _, f in ipairs({ base .. ".lua", base .. "/init.lua" }) do
    local h = io.open(f)
    if h then h:close() return true end
  end
  return false
end

-- The layer of a file of lua/anim/ and its family (the subfolder it is in,
-- one level at most).
local function file_layer(path)
  if path == "lua/anim/init.lua" then return "anim" end
  if path == "lua/anim/love/init.lua" then return "love", "love" end
  local layer = path:match("^lua/anim/(%w+)/[%w_]+%.lua$")
  if layer then return layer end
  return path:match("^lua/anim/(%w+)/([%w_]+)/[%w_]+%.lua$")
end

-- A layer's folder or its family's subfolder, as messages name it.
local function folder(layer, family)
  return layer .. "/" .. (family and family .. "/" or "")
end

-- Every breach of the Lua rule in the text of file `path`: a list of lines.
local function lua_breaches(path, text)
  local out = {}
  local layer, family = file_layer(path)
  if not layer or not LAYERS[layer] or layer == "core" then
    out[#out + 1] = path .. ": not in a layer folder (lua/anim/{base,format,runtime,import,export,love,tool}/,"
      .. " one subfolder of one, or init.lua)"
    return out
  end
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local code = line:gsub("%-%-.*$", "")
    for call in code:gmatch("%f[%w_]require%f[^%w_]%s*%(?%s*([^%s%)]+)") do
      local name = call:match("^[\"']([%w_.]+)[\"']$")
      local where = string.format("%s:%d", path, n)
      if not name then
        out[#out + 1] = where .. ": require of something not written as a string: " .. call
      elseif not EXTERNAL[name] then
        local to, to_family = module_layer(name)
        if not to then
          out[#out + 1] = where .. ": requires " .. name .. ", which is in no layer"
        elseif to ~= "core" and not module_exists(name) then
          out[#out + 1] = where .. ": requires " .. name .. ", which is no file of lua/"
        elseif to == layer and to_family ~= family then
          out[#out + 1] = string.format("%s: requires %s: %s goes to another family of its layer (%s)",
            where, name, folder(layer, family), folder(to, to_family))
        elseif LAYERS[to] > LAYERS[layer] then
          out[#out + 1] = string.format("%s: requires %s: the %s layer is above %s (a layer uses only the layers below it)",
            where, name, LAYER_NAMES[LAYERS[to]], layer)
        elseif to == "core" and not REACH_CORE[layer] then
          out[#out + 1] = string.format("%s: requires anim.core: %s goes through the layers below it", where, layer)
        end
      end
      -- a require inside a function (indented) only in init.lua, for the
      -- importers whose parsers (lxp, lpeg) a game may not have
      if line:match("^%s+") and layer ~= "anim" then
        out[#out + 1] = where .. ": require inside a function (only init.lua loads lazily)"
      end
    end
  end
  return out
end

-- Every breach of the C rule in file `path`.
local function c_breaches(path, text)
  local out = {}
  local dir = path:match("^csrc/(%w+)/")
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local inc = line:match('^%s*#%s*include%s*"([^"]+)"')
    if inc then
      local where = string.format("%s:%d: includes \"%s\"", path, n, inc)
      if dir == "core" then
        if inc:match("^lua") or inc == "lauxlib.h" then
          out[#out + 1] = where .. ": no Lua header in the core"
        elseif inc:find("/", 1, true) or not io.open(H.root .. "/csrc/core/" .. inc) then
          out[#out + 1] = where .. ": csrc/core includes only its own headers"
        end
      elseif dir == "lua" then
        local ok = inc == "lua.h" or inc == "lauxlib.h" or inc == "lualib.h" or inc == "lua_helpers.h"
          or (inc == "lua_compat.h" and path == "csrc/lua/lua_helpers.h") -- (the versions' differences)
          or (inc:match("^core/[%w_]+%.h$") and io.open(H.root .. "/csrc/" .. inc))
          or (inc == "io/io.h" and path == "csrc/lua/lua_module.c") -- (the registration of csrc/io's)
          -- (the delivery's two files share their own header)
          or (inc == "lua_deliver.h" and path:match("^csrc/lua/lua_deliver[%w_]*%.[ch]$"))
          -- (so do the 2D drawing's: records and drawers, slot readers, runs)
          or (inc == "lua_draw2d.h" and path:match("^csrc/lua/lua_draw2d[%w_]*%.[ch]$"))
          -- (the module buffer, which bindings write into: lua_buffer.c)
          or inc == "lua_buffer.h"
        if not ok then
          out[#out + 1] = where .. ": a binding file includes the Lua headers, lua_helpers.h and core/ only"
        end
      elseif dir == "io" then
        local ok = inc == "lua.h" or inc == "lauxlib.h" or inc == "lualib.h" or inc == "lua/lua_helpers.h"
          or ((inc:match("^core/[%w_]+%.h$") or inc:match("^io/[%w_]+%.h$")) and io.open(H.root .. "/csrc/" .. inc))
        if not ok then
          out[#out + 1] = where .. ": a file of csrc/io includes the Lua headers, lua/lua_helpers.h, core/ and io/ only"
        end
      else
        out[#out + 1] = path .. ": not in csrc/core, csrc/lua or csrc/io"
      end
    elseif line:match('^%s*#%s*include%s*<lua') or line:match('^%s*#%s*include%s*<lauxlib') then
      if dir ~= "lua" and dir ~= "io" then
        out[#out + 1] = string.format("%s:%d: a Lua header outside csrc/lua and csrc/io", path, n)
      end
    end
  end
  return out
end

describe("the layers (docs/architecture.md)", function()
  it("every require of lua/anim/ goes to its own layer or one below", function()
    local breaches, count = {}, 0
    for _, f in ipairs(files("find lua -name '*.lua' | sort")) do
      for _, b in ipairs(lua_breaches(f, H.read(H.root .. "/" .. f))) do breaches[#breaches + 1] = b end
      count = count + 1
    end
    assert.is_true(count > 20)
    assert(#breaches == 0, "\n" .. table.concat(breaches, "\n"))
  end)

  it("every #include of csrc/ keeps the core free of Lua and the bindings apart", function()
    local breaches = {}
    for _, f in ipairs(files("find csrc -name '*.[ch]' | sort")) do
      for _, b in ipairs(c_breaches(f, H.read(H.root .. "/" .. f))) do breaches[#breaches + 1] = b end
    end
    assert(#breaches == 0, "\n" .. table.concat(breaches, "\n"))
  end)

  it("the checks find a breach when there is one", function()
    local up = lua_breaches("lua/anim/base/errors.lua", 'local a = require "anim.runtime.animator"\n')
    assert.are.same({ "lua/anim/base/errors.lua:1: requires anim.runtime.animator: the runtime layer is above base"
      .. " (a layer uses only the layers below it)" }, up)
    assert.are.equal(1, #lua_breaches("lua/anim/tool/cli.lua", 'local core = require "anim.core"\n'))
    assert.are.equal(1, #c_breaches("csrc/lua/lua_play.c", '#include "lua_deliver.h"\n'))
    assert.are.equal(0, #c_breaches("csrc/lua/lua_deliver_other.c", '#include "lua_deliver.h"\n'))
    assert.are.equal(0, #c_breaches("csrc/lua/lua_draw2d_run.c", '#include "lua_draw2d.h"\n'))
    assert.are.equal(1, #c_breaches("csrc/lua/lua_skin.c", '#include "lua_draw2d.h"\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/format/clip.lua", 'local function f()\n  return require "anim.base.json"\nend\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/format/clip.lua", 'local m = require(name)\n'))
    assert.are.equal(0, #lua_breaches("lua/anim/tool/cli.lua", 'local anim = require "anim"\nlocal l = require "lpeg"\n'))
    -- subfolders: a family uses its own files and the layers below, not another family of its layer
    assert.are.equal(0, #lua_breaches("lua/anim/import/gltf/init.lua",
      'local F = require "anim.import.gltf.file"\nlocal E = require "anim.base.errors"\n'))
    assert.are.equal(0, #lua_breaches("lua/anim/export/gltf/init.lua", 'local gltf = require "anim.import.gltf"\n'))
    assert.are.same({ "lua/anim/import/gltf/init.lua:1: requires anim.import.blockbench.molang: import/gltf/ goes to"
      .. " another family of its layer (import/blockbench/)" },
      lua_breaches("lua/anim/import/gltf/init.lua", 'local m = require "anim.import.blockbench.molang"\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/import/gltf/init.lua", 'local x = require "anim.import.blockbench"\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/import/blockbench/init.lua", 'local x = require "anim.export.gltf"\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/import/gltf/init.lua", 'local x = require "anim.import.gltf.nothing"\n'))
    assert.are.equal(1, #lua_breaches("lua/anim/import/gltf/deeper/x.lua", ''))
    assert.are.equal(1, #lua_breaches("lua/anim/import/gltf/file.lua", 'local function f()\n  return require "anim.import.gltf.accessor"\nend\n'))
    assert.are.equal(1, #c_breaches("csrc/core/clip.c", '#include "lua.h"\n'))
    assert.are.equal(1, #c_breaches("csrc/lua/lua_clip.c", '#include "lua_animator.c"\n'))
    assert.are.equal(0, #c_breaches("csrc/lua/lua_clip.c", '#include "core/clip.h"\n#include "lua_helpers.h"\n'))
    assert.are.equal(0, #c_breaches("csrc/lua/lua_pose.c", '#include "lua_buffer.h"\n'))
    assert.are.equal(1, #c_breaches("csrc/lua/lua_pose.c", '#include "lua_buffer.c"\n'))
    -- csrc/io: beside the binding, registered by lua_module.c alone
    assert.are.equal(0, #c_breaches("csrc/io/check.c", '#include "lua.h"\n#include "lua/lua_helpers.h"\n#include "io/io.h"\n'))
    assert.are.equal(1, #c_breaches("csrc/io/check.c", '#include "lua/lua_clip.c"\n'))
    assert.are.equal(1, #c_breaches("csrc/lua/lua_clip.c", '#include "io/io.h"\n'))
    assert.are.equal(0, #c_breaches("csrc/lua/lua_module.c", '#include "io/io.h"\n'))
    assert.are.equal(1, #c_breaches("csrc/core/clip.c", '#include "io/io.h"\n'))
  end)

  it("the command loads only the tool layer", function()
    local text = H.read(H.root .. "/bin/anim")
    local names = {}
    for name in text:gmatch('require%(?%s*"([%w_.]+)"') do names[#names + 1] = name end
    assert.are.same({ "anim.tool.cli" }, names)
  end)
end)
