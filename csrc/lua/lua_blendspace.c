/* lua_blendspace.c - the Lua binding of blend spaces (the friendly API,
 * with its checks and messages, is lua/anim/runtime/blendspace.lua):
 * making one, its weights and triangles, playing it on an animator, a
 * space track's parameter.  Nothing here allocates on the per-frame path
 * (track_at, track_set_at). */
#include <math.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "lua_helpers.h"

anim_space *anim_lua_checkspace(lua_State *L, int idx) {
  anim_space_box *b = anim_lua_checkbox(L, idx, ANIM_BOX_SPACE);
  if (!b->s) anim_lua_finalized(L, ANIM_BOX_SPACE);
  return b->s;
}

/* By the collector or by hand: the tracks that play the space keep it
 * (and its clips) until they end; every later use of the box raises. */
static int space_gc(lua_State *L) {
  anim_space_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_SPACE);
  anim_space_free(b->s);
  b->s = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_SPACE);
  return 0;
}

/* The parameter at idx, idx + 1 (the second only in 2D). */
static void check_at(lua_State *L, int idx, int dim, double p[2]) {
  p[0] = luaL_checknumber(L, idx);
  p[1] = dim == 2 ? luaL_checknumber(L, idx + 1) : 0;
  if (!isfinite(p[0]) || !isfinite(p[1])) anim_lua_argerror(L, idx, "parameter must be finite");
}

/* The space of the n clips in the table at 1 (read raw: no code runs
 * between taking the clips and making the space, so that no finalizer may
 * free one in between). */
static anim_space *make_space(lua_State *L, int n, int dim, const double (*at)[2], int sync, int markers,
                              const char **err) {
  const anim_clip *clips[ANIM_MAX_SPACE_POINTS];
  anim_mem m = anim_lua_mem(L);
  int i;
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, 1, i + 1);
    clips[i] = anim_lua_checkclip(L, -1);
    lua_pop(L, 1);
  }
  return anim_space_new(&m, n, dim, clips, at, sync, markers, err);
}

/* core.space_new(clips, places, dim, sync, info, markers) -> space | nil, message
 * clips: { clip, ... }; places: { x, ... } (1D) or { {x, y}, ... } (2D);
 * info: the Lua side's table of the space (its user value); markers: a
 * codes.markers code (which points fire their items).  The tables are
 * read raw. */
static int space_new(lua_State *L) {
  double at[ANIM_MAX_SPACE_POINTS][2];
  lua_Integer n, i;
  int dim = (int)anim_lua_checkrange(L, 3, 1, 2, "dimensions"), sync = lua_toboolean(L, 4);
  int markers = (int)anim_lua_checkrange(L, 6, 0, ANIM_MARKERS_COUNT - 1, "markers mode");
  const char *err = NULL;
  anim_space_box *b;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 1);
  luaL_argcheck(L, n >= 1 && n <= ANIM_MAX_SPACE_POINTS, 1, "1 to 64 points");
  luaL_argcheck(L, (lua_Integer)lua_rawlen(L, 2) == n, 2, "one place per clip");
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, 1, i + 1);
    anim_lua_checkclip(L, -1);  /* (for the message: taken again below) */
    lua_pop(L, 1);
    lua_rawgeti(L, 2, i + 1);
    if (dim == 1) {
      at[i][0] = luaL_checknumber(L, -1);
      at[i][1] = 0;
    } else {
      int k;
      luaL_checktype(L, -1, LUA_TTABLE);
      for (k = 0; k < 2; k++) { lua_rawgeti(L, -1, k + 1); at[i][k] = luaL_checknumber(L, -1); lua_pop(L, 1); }
    }
    lua_pop(L, 1);
  }
  b = anim_lua_newbox(L, ANIM_BOX_SPACE, sizeof *b, 1);
  b->s = make_space(L, (int)n, dim, (const double (*)[2])at, sync, markers, &err);
  if (!b->s && err == ANIM_CLIP_NOMEM && anim_lua_retry(L))
    b->s = make_space(L, (int)n, dim, (const double (*)[2])at, sync, markers, &err);
  if (!b->s) {
    if (err == ANIM_CLIP_NOMEM) return anim_lua_nomem(L);
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushvalue(L, 5);
  lua_setiuservalue(L, -2, 1);
  anim_lua_account(L, anim_lua_acct_of(L));
  return 1;
}

static int space_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_SPACE, 1); }

/* core.space_weights(space, x [, y]) -> { w1, ..., wn } */
static int space_weights(lua_State *L) {
  anim_space *s = anim_lua_checkspace(L, 1);
  double p[2], w[ANIM_MAX_SPACE_POINTS];
  check_at(L, 2, s->dim, p);
  anim_space_weights(s, p, w);
  anim_lua_pushnumbers(L, w, (size_t)s->n);
  return 1;
}

