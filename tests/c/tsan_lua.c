/* tsan_lua.c - a plain Lua interpreter (lua script [args]) built with
 * ThreadSanitizer, for `make tsan`: TSan's runtime cannot be preloaded
 * into the stock lua5.4 (it must start with the program), so the program
 * is this one, and the core it loads is built with -fsanitize=thread. */
#include <stdio.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

int main(int argc, char **argv) {
  lua_State *L;
  int i, status;
  if (argc < 2) {
    fprintf(stderr, "usage: %s script [args]\n", argv[0]);
    return 2;
  }
  L = luaL_newstate();
  if (!L) return 1;
  luaL_openlibs(L);
  /* arg as lua.c makes it: arg[0] the script, arg[-1] the interpreter */
  lua_createtable(L, argc, 2);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - 1);
  }
  lua_setglobal(L, "arg");
  status = luaL_loadfile(L, argv[1]);
  if (status == LUA_OK) {
    for (i = 2; i < argc; i++) lua_pushstring(L, argv[i]);
    status = lua_pcall(L, argc - 2, 0, 0);
  }
  if (status != LUA_OK) fprintf(stderr, "%s\n", lua_tostring(L, -1));
  lua_close(L);
  return status == LUA_OK ? 0 : 1;
}
