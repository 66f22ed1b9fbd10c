-- buffer.lua: the module buffer (csrc/lua/lua_buffer.c), a C array of
-- floats or doubles that the binding writes into (skinning matrices,
-- skinned vertices, imported mesh attributes) and a script hands to a
-- renderer.  anim.buffer and anim.is_buffer are these; the checks and
-- messages are the C functions' own.
local core = require "anim.core"

return {
  -- buffer(n [, "float" | "double"]) -> buffer of n zeros
  new = core.buffer,
  -- is_buffer(v) -> boolean
  is = core.is_buffer,
  -- skin_vertices(mesh, matrices [, out [, options]]) -> positions [, normals]
  skin_vertices = core.skin_vertices,
}
