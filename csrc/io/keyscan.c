/* io/keyscan.c - core.key_scanner: the one reader of a .anim channel's
 * keys, in C.
 *
 * lua/anim/format/read_keys.lua reads a channel's keys (read_keys) with
 * this scanner, for a decoded file and for a table from Lua alike: the
 * scanner takes the keys while each is plain (well formed, holding what
 * the core keeps and nothing it cannot say), and stops at the first key it
 * does not take, which the checker (read_keys.lua's read_key) then reads
 * field by field: it names the JSON path of what is wrong, or takes a key
 * that holds what the core cannot say (a null, an integer beyond 2^53),
 * kept whole.  The scanner then takes over again after that key (its
 * `start` and `prev` arguments), so that one odd key does not send the
 * rest of the channel to the checker.
 *
 * A channel the scanner takes whole in its first call reaches the core in
 * a key block (no Lua table per key: clip_new copies the numbers), and the
 * tree check (core.check_tree, check.c) leaves its list out when the
 * scanner found in it all the tree check looks for.  Otherwise the keys it
 * takes are written in the channel's tables t, vals and ie, as the checker
 * writes its keys: a call after a refused key makes no block (alternating
 * good and bad keys cost linear work).
 *
 * Tables with a metatable (from Lua) are read as Lua's `#` and indexing
 * read them (__len from 5.2 on, __index), their members walked raw (as
 * `next`): the same key as an array without one.  An integer beyond 2^53
 * in a key's time, value or handle is not taken (the checker keeps the key
 * whole, so that nothing is lost); in a tangent it is taken, made a double
 * by the core, as the reader always did.
 *
 * Upvalues: the interpolation names -> codes, the ease names -> codes, the
 * default ease of each interpolation (by code + 1: read_values.lua's
 * default_ease, 0 for what is not an easing), Lua's 0/0 (the NaN of an
 * absent handle time or tangent, bit for bit read_values.lua's), the names
 * of the extra's fields the core keeps, and the names of the scanner
 * (below).  Names are compared by address: every runtime interns strings of
 * up to 40 bytes, so a string equal to a name is that name's string. */
#include <math.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/codes.h"
#include "lua/lua_helpers.h"
#include "io/io.h"

/* The deepest a tree may be checked to: the hard maximum of
 * anim.limits.depth (lua/anim/base/limits.lua), as check.c's. */
#define MAX_DEPTH 1000

enum { UP_INTERP = 1, UP_EASE, UP_DEFAULT, UP_NAN, UP_FIELDS, UP_NAMES, UP_COUNT = UP_NAMES };
#define UP(i) lua_upvalueindex(i)

/* The fields of a key's extra the core keeps, in the order of UP_FIELDS. */
enum { F_EASE, F_OUT, F_IN, F_TIN, F_TOUT, F_COUNT };
static const char *const FIELDS[F_COUNT] = { "ease", "out", "in", "in_tangent", "out_tangent" };

/* The names the scanner compares, by address (made by key_scanner). */
typedef struct names {
  const char *interp[ANIM_INTERP_COUNT], *ease[ANIM_EASE_COUNT], *field[F_COUNT];
  int interp_code[ANIM_INTERP_COUNT], ease_code[ANIM_EASE_COUNT], dflt[ANIM_INTERP_COUNT];
  int ninterp, nease;
} names;

/* What the scanner is given beside the keys: its names, the tree check's
 * limits, and whether what it took so far meets them (so that the tree
 * check can leave the list out). */
typedef struct scan {
  const names *nm;
  size_t max_string;
  int verified;
} scan;

#define TWO53 ((lua_Integer)1 << 53)

/* Item i of the table at t, read raw, or as Lua's indexing reads it when
 * the table has a metatable (meta). */
#define SCAN_GETI(L, t, i, meta) ((meta) ? lua_geti(L, t, i) : lua_rawgeti(L, t, i))

static int is_null(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == NULL;
}

/* The value at idx, of type ty, is a finite number that compares in C as
 * it does in Lua (a float, or an integer a double holds; any integer when
 * `any`, for a tangent): 1 with it in *d, else 0. */
