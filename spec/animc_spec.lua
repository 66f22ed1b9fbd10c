-- .animc files (issue 41): a compressed clip written by anim.save and read
-- by anim.load with no JSON library, bit for bit; malformed files refused
-- with nil, "file: byte N: why", never a crash (docs/formats.md, ".animc").
local anim = require "anim"
local H = require "spec.helper"
local D = require "spec.dense_clips"
local core = require "anim.core"
local compat = require "anim.base.compat"

local dir = H.tmpdir()

local function write(path, bytes)
  local f = assert(io.open(path, "wb"))
  f:write(bytes)
  f:close()
end

-- u32 little-endian at byte offset o (0-based) of s replaced by v.
local function set_u32(s, o, v) return s:sub(1, o) .. compat.pack_u32le(v) .. s:sub(o + 5) end
-- The body's checksum written again (offset 16), so that a change reaches the checks after it.
local function resum(s) return set_u32(s, 16, core.crc32(s:sub(21))) end

local cc, bytes
local function file()
  if not bytes then
    cc = assert(anim.compress(D.full_clip()))
    assert(anim.save(cc, dir .. "/full.animc"))
    bytes = H.read(dir .. "/full.animc")
  end
  return bytes
end

-- data read as anim.load reads a file's bytes (format/animc.lua's decode,
-- the file's name in messages); through a file when `file` is set.
local animc = require "anim.format.animc"
local E = require "anim.base.errors"
local function refused(data, msg, through_file)
  local path = dir .. "/bad.animc"
  local c, err
  if through_file then
    write(path, data)
    c, err = anim.load(path)
  else
    c, err = E.catch(path, animc.decode, data, path)
  end
  assert.is_nil(c)
  if msg then assert.are.equal(path .. ": " .. msg, err) end
  return err
end

