-- What the module reads, writes and orders does not depend on the C
-- locale a host sets (os.setlocale; a game choosing its language).  Child
-- processes run under locales made with localedef from Debian's `locales`
-- (scripts/deps.sh):
-- - en_US.UTF-8 collates: Lua's < on strings (strcoll) puts "a" before "B"
--   where bytes put "B" first.  Names sort by their bytes there too
--   (lua/anim/base/order.lua): a compressed clip written under the C locale
--   keeps each joint's motion (its pack is matched to the joints by index:
--   before, joint a played B's), and a clip's joints, a state's properties
--   and what messages list keep byte order.
-- - de_DE.UTF-8 writes 0.5 as "0,5": a state's "%a" numbers keep their '.'
--   (before, a peer under another locale refused them), and numbers of
--   files read on every runtime (compat.number; before, Lua 5.1 and 5.2 read
--   no "1.5" there and a Bedrock import raised), and numbers written into
--   text keep '.' (compat.numtext: Molang written as Lua, a DragonBones
--   version given as a number, messages).
local anim = require "anim"
local H = require "spec.helper"

-- A directory holding the en_US.UTF-8 and de_DE.UTF-8 locales, made once.
local locdir
local function locale_dir()
  if not locdir then
    locdir = H.tmpdir()
    for _, l in ipairs { "en_US", "de_DE" } do
      local out, code = H.popen(string.format("localedef -i %s -f UTF-8 %s 2>&1", l, H.sq(locdir .. "/" .. l .. ".UTF-8")))
      assert(code == 0, "localedef could not make " .. l .. ".UTF-8 (scripts/deps.sh test installs `locales`): " .. out)
    end
  end
  return locdir
end

-- Runs the Lua code in a process under the locale (os.setlocale(locale,
-- category); LOCPATH: the locales made above; the module's paths as this
-- process has them); its output lines.
local function under(locale, category, code, ...)
  local dir = H.tmpdir()
  H.write(dir .. "/run.lua", string.format("assert(os.setlocale(%q, %q), %q)\n", locale, category, "no " .. locale)
    .. code)
  local args = {}
  for i, a in ipairs { ... } do args[i] = H.sq(a) end
  local out, status = H.popen(string.format("cd %s && LOCPATH=%s %s %s %s 2>&1", H.sq(H.root), H.sq(locale_dir()), H.lua,
    H.sq(dir .. "/run.lua"), table.concat(args, " ")))
  assert(status == 0, out)
  local lines = {}
  for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
  return lines
end
local function collating(code, ...) return under("en_US.UTF-8", "collate", code, ...) end
local function comma(code, ...) return under("de_DE.UTF-8", "all", code, ...) end

local TWO = [[
  local anim = require "anim"
  local function two()
    return assert(anim.clip({ version = 3, length = 1,
      skeleton = { a = { translation = { 0, 0, 0 } }, B = { translation = { 0, 0, 0 } } },
      joints = { a = { position = { { 0, { 1, 1, 1 } }, { 1, { 2, 2, 2 } } } },
                 B = { position = { { 0, { -5, -5, -5 } }, { 1, { -7, -7, -7 } } } } },
      properties = { a = { { 0, 1 }, { 1, 2 } }, B = { { 0, 3 }, { 1, 4 } } } }, "two"))
  end
]]

describe("orders under a collating locale", function()
  it("is what the child process collates by: the locale acts", function()
    -- (else every spec below would pass under the C locale's order; LuaJIT
    -- compares strings by their bytes whatever the locale)
    assert.are.same({ rawget(_G, "jit") and "false" or "true" }, collating('print("a" < "B")'))
  end)

  it("reads a compressed clip written under the C locale with each joint's own motion", function()
    assert.is_false("a" < "B", "this process collates as C")
    local path = H.tmpdir() .. "/two.animc"
    local c = assert(anim.compress(assert((rawget(_G, "loadstring") or load)(TWO .. " return two()"))(), { error = 1e-4, distance = 0.1 }))
    assert(anim.save(c, path))
    local here = c:sample(0.5)
    assert.are.equal(1.5, here.a.position[1])
    local lines = collating(TWO .. [[
      local s = assert(anim.load(arg[1])):sample(0.5)
      print(string.format("%g %g", s.a.position[1], s.B.position[1]))
      s = anim.compress(two(), { error = 1e-4, distance = 0.1 }):sample(0.5)
      print(string.format("%g %g", s.a.position[1], s.B.position[1]))
    ]], path)
    assert.are.same({ "1.5 -6", "1.5 -6" }, lines)
  end)

  it("keeps a clip's joints, a state's properties and a message's names in byte order", function()
    local lines = collating(TWO .. [[
      local c = two()
      print(table.concat(c:joints(), ","))
      print(table.concat(c:properties(), ","))
      local a = anim.animator(assert(anim.rig({ joints = { { name = "a" }, { name = "B" } } }, "r")))
      a:play(c)
      a:update(0.5)
      local names = {}
      for i, p in ipairs(a:state().properties) do names[i] = p.name end
      print(table.concat(names, ","))
      print(select(2, pcall(a.property, a, "z")))
    ]])
    assert.are.equal("B,a", lines[1])
    assert.are.equal("B,a", lines[2])
    assert.are.equal("B,a", lines[3])
    assert.truthy(lines[4]:find("the properties: B, a", 1, true), lines[4])
  end)
end)