static int scan_finite(lua_State *L, int idx, int ty, double *d, int any) {
  double x;
  if (ty != LUA_TNUMBER) return 0;
  x = lua_tonumber(L, idx);
  if (!(x == x && x > -HUGE_VAL && x < HUGE_VAL)) return 0;
  if (!any && (x >= 9007199254740992.0 || x <= -9007199254740992.0) && lua_isinteger(L, idx)) {
    lua_Integer i = lua_tointeger(L, idx);
    if (i > TWO53 || i < -TWO53) return 0;
  }
  *d = x;
  return 1;
}

/* Lua's #v of the table at idx, which has a metatable (__len from 5.2 on),
 * when it is a whole number from 0 to 8; else -1. */
static int scan_metalen(lua_State *L, int idx) {
#if LUA_VERSION_NUM >= 502
  double d;
  int n = -1;
  lua_len(L, idx);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    d = lua_tonumber(L, -1);
    if (d >= 0 && d <= 8 && d == floor(d)) n = (int)d;
  }
  lua_pop(L, 1);
  return n;
#else
  size_t n = lua_rawlen(L, idx);
  return n <= 8 ? (int)n : -1;
#endif
}

/* The length of the value at idx (an absolute index), of type ty, when it
 * is a table holding nothing after its length (read_keys' rule: #v, and
 * next(v, #v) == nil); else -1.  (0 for an empty one, which no caller
 * takes.)  *meta: whether the table has a metatable (its items are then
 * read through it; the tree check has not seen such a table: not
 * verified).  Leaves the stack as it was. */
static int scan_len(lua_State *L, scan *sc, int idx, int ty, int *meta) {
  int after;
  int n;
  *meta = 0;
  if (ty != LUA_TTABLE) return -1;
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    *meta = 1;
    sc->verified = 0;
    n = scan_metalen(L, idx);
  } else {
    size_t len = lua_rawlen(L, idx);
    n = len <= 8 ? (int)len : -1;
  }
  if (n <= 0) return n;
  lua_pushinteger(L, (lua_Integer)n);
  after = lua_next(L, idx);
  if (after) {
    lua_pop(L, 2);
    return -1;
  }
  return n;
}

/* The string at idx (of type ty) is names[0..n-1][i]: i, else -1. */
static int scan_name(lua_State *L, int idx, int ty, const char *const *list, int n) {
  const char *s;
  int i;
  if (ty != LUA_TSTRING) return -1;
  s = lua_tostring(L, idx);
  for (i = 0; i < n; i++)
    if (list[i] == s) return i;
  return -1;
}

/* The value at idx is a leaf the tree check passes (check.c): a string
 * within the limit, a boolean, null, a finite number or an integer. */
static int scan_leaf(lua_State *L, const scan *sc, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: return lua_rawlen(L, idx) <= sc->max_string;
    case LUA_TBOOLEAN: return 1;
    case LUA_TNUMBER: return lua_isinteger(L, idx) || isfinite(lua_tonumber(L, idx));
    default: return is_null(L, idx);
  }
}

/* A handle [dt, dv] at h (dt and dv each a finite number, or three:
 * read_values.lua's handle) into dt[3] and dv[3]; *form gets the
 * handle's flags (one: ANIM_HFORM_*_ONE, dts: ANIM_HFORM_*_DTS).  0 when
 * not plain. */
static int scan_handle(lua_State *L, scan *sc, int h, double dt[3], double dv[3], int one, int dts, int *form) {
  int top = lua_gettop(L), tt = top + 1, tv = top + 2, ok = 1, a, m;
  double d = 0;
  if (scan_len(L, sc, h, lua_type(L, h), &m) != 2) return 0;
  SCAN_GETI(L, h, 1, m);
  SCAN_GETI(L, h, 2, m);
  for (a = 0; a < 2 && ok; a++) {
    int at = a ? tv : tt, ty = lua_type(L, at), mv, b;
    double *x = a ? dv : dt;
    if (ty == LUA_TTABLE) {
      ok = scan_len(L, sc, at, ty, &mv) == 3;
      for (b = 0; b < 3 && ok; b++) {
        ok = scan_finite(L, top + 3, SCAN_GETI(L, at, b + 1, mv), &x[b], 0);
        lua_pop(L, 1);
      }
      if (!a) *form |= dts;
    } else {
      ok = scan_finite(L, at, ty, &d, 0);
      x[0] = x[1] = x[2] = d;
      if (a) *form |= one;
    }
  }
  lua_settop(L, top);
  return ok;
}

