-- cli_validate.lua: `anim validate`: every file given, or found under a
-- folder, loaded and checked, one line per problem.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local clipmod = require "anim.format.clip"
local compat = require "anim.base.compat"
local bind = require "anim.format.bind"
local rigmod = require "anim.format.rig"
local E = require "anim.base.errors"
local C = require "anim.tool.cli_common"
local graph = require "anim.tool.cli_graph"
local byteorder = require "anim.base.order"
local fail, USAGE, out, quote, one_line, shown, kind_of, peek, read_clips, count =
  C.fail, C.USAGE, C.out, C.quote, C.one_line, C.shown, C.kind_of, C.peek, C.read_clips, C.count

local IMPORTER, FORMAT_NAME, kind_by_name = C.IMPORTER, C.FORMAT_NAME, C.kind_by_name

local verbs = {}


-- Whether a directory walk checks this file: every *.anim, *.xml,
-- *.bbmodel, *.animation.json, *.ajblueprint and *.ajmodel, and the other
-- *.json files whose content is one of the formats (a pack's
-- manifest.json is not a clip file), when an importer of this anim reads it.
-- Whether a directory walk checks this file, and when not, why.
local function wanted(path)
  if path:match("%.anim$") or path:match("%.retarget$") or graph.is_graph(path) then return true end
  local text = peek(path)
  local kind, by_content, which = kind_of(path, text or "")
  if not text then return false, "cannot be read" end
  local lower = path:lower()
  if which == "texture" then return false, "a DragonBones texture atlas (checked with the skeleton beside it)" end
  if lower:match("%.atlas$") then return false, "a texture atlas (a Spine skeleton's is checked with it)" end
  if by_content then
    if kind == "anim" or kind == "retarget" then return true end
    if anim[IMPORTER[kind]] == nil then return false, "a " .. FORMAT_NAME[kind] .. " file, and this anim cannot import them" end
    return true
  end
  -- names that claim a format are checked whatever they hold
  if lower:match("%.xml$") or lower:match("%.bbmodel$") or lower:match("%.ajblueprint$") or lower:match("%.ajmodel$")
    or lower:match("%.animations?%.json$") then
    local by_name = kind_by_name(path)
    if anim[IMPORTER[by_name]] == nil then
      return false, "a " .. FORMAT_NAME[by_name] .. " file, and this anim cannot import them"
    end
    return true
  end
  if lower:match("%.json$") then
    return false, "JSON, but neither a clip, a retarget map, a Blockbench or Bedrock file nor an Aseprite sheet"
  end
  return false, "not a clip file (" .. (lower:match("%.([%w]+)$") and ("." .. lower:match("%.([%w]+)$")) or "no extension") .. ")"
end

