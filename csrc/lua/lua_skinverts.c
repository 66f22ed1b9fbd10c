/* lua_skinverts.c - anim.skin_vertices(mesh, matrices [, out [, options]])
 * -> positions [, normals]: linear blend skinning on the CPU
 * (csrc/core/skinverts.c) of a mesh as anim.import_gltf gives it (module
 * buffers positions, joints, weights, normals), with the joints' matrices
 * in a module buffer or a flat table of numbers, 12 a joint (mat3x4, the
 * default) or 16 (options.layout = "mat4").  Sizes and joint indices are
 * checked before anything is written; messages name the field and the
 * numbers. */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/skinverts.h"
#include "lua_helpers.h"
#include "lua_buffer.h"

/* mesh[field] (the mesh at index 1) as a module buffer of per * n numbers
 * (n: *n, or set from it when 0); NULL when absent and optional. */
static anim_lua_buffer *field(lua_State *L, const char *name, size_t per, size_t *n, int optional) {
  anim_lua_buffer *b;
  lua_getfield(L, 1, name);
  b = anim_lua_tobuffer(L, -1);
  if (!b) {
    if (optional && lua_isnil(L, -1)) { lua_pop(L, 1); return NULL; }
    anim_lua_argerror(L, 1, "mesh.%s must be an anim.buffer, got %s", name, anim_lua_typename(L, -1));
  }
  if (*n == 0) {
    if (b->n % per != 0)
      anim_lua_argerror(L, 1, "#mesh.%s is %d, not a whole number of vertices (%d numbers each)", name, (int)b->n, (int)per);
    *n = b->n / per;
  } else if (b->n != per * *n) {
    anim_lua_argerror(L, 1, "#mesh.%s is %d, the %d vertices of mesh.positions need %d (%d a vertex)", name, (int)b->n,
      (int)*n, (int)(per * *n), (int)per);
  }
  lua_pop(L, 1);  /* (the mesh table keeps it alive during the call) */
  return b;
}

/* The options at idx: the layout's width (12 or 16) and whether normals
 * are wanted (a buffer to write them into: *nbuf's stack index). */
static int options(lua_State *L, int idx, int *normals) {
  int width = 12;
  *normals = 0;
  if (lua_isnoneornil(L, idx)) return width;
  luaL_checktype(L, idx, LUA_TTABLE);
  if (lua_getfield(L, idx, "layout") != LUA_TNIL) {
    static const char *const LAYOUTS[] = { "mat3x4", "mat4" };
    const char *s = lua_tostring(L, -1), *hint;
    if (lua_type(L, -1) != LUA_TSTRING)
      anim_lua_argerror(L, idx, "option 'layout' must be 'mat3x4' or 'mat4', got %s", anim_lua_typename(L, -1));
    if (strcmp(s, "mat4") == 0) width = 16;
    else if (strcmp(s, "mat3x4") != 0) {
      hint = anim_lua_suggest(s, LAYOUTS, 2);
      s = anim_lua_shown(L, -1);
      if (hint) anim_lua_argerror(L, idx, "unknown layout '%s'; did you mean '%s'?", s, hint);
      anim_lua_argerror(L, idx, "unknown layout '%s' (expected 'mat3x4' or 'mat4')", s);
    }
  }
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "normals") != LUA_TNIL) {
    if (lua_type(L, -1) == LUA_TBOOLEAN) *normals = lua_toboolean(L, -1);
    else if (anim_lua_tobuffer(L, -1)) *normals = 2;
    else anim_lua_argerror(L, idx, "option 'normals' must be true or an anim.buffer, got %s", anim_lua_typename(L, -1));
  }
  lua_pop(L, 1);
  return width;
}

/* The matrices at arg: a module buffer, or a flat table of numbers copied
 * into a new double buffer (pushed); *nmats: whole matrices in it. */
