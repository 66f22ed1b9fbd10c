/* bench/ref/callfloor.c: the least that a delivery of a marker callback
 * from C does through Lua's C API, as the Lua module bench.callfloor
 * (build/bench/callfloor.so), for bench/callbacks.lua to time beside the
 * module's delivery (csrc/lua/lua_deliver.c, deliver_lone_marker).  It
 * finds what the module's delivery finds, in tables of the same shape
 * (runtime/dispatch.lua), with the same reads and the same protected call,
 * and nothing else: no clock, no queue, no checks of what it reads beyond
 * the two the call needs, no animator marked as delivering.  What it costs
 * over calling the same function from a Lua loop is what any delivery from
 * C pays on this machine before it does anything of its own.
 * - delivery(slots) -> deliver: deliver(s, j, late) calls by[j](track,
 *   by[-j], late) in a protected call with debug.traceback as its message
 *   handler, where track = slots[4s - 3] and by = slots[4s - 2] (the track
 *   and its callbacks by marker: [j] the function, [-j] the marker's
 *   value); an error is raised as it comes (the benchmark's callback does
 *   not fail).  Nothing is called when by or by[j] is not what it should be.
 * - nop(s, j, late): nothing; the cost of calling deliver from Lua. */
#include <lauxlib.h>
#include <lua.h>

static int deliver(lua_State *L) {
  lua_Integer s = lua_tointeger(L, 1), j = lua_tointeger(L, 2);
  lua_Number late = lua_tonumber(L, 3);
  int base = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));  /* base + 1: the handler */
  if (lua_rawgeti(L, lua_upvalueindex(2), 4 * s - 2) != LUA_TTABLE ||  /* base + 2: by */
      lua_rawgeti(L, base + 2, j) != LUA_TFUNCTION)
    return 0;
  lua_rawgeti(L, lua_upvalueindex(2), 4 * s - 3);
  lua_rawgeti(L, base + 2, -j);
  lua_pushnumber(L, late);
  if (lua_pcall(L, 3, 0, base + 1) != 0) return lua_error(L);
  lua_settop(L, base);
  return 0;
}

static int delivery(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getglobal(L, "debug");
  lua_getfield(L, -1, "traceback");
  lua_remove(L, -2);
  luaL_checktype(L, -1, LUA_TFUNCTION);
  lua_pushvalue(L, 1);
  lua_pushcclosure(L, deliver, 2);
  return 1;
}

static int nop(lua_State *L) {
  (void)L;
  return 0;
}

int luaopen_bench_callfloor(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, delivery);
  lua_setfield(L, -2, "delivery");
  lua_pushcfunction(L, nop);
  lua_setfield(L, -2, "nop");
  return 1;
}
