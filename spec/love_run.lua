-- spec/love_run.lua: what the specs of the LÖVE examples (love_spec.lua,
-- love2d_spec.lua, love3d_spec.lua) share: whether LÖVE can run them here;
-- an example run in its check mode under Xvfb, its screenshots read and
-- compared.
local H = require "spec.helper"
local compat = require "anim.base.compat"

local M = {}

function M.have(cmd) return compat.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true end

-- Inside a describe: true when love, xvfb-run and the core built for LuaJIT
-- are there; else registers a test saying what is missing (pending for the
-- programs, an error for the core: `make <target>` builds it) and gives false.
function M.ready(target)
  if not (M.have("love") and M.have("xvfb-run")) then
    it("needs love and xvfb-run (make " .. target .. " installs them)", function()
      pending("love or xvfb-run is missing: apt-get install love xvfb")
    end)
    return false
  end
  if not io.open(H.root .. "/build/luajit/anim/core.so") then
    it("needs the core built for LuaJIT", function()
      error("build/luajit/anim/core.so is missing: make build LUA=luajit (make " .. target .. " does it)")
    end)
    return false
  end
  return true
end

-- Runs examples/<example> in its check mode (the variable test_var names
-- dir, emptied first, where it writes its shots and log) under Xvfb, the
-- shell assignments env before it, for at most `seconds` (120): ok (its
-- exit status 0), its output.
function M.run(example, test_var, dir, env, seconds)
  os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")
  local cmd = string.format("cd %q && %s=%q %s timeout %d xvfb-run -a -s '-screen 0 1024x768x24' love examples/%s 2>&1",
    H.root, test_var, dir, env or "", seconds or 120, example)
  local out, code = H.popen(cmd)
  return code == 0, out
end

-- The raw RGBA screenshot i of dir (800 x 500: the examples' conf.lua).
function M.shot(dir, i)
  local bytes = H.read(string.format("%s/shot-%d.rgba", dir, i))
  if #bytes ~= 800 * 500 * 4 then
    error(string.format("%s/shot-%d.rgba: %d bytes, not 800 x 500 x 4", dir, i, #bytes), 2)
  end
  return bytes
end

-- The pixels of which a channel differs by more than `by` (0: at all)
-- between two shots.
function M.differ(a, b, by)
  by = by or 0
  local n = 0
  for i = 1, #a, 4 do
    for k = 0, 2 do
      if math.abs(a:byte(i + k) - b:byte(i + k)) > by then
        n = n + 1
        break
      end
    end
  end
  return n
end

return M
