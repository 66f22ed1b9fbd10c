-- Every ```lua block of README.md and docs/*.md runs (issue 17), from the
-- checkout's root, in a fresh environment with `anim` loaded.  A fragment
-- not meant to run (a signature, a sketch) says so: `norun` in the fence
-- (```lua norun) or in an HTML comment on the line above
-- (<!-- norun: why -->).  Such fragments are few (checked).
local H = require "spec.helper"

local DOCS = { "README.md" }
for _, f in ipairs(H.ls(H.root .. "/docs", "%.md$")) do DOCS[#DOCS + 1] = "docs/" .. f end

-- The lua blocks of a markdown text: { line =, code =, norun = }.
local function blocks(text)
  local out, lines = {}, {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local i = 1
  while i <= #lines do
    local info = lines[i]:match("^%s*```%s*(lua[^`]*)$")
    if info then
      local first, code = i, {}
      i = i + 1
      while i <= #lines and not lines[i]:match("^%s*```%s*$") do
        code[#code + 1] = lines[i]
        i = i + 1
      end
      local norun = info:find("norun", 1, true) ~= nil or (lines[first - 1] or ""):find("<!%-%- *norun") ~= nil
      out[#out + 1] = { line = first, code = table.concat(code, "\n"), norun = norun }
    end
    i = i + 1
  end
  return out
end

-- Runs code in a process of its own (a block may play, update, write files).
local function run(code, name)
  local dir = H.tmpdir()
  local file = dir .. "/block.lua"
  H.write(file, code)
  local cmd = string.format(
    "cd %q && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' ANIM_DOC_TMP=%q %s %q 2>&1",
    H.root, H.build, dir, H.lua, file)
  local out, status = H.popen(cmd)
  local ok = status == 0
  os.execute("rm -rf " .. string.format("%q", dir))
  return ok, name .. "\n" .. out
end

describe("the documentation's Lua examples", function()
  local total, skipped = 0, 0
  for _, doc in ipairs(DOCS) do
    local text = H.read(H.root .. "/" .. doc)
    for _, b in ipairs(blocks(text)) do
      total = total + 1
      if b.norun then
        skipped = skipped + 1
      else
        it(string.format("%s:%d runs", doc, b.line), function()
          local ok, out = run(b.code, string.format("%s:%d", doc, b.line))
          assert(ok, out)
        end)
      end
    end
  end

  it("are mostly meant to run: few are marked norun", function()
    assert.is_true(total >= 5, total .. " blocks")
    assert.is_true(skipped <= math.max(2, math.floor(total / 4)), skipped .. " of " .. total .. " blocks are marked norun")
  end)
end)
