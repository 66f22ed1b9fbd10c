/* lua_gameplay.c - the Lua binding of root motion, queued clips and
 * constraints (csrc/core/gameplay.h).  The friendly API, with its checks
 * and messages, is lua/anim/runtime/animator.lua and ik.lua; these move
 * numbers.  animator_root_motion and ik_set are called every frame: they
 * allocate nothing. */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* core.animator_set_root_motion(animator, joint index (1-based) | nil) */
static int set_root_motion(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  int j = lua_isnoneornil(L, 2) ? -1
          : (int)anim_lua_checkrange(L, 2, 1, anim_animator_rig(a)->n, "joint index") - 1;
  anim_animator_set_root_motion(a, j);
  return 0;
}

/* core.animator_root_motion(animator) -> dx, dy, dz, qx, qy, qz, qw */
static int root_motion(lua_State *L) {
  double m[7];
  int i;
  anim_animator_root_motion(anim_lua_upanimator(L), m);
  for (i = 0; i < 7; i++) lua_pushnumber(L, m[i]);
  return 7;
}

/* core.animator_set_clock(animator, speed, paused): the time scale (the
 * Lua side refused one not finite or below 0) and the pause;
 * core.animator_clock(animator) -> speed, paused */
static int set_clock(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  anim_animator_set_speed(a, luaL_checknumber(L, 2));
  anim_animator_set_paused(a, lua_toboolean(L, 3));
  return 0;
}

static int get_clock(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  lua_pushnumber(L, anim_animator_speed(a));
  lua_pushboolean(L, anim_animator_paused(a));
  return 2;
}

/* core.animator_root_motion_joint(animator) -> 1-based joint index | nil */
static int root_motion_joint(lua_State *L) {
  int j = anim_animator_root_motion_joint(anim_lua_checkanimator(L, 1));
  if (j < 0) return 0;
  lua_pushinteger(L, j + 1);
  return 1;
}

/* core.track_queue_after(track, after) -> 1 queued, 0 after has ended, -1 refused */
static int queue_after(lua_State *L) {
  lua_pushinteger(L, anim_track_queue_after(anim_lua_checktrack(L, 1), anim_lua_checktrack(L, 2)));
  return 1;
}

/* core.track_layer(track) -> the state machine layer that started it (0-based), -1 */
static int track_layer(lua_State *L) {
  lua_pushinteger(L, anim_track_layer(anim_lua_checktrack(L, 1)));
  return 1;
}

/* core.track_queued(track) -> boolean */
static int track_queued(lua_State *L) {
  lua_pushboolean(L, anim_track_queued(anim_lua_checktrack(L, 1)));
  return 1;
}

static void check3(lua_State *L, int idx, double v[3]) {
  int k;
  for (k = 0; k < 3; k++) v[k] = luaL_checknumber(L, idx + k);
}

/* core.ik_add(animator, kind, j1, j2, j3, target xyz, pole xyz, forward
 * xyz, up xyz, weight, soften) -> id (> 0), -1 out of memory, -2 refused
 * (joints 1-based; an aim constraint reads j1 only) */
static int ik_add(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  int n = anim_animator_rig(a)->n, k;
  anim_ik_desc d;
  long long id;
  d.kind = (int)anim_lua_checkrange(L, 2, 0, ANIM_IK_COUNT - 1, "constraint kind");
  for (k = 0; k < 3; k++) d.j[k] = (int)anim_lua_checkrange(L, 3 + k, 1, n, "joint index") - 1;
  check3(L, 6, d.target);
  check3(L, 9, d.pole);
  check3(L, 12, d.fwd);
  check3(L, 15, d.up);
  d.weight = luaL_checknumber(L, 18);
  d.soften = luaL_checknumber(L, 19);
  id = anim_ik_add(a, &d);
  if (id == -1) return anim_lua_nomem(L);
  lua_pushinteger(L, (lua_Integer)id);
  return 1;
}

/* core.ik_remove(animator, id) -> boolean */
static int ik_remove(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  lua_pushboolean(L, anim_ik_remove(a, anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "id")));
  return 1;
}

/* core.ik_set(animator, id, field, x [, y, z]) -> boolean (a field of one
 * number reads x only) */
static int ik_set(lua_State *L) {
  anim_animator *a = anim_lua_upanimator(L);
  lua_Integer id = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "id");
  int f = (int)anim_lua_checkrange(L, 3, 0, ANIM_IKFIELD_COUNT - 1, "constraint field");
  double v[3] = { 0, 0, 0 };
  if (f == ANIM_IKF_TARGET || f == ANIM_IKF_POLE) check3(L, 4, v);
  else v[0] = luaL_checknumber(L, 4);
  lua_pushboolean(L, anim_ik_set(a, id, f, v));
  return 1;
}

/* core.ik_get(animator, id, field) -> x, y, z | x | nothing (no such constraint) */
static int ik_get(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  lua_Integer id = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "id");
  int f = (int)anim_lua_checkrange(L, 3, 0, ANIM_IKFIELD_COUNT - 1, "constraint field"), k;
  double v[3];
  if (!anim_ik_get(a, id, f, v)) return 0;
  if (f != ANIM_IKF_TARGET && f != ANIM_IKF_POLE) { lua_pushnumber(L, v[0]); return 1; }
  for (k = 0; k < 3; k++) lua_pushnumber(L, v[k]);
  return 3;
}

static const luaL_Reg funcs[] = {
  {"animator_set_root_motion", set_root_motion},
  {"animator_set_clock", set_clock},
  {"animator_clock", get_clock},
  {"animator_root_motion_joint", root_motion_joint},
  {"track_queue_after", queue_after},
  {"track_queued", track_queued},
  {"track_layer", track_layer},
  {"ik_add", ik_add},
  {"ik_remove", ik_remove},
  {"ik_get", ik_get},
  {NULL, NULL}
};

/* Called every frame: the animator metatable is their upvalue. */
static const luaL_Reg per_frame[] = {
  {"ik_set", ik_set},
  {NULL, NULL}
};
static const anim_lua_method methods[] = {
  {"animator_root_motion", "root_motion", root_motion},
  {NULL, NULL, NULL}
};

void anim_lua_open_gameplay(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  luaL_setfuncs(L, per_frame, 1);
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  anim_lua_setmethods(L, "animator_methods", methods, 1);
}
