/* lua_update.c - the Lua binding of the updates: one animator's
 * (animator:update) and a list's, on one thread or on the pool's (the
 * batch update, with its scratch kept per Lua state), and the delivery
 * that follows them (lua_deliver.c).  These are per-frame paths:
 * nothing is allocated on them once the scratch has room. */
#include <limits.h>
#include <math.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/graph.h"
#include "core/pool.h"
#include "core/skin.h"
#include "lua_buffer.h"
#include "lua_helpers.h"

typedef anim_animator_box animator_box;

/* core.animator_update(animator, dt) -> 0 when every callback it queued
 * was delivered (lua_deliver.c) and none failed; else the number of
 * queued callbacks, the animator's state (its second user value), that
 * number + 1 and the first error, for the Lua side to raise; or a status
 * code (codes.h; nothing changed then: the Lua side raises):
 * ANIM_ST_NOT_ANIMATOR when 1 is not an animator (the Lua side names its
 * caller's line), ANIM_ST_BAD_DT when dt is not a finite number >= 0, ANIM_ST_DELIVERING
 * during a delivery of this animator's callbacks, ANIM_ST_QUEUED while a
 * batch update has yet to deliver them. */
static int animator_update(lua_State *L) {
  animator_box *b = anim_lua_deliver_animator(L, 1);
  int r;
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  if (!b) { lua_pushinteger(L, ANIM_ST_NOT_ANIMATOR); return 1; }
  /* what the core took (a queue grown by an earlier update) is told to
   * the collector first, before the animator is looked at: its finalizers
   * may finalize it */
  anim_lua_account(L, b->acct);
  if (!b->a) return anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  if (!isfinite(dt) || dt < 0) r = ANIM_ST_BAD_DT;
  else if (b->delivering) r = b->delivering == ANIM_DELIVERING ? ANIM_ST_DELIVERING : ANIM_ST_QUEUED;
  else r = ANIM_ST_OK;
  if (r != ANIM_ST_OK) { lua_pushinteger(L, r); return 1; }
  r = anim_animator_update(b->a, dt);
  if (r == ANIM_ST_NOMEM) return luaL_error(L, "not enough memory for the callback queue");
  r = anim_animator_nevents(b->a);
  lua_settop(L, 2);
  /* (a state machine's layers over the bound are reported at a delivery,
   * even with nothing queued: lua_deliver.c; the `ended` of its tracks
   * nobody knew deliver nothing) */
  if (anim_animator_to_deliver(b->a)) {
    int err;
    b->unslots = b->acct->unslots;  /* (its queue was just made: lua_deliver.c) */
    err = anim_lua_deliver(L, b, 1, r);
    if (!lua_isnil(L, err)) {
      lua_pushinteger(L, r);
      lua_getiuservalue(L, 1, ANIM_UV_ANIMATOR_STATE);
      lua_pushinteger(L, r + 1);
      lua_pushvalue(L, err);
      return 4;
    }
  }
  lua_pushinteger(L, 0);
  return 1;
}

/* core.delivering() -> the animators delivering their callbacks now, from
 * C or from Lua (a reload waits for none) */
static int delivering(lua_State *L) {
  lua_pushinteger(L, anim_lua_acct_of(L)->delivering);
  return 1;
}

/* ---- the batch update ---------------------------------------------------- */

/* The scratch of core.animators_update: the animators of the list, their
 * boxes (the next call prefetches them: scan_list) and the indices of
 * those with callbacks to deliver, grown to the longest list
 * of the moment and shrunk back when lists get much shorter (through the
 * state's allocator, called directly: no collection, so no finalizer runs
 * while it is in use), and the count of calls that tells an animator
 * listed twice, and the pool of worker threads of a threaded batch (made
 * on the first batch that asks for threads, kept, made again only for
 * another count).  One per state: the registry holds it and every copy of
 * the module uses it. */
#define BATCH_KEY "anim.batch"        /* the registry's key */
#define BATCH_MT "anim.batch_scratch"  /* its metatable's */
#define BATCH_TAG 0x616e6273u
#define BATCH_MAX ANIM_MAX_BATCH
#define BATCH_MIN 64                  /* its smallest room */
#define BATCH_KEEP 1024               /* room kept whatever the lists */
typedef struct {
  unsigned tag;
  anim_mem mem;
  unsigned long long gen;
  int cap;
  anim_animator **as;  /* cap pointers, then cap box pointers, then cap ints: queued */
  anim_pool *pool;     /* NULL until a batch runs on threads */
} batch_scratch;

