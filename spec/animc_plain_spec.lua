-- A .animc whose table is a compressed clip's usual one loaded from the
-- file's bytes (core.animc_plain, csrc/lua/lua_animc_plain.c; issue 41:
-- a small .animc's load was mostly making tables and reading them back):
-- the same clip as the full reading (format/animc.lua's assemble), its
-- table decoded only when asked for; every other file left to the full
-- reading, whose messages are unchanged.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local json = require "anim.base.json"
local animc = require "anim.format.animc"
local format = require "anim.format.read"
local limits = require("anim.base.limits").current
local E = require "anim.base.errors"
local fields = require "anim.format.fields"

local same = H.same_typed
local STATS = { 0.001, 0.1, 0.0005, 0.0003, 1000 }

-- A pack of n joints (the first with a position of two frames).
local function pack_of(n)
  local js = {}
  for i = 1, n do js[i] = {} end
  if n > 0 then js[1] = { 3, nil, nil, { frames = { 0, 1 }, v = { 0, 1, 2, 3, 4, 5 } } } end
  return core.pack_write { rate = 30, nframes = 2, joints = js }
end

local count = H.count

-- The bytes of a .animc of table t (its joints' count of pack).
local function file(t, pack)
  local joints = type(t.joints) == "table" and count(t.joints) or 0
  return core.animc_write(STATS, core.value_encode(t), pack or pack_of(joints))
end

local function fast(bytes)
  return core.animc_plain(bytes, format.FULL_FIELDS, limits.joints, limits.strings, limits.depth, limits.keys)
end

-- The full reading's clip of the bytes.
local function full(bytes, name)
  local tab, pack, stats, pack_at, longest, deepest, sk = core.animc_read(bytes, limits.joints)
  return animc.assemble(tab, pack, stats, name or "c", pack_at,
    { tree_checked = longest <= limits.strings and deepest <= limits.depth, skeleton = sk })
end

-- Both clips' info alike (their own clip left out), and what they give.
local function alike(a, b)
  local ia, ib = core.clip_info(a), core.clip_info(b)
  assert.is_true(same(ia.tree, ib.tree), "tree")
  ia.clip, ib.clip = nil, nil
  local ok = same(ia, ib)
  ia.clip, ib.clip = a, b
  assert.is_true(ok, "info")
  assert.is_true(same(ia.source, ib.source), "source")
  assert.are.equal(animc.bytes(b), animc.bytes(a))
  assert.are.equal(anim.encode(b), anim.encode(a))
  for _, tm in ipairs { 0, 1 / 60, 0.5 } do assert.is_true(same(a:sample(tm), b:sample(tm)), tm) end
end

local SKELETON = json.decode('{"root": {"position": [0, 1.5, 0], "rotation": [0, 0, 0, 1]},' ..
  ' "arm": {"parent": "root", "position": [0.25, 1, -0.5], "rotation": [0.1, 0.2, 0.3, 2], "scale": [1, 2, 3]},' ..
  ' "leg": {"parent": "root", "rotation": [10, 20, 30], "translation": [1, 0, 0]}}')

describe("core.animc_plain", function()
  it("loads a compressed clip's usual table from the bytes: the full reading's clip", function()
    local cases = {
      { joints = { b = {}, a = {}, c = {} }, skeleton = SKELETON, version = 3, loop = "loop", euler = "zyx", length = 0.5 },
      { joints = { a = {} } },
      { joints = {}, version = 2, loop = "pingpong", length = 2 },
      { joints = { x = {}, y = {} }, loop = "once", euler = "xyz", length = 0, rig = "a/b.bbmodel", fps = 24,
        viewModel = { 1, 2 }, other = { kept = true } },
      { joints = { ["é"] = {}, Z = {}, z = {} }, skeleton = {}, length = 1.25e-3, loop = "hold" },
      { joints = { a = {} }, absolute = true, length = 1 },
      { joints = { a = {} }, absolute = false, version = 3 },
    }
    -- (more joints than the C stack holds)
    local many = { joints = {}, loop = "once", length = 3 }
    for i = 1, 100 do many.joints[string.format("j%d", (i * 37) % 101)] = {} end
    cases[#cases + 1] = many
    for i, t in ipairs(cases) do
      local bytes = file(t)
      assert.is_true(anim.is_clip((fast(bytes))), i)
      alike(animc.decode(bytes, "c"), full(bytes))
    end
  end)

  it("gives anim.load of a compressed clip's file its clip, and the info's figures", function()
    local t = { version = 3, length = 1, loop = "loop", euler = "zyx", skeleton = SKELETON,
      joints = { root = { rotation = { { 0, { 0, 0, 0 } }, { 1, { 0, 90, 0 } } } }, arm = { position = { { 0, { 0, 1, 0 } } } } } }
    local rig = assert(anim.rig { joints = { { name = "root" }, { name = "arm", parent = "root" }, { name = "leg", parent = "root" } } })
    local cc = assert(anim.compress(assert(anim.clip(t, "plain")), { rig = rig }))
    local path = os.tmpname() .. ".animc"
    assert(anim.save(cc, path))
    local bytes = H.read(path)
    local c = assert(anim.load(path))
    os.remove(path)
    assert.is_true(anim.is_clip((fast(bytes))))
    alike(c, full(bytes, path))
    assert.are.equal(path, core.clip_info(c).name)
    -- (the file keeps the figures as floats: 5.3+ tells 1000 from 1000.0)
    assert.are.same(core.clip_info(cc).compression, core.clip_info(c).compression)
  end)

  it("decodes the table only when it is asked for", function()
    local bytes = file { joints = { a = {}, b = {} }, skeleton = SKELETON, loop = "loop", length = 1, fps = 24 }
    local info = core.clip_info(animc.decode(bytes, "c"))
    assert.is_nil(rawget(info, "tree"))
    assert.are.equal(24, info.source.fps)
    assert.are.equal(24, rawget(info, "tree").fps)
    -- (and what anim.info tells of it is the file's)
    local c = animc.decode(bytes, "c")
    assert.are.equal(1, c.length)
    assert.are.equal("loop", c.loop)
    assert.is_nil(rawget(core.clip_info(c), "tree"))
  end)

  it("keeps the table's bytes for it, which core.value_decode reads as the file's decoder does", function()
    local t = { joints = { a = {} }, skeleton = SKELETON, loop = "loop", length = 1, fps = 24, tags = { "x", 2.5, true } }
    local enc = core.value_encode(t)
    local r = { core.animc_plain(file(t), format.FULL_FIELDS, limits.joints, limits.strings, limits.depth, limits.keys) }
    assert.are.equal(enc, r[9])
    assert.is_true(same(core.value_decode(enc), (core.animc_read(file(t)))))
    -- (its messages: the decoder's, the offsets the table's own)
    assert.are.same({ nil, "count beyond the file", 1 }, { core.value_decode(enc:sub(1, 5)) })
    assert.are.same({ nil, "truncated", 3 }, { core.value_decode(enc:sub(1, 3)) })
    assert.are.same({ nil, "bytes after the table", #enc }, { core.value_decode(enc .. "\0") })
  end)

  it("leaves every other file to the full reading", function()
    local base = { joints = { a = {} }, skeleton = SKELETON, version = 3, loop = "loop", euler = "zyx", length = 1 }
    local function with(k, v)
      local t = json.copy(base)
      t[k] = v
      return t
    end
    local cases = {
      with("version", 1), with("version", 4), with("version", 2.5), with("version", "3"), with("version", core.null),
      with("loop", "LOOP"), with("loop", 1), with("loop", core.null), with("euler", "ZYX"), with("euler", "abc"),
      with("length", -1), with("length", -0.5), with("length", "1"), with("length", core.null),
      with("joints", core.null), with("joints", { a = { weight = 1 } }), with("joints", { a = { 1 } }),
      with("skeleton", { a = { parent = "nobody" } }), with("skeleton", core.null),
      with("absolute", 1), with("absolute", core.null),
      { skeleton = SKELETON }, { 1, 2 },
    }
    for f in pairs(format.FULL_FIELDS) do cases[#cases + 1] = with(f, {}) end
    for i, t in ipairs(cases) do
      local bytes = file(t, pack_of(1))
      assert.is_nil(fast(bytes), i)
      -- (the full reading's answer, a clip or a message, stays anim.load's)
      local ok, c = pcall(full, bytes)
      local c2, msg = E.catch("c", animc.decode, bytes, "c")
      if ok then alike(c2, c) else assert.is_nil(c2, i) assert.is_string(msg, i) end
    end
  end)

  it("leaves to the full reading a file over the limits, or wrong, whose message it gives", function()
    local t = { joints = { a = {}, b = {}, c = {} }, loop = "loop", length = 1, name = string.rep("n", 300) }
    local bytes = file(t)
    assert.is_true(anim.is_clip((fast(bytes))))
    local old = anim.set_limits { joints = 2 }
    assert.is_nil(fast(bytes))
    anim.set_limits(old)
    old = anim.set_limits { strings = 200 }
    assert.is_nil(fast(bytes))
    local c, msg = E.catch("x.animc", animc.decode, bytes, "x.animc")
    anim.set_limits(old)
    assert.is_nil(c)
    assert.truthy(msg:find("x.animc", 1, true), msg)
    -- (a checksum that does not match; a pack of another joint count)
    local bad = bytes:sub(1, -2) .. string.char((bytes:byte(-1) + 1) % 256)
    assert.is_nil(fast(bad))
    local other = file(t, pack_of(2))
    assert.is_nil(fast(other))
    c, msg = E.catch("x.animc", animc.decode, other, "x.animc")
    assert.is_nil(c)
    assert.truthy(msg:find("^x%.animc: byte %d+: "), msg)
  end)

  it("knows every top-level field the reader knows: plain, or the full reading's", function()
    local editor = { rig = true, fps = true, viewModel = true }
    for _, n in ipairs(fields.names("clip")) do
      local sets = (format.PLAIN_FIELDS[n] and 1 or 0) + (format.FULL_FIELDS[n] and 1 or 0) + (editor[n] and 1 or 0)
      assert.are.equal(1, sets, n)
    end
  end)
end)
