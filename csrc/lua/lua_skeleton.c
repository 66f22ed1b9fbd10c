/* lua_skeleton.c - core.skeleton_plain: a clip's skeleton table read in C
 * when it is the usual one (lua/anim/format/read.lua, M.skeleton: the
 * reader of both .anim and .animc files), so that the skeleton of a small
 * clip costs less than its JSON text.
 *
 * Only the plain case is read here: every joint a table of length 0 (an
 * object, whatever its keys), its parent absent or a string naming a
 * joint, its position, translation and scale absent or arrays of 3 finite
 * numbers, its rotation absent, 3 numbers (Euler angles, kept) or a
 * non-zero quaternion (normalised as read_values.lua's quat does, the same
 * operations in the same order), the parents a hierarchy, the count within
 * anim.limits.joints, no metatable anywhere.  Anything else gives nil and
 * the Lua reader reads the table again: its checks and messages are the
 * only ones, and what is read here is what it would return (the same
 * tables, made in the same order). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/packed.h"
#include "lua_helpers.h"

/* The largest integer every double holds exactly (beyond, read_values'
 * math.abs and division could differ from C's: left to Lua). */
#define EXACT_INT 9007199254740992.0

/* The fields of a joint of the result, in read.lua's order. */
static const char *const FIELDS[5] = {"parent", "position", "rotation", "translation", "scale"};

/* Joints read with their table on the C stack (more: in a userdata). */
#define ON_STACK 64

typedef struct {
  const char *name;
  size_t len;
  int parent; /* index in the sorted names, -1: none */
  int state;  /* 0 unseen, 1 on the chain being followed, 2 reaches a root */
} sk_joint;

static int is_null(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == NULL;
}

static int absent(lua_State *L, int idx) { return lua_isnil(L, idx) || is_null(L, idx); }

/* The byte order of Lua's string comparison in the C locale (table.sort
 * of the names: read.lua). */
static int name_cmp(const void *a, const void *b) {
  const sk_joint *x = a, *y = b;
  return anim_lua_bytes_cmp(x->name, x->len, y->name, y->len);
}

/* read_values.lua's plain_vec: a table of no metatable holding exactly
 * n finite numbers at 1 .. n; into out when out is not NULL. */
static int plain_vec(lua_State *L, int idx, int n, double *out) {
  int i, ok = 1;
  if (!lua_istable(L, idx) || lua_getmetatable(L, idx)) {
    if (lua_istable(L, idx)) lua_pop(L, 1);
    return 0;
  }
  if ((lua_Integer)lua_rawlen(L, idx) != n) return 0;
  lua_pushinteger(L, n);
  if (lua_next(L, idx)) { lua_pop(L, 2); return 0; }
  for (i = 1; i <= n && ok; i++) {
    lua_rawgeti(L, idx, i);
    if (lua_type(L, -1) != LUA_TNUMBER) ok = 0;
    else {
      double d = (double)lua_tonumber(L, -1);
      if (!isfinite(d)) ok = 0;
      if (lua_isinteger(L, -1)) {
        lua_Integer x = lua_tointeger(L, -1);
        if (x > (lua_Integer)EXACT_INT || x < -(lua_Integer)EXACT_INT) ok = 0;
      }
      if (out) out[i - 1] = d;
    }
    lua_pop(L, 1);
  }
  return ok;
}

/* Field k of the joint at j, a plain vec of n or absent: pushes it (nil
 * when absent) and returns 1; 0 (nothing pushed) otherwise. */
static int vec_field(lua_State *L, int j, const char *k, int n) {
  lua_getfield(L, j, k);
  if (absent(L, -1)) { lua_pop(L, 1); lua_pushnil(L); return 1; }
  if (plain_vec(L, lua_gettop(L), n, NULL)) return 1;
  lua_pop(L, 1);
  return 0;
}

/* The non-zero quaternion q normalised as read_values.lua's quat does
 * (scaled by its largest component first), pushed as a new table. */
static void push_quat(lua_State *L, const double *q) {
  double m = 0, x, y, z, w, len;
  int i;
  for (i = 0; i < 4; i++) if (fabs(q[i]) > m) m = fabs(q[i]);
  x = q[0] / m, y = q[1] / m, z = q[2] / m, w = q[3] / m;
  len = sqrt(x * x + y * y + z * z + w * w);
  lua_createtable(L, 4, 0);
  lua_pushnumber(L, x / len); lua_rawseti(L, -2, 1);
  lua_pushnumber(L, y / len); lua_rawseti(L, -2, 2);
  lua_pushnumber(L, z / len); lua_rawseti(L, -2, 3);
  lua_pushnumber(L, w / len); lua_rawseti(L, -2, 4);
}

