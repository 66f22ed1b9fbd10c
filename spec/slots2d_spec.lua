-- A 2D skeleton's slots read for drawing in one call a frame
-- (csrc/lua/lua_draw2d_slots.c, attach2d.slots / read_slots / slot_entries):
-- the same attachments, colours and draw order as animator:slot and
-- animator:draw_order, whatever plays, after a restore, and the errors.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local attach2d = require "anim.runtime.attach2d"
local love_mock = require "spec.love_mock"
local unpack = table.unpack or unpack -- luacheck: ignore 113 (5.1's global)

-- The message of f(...)'s error (it must raise).
local function err(f, ...)
  local ok, msg = pcall(f, ...)
  assert.is_false(ok)
  return tostring(msg)
end

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
    for _, case in ipairs { { 1.4, "a" }, { 2.6, "c" }, { 0, false }, { -3, false }, { 4, false }, { 1e300, false } } do
      -- (and a colour and a dark colour of fewer components: the setup's
      -- for the rest, in animator:slot as in the reader)
      local clip = assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
        properties = { ["slot.s.attachment"] = { { 0, { case[1] }, "step" } },
          ["slot.t.color"] = { { 0, { 0.5, 0.25 } } }, ["slot.s.dark"] = { { 0, { 0.7 } } } } }, "k"))
      a = anim.animator(sk)
      a:play(clip, { fade = 0 })
      a:update(0.5)
      slots = same_as_methods(c, reader, a, sv)
      assert.are.equal(case[2], slots.s[1], tostring(case[1]))
      assert.are.same({ false, 0.5, 0.25, 1, 1, 0, 0, 0 }, slots.t)
      assert.are.same({ 1, 1, 1, 1, 0.7, 0.2, 0.3 }, { select(2, unpack(slots.s)) })
    end
    -- (the ids of pages and blends: a page may be named "n")
    local n1, a1 = attach2d.page_id(c, "n"), attach2d.page_id(c, "a.png")
    assert.are_not.equal(n1, a1)
    assert.are.same({ n1, a1 }, { attach2d.page_id(c, "n"), attach2d.page_id(c, "a.png") })
    assert.are_not.equal(attach2d.blend_id(c, "n"), attach2d.blend_id(c, "normal"))
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
    assert.truthy(err(core.slots2d_read, reader, a, 5):find("table expected", 1, true))
    assert.truthy(err(core.slots2d_read, reader, {}, {}):find("bad argument #2", 1, true))
    -- (what it reads for a skeleton of one slot and no tracks)
    local sv = {}
    assert.are.equal(0, core.slots2d_read(reader, a, sv))
    assert.are.same({ 0, 0, 0, 0, 0, 0, 0, 0 }, sv)
  end)
end)

