/* lua_clip.c - the Lua binding of clips: builds a C clip from the
 * normalised description lua/anim/format/read.lua (and the importers) make
 * (lua_clip_read.c samples it and reads its keys).  The description is checked again here (types, counts)
 * so that no Lua value can crash the core; user-facing messages come from
 * the Lua side.  This file is the description's one reader.
 *
 * The description (core.clip_new's first argument), every number a code
 * of csrc/core/codes.h where it names one:
 *   desc = {
 *     length = seconds (0), speed = number (1), priority = number (0),
 *     loop = ANIM_LOOP_CODES (once), blend = ANIM_BLEND_CODES (normal),
 *     euler = ANIM_EULER_CODES (yxz),
 *     joints = { joint, ... },               -- in the clip's order
 *     items = { { t = seconds, kind = ANIM_ITEM_CODES, index = 0-based in
 *                 file order within its kind, side = ANIM_SIDE_CODES }, ... },
 *   }
 *   joint = { name = string, weight = 0..1 (1), muted = boolean,
 *             pos = channel, rot = channel (Euler degrees) | qrot = channel
 *             (quaternions x, y, z, w), scl = channel, pw = channel (version
 *             1 pose weights, arity 1) }   -- each channel optional
 *   channel = keys, or { axes = { keys, keys, keys } } (a split channel:
 *             each axis its own keys of arity 1)
 *   keys = { t = { n times, not decreasing },
 *            vals = { n arrays of arity numbers } | v = { n * arity numbers },
 *            ie = { n key bytes: interp | ease << ease_shift | has_interp |
 *                   has_ease (ANIM_KEYBYTE_CODES) },
 *            -- or, for t, vals and ie: block = a key block of arity
 *            -- numbers per key (lua_helpers.h: core.key_scanner's)
 *            h = nil | { [key] = handle record of ANIM_HREC(arity) numbers:
 *                   out dt, in dt (NaN: absent), out dv[d], in dv[d], form
 *                   (ANIM_HANDLE_CODES); or, a time per axis, of
 *                   ANIM_HREC_DT(d, arity): out dt[d], in dt[d], out dv[d],
 *                   in dv[d], form (the channel's records are then all
 *                   kept so, curve.h) },
 *            mods = nil | { [axis] = { modifier, ... } } }
 *   modifier = { type = ANIM_MODIFIER_CODES, before, after = ANIM_CYCLE_CODES
 *                (repeat), p1..p4 = numbers (0; curve.h names them per type),
 *                points = { time, lo, hi, ... } (envelope) }
 *   desc.props = nil | { prop, ... }          -- property channels (property.h)
 *   prop = { name = string, arity = components (1..ANIM_MAX_PROP_ARITY),
 *            t = { n times }, v = { n * arity numbers, key after key },
 *            ie = { n key bytes },
 *            h = nil | { [key] = record of 3 + 2 * arity numbers: out dt, in
 *                   dt (NaN: absent), out dv[arity], in dv[arity], form; or
 *                   of 1 + 4 * arity: out dt[arity], in dt[arity], out
 *                   dv[arity], in dv[arity], form },
 *            tan = nil | { [key] = in-tangent[arity], out-tangent[arity]
 *                   (2 * arity numbers, NaN: absent; cubicspline) },
 *            mods = nil | { [component] = { modifier, ... } },
 *            discrete = nil | true (every key a step: the track of the
 *                   largest share gives the value, propmix.c) }
 * The second argument, info, is the Lua side's table of the clip (names,
 * timed items, the source for encoding); it is kept as the user value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/amath.h"
#include "lua_helpers.h"

#define MAX_KEYS ANIM_MAX_CURVE_KEYS  /* per curve: bounds memory for hostile input */

typedef anim_clip_box clip_box;

/* By the collector or by hand (a script may reach the metatable): the box
 * lets go of the clip (tracks playing it hold their own references) and
 * every later use of it raises. */
static int clip_gc(lua_State *L) {
  clip_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_CLIP);
  if (b->cursors) anim_free(&b->clip->mem, b->cursors, sizeof(int) * b->ncursors);
  anim_clip_free(b->clip);
  b->clip = NULL;
  b->cursors = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_CLIP);
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

/* The clip being built is not reachable from Lua: a collection (the retry
 * after a failed allocation) does not finalize it. */
