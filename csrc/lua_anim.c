/* lua_anim.c - luaopen_anim_core: the C module `anim.core`.  The friendly
 * API lives in lua/anim/init.lua; this module holds the per-frame work. */
#include "lua.h"
#include "lauxlib.h"

#include "lua_anim.h"

int luaopen_anim_core(lua_State *L);

int luaopen_anim_core(lua_State *L) {
  lua_newtable(L);
  anim_lua_open_clip(L);
  return 1;
}
