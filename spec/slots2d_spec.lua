-- A 2D skeleton's slots read for drawing in one call a frame
-- (csrc/lua/lua_slots2d.c, attach2d.slots / read_slots / slot_entries):
-- the same attachments, colours and draw order as animator:slot and
-- animator:draw_order, whatever plays, after a restore, and the errors.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local attach2d = require "anim.runtime.attach2d"

-- What the reader says of an animator now, in animator:slot's terms: per
-- slot name { attachment name | false, r, g, b, a, dr, dg, db }, and the
-- draw order's slot names.
local function read(c, reader, a, sv)
  local order = c.orders[attach2d.read_slots(reader, a, sv)] or c.orders[0]
  local slots, names = {}, {}
  for i, sl in ipairs(c.slot_list) do
    local b, name = 8 * (i - 1), false
    local k = sv[b + 1]
    if k == -1 then name = sl.attachment or false
    elseif k >= 1 then name = sl.attachment_names[k] or false end
    slots[sl.name] = { name, sv[b + 2], sv[b + 3], sv[b + 4], sv[b + 5], sv[b + 6], sv[b + 7], sv[b + 8] }
  end
  for o, i in ipairs(order) do names[o] = c.slot_list[i].name end
  return slots, names
end

-- animator:slot's answers in the same form (no dark colour: 0s, as the
-- drawing takes them).
local function slot_of(a, name)
  local att, r, g, b, al, dr, dg, db = a:slot(name)
  return { att or false, r, g, b, al, dr or 0, dg or 0, db or 0 }
end

local function same_as_methods(c, reader, a, sv)
  local slots, order = read(c, reader, a, sv)
  assert.are.same(a:draw_order(), order)
  for _, sl in ipairs(c.slot_list) do assert.are.same(slot_of(a, sl.name), slots[sl.name], sl.name) end
  return slots, order
end

