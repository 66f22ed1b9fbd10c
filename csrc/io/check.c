/* io/check.c - core.check_tree: the walk over a decoded JSON tree that
 * looks for what the readers' own checks do not (strings over the limit,
 * numbers that are not finite, keys that are neither strings nor array
 * indices, nesting over the limit, values JSON cannot hold), done in C:
 * in Lua it cost more than decoding the text.  It only finds the place;
 * lua/anim/base/json.lua words the message. */
#include <math.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/codes.h"
#include "lua/lua_helpers.h"
#include "io/io.h"

/* The deepest a tree may be checked to: the hard maximum of
 * anim.limits.depth (lua/anim/base/limits.lua). */
#define MAX_DEPTH 1000

/* What was wrong: ANIM_TREE_* (codes.h; json.lua words the message). */

typedef struct walk {
  lua_State *L;
  size_t max_string;
  int max_depth;
  int path;        /* stack index of the table the failing path is built in */
  int skip;        /* stack index of the set of tables left out, or 0 */
  int code;
} walk;

static int is_null(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == NULL;
}

static int index_key(lua_State *L, int idx) {
  lua_Number k;
  if (lua_isinteger(L, idx)) return lua_tointeger(L, idx) >= 1;
  k = lua_tonumber(L, idx);
  return k >= 1 && k == floor(k) && k < HUGE_VAL;
}

/* Records the key at stack index idx as the next outer step of the path. */
static void add_step(walk *w, int idx) {
  lua_State *L = w->L;
  lua_pushvalue(L, idx);
  lua_rawseti(L, w->path, (lua_Integer)lua_rawlen(L, w->path) + 1);
}

/* The value on the top of the stack, at nesting `depth`: 0 when fine;
 * else 1, with the failing value or key on the top of the stack and the
 * keys leading to it (innermost first) in the path table. */
static int check(walk *w, int depth) {
  lua_State *L = w->L;
  int v = lua_gettop(L);
  switch (lua_type(L, v)) {
    case LUA_TSTRING:
      if (lua_rawlen(L, v) > w->max_string) { w->code = ANIM_TREE_BAD_STRING; return 1; }
      return 0;
    case LUA_TNUMBER:
      if (!lua_isinteger(L, v) && !isfinite(lua_tonumber(L, v))) { w->code = ANIM_TREE_BAD_NUMBER; return 1; }
      return 0;
    case LUA_TBOOLEAN: return 0;
    case LUA_TTABLE: break;
    default:
      if (is_null(L, v)) return 0;
      w->code = ANIM_TREE_BAD_VALUE;
      return 1;
  }
  if (w->skip) {
    int left_out;
    lua_pushvalue(L, v);
    lua_rawget(L, w->skip);
    left_out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (left_out) return 0;
  }
  if (depth > w->max_depth) { w->code = ANIM_TREE_TOO_DEEP; return 1; }
  luaL_checkstack(L, 4, "nested too deep");
  lua_pushnil(L);
  while (lua_next(L, v)) {
    /* key at v + 1, value at v + 2 */
    int tk = lua_type(L, v + 1);
    if (tk == LUA_TSTRING) {
      if (lua_rawlen(L, v + 1) > w->max_string) {
        w->code = ANIM_TREE_BAD_KEY_LENGTH;
        lua_pushvalue(L, v + 1);
        return 1;
      }
    } else if (!(tk == LUA_TNUMBER && index_key(L, v + 1))) {
      w->code = ANIM_TREE_BAD_KEY_TYPE;
      lua_pushvalue(L, v + 1);
      return 1;
    }
    if (lua_type(L, v + 2) == LUA_TNUMBER) {
      /* numbers, the bulk of a clip, without a call */
      if (!lua_isinteger(L, v + 2) && !isfinite(lua_tonumber(L, v + 2))) {
        w->code = ANIM_TREE_BAD_NUMBER;
        add_step(w, v + 1);
        return 1;
      }
    } else if (check(w, depth + 1)) {
      add_step(w, v + 1);
      return 1;
    }
    lua_settop(L, v + 1);
  }
  return 0;
}