-- A scene of the player rig: a clip of fractional keys, played and updated
-- to fractions of a second; its state encoded (cjson writes its numbers
-- and strings as they are).
local SCENE = [[
  local anim = require "anim"
  local cjson = require "cjson"
  local clip = assert(anim.clip({ length = 1.25, joints = { head = {
    position = { { 0, { 0.1, 0, 0 } }, { 1.25, { 1.5, 0.25, 0 } } },
    rotation = { { 0, { 0, 0, 0 } }, { 1.25, { 0, 37.5, 0 } } } } } }, "c"))
  local function scene()
    local a = anim.animator(anim.rig("player"))
    a:play(clip, { speed = 0.75 })
    a:update(0.3)
    return a
  end
]]

describe("numbers under a locale whose point is a comma", function()
  it("is what the child process formats by: the locale acts", function()
    -- (LuaJIT formats and reads numbers by its own code, whatever the locale)
    assert.are.same({ rawget(_G, "jit") and "0.5" or "0,5" }, comma('print(string.format("%.1f", 0.5))'))
  end)

  it("writes a state's numbers with '.' and restores a peer's written under another locale", function()
    local here = assert((rawget(_G, "loadstring") or load)(SCENE .. " return scene, clip, cjson"))
    local scene, clip, cjson = here()
    local mine = scene():state()
    local dir = H.tmpdir()
    H.write(dir .. "/mine.json", cjson.encode(mine))
    local lines = comma(SCENE .. [[
      local f = assert(io.open(arg[1] .. "/theirs.json", "wb"))
      f:write(cjson.encode(scene():state()))
      f:close()
      f = assert(io.open(arg[1] .. "/mine.json", "rb"))
      local b = anim.animator(anim.rig("player"))
      local ok, why = b:restore(cjson.decode(f:read("*a")), function() return clip end)
      print(ok and "restored" or why)
      f:close()
    ]], dir)
    assert.are.same({ "restored" }, lines)
    local f = assert(io.open(dir .. "/theirs.json", "rb"))
    local theirs = cjson.decode(f:read("*a"))
    f:close()
    assert.are.same(mine, theirs)
    local b = anim.animator(anim.rig("player"))
    assert(b:restore(theirs, function() return clip end))
  end)

  it("reads a Bedrock file's time keys and Molang numbers as under the C locale", function()
    local doc = [[{"format_version": "1.8.0", "animations": {"a": {"animation_length": 1.5, "bones": {"b": {
      "position": {"0.0": [0.5, 0, 0], "0.75": [1.25, "math.sin(query.anim_time * 90.5) * 1.5", 0],
                   "1.5": [0.5, 0, 0]}}}}}}]]
    local code = [[
      local anim = require "anim"
      local clips = assert(anim.decode_blockbench(arg[1], "b"))
      local p = clips.a:sample(0.6).b.position
      os.setlocale("C", "numeric") -- (the figures printed with '.')
      print(string.format("%.9e %.9e", p[1], p[2]))
    ]]
    local want = under("C", "all", code, doc)
    assert.are.equal(1, #want)
    assert.are.same(want, comma(code, doc))
  end)

  it("writes Molang as Lua as under the C locale: the same value for the same work", function()
    -- (a literal written "90,5" made the generated chunk fail to load: the
    -- expression fell back to its closures, eight times the work counted,
    -- so that a file read under C could run out of its budget)
    local code = [[
      local molang = require "anim.import.blockbench.molang"
      local work = { used = 0, limit = 1e9 }
      local e = assert(molang.compile("math.sin(query.anim_time * 90.5) * 1.5", { work = work }))
      local v = e.fn(0.25)
      os.setlocale("C", "numeric")
      print(string.format("%.17g %d", v, work.used))
    ]]
    local want = under("C", "all", code)
    assert.are.same(want, comma(code))
  end)

  it("writes a clip's text as under the C locale: every number with '.', read back the same", function()
    -- (numbers of 15, 16 and 17 digits, tiny and huge ones, -0; the .anim
    -- writer's shortest text that reads back: csrc/lua/lua_numtext.c)
    local code = [[
      local anim = require "anim"
      local c = assert(anim.clip({ version = 3, length = 1.5, joints = { a = { position = {
        { 0, { 0.1, 1 / 3, 2 / 3 } }, { 0.25, { 1e-300, 1.5e300, -0.0 } },
        { 1.5, { 0.30000000000000004, 123456.789, -2.5e-7 } } } } } }, "c"))
      local text = assert(anim.encode(c))
      local back = assert(anim.decode(text, "c"))
      io.write(text, assert(anim.encode(back)) == text and "same\n" or "other\n")
    ]]
    local want = under("C", "all", code)
    assert.are.equal("same", want[#want])
    assert.is_truthy(table.concat(want, "\n"):find("0.3333333333333333", 1, true))
    assert.are.same(want, comma(code))
  end)

  it("reads a DragonBones version given as a number, and writes messages' numbers with '.'", function()
    local path = H.tmpdir() .. "/v.json"
    H.write(path, '{"version": 5.5, "name": "x", "frameRate": 24, "armature": [{"name": "a", "type": "Armature",'
      .. ' "bone": [{"name": "root"}], "slot": [], "skin": [], "animation": [{"name": "idle", "duration": 24}]}]}')
    local lines = comma([[
      local anim = require "anim"
      local r, err = anim.import_dragonbones(arg[1])
      print(r and "read" or err)
      print(tostring(assert(anim.clip({ length = 1.25, joints = {} }, "c"))))
      print(select(2, pcall(anim.set_limits, { keys = 1.5 })))
      print(require("anim.base.order").first_unknown({ [1.5] = true, ["1-"] = true }, {}))
    ]], path)
    assert.are.same({ "read", "anim.clip(c, 1.25 s, 0 joints)",
      "bad argument #1 to 'set_limits' (keys must be a whole number, got 1.5)", "1-" }, lines)
  end)
end)
