-- examples/convert.lua: a legacy XML animation to a version 3 .anim file.
-- Imports examples/clips/nod.xml, writes it with anim.save (atomically) to a
-- temporary file, loads that back and checks that it plays the same.
-- (`bin/anim convert nod.xml -o nod.anim` does the same from the shell.)
-- Run with `make convert`.
local anim = require "anim"

local here = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "examples"
local xml = assert(anim.import_xml(here .. "/clips/nod.xml"))
print(string.format("imported %s: %g s, %s, joints %s", xml.name, xml.length, xml.loop,
  table.concat(xml:joints(), ", ")))

local out = os.tmpname()
local _, approx = assert(anim.save(xml, out))
if approx then
  -- (err: the largest error the importer measured, when it measured one;
  -- bound: what it promises)
  print(string.format("version 3 cannot say this file exactly: within %.2g (%s)", approx.err or approx.bound, approx.note))
else
  print("the version 3 file is exact")
end

local f = assert(io.open(out))
local text = f:read("*a")
f:close()
print(string.format("wrote %d bytes of version 3 JSON; the head's rotation keys:", #text))
-- (the first keys whole, a line each: the file writes one key a line)
local keys, total = {}, 0
for line in (text:match('"head": {.-"rotation": (%b[])') or ""):gmatch("[^\n]+") do
  if line:match("^%s*%[%-?%d") then
    total = total + 1
    if #keys < 3 then keys[#keys + 1] = line:match("^%s*(.-),?$") end
  end
end
for _, k in ipairs(keys) do print("  " .. k) end
if total > #keys then print(string.format("  ... and %d more", total - #keys)) end

local back = assert(anim.load(out))
os.remove(out)
local worst = 0
for i = 0, 200 do
  local t = i / 100
  local a, b = xml:sample(t), back:sample(t)
  for joint, ch in pairs(a) do
    for name, v in pairs(ch) do
      for k = 1, #v do
        local d = math.abs(v[k] - b[joint][name][k])
        if name == "rotation" then d = math.min(d, math.abs(v[k] + b[joint][name][k])) end
        worst = math.max(worst, d)
      end
    end
  end
end
print(string.format("reloaded: largest difference over 0..2 s: %.3g", worst))
