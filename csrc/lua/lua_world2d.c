/* lua_world2d.c - the binding of the 2D stage (csrc/core/world2d.c): a
 * 2D skeleton's shape made from its description (once a skeleton: its
 * animators share it, csrc/core/shape2d.c), an animator given a block of
 * it, and a bone's world matrix read.  The description is made by
 * lua/anim/format/skeleton2d.lua, which has checked the user's table; a
 * description of another shape is a bug of the module's and raises.  The
 * friendly face is animator:world2d in lua/anim/runtime/animator2d.lua.
 *
 *   desc.bones = { { inherit = ANIM_INHERIT_* code, shear_x, shear_y,
 *                    length, shear_name = "<bone>.shear",
 *                    inherit_name = "<bone>.inherit",
 *                    dragonbones = 0 | ANIM_DB_* bits }, ... }  -- rig order
 *   desc.ik    = { { bone1, bone2 (0: one bone), target (1-based),
 *                    mix, softness, bend (1 / -1), compress, stretch,
 *                    uniform, dragonbones (booleans), name = "ik.<n>",
 *                    flags = "ik.<n>.flags" }, ... }
 *   desc.tc    = { { bones = { bone, ... }, target, mix = { 6 numbers },
 *                    offset = { 6 numbers }, ["local"], relative (booleans),
 *                    name = "transform.<n>" }, ... }  -- rotate x y scaleX scaleY shearY
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

/* a string of the description: the caller drops it from the stack, the
 * description (argument 1, which holds it) keeps it alive until the shape
 * has copied it, and Lua never moves a string */
static const char *str_field(lua_State *L, int t, const char *k, size_t *len) {
  if (lua_getfield(L, t, k) != LUA_TSTRING) luaL_error(L, "2D description: field '%s' must be a string", k);
  return lua_tolstring(L, -1, len);
}