/* core.check_tree(v, max_string, max_depth [, skip]) -> nil | code, path,
 * what: path is the keys from the root to the failing value (for a key or
 * for nesting: to its table); what is the failing value or key.  skip: a
 * set of tables inside v not to walk (already checked). */
static int check_tree(lua_State *L) {
  walk w;
  luaL_checkany(L, 1);
  w.L = L;
  w.max_string = (size_t)anim_lua_checkrange(L, 2, 0, ANIM_LUA_IMAX, "max_string");
  /* (the walk recurses once per level: at most the hard maximum of
   * anim.limits.depth, whatever a script asks for) */
  w.max_depth = (int)anim_lua_checkrange(L, 3, 0, MAX_DEPTH, "max_depth");
  w.code = 0;
  if (!lua_isnoneornil(L, 4)) luaL_checktype(L, 4, LUA_TTABLE);
  lua_settop(L, 4);
  w.skip = lua_istable(L, 4) ? 4 : 0;
  lua_newtable(L);
  w.path = 5;
  lua_pushvalue(L, 1);
  if (!check(&w, 1)) return 0;
  {
    /* the path, outermost first */
    lua_Integer n = (lua_Integer)lua_rawlen(L, w.path), i;
    int what = lua_gettop(L);
    lua_pushinteger(L, w.code);
    lua_createtable(L, (int)n, 0);
    for (i = 1; i <= n; i++) {
      lua_rawgeti(L, w.path, n - i + 1);
      lua_rawseti(L, -2, i);
    }
    lua_pushvalue(L, what);
    return 3;
  }
}

/* ---- core.key_scanner: a channel's plain keys in one pass ------------
 *
 * lua/anim/format/read.lua reads a channel's keys (read_keys) with checks
 * inline for a plain key and field by field (read_key) for any other.  For
 * a decoded file the inline checks run here first, at a fraction of their
 * cost in Lua: the scanner takes the keys while each is plain, as the
 * inline checks take them (the same key bytes, handle and tangent records
 * and extras to keep, the same Lua values in them), and stops at the first
 * key it does not take, which the Lua reader then reads its own way.  It
 * takes a part of what the inline checks take (a table with a metatable,
 * an integer beyond 2^53, any other doubt: not taken), so that where a key
 * is read does not change the clip; spec/format_spec.lua compares the
 * readers.  A channel it takes whole reaches the core in a key block (no
 * Lua table per key: clip_new copies the numbers), and the tree check
 * (check_tree above) leaves its list out when the scanner found in it all
 * the tree check looks for.
 *
 * Upvalues: the interpolation names -> codes, the ease names -> codes, the
 * default ease of each interpolation (by code + 1: read_values.lua's
 * default_ease, 0 for what is not an easing), Lua's 0/0 (the NaN of an
 * absent handle time or tangent, bit for bit read_keys.lua's), the names of
 * the extra's fields the core keeps, and the names of the scanner (below).
 * Names are compared by address: every runtime interns strings of up to
 * 40 bytes, so a string equal to a name is that name's string. */
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

/* The value at idx, of type ty, is a finite number that compares in C as
 * it does in Lua (a float, or an integer a double holds): 1 with it in *d,
 * else 0. */
static int scan_finite(lua_State *L, int idx, int ty, double *d) {
  double x;
  if (ty != LUA_TNUMBER) return 0;
  x = lua_tonumber(L, idx);
  if (!(x == x && x > -HUGE_VAL && x < HUGE_VAL)) return 0;
  if ((x >= 9007199254740992.0 || x <= -9007199254740992.0) && lua_isinteger(L, idx)) {
    lua_Integer i = lua_tointeger(L, idx);
    if (i > TWO53 || i < -TWO53) return 0;
  }
  *d = x;
  return 1;
}

/* The length of the value at idx (an absolute index), of type ty, when it
 * is a table without a metatable holding nothing after its length
 * (read_keys.lua: #v, and next(v, #v) == nil); else -1.  (0 for an empty one,
 * which no caller takes.)  Leaves the stack as it was. */
