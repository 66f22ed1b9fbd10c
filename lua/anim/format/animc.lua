-- animc.lua: compressed clips (anim.compress) put together, and .animc files
-- (docs/formats.md, ".animc") written and read with no JSON library.
--
-- A compressed clip is an ordinary clip built from its table with no keys
-- (markers, events, sounds, plays, property channels, the skeleton: all as
-- they were, by the usual reader) whose joints then read their channels
-- from a pack (csrc/core/packed.h).  A .animc file holds the three parts:
-- the compression's figures, that table in the value encoding
-- (csrc/lua/lua_animc.c) and the pack, framed and checksummed by
-- csrc/core/animc.c.
local core = require "anim.core"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local clipmod = require "anim.format.clip"
local keys = require "anim.format.keys"
local read = require "anim.format.read"
local limits = require("anim.base.limits").current

local M = {}

M.MAGIC = "\137ANIMC\r\n"

-- The joint fields that hold keys: what a compressed clip's table leaves
-- out (weight, muted, locked stay).
M.KEY_FIELDS = { position = true, rotation = true, scale = true, modifiers = true, interpolation = true }

-- info.compression: the figures the file keeps, and the pack's bytes.
local function figures(e, d, worst, p99, raw, plen)
  return { error = e, distance = d, worst = worst, p99 = p99, bytes_raw = raw, bytes = plen,
    ratio = plen > 0 and raw / plen or 0 }
end

-- The compressed clip of table tab (no keys), pack and stats; raises a
-- failure.  pack_at: where the pack starts in its file (offsets in
-- messages are the file's).  known: what is known of tab (format.read).
-- max_keys: the most keys the pack may hold (anim.limits.keys).
function M.assemble(tab, pack, stats, name, pack_at, known, max_keys)
  local c = clipmod.build(tab, name, true, nil, known)
  local ok, why, at = core.clip_set_packed(c, pack, max_keys or limits.keys)
  if not ok then E.fail("", "byte %d: %s", (pack_at or 0) + at, why) end
  local info = core.clip_info(c)
  rawset(info, "compression", figures(stats[1], stats[2], stats[3], stats[4], stats[5], #pack))
  return c
end

-- The file's bytes of compressed clip c.
function M.bytes(c)
  local info = core.clip_info(c)
  local f = info.compression
  local pack = core.clip_pack(c)
  local tab = info.tree or info.source
  return core.animc_write({ f.error, f.distance, f.worst, f.p99, f.bytes_raw }, core.value_encode(tab), pack)
end

-- A compressed clip from a .animc file's bytes; raises a failure.  A
-- compressed clip's usual table is read from the bytes by the core
-- (csrc/lua/lua_animc_plain.c: the clip, its info and skeleton, the table
-- decoded when first asked for); any other file the full way.
-- (The encoding holds only what JSON does, finite numbers and string
-- keys: its longest string and its nesting are all json.check would
-- look for, and when they are within the limits it is not walked.  A
-- plain skeleton is read from its bytes by the decoder.)
function M.decode(bytes, name)
  local c, info, e, d, worst, p99, raw, plen, tbytes = core.animc_plain(bytes, read.FULL_FIELDS, limits.joints,
    limits.strings, limits.depth, limits.keys)
  if c then
    info.name = name
    info.compression = figures(e, d, worst, p99, raw, plen)
    -- (the table's bytes kept, not the file's: the core holds the pack)
    keys.lazy(info, c, function() return (core.value_decode(tbytes)) end)
    return c
  end
  local tab, pack, stats, pack_at, longest, deepest, skeleton = core.animc_read(bytes, limits.joints)
  if not tab then E.fail("", "byte %d: %s", stats, pack) end
  if type(tab) ~= "table" then E.fail("", "byte %d: the clip's table is not an object", pack_at) end
  return M.assemble(tab, pack, stats, name, pack_at,
    { tree_checked = longest <= limits.strings and deepest <= limits.depth, skeleton = skeleton })
end

-- anim.load of a .animc file: clip | nil, message naming the file and the
-- byte offset.  beneath: see json.read_file.
function M.load_file(path, name, beneath)
  return E.catch(name, function() return M.decode(json.read_file(path, beneath), name) end)
end

-- A clip file of either kind, told by its name: .animc files here, any
-- other by clip.load_file (anim.load, anim.reload, a library's clips).
function M.load_any(path, name, beneath, strict)
  if path:sub(-6):lower() == ".animc" then return M.load_file(path, name, beneath) end
  return clipmod.load_file(path, name, beneath, strict)
end

-- What a compressed clip's pack holds (`anim info`): { rate, frames,
-- joints = { [i] = { position, rotation, scale } } } in info.joints'
-- order, each channel { kind = "absent" | "identity" | "narrow" | "wide",
-- keys, bytes, and for a narrow one bits = { the bits of each number it
-- keeps }, and a rotation's dropped = "x" | "y" | "z" | "w" (the component
-- rebuilt from the others) } (docs/formats.md, "The pack"); nil for
-- another clip.
local KINDS = { [0] = "absent", "identity", "narrow", "wide" }
local CHANNELS = { "position", "rotation", "scale" }
local AXES = { [0] = "x", "y", "z", "w" }
function M.channels(c)
  local rate, frames = core.clip_pack_rate(c)
  if not rate then return nil end
  local flat, joints = core.clip_pack_channels(c), {}
  for j = 1, #flat / 21 do
    local jt = {}
    for k, ch in ipairs(CHANNELS) do
      local at = (j - 1) * 21 + (k - 1) * 7
      local t = { kind = KINDS[flat[at + 1]], keys = flat[at + 2], bytes = flat[at + 3] }
      if t.kind == "narrow" then
        t.bits = { flat[at + 4], flat[at + 5], flat[at + 6] }
        if ch == "rotation" then t.dropped = AXES[flat[at + 7]] end
      end
      jt[ch] = t
    end
    joints[j] = jt
  end
  return { rate = rate, frames = frames, joints = joints }
end

-- Is this a .animc file's start?
function M.is_animc(bytes) return bytes:sub(1, #M.MAGIC) == M.MAGIC end

return M
