-- import/aseprite/init.lua: imports the JSON that Aseprite exports with a sprite
-- sheet (File > Export Sprite Sheet, "JSON Data", as a hash or an array)
-- as sprite-frame clips: anim.import_aseprite(path) -> clips, sheet.
--
-- Each tag of meta.frameTags becomes clips[tag], and clips.all plays every
-- frame in order, looping.  A clip has one property channel, `frame`: the
-- 0-based index of the frame shown, in `step` keys at the times Aseprite
-- shows them (per-frame `duration`, in ms), so that it plays exactly as
-- Aseprite plays the tag (src/doc/playback.cpp of aseprite/aseprite, read
-- for these rules):
--   forward   from..to;             reverse   to..from;
--   pingpong  from..to, then to-1..from+1 (each end frame once per bounce);
--   pingpong_reverse  to..from, then from+1..to-1;
--   `repeat` N (a string in the file): N passes -- for a ping-pong tag a
--   pass is one direction (from..to, then to-1..from, then from+1..to...)
--   -- after which the track ends on the last frame shown (loop "once");
--   no repeat (or "0"): the tag loops.
-- The sheet: sheet.frames[i + 1] = { x, y, w, h, duration (seconds), name }
-- for frame i, sheet.image, sheet.w, sheet.h from meta.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local json = require "anim.base.json"
local limits = require "anim.base.limits"
local compat = require "anim.base.compat"
local codes = require "anim.base.codes"
local core = require "anim.core"
local format = require "anim.format.read"
local keyset = require "anim.format.keys"

local M = {}

local fail, key, index, describe, num = E.fail, E.key, E.index, E.describe, E.num
local DIRECTIONS = { forward = true, reverse = true, pingpong = true, pingpong_reverse = true }
-- The longest duration of a frame, in ms: the range of the int Aseprite
-- writes.  Whole durations then sum exactly (a clip of a million keys
-- lasts less than 2^53 ms), and no sum reaches infinity.
local MAX_MS = 2147483647
local MAX_CURVE_KEYS = codes.const.max_curve_keys
-- a `step` key that says so (as { t, f, "step" } in the clip's table)
local STEP_KEY = codes.interp.step + format.HAS_INTERP

-- A member's name as the text writes it, decoded.
local function name_of(raw)
  if raw:find("\\", 1, true) then return json.decode('"' .. raw .. '"') end
  return raw
end

-- The keys of the top-level object's "frames" object, in the order of the
-- text (Lua tables keep none), or nil.  The text is JSON that json.decode
-- read; core.json_members scans it (a JSON text names a key twice at its
-- peril: the decoder keeps the last "frames", and so does this).
local function frame_names_in_order(text)
  local names, starts = core.json_members(text, text:find("[^ \t\n\r]") or 1)
  if not names then return nil end
  local at
  for i = 1, #names do
    if name_of(names[i]) == "frames" then at = starts[i] end
  end
  if not at or text:byte(at) ~= 123 then return nil end
  names = core.json_members(text, at)
  if not names then return nil end
  for i = 1, #names do names[i] = name_of(names[i]) end
  return names
end

-- A whole number >= lo, as the file has it: it may be beyond the integers
-- (1e20), so the caller range-checks it before making it one.
local function whole(v, path, what, lo)
  if compat.mtype(v) == nil or v % 1 ~= 0 or v < lo then
    fail(path, "%s must be a whole number%s, got %s", what, lo == 0 and " >= 0" or "",
      type(v) == "number" and num(v) or describe(v))
  end
  return v
end

local tointeger = compat.tointeger
-- the integer of a number known to be one, else nil (or the number itself
-- before 5.3): math.tointeger without compat's check of the type, which
-- cost a Lua call for each of four numbers a frame
local int_of = math.tointeger or function(v) return v end

-- A frame as read_frame reads it, when it is as it should be: checked
-- without making the paths a message would need (nil: read_frame says
-- what is wrong).  (f.frame and r.x being there, neither is an array;
-- json.check found every number finite.)  The sheet's frame { x, y, w, h,
-- duration (s) } and its duration in ms.
local function quick_frame(f)
  if type(f) ~= "table" then return nil end
  local r, d = f.frame, f.duration
  if type(r) ~= "table" or type(d) ~= "number" or not (d > 0 and d <= MAX_MS) then return nil end
  local x, y, w, h = r.x, r.y, r.w, r.h
  if type(x) ~= "number" or type(y) ~= "number" or type(w) ~= "number" or type(h) ~= "number"
    or not (x >= 0 and y >= 0 and w >= 0 and h >= 0) then
    return nil
  end
  return { x = int_of(x) or x, y = int_of(y) or y, w = int_of(w) or w, h = int_of(h) or h, duration = d / 1000 }, d
