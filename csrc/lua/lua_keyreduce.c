/* lua_keyreduce.c - the greedy choice of a dense channel's keys in C
 * (csrc/core/keyreduce.h) for lua/anim/export/gltf/reduce_curve.lua and
 * the times reduce.lua measures at:
 *   core.keys_pack(times, vals, quat [, unit]) -> keys, or nil (vals not
 *     all lists of the same count of numbers, 3 to 16; 4 for quaternions,
 *     made unit when unit: keys.lua's qnorm)
 *   core.keys_times(lists, L, jumps) -> reduce.lua's sample_times of the lists
 *     of times (anim_keys_times; anim_keys_before with jumps), or nil
 *   core.keys_cont(keys) -> quaternion keys as not quaternions, each in the
 *     hemisphere of the one before (reduce_curve.lua's choose: cont)
 *   core.keys_simplify(keys, tol) -> the indices of the keys kept
 *   core.keys_lsq(keys, knots, w) -> the values at the knots (lists of m
 *     numbers, m <= 4), or nil (singular)
 *   core.keys_errors(keys, knots, fv, errs) -> each segment's worst; errs[i]
 *     each sample's (an exact 0 and -1 are Lua's integers, as the Lua's)
 *   core.keys_fit(keys, fitted, knots, tol, most, lawson, repair, cont,
 *     shorts) -> knots, values (reduce_curve.lua's fit: keyreduce.h's
 *     anim_keys_fit), or nil */
#include <math.h>
#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/keyreduce.h"
#include "lua_helpers.h"

#define KEYS_MT "anim.measure_keys"
#define KEYS_TAG 0x616e6b79u

/* The keys' userdata: this head, then the times, then the values. */
typedef struct { unsigned tag; int n, m, quat; } keys_head;

static size_t k_size(int n, int m) { return sizeof(keys_head) + sizeof(double) * (size_t)n * (size_t)(m + 1); }