static void *alloc(lua_State *L, anim_clip *c, size_t n) {
  void *p;
  ANIM_LUA_RETRY(L, p, anim_clip_alloc(c, n));
  if (!p) anim_lua_nomem(L);
  return p;
}

/* The modifier list at stack index lt into cv. */
static void read_mods(lua_State *L, anim_clip *c, int lt, anim_curve *cv) {
  int n, i, mt;
  anim_mod *m;
  if (!lua_istable(L, lt)) luaL_error(L, "description modifier list must be a table");
  {
    /* (in range before it becomes an int: a __len of 2^32 + 1 is no 1) */
    lua_Integer len = luaL_len(L, lt);
    if (len < 0 || len > MAX_KEYS) luaL_error(L, "description modifier list too long");
    n = (int)len;
  }
  lua_pushvalue(L, lt);
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

/* Key i of keys k from the description's tables (stack indices: times
 * tt, values vt, flat or a table per key, interpolation bytes it). */
static void key_values(lua_State *L, anim_keys *k, int i, int tt, int vt, int it, int flat) {
  int a, arity = k->arity;
  double ie = num_at(L, it, i + 1);
  k->t[i] = num_at(L, tt, i + 1);
  if (flat) {
    for (a = 0; a < arity; a++) k->v[i * arity + a] = num_at(L, vt, (lua_Integer)i * arity + a + 1);
  } else {
    if (lua_geti(L, vt, i + 1) != LUA_TTABLE) luaL_error(L, "description key value must be a table");
    for (a = 0; a < arity; a++) k->v[i * arity + a] = num_at(L, lua_gettop(L), a + 1);
    lua_pop(L, 1);
  }
  if (!(ie >= 0 && ie <= 255 && ie == floor(ie))) luaL_error(L, "description interpolation out of range");
  k->ie[i] = (unsigned char)ie;
}

/* How many numbers a handle record at r (a table) holds, checked: one
 * time a handle (ANIM_HREC(arity)) or, for a vector, one per axis (wide);
 * *rdt gets the record's times a handle. */
static int record_len(lua_State *L, int r, int arity, int *rdt) {
  int rec = ANIM_HREC(arity), wide = ANIM_HREC_DT(ANIM_HDIMS(arity), arity);
  lua_Integer len = lua_istable(L, r) ? luaL_len(L, r) : -1;
  *rdt = len == wide && wide != rec ? ANIM_HDIMS(arity) : 1;
  if (len == rec || len == wide) return (int)len;
  if (wide == rec) return luaL_error(L, "description handle record must hold %d numbers", rec);
  return luaL_error(L, "description handle record must hold %d or %d numbers", rec, wide);
}

/* Whether the handle records of table ht (n keys) have one time per axis;
 * their count into *nh. */
static int records_wide(lua_State *L, int ht, int n, int arity, int *nh) {
  int i, wide = 0, rdt;
  *nh = 0;
  for (i = 0; i < n; i++) {
    if (lua_geti(L, ht, i + 1) != LUA_TNIL) {
      (*nh)++;
      if (lua_istable(L, -1)) wide |= record_len(L, lua_gettop(L), arity, &rdt) && rdt > 1;
    }
    lua_pop(L, 1);
  }
  return wide;
}

/* The handle record at r into h, a record of hdt times a handle (curve.h):
 * a record of one time a handle widened, its time given to each axis. */
static void read_record(lua_State *L, int r, double *h, int arity, int hdt) {
  int d = ANIM_HDIMS(arity), rdt, side, a;
  record_len(L, r, arity, &rdt);
  if (rdt > hdt) luaL_error(L, "description handles changed while read");
  for (side = 0; side < 2; side++)
    for (a = 0; a < hdt; a++) h[side * hdt + a] = num_at(L, r, side * rdt + (rdt > 1 ? a : 0) + 1);
  for (a = 0; a < 2 * d + 1; a++) h[2 * hdt + a] = num_at(L, r, 2 * rdt + a + 1);
}

/* The keys of the table at ct into slot ch (ANIM_K_*, ANIM_K_AXIS) of
 * joint j: { t = {n times}, vals = {n arrays of arity numbers} or v = {n *
 * arity numbers}, ie = {n interpolation bytes (curve.h)} -- or block = a
 * key block of those (copied as it is) --, h = nil or
 * {[key] = handle record (read_record)}, mods = nil or
 * {[axis] = modifier list} }; the modifiers go to the ncurves curves cv. */
static void read_keys(lua_State *L, anim_clip *c, int j, int ct, int ch, int arity, anim_curve *cv,
                      int ncurves) {
  int n, i, a, nh = 0, top = lua_gettop(L), tt = 0, vt = 0, flat = 0, it = 0, ht = 0, hdt = 1;
  anim_keys *k;
  const anim_keyblock *kb = NULL;
  if (lua_getfield(L, ct, "block") != LUA_TNIL) {
    kb = anim_lua_tokeyblock(L, -1);
    if (!kb || kb->arity != arity || kb->n > MAX_KEYS) luaL_error(L, "description key block must be one of arity %d", arity);
    n = kb->n;
  } else {
    n = push_array(L, ct, "t");
    if (n < 0) luaL_error(L, "description channel without times");
    if (n > MAX_KEYS) luaL_error(L, "too many keys in one curve (at most %d)", MAX_KEYS);
    tt = lua_gettop(L);
    flat = push_array(L, ct, "vals") < 0;
    if (flat && push_array(L, ct, "v") != n * arity) luaL_error(L, "description channel values do not match times");
    if (!flat && luaL_len(L, -1) != (lua_Integer)n) luaL_error(L, "description channel values do not match times");
    vt = lua_gettop(L);
    if (push_array(L, ct, "ie") != n) luaL_error(L, "description channel interpolations do not match times");
    it = lua_gettop(L);
  }
  if (lua_getfield(L, ct, "h") == LUA_TTABLE) {
    ht = lua_gettop(L);
    if (records_wide(L, ht, n, arity, &nh)) hdt = ANIM_HDIMS(arity);
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "description handles must be a table");
  }
  ANIM_LUA_RETRY(L, k, anim_clip_keys_dt(c, j, ch, n, arity, nh, hdt));
  if (!k) anim_lua_nomem(L);
  nh = 0;
  if (kb) {
    /* (the block is on the stack: no finalizer frees it) */
    const double *bt, *bv;
    const unsigned char *bie;
    ANIM_KEYBLOCK_ARRAYS(kb, bt, bv, bie);
    memcpy(k->t, bt, sizeof(double) * (size_t)n);
    memcpy(k->v, bv, sizeof(double) * (size_t)n * (size_t)arity);
    memcpy(k->ie, bie, (size_t)n);
  }
  for (i = 0; i < n; i++) {
    if (!kb) key_values(L, k, i, tt, vt, it, flat);
    if (ht && lua_geti(L, ht, i + 1) != LUA_TNIL) {
      int r = lua_gettop(L);
      double *h;
      /* the table was counted above; a metatable may answer differently */
      if (nh >= k->nh) luaL_error(L, "description handles changed while read");
      h = anim_keys_mark(k, i, nh++);
      read_record(L, r, h, arity, hdt);
    }
    if (ht) lua_pop(L, 1);
  }
  if (lua_getfield(L, ct, "tan") == LUA_TTABLE) {  /* or nil */
    /* cubicspline tangents: {[key] = {in-tangent, out-tangent: 2 * arity
     * numbers, NaN for one the key does not give}} */
    int tt2 = lua_gettop(L);
    if (!anim_clip_tangents(c, k)) anim_lua_nomem(L);
    for (i = 0; i < n; i++) {
      if (lua_geti(L, tt2, i + 1) != LUA_TNIL) {
        int r = lua_gettop(L);
        if (!lua_istable(L, r) || luaL_len(L, r) != 2 * arity)
          luaL_error(L, "description tangents must hold %d numbers", 2 * arity);
        for (a = 0; a < 2 * arity; a++) k->tan[(size_t)i * 2 * (size_t)arity + (size_t)a] = num_at(L, r, a + 1);
      }
      lua_pop(L, 1);
    }
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "description tangents must be a table");
  }
  lua_pop(L, 1);
  if (lua_getfield(L, ct, "mods") == LUA_TTABLE) {  /* or nil */
    int mt = lua_gettop(L);
    for (a = 0; a < ncurves; a++) {
      if (lua_geti(L, mt, a + 1) != LUA_TNIL) read_mods(L, c, lua_gettop(L), &cv[a]);
      lua_pop(L, 1);
    }
  }
  lua_settop(L, top);
}

