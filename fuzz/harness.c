/* fuzz/harness.c - the libFuzzer entry points shared by every fuzz target.
 *
 * One Lua 5.4 state per process, with the standard libraries, the C core
 * compiled into this binary (registered as package.preload["anim.core"]),
 * the Lua modules from <root>/lua and Debian's lpeg, cjson and lxp from
 * package.cpath.  The target's driver, fuzz/<FUZZ_DRIVER>.lua, returns a
 * function run(bytes); each input is one call.  The driver raises only for a
 * bug (a contract the module broke); the harness then prints the message and
 * aborts, so libFuzzer records the input as a crash.  The same drivers
 * replay inputs under busted (spec/fuzz_regressions_spec.lua).
 *
 * <root> is ANIM_ROOT from the environment, else the checkout this was
 * built from (-DANIM_ROOT=...).
 *
 * Budgets per input (issue 19): a driver whose module has a field budget =
 * { seconds = s, mb = m } is held to them.  The state allocates through a
 * counter here (the C core allocates through the state's allocator, so its
 * memory counts too): an input that makes it hold more than m MiB beyond
 * what it held before gets its allocations refused, and is then a finding.
 * The time is the driver's to check (it knows what it times); the global
 * FUZZ_SLOWDOWN tells it how much slower this instrumented build runs than
 * the plain one its budget is written for. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

#ifndef FUZZ_DRIVER
#error "build with -DFUZZ_DRIVER=\"decode\" (the fuzz/<name>.lua driver)"
#endif
#ifndef ANIM_ROOT
#define ANIM_ROOT "."
#endif

int luaopen_anim_core(lua_State *L);

static lua_State *L;
static int run_ref = LUA_NOREF;

/* How much slower this build (ASan, UBSan, coverage, the line hook) runs
 * the drivers than the plain build: measured on the seeds of fuzz_import
 * (fuzz/README.md). */
#ifndef FUZZ_SLOWDOWN
#define FUZZ_SLOWDOWN 8
#endif

/* The state's memory: live bytes, the limit of the input under way
 * (0: none), and whether an input went over it. */
static size_t mem_live, mem_limit, mem_budget;
static int mem_over;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  size_t old = ptr ? osize : 0;
  void *p;
  (void)ud;
  if (nsize == 0) {
    free(ptr);
    mem_live -= old;
    return NULL;
  }
  if (mem_limit && nsize > old && mem_live + (nsize - old) > mem_limit) {
    mem_over = 1;
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p) mem_live += nsize - old;
  return p;
}

/* Coverage of the Lua code for libFuzzer: only the C is compiled with
 * coverage, and most of the checks of a file (and the animator's callback
 * delivery) are Lua.  A line hook counts each (previous line, line) pair in
 * libFuzzer's extra counters, so an input that takes a new path through the
 * Lua modules is kept like one that takes a new branch in C. */
#define LUA_COV_SIZE (1u << 16)
__attribute__((section("__libfuzzer_extra_counters")))
static uint8_t lua_cov[LUA_COV_SIZE];
static uintptr_t lua_prev;

static void line_hook(lua_State *S, lua_Debug *ar) {
  if (!lua_getinfo(S, "S", ar)) return;
  uintptr_t here = ((uintptr_t)ar->source >> 4) * 2654435761u + (uintptr_t)ar->currentline * 40503u;
  uint8_t *c = &lua_cov[(here ^ lua_prev) & (LUA_COV_SIZE - 1)];
  if (*c < 255) (*c)++;
  lua_prev = here >> 1;
}

static int traceback(lua_State *S) {
  const char *msg = lua_tostring(S, 1);
  if (msg == NULL) msg = lua_pushfstring(S, "(error object is a %s value)", luaL_typename(S, 1));
  luaL_traceback(S, S, msg, 1);
  return 1;
}

static void die(const char *what) {
  fprintf(stderr, "fuzz harness (%s): %s\n", FUZZ_DRIVER, what);
  abort();
}

static void setup(void) {
  const char *root = getenv("ANIM_ROOT");
  if (root == NULL || *root == '\0') root = ANIM_ROOT;
  L = lua_newstate(counting_alloc, NULL);
  if (L == NULL) die("cannot create a Lua state");
  luaL_openlibs(L);
  lua_pushcfunction(L, traceback);
  int msgh = lua_gettop(L);
  /* package.preload["anim.core"] = luaopen_anim_core; the Lua modules from
   * the checkout; the system's C modules through the default cpath. */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_anim_core);
  lua_setfield(L, -2, "anim.core");
  lua_pop(L, 1);
  lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;%s/?.lua;%s/?/init.lua", root, root, root, root);
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  lua_pushstring(L, root);
  lua_setglobal(L, "ANIM_ROOT");
  lua_pushnumber(L, FUZZ_SLOWDOWN);
  lua_setglobal(L, "FUZZ_SLOWDOWN");
  /* run = require("fuzz.<driver>").run */
  lua_getglobal(L, "require");
  lua_pushstring(L, "fuzz." FUZZ_DRIVER);
  if (lua_pcall(L, 1, 1, msgh) != LUA_OK) die(lua_tostring(L, -1));
  if (lua_getfield(L, -1, "budget") == LUA_TTABLE && lua_getfield(L, -1, "mb") == LUA_TNUMBER)
    mem_budget = (size_t)(lua_tonumber(L, -1) * 1024 * 1024);
  lua_settop(L, msgh + 1);
  lua_getfield(L, -1, "run");
  if (lua_type(L, -1) != LUA_TFUNCTION) die("the driver has no run function");
  run_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, 0);
  lua_sethook(L, line_hook, LUA_MASKLINE, 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (L == NULL) setup();
  lua_prev = 0;
  lua_pushcfunction(L, traceback);
  lua_rawgeti(L, LUA_REGISTRYINDEX, run_ref);
  lua_pushlstring(L, (const char *)data, size);
  mem_over = 0;
  mem_limit = mem_budget ? mem_live + mem_budget : 0;
  int status = lua_pcall(L, 1, 0, 1);
  mem_limit = 0;
  if (mem_over) {
    fprintf(stderr, "\n==== fuzz/%s.lua: the input needed more than %zu MiB (its budget): a greedy input\n",
            FUZZ_DRIVER, mem_budget / (1024 * 1024));
    abort();
  }
  if (status != LUA_OK && status != LUA_ERRMEM) {
    /* the drivers raise only for a broken contract; running out of memory
     * (a memory error) is not one */
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "\n==== fuzz/%s.lua: %s\n", FUZZ_DRIVER, msg ? msg : "(no message)");
    abort();
  }
  lua_settop(L, 0);
  /* free this input's garbage now: libFuzzer's leak detection looks again
   * (at length) at every input that leaves more mallocs than frees */
  lua_gc(L, LUA_GCCOLLECT);
  return 0;
}