static int scan_len(lua_State *L, int idx, int ty) {
  int after;
  size_t n;
  if (ty != LUA_TTABLE) return -1;
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return -1;
  }
  n = lua_rawlen(L, idx);
  if (n == 0 || n > 8) return n == 0 ? 0 : -1;
  lua_pushinteger(L, (lua_Integer)n);
  after = lua_next(L, idx);
  if (after) {
    lua_pop(L, 2);
    return -1;
  }
  return (int)n;
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

/* The value at idx is a leaf the tree check passes (check above): a
 * string within the limit, a boolean, null, a finite number or an
 * integer. */
static int scan_leaf(lua_State *L, const scan *sc, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: return lua_rawlen(L, idx) <= sc->max_string;
    case LUA_TBOOLEAN: return 1;
    case LUA_TNUMBER: return lua_isinteger(L, idx) || isfinite(lua_tonumber(L, idx));
    default: return is_null(L, idx);
  }
}

/* A handle [dt, dv] at h (dv a finite number, or three) into the record
 * at rec (read_keys.lua's plain_handle; at: 0 out, 1 in); *form gets 1 + at
 * for a one-number dv.  0 when not plain. */
static int scan_handle(lua_State *L, int h, int rec, int at, int *form) {
  int top = lua_gettop(L), dt = top + 1, dv = top + 2, tv, ok = 0, b = 3 + 3 * at, a;
  double d;
  if (scan_len(L, h, lua_type(L, h)) != 2) return 0;
  lua_rawgeti(L, h, 1);
  tv = lua_rawgeti(L, h, 2);
  if (scan_finite(L, dt, lua_type(L, dt), &d)) {
    lua_pushvalue(L, dt);
    lua_rawseti(L, rec, 1 + at);
    if (tv == LUA_TTABLE) {
      ok = scan_len(L, dv, tv) == 3;
      for (a = 0; a < 3 && ok; a++) {
        ok = scan_finite(L, dv + 1, lua_rawgeti(L, dv, a + 1), &d);
        lua_rawseti(L, rec, b + a);
      }
    } else if (scan_finite(L, dv, tv, &d)) {
      for (a = 0; a < 3; a++) {
        lua_pushvalue(L, dv);
        lua_rawseti(L, rec, b + a);
      }
      *form += 1 + at;
      ok = 1;
    }
  }
  lua_settop(L, top);
  return ok;
}

/* A tangent of nv finite numbers at v into the record at rec from index
 * b + 1 (read_keys.lua's plain_tangent).  0 when not plain. */
