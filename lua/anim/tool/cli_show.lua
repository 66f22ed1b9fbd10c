-- cli_show.lua: `anim sample`, `anim plot` and `anim sheet`: a clip's
-- offsets at a time, its curves and its poses drawn.
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local plot = require "anim.tool.plot"
local sheet = require "anim.tool.sheet"
local sheet2d = require "anim.tool.sheet2d"
local C = require "anim.tool.cli_common"
local svg = require "anim.tool.svg"
local fail, USAGE, INPUT, bold, out, shown, shown_list, write_output, one_clip, num, fixed =
  C.fail, C.USAGE, C.INPUT, C.bold, C.out, C.shown, C.shown_list, C.write_output, C.one_clip, C.num, C.fixed

-- The clips a picture draws: the one --animation names, else every clip of
-- the file (a page each), as { { name =, clip = }, ... }.
local function clips_to_draw(path, animation)
  local list, _, res = C.must_read(path)
  if animation then return { { name = animation, clip = C.pick(path, list, animation) } }, res end
  return list, res
end

-- A page's title: the file, and the animation when there are several or
-- one was picked.
local function page_title(path, e, several)
  return path .. ((several and e.name) and (" (" .. e.name .. ")") or "")
end

-- The pages as one SVG: a lone page as it is, several stacked.
local function pages_svg(path, pages)
  if #pages == 1 then return pages[1] end
  return svg.stack(pages, path .. " — " .. #pages .. " animations")
end

local verbs = {}


local function number_option(v, name)
  local x = tonumber(v)
  if not x or not E.finite(x) then fail(USAGE, "--%s needs a finite number, got '%s'", name, shown(v)) end
  return x
end

verbs.sample = {
  usage = "anim sample FILE --at T [--joint NAME] [--animation NAME]",
  options = { at = true, joint = true, animation = true },
  summary = "print the offsets of every joint at a time",
  help = [[
Prints, for each joint (or only --joint NAME), the offsets the clip gives at
clip time T seconds (not wrapped: before the first key a curve holds its
first value, after the last its last): position x y z (blocks), rotation as
a quaternion x y z w and as Euler angles in degrees in the clip's euler
order, and scale x y z.  A channel the joint does not animate shows "-".]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.at then fail(USAGE, "missing --at T") end
    local t = number_option(opt.at, "at")
    local c = one_clip(pos[1], opt.animation)
    local names = c:joints()
    if opt.joint then
      local found = false
      for _, n in ipairs(names) do found = found or n == opt.joint end
      if not found then
        fail(USAGE, "%s: no joint '%s' (its joints: %s)", shown(pos[1]), shown(opt.joint),
          #names > 0 and shown_list(names) or "none")
      end
      names = { opt.joint }
    end
    local euler = c.euler
    local pose = c:sample(t)
    out("# %s at t = %s s; position in blocks, rotation as a quaternion and as Euler %s degrees", pos[1], num(t), euler)
    local header = { "joint", "pos.x", "pos.y", "pos.z", "rot.x", "rot.y", "rot.z", "rot.w",
      "euler.x", "euler.y", "euler.z", "scale.x", "scale.y", "scale.z" }
    local rows = { header }
    for _, n in ipairs(names) do
      local p = pose[n] or {}
      local row = { n }
      local function add(v, k)
        for i = 1, k do row[#row + 1] = v and fixed(v[i]) or "-" end
      end
      add(p.position, 3)
      add(p.rotation, 4)
      add(p.rotation and C.euler_of(p.rotation, euler), 3)
      add(p.scale, 3)
      rows[#rows + 1] = row
    end
    local widths = {}
    for _, r in ipairs(rows) do
      for i, s in ipairs(r) do widths[i] = math.max(widths[i] or 0, #s) end
    end
    for ri, r in ipairs(rows) do
      local cells = {}
      for i, s in ipairs(r) do
        cells[i] = i == 1 and (s .. string.rep(" ", widths[i] - #s)) or (string.rep(" ", widths[i] - #s) .. s)
      end
      local line = table.concat(cells, "  ")
      out("%s", ri == 1 and bold(line) or line)
    end
    return 0
  end,
}

-- plot and sheet ---------------------------------------------------------------------------

verbs.plot = {
  usage = "anim plot FILE -o curves.svg [--joint NAME] [--animation NAME]",
  options = { output = true, joint = true, animation = true },
  summary = "draw the curves as an SVG graph",
  help = [[
Draws the clip's curves as a graph editor shows them, as an SVG picture:
one panel per joint channel (--joint NAME: only that joint's), the axes in
colours (x red, y green, z blue, quaternion w grey), Euler rotations as
their angle curves in degrees and quaternion rotations as their four
components, keys marked by interpolation (circle linear, square step,
diamond catmullrom, triangle bezier, inverted triangle easings), bezier
handles, and markers, events, sounds and plays as labelled vertical lines.
Property channels (a 2D skeleton's shears, slot colours, attachments,
deforms...) get a panel each, a curve per component (at most 32); --joint
NAME keeps that joint's properties (NAME.shear) too.
A file of several animations gives a page each, one under the other
(--animation NAME: only that one).  -o - writes the SVG to standard output.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local list = clips_to_draw(pos[1], opt.animation)
    local several = #list > 1 or opt.animation ~= nil
    local pages, left = {}, {}
    for _, e in ipairs(list) do
      local text, err = plot.render(e.clip, { joint = opt.joint, title = page_title(pos[1], e, several) })
      if text then pages[#pages + 1] = text else left[#left + 1] = { name = e.name, err = err } end
    end
    if #pages == 0 then fail(USAGE, "%s: %s", pos[1], left[1].err) end
    -- (a joint of --joint that some animations of several do not move)
    for _, l in ipairs(left) do
      io.stderr:write(string.format("anim plot: note: %s (%s): %s; left out\n", shown(pos[1]), shown(l.name or "?"), l.err))
    end
    write_output(opt.output, pages_svg(pos[1], pages))
    return 0
  end,
}

verbs.sheet = {
  usage = "anim sheet FILE [--rig player|skeleton] [--frames N] -o sheet.svg [--animation NAME]",
  options = { output = true, rig = true, frames = true, animation = true },
  summary = "draw the rig's pose at N times as an SVG contact sheet",
  help = [[
Plays the clip on a rig and draws its pose at N evenly spaced clip times
(default 8), each as a front view (x across, y up, the figure facing you)
and a side view (z across, facing right), labelled with the time.  The
rig is the clip's own skeleton when it has one (the clip's skeleton field;
the clips of a .bbmodel carry the file's groups, pivots and rotations),
drawn as its bones, a box from each joint to each child; else the
built-in blocky player, drawn as its body parts.  --rig player or --rig
skeleton picks one.  The times are length * i / N for a looping clip (the
end is the start again) and length * i / (N - 1) otherwise, so the last
frame is the end.  A file of several animations gives a sheet each, one
under the other (--animation NAME: only that one).  -o - writes the SVG
to standard output.

A 2D skeleton (Spine, DragonBones) is drawn on its own bones: at each
time its attachments in draw order, from their world outlines (regions'
corners, meshes' triangles and outline, bounding boxes and clipping
polygons dashed, points), and its bones as lines.]],
  run = function(pos, opt)
    if #pos ~= 1 then fail(USAGE, "expected one FILE, got %d arguments", #pos) end
    if not opt.output then fail(USAGE, "missing -o OUT.svg") end
    local rigname = opt.rig
    if rigname ~= nil and rigname ~= "player" and rigname ~= "skeleton" then
      fail(USAGE, "unknown rig '%s'%s (the rigs: player, skeleton)", shown(rigname),
        suggest.hint(rigname, { "player", "skeleton" }))
    end
    local frames = 8
    if opt.frames then
      frames = tonumber(opt.frames)
      if not frames or frames ~= math.floor(frames) or frames < 1 or frames > 200 then
        fail(USAGE, "--frames needs a whole number from 1 to 200, got '%s'", shown(opt.frames))
      end
    end
    local list, res = clips_to_draw(pos[1], opt.animation)
    local several = #list > 1 or opt.animation ~= nil
    local pages = {}
    if res and res.skeleton then
      -- a 2D skeleton: drawn on its own bones, from its attachments' outlines
      if rigname == "player" then fail(USAGE, "--rig player: %s is a 2D skeleton, drawn on its own bones", shown(pos[1])) end
      for _, e in ipairs(list) do
        pages[#pages + 1] = sheet2d.render(res.skeleton, e.clip, { frames = frames, title = page_title(pos[1], e, several) })
      end
      write_output(opt.output, pages_svg(pos[1], pages))
      return 0
    end
    for _, e in ipairs(list) do
      local c = e.clip
      local what = several and string.format("%s (%s)", shown(pos[1]), shown(e.name or "?")) or shown(pos[1])
      local rig, _, used, note = sheet.setup(c, rigname)
      if not rig then fail(INPUT, "%s: --rig skeleton: %s", what, note) end
      if note then io.stderr:write(string.format("anim sheet: note: %s: %s; drawn on the player rig\n", what, note)) end
      if #sheet.joints_on_rig(c, rig) == 0 then
        io.stderr:write(string.format("anim sheet: note: none of the joints of %s (%s) plays on the %s rig;" ..
          " the sheet shows its rest pose\n", what, shown_list(c:joints()), used))
      end
      pages[#pages + 1] = sheet.render(c, { frames = frames, rig = used, title = page_title(pos[1], e, several) })
    end
    write_output(opt.output, pages_svg(pos[1], pages))
    return 0
  end,
}

return verbs
