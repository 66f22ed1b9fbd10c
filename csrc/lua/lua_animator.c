/* lua_animator.c - the Lua binding of animators and tracks.  The
 * friendly API (callbacks, options, names) is lua/anim/animator.lua; this
 * file moves numbers between Lua and the C core without allocating on the
 * per-frame paths (update, event, get, pose_into). */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "lua_helpers.h"

typedef anim_animator_box animator_box;
typedef anim_track_box track_box;

/* "no joint 'x' in rig 'player'; did you mean 'X'?" for the name at idx:
 * the rig's name from its Lua info (the animator at 1 holds the rig as
 * its first user value). */
static int no_joint(lua_State *L, const anim_rig *r, int idx) {
  const char *name = lua_tostring(L, idx), *hint = anim_lua_suggest(name, r->names, r->n);
  const char *rig = "rig";
  if (lua_getiuservalue(L, 1, 1) == LUA_TUSERDATA && lua_getiuservalue(L, -1, 1) == LUA_TTABLE &&
      lua_getfield(L, -1, "name") == LUA_TSTRING)
    rig = lua_tostring(L, -1);
  if (hint) return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'; did you mean '%s'?", name, rig, hint);
  return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'", name, rig);
}

/* Joint index (0-based) from a name or a 1-based index. */
static int joint_arg(lua_State *L, const anim_rig *r, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    int j = anim_rig_find(r, lua_tostring(L, idx));
    if (j < 0) return no_joint(L, r, idx);
    return j;
  }
  if (lua_type(L, idx) != LUA_TNUMBER)
    return anim_lua_argerror(L, idx, "joint name or index expected, got %s", anim_lua_typename(L, idx));
  return (int)anim_lua_checkrange(L, idx, 1, r->n, "joint index") - 1;
}

/* ---- animators ---------------------------------------------------------- */

#define check_animator anim_lua_checkanimator

static int animator_gc(lua_State *L) {
  animator_box *b = luaL_checkudata(L, 1, ANIM_ANIMATOR_MT);
  anim_animator_free(b->a);
  b->a = NULL;
  return 0;
}

/* core.animator_new(rig, side, state) -> animator (uservalues: rig, state) */
static int animator_new(lua_State *L) {
  anim_rig *r = anim_lua_checkrig(L, 1);
  int side = (int)anim_lua_checkrange(L, 2, 0, ANIM_SIDE_COUNT - 1, "side");
  animator_box *b;
  luaL_checktype(L, 3, LUA_TTABLE);
  b = lua_newuserdatauv(L, sizeof *b, 2);
  b->a = NULL;
  b->delivering = ANIM_IDLE;
  b->slot = 0;
  b->mark = 0;
  luaL_setmetatable(L, ANIM_ANIMATOR_MT);
  {
    anim_mem m = anim_lua_mem(L);
    b->a = anim_animator_new(&m, r, side);
  }
  if (!b->a) return anim_lua_nomem(L);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 3);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

/* core.animator_delivering(animator, flag): never raises (an animator
 * collected by a __gc called by hand is left alone), so that the Lua side
 * always releases the animators it delivers. */
static int animator_delivering(lua_State *L) {
  animator_box *b = luaL_testudata(L, 1, ANIM_ANIMATOR_MT);
  if (b) b->delivering = lua_toboolean(L, 2) ? ANIM_DELIVERING : ANIM_IDLE;
  return 0;
}

static int animator_state(lua_State *L) { return anim_lua_uservalue(L, ANIM_ANIMATOR_MT, 2); }

/* core.animator_play(animator, clip, fade, weight, speed, priority|nil,
 *                    bindings, callbacks) -> track | nil, property index,
 *                    other arity
 * bindings: see anim_lua_checkbindings (lua_helpers.c).  nil, p, n: the
 * clip's property p (1-based) has another number of components than the
 * n a track on the animator gives that name (propmix.h). */
