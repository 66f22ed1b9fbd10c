/* lua_rig.c - the Lua binding of rigs (the C core's joint hierarchies with
 * rests) and of retarget maps (userdata holding the description
 * lua/anim/format/retarget.lua read). */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

static int rig_gc(lua_State *L) {
  anim_rig_box *b = luaL_checkudata(L, 1, ANIM_RIG_MT);
  anim_rig_free(b->rig);
  b->rig = NULL;
  return 0;
}

/* Three numbers from field a+1 of the table at the top, into v. */
static void read_vec(lua_State *L, double *v, int n) {
  int a;
  luaL_checktype(L, -1, LUA_TTABLE);
  for (a = 0; a < n; a++) { lua_geti(L, -1, a + 1); v[a] = luaL_checknumber(L, -1); lua_pop(L, 1); }
}

/* core.rig_new(names, parents, pivots, rotations, info [, translations,
 * scales]) -> rig
 * parents: 1-based indices or 0; pivots {x,y,z}; rotations {x,y,z,w};
 * translations (optional): per joint {x,y,z}, its local rest position,
 * or false (then pivot - parent pivot); scales (optional): per joint
 * {x,y,z} (default 1, 1, 1).  Returns nil, message for a cycle. */
static int rig_new(lua_State *L) {
  lua_Integer n, i;
  anim_rig_def *defs;
  const char *err = NULL;
  anim_rig_box *b;
  int has_t, has_s;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  has_t = !lua_isnoneornil(L, 6);
  has_s = !lua_isnoneornil(L, 7);
  if (has_t) luaL_checktype(L, 6, LUA_TTABLE);
  if (has_s) luaL_checktype(L, 7, LUA_TTABLE);
  n = luaL_len(L, 1);
  if (n < 1 || n > ANIM_MAX_RIG_JOINTS) return luaL_error(L, "a rig needs 1 to %d joints", ANIM_MAX_RIG_JOINTS);
  defs = lua_newuserdatauv(L, (size_t)n * sizeof *defs, 0);
  for (i = 0; i < n; i++) {
    anim_rig_def *d = &defs[i];
    int a;
    lua_geti(L, 1, i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "rig joint names must be strings");
    d->name = lua_tostring(L, -1);
    lua_pop(L, 1); /* the names table keeps the string alive */
    lua_geti(L, 2, i + 1);
    {
      lua_Number pi = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
      if (!(pi >= 0 && pi <= (lua_Number)n && pi == floor(pi)))
        return luaL_error(L, "rig joint parents must be indices 0..%d", (int)n);
      d->parent = (int)pi - 1;
    }
    lua_pop(L, 1);
    lua_geti(L, 3, i + 1);
    read_vec(L, d->pivot, 3);
    lua_pop(L, 1);
    lua_geti(L, 4, i + 1);
    read_vec(L, d->rot, 4);
    lua_pop(L, 1);
    d->local = 0;
    for (a = 0; a < 3; a++) { d->translation[a] = 0; d->scale[a] = 1; }
    if (has_t && lua_geti(L, 6, i + 1) != LUA_TNIL && lua_toboolean(L, -1)) {
      read_vec(L, d->translation, 3);
      d->local = 1;
    }
    if (has_t) lua_pop(L, 1);
    if (has_s && lua_geti(L, 7, i + 1) != LUA_TNIL) read_vec(L, d->scale, 3);
    if (has_s) lua_pop(L, 1);
  }
  b = lua_newuserdatauv(L, sizeof *b, 1);
  b->rig = NULL;
  luaL_setmetatable(L, ANIM_RIG_MT);
  {
    anim_mem m = anim_lua_mem(L);
    b->rig = anim_rig_build(&m, (int)n, defs, &err);
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

static int rig_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_RIG_MT, 1); }

/* core.rig_joints(rig) -> array of { name, parent (name or nil), pivot,
 * rest rotation, rig-space rest rotation, local rest position
 * (translation), rest scale } in the rig's order (parents first). */
static int rig_joints(lua_State *L) {
  anim_rig *r = anim_lua_checkrig(L, 1);
  int i;
  lua_createtable(L, r->n, 0);
  for (i = 0; i < r->n; i++) {
    lua_createtable(L, 0, 7);
    lua_pushstring(L, r->names[i]);
    lua_setfield(L, -2, "name");
    if (r->parent[i] >= 0) { lua_pushstring(L, r->names[r->parent[i]]); lua_setfield(L, -2, "parent"); }
    anim_lua_pushnumbers(L, r->pivot[i], 3);
    lua_setfield(L, -2, "position");
    anim_lua_pushnumbers(L, r->rest_rot[i], 4);
    lua_setfield(L, -2, "rotation");
    anim_lua_pushnumbers(L, r->rig_rot[i], 4);
    lua_setfield(L, -2, "rig_rotation");
    anim_lua_pushnumbers(L, r->rest_pos[i], 3);
    lua_setfield(L, -2, "translation");
    anim_lua_pushnumbers(L, r->rest_scl[i], 3);
    lua_setfield(L, -2, "scale");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* ---- retarget maps: plain userdata holding their Lua description ------- */

/* core.retarget_new(info) -> map (info as its user value) */
static int retarget_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_newuserdatauv(L, 0, 1);
  luaL_setmetatable(L, ANIM_RETARGET_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int retarget_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_RETARGET_MT, 1); }

static const luaL_Reg rig_funcs[] = {
  {"retarget_new", retarget_new},
  {"retarget_info", retarget_info},
  {"rig_new", rig_new},
  {"rig_info", rig_info},
  {"rig_joints", rig_joints},
  {NULL, NULL}
};

void anim_lua_open_rig(lua_State *L) {
  anim_lua_newmeta(L, ANIM_RIG_MT, rig_gc, "rig_metatable");
  anim_lua_newmeta(L, ANIM_RETARGET_MT, NULL, "retarget_metatable");
  luaL_setfuncs(L, rig_funcs, 0);
}
