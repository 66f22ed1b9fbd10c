-- fuzz/animc.lua: the driver of the fuzz_animc target (and of the replay of
-- its inputs in spec/fuzz_regressions_spec.lua).
--
-- run(bytes) reads the bytes as a .animc file (what anim.load does with a
-- file's bytes: lua/anim/format/animc.lua).  It must give a compressed clip
-- or `nil, message` naming the source; raising is a bug.  What loads is used
-- as every decoded clip is (fuzz/common.lua: sampled at odd times, its
-- encoding refused, played a little) and written again: the same bytes (a
-- file has one encoding; on a runtime without integers, unless it holds an
-- integer beyond 2^53).  Then the same with the header's body length and
-- checksum made right, so that the mutations reach the table's and the
-- pack's readers (a checksum refuses nearly every random change).
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local compat = require "anim.base.compat"
local animc = require "anim.format.animc"
local E = require "anim.base.errors"
local json = require "anim.base.json"
local format = require "anim.format.read"
local limits = require("anim.base.limits").current
local C = require "fuzz.common"

local M = {}

local NAME = C.NAME

-- Deep equality down to a number's subtype (12 and 12.0 differ on 5.3+).
local mtype = math.type or function() return "number" end
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "number" then return a == b and mtype(a) == mtype(b) end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- The skeleton the clip took (from the table's bytes when plain:
-- csrc/lua/lua_skeleton.c) against the Lua reader's of the same table.
local function same_skeleton(clip)
  local info = core.clip_info(clip)
  local tree = info.tree or info.source
  if type(tree.skeleton) ~= "table" then return end
  local ok, lua = pcall(format.skeleton, setmetatable(json.copy(tree.skeleton), {}), "skeleton")
  if not ok then C.bug("a .animc skeleton read that the Lua reader refuses: %s", tostring(lua.msg or lua)) end
  if not same(info.skeleton, lua) then C.bug("a .animc skeleton read otherwise than the Lua reader reads it") end
end

-- A file the core loads from its bytes (csrc/lua/lua_animc_plain.c)
-- against the full reading of it: the same info (its table decoded when
-- asked for), the same clip written again.
local function same_fast(bytes)
  local fast = core.animc_plain(bytes, format.FULL_FIELDS, limits.joints, limits.strings, limits.depth, limits.keys)
  if not fast then return end
  local tab, pack, stats, pack_at, longest, deepest, skeleton = core.animc_read(bytes, limits.joints)
  if type(tab) ~= "table" then C.bug("a .animc file loaded from its bytes that the decoder refuses") end
  local ok, full = pcall(animc.assemble, tab, pack, stats, NAME, pack_at,
    { tree_checked = longest <= limits.strings and deepest <= limits.depth, skeleton = skeleton })
  if not ok then C.bug("a .animc file loaded from its bytes that the full reading refuses: %s", tostring(full.msg or full)) end
  local clip = animc.decode(bytes, NAME)
  local a, b = core.clip_info(clip), core.clip_info(full)
  if rawget(a, "tree") ~= nil then C.bug("a .animc file loaded from its bytes decoded its table before it was asked for") end
  a.clip, b.clip = nil, nil
  if not same(a.tree, b.tree) or not same(a, b) then C.bug("a .animc file loaded from its bytes otherwise than the full reading") end
  a.clip, b.clip = clip, full
  if animc.bytes(clip) ~= animc.bytes(full) then C.bug("a .animc file loaded from its bytes written otherwise") end
end

-- Whether a decoded table holds a whole number of 2^53 or more: on 5.1,
-- 5.2 and LuaJIT an i64 beyond 2^53 is read as the nearest double
-- (docs/runtimes.md, "Integers"), which cannot be written back as it was.
local function beyond_2_53(v, depth)
  if type(v) == "number" then return v % 1 == 0 and math.abs(v) >= 9007199254740992 end
  if type(v) ~= "table" or (depth or 0) > 200 then return false end
  for _, x in pairs(v) do
    if beyond_2_53(x, (depth or 0) + 1) then return true end
  end
  return false
end

local function read(bytes)
  same_fast(bytes)
  local clip, msg = C.must_not_raise("reading a .animc file", E.catch, NAME, animc.decode, bytes, NAME)
  if not C.check_answer("reading a .animc file", clip, msg) then return end
  if not clip.compressed then C.bug("a .animc file gave a clip that is not compressed") end
  same_skeleton(clip)
  C.must_not_raise("using a clip of a .animc file", C.use_clip, clip, false)
  local again = animc.bytes(clip)
  if again ~= bytes and (compat.integers or not beyond_2_53(core.clip_info(clip).tree)) then
    C.bug("a .animc file written again is not the same bytes (%d, then %d)", #bytes, #again)
  end
end

function M.run(bytes)
  read(bytes)
  if #bytes >= 20 then
    local body = bytes:sub(21)
    local fixed = bytes:sub(1, 12) .. compat.pack_u32le(#body) .. compat.pack_u32le(core.crc32(body)) .. body
    if fixed ~= bytes then read(fixed) end
  end
end

return M
