/* lua_animator.c - the Lua binding of animators and tracks.  The
 * friendly API (callbacks, options, names) is lua/anim/animator.lua; this
 * file moves numbers between Lua and the C core without allocating on the
 * per-frame paths (update, event, get, pose_into). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/pool.h"
#include "core/propmix.h"
#include "lua_helpers.h"

typedef anim_animator_box animator_box;
typedef anim_track_box track_box;

/* "no joint 'x' in rig 'player'; did you mean 'X'?" for the name at idx:
 * the rig's name from its Lua info (the animator at 1 holds the rig as
 * its first user value). */
static int no_joint(lua_State *L, const anim_rig *r, int idx) {
  const char *hint = anim_lua_suggest(lua_tostring(L, idx), r->names, r->n);
  const char *rig = "rig", *name = anim_lua_shown(L, idx);
  if (lua_getiuservalue(L, 1, 1) == LUA_TUSERDATA && lua_getiuservalue(L, -1, 1) == LUA_TTABLE &&
      lua_getfield(L, -1, "name") == LUA_TSTRING)
    rig = anim_lua_shown(L, -1);
  /* (every name quoted cut: anim_lua_shown) */
  if (hint)
    return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'; did you mean '%s'?", name, rig,
                             anim_lua_pushshown(L, hint, strlen(hint), 0));
  return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'", name, rig);
}

/* Joint index (0-based) from a name or a 1-based index.  Out of line: the
 * readers of one joint (below) have their usual path inline
 * (ANIM_LUA_HOT), and this inlined there too would have its registers
 * saved and restored on every read. */
static ANIM_LUA_COLD int joint_arg(lua_State *L, const anim_rig *r, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t len;
    const char *name = lua_tolstring(L, idx, &len);
    int j;
    /* (rig joint names hold no NUL: "a\0b" is no joint, not "a") */
    if (strlen(name) != len) return anim_lua_argerror(L, idx, "unknown joint (the name holds a NUL byte)");
    j = anim_rig_find(r, name);
    if (j < 0) return no_joint(L, r, idx);
    return j;
  }
  if (lua_type(L, idx) != LUA_TNUMBER)
    return anim_lua_argerror(L, idx, "joint name or index expected, got %s", anim_lua_typename(L, idx));
  return (int)anim_lua_checkrange(L, idx, 1, r->n, "joint index") - 1;
}

/* ---- animators ---------------------------------------------------------- */

#define check_animator anim_lua_checkanimator

/* By the collector or by hand (a script may reach the metatable): the
 * animator is freed (tracks retained elsewhere stay valid, no longer
 * playing) and every later use of it raises. */
static int animator_gc(lua_State *L) {
  animator_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  anim_animator_free(b->a);
  b->a = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_ANIMATOR);
  return 0;
}

/* core.animator_new(rig, side, state) -> animator (uservalues: rig, state,
 * then its callbacks for the delivery from C: animator_set_callbacks) */
static int animator_new(lua_State *L) {
  int side;
  animator_box *b;
  anim_mem m;
  anim_lua_checkrig(L, 1);
  side = (int)anim_lua_checkrange(L, 2, 0, ANIM_SIDE_COUNT - 1, "side");
  luaL_checktype(L, 3, LUA_TTABLE);
  b = anim_lua_newbox(L, ANIM_BOX_ANIMATOR, sizeof *b, 5);
  m = anim_lua_mem(L);
  b->acct = m.ud;
  /* (the rig is taken again after making the box: that may have run
   * finalizers, and the retry collects) */
  ANIM_LUA_RETRY(L, b->a, anim_animator_new(&m, anim_lua_checkrig(L, 1), side));
  if (!b->a) return anim_lua_nomem(L);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 3);
  lua_setiuservalue(L, -2, 2);
  anim_lua_account(L, b->acct);
  return 1;
}

/* core.animator_delivering(animator, flag): never raises (an animator
 * collected by a __gc called by hand is left alone), so that the Lua side
 * always releases the animators it delivers. */
static int animator_delivering(lua_State *L) {
  animator_box *b = anim_lua_testbox_any(L, 1, ANIM_BOX_ANIMATOR);
  if (b) anim_lua_setdelivering(b, lua_toboolean(L, 2) ? ANIM_DELIVERING : ANIM_IDLE);
  return 0;
}

