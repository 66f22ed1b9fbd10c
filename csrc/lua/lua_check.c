/* lua_check.c - core.check_tree: the walk over a decoded JSON tree that
 * looks for what the readers' own checks do not (strings over the limit,
 * numbers that are not finite, keys that are neither strings nor array
 * indices, nesting over the limit, values JSON cannot hold), done in C:
 * in Lua it cost more than decoding the text.  It only finds the place;
 * lua/anim/json.lua words the message. */
#include <math.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/codes.h"
#include "lua_helpers.h"

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
  w.max_string = (size_t)luaL_checkinteger(L, 2);
  w.max_depth = (int)luaL_checkinteger(L, 3);
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
 * default ease of each interpolation (by code + 1: read.lua's
 * default_ease, 0 for what is not an easing), Lua's 0/0 (the NaN of an
 * absent handle time or tangent, bit for bit read.lua's), then the field
 * names below. */
enum { UP_INTERP = 1, UP_EASE, UP_DEFAULT, UP_NAN, UP_S_EASE, UP_S_OUT, UP_S_IN, UP_S_TIN, UP_S_TOUT,
       UP_COUNT = UP_S_TOUT };
#define UP(i) lua_upvalueindex(i)

#define TWO53 ((lua_Integer)1 << 53)

/* The value at idx is a number that compares in C as it does in Lua (a
 * float, or an integer a double holds): 1 with it in *d, else 0. */
static int scan_num(lua_State *L, int idx, double *d) {
  if (lua_type(L, idx) != LUA_TNUMBER) return 0;
  if (lua_isinteger(L, idx)) {
    lua_Integer i = lua_tointeger(L, idx);
    if (i > TWO53 || i < -TWO53) return 0;
  }
  *d = lua_tonumber(L, idx);
  return 1;
}

static int scan_finite(lua_State *L, int idx, double *d) {
  return scan_num(L, idx, d) && *d == *d && *d > -HUGE_VAL && *d < HUGE_VAL;
}

/* The value at idx (an absolute index) is a table without a metatable
 * whose length is n (1 to 4) and which holds nothing after index n
 * (read.lua: #v == n and next(v, n) == nil).  Leaves the stack as it was. */
static int scan_array(lua_State *L, int idx, size_t n) {
  int after;
  if (lua_type(L, idx) != LUA_TTABLE) return 0;
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return 0;
  }
  if (lua_rawlen(L, idx) != n) return 0;
  lua_pushinteger(L, (lua_Integer)n);
  after = lua_next(L, idx);
  if (after) lua_pop(L, 2);
  return !after;
}

/* Pushes t[i] (raw); returns its stack index. */
static int scan_get(lua_State *L, int t, int i) {
  lua_rawgeti(L, t, i);
  return lua_gettop(L);
}

/* Pushes the field of the table at t named by upvalue up (raw); returns
 * its stack index. */
static int scan_field(lua_State *L, int t, int up) {
  lua_pushvalue(L, UP(up));
  lua_rawget(L, t);
  return lua_gettop(L);
}

/* What the scanner is given beside the keys: the tree check's limits,
 * and whether what it took so far meets them (so that the tree check can
 * leave the list out). */
