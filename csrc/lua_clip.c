/* lua_clip.c - the Lua binding of clips: builds a C clip from the
 * normalised description lua/anim/format.lua makes, and samples it.
 * The description is checked again here (types, counts) so that no
 * Lua value can crash the core; user-facing messages come from format.lua. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "amath.h"
#include "clip.h"
#include "lua_anim.h"

#define MAX_KEYS 1000000  /* per curve: bounds memory for hostile input */

/* The clip, and the key cursors clip:sample keeps between calls (a cache
 * beside the immutable clip: steady forward sampling finds keys in O(1)). */
typedef struct { anim_clip *clip; int *cursors; size_t ncursors; } clip_box;

anim_clip *anim_lua_toclip(lua_State *L, int idx) {
  clip_box *b = luaL_testudata(L, idx, ANIM_CLIP_MT);
  return b ? b->clip : NULL;
}

anim_clip *anim_lua_checkclip(lua_State *L, int idx) {
  clip_box *b = luaL_checkudata(L, idx, ANIM_CLIP_MT);
  if (!b->clip) luaL_argerror(L, idx, "clip is not built");
  return b->clip;
}

static int clip_gc(lua_State *L) {
  clip_box *b = luaL_checkudata(L, 1, ANIM_CLIP_MT);
  if (b->cursors) anim_free(&b->clip->mem, b->cursors, sizeof(int) * b->ncursors);
  anim_clip_free(b->clip);
  b->clip = NULL;
  b->cursors = NULL;
  return 0;
}

/* ---- reading the description ------------------------------------------- */