/* core.keys_pack(times, vals, quat [, unit]) */
static int keys_pack(lua_State *L) {
  keys_head *h;
  double *d;
  int n, m = 0, i, c;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (lua_rawlen(L, 1) != lua_rawlen(L, 2) || lua_rawlen(L, 1) > (size_t)INT32_MAX / 64) luaL_error(L, "#times ~= #vals");
  n = (int)lua_rawlen(L, 1);
  if (n > 0) {
    lua_rawgeti(L, 2, 1);
    if (lua_type(L, -1) == LUA_TTABLE && lua_rawlen(L, -1) >= 3 && lua_rawlen(L, -1) <= 16) m = (int)lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (m == 0) return 0;
  }
  if (lua_toboolean(L, 3) && n > 0 && m != 4) return 0;
  h = lua_newuserdatauv(L, k_size(n, m), 0);
  h->tag = KEYS_TAG, h->n = n, h->m = m, h->quat = lua_toboolean(L, 3);
  luaL_setmetatable(L, KEYS_MT);
  d = (double *)(void *)(h + 1);
  for (i = 0; i < n; i++) d[i] = anim_lua_number_at(L, 1, i + 1, "times");
  d += n;
  for (i = 0; i < n; i++) {
    lua_rawgeti(L, 2, i + 1);
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != (size_t)m) return 0;
    for (c = 0; c < m; c++) {
      lua_rawgeti(L, -1, c + 1);
      if (lua_type(L, -1) != LUA_TNUMBER) return 0;
      d[i * m + c] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (h->quat && lua_toboolean(L, 4)) anim_keys_unit(d, n);
  return 1;
}

int anim_lua_to_keys(lua_State *L, int idx, anim_keychan *ch) {
  keys_head *h = luaL_testudata(L, idx, KEYS_MT);
  if (!h || lua_rawlen(L, idx) < sizeof *h || h->tag != KEYS_TAG || lua_rawlen(L, idx) != k_size(h->n, h->m)) return 0;
  ch->n = h->n, ch->m = h->m, ch->quat = h->quat;
  ch->times = (const double *)(const void *)(h + 1);
  ch->vals = ch->times + h->n;
  return 1;
}

/* The keys at 1 into ch. */
static void check_keys(lua_State *L, anim_keychan *ch) {
  if (!anim_lua_to_keys(L, 1, ch)) anim_lua_argerror(L, 1, "keys expected, got %s", anim_lua_typename(L, 1));
}

/* The knots at idx (1-based sample indices, ascending) into a userdata
 * pushed; their count in *nk. */
static int *check_knots(lua_State *L, int idx, int n, int *nk) {
  int *knots, k;
  luaL_checktype(L, idx, LUA_TTABLE);
  if (lua_rawlen(L, idx) > (size_t)n) luaL_error(L, "more knots than samples");
  *nk = (int)lua_rawlen(L, idx);
  knots = lua_newuserdatauv(L, sizeof(int) * (size_t)(*nk ? *nk : 1), 0);
  for (k = 0; k < *nk; k++) {
    knots[k] = anim_lua_node_at(L, idx, k + 1, n, "knots");
    if (k > 0 && knots[k] <= knots[k - 1]) luaL_error(L, "knots[%d] is not after knots[%d]", k + 1, k);
  }
  return knots;
}

/* A list of nk lists of m numbers (v: nk * m) pushed. */
static void push_rows(lua_State *L, const double *v, int nk, int m) {
  int k, c;
  lua_createtable(L, nk, 0);
  for (k = 0; k < nk; k++) {
    lua_createtable(L, m, 0);
    for (c = 0; c < m; c++) {
      lua_pushnumber(L, v[k * m + c]);
      lua_rawseti(L, -2, c + 1);
    }
    lua_rawseti(L, -2, k + 1);
  }
}

/* core.keys_lsq(keys, knots, w) */
static int keys_lsq(lua_State *L) {
  anim_keychan ch;
  int nk, k, *knots;
  double *w, *out, *scratch;
  check_keys(L, &ch);
  if (ch.m > 4) luaL_error(L, "lsq fits 4 numbers a sample at most");
  knots = check_knots(L, 2, ch.n, &nk);
  luaL_checktype(L, 3, LUA_TTABLE);
  w = lua_newuserdatauv(L, sizeof(double) * (size_t)(ch.n ? ch.n : 1), 0);
  out = lua_newuserdatauv(L, sizeof(double) * (size_t)(nk ? nk * ch.m : 1), 0);
  scratch = lua_newuserdatauv(L, sizeof(double) * 9 * (size_t)(nk ? nk : 1), 0);
  for (k = 0; k < ch.n; k++) w[k] = anim_lua_number_at(L, 3, k + 1, "w");
  check_keys(L, &ch);
  if (!anim_keys_lsq(&ch, knots, nk, w, out, scratch)) return 0;
  push_rows(L, out, nk, ch.m);
  return 1;
}

/* core.keys_errors(keys, knots, fv, errs) */
static int keys_errors(lua_State *L) {
  anim_keychan ch;
  int nk, k, c, *knots;
  double *fv, *errs, *segw;
  check_keys(L, &ch);
  knots = check_knots(L, 2, ch.n, &nk);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  if (lua_rawlen(L, 3) != (size_t)nk) luaL_error(L, "#fv ~= #knots");
  fv = lua_newuserdatauv(L, sizeof(double) * (size_t)(nk ? nk * ch.m : 1), 0);
  errs = lua_newuserdatauv(L, sizeof(double) * (size_t)(ch.n ? ch.n : 1), 0);
  segw = lua_newuserdatauv(L, sizeof(double) * (size_t)(nk ? nk : 1), 0);
  for (k = 0; k < nk; k++) {
    lua_rawgeti(L, 3, k + 1);
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != (size_t)ch.m)
      luaL_error(L, "fv[%d] must hold %d numbers", k + 1, ch.m);
    for (c = 0; c < ch.m; c++) fv[k * ch.m + c] = anim_lua_number_at(L, lua_gettop(L), c + 1, "fv[k]");
    lua_pop(L, 1);
  }
  check_keys(L, &ch);
  anim_keys_errors(&ch, knots, nk, fv, errs, segw);
  if (nk > 1) {
    for (k = knots[0]; k <= knots[nk - 1]; k++) {
      anim_lua_push_exact(L, errs[k]);
      lua_rawseti(L, 4, k + 1);
    }
  }
  lua_createtable(L, nk ? nk - 1 : 0, 0);
  for (k = 0; k + 1 < nk; k++) {
    anim_lua_push_exact(L, segw[k]);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

/* core.keys_simplify(keys, tol) */
static int keys_simplify(lua_State *L) {
  double tol = luaL_checknumber(L, 2);
  anim_keychan ch;
  int *out, k, nk;
  check_keys(L, &ch);
  out = lua_newuserdatauv(L, sizeof(int) * (size_t)(ch.n ? ch.n : 1), 0);
  check_keys(L, &ch);
  nk = anim_keys_simplify(&ch, tol, out);
  lua_createtable(L, nk, 0);
  for (k = 0; k < nk; k++) {
    lua_pushinteger(L, out[k] + 1);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

/* core.keys_times(lists, L) */
static int keys_times(lua_State *L) {
  double len = luaL_checknumber(L, 2), *all, *out;
  size_t n = 0, nl, l, i;
  int k, no, jumps = lua_toboolean(L, 3);
  luaL_checktype(L, 1, LUA_TTABLE);
  nl = lua_rawlen(L, 1);
  for (l = 1; l <= nl; l++) {
    lua_rawgeti(L, 1, (lua_Integer)l);
    if (!lua_istable(L, -1)) luaL_error(L, "lists[%d] must be a table", (int)l);
    n += lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (n > (size_t)INT32_MAX / 4) luaL_error(L, "too many times");
  }
  all = lua_newuserdatauv(L, sizeof(double) * (n ? 6 * n : 1), 0); /* (a time before each: 2 n) */
  out = all + 2 * n;
  for (l = 1, i = 0; l <= nl; l++) {
    size_t m, j;
    lua_rawgeti(L, 1, (lua_Integer)l);
    m = lua_rawlen(L, -1);
    for (j = 1; j <= m && i < 2 * n; j++) {
      lua_rawgeti(L, -1, (lua_Integer)j);
      if (lua_type(L, -1) != LUA_TNUMBER) return 0;
      /* (a jump, two keys of a list at one time: a time just before it too) */
      if (jumps && j > 1 && all[i - 1] == lua_tonumber(L, -1)) all[i++] = anim_keys_before(lua_tonumber(L, -1));
      all[i++] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  no = anim_keys_times(all, (int)i, len, out);
  lua_createtable(L, no, 0);
  for (k = 0; k < no; k++) {
    lua_pushnumber(L, out[k]);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

/* core.keys_cont(keys) -> keys */
static int keys_cont(lua_State *L) {
  anim_keychan ch;
  keys_head *h;
  check_keys(L, &ch);
  if (!ch.quat) luaL_argerror(L, 1, "quaternion keys expected");
  h = lua_newuserdatauv(L, k_size(ch.n, 4), 0);
  h->tag = KEYS_TAG, h->n = ch.n, h->m = 4, h->quat = 0;
  luaL_setmetatable(L, KEYS_MT);
  check_keys(L, &ch);
  {
    double *d = (double *)(void *)(h + 1);
    int i;
    for (i = 0; i < ch.n; i++) d[i] = ch.times[i];
    anim_keys_cont(ch.vals, d + ch.n, ch.n);
  }
  return 1;
}

/* core.keys_fit(keys, fitted, knots, tol, most, lawson, repair, cont, shorts) */
static int keys_fit(lua_State *L) {
  anim_keychan ch, fc;
  anim_fitopts o;
  int nk, k, *knots, *room, *add;
  double *fv, *scratch;
  check_keys(L, &ch);
  if (!anim_lua_to_keys(L, 2, &fc)) anim_lua_argerror(L, 2, "keys expected, got %s", anim_lua_typename(L, 2));
  if (fc.n != ch.n || fc.m != ch.m || fc.m > 4) luaL_error(L, "the fitted keys must be as many, of as many numbers (4 at most)");
  o.tol = luaL_checknumber(L, 4);
  o.most = (int)anim_lua_checkrange(L, 5, 0, INT32_MAX, "most");
  o.lawson = (int)anim_lua_checkrange(L, 6, 1, 1000, "lawson");
  o.repair = (int)anim_lua_checkrange(L, 7, 0, 1000, "repair");
  o.cont = lua_toboolean(L, 8), o.shorts = lua_toboolean(L, 9);
  if ((o.cont || o.shorts) && ch.m != 4) luaL_error(L, "cont and shorts are for quaternions");
  knots = check_knots(L, 3, ch.n, &nk);
  if (nk < 2 || knots[0] != 0 || knots[nk - 1] != ch.n - 1) luaL_error(L, "the knots must begin at the first sample and end at the last");
  room = lua_newuserdatauv(L, sizeof(int) * 2 * (size_t)ch.n, 0);
  add = room + ch.n;
  fv = lua_newuserdatauv(L, sizeof(double) * (size_t)ch.n * (size_t)ch.m, 0);
  scratch = lua_newuserdatauv(L, sizeof(double) * 12 * (size_t)ch.n, 0);
  for (k = 0; k < nk; k++) room[k] = knots[k];
  check_keys(L, &ch);
  anim_lua_to_keys(L, 2, &fc);
  nk = anim_keys_fit(&ch, &fc, room, nk, &o, fv, scratch, add);
  if (nk == 0) return 0;
  lua_createtable(L, nk, 0);
  for (k = 0; k < nk; k++) {
    lua_pushinteger(L, room[k] + 1);
    lua_rawseti(L, -2, k + 1);
  }
  push_rows(L, fv, nk, ch.m);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"keys_pack", keys_pack},
  {"keys_simplify", keys_simplify},
  {"keys_lsq", keys_lsq},
  {"keys_errors", keys_errors},
  {"keys_fit", keys_fit},
  {"keys_cont", keys_cont},
  {"keys_times", keys_times},
  {NULL, NULL}
};

void anim_lua_open_keyreduce(lua_State *L) {
  anim_lua_sealed_meta(L, KEYS_MT);
  luaL_setfuncs(L, funcs, 0);
}
