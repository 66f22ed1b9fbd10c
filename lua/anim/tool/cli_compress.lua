-- cli_compress.lua: `anim compress`: any readable clip compressed
-- (anim.compress) and written as an .animc file; --report gives its figures.
local anim = require "anim"
local C = require "anim.tool.cli_common"
local convert = require "anim.tool.cli_convert"
local fail, USAGE, INPUT, shown, must_read, pick = C.fail, C.USAGE, C.INPUT, C.shown, C.must_read, C.pick
local size = C.file_size

local M = {}
local verbs = {}
M.verbs = verbs

-- The options of anim.compress from the command line.
-- (--error and --distance: convert's checks)
local function options(opt)
  local o = convert.reduce_options(opt)
  if opt.level then
    if opt.level ~= "fast" and opt.level ~= "best" then
      fail(USAGE, "--level must be fast or best, got '%s'", shown(opt.level))
    end
    o.level = opt.level
  end
  return o
end

-- OUT for each of a file's animations: the name put before .animc, as
-- convert puts it before .anim.
local function output_names(outp, names)
  local stem = outp:match("^(.*)%.animc$") or outp
  local paths = convert.output_names(stem .. ".anim", names)
  for i, p in ipairs(paths) do paths[i] = p .. "c" end
  return paths
end

-- The report of one clip written (--report): on standard output.
local function report(c, name, src, out)
  local f = c:compression()
  io.stdout:write(string.format("%s: clip %s\n", out, shown(name)))
  io.stdout:write(string.format("  bytes: %d raw (10 float32 a joint at each of the densest channel's key times), "
    .. "%d compressed, ratio %.2f:1\n", f.bytes_raw, f.bytes, f.ratio))
  io.stdout:write(string.format("  files: %s %d bytes, %s %d bytes\n", src, size(src) or 0, out, size(out) or 0))
  io.stdout:write(string.format("  error on the rig's joints: worst %.3g, 99th percentile %.3g (the bound %.3g at distance %.3g)\n",
    f.worst, f.p99, f.error, f.distance))
end

verbs.compress = {
  usage = "anim compress IN -o OUT.animc [--animation NAME] [--error E] [--distance D] [--level fast|best] [--report]",
  options = { output = true, animation = true, error = true, distance = true, level = true },
  flags = { report = true },
  summary = "write a clip compressed within an error bound, as an .animc file",
  help = [[
Reads IN (any clip convert reads) and writes it compressed (anim.compress)
as an .animc file, atomically: its joints' channels as linear keys at
frames, quantised (about 6 bytes a key), within an error bound: the
largest distance, in model space, between where the clip and the
compressed one put points --distance from every joint (the six points on
the joint's axes), at every frame and halfway between.  --error and
--distance are in the rig's units (the clip's skeleton, or the player
rig); by default 0.001 and 0.1 times the rig's rest-pose extent over 1.7.
Markers, events, sounds, plays and property channels are kept exactly.
--level fast tightens the reduction fewer times than best (the default).
A file of several animations writes each to OUT with its name put before
.animc (as convert does), or --animation NAME to OUT itself.

--report prints, for each clip, the bytes raw (10 float32 numbers a joint
at every key time of the densest channel, as ozz-animation and ACL count)
and compressed, the ratio, the sizes of IN and OUT, and the worst and
99th-percentile errors measured on the rig's joints.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one input file, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.animc") end
    if not opt.output:lower():match("%.animc$") then fail(USAGE, "OUT must end in .animc, got '%s'", shown(opt.output)) end
    local o = options(opt)
    local list = must_read(pos[1])
    local jobs = {}
    if opt.animation or #list == 1 then
      jobs[1] = { clip = pick(pos[1], list, opt.animation), out = opt.output }
    else
      local names = {}
      for i, e in ipairs(list) do names[i] = e.name end
      local paths = output_names(opt.output, names)
      for i, e in ipairs(list) do jobs[i] = { clip = e.clip, out = paths[i] } end
    end
    for _, j in ipairs(jobs) do
      local cc, err = anim.compress(j.clip, o)
      if not cc then fail(INPUT, "%s", err) end
      local ok, werr = anim.save(cc, j.out)
      if not ok then fail(INPUT, "%s", werr) end
      io.stderr:write(string.format("anim compress: %s -> %s\n", pos[1], j.out))
      local f = cc:compression()
      if f.worst > f.error then
        io.stderr:write(string.format("anim compress: %s: the bound is not held: the worst error %.3g is above %.3g\n",
          j.out, f.worst, f.error))
      end
      if opt.report then report(cc, j.clip.name, pos[1], j.out) end
    end
    return 0
  end,
}

return M
