-- scripts/api_index.lua: prints the lines of docs/api.md's "Quick reference":
-- every function of `require "anim"` and every method of its objects,
-- each with its signature and a link to the section that says it (the
-- heading naming it, else the first place that does).  spec/api_index_spec.lua
-- fails when one is missing; paste the output between "## Quick reference"
-- and "## Conventions" (two long signatures are then written by hand).
--   LUA_PATH="lua/?.lua;lua/?/init.lua;;" LUA_CPATH="build/?.so;;" lua5.4 scripts/api_index.lua
local anim = require "anim"
local doc = io.open("docs/api.md"):read("a")
doc = doc:gsub("\n## Quick reference\n.-\n## Conventions\n", "\n## Conventions\n")
local function slug(h)
  local s = h:lower():gsub("`", "")
  s = s:gsub("[^%w%s%-_\128-\255]", ""):gsub("%s", "-")
  return s
end
-- headings with their positions
local heads, seen = {}, {}
local pos = 1
for line in (doc .. "\n"):gmatch("([^\n]*)\n") do
  local h = line:match("^#+%s+(.-)%s*$")
  if h then
    local s, n = slug(h), 0
    while seen[s .. (n > 0 and ("-" .. n) or "")] do n = n + 1 end
    s = s .. (n > 0 and ("-" .. n) or "")
    seen[s] = true
    heads[#heads + 1] = { at = pos, anchor = s, title = h }
  end
  pos = pos + #line + 1
end
local function section_of(at)
  local best
  for _, h in ipairs(heads) do if h.at <= at then best = h end end
  return best
end
local groups = {
  { "anim", anim, "." , "anim", "`anim` (what `require \"anim\"` returns)" },
  { "clip", require("anim.format.clip").methods, ":", "clip", "clips" },
  { "rig", require("anim.format.rig").methods, ":", "rig", "rigs" },
  { "animator", require("anim.runtime.animator").methods, ":", "animator", "animators" },
  { "track", require("anim.runtime.animator").track_methods, ":", "track", "tracks" },
  { "space", require("anim.runtime.blendspace").methods, ":", "space", "blend spaces" },
  { "handle", require("anim.runtime.override").methods, ":", "handle", "override handles" },
  { "constraint", require("anim.runtime.ik").methods, ":", "c", "constraints" },
  { "library", require("anim.runtime.library").methods, ":", "library", "libraries" },
  { "graph", require("anim.runtime.graph").methods, ":", "graph", "state machines' graphs" },
  { "controller", require("anim.runtime.controller").methods, ":", "controller", "controllers" },
}
local out = {}
for _, g in ipairs(groups) do
  local names = {}
  for k, v in pairs(g[2]) do if type(v) == "function" and not k:match("^_") then names[#names + 1] = k end end
  table.sort(names)
  out[#out + 1] = ""
  out[#out + 1] = "**" .. g[5] .. "**"
  out[#out + 1] = ""
  for _, n in ipairs(names) do
    local full = g[4] .. g[3] .. n
    local plain = full:gsub("%p", "%%%0")
    local h
    for _, x in ipairs(heads) do if not h and x.title:find(plain .. "[%({:]") then h = x end end
    local at = doc:find("`" .. plain .. "[%({]") or doc:find(plain .. "[%({]") or doc:find(plain .. "[^%w_]")
    local sig = h and h.title:match("`(" .. plain .. "[^`]*)`")
      or at and doc:match("^(" .. plain .. "[^`]*)`", at + (doc:sub(at, at) == "`" and 1 or 0))
    h = h or (at and section_of(at))
    if sig and sig:find("{ points") then sig = "anim.blendspace{ points = { { clip = c, at = place }, ... }, sync =, name = } -> space" end
    if not sig or #sig > 110 then sig = full .. "(...)" end
    if sig:find("{ points") then sig = "anim.blendspace{ points = ..., name = } -> space" end
    out[#out + 1] = string.format("- [`%s`](#%s)", sig, h and h.anchor or "MISSING")
  end
end

print(table.concat(out, "\n"))
