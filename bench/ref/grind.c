/* bench/ref/grind.c: callgrind's client requests for the benchmarks, as
 * the Lua module bench.grind (build/bench/grind.so, needs valgrind's
 * headers).  bench/graph.lua --grind runs under
 * `valgrind --tool=callgrind --collect-atstart=no` and counts only the
 * frames it measures: instruction counts, unlike times, repeat on a
 * machine shared with other work.  Outside valgrind each call does
 * nothing.
 * - toggle() turns the collection on or off;
 * - dump(name) writes what was collected since the last dump (or the
 *   start) to its own file, named `name` in its header;
 * - running() -> whether the process runs under valgrind. */
#include <valgrind/callgrind.h>

#include <lauxlib.h>
#include <lua.h>

static int toggle(lua_State *L) {
  (void)L;
  CALLGRIND_TOGGLE_COLLECT;
  return 0;
}

static int dump(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  CALLGRIND_DUMP_STATS_AT(name);
  return 0;
}

static int running(lua_State *L) {
  lua_pushboolean(L, RUNNING_ON_VALGRIND != 0);
  return 1;
}

static const luaL_Reg functions[] = {{"toggle", toggle}, {"dump", dump}, {"running", running}, {NULL, NULL}};

int luaopen_bench_grind(lua_State *L) {
  luaL_newlib(L, functions);
  return 1;
}
