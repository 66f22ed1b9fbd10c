/* failalloc.c - a test-only Lua module (never installed) that puts an
 * allocator in front of the state's own, so that a spec can fail one
 * chosen allocation: SQLite's out-of-memory testing for the module.
 *   local fa = require "failalloc"
 *   fa.start(n [, persist])  -- the n-th allocation from now fails (0: none
 *                  fails); with persist, every one after it fails too
 *   fa.stop() -> allocations counted since start
 *   fa.pcall(n, persist, fn, ...) -> count, ok, ... -- the same around one
 *                  protected call
 *   fa.live() -> bytes taken minus bytes given back through the wrapper
 * The wrapper stays installed once started (blocks allocated through it
 * are freed through it); it only passes calls on after stop. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

typedef struct wrap {
  lua_Alloc f;
  void *ud;
  long count, fail_at;
  long long live;
  int on, persist;
} wrap;

/* One per process: a test module serves the one state busted runs. */
static wrap W;

/* Lua 5.1 to 5.3 (and LuaJIT, which follows 5.1) assume that an
 * allocator never fails to shrink a block ("Lua assumes that the allocator
 * never fails when osize >= nsize", their manuals at lua_Alloc; lmem.c of
 * 5.1: "any reallocation to an equal or smaller size cannot fail!"): a
 * shrink they make after an error is caught (luaD_shrinkstack, out of any
 * protected call) raises unprotected and panics.  From 5.4.2 on a failed
 * shrink is handled, so there every allocation may fail. */
#if LUA_VERSION_NUM < 504
#define MAY_FAIL(ptr, osize, nsize) ((ptr) == NULL || (nsize) > (osize))
#else
#define MAY_FAIL(ptr, osize, nsize) 1
#endif

static void *failing(void *ud, void *ptr, size_t osize, size_t nsize) {
  wrap *w = ud;
  void *p;
  if (nsize > 0 && w->on && ++w->count >= w->fail_at && w->fail_at > 0 &&
      (w->persist || w->count == w->fail_at) && MAY_FAIL(ptr, osize, nsize))
    return NULL;
  p = w->f(w->ud, ptr, osize, nsize);
  if (p || nsize == 0) w->live += (long long)nsize - (long long)(ptr ? osize : 0);
  return p;
}

/* Installs the wrapper (once) and starts counting. */
static void begin(lua_State *L, long fail_at, int persist) {
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  if (f != failing) { W.f = f; W.ud = ud; lua_setallocf(L, failing, &W); }
  W.fail_at = fail_at;
  W.persist = persist;
  W.count = 0;
  W.on = 1;
}

static int start(lua_State *L) {
  begin(L, (long)luaL_optinteger(L, 1, 0), lua_toboolean(L, 2));
  return 0;
}

static int stop(lua_State *L) {
  W.on = 0;
  lua_pushinteger(L, W.count);
  return 1;
}

/* fa.pcall(n, persist, fn, ...) -> count, ok, results or message: start,
 * pcall and stop in one C call, so that nothing in Lua allocates (and
 * fails) between the protected call and the end of the failures. */
static int fpcall(lua_State *L) {
  int base, st;
  lua_Integer n = luaL_checkinteger(L, 1);
  int persist = lua_toboolean(L, 2);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  luaL_checkstack(L, 8, NULL);
  lua_pushinteger(L, 0);  /* the slot of the count, before the call */
  lua_insert(L, 3);
  base = 3;
  begin(L, (long)n, persist);
  st = lua_pcall(L, lua_gettop(L) - base - 1, LUA_MULTRET, 0);
  W.on = 0;
  lua_pushinteger(L, W.count);
  lua_replace(L, base);
  lua_pushboolean(L, st == 0);  /* LUA_OK, which 5.1 does not name */
  lua_insert(L, base + 1);
  return lua_gettop(L) - base + 1;
}

static int live(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)W.live);
  return 1;
}

int luaopen_failalloc(lua_State *L);
int luaopen_failalloc(lua_State *L) {
  static const luaL_Reg fns[] = {{"start", start}, {"stop", stop}, {"live", live}, {"pcall", fpcall}, {NULL, NULL}};
  /* Objects made while the wrapper is installed keep its address to free
   * themselves, until the state closes -- after Lua unloads its C
   * modules.  So this module is never unloaded. */
  Dl_info info;
  if (dladdr(&W, &info) && info.dli_fname) dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
  {
    const luaL_Reg *r;  /* (luaL_newlib is 5.2+) */
    lua_createtable(L, 0, 4);
    for (r = fns; r->name; r++) {
      lua_pushcfunction(L, r->func);
      lua_setfield(L, -2, r->name);
    }
  }
  return 1;
}