-- Files under dir, sorted byte-wise (C.find).  A link that leads
-- nowhere is still type l, and is listed so that it is reported as a
-- file that cannot be opened.
local function files_under(dir)
  local list, skipped = {}, {}
  for _, f in ipairs(C.find(dir, "\\( -type f -o -type l \\)")) do
    local ok, why = wanted(f)
    if ok then list[#list + 1] = f else skipped[#skipped + 1] = { path = f, why = why } end
  end
  byteorder.sort(list)
  table.sort(skipped, function(a, b) return byteorder.less(a.path, b.path) end)
  return list, skipped
end

-- The rig `anim validate --rig` checks the clips against: "player", or
-- the skeleton of a file's first clip that has one (a .bbmodel).
local function rig_for(name)
  if name == "player" then return anim.rig("player"), "player" end
  local list = read_clips(name)
  if list then
    for _, e in ipairs(list) do
      local sk = e.clip and clipmod.info(e.clip).skeleton
      if sk and next(sk) ~= nil then
        local rig = E.catch(name, rigmod.from_skeleton, sk, name)
        if rig then return rig, name end
      end
    end
  end
  fail(USAGE, "--rig: '%s' is neither player nor a file whose clips have a skeleton", shown(name))
end

verbs.validate = {
  usage = "anim validate FILE|DIR... [--strict] [--rig player|FILE]",
  options = { rig = true },
  flags = { strict = true },
  summary = "check clips, one line per problem",
  help = [[
Loads every FILE, and every clip file under every DIR (recursively: *.anim,
*.retarget, and the *.xml, *.json, *.bbmodel, *.ajblueprint and *.ajmodel
files -- Aseprite sheets' JSON too -- whose content is a format an importer here reads, told apart by
their content), and prints one line per file that does not load, one per
warning of an import (an animation it could not import, a value it read
otherwise than the game, a field, element or attribute of a Bedrock,
Blockbench or XML file that the format does not know), and one per field
of a .anim or .retarget file that the format does not know (kept by the
loaders; a misspelt field or element gets a suggestion):

  path: json.path: message

on standard output, then the files a DIR held that are not clip files,
each with why, and a count, on standard error.  --rig player (or --rig
FILE: the skeleton of a .bbmodel's clips) also lists, per clip, the joints
that play on no joint of that rig, with the closest name.  The status is 0
when every file loads with all its animations (warnings do not change it,
unless --strict: then any warning is a problem too), 1 otherwise.  A path
that does not exist is a problem of its own ("path: cannot open file:
...").  Symbolic links to folders and files are followed.  Control
characters in a line (a newline in a name) are written \n, \r, \t or
\ddd, so that each problem is one line.

A 2D skeleton (DragonBones _ske.json, Spine JSON) is read with the texture
atlas beside it; in a DIR, a DragonBones texture atlas is skipped (it is
checked with its skeleton).

A state machine file (*.animgraph, in a DIR too) is read whole: the first
error of the file (path: json.path: message, with a suggestion for a
misspelt name), else one line per clip it names that is not found beside
it (a name `walk` or `res://walk.anim` is the file walk.anim of the graph's
folder) or does not load, and one per warning (states no transition
reaches, transitions that fire at once, triggers and parameters nothing
uses, cycles of instant transitions...).  Clips not found are problems;
warnings are problems only with --strict.]],
  run = function(pos, opt)
    if #pos == 0 then fail(USAGE, "expected at least one FILE or DIR") end
    local rig, rigname
    if opt.rig then rig, rigname = rig_for(opt.rig) end
    local files, bad, nwarn, nskip = 0, 0, 0, 0
    local function check(path)
      files = files + 1
      if graph.is_graph(path) then
        local problem, n = graph.validate(path, opt.strict)
        nwarn = nwarn + n
        if problem then bad = bad + 1 end
        return
      end
      local list, warnings = read_clips(path)
      if not list then
        bad = bad + 1
        out("%s", one_line(warnings))
        return
      end
      local any = #list == 0
      if #list == 0 and #warnings == 0 then out("%s", one_line(path .. ": no animations in the file")) end
      for _, w in ipairs(warnings) do
        out("%s", one_line(w.text))
        nwarn = nwarn + 1
        any = any or w.not_imported or opt.strict
      end
      if rig then
        for _, e in ipairs(list) do
          if e.clip then
            for _, u in ipairs(bind.unmatched(e.clip, rig)) do
              out("%s", one_line(string.format("%s: %sjoints.%s: plays on no joint of rig '%s'%s", shown(path),
                e.name and ("animation " .. shown(e.name) .. ": ") or "", shown(u.joint), shown(rigname),
                u.suggestion and (" (did you mean '" .. shown(u.suggestion) .. "'?)") or "")))
              nwarn = nwarn + 1
              any = any or opt.strict
            end
          end
        end
      end
      if any then bad = bad + 1 end
    end
    for _, p in ipairs(pos) do
      if compat.execute("test -d " .. quote(p)) then
        local list, skipped = files_under(p)
        if #list == 0 then io.stderr:write("anim validate: ", one_line(p), ": no clip files in it\n") end
        for _, f in ipairs(list) do check(f) end
        for _, sk in ipairs(skipped) do
          io.stderr:write("anim validate: skipped ", one_line(sk.path), ": ", sk.why, "\n")
          nskip = nskip + 1
        end
      else
        check(p)
      end
    end
    io.stderr:write(string.format("anim validate: %s checked, %s%s%s\n", count(files, "file"),
      bad == 0 and "all good" or (count(bad, "file") .. " with problems"),
      nwarn > 0 and (" (" .. count(nwarn, "warning") .. ")") or "",
      nskip > 0 and (", " .. count(nskip, "file") .. " skipped") or ""))
    return bad == 0 and 0 or 1
  end,
}

return verbs