/* Whether the three times of a handle are one (the same number, and the
 * same sign of a zero: read_values.lua's one_time), or absent (NaN). */
static int one_time(const double dt[3]) {
  int a;
  if (dt[0] != dt[0]) return 1;
  for (a = 1; a < 3; a++)
    if (dt[a] != dt[0] || signbit(dt[a]) != signbit(dt[0])) return 0;
  return 1;
}

/* The handle record of out and in (dt[2][3], dv[2][3]: NaN times for an
 * absent handle) pushed (read_values.lua's read_handles): one time a
 * handle, or one per axis where a handle's differ. */
static void scan_record(lua_State *L, const double dt[2][3], const double dv[2][3], int form) {
  int nt = one_time(dt[0]) && one_time(dt[1]) ? 1 : 3, rec, side, a, i = 1;
  lua_createtable(L, 1 + 2 * nt + 6, 0);
  rec = lua_gettop(L);
  for (side = 0; side < 2; side++)
    for (a = 0; a < nt; a++) {
      if (dt[side][a] != dt[side][a]) lua_pushvalue(L, UP(UP_NAN));
      else lua_pushnumber(L, dt[side][a]);
      lua_rawseti(L, rec, i++);
    }
  for (side = 0; side < 2; side++)
    for (a = 0; a < 3; a++) {
      lua_pushnumber(L, dv[side][a]);
      lua_rawseti(L, rec, i++);
    }
  lua_pushinteger(L, form);
  lua_rawseti(L, rec, i);
}

/* A tangent of nv finite numbers at v into the record at rec from index
 * b + 1 (read_values.lua's read_tangents).  0 when not plain. */
static int scan_tangent(lua_State *L, scan *sc, int v, int nv, int rec, int b) {
  int a, ok, top = lua_gettop(L), mt;
  double d;
  if (scan_len(L, sc, v, lua_type(L, v), &mt) != nv) return 0;
  for (a = 1; a <= nv; a++) {
    ok = scan_finite(L, top + 1, SCAN_GETI(L, v, a, mt), &d, 1);
    lua_rawseti(L, rec, b + a);
    if (!ok) return 0;
  }
  return 1;
}

/* A record of n numbers, each Lua's 0/0 (pushed). */
static int scan_nans(lua_State *L, int n) {
  int rec, a;
  lua_createtable(L, n, 0);
  rec = lua_gettop(L);
  for (a = 1; a <= n; a++) {
    lua_pushvalue(L, UP(UP_NAN));
    lua_rawseti(L, rec, a);
  }
  return rec;
}

/* The extra of a key at e (of type ty), for interpolation code and nv
 * values (read_values.lua's read_extra and read_tangents, for a plain
 * one): 0 when not plain; else 1, with *ie its ease bits (and HAS_EASE
 * when it wrote its ease), *more whether it holds more than the core keeps
 * (other fields, or none at all), and two values pushed: its handle record
 * and its tangent record (each a table or nil).  (An extra whose first
 * member is a number is not plain: an array, or a table from Lua holding
 * items, which the checker reads.) */
