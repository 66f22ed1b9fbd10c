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

/* core.rig_new(names, parents, pivots, rotations, info) -> rig
 * parents: 1-based indices or 0; pivots {x,y,z}; rotations {x,y,z,w}.
 * Returns nil, message for a cycle. */
static int rig_new(lua_State *L) {
  lua_Integer n, i;
  const char **names;
  int *parent;
  double (*pivot)[3], (*rot)[4];
  const char *err = NULL;
  anim_rig_box *b;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  n = luaL_len(L, 1);
  if (n < 1 || n > ANIM_MAX_RIG_JOINTS) return luaL_error(L, "a rig needs 1 to %d joints", ANIM_MAX_RIG_JOINTS);
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
    {
      lua_Number pi = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
      if (!(pi >= 0 && pi <= (lua_Number)n && pi == floor(pi)))
        return luaL_error(L, "rig joint parents must be indices 0..%d", (int)n);
      parent[i] = (int)pi - 1;
    }
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
  luaL_setmetatable(L, ANIM_RIG_MT);
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

static int rig_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_RIG_MT, 1); }

/* core.rig_joints(rig) -> array of { name, parent (name or nil), pivot,
 * rest rotation, rig-space rest rotation } in the rig's order (parents
 * first). */
static int rig_joints(lua_State *L) {
  anim_rig *r = anim_lua_checkrig(L, 1);
  int i;
  lua_createtable(L, r->n, 0);
  for (i = 0; i < r->n; i++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, r->names[i]);
    lua_setfield(L, -2, "name");
    if (r->parent[i] >= 0) { lua_pushstring(L, r->names[r->parent[i]]); lua_setfield(L, -2, "parent"); }
    anim_lua_pushnumbers(L, r->pivot[i], 3);
    lua_setfield(L, -2, "position");
    anim_lua_pushnumbers(L, r->rest_rot[i], 4);
    lua_setfield(L, -2, "rotation");
    anim_lua_pushnumbers(L, r->rig_rot[i], 4);
    lua_setfield(L, -2, "rig_rotation");
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
