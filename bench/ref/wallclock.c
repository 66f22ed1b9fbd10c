/* bench/ref/wallclock.c: a monotonic wall clock for the benchmarks, as the
 * Lua module bench.wallclock (build/bench/wallclock.so).  Plain Lua has
 * only os.clock(), the process CPU time, which adds up the time of every
 * thread: a threaded update is timed by the wall instead (bench/w1.lua
 * --threads).
 * - now() -> seconds of CLOCK_MONOTONIC (from an arbitrary origin).
 * - thread_cpu() -> the calling thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID):
 *   on a machine whose cores are busy with other work the wall clock shows
 *   no speed-up, while the calling thread's share of the work still does.
 * - sleep(s) sleeps s seconds (CLOCK_MONOTONIC, resumed after a signal):
 *   the gap between frames of bench/w1.lua --gap, during which a game
 *   renders and the update's worker threads go back to sleep. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
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

static int sleep_for(lua_State *L) {
  double s = luaL_checknumber(L, 1);
  struct timespec ts;
  luaL_argcheck(L, s >= 0 && s < 3600, 1, "seconds from 0 to 3600 expected");
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) continue;
  return 0;
}

int luaopen_bench_wallclock(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, now);
  lua_setfield(L, -2, "now");
  lua_pushcfunction(L, thread_cpu);
  lua_setfield(L, -2, "thread_cpu");
  lua_pushcfunction(L, sleep_for);
  lua_setfield(L, -2, "sleep");
  return 1;
}