static size_t batch_bytes(int cap) {
  return (size_t)cap * (sizeof(anim_animator *) + sizeof(animator_box *) + sizeof(int));
}
static animator_box **batch_boxes(batch_scratch *s) { return (animator_box **)(void *)(s->as + s->cap); }
static int *batch_queued(batch_scratch *s) { return (int *)(void *)(batch_boxes(s) + s->cap); }

static batch_scratch *test_scratch(lua_State *L, int idx) {
  batch_scratch *s = luaL_testudata(L, idx, BATCH_MT);
  return s && lua_rawlen(L, idx) == sizeof *s && s->tag == BATCH_TAG ? s : NULL;
}

static int batch_gc(lua_State *L) {
  batch_scratch *s = test_scratch(L, 1);
  if (!s) return luaL_argerror(L, 1, "the batch scratch expected");
  anim_free(&s->mem, s->as, batch_bytes(s->cap));
  s->as = NULL;
  s->cap = 0;
  anim_pool_free(s->pool);
  s->pool = NULL;
  return 0;
}

/* The pool for a batch of n animators asked to run on `threads` (0: the
 * default, the processors online from ANIM_THREADS_MIN_BATCH animators
 * on), or NULL to run on the calling thread alone.  A pool that cannot be
 * made (memory, threads) is NULL too: the batch runs on one thread, which
 * gives the same results. */
static anim_pool *batch_pool(lua_State *L, batch_scratch *s, int n, int threads) {
  if (threads == 0) threads = n >= ANIM_THREADS_MIN_BATCH ? anim_pool_cores() : 1;
  if (threads > n) threads = n;
  if (threads <= 1) return NULL;
  if (s->pool && anim_pool_threads(s->pool) == threads) return s->pool;
  anim_pool_free(s->pool);
  {
    anim_mem m = anim_lua_mem(L);
    s->pool = anim_pool_new(&m, threads);
  }
  return s->pool;
}

/* Room for n animators (the contents are not kept), taken from the
 * state's allocator of the moment: grown to the power of two, or shrunk to
 * it once a list is less than a quarter of the room (and the room more
 * than BATCH_KEEP).  0 when out of memory. */
static int batch_reserve(lua_State *L, batch_scratch *s, int n) {
  int cap = BATCH_MIN;
  if (s->as && n <= s->cap && !(s->cap > BATCH_KEEP && n < s->cap / 4)) return 1;
  while (cap < n) cap = cap > BATCH_MAX / 2 ? BATCH_MAX : cap * 2;
  anim_free(&s->mem, s->as, batch_bytes(s->cap));
  s->cap = 0;
  s->mem = anim_lua_mem(L);
  s->as = anim_malloc(&s->mem, batch_bytes(cap));
  if (!s->as) return 0;
  s->cap = cap;
  /* (no box to prefetch yet) */
  memset(batch_boxes(s), 0, sizeof(animator_box *) * (size_t)cap);
  return 1;
}

static int batch_fail(lua_State *L, int code, int i, int j) {
  lua_pushinteger(L, code);
  lua_pushinteger(L, i);
  lua_pushinteger(L, j);
  return 3;
}

/* The animator box of list[i] (raw), or NULL (mt: the stack index of the
 * animators' metatable). */
static animator_box *list_box(lua_State *L, int i, int mt) {
  animator_box *b;
  lua_rawgeti(L, 1, i);
  b = anim_lua_animator_at(L, lua_gettop(L), mt);
  lua_pop(L, 1);
  return b;
}

/* Checks list[1..n]: every one an animator with its core, not delivering
 * nor queued, none twice (marks of call gen); fills as[] when not NULL.
 * 0, or the failure's values pushed (batch_fail). */
static int check_list(lua_State *L, int n, unsigned long long gen, anim_animator **as) {
  int i, mt = lua_upvalueindex(2);
  for (i = 0; i < n; i++) {
    animator_box *b = list_box(L, i + 1, mt);
    if (!b || !b->a) return batch_fail(L, ANIM_ST_NOT_ANIMATOR, i + 1, 0);
    if (b->delivering)
      return batch_fail(L, b->delivering == ANIM_DELIVERING ? ANIM_ST_DELIVERING : ANIM_ST_QUEUED, i + 1, 0);
    if (b->mark == gen) return batch_fail(L, ANIM_ST_TWICE, i + 1, b->slot);
    b->mark = gen;
    b->slot = i + 1;
    if (as) as[i] = b->a;
  }
  return 0;
}

