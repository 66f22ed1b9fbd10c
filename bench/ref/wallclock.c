/* bench/ref/wallclock.c: a monotonic wall clock for the benchmarks, as the
 * Lua module bench.wallclock (build/bench/wallclock.so).  Plain Lua has
 * only os.clock(), the process CPU time, which adds up the time of every
 * thread: a threaded update is timed by the wall instead (bench/w1.lua
 * --threads).
 * - now() -> seconds of CLOCK_MONOTONIC (from an arbitrary origin).
 * - thread_cpu() -> the calling thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID):
 *   on a machine whose cores are busy with other work the wall clock shows
 *   no speed-up, while the calling thread's share of the work still does. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include <lauxlib.h>
#include <lua.h>

static int now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

static int thread_cpu(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec * 1e-9);
  return 1;
}

int luaopen_bench_wallclock(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, now);
  lua_setfield(L, -2, "now");
  lua_pushcfunction(L, thread_cpu);
  lua_setfield(L, -2, "thread_cpu");
  return 1;
}