static anim_lua_buffer *matrices(lua_State *L, int arg, int width, size_t *nmats) {
  anim_lua_buffer *b = anim_lua_tobuffer(L, arg);
  size_t n;
  if (!b) {
    size_t i;
    if (lua_type(L, arg) != LUA_TTABLE)
      anim_lua_argerror(L, arg, "anim.buffer or table of numbers expected, got %s", anim_lua_typename(L, arg));
    n = (size_t)lua_rawlen(L, arg);
    if (n > ANIM_LUA_BUFFER_MAX) anim_lua_argerror(L, arg, "too many numbers (%d)", (int)n);
    b = anim_lua_newbuffer(L, n, 1);
    for (i = 0; i < n; i++) {
      lua_rawgeti(L, arg, (lua_Integer)i + 1);
      if (lua_type(L, -1) != LUA_TNUMBER)
        anim_lua_argerror(L, arg, "matrices[%d] must be a number, got %s", (int)i + 1, anim_lua_typename(L, -1));
      ((double *)b->data)[i] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  }
  if (b->n % (size_t)width != 0)
    anim_lua_argerror(L, arg, "%d numbers are not a whole number of %s matrices (%d numbers each)", (int)b->n,
      width == 16 ? "mat4" : "mat3x4", width);
  *nmats = b->n / (size_t)width;
  return b;
}

static anim_skv_in in_of(const anim_lua_buffer *b) {
  anim_skv_in a;
  a.data = b ? b->data : NULL;
  a.is_double = b ? b->is_double : 0;
  return a;
}

/* The output buffer at idx (3n numbers at least), pushed again, or a new
 * float one pushed when idx is 0 or holds nil. */
static anim_skv_out out_of(lua_State *L, int idx, size_t n, int arg, const char *what) {
  anim_skv_out o;
  int given = idx != 0 && !lua_isnoneornil(L, idx);
  anim_lua_buffer *b = given ? anim_lua_tobuffer(L, idx) : NULL;
  if (given && !b)
    anim_lua_argerror(L, arg, "%s must be an anim.buffer, got %s", what, anim_lua_typename(L, idx));
  if (b && b->n < 3 * n)
    anim_lua_argerror(L, arg, "%s holds %d numbers, the %d vertices need %d (3 a vertex)", what, (int)b->n, (int)n,
      (int)(3 * n));
  if (!b) b = anim_lua_newbuffer(L, 3 * n, 0);
  else lua_pushvalue(L, idx);
  o.data = b->data;
  o.is_double = b->is_double;
  return o;
}

/* core.skin_vertices(mesh, matrices [, out [, options]]) -> positions [, normals] */
static int skin_vertices(lua_State *L) {
  anim_skv_mesh m;
  anim_lua_buffer *pos, *nrm, *joints, *weights, *mats;
  anim_skv_out po, no;
  size_t n = 0, at;
  int want_normals, width, top;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 4);
  width = options(L, 4, &want_normals);
  pos = field(L, "positions", 3, &n, 0);
  joints = field(L, "joints", 4, &n, 0);
  weights = field(L, "weights", 4, &n, 0);
  nrm = want_normals ? field(L, "normals", 3, &n, 0) : NULL;
  mats = matrices(L, 2, width, &m.nmats);
  top = lua_gettop(L);
  m.n = n;
  m.pos = in_of(pos);
  m.nrm = in_of(nrm);
  m.joints = in_of(joints);
  m.weights = in_of(weights);
  m.mats = in_of(mats);
  m.width = width;
  if (anim_skin_vertices_check(&m, &at)) {
    double j = joints->is_double ? ((double *)joints->data)[at] : ((float *)joints->data)[at];
    /* (an integral value shown as one: 2, not 2.0) */
    if (j == j && j > -1e15 && j < 1e15 && j == (double)(long long)j) anim_lua_pushint(L, (lua_Integer)j);
    else lua_pushnumber(L, j);
    return anim_lua_argerror(L, 1, "mesh.joints[%d] (vertex %d) is %s: not a joint of the %d matrices (0..%d)",
      (int)at + 1, (int)(at / 4), lua_tostring(L, -1), (int)m.nmats, (int)m.nmats - 1);
  }
  po = out_of(L, 3, n, 3, "out");
  no.data = NULL;
  no.is_double = 0;
  if (want_normals) {
    lua_getfield(L, 4, "normals");
    no = out_of(L, want_normals == 2 ? lua_gettop(L) : 0, n, 4, "options.normals");
  }
  anim_skin_vertices(&m, po, no);
  if (want_normals) {
    /* positions, normals: the two results on the top */
    lua_pushvalue(L, top + 1);
    lua_pushvalue(L, -2);
    return 2;
  }
  return 1;
}

void anim_lua_open_skinverts(lua_State *L) {
  lua_pushcfunction(L, skin_vertices);
  lua_setfield(L, -2, "skin_vertices");
}
