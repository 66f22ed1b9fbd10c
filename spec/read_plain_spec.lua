-- A compressed clip's usual table read with none of the checks' work
-- (format/read.lua's read_plain, its tables made by core.plain_tables in
-- csrc/lua/lua_readplain.c; issue 41: a small .animc's load): the
-- same desc and info as the full reading; nil, the full reading then
-- wording any message, for every table it does not read.
local core = require "anim.core"
local H = require "spec.helper"
local json = require "anim.base.json"
local format = require "anim.format.read"
local fields = require "anim.format.fields"
local anim = require "anim"

local same = H.same_typed
local STATS = { 0, 0, 0, 0, 0 }

-- The decoded table of a .animc whose table is t, and what is known of it.
local function decoded(t)
  local tab, _, _, _, _, _, sk = core.animc_read(core.animc_write(STATS, core.value_encode(t), ""), 1000)
  return tab, { tree_checked = true, skeleton = sk }
end

local SKELETON = json.decode('{"root": {"position": [0, 1.5, 0], "rotation": [0, 0, 0, 1]},' ..
  ' "arm": {"parent": "root", "position": [0.25, 1, -0.5], "rotation": [0.1, 0.2, 0.3, 2]}}')

describe("format.read_plain", function()
  it("reads what the full reading reads, the same", function()
    local cases = {
      { joints = { b = {}, a = {}, c = {} }, skeleton = SKELETON, version = 3, loop = "loop", euler = "zyx", length = 0.5 },
      { joints = { a = {} } },
      { joints = {}, version = 2, loop = "pingpong", length = 2 },
      { joints = { x = {}, y = {} }, loop = "once", euler = "xyz", length = 0, rig = "a/b.bbmodel", fps = 24,
        viewModel = { 1, 2 }, other = { kept = true } },
      { joints = { ["é"] = {}, Z = {}, z = {} }, skeleton = {}, length = 1.25e-3 },
      { joints = { a = {} }, absolute = true, length = 1 },
      { joints = { a = {} }, absolute = false },
    }
    -- (more joints than csrc/lua/lua_readplain.c sorts on the C stack)
    local many = { joints = {}, loop = "once" }
    for i = 1, 100 do many.joints[string.format("j%d", (i * 37) % 101)] = {} end
    cases[#cases + 1] = many
    for i, t in ipairs(cases) do
      local tab, known = decoded(t)
      local desc, info = format.read_plain(tab, known)
      assert.is_table(desc, i)
      local d2, i2 = format.read(tab, true, nil)
      assert.is_true(same(desc, d2), i)
      assert.is_true(same(info, i2), i)
      local d3, i3 = format.read(tab, true, known)
      assert.is_true(same(d3, d2) and same(i3, i2), i)
    end
  end)

  it("is nil for every other table", function()
    local base = { joints = { a = {} }, skeleton = SKELETON, version = 3, loop = "loop", euler = "zyx", length = 1 }
    local function with(k, v)
      local t = json.copy(base)
      t[k] = v
      return t
    end
    local cases = {
      with("version", 1), with("version", 4), with("version", "3"), with("version", core.null),
      with("loop", "LOOP"), with("loop", 1), with("loop", core.null), with("euler", "ZYX"), with("euler", "abc"),
      with("length", -1), with("length", "1"), with("length", core.null), with("joints", core.null),
      with("joints", { a = { weight = 1 } }), with("joints", { a = { 1 } }), with("joints", { 1, 2 }),
      with("skeleton", { a = { parent = "nobody" } }), with("skeleton", core.null),
      with("absolute", 1), with("absolute", core.null),
    }
    for f in pairs(format.FULL_FIELDS) do cases[#cases + 1] = with(f, {}) end
    for i, t in ipairs(cases) do
      local tab, known = decoded(t)
      assert.is_nil(format.read_plain(tab, known), i)
    end
    -- (a table with no skeleton the decoder read, and one with a metatable)
    local tab = decoded(base)
    assert.is_nil(format.read_plain(tab, { tree_checked = true }))
    tab.joints = setmetatable({}, {})
    assert.is_nil(format.read_plain(tab, { tree_checked = true, skeleton = {} }))
    -- (core.plain_tables: more joints than the limit, a joint with a metatable)
    assert.is_nil(core.plain_tables({ a = {}, b = {} }, 1))
    assert.is_table(core.plain_tables({ a = {}, b = {} }, 2))
    assert.is_nil(core.plain_tables({ a = setmetatable({}, {}) }, 10))
  end)

  it("knows every top-level field the reader knows", function()
    local editor = { rig = true, fps = true, viewModel = true }
    for _, n in ipairs(fields.names("clip")) do
      local sets = (format.PLAIN_FIELDS[n] and 1 or 0) + (format.FULL_FIELDS[n] and 1 or 0) + (editor[n] and 1 or 0)
      assert.are.equal(1, sets, n)
    end
  end)

  it("gives anim.load of a .animc the clip of the full reading", function()
    local t = { version = 3, length = 1, loop = "loop", euler = "zyx", skeleton = SKELETON,
      joints = { root = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } }, arm = { position = { { 0, { 0, 1, 0 } } } } } }
    local c = assert(anim.clip(t, "plain"))
    local rig = assert(anim.rig { joints = { { name = "root" }, { name = "arm", parent = "root" } } })
    local cc = assert(anim.compress(c, { rig = rig }))
    local path = os.tmpname()
    assert(anim.save(cc, path .. ".animc"))
    local fast = assert(anim.load(path .. ".animc"))
    -- (the full reading: the decoder's skeleton left out, which the plain
    -- reading needs)
    local core_read = core.animc_read
    core.animc_read = function(...)
      local r = { core_read(...) }
      return r[1], r[2], r[3], r[4], r[5], r[6], nil
    end
    local ok, slow = pcall(anim.load, path .. ".animc")
    core.animc_read = core_read
    os.remove(path .. ".animc")
    os.remove(path)
    assert.is_true(ok, slow)
    for _, k in ipairs { "version", "length", "loop", "euler", "layout", "priority", "speed", "blend", "space", "autoplay" } do
      assert.are.equal(slow[k], fast[k], k)
    end
    assert.is_true(same(fast:joints(), slow:joints()))
    for _, tm in ipairs { 0, 0.25, 0.5, 1 } do assert.is_true(same(fast:sample(tm), slow:sample(tm)), tm) end
  end)
end)
