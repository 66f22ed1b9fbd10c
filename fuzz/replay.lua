-- fuzz/replay.lua TARGET FILE...: runs inputs through a fuzz driver without
-- libFuzzer (fuzz/README.md); exits 1 if any breaks a contract.
--   LUA_PATH='lua/?.lua;lua/?/init.lua;./?.lua;;' LUA_CPATH='build/?.so;;' \
--     lua5.4 fuzz/replay.lua decode build/fuzz/artifacts/decode/crash-...
local target = arg[1]
if not target or not arg[2] then
  io.stderr:write("usage: lua5.4 fuzz/replay.lua decode|animator FILE...\n")
  os.exit(2)
end
local driver = require("fuzz." .. target)
local compat = require "anim.base.compat"
local failed = 0
for i = 2, #arg do
  local f = assert(io.open(arg[i], "rb"))
  local data = f:read("*a")
  f:close()
  local ok, err = compat.xpcall(driver.run, debug.traceback, data)
  if ok then
    print("ok   " .. arg[i])
  else
    failed = failed + 1
    print("FAIL " .. arg[i] .. "\n" .. tostring(err))
  end
end
os.exit(failed == 0 and 0 or 1)
