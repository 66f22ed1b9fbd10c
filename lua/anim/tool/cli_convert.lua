-- cli_convert.lua: `anim convert`: any readable clip written as a version
-- 3 .anim (one file per animation), or clips as glTF.
local anim = require "anim"
local clipmod = require "anim.format.clip"
local compat = require "anim.base.compat"
local C = require "anim.tool.cli_common"
local reduce_clip = require "anim.export.gltf.reduce_clip"
local skeleton = require "anim.tool.cli_skeleton"
local fail, USAGE, INPUT, quote, one_line, shown, must_read, pick =
  C.fail, C.USAGE, C.INPUT, C.quote, C.one_line, C.shown, C.must_read, C.pick

local M = {}
local verbs = {}
M.verbs = verbs


-- OUT with an animation name inserted before its .anim ("knight.anim" and
-- "walk" give "knight.walk.anim"); characters a file name should not hold
-- become "_".  `suffix` (a number) is added to the name: "knight.walk-2.anim".
function M.output_name(outp, name, suffix)
  local safe = name:gsub("[^%w%._%-]", "_")
  if suffix then safe = safe .. "-" .. suffix end
  local stem = outp:match("^(.*)%.anim$")
  if stem then return stem .. "." .. safe .. ".anim" end
  return outp .. "." .. safe .. ".anim"
end

-- The output file of each of `names` (in the order given, byte order of
-- the names), all different: names that give the same file name -- after
-- the "_" rule, and ignoring case, as a case-insensitive file system would
-- -- keep it for the first of them; each later one gets "-2", "-3", ...,
-- the first number whose file no other animation has.
function M.output_names(outp, names)
  local taken, paths = {}, {}
  for _, n in ipairs(names) do
    local k = M.output_name(outp, n):lower()
    taken[k] = (taken[k] or 0) + 1
  end
  local used = {}
  for i, n in ipairs(names) do
    local path = M.output_name(outp, n)
    if used[path:lower()] then
      local k = 2
      while taken[M.output_name(outp, n, k):lower()] or used[M.output_name(outp, n, k):lower()] do k = k + 1 end
      path = M.output_name(outp, n, k)
    end
    used[path:lower()] = true
    paths[i] = path
  end
  return paths
end

-- Is path a glTF file to write?
local function gltf_out(path)
  local lower = path:lower()
  return lower:match("%.gltf$") ~= nil or lower:match("%.glb$") ~= nil
end

-- Writes clips (a list) as one glTF file: the node tree of their skeletons
-- when they have one, else the built-in player rig's.
-- The reduction options of the command line: { error, distance, reduce }.
local function reduce_options(opt)
  local o = {}
  for _, k in ipairs { "error", "distance" } do
    if opt[k] then
      local v = tonumber(opt[k])
      if not v or not (v > 0 and v < math.huge) then fail(USAGE, "--%s must be a number above 0, got '%s'", k, shown(opt[k])) end
      o[k] = v
    end
  end
  if opt.exact then o.reduce = false end
  return o
end
M.reduce_options = reduce_options

-- The line a reduction is reported by.
local function reduced_text(r)
  if r.skipped then return r.skipped end
  return string.format("reduced %d keys to %d, the largest error %.3g (the bound %.3g at distance %.3g)", r.before,
    r.after, r.error, r.bound, r.distance)
end

local function export_gltf(clips, path, src_label, ropts, rig)
  local has_skeleton = rig ~= nil
  for _, c in ipairs(clips) do
    if clipmod.info(c).skeleton then has_skeleton = true end
  end
  if not has_skeleton then rig = anim.rig("player") end
  local approx, err
  if rig then approx, err = anim.export_gltf(clips, rig, path, ropts) else approx, err = anim.export_gltf(clips, path, ropts) end
  if not approx then fail(INPUT, "%s", err) end
  io.stderr:write(string.format("anim convert: %s -> %s\n", src_label, path))
  for _, r in ipairs(approx.reduced or {}) do
    io.stderr:write(string.format("anim convert: %s: clip %s: %s\n", shown(path), shown(r.clip), reduced_text(r)))
  end
  for _, a in ipairs(approx) do
    io.stderr:write(string.format("anim convert: %s: clip %s, joint %s, %s: approximated within %.3g %s\n", shown(path),
      shown(a.clip), shown(a.joint), a.channel, a.error, a.channel == "rotation" and "radians" or a.channel == "position" and "units" or ""))
  end
end

-- The clip with its dense channels reduced (reduce_clip.lua), on the node
-- tree export_gltf would write it on; and the report, or nil.
local function reduced(c, ropts, rig)
  if ropts.reduce == false then return c end
  rig = rig or (not clipmod.info(c).skeleton and anim.rig("player") or nil)
  local ok, c2, report = pcall(reduce_clip.reduce, c, rig, ropts)
  if not ok then fail(INPUT, "%s", tostring(c2)) end
  return c2, report
end

