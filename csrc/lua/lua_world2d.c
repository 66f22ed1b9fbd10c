/* lua_world2d.c - the binding of the 2D stage (csrc/core/world2d.c): an
 * animator given a 2D skeleton's block, and a bone's world matrix read.
 * The description is made by lua/anim/format/skeleton2d.lua, which has
 * checked the user's table; a description of another shape is a bug of
 * the module's and raises.  The friendly face is animator:world2d in
 * lua/anim/runtime/animator2d.lua.
 *
 *   desc.bones = { { inherit = ANIM_INHERIT_* code, shear_x, shear_y,
 *                    length, shear_name = "<bone>.shear" }, ... }  -- rig order
 *   desc.ik    = { { bone1, bone2 (0: one bone), target (1-based),
 *                    mix, softness, bend (1 / -1), compress, stretch,
 *                    uniform (booleans), name = "ik.<n>",
 *                    flags = "ik.<n>.flags" }, ... }
 *   desc.ops   = { kind, index (1-based), kind, index, ... }  -- the update order */
#include "lua.h"
#include "lauxlib.h"

#include "core/world2d.h"
#include "lua_helpers.h"

static double num_field(lua_State *L, int t, const char *k) {
  double v;
  if (lua_getfield(L, t, k) != LUA_TNUMBER) luaL_error(L, "2D description: field '%s' must be a number", k);
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static int int_field(lua_State *L, int t, const char *k) {
  double v = num_field(L, t, k);
  if (!(v >= -1e6 && v <= 1e9)) luaL_error(L, "2D description: field '%s' out of range", k);
  return (int)v;
}

static int bool_field(lua_State *L, int t, const char *k) {
  int v;
  lua_getfield(L, t, k);
  v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* a string of the description: it stays on the stack (the caller's
 * settop drops it) so that the pointer stays good */
static const char *str_field(lua_State *L, int t, const char *k, size_t *len) {
  if (lua_getfield(L, t, k) != LUA_TSTRING) luaL_error(L, "2D description: field '%s' must be a string", k);
  return lua_tolstring(L, -1, len);
}

static int list(lua_State *L, int d, const char *k) {
  if (lua_getfield(L, d, k) != LUA_TTABLE) luaL_error(L, "2D description: field '%s' must be a table", k);
  return (int)lua_rawlen(L, -1);
}

/* core.world2d_attach(animator, desc): the animator's updates run the 2D
 * stage from now on */
static int world2d_attach(lua_State *L) {
  int nb, nik, nops, bt, it, ot, i, top;
  anim_w2d_bone *bones;
  anim_w2d_ik *ik;
  int *ops;
  const char *err = NULL;
  anim_world2d *w;
  anim_mem m;
  anim_lua_checkanimator(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  nb = list(L, 2, "bones");
  bt = lua_gettop(L);
  nik = list(L, 2, "ik");
  it = lua_gettop(L);
  nops = list(L, 2, "ops");
  ot = lua_gettop(L);
  if (nb < 1 || nb > ANIM_MAX_RIG_JOINTS || nik > 4 * ANIM_MAX_RIG_JOINTS || nops % 2 ||
      nops > 2 * (nb + nik) * (nik + 1))
    luaL_error(L, "2D description: bad counts");
  /* (scratch in userdata: nothing to free on an error) */
  bones = lua_newuserdata(L, sizeof *bones * (size_t)nb);
  ik = lua_newuserdata(L, sizeof *ik * (size_t)(nik ? nik : 1));
  ops = lua_newuserdata(L, sizeof(int) * (size_t)(nops ? nops : 1));
  for (i = 0; i < nb; i++) {
    top = lua_gettop(L);
    if (lua_rawgeti(L, bt, i + 1) != LUA_TTABLE) luaL_error(L, "2D description: a bone must be a table");
    bones[i].inherit = int_field(L, top + 1, "inherit");
    bones[i].shear[0] = num_field(L, top + 1, "shear_x");
    bones[i].shear[1] = num_field(L, top + 1, "shear_y");
    bones[i].length = num_field(L, top + 1, "length");
    bones[i].shear_name = str_field(L, top + 1, "shear_name", &bones[i].shear_len);
    /* (the table keeps the string: the pointer stays good) */
    lua_settop(L, top);
  }
  for (i = 0; i < nik; i++) {
    anim_w2d_ik *k = &ik[i];
    top = lua_gettop(L);
    if (lua_rawgeti(L, it, i + 1) != LUA_TTABLE) luaL_error(L, "2D description: a constraint must be a table");
    k->bones[0] = int_field(L, top + 1, "bone1") - 1;
    k->bones[1] = int_field(L, top + 1, "bone2") - 1;
    k->nbones = k->bones[1] < 0 ? 1 : 2;
    k->target = int_field(L, top + 1, "target") - 1;
    k->mix = num_field(L, top + 1, "mix");
    k->softness = num_field(L, top + 1, "softness");
    k->bend = int_field(L, top + 1, "bend") < 0 ? -1 : 1;
    k->compress = bool_field(L, top + 1, "compress");
    k->stretch = bool_field(L, top + 1, "stretch");
    k->uniform = bool_field(L, top + 1, "uniform");
    k->name = str_field(L, top + 1, "name", &k->name_len);
    k->flags = str_field(L, top + 1, "flags", &k->flags_len);
    lua_settop(L, top);
  }
  for (i = 0; i < nops; i++) {
    lua_rawgeti(L, ot, i + 1);
    if (!lua_isnumber(L, -1)) luaL_error(L, "2D description: a step must be numbers");
    ops[i] = (int)lua_tonumber(L, -1) - (i % 2);  /* (indices 1-based: 0-based in C) */
    lua_pop(L, 1);
  }
  m = anim_lua_mem(L);
  w = anim_world2d_new(&m, nb, bones, nik, ik, nops / 2, ops, &err);
  if (!w && err) return luaL_error(L, "2D description: %s", err);
  if (!w) return anim_lua_nomem(L);
  /* (the animator taken again: nothing above ran Lua code, but stay safe) */
  if (anim_animator_set_world2d(anim_lua_checkanimator(L, 1), w) != 0) {
    anim_world2d_free(w);
    return luaL_error(L, "2D description: %d bones for a rig of another number of joints", nb);
  }
  return 0;
}

/* core.animator_world2d(animator, bone) -> a, b, c, d, x, y (bone: 1-based;
 * the Lua face has checked the name) */
static int animator_world2d(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  lua_Integer j = luaL_checkinteger(L, 2);
  double m[6];
  int i;
  if (j < 1 || j > anim_animator_rig(a)->n || anim_animator_world2d(a, (int)j - 1, m) != 0)
    return luaL_error(L, "no 2D bone %d on this animator", (int)j);
  for (i = 0; i < 6; i++) lua_pushnumber(L, m[i]);
  return 6;
}

static const luaL_Reg funcs[] = {
  {"world2d_attach", world2d_attach},
  {"animator_world2d", animator_world2d},
  {NULL, NULL}
};

void anim_lua_open_world2d(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
