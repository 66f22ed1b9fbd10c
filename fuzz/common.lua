-- fuzz/common.lua: what the drivers of fuzz/ share (fuzz/README.md): the
-- BUG errors, the checks of a loader's answer and the use of what loads
-- (sampled at odd times, encoded and decoded again, played a little).  A
-- driver raises an error starting "BUG" when the module breaks a
-- documented contract; running out of memory ("not enough memory") is not
-- a bug.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local compat = require "anim.base.compat"

local M = {}

local NAME = "fuzz.in"
M.NAME = NAME
local player = anim.rig("player")

-- The rig a clip plays on: the player's, with the clip's joints it lacks
-- added as roots (play refuses a clip none of whose joints is on its rig);
-- the player's alone when the clip has no joint it lacks or that rig
-- cannot be made (a name holding a NUL byte: play then refuses the clip,
-- as it says, and the caller expects that).
function M.rig_for(clip)
  local joints, extra = player:joints(), false
  for _, name in ipairs(clip:joints()) do
    if not player:has(name) then
      joints[#joints + 1] = { name = name }
      extra = true
    end
  end
  return extra and anim.rig({ joints = joints }, "fuzz") or player
end

-- Whether err is play's refusal of a clip none of whose joints plays on
-- the rig.
function M.plays_on_nothing(err)
  return type(err) == "string" and err:find("plays on no joint of rig", 1, true) ~= nil
end

function M.bug(fmt, ...)
  error("BUG: " .. string.format(fmt, ...), 0)
end

function M.is_memory_error(e)
  return type(e) == "string" and e:find("not enough memory", 1, true) ~= nil
end

-- A Lua runtime error raised from one of the module's Lua files (a hostile
-- value reached code that did not check it), or an error of the binding's
-- own that only a plan the Lua side made wrong raises ("state plan: ...").
function M.internal(e)
  return type(e) == "string" and (e:find("lua/anim/[%w_/]+%.lua:%d+: attempt to")
    or e:find("lua/anim/[%w_/]+%.lua:%d+: bad argument #%d+ to '%a+' %(number has no integer representation%)")
    or e:find("stack overflow", 1, true) or e:find("C stack overflow", 1, true)
    or e:find("state plan: ", 1, true))
end

-- pcall(f, ...) that lets memory errors through to the caller and turns
-- every other raised error into a BUG naming `what`.
function M.must_not_raise(what, f, ...)
  local res = compat.pack(compat.xpcall(f, debug.traceback, ...))
  if not res[1] then
    local e = res[2]
    if M.is_memory_error(e) or (type(e) == "string" and e:sub(1, 4) == "BUG:") then error(e, 0) end
    M.bug("%s raised instead of returning nil, message: %s", what, tostring(res[2]))
  end
  return compat.unpack(res, 2, res.n)
end