static double field_num(lua_State *L, int t, const char *k, double dflt) {
  double v = dflt;
  if (lua_getfield(L, t, k) != LUA_TNIL) {
    if (!lua_isnumber(L, -1)) luaL_error(L, "description field '%s' must be a number", k);
    v = lua_tonumber(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

static int field_int(lua_State *L, int t, const char *k, int dflt, int lo, int hi) {
  double v = field_num(L, t, k, dflt);
  if (!(v >= lo && v <= hi)) luaL_error(L, "description field '%s' out of range", k);
  return (int)v;
}

/* Length of the array at field k of table t (pushed on the stack), or -1
 * when absent (nothing pushed). */
static int push_array(lua_State *L, int t, const char *k) {
  lua_Integer n;
  int ty = lua_getfield(L, t, k);
  if (ty == LUA_TNIL) { lua_pop(L, 1); return -1; }
  if (ty != LUA_TTABLE) luaL_error(L, "description field '%s' must be a table", k);
  n = luaL_len(L, -1);
  if (n < 0 || n > MAX_KEYS * 4) luaL_error(L, "description field '%s' too long", k);
  return (int)n;
}

static double num_at(lua_State *L, int t, lua_Integer i) {
  double v;
  lua_geti(L, t, i);
  if (!lua_isnumber(L, -1)) luaL_error(L, "description array holds a non-number");
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static void *alloc(lua_State *L, anim_clip *c, size_t n) {
  void *p = anim_clip_alloc(c, n);
  if (!p) anim_lua_nomem(L);
  return p;
}

static void read_mods(lua_State *L, anim_clip *c, int ct, anim_curve *cv) {
  int n = push_array(L, ct, "mods"), i, mt;
  anim_mod *m;
  if (n < 0) return;
  mt = lua_gettop(L);
  m = alloc(L, c, sizeof(anim_mod) * (size_t)(n ? n : 1));
  for (i = 0; i < n; i++) {
    int o, np, k;
    lua_geti(L, mt, i + 1);
    if (!lua_istable(L, -1)) luaL_error(L, "description modifier must be a table");
    o = lua_gettop(L);
    m[i].type = field_int(L, o, "type", 0, ANIM_MOD_CYCLES, ANIM_MOD_ENVELOPE);
    m[i].before = field_int(L, o, "before", ANIM_CYC_REPEAT, ANIM_CYC_NONE, ANIM_CYC_MIRROR);
    m[i].after = field_int(L, o, "after", ANIM_CYC_REPEAT, ANIM_CYC_NONE, ANIM_CYC_MIRROR);
    m[i].p[0] = field_num(L, o, "p1", 0);
    m[i].p[1] = field_num(L, o, "p2", 0);
    m[i].p[2] = field_num(L, o, "p3", 0);
    m[i].p[3] = field_num(L, o, "p4", 0);
    np = push_array(L, o, "points");
    if (np > 0) {
      double *pts;
      if (np % 3) luaL_error(L, "description envelope points must come in threes");
      pts = alloc(L, c, sizeof(double) * (size_t)np);
      for (k = 0; k < np; k++) pts[k] = num_at(L, lua_gettop(L), k + 1);
      m[i].points = pts;
      m[i].npoints = np / 3;
    }
    if (np >= 0) lua_pop(L, 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  cv->mods = m;
  cv->nmods = n;
}

/* A curve: { t = {}, v = {}, i = {}, e = {}, h = {out_dt, out_dv, in_dt,
 * in_dv per key; NaN dt = absent}, mods = {...} }. */
static void read_curve(lua_State *L, anim_clip *c, int ct, anim_curve *cv) {
  int n = push_array(L, ct, "t"), i, tt, vt, it, et, ht;
  anim_key *k;
  if (n < 0) luaL_error(L, "description curve without times");
  if (n > MAX_KEYS) luaL_error(L, "too many keys in one curve (at most %d)", MAX_KEYS);
  tt = lua_gettop(L);
  if (push_array(L, ct, "v") != n) luaL_error(L, "description curve values do not match times");
  vt = lua_gettop(L);
  if (push_array(L, ct, "i") != n) luaL_error(L, "description curve interpolations do not match times");
  it = lua_gettop(L);
  if (push_array(L, ct, "e") != n) luaL_error(L, "description curve eases do not match times");
  et = lua_gettop(L);
  ht = push_array(L, ct, "h");
  if (ht >= 0) {
    if (ht != 4 * n) luaL_error(L, "description curve handles do not match times");
    ht = lua_gettop(L);
  }
  k = alloc(L, c, sizeof(anim_key) * (size_t)(n ? n : 1));
  for (i = 0; i < n; i++) {
    double ip = num_at(L, it, i + 1), ez = num_at(L, et, i + 1);
    k[i].t = num_at(L, tt, i + 1);
    k[i].v = num_at(L, vt, i + 1);
    if (!(ip >= 0 && ip < ANIM_INTERP_COUNT) || !(ez >= 0 && ez <= ANIM_EASE_INOUT))
      luaL_error(L, "description interpolation out of range");
    k[i].interp = (unsigned char)ip;
    k[i].ease = (unsigned char)ez;
    if (ht >= 0) {
      k[i].out_dt = num_at(L, ht, 4 * i + 1);
      k[i].out_dv = num_at(L, ht, 4 * i + 2);
      k[i].in_dt = num_at(L, ht, 4 * i + 3);
      k[i].in_dv = num_at(L, ht, 4 * i + 4);
    } else {
      k[i].out_dt = k[i].in_dt = NAN;
    }
  }
  lua_settop(L, tt - 1);
  cv->keys = k;
  cv->n = n;
  read_mods(L, c, ct, cv);
}

/* Three curves at field k of joint table jt; returns 1 when present. */
static int read_vec3(lua_State *L, anim_clip *c, int jt, const char *k, anim_curve out[3]) {
  int n = push_array(L, jt, k), a;
  if (n < 0) return 0;
  if (n != 3) luaL_error(L, "description channel '%s' must hold 3 curves", k);
  for (a = 0; a < 3; a++) {
    lua_geti(L, -1, a + 1);
    if (!lua_istable(L, -1)) luaL_error(L, "description curve must be a table");
    read_curve(L, c, lua_gettop(L), &out[a]);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

static int read_qcurve(lua_State *L, anim_clip *c, int jt, anim_qcurve *q) {
  int n, i, tt, qt, it, et;
  anim_qkey *k;
  if (lua_getfield(L, jt, "qrot") == LUA_TNIL) { lua_pop(L, 1); return 0; }
  if (!lua_istable(L, -1)) luaL_error(L, "description qrot must be a table");
  n = push_array(L, lua_gettop(L), "t");
  if (n < 0 || n > MAX_KEYS) luaL_error(L, "description qrot needs times");
  tt = lua_gettop(L);
  if (push_array(L, tt - 1, "q") != 4 * n) luaL_error(L, "description qrot values do not match");
  qt = lua_gettop(L);
  if (push_array(L, tt - 1, "i") != n) luaL_error(L, "description qrot interpolations do not match");
  it = lua_gettop(L);
  if (push_array(L, tt - 1, "e") != n) luaL_error(L, "description qrot eases do not match");
  et = lua_gettop(L);
  k = alloc(L, c, sizeof(anim_qkey) * (size_t)(n ? n : 1));
  for (i = 0; i < n; i++) {
    double ip = num_at(L, it, i + 1), ez = num_at(L, et, i + 1);
    int a;
    k[i].t = num_at(L, tt, i + 1);
    for (a = 0; a < 4; a++) k[i].q[a] = num_at(L, qt, 4 * i + a + 1);
    if (!(ip >= 0 && ip < ANIM_INTERP_COUNT) || !(ez >= 0 && ez <= ANIM_EASE_INOUT))
      luaL_error(L, "description interpolation out of range");
    k[i].interp = (unsigned char)ip;
    k[i].ease = (unsigned char)ez;
    {
      double len = sqrt(k[i].q[0] * k[i].q[0] + k[i].q[1] * k[i].q[1] +
                        k[i].q[2] * k[i].q[2] + k[i].q[3] * k[i].q[3]);
      if (!(len > 0) || !isfinite(len)) luaL_error(L, "description quaternion must be non-zero and finite");
      for (a = 0; a < 4; a++) k[i].q[a] /= len;
    }
  }
  lua_settop(L, tt - 2);
  q->keys = k;
  q->n = n;
  return 1;
}

static const char *dup_string(lua_State *L, anim_clip *c, int idx) {
  size_t len;
  const char *s;
  if (lua_type(L, idx) != LUA_TSTRING) luaL_error(L, "description name must be a string");
  s = lua_tolstring(L, idx, &len);
  s = anim_clip_strdup(c, s, len);
  if (!s) anim_lua_nomem(L);
  return s;
}

static void read_joint(lua_State *L, anim_clip *c, int jt, anim_joint *j) {
  lua_getfield(L, jt, "name");
  j->name = dup_string(L, c, -1);
  lua_pop(L, 1);
  j->weight = field_num(L, jt, "weight", 1);
  j->muted = lua_getfield(L, jt, "muted") != LUA_TNIL && lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (read_vec3(L, c, jt, "pos", j->pos)) j->channels |= ANIM_CH_POS;
  if (read_vec3(L, c, jt, "scl", j->scl)) j->channels |= ANIM_CH_SCL;
  if (read_vec3(L, c, jt, "rot", j->rot)) j->channels |= ANIM_CH_ROT;
  else if (read_qcurve(L, c, jt, &j->qrot)) { j->channels |= ANIM_CH_ROT; j->rot_quat = 1; }
  if (lua_getfield(L, jt, "pw") == LUA_TTABLE) read_curve(L, c, lua_gettop(L), &j->pose_weight);
  lua_pop(L, 1);
}

/* core.clip_new(desc, info) -> clip userdata (info kept as its user value) */
static int clip_new(lua_State *L) {
  clip_box *b;
  anim_clip *c;
  int nj, ni, nm, i;
  const char *err;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  b = lua_newuserdatauv(L, sizeof *b, 1);
  b->clip = NULL;
  b->cursors = NULL;
  b->ncursors = 0;
  luaL_setmetatable(L, ANIM_CLIP_MT);
  nj = push_array(L, 1, "joints");
  if (nj < 0) luaL_error(L, "description needs joints");
  lua_pop(L, 1);
  ni = push_array(L, 1, "items");
  if (ni >= 0) lua_pop(L, 1); else ni = 0;
  nm = push_array(L, 1, "mask");
  if (nm >= 0) lua_pop(L, 1); else nm = 0;
  {
    anim_mem m = anim_lua_mem(L);
    c = b->clip = anim_clip_new(&m, nj, ni, nm);
  }
  if (!c) return anim_lua_nomem(L);
  c->length = field_num(L, 1, "length", 0);
  c->speed = field_num(L, 1, "speed", 1);
  c->priority = field_num(L, 1, "priority", 0);
  c->loop = field_int(L, 1, "loop", ANIM_ONCE, ANIM_ONCE, ANIM_PINGPONG);
  c->blend = field_int(L, 1, "blend", 0, 0, 1);
  c->space = field_int(L, 1, "space", 0, 0, 1);
  c->euler = field_int(L, 1, "euler", ANIM_YXZ, ANIM_XYZ, ANIM_ZYX);
  lua_getfield(L, 1, "joints");
  for (i = 0; i < nj; i++) {
    lua_geti(L, -1, i + 1);
    if (!lua_istable(L, -1)) return luaL_error(L, "description joint must be a table");
    read_joint(L, c, lua_gettop(L), &c->joints[i]);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (ni > 0) {
    lua_getfield(L, 1, "items");
    for (i = 0; i < ni; i++) {
      int it;
      lua_geti(L, -1, i + 1);
      if (!lua_istable(L, -1)) return luaL_error(L, "description item must be a table");
      it = lua_gettop(L);
      c->items[i].t = field_num(L, it, "t", 0);
      c->items[i].kind = field_int(L, it, "kind", 0, ANIM_ITEM_MARKER, ANIM_ITEM_PLAY);
      c->items[i].index = field_int(L, it, "index", 0, 0, 1 << 30);
      c->items[i].side = field_int(L, it, "side", 0, ANIM_SIDE_BOTH, ANIM_SIDE_CLIENT);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (nm > 0) {
    lua_getfield(L, 1, "mask");
    for (i = 0; i < nm; i++) {
      lua_geti(L, -1, i + 1);
      c->mask[i] = dup_string(L, c, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if ((err = anim_clip_finish(c))) return luaL_error(L, "invalid clip description: %s", err);
  {
    size_t nc = (size_t)ANIM_JOINT_CURSORS * (size_t)(nj ? nj : 1);
    b->cursors = anim_malloc(&c->mem, sizeof(int) * nc);
    if (!b->cursors) return anim_lua_nomem(L);
    b->ncursors = nc;
  }
  for (i = 0; i < nj * ANIM_JOINT_CURSORS; i++) b->cursors[i] = -1;
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* core.clip_info(clip) -> the info table given to clip_new */
static int clip_info(lua_State *L) {
  luaL_checkudata(L, 1, ANIM_CLIP_MT);
  lua_getiuservalue(L, 1, 1);
  return 1;
}

static void push_vec(lua_State *L, const double *v, int n) {
  int i;
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* core.clip_sample(clip, t) -> { joint = { position, rotation, scale } } */
static int clip_sample(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  int *cursors = ((clip_box *)lua_touserdata(L, 1))->cursors;
  double t = luaL_checknumber(L, 2);
  int j;
  if (!isfinite(t)) return luaL_argerror(L, 2, "time must be finite");
  lua_createtable(L, 0, c->njoints);
  for (j = 0; j < c->njoints; j++) {
    double pos[3], rot[4], scl[3], w;
    int ch = anim_clip_sample_joint(c, j, t, cursors + j * ANIM_HOT_CURSORS,
                                    cursors + c->njoints * ANIM_HOT_CURSORS + j * ANIM_COLD_CURSORS,
                                    pos, rot, scl, &w);
    double v[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    int k;
    if (!ch) continue;
    /* nothing handed out is inf or NaN (finite keys can overflow) */
    if (ch & ANIM_CH_POS) for (k = 0; k < 3; k++) v[k] = pos[k];
    if (ch & ANIM_CH_ROT) for (k = 0; k < 4; k++) v[3 + k] = rot[k];
    if (ch & ANIM_CH_SCL) for (k = 0; k < 3; k++) v[7 + k] = scl[k];
    anim_finite10(v);
    for (k = 0; k < 3; k++) { pos[k] = v[k]; scl[k] = v[7 + k]; }
    for (k = 0; k < 4; k++) rot[k] = v[3 + k];
    lua_createtable(L, 0, 3);
    if (ch & ANIM_CH_POS) { push_vec(L, pos, 3); lua_setfield(L, -2, "position"); }
    if (ch & ANIM_CH_ROT) { push_vec(L, rot, 4); lua_setfield(L, -2, "rotation"); }
    if (ch & ANIM_CH_SCL) { push_vec(L, scl, 3); lua_setfield(L, -2, "scale"); }
    lua_setfield(L, -2, c->joints[j].name);
  }
  return 1;
}

static int noise(lua_State *L) {
  lua_pushnumber(L, anim_noise(luaL_checknumber(L, 1), luaL_optnumber(L, 2, 0)));
  return 1;
}

static const luaL_Reg clip_funcs[] = {
  {"clip_new", clip_new},
  {"clip_info", clip_info},
  {"clip_sample", clip_sample},
  {"noise", noise},
  {NULL, NULL}
};

void anim_lua_open_clip(lua_State *L) {
  luaL_newmetatable(L, ANIM_CLIP_MT);
  lua_pushcfunction(L, clip_gc);
  lua_setfield(L, -2, "__gc");
  lua_setfield(L, -2, "clip_metatable");
  luaL_setfuncs(L, clip_funcs, 0);
}
