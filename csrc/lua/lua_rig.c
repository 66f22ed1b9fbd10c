/* lua_rig.c - the Lua binding of rigs (the C core's joint hierarchies with
 * rests) and of retarget maps (userdata holding the description
 * lua/anim/format/retarget.lua read). */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_buffer.h"
#include "lua_helpers.h"

/* By the collector or by hand: the box lets go of the rig (animators on it
 * hold their own references) and every later use of it raises. */
static int rig_gc(lua_State *L) {
  anim_rig_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_RIG);
  anim_rig_free(b->rig);
  b->rig = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_RIG);
  return 0;
}

/* n numbers of the table at the top, read raw, into v; 0 when it is no
 * table of n numbers. */
static int read_vec(lua_State *L, double *v, int n) {
  int a;
  if (lua_type(L, -1) != LUA_TTABLE) return 0;
  for (a = 0; a < n; a++) {
    lua_rawgeti(L, -1, a + 1);
    if (lua_type(L, -1) != LUA_TNUMBER) { lua_pop(L, 1); return 0; }
    v[a] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  return 1;
}

/* The skin of rig_new's arguments 8 and 9 (lists read raw, checked by
 * the Lua side; here only so as not to read garbage): *skin gets the
 * joints (0-based, a userdata on the stack holds them) or NULL, *ibm the
 * matrices (likewise) or NULL; returns the skin's joint count. */
static int read_skin(lua_State *L, int n, int **skin, double (**ibm)[16]) {
  int ns = n, k;
  *skin = NULL;
  *ibm = NULL;
  if (!lua_isnoneornil(L, 8)) {
    luaL_checktype(L, 8, LUA_TTABLE);
    ns = (int)lua_rawlen(L, 8);
    if (ns < 1 || ns > ANIM_MAX_RIG_JOINTS) luaL_error(L, "a skin needs 1 to %d joints", ANIM_MAX_RIG_JOINTS);
    *skin = lua_newuserdatauv(L, sizeof(int) * (size_t)ns, 0);
    for (k = 0; k < ns; k++) {
      lua_Number v;
      lua_rawgeti(L, 8, k + 1);
      v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
      if (!(v >= 1 && v <= n && v == floor(v))) luaL_error(L, "skin joints must be indices 1..%d", n);
      (*skin)[k] = (int)v - 1;
      lua_pop(L, 1);
    }
  }
  if (!lua_isnoneornil(L, 9)) {
    luaL_checktype(L, 9, LUA_TTABLE);
    if ((int)lua_rawlen(L, 9) != ns) luaL_error(L, "inverse binds: one matrix a skin joint expected");
    *ibm = lua_newuserdatauv(L, sizeof **ibm * (size_t)ns, 0);
    for (k = 0; k < ns; k++) {
      lua_rawgeti(L, 9, k + 1);
      if (!read_vec(L, (*ibm)[k], 16)) luaL_error(L, "inverse binds must be tables of 16 numbers");
      lua_pop(L, 1);
    }
  }
  return ns;
}

/* core.rig_new(names, parents, pivots, rotations, info [, translations,
 * scales [, skin, inverse_binds]]) -> rig
 * skin (optional): the skin's joints, 1-based indices into the lists, in
 * the skin's order (absent: every joint, in the rig's order);
 * inverse_binds (optional): a 16-number column-major matrix per skin
 * joint (without skin: per joint of the lists), absent: identities.
 * parents: 1-based indices or 0; pivots {x,y,z}; rotations {x,y,z,w};
 * translations (optional): per joint {x,y,z}, its local rest position,
 * or false (then pivot - parent pivot); scales (optional): per joint
 * {x,y,z} (default 1, 1, 1).  Returns nil, message for a cycle.  The
 * tables are read raw (no metamethod runs), and nothing is allocated from
 * the first name read to the rig built: the names are pointers into
 * strings the tables hold. */
static int rig_new(lua_State *L) {
  lua_Integer n, i;
  anim_rig_def *defs;
  const char *err = NULL;
  anim_rig_box *b;
  anim_mem m;
  int has_t, has_s, tries, nskin, *skin;
  double (*ibm)[16];
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TTABLE);
  has_t = !lua_isnoneornil(L, 6);
  has_s = !lua_isnoneornil(L, 7);
  if (has_t) luaL_checktype(L, 6, LUA_TTABLE);
  if (has_s) luaL_checktype(L, 7, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 1);
  if (n < 1 || n > ANIM_MAX_RIG_JOINTS) return luaL_error(L, "a rig needs 1 to %d joints", ANIM_MAX_RIG_JOINTS);
  nskin = read_skin(L, (int)n, &skin, &ibm);
  m = anim_lua_mem(L);
  defs = lua_newuserdatauv(L, (size_t)n * sizeof *defs, 0);
  b = anim_lua_newbox(L, ANIM_BOX_RIG, sizeof *b, 1);
  for (i = 0; i < n; i++) {
    anim_rig_def *d = &defs[i];
    int a;
    size_t len;
    lua_rawgeti(L, 1, i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "rig joint names must be strings");
    d->name = lua_tolstring(L, -1, &len);
    if (strlen(d->name) != len) return luaL_error(L, "rig joint names cannot hold a NUL byte");
    lua_pop(L, 1); /* the names table keeps the string alive */
    lua_rawgeti(L, 2, i + 1);
    {
      lua_Number pi = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
      if (!(pi >= 0 && pi <= (lua_Number)n && pi == floor(pi)))
        return luaL_error(L, "rig joint parents must be indices 0..%d", (int)n);
      d->parent = (int)pi - 1;
    }
    lua_pop(L, 1);
    lua_rawgeti(L, 3, i + 1);
    if (!read_vec(L, d->pivot, 3)) return luaL_error(L, "rig joint pivots must be tables of 3 numbers");
    lua_pop(L, 1);
    lua_rawgeti(L, 4, i + 1);
    if (!read_vec(L, d->rot, 4)) return luaL_error(L, "rig joint rotations must be tables of 4 numbers");
    lua_pop(L, 1);
    d->local = 0;
    for (a = 0; a < 3; a++) { d->translation[a] = 0; d->scale[a] = 1; }
    if (has_t) {
      lua_rawgeti(L, 6, i + 1);
      if (lua_toboolean(L, -1)) {
        if (!read_vec(L, d->translation, 3)) return luaL_error(L, "rig joint translations must be tables of 3 numbers");
        d->local = 1;
      }
      lua_pop(L, 1);
    }
    if (has_s) {
      lua_rawgeti(L, 7, i + 1);
      if (!lua_isnil(L, -1) && !read_vec(L, d->scale, 3))
        return luaL_error(L, "rig joint scales must be tables of 3 numbers");
      lua_pop(L, 1);
    }
  }
  for (tries = 0; tries < 2; tries++) {
    b->rig = anim_rig_build_skin(&m, (int)n, defs, nskin, skin, (const double (*)[16])ibm, &err);
    if (b->rig || !err || strcmp(err, "not enough memory") != 0 || tries) break;
    anim_lua_retry(L);
  }
  if (!b->rig && err && strcmp(err, "not enough memory") == 0) return anim_lua_nomem(L);
  if (!b->rig) {
    lua_pushnil(L);
    lua_pushstring(L, err ? err : "cannot build the rig");
    return 2;
  }
  lua_pushvalue(L, 5);
  lua_setiuservalue(L, -2, 1);
  anim_lua_account(L, anim_lua_acct_of(L));
  return 1;
}

