-- luajit.lua: what the module does about LuaJIT's compiler.
--
-- LuaJIT 2.1 compiles table traversals (`pairs`, `next`) since its commit
-- bb0f2410 of September 2021, and that code has been fixed many times since:
-- on x64, the pointer lj_vm_next returns could be cut to 32 bits when the
-- registers of its two results were swapped (issue #829, commit 5e3c45c4,
-- April 2022: a segfault); a loop entered after the interpreter
-- despecialised it read a key as a node index (#827, commit 1cdff194); a
-- trace exit to BC_ITERN could loop for ever (#1000, commit 119fd1fa,
-- 2023); next() recorded right after a despecialisation (#1510, commit
-- 27f169c6, August 2026).  Debian 12's luajit (2.1.0~beta3+git20220320)
-- has all of them, and LÖVE 11 on Debian links it: the module's fuzz
-- replays crashed in machine code compiled for a `pairs` loop of
-- lua/anim/base/errors.lua about once in fifty runs.
--
-- So every file of the module that walks a table with `pairs` or `next`
-- starts with `require("anim.base.luajit").no_traversal_traces()`: on
-- LuaJIT it turns the compiler off for that file's functions (jit.off of
-- the file's chunk, recursively: LuaJIT's manual, "jit.* Library"), and a
-- trace that reaches one of them is aborted, so no traversal of the
-- module's is compiled.  The module's work per frame is in its C core;
-- these files are read, checked and converted in LuaJIT's interpreter.
-- spec/luajit_spec.lua checks that every such file does it (the specs'
-- own files too: a compiled loop of spec/helper.lua crashed the same way),
-- and that no trace of the module's code holds a compiled traversal.
local M = {}

local jit = rawget(_G, "jit")

-- Whether the guard acts: LuaJIT 2.1 or later (2.0 compiles no
-- traversal), with its compiler.
M.guarded = type(jit) == "table" and type(jit.off) == "function" and type(jit.version) == "string"
  and not jit.version:find("^LuaJIT 2%.0")

-- Turns the compiler off for the calling file's chunk and every function
-- it defines (called from a module file's top level).
function M.no_traversal_traces()
  if not M.guarded then return end
  local info = debug and debug.getinfo and debug.getinfo(2, "f")
  if info and info.func then jit.off(info.func, true) end
end

return M
