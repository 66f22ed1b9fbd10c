-- encode.lua: writes clips back to .anim JSON (anim.encode, anim.save).
--
-- A clip remembers the table it was read from (its info.source: what cjson
-- decoded, or the table given to anim.clip, or what an importer built).
-- Encoding writes that table, so every field survives: editor-only ones,
-- unknown ones, nulls.  Only the version changes: clips of curves (versions
-- 2 and 3) are written as version 3, and version 1 clips are converted to
-- the equivalent version 3 clip, unless version 3 cannot say everything the
-- version 1 file said (see docs/formats.md, "Encoding").
--
-- The JSON writer is our own: Debian's lua-cjson writes at most 14
-- significant digits, which would change the numbers and so the samples.
require("anim.base.luajit").no_traversal_traces()
local core = require "anim.core"
local E = require "anim.base.errors"
local args = require "anim.base.args"
local json = require "anim.base.json"
local limits = require "anim.base.limits"
local clipmod = require "anim.format.clip"
local keylists = require "anim.format.keys"
local animc = require "anim.format.animc"
local Q = require "anim.base.quat"
local compat = require "anim.base.compat"

local M = {}

local fail, key, index, absent = E.fail, E.key, E.index, E.absent

M.WIDTH = 100 -- a value is written on one line when it fits in this many columns

-- Scalars ----------------------------------------------------------------------------

-- Where a value is, for messages.  Built only when a message needs it: the
-- writers pass nodes { up = parent node, k = key or index } (strings are
-- taken as they are): building a path string for every value cost a
-- sixth of the encoding time.
local function path_text(p)
  if p == nil then return "" end
  if type(p) == "string" then return p end
  local base = path_text(p.up)
  if compat.tointeger(p.k) then return index(base, p.k) end
  return key(base, p.k)
end

-- (the shortest of %.15g, %.16g and %.17g that reads back, its point '.'
-- in any C locale: in C, csrc/lua/lua_numtext.c)
local number_tail = core.number_text

-- The shortest of %.15g, %.16g and %.17g that reads back as the same double
-- (%.17g always does), integers without a fraction, and -0 kept as -0 so
-- that even the sign of a zero survives.
local function number_text(v, path)
  -- (5.1, 5.2 and LuaJIT have no integers: the float path below writes
  -- an integral value the same way)
  if compat.mtype(v) == "integer" then return string.format("%d", v) end
  if v ~= v or v == math.huge or v == -math.huge then
    fail(path_text(path), "%s cannot be written as JSON (only finite numbers can)", E.describe(v))
  end
  if v == 0 then return 1 / v < 0 and "-0" or "0" end
  if v % 1 == 0 and v >= -2 ^ 53 and v <= 2 ^ 53 then return string.format("%d", v) end
  return number_tail(v)
end

local ESCAPES = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