static int animator_state(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_ANIMATOR, 2); }

/* core.animator_play(animator, clip, fade, weight, speed, priority|nil,
 *                    bindings, callbacks) -> track | nil, property index,
 *                    other arity | false
 * bindings: as anim_lua_checkbindings reads them (lua_helpers.h).  nil, p, n:
 * the clip's property p (1-based) has another number of components than
 * the n a track on the animator gives that name (propmix.h).  false: the
 * clip was reloaded since the call began (by a finalizer that reading the
 * bindings, making the track's box or a collection to find memory ran):
 * the bindings are for its old content, the caller makes them again.
 * The animator and the clip are taken again after each of those. */
static int animator_play(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  anim_clip *c = anim_lua_checkclip(L, 2);
  unsigned gen = c->gen;
  int njoints = c->njoints, rn = anim_animator_rig(a)->n;
  anim_play_opts o;
  anim_binding *binds;
  anim_track *t;
  int nb, tb, tries;
  anim_lua_checkplayopts(L, 3, &o);
  luaL_checktype(L, 8, LUA_TTABLE);
  binds = anim_lua_checkbindings(L, 7, njoints, gen, rn, &nb);
  if (!binds) { lua_pushboolean(L, 0); return 1; }
  tb = anim_lua_newtrack(L);
  for (tries = 0;; tries++) {
    int which = 0, other = 0;
    c = anim_lua_checkclip(L, 2);
    a = check_animator(L, 1);
    if (c->gen != gen) { lua_pushboolean(L, 0); return 1; }
    if (anim_props_conflict(a, c, NULL, &which, &other) != ANIM_PROPS_OK) {
      lua_pushnil(L);
      lua_pushinteger(L, which + 1);
      lua_pushinteger(L, other);
      return 3;
    }
    t = anim_animator_play(a, c, &o, binds, nb);
    if (t || tries > 0 || !anim_lua_retry(L)) break;
  }
  anim_lua_settrack(L, tb, t, 2, 1, 8);
  return 1;
}

/* core.animator_update(animator, dt) -> 0 when nothing is left to deliver
 * (the callbacks it queued were delivered from C, none failing:
 * lua_deliver.c); else the number of queued callbacks, the animator's
 * state (its second user value), the 1-based index of the first entry
 * not delivered yet and the first error of those delivered (or nil), for
 * the Lua side to deliver the rest; or a status code (codes.h; nothing
 * changed then: the Lua side raises):
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
  if (r > 0) {
    int err, from;
    b->unslots = b->acct->unslots;  /* (its queue was just made: lua_deliver.c) */
    from = anim_lua_deliver(L, b, 1, r, &err);
    if (from <= r || !lua_isnil(L, err)) {
      lua_pushinteger(L, r);
      lua_getiuservalue(L, 1, 2);
      lua_pushinteger(L, from);
      lua_pushvalue(L, err);
      return 4;
    }
  }
  lua_pushinteger(L, 0);
  return 1;
}

/* core.animator_deliver(animator, n) -> the index of the first entry not
 * delivered, the first error or nil: the batch update's delivery from C
 * of an animator's n queued entries (lua_deliver.c). */