local function save_one(c0, path, src_label, ropts, rig)
  local c, report = reduced(c0, ropts, rig)
  local import_approx = clipmod.info(c0).approx
  if path == "-" then
    local text, approx = anim.encode(c, { version = 3 })
    if not text then fail(INPUT, "%s", approx) end
    io.stdout:write(text)
    if report then io.stderr:write(string.format("anim convert: -: %s\n", reduced_text(report))) end
    return approx or import_approx
  end
  -- the folders of OUT are made when missing (mkdir -p)
  local dir = path:match("^(.*)/[^/]*$")
  if dir and dir ~= "" and not compat.execute("test -d " .. quote(dir)) then
    if not compat.execute("mkdir -p " .. quote(dir) .. " 2>/dev/null") then
      fail(INPUT, "cannot write %s: cannot make the folder %s", shown(path), shown(dir))
    end
  end
  local ok, approx = anim.save(c, path, { version = 3 })
  if not ok then fail(INPUT, "%s", approx) end
  io.stderr:write(string.format("anim convert: %s -> %s\n", src_label, path))
  if report then io.stderr:write(string.format("anim convert: %s: %s\n", path, reduced_text(report))) end
  return approx or import_approx
end

verbs.convert = {
  usage = "anim convert IN -o OUT.anim|OUT.gltf|OUT.glb [--animation NAME] [--error E] [--distance D] [--exact]",
  options = { output = true, animation = true, error = true, distance = true },
  flags = { exact = true },
  summary = "write any readable clip as a version 3 .anim, or clips as glTF",
  help = [[
Reads IN (a .anim file of any version, a legacy .xml animation, a
Blockbench, Animated Java, Bedrock or GeckoLib file, or an Aseprite sheet's
JSON, told apart by their content) and writes it as a version 3
.anim file, atomically (a temporary file renamed over OUT).  -o - writes the
JSON to standard output.

A Blockbench file holds several animations: each is written to its own
file, OUT with the animation's name inserted before .anim (-o knight.anim
writes knight.walk.anim, knight.idle.anim, ...; characters other than
letters, digits, '.', '_' and '-' in the name become '_').  Names that
give the same file (ignoring case: "walk fast", "walk/fast", "Walk_fast")
are told apart in byte order of the names: the first keeps the file, the
others get -2, -3, ... ("knight.walk_fast-2.anim").  --animation NAME
writes only that animation, to OUT itself; so is the animation of a file
that holds one.

When the version 3 file can only approximate what IN says (some imports),
the note and its bound are printed on standard error; so is each warning of
the import (path: json.path: message); the status stays 0.
A version 1 clip that version 3 cannot hold (pose weights that vary) is an
error.  A 2D skeleton's (DragonBones, Spine) clips are written with their
bone and property channels; its slots, skins, attachments and constraints,
which no .anim or glTF file holds, are named on standard error.

IN may be a glTF file (.gltf, .glb): each animation becomes a .anim file
as a Blockbench file's do.  OUT ending in .gltf or .glb writes every clip
of IN (or --animation NAME) as the animations of one glTF file
(anim.export_gltf): the node tree of the clips' skeletons, or the built-in
player rig's when they have none; each curve glTF cannot hold exactly is
baked at 60 fps and reported on standard error with the largest
difference found.

Dense channels (baked, or linear keys many a second: an import's bake of
Molang or easings, a glTF's sampled motion) are reduced to the fewest of
their keys whose clip stays within an error bound: the largest distance,
in model space, between where the original and the written clip put
points --distance from every joint (the six points on the joint's axes),
at every key time and halfway between.  --error and --distance are in the
rig's units; by default 0.001 and 0.1 times the rig's rest-pose extent
over 1.7.  Each reduced clip is reported on standard error (keys before
and after, the largest error measured).  --exact writes every key.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one input file, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.anim") end
    local list, warnings, res = must_read(pos[1])
    for _, w in ipairs(warnings) do
      if not opt.animation or w.animation == nil or w.animation == opt.animation then
        io.stderr:write("anim convert: ", one_line(w.text), "\n")
      end
    end
    -- a 2D skeleton: its clips play on its rig (a joint per bone); the rest
    -- of the skeleton is in no .anim or glTF file: said, by name
    local rig = res and res.rig
    if res and res.skeleton then
      local left = skeleton.left_out(res.description or res.skeleton)
      if left ~= "" then
        io.stderr:write(string.format("anim convert: %s: the skeleton's %s are not in a%s file (the clips keep their"
          .. " bones' channels and property channels)\n", shown(pos[1]), left,
          (opt.output ~= "-" and gltf_out(opt.output)) and " glTF" or " .anim"))
      end
    end
    local jobs = {}
    local ropts = reduce_options(opt)
    if opt.output ~= "-" and gltf_out(opt.output) then
      local clips = {}
      if opt.animation then clips[1] = pick(pos[1], list, opt.animation)
      else for i, e in ipairs(list) do clips[i] = e.clip end end
      export_gltf(clips, opt.output, pos[1], ropts, rig)
      return 0
    end
    -- a file of one animation (none other left out by the import) is
    -- written to OUT itself, as a clip is
    local one = #list == 1
    for _, w in ipairs(warnings) do
      if w.not_imported then one = false end
    end
    if opt.animation or not list[1].name or opt.output == "-" or one then
      -- one clip to OUT itself (standard output takes one file only)
      jobs[1] = { clip = pick(pos[1], list, opt.animation), out = opt.output }
    else
      local names = {}
      for i, e in ipairs(list) do names[i] = e.name end
      local paths = M.output_names(opt.output, names)
      for i, e in ipairs(list) do jobs[i] = { clip = e.clip, out = paths[i] } end
    end
    for _, j in ipairs(jobs) do
      local approx = save_one(j.clip, j.out, pos[1], ropts, rig)
      if approx then
        io.stderr:write(string.format("anim convert: %s: %s: %s\n", j.out, C.approx_text(approx), approx.note))
      end
    end
    return 0
  end,
}

return M
