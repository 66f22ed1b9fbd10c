-- The module's orders are its names' bytes whatever the C locale a host
-- sets (lua/anim/base/order.lua): Lua's < on strings follows strcoll, and
-- under en_US.UTF-8 it puts "a" before "B" where bytes put "B" first.  A
-- Lua process made to collate so (a locale made with localedef from
-- Debian's `locales`, scripts/deps.sh) reads a compressed clip written
-- under the C locale with each joint's own motion (its pack is matched to
-- the joints by index: before, joint a played B's), and keeps byte order
-- in a clip's joints, a state's properties and what messages list.
local anim = require "anim"
local H = require "spec.helper"

-- A directory holding the en_US.UTF-8 locale, made once.
local locdir
local function locale_dir()
  if not locdir then
    locdir = H.tmpdir()
    local out, code = H.popen(string.format("localedef -i en_US -f UTF-8 %s 2>&1",
      H.sq(locdir .. "/en_US.UTF-8")))
    assert(code == 0, "localedef could not make en_US.UTF-8 (scripts/deps.sh test installs `locales`): " .. out)
  end
  return locdir
end

-- Runs the Lua code in a process collating as en_US.UTF-8 (LOCPATH: the
-- locale made above; the module's paths as this process has them); its
-- output lines.
local function collating(code, ...)
  local dir = H.tmpdir()
  H.write(dir .. "/run.lua", 'assert(os.setlocale("en_US.UTF-8", "collate"), "no en_US.UTF-8")\n' .. code)
  local args = {}
  for i, a in ipairs { ... } do args[i] = H.sq(a) end
  local out, status = H.popen(string.format("cd %s && LOCPATH=%s %s %s %s 2>&1", H.sq(H.root), H.sq(locale_dir()), H.lua,
    H.sq(dir .. "/run.lua"), table.concat(args, " ")))
  assert(status == 0, out)
  local lines = {}
  for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
  return lines
end

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