static int animator_deliver(lua_State *L) {
  int n = (int)anim_lua_checkrange(L, 2, 0, INT_MAX, "count");
  animator_box *b = anim_lua_deliver_animator(L, 1);
  int err, from;
  lua_settop(L, 2);
  from = anim_lua_deliver(L, b, 1, n, &err);
  lua_pushinteger(L, from);
  lua_pushvalue(L, err);
  return 2;
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
 * entries in its box), delivered from C in list order (lua_deliver.c: each
 * one's entries from the first until one the Lua side must deliver), above
 * one message handler and first error, until an animator has entries left
 * for the Lua side; those delivered are set false in pend, and the count
 * of each animator left is written beside it (pend[2k + 2]).  Returns nq,
 * failed (or nil), then where the Lua side goes on: the pair of pend
 * (1-based: nq + 1 when nothing is left), the entry of its animator (nil:
 * from its first, C not having tried), and the first error of a callback
 * so far (or nil). */
static int batch_deliver(lua_State *L, int nq, int failed) {
  int k, j, from = 0, ai, base;
  lua_pushnil(L);  /* the animator delivering */
  ai = lua_gettop(L);
  base = anim_lua_deliver_open(L, 2);  /* (ai: the handler above it, then the first error) */
  for (k = 0; k < nq; k++) {
    animator_box *b;
    lua_rawgeti(L, 3, 2 * k + 1);
    lua_replace(L, ai);
    b = lua_touserdata(L, ai);  /* (a box of the list checked) */
    if (!b || !b->a) break;  /* (finalized by a callback: the Lua side raises) */
    from = anim_lua_deliver_from(L, 2, base, b, ai, b->queued);
    lua_settop(L, base + 2);
    if (from == 1 && b->delivering == ANIM_QUEUED) { from = 0; break; }  /* (not tried: where a callback may yield) */
    if (from <= b->queued) break;
    lua_pushboolean(L, 0);
    lua_rawseti(L, 3, 2 * k + 1);
    from = 0;
  }
  for (j = k; j < nq; j++) {
    lua_rawgeti(L, 3, 2 * j + 1);
    lua_pushinteger(L, ((animator_box *)lua_touserdata(L, -1))->queued);
    lua_rawseti(L, 3, 2 * j + 2);
    lua_pop(L, 1);
  }
  lua_pushinteger(L, nq);
  if (failed > 0) lua_pushinteger(L, failed);
  else lua_pushnil(L);
  lua_pushinteger(L, k + 1);
  if (from > 0) lua_pushinteger(L, from);
  else lua_pushnil(L);
  lua_pushvalue(L, base + 2);
  return 5;
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

/* core.animators_update(list, dt, pend [, threads]) -> see batch_deliver
 * (upvalues: the scratch, the animators' metatable)
 * threads: 1 to ANIM_MAX_THREADS, or 0 or absent for the default (see
 * batch_pool); with more than one, the animators' updates are split
 * between the pool's threads (anim_animators_update_pool: the same poses
 * and queues), and their callbacks are delivered in list order as ever.
 * Updates the animators list[1..#list] (raw) by dt in order, after
 * checking them all (nothing changes on a bad argument).  pend holds
 * false in 1..#pend (its room: grown here, before anything changes, so
 * that filling it allocates nothing): it gets animator, number of
 * callbacks for each animator with callbacks to deliver, in list order,
 * each marked QUEUED.  failed: the index of an animator whose callback
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
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  threads = (int)anim_lua_optrange(L, 4, 0, 0, ANIM_MAX_THREADS, "threads");
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
  queued = batch_queued(s);
  r = anim_animators_update_pool(pool, s->as, n, dt, queued, &nq);
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

/* core.animator_event(animator, i) -> type, track id, kind, index, late, point
 * type: an ANIM_EV_* code; kind, index: the item's kind (ANIM_ITEM_*) and
 * 1-based index in file order within its kind (nil for state
 * callbacks); point: for a blend space's track, the 1-based point whose
 * clip has the item (nil otherwise); nothing when there is no event i. */
static int animator_event(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  lua_Integer i = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "entry");
  const anim_event *e = i >= 1 && i <= anim_animator_nevents(a) ? anim_animator_event(a, (int)(i - 1)) : NULL;
  if (!e) return 0;
  lua_pushinteger(L, e->type);
  lua_pushinteger(L, (lua_Integer)anim_track_id(e->track));
  if (e->type == ANIM_EV_ITEM) {
    const anim_item *it = &anim_track_clip(e->track)->items[e->item];
    lua_pushinteger(L, it->kind);
    lua_pushinteger(L, it->index + 1);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  lua_pushnumber(L, e->late);
  if (anim_track_point(e->track) < 0) return 5;
  lua_pushinteger(L, anim_track_point(e->track) + 1);
  return 6;
}

/* core.animator_set_callbacks(animator, marker, event, sound): its
 * on_marker, on_event and on_sound callbacks as the delivery from C calls
 * them (lua_deliver.c: its user values 3 to 5), each the function of the
 * only connection, the list of connections, or nil (runtime/animator.lua
 * keeps them) */
static int animator_set_callbacks(lua_State *L) {
  int i;
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_ANIMATOR)) anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  lua_settop(L, 4);
  for (i = 4; i >= 2; i--) {
    int t = lua_type(L, i);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TFUNCTION || t == LUA_TTABLE, i, "function, table or nil expected");
    lua_setiuservalue(L, 1, i + 1);
  }
  return 0;
}