static int scan_tangent(lua_State *L, int v, int nv, int rec, int b) {
  int a, ok, top = lua_gettop(L);
  double d;
  if (scan_len(L, v, lua_type(L, v)) != nv) return 0;
  for (a = 1; a <= nv; a++) {
    ok = scan_finite(L, top + 1, lua_rawgeti(L, v, a), &d);
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
 * values (read_keys.lua's plain_extra): 0 when not plain; else 1, with *ie its
 * ease bits (and HAS_EASE when it wrote its ease), *more whether it holds
 * more than the core keeps, and two values pushed: its handle record and
 * its tangent record (each a table or nil). */
static int scan_extra(lua_State *L, scan *sc, int e, int ty, int code, int nv, int *ie, int *more) {
  int top = lua_gettop(L), f = top + F_COUNT + 1, first = 1, i, hrec, trec;
  int ez = top + 1 + F_EASE, hout = top + 1 + F_OUT, hin = top + 1 + F_IN, tin = top + 1 + F_TIN,
      tout = top + 1 + F_TOUT;
  if (ty != LUA_TTABLE) return 0;
  if (lua_getmetatable(L, e)) { lua_settop(L, top); return 0; }
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
    int a, form = 0;
    hrec = scan_nans(L, 2);
    for (a = 3; a <= 8; a++) {
      lua_pushinteger(L, 0);
      lua_rawseti(L, hrec, a);
    }
    if (!lua_isnil(L, hout) && !scan_handle(L, hout, hrec, 0, &form)) { lua_settop(L, top); return 0; }
    if (!lua_isnil(L, hin) && !scan_handle(L, hin, hrec, 1, &form)) { lua_settop(L, top); return 0; }
    lua_pushinteger(L, form);
    lua_rawseti(L, hrec, 9);
  }
  if (lua_isnil(L, tin) && lua_isnil(L, tout)) {
    lua_pushnil(L);
    trec = lua_gettop(L);
  } else {
    trec = scan_nans(L, 2 * nv);
    if (!lua_isnil(L, tin) && !scan_tangent(L, tin, nv, trec, 0)) { lua_settop(L, top); return 0; }
    if (!lua_isnil(L, tout) && !scan_tangent(L, tout, nv, trec, nv)) { lua_settop(L, top); return 0; }
  }
  lua_pushvalue(L, hrec);
  lua_pushvalue(L, trec);
  lua_replace(L, top + 2);
  lua_replace(L, top + 1);
  lua_settop(L, top + 2);
  return 1;
}

/* Field `field` of the channel table ch, held at stack index slot (a
 * table, or nil until a key needs it: then made, as read_keys makes it). */
static void scan_need(lua_State *L, int ch, int slot, const char *field) {
  if (lua_istable(L, slot)) return;
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, ch, field);
  lua_replace(L, slot);
}

/* The stack slots of scan_keys: its arguments (the list, the channel),
 * the key block and the channel's record tables. */
enum { LIST = 1, CH = 3, BLOCK = 8, H, TAN, KEEP };

/* The keys scan_keys took, stored as read_keys stores them: all of them
 * (whole) in the key block kb (its arity nv0), which goes to ch.block;
 * else the `last` first ones in the channel's t, vals and ie (the times
 * and the value tables of the list, the bytes bie).  The stack from
 * base + 1 is free. */
static void scan_store(lua_State *L, anim_keyblock *kb, int base, int whole, int last, int nv0,
                       const unsigned char *bie) {
  if (whole) {
    kb->n = last;
    kb->arity = nv0;
    lua_pushvalue(L, BLOCK);
    lua_setfield(L, CH, "block");
  } else if (last) {
    /* the keys taken, as read_keys stores them: the times and the value
     * tables of the list, the bytes */
    int T = base + 1, V = base + 2, IE = base + 3, i;
    lua_getfield(L, CH, "t");
    lua_getfield(L, CH, "vals");
    lua_getfield(L, CH, "ie");
    if (!lua_istable(L, T) || !lua_istable(L, V) || !lua_istable(L, IE)) luaL_error(L, "scan: a channel of read_keys expected");
    for (i = 1; i <= last; i++) {
      lua_rawgeti(L, LIST, i);
      lua_rawgeti(L, -1, 1);
      lua_rawseti(L, T, i);
      lua_rawgeti(L, -1, 2);
      lua_rawseti(L, V, i);
      lua_pushinteger(L, bie[i - 1]);
      lua_rawseti(L, IE, i);
      lua_pop(L, 1);
    }
  }
}

/* scan(list, count, ch, rotation, max_string, max_depth, depth) -> next,
 * prev, checked: the keys list[1..count] taken while plain, into the
 * channel ch of read_keys.lua's read_keys ({ t, vals, ie, h, tan, keep, quat };
 * quat set as read_keys sets it).  When every key is taken, their times,
 * values and bytes are in a key block (lua_helpers.h), ch.block, which
 * clip_new copies; t, vals and ie stay empty.  Else the keys taken are in
 * t, vals and ie, as read_keys stores them, and next is the index of the
 * first key not taken.  prev: the time of the last key taken (nil when
 * none was).  checked: every key was taken, and meets what
 * core.check_tree checks (strings of at most max_string bytes, finite
 * numbers, index or string keys, nesting: the list at `depth` of the
 * tree, its keys within max_depth), so that the tree check may leave the
 * list out.  (For a decoded file: its arrays hold nothing but their items,
 * its objects no number keys.) */
static int scan_keys(lua_State *L) {
  lua_Integer count = anim_lua_checkrange(L, 2, 0, ANIM_MAX_CURVE_KEYS, "count"), n;
  int rot = lua_toboolean(L, 4), last = 0, quat, base, nv0 = 0;
  double prev = 0;
  anim_keyblock *kb;
  double *bt = NULL, *bv = NULL;
  unsigned char *bie = NULL;
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
  lua_settop(L, 7);
  luaL_checkstack(L, 40, "scanning keys");
  kb = anim_lua_newkeyblock(L, (int)count, rot ? 4 : 3);  /* at BLOCK */
  lua_getfield(L, CH, "h");
  lua_getfield(L, CH, "tan");
  lua_getfield(L, CH, "keep");
  lua_getfield(L, CH, "quat");
  quat = lua_isnil(L, -1) ? -1 : lua_toboolean(L, -1);  /* -1: not known yet */
  lua_pop(L, 1);
  base = lua_gettop(L);
  ANIM_KEYBLOCK_ARRAYS(kb, bt, bv, bie);
  for (n = 1; n <= count; n++) {
    /* the key, its time, value, interpolation and extra at k..e */
    int k = base + 1, tk = base + 2, v = base + 3, c3 = base + 4, e = base + 5;
    int tyv, ty3, tye, nk, code, nv, q = quat, ie, more = 0, hrec, trec, a, ok;
    double t, x[4];
    lua_settop(L, base);
    nk = scan_len(L, k, lua_rawgeti(L, LIST, n));
    if (nk < 2 || nk > 4) break;
    if (!scan_finite(L, tk, lua_rawgeti(L, k, 1), &t) || (last && !(t >= prev))) break;
    tyv = lua_rawgeti(L, k, 2);
    ty3 = lua_rawgeti(L, k, 3);
    tye = lua_rawgeti(L, k, 4);
    if (ty3 == LUA_TNIL) {
      code = ANIM_LINEAR;
    } else {
      a = scan_name(L, c3, ty3, sc.nm->interp, sc.nm->ninterp);
      if (a < 0) break;
      code = sc.nm->interp_code[a];
    }
    nv = scan_len(L, v, tyv);
    if (nv < 3 || nv > 4) break;
    for (a = 0, ok = 1; a < nv && ok; a++) {
      ok = scan_finite(L, e + 1, lua_rawgeti(L, v, a + 1), &x[a]);
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
    hrec = e + 1;
    trec = e + 2;
    /* taken: into the block, the records and the extra as read_keys
     * stores them */
    bt[n - 1] = t;
    for (a = 0; a < nv; a++) bv[(n - 1) * nv + a] = x[a];
    bie[n - 1] = (unsigned char)(ie + code + (ty3 == LUA_TNIL ? 0 : ANIM_IE_HAS_INTERP));
    nv0 = nv;
    if (!lua_isnil(L, hrec)) {
      scan_need(L, CH, H, "h");
      lua_pushvalue(L, hrec);
      lua_rawseti(L, H, (int)n);
    }
    if (!lua_isnil(L, trec)) {
      scan_need(L, CH, TAN, "tan");
      lua_pushvalue(L, trec);
      lua_rawseti(L, TAN, (int)n);
    }
    if (more) {
      scan_need(L, CH, KEEP, "keep");
      lua_pushvalue(L, e);
      lua_rawseti(L, KEEP, (int)n);
    }
    quat = q;
    prev = t;
    last = (int)n;
  }
  lua_settop(L, base);
  if (quat >= 0) {
    lua_pushboolean(L, quat);
    lua_setfield(L, CH, "quat");
  }
  scan_store(L, kb, base, n > count && count > 0, last, nv0, bie);
  lua_settop(L, base);
  lua_pushinteger(L, n);
  if (last) {
    lua_rawgeti(L, LIST, last);
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
  } else {
    lua_pushnil(L);
  }
  lua_pushboolean(L, n > count && sc.verified);
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

void anim_lua_open_check(lua_State *L) {
  lua_pushcfunction(L, check_tree);
  lua_setfield(L, -2, "check_tree");
  lua_pushcfunction(L, key_scanner);
  lua_setfield(L, -2, "key_scanner");
  lua_pushcfunction(L, plain_array);
  lua_setfield(L, -2, "plain_array");
  anim_lua_open_keyblock(L);
}