static int animator_play(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  anim_clip *c = anim_lua_checkclip(L, 2);
  anim_play_opts o;
  anim_binding *binds;
  int nb, tb;
  anim_lua_checkplayopts(L, 3, &o);
  luaL_checktype(L, 8, LUA_TTABLE);
  binds = anim_lua_checkbindings(L, 7, c, anim_animator_rig(a), &nb);
  {
    int which = 0, other = 0;
    if (anim_props_conflict(a, c, NULL, &which, &other) != ANIM_PROPS_OK) {
      lua_pushnil(L);
      lua_pushinteger(L, which + 1);
      lua_pushinteger(L, other);
      return 3;
    }
  }
  tb = anim_lua_newtrack(L);
  anim_lua_settrack(L, tb, anim_animator_play(a, c, &o, binds, nb), 2, 1, 8);
  return 1;
}

/* core.animator_update(animator, dt) -> number of queued callbacks, or a
 * status code (codes.h; nothing changed then: the Lua side raises):
 * ANIM_ST_NOT_ANIMATOR when 1 is not an animator (the Lua side names its
 * caller's line), ANIM_ST_BAD_DT when dt is not a finite number >= 0, ANIM_ST_DELIVERING
 * during a delivery of this animator's callbacks, ANIM_ST_QUEUED while a
 * batch update has yet to deliver them. */
static int animator_update(lua_State *L) {
  animator_box *b = luaL_testudata(L, 1, ANIM_ANIMATOR_MT);
  int r;
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  if (!b) { lua_pushinteger(L, ANIM_ST_NOT_ANIMATOR); return 1; }
  if (!b->a) return luaL_argerror(L, 1, "animator is not built");
  if (!isfinite(dt) || dt < 0) r = ANIM_ST_BAD_DT;
  else if (b->delivering) r = b->delivering == ANIM_DELIVERING ? ANIM_ST_DELIVERING : ANIM_ST_QUEUED;
  else r = ANIM_ST_OK;
  if (r != ANIM_ST_OK) { lua_pushinteger(L, r); return 1; }
  r = anim_animator_update(b->a, dt);
  if (r == ANIM_ST_NOMEM) return luaL_error(L, "not enough memory for the callback queue");
  lua_pushinteger(L, anim_animator_nevents(b->a));
  return 1;
}

/* ---- the batch update ---------------------------------------------------- */

/* The scratch of core.animators_update: the animators of the list and the
 * indices of those with callbacks to deliver, grown to the longest list
 * seen (through the state's allocator, called directly: no collection,
 * so no finalizer runs while it is in use), and the count of calls that
 * tells an animator listed twice.  One per state: the registry holds it
 * and every copy of the module uses it. */
#define BATCH_KEY "anim.batch"        /* the registry's key */
#define BATCH_MT "anim.batch_scratch"  /* its metatable's */
#define BATCH_MAX ANIM_MAX_BATCH
typedef struct {
  anim_mem mem;
  unsigned long long gen;
  int cap;
  anim_animator **as;  /* cap pointers, then cap ints: queued */
} batch_scratch;

static size_t batch_bytes(int cap) { return (size_t)cap * (sizeof(anim_animator *) + sizeof(int)); }

static int batch_gc(lua_State *L) {
  batch_scratch *s = luaL_checkudata(L, 1, BATCH_MT);
  anim_free(&s->mem, s->as, batch_bytes(s->cap));
  s->as = NULL;
  s->cap = 0;
  return 0;
}

/* Room for n animators (the contents are not kept), taken from the
 * state's allocator of the moment; 0 when out of memory. */
static int batch_reserve(lua_State *L, batch_scratch *s, int n) {
  int cap = s->cap ? s->cap : 64;
  if (n <= s->cap) return 1;
  while (cap < n) cap = cap > BATCH_MAX / 2 ? BATCH_MAX : cap * 2;
  anim_free(&s->mem, s->as, batch_bytes(s->cap));
  s->cap = 0;
  s->mem = anim_lua_mem(L);
  s->as = anim_malloc(&s->mem, batch_bytes(cap));
  if (!s->as) return 0;
  s->cap = cap;
  return 1;
}

static int batch_fail(lua_State *L, int code, int i, int j) {
  lua_pushinteger(L, code);
  lua_pushinteger(L, i);
  lua_pushinteger(L, j);
  return 3;
}