/* core.animator_hear(animator, mask), core.track_hear(track, mask): the
 * kinds of entries (codes.hear bits) their callbacks listen to; the Lua
 * side says so whenever a registration changes. */
static int animator_hear(lua_State *L) {
  anim_animator_hear(check_animator(L, 1), (unsigned)anim_lua_checkrange(L, 2, 0, ANIM_HEAR_ALL, "mask"));
  return 0;
}

static int track_hear(lua_State *L) {
  anim_track_hear(anim_lua_checktrack(L, 1), (unsigned)anim_lua_checkrange(L, 2, 0, ANIM_HEAR_ALL, "mask"));
  return 0;
}

/* core.animator_queued(animator) -> the entries its last update queued */
static int animator_queued(lua_State *L) {
  lua_pushinteger(L, anim_animator_nevents(check_animator(L, 1)));
  return 1;
}

/* The animator at index 1 of a reader of the pose (lua_helpers.h). */
#define reader_box anim_lua_reader_box
#define reader_animator anim_lua_upanimator

/* (written out: no loop counter and branch between the ten calls of
 * every read) */
static ANIM_LUA_HOT int push10(lua_State *L, const double *v) {
  lua_pushnumber(L, v[0]); lua_pushnumber(L, v[1]); lua_pushnumber(L, v[2]); lua_pushnumber(L, v[3]);
  lua_pushnumber(L, v[4]); lua_pushnumber(L, v[5]); lua_pushnumber(L, v[6]);
  lua_pushnumber(L, v[7]); lua_pushnumber(L, v[8]); lua_pushnumber(L, v[9]);
  return 10;
}

/* The animator of a reader of one joint (get, animated, local_transform,
 * world_transform: called per joint, per character, per frame) and the
 * joint at 2, 0-based in *j.  The usual call takes seven calls into Lua:
 * a live animator, in the five of anim_lua_animator_mt (its metatable
 * left on the stack: these readers return their results from the top),
 * and an integer index in range, in two.  Anything else goes the checked
 * way, reader_animator and joint_arg, which raise the usual messages
 * (before 5.3 every number is a float, and goes there). */
static ANIM_LUA_HOT anim_animator *joint_reader(lua_State *L, int *j) {
  animator_box *b = anim_lua_animator_mt(L, 1, lua_upvalueindex(1));
  anim_animator *a = b && b->a ? b->a : reader_animator(L);
  const anim_rig *r = anim_animator_rig(a);
  lua_Integer k;
  *j = lua_isinteger(L, 2) && (k = lua_tointeger(L, 2)) >= 1 && k <= r->n ? (int)k - 1 : joint_arg(L, r, 2);
  return a;
}

static int animator_get(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_get(a, j, v, NULL);
  return push10(L, v);
}

static int animator_animated(lua_State *L) {
  int j, f;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_get(a, j, v, &f);
  lua_pushboolean(L, f & ANIM_CH_POS);
  lua_pushboolean(L, f & ANIM_CH_ROT);
  lua_pushboolean(L, f & ANIM_CH_SCL);
  return 3;
}

static int animator_local(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_local(a, j, v);
  return push10(L, v);
}

static int animator_world(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_world(a, j, v);
  return push10(L, v);
}

/* Joint j's ten numbers into v, which by pose_into's numbering (0
 * offsets, 1 local, 2 world), from the animator of b: taken again for each
 * joint by the readers of the whole pose (a finalizer run by an
 * allocation between two joints may have finalized it by hand: then this
 * raises).  Returns it. */
