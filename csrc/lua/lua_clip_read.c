/* lua_clip_read.c - the Lua binding of what a clip gives back: its pose
 * sampled at a time (clip:sample, a joint's alone), its keys (clip:keys),
 * and the core's noise.  lua_clip.c builds the clip. */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/amath.h"
#include "lua_helpers.h"

typedef anim_clip_box clip_box;

/* The clip of the box, taken again after anything that may have run a
 * collection (its finalizers may finalize the clip by hand). */
static anim_clip *live_clip(lua_State *L, clip_box *b) {
  if (!b->clip) anim_lua_finalized(L, ANIM_BOX_CLIP);
  return b->clip;
}

/* A clip read while tables are made for what it holds: each table made
 * may run a finalizer, which may reload the clip (its joints, keys and
 * properties, and the box's cursors, are then of another content).  The
 * reader `once` takes the clip's count of reloads when it began and
 * returns -1 when it changed after a table made; it is run again, from
 * the arguments (nargs of them), so that what it gives is of one
 * content. */
static int read_whole(lua_State *L, int nargs, int (*once)(lua_State *L, clip_box *b, unsigned gen)) {
  int tries;
  for (tries = 0; tries < 8; tries++) {
    clip_box *b;
    int r;
    anim_lua_checkclip(L, 1);
    b = lua_touserdata(L, 1);
    r = once(L, b, b->clip->gen);
    if (r >= 0) return r;
    lua_settop(L, nargs);
  }
  return luaL_error(L, "the clip kept being reloaded (by finalizers) while it was read");
}

/* The clip of b, NULL when it was reloaded since the reader began (gen). */
#define SAME(b, gen) (live_clip(L, (b))->gen == (gen) ? (b)->clip : NULL)