/* core.space_triangles(space) -> { {i, j, k}, ... } (1-based, counter-clockwise) */
static int space_triangles(lua_State *L) {
  int i, k, ntri = anim_lua_checkspace(L, 1)->ntri;
  lua_createtable(L, ntri, 0);
  for (i = 0; i < ntri; i++) {
    lua_createtable(L, 3, 0);
    /* (taken again after each table made: finalizers may have run) */
    for (k = 0; k < 3; k++) { lua_pushinteger(L, anim_lua_checkspace(L, 1)->tri[i][k] + 1); lua_rawseti(L, -2, k + 1); }
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* core.animator_play_space(animator, space, fade, weight, speed,
 *   priority|nil, bindings, callbacks, x [, y]) -> track | nil, point,
 *   property index, other arity | false
 * bindings: { bindings of point 1's clip, ... } (anim_lua_checkbindings,
 * read raw).  nil, i, p, n: property p (1-based) of point i's clip has
 * another number of components than the n a track on the animator gives
 * that name.  false: a point's clip was reloaded since the call began (by
 * a finalizer that reading the bindings, making the track's box or a
 * collection to find memory ran): the caller makes the bindings again.
 * The bounds the bindings are checked against are read first, the
 * animator and the space taken again after each of those. */
static int animator_play_space(lua_State *L) {
  const anim_binding *binds[ANIM_MAX_SPACE_POINTS];
  int nbind[ANIM_MAX_SPACE_POINTS], njoints[ANIM_MAX_SPACE_POINTS], i, tb, n, rn, tries;
  unsigned gen[ANIM_MAX_SPACE_POINTS];
  anim_play_opts o;
  double p[2];
  anim_track *t;
  {
    anim_animator *a = anim_lua_checkanimator(L, 1);
    anim_space *s = anim_lua_checkspace(L, 2);
    anim_lua_checkplayopts(L, 3, &o);
    luaL_checktype(L, 7, LUA_TTABLE);
    luaL_checktype(L, 8, LUA_TTABLE);
    check_at(L, 9, s->dim, p);
    n = s->n;
    rn = anim_animator_rig(a)->n;
    for (i = 0; i < n; i++) {
      njoints[i] = s->clip[i]->njoints;
      gen[i] = s->clip[i]->gen;
    }
  }
  luaL_argcheck(L, (lua_Integer)lua_rawlen(L, 7) == n, 7, "one list of bindings per point");
  luaL_checkstack(L, n + 4, "too many points");
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, 7, i + 1);
    binds[i] = anim_lua_checkbindings(L, -1, njoints[i], gen[i], rn, &nbind[i]);
    if (!binds[i]) { lua_pushboolean(L, 0); return 1; }
    lua_replace(L, -2);  /* the array stays on the stack while it is read */
  }
  tb = anim_lua_newtrack(L);
  for (tries = 0;; tries++) {
    anim_animator *a = anim_lua_checkanimator(L, 1);
    anim_space *s = anim_lua_checkspace(L, 2);
    for (i = 0; i < n; i++) {
      int which = 0, other = 0;
      if (s->clip[i]->gen != gen[i]) { lua_pushboolean(L, 0); return 1; }
      if (anim_props_conflict(a, s->clip[i], NULL, &which, &other) != ANIM_PROPS_OK) {
        lua_pushnil(L);
        lua_pushinteger(L, i + 1);
        lua_pushinteger(L, which + 1);
        lua_pushinteger(L, other);
        return 4;
      }
    }
    t = anim_animator_play_space(a, s, &o, binds, nbind, p);
    if (t || tries > 0 || !anim_lua_retry(L)) break;
  }
  anim_lua_settrack(L, tb, t, 2, 1, 8);
  return 1;
}

/* core.track_at(track) -> x [, y] (nothing: not a blend space's track) */
static int track_at(lua_State *L) {
  anim_track *t = anim_lua_checktrack(L, 1);
  double p[2];
  const anim_space *s = anim_track_space(t);
  if (!s || !anim_track_at(t, p)) return 0;
  lua_pushnumber(L, p[0]);
  if (s->dim == 1) return 1;
  lua_pushnumber(L, p[1]);
  return 2;
}

/* core.track_set_at(track, x [, y]) -> true | false (not a space's track) */
static int track_set_at(lua_State *L) {
  anim_track *t = anim_lua_checktrack(L, 1);
  const anim_space *s = anim_track_space(t);
  double p[2];
  if (!s) { lua_pushboolean(L, 0); return 1; }
  check_at(L, 2, s->dim, p);
  lua_pushboolean(L, anim_track_set_at(t, p));
  return 1;
}

static const luaL_Reg funcs[] = {
  {"space_new", space_new},
  {"space_info", space_info},
  {"space_weights", space_weights},
  {"space_triangles", space_triangles},
  {"animator_play_space", animator_play_space},
  {"track_at", track_at},
  {"track_set_at", track_set_at},
  {NULL, NULL}
};

void anim_lua_open_blendspace(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_SPACE, space_gc, "space_metatable");
  luaL_setfuncs(L, funcs, 0);
}