static ANIM_LUA_HOT anim_animator *pose_joint(lua_State *L, animator_box *b, int mode, int j, double *v) {
  anim_animator *a = b->a;
  if (!a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  if (mode == 2) anim_animator_world(a, j, v);
  else if (mode == 1) anim_animator_local(a, j, v);
  else anim_animator_get(a, j, v, NULL);
  return a;
}

/* The `which` at 3 of pose_array (nil or absent: dflt 1, "local") and
 * pose_into (dflt 0, "offsets"): its index in POSES, pose_joint's
 * numbering.  Compared with its length, so that "world\0x" is no pose;
 * a misspelt one gets a suggestion.  The message names the default
 * first. */
static const char *const POSES[] = {"offsets", "local", "world"};
static const char *const POSES_EXPECTED[] = {"\"offsets\", \"local\" or \"world\"",
                                             "\"local\", \"world\" or \"offsets\""};
static int pose_which(lua_State *L, int dflt) {
  size_t len;
  const char *s, *hint, *expected = POSES_EXPECTED[dflt];
  int i;
  if (lua_isnoneornil(L, 3)) return dflt;
  if (lua_type(L, 3) != LUA_TSTRING)
    return anim_lua_argerror(L, 3, "%s expected, got %s", expected, anim_lua_typename(L, 3));
  s = lua_tolstring(L, 3, &len);
  for (i = 0; i < 3; i++)
    if (len == strlen(POSES[i]) && memcmp(s, POSES[i], len) == 0) return i;
  if (strlen(s) != len) return anim_lua_argerror(L, 3, "%s expected, got a string holding a NUL byte", expected);
  hint = anim_lua_suggest(s, POSES, 3);
  s = anim_lua_shown(L, 3);
  if (hint) return anim_lua_argerror(L, 3, "%s expected, got '%s'; did you mean '%s'?", expected, s, hint);
  return anim_lua_argerror(L, 3, "%s expected, got '%s'", expected, s);
}

/* core.animator_pose_into(animator, t [, which]) fills t[name] with a
 * 10-number array per joint (created once, then reused): which is
 * "offsets" (default), "local" or "world" (pose_which).  It is the method
 * animator:pose_into itself, so that its errors name the script's line
 * and argument.  t is read and written raw: no metamethod of the
 * script's runs.  Making an array may still run a collection, whose
 * finalizers may finalize the animator by hand: the animator is taken
 * again for each joint, and the joint's name is pushed before anything
 * is made. */
static int animator_pose_into(lua_State *L) {
  animator_box *b = reader_box(L);
  int j, k, n, mode;
  if (lua_type(L, 2) != LUA_TTABLE)
    return anim_lua_argerror(L, 2, "table expected, got %s", anim_lua_typename(L, 2));
  mode = pose_which(L, 0);
  lua_settop(L, 2);
  n = anim_animator_rig(b->a)->n;
  for (j = 0; j < n; j++) {
    double v[10];
    anim_animator *a = pose_joint(L, b, mode, j, v);
    lua_pushstring(L, anim_animator_rig(a)->names[j]);
    lua_pushvalue(L, -1);
    lua_rawget(L, 2);
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_createtable(L, 10, 0);
      lua_pushvalue(L, -2);
      lua_pushvalue(L, -2);
      lua_rawset(L, 2);
    }
    /* (v is on the C stack) */
    for (k = 0; k < 10; k++) { lua_pushnumber(L, v[k]); lua_rawseti(L, -2, k + 1); }
    lua_pop(L, 2);
  }
  lua_settop(L, 2);
  return 1;
}

/* out[o + 1 .. o + 10] = v[0 .. 9], out at 2, raw (written out, as
 * push10).  Each number is a push and a set, each a call into Lua that
 * moves the stack's top: most of what pose_array costs (8 to 10 ns a
 * number on the development VM, docs/performance.md).  On 5.3+ lua_seti
 * finds a slot of the array part inline where lua_rawseti calls two
 * functions of the table (about 20 % less time a number); on a table
 * without a metatable it is a raw set (a missing key is set as
 * lua_rawseti sets it), so it is used then.  Before 5.3 there is only
 * lua_rawseti, whose key is an int. */
