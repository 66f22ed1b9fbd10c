/* lua_animator.c - the Lua binding of rigs, animators and tracks.  The
 * friendly API (callbacks, options, names) is lua/anim/animator.lua; this
 * file moves numbers between Lua and the C core without allocating on the
 * per-frame paths (update, event, get, pose_into). */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/animator.h"
#include "lua_helpers.h"
#include "core/rig.h"

#define RIG_MT "anim.rig"
#define ANIMATOR_MT "anim.animator"
#define TRACK_MT "anim.track"

typedef struct { anim_rig *rig; } rig_box;
/* delivering: DELIVERING while the Lua side delivers this animator's
 * callbacks (an update from one of them is refused, not re-entered);
 * QUEUED from the batch update that queued them until their delivery
 * starts (an update then would drop them: refused too).  mark, slot: the
 * batch update's call and list index that last saw this animator (an
 * animator listed twice is refused). */
enum { IDLE, DELIVERING, QUEUED };
typedef struct {
  anim_animator *a;
  int delivering;
  int slot;
  unsigned long long mark;
} animator_box;
typedef struct { anim_track *t; } track_box;

/* ---- rigs --------------------------------------------------------------- */

static anim_rig *check_rig(lua_State *L, int idx) {
  rig_box *b = luaL_checkudata(L, idx, RIG_MT);
  if (!b->rig) luaL_argerror(L, idx, "rig is not built");
  return b->rig;
}

static int rig_gc(lua_State *L) {
  rig_box *b = luaL_checkudata(L, 1, RIG_MT);
  anim_rig_free(b->rig);
  b->rig = NULL;
  return 0;
}

/* core.rig_new(names, parents, pivots, rotations, info) -> rig
 * parents: 1-based indices or 0; pivots {x,y,z}; rotations {x,y,z,w}.
 * Returns nil, message for a cycle. */
