-- fuzz/common2d.lua: what the drivers of the 2D importers share (spine,
-- atlas, dragonbones; fuzz/README.md): the limits an input is imported
-- under, the timing of an import against its budget, and the checks of a
-- result: the limits held, its warnings well formed, its clips played on an
-- animator of the skeleton's bones (and, where the module has the 2D
-- runtime, anim.skeleton2d of its description made or refused with a
-- message, an animator of it updated and read: world2d, slot, draw_order).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local C = require "fuzz.common"
local compat = require "anim.base.compat"

local M = {}

local bug, must_not_raise = C.bug, C.must_not_raise

-- The CPU seconds and memory of one input (fuzz/harness.c holds it to mb):
-- an import of a file of a few kB is done within the 0.5 s of every
-- hostile import (docs/robustness.md), times FUZZ_SLOWDOWN when fuzzed.
M.budget = { seconds = 0.5, mb = 512 }

-- The limits an input is imported under, picked by bits of its first
-- byte: the defaults, or small ones that a file of a few kB reaches (the hero fixtures have 12 bones), so
-- that the limits' refusals and warnings are fuzzed too.
M.PROFILES = {
  false,
  { joints = 12, keys = 300, animations = 2, strings = 64 },
  { joints = 40, keys = 2000, animations = 8, depth = 12 },
  { bytes = 600, keys = 400 },
}

-- fn(...) under the limits of profile p (false: the defaults), which are
-- restored whatever happens.
function M.with_limits(p, fn, ...)
  if not p then return fn(...) end
  local old = anim.set_limits(p)
  local res = compat.pack(pcall(fn, ...))
  anim.set_limits(old)
  if not res[1] then error(res[2], 0) end
  return compat.unpack(res, 2, res.n)
end

local TIMES = os.getenv("FUZZ_TIMES")

-- fn(...) (a loader: must not raise), timed against the budget.
function M.timed(what, fn, ...)
  local t0 = os.clock()
  local res = compat.pack(must_not_raise(what, fn, ...))
  local dt = os.clock() - t0
  if TIMES then io.stderr:write(string.format("%s %.4f s\n", what, dt)) end
  local limit = M.budget.seconds * (rawget(_G, "FUZZ_SLOWDOWN") or 1)
  if dt > limit then bug("%s took %.3f s of CPU (budget %.3f s): a slow input", what, dt, limit) end
  return compat.unpack(res, 1, res.n)
end

local function finite(x)
  return type(x) == "number" and x == x and x ~= math.huge and x ~= -math.huge
end
M.finite = finite