/* A key of the list other than 1..n (raw, by lua_next: a list is its
 * elements 1 to #list, and nothing the length leaves out is ignored
 * silently): 0, or ANIM_ST_NOT_LIST, the key, n pushed. */
static int check_keys(lua_State *L, int n) {
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    /* (as a double: every version has those; n is below 2^53) */
    lua_Number k = lua_type(L, -2) == LUA_TNUMBER ? lua_tonumber(L, -2) : 0;
    lua_pop(L, 1);
    if (!(k >= 1 && k <= n && k == floor(k))) {
      lua_pushinteger(L, ANIM_ST_NOT_LIST);
      lua_insert(L, -2);
      lua_pushinteger(L, n);
      return 3;
    }
  }
  return 0;
}

/* After the batch update: the callbacks of the nq animators of pend
 * (pend[2k + 1] = the k-th with callbacks, QUEUED, the count of its
 * entries in its box), delivered in list order (lua_deliver.c), above one
 * message handler and first error; each is set false in pend once
 * delivered.  Returns nq, failed (or nil), the first error of a callback
 * (or nil). */
static int batch_deliver(lua_State *L, int nq, int failed) {
  int k, ai, base;
  lua_pushnil(L);  /* the animator delivering */
  ai = lua_gettop(L);
  base = anim_lua_deliver_open(L, 2);  /* (ai: the handler above it, then the first error) */
  for (k = 0; k < nq; k++) {
    animator_box *b;
    lua_rawgeti(L, 3, 2 * k + 1);
    lua_replace(L, ai);
    b = lua_touserdata(L, ai);  /* (a box of the list checked) */
    anim_lua_deliver_from(L, 2, base, b, ai, b->queued);
    lua_settop(L, base + 2);
    lua_pushboolean(L, 0);
    lua_rawseti(L, 3, 2 * k + 1);
  }
  lua_pushinteger(L, nq);
  if (failed > 0) lua_pushinteger(L, failed);
  else lua_pushnil(L);
  lua_pushvalue(L, base + 2);
  return 3;
}

/* Software prefetching (a hint: no effect on results, none where the
 * compiler has no such builtin); the box is written (its mark). */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_W(p) ((void)(p))
#endif
#define SCAN_AHEAD 8  /* boxes prefetched ahead of the one checked */

/* The list read in one pass, the usual case: lua_next gives each key and
 * its value at once, where check_list and check_keys walk it twice.  1 when
 * every key is an index 1..n and there are n of them (n distinct keys in
 * 1..n: exactly 1..n), every value an animator with its core, not
 * delivering nor queued, none twice (marks of call gen); as[] and boxes[]
 * are then filled.  0 at the first thing amiss: check_list and check_keys
 * then find it and name it as they always have (by index, then by key).
 * A box is prefetched SCAN_AHEAD entries ahead from boxes[], the boxes of
 * the call before (a game's list is the same from frame to frame, and the
 * update has pushed its boxes out of the cache since: a miss per animator
 * otherwise, most of this pass's time at 1000 animators); a stale pointer
 * is only a wasted hint.  The two cache lines of a box: 5.4's userdata
 * header, 32 bytes before it, and its last byte. */
static int scan_list(lua_State *L, int n, unsigned long long gen, anim_animator **as, animator_box **boxes) {
  int mt = lua_upvalueindex(2), count = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_Number k = lua_type(L, -2) == LUA_TNUMBER ? lua_tonumber(L, -2) : 0;
    animator_box *b;
    int i;
    if (!(k >= 1 && k <= n && k == floor(k))) {
      lua_pop(L, 2);
      return 0;
    }
    i = (int)k - 1;
    if (i + SCAN_AHEAD < n && boxes[i + SCAN_AHEAD]) {
      PREFETCH_W((char *)boxes[i + SCAN_AHEAD] - 32);
      PREFETCH_W((char *)boxes[i + SCAN_AHEAD] + sizeof(animator_box) - 1);
    }
    b = anim_lua_animator_at(L, -1, mt);
    lua_pop(L, 1);
    if (!b || !b->a || b->delivering || b->mark == gen) {
      lua_pop(L, 1);
      return 0;
    }
    b->mark = gen;
    as[i] = b->a;
    boxes[i] = b;
    count++;
  }
  return count == n;
}

