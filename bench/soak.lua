-- bench/soak.lua: the soak test of issue 9 (`make soak`; not part of `make
-- test`).  Several looping clips -- loop and pingpong, forwards and
-- backwards, markers at 0, inside and at the length, different speeds --
-- play for the equivalent of 24 hours at 60 fps (5,184,000 updates of 1/60 s
-- per animator), fast-forwarded, and it checks:
--
--   * every marker fired exactly as often as the loop count says it must
--     (SEMANTICS 7, 7a): per loop wrap or pingpong bounce, every marker
--     once, plus the ones the pass under way has reached; and the looped
--     callbacks equal track.loops;
--   * track.time never leaves [0, length], `late` never leaves [0, dt];
--   * tracks come and go: every 10 simulated seconds a fourth animator plays
--     a one-shot clip over its looping one; each ends exactly once;
--   * memory stays flat: collectgarbage("count") after a full collection,
--     sampled every simulated 10 minutes, never grows past the first sample
--     by more than a few kilobytes (the C core allocates through Lua's
--     allocator once the lead's change is in, so this counts it too); the
--     process's resident size is printed and checked loosely as well.
--
-- Prints the figures as one JSON line; exits with 1 when a check fails.
-- `lua bench/soak.lua [hours]` soaks for another number of simulated hours.
local anim = require "anim"
local cjson = require "cjson"
local compat = require "anim.base.compat"

local HOURS = tonumber(arg and arg[1]) or 24
local FPS = 60
local DT = 1 / FPS
local UPDATES = math.floor(HOURS * 3600 * FPS + 0.5)
local SAMPLE_EVERY = 10 * 60 * FPS       -- updates between memory samples
local LUA_SLACK_KB = 4                   -- growth of the Lua heap allowed
local RSS_SLACK_KB = 8 * 1024            -- growth of the resident size allowed

-- name, loop mode, length, speed, marker times (0 and the length included)
local CLIPS = {
  { "walk", "loop", 1.0, 1, { 0, 0.25, 0.5, 1.0 } },
  { "run", "loop", 0.37, 2.3, { 0, 0.1, 0.2999, 0.37 } },
  { "back", "loop", 0.8, -1.1, { 0, 0.4, 0.8 } },
  { "flicker", "loop", 1 / 64, 1, { 0, 1 / 128, 1 / 64 } },
  { "swing", "pingpong", 0.6, 1, { 0, 0.2, 0.6 } },
  { "sway", "pingpong", 1.3, -0.7, { 0, 0.65, 1.3 } },
}
-- which clips play together on one animator
local ANIMATORS = { { 1, 5 }, { 2, 6 }, { 3, 4 } }

local function build(def)
  local name, mode, length, _, times = compat.unpack(def)
  local markers = {}
  for i, t in ipairs(times) do markers[i] = { time = t, name = "m" .. i } end
  return assert(anim.clip({
    loop = mode, length = length, markers = markers,
    joints = {
      rightArm = { rotation = { { 0, { 0, 0, 0 } }, { length / 2, { 80, 10, 0 } }, { length, { 0, 0, 0 } } } },
      leftLeg = { position = { { 0, { 0, 0, 0 } }, { length, { 0, 0.2, 0 } } } },
    },
  }, name))
end

-- The number of times the marker at m must have fired after `loops` wraps
-- (loop) or bounces (pingpong) with the playhead now at `time`
-- (SEMANTICS 7: the first pass includes its start, later passes exclude
-- where they start and include where they reach; a wrap starts the next
-- pass inclusive at the other end; a bounce reverses without firing its
-- point again).  Every completed pass fires every marker it covers once;
-- the pass under way fires those between its start and `time`.  (The
-- playhead may read exactly the length before its wrap: the sum of the
-- steps is a hair short of it, and the marker there has fired.)
local function expected(mode, L, speed, loops, time, m)
  local fwd = speed > 0
  if mode == "loop" then
    -- each wrap completes a pass over [0, L] (or [L, 0]); the pass under
    -- way covers [0, time] (or [time, L]), its start included
    if fwd then return loops + (m <= time and 1 or 0) end
    return loops + (m >= time and 1 or 0)
  end
  -- pingpong: pass 1 covers both ends, later passes their far end only
  local start, far = fwd and 0 or L, fwd and L or 0
  local toward_L = (loops % 2 == 0) == fwd -- where the pass under way goes
  local reached = (toward_L and m <= time) or (not toward_L and m >= time)
  if m == start then
    -- pass 1, every pass that came back to it, and the one under way if it has
    local heading_back = loops % 2 == 1
    return 1 + math.floor(loops / 2) + ((heading_back and time == start) and 1 or 0)
  end
  if m == far then
    return math.floor((loops + 1) / 2) + ((loops % 2 == 0 and time == far) and 1 or 0)
  end
  return loops + (reached and 1 or 0)
end

local function rss_kb()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb
  for line in f:lines() do
    kb = kb or tonumber(line:match("^VmRSS:%s*(%d+)"))
  end
  f:close()
  return kb
end

local failures = {}
local function fail(fmt, ...)
  if #failures < 20 then failures[#failures + 1] = string.format(fmt, ...) end
end

local rig = anim.rig("player")
local clips = {}
for i, def in ipairs(CLIPS) do clips[i] = build(def) end

-- per track: { def, track, counts[marker] , looped }
local animators, tracks = {}, {}
for ai, list in ipairs(ANIMATORS) do
  local a = anim.animator(rig)
  local late_bad = 0
  for _, ci in ipairs(list) do
    local def = CLIPS[ci]
    local tr = a:play(clips[ci], { fade = 0, speed = def[4] })
    local rec = { def = def, track = tr, counts = {}, looped = 0, animator = ai }
    for i = 1, #def[5] do rec.counts["m" .. i] = 0 end
    tr:on_looped(function(_, late)
      rec.looped = rec.looped + 1
      if not (late >= 0 and late <= DT) then late_bad = late_bad + 1 end
    end)
    tracks[#tracks + 1] = rec
    rec.index = #tracks
  end
  local by_track = {}
  for _, rec in ipairs(tracks) do
    if rec.animator == ai then by_track[rec.track] = rec end
  end
  a:on_marker(function(tr, name, _, late)
    local rec = by_track[tr]
    rec.counts[name] = rec.counts[name] + 1
    if not (late >= 0 and late <= DT) then late_bad = late_bad + 1 end
  end)
  animators[ai] = { a = a, late_bad = function() return late_bad end, tracks = {} }
  for _, rec in ipairs(tracks) do
    if rec.animator == ai then table.insert(animators[ai].tracks, rec) end
  end
end

-- Churn: a one-shot clip started every 10 s over a looping one.
local SHOT_EVERY = 10 * FPS
local shot = assert(anim.clip({ loop = "once", length = 0.5, markers = { { time = 0.25, name = "hit" } },
  joints = { rightArm = { rotation = { { 0, { 0, 0, 0 } }, { 0.5, { -60, 0, 0 } } } } } }, "shot"))
local churn = { a = anim.animator(rig), started = 0, ended = 0, hits = 0 }
churn.a:play(clips[1], { fade = 0 })
churn.a:on_marker(function(_, name) if name == "hit" then churn.hits = churn.hits + 1 end end)

local pose = {}
-- the samples' table made at its full size first: its growth is not the
-- animators'
local samples, nsamples = {}, 0
for i = 1, math.floor(UPDATES / SAMPLE_EVERY) + 1 do samples[i] = 0 end
local started = os.clock()
collectgarbage()
collectgarbage()
local lua_start, rss_start = collectgarbage("count"), rss_kb()
local lua_base, rss_base, lua_max, rss_max

for u = 1, UPDATES do
  for ai = 1, #animators do
    local st = animators[ai]
    st.a:update(DT)
    for _, rec in ipairs(st.tracks) do
      local t = rec.track.time
      if not (t >= 0 and t <= rec.def[3]) then
        fail("%s: time %.17g outside [0, %.17g] after update %d", rec.def[1], t, rec.def[3], u)
      end
    end
    if u % FPS == 0 then st.a:pose_into(pose, "world") end
  end
  if u % SHOT_EVERY == 1 then
    local tr = churn.a:play(shot, { fade = 0.1 })
    tr:on_ended(function() churn.ended = churn.ended + 1 end)
    churn.last = tr
    churn.started = churn.started + 1
  end
  churn.a:update(DT)
  if u % SAMPLE_EVERY == 0 or u == UPDATES then
    collectgarbage()
    collectgarbage()
    local kb, rss = collectgarbage("count"), rss_kb()
    nsamples = nsamples + 1
    samples[nsamples] = math.floor(kb * 1024 + 0.5)
    if not lua_base then
      lua_base, rss_base, lua_max, rss_max = kb, rss, kb, rss
    else
      lua_max = math.max(lua_max, kb)
      if rss then rss_max = math.max(rss_max, rss) end
    end
  end
end
local seconds = os.clock() - started

-- The checks, and the figures.
local out = {
  hours = HOURS, fps = FPS, updates_per_animator = UPDATES, animators = #animators + 1, seconds = seconds,
  lua_kb_start = lua_start, lua_kb_base = lua_base, lua_kb_max = lua_max, lua_kb_end = collectgarbage("count"),
  rss_kb_start = rss_start, rss_kb_base = rss_base, rss_kb_max = rss_max, memory_samples = nsamples,
  tracks = {},
}
for _, rec in ipairs(tracks) do
  local name, mode, L, speed, times = compat.unpack(rec.def)
  local tr = rec.track
  local loops, time = tr.loops, tr.time
  local markers, wrong = {}, 0
  for i, m in ipairs(times) do
    local got, want = rec.counts["m" .. i], expected(mode, L, speed, loops, time, m)
    markers[i] = { time = m, fired = got, expected = want }
    if got ~= want then
      wrong = wrong + 1
      fail("%s: marker at %.17g fired %d times, expected %d (loops %d, time %.17g)", name, m, got, want, loops, time)
    end
  end
  if rec.looped ~= loops then fail("%s: %d looped callbacks, track.loops %d", name, rec.looped, loops) end
  if not tr.is_playing then fail("%s: stopped playing", name) end
  out.tracks[#out.tracks + 1] = {
    clip = name, loop = mode, length = L, speed = speed, loops = loops, looped = rec.looped, time = time,
    markers = markers, markers_wrong = wrong,
  }
end
local still = churn.last and churn.last.is_playing and 1 or 0
if churn.ended + still ~= churn.started or churn.hits > churn.started or churn.hits + still < churn.started then
  fail("one-shot tracks: %d started, %d ended, %d still playing, %d hit markers", churn.started, churn.ended, still, churn.hits)
end
if #churn.a:tracks() ~= 1 + still then fail("one-shot tracks: %d tracks live at the end", #churn.a:tracks()) end
out.one_shots = { started = churn.started, ended = churn.ended, hits = churn.hits }
for ai, st in ipairs(animators) do
  if st.late_bad() > 0 then fail("animator %d: %d callbacks with late outside [0, dt]", ai, st.late_bad()) end
end
if lua_max - lua_base > LUA_SLACK_KB then
  fail("Lua memory grew from %.1f KiB to %.1f KiB", lua_base, lua_max)
end
if rss_base and rss_max - rss_base > RSS_SLACK_KB then
  fail("resident size grew from %d KiB to %d KiB", rss_base, rss_max)
end
out.ok = #failures == 0
if os.getenv("SOAK_SAMPLES") then out.samples = { compat.unpack(samples, 1, nsamples) } end
out.failures = #failures > 0 and failures or nil
print(cjson.encode(out))
os.exit(out.ok and 0 or 1)