static int rig_new(lua_State *L) {
  lua_Integer n, i;
  const char **names;
  int *parent;
  double (*pivot)[3], (*rot)[4];
  const char *err = NULL;
  rig_box *b;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  n = luaL_len(L, 1);
  if (n < 1 || n > 65536) return luaL_error(L, "a rig needs 1 to 65536 joints");
  names = lua_newuserdatauv(L, (size_t)n * (sizeof(char *) + sizeof(int) + sizeof(double) * 7) + sizeof(int), 0);
  parent = (int *)(names + n);
  pivot = (double (*)[3])(void *)(parent + n + (n & 1));
  rot = (double (*)[4])(pivot + n);
  for (i = 0; i < n; i++) {
    int a;
    lua_geti(L, 1, i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "rig joint names must be strings");
    names[i] = lua_tostring(L, -1);
    lua_pop(L, 1); /* the names table keeps the string alive */
    lua_geti(L, 2, i + 1);
    parent[i] = (int)luaL_checkinteger(L, -1) - 1;
    lua_pop(L, 1);
    lua_geti(L, 3, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    for (a = 0; a < 3; a++) { lua_geti(L, -1, a + 1); pivot[i][a] = luaL_checknumber(L, -1); lua_pop(L, 1); }
    lua_pop(L, 1);
    lua_geti(L, 4, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    for (a = 0; a < 4; a++) { lua_geti(L, -1, a + 1); rot[i][a] = luaL_checknumber(L, -1); lua_pop(L, 1); }
    lua_pop(L, 1);
  }
  b = lua_newuserdatauv(L, sizeof *b, 1);
  b->rig = NULL;
  luaL_setmetatable(L, RIG_MT);
  {
    anim_mem m = anim_lua_mem(L);
    b->rig = anim_rig_new(&m, (int)n, names, parent, (const double (*)[3])pivot, (const double (*)[4])rot, &err);
  }
  if (!b->rig && err && strcmp(err, "not enough memory") == 0) return anim_lua_nomem(L);
  if (!b->rig) {
    lua_pushnil(L);
    lua_pushstring(L, err ? err : "cannot build the rig");
    return 2;
  }
  lua_pushvalue(L, 5);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int rig_info(lua_State *L) {
  luaL_checkudata(L, 1, RIG_MT);
  lua_getiuservalue(L, 1, 1);
  return 1;
}

/* core.rig_joints(rig) -> array of { name, parent (name or nil), pivot,
 * rest rotation, rig-space rest rotation } in the rig's order (parents
 * first). */
static void push_numbers(lua_State *L, const double *v, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) { lua_pushnumber(L, v[i]); lua_rawseti(L, -2, i + 1); }
}

static int rig_joints(lua_State *L) {
  anim_rig *r = check_rig(L, 1);
  int i;
  lua_createtable(L, r->n, 0);
  for (i = 0; i < r->n; i++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, r->names[i]);
    lua_setfield(L, -2, "name");
    if (r->parent[i] >= 0) { lua_pushstring(L, r->names[r->parent[i]]); lua_setfield(L, -2, "parent"); }
    push_numbers(L, r->pivot[i], 3);
    lua_setfield(L, -2, "position");
    push_numbers(L, r->rest_rot[i], 4);
    lua_setfield(L, -2, "rotation");
    push_numbers(L, r->rig_rot[i], 4);
    lua_setfield(L, -2, "rig_rotation");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* Joint index (0-based) from a name or a 1-based index. */
static int joint_arg(lua_State *L, const anim_rig *r, int idx) {
  int j;
  if (lua_type(L, idx) == LUA_TSTRING) {
    j = anim_rig_find(r, lua_tostring(L, idx));
    if (j < 0) return luaL_error(L, "unknown joint '%s'", lua_tostring(L, idx));
    return j;
  }
  if (lua_isinteger(L, idx)) {
    lua_Integer k = lua_tointeger(L, idx);
    if (k < 1 || k > r->n) return luaL_error(L, "joint index %d out of range", (int)k);
    return (int)k - 1;
  }
  return luaL_typeerror(L, idx, "joint name or index");
}

/* ---- animators ---------------------------------------------------------- */

static anim_animator *check_animator(lua_State *L, int idx) {
  animator_box *b = luaL_checkudata(L, idx, ANIMATOR_MT);
  if (!b->a) luaL_argerror(L, idx, "animator is not built");
  return b->a;
}

static int animator_gc(lua_State *L) {
  animator_box *b = luaL_checkudata(L, 1, ANIMATOR_MT);
  anim_animator_free(b->a);
  b->a = NULL;
  return 0;
}

/* core.animator_new(rig, side, state) -> animator (uservalues: rig, state) */
static int animator_new(lua_State *L) {
  anim_rig *r = check_rig(L, 1);
  int side = (int)luaL_checkinteger(L, 2);
  animator_box *b;
  luaL_checktype(L, 3, LUA_TTABLE);
  if (side < ANIM_SIDE_BOTH || side > ANIM_SIDE_CLIENT) return luaL_argerror(L, 2, "bad side");
  b = lua_newuserdatauv(L, sizeof *b, 2);
  b->a = NULL;
  b->delivering = IDLE;
  b->slot = 0;
  b->mark = 0;
  luaL_setmetatable(L, ANIMATOR_MT);
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
  animator_box *b = luaL_testudata(L, 1, ANIMATOR_MT);
  if (b) b->delivering = lua_toboolean(L, 2) ? DELIVERING : IDLE;
  return 0;
}

static int animator_state(lua_State *L) {
  luaL_checkudata(L, 1, ANIMATOR_MT);
  lua_getiuservalue(L, 1, 2);
  return 1;
}

static double opt_field(lua_State *L, int t, const char *k, double dflt) {
  double v = dflt;
  if (lua_getfield(L, t, k) != LUA_TNIL) v = luaL_checknumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static void read_quat(lua_State *L, int t, const char *k, double q[4]) {
  int a;
  lua_getfield(L, t, k);
  luaL_checktype(L, -1, LUA_TTABLE);
  for (a = 0; a < 4; a++) { lua_geti(L, -1, a + 1); q[a] = luaL_checknumber(L, -1); lua_pop(L, 1); }
  lua_pop(L, 1);
}

/* core.animator_play(animator, clip, fade, weight, speed, priority|nil,
 *                    bindings, callbacks) -> track
 * bindings: { { cj = 1-based clip joint, rj = 1-based rig joint,
 *               pre = quat?, post = quat?, pscale = number? }, ... } */
static int animator_play(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  anim_clip *c = anim_lua_checkclip(L, 2);
  anim_play_opts o;
  anim_binding *binds;
  lua_Integer nb, i;
  track_box *tb;
  const anim_rig *r = anim_animator_rig(a);
  o.fade = luaL_checknumber(L, 3);
  o.weight = luaL_checknumber(L, 4);
  o.speed = luaL_checknumber(L, 5);
  o.has_priority = !lua_isnoneornil(L, 6);
  o.priority = o.has_priority ? luaL_checknumber(L, 6) : 0;
  luaL_checktype(L, 7, LUA_TTABLE);
  luaL_checktype(L, 8, LUA_TTABLE);
  nb = luaL_len(L, 7);
  if (nb < 0 || nb > 65536) return luaL_error(L, "too many bindings");
  binds = lua_newuserdatauv(L, sizeof(anim_binding) * (size_t)(nb ? nb : 1), 0);
  for (i = 0; i < nb; i++) {
    anim_binding *bd = &binds[i];
    int t;
    lua_geti(L, 7, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    t = lua_gettop(L);
    bd->cj = (int)opt_field(L, t, "cj", 0) - 1;
    bd->rj = (int)opt_field(L, t, "rj", 0) - 1;
    if (bd->cj < 0 || bd->cj >= c->njoints || bd->rj < 0 || bd->rj >= r->n)
      return luaL_error(L, "binding out of range");
    bd->pscale = opt_field(L, t, "pscale", 1);
    bd->convert = lua_getfield(L, t, "pre") != LUA_TNIL;
    lua_pop(L, 1);
    if (bd->convert) { read_quat(L, t, "pre", bd->pre); read_quat(L, t, "post", bd->post); }
    lua_pop(L, 1);
  }
  tb = lua_newuserdatauv(L, sizeof *tb, 3);
  tb->t = NULL;
  luaL_setmetatable(L, TRACK_MT);
  tb->t = anim_animator_play(a, c, &o, binds, (int)nb);
  if (!tb->t) return anim_lua_nomem(L);
  anim_track_retain(tb->t);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 2);
  lua_pushvalue(L, 8);
  lua_setiuservalue(L, -2, 3);
  return 1;
}

/* core.animator_update(animator, dt) -> number of queued callbacks, or -1
 * when dt is not a finite number >= 0, -2 during a delivery of this
 * animator's callbacks and -3 while a batch update has yet to deliver
 * them (nothing changed then: the Lua side raises). */
static int animator_update(lua_State *L) {
  animator_box *b = luaL_checkudata(L, 1, ANIMATOR_MT);
  int r;
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  if (!b->a) return luaL_argerror(L, 1, "animator is not built");
  if (!isfinite(dt) || dt < 0) r = -1;
  else if (b->delivering) r = b->delivering == DELIVERING ? -2 : -3;
  else r = 0;
  if (r < 0) { lua_pushinteger(L, r); return 1; }
  r = anim_animator_update(b->a, dt);
  if (r == -2) return luaL_error(L, "not enough memory for the callback queue");
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
#define BATCH_MAX (1 << 26)
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
 * Bad arguments return a code, index, index (the Lua side raises): -1 dt;
 * -2 list[i] is not an animator; -3 list[i] is delivering its callbacks;
 * -4 list[i] has callbacks queued by a batch update still to deliver; -5
 * list[i] is list[j]. */
static int animators_update(lua_State *L) {
  batch_scratch *s = lua_touserdata(L, lua_upvalueindex(1));
  double dt = lua_type(L, 2) == LUA_TNUMBER ? lua_tonumber(L, 2) : -1;  /* no strings */
  lua_Unsigned len;
  lua_Integer room;
  unsigned long long gen;
  int n, i, k, nq = 0, r, mt;
  int *queued;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  /* pend is written while list is read again below */
  luaL_argcheck(L, !lua_rawequal(L, 1, 3), 3, "must not be the list itself");
  len = lua_rawlen(L, 1);
  if (len > BATCH_MAX) return luaL_error(L, "too many animators (at most %d)", BATCH_MAX);
  n = (int)len;
  if (!isfinite(dt) || dt < 0) return batch_fail(L, -1, 0, 0);
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
    if (!b || !b->a) return batch_fail(L, -2, i + 1, 0);
    if (b->delivering) return batch_fail(L, b->delivering == DELIVERING ? -3 : -4, i + 1, 0);
    if (b->mark == gen) return batch_fail(L, -5, i + 1, b->slot);
    b->mark = gen;
    b->slot = i + 1;
    s->as[i] = b->a;
  }
  r = anim_animators_update(s->as, n, dt, queued, &nq);
  for (k = 0; k < nq; k++) {
    animator_box *b;
    lua_rawgeti(L, 1, queued[k] + 1);
    b = lua_touserdata(L, -1);
    b->delivering = QUEUED;
    lua_rawseti(L, 3, 2 * k + 1);
    lua_pushinteger(L, anim_animator_nevents(s->as[queued[k]]));
    lua_rawseti(L, 3, 2 * k + 2);
  }
  lua_pushinteger(L, nq);
  if (r > 0) { lua_pushinteger(L, r); return 2; }
  return 1;
}

/* core.animator_event(animator, i) -> type, track id, kind, index, late
 * type: "item" | "looped" | "stopped" | "ended" (interned strings);
 * kind, index: the item's kind (0 marker .. 3 play) and 1-based index in
 * file order within its kind (nil for state callbacks). */
static int animator_event(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  const anim_event *e = anim_animator_event(a, (int)luaL_checkinteger(L, 2) - 1);
  static const char *const types[] = {"item", "looped", "stopped", "ended"};
  if (!e) return 0;
  lua_pushstring(L, types[e->type]);
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
  return 5;
}

/* The animator at index 1 of a reader of the pose (called per joint, per
 * character, per frame): its metatable is compared with the one in the
 * reader's upvalue instead of being looked up in the registry by name. */
static anim_animator *reader_animator(lua_State *L) {
  animator_box *b = lua_touserdata(L, 1);
  if (b && lua_getmetatable(L, 1)) {
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (same && b->a) return b->a;
  }
  return check_animator(L, 1);  /* raises the usual message */
}

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

static anim_track *check_track(lua_State *L, int idx) {
  track_box *b = luaL_checkudata(L, idx, TRACK_MT);
  if (!b->t) luaL_argerror(L, idx, "track is not built");
  return b->t;
}

static int track_gc(lua_State *L) {
  track_box *b = luaL_checkudata(L, 1, TRACK_MT);
  if (b->t) anim_track_release(b->t);
  b->t = NULL;
  return 0;
}

/* core.track_uservalue(track, n) -> clip (1), animator (2), callbacks (3) */
static int track_uservalue(lua_State *L) {
  luaL_checkudata(L, 1, TRACK_MT);
  lua_getiuservalue(L, 1, (int)luaL_checkinteger(L, 2));
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

/* ---- retarget maps: plain userdata holding their Lua description ------- */

#define RETARGET_MT "anim.retarget"

/* core.retarget_new(info) -> map (info as its user value) */
static int retarget_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_newuserdatauv(L, 0, 1);
  luaL_setmetatable(L, RETARGET_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int retarget_info(lua_State *L) {
  luaL_checkudata(L, 1, RETARGET_MT);
  lua_getiuservalue(L, 1, 1);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"retarget_new", retarget_new},
  {"retarget_info", retarget_info},
  {"rig_new", rig_new},
  {"rig_info", rig_info},
  {"rig_joints", rig_joints},
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

static void new_meta(lua_State *L, const char *name, lua_CFunction gc, const char *field) {
  luaL_newmetatable(L, name);
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_setfield(L, -2, field);
}

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
  new_meta(L, RIG_MT, rig_gc, "rig_metatable");
  new_meta(L, ANIMATOR_MT, animator_gc, "animator_metatable");
  push_batch_scratch(L);
  luaL_getmetatable(L, ANIMATOR_MT);
  lua_pushcclosure(L, animators_update, 2);
  lua_setfield(L, -2, "animators_update");
  new_meta(L, TRACK_MT, track_gc, "track_metatable");
  luaL_newmetatable(L, RETARGET_MT);
  lua_setfield(L, -2, "retarget_metatable");
  luaL_setfuncs(L, funcs, 0);
  luaL_getmetatable(L, ANIMATOR_MT);
  luaL_setfuncs(L, readers, 1);
}
