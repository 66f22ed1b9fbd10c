-- spec/love_run.lua: what the specs of the LÖVE examples (love_spec.lua,
-- love3d_spec.lua) share: whether LÖVE can run them here.
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

return M