#if LUA_VERSION_NUM >= 503
#define SET_AT(L, plain, k) ((plain) ? lua_seti(L, 2, k) : lua_rawseti(L, 2, k))
#else
#define SET_AT(L, plain, k) ((void)(plain), lua_rawseti(L, 2, (int)(k)))
#endif
static ANIM_LUA_HOT void put10(lua_State *L, int plain, lua_Integer o, const double *v) {
  lua_pushnumber(L, v[0]); SET_AT(L, plain, o + 1);
  lua_pushnumber(L, v[1]); SET_AT(L, plain, o + 2);
  lua_pushnumber(L, v[2]); SET_AT(L, plain, o + 3);
  lua_pushnumber(L, v[3]); SET_AT(L, plain, o + 4);
  lua_pushnumber(L, v[4]); SET_AT(L, plain, o + 5);
  lua_pushnumber(L, v[5]); SET_AT(L, plain, o + 6);
  lua_pushnumber(L, v[6]); SET_AT(L, plain, o + 7);
  lua_pushnumber(L, v[7]); SET_AT(L, plain, o + 8);
  lua_pushnumber(L, v[8]); SET_AT(L, plain, o + 9);
  lua_pushnumber(L, v[9]); SET_AT(L, plain, o + 10);
}

/* core.animator_pose_array(animator, out [, which]) -> out: out[10j + 1 ..
 * 10j + 10] = joint j's ten numbers (j 0-based, rig order), the numbers
 * pose_into gives; which is "local" (default), "world" or "offsets".  One
 * call a character instead of one a joint.  out is written raw (no
 * metamethod runs) and its entries past 10 * #joints are left alone; an
 * array already that long is written in place, allocating nothing, a
 * shorter one grows.  No Lua code runs in between, so out's metatable,
 * read once, stays what it was: neither set steps the collector, even
 * when it grows the table, on any runtime the binding supports (only a
 * failed allocation collects, in an emergency collection, which runs no
 * finalizer; spec/finalized_spec.lua checks it).  pose_joint takes the
 * animator again for each joint all the same (a load and a test), and
 * reads a joint's numbers onto the C stack before any is written. */
static int animator_pose_array(lua_State *L) {
  animator_box *b = reader_box(L);
  int j, n, mode, plain;
  if (lua_type(L, 2) != LUA_TTABLE)
    return anim_lua_argerror(L, 2, "table expected, got %s", anim_lua_typename(L, 2));
  mode = pose_which(L, 1);
  plain = !lua_getmetatable(L, 2);
  lua_settop(L, 2);
  n = anim_animator_rig(b->a)->n;
  for (j = 0; j < n; j++) {
    double v[10];
    pose_joint(L, b, mode, j, v);
    put10(L, plain, (lua_Integer)j * 10, v);
  }
  return 1;
}

/* ---- tracks ------------------------------------------------------------- */

#define check_track anim_lua_checktrack

/* By the collector or by hand.  The collector finalizes a track once
 * nothing plays it (it ended, or its animator goes too); by hand, a track
 * may still be playing: it ends at once (firing nothing more: its
 * callbacks are gone with it), and its animator plays on without it. */
static int track_gc(lua_State *L) {
  track_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  if (b->t) {
    anim_track_end_now(b->t);
    anim_track_release(b->t);
  }
  b->t = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_TRACK);
  return 0;
}

/* core.track_uservalue(track, n) -> clip (1), animator (2), callbacks (3),
 * marker callbacks by marker (4), the clip's marker table (5) (of a
 * finalized track too) */
static int track_uservalue(lua_State *L) {
  int n = (int)anim_lua_checkrange(L, 2, 1, 5, "user value");
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  lua_getiuservalue(L, 1, n);
  return 1;
}

/* core.track_set_dispatch(track, n, table | nil): what the delivery from C
 * reads of a track's markers (lua_deliver.c), its user value 4 (its
 * marker callbacks by marker, or false: too many) or 5 (its clip's marker
 * table), made by runtime/dispatch.lua */
static int track_set_dispatch(lua_State *L) {
  int n = (int)anim_lua_checkrange(L, 2, 4, 5, "user value");
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  luaL_argcheck(L, lua_istable(L, 3) || lua_isnil(L, 3) || (n == 4 && lua_isboolean(L, 3) && !lua_toboolean(L, 3)), 3,
                "table or nil expected (or false for 4)");
  lua_settop(L, 3);
  anim_lua_set_dispatch(L, 1, n);
  return 0;
}

