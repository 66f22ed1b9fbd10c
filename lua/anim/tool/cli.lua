-- cli.lua: the verbs of the `anim` command (bin/anim only finds the
-- modules and calls main).  docs/cli.md is the reference.
--
-- The pictures in docs/img are made by the command itself; to regenerate
-- them from the checkout (after `make build`), without make:
--   bin/anim plot  examples/clips/walk.anim -o docs/img/walk-curves.svg
--   bin/anim sheet examples/clips/walk.anim -o docs/img/walk-sheet.svg
--   bin/anim sheet spec/fixtures/spine/hero-4.2.json --animation walk --frames 4 -o docs/img/hero2d-sheet.svg
--
-- Exit status: 0 success, 1 bad input (a file that is missing or does not
-- load, a clip that cannot be written), 2 a wrong command line.
--
-- The verbs, a file each or two: cli_info.lua, cli_validate.lua,
-- cli_convert.lua, cli_compress.lua, cli_show.lua (sample, plot, sheet), cli_graph.lua (graph,
-- and .animgraph files for info and validate); what they share is
-- in cli_common.lua.  This file holds the help, the command line and main.
require("anim.base.luajit").no_traversal_traces()
local argparse = require "argparse"
local suggest = require "anim.base.suggest"
local C = require "anim.tool.cli_common"
local info = require "anim.tool.cli_info"
local validate = require "anim.tool.cli_validate"
local convert = require "anim.tool.cli_convert"
local compress = require "anim.tool.cli_compress"
local show = require "anim.tool.cli_show"
local graph = require "anim.tool.cli_graph"
local byteorder = require "anim.base.order"

local M = {}

local Exit, USAGE, fail, one_line, shown = C.Exit, C.USAGE, C.fail, C.one_line, C.shown

local verbs = {}
local ORDER = { "info", "validate", "convert", "compress", "sample", "plot", "sheet", "graph" }
for _, list in ipairs { info, validate, convert.verbs, compress.verbs, show, graph.verbs } do
  for name, v in pairs(list) do verbs[name] = v end
end

-- (for spec/cli_spec.lua: the names convert writes, Euler angles)
M.euler_of = C.euler_of
M.output_name, M.output_names = convert.output_name, convert.output_names

-- Help and the command line ----------------------------------------------------------------

local OPTION_HELP = {
  output = "-o, --output PATH", at = "--at T", joint = "--joint NAME", animation = "--animation NAME",
  rig = "--rig NAME", frames = "--frames N", strict = "--strict",
  error = "--error E", distance = "--distance D", exact = "--exact", level = "--level fast|best", report = "--report",
}

