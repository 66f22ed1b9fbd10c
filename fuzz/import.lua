-- fuzz/import.lua: the driver of the fuzz_import target (and of the replay
-- of its inputs in spec/fuzz_regressions_spec.lua): the importers of text,
-- against a time and a memory budget per input (issue 19), so that a slow
-- or greedy input is a finding like a crash.
--
-- run(bytes): the first byte picks the importer, the rest is its text:
-- 2 mod 4, anim.decode_gltf (a .gltf's JSON or a .glb, up to M.SEP; what
-- follows it is the bytes options.read gives for any uri, none without
-- it; 6 mod 8 with { meshes = true }); else even, anim.decode_xml (the
-- legacy XML format, expat, entities and all); odd, anim.decode_blockbench
-- (a .bbmodel or a Bedrock / GeckoLib animation file, Molang included).
-- Each must return what it imports or
-- `nil, message` naming the source, never raise, and be done within
-- M.budget.seconds of CPU (docs/robustness.md: "each input done, or
-- refused, in under 0.5 s"), times FUZZ_SLOWDOWN under the fuzzer's
-- instrumented build (fuzz/harness.c sets it); what loads is then used as
-- fuzz/decode.lua uses it.  The harness also holds each input to
-- M.budget.mb of memory, the core's included: beyond it the allocation
-- fails and the input is a finding.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local C = require "fuzz.common"
local compat = require "anim.base.compat"

local M = {}

M.budget = { seconds = 0.5, mb = 512 }

local NAME = C.NAME
local bug, must_not_raise, check_answer, use_clip = C.bug, C.must_not_raise, C.check_answer, C.use_clip

-- The CPU seconds fn(...) took, and its results.
local function timed(fn, ...)
  local t0 = os.clock()
  local res = compat.pack(fn(...))
  return os.clock() - t0, res
end

-- FUZZ_TIMES=1 in the environment: each import's CPU time to stderr (to
-- measure FUZZ_SLOWDOWN: fuzz/README.md)
local TIMES = os.getenv("FUZZ_TIMES")

local function within(what, dt)
  if TIMES then io.stderr:write(string.format("%s %.4f s\n", what, dt)) end
  local limit = M.budget.seconds * (rawget(_G, "FUZZ_SLOWDOWN") or 1)
  if dt > limit then bug("%s took %.3f s of CPU (budget %.3f s): a slow input", what, dt, limit) end
end

M.SEP = "\n--buffer--\n"

-- A glTF asset's bytes and its buffers' file (after M.SEP), decoded; a
-- few of its clips used, its meshes' buffers read.
local function gltf(text, meshes)
  local at = text:find(M.SEP, 1, true)
  local file = at and text:sub(at + #M.SEP)
  if at then text = text:sub(1, at - 1) end
  local function read() if file then return file end return nil, "no such file" end
  local dt, r = timed(must_not_raise, "anim.decode_gltf", anim.decode_gltf, text, NAME, { read = read, meshes = meshes })
  within("anim.decode_gltf", dt)
  local result = check_answer("anim.decode_gltf", r[1], r[2])
  if not result then return end
  if type(result.clips) ~= "table" or type(result.rigs) ~= "table" or type(result.warnings) ~= "table" then
    bug("anim.decode_gltf returned a result without clips, rigs and warnings")
  end
  local n = 0
  for _, c in pairs(result.clips) do
    n = n + 1
    if n > 4 then break end
    must_not_raise("using an imported glTF clip", use_clip, c, false)
  end
  for _, m in ipairs(result.meshes or {}) do
    for _, k in ipairs { "positions", "normals", "uvs", "joints", "weights", "indices" } do
      local b = m[k]
      if b then C.touch(#b, b[1], b[#b]) end
    end
  end
end

function M.run(data)
  local kind, text = data:byte(1) or 0, data:sub(2)
  if kind % 4 == 2 then return gltf(text, kind % 8 == 6) end
  if kind % 2 == 0 then
    local dt, r = timed(must_not_raise, "anim.decode_xml", anim.decode_xml, text, NAME)
    within("anim.decode_xml", dt)
    local clip = check_answer("anim.decode_xml", r[1], r[2])
    if clip then must_not_raise("using an imported XML clip", use_clip, clip, false) end
    return
  end
  local dt, r = timed(must_not_raise, "anim.decode_blockbench", anim.decode_blockbench, text, NAME)
  within("anim.decode_blockbench", dt)
  local clips = check_answer("anim.decode_blockbench", r[1], r[2])
  if clips then C.use_blockbench(clips, r[2]) end
end

return M
