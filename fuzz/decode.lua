-- fuzz/decode.lua: the driver of the fuzz_decode target (and of the replay
-- of its regression inputs in spec/fuzz_regressions_spec.lua).
--
-- run(bytes) hands the bytes to every loader of text: anim.decode,
-- anim.decode_retarget, anim.decode_xml and anim.decode_blockbench (and a
-- small decoded clip to anim.compress).  Each
-- must return a whole object or `nil, message` with a message that names the
-- source; raising is a bug (docs/api.md: "Loading functions never raise for
-- bad input").  What loads is then used: sampled at odd times, encoded and
-- decoded again, played on an animator, used as a retarget map.  Anything
-- that breaks a documented contract raises an error starting "BUG"; the C
-- harness aborts on it so that libFuzzer keeps the input.  Running out of
-- memory ("not enough memory") is not a bug.
local anim = require "anim"
local C = require "fuzz.common"
local E = require "anim.base.errors"
local animc = require "anim.format.animc"

local M = {}

M.COMPRESS_BYTES = 2048 -- decoded clips of texts up to this long are compressed too

local NAME = C.NAME
local player = anim.rig("player")
local bug, must_not_raise, check_answer, use_clip = C.bug, C.must_not_raise, C.check_answer, C.use_clip
local use_graph

-- A retarget map that decodes is used to play a clip.
local function use_map(map)
  C.touch(map.joints, map.scale, map.name)
  local walk = M.walk
  walk:bindings(player, map)
  local a = anim.animator(player, { warn = false })
  -- (a map that puts none of the clip's joints on the rig: play refuses
  -- the clip, as it says)
  local ok, err = pcall(a.play, a, walk, { retarget = map, fade = 0 })
  if not ok then
    if C.plays_on_nothing(err) then return end
    error(err, 0)
  end
  a:update(0.3)
  local px, _, _, qx = a:get("rightArm")
  if px ~= px or qx ~= qx then bug("NaN in a pose played through a decoded retarget map") end
end

-- A graph that decodes controls an animator: its parameters set, its
-- triggers fired, updates of several sizes, a travel and a force to each
-- state, its state saved and restored.
use_graph = function(g)
  local a = anim.animator(player, { warn = false })
  local ok, c = pcall(a.control, a, g)
  if not ok then
    if C.plays_on_nothing(c) or tostring(c):find("mask", 1, true) then return end
    error(c, 0)
  end
  for _, p in ipairs(g:parameters()) do
    if p.type == "trigger" then c:fire(p.name, { buffer = 0.05 })
    elseif p.type == "bool" then c:set(p.name, true)
    else c:set(p.name, 1) end
  end
  for _, dt in ipairs { 0, 1 / 60, 0.37, 2.5 } do a:update(dt) end
  for _, layer in ipairs(g:layers()) do
    for _, s in ipairs(g:states(layer)) do
      pcall(c.travel, c, s, layer, { teleport = true })
      a:update(0.1)
      c:force(s, layer, 0.05)
      a:update(0.03)
    end
  end
  local saved = a:state()
  local b = anim.animator(player, { warn = false })
  assert(b:restore(saved, function(_, kind) if kind == "graph" then return g end return M.walk end))
  for _ = 1, 3 do
    a:update(0.05)
    b:update(0.05)
    local pa, pb = { a:get("rightArm") }, { b:get("rightArm") }
    for i = 1, #pa do if pa[i] ~= pb[i] and pa[i] == pa[i] then bug("a restored controller's pose differs") end end
  end
end

-- A small decoded clip compressed ("fast"): a compressed clip, or nil and
-- a message of anim.compress's; used, and its .animc bytes read back to
-- the same bytes.
local function compress(clip)
  local cc, msg = anim.compress(clip, { level = "fast" })
  if cc == nil then
    if type(msg) ~= "string" or msg:sub(1, 15) ~= "anim.compress: " then
      bug("anim.compress returned nil without its message: %s", tostring(msg):sub(1, 300))
    end
    return
  end
  local f = cc:compression()
  for _, k in ipairs { "worst", "p99", "error", "distance", "bytes", "ratio", "tick" } do
    if type(f[k]) ~= "number" or f[k] ~= f[k] then bug("compression().%s is %s", k, tostring(f[k])) end
  end
  use_clip(cc, false)
  local bytes = animc.bytes(cc)
  local again = E.catch(NAME, animc.decode, bytes, NAME)
  if not again then bug("the .animc bytes of a compressed clip do not read back") end
  if animc.bytes(again) ~= bytes then bug("a compressed clip's .animc bytes read back written otherwise") end
end

function M.run(data)
  local clip = check_answer("anim.decode", must_not_raise("anim.decode", anim.decode, data, NAME))
  if clip then must_not_raise("using a decoded clip", use_clip, clip, true) end
  -- (compressing takes milliseconds a small clip: the small ones)
  if clip and #data <= M.COMPRESS_BYTES and clip.length <= 60 then
    must_not_raise("compressing a decoded clip", compress, clip)
  end

  local map = check_answer("anim.decode_retarget", must_not_raise("anim.decode_retarget", anim.decode_retarget, data, NAME))
  if map then must_not_raise("using a decoded retarget map", use_map, map) end

  local xclip = check_answer("anim.decode_xml", must_not_raise("anim.decode_xml", anim.decode_xml, data, NAME))
  if xclip then must_not_raise("using an imported XML clip", use_clip, xclip, false) end

  local bbs, warnings = must_not_raise("anim.decode_blockbench", anim.decode_blockbench, data, NAME)
  local bb = check_answer("anim.decode_blockbench", bbs, warnings)
  if bb then C.use_blockbench(bb, warnings) end

  -- a state machine: any clip name resolves (to the walk clip), and a graph
  -- that decodes runs a few updates with its parameters set and fired
  if data:find("^%s*{") then
    local g = check_answer("anim.graph", must_not_raise("anim.graph", anim.graph, data, function() return M.walk end, NAME))
    if g then must_not_raise("running a decoded graph", use_graph, g) end
  end
end

M.walk = assert(anim.decode([==[{"version":3,"length":1,"loop":"loop","joints":{
  "rightArm":{"rotation":[[0,[-20,0,0],"sine"],[0.5,[20,0,0]],[1,[-20,0,0]]]},
  "torso":{"position":[[0,[0,0,0]],[0.5,[0,0.1,0]],[1,[0,0,0]]]}}}]==], "walk"))

return M
