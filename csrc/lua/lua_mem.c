/* lua_mem.c - the core's memory in a Lua state (lua_helpers.h): the
 * allocator the core allocates with, what it takes told to the collector,
 * and one retry after a full collection when an allocation fails. */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* ---- memory ----------------------------------------------------------------- */

#define ACCT_KEY "anim.acct"
#define ACCT_TAG 0x616e6163u
/* the collector is stepped once the core took this much */
#define ACCT_STEP (64 * 1024)

/* The state's allocator of the moment (a host may change it: Lua itself
 * frees old blocks with the new one), counting what the core takes. */
static void *acct_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  anim_lua_acct *acct = ud;
  void *aud;
  lua_Alloc f = lua_getallocf(acct->main, &aud);
  void *p = f(aud, ptr, ptr ? osize : 0, nsize);
  if (p && nsize > (ptr ? osize : 0)) acct->debt += nsize - (ptr ? osize : 0);
  return p;
}

/* A userdata without __gc in the registry: it is freed only after every
 * finalizer ran, when the state closes, so every core object can free
 * itself through it until then. */
anim_lua_acct *anim_lua_acct_of(lua_State *L) {
  anim_lua_acct *acct;
  lua_getfield(L, LUA_REGISTRYINDEX, ACCT_KEY);
  acct = lua_touserdata(L, -1);
  if (acct && lua_rawlen(L, -1) == sizeof *acct && acct->tag == ACCT_TAG) {
    lua_pop(L, 1);
    return acct;
  }
  lua_pop(L, 1);
  acct = lua_newuserdatauv(L, sizeof *acct, 0);
  acct->tag = ACCT_TAG;
  acct->debt = 0;
  acct->delivering = 0;
  acct->unslots = 0;
  acct->serials = 0;
  /* the thread that made it, kept alive by the registry (5.1 has no
   * LUA_RIDX_MAINTHREAD; any thread of the state tells its allocator) */
  acct->main = L;
  lua_setfield(L, LUA_REGISTRYINDEX, ACCT_KEY);
  lua_pushthread(L);
  lua_setfield(L, LUA_REGISTRYINDEX, ACCT_KEY ".thread");
  return acct;
}

anim_mem anim_lua_mem(lua_State *L) {
  anim_mem m;
  m.f = acct_alloc;
  m.ud = anim_lua_acct_of(L);
  return m;
}

void anim_lua_account(lua_State *L, anim_lua_acct *acct) {
  size_t kb;
  if (acct->debt < ACCT_STEP) return;
  kb = acct->debt / 1024;
  acct->debt = 0;
  /* (a host that stopped the collector keeps it stopped; 5.1 cannot tell) */
#ifdef LUA_GCISRUNNING
  if (!lua_gc(L, LUA_GCISRUNNING, 0)) return;
#endif
  lua_gc(L, LUA_GCSTEP, kb > 1000000 ? 1000000 : (int)kb);
}

int anim_lua_retry(lua_State *L) {
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 1;
}

int anim_lua_nomem(lua_State *L) {
  return luaL_error(L, "not enough memory");
}