local function verb_help(name)
  local v = verbs[name]
  local lines = { "usage: " .. v.usage, "", v.help, "" }
  local opts = {}
  for k in pairs(v.options) do opts[#opts + 1] = OPTION_HELP[k] end
  for k in pairs(v.flags or {}) do opts[#opts + 1] = OPTION_HELP[k] end
  byteorder.sort(opts)
  opts[#opts + 1] = "-h, --help"
  lines[#lines + 1] = "options: " .. table.concat(opts, ", ")
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

local function main_help()
  local lines = { "usage: anim COMMAND [ARGS]", "", "Inspect, check, convert and draw animation clips (.anim," ..
    " legacy XML, Blockbench, glTF, Aseprite), 2D skeletons (Spine, DragonBones) and state machines" ..
    " (.animgraph).", "", "commands:" }
  for _, n in ipairs(ORDER) do lines[#lines + 1] = string.format("  %-9s %s", n, verbs[n].summary) end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "anim help COMMAND or anim COMMAND --help: the options of a command."
  lines[#lines + 1] = "exit status: 0 done, 1 bad input, 2 wrong command line"
  return table.concat(lines, "\n") .. "\n"
end

-- The command line is parsed by lua-argparse (Debian's lua-argparse),
-- which also suggests the nearest command or option for a misspelt one;
-- the usage, help texts and the one-line errors with their exit status
-- are this command's own (docs/cli.md).  Every option takes a value:
-- "--at 0.5", "--at=0.5", "-o out.svg"; "--" ends the options.
local SHORT = { output = "-o" }

-- (the parser of the one command asked for: M.main has checked its name;
-- a parser of all of them took an eighth of a small file's `anim convert`)
local function build_parser(name)
  local p = argparse("anim"):add_help(false):command_target("command")
  local v = verbs[name]
  local c = p:command(name):add_help(false)
  c:argument("args"):args("*")
  c:flag("-h --help")
  for opt in pairs(v.options) do
    c:option((SHORT[opt] and (SHORT[opt] .. " ") or "") .. "--" .. opt):args(1)
  end
  for flag in pairs(v.flags or {}) do c:flag("--" .. flag) end
  return p
end

-- A value that starts with "-" but is a number ("--at -0.5") is a value:
-- written as "--at=-0.5" for the parser, which would take it for an option.
local function join_negative(v, argv, first)
  local res, i = {}, first
  while i <= #argv do
    local a = argv[i]
    if a == "--" then
      for k = i, #argv do res[#res + 1] = argv[k] end
      break
    end
    local name = a:match("^%-%-([%w_]+)$") or (a == "-o" and "output")
    local nxt = argv[i + 1]
    if name and v.options[name] and nxt and nxt:match("^%-[%d.]") and tonumber(nxt) then
      res[#res + 1] = "--" .. name .. "=" .. nxt
      i = i + 2
    else
      res[#res + 1] = a
      i = i + 1
    end
  end
  return res
end

-- argparse's error as one line; an unknown option gets the suggestion of
-- lua/anim/base/suggest.lua (the module's one rule) among the verb's
-- options: "unknown option '--rigg'; did you mean '--rig'?".
local function one_error(msg, v)
  local first = msg:match("^([^\n]*)")
  first = first:gsub("^(option '[^']*') requires an argument$", "%1 needs a value")
  local bad = first:match("^unknown option '%-%-?([^'=]+)'$")
  if bad then
    local names = { "help" }
    for o in pairs(v.options) do names[#names + 1] = o end
    for f in pairs(v.flags or {}) do names[#names + 1] = f end
    byteorder.sort(names)
    local s = suggest.closest(bad, names)
    if s then return first .. "; did you mean '--" .. s .. "'?" end
  end
  return first
end

-- Splits argv (from index `first`) into positional arguments and options
-- for verb `name`.
local function parse(name, argv, first)
  local v = verbs[name]
  local args = { name }
  for _, a in ipairs(join_negative(v, argv, first)) do args[#args + 1] = a end
  local ok, res = build_parser(name):pparse(args)
  if not ok then fail(USAGE, "%s", one_error(res, v)) end
  local opt = { help = res.help or nil }
  for o in pairs(v.options) do opt[o] = res[o] end
  for f in pairs(v.flags or {}) do opt[f] = res[f] or nil end
  return res.args or {}, opt
end

-- main(argv) -> exit status.
function M.main(argv)
  local verb_name
  -- a bug (not an Exit) keeps its traceback for the report
  local ok, res = xpcall(function()
    local first = argv[1]
    if first == nil then
      io.stderr:write(main_help()) -- a usage error: no command
      return USAGE
    end
    if first == "-h" or first == "--help" then
      io.stdout:write(main_help())
      return 0
    end
    if first == "help" then
      local n = argv[2]
      if n == nil then io.stdout:write(main_help()) return 0 end
      if not verbs[n] then
        fail(USAGE, "unknown command '%s'%s (the commands: %s)", shown(n), suggest.hint(n, ORDER), table.concat(ORDER, ", "))
      end
      io.stdout:write(verb_help(n))
      return 0
    end
    if not verbs[first] then
      fail(USAGE, "unknown command '%s'%s (the commands: %s; see anim --help)", shown(first),
        suggest.hint(first, ORDER), table.concat(ORDER, ", "))
    end
    verb_name = first
    local pos, opt = parse(first, argv, 2)
    if opt.help then io.stdout:write(verb_help(first)) return 0 end
    return verbs[first].run(pos, opt)
  end, function(e)
    if getmetatable(e) == Exit then return e end
    return debug.traceback(tostring(e), 2)
  end)
  if ok then return res end
  if getmetatable(res) ~= Exit then error(res, 0) end
  local who = verb_name and ("anim " .. verb_name) or "anim"
  local hint = res.code == USAGE and verb_name and string.format(" (see anim %s --help)", verb_name) or ""
  io.stderr:write(string.format("%s: %s%s\n", who, one_line(res.msg), hint))
  return res.code
end

return M