/* core.animators_update(list, dt, pend) -> nqueued [, failed]
 * (upvalues: the scratch, the animators' metatable)
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
 * deliver; ANIM_ST_TWICE list[i] is list[j]. */
static int animators_update(lua_State *L) {
  batch_scratch *s = lua_touserdata(L, lua_upvalueindex(1));
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  size_t len;
  lua_Integer room;
  unsigned long long gen;
  int n, i, k, nq = 0, r, mt;
  int *queued;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  /* pend is written while list is read again below */
  luaL_argcheck(L, !lua_rawequal(L, 1, 3), 3, "must not be the list itself");
  len = lua_rawlen(L, 1);
  if (len > (size_t)BATCH_MAX) return luaL_error(L, "too many animators (at most %d)", BATCH_MAX);
  n = (int)len;
  if (!isfinite(dt) || dt < 0) return batch_fail(L, ANIM_ST_BAD_DT, 0, 0);
  for (room = (lua_Integer)lua_rawlen(L, 3); room < 2 * (lua_Integer)n;) {
    lua_pushboolean(L, 0);
    lua_rawseti(L, 3, ++room);
  }
  if (!batch_reserve(L, s, n)) return anim_lua_nomem(L);
  queued = (int *)(void *)(s->as + s->cap);
  gen = ++s->gen;
  mt = lua_upvalueindex(2);
  for (i = 0; i < n; i++) {
    animator_box *b = NULL;
    lua_rawgeti(L, 1, i + 1);
    if (lua_getmetatable(L, -1)) {
      if (lua_rawequal(L, -1, mt)) b = lua_touserdata(L, -2);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!b || !b->a) return batch_fail(L, ANIM_ST_NOT_ANIMATOR, i + 1, 0);
    if (b->delivering)
      return batch_fail(L, b->delivering == ANIM_DELIVERING ? ANIM_ST_DELIVERING : ANIM_ST_QUEUED, i + 1, 0);
    if (b->mark == gen) return batch_fail(L, ANIM_ST_TWICE, i + 1, b->slot);
    b->mark = gen;
    b->slot = i + 1;
    s->as[i] = b->a;
  }
  r = anim_animators_update(s->as, n, dt, queued, &nq);
  for (k = 0; k < nq; k++) {
    animator_box *b;
    lua_rawgeti(L, 1, queued[k] + 1);
    b = lua_touserdata(L, -1);
    b->delivering = ANIM_QUEUED;
    lua_rawseti(L, 3, 2 * k + 1);
    lua_pushinteger(L, anim_animator_nevents(s->as[queued[k]]));
    lua_rawseti(L, 3, 2 * k + 2);
  }
  lua_pushinteger(L, nq);
  if (r > 0) { lua_pushinteger(L, r); return 2; }
  return 1;
}

/* core.animator_event(animator, i) -> type, track id, kind, index, late, point
 * type: an ANIM_EV_* code; kind, index: the item's kind (ANIM_ITEM_*) and
 * 1-based index in file order within its kind (nil for state
 * callbacks); point: for a blend space's track, the 1-based point whose
 * clip has the item (nil otherwise); nothing when there is no event i. */