typedef struct scan {
  size_t max_string;
  int verified;
} scan;

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
 * at rec (read.lua's plain_handle; at: 0 out, 1 in); *form gets 1 + at
 * for a one-number dv.  0 when not plain. */
static int scan_handle(lua_State *L, int h, int rec, int at, int *form) {
  int top = lua_gettop(L), dt, dv, ok = 0, b = 3 + 3 * at, a;
  double d;
  if (!scan_array(L, h, 2)) return 0;
  dt = scan_get(L, h, 1);
  dv = scan_get(L, h, 2);
  if (scan_finite(L, dt, &d)) {
    lua_pushvalue(L, dt);
    lua_rawseti(L, rec, 1 + at);
    if (lua_type(L, dv) == LUA_TTABLE) {
      ok = scan_array(L, dv, 3);
      for (a = 0; a < 3 && ok; a++) {
        ok = scan_finite(L, scan_get(L, dv, a + 1), &d);
        lua_rawseti(L, rec, b + a);
      }
    } else if (scan_finite(L, dv, &d)) {
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
 * b + 1 (read.lua's plain_tangent).  0 when not plain. */
static int scan_tangent(lua_State *L, int v, int nv, int rec, int b) {
  int a, ok;
  double d;
  if (!scan_array(L, v, (size_t)nv)) return 0;
  for (a = 1; a <= nv; a++) {
    ok = scan_finite(L, scan_get(L, v, a), &d);
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

/* The extra of a key at e, for interpolation code and nv values (read.lua's
 * plain_extra): 0 when not plain; else 1, with *ie its ease bits (and
 * HAS_EASE when it wrote its ease), *more whether it holds more than the
 * core keeps, and two values pushed: its handle record and its tangent
 * record (each a table or nil). */
static int scan_extra(lua_State *L, scan *sc, int e, int code, int nv, int *ie, int *more) {
  int top = lua_gettop(L), first = 1, ez, tin, tout, hout, hin, hrec, trec;
  if (lua_type(L, e) != LUA_TTABLE) return 0;
  if (lua_getmetatable(L, e)) { lua_settop(L, top); return 0; }
  *more = 1;  /* (an empty extra) */
  lua_pushnil(L);
  while (lua_next(L, e)) {
    int f = top + 1;  /* the field's name, then its value */
    if (first && lua_type(L, f) == LUA_TNUMBER) { lua_settop(L, top); return 0; }
    if (first) *more = 0;
    first = 0;
    if (!(lua_rawequal(L, f, UP(UP_S_EASE)) || lua_rawequal(L, f, UP(UP_S_OUT)) || lua_rawequal(L, f, UP(UP_S_IN)) ||
          lua_rawequal(L, f, UP(UP_S_TIN)) || lua_rawequal(L, f, UP(UP_S_TOUT)))) {
      /* a field the core does not keep (an editor's: the extra is kept
       * as it is); what the tree check would look at, looked at here */
      *more = 1;
      if (sc->verified && !(lua_type(L, f) == LUA_TSTRING && lua_rawlen(L, f) <= sc->max_string &&
                            scan_leaf(L, sc, f + 1)))
        sc->verified = 0;
    }
    lua_settop(L, f);
  }
  lua_settop(L, top);
  ez = scan_field(L, e, UP_S_EASE);
  if (lua_isnil(L, ez)) {
    lua_rawgeti(L, UP(UP_DEFAULT), code + 1);
    *ie = (int)lua_tointeger(L, -1) << ANIM_IE_EASE_SHIFT;
  } else {
    if (lua_type(L, ez) != LUA_TSTRING) { lua_settop(L, top); return 0; }
    lua_pushvalue(L, ez);
    lua_rawget(L, UP(UP_EASE));
    if (lua_isnil(L, -1)) { lua_settop(L, top); return 0; }
    *ie = ((int)lua_tointeger(L, -1) << ANIM_IE_EASE_SHIFT) | ANIM_IE_HAS_EASE;
  }
  tin = scan_field(L, e, UP_S_TIN);
  tout = scan_field(L, e, UP_S_TOUT);
  hout = scan_field(L, e, UP_S_OUT);
  hin = scan_field(L, e, UP_S_IN);
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

/* scan(list, count, ch, rotation, max_string, max_depth, depth) -> next,
 * prev, checked: the keys list[1..count] taken while plain, into the
 * channel ch of read.lua's read_keys ({ t, vals, ie, h, tan, keep, quat };
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
  lua_Integer count = luaL_checkinteger(L, 2), n;
  int rot = lua_toboolean(L, 4), last = 0, quat, base, nv0 = 0;
  enum { LIST = 1, CH = 3, BLOCK = 8, H, TAN, KEEP };
  double prev = 0;
  anim_keyblock *kb;
  double *bt = NULL, *bv = NULL;
  unsigned char *bie = NULL;
  scan sc;
  luaL_checktype(L, LIST, LUA_TTABLE);
  luaL_checktype(L, CH, LUA_TTABLE);
  sc.max_string = (size_t)luaL_checkinteger(L, 5);
  /* the deepest a plain key's table is: list, key, extra, handle, dv;
   * the longest name a plain key holds is 11 bytes (cubicspline,
   * in_tangent, out_tangent): only other fields' strings are measured */
  sc.verified = luaL_checkinteger(L, 7) + 4 <= luaL_checkinteger(L, 6) && sc.max_string >= 11;
  if (count < 0 || count > ANIM_MAX_CURVE_KEYS) luaL_argerror(L, 2, "too many keys");
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
    int k, tk, v, c3, e, code, nv, q = quat, ie, more = 0, hrec, trec, a, ok;
    double t, x[4];
    lua_settop(L, base);
    k = scan_get(L, LIST, (int)n);
    if (lua_type(L, k) != LUA_TTABLE) break;
    {
      size_t nk = lua_rawlen(L, k);
      if (nk < 2 || nk > 4 || !scan_array(L, k, nk)) break;
    }
    tk = scan_get(L, k, 1);
    v = scan_get(L, k, 2);
    c3 = scan_get(L, k, 3);
    e = scan_get(L, k, 4);
    if (lua_isnil(L, c3)) {
      code = ANIM_LINEAR;
    } else {
      if (lua_type(L, c3) != LUA_TSTRING) break;
      lua_pushvalue(L, c3);
      lua_rawget(L, UP(UP_INTERP));
      if (lua_isnil(L, -1)) break;
      code = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    if (!scan_finite(L, tk, &t) || (last && !(t >= prev))) break;
    if (lua_type(L, v) != LUA_TTABLE) break;
    nv = (int)lua_rawlen(L, v);
    if (nv < 3 || nv > 4 || !scan_array(L, v, (size_t)nv)) break;
    for (a = 0, ok = 1; a < nv && ok; a++) {
      ok = scan_finite(L, scan_get(L, v, a + 1), &x[a]);
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
    if (lua_isnil(L, e)) {
      lua_rawgeti(L, UP(UP_DEFAULT), code + 1);
      ie = (int)lua_tointeger(L, -1) << ANIM_IE_EASE_SHIFT;
      lua_pushnil(L);
      lua_pushnil(L);
    } else if (!scan_extra(L, &sc, e, code, nv, &ie, &more)) {
      break;
    }
    hrec = lua_gettop(L) - 1;
    trec = lua_gettop(L);
    /* taken: into the block, the records and the extra as read_keys
     * stores them */
    bt[n - 1] = t;
    for (a = 0; a < nv; a++) bv[(n - 1) * nv + a] = x[a];
    bie[n - 1] = (unsigned char)(ie + code + (lua_isnil(L, c3) ? 0 : ANIM_IE_HAS_INTERP));
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
  if (n > count && count > 0) {
    kb->n = (int)count;
    kb->arity = nv0;
    lua_pushvalue(L, BLOCK);
    lua_setfield(L, CH, "block");
  } else if (last) {
    /* the keys taken, as read_keys stores them: the times and the value
     * tables of the list, the bytes */
    int T, V, IE, i;
    lua_getfield(L, CH, "t");
    lua_getfield(L, CH, "vals");
    lua_getfield(L, CH, "ie");
    T = base + 1, V = base + 2, IE = base + 3;
    if (!lua_istable(L, T) || !lua_istable(L, V) || !lua_istable(L, IE)) luaL_error(L, "scan: a channel of read_keys expected");
    for (i = 1; i <= last; i++) {
      int k = scan_get(L, LIST, i);
      lua_rawgeti(L, k, 1);
      lua_rawseti(L, T, i);
      lua_rawgeti(L, k, 2);
      lua_rawseti(L, V, i);
      lua_pushinteger(L, bie[i - 1]);
      lua_rawseti(L, IE, i);
      lua_pop(L, 1);
    }
  }
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

/* core.key_scanner(interp codes, ease codes, default eases, nan) -> scan */
static int key_scanner(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TNUMBER);
  lua_settop(L, 4);
  lua_pushstring(L, "ease");
  lua_pushstring(L, "out");
  lua_pushstring(L, "in");
  lua_pushstring(L, "in_tangent");
  lua_pushstring(L, "out_tangent");
  lua_pushcclosure(L, scan_keys, UP_COUNT);
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