static int scan_extra(lua_State *L, scan *sc, int e, int ty, int code, int nv, int *ie, int *more) {
  int top = lua_gettop(L), f = top + F_COUNT + 1, first = 1, i, hrec, trec;
  int ez = top + 1 + F_EASE, hout = top + 1 + F_OUT, hin = top + 1 + F_IN, tin = top + 1 + F_TIN,
      tout = top + 1 + F_TOUT, meta;
  if (ty != LUA_TTABLE) return 0;
  meta = lua_getmetatable(L, e);
  if (meta) {
    lua_pop(L, 1);
    sc->verified = 0;
  }
  for (i = 0; i < F_COUNT; i++) lua_pushnil(L);
  *more = 1;  /* (an empty extra) */
  lua_pushnil(L);
  while (lua_next(L, e)) {
    /* the field's name at f, its value at f + 1 */
    int tk = lua_type(L, f);
    if (first && tk == LUA_TNUMBER) { lua_settop(L, top); return 0; }
    if (first) *more = 0;
    first = 0;
    i = scan_name(L, f, tk, sc->nm->field, F_COUNT);
    if (i >= 0) {
      lua_pushvalue(L, f + 1);
      lua_replace(L, top + 1 + i);
    } else {
      /* a field the core does not keep (an editor's: the extra is kept
       * as it is); what the tree check would look at, looked at here */
      *more = 1;
      if (sc->verified && !(tk == LUA_TSTRING && lua_rawlen(L, f) <= sc->max_string && scan_leaf(L, sc, f + 1)))
        sc->verified = 0;
    }
    lua_settop(L, f);
  }
  if (meta) {
    /* the fields it does not hold, as indexing reads them */
    for (i = 0; i < F_COUNT; i++) {
      if (!lua_isnil(L, top + 1 + i)) continue;
      lua_getfield(L, e, FIELDS[i]);
      lua_replace(L, top + 1 + i);
    }
  }
  if (lua_isnil(L, ez)) {
    *ie = sc->nm->dflt[code] << ANIM_IE_EASE_SHIFT;
  } else {
    i = scan_name(L, ez, lua_type(L, ez), sc->nm->ease, sc->nm->nease);
    if (i < 0) { lua_settop(L, top); return 0; }
    *ie = (sc->nm->ease_code[i] << ANIM_IE_EASE_SHIFT) | ANIM_IE_HAS_EASE;
  }
  if (lua_isnil(L, hout) && lua_isnil(L, hin)) {
    lua_pushnil(L);
    hrec = lua_gettop(L);
  } else {
    /* out dt, in dt (NaN: absent), out dv[3], in dv[3], form */
    double dt[2][3] = { { NAN, NAN, NAN }, { NAN, NAN, NAN } }, dv[2][3] = { { 0, 0, 0 }, { 0, 0, 0 } };
    int form = 0;
    if (!lua_isnil(L, hout) && !scan_handle(L, sc, hout, dt[0], dv[0], ANIM_HFORM_OUT_ONE, ANIM_HFORM_OUT_DTS, &form)) {
      lua_settop(L, top);
      return 0;
    }
    if (!lua_isnil(L, hin) && !scan_handle(L, sc, hin, dt[1], dv[1], ANIM_HFORM_IN_ONE, ANIM_HFORM_IN_DTS, &form)) {
      lua_settop(L, top);
      return 0;
    }
    scan_record(L, (const double (*)[3])dt, (const double (*)[3])dv, form);
    hrec = lua_gettop(L);
  }
  if (lua_isnil(L, tin) && lua_isnil(L, tout)) {
    lua_pushnil(L);
    trec = lua_gettop(L);
  } else {
    trec = scan_nans(L, 2 * nv);
    if (!lua_isnil(L, tin) && !scan_tangent(L, sc, tin, nv, trec, 0)) { lua_settop(L, top); return 0; }
    if (!lua_isnil(L, tout) && !scan_tangent(L, sc, tout, nv, trec, nv)) { lua_settop(L, top); return 0; }
  }
  lua_pushvalue(L, hrec);
  lua_pushvalue(L, trec);
  lua_replace(L, top + 2);
  lua_replace(L, top + 1);
  lua_settop(L, top + 2);
  return 1;
}

/* Field `field` of the channel table ch, held at stack index slot (a
 * table, or nil until a key needs it: then made, as read_key makes it). */
static void scan_need(lua_State *L, int ch, int slot, const char *field) {
  if (lua_istable(L, slot)) return;
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, ch, field);
  lua_replace(L, slot);
}

/* The stack slots of scan_keys: its arguments (the list, the channel, the
 * time before the first key), the key block (or nil), the channel's
 * record tables and its tables of times, values and bytes (when the keys
 * go there as they are taken). */
enum { LIST = 1, CH = 3, PREV = 9, BLOCK, H, TAN, KEEP, TT, VT, IT, BASE = IT };

/* Table `field` of the channel into stack slot `slot` (it must be one). */
static void scan_table(lua_State *L, const char *field, int slot) {
  lua_getfield(L, CH, field);
  if (!lua_istable(L, -1)) luaL_error(L, "scan: a channel of read_keys expected");
  lua_replace(L, slot);
}

/* The keys a first call took, stored: all of them (whole) in the key
 * block kb (its arity nv0), which goes to ch.block; else the `last` first
 * ones in the channel's t, vals and ie (the times and the value tables of
 * the list, the bytes of the block). */