/* The rotation of the joint at j, as read.lua reads it: pushes it (nil
 * when absent), 0 (nothing pushed) when it is not plain. */
static int rotation(lua_State *L, int j) {
  double q[4];
  int r;
  lua_getfield(L, j, "rotation");
  r = lua_gettop(L);
  if (absent(L, r)) { lua_pop(L, 1); lua_pushnil(L); return 1; }
  if (plain_vec(L, r, 4, q)) {
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) { lua_pop(L, 1); return 0; } /* (the reader's message) */
    lua_pop(L, 1);
    push_quat(L, q);
    return 1;
  }
  if (plain_vec(L, r, 3, NULL)) return 1; /* (Euler angles, kept) */
  lua_pop(L, 1);
  return 0;
}

/* Joint i's table of the result, made from the joint at j and pushed; 0
 * (nothing pushed) when the joint is not plain. */
static int read_joint(lua_State *L, int j, sk_joint *js, int n, int i) {
  int top = lua_gettop(L), out, k;
  /* (a table whose length is 0 is empty or no array: an object to
   * E.object, whatever its keys) */
  if (lua_rawlen(L, j) != 0) return 0;
  js[i].parent = -1;
  lua_getfield(L, j, "parent");
  if (lua_type(L, -1) == LUA_TSTRING) {
    sk_joint key, *p;
    key.name = lua_tolstring(L, -1, &key.len);
    p = bsearch(&key, js, (size_t)n, sizeof *js, name_cmp);
    if (!p) { lua_settop(L, top); return 0; } /* (an unknown parent: the reader's message) */
    js[i].parent = (int)(p - js);
  } else if (absent(L, -1)) {
    lua_pop(L, 1);
    lua_pushnil(L);
  } else {
    lua_settop(L, top);
    return 0;
  }
  if (!vec_field(L, j, "position", 3)) { lua_settop(L, top); return 0; }
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_createtable(L, 3, 0);
    for (k = 1; k <= 3; k++) { lua_pushinteger(L, 0); lua_rawseti(L, -2, k); }
  }
  if (!rotation(L, j) || !vec_field(L, j, "translation", 3) || !vec_field(L, j, "scale", 3)) {
    lua_settop(L, top);
    return 0;
  }
  /* stack: parent, position, rotation, translation, scale */
  lua_createtable(L, 0, 5);
  out = lua_gettop(L);
  /* (in the order of read.lua's constructor; a nil is no entry there) */
  for (k = 0; k < 5; k++) {
    if (lua_isnil(L, top + 1 + k)) continue;
    lua_pushvalue(L, top + 1 + k);
    lua_setfield(L, out, FIELDS[k]);
  }
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return 1;
}

/* Do the parents form a hierarchy (following them from any joint reaches
 * a root)? */
static int hierarchy(sk_joint *js, int n) {
  int i, at, k;
  for (i = 0; i < n; i++) js[i].state = 0;
  for (i = 0; i < n; i++) {
    for (at = i; at >= 0 && js[at].state == 0; at = js[at].parent) js[at].state = 1;
    if (at >= 0 && js[at].state == 1) return 0;
    for (k = i; k >= 0 && js[k].state == 1; k = js[k].parent) js[k].state = 2;
  }
  return 1;
}

/* core.skeleton_plain(s, max_joints) -> the skeleton read.lua's M.skeleton
 * returns (joint name -> { parent, position, rotation, translation,
 * scale }) | nil when s is not plain (the Lua reader then reads it). */
static int skeleton_plain(lua_State *L) {
  lua_Integer max = luaL_checkinteger(L, 2);
  int n = 0, i, out;
  sk_joint stack[ON_STACK], *js;
  lua_settop(L, 2);
  if (!lua_istable(L, 1) || lua_getmetatable(L, 1)) return 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING || ++n > max) return 0;
  }
  js = n <= ON_STACK ? stack : lua_newuserdatauv(L, sizeof *js * (size_t)n, 0);
  lua_settop(L, 3); /* (3: the userdata or nothing) */
  n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    js[n].name = lua_tolstring(L, -1, &js[n].len); /* (the key, held by s) */
    n++;
  }
  qsort(js, (size_t)n, sizeof *js, name_cmp);
  lua_createtable(L, 0, n); /* 4 (presized: no rehash as it fills) */
  out = 4;
  for (i = 0; i < n; i++) {
    lua_pushlstring(L, js[i].name, js[i].len); /* 5 */
    lua_pushvalue(L, 5);
    lua_rawget(L, 1); /* 6 */
    if (!lua_istable(L, 6) || lua_getmetatable(L, 6)) return 0;
    if (!read_joint(L, 6, js, n, i)) return 0;
    lua_replace(L, 6);
    lua_rawset(L, out);
  }
  if (!hierarchy(js, n)) return 0;
  return 1;
}