/* n numbers of the array field k into out */
static void nums_field(lua_State *L, int t, const char *k, double *out, int n) {
  int i;
  if (lua_getfield(L, t, k) != LUA_TTABLE || lua_rawlen(L, -1) != (size_t)n)
    luaL_error(L, "2D description: field '%s' must be %d numbers", k, n);
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, -1, i + 1);
    if (!lua_isnumber(L, -1)) luaL_error(L, "2D description: field '%s' must be %d numbers", k, n);
    out[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static int list(lua_State *L, int d, const char *k) {
  if (lua_getfield(L, d, k) != LUA_TTABLE) luaL_error(L, "2D description: field '%s' must be a table", k);
  return (int)lua_rawlen(L, -1);
}

/* A shape's userdata: the shape (NULL once its __gc ran). */
#define SHAPE_MT "anim.world2d_shape"
typedef struct { anim_w2d_shape *shape; } shape_box;

static int shape_gc(lua_State *L) {
  shape_box *b = luaL_checkudata(L, 1, SHAPE_MT);
  anim_w2d_shape_release(b->shape);
  b->shape = NULL;
  return 0;
}

/* core.world2d_shape(desc) -> shape: what the animators of the skeleton
 * share, for core.world2d_attach */
static int world2d_shape(lua_State *L) {
  int bt, it, tt, ot, i, k, top, nb_all = 0;
  anim_w2d_bone *bones;
  anim_w2d_ik *ik;
  anim_w2d_tc *tc;
  int *ops, *tcb;
  anim_w2d_def d;
  const char *err = NULL;
  anim_mem m;
  shape_box *box;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  box = lua_newuserdata(L, sizeof *box);
  box->shape = NULL;
  luaL_setmetatable(L, SHAPE_MT);
  d.nbones = list(L, 1, "bones");
  bt = lua_gettop(L);
  d.nik = list(L, 1, "ik");
  it = lua_gettop(L);
  d.ntc = list(L, 1, "tc");
  tt = lua_gettop(L);
  d.nops = list(L, 1, "ops");
  ot = lua_gettop(L);
  if (d.nbones < 1 || d.nbones > ANIM_MAX_RIG_JOINTS || d.nik > ANIM_MAX_RIG_JOINTS ||
      d.ntc > ANIM_MAX_RIG_JOINTS || d.nops % 2 || d.nops / 2 > ANIM_MAX_2D_STEPS)
    luaL_error(L, "2D description: bad counts");
  d.nops /= 2;
  for (i = 0; i < d.ntc; i++) {
    lua_rawgeti(L, tt, i + 1);
    if (!lua_istable(L, -1) || lua_getfield(L, -1, "bones") != LUA_TTABLE)
      luaL_error(L, "2D description: a transform constraint needs its bones");
    nb_all += (int)lua_rawlen(L, -1);
    if (nb_all > ANIM_MAX_2D_STEPS) luaL_error(L, "2D description: bad counts");
    lua_pop(L, 2);
  }
  /* (scratch in userdata: nothing to free on an error) */
  bones = lua_newuserdata(L, sizeof *bones * (size_t)d.nbones);
  ik = lua_newuserdata(L, sizeof *ik * (size_t)(d.nik ? d.nik : 1));
  tc = lua_newuserdata(L, sizeof *tc * (size_t)(d.ntc ? d.ntc : 1));
  tcb = lua_newuserdata(L, sizeof(int) * (size_t)(nb_all ? nb_all : 1));
  ops = lua_newuserdata(L, sizeof(int) * 2 * (size_t)(d.nops ? d.nops : 1));
  for (i = 0; i < d.nbones; i++) {
    top = lua_gettop(L);
    if (lua_rawgeti(L, bt, i + 1) != LUA_TTABLE) luaL_error(L, "2D description: a bone must be a table");
    bones[i].inherit = int_field(L, top + 1, "inherit");
    bones[i].shear[0] = num_field(L, top + 1, "shear_x");
    bones[i].shear[1] = num_field(L, top + 1, "shear_y");
    bones[i].length = num_field(L, top + 1, "length");
    bones[i].dragonbones = int_field(L, top + 1, "dragonbones");
    bones[i].shear_name = str_field(L, top + 1, "shear_name", &bones[i].shear_len);
    bones[i].inherit_name = str_field(L, top + 1, "inherit_name", &bones[i].inherit_len);
    lua_settop(L, top);
  }
  for (i = 0; i < d.nik; i++) {
    anim_w2d_ik *c = &ik[i];
    top = lua_gettop(L);
    if (lua_rawgeti(L, it, i + 1) != LUA_TTABLE) luaL_error(L, "2D description: a constraint must be a table");
    c->bones[0] = int_field(L, top + 1, "bone1") - 1;
    c->bones[1] = int_field(L, top + 1, "bone2") - 1;
    c->nbones = c->bones[1] < 0 ? 1 : 2;
    c->target = int_field(L, top + 1, "target") - 1;
    c->mix = num_field(L, top + 1, "mix");
    c->softness = num_field(L, top + 1, "softness");
    c->bend = int_field(L, top + 1, "bend") < 0 ? -1 : 1;
    c->compress = bool_field(L, top + 1, "compress");
    c->stretch = bool_field(L, top + 1, "stretch");
    c->uniform = bool_field(L, top + 1, "uniform");
    c->dragonbones = bool_field(L, top + 1, "dragonbones");
    c->name = str_field(L, top + 1, "name", &c->name_len);
    c->flags = str_field(L, top + 1, "flags", &c->flags_len);
    lua_settop(L, top);
  }
  for (i = 0, nb_all = 0; i < d.ntc; i++) {
    anim_w2d_tc *c = &tc[i];
    int n;
    top = lua_gettop(L);
    lua_rawgeti(L, tt, i + 1);
    lua_getfield(L, top + 1, "bones");
    n = (int)lua_rawlen(L, -1);
    c->first = nb_all;
    c->count = n;
    for (k = 0; k < n; k++) {
      lua_rawgeti(L, -1, k + 1);
      if (!lua_isnumber(L, -1)) luaL_error(L, "2D description: a bone index must be a number");
      tcb[nb_all++] = (int)lua_tonumber(L, -1) - 1;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    c->target = int_field(L, top + 1, "target") - 1;
    nums_field(L, top + 1, "mix", c->mix, 6);
    nums_field(L, top + 1, "offset", c->offset, 6);
    c->local = bool_field(L, top + 1, "local");
    c->relative = bool_field(L, top + 1, "relative");
    c->name = str_field(L, top + 1, "name", &c->name_len);
    lua_settop(L, top);
  }
  for (i = 0; i < 2 * d.nops; i++) {
    lua_rawgeti(L, ot, i + 1);
    if (!lua_isnumber(L, -1)) luaL_error(L, "2D description: a step must be numbers");
    ops[i] = (int)lua_tonumber(L, -1) - (i % 2);  /* (indices 1-based: 0-based in C) */
    lua_pop(L, 1);
  }
  d.bones = bones;
  d.ik = ik;
  d.tc = tc;
  d.ntcbones = nb_all;
  d.tcbones = tcb;
  d.ops = ops;
  m = anim_lua_mem(L);
  box->shape = anim_w2d_shape_new(&m, &d, &err);
  if (!box->shape && err) return luaL_error(L, "2D description: %s", err);
  if (!box->shape) return anim_lua_nomem(L);
  lua_pushvalue(L, 2);
  return 1;
}

/* core.world2d_attach(animator, shape): the animator's updates run the 2D
 * stage from now on */
static int world2d_attach(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  shape_box *box = luaL_checkudata(L, 2, SHAPE_MT);
  anim_mem m = anim_lua_mem(L);
  anim_world2d *w;
  if (!box->shape) return luaL_error(L, "2D skeleton's shape used after it was finalized");
  w = anim_world2d_new(&m, box->shape);
  if (!w) return anim_lua_nomem(L);
  if (anim_animator_set_world2d(a, w) != 0) {
    anim_world2d_free(w);
    return luaL_error(L, "2D description: %d bones for a rig of another number of joints",
                      anim_w2d_shape_bones(box->shape));
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

/* core.world2d_skin_handler(fn): what animator:skin calls on an animator of
 * a 2D skeleton given a name or nothing (lua_skin.c) */
static int world2d_skin_handler(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, ANIM_SKIN2D_KEY);
  return 0;
}

static const luaL_Reg funcs[] = {
  {"world2d_shape", world2d_shape},
  {"world2d_attach", world2d_attach},
  {"world2d_skin_handler", world2d_skin_handler},
  {"animator_world2d", animator_world2d},
  {NULL, NULL}
};

void anim_lua_open_world2d(lua_State *L) {
  anim_lua_gcmeta(L, SHAPE_MT, shape_gc);
  anim_lua_sealed_meta(L, SHAPE_MT);  /* (the same table, sealed) */
  luaL_setfuncs(L, funcs, 0);
}
