-- fuzz/seeds.lua: writes the committed seed corpora, fuzz/corpus/<target>/.
-- Run from the checkout, with ../shared beside it (or ANIM_SHARED):
--   lua5.4 fuzz/seeds.lua
-- decode: the example clips, the retarget map, the XML clip and the state
-- machines (the example's, two of the specs'), every third
-- clip of the conformance vectors (each a small .anim text), the legacy XML
-- files and two small Bedrock animation files of ../shared/data.
-- animator: hand-made programs for fuzz/animator.lua (see its OPS: one byte
-- picks an operation, the next ones its operands).
-- script: hand-made programs for fuzz/script.lua (the same way).
-- state: scenes for fuzz/state.lua, each saved and its state mutated
-- (fuzz/state.lua's `program` names its operations and operands).
-- import: the legacy XML files (first byte 0) and the small Blockbench and
-- Bedrock files (first byte 1) of ../shared/data, the hostile texts of
-- issue 19 (padded numbers, entities, a Bedrock file of many channels that
-- change fast, a long Molang expression, bezier handles of 1e300), and
-- glTF files the module writes (first byte 2 or 6).
-- animc: four example clips, a dense one (at two bounds) and one of plain
-- fields compressed (anim.compress), as .animc files
-- (the module from the checkout: LUA_PATH and LUA_CPATH as for the specs).
-- spine, dragonbones: the hero fixtures of spec/fixtures (first byte: bit 0
-- an atlas after a NUL byte, bits 1-2 the limits of fuzz/common2d.lua);
-- atlas: both atlas layouts.  Structured inputs of spine and dragonbones
-- (first byte's bit 3) change the fixtures' decoded trees.
require("anim.base.luajit").no_traversal_traces()
local cjson = require "cjson"

local shared = os.getenv("ANIM_SHARED") or "../shared"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function write(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

os.execute("rm -rf fuzz/corpus && mkdir -p fuzz/corpus/decode fuzz/corpus/animator fuzz/corpus/script fuzz/corpus/import"
  .. " fuzz/corpus/state fuzz/corpus/animc fuzz/corpus/spine fuzz/corpus/atlas fuzz/corpus/dragonbones")

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
-- (state machines: fuzz/decode.lua gives every input to anim.graph too)
write("fuzz/corpus/decode/graph-example-hero.animgraph", read("examples/clips/hero.animgraph"))
for _, name in ipairs { "hero", "nested" } do
  write("fuzz/corpus/decode/graph-" .. name .. ".animgraph", read("spec/data/graphs/" .. name .. ".animgraph"))
end

-- animator ---------------------------------------------------------------------------
-- Operation numbers (fuzz/animator.lua, OPS in order).
local NEW, PLAY, STOP, WEIGHT, SPEED, SEEK, UPDATE, COUPDATE, ACB, TCB, DROP, POSE, TRACKS, ORPHAN, SPACE, AT, ROOT,
  RELOAD, RBOMB = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
-- Operand indices: CLIPS 0 walk, 1 wave, 2 attack, 3 spark, 4 tiny, 5 pingpong,
-- 6 once, 7 hold, 8 fast, 9 view, then the input's own: 10 own1 (the root
-- moves), 11 own2 (a property).  Spaces 0 synced, 1 free, 2 plane (2D), 3
-- one.  AT 2 0.5, 4 2, 7 { 0.5, 0.5 }, 8 { 0, 1 }, 11 NaN.  ROOT 1 root.
-- RELOADS 0 one joint, 1 every joint, 2 pingpong of 0.25 s at speed -2, 3
-- once additive, 4 a property of 3 components, 6 a view clip, 9 speed 0; then
-- 0 to compare the animators that play it with restores of their states.
-- DT 0 0, 1 1/60, 4 0.5, 7 1e-9, 10 1e9, 13 -1,
-- 16 NaN, 17 inf.  SPEED 0 1, 1 0, 2 -1, 7 1e300, 11 NaN.  WEIGHT 0 1, 1 0.
-- FADE 0 nil, 1 0, 2 0.1.  TIME 0 0, 3 0.5, 10 NaN.  PRIORITY 0 nil.
-- Callback actions: 0 nothing, 1 play, 2 stop, 3 stop all, 4 error,
-- 5 disconnect, 6 update itself, 7 update another, 8 drop the animator,
-- 9 adjust, 10 yield, 11 drop the tracks, 12 reload a clip (refused).
local function program(ops)
  local out = {}
  local function add(op)
    for _, b in ipairs(op) do
      if type(b) == "table" then add(b) else out[#out + 1] = string.char(b) end
    end
  end
  for _, op in ipairs(ops) do add(op) end
  return table.concat(out)
end
-- (a list of operations, which program() flattens)
local function frames(slot, n, dt)
  local ops = {}
  for i = 1, n do ops[i] = { UPDATE, slot, dt } end
  return ops
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
  -- root motion on a clip reloaded to fewer joints, to more, to another length (issue 35)
  reload_root_motion = { { ROOT, 0, 1 }, { PLAY, 0, 10, 1, 0, 0, 0, 2 }, frames(0, 5, 1), { RELOAD, 0, 0, 0 }, frames(0, 3, 1),
    { RELOAD, 0, 1, 0 }, frames(0, 3, 1), { RELOAD, 0, 2, 0 }, frames(0, 3, 4), { RELOAD, 0, 0, 0 }, frames(0, 2, 4) },
  -- blend spaces 1D and 2D, synced and not, their parameters moved
  spaces = { { ROOT, 0, 1 }, { SPACE, 0, 0, 1, 0, 0, 2, 1 }, { SPACE, 0, 2, 1, 0, 0, 7, 1 }, { SPACE, 0, 1, 2, 0, 2, 4, 1 },
    frames(0, 10, 1), { AT, 0, 4, 0 }, { AT, 1, 8, 1 }, { AT, 2, 11, 0 }, frames(0, 5, 4) },
  -- the spaces' clips reloaded: to one joint, to another arity (refused), to every joint,
  -- to speed 0 and to a view clip (refused by the synced and body spaces)
  space_reload = { { ROOT, 0, 1 }, { SPACE, 0, 0, 1, 0, 0, 2, 1 }, { SPACE, 0, 1, 1, 0, 0, 2, 1 },
    { SPACE, 0, 2, 1, 0, 0, 7, 1 }, { SPACE, 0, 3, 1, 0, 0, 0, 1 }, frames(0, 4, 1), { RELOAD, 0, 0, 0 }, frames(0, 2, 1),
    { RELOAD, 1, 4, 0 }, { RELOAD, 1, 1, 0 }, frames(0, 3, 4), { RELOAD, 0, 9, 0 }, { RELOAD, 0, 6, 0 }, frames(0, 2, 1) },
  -- reloads from callbacks (refused) and from finalizers in the middle of plays and updates
  reload_callback = { { PLAY, 0, 10, 1, 0, 0, 0, 2 }, { ACB, 0, 0, 12, 0 }, { ACB, 0, 0, 12, 3 }, frames(0, 30, 1) },
  reload_finalizer = { { ROOT, 0, 1 }, { RBOMB, 0, 0 }, { PLAY, 0, 10, 1, 0, 0, 0, 2 }, { SPACE, 0, 0, 1, 0, 0, 2, 1 },
    frames(0, 3, 1), { RBOMB, 1, 1 }, { SPACE, 0, 2, 1, 0, 0, 7, 1 }, { PLAY, 0, 11, 1, 0, 0, 0, 2 }, frames(0, 3, 1),
    { DROP, 5, 0 }, frames(0, 3, 1) },
}
-- State machines (fuzz/animator_graph.lua): the operation bytes from 247 up.
-- Graphs 0 g_two (layers base, upper; parameters 0 flag, 1 go, 2 n, 3 speed),
-- 1 g_add, 2 g_cycle, 3 hero (below).  VALUES 3 1, 4 2, 5 5, 7 1.5, 9 true, 10 false.
-- Layers 0 default, 1 first, 2 second.  Graph callback actions: below 13
-- the driver's, 13 detach, 14 tracks(), 15 state(), 16 stop(), 17 force and
-- fire, 18 restore (refused), 19 travel, 20 library:reload of the hero graph.  GRELOADS 0 head and torso, 1 torso
-- (none of the upper mask: refused), 2 more joints, 3 length 0, 5 no joint,
-- 6 library:reload of the hero graph.
local GCTL, GSET, GFORCE, GREAD, GCB, GDET, GREST, GREL, GBATCH = 247, 248, 249, 250, 251, 252, 253, 254, 255
programs.graph_walk = { { GCTL, 0, 0, 1 }, frames(0, 3, 1), { GSET, 0, 0, 3, 7 }, frames(0, 5, 3), { GSET, 0, 1, 1, 0, 0 },
  frames(0, 10, 3), { GSET, 0, 0, 0, 9 }, frames(0, 10, 2), { GSET, 0, 0, 2, 3 }, frames(0, 5, 2), { GSET, 0, 0, 2, 4 },
  frames(0, 3, 2), { GREAD, 0, 1, 0 }, { GREAD, 0, 2, 2 }, { GREST, 0 }, { GSET, 0, 0, 2, 5 }, frames(0, 3, 2),
  { GDET, 0, 1 }, { GREST, 0 } }
programs.graph_callbacks = { { GCTL, 0, 0, 1 }, { GCB, 0, 0, 14, 0 }, { GCB, 0, 2, 15, 1 }, { GCB, 0, 1, 1, 2 },
  { GCB, 0, 0, 17, 3 }, { GCB, 0, 2, 19, 4 }, { GSET, 0, 0, 3, 7 }, frames(0, 6, 3), { GSET, 0, 1, 1, 2, 0 }, frames(0, 6, 2),
  { GDET, 0, 2, 0 }, frames(0, 4, 2), { GCB, 0, 0, 13, 0 }, { GSET, 0, 0, 0, 9 }, frames(0, 6, 2), { GDET, 0, 3, 0, 0 },
  { GDET, 0, 1 }, { GCTL, 0, 2, 1 }, { GCB, 0, 1, 18, 0 }, { GCB, 0, 2, 16, 1 }, frames(0, 6, 2) }
programs.graph_force = { { GCTL, 0, 0, 1 }, frames(0, 2, 1), { GFORCE, 0, 0, 1, 5, 2 }, frames(0, 3, 1), { GFORCE, 0, 1, 1, 1, 0 },
  frames(0, 3, 3), { GFORCE, 0, 2, 2, 1, 0 }, { GFORCE, 0, 1, 4, 3, 0 }, frames(0, 4, 3), { GREAD, 0, 0, 2, 1, 2 },
  { GFORCE, 0, 1, 1, 6, 0 }, frames(0, 6, 3), { GREST, 0 }, { GFORCE, 0, 0, 6, 0, 4 }, { GREAD, 0, 0, 1, 4, 1 } }
programs.graph_reload = { { GCTL, 0, 0, 1 }, { GSET, 0, 0, 0, 9 }, frames(0, 3, 1), { GREL, 0, 0, 0 }, frames(0, 3, 1),
  { GREL, 0, 1, 0 }, { GREL, 0, 2, 0 }, frames(0, 3, 3), { GREL, 1, 3, 0 }, frames(0, 2, 3), { GREL, 0, 5, 0 },
  { RELOAD, 0, 1, 0 }, frames(0, 2, 1), { RELOAD, 0, 7, 0 }, { RELOAD, 1, 6, 0 }, frames(0, 2, 1), { GREST, 0 } }
programs.graph_batch = { { GCTL, 0, 0, 1 }, { GCTL, 1, 2, 1 }, { NEW, 2, 0 }, { PLAY, 2, 0, 1, 0, 0, 0, 2 }, { GBATCH, 3, 0, 1 },
  { GBATCH, 3, 1, 2 }, { GSET, 1, 0, 3, 9 }, { GSET, 1, 0, 0, 8 }, { GBATCH, 2, 1, 3 }, { GBATCH, 3, 1, 1 },
  { GCB, 0, 2, 7, 1 }, { GSET, 0, 1, 1, 1, 0 }, { GBATCH, 3, 1, 1 }, { GBATCH, 1, 0, 2 } }
-- (graph 3: examples/clips/hero.animgraph through the library: parameters 0
-- grounded, 1 jump, 2 speed, 3 wave; GRELOADS 6: library:reload of it)
programs.graph_library_reload = { { GCTL, 0, 3, 1 }, frames(0, 1, 1), { GSET, 0, 0, 2, 4 }, { GSET, 0, 1, 3, 0, 0 },
  frames(0, 3, 4), { GREL, 0, 6, 0 }, frames(0, 1, 1), { GREST, 0 }, { GCB, 0, 2, 14, 0 }, { GSET, 0, 1, 1, 2, 0 },
  frames(0, 2, 4), { GREL, 0, 6, 0 }, { GSET, 0, 0, 0, 10 }, frames(0, 4, 4), { GREST, 0 }, { GBATCH, 2, 1, 2 } }
-- (callback action 20: library:reload of the hero graph while it delivers)
programs.graph_reload_in_callback = { { GCTL, 0, 3, 1 }, { GCB, 0, 0, 20, 1 }, { GCB, 0, 2, 20, 2 }, { GCB, 0, 1, 14, 3 },
  { GSET, 0, 0, 2, 4 }, frames(0, 4, 4), { GSET, 0, 1, 1, 0, 0 }, frames(0, 3, 2), { GREST, 0 }, { GCTL, 1, 3, 1 },
  { GBATCH, 2, 1, 1 }, { GSET, 1, 1, 3, 0, 0 }, { GBATCH, 3, 1, 2 }, frames(0, 3, 4) }
for name, ops in pairs(programs) do
  write("fuzz/corpus/animator/" .. name, program(ops))
end

-- script -----------------------------------------------------------------------------
-- Operation numbers (fuzz/script.lua, OPS in order, from 0).
local CLIP, DECODE, RIG, ANIMATOR, SPLAY, CALLBACK, SUPDATE, BATCH, SPOSE, TRACK, CLIPOP, FINALIZE, BOMB, FORGE, CORE,
  LIBRARY, LIMITS, SDROP, SRELOAD, SSPACE, SPLAYSPACE, SAT, SROOT, RESTORE, RBOMB2, BIG =
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25
-- The pool starts as 0 an animator (library), 1 a clip (head, a marker at
-- 0.5), 2 its track; objects made are kept after them.  NUMBERS 3 0.5.
-- A reload's shape (fuzz/script.lua reload_table): length (0 1, 2 2, 5
-- 0.25), loop (0 loop, 2 pingpong), speed (0 none, 1 -2), blend, space (3
-- view), the joints' mask (bit 0: the root moves; 4: the head alone), the
-- markers, the properties (1 glow, 2 glow of 3 components).
local function shape(len, loop, speed, mask, props) return { len, loop, speed, 0, 0, mask, 2, props } end
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
  -- (issue 35) the clip reloaded to every joint and played with root motion, then reloaded to the head alone
  reload_root_motion = { { SRELOAD, 1, 0, shape(2, 0, 0, 255, 1), 0 }, { SPLAY, 0, 1, 1, 0, 1, 1, 0 }, { SROOT, 0, 0 },
    { SUPDATE, 0, 3 }, { SRELOAD, 1, 1, shape(5, 2, 1, 4, 2), 0 }, { SUPDATE, 0, 3 }, { SRELOAD, 1, 2, 0, 0 }, { SUPDATE, 0, 4 } },
  -- a reload from a marker's callback: refused
  reload_callback = { { CALLBACK, 0, 1, 5, 0, shape(0, 0, 0, 255, 1) }, { SUPDATE, 0, 3 }, { SUPDATE, 0, 3 }, { SUPDATE, 0, 3 } },
  -- a wide rig and clip with root motion; a finalizer that reloads the clip in the middle of a play and a restore
  reload_finalizer = { { BIG, 0 }, { RBOMB2, 4, shape(0, 0, 0, 1, 0), 0, 0, 0, 0, 0, 0, 0 }, { SPLAY, 3, 4, 1, 0, 1, 1, 0 },
    { SUPDATE, 3, 3 }, { RBOMB2, 4, shape(2, 0, 0, 6, 0), 0, 0, 0, 0, 0, 0, 0 }, { RESTORE, 3, 3, 4, shape(0, 0, 0, 1, 0), 5, 0, 0, 0 },
    { SUPDATE, 3, 3 } },
  -- a finalizer that builds a clip in the middle of anim.clip
  build_finalizer = { { RBOMB2, 1, shape(0, 0, 0, 1, 0), 0, 0, 0, 0, 0, 0, 1 }, { CLIP, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { CLIP, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
  -- a blend space of the clip and walk, played, its parameter moved, its clip reloaded
  spaces = { { SSPACE, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1 }, { SPLAYSPACE, 0, 3, 0, 2, 0, 0, 1 }, { SUPDATE, 0, 3 },
    { SAT, 4, 0, 3, 0, 0 }, { SUPDATE, 0, 3 }, { SRELOAD, 1, 0, shape(0, 0, 0, 7, 0), 0 }, { SUPDATE, 0, 3 } },
  -- one animator's state restored into another: resolve gives the clip, reloads it, raises
  restore = { { SUPDATE, 0, 3 }, { ANIMATOR, 1, 0, 0, 0, 0 }, { RESTORE, 0, 3, 1, shape(0, 0, 0, 4, 0), 5, 0, 0, 0 },
    { RESTORE, 0, 3, 1, shape(2, 0, 0, 255, 0), 1, 0, 0, 0 }, { SUPDATE, 3, 3 }, { RESTORE, 0, 3, 1, shape(0, 0, 0, 4, 0), 2, 1, 0, 3 } },
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
-- glTF (first byte 2, 6 with meshes): the module's own files -- the
-- critter example, walk.anim exported as .glb and as .gltf, and that
-- .gltf with its buffer in a file (the bytes after fuzz/import.lua's SEP)
do
  local anim, core = require "anim", require "anim.core"
  local SEP, DATA = require("fuzz.import").SEP, "data:application/octet-stream;base64,"
  write("fuzz/corpus/import/gltf-critter.gltf", "\6" .. read("examples/clips/critter.gltf"))
  local tmp = os.tmpname()
  local walk = assert(anim.load("examples/clips/walk.anim"))
  for _, ext in ipairs { "glb", "gltf" } do
    assert(anim.export_gltf(walk, tmp .. "." .. ext))
    write("fuzz/corpus/import/gltf-walk." .. ext, "\2" .. read(tmp .. "." .. ext))
  end
  local doc = cjson.decode(read(tmp .. ".gltf"))
  local bin = assert(core.base64_decode(doc.buffers[1].uri, #DATA + 1))
  doc.buffers[1].uri = "walk.bin"
  write("fuzz/corpus/import/gltf-walk-file.gltf", "\2" .. cjson.encode(doc) .. SEP .. bin)
  for _, f in ipairs { tmp, tmp .. ".glb", tmp .. ".gltf" } do os.remove(f) end
  -- a skinned triangle (positions, 8-bit joints, weights, 16-bit indices),
  -- for the meshes' reading
  local b = string.pack("<fffffffff", 0, 0, 0, 1, 0, 0, 0, 1, 0) .. string.pack("<BBBBBBBBBBBB", 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0) .. string.pack("<ffffffffffff", 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0) .. string.pack("<HHHH", 0, 1, 2, 0)
  local tri = { asset = { version = "2.0" }, scene = 0, scenes = { { nodes = { 0, 1 } } },
    nodes = { { name = "bone" }, { name = "body", mesh = 0, skin = 0 } }, skins = { { joints = { 0 } } },
    meshes = { { primitives = { { attributes = { POSITION = 0, JOINTS_0 = 1, WEIGHTS_0 = 2 }, indices = 3 } } } },
    buffers = { { byteLength = #b, uri = DATA .. core.base64_encode(b) } },
    bufferViews = { { buffer = 0, byteLength = 36 }, { buffer = 0, byteOffset = 36, byteLength = 12 },
      { buffer = 0, byteOffset = 48, byteLength = 48 }, { buffer = 0, byteOffset = 96, byteLength = 6 } },
    accessors = { { bufferView = 0, componentType = 5126, count = 3, type = "VEC3", min = { 0, 0, 0 }, max = { 1, 1, 0 } },
      { bufferView = 1, componentType = 5121, count = 3, type = "VEC4" },
      { bufferView = 2, componentType = 5126, count = 3, type = "VEC4" },
      { bufferView = 3, componentType = 5123, count = 3, type = "SCALAR" } } }
  write("fuzz/corpus/import/gltf-triangle.gltf", "\6" .. cjson.encode(tri))
end

-- spine, atlas, dragonbones -------------------------------------------------------------
local SP, DB = "spec/fixtures/spine/", "spec/fixtures/dragonbones/"
for i, v in ipairs { "3.8", "4.0", "4.1", "4.2" } do
  -- (each version alone under the default limits, then under the others)
  write("fuzz/corpus/spine/hero-" .. v, string.char(0) .. read(SP .. "hero-" .. v .. ".json"))
  write("fuzz/corpus/spine/hero-" .. v .. "-limits", string.char(2 * ((i - 1) % 3 + 1)) .. read(SP .. "hero-" .. v .. ".json"))
end
write("fuzz/corpus/spine/hero-3.8-atlas", "\1" .. read(SP .. "hero-3.8.json") .. "\0" .. read(SP .. "hero-3.8.atlas"))
write("fuzz/corpus/spine/hero-4.1-atlas", "\1" .. read(SP .. "hero-4.1.json") .. "\0" .. read(SP .. "hero-4.x.atlas"))
-- (structured: first byte 8 + bit 0 for the atlas; the next picks the fixture, the
-- rest change its decoded tree: fuzz/common2d.lua, M.mutated)
for k = 0, 3 do
  write("fuzz/corpus/spine/structured-" .. k, string.char(8 + k % 2, k, 2, 1, 2, 3, 1, 0, 4, 7, 1, 9))
end
for k = 0, 1 do
  write("fuzz/corpus/dragonbones/structured-" .. k, string.char(9 - k, k, 2, 1, 2, 3, 1, 0, 4, 7, 1, 9))
end
write("fuzz/corpus/atlas/hero-3.8.atlas", read(SP .. "hero-3.8.atlas"))
write("fuzz/corpus/atlas/hero-4.x.atlas", read(SP .. "hero-4.x.atlas"))
write("fuzz/corpus/dragonbones/hero-tex", "\1" .. read(DB .. "hero_ske.json") .. "\0" .. read(DB .. "hero_tex.json"))
write("fuzz/corpus/dragonbones/hero", "\0" .. read(DB .. "hero_ske.json"))
write("fuzz/corpus/dragonbones/hero-limits", "\2" .. read(DB .. "hero_ske.json"))
write("fuzz/corpus/dragonbones/hero45", "\0" .. read(DB .. "hero45_ske.json"))
write("fuzz/corpus/dragonbones/hero45-limits", "\6" .. read(DB .. "hero45_ske.json"))

-- state -------------------------------------------------------------------------------
-- A program of fuzz/state.lua: a header (the animator's options, its root
-- motion joint, the number of scene operations, three dts, whether the
-- state is restored through cjson), the scene's operations, then the
-- mutations of its state.  Operations and operands are written by name
-- (fuzz/state.lua's M.program) as their 0-based indices.
do
  local P = require("fuzz.state").program
  local L = P.lists
  local function at(list, v)
    for i, x in ipairs(list) do if x == v then return i - 1 end end
    error("fuzz/seeds.lua: no " .. tostring(v))
  end
  local function playable(name, nth)
    local n = 0
    for i, x in ipairs(P.playable) do
      if x == name then n = n + 1; if n == (nth or 1) then return i - 1 end end
    end
    error("fuzz/seeds.lua: no playable " .. name)
  end
  local function scene(name) return at(P.scene, name) end
  local function mutation(name) return at(P.mutations, name) end
  -- the operations
  local function play(what, o)
    o = o or {}
    local k = (o.retarget or 0) + 6 * (o.after and 1 or 0)
    local out = { scene "play", type(what) == "number" and what or playable(what), at(L.FADES, o.fade or 0),
      at(L.WEIGHTS, o.weight or 1), at(L.SPEEDS, o.speed or 1), at(L.PRIORITIES, o.priority or false), k }
    if o.after then out[#out + 1] = o.after end
    for _, p in ipairs(o.at or {}) do out[#out + 1] = at(L.PLACES, p) end
    return out
  end
  local function update(dt) return { scene "update", at(L.DTS, dt) } end
  local function batch(dt) return { scene "batch", at(L.DTS, dt) } end
  local function control(track, k, ...) return { scene "control", track, k, ... } end
  local function override(k, x, joint) return { scene "override", k, x, at(L.JOINTS, joint) } end
  local function root(j) return { scene "root", at(L.ROOTS, j) } end
  local function two_bone(x, y, tip, w, soft) return { scene "constraint", 0, x, y, tip, w, soft } end
  local function aim(x, y, joint, w) return { scene "constraint", 1, x, y, joint, w } end
  local function remove_constraint(i) return { scene "constraint", 2, 0, 0, i } end
  -- the mutations
  local function field(track, name, opts, ...)
    opts = opts or {}
    local out = { mutation "field", track, opts.point or 0, at(L.FIELD_NAMES, name), opts.sub or 0, opts.nudge and 0 or 1 }
    if opts.nudge then out[#out + 1] = opts.nudge; out[#out + 1] = opts.as or 0
    else out[#out + 1] = at(L.VALUES, opts.value) end
    for _, b in ipairs { ... } do out[#out + 1] = b end
    return out
  end
  local function mutate(name, ...) return { mutation(name), ... } end
  -- header: options byte (side = b % 3, a library unless b / 3 % 5 == 0,
  -- view from 240), root motion, scene operations, dts, through cjson
  local function header(opts, rootj, ops, dts, json)
    local n = 0
    for _ in ipairs(ops) do n = n + 1 end
    local out = { opts, at(L.ROOTS, rootj or false), n - 1 }
    for i = 1, 3 do out[#out + 1] = at(L.DTS, dts[i]) end
    out[#out + 1] = json and 1 or 0
    return out
  end
  local function state_program(h, ops, base, mutations)
    local all = { h }
    for _, o in ipairs(ops) do all[#all + 1] = o end
    all[#all + 1] = { base or 0 }
    for _, m in ipairs(mutations) do all[#all + 1] = m end
    return program(all)
  end
  local function seed(name, opts, rootj, dts, json, ops, base, mutations)
    write("fuzz/corpus/state/" .. name, state_program(header(opts, rootj, ops, dts, json), ops, base, mutations))
  end
  local DBL_MAX = 1.7976931348623157e308
  local STD = { 1 / 60, 0.1, 0.7 }
  -- (node() walks from the state by the keys in sorted order: these are
  -- the indices of the top-level ones; HERE, 224, stops the walk there)
  local TOP = { animator = 1, constraints = 2, overrides = 4, properties = 6, tracks = 10 }
  local HERE = 224
  -- root motion over a stride and a walk, an override: numbers nudged
  seed("root-motion", 3, "root", STD, false, {
    play("stride", { fade = 0 }), play("res://walk.anim", { fade = 0.1, weight = 0.5 }), update(0.1), update(0.25),
    override(1, 150, "head"), update(1 / 30),
  }, 0, { field(0, "time", { nudge = 1 }), field(1, "rm_p0", { sub = 2, nudge = 2 }), field(0, "rm_binding", { value = 7 }) })
  seed("root-motion-joint", 3, "root", STD, false, {
    play("stride", { fade = 0 }), update(0.1), root("torso"), update(0.25),
  }, 0, { field(0, "rm_joint", { value = "head" }), field(0, "rm_valid", { value = true }) })
  -- every kind of blend space, their parameters moved: points' names respelt, the peer's clips others
  seed("spaces", 3, "root", STD, true, {
    play("strides", { fade = 0, at = { 0.5 } }), play("plane", { at = { 0.5, 0.25 } }), play("square", { at = { 1, 0.5 } }),
    play("move", { at = { 2 } }), play("blendspace", { at = { 0.25 } }), play(playable("blendspace", 3), { at = { 1, 2 } }),
    update(0.1), control(0, 4, at(L.PLACES, 1)), control(1, 4, at(L.PLACES, 2), at(L.PLACES, 3)), update(0.25),
  }, 1, { mutate("names", 0, 0, 13, 2), field(1, "point_weight", { point = 1, nudge = 0 }) })
  seed("spaces-peer", 3, false, STD, false, {
    play("strides", { fade = 0, at = { 0.5 } }), play("plane", { at = { 0.5, 0.25 } }), update(0.1),
  }, 0, { mutate("peer", at(L.CLIPS, "stride"), 1, at(L.CLIPS, "g2")), field(1, "points", { sub = 1, value = "copy" }, TOP.tracks, 0, HERE) })
  -- a queue of tracks: made into a ring, ids swapped
  seed("queue", 3, false, STD, false, {
    play("once", { fade = 0 }), play("res://walk.anim", { after = 0, fade = 0.1 }), play("res://attack.anim", { after = 1 }),
    play("hold", { after = 2, fade = 0.05 }), update(0.1),
  }, 0, { mutate("after", 0, 1) })
  seed("queue-ids", 3, false, STD, false, {
    play("once", { fade = 0 }), play("res://walk.anim", { after = 0, fade = 0.1 }), update(0.1),
  }, 0, { mutate("ids", 0, 1, 0) })
  -- play at the extremes: counts saturated, root motion over 1e9 s, a cjson round trip
  seed("extremes", 3, "torso", { 1e9, DBL_MAX, 1 / 60 }, true, {
    play("hips", { speed = 1e300, fade = 1e300 }), play("stride", { speed = -1e300, weight = 1e300 }),
    play("tiny", { speed = DBL_MAX }), update(1e9), batch(DBL_MAX), control(1, 2, at(L.SPEEDS, 5e-324)), update(1e300),
  }, 1, { mutate("cjson"), field(0, "loops", { value = "9223372036854775808" }) })
  seed("extremes-restored", 3, "torso", { 1e9, DBL_MAX, 1 / 60 }, false, {
    play("hips", { speed = 1e300, fade = 1e300 }), play("stride", { speed = -1e300, weight = 1e300 }), update(1e9),
  }, 1, { mutate("cjson"), field(1, "rm_dp", { sub = 1, nudge = 1, as = 1 }) })
  -- property channels: glow and tint; a name twice
  seed("properties", 3, false, STD, false, {
    play("hips", { fade = 0 }), play("g1"), play("g2"), play("g3", { weight = 0.5 }), play("g4"), update(0.1), update(0.7),
  }, 0, { mutate("array", TOP.properties, HERE, 1, 0) })
  seed("properties-peer", 3, false, STD, false, {
    play("hips", { fade = 0 }), play("g1"), update(0.1),
  }, 0, { mutate("peer", at(L.CLIPS, "hips"), 1, at(L.CLIPS, "glow3")) })
  -- overrides and constraints, some removed; a field of each changed
  seed("constraints", 3, "head", STD, false, {
    play("res://wave.anim", { fade = 0 }), override(1, 100, "rightArm"), override(2, 200, "head"), override(6, 20, "torso"),
    two_bone(100, 180, 0, 3, 1), aim(200, 60, 1, 2), update(0.1), remove_constraint(0), override(4, 0, "root"), update(0.25),
  }, 0, { mutate("set", TOP.constraints, 0, 6, at(L.VALUES, 2)) })
  seed("overrides", 3, false, STD, false, {
    play("res://wave.anim", { fade = 0 }), override(1, 100, "rightArm"), override(2, 200, "head"), update(0.1),
  }, 0, { mutate("array", TOP.overrides, HERE, 2, 0, 1) })
  -- a view animator playing a view clip and a view space
  seed("view", 243, false, STD, false, {
    play("look", { at = { 0.5 } }), play("res://walk.anim"), update(0.1), control(1, 5, at(L.CLIPS, "g1"), 1), update(0.7),
  }, 1, { field(0, "clip", { value = "res://walk.anim" }), mutate("target", 2) })
  -- no library: res:// names resolved by the game, plays items refused by update; spellings
  seed("no-library", 0, false, STD, true, {
    play("res://attack.anim", { fade = 0 }), play("pingpong", { retarget = 1 }), update(0.25), update(2.5),
  }, 0, { mutate("target", 1), mutate("names", 0, 0, 0) })
  -- res:// spellings on an animator with a library
  for k = 0, 15 do
    seed("spelling-" .. k, 3, false, STD, false, { play("res://walk.anim", { fade = 0 }), update(0.1) }, 0,
      { mutate("names", 0, 0, k, (k == 8 or k == 13) and 3 or nil) })
  end
  -- a server animator: tracks grown to hundreds, the limit of entries lowered
  seed("grown", 4, "root", STD, false, {
    play("res://walk.anim"), play("stride"), play("res://attack.anim"), update(0.1),
  }, 0, { mutate("array", TOP.tracks, HERE, 4, 2, 0) })
  seed("limit", 4, "root", STD, false, { play("res://walk.anim"), play("stride"), update(0.1) }, 0, { mutate("limit", 1) })
  -- the resolve function misbehaving; a refused state leaves the animator as it was
  for mode = 1, 4 do
    seed("resolve-" .. mode, 3, false, STD, false, {
      play("g1", { fade = 0 }), play("stride", { retarget = 1 }), update(0.1),
    }, 0, { mutate("resolve", mode), mutate("target", 1) })
  end
end

-- animc ---------------------------------------------------------------------------
do
  local anim = require "anim"
  for _, name in ipairs { "walk", "wave", "attack", "spark" } do
    local cc = assert(anim.compress(assert(anim.load("examples/clips/" .. name .. ".anim"))))
    assert(anim.save(cc, "fuzz/corpus/animc/example-" .. name .. ".animc"))
  end
  -- (dense keys, jumps and properties: narrow channels at several bit
  -- widths, frame deltas of several widths; at two bounds)
  local D = require "spec.dense_clips"
  for k, e in ipairs { 0.001, 0.00001 } do
    local cc = assert(anim.compress(D.full_clip(), { error = e, distance = 0.1 }))
    assert(anim.save(cc, "fuzz/corpus/animc/dense-" .. k .. ".animc"))
  end
  -- (a compressed clip's usual table, and an editor's field: the core
  -- reads it from the bytes, which the driver compares to the full reading)
  local plain = assert(anim.clip({ version = 3, length = 1, loop = "pingpong", euler = "zyx", absolute = false,
    rig = "a.bbmodel", skeleton = { root = { position = { 0, 1, 0 }, rotation = { 0, 0, 0, 1 } },
      arm = { parent = "root", position = { 0.5, 0, 0 }, rotation = { 0, 0.6, 0, 0.8 }, scale = { 1, 1, 1 } } },
    joints = { root = { position = { { 0, { 0, 0, 0 } }, { 1, { 0, 0.5, 0 } } } },
      arm = { rotation = { { 0, { 0, 0, 0 } }, { 0.5, { 0, 45, 0 } }, { 1, { 0, 0, 0 } } } } } }, "plain"))
  assert(anim.save(assert(anim.compress(plain)), "fuzz/corpus/animc/plain.animc"))
end
