-- fuzz/seeds.lua: writes the committed seed corpora, fuzz/corpus/<target>/.
-- Run from the checkout, with ../shared beside it (or ANIM_SHARED):
--   lua5.4 fuzz/seeds.lua
-- decode: the example clips, the retarget map and the XML clip, every third
-- clip of the conformance vectors (each a small .anim text), the legacy XML
-- files and two small Bedrock animation files of ../shared/data.
-- animator: hand-made programs for fuzz/animator.lua (see its OPS: one byte
-- picks an operation, the next ones its operands).
-- script: hand-made programs for fuzz/script.lua (the same way).
-- import: the legacy XML files (first byte 0) and the small Blockbench and
-- Bedrock files (first byte 1) of ../shared/data, and the hostile texts of
-- issue 19 (padded numbers, entities, a Bedrock file of many channels that
-- change fast, a long Molang expression, bezier handles of 1e300).
local cjson = require "cjson"

local shared = os.getenv("ANIM_SHARED") or "../shared"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function write(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

os.execute("rm -rf fuzz/corpus && mkdir -p fuzz/corpus/decode fuzz/corpus/animator fuzz/corpus/script fuzz/corpus/import")

-- decode -------------------------------------------------------------------------
for _, name in ipairs { "walk.anim", "wave.anim", "attack.anim", "spark.anim", "goblin.retarget", "nod.xml" } do
  write("fuzz/corpus/decode/example-" .. name, read("examples/clips/" .. name))
end
for _, file in ipairs { "curves-blender", "poses-v1-scale-jumps", "rotations-easings-catmullrom-three" } do
  local doc = cjson.decode(read(shared .. "/conformance/" .. file .. ".json"))
  for i, case in ipairs(doc.cases) do
    if i % 3 == 1 then
      write("fuzz/corpus/decode/conformance-" .. case.id:gsub("[^%w_-]", "_") .. ".anim", cjson.encode(case.clip))
    end
  end
end
for _, name in ipairs { "breathe", "sneak", "walk", "wave" } do
  write("fuzz/corpus/decode/xml-" .. name .. ".xml", read(shared .. "/data/xml/Minecraft-Skin-Viewer/" .. name .. ".xml"))
end
for _, name in ipairs { "race_car", "bat" } do
  write("fuzz/corpus/decode/bedrock-" .. name .. ".animation.json",
    read(shared .. "/data/blockbench/geckolib/1.20.4/" .. name .. ".animation.json"))
end

-- animator ---------------------------------------------------------------------------
-- Operation numbers (fuzz/animator.lua, OPS in order).
local NEW, PLAY, STOP, WEIGHT, SPEED, SEEK, UPDATE, COUPDATE, ACB, TCB, DROP, POSE, TRACKS, ORPHAN =
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
-- Operand indices: CLIPS 0 walk, 1 wave, 2 attack, 3 spark, 4 tiny, 5 pingpong,
-- 6 once, 7 hold, 8 fast, 9 view.  DT 0 0, 1 1/60, 4 0.5, 7 1e-9, 10 1e9, 13 -1,
-- 16 NaN, 17 inf.  SPEED 0 1, 1 0, 2 -1, 7 1e300, 11 NaN.  WEIGHT 0 1, 1 0.
-- FADE 0 nil, 1 0, 2 0.1.  TIME 0 0, 3 0.5, 10 NaN.  PRIORITY 0 nil.
-- Callback actions: 0 nothing, 1 play, 2 stop, 3 stop all, 4 error,
-- 5 disconnect, 6 update itself, 7 update another, 8 drop the animator,
-- 9 adjust, 10 yield, 11 drop the tracks.
local function program(ops)
  local out = {}
  for _, op in ipairs(ops) do
    for _, b in ipairs(op) do out[#out + 1] = string.char(b) end
  end
  return table.concat(out)
end
local function frames(slot, n, dt)
  local ops = {}
  for i = 1, n do ops[i] = { UPDATE, slot, dt } end
  return table.unpack(ops)
end

local programs = {
  -- walk with a fade, 30 frames, stop, 10 frames
  walk = { { PLAY, 0, 0, 2, 0, 0, 0, 2 }, frames(0, 30, 1), { STOP, 0, 2 }, frames(0, 10, 1) },
  -- every clip on the library animator, markers that play and stop
  callbacks = { { ACB, 0, 0, 1, 3 }, { ACB, 0, 1, 2, 0 }, { ACB, 0, 3, 5, 5 },
    { PLAY, 0, 2, 1, 0, 0, 0, 2 }, { PLAY, 0, 6, 1, 0, 0, 0, 2 }, { PLAY, 0, 5, 1, 0, 2, 0, 2 },
    frames(0, 40, 1), { UPDATE, 0, 4 }, { POSE, 0, 3, 3 } },
  -- odd dt: tiny, huge, negative, NaN, inf on a tiny looping clip
  odd_dt = { { PLAY, 0, 4, 1, 0, 0, 0, 2 }, { PLAY, 0, 8, 1, 0, 7, 0, 2 }, { UPDATE, 0, 7 }, { UPDATE, 0, 10 },
    { UPDATE, 0, 13 }, { UPDATE, 0, 16 }, { UPDATE, 0, 17 }, { UPDATE, 0, 12 }, { UPDATE, 0, 1 } },
  -- speeds 0, backwards, huge; seek out of range
  speeds = { { PLAY, 0, 5, 1, 0, 1, 0, 2 }, { SPEED, 0, 2 }, { UPDATE, 0, 4 }, { SPEED, 0, 7 }, { UPDATE, 0, 1 },
    { SEEK, 0, 6 }, { SEEK, 0, 10 }, { SPEED, 0, 1 }, { UPDATE, 0, 4 }, { WEIGHT, 0, 1, 1 }, { UPDATE, 0, 1 } },
  -- callbacks that error, update their own animator, yield (in a coroutine)
  hostile = { { ACB, 0, 0, 4, 0 }, { ACB, 0, 0, 6, 0 }, { ACB, 0, 0, 10, 0 }, { PLAY, 0, 0, 1, 0, 0, 0, 2 },
    frames(0, 20, 1), { COUPDATE, 0, 4 }, { UPDATE, 0, 4 } },
  -- a callback drops its animator and collects; tracks used after
  drop = { { ACB, 0, 0, 8, 0 }, { TCB, 0, 2, 11, 0 }, { PLAY, 0, 0, 1, 0, 0, 0, 2 }, { PLAY, 0, 6, 1, 0, 0, 0, 2 },
    { UPDATE, 0, 4 }, { DROP, 4, 0, 0 }, { ORPHAN, 0, 0 }, { ORPHAN, 0, 1 }, { ORPHAN, 0, 4 }, { DROP, 0, 0, 0 } },
  -- plays items, a missing clip, a server animator, autoplay, a view animator
  sides = { { NEW, 1, 1 }, { NEW, 2, 9 }, { PLAY, 1, 2, 1, 0, 0, 0, 2 }, { PLAY, 1, 6, 1, 0, 0, 0, 2 },
    { PLAY, 2, 9, 1, 0, 0, 0, 2 }, { PLAY, 1, 9, 1, 0, 0, 0, 2 }, frames(1, 20, 1), { UPDATE, 2, 4 },
    { TRACKS, 1, 0 }, { TRACKS, 2, 1 } },
}
for name, ops in pairs(programs) do
  write("fuzz/corpus/animator/" .. name, program(ops))
end

-- script -----------------------------------------------------------------------------
-- Operation numbers (fuzz/script.lua, OPS in order, from 0).
local CLIP, DECODE, RIG, _, SPLAY, CALLBACK, SUPDATE, BATCH, SPOSE, TRACK, CLIPOP, FINALIZE, BOMB, FORGE, CORE,
  LIBRARY, LIMITS, SDROP = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17
local scripts = {
  -- play, update, read, finalize the animator by hand, use it again
  finalize = { { SPLAY, 0, 1, 0, 1, 1, 0 }, { SUPDATE, 0, 3 }, { SPOSE, 0, 0, 0, 0 }, { FINALIZE, 0 },
    { SUPDATE, 0, 3 }, { SPOSE, 0, 0, 0, 0 }, { TRACK, 2, 4 } },
  -- a finalizer that finalizes the clip in the middle of the next calls
  bomb = { { BOMB, 1, 0 }, { CLIPOP, 1, 0, 3 }, { SPOSE, 0, 1, 0, 2 }, { BOMB, 0, 1 }, { SUPDATE, 0, 3 },
    { BATCH, 2, 0, 0, 3 } },
  -- callbacks that finalize, raise, collect, update another
  callbacks = { { CALLBACK, 0, 2, 0, 0 }, { CALLBACK, 0, 1, 0, 1 }, { CALLBACK, 0, 0, 0, 3 }, { SUPDATE, 0, 4 },
    { SUPDATE, 0, 4 }, { BATCH, 3, 0, 1, 2, 4, 1 } },
  -- boxes given other kinds' metatables; core functions with odd arguments
  forge = { { FORGE, 0, 1 }, { FORGE, 1, 2 }, { FORGE, 2, 0 }, { CORE, 0, 2, 0, 2, 1, 0, 0 }, { CORE, 10, 5, 0, 0 },
    { CORE, 17, 4, 1, 0, 0 } },
  -- clip tables that are no tree, hostile tables, limits
  tables = { { CLIP, 1, 1, 2, 0, 0, 0, 0 }, { CLIP, 2, 1, 1, 0, 0, 1, 1 }, { RIG, 1, 0, 4, 1 }, { LIMITS, 0, 0 },
    { DECODE, 0, 0 }, { LIBRARY, 5, 0 }, { LIBRARY, 7, 2 }, { SDROP, 0, 0 } },
}
for name, ops in pairs(scripts) do
  write("fuzz/corpus/script/" .. name, program(ops))
end

-- import -----------------------------------------------------------------------------
for _, name in ipairs { "breathe", "sneak", "walk", "wave" } do
  write("fuzz/corpus/import/xml-" .. name .. ".xml", "\0" .. read(shared .. "/data/xml/Minecraft-Skin-Viewer/" .. name .. ".xml"))
end
write("fuzz/corpus/import/xml-nod.xml", "\0" .. read("examples/clips/nod.xml"))
for _, name in ipairs { "race_car", "bat" } do
  write("fuzz/corpus/import/bedrock-" .. name .. ".animation.json",
    "\1" .. read(shared .. "/data/blockbench/geckolib/1.20.4/" .. name .. ".animation.json"))
end
local hostile = require "bench.hostile"
local pad = string.rep(" ", 2600)
write("fuzz/corpus/import/hostile-padded.xml", "\0" .. hostile.xml("1" .. pad .. "x", pad .. "2f" .. pad))
write("fuzz/corpus/import/hostile-entities.xml", "\0" .. hostile.entities(4) .. hostile.xml("1&e4;x", "1&e4;"))
write("fuzz/corpus/import/hostile-keys.animation.json", "\1" .. hostile.bedrock(24, 100, "math.sin(q.anim_time*2292)*20"))
write("fuzz/corpus/import/hostile-molang.animation.json", "\1" .. hostile.bedrock(3, 100, hostile.molang_terms()))
write("fuzz/corpus/import/hostile-handles.bbmodel", "\1" .. hostile.bezier_bbmodel())
