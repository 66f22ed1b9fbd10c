/* lua_override.c - the Lua binding of joint overrides (override.h): add,
 * set and remove by id.  The handle scripts hold is
 * lua/anim/runtime/override.lua; setting its fields every frame calls
 * core.override_set, which allocates nothing. */
#include <limits.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/override.h"
#include "lua_helpers.h"

/* (the arguments are read first: nothing between taking the animator and
 * using it runs Lua code) */
static anim_animator *checked_animator(lua_State *L) {
  anim_animator_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  return b->a;
}

/* The override from arguments from..from+13: joint (0-based), mode
 * (ANIM_OVR_*), channels (ANIM_CH_*), weight, px, py, pz, qx, qy, qz, qw,
 * sx, sy, sz. */
static void read_override(lua_State *L, int from, anim_override *o) {
  int k;
  /* (each in its range before it becomes an int: 2^32 is no joint 0) */
  o->joint = (int)anim_lua_checkrange(L, from, 0, INT_MAX, "joint");
  o->mode = (int)anim_lua_checkrange(L, from + 1, 0, ANIM_OVERRIDE_COUNT - 1, "mode");
  o->channels = (int)anim_lua_checkrange(L, from + 2, 0, ANIM_CH_POS | ANIM_CH_ROT | ANIM_CH_SCL, "channels");
  o->weight = luaL_checknumber(L, from + 3);
  for (k = 0; k < 3; k++) o->pos[k] = luaL_checknumber(L, from + 4 + k);
  for (k = 0; k < 4; k++) o->rot[k] = luaL_checknumber(L, from + 7 + k);
  for (k = 0; k < 3; k++) o->scl[k] = luaL_checknumber(L, from + 11 + k);
}

/* core.override_add(animator, joint, mode, channels, weight, p3, q4, s3)
 * -> id | nil (out of range: the Lua side checked, so a bug) */
static int override_add(lua_State *L) {
  anim_override o;
  long long id;
  read_override(L, 2, &o);
  id = anim_override_add(checked_animator(L), &o);
  if (id == 0) return anim_lua_nomem(L);
  if (id < 0) return luaL_error(L, "override out of range");
  lua_pushinteger(L, (lua_Integer)id);
  return 1;
}

/* core.override_set(animator, id, joint, mode, channels, weight, p3, q4, s3) */
static int override_set(lua_State *L) {
  lua_Integer id = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "id");
  anim_override o;
  read_override(L, 3, &o);
  if (anim_override_set(checked_animator(L), id, &o) < 0) return luaL_error(L, "no such override, or out of range");
  return 0;
}

/* core.override_remove(animator, id) -> whether it was there */
static int override_remove(lua_State *L) {
  lua_Integer id = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "id");
  lua_pushboolean(L, anim_override_remove(checked_animator(L), id) == 0);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"override_add", override_add},
  {"override_set", override_set},
  {"override_remove", override_remove},
  {NULL, NULL}
};

void anim_lua_open_override(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