static int rig_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_RIG, 1); }

/* core.rig_joints(rig) -> array of { name, parent (name or nil), pivot,
 * rest rotation, rig-space rest rotation, local rest position
 * (translation), rest scale } in the rig's order (parents first). */
static int rig_joints(lua_State *L) {
  anim_rig *r = anim_lua_checkrig(L, 1);
  anim_rig_box *b = lua_touserdata(L, 1);
  int i, n = r->n;
  /* making tables and strings may run finalizers, which may finalize the
   * rig by hand: it is taken again after each */
#define RIG() (b->rig ? b->rig : (anim_lua_finalized(L, ANIM_BOX_RIG), b->rig))
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_createtable(L, 0, 7);
    lua_pushstring(L, RIG()->names[i]);
    lua_setfield(L, -2, "name");
    if (RIG()->parent[i] >= 0) { lua_pushstring(L, RIG()->names[RIG()->parent[i]]); lua_setfield(L, -2, "parent"); }
    lua_createtable(L, 3, 0);
    anim_lua_fillnumbers(L, RIG()->pivot[i], 3);
    lua_setfield(L, -2, "position");
    lua_createtable(L, 4, 0);
    anim_lua_fillnumbers(L, RIG()->rest_rot[i], 4);
    lua_setfield(L, -2, "rotation");
    lua_createtable(L, 4, 0);
    anim_lua_fillnumbers(L, RIG()->rig_rot[i], 4);
    lua_setfield(L, -2, "rig_rotation");
    lua_createtable(L, 3, 0);
    anim_lua_fillnumbers(L, RIG()->rest_pos[i], 3);
    lua_setfield(L, -2, "translation");
    lua_createtable(L, 3, 0);
    anim_lua_fillnumbers(L, RIG()->rest_scl[i], 3);
    lua_setfield(L, -2, "scale");
    lua_rawseti(L, -2, i + 1);
  }
#undef RIG
  return 1;
}

/* ---- retarget maps: plain userdata holding their Lua description ------- */

/* core.retarget_new(info) -> map (info as its user value) */
static int retarget_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  anim_lua_newbox(L, ANIM_BOX_RETARGET, sizeof(anim_retarget_box), 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int retarget_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_RETARGET, 1); }

/* core.rig_inverse_binds(rig) -> the inverse bind matrices of the rig's
 * skin, 16 numbers a joint (column-major), in the skin's order, in a
 * module buffer of doubles. */
static int rig_inverse_binds(lua_State *L) {
  anim_rig *r;
  anim_lua_buffer *buf = anim_lua_newbuffer(L, (size_t)anim_lua_checkrig(L, 1)->nskin * 16, 1);
  r = anim_lua_checkrig(L, 1);  /* (again: making the buffer may run finalizers) */
  memcpy(buf->data, r->inv_bind[0], sizeof(double) * 16 * (size_t)r->nskin);
  return 1;
}

/* core.rig_skin(rig) -> the skin's joints, 1-based indices into
 * rig:joints(), in the skin's order */
static int rig_skin(lua_State *L) {
  anim_rig *r;
  int k;
  lua_createtable(L, anim_lua_checkrig(L, 1)->nskin, 0);
  r = anim_lua_checkrig(L, 1);  /* (again: making the table may run finalizers) */
  for (k = 0; k < r->nskin; k++) {
    lua_pushinteger(L, r->skin[k] + 1);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

static const luaL_Reg rig_funcs[] = {
  {"rig_inverse_binds", rig_inverse_binds},
  {"rig_skin", rig_skin},
  {"retarget_new", retarget_new},
  {"retarget_info", retarget_info},
  {"rig_new", rig_new},
  {"rig_info", rig_info},
  {"rig_joints", rig_joints},
  {NULL, NULL}
};

void anim_lua_open_rig(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_RIG, rig_gc, "rig_metatable");
  anim_lua_newmeta(L, ANIM_BOX_RETARGET, NULL, "retarget_metatable");
  luaL_setfuncs(L, rig_funcs, 0);
}