describe("slots2d", function()
  it("reads every slot and the draw order as animator:slot and animator:draw_order do", function()
    local cases = {
      { anim.import_spine, "spec/fixtures/spine/hero-4.1.json", "spec/fixtures/spine/hero-4.x.atlas" },
      { anim.import_spine, "spec/fixtures/spine/hero-3.8.json", "spec/fixtures/spine/hero-3.8.atlas" },
      { anim.import_dragonbones, "spec/fixtures/dragonbones/hero_ske.json", "spec/fixtures/dragonbones/hero_tex.json" },
    }
    local moved = { attachment = 0, color = 0, dark = 0, order = 0 }
    for _, cs in ipairs(cases) do
      local r = assert(cs[1](cs[2], cs[3]))
      local names = {}
      for name in pairs(r.clips) do names[#names + 1] = name end
      table.sort(names)
      for _, name in ipairs(names) do
        local a = anim.animator(r.skeleton)
        local c = attach2d.of(a)
        local reader, sv = attach2d.slots(c), {}
        a:play(r.clips[name], { fade = 0 })
        local setup = same_as_methods(c, reader, a, sv)
        for _ = 1, 24 do
          a:update(1 / 12)
          local slots, order = same_as_methods(c, reader, a, sv)
          for i, sl in ipairs(c.slot_list) do
            local s, s0 = slots[sl.name], setup[sl.name]
            if s[1] ~= s0[1] then moved.attachment = moved.attachment + 1 end
            if s[2] ~= s0[2] or s[5] ~= s0[5] then moved.color = moved.color + 1 end
            if s[6] ~= s0[6] then moved.dark = moved.dark + 1 end
            if order[i] ~= sl.name then moved.order = moved.order + 1 end
          end
        end
      end
    end
    -- (the fixtures' timelines change each of them somewhere)
    for what, n in pairs(moved) do assert.is_true(n > 0, what) end
  end)

  it("takes an attachment index as animator:slot does: rounded, none below 1 or past the names", function()
    local sk = assert(anim.skeleton2d({
      bones = { { name = "root" } },
      slots = { { name = "s", bone = "root", attachment = "b", attachment_names = { "a", "b", "c" }, dark = { 0.1, 0.2, 0.3 } },
        { name = "t", bone = "root" } },
      skins = { { name = "default", attachments = { s = {
        a = { type = "point" }, b = { type = "point" }, c = { type = "point" } } } } },
    }))
    local a = anim.animator(sk)
    local c = attach2d.of(a)
    local reader, sv = attach2d.slots(c), {}
    a:update(0)
    -- (no track: the setup attachment, which is not the names' first)
    local slots = same_as_methods(c, reader, a, sv)
    assert.are.same({ "b", 1, 1, 1, 1, 0.1, 0.2, 0.3 }, slots.s)
    assert.are.same({ false, 1, 1, 1, 1, 0, 0, 0 }, slots.t)
    assert.are.equal(-1, sv[1])
    local entries = attach2d.slot_entries(c, nil)
    assert.are.equal(attach2d.lookup(c, nil, "s", "b"), entries[1][-1])
    assert.are.equal(attach2d.lookup(c, nil, "s", "c"), entries[1][3])
    for _, case in ipairs { { 1.4, "a" }, { 2.6, "c" }, { 0, false }, { -3, false }, { 4, false }, { 1e300, false },
      } do
      local clip = assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
        properties = { ["slot.s.attachment"] = { { 0, { case[1] }, "step" } },
          ["slot.t.color"] = { { 0, { 0.5, 0.25 } } } } }, "k"))
      a = anim.animator(sk)
      a:play(clip, { fade = 0 })
      a:update(0.5)
      slots = read(c, reader, a, sv)
      assert.are.equal(case[2], slots.s[1], tostring(case[1]))
      if case[1] == case[1] then assert.are.equal(case[2], a:slot("s") or false, tostring(case[1])) end
      -- (a colour of fewer components: the setup's for the rest)
      assert.are.same({ false, 0.5, 0.25, 1, 1, 0, 0, 0 }, slots.t)
    end
  end)

  it("finds the names again when a restore puts another animator in the box", function()
    local sk = assert(anim.skeleton2d({
      bones = { { name = "root" } },
      slots = { { name = "x", bone = "root" }, { name = "y", bone = "root" } },
    }))
    local clips = {}
    local function clip(prop)
      clips[prop] = clips[prop] or assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
        properties = { [prop] = { { 0, { 0.5, 0.5, 0.5, 0.5 } } } } }, prop))
      return clips[prop]
    end
    local function resolve(name) return clips[name] end
    local a, b = anim.animator(sk), anim.animator(sk)
    a:play(clip("slot.x.color"), { fade = 0 })
    b:play(clip("slot.y.color"), { fade = 0 })
    a:update(0.1)
    b:update(0.1)
    local c = attach2d.of(a)
    local reader, sv = attach2d.slots(c), {}
    local slots = same_as_methods(c, reader, a, sv)
    assert.are.equal(0.5, slots.x[2])
    assert.are.equal(1, slots.y[2])
    -- (two restores between reads: the animator the reader saw is freed
    -- and the one in the box now may have its address; as many names)
    local sb, sa = b:state(), a:state()
    assert(a:restore(sb, resolve))
    assert(a:restore(sb, resolve))
    slots = same_as_methods(c, reader, a, sv)
    assert.are.equal(1, slots.x[2])
    assert.are.equal(0.5, slots.y[2])
    assert(a:restore(sa, resolve))
    slots = same_as_methods(c, reader, a, sv)
    assert.are.equal(0.5, slots.x[2])
    -- (a name played later on the same animator: found then)
    a:play(clip("slot.y.color"), { fade = 0 })
    a:update(0.1)
    slots = same_as_methods(c, reader, a, sv)
    assert.are.equal(0.5, slots.y[2])
  end)

  it("refuses what it cannot read, naming it", function()
    local function err(f, ...)
      local ok, msg = pcall(f, ...)
      assert.is_false(ok)
      return tostring(msg)
    end
    local setup = anim.buffer(8, "double")
    assert.truthy(err(core.slots2d, { "draworder", "a" }, setup):find("2 names: not 1 + 3 a slot", 1, true))
    assert.truthy(err(core.slots2d, { "draworder", "a", 3, false }, setup)
      :find("name 3: a property's name expected, got number", 1, true))
    assert.truthy(err(core.slots2d, { "draworder", "a", "b", 7 }, setup)
      :find("name 4: a property's name or false expected, got number", 1, true))
    assert.truthy(err(core.slots2d, { false, "a", "b", "c" }, setup)
      :find("name 1: a property's name expected, got boolean", 1, true))
    assert.truthy(err(core.slots2d, { "draworder", "a", "b", "c" }, anim.buffer(9, "double"))
      :find("a module buffer of 8 doubles expected (8 a slot)", 1, true))
    assert.truthy(err(core.slots2d, { "draworder", "a", "b", "c" }, anim.buffer(8, "float"))
      :find("a module buffer of 8 doubles expected (8 a slot)", 1, true))
    for _, bad in ipairs { -2, 0.5, 0 / 0, 1e10 } do
      setup[1] = bad
      assert.truthy(err(core.slots2d, { "draworder", "a", "b", "c" }, setup)
        :find("slot 1: its setup attachment index is not a whole number from -1", 1, true), tostring(bad))
    end
    setup[1] = 0
    local reader = core.slots2d({ "draworder", "a", "b", "c" }, setup)
    local sk = assert(anim.skeleton2d({ bones = { { name = "root" } } }))
    local a = anim.animator(sk)
    assert.truthy(err(core.slots2d_read, {}, a, {}):find("a slot reader (core.slots2d) expected, got table", 1, true))
    assert.truthy(err(core.slots2d_read, setup, a, {}):find("a slot reader (core.slots2d) expected", 1, true))
    assert.truthy(err(core.slots2d_read, reader, a, nil):find("table expected", 1, true))
    assert.truthy(err(core.slots2d_read, reader, {}, {}):find("bad argument #2", 1, true))
    -- (what it reads for a skeleton of one slot and no tracks)
    local sv = {}
    assert.are.equal(0, core.slots2d_read(reader, a, sv))
    assert.are.same({ 0, 0, 0, 0, 0, 0, 0, 0 }, sv)
  end)
end)
