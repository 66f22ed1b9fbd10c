-- aseprite.lua: imports the JSON that Aseprite exports with a sprite
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
local E = require "anim.base.errors"
local json = require "anim.base.json"
local limits = require "anim.base.limits"
local clipmod = require "anim.format.clip"
local compat = require "anim.base.compat"

local M = {}

local fail, key, index, describe, num = E.fail, E.key, E.index, E.describe, E.num
local DIRECTIONS = { forward = true, reverse = true, pingpong = true, pingpong_reverse = true }

-- The keys of the top-level object's "frames" object, in the order of the
-- text (Lua tables keep none).  The text is JSON that json.decode read,
-- so the scan needs no checks of its own.
local function frame_names_in_order(text)
  local function after_string(i) -- text[i] is the opening quote
    local j = i + 1
    while true do
      local k = text:find('["\\]', j)
      if text:byte(k) == 34 then return k + 1 end
      j = k + 2
    end
  end
  local function after_value(i)
    local c = text:byte(i)
    if c == 34 then return after_string(i) end
    if c ~= 123 and c ~= 91 then return text:find("[,}%]%s]", i) or #text + 1 end
    local depth, j = 0, i
    while true do
      local k = text:find('[%[%]{}"]', j)
      local ch = text:byte(k)
      if ch == 34 then
        j = after_string(k)
      else
        depth = depth + ((ch == 123 or ch == 91) and 1 or -1)
        j = k + 1
        if depth == 0 then return j end
      end
    end
  end
  local function skip_space(i) return text:find("[^%s]", i) end
  -- the members of the object at i: calls fn(name, value start) for each
  local function members(i, fn)
    i = skip_space(i + 1)
    while text:byte(i) ~= 125 do
      if text:byte(i) == 44 then i = skip_space(i + 1) end
      local e = after_string(i)
      local name = json.decode(text:sub(i, e - 1))
      local v = skip_space(skip_space(e) + 1) -- past the colon
      fn(name, v)
      i = skip_space(after_value(v))
    end
  end
  local out
  members(skip_space(1), function(name, v)
    if name == "frames" and text:byte(v) == 123 then
      out = {}
      members(v, function(frame) out[#out + 1] = frame end)
    end
  end)
  return out
end

local function whole(v, path, what, lo)
  if compat.mtype(v) == nil or v % 1 ~= 0 or v < lo then
    fail(path, "%s must be a whole number%s, got %s", what, lo == 0 and " >= 0" or "",
      type(v) == "number" and num(v) or describe(v))
  end
  return compat.tointeger(v)
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
    rect[k] = compat.tointeger(v) or v
  end
  local d = E.number(f.duration, key(p, "duration"), "duration")
  if d <= 0 then fail(key(p, "duration"), "a frame's duration must be more than 0 ms, got %s", num(d)) end
  rect.ms = d
  rect.duration = d / 1000
  return rect
end

-- The frames of the file in its order: { {x, y, w, h, duration, ms, name}, ... }.
local function read_frames(doc, text)
  local frames = doc.frames
  if E.absent(frames) then fail("frames", "an Aseprite sheet needs its frames (File > Export Sprite Sheet, JSON data)") end
  local out = {}
  if type(frames) == "table" and next(frames) == nil then
    fail("frames", "an Aseprite sheet needs at least one frame")
  elseif type(frames) == "table" and E.is_array(frames) then
    for i, f in ipairs(frames) do
      local p = index("frames", i)
      local r = read_frame(f, p)
      if not E.absent(f.filename) then r.name = E.string(f.filename, key(p, "filename"), "filename") end
      out[i] = r
    end
  elseif type(frames) == "table" then
    local order = frame_names_in_order(text)
    local n = 0
    for _ in pairs(frames) do n = n + 1 end
    if not order or #order ~= n then
      -- (JSON lets a name come twice; the decoder keeps the last)
      local seen = {}
      for _, name in ipairs(order or {}) do
        if seen[name] then fail(key("frames", name), "the frame name '%s' comes twice", name) end
        seen[name] = true
      end
      fail("frames", "cannot tell the order of the frames")
    end
    for i, name in ipairs(order) do
      local r = read_frame(frames[name], key("frames", name))
      r.name = name
      out[i] = r
    end
  else
    fail("frames", "frames must be an array or an object of frames, got %s", describe(frames))
  end
  return out
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

-- The clip table of a run of frames: `frame` in step keys, timed in ms
-- summed as integers then divided once (no rounding carried along).
local function clip_table(seq, frames, loops)
  local keys, ms = {}, 0
  for i, f in ipairs(seq) do
    keys[i] = { ms / 1000, f, "step" }
    ms = ms + frames[f + 1].ms
  end
  return { version = 3, length = ms / 1000, loop = loops and "loop" or "once", joints = {},
    properties = { frame = keys } }
end

local function read_tag(tag, p, nframes)
  E.object(tag, p, "tag")
  local out = { name = E.string(tag.name, key(p, "name"), "tag name") }
  out.from = whole(tag.from, key(p, "from"), "from", 0)
  out.to = whole(tag.to, key(p, "to"), "to", 0)
  if out.from > out.to or out.to >= nframes then
    fail(key(p, out.to >= nframes and "to" or "from"), "the tag's range %d..%d is outside the frames 0..%d%s",
      out.from, out.to, nframes - 1, out.from > out.to and " (from comes after to)" or "")
  end
  local dir = tag.direction
  if E.absent(dir) then dir = "forward" end
  if type(dir) ~= "string" or not DIRECTIONS[dir] then
    fail(key(p, "direction"), "unknown direction %s (expected forward, reverse, pingpong or pingpong_reverse)",
      type(dir) == "string" and ("'" .. dir .. "'") or describe(dir))
  end
  out.direction = dir
  local rep = tag["repeat"]
  if not E.absent(rep) then
    local rp = key(p, "repeat")
    local n = type(rep) == "string" and rep:match("^%s*(%d+)%s*$") and tonumber(rep) or rep
    if type(rep) == "string" and type(n) ~= "number" then
      fail(rp, "repeat must be a whole number of passes (as a string, as Aseprite writes it), got '%s'", rep)
    end
    n = whole(n, rp, "repeat", 0)
    if n > 0 then out["repeat"] = n end -- 0 is Aseprite's "for ever"
  end
  return out
end

-- clips, sheet from the text of an Aseprite JSON file; raises a failure.
function M.decode(text, name)
  local doc = json.decode(text)
  if type(doc) ~= "table" or (next(doc) ~= nil and E.is_array(doc)) then
    fail("", "expected the JSON Aseprite exports with a sprite sheet (an object with frames and meta), got %s",
      describe(doc))
  end
  json.check(doc)
  local frames = read_frames(doc, text)
  local sheet = { frames = {} }
  for i, f in ipairs(frames) do
    sheet.frames[i] = { x = f.x, y = f.y, w = f.w, h = f.h, duration = f.duration, name = f.name }
  end
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
          fail(key(p, "name"), "two tags are named '%s' (tags %d and %d): each clip is named by its tag", t.name, seen[t.name], i)
        end
        seen[t.name] = i
        tags[i] = t
      end
    end
  end
  -- the keys every clip will have, against the limit, before any is built
  local total = #frames
  for _, t in ipairs(tags) do
    total = total + (t.to - t.from + 1) * (t["repeat"] or 2)
    if total > limits.current.keys then
      fail(index("meta.frameTags", _), "too many keys: the clips would have %d (at most %d, anim.limits.keys)",
        total, limits.current.keys)
    end
  end
  local clips = {}
  local all = {}
  for i = 1, #frames do all[i] = i - 1 end
  clips.all = clipmod.build(clip_table(all, frames, true), name .. "#all")
  for _, t in ipairs(tags) do
    clips[t.name] = clipmod.build(clip_table(sequence(t, t["repeat"]), frames, not t["repeat"]), name .. "#" .. t.name)
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