/* core.track_slot(track): gives a clip's track playing on an animator its
 * slot (lua_deliver.c: its entries are delivered from C through it); once
 * (nothing for a track that has one, or a finalized one).
 * core.track_unslot(track) -> its slot, 0 when it had none: takes it back
 * (the track left its animator's live tracks). */
static int track_slot(lua_State *L) {
  anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  anim_lua_slot(L, 1);
  return 0;
}

static int track_unslot(lua_State *L) {
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  lua_pushinteger(L, anim_lua_unslot(L, 1));
  return 1;
}

static int track_state(lua_State *L) {
  anim_track *t = check_track(L, 1);
  lua_pushnumber(L, anim_track_time(t));
  lua_pushnumber(L, anim_track_speed(t));
  lua_pushnumber(L, anim_track_weight(t));
  lua_pushboolean(L, anim_track_playing(t));
  lua_pushinteger(L, (lua_Integer)anim_track_loops(t));
  lua_pushnumber(L, anim_track_fade(t));
  lua_pushinteger(L, (lua_Integer)anim_track_id(t));
  return 7;
}

static int track_time(lua_State *L) {
  lua_pushnumber(L, anim_track_time(check_track(L, 1)));
  return 1;
}

static int track_stop(lua_State *L) {
  anim_track_stop(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static int track_adjust_weight(lua_State *L) {
  anim_track_adjust_weight(check_track(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3));
  return 0;
}

static int track_adjust_speed(lua_State *L) {
  anim_track_adjust_speed(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static int track_seek(lua_State *L) {
  anim_track_seek(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static int track_restart(lua_State *L) {
  anim_track_restart(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static const luaL_Reg funcs[] = {
  {"animator_new", animator_new},
  {"animator_state", animator_state},
  {"animator_play", animator_play},
  {"delivering", delivering},
  {"animator_delivering", animator_delivering},
  {"animator_event", animator_event},
  {"animator_hear", animator_hear},
  {"animator_set_callbacks", animator_set_callbacks},
  {"animator_queued", animator_queued},
  {"track_hear", track_hear},
  {"track_uservalue", track_uservalue},
  {"track_set_dispatch", track_set_dispatch},
  {"track_slot", track_slot},
  {"track_unslot", track_unslot},
  {"track_state", track_state},
  {"track_time", track_time},
  {"track_stop", track_stop},
  {"track_adjust_weight", track_adjust_weight},
  {"track_adjust_speed", track_adjust_speed},
  {"track_seek", track_seek},
  {"track_restart", track_restart},
  {NULL, NULL}
};

/* The readers of the pose, the animator's methods themselves: the
 * animator metatable is their upvalue. */
static const anim_lua_method readers[] = {
  {"animator_get", "get", animator_get},
  {"animator_animated", "animated", animator_animated},
  {"animator_local", "local_transform", animator_local},
  {"animator_world", "world_transform", animator_world},
  {"animator_pose_into", "pose_into", animator_pose_into},
  {"animator_pose_array", "pose_array", animator_pose_array},
  {NULL, NULL, NULL}
};

/* (with the upvalues of a delivery from C: anim_lua_pushdeliver) */
static const luaL_Reg delivering_funcs[] = {
  {"animator_update", animator_update},
  {"animator_deliver", animator_deliver},
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

void anim_lua_open_animator(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_ANIMATOR, animator_gc, "animator_metatable");
  push_batch_scratch(L);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  /* (then a delivery's: batch_deliver) */
  lua_pushcclosure(L, animators_update, 2 + anim_lua_pushdeliver(L));
  lua_setfield(L, -2, "animators_update");
  push_batch_scratch(L);
  lua_pushcclosure(L, batch_room, 1);
  lua_setfield(L, -2, "batch_room");
  anim_lua_newmeta(L, ANIM_BOX_TRACK, track_gc, "track_metatable");
  luaL_setfuncs(L, funcs, 0);
  luaL_setfuncs(L, delivering_funcs, anim_lua_pushdeliver(L));
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  anim_lua_setmethods(L, readers, 1);
}