/* ---- from the value encoding's bytes (a .animc's table) ---------------- */

/* The fields of a joint found in its bytes: where each value starts (0:
 * absent or null), and a quaternion rotation's numbers. */
typedef struct {
  size_t at[5];
  const char *parent;
  size_t plen;
  int quat;
  double q[4];
} sk_fields;

typedef struct {
  const unsigned char *p;
  size_t o, len;
} sk_bytes;

static int u32_at(sk_bytes *b, size_t *v) {
  if (b->len - b->o < 4) return 0;
  *v = anim_packed_u32(b->p + b->o);
  b->o += 4;
  return 1;
}

/* Moves past the value at b->o (bytes the decoder read: well formed, its
 * nesting bounded). */
static int skip(sk_bytes *b) {
  size_t n, k, len;
  int tag;
  if (b->o >= b->len) return 0;
  tag = b->p[b->o++];
  switch (tag) {
    case ANIM_VE_NULL: case ANIM_VE_FALSE: case ANIM_VE_TRUE: return 1;
    case ANIM_VE_F64: case ANIM_VE_I64:
      if (b->len - b->o < 8) return 0;
      b->o += 8;
      return 1;
    case ANIM_VE_STR:
      if (!u32_at(b, &len) || len > b->len - b->o) return 0;
      b->o += len;
      return 1;
    case ANIM_VE_ARR: case ANIM_VE_OBJ:
      if (!u32_at(b, &n)) return 0;
      for (k = 0; k < n; k++) {
        if (tag == ANIM_VE_OBJ) {
          if (!u32_at(b, &len) || len > b->len - b->o) return 0;
          b->o += len;
        }
        if (!skip(b)) return 0;
      }
      return 1;
    default: return 0;
  }
}

/* An array of n numbers at b->o (moved past it), into v when not NULL;
 * an integer beyond 2^53 is not plain (as plain_vec above). */
static int vec_bytes(sk_bytes *b, size_t n, double *v) {
  size_t cnt, i;
  if (b->o >= b->len || b->p[b->o] != ANIM_VE_ARR) return 0;
  b->o++;
  if (!u32_at(b, &cnt) || cnt != n || b->len - b->o < 9 * n) return 0;
  for (i = 0; i < n; i++) {
    const unsigned char *e = b->p + b->o;
    double d;
    if (e[0] == ANIM_VE_F64) d = anim_packed_f64(e + 1);
    else if (e[0] == ANIM_VE_I64) {
      int64_t x = anim_lua_i64_at(e + 1);
      if (x > (int64_t)EXACT_INT || x < -(int64_t)EXACT_INT) return 0;
      d = (double)x;
    } else return 0;
    if (v) v[i] = d;
    b->o += 9;
  }
  return 1;
}

/* The value of joint field k (FIELDS) at b->o, moved past: 1 when plain. */
static int field_bytes(sk_bytes *b, int k, sk_fields *f) {
  size_t at = b->o;
  if (b->o < b->len && b->p[b->o] == ANIM_VE_NULL) { b->o++; return 1; }
  if (k == 0) {
    size_t len;
    if (b->o >= b->len || b->p[b->o] != ANIM_VE_STR) return 0;
    b->o++;
    if (!u32_at(b, &len) || len > b->len - b->o) return 0;
    f->parent = (const char *)b->p + b->o, f->plen = len;
    b->o += len;
  } else if (k == 2) {
    sk_bytes save = *b;
    if (vec_bytes(b, 4, f->q)) {
      if (f->q[0] == 0 && f->q[1] == 0 && f->q[2] == 0 && f->q[3] == 0) return 0;
      f->quat = 1;
    } else {
      *b = save;
      if (!vec_bytes(b, 3, NULL)) return 0;
    }
  } else if (!vec_bytes(b, 3, NULL)) {
    return 0;
  }
  f->at[k] = at + 1; /* (0: absent) */
  return 1;
}

/* The joint at b->o (an object, or an empty array: {}), moved past. */
static int joint_bytes(sk_bytes *b, sk_fields *f) {
  size_t n, m, klen;
  int k;
  memset(f, 0, sizeof *f);
  if (b->o >= b->len) return 0;
  if (b->p[b->o] == ANIM_VE_ARR) { /* (only the empty table: {}) */
    b->o++;
    return u32_at(b, &n) && n == 0;
  }
  if (b->p[b->o++] != ANIM_VE_OBJ || !u32_at(b, &n)) return 0;
  for (m = 0; m < n; m++) {
    const char *key;
    if (!u32_at(b, &klen) || klen > b->len - b->o) return 0;
    key = (const char *)b->p + b->o;
    b->o += klen;
    for (k = 0; k < 5; k++)
      if (strlen(FIELDS[k]) == klen && memcmp(FIELDS[k], key, klen) == 0) break;
    if (k < 5 ? !field_bytes(b, k, f) : !skip(b)) return 0;
  }
  return 1;
}