/* The batch's skin target (arguments 5 to 7: a module buffer, or the
 * pointer the Lua side took from an object and its room in floats; the
 * layout's 12 or 16). */
static anim_skin_out *skin_arg(lua_State *L, anim_skin_out *o) {
  anim_lua_buffer *buf = anim_lua_tobuffer(L, 5);
  o->is_double = 0;
  if (buf) {
    o->data = buf->data;
    o->cap = buf->n;
    o->is_double = buf->is_double;
  } else {
    o->data = lua_touserdata(L, 5);
    luaL_argcheck(L, o->data != NULL, 5, "a pointer expected");
    o->cap = (size_t)anim_lua_checkrange(L, 6, 0, ANIM_LUA_IMAX, "room");
  }
  o->layout = (int)anim_lua_checkrange(L, 7, ANIM_SKIN_MAT3X4, ANIM_SKIN_MAT4, "layout");
  luaL_argcheck(L, o->layout == ANIM_SKIN_MAT3X4 || o->layout == ANIM_SKIN_MAT4, 7, "12 or 16 expected");
  o->offset = 0;
  o->root = NULL;
  return o;
}

/* 0 when the list's matrices fit the shared target, else its refusal
 * (ANIM_ST_SKIN_ROOM, the numbers needed, the room): checked before any
 * animator is updated, so that nothing is half written. */
static int skin_room(lua_State *L, anim_animator *const *as, int n, const anim_skin_out *o) {
  size_t need = o->offset;
  int i;
  for (i = 0; i < n; i++) need += anim_skin_size(anim_animator_rig(as[i]), o->layout);
  if (need <= o->cap) return 0;
  return batch_fail(L, ANIM_ST_SKIN_ROOM, (int)(need > INT_MAX ? INT_MAX : need), (int)(o->cap > INT_MAX ? INT_MAX : o->cap));
}

/* core.animators_update(list, dt, pend [, threads [, skin, room, layout]]) -> see batch_deliver
 * (upvalues: the scratch, the animators' metatable)
 * threads: 1 to ANIM_MAX_THREADS, or 0 or absent for the default (see
 * batch_pool); skin (a pointer), room (floats) and layout: every
 * animator's skinning matrices written there after its update, one after
 * the other in list order (anim_animators_update_skin; without them each
 * animator's own target, if it has one); with more than one, the animators' updates are split
 * between the pool's threads (anim_animators_update_pool: the same poses
 * and queues), and their callbacks are delivered in list order as ever.
 * Updates the animators list[1..#list] (raw) by dt in order, after
 * checking them all (nothing changes on a bad argument).  pend holds
 * false in 1..#pend (its room: grown here, before anything changes, so
 * that filling it allocates nothing): pend[2k + 1] gets the k-th animator
 * with callbacks to deliver, in list order, each marked QUEUED (and false
 * again once they are delivered).  failed: the index of an animator whose callback
 * queue ran out of memory (the animators after it are not updated).
 * Bad arguments return a status code (codes.h), index, index (the Lua
 * side raises): ANIM_ST_BAD_DT; ANIM_ST_NOT_ANIMATOR list[i] is not an
 * animator; ANIM_ST_DELIVERING list[i] is delivering its callbacks;
 * ANIM_ST_QUEUED list[i] has callbacks queued by a batch update still to
 * deliver; ANIM_ST_TWICE list[i] is list[j]; ANIM_ST_NOT_LIST, key, n:
 * the list holds a key that is not an index 1..n.
 * The list is checked before anything is grown for it (a table of a few
 * keys can have a raw length of 2^26: its scratch would take 2 GB), and
 * again after growing, which may run finalizers (a collection). */