static void scan_store(lua_State *L, anim_keyblock *kb, int whole, int last, int nv0, int list_meta) {
  int i;
  double *bt, *bv;
  unsigned char *bie;
  ANIM_KEYBLOCK_ARRAYS(kb, bt, bv, bie);
  (void)bt, (void)bv;
  if (whole) {
    kb->n = last;
    kb->arity = nv0;
    lua_pushvalue(L, BLOCK);
    lua_setfield(L, CH, "block");
    return;
  }
  if (!last) return;
  scan_table(L, "t", TT);
  scan_table(L, "vals", VT);
  scan_table(L, "ie", IT);
  for (i = 1; i <= last; i++) {
    int mk;
    lua_settop(L, BASE);
    mk = SCAN_GETI(L, LIST, i, list_meta) == LUA_TTABLE && lua_getmetatable(L, BASE + 1);
    if (mk) lua_pop(L, 1);
    SCAN_GETI(L, BASE + 1, 1, mk);
    lua_rawseti(L, TT, i);
    SCAN_GETI(L, BASE + 1, 2, mk);
    lua_rawseti(L, VT, i);
    lua_pushinteger(L, bie[i - 1]);
    lua_rawseti(L, IT, i);
  }
  lua_settop(L, BASE);
}

/* Whether time t (at stack index tk) comes before the time at PREV (a
 * number: the checker's last key, maybe an integer beyond 2^53, which
 * Lua compares exactly). */
static int scan_before(lua_State *L, int tk, double t) {
#if LUA_VERSION_NUM >= 503
  if (lua_isinteger(L, PREV)) return lua_compare(L, tk, PREV, LUA_OPLT);
#else
  (void)tk;
#endif
  return !(t >= lua_tonumber(L, PREV));
}

/* Key n, taken (its time t and values x[0..nv-1] on the stack as scan_keys
 * holds them, its extra, handle and tangent records after them): into the
 * block kb or, without one, the channel's tables; its records and its
 * extra (when it holds more than the core keeps: more) as read_key stores
 * them.  ie: its key byte. */
static void scan_put(lua_State *L, anim_keyblock *kb, lua_Integer n, double t, const double *x, int nv, int ie,
                     int more) {
  int tk = BASE + 2, v = BASE + 3, e = BASE + 5, hrec = e + 1, trec = e + 2, a;
  if (kb) {
    double *bt, *bv;
    unsigned char *bie;
    ANIM_KEYBLOCK_ARRAYS(kb, bt, bv, bie);
    bt[n - 1] = t;
    for (a = 0; a < nv; a++) bv[(n - 1) * nv + a] = x[a];
    bie[n - 1] = (unsigned char)ie;
  } else {
    lua_pushvalue(L, tk);
    lua_rawseti(L, TT, n);
    lua_pushvalue(L, v);
    lua_rawseti(L, VT, n);
    lua_pushinteger(L, ie);
    lua_rawseti(L, IT, n);
  }
  if (!lua_isnil(L, hrec)) {
    scan_need(L, CH, H, "h");
    lua_pushvalue(L, hrec);
    lua_rawseti(L, H, n);
  }
  if (!lua_isnil(L, trec)) {
    scan_need(L, CH, TAN, "tan");
    lua_pushvalue(L, trec);
    lua_rawseti(L, TAN, n);
  }
  if (more) {
    scan_need(L, CH, KEEP, "keep");
    lua_pushvalue(L, e);
    lua_rawseti(L, KEEP, n);
  }
  /* the time, for the next call */
  lua_pushvalue(L, tk);
  lua_replace(L, PREV);
}

/* scan(list, count, ch, rotation, max_string, max_depth, depth [, start,
 * prev]) -> next, prev, checked: the keys list[start..count] (start: 1 by
 * default) taken while plain, into the channel ch of read_keys.lua's
 * read_keys ({ t, vals, ie, h, tan, keep, quat }; quat set as read_key
 * sets it), each not before prev (the time of the key before start, or
 * nil).  When a first call (start 1) takes every key, their times, values
 * and bytes are in a key block (lua_helpers.h), ch.block, which clip_new
 * copies; t, vals and ie stay empty.  Else the keys taken are in t, vals
 * and ie, as read_key stores them, and next is the index of the first key
 * not taken.  prev: the time of the last key taken (the prev given when
 * none was).  checked: a first call took every key, and they meet what
 * core.check_tree checks (strings of at most max_string bytes, finite
 * numbers, index or string keys, nesting: the list at `depth` of the tree,
 * its keys within max_depth), so that the tree check may leave the list
 * out.  (For a decoded file: its arrays hold nothing but their items, its
 * objects no number keys.) */