-- What a frame draws, slot by slot as anim.love drew it before its runs
-- in C (animator:slot, attach2d.lookup and frame, core.draw2d a slot):
-- the triangles of the draw order, a clipping's stencil where it starts,
-- as numbers (floats, 12 a vertex); the stencil tests (mode and the
-- numbers written before); and the draws: a run of slots of one image
-- and blend mode, ended by another image or blend, a clipping's start or
-- its end, "<image> <LÖVE blend> <vertices>" (a stencil's image "-").
local LOVE_BLEND = { normal = "alpha", additive = "add", multiply = "multiply", screen = "screen" }
local function reference(a, c, drawer, images)
  local out, marks, draws, buf = {}, {}, {}, anim.buffer(12 * 3 * 4096, "float")
  local run = { n = 0 }
  local function add(n) for q = 1, 12 * n do out[#out + 1] = buf[q] end end
  local function flush()
    if run.n > 0 then draws[#draws + 1] = string.format("%s %s %d", run.image.name, run.blend, run.n) end
    run.n = 0
  end
  attach2d.pose(drawer, a, c)
  local skin = a:skin()
  local clip_end
  for _, slot in ipairs(a:draw_order()) do
    local name, r, g, b, al, dr, dg, db = a:slot(slot)
    local e = name and attach2d.lookup(c, skin, slot, name)
    if e and e.kind == "clipping" and e.ntri > 0 then
      flush()
      local n = attach2d.draw(drawer, e.record, buf, 0, 1, 1, 1, 1, 0, 0, 0)
      add(n)
      draws[#draws + 1] = string.format("- %s %d", run.blend or "-", n)
      marks[#marks + 1] = "greater " .. #out
      clip_end = e.end_slot
    elseif e and e.ntri > 0 then
      local rec, ntri, page = attach2d.frame(a, e)
      local k = e.color
      if ntri > 0 then
        local image, blend = images[page], LOVE_BLEND[c.blend[slot]]
        if image ~= run.image or blend ~= run.blend then
          flush()
          run.image, run.blend = image, blend
        end
        local n = attach2d.draw(drawer, rec, buf, 0, r * k[1], g * k[2], b * k[3], al * k[4], dr or 0, dg or 0, db or 0)
        add(n)
        run.n = run.n + n
      end
    end
    if clip_end and slot == clip_end then
      flush()
      marks[#marks + 1] = "off " .. #out
      clip_end = nil
    end
  end
  flush()
  return out, marks, draws
end

describe("a run of slots drawn in one call (core.draw2d_run)", function()
  it("anim.love.draw draws what a draw slot by slot draws: every clip, skin, page, blend and the clipping", function()
    local got, marks, draws, clipped = {}, {}, {}, 0
    love_mock.run({
      vertices = function(data, _, n) for q = 1, 12 * n do got[#got + 1] = data[q] end end,
      stencil_test = function(mode) marks[#marks + 1] = (mode or "off") .. " " .. #got end,
      draw = function(texture, blend, n)
        draws[#draws + 1] = string.format("%s %s %d", texture and texture.name or "-", blend or "-", n)
      end }, function(draw2d)
      -- (each page its image; then one image for every page, as two names
      -- of one image: a page's change is then no change of mesh)
      local by_page = setmetatable({}, { __index = function(t, k) local v = { name = k }; rawset(t, k, v); return v end })
      local one = { name = "one" }
      local all_one = setmetatable({}, { __index = function() return one end })
      for _, cs in ipairs {
        { anim.import_spine, "spec/fixtures/spine/hero-4.1.json", "spec/fixtures/spine/hero-4.x.atlas" },
        { anim.import_dragonbones, "spec/fixtures/dragonbones/hero_ske.json", "spec/fixtures/dragonbones/hero_tex.json" },
      } do
        local r = assert(cs[1](cs[2], cs[3]))
        local names = {}
        for name in pairs(r.clips) do names[#names + 1] = name end
        table.sort(names)
        for _, images in ipairs { by_page, all_one } do
          for _, name in ipairs(names) do
            for _, skin in ipairs { false, "red", "gold" } do
              local a = anim.animator(r.skeleton)
              if skin then pcall(a.skin, a, skin) end
              a:play(r.clips[name], { fade = 0 })
              local c = attach2d.of(a)
              local drawer = attach2d.drawer(c, attach2d.buffer(6 * #c.bone_names), attach2d.buffer(2 * c.points))
              for _ = 1, 8 do
                a:update(1 / 8)
                got, marks, draws = {}, {}, {}
                draw2d.draw(a, images)
                local want, want_marks, want_draws = reference(a, c, drawer, images)
                assert.are.same(want_draws, draws, name)
                assert.are.same(want_marks, marks, name)
                clipped = clipped + #marks
                assert.are.equal(#want, #got, name)
                for q = 1, #want do
                  if want[q] ~= got[q] then error(string.format("%s %s: number %d: %.9g, expected %.9g", name, tostring(skin), q, got[q], want[q])) end
                end
              end
            end
          end
        end
      end
    end)
    assert.is_true(clipped > 0) -- (the clipping started and ended)
  end)

  it("draws while the page and blend are the run's; stops at another, at Lua's attachments and at the stop slot", function()
    local other = { page = "q.png", u = 0, v = 0, u2 = 1, v2 = 1, width = 2, height = 2 }
    local reg = { page = "p.png", u = 0, v = 0, u2 = 1, v2 = 1, width = 2, height = 2 }
    local function region(r, color) return { type = "region", width = 2, height = 2, region = r, color = color } end
    local slots, atts = {}, {}
    local kinds = { "a", "b", "none", "page", "add", "clip", "c" }
    for i, n in ipairs(kinds) do
      slots[i] = { name = n, bone = "root", attachment = n ~= "none" and "x" or nil, blend = n == "add" and "additive" or nil }
      atts[n] = { x = region(n == "page" and other or reg, n == "b" and { 0.5, 1, 1, 1 } or nil) }
    end
    atts.clip = { x = { type = "clipping", vertices = { 0, 0, 1, 0, 0, 1 }, ["end"] = "c" } }
    atts.none = nil
    local sk = assert(anim.skeleton2d({ bones = { { name = "root" } }, slots = slots,
      skins = { { name = "default", attachments = atts } } }))
    local a = anim.animator(sk)
    a:update(0)
    local c = attach2d.of(a)
    local d = attach2d.drawer(c, attach2d.buffer(6), attach2d.buffer(2 * c.points))
    attach2d.pose(d, a, c)
    local reader, list = attach2d.slots(c), attach2d.draw_list(c, nil)
    local order = c.orders[attach2d.read_slots(reader, a)] or c.orders[0]
    local out = anim.buffer(12 * 6 * 8, "float")
    local P, N = attach2d.page_id(c, "p.png"), attach2d.blend_id(c, "normal")
    -- (a, b and none on p.png, normal: drawn; then the page changes)
    local o, n = attach2d.run(d, reader, a, list, order, 1, out, 0, P, N, 0)
    assert.are.same({ 4, 12 }, { o, n })
    assert.are.equal(0.5, out[6 * 12 + 5]) -- (b's red: the slot's 1 times its attachment's 0.5)
    -- (another page, another blend, a clipping: each stops the run where it is)
    assert.are.same({ 4, 0 }, { attach2d.run(d, reader, a, list, order, 4, out, 0, P, N, 0) })
    assert.are.same({ 5, 6 }, { attach2d.run(d, reader, a, list, order, 4, out, 0, attach2d.page_id(c, "q.png"), N, 0) })
    assert.are.same({ 6, 6 }, { attach2d.run(d, reader, a, list, order, 5, out, 0, P, attach2d.blend_id(c, "additive"), 0) })
    assert.are.same({ 7, 0 }, { attach2d.run(d, reader, a, list, order, 7, out, 0, P, N, 7) })
    assert.are.same({ 8, 6 }, { attach2d.run(d, reader, a, list, order, 7, out, 0, P, N, 0) })
    assert.are.same({ 8, 0 }, { attach2d.run(d, reader, a, list, order, 8, out, 0, P, N, 0) })
  end)

  it("refuses what it cannot draw, naming it", function()
    local rec = core.record2d((function()
      local b = anim.buffer(6 + 6 + 6 + 3, "double")
      local v = { 1, 0, 3, 6, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 2 }
      for q = 1, #v do b[q] = v[q] end
      return b
    end)())
    local row = { 1, 1, 0, 0, false, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 1, 1, rec, 1, 1, 1, 1 }
    assert.truthy(err(core.draw2d_list, { 7 }):find("row 1: a table expected, got number", 1, true))
    assert.truthy(err(core.draw2d_list, { { 1, -1 } }):find("row 1: its number of names must be a whole number from 0", 1, true))
    assert.truthy(err(core.draw2d_list, { { 1, 1, 0 } }):find("row 1: 3 numbers, 23 expected (2, then 7 for each index from -1 to 1)", 1, true))
    local bad = { unpack(row) }
    bad[1] = 1.5
    assert.truthy(err(core.draw2d_list, { bad }):find("row 1: its blend must be a whole number", 1, true))
    bad = { unpack(row) }
    bad[3] = 3
    assert.truthy(err(core.draw2d_list, { bad }):find("row 1: a flag must be a whole number from 0 to 2", 1, true))
    bad = { unpack(row) }
    bad[10] = 1
    assert.truthy(err(core.draw2d_list, { bad }):find("row 1: index 0 (none) draws nothing", 1, true))
    bad = { unpack(row) }
    bad[19] = {}
    assert.truthy(err(core.draw2d_list, { bad }):find("row 1: index 1: a record (core.record2d) expected, got table", 1, true))
    bad = { unpack(row) }
    bad[21] = "x"
    assert.truthy(err(core.draw2d_list, { bad }):find("row 1: index 1: a colour's number expected", 1, true))
    local list = core.draw2d_list({ row })
    -- (a run: a drawer, a reader of as many slots, an animator)
    local sk = assert(anim.skeleton2d({ bones = { { name = "root" } }, slots = { { name = "s", bone = "root" } } }))
    local a = anim.animator(sk)
    local c = attach2d.of(a)
    local d = attach2d.drawer(c, attach2d.buffer(6), attach2d.buffer(2 * c.points))
    local reader = attach2d.slots(c)
    local out = anim.buffer(12 * 3, "float")
    local run = core.draw2d_run
    assert.truthy(err(run, {}, reader, a, list, { 1 }, 1, out, 0, 1, 1, 0):find("a drawer (core.drawer2d) expected, got table", 1, true))
    assert.truthy(err(run, d, {}, a, list, { 1 }, 1, out, 0, 1, 1, 0):find("a slot reader (core.slots2d) expected, got table", 1, true))
    assert.truthy(err(run, reader, reader, a, list, { 1 }, 1, out, 0, 1, 1, 0):find("a drawer (core.drawer2d) expected", 1, true))
    assert.truthy(err(run, d, reader, a, {}, { 1 }, 1, out, 0, 1, 1, 0):find("a draw list (core.draw2d_list) expected, got table", 1, true))
    assert.truthy(err(run, d, reader, a, list, { 1 }, 3, out, 0, 1, 1, 0):find("o must be a whole number from 1 to 2", 1, true))
    assert.truthy(err(run, d, reader, a, list, { 1 }, 1, {}, 0, 1, 1, 0):find("a module buffer or a ByteData expected, got a table", 1, true))
    assert.truthy(err(run, d, reader, a, list, { 1 }, 1, out, -1, 1, 1, 0):find("first must be a whole number", 1, true))
    assert.truthy(err(run, d, reader, a, list, { 2 }, 1, out, 0, 1, 1, 0):find("order[1] is not a slot's index (1 to 1)", 1, true))
    assert.truthy(err(run, d, reader, a, core.draw2d_list({ row, row }), { 1 }, 1, out, 0, 1, 1, 0)
      :find("2 slots, the reader's 1", 1, true))
    -- (its slot shows no attachment: nothing drawn; given index 1 by a
    -- track, its record, which needs room for 3 vertices)
    assert.are.same({ 2, 0 }, { run(d, reader, a, list, { 1 }, 1, out, 0, 1, 1, 0) })
    local clip = assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
      properties = { ["slot.s.attachment"] = { { 0, { 1 }, "step" } } } }, "k"))
    a:play(clip, { fade = 0 })
    a:update(0.1)
    attach2d.pose(d, a, c)
    assert.are.same({ 2, 3 }, { run(d, reader, a, list, { 1 }, 1, out, 0, 1, 1, 0) })
    assert.truthy(err(run, d, reader, a, list, { 1 }, 1, out, 1, 1, 1, 0):find("bad argument #7", 1, true))
    assert.truthy(err(core.slots2d_slot, reader, a, 2):find("a slot's index (1 to 1) expected", 1, true))
    assert.are.same({ 1, 1, 1, 1, 1, 0, 0, 0 }, { core.slots2d_slot(reader, a, 1) })
  end)
end)

describe("the 2D drawing's tables read again after an allocation", function()
  -- A finalizer may run at an allocation and change the table being read
  -- (found with ASan): what no longer fits what was measured is refused.
  -- The collector is made to start a cycle at the call's first allocation
  -- of note (a pause of 100 right after a full collection), which the input
  -- makes large (4 MiB) so that the cycle runs to its finalizers there.
  local function changed_inside(call, change, reset)
    local armed = false
    local fin = function() if armed then change() end end
    reset()
    local mode = collectgarbage("incremental", 100, 1000, 20)
    collectgarbage("collect")
    for _ = 1, 8 do setmetatable({}, { __gc = fin }) end
    armed = true
    local ok, e = pcall(call)
    armed = false
    collectgarbage(mode)
    collectgarbage("collect")
    assert.is_false(ok, "the finalizers did not run inside the call")
    return tostring(e)
  end

  it("core.slots2d, core.draw2d_list, core.drawer2d: a name or a row grown meanwhile is refused", function()
    if _VERSION ~= "Lua 5.4" then
      -- (5.1's and LuaJIT's collectors step before an allocation; 5.2's and
      -- 5.3's steps did not reach the finalizers inside each call here: the
      -- C code is the same on every runtime, and 5.4 runs it)
      pending("Lua 5.4 only: its collector's step at an allocation can be made to end the cycle")
      return
    end
    local big, longer = string.rep("y", 2 ^ 22), string.rep("x", 2 ^ 22 + 100)
    local names, setup = { "draworder", big, "b", false }, anim.buffer(8, "double")
    assert.truthy(changed_inside(function() return core.slots2d(names, setup) end, function() names[2] = longer end,
      function() names[2] = big end):find("name 2 changed while it was read", 1, true))
    local m = 80000
    local function row(n)
      local t = { 1, n }
      for _ = -1, n do for q = 1, 7 do t[#t + 1] = q == 3 and false or 0 end end
      return t
    end
    local small, large = row(m), row(m + 10)
    local rows = { small }
    assert.truthy(changed_inside(function() return core.draw2d_list(rows) end, function() rows[1] = large end,
      function() rows[1] = small end):find("row 1 changed while it was read", 1, true))
    local deforms, world, scratch = { big }, attach2d.buffer(6), attach2d.buffer(8)
    assert.truthy(changed_inside(function() return core.drawer2d(world, scratch, deforms) end,
      function() deforms[1] = longer end, function() deforms[1] = big end):find("deform 1 changed while it was read", 1, true))
  end)
end)

describe("an atlas page without a size", function()
  it("gives its regions no texture coordinates: warned by the importers, drawn without an image", function()
    local function text(path) local f = assert(io.open(path, "rb")); local t = f:read("*a"); f:close(); return t end
    -- (Spine: the pages' size lines left out; DragonBones: the atlas's width and height)
    local spine = assert(anim.decode_spine(text("spec/fixtures/spine/hero-4.1.json"), "hero.json",
      (text("spec/fixtures/spine/hero-4.x.atlas"):gsub("\n%s*size: [^\n]*", "")), "hero.atlas"))
    local tex = text("spec/fixtures/dragonbones/hero_tex.json"):gsub('\n  "height": 128,', ""):gsub(',\n  "width": 256', "")
    assert.is_nil(tex:find('"width": 256', 1, true))
    assert.is_nil(tex:find('"height": 128', 1, true))
    local db = assert(anim.decode_dragonbones(text("spec/fixtures/dragonbones/hero_ske.json"), "hero_ske.json", tex))
    -- (a warning's message: Spine's { path, message }, DragonBones' "path: message")
    local function warned(r, path)
      for _, w in ipairs(r.warnings) do
        if type(w) == "table" and w.path == path then return w.message end
        if type(w) == "string" and w:sub(1, #path + 2) == path .. ": " then return w:sub(#path + 3) end
      end
    end
    assert.are.equal("the atlas page 'hero.png' has no size, so region 'body' has no texture coordinates: the"
      .. " attachment has no image", warned(spine, "skins[1].attachments.body.body"))
    assert.are.equal("the atlas page 'hero2.png' has no size, so region 'spark01' has no texture coordinates: frame 0"
      .. " of the sequence has no image", warned(spine, "skins[1].attachments.fx.spark.sequence"))
    assert.are.equal("display 'body': the texture atlas gives no page size (width, height), so region 'body' has no"
      .. " texture coordinates; it is drawn without an image", warned(db, "armature[2].skin[1].slot[1].display[1].path"))
    -- (drawn: nothing of those attachments, and no error; a region's
    -- corners still placed from its size for the hit tests)
    local draws = 0
    love_mock.run({ draw = function(texture) if texture then draws = draws + 1 end end }, function(draw2d)
      local images = setmetatable({}, { __index = function(t, k) local v = {}; rawset(t, k, v); return v end })
      for _, r in ipairs { spine, db } do
        local names = {}
        for name in pairs(r.clips) do names[#names + 1] = name end
        table.sort(names)
        for _, name in ipairs(names) do
          local a = anim.animator(r.skeleton)
          a:play(r.clips[name], { fade = 0 })
          for _ = 1, 4 do
            a:update(0.25)
            draw2d.draw(a, images)
          end
        end
      end
      local a = anim.animator(spine.skeleton)
      a:update(0)
      assert.are.equal(8, #draw2d.world_vertices(a, "body"))
    end)
    assert.are.equal(0, draws)
  end)
end)

describe("a linked mesh's parent", function()
  it("is the mesh of its name, not another attachment of that name on its own slot (DragonBones' share)", function()
    local cjson = require "cjson"
    local function mesh(name)
      return { type = "mesh", name = name, vertices = { 0, 0, 10, 0, 10, 10, 0, 10 }, uvs = { 0, 0, 1, 0, 1, 1, 0, 1 },
        triangles = { 0, 1, 2, 0, 2, 3 } }
    end
    -- (slot s shows an image "m" and a mesh sharing "m", which is slot t's)
    local ske = cjson.encode { version = "5.5", frameRate = 10, armature = { {
      name = "a", bone = { { name = "root" } },
      slot = { { name = "s", parent = "root", displayIndex = 1 }, { name = "t", parent = "root" } },
      skin = { { slot = { { name = "s", display = { { name = "m" }, { type = "mesh", name = "link", share = "m" } } },
        { name = "t", display = { mesh("m") } } } } } } } }
    local tex = cjson.encode { width = 64, height = 64, imagePath = "t.png", SubTexture = {
      { name = "m", x = 0, y = 0, width = 8, height = 8 }, { name = "link", x = 8, y = 0, width = 8, height = 8 } } }
    local r = assert(anim.decode_dragonbones(ske, "x.json", tex))
    local counts = {}
    love_mock.run({ draw = function(_, _, n) counts[#counts + 1] = n end }, function(draw2d)
      local a = anim.animator(r.skeleton)
      a:update(0.1)
      draw2d.draw(a, setmetatable({}, { __index = function(t, k) local v = { name = k }; rawset(t, k, v); return v end }))
    end)
    -- (both slots' meshes drawn: 6 corners each, in one run of the page)
    assert.are.same({ 12 }, counts)
  end)
end)

describe("a DragonBones skin that lists a slot", function()
  it("replaces the default skin's displays of it whole: a null display, an index past its list, draw nothing", function()
    local cjson = require "cjson"
    local ske = cjson.encode { version = "5.5", frameRate = 10, armature = { {
      name = "a", bone = { { name = "root" } }, slot = { { name = "s", parent = "root" }, { name = "t", parent = "root" } },
      skin = {
        { slot = { { name = "s", display = { { name = "a0" }, { name = "a1" } } }, { name = "t", display = { { name = "b0" } } } } },
        { name = "red", slot = { { name = "s", display = { cjson.null, { name = "r1" } } } } },
        { name = "blue", slot = { { name = "s", display = { { name = "u0" } } } } } } } } }
    local sub = {}
    for i, n in ipairs { "a0", "a1", "b0", "r1", "u0" } do sub[i] = { name = n, x = 8 * (i - 1), y = 0, width = 8, height = 8 } end
    local tex = cjson.encode { width = 64, height = 64, imagePath = "t.png", SubTexture = sub }
    local r = assert(anim.decode_dragonbones(ske, "x.json", tex))
    local drawn
    love_mock.run({ vertices = function(data, _, n)
      for q = 0, n - 1 do drawn[#drawn + 1] = string.format("%.3f", data[12 * q + 3]) end -- (each corner's u)
    end }, function(draw2d)
      local images = setmetatable({}, { __index = function(t, k) local v = { name = k }; rawset(t, k, v); return v end })
      -- (which regions a frame draws: each one's first corner's u, 6 corners a region)
      local function shown(skin, index)
        local a = anim.animator(r.skeleton)
        if skin then a:skin(skin) end
        local clip = assert(anim.clip({ length = 1, joints = { root = { rotation = { { 0, { 0, 0, 0 } } } } },
          properties = { ["slot.s.attachment"] = { { 0, { index }, "step" } } } }, "k"))
        a:play(clip, { fade = 0 })
        a:update(0.1)
        drawn = {}
        draw2d.draw(a, images)
        local firsts = {}
        for q = 1, #drawn, 6 do firsts[#firsts + 1] = drawn[q] end
        return firsts, a
      end
      local default0 = shown(nil, 1)
      assert.are.same(2, #default0) -- (a0 on s, b0 on t)
      local red0, a = shown("red", 1)
      assert.are.same({ default0[2] }, red0) -- (red's null display: s shows nothing, t its default)
      assert.are.same({ type = "none" }, (a:attachment("s")))
      local red1 = shown("red", 2)
      assert.are.equal(2, #red1)
      assert.are_not.equal(shown(nil, 2)[1], red1[1]) -- (r1, not a1)
      local blue1 = shown("blue", 2)
      assert.are.same({ default0[2] }, blue1) -- (past blue's list of one: nothing)
    end)
  end)
end)