/* Channel ch of joint j from field `field` of the joint table jt: keys as
 * read_keys reads them, or { axes = {three tables of keys of arity 1} }
 * (a split channel).  Returns 1 when present. */
static int read_channel(lua_State *L, anim_clip *c, int j, int jt, const char *field, int ch,
                        int arity, anim_curve *cv, int ncurves) {
  int a;
  if (lua_getfield(L, jt, field) == LUA_TNIL) { lua_pop(L, 1); return 0; }
  if (!lua_istable(L, -1)) luaL_error(L, "description channel '%s' must be a table", field);
  if (lua_getfield(L, -1, "axes") == LUA_TNIL) {
    lua_pop(L, 1);
    read_keys(L, c, j, lua_gettop(L), ch, arity, cv, ncurves);
  } else {
    if (ncurves != 3) luaL_error(L, "description channel '%s' cannot be split", field);
    for (a = 0; a < 3; a++) {
      if (lua_geti(L, -1, a + 1) != LUA_TTABLE) luaL_error(L, "description axis must be a table");
      read_keys(L, c, j, lua_gettop(L), ANIM_K_AXIS(ch, a), 1, &cv[a], 1);
      lua_pop(L, 1);
    }
    c->joints[j].split |= 1 << ch;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

static const char *dup_string(lua_State *L, anim_clip *c, int idx, size_t *plen) {
  size_t len;
  const char *s;
  if (lua_type(L, idx) != LUA_TSTRING) luaL_error(L, "description name must be a string");
  s = lua_tolstring(L, idx, &len);
  *plen = len;
  {
    const char *d;
    ANIM_LUA_RETRY(L, d, anim_clip_strdup(c, s, len));
    if (!d) anim_lua_nomem(L);
    return d;
  }
}

static void read_joint(lua_State *L, anim_clip *c, int jt, int ji) {
  anim_joint *j = &c->joints[ji];
  lua_getfield(L, jt, "name");
  j->name = dup_string(L, c, -1, &j->name_len);
  lua_pop(L, 1);
  j->weight = field_num(L, jt, "weight", 1);
  j->muted = lua_getfield(L, jt, "muted") != LUA_TNIL && lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (read_channel(L, c, ji, jt, "pos", ANIM_K_POS, 3, j->pos, 3)) j->channels |= ANIM_CH_POS;
  if (read_channel(L, c, ji, jt, "scl", ANIM_K_SCL, 3, j->scl, 3)) j->channels |= ANIM_CH_SCL;
  if (read_channel(L, c, ji, jt, "rot", ANIM_K_ROT, 3, j->rot, 3)) j->channels |= ANIM_CH_ROT;
  else if (read_channel(L, c, ji, jt, "qrot", ANIM_K_ROT, 4, NULL, 0)) {
    j->channels |= ANIM_CH_ROT;
    j->rot_quat = 1;
  }
  read_channel(L, c, ji, jt, "pw", ANIM_K_PW, 1, &j->pose_weight, 1);
}

/* desc.props into the clip's property channels. */
static void read_props(lua_State *L, anim_clip *c) {
  int np = push_array(L, 1, "props"), p, i, a, pt;
  if (np < 0) return;
  pt = lua_gettop(L);
  if (np > MAX_KEYS) luaL_error(L, "description field 'props' too long");
  if (anim_clip_props(c, np) < 0) anim_lua_nomem(L);
  for (p = 0; p < np; p++) {
    int o, n, arity, nh = 0, tt, vt, it, ht = 0, rec, wide;
    size_t len;
    const char *name;
    anim_keys *k;
    if (lua_geti(L, pt, p + 1) != LUA_TTABLE) luaL_error(L, "description property must be a table");
    o = lua_gettop(L);
    if (lua_getfield(L, o, "name") != LUA_TSTRING) luaL_error(L, "description property name must be a string");
    name = lua_tolstring(L, -1, &len);
    arity = field_int(L, o, "arity", 1, 1, ANIM_MAX_PROP_ARITY);
    rec = 3 + 2 * arity;
    wide = 1 + 4 * arity;
    n = push_array(L, o, "t");
    if (n < 0 || n > MAX_KEYS) luaL_error(L, "description property needs at most %d times", MAX_KEYS);
    tt = lua_gettop(L);
    if (push_array(L, o, "v") != n * arity) luaL_error(L, "description property values do not match times");
    vt = lua_gettop(L);
    if (push_array(L, o, "ie") != n) luaL_error(L, "description property interpolations do not match times");
    it = lua_gettop(L);
    if (lua_getfield(L, o, "h") == LUA_TTABLE) {
      ht = lua_gettop(L);
      for (i = 0; i < n; i++) nh += lua_geti(L, ht, i + 1) != LUA_TNIL, lua_pop(L, 1);
    } else if (!lua_isnil(L, -1)) {
      luaL_error(L, "description handles must be a table");
    }
    k = anim_prop_keys(c, p, name, len, n, arity, nh);
    if (!k) anim_lua_nomem(L);
    lua_getfield(L, o, "discrete");
    c->props[p].discrete = lua_toboolean(L, -1);
    lua_pop(L, 1);
    nh = 0;
    for (i = 0; i < n; i++) {
      double ie = num_at(L, it, i + 1);
      k[0].t[i] = num_at(L, tt, i + 1);
      for (a = 0; a < arity; a++) k[a].v[i] = num_at(L, vt, (lua_Integer)i * arity + a + 1);
      if (!(ie >= 0 && ie <= 255 && ie == floor(ie))) luaL_error(L, "description interpolation out of range");
      k[0].ie[i] = (unsigned char)ie;
      if (ht && lua_geti(L, ht, i + 1) != LUA_TNIL) {
        int r = lua_gettop(L), len, rdt;
        lua_Integer b;
        len = lua_istable(L, r) ? (int)luaL_len(L, r) : -1;
        if (len != rec && len != wide) {
          if (rec == wide) luaL_error(L, "description handle record must hold %d numbers", rec);
          luaL_error(L, "description handle record must hold %d or %d numbers", rec, wide);
        }
        if (nh >= k[0].nh) luaL_error(L, "description handles changed while read");
        /* component a's record: out dt, in dt, its out dv and in dv, form
         * (a wide record: a time per component and handle) */
        rdt = len == rec ? 1 : arity;
        b = 2 * rdt;
        for (a = 0; a < arity; a++) {
          double *h = anim_keys_mark(&k[a], i, nh);
          h[0] = num_at(L, r, 1 + (rdt > 1 ? a : 0));
          h[1] = num_at(L, r, 1 + rdt + (rdt > 1 ? a : 0));
          h[2] = num_at(L, r, b + 1 + a);
          h[3] = num_at(L, r, b + 1 + arity + a);
          h[4] = num_at(L, r, len);
        }
        nh++;
      }
      if (ht) lua_pop(L, 1);
    }
    if (lua_getfield(L, o, "mods") == LUA_TTABLE) {  /* or nil */
      int mt = lua_gettop(L);
      for (a = 0; a < arity; a++) {
        if (lua_geti(L, mt, a + 1) != LUA_TNIL) read_mods(L, c, lua_gettop(L), &c->props[p].curves[a]);
        lua_pop(L, 1);
      }
    }
    if (lua_getfield(L, o, "tan") == LUA_TTABLE) {  /* or nil */
      /* component a's tangents: in, out of each key (anim_clip_tangents) */
      int tt2 = lua_gettop(L);
      for (a = 0; a < arity; a++)
        if (!anim_clip_tangents(c, &k[a])) anim_lua_nomem(L);
      for (i = 0; i < n; i++) {
        if (lua_geti(L, tt2, i + 1) != LUA_TNIL) {
          int r = lua_gettop(L);
          if (!lua_istable(L, r) || luaL_len(L, r) != 2 * arity)
            luaL_error(L, "description tangents must hold %d numbers", 2 * arity);
          for (a = 0; a < arity; a++) {
            k[a].tan[2 * (size_t)i] = num_at(L, r, a + 1);
            k[a].tan[2 * (size_t)i + 1] = num_at(L, r, arity + a + 1);
          }
        }
        lua_pop(L, 1);
      }
    } else if (!lua_isnil(L, -1)) {
      luaL_error(L, "description tangents must be a table");
    }
    lua_settop(L, pt);
  }
  lua_pop(L, 1);
}

/* The components of every property of c, all together (the cursors of
 * clip:sample). */
static size_t prop_components(const anim_clip *c) {
  size_t n = 0;
  int p;
  for (p = 0; p < c->nprops; p++) n += (size_t)c->props[p].arity;
  return n;
}

static void clip_whole(lua_State *L, clip_box *b, int info);

/* core.clip_new(desc, info) -> clip userdata (info kept as its user value) */
static int clip_new(lua_State *L) {
  clip_box *b;
  anim_clip *c;
  int nj, ni, i;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  b = anim_lua_newbox(L, ANIM_BOX_CLIP, sizeof *b, 1);
  nj = push_array(L, 1, "joints");
  if (nj < 0) luaL_error(L, "description needs joints");
  lua_pop(L, 1);
  ni = push_array(L, 1, "items");
  if (ni >= 0) lua_pop(L, 1); else ni = 0;
  {
    anim_mem m = anim_lua_mem(L);
    ANIM_LUA_RETRY(L, c, anim_clip_new(&m, nj, ni));
    b->clip = c;
  }
  if (!c) return anim_lua_nomem(L);
  c->length = field_num(L, 1, "length", 0);
  c->speed = field_num(L, 1, "speed", 1);
  c->priority = field_num(L, 1, "priority", 0);
  c->loop = field_int(L, 1, "loop", ANIM_ONCE, ANIM_ONCE, ANIM_PINGPONG);
  c->blend = field_int(L, 1, "blend", 0, 0, 1);
  c->euler = field_int(L, 1, "euler", ANIM_YXZ, ANIM_XYZ, ANIM_ZYX);
  c->absolute = field_int(L, 1, "absolute", 0, 0, 1);
  lua_getfield(L, 1, "joints");
  for (i = 0; i < nj; i++) {
    lua_geti(L, -1, i + 1);
    if (!lua_istable(L, -1)) return luaL_error(L, "description joint must be a table");
    read_joint(L, c, lua_gettop(L), i);
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
  read_props(L, c);
  clip_whole(L, b, 2);
  return 1;
}

/* The clip of box b (on the top of the stack) finished, its cursors made
 * and the info table at info set as its Lua side; raises on failure. */
static void clip_whole(lua_State *L, clip_box *b, int info) {
  anim_clip *c = b->clip;
  int nj = c->njoints;
  const char *err = anim_clip_finish(c);
  if (err == ANIM_CLIP_NOMEM && anim_lua_retry(L)) err = anim_clip_finish(c);
  if (err) {
    if (err == ANIM_CLIP_NOMEM) anim_lua_nomem(L);
    luaL_error(L, "invalid clip description: %s", err);
  }
  {
    /* the joints' cursors, then the properties' */
    size_t nc = (size_t)ANIM_JOINT_CURSORS * (size_t)(nj ? nj : 1) + prop_components(c), k;
    ANIM_LUA_RETRY(L, b->cursors, anim_malloc(&c->mem, sizeof(int) * nc));
    if (!b->cursors) anim_lua_nomem(L);
    b->ncursors = nc;
    for (k = 0; k < nc; k++) b->cursors[k] = -1;
  }
  lua_pushvalue(L, info);
  lua_setiuservalue(L, -2, 1);
  /* the clip is whole: the collector hears of its memory (finalizers may
   * run: nothing of it is used after this) */
  anim_lua_account(L, anim_lua_acct_of(L));
}

anim_clip *anim_lua_clip_named(lua_State *L, const anim_lua_name *names, int n, const anim_clip *fields, int info) {
  clip_box *b;
  anim_clip *c;
  int i;
  info = lua_absindex(L, info);
  b = anim_lua_newbox(L, ANIM_BOX_CLIP, sizeof *b, 1);
  {
    anim_mem m = anim_lua_mem(L);
    ANIM_LUA_RETRY(L, c, anim_clip_new(&m, n, 0));
    b->clip = c;
  }
  if (!c) anim_lua_nomem(L);
  c->length = fields->length, c->loop = fields->loop, c->euler = fields->euler, c->absolute = fields->absolute;
  for (i = 0; i < n; i++) {
    anim_joint *j = &c->joints[i];
    ANIM_LUA_RETRY(L, j->name, anim_clip_strdup(c, names[i].s, names[i].len));
    if (!j->name) anim_lua_nomem(L);
    j->name_len = names[i].len;
    j->weight = 1;
  }
  clip_whole(L, b, info);
  return c;
}

/* core.clip_info(clip) -> the info table given to clip_new */
static int clip_info(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_CLIP, 1); }

static const luaL_Reg clip_funcs[] = {
  {"clip_new", clip_new},
  {"clip_info", clip_info},
  {NULL, NULL}
};

void anim_lua_open_clip(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_CLIP, clip_gc, "clip_metatable");
  luaL_setfuncs(L, clip_funcs, 0);
}
