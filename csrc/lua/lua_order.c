/* lua_order.c - strings in byte order (core.bytes_less), whatever the C
 * locale: Lua's < on strings compares with strcoll, so under a host's
 * locale (a game may call setlocale) two different names can sort apart
 * from byte order, or tie.  Every order the module keeps, writes or lists
 * compares through this (lua/anim/base/order.lua). */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* core.bytes_less(a, b) -> whether string a comes before string b by
 * their bytes (a string before the longer ones it starts).  Only strings:
 * a number would sort as its text, which no caller means. */
static int bytes_less(lua_State *L) {
  size_t la, lb;
  const char *a, *b;
  int c;
  luaL_checktype(L, 1, LUA_TSTRING);
  luaL_checktype(L, 2, LUA_TSTRING);
  a = lua_tolstring(L, 1, &la), b = lua_tolstring(L, 2, &lb);
  c = memcmp(a, b, la < lb ? la : lb);
  lua_pushboolean(L, c < 0 || (c == 0 && la < lb));
  return 1;
}

void anim_lua_open_order(lua_State *L) {
  lua_pushcfunction(L, bytes_less);
  lua_setfield(L, -2, "bytes_less");
}