-- JSON escapes for quotes, backslashes and control characters; every other
-- byte (UTF-8 included) is written as it is.
local function string_text(s)
  -- (%z: 5.1 and LuaJIT end a pattern at a zero byte; 5.2+ still read %z)
  return '"' .. s:gsub('[%z\1-\31"\\]', function(c)
    return ESCAPES[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function scalar_text(v, path)
  local ty = type(v)
  if ty == "string" then return string_text(v) end
  if ty == "number" then return number_text(v, path) end
  if ty == "boolean" then return v and "true" or "false" end
  if v == json.null then return "null" end
  fail(path_text(path), "a %s cannot be written as JSON", ty)
end

M.scalar_text = scalar_text

-- Schemas: where the writer is in a clip ---------------------------------------------
--
-- A schema says, for a place in the clip table: the order of an object's
-- keys (known ones first, in the order the format text's examples use, the
-- rest in byte order); whether an empty table there is [] or {} (a decoded
-- JSON [] and {} are both an empty Lua table); whether the value is always
-- written one item per line (`expand`) or always on one line (`inline`);
-- and the schemas of the children.  Anything not described is written the
-- same generic way, so unknown fields need no schema.

local function schema(t)
  if t.order then
    t.rank = {}
    for i, k in ipairs(t.order) do t.rank[k] = i end
  end
  return t
end

local ANY = schema {}
local ARRAY = schema { array = true }

local EXTRA = schema { order = { "type", "ease", "left", "right", "in", "out", "in_tangent", "out_tangent" } }
local KEY = schema { array = true, inline = true, items = { [4] = EXTRA } }
local CHANNEL = schema { array = true, expand = true, each = KEY }
local MODIFIER = schema {
  order = { "type", "axis", "enabled", "before", "after", "step", "scale", "strength", "phase",
    "offset", "reference", "min", "max", "points" },
  fields = { points = ARRAY },
}
local MODLIST = schema { array = true, each = MODIFIER }
local MODIFIERS = schema {
  order = { "position", "rotation", "scale" },
  fields = { position = MODLIST, rotation = MODLIST, scale = MODLIST },
}
local JOINT = schema {
  expand = true,
  order = { "position", "rotation", "scale", "weight", "muted", "locked", "interpolation", "modifiers" },
  fields = { position = CHANNEL, rotation = CHANNEL, scale = CHANNEL, modifiers = MODIFIERS },
}
local JOINTS = schema { expand = true, each = JOINT }
-- a property channel: a list of keys, or { keys = [...], modifiers = [...] }
local PROPERTY = schema {
  array = true, expand = true, each = KEY,
  order = { "keys", "discrete", "modifiers" }, fields = { keys = CHANNEL, modifiers = MODLIST },
}
local PROPERTIES = schema { expand = true, each = PROPERTY }
local ITEM = schema {
  order = { "time", "name", "value", "sound", "id", "clip", "on", "volume", "pitch", "fade",
    "payload", "preview" },
}
local ITEMS = schema { array = true, each = ITEM }
local SKELETON = schema { each = schema { order = { "parent", "position", "translation", "rotation", "scale" } } }
local POSE = schema { order = { "position", "rotation", "angles", "easing", "direction", "weight" } }
local POSES = schema { expand = true, each = POSE }
local KEYFRAME = schema { expand = true, order = { "time", "poses" }, fields = { poses = POSES } }
local KEYFRAMES = schema { array = true, expand = true, each = KEYFRAME }
local ROOT = schema {
  expand = true,
  order = { "version", "length", "loop", "looped", "speed", "autoplay", "priority", "blend", "space",
    "absolute", "mask", "euler", "rig", "fps", "viewModel", "skeleton", "retarget", "joints", "keyframes",
    "properties", "markers", "events", "sounds", "plays" },
  fields = {
    joints = JOINTS, keyframes = KEYFRAMES, properties = PROPERTIES, markers = ITEMS, events = ITEMS,
    sounds = ITEMS, plays = ITEMS, mask = ARRAY, skeleton = SKELETON,
  },
}

local function child_schema(sch, k)
  return (sch.items and sch.items[k]) or (sch.fields and sch.fields[k]) or sch.each or ANY
end

-- Tables -------------------------------------------------------------------------------

-- Byte order, whatever the C locale says (Lua's < on strings uses strcoll).
local byte_less = require("anim.base.order").less

-- What a table is in JSON: "array" with its length, or "object" with its
-- keys in writing order.  Raw access: metatables play no part in a clip.
local function classify(t, sch, path)
  local n, max, strings, other = 0, 0, {}, nil
  for k in next, t do
    n = n + 1
    -- (an integer key: on 5.3+ a float key is never integral, on 5.1 an
    -- integral one is what an integer is)
    if compat.tointeger(k) and k >= 1 then
      if k > max then max = k end
    elseif type(k) == "string" then
      strings[#strings + 1] = k
    else
      other = other or k
    end
  end
  if n == 0 then return sch.array and "array" or "object", 0 end
  if #strings == 0 and other == nil then
    if max ~= n then
      fail(path_text(path), "an array with holes cannot be written as JSON (%d items, the last at index %d)", n, max)
    end
    return "array", n
  end
  if other ~= nil or #strings ~= n then
    -- name the same key every time: the first non-string key in text order
    local k
    for kk in next, t do
      if type(kk) ~= "string" and (k == nil or byte_less(tostring(kk), tostring(k))) then k = kk end
    end
    fail(path_text(path), "cannot be written as JSON: a table is either an array or has only string keys, got the %s key %s",
      type(k), E.shown(k))
  end
  local rank = sch.rank or {}
  table.sort(strings, function(a, b)
    local ra, rb = rank[a], rank[b]
    if ra and rb then return ra < rb end
    if ra or rb then return ra ~= nil end
    return byte_less(a, b)
  end)
  return "object", strings
end

local function check_depth(depth, path)
  -- what we write must read back (anim.json refuses deeper nesting), and
  -- a table that contains itself must end in a message, not a stack overflow
  local max = limits.current.depth -- (anim.limits.depth, read at each call)
  if depth > max then
    fail(path_text(path), "nested more than %d deep (does a table contain itself?)", max)
  end
end

local HUGE = math.huge

-- One-line form, or nil as soon as it would be longer than budget.
local function inline(v, sch, path, depth, budget)
  if type(v) ~= "table" then
    local s = scalar_text(v, path)
    return #s <= budget and s or nil
  end
  check_depth(depth, path)
  local kind, what = classify(v, sch, path)
  if what == 0 then return kind == "array" and "[]" or "{}" end
  local parts, len = {}, kind == "array" and 2 or 4
  for i = 1, kind == "array" and what or #what do
    local k = kind == "array" and i or what[i]
    local prefix = kind == "array" and "" or string_text(k) .. ": "
    local sep = i > 1 and 2 or 0
    local room = budget - len - sep - #prefix
    if room < 0 then return nil end
    local x = rawget(v, k)
    local s
    -- (a finite number, most of a clip's text: its text as inline's, with
    -- no place made for a message it cannot have)
    if type(x) == "number" and x == x and x ~= HUGE and x ~= -HUGE then
      s = number_text(x)
      if #s > room then return nil end
    else
      s = inline(x, child_schema(sch, k), { up = path, k = k }, depth + 1, room)
      if not s then return nil end
    end
    parts[i] = prefix .. s
    len = len + sep + #prefix + #s
  end
  if kind == "array" then return "[" .. table.concat(parts, ", ") .. "]" end
  return "{ " .. table.concat(parts, ", ") .. " }"
end

-- A key of a list keys.lua made (made: keys.made's entry; i its index),
-- as inline writes it, or nil where inline must (the file's own key, an
-- extra, nesting at the limit, anything but finite numbers): the most of
-- a clip's text, written without classify's and the schema's look at
-- every table.
local function fresh_key(k, made, i, depth)
  if (made ~= true and made[i]) or depth + 1 > limits.current.depth or rawget(k, 4) ~= nil then return nil end
  local t, vals, ip = rawget(k, 1), rawget(k, 2), rawget(k, 3)
  if type(t) ~= "number" or type(vals) ~= "table" or (ip ~= nil and type(ip) ~= "string") then return nil end
  local n = #vals
  if n == 0 or t ~= t or t == HUGE or t == -HUGE then return nil end
  local parts = {}
  for a = 1, n do
    local x = vals[a]
    if type(x) ~= "number" or x ~= x or x == HUGE or x == -HUGE then return nil end
    parts[a] = number_text(x)
  end
  local s = "[" .. number_text(t) .. ", [" .. table.concat(parts, ", ") .. "]"
  if ip then s = s .. ", " .. string_text(ip) end
  return s .. "]"
end

-- The value at `path`, written at `indent`; `used` columns of its line are
-- already taken (indent and key).
local function render(v, sch, path, depth, indent, used)
  if type(v) ~= "table" then return scalar_text(v, path) end
  if sch.inline then return inline(v, sch, path, depth, math.huge) end
  if not sch.expand then
    local s = inline(v, sch, path, depth, M.WIDTH - used - 1) -- 1 for a comma after it
    if s then return s end
  end
  check_depth(depth, path)
  local kind, what = classify(v, sch, path)
  if what == 0 then return kind == "array" and "[]" or "{}" end
  local inner = indent .. "  "
  local lines = {}
  if kind == "array" then
    local made = sch == CHANNEL and keylists.made[v]
    for i = 1, what do
      local x = rawget(v, i)
      local s = made and type(x) == "table" and fresh_key(x, made, i, depth + 1)
      lines[i] = inner .. (s or render(x, child_schema(sch, i), { up = path, k = i }, depth + 1, inner, #inner))
    end
    return "[\n" .. table.concat(lines, ",\n") .. "\n" .. indent .. "]"
  end
  for i, k in ipairs(what) do
    local prefix = inner .. string_text(k) .. ": "
    lines[i] = prefix .. render(rawget(v, k), child_schema(sch, k), { up = path, k = k }, depth + 1, inner, #prefix)
  end
  return "{\n" .. table.concat(lines, ",\n") .. "\n" .. indent .. "}"
end

-- The values a table holds, tables and their contents counted at every
-- place they are (as the text writes them), counted once per table: a
-- table anim.clip was given may hold one table at many places (it keeps
-- that sharing), and written out 25 levels of two-way sharing would be
-- 2^25 values.  Raises a failure when they are more than the bytes a
-- text may have (anim.limits.bytes: each value takes at least one), before
-- anything is written.
local function check_size(t)
  -- (the keys down to a table in `keys`: its path, { up, k }, made only for
  -- a message)
  local memo, max, keys = {}, limits.current.bytes, {}
  local function size(v, depth)
    if type(v) ~= "table" then return 1 end
    if memo[v] then return memo[v] end
    if depth > limits.current.depth then
      local path
      for d = 2, depth do path = { up = path, k = keys[d] } end
      check_depth(depth, path)
    end
    local n = 1
    for k, x in next, v do
      keys[depth + 1] = k
      n = n + size(x, depth + 1)
      if n > max then break end
    end
    -- (a table of a few values walked again where it is found again: a
    -- key's, most of a clip's tables, not put in the memo)
    if n > 16 then memo[v] = n end
    return n
  end
  if size(t, 1) > max then
    fail("", "the text would hold more than %d values, beyond anim.limits.bytes (a table held at several places"
      .. " is written at each)", max)
  end
end

-- JSON text of a clip-shaped table (exposed for other writers, such as the
-- converters of the importers).  Raises a failure (errors.lua) for values
-- JSON cannot hold.
function M.json_text(t)
  check_size(t)
  return render(t, ROOT, nil, 1, "", 0) .. "\n"
end

-- Version 1 -> version 3 -----------------------------------------------------------------

-- The same arithmetic as format/read_poses.lua's reader of version 1 (yxz: Ry * Rx * Rz,
-- SEMANTICS 4), so that the converted keys are the quaternions the version 1
-- clip played.
local function euler_yxz(deg) return Q.from_euler(deg, "yxz") end

local V1_DIRECTIONS = { ["in"] = "in", out = "out", inout = "inOut" }
local KEYFRAME_FIELDS = { time = true, poses = true }
local POSE_FIELDS = { position = true, rotation = true, angles = true, easing = true, direction = true, weight = true }
-- fields of a version 1 file that the version 3 clip says in its own way
local V1_CONVERTED = { version = true, looped = true, keyframes = true, length = true, loop = true }

-- Key i of a converted channel: the pose's easing shapes the segment that
-- starts at it; a joint left out of a keyframe is linear from there.
local function v1_key(t, value, pose)
  local k = { t, value }
  local easing = pose and not absent(pose.easing) and pose.easing:lower() or "linear"
  if easing == "constant" then
    k[3] = "step"
  elseif easing ~= "linear" then
    local d = pose and not absent(pose.direction) and pose.direction:lower() or "inout"
    -- version 1 eases inOut when no direction is given, version 3 would not
    k[3], k[4] = easing, { ease = V1_DIRECTIONS[d] }
  end
  return k
end

local function num(x) return number_text(x, "") end

-- The version 3 table of a version 1 source, or nil and why version 3
-- cannot hold it.  `info` is what format.read made of the source.
local function v1_to_v3(src, info)
  local kfs = src.keyframes
  local names, seen = {}, {}
  -- keys in byte order, so that the field a message names is always the same
  local function sorted(t)
    local ks = {}
    for k in pairs(t) do ks[#ks + 1] = k end
    table.sort(ks, function(a, b) return byte_less(tostring(a), tostring(b)) end)
    return ks
  end
  local function no_place(path)
    return nil, string.format("%s is a field version 3 has no place for", path)
  end
  for i, kf in ipairs(kfs) do
    local kp = index("keyframes", i)
    for _, k in ipairs(sorted(kf)) do
      if not KEYFRAME_FIELDS[k] then return no_place(key(kp, k)) end
    end
    if not absent(kf.poses) then
      for _, name in ipairs(sorted(kf.poses)) do
        for _, k in ipairs(sorted(kf.poses[name])) do
          if not POSE_FIELDS[k] then return no_place(key(key(key(kp, "poses"), name), k)) end
        end
        if not seen[name] then seen[name] = true names[#names + 1] = name end
      end
    end
  end
  if not absent(src.loop) and src.loop ~= info.loop then
    return nil, string.format("its field loop (%s) is not what looped says (%s); version 3 has only loop",
      type(src.loop) == "string" and E.shown(src.loop) or E.describe(src.loop), info.loop)
  end
  if not absent(src.euler) and not (type(src.euler) == "string" and src.euler:lower() == "yxz") then
    return nil, string.format("its field euler (%s) is not the order version 1 uses (yxz), and version 3 would read it",
      type(src.euler) == "string" and E.shown(src.euler) or E.describe(src.euler))
  end
  table.sort(names, byte_less)
  local joints = {}
  for _, name in ipairs(names) do
    local pos, rot, weights = false, false, {}
    for i, kf in ipairs(kfs) do
      local pose = not absent(kf.poses) and kf.poses[name] or nil
      if pose then
        pos = pos or not absent(pose.position)
        rot = rot or not absent(pose.rotation) or not absent(pose.angles)
      end
      weights[i] = pose and not absent(pose.weight) and pose.weight or 1
    end
    local j = {}
    for i = 2, #weights do
      if weights[i] ~= weights[1] then
        return nil, string.format("the pose weight of joint '%s' varies over time (%s at keyframe 1, %s at keyframe %d), "
          .. "and version 3 has no animated joint weight", E.shown(name), num(weights[1]), num(weights[i]), i)
      end
    end
    if #weights > 0 and weights[1] ~= 1 then j.weight = weights[1] end
    if pos then j.position = {} end
    if rot then j.rotation = {} end
    for i, kf in ipairs(kfs) do
      local pose = not absent(kf.poses) and kf.poses[name] or nil
      if pos then
        local p = pose and not absent(pose.position) and pose.position or { 0, 0, 0 }
        j.position[i] = v1_key(kf.time, p, pose)
      end
      if rot then
        local q = { 0, 0, 0, 1 }
        if pose and not absent(pose.rotation) then q = pose.rotation
        elseif pose and not absent(pose.angles) then q = euler_yxz(pose.angles) end
        j.rotation[i] = v1_key(kf.time, q, pose)
      end
    end
    joints[name] = j
  end
  local out = {}
  for k, v in pairs(src) do
    if not V1_CONVERTED[k] then out[k] = v end
  end
  out.version, out.length, out.loop, out.joints = 3, info.length, info.loop, joints
  return out
end

-- Options ----------------------------------------------------------------------------------

local OPTIONS = args.names { "version" }

local function check_options(options, n, fname)
  if options == nil then return nil end
  args.options(options, OPTIONS, n, fname)
  local v = options.version
  if v ~= nil and v ~= 1 and v ~= 3 then
    args.error(n, fname, string.format("option 'version' must be 1 or 3, got %s",
      type(v) == "number" and tostring(v) or type(v)))
  end
  return v
end

local function check_clip(c, fname)
  if not clipmod.is_clip(c) and not clipmod.is_finalized(c) then
    args.error(1, fname, "anim.clip expected, got " .. args.typename(c))
  end
end

-- The table to write for a clip, at the version asked for (nil: the best one).
local function document(info, version)
  if rawget(info, "compression") then
    fail("", "a compressed clip keeps no keys to write as .anim: save it as .animc (anim.save(clip, \"x.animc\"))")
  end
  local src = info.source
  if type(src) ~= "table" then fail("", "the clip keeps no source table to encode") end
  local out = {}
  if info.layout == "poses" then
    local v3, why = v1_to_v3(src, info)
    if version == 3 and not v3 then fail("", "cannot be written as version 3: %s", why) end
    if v3 and version ~= 1 then return v3 end
    -- kept as the version 1 file it is, saying so
    for k, v in pairs(src) do out[k] = v end
    out.version = 1
    return out
  end
  if version == 1 then
    fail("", "cannot be written as version 1: only clips read from version 1 poses can")
  end
  for k, v in pairs(src) do out[k] = v end
  out.version = 3
  return out
end

-- API ----------------------------------------------------------------------------------------

-- anim.encode(clip [, options]) -> text, approx | nil, message
-- approx is the clip's info.approx ({ bound, note }) when an importer said
-- the written table is not exact, else nil.
function M.encode(c, options)
  check_clip(c, "encode")
  local version = check_options(options, 2, "encode")
  local info = core.clip_info(c)
  return E.catch(info.name or "clip", function()
    -- (a finalizer of the host's, a state that closes: the keys are gone)
    if not clipmod.is_clip(c) then
      E.fail("", "cannot encode: the clip was finalized (garbage collected, or its __gc called by hand)")
    end
    return M.json_text(document(info, version)), info.approx
  end)
end

-- anim.table(clip [, options]) -> table, approx | nil, message: what
-- anim.encode writes, as a fresh Lua table in the file's shape (anim.clip
-- takes it back: a script adds markers to an imported clip this way).
local function deep_copy(v)
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in next, v do out[k] = deep_copy(x) end
  return out
end

local function table_of(c, options, copy)
  check_clip(c, "table")
  local version = check_options(options, 2, "table")
  local info = core.clip_info(c)
  return E.catch(info.name or "clip", function()
    local doc = document(info, version)
    -- (a shared table is for readers that walk a table held at several
    -- places once, as anim.clip's copy does: only a copy for a script, or
    -- the text, may grow with them)
    if not copy then return doc, info.approx end
    check_size(doc)
    return deep_copy(doc), info.approx
  end)
end
function M.table(c, options) return table_of(c, options, true) end

-- The same table not copied again (a clip's source is rebuilt at each
-- ask, keys.lua; the copy is for scripts that change what they get): for
-- readers that change nothing in it (export/gltf/reduce_clip.lua, whose
-- clips are built of copies).
function M.table_shared(c, options) return table_of(c, options, false) end

-- Writes text to path atomically: a temporary file beside it, renamed
-- over it (anim.save, anim.export_gltf).  true, or nil and
-- "path: cannot save: why".
function M.write_atomic(path, text)
  local function failed(fmt, ...)
    return nil, E.shown(path) .. ": cannot save: " .. string.format(fmt, ...)
  end
  -- the C library ends a path at its first NUL: "x\0y" would write "x"
  if path:find("\0", 1, true) then return failed("the path holds a NUL byte") end
  -- an existing target is written where its links lead (a link stays a
  -- link); anything but a regular file there is refused, not replaced
  local kind = core.file_kind(path)
  if kind and kind ~= "file" then return failed("it is a %s, not a regular file", kind == "other" and "device or special file" or kind) end
  -- a link to nothing is refused, not replaced by the file nor written
  -- through (as GNU cp does: "not writing through dangling symlink",
  -- coreutils src/copy.c, copy_reg): where it leads may be anywhere
  if not kind and core.file_kind(path, true) == "link" then
    return failed("it is a symbolic link to a file that does not exist (anim.save writes through links only to"
      .. " existing files)")
  end
  local target = kind and core.realpath(path) or path
  local tmp
  for _ = 1, 100 do
    local name = string.format("%s.tmp%06x", target, math.random(0, 0xffffff))
    -- a free name: nothing there, not even a link (lstat: opening it to
    -- see would block on a FIFO of that name, and pass a dangling link)
    if not core.file_kind(name, true) then tmp = name break end
  end
  if not tmp then return failed("no free name for a temporary file beside it") end
  -- io messages start with the file name, which the caller did not choose
  local function why(err)
    err = tostring(err)
    if err:sub(1, #tmp + 2) == tmp .. ": " then return err:sub(#tmp + 3) end
    return err
  end
  local f, err = io.open(tmp, "wb")
  if not f then return failed("cannot create a temporary file beside it: %s", why(err)) end
  local ok, res, werr = pcall(function()
    local w, e = f:write(text)
    if w then w, e = f:flush() end
    local closed, cerr = f:close()
    if not w then return nil, e end
    if not closed then return nil, cerr end
    return true
  end)
  if not ok or not res then
    pcall(f.close, f) -- when the write raised before closing
    os.remove(tmp)
    if not ok then error(res, 0) end
    return failed("cannot write the temporary file: %s", why(werr))
  end
  local renamed, rerr = os.rename(tmp, target)
  if not renamed then
    os.remove(tmp)
    return failed("cannot rename the temporary file over it: %s", why(rerr))
  end
  return true
end

-- anim.save(clip, path [, options]) -> true, approx | nil, message
-- Writes a temporary file beside the target and renames it over the target,
-- so the target is either the old file or the whole new one, never a part.
-- (Lua has no fsync: this guards against a crash of the program, not
-- against losing power before the system writes the file out.)
-- io.open, os.rename and os.remove are looked up at each call, not kept in
-- locals, so that the specs can make them fail.
function M.save(c, path, options)
  check_clip(c, "save")
  if type(path) ~= "string" then
    args.error(2, "save", string.format("string expected, got %s", type(path)))
  end
  check_options(options, 3, "save")
  if path:lower():match("%.animc$") then
    local info = core.clip_info(c)
    if not clipmod.is_clip(c) or not rawget(info, "compression") then
      return nil, E.shown(info.name or "clip") .. ": only a compressed clip (anim.compress) is saved as .animc"
    end
    return M.write_atomic(path, animc.bytes(c))
  end
  local text, approx = M.encode(c, options)
  if not text then return nil, approx end
  local ok, err = M.write_atomic(path, text)
  if not ok then return nil, err end
  return true, approx
end

return M