/* The vector whose value is at p (an array of numbers the decoder
 * checked), pushed as the decoder makes it. */
static void push_vec_bytes(lua_State *L, const unsigned char *p) {
  size_t n = anim_packed_u32(p + 1), i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    const unsigned char *e = p + 5 + 9 * i;
    if (e[0] == ANIM_VE_I64) anim_lua_push_i64(L, e + 1);
    else lua_pushnumber(L, anim_packed_f64(e + 1));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* Joint i's table of the result: fields f, the kept vectors from its
 * table at jt (0: none, made anew from the bytes p); pushed. */
static void push_joint(lua_State *L, int jt, const unsigned char *p, const sk_fields *f) {
  int o, k;
  lua_createtable(L, 0, 5);
  o = lua_gettop(L);
  if (f->parent) {
    lua_pushlstring(L, f->parent, f->plen);
    lua_setfield(L, o, "parent");
  }
  for (k = 1; k < 5; k++) {
    if (k == 2 && f->quat) push_quat(L, f->q);
    else if (f->at[k] && jt) lua_getfield(L, jt, FIELDS[k]);
    else if (f->at[k]) push_vec_bytes(L, p + f->at[k] - 1);
    else if (k == 1) {
      lua_createtable(L, 3, 0);
      lua_pushinteger(L, 0); lua_rawseti(L, -2, 1);
      lua_pushinteger(L, 0); lua_rawseti(L, -2, 2);
      lua_pushinteger(L, 0); lua_rawseti(L, -2, 3);
    } else continue;
    lua_setfield(L, o, FIELDS[k]);
  }
}

int anim_lua_skeleton_bytes(lua_State *L, const unsigned char *p, size_t len, int sk, lua_Integer max) {
  sk_bytes b;
  size_t n, i, klen;
  sk_joint stack[ON_STACK], *js;
  sk_fields fstack[ON_STACK], *fs;
  int top = lua_gettop(L), out;
  if (sk) sk = lua_absindex(L, sk);
  b.p = p, b.o = 1, b.len = len;
  if (len == 0) return 0;
  if (p[0] == ANIM_VE_ARR) { /* (the empty table) */
    if (len != 5 || anim_packed_u32(p + 1) != 0) return 0;
    lua_newtable(L);
    return 1;
  }
  if (p[0] != ANIM_VE_OBJ || !u32_at(&b, &n) || n > (size_t)max || n > (size_t)INT_MAX / 2) return 0;
  if (n <= ON_STACK) js = stack, fs = fstack;
  else {
    js = lua_newuserdatauv(L, sizeof *js * n, 0);
    fs = lua_newuserdatauv(L, sizeof *fs * n, 0);
  }
  /* the names come in increasing byte order (the decoder's rule): sorted */
  for (i = 0; i < n; i++) {
    if (!u32_at(&b, &klen) || klen > b.len - b.o) break;
    js[i].name = (const char *)b.p + b.o, js[i].len = klen;
    b.o += klen;
    if (!joint_bytes(&b, &fs[i])) break;
  }
  for (i = i == n ? 0 : n + 1; i < n; i++) {
    sk_joint key, *q;
    js[i].parent = -1;
    if (!fs[i].parent) continue;
    key.name = fs[i].parent, key.len = fs[i].plen;
    q = bsearch(&key, js, n, sizeof *js, name_cmp);
    if (!q) break;
    js[i].parent = (int)(q - js);
  }
  if (i != n || b.o != len || !hierarchy(js, (int)n)) { lua_settop(L, top); return 0; }
  lua_createtable(L, 0, (int)n); /* (presized: no rehash as it fills) */
  out = lua_gettop(L);
  for (i = 0; i < n; i++) {
    lua_pushlstring(L, js[i].name, js[i].len);
    if (sk) {
      lua_pushvalue(L, -1);
      lua_rawget(L, sk);
      push_joint(L, lua_gettop(L), p, &fs[i]);
    } else {
      lua_pushnil(L);
      push_joint(L, 0, p, &fs[i]);
    }
    lua_replace(L, -2);
    lua_rawset(L, out);
  }
  if (out != top + 1) { /* (above the userdata) */
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
  }
  return 1;
}

static const luaL_Reg funcs[] = {
  {"skeleton_plain", skeleton_plain},
  {NULL, NULL}
};

void anim_lua_open_skeleton(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