static int sample_once(lua_State *L, clip_box *b, unsigned gen) {
  double t = luaL_checknumber(L, 2);
  int j, nj;
  if (!isfinite(t)) return luaL_argerror(L, 2, "time must be finite");
  nj = b->clip->njoints;
  lua_createtable(L, 0, nj);
  for (j = 0; j < nj; j++) {
    double s[11], v[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, *pos = v, *rot = v + 3, *scl = v + 7;
    anim_clip *c = SAME(b, gen);
    int *cursors = b->cursors;
    int ch, k;
    if (!c) return -1;
    ch = anim_clip_sample_joint(c, j, t, cursors + j * ANIM_HOT_CURSORS,
                                cursors + c->njoints * ANIM_HOT_CURSORS + j * ANIM_COLD_CURSORS, s);
    if (!ch) continue;
    /* nothing handed out is inf or NaN (finite keys can overflow) */
    if (ch & ANIM_CH_POS) for (k = 0; k < 3; k++) v[k] = s[k];
    if (ch & ANIM_CH_ROT) for (k = 0; k < 4; k++) v[3 + k] = s[3 + k];
    if (ch & ANIM_CH_SCL) for (k = 0; k < 3; k++) v[7 + k] = s[7 + k];
    anim_finite10(v);
    /* (v is on the C stack: no finalizer frees it) */
    lua_createtable(L, 0, 3);
    if (ch & ANIM_CH_POS) { anim_lua_pushnumbers(L, pos, 3); lua_setfield(L, -2, "position"); }
    if (ch & ANIM_CH_ROT) { anim_lua_pushnumbers(L, rot, 4); lua_setfield(L, -2, "rotation"); }
    if (ch & ANIM_CH_SCL) { anim_lua_pushnumbers(L, scl, 3); lua_setfield(L, -2, "scale"); }
    {
      const anim_joint *jt;
      if (!(c = SAME(b, gen))) return -1;
      jt = &c->joints[j];
      lua_pushlstring(L, jt->name, jt->name_len);  /* (all its bytes: "a\0b" is not "a") */
    }
    lua_insert(L, -2);
    lua_rawset(L, -3);
  }
  if (!SAME(b, gen)) return -1;
  if (b->clip->nprops > 0) {
    /* pose.properties[name]: a number, or an array of the components (the
     * clip taken again after each table or string made) */
    int p, np = b->clip->nprops;
    size_t pc = (size_t)ANIM_JOINT_CURSORS * (size_t)(nj ? nj : 1);
    double buf[64], *v = buf;
    lua_createtable(L, 0, np);
    for (p = 0; p < np; p++) {
      const anim_prop *pr;
      int arity;
      if (!SAME(b, gen)) return -1;
      pr = &b->clip->props[p];
      arity = pr->arity;
      if (arity > 64) {
        v = lua_newuserdatauv(L, sizeof(double) * (size_t)arity, 0);
        if (!SAME(b, gen)) return -1;
        pr = &b->clip->props[p];
      }
      anim_prop_sample(pr, t, b->cursors + pc, v);
      /* (v is on the C stack, or a userdata on the Lua stack) */
      if (arity == 1) lua_pushnumber(L, v[0]);
      else anim_lua_pushnumbers(L, v, (size_t)arity);
      if (v != buf) { lua_remove(L, -2); v = buf; }
      if (!SAME(b, gen)) return -1;
      pr = &b->clip->props[p];
      lua_pushlstring(L, pr->name, pr->len);
      lua_insert(L, -2);
      lua_rawset(L, -3);
      pc += (size_t)arity;
    }
    lua_setfield(L, -2, "properties");
  }
  return 1;
}

/* core.clip_sample(clip, t) -> { joint = { position, rotation, scale } }
 * Making the tables may run a collection, whose finalizers may finalize
 * the clip by hand: the clip and its cursors are taken again for each
 * joint (and a reload by one reads it again: read_whole). */
static int clip_sample(lua_State *L) { return read_whole(L, 2, sample_once); }

/* core.clip_sample_joint(clip, joint, t) -> channels, px, py, pz, qx, qy,
 * qz, qw, sx, sy, sz: joint (1-based, the description's order) at clip
 * time t, as clip:sample gives it (the channels it does not animate:
 * 0, identity, 1), with the clip's cursors (steady sampling is O(1)). */
static int clip_sample_joint(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  int *cursors = ((clip_box *)lua_touserdata(L, 1))->cursors;
  lua_Integer j = anim_lua_checkrange(L, 2, 1, c->njoints, "joint");
  double t = luaL_checknumber(L, 3), s[11], v[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  int ch, k;
  if (!isfinite(t)) return luaL_argerror(L, 3, "time must be finite");
  j--;
  ch = anim_clip_sample_joint(c, (int)j, t, cursors + j * ANIM_HOT_CURSORS,
                              cursors + c->njoints * ANIM_HOT_CURSORS + j * ANIM_COLD_CURSORS, s);
  if (ch & ANIM_CH_POS) for (k = 0; k < 3; k++) v[k] = s[k];
  if (ch & ANIM_CH_ROT) for (k = 0; k < 4; k++) v[3 + k] = s[3 + k];
  if (ch & ANIM_CH_SCL) for (k = 0; k < 3; k++) v[7 + k] = s[7 + k];
  anim_finite10(v);
  lua_pushinteger(L, ch);
  for (k = 0; k < 10; k++) lua_pushnumber(L, v[k]);
  return 11;
}

/* core.clip_keys(clip, joint, ch) -> times, values (flat), interpolation
 * bytes, handles ({[key] = record} or nil: curve.h's records, of one time
 * a handle or of one per axis), arity, tangents ({[key] =
 * {in, out: 2 * arity numbers, NaN when absent}} for the keys that give
 * one, or nil) -- or nothing when the channel has no keys.  joint is 1-based (the description's order), ch an
 * ANIM_K_* (0 position, 1 rotation, 2 scale, 3 pose weight).  For
 * encoding: these are the numbers the file gave. */
static int keys_once(lua_State *L, clip_box *b, unsigned gen) {
  anim_clip *c = b->clip;
  lua_Integer j = anim_lua_checkrange(L, 2, 1, c->njoints, "joint");
  lua_Integer ch = anim_lua_checkrange(L, 3, ANIM_K_POS, ANIM_K_PW, "channel");
  const anim_keys *k;
  int i, n, arity, nh;
  k = &c->joints[j - 1].keys[ch];
  n = k->n, arity = k->arity, nh = k->nh;
  if (n <= 0) return 0;
  /* each table is made, then filled from the keys taken again: making it
   * may run finalizers, which may finalize the clip by hand (raises) or
   * reload it (read_whole reads it again) */
#define KEYS() (&b->clip->joints[j - 1].keys[ch])
#define AFTER_TABLE() do { if (!SAME(b, gen)) return -1; } while (0)
  lua_createtable(L, n, 0);
  AFTER_TABLE();
  anim_lua_fillnumbers(L, KEYS()->t, (size_t)n);
  lua_createtable(L, (int)((size_t)n * (size_t)arity), 0);
  AFTER_TABLE();
  anim_lua_fillnumbers(L, KEYS()->v, (size_t)n * (size_t)arity);
  lua_createtable(L, n, 0);
  AFTER_TABLE();
  k = KEYS();
  for (i = 0; i < n; i++) {
    lua_pushinteger(L, k->ie[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (nh > 0) {
    lua_createtable(L, 0, nh);
    for (i = 0; i < n; i++) {
      AFTER_TABLE();
      if (!anim_keys_handle(KEYS(), i)) continue;
      lua_createtable(L, ANIM_KEYS_HREC(KEYS()), 0);
      AFTER_TABLE();
      anim_lua_fillnumbers(L, anim_keys_handle(KEYS(), i), (size_t)ANIM_KEYS_HREC(KEYS()));
      lua_rawseti(L, -2, i + 1);
    }
  } else {
    lua_pushnil(L);
  }
  lua_pushinteger(L, arity);
  AFTER_TABLE();
  if (KEYS()->tan) {
    size_t rec = 2 * (size_t)arity;
    lua_createtable(L, 0, 0);
    for (i = 0; i < n; i++) {
      const double *v;
      AFTER_TABLE();
      v = KEYS()->tan + (size_t)i * rec;
      if (!ANIM_TAN_GIVEN(v) && !ANIM_TAN_GIVEN(v + arity)) continue;
      lua_createtable(L, (int)rec, 0);
      AFTER_TABLE();
      anim_lua_fillnumbers(L, KEYS()->tan + (size_t)i * rec, rec);
      lua_rawseti(L, -2, i + 1);
    }
  } else {
    lua_pushnil(L);
  }
#undef AFTER_TABLE
#undef KEYS
  return 6;
}

static int clip_keys(lua_State *L) { return read_whole(L, 3, keys_once); }

static int noise(lua_State *L) {
  lua_pushnumber(L, anim_noise(luaL_checknumber(L, 1), luaL_optnumber(L, 2, 0)));
  return 1;
}

static const luaL_Reg funcs[] = {
  {"clip_sample", clip_sample},
  {"clip_keys", clip_keys},
  {"clip_sample_joint", clip_sample_joint},
  {"noise", noise},
  {NULL, NULL}
};

void anim_lua_open_clip_read(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