static int animators_update(lua_State *L) {
  batch_scratch *s = lua_touserdata(L, lua_upvalueindex(1));
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  size_t len;
  lua_Integer room;
  int n, k, nq = 0, r, threads;
  int *queued;
  anim_pool *pool;
  anim_skin_out skin, *shared = NULL;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  threads = (int)anim_lua_optrange(L, 4, 0, 0, ANIM_MAX_THREADS, "threads");
  if (!lua_isnoneornil(L, 5)) shared = skin_arg(L, &skin);
  /* pend is written while list is read again below */
  luaL_argcheck(L, !lua_rawequal(L, 1, 3), 3, "must not be the list itself");
  len = lua_rawlen(L, 1);
  if (len > (size_t)BATCH_MAX) return luaL_error(L, "too many animators (at most %d)", BATCH_MAX);
  n = (int)len;
  if (!isfinite(dt) || dt < 0) return batch_fail(L, ANIM_ST_BAD_DT, 0, 0);
  /* what the core took is told to the collector before any pointer is
   * taken (finalizers may run) */
  anim_lua_account(L, anim_lua_acct_of(L));
  room = (lua_Integer)lua_rawlen(L, 3);
  if (!s->as || room < 2 * (lua_Integer)n || n > s->cap || (s->cap > BATCH_KEEP && n < s->cap / 4)) {
    if ((r = check_list(L, n, ++s->gen, NULL)) || (r = check_keys(L, n))) return r;
    for (; room < 2 * (lua_Integer)n;) {
      lua_pushboolean(L, 0);
      lua_rawseti(L, 3, ++room);
    }
    if (!batch_reserve(L, s, n) && !(anim_lua_retry(L) && batch_reserve(L, s, n))) return anim_lua_nomem(L);
  }
  /* (the pool is made through the state's allocator, called directly: no
   * collection, no finalizer) */
  pool = batch_pool(L, s, n, threads);
  /* The workers are woken now: they come up while the list is checked
   * (anim_pool_wake), and rest if it is refused.  From here nothing
   * allocates (no finalizer runs) and nothing raises. */
  if (pool) anim_pool_wake(pool);
  if (!scan_list(L, n, ++s->gen, s->as, batch_boxes(s)) &&
      ((r = check_list(L, n, ++s->gen, s->as)) || (r = check_keys(L, n)))) {
    if (pool) anim_pool_rest(pool);
    return r;
  }
  if (shared && (r = skin_room(L, s->as, n, shared))) {
    if (pool) anim_pool_rest(pool);
    return r;
  }
  queued = batch_queued(s);
  r = anim_animators_update_skin(pool, s->as, n, dt, shared, queued, &nq);
  /* every animator with a queue is marked before the pend table is
   * filled, which may run finalizers: a reload waits for the queues (they
   * name the clips' items by index: anim_lua_setdelivering) */
  for (k = 0; k < nq; k++) {
    animator_box *b;
    lua_rawgeti(L, 1, queued[k] + 1);
    b = lua_touserdata(L, -1);
    anim_lua_setdelivering(b, ANIM_QUEUED);
    b->queued = anim_animator_nevents(s->as[queued[k]]);
    lua_pop(L, 1);
  }
  for (k = 0; k < nq; k++) {
    lua_rawgeti(L, 1, queued[k] + 1);
    lua_rawseti(L, 3, 2 * k + 1);
  }
  return batch_deliver(L, nq, r);
}

/* core.batch_room() -> the room of the scratch (for the specs) */
static int batch_room(lua_State *L) {
  lua_pushinteger(L, ((batch_scratch *)lua_touserdata(L, lua_upvalueindex(1)))->cap);
  return 1;
}

/* (with the upvalues of a delivery from C: anim_lua_pushdeliver) */
static const luaL_Reg delivering_funcs[] = {
  {"delivering", delivering},
  {"animator_update", animator_update},
  {"deliver_handlers", anim_lua_deliver_handlers},
  {NULL, NULL}
};
/* Pushes the batch update's scratch of this state (made on first use). */
static void push_batch_scratch(lua_State *L) {
  batch_scratch *s;
  lua_getfield(L, LUA_REGISTRYINDEX, BATCH_KEY);
  if (test_scratch(L, -1)) return;
  lua_pop(L, 1);
  s = lua_newuserdatauv(L, sizeof *s, 0);
  s->tag = BATCH_TAG;
  s->mem = anim_lua_mem(L);
  s->gen = 0;
  s->cap = 0;
  s->as = NULL;
  s->pool = NULL;
  luaL_newmetatable(L, BATCH_MT);
  lua_pushcfunction(L, batch_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushliteral(L, BATCH_MT);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, BATCH_KEY);
}
void anim_lua_open_update(lua_State *L) {
  push_batch_scratch(L);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  /* (then a delivery's: batch_deliver) */
  lua_pushcclosure(L, animators_update, 2 + anim_lua_pushdeliver(L));
  lua_setfield(L, -2, "animators_update");
  push_batch_scratch(L);
  lua_pushcclosure(L, batch_room, 1);
  lua_setfield(L, -2, "batch_room");
  luaL_setfuncs(L, delivering_funcs, anim_lua_pushdeliver(L));
}