-- A loader's answer: (object) or (nil, "NAME: ...").
function M.check_answer(what, v, msg)
  if v == nil then
    if type(msg) ~= "string" then M.bug("%s returned nil without a message (%s)", what, type(msg)) end
    if msg:sub(1, #NAME + 2) ~= NAME .. ": " then
      M.bug("%s: the message does not name the source: %q", what, msg:sub(1, 300))
    end
    return nil
  end
  return v
end

-- reads fields (each read runs the module's code)
function M.touch(...) return select("#", ...) end
local touch = M.touch

local function finite(x)
  return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge
end

-- Sampling returns finite numbers and unit quaternions.
local function check_pose(what, pose)
  for joint, ch in pairs(pose) do
    for kind, v in pairs(ch) do
      -- (pose.properties[name]: a number for a property of one component,
      -- else its numbers; no quaternion among them)
      if joint == "properties" then v = type(v) == "number" and { v } or v; kind = "property " .. kind end
      for i = 1, #v do
        if type(v[i]) ~= "number" then M.bug("%s: %s.%s[%d] is a %s", what, joint, kind, i, type(v[i])) end
      end
      if kind == "rotation" then
        local n = v[1] * v[1] + v[2] * v[2] + v[3] * v[3] + v[4] * v[4]
        -- (a NaN norm is reported as it is: a clip of finite keys samples finite)
        if n ~= n or math.abs(n - 1) >= 1e-6 then M.bug("%s: %s.rotation is not a unit quaternion (|q|^2 = %s)", what, joint, n) end
      end
    end
  end
end

local function same_pose(a, b)
  for joint, ch in pairs(a) do
    local other = b[joint]
    if not other then return false, joint end
    for kind, v in pairs(ch) do
      local w = other[kind]
      if not w then return false, joint .. "." .. kind end
      for i = 1, #v do
        -- (within 1e-9: a version 1 clip written as version 3 may differ in
        -- the last bits; a real difference is far larger)
        local d = math.abs(v[i] - w[i])
        local both_nan = v[i] ~= v[i] and w[i] ~= w[i]
        if not both_nan and (d ~= d or d > 1e-9 * math.max(1, math.abs(v[i]), math.abs(w[i]))) then
          return false, string.format("%s.%s[%d]: %.17g vs %.17g", joint, kind, i, v[i], w[i])
        end
      end
    end
  end
  for joint in pairs(b) do
    if not a[joint] then return false, joint end
  end
  return true
end

local function times(clip)
  local len = clip.length
  return { 0, len * 0.5, len, len * 0.25 + 1e-9, -1, len + 1, 1e-300, 1e9 }
end

-- Plays the clip a little on an animator of the right space.  `plays` items
-- need a library (the animator has none): their error is expected.
local function play_a_little(clip)
  local a = anim.animator(M.rig_for(clip), { space = clip.space, side = "both", warn = false })
  local seen = 0
  a:on_marker(function() seen = seen + 1 end)
  a:on_event(function() seen = seen + 1 end)
  a:on_sound(function() seen = seen + 1 end)
  local played, t = pcall(a.play, a, clip, { fade = 0 })
  if not played then
    if M.is_memory_error(t) then error(t, 0) end
    if M.plays_on_nothing(t) then return end
    error(t, 0)
  end
  for _, dt in ipairs { 0, 1 / 60, 0.37, clip.length, 1e-9, 1e6 } do
    local ok, err = pcall(a.update, a, dt)
    if not ok then
      if M.is_memory_error(err) then error(err, 0) end
      if not (type(err) == "string" and err:find("^plays '")) then
        M.bug("update(%s) of a decoded clip raised: %s", dt, tostring(err))
      end
    end
    local time = t.time
    if not (finite(time) and time >= 0 and time <= clip.length) then
      M.bug("track time %s left [0, %s] after update(%s)", tostring(time), clip.length, dt)
    end
    for _, j in ipairs { "root", "torso", "head", "rightArm", "leftLeg" } do
      local px, py, pz, qx, qy, qz, qw, sx, sy, sz = a:world_transform(j)
      for _, v in ipairs { px, py, pz, qx, qy, qz, qw, sx, sy, sz } do
        if v ~= v then M.bug("NaN in the world transform of %s after update(%s)", j, dt) end
      end
    end
  end
  t:stop(0)
  a:update(0)
end

function M.use_clip(clip, from_decode)
  if not anim.is_clip(clip) then M.bug("a loader returned a %s, not a clip", type(clip)) end
  touch(clip.name, clip.version, clip.layout, clip.loop, clip.priority, clip.speed, clip.blend,
    clip.space, clip.autoplay, clip.euler, clip.mask, clip.approx)
  if not (finite(clip.length) and clip.length >= 0) then M.bug("clip.length is %s", tostring(clip.length)) end
  clip:joints(); clip:markers(); clip:events(); clip:sounds(); clip:plays()
  clip:bindings(player)
  local poses = {}
  for i, t in ipairs(times(clip)) do
    poses[i] = clip:sample(t)
    check_pose(string.format("sample(%.17g)", t), poses[i])
  end
  -- encode, then decode again: a whole clip, sampling identically when the
  -- source was a .anim text (an imported clip may be approximated: approx)
  local text, approx = anim.encode(clip)
  if text then
    local again, err = anim.decode(text, NAME)
    if not again then M.bug("anim.encode wrote text that anim.decode refuses: %s", err) end
    if from_decode and approx == nil then
      for i, t in ipairs(times(clip)) do
        local same, where = same_pose(poses[i], again:sample(t))
        if not same then M.bug("the encoded clip samples differently at %.17g (beyond 1e-9): %s", t, where) end
      end
    end
  elseif type(approx) ~= "string" then
    M.bug("anim.encode returned nil without a message")
  end
  play_a_little(clip)
end

-- What an import of Blockbench answered, used: clips and a list of
-- warnings, each a message on a channel's path (or the file's); a few of
-- the clips are used as use_clip uses them.
function M.use_blockbench(clips, warnings)
  if type(warnings) ~= "table" then M.bug("anim.decode_blockbench returned clips without a list of warnings") end
  for _, w in ipairs(warnings) do
    if type(w.message) ~= "string" or (w.channel ~= nil and type(w.channel) ~= "string") then
      M.bug("anim.decode_blockbench: a warning that is not { animation, channel, message }")
    end
  end
  local n = 0
  for _, c in pairs(clips) do
    n = n + 1
    if n > 4 then break end
    M.must_not_raise("using an imported Blockbench clip", M.use_clip, c, false)
  end
end

-- Arms fn to run as a finalizer at a coming collection, in the middle of
-- whatever allocates then: a newproxy's on 5.1 and LuaJIT (they run __gc
-- for userdata only), a table's after.  On 5.4 the collector goes
-- generational, whose minor collections run finalizers soon (before, the
-- incremental collector runs it when it comes to it): true then, and the
-- run sets the collector back to incremental at its end.
-- (LUAJIT_RELOADS: false, Debian 12's LuaJIT 2.1.0-beta3 hangs in a
-- finalizer that runs a loop its compiler compiles, with no module loaded
-- (docs/runtimes.md): a reload or a clip's build is such work, so the
-- drivers arm finalizers that reload or build on the other runtimes only.)
M.LUAJIT_RELOADS = false

function M.arm_finalizer(fn)
  if newproxy then -- luacheck: ignore 113
    getmetatable(newproxy(true)).__gc = fn -- luacheck: ignore 113
  else
    setmetatable({}, { __gc = fn })
  end
  if compat.version >= 504 then
    collectgarbage("generational", 1, 100)
    return true
  end
  return false
end

-- The bytes of an input read as a program: one byte at a time (zeros past
-- the end); pick(list) chooses an element of list by the next byte.
-- Readers are made with setmetatable({ s = bytes, i = 1 }, C.Reader).
local Reader = {}
Reader.__index = Reader
M.Reader = Reader

function Reader:byte()
  local b = self.s:byte(self.i) or 0
  self.i = self.i + 1
  return b
end

function Reader:done() return self.i > #self.s end

function Reader:pick(list) return list[self:byte() % #list + 1] end

return M
