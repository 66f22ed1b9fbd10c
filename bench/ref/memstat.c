/* bench/ref/memstat.c: malloc's figures for the benchmarks, as the Lua
 * module bench.memstat (build/bench/memstat.so).
 * - in_use() -> bytes malloc has handed out and not taken back (glibc's
 *   mallinfo2: uordblks + hblkhd).  The Lua heap and the C core both
 *   allocate through malloc, so a difference of this figure counts both,
 *   where collectgarbage("count") sees only the Lua heap and VmRSS also
 *   sees what the allocator keeps after a free.
 * - calls() -> the number of malloc/calloc/realloc calls so far when the
 *   process runs with LD_PRELOAD=build/bench/malloc_count.so, else nil. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>

#include <lauxlib.h>
#include <lua.h>

static int in_use(lua_State *L) {
  struct mallinfo2 m = mallinfo2();
  lua_pushnumber(L, (lua_Number)m.uordblks + (lua_Number)m.hblkhd);
  return 1;
}

static int calls(lua_State *L) {
  const unsigned long long *n = dlsym(RTLD_DEFAULT, "bench_malloc_calls");
  if (n) lua_pushinteger(L, (lua_Integer)*n);
  else lua_pushnil(L);
  return 1;
}

int luaopen_bench_memstat(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, in_use);
  lua_setfield(L, -2, "in_use");
  lua_pushcfunction(L, calls);
  lua_setfield(L, -2, "calls");
  return 1;
}