static int scan_keys(lua_State *L) {
  lua_Integer count = anim_lua_checkrange(L, 2, 0, ANIM_MAX_CURVE_KEYS, "count"), n, start;
  int rot = lua_toboolean(L, 4), last = 0, quat, nv0 = 0, list_meta, have_prev;
  double prev = 0;
  anim_keyblock *kb = NULL;
  scan sc;
  luaL_checktype(L, LIST, LUA_TTABLE);
  luaL_checktype(L, CH, LUA_TTABLE);
  sc.nm = lua_touserdata(L, UP(UP_NAMES));
  sc.max_string = (size_t)anim_lua_checkrange(L, 5, 0, ANIM_LUA_IMAX, "max_string");
  /* the deepest a plain key's table is: list, key, extra, handle, dv;
   * the longest name a plain key holds is 11 bytes (cubicspline,
   * in_tangent, out_tangent): only other fields' strings are measured */
  sc.verified = anim_lua_checkrange(L, 7, 0, MAX_DEPTH, "depth") + 4 <= anim_lua_checkrange(L, 6, 0, MAX_DEPTH, "max_depth") &&
                sc.max_string >= 11;
  start = lua_isnoneornil(L, 8) ? 1 : anim_lua_checkrange(L, 8, 1, count + 1, "start");
  have_prev = !lua_isnoneornil(L, PREV);
  if (have_prev) luaL_checktype(L, PREV, LUA_TNUMBER);
  lua_settop(L, PREV);
  luaL_checkstack(L, 40, "scanning keys");
  list_meta = lua_getmetatable(L, LIST);
  if (list_meta) lua_pop(L, 1);
  if (start == 1) kb = anim_lua_newkeyblock(L, (int)count, rot ? 4 : 3);  /* at BLOCK */
  else lua_pushnil(L);
  lua_getfield(L, CH, "h");
  lua_getfield(L, CH, "tan");
  lua_getfield(L, CH, "keep");
  lua_settop(L, BASE);
  if (!kb) {
    /* after a key the checker read: the keys go to the tables at once */
    scan_table(L, "t", TT);
    scan_table(L, "vals", VT);
    scan_table(L, "ie", IT);
  }
  lua_getfield(L, CH, "quat");
  quat = lua_isnil(L, -1) ? -1 : lua_toboolean(L, -1);  /* -1: not known yet */
  lua_pop(L, 1);
  for (n = start; n <= count; n++) {
    /* the key, its time, value, interpolation and extra at k..e */
    int k = BASE + 1, tk = BASE + 2, v = BASE + 3, c3 = BASE + 4, e = BASE + 5;
    int tyv, ty3, tye, nk, code, nv, q = quat, ie, more = 0, a, ok, mk, mv;
    double t, x[4];
    lua_settop(L, BASE);
    nk = scan_len(L, &sc, k, SCAN_GETI(L, LIST, n, list_meta), &mk);
    if (nk < 2 || nk > 4) break;
    if (!scan_finite(L, tk, SCAN_GETI(L, k, 1, mk), &t, 0)) break;
    if (last ? !(t >= prev) : have_prev && scan_before(L, tk, t)) break;
    tyv = SCAN_GETI(L, k, 2, mk);
    ty3 = SCAN_GETI(L, k, 3, mk);
    tye = SCAN_GETI(L, k, 4, mk);
    if (ty3 == LUA_TNIL) {
      code = ANIM_LINEAR;
    } else {
      a = scan_name(L, c3, ty3, sc.nm->interp, sc.nm->ninterp);
      if (a < 0) break;
      code = sc.nm->interp_code[a];
    }
    nv = scan_len(L, &sc, v, tyv, &mv);
    if (nv < 3 || nv > 4) break;
    for (a = 0, ok = 1; a < nv && ok; a++) {
      ok = scan_finite(L, e + 1, SCAN_GETI(L, v, a + 1, mv), &x[a], 0);
      lua_pop(L, 1);
    }
    if (!ok) break;
    if (nv == 3) {
      if (rot) {
        if (q == 1) break;
        q = 0;
      }
    } else {
      if (!rot || q == 0 || (x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0)) break;
      q = 1;
    }
    if (tye == LUA_TNIL) {
      ie = sc.nm->dflt[code] << ANIM_IE_EASE_SHIFT;
      lua_pushnil(L);
      lua_pushnil(L);
    } else if (!scan_extra(L, &sc, e, tye, code, nv, &ie, &more)) {
      break;
    }
    scan_put(L, kb, n, t, x, nv, ie + code + (ty3 == LUA_TNIL ? 0 : ANIM_IE_HAS_INTERP), more);
    nv0 = nv;
    quat = q;
    prev = t;
    last = (int)n;
  }
  lua_settop(L, BASE);
  if (quat >= 0) {
    lua_pushboolean(L, quat);
    lua_setfield(L, CH, "quat");
  }
  if (kb) scan_store(L, kb, n > count && count > 0, last, nv0, list_meta);
  lua_pushinteger(L, n);
  lua_pushvalue(L, PREV);
  lua_pushboolean(L, kb && n > count && sc.verified);
  return 3;
}