-- The keys of a clip as the importers count them against anim.limits.keys:
-- a key of n components counts n.
local function keys_of(clip)
  local t = anim.table(clip)
  if not t then return 0 end
  local n = 0
  local function count(keys)
    if type(keys) ~= "table" then return end
    if keys.keys then keys = keys.keys end
    for _, k in ipairs(keys) do
      local v = type(k) == "table" and (k[2] or k.value)
      n = n + (type(v) == "table" and #v or 1)
    end
  end
  for _, chans in pairs(t.joints or {}) do
    for _, keys in pairs(chans) do count(keys) end
  end
  for _, p in pairs(t.properties or {}) do count(p) end
  return n
end

-- The checks of an imported description against the limits in force.
function M.check_desc(what, desc, lim)
  if type(desc) ~= "table" or type(desc.bones) ~= "table" or type(desc.slots) ~= "table" then
    bug("%s: result.skeleton is no description with bones and slots", what)
  end
  if #desc.bones > lim.joints then bug("%s: %d bones, over anim.limits.joints (%d)", what, #desc.bones, lim.joints) end
  local seen = {}
  for i, b in ipairs(desc.bones) do
    if type(b.name) ~= "string" then bug("%s: bones[%d] has no name", what, i) end
    if b.parent ~= nil and not seen[b.parent] then
      bug("%s: bones[%d]'s parent '%s' does not come before it", what, i, tostring(b.parent))
    end
    seen[b.name] = true
    for _, f in ipairs { "x", "y", "rotation", "scale_x", "scale_y", "shear_x", "shear_y" } do
      if b[f] ~= nil and not finite(b[f]) then bug("%s: bones[%d].%s is %s", what, i, f, tostring(b[f])) end
    end
  end
  for i, s in ipairs(desc.slots) do
    if type(s.name) ~= "string" or not seen[s.bone] then bug("%s: slots[%d] is on no bone of the skeleton", what, i) end
  end
end

-- The clips of a result: at most `most` of them, all, against the keys
-- limit (all the file's clips together).
function M.check_clips(what, clips, lim, keys_so_far)
  if type(clips) ~= "table" then bug("%s: result.clips is a %s", what, type(clips)) end
  local n, keys = 0, keys_so_far or 0
  for name, clip in pairs(clips) do
    if not anim.is_clip(clip) then bug("%s: clips[%s] is no clip", what, tostring(name)) end
    n = n + 1
    keys = keys + keys_of(clip)
  end
  if keys > lim.keys then bug("%s: the clips hold %d keys, over anim.limits.keys (%d)", what, keys, lim.keys) end
  return n, keys
end

-- The rig of a description's bones, for playing its clips before the 2D
-- runtime is there (nil when the module's rig refuses the names: the clip
-- is then played on fuzz/common.lua's rig).
local function rig_of(desc)
  local joints = {}
  for i, b in ipairs(desc.bones) do
    joints[i] = { name = b.name, parent = b.parent, position = { b.x or 0, b.y or 0, 0 },
      rotation = { 0, 0, b.rotation or 0 }, scale = { b.scale_x or 1, b.scale_y or 1, 1 } }
  end
  return (anim.rig({ joints = joints }, "fuzz2d"))
end

local DTS = { 0, 1 / 60, 0.37, 1e-9, 1e6 }

-- Plays each clip (at most `most`) on an animator of the bones: every
-- update goes through, the track's time stays in [0, length], every
-- property of the clip reads, the local pose stays finite.
local function play(desc, clips, most)
  local rig = rig_of(desc)
  local names = {}
  for name in pairs(clips) do names[#names + 1] = name end
  table.sort(names)
  for i, name in ipairs(names) do
    if i > most then break end
    local clip = clips[name]
    local r = rig or C.rig_for(clip)
    local a = anim.animator(r, { warn = false })
    local ok, t = pcall(a.play, a, clip, { fade = 0 })
    if not ok then
      if C.is_memory_error(t) then error(t, 0) end
      if not C.plays_on_nothing(t) then bug("playing clip '%s' raised: %s", name, tostring(t)) end
    else
      local props = clip:properties()
      for _, dt in ipairs(DTS) do
        a:update(dt)
        local time = t.time
        if not (finite(time) and time >= 0 and time <= clip.length) then
          bug("clip '%s': track time %s left [0, %s] after update(%s)", name, tostring(time), clip.length, dt)
        end
        for j, b in ipairs(desc.bones) do
          if j > 64 or not rig then break end
          local v = { a:local_transform(b.name) }
          for k = 1, #v do
            if v[k] ~= v[k] then bug("clip '%s': NaN in the local transform of bone '%s' after update(%s)", name, b.name, dt) end
          end
        end
        -- (a clip's properties are known while its track is on the
        -- animator: one that ended is gone, and its names with it)
        local on = false
        for _, x in ipairs(a:tracks()) do on = on or x == t end
        for j, p in ipairs(props) do
          if j > 64 or not on then break end
          C.touch(a:property(p))
        end
      end
      if i <= 2 then C.use_clip(clip, false) end
    end
  end
end

-- The 2D runtime (once merged): the description made into a skeleton or
-- refused with a message; the skeleton's animator plays the clips and is
-- read.
-- anim.love's drawing, with LÖVE's calls stood in for (a ByteData is a
-- module buffer of floats, a mesh takes its vertices and draws nothing):
-- made once, where LÖVE is not.
local draw2d
local function drawing()
  if draw2d ~= nil then return draw2d end
  if rawget(_G, "love") then draw2d = false; return false end
  local function mesh()
    return { setVertices = function() end, setDrawRange = function() end, setTexture = function() end }
  end
  local g = { push = function() end, pop = function() end, translate = function() end, rotate = function() end,
    scale = function() end, setShader = function() end, setBlendMode = function() end, draw = function() end,
    setStencilTest = function() end, newShader = function() return {} end, newMesh = mesh,
    stencil = function(f) f() end }
  rawset(_G, "love", { graphics = g, data = { newByteData = function(bytes) return anim.buffer(bytes / 4, "float") end } })
  draw2d = require "anim.love"
  return draw2d
end
-- (every atlas page an image: a table, as the mock's meshes take)
local IMAGES = setmetatable({}, { __index = function(t, k) local v = {}; rawset(t, k, v); return v end })

local function play2d(desc, clips, most, skins)
  local sk, err = must_not_raise("anim.skeleton2d", anim.skeleton2d, desc, C.NAME)
  if not sk then
    if type(err) ~= "string" or err == "" then bug("anim.skeleton2d returned nil without a message") end
    -- (what an importer accepts, the skeleton makes: its refusal names the
    -- description's path, not the file's; but the bound of the update
    -- order is the skeleton's to find)
    if not err:find("the update order would pose more than", 1, true) then
      bug("anim.skeleton2d refused what the importer accepted: %s", err:sub(1, 300))
    end
    return
  end
  local a = anim.animator(sk, { warn = false })
  local names = {}
  for name in pairs(clips) do names[#names + 1] = name end
  table.sort(names)
  for i, name in ipairs(names) do
    if i > most then break end
    local ok, e = pcall(a.play, a, clips[name], { fade = 0.1 })
    if not ok then
      if C.is_memory_error(e) then error(e, 0) end
      if not C.plays_on_nothing(e) then bug("playing clip '%s' on the skeleton raised: %s", name, tostring(e)) end
    end
  end
  for k, dt in ipairs(DTS) do
    -- (the skins in turn: an attachment is looked up in the current one,
    -- then in the default)
    local skin = type(skins) == "table" and skins[k]
    if type(skin) == "string" then a:skin(skin) end
    a:update(dt)
    for j, b in ipairs(desc.bones) do
      if j > 64 then break end
      C.touch(a:world2d(b.name))
    end
    for j, s in ipairs(desc.slots) do
      if j > 64 then break end
      C.touch(a:slot(s.name))
      C.touch(a:attachment(s.name))
    end
    local order = a:draw_order()
    if type(order) ~= "table" or #order ~= #desc.slots then
      bug("draw_order() gave %s for %d slots", type(order) == "table" and #order or type(order), #desc.slots)
    end
    -- (drawn as anim.love draws it: the slots' runs in C, lua_draw2d_run.c)
    local d = drawing()
    if d then
      must_not_raise("anim.love.draw", d.draw, a, IMAGES)
      for j, s in ipairs(desc.slots) do
        if j > 8 then break end
        C.touch(must_not_raise("anim.love.world_vertices", d.world_vertices, a, s.name))
      end
    end
  end
end

-- A successful import's result used: description, clips, warnings.
function M.use(what, result, lim, warnings_max)
  if type(result) ~= "table" then bug("%s returned a %s", what, type(result)) end
  local w = result.warnings
  if type(w) ~= "table" then bug("%s: result.warnings is a %s", what, type(w)) end
  if warnings_max and #w > warnings_max then bug("%s: %d warnings listed (at most %d)", what, #w, warnings_max) end
  M.check_desc(what, result.skeleton, lim)
  local n = M.check_clips(what, result.clips, lim)
  play(result.skeleton, result.clips, 4)
  if anim.skeleton2d then play2d(result.skeleton, result.clips, 3, result.skins) end
  return n
end

-- A loader's nil answer: its message must name one of the files named.
function M.refused(what, err, ...)
  if type(err) ~= "string" then bug("%s returned nil without a message (%s)", what, type(err)) end
  for i = 1, select("#", ...) do
    local name = select(i, ...)
    if name and err:sub(1, #name + 2) == name .. ": " then
      -- (the path is the file's: a clip table's, joints.x.position[2][1],
      -- names no field of a Spine or DragonBones file)
      local rest = err:sub(#name + 3)
      if rest:find("^joints[%.%[]") or rest:find("^properties[%.%[]") then
        bug("%s: the message gives a clip table's path, not the file's: %q", what, err:sub(1, 300))
      end
      return
    end
  end
  bug("%s: the message does not name the file: %q", what, err:sub(1, 300))
end

-- Structured inputs: a fixture's decoded JSON changed where the bytes
-- say, then encoded again, so that the importers see files that parse but
-- hold what no editor writes (random bytes mostly break the JSON).
local cjson = require("cjson").new()
cjson.encode_number_precision(14)
cjson.encode_sparse_array(true)

local HOSTILE = { 0, -1, 1, 0.5, 2, 3, 7, 1e308, -1e308, 1e-320, 2 ^ 53, -2 ^ 63, 360.5, 1e9, -0.0,
  "", "x", "default", "root", "linear", "stepped", "bezier", "normal", "additive", "region", "mesh",
  "linkedmesh", "clipping", "point", "path", "boundingbox", "4.2.0", "3.8.99", "5.5", "4.5", "#ff00ffcc",
  "ffffffff", "zz", true, false, cjson.null, "EMPTY_OBJECT", "EMPTY_ARRAY" }

local function keys_of_table(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == "number"
  end)
  return ks
end

local function hostile(r)
  local v = r:pick(HOSTILE)
  if v == "EMPTY_OBJECT" then return {} end
  if v == "EMPTY_ARRAY" then return setmetatable({}, cjson.array_mt) end
  return v
end

-- A walk down the tree as the bytes say: (parent, key) of the node reached.
local function walk(r, root)
  local parent, key = nil, nil
  local node = root
  for depth = 1, 12 do
    if type(node) ~= "table" then break end
    local ks = keys_of_table(node)
    -- (into a file, then into one of its fields at least: a whole file
    -- changed is refused at once)
    if #ks == 0 or (depth > 3 and r:byte() % 6 == 0) then break end
    parent, key = node, ks[r:byte() % #ks + 1]
    node = node[key]
  end
  return parent, key
end

-- One change of the tree at the place a walk reaches.
local function mutate(r, root)
  local parent, key = walk(r, root)
  if not parent then return end
  local op = r:byte() % 8
  local v = parent[key]
  local array = type(key) == "number" and #parent >= key
  if op == 0 or op == 1 then
    parent[key] = hostile(r)
  elseif op == 2 then
    if array then table.remove(parent, key) else parent[key] = nil end
  elseif op == 3 and array then
    -- an element repeated (up to 64 times)
    -- (the same table: a later change of one changes them all)
    for _ = 1, r:byte() % 64 + 1 do table.insert(parent, key, v) end
  elseif op == 4 then
    -- a value from elsewhere in the file
    local p2, k2 = walk(r, root)
    -- (a table that holds its own place is refused by the encoding)
    if p2 then parent[key] = p2[k2] end
  elseif op == 5 and type(v) == "number" then
    parent[key] = v * r:pick({ -1, 1e6, 1e-6, 0, 1e300, 3 }) + r:pick({ 0, 1, -1, 0.001 })
  elseif op == 6 and type(v) == "string" then
    parent[key] = r:pick({ v .. "x", v:sub(2), string.upper(v), v .. v, "" })
  elseif op == 7 and type(v) == "table" then
    -- a field of another name, or an element, added
    local k = r:pick({ "name", "parent", "bone", "time", "curve", "x", "y", "value", "offset", "type", "path",
      "attachment", "skin", "vertices", "weights", "uvs", "triangles", "frame", "duration", "tweenEasing",
      "display", "mesh", "bones", "slots", "target", "color", "light", "dark", "offsets", "slot" })
    if #v > 0 then table.insert(v, hostile(r)) else v[k] = hostile(r) end
  else
    parent[key] = hostile(r)
  end
end

-- The texts of fixtures `docs` (names -> JSON texts), decoded and changed
-- by the bytes of reader r (at most 24 changes): name -> text (nil when
-- the tree does not encode).
function M.mutated(r, docs)
  local root = {}
  for name, text in pairs(docs) do root[name] = cjson.decode(text) end
  local n = r:byte() % 24 + 1
  for _ = 1, n do
    if r:done() then break end
    mutate(r, root)
  end
  local out = {}
  for name in pairs(docs) do
    -- (a whole file removed: an empty text)
    local ok, text = pcall(cjson.encode, root[name])
    if not ok then return nil end
    out[name] = root[name] == nil and "" or text
  end
  return out
end

-- The text of a file of the checkout.
function M.fixture(path)
  local root = rawget(_G, "ANIM_ROOT") or os.getenv("ANIM_ROOT") or "."
  local f = assert(io.open(root .. "/" .. path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

-- An input of fuzz_spine or fuzz_dragonbones given to import(main,
-- second | nil): the first byte's bits 1-2 pick the limits of the import
-- (PROFILES); bit 3 clear: the rest is text, split at its first NUL byte
-- when bit 0 is set (a file, then its atlas); bit 3 set: the next byte
-- picks fixtures(k) (-> main, second | nil, their texts; second_json:
-- whether the second is JSON, changed too), which the rest of the bytes
-- change (M.mutated).
function M.run_pair(data, import, fixtures)
  local b = data:byte(1) or 0
  local main, second = data:sub(2), nil
  if math.floor(b / 8) % 2 == 1 and fixtures then
    local r = setmetatable({ s = data, i = 2 }, C.Reader)
    local m, s2, s2_json = fixtures(r:byte(), b % 2 == 1)
    local docs = { main = m, second = s2_json and s2 or nil }
    local texts = M.mutated(r, docs)
    if not texts then return end
    main, second = texts.main, texts.second or s2
  elseif b % 2 == 1 then
    local at = main:find("\0", 1, true)
    if at then main, second = main:sub(1, at - 1), main:sub(at + 1) end
  end
  M.with_limits(M.PROFILES[math.floor(b / 2) % 4 + 1], import, main, second)
end

return M