end

local function read_frame(f, p)
  E.object(f, p, "frame")
  local r = f.frame
  local rp = key(p, "frame")
  E.object(r, rp, "frame rectangle {x, y, w, h}")
  local rect = {}
  for _, k in ipairs { "x", "y", "w", "h" } do
    local v = E.number(r[k], key(rp, k), k)
    if v < 0 then fail(key(rp, k), "%s must be >= 0, got %s", k, num(v)) end
    rect[k] = tointeger(v) or v
  end
  local d = E.number(f.duration, key(p, "duration"), "duration")
  if d <= 0 then fail(key(p, "duration"), "a frame's duration must be more than 0 ms, got %s", num(d)) end
  if d > MAX_MS then fail(key(p, "duration"), "a frame's duration must be at most %d ms, got %s", MAX_MS, num(d)) end
  rect.duration = d / 1000
  return rect, d
end

-- The frames of the file in its order, as the sheet gives them: { {x, y,
-- w, h, duration, name}, ... }, and their durations in ms.
local function read_frames(doc, text)
  local frames = doc.frames
  if E.absent(frames) then fail("frames", "an Aseprite sheet needs its frames (File > Export Sprite Sheet, JSON data)") end
  local out, ms = {}, {}
  if type(frames) == "table" and next(frames) == nil then
    fail("frames", "an Aseprite sheet needs at least one frame")
  elseif type(frames) == "table" and E.is_array(frames) then
    for i, f in ipairs(frames) do
      local r, d = quick_frame(f)
      if not r then r, d = read_frame(f, index("frames", i)) end
      local name = f.filename
      if type(name) == "string" then r.name = name
      elseif not E.absent(name) then E.string(name, key(index("frames", i), "filename"), "filename") end
      out[i], ms[i] = r, d
    end
  elseif type(frames) == "table" then
    local order = frame_names_in_order(text)
    local n = 0
    for _ in pairs(frames) do n = n + 1 end
    if not order or #order ~= n then
      -- (JSON lets a name come twice; the decoder keeps the last)
      local seen = {}
      for _, name in ipairs(order or {}) do
        if seen[name] then fail(key("frames", name), "the frame name '%s' comes twice", E.shown(name)) end
        seen[name] = true
      end
      fail("frames", "cannot tell the order of the frames")
    end
    for i, name in ipairs(order) do
      local r, d = quick_frame(frames[name])
      if not r then r, d = read_frame(frames[name], key("frames", name)) end
      r.name = name
      out[i], ms[i] = r, d
    end
  else
    fail("frames", "frames must be an array or an object of frames, got %s", describe(frames))
  end
  return out, ms
end