/* The names of table t (name -> code, codes from 0 to max - 1) into
 * list and codes: their count. */
static int scan_names(lua_State *L, int t, const char **list, int *codes, int max) {
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    /* (compared as a double: no cast before the range is known) */
    lua_Number c = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    if (lua_type(L, -2) != LUA_TSTRING || n >= max || !(c >= 0 && c < max && c == floor(c)))
      luaL_error(L, "key_scanner: bad names");
    list[n] = lua_tostring(L, -2);
    codes[n++] = (int)c;
    lua_pop(L, 1);
  }
  return n;
}

/* core.key_scanner(interp codes, ease codes, default eases, nan) -> scan */
static int key_scanner(lua_State *L) {
  names *nm;
  int i;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TNUMBER);
  lua_settop(L, 4);
  lua_createtable(L, F_COUNT, 0);  /* UP_FIELDS: keeps the strings below */
  nm = lua_newuserdatauv(L, sizeof *nm, 0);  /* UP_NAMES */
  nm->ninterp = scan_names(L, 1, nm->interp, nm->interp_code, ANIM_INTERP_COUNT);
  nm->nease = scan_names(L, 2, nm->ease, nm->ease_code, ANIM_EASE_COUNT);
  for (i = 0; i < ANIM_INTERP_COUNT; i++) {
    lua_Number d;
    lua_rawgeti(L, 3, i + 1);
    d = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    if (!(d >= 0 && d < ANIM_EASE_COUNT && d == floor(d))) luaL_error(L, "key_scanner: bad default ease");
    nm->dflt[i] = (int)d;
    lua_pop(L, 1);
  }
  for (i = 0; i < F_COUNT; i++) {
    lua_pushstring(L, FIELDS[i]);
    nm->field[i] = lua_tostring(L, -1);
    lua_rawseti(L, 5, i + 1);
  }
  lua_pushcclosure(L, scan_keys, UP_COUNT);
  return 1;
}

/* core.plain_array(v) -> whether v is a table without a metatable whose
 * keys are all whole numbers from 1 to #v (errors.lua's is_array, in C:
 * the same answer for such a table). */
static int plain_array(lua_State *L) {
  size_t len;
  int ok = 1;
  if (lua_type(L, 1) != LUA_TTABLE || lua_getmetatable(L, 1)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  len = lua_rawlen(L, 1);
  lua_settop(L, 1);
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    double k;
    if (lua_type(L, 2) != LUA_TNUMBER) { ok = 0; break; }
    k = lua_tonumber(L, 2);
    if (!(k >= 1 && k <= (double)len && k == floor(k))) { ok = 0; break; }
    lua_pop(L, 1);
  }
  lua_settop(L, 1);
  lua_pushboolean(L, ok);
  return 1;
}

void anim_lua_open_keyscan(lua_State *L) {
  lua_pushcfunction(L, key_scanner);
  lua_setfield(L, -2, "key_scanner");
  lua_pushcfunction(L, plain_array);
  lua_setfield(L, -2, "plain_array");
  anim_lua_open_keyblock(L);
}