static int animator_event(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
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

/* The animator at index 1 of a reader of the pose (lua_helpers.h). */
#define reader_animator anim_lua_upanimator

static int push10(lua_State *L, const double *v) {
  int i;
  for (i = 0; i < 10; i++) lua_pushnumber(L, v[i]);
  return 10;
}

static int animator_get(lua_State *L) {
  anim_animator *a = reader_animator(L);
  double v[10];
  anim_animator_get(a, joint_arg(L, anim_animator_rig(a), 2), v, NULL);
  return push10(L, v);
}

static int animator_animated(lua_State *L) {
  anim_animator *a = reader_animator(L);
  double v[10];
  int f;
  anim_animator_get(a, joint_arg(L, anim_animator_rig(a), 2), v, &f);
  lua_pushboolean(L, f & ANIM_CH_POS);
  lua_pushboolean(L, f & ANIM_CH_ROT);
  lua_pushboolean(L, f & ANIM_CH_SCL);
  return 3;
}

static int animator_local(lua_State *L) {
  anim_animator *a = reader_animator(L);
  double v[10];
  anim_animator_local(a, joint_arg(L, anim_animator_rig(a), 2), v);
  return push10(L, v);
}

static int animator_world(lua_State *L) {
  anim_animator *a = reader_animator(L);
  double v[10];
  anim_animator_world(a, joint_arg(L, anim_animator_rig(a), 2), v);
  return push10(L, v);
}

/* core.animator_pose_into(animator, t [, which]) fills t[name] with a
 * 10-number array per joint (created once, then reused): which is
 * "offsets" (default), "local" or "world". */
static int animator_pose_into(lua_State *L) {
  anim_animator *a = reader_animator(L);
  const anim_rig *r = anim_animator_rig(a);
  const char *which = luaL_optstring(L, 3, "offsets");
  int j, k, mode = which[0] == 'w' ? 2 : which[0] == 'l' ? 1 : 0;
  luaL_checktype(L, 2, LUA_TTABLE);
  for (j = 0; j < r->n; j++) {
    double v[10];
    if (mode == 2) anim_animator_world(a, j, v);
    else if (mode == 1) anim_animator_local(a, j, v);
    else anim_animator_get(a, j, v, NULL);
    if (lua_getfield(L, 2, r->names[j]) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_createtable(L, 10, 0);
      lua_pushvalue(L, -1);
      lua_setfield(L, 2, r->names[j]);
    }
    for (k = 0; k < 10; k++) { lua_pushnumber(L, v[k]); lua_rawseti(L, -2, k + 1); }
    lua_pop(L, 1);
  }
  lua_settop(L, 2);
  return 1;
}

/* ---- tracks ------------------------------------------------------------- */

#define check_track anim_lua_checktrack

static int track_gc(lua_State *L) {
  track_box *b = luaL_checkudata(L, 1, ANIM_TRACK_MT);
  if (b->t) anim_track_release(b->t);
  b->t = NULL;
  return 0;
}

/* core.track_uservalue(track, n) -> clip (1), animator (2), callbacks (3) */
static int track_uservalue(lua_State *L) {
  anim_lua_checkbox(L, 1, ANIM_TRACK_MT);
  lua_getiuservalue(L, 1, (int)anim_lua_checkrange(L, 2, 1, 3, "user value"));
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
  {"animator_update", animator_update},
  {"animator_delivering", animator_delivering},
  {"animator_event", animator_event},
  {"track_uservalue", track_uservalue},
  {"track_state", track_state},
  {"track_time", track_time},
  {"track_stop", track_stop},
  {"track_adjust_weight", track_adjust_weight},
  {"track_adjust_speed", track_adjust_speed},
  {"track_seek", track_seek},
  {"track_restart", track_restart},
  {NULL, NULL}
};

/* The readers of the pose: the animator metatable is their upvalue. */
static const luaL_Reg readers[] = {
  {"animator_get", animator_get},
  {"animator_animated", animator_animated},
  {"animator_local", animator_local},
  {"animator_world", animator_world},
  {"animator_pose_into", animator_pose_into},
  {NULL, NULL}
};

/* Pushes the batch update's scratch of this state (made on first use). */
static void push_batch_scratch(lua_State *L) {
  batch_scratch *s;
  lua_getfield(L, LUA_REGISTRYINDEX, BATCH_KEY);
  if (luaL_testudata(L, -1, BATCH_MT)) return;
  lua_pop(L, 1);
  s = lua_newuserdatauv(L, sizeof *s, 0);
  s->mem = anim_lua_mem(L);
  s->gen = 0;
  s->cap = 0;
  s->as = NULL;
  luaL_newmetatable(L, BATCH_MT);
  lua_pushcfunction(L, batch_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, BATCH_KEY);
}

void anim_lua_open_animator(lua_State *L) {
  anim_lua_newmeta(L, ANIM_ANIMATOR_MT, animator_gc, "animator_metatable");
  push_batch_scratch(L);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  lua_pushcclosure(L, animators_update, 2);
  lua_setfield(L, -2, "animators_update");
  anim_lua_newmeta(L, ANIM_TRACK_MT, track_gc, "track_metatable");
  luaL_setfuncs(L, funcs, 0);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  luaL_setfuncs(L, readers, 1);
}