-- The frames one pass of a tag shows, in order, and whether it loops.
local function sequence(tag, passes)
  local from, to, dir = tag.from, tag.to, tag.direction
  local seq = {}
  local function run(a, b)
    local step = a <= b and 1 or -1
    for i = a, b, step do seq[#seq + 1] = i end
  end
  local n = to - from + 1
  if dir == "forward" or dir == "reverse" then
    local a, b = from, to
    if dir == "reverse" then a, b = to, from end
    for _ = 1, passes or 1 do run(a, b) end
    return seq
  end
  -- ping-pong: the first pass one way, each further one back from the
  -- frame after the end it turned at
  local forward = dir == "pingpong"
  if n == 1 then
    for _ = 1, passes or 1 do seq[#seq + 1] = from end
    return seq
  end
  if passes then
    for k = 1, passes do
      if k == 1 then
        if forward then run(from, to) else run(to, from) end
      elseif forward then
        run(from + 1, to)
      else
        run(to - 1, from)
      end
      forward = not forward
    end
  else
    -- a loop: one way, then back without either end frame
    if forward then run(from, to) if n > 2 then run(to - 1, from + 1) end
    else run(to, from) if n > 2 then run(from + 1, to - 1) end end
  end
  return seq
end

-- The keys one clip of tag t has (t: read_tag's), counted without making
-- them: the tag's frames, its passes (or its loop, for a ping-pong the
-- way there and back) as sequence() makes them.  A float when the file's
-- numbers are beyond the integers.
local function keys_of(t)
  local n, passes = t.to - t.from + 1, t["repeat"]
  if t.direction == "forward" or t.direction == "reverse" or n == 1 then return n * (passes or 1) end
  if passes then return n + (passes - 1) * (n - 1) end
  return n > 2 and 2 * n - 2 or n
end

-- The clip of a run of frames: `frame` in step keys, timed in ms summed
-- as integers then divided once (no rounding carried along).  The clip's
-- table (what anim.encode writes) holds the keys as { t, f, "step" }; the
-- core's description of them is made here, in the same pass, as
-- format/props.lua would make it of that table: this reader made the keys
-- and they need no reading again (whole frame indices, times that do not
-- decrease), which took four times the rest of the import.
local function build(seq, frame_ms, loops, name)
  local keys, t, v, ie, ms = {}, {}, {}, {}, 0
  for i = 1, #seq do
    local f = seq[i]
    local time = ms / 1000
    keys[i] = { time, f, "step" }
    t[i], v[i], ie[i] = time, f, STEP_KEY
    ms = ms + frame_ms[f + 1]
  end
  local source = { version = 3, length = ms / 1000, loop = loops and "loop" or "once", joints = {} }
  local desc, info = format.read(source, true)
  source.properties = { frame = keys } -- (after: format.read would walk the keys)
  format.count_keys(#seq, "properties.frame")
  desc.props = { { name = "frame", arity = 1, t = t, v = v, ie = ie } }
  info.properties = { { name = "frame", arity = 1 } }
  info.name = name
  return keyset.build(desc, info)
end

local function read_tag(tag, p, nframes)
  E.object(tag, p, "tag")
  local out = { name = E.string(tag.name, key(p, "name"), "tag name") }
  -- (range-checked as the file has them, then made integers)
  local from = whole(tag.from, key(p, "from"), "from", 0)
  local to = whole(tag.to, key(p, "to"), "to", 0)
  if from > to or to >= nframes then
    fail(key(p, to >= nframes and "to" or "from"), "the tag's range %s..%s is outside the frames 0..%d%s",
      num(from), num(to), nframes - 1, from > to and " (from comes after to)" or "")
  end
  out.from, out.to = compat.tointeger(from), compat.tointeger(to)
  local dir = tag.direction
  if E.absent(dir) then dir = "forward" end
  if type(dir) ~= "string" or not DIRECTIONS[dir] then
    fail(key(p, "direction"), "unknown direction %s (expected forward, reverse, pingpong or pingpong_reverse)",
      type(dir) == "string" and ("'" .. E.shown(dir) .. "'") or describe(dir))
  end
  out.direction = dir
  local rep = tag["repeat"]
  if not E.absent(rep) then
    local rp = key(p, "repeat")
    local n = type(rep) == "string" and rep:match("^%s*(%d+)%s*$") and tonumber(rep) or rep
    if type(rep) == "string" and type(n) ~= "number" then
      fail(rp, "repeat must be a whole number of passes (as a string, as Aseprite writes it), got '%s'", E.shown(rep))
    end
    -- (kept as the file has it: the keys it makes are counted before it
    -- becomes an integer)
    n = whole(n, rp, "repeat", 0)
    if n > 0 then out["repeat"] = n end -- 0 is Aseprite's "for ever"
  end
  return out
end

-- The sheet of an Aseprite JSON text, its frames' durations in ms and its
-- tags, read whole; raises a failure.  (The decoded tree is garbage once
-- this returns: the collector need not walk it again while the clips are
-- built.)
local function read_sheet(text)
  -- (a name an object holds twice is refused, as anim's own files; a frame
  -- name twice in the hash form by the frames' own words, below)
  local doc = json.decode(text, nil, nil, "frames")
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected the JSON Aseprite exports with a sprite sheet (an object with frames and meta), got %s",
      describe(doc))
  end
  json.check(doc)
  local frames, frame_ms = read_frames(doc, text)
  local sheet = { frames = frames }
  local meta = doc.meta
  local tags = {}
  if not E.absent(meta) then
    E.object(meta, "meta", "meta")
    if not E.absent(meta.image) then sheet.image = E.string(meta.image, "meta.image", "image") end
    if not E.absent(meta.size) then
      E.object(meta.size, "meta.size", "size {w, h}")
      local w = E.number(meta.size.w, "meta.size.w", "w")
      local h = E.number(meta.size.h, "meta.size.h", "h")
      sheet.w, sheet.h = compat.tointeger(w) or w, compat.tointeger(h) or h
    end
    if not E.absent(meta.frameTags) then
      E.array(meta.frameTags, "meta.frameTags", "frameTags")
      local seen = {}
      for i, tag in ipairs(meta.frameTags) do
        local p = index("meta.frameTags", i)
        local t = read_tag(tag, p, #frames)
        if t.name == "all" then
          fail(key(p, "name"), "a tag named 'all' would hide clips.all (every frame): rename the tag")
        end
        if seen[t.name] then
          fail(key(p, "name"), "two tags are named '%s' (tags %d and %d): each clip is named by its tag", E.shown(t.name), seen[t.name], i)
        end
        seen[t.name] = i
        tags[i] = t
      end
    end
  end
  return sheet, frame_ms, tags
end

-- clips, sheet from the text of an Aseprite JSON file; raises a failure.
function M.decode(text, name)
  local sheet, frame_ms, tags = read_sheet(text)
  local frames = sheet.frames
  -- the keys every clip will have, against the limits, before any is
  -- built (and before a repeat becomes an integer: "1e300" is refused here)
  local total = 0
  local function count(n, path, what)
    total = total + n
    if total > limits.current.keys then
      fail(path, "too many keys: the clips would have %s (at most %d, anim.limits.keys)", num(total), limits.current.keys)
    end
    if n > MAX_CURVE_KEYS then fail(path, "too many keys: %s would have %s (at most %d)", what, num(n), MAX_CURVE_KEYS) end
  end
  count(#frames, "frames", "clips.all")
  for i, t in ipairs(tags) do
    count(keys_of(t), index("meta.frameTags", i), "the tag's clip")
    t["repeat"] = t["repeat"] and compat.tointeger(t["repeat"])
  end
  local clips = {}
  local all = {}
  for i = 1, #frames do all[i] = i - 1 end
  clips.all = build(all, frame_ms, true, name .. "#all")
  for _, t in ipairs(tags) do
    clips[t.name] = build(sequence(t, t["repeat"]), frame_ms, not t["repeat"], name .. "#" .. t.name)
  end
  return clips, sheet
end

function M.import(path)
  return E.catch(path, function() return M.decode(json.read_file(path), path) end)
end

function M.decode_text(text, name)
  return E.catch(name, M.decode, text, name)
end

return M