describe(".animc", function()
  it("round trips bit for bit: saved, loaded and saved again, the same bytes and samples", function()
    local b = file()
    local back = assert(anim.load(dir .. "/full.animc"))
    assert.is_true(back.compressed)
    assert(anim.save(back, dir .. "/again.animc"))
    assert.are.equal(b, H.read(dir .. "/again.animc"))
    assert.are.same(cc:compression(), back:compression())
    for _, m in ipairs { "markers", "events", "sounds", "plays", "properties", "joints" } do
      assert.are.same(cc[m](cc), back[m](back), m)
    end
    for k = 0, 64 do
      local t = k / 32
      assert.is_nil(H.bitdiff(cc:sample(t), back:sample(t)), "at " .. t)
    end
    -- a payload's integers stay integers, its floats floats
    local p = back:events()[1].payload
    assert.are.equal(3, p.damage)
    if H.integers then assert.are.equal("integer", math.type(p.damage)) end
    assert.are.equal(0.25, p.f)
    assert.are.equal(anim.null, p.none)
    -- the header: magic, version 2, the body's length and checksum
    assert.are.equal("\137ANIMC\r\n", b:sub(1, 8))
    assert.are.equal(2, compat.u32le(b, 9))
    assert.are.equal(#b - 20, compat.u32le(b, 13))
    assert.are.equal(core.crc32(b:sub(21)), compat.u32le(b, 17))
    assert.are.equal(0xCBF43926, core.crc32("123456789"))
  end)

  it("reloads: a compressed clip's content replaced under its tracks, from a .animc file or any source", function()
    file()
    local rig = D.full_rig()
    local exact = D.full_clip()
    local a = anim.animator(rig)
    local tr = a:play(exact, { fade = 0 })
    a:update(0.3)
    -- an exact clip's content from a .animc file: its tracks play the compressed keys
    assert(anim.reload(exact, dir .. "/full.animc"))
    assert.is_true(exact.compressed)
    a:update(0.2)
    local b = anim.animator(rig)
    local tb = b:play(cc, { fade = 0 })
    tb.time = tr.time
    b:update(0)
    assert.is_nil(H.bitdiff(a:pose_array({}), b:pose_array({})))
    -- and back to an exact content from a table
    assert(anim.reload(exact, anim.table(D.full_clip())))
    assert.is_false(exact.compressed)
    a:update(0.1)
    -- a library's res:// clips may be .animc files
    local lib = assert(anim.library(dir))
    local c = assert(lib:clip("res://full.animc"))
    assert.is_true(c.compressed)
    assert.are.equal("res://full.animc", c.name)
    assert(lib:reload("res://full.animc"))
  end)

  it("loads and plays with lua-cjson hidden, in a fresh runtime", function()
    file()
    local rig = D.full_rig()
    local a = anim.animator(rig)
    a:play(assert(anim.load(dir .. "/full.animc")))
    for _ = 1, 10 do a:update(0.1) end
    local want = {}
    for i, v in ipairs(a:pose_array({})) do want[i] = compat.hexfloat(v) end
    local script = dir .. "/nocjson.lua"
    write(script, string.format([[
package.loaded.cjson = nil
package.preload.cjson = function() error("no cjson") end
local anim = require "anim"
assert(not pcall(require, "cjson"))
local rig = assert(anim.rig { joints = { { name = "root" }, { name = "a", parent = "root", translation = { 0, 0.5, 0 } },
  { name = "b", parent = "a", translation = { 0, 0.5, 0 } }, { name = "still", parent = "root" } } })
local a = anim.animator(rig)
a:play(assert(anim.load(%q)))
for _ = 1, 10 do a:update(0.1) end
local hex = require("anim.base.compat").hexfloat
local out = {}
for i, v in ipairs(a:pose_array({})) do out[i] = hex(v) end
print(table.concat(out, " "))
print(select(2, anim.load(%q)))
]], dir .. "/full.animc", H.root .. "/examples/clips/walk.anim"))
    local out, code = H.popen(H.lua .. " " .. H.sq(script) .. " 2>&1")
    assert.are.equal(0, code, out)
    local poses, msg = out:match("^([^\n]*)\n([^\n]*)\n?$")
    assert.are.equal(table.concat(want, " "), poses)
    -- (a .anim file needs lua-cjson, and says so)
    assert.matches("walk.anim: cannot decode JSON without lua%-cjson", msg)
  end)

  it("refuses a file cut at every byte, naming the offset", function()
    local b = file()
    for cut = 0, #b - 1 do
      -- (the header's body length says where the file should end)
      refused(b:sub(1, cut), cut < 8 and "byte 0: not an .animc file (no magic number)" or "byte " .. cut .. ": truncated")
    end
    refused("", "byte 0: not an .animc file (no magic number)", true)
    refused(b .. "x", "byte " .. #b .. ": bytes after the body", true)
    refused(b:sub(1, 100), "byte 100: truncated", true)
  end)

  it("refuses every bit flipped, and what the checksum covers when it is written again", function()
    local b = file()
    for o = 0, #b - 1 do
      for bit = 0, 7, 3 do
        local x = string.char(compat.bxor(b:byte(o + 1), math.floor(2 ^ bit)))
        local err = refused(b:sub(1, o) .. x .. b:sub(o + 2))
        assert.matches(": byte %d+: ", err)
      end
    end
    refused(set_u32(b, 8, 3), "byte 8: version not supported (this reader reads version 2)")
    refused(b:sub(1, 20) .. "x" .. b:sub(22), "byte 16: checksum mismatch")
    -- counts beyond the file, with the checksum right: refused before anything is made for them
    local T = 64 -- the table: its tag at 64 (an object), its count at 65
    assert.are.equal(7, b:byte(T + 1))
    refused(resum(set_u32(b, T + 1, 0xffffffff)), "byte 65: count beyond the file")
    refused(resum(set_u32(b, 60, 0xfffffff0)), "byte 60: table length beyond the file")
    local tlen = compat.u32le(b, 61)
    local P = 64 + tlen + 4 -- the pack: joint count, rate, frame count, then the joints
    refused(resum(set_u32(b, P, 99)), "byte " .. P .. ": joint count differs from the clip's")
    refused(resum(set_u32(b, P + 12, 0)), "byte " .. (P + 12) .. ": frame count must be 1 .. 65536")
    refused(resum(b:sub(1, P + 4) .. ("\255"):rep(8) .. b:sub(P + 13)),
      "byte " .. (P + 4) .. ": frame rate must be > 0 and at most 1e6")
    refused(resum(b:sub(1, P + 16) .. "\255" .. b:sub(P + 18)), "byte " .. (P + 16) .. ": bad channel kinds")
    -- a table that is no clip: its reader's message
    local t2 = core.value_encode({ version = 3, joints = { x = { weight = 7 } } })
    local pack2 = core.pack_write { rate = 30, nframes = 1, joints = { {} } }
    local err = refused(core.animc_write({ 0, 0, 0, 0, 0 }, t2, pack2))
    assert.matches("joints%.x%.weight: weight must be between 0 and 1, got 7", err)
  end)

  it("refuses a version 1 file (8 bytes a key), telling to compress the clip again", function()
    -- (written by the version 1 writer: spec/fixtures/animc/version1.animc)
    local v1 = H.read(H.root .. "/spec/fixtures/animc/version1.animc")
    assert.are.equal(1, compat.u32le(v1, 9))
    refused(v1, "byte 8: version 1 is no longer read (this reader reads version 2): compress the clip again "
      .. "(anim compress source.anim -o clip.animc)", true)
  end)

  it("refuses a version 2 channel's bad counts, frame deltas, bit widths and ranges by offset", function()
    -- one joint, one channel (kinds byte: 2 bits a channel), 31 frames at 30 a second (an f64)
    local t = core.value_encode({ version = 3, joints = { a = {} } })
    local head = compat.pack_u32le(1) .. "\0\0\0\0\0\0\62\64" .. compat.pack_u32le(31)
    local C = 20 + 40 + 4 + #t + 4 + 16 + 1 -- the channel's first byte in the file
    local function with(kinds, ch) return core.animc_write({ 0, 0, 0, 0, 0 }, t, head .. string.char(kinds) .. ch) end
    local POS, ROT = 2, 2 * 4 -- narrow position, narrow rotation
    local range = ("\0"):rep(24)
    -- (a good one first: two keys at frames 0 and 2 -- the least delta 1, then 1 bit --, 16 bits a number)
    assert(E.catch("x", animc.decode, with(POS, "\2" .. "\0\0\1\1" .. "\1" .. "\16\16\16" .. range .. ("\0"):rep(12)), "x"))
    local count = "key count must be 1 .. twice the frame count"
    refused(with(POS, "\0"), "byte " .. C .. ": " .. count)
    refused(with(POS, "\129\0"), "byte " .. C .. ": " .. count) -- (1 in two bytes: one encoding only)
    refused(with(POS, "\255\255\1"), "byte " .. C .. ": " .. count)
    refused(with(POS, "\255\255\255\1"), "byte " .. C .. ": " .. count)
    refused(with(POS, "\2\0"), "byte " .. (C + 2) .. ": truncated")
    refused(with(POS, "\2" .. "\31\0\0"), "byte " .. (C + 1) .. ": frame indices must stay below the frame count")
    refused(with(POS, "\2" .. "\0\0\17"), "byte " .. (C + 3) .. ": frame delta bits must be 0 .. 16")
    refused(with(POS, "\2" .. "\0\0\0\31"), "byte " .. (C + 4) .. ": least frame delta beyond the frames")
    refused(with(POS, "\2" .. "\0\0\0\128\0"), "byte " .. (C + 4) .. ": least frame delta beyond the frames")
    -- three keys at frame 0 (deltas 0 at 0 bits), and deltas past the last frame
    refused(with(POS, "\3" .. "\0\0\0\0"), "byte " .. (C + 5) .. ": three keys at a frame")
    refused(with(POS, "\2" .. "\29\0\1\1" .. "\1"), "byte " .. (C + 5) .. ": frame indices must stay below the frame count")
    local bits = "bad bits byte (bits a number 0 .. 16, a rotation's dropped component 0 .. 3)"
    refused(with(POS, "\1" .. "\17\0\0" .. range .. "\0\0"), "byte " .. (C + 1) .. ": " .. bits)
    refused(with(POS, "\1" .. "\0\0\17" .. range .. "\0\0"), "byte " .. (C + 3) .. ": " .. bits)
    refused(with(POS, "\1" .. "\40\8\8" .. range .. "\0\0"), "byte " .. (C + 1) .. ": " .. bits) -- (a position drops nothing)
    refused(with(ROT, "\1" .. "\136\8\8" .. ("\0"):rep(12) .. "\0\0"), "byte " .. (C + 1) .. ": " .. bits)
    -- a range that is no range, and key bits cut short (8 + 8 + 8 bits a key)
    local k8 = "\8\8\8"
    refused(with(POS, "\1" .. k8 .. ("\0"):rep(12) .. "\0\0\128\191" .. ("\0"):rep(8) .. "\0\0\0"),
      "byte " .. (C + 1 + 3 + 12) .. ": bad range")
    refused(with(POS, "\1" .. k8 .. "\0\0\0\0" .. "\0\0\128\127" .. ("\0"):rep(16) .. "\0\0\0"),
      "byte " .. (C + 1 + 3 + 4) .. ": bad range")
    -- (a top beyond a float's: 3e38 + 65535 x 3e38, finite as a double; every key is
    -- decoded to a float, where it would be inf)
    local big = "\230\177\97\127"
    refused(with(POS, "\1" .. "\16\0\0" .. big .. ("\0"):rep(8) .. big .. ("\0"):rep(8) .. "\0\0"),
      "byte " .. (C + 1 + 3 + 12) .. ": bad range")
    refused(with(POS, "\1" .. k8 .. range .. "\0\0"), "byte " .. (C + 1 + 27 + 2) .. ": truncated")
    -- (a rotation: 15 + 15 + 0 bits a key, 2 keys: 8 bytes)
    refused(with(ROT, "\2" .. "\0\0\1\1" .. "\0" .. "\15\15\0" .. ("\0"):rep(12) .. ("\0"):rep(7)),
      "byte " .. (C + 6 + 15 + 7) .. ": truncated")
    assert(E.catch("x", animc.decode, with(ROT, "\2" .. "\0\0\1\1" .. "\0" .. "\15\15\0" .. ("\0"):rep(12)
      .. ("\0"):rep(8)), "x"))
    refused(with(POS, "\1" .. k8 .. range .. "\0\0\0\0"), "byte " .. (C + 1 + 27 + 3) .. ": bytes after the last joint")
    -- keys of no bits (numbers that never change, a key at every frame):
    -- at most 8 a byte of the pack, as the index keeps 2 bytes a key
    head = compat.pack_u32le(1) .. "\0\0\0\0\0\0\62\64" .. compat.pack_u32le(65536)
    local function keys(n) -- (n in 2 varint bytes)
      return with(POS, string.char(n % 128 + 128, math.floor(n / 128)) .. "\0\0\0\1" .. "\0\0\0" .. range)
    end
    assert(E.catch("x", animc.decode, keys(400), "x")) -- (the pack's 50 bytes)
    refused(keys(401), "byte " .. C .. ": more keys than 8 a byte of the pack")
    refused(keys(16000), "byte " .. C .. ": more keys than 8 a byte of the pack")
    -- and at most anim.limits.keys in all, as a clip's (the clip keeps them
    -- decoded, packed.h): a position and a scale of 200 keys each, the
    -- second refused at its first byte
    local function two(n)
      local ch = string.char(n % 128 + 128, math.floor(n / 128)) .. "\0\0\0\1" .. "\0\0\0" .. range
      return with(POS + 2 * 16, ch .. ch)
    end
    local old = anim.set_limits { keys = 399 }
    refused(two(200), "byte " .. (C + 33) .. ": too many keys (at most 399, anim.limits.keys)")
    refused(keys(400), "byte " .. C .. ": too many keys (at most 399, anim.limits.keys)")
    refused(keys(400), "byte " .. C .. ": too many keys (at most 399, anim.limits.keys)", true) -- (anim.load: the fast reading too)
    anim.set_limits { keys = 400 }
    local ok, c = pcall(E.catch, "x", animc.decode, two(200), "x")
    anim.set_limits(old)
    assert.is_true(ok)
    assert.is_true(anim.is_clip(c))
  end)

  it("samples a wide rotation channel's keys made unit, as the index takes them within 1% of it", function()
    -- (packsample.c, key_quat: the nlerp works its length out for unit
    -- keys, packed.h's anim_pk_nlerp; one joint, a wide rotation channel,
    -- keys (0, 0, 0, 1.0078125) at frame 0 and (0.5, 0, 0, 0.875) at 30)
    local t = core.value_encode({ version = 3, length = 1, joints = { a = {} } })
    local head = compat.pack_u32le(1) .. "\0\0\0\0\0\0\62\64" .. compat.pack_u32le(31)
    local z = "\0\0\0\0"
    local keys = z .. z .. z .. "\0\0\129\63" .. "\0\0\0\63" .. z .. z .. "\0\0\96\63"
    local data = core.animc_write({ 0, 0, 0, 0, 0 }, t, head .. string.char(3 * 4) .. "\2" .. "\0\0\0\30" .. keys)
    local c = assert(E.catch("x", animc.decode, data, "x"))
    local worst = 0
    for k = 0, 30 do
      local q = c:sample(k / 30).a.rotation
      worst = math.max(worst, math.abs(math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2) - 1))
    end
    assert.is_true(worst < 2e-7, "length off by " .. worst)
  end)

  it("never crashes on random changes with the checksum right", function()
    local b = file()
    D.seed(7)
    local kept = 0
    for _ = 1, 300 do
      local s = b
      for _ = 1, 1 + math.floor(D.random() * 3) do
        local o = 20 + math.floor(D.random() * (#b - 20))
        s = s:sub(1, o) .. string.char(math.floor(D.random() * 256)) .. s:sub(o + 2)
      end
      local c, err = E.catch("r.animc", animc.decode, resum(s), "r.animc")
      if c then kept = kept + 1 else assert.matches("^r%.animc: ", err) end
    end
    assert.is_true(kept < 300)
  end)
end)
