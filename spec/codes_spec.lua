-- The C-Lua contract (issue 16): csrc/core/codes.h defines every code once;
-- the binding exports it as the read-only anim.core.codes, and the Lua side
-- takes its numbers from lua/anim/base/codes.lua.  This reads codes.h as
-- text and checks that Lua sees exactly its names and numbers.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local core = require "anim.core"
local codes = require "anim.base.codes"

local function read(path)
  local f = assert(io.open(H.root .. "/" .. path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

-- codes.h -> { group = { name = value } }, from its X-macro lists.
local function parse_header()
  local text = read("csrc/core/codes.h"):gsub("\\\n", " ")
  local lists = {}
  for macro, body in text:gmatch("#define (ANIM_[%u_]+_CODES)%(X%)%s*([^\n]*)") do
    local entries = {}
    for id, name, value in body:gmatch("X%((ANIM_[%w_]+),%s*\"([%w_]+)\",%s*([^%)]+)%)") do
      entries[#entries + 1] = { id = id, name = name, value = value }
    end
    lists[macro] = entries
  end
  local groups, defines = {}, {}
  for name, value in text:gmatch("#define (ANIM_[%u_]+)%s+([%d.e%-]+)") do defines[name] = tonumber(value) end
  for group, macro in text:match("#define ANIM_CODE_GROUPS%(G%)%s*([^\n]*)"):gmatch('G%("([%w_]+)",%s*(ANIM_[%u_]+)%)') do
    local g = {}
    for _, e in ipairs(assert(lists[macro], macro)) do g[e.name] = assert(tonumber(e.value), e.value) end
    groups[group] = g
  end
  local floats = {}
  for _, e in ipairs(lists.ANIM_FLOAT_CODES) do floats[e.name] = assert(defines[e.value], e.value) end
  groups.float = floats
  return groups
end

describe("the codes of csrc/core/codes.h", function()
  local header = parse_header()

  it("are what anim.core.codes exports, every group, name and number", function()
    local n = 0
    for group, list in pairs(header) do
      assert.is_table(core.codes[group], group)
      for name, value in pairs(list) do
        assert.are.equal(value, core.codes[group][name], group .. "." .. name)
        n = n + 1
      end
      for name in pairs(core.codes[group]) do assert.is_not_nil(list[name], "extra " .. group .. "." .. name) end
    end
    for group in pairs(core.codes) do assert.is_not_nil(header[group], "extra group " .. group) end
    assert.is_true(n > 80, "read " .. n .. " codes")
  end)

  it("are the numbers lua/anim/base/codes.lua gives every Lua file", function()
    for group, list in pairs(header) do
      for name, value in pairs(list) do assert.are.equal(value, codes[group][name], group .. "." .. name) end
    end
    assert.are.same({ "linear", "step", "catmullrom", "bezier", "sine", "quad", "cubic", "quart", "quint",
      "expo", "circ", "back", "bounce", "elastic", "cubicspline" }, codes.names("interp"))
    assert.are.equal("pingpong", codes.name("loop", 3))
    assert.is_nil(codes.name("loop", 4))
  end)

  it("are the lists the readers of files use", function()
    local format = require "anim.format.read"
    assert.are.same(codes.names("loop"), format.LOOPS)
    assert.are.same(codes.names("side"), format.SIDES)
    assert.are.same(codes.names("euler"), format.EULERS)
    assert.are.same(codes.names("interp"), format.INTERPS)
    assert.are.equal(header.keybyte.has_interp, format.HAS_INTERP)
    assert.are.equal(2 ^ header.keybyte.ease_shift, format.EASE_UNIT)
  end)

  it("give each status a number of its own", function()
    local seen = {}
    for name, value in pairs(header.status) do
      assert.is_nil(seen[value], name .. " and " .. tostring(seen[value]) .. " are both " .. value)
      seen[value] = name
    end
  end)

  it("cannot be changed by a script", function()
    assert.has_error(function() core.codes.interp.linear = 5 end)
    assert.has_error(function() core.codes.interp = {} end)
    assert.has_error(function() codes.interp.linear = 5 end)
    assert.has_error(function() codes.loop = {} end)
    assert.are.equal(0, core.codes.interp.linear)
    assert.are.equal("read-only", getmetatable(core.codes))
    -- walked like tables, all the same (5.2+: through __pairs; 5.1 and
    -- LuaJIT have none, and walk the empty proxy: docs/runtimes.md)
    local n = 0
    for _ in pairs(core.codes.loop) do n = n + 1 end
    assert.are.equal(H.meta_pairs and 4 or 0, n)
    -- a copy is plain, and changing it changes nothing
    local copy = core.codes_copy()
    copy.loop.once = 99
    assert.are.equal(0, core.codes.loop.once)
  end)
end)
