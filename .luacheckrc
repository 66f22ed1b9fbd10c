-- luacheck configuration: `make lint`
std = "lua54"
max_line_length = false
files["spec/"] = { read_globals = { "describe", "it", "assert", "before_each", "after_each", "pending",
  "setup", "teardown", "spy", "stub", "mock" } }
-- the LÖVE example runs in LÖVE 11's LuaJIT
files["examples/love/"] = { std = "luajit+love" }
files["examples/love3d/"] = { std = "luajit+love" }
files["examples/love2d/"] = { std = "luajit+love" }
