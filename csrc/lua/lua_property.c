/* lua_property.c - the Lua binding of an animator's property channels:
 * the blended value of a name after an update (read per frame: allocates
 * nothing) and the names known, for messages.  The friendly face is
 * animator:property in lua/anim/runtime/animator.lua. */
#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "lua_helpers.h"

/* core.animator_property(animator, name) -> v1 [, v2, ...] | nil (known,
 * no value) | false (not known) */
static int animator_property(lua_State *L) {
  size_t len;
  /* (the name first: a number converted to one may run a collection) */
  const char *name = luaL_checklstring(L, 2, &len);
  anim_animator *a = anim_lua_upanimator(L);
  const double *v;
  int n = anim_animator_property(a, name, len, &v), i;
  if (n < 0) { lua_pushboolean(L, 0); return 1; }
  if (n == 0) { lua_pushnil(L); return 1; }
  luaL_checkstack(L, n, "too many components");
  for (i = 0; i < n; i++) lua_pushnumber(L, v[i]);
  return n;
}

/* core.animator_property_names(animator) -> { name, ... } (the known ones) */
static int animator_property_names(lua_State *L) {
  anim_animator_box *b = anim_lua_reader_box(L);
  const char *s;
  size_t len;
  int n = 0;
  lua_newtable(L);
  /* (the animator taken again after each string made: finalizers may run) */
  for (;;) {
    if (!b->a) return anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
    if (!(s = anim_animator_property_name(b->a, n, &len))) break;
    lua_pushlstring(L, s, len);
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

static const luaL_Reg funcs[] = {
  {"animator_property", animator_property},
  {"animator_property_names", animator_property_names},
  {NULL, NULL}
};

void anim_lua_open_property(lua_State *L) {
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  luaL_setfuncs(L, funcs, 1);
}
