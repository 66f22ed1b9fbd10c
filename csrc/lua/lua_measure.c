/* lua_measure.c - the model-space measure in C (csrc/core/measure.h) for
 * lua/anim/export/gltf/reduce.lua, when both clips are played by
 * reduce_clip.lua's local_of (anim.compress, the .anim reduction):
 *   core.measure_frames(tree, clip, binds, absolute, times, list, need)
 *     -> frames: the world matrices of the nodes `need` at every time
 *   core.measure_error(frames, tree, clip, binds, absolute, list,
 *     distance, per [, errs]): per[i] the worst error of each node i of
 *     `list`, errs (a list) gets every error, time after time
 *   core.measure_frame(frames, node) -> the node's 12 numbers a time
 *   core.measure_bake(tree, clip, binds, absolute, node, ch, times
 *     [, shorts]) -> the node's local channel ch (1 position, 2 rotation, 3
 *     scale) baked at the times as the clip plays it: sample.lua's bake,
 *     its keys { t, v }; their times; their values (each key's v, or with
 *     shorts a rotation's made unit and rounded as keys.lua's short_quat)
 *   core.measure_compare(tree, clip, binds, absolute, clip2, binds2,
 *     absolute2, node, ch, times) -> the largest difference of the node's
 *     channel ch as the two clips play it (sample.lua's difference); ch
 *     a list of channels: one such difference each, in one pass
 * tree: { parent = { p, ... } (0 at a root), rest = { 10 numbers a node:
 * translation, rotation, scale } }; binds: bind.get's list for clip;
 * list: node indices (1-based), parents first, each one's parent listed
 * before it or not at all; need: node indices.  Both take a last argument
 * chans (the glTF export's channels, measure.h's mask and keys): nil, or
 * { mask = { n numbers: the channels each node takes from the clip,
 * codes.channel's flags }, keys = { [3 (node - 1) + c] = keys (c: 1
 * position, 2 rotation: quaternions, 3 scale; core.keys_pack's, made by
 * lua_keyreduce.c) } }. */
#include <math.h>
#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/keyreduce.h"
#include "core/measure.h"
#include "lua_helpers.h"

#define FRAMES_MT "anim.measure_frames"
#define FRAMES_TAG 0x616e6d66u

/* The frames' userdata: this head, then times, the matrices, the slots. */
typedef struct { unsigned tag; int n, nt, ns; } frames_head;

static double *f_times(frames_head *h) { return (double *)(void *)(h + 1); }
static double *f_fa(frames_head *h) { return f_times(h) + h->nt; }
static int *f_slot(frames_head *h) { return (int *)(void *)(f_fa(h) + (size_t)h->ns * (size_t)h->nt * 12); }
static size_t f_size(int n, int nt, int ns) {
  return sizeof(frames_head) + sizeof(double) * ((size_t)nt + (size_t)ns * (size_t)nt * 12) + sizeof(int) * (size_t)n;
}

static frames_head *check_frames(lua_State *L, int idx) {
  frames_head *h = luaL_testudata(L, idx, FRAMES_MT);
  if (!h || lua_rawlen(L, idx) < sizeof *h || h->tag != FRAMES_TAG || lua_rawlen(L, idx) != f_size(h->n, h->nt, h->ns))
    anim_lua_argerror(L, idx, "measure frames expected, got %s", anim_lua_typename(L, idx));
  return h;
}

double anim_lua_number_at(lua_State *L, int idx, lua_Integer k, const char *what) {
  double v;
  lua_rawgeti(L, idx, k);
  if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "%s[%d] must be a number", what, (int)k);
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

int anim_lua_node_at(lua_State *L, int idx, lua_Integer k, int n, const char *what) {
  double v = anim_lua_number_at(L, idx, k, what);
  if (!(v >= 1 && v <= n && v == floor(v))) luaL_error(L, "%s[%d] must be a node index in 1..%d", what, (int)k, n);
  return (int)v - 1;
}

void anim_lua_push_exact(lua_State *L, double v) {
  if (v == 0 || v == -1) lua_pushinteger(L, (lua_Integer)v);
  else lua_pushnumber(L, v);
}

/* The tree at idx into t (its arrays in userdata pushed on the stack). */
static void read_tree(lua_State *L, int idx, anim_mtree *t) {
  int n, i, *parent;
  double *rest;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_getfield(L, idx, "parent");
  lua_getfield(L, idx, "rest");
  if (!lua_istable(L, -2) || !lua_istable(L, -1)) luaL_error(L, "tree.parent and tree.rest must be tables");
  if (lua_rawlen(L, -2) > (size_t)ANIM_MAX_RIG_JOINTS) luaL_error(L, "too many nodes");
  n = (int)lua_rawlen(L, -2);
  if (lua_rawlen(L, -1) != (size_t)n * 10) luaL_error(L, "#tree.rest must be 10 a node (%d)", n * 10);
  parent = lua_newuserdatauv(L, sizeof(int) * (size_t)(n ? n : 1), 0);
  rest = lua_newuserdatauv(L, sizeof(double) * (size_t)(n ? 10 * n : 1), 0);
  for (i = 0; i < n; i++) {
    double p = anim_lua_number_at(L, -4, i + 1, "tree.parent");
    if (!(p >= 0 && p <= n && p == floor(p) && p != i + 1)) luaL_error(L, "tree.parent[%d] must be 0 or a node index", i + 1);
    parent[i] = (int)p - 1;
  }
  for (i = 0; i < 10 * n; i++) rest[i] = anim_lua_number_at(L, -3, i + 1, "tree.rest");
  t->n = n, t->parent = parent, t->rest = rest;
}

/* The clip at ci played on n nodes by the bindings at bi (absolute at ai)
 * into mc, each node's binding (the last for it) in a userdata pushed.
 * The clip and its cursors are taken last: call again (take) after any
 * allocation, which may run finalizers. */
static void read_clip(lua_State *L, int ci, int bi, int ai, int n, anim_mclip *mc) {
  anim_clip *c = anim_lua_checkclip(L, ci);
  const anim_binding **on;
  anim_binding *binds;
  int nb, k, nj = c->njoints;
  unsigned gen = c->gen;
  on = lua_newuserdatauv(L, sizeof *on * (size_t)(n ? n : 1), 0);
  for (k = 0; k < n; k++) on[k] = NULL;
  binds = anim_lua_checkbindings(L, bi, nj, gen, n, &nb);
  if (!binds || anim_lua_checkclip(L, ci)->gen != gen) luaL_error(L, "the bindings are not of the clip's content");
  for (k = 0; k < nb; k++) on[binds[k].rj] = &binds[k];
  mc->on = on;
  mc->absolute = lua_toboolean(L, ai);
}

/* mc's clip and cursors, taken again (after the last allocation). */
static void take(lua_State *L, int ci, anim_mclip *mc) {
  mc->clip = anim_lua_checkclip(L, ci);
  mc->cursors = ((anim_clip_box *)lua_touserdata(L, ci))->cursors;
}

/* The channels at idx (nil, or chans: above) into mc: the mask read, the
 * keys' table left on the stack (its index in *kt, 0 when none) and room
 * for their pointers in userdata pushed; take_keys sets them, after the
 * last allocation. */
static void read_chans(lua_State *L, int idx, int n, anim_mclip *mc, int *kt) {
  unsigned char *mask;
  int i;
  mc->mask = NULL, mc->keys = NULL, *kt = 0;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_getfield(L, idx, "mask");
  if (!lua_istable(L, -1) || lua_rawlen(L, -1) != (size_t)n) luaL_error(L, "chans.mask must hold a number a node (%d)", n);
  mask = lua_newuserdatauv(L, (size_t)(n ? n : 1), 0);
  for (i = 0; i < n; i++) {
    double m = anim_lua_number_at(L, -2, i + 1, "chans.mask");
    if (!(m >= 0 && m <= (ANIM_CH_POS | ANIM_CH_ROT | ANIM_CH_SCL) && m == floor(m)))
      luaL_error(L, "chans.mask[%d] must be channel flags (0 to 7)", i + 1);
    mask[i] = (unsigned char)m;
  }
  mc->mask = mask;
  lua_getfield(L, idx, "keys");
  if (lua_isnil(L, -1)) return;
  if (!lua_istable(L, -1)) luaL_error(L, "chans.keys must be a table");
  *kt = lua_gettop(L);
  mc->keys = lua_newuserdatauv(L, (sizeof(anim_keychan *) + sizeof(anim_keychan)) * (size_t)(n ? 3 * n : 1), 0);
}


/* The keys' pointers of read_chans (kt: the keys' table), checked: a
 * rotation's quaternions, 3 numbers a key for the others. */
static void take_keys(lua_State *L, int kt, int n, anim_mclip *mc) {
  const anim_keychan **on = (const anim_keychan **)(void *)mc->keys;
  int s;
  if (!kt) return;  /* (no keys: mc->keys is NULL, nothing to point into) */
  for (s = 0; s < 3 * n; s++) {
    anim_keychan *store = (anim_keychan *)(void *)(on + 3 * n);  /* (after the pointers) */
    on[s] = NULL;
    lua_rawgeti(L, kt, s + 1);
    if (!lua_isnil(L, -1)) {
      if (!anim_lua_to_keys(L, lua_gettop(L), &store[s]) || store[s].n < 1 || store[s].quat != (s % 3 == 1) || store[s].m != (s % 3 == 1 ? 4 : 3))
        luaL_error(L, "chans.keys[%d] must be %s keys", s + 1, s % 3 == 1 ? "quaternion" : "3-number");
      on[s] = &store[s];
    }
    lua_pop(L, 1);
  }
}

/* The list at idx (nl nodes) into list, checked: each node once, its
 * parent listed before it (or, when slot is given, with a slot); marks
 * the nodes listed in `listed` (tree->n bytes, in a userdata pushed). */
static unsigned char *read_list(lua_State *L, int idx, const anim_mtree *tree, int *list, int nl, const int *slot) {
  unsigned char *listed = lua_newuserdatauv(L, (size_t)(tree->n ? tree->n : 1), 0);
  int k;
  for (k = 0; k < tree->n; k++) listed[k] = 0;
  for (k = 0; k < nl; k++) {
    int i = anim_lua_node_at(L, idx, k + 1, tree->n, "list"), p = tree->parent[i];
    if (listed[i]) luaL_error(L, "list[%d]: node %d is listed twice", k + 1, i + 1);
    if (p >= 0 && !listed[p] && !(slot && slot[p] >= 0))
      luaL_error(L, "list[%d]: the parent of node %d is neither listed before it nor measured", k + 1, i + 1);
    if (slot && slot[i] < 0) luaL_error(L, "list[%d]: node %d was not measured", k + 1, i + 1);
    listed[i] = 1;
    list[k] = i;
  }
  return listed;
}

/* core.measure_frames(tree, clip, binds, absolute, times, list, need) */
static int measure_frames(lua_State *L) {
  anim_mtree tree;
  anim_mclip mc;
  anim_mframes f;
  frames_head *h;
  int nt, nl, ns, k, hi, kt, *list, *slot;
  unsigned char *listed;
  double *w;
  for (k = 5; k <= 7; k++) luaL_checktype(L, k, LUA_TTABLE);
  lua_settop(L, 8);
  read_tree(L, 1, &tree);
  read_clip(L, 2, 3, 4, tree.n, &mc);
  read_chans(L, 8, tree.n, &mc, &kt);
  if (lua_rawlen(L, 5) > (size_t)INT32_MAX / 16 || lua_rawlen(L, 6) > (size_t)tree.n || lua_rawlen(L, 7) > (size_t)tree.n)
    luaL_error(L, "too many times or nodes");
  nt = (int)lua_rawlen(L, 5), nl = (int)lua_rawlen(L, 6), ns = (int)lua_rawlen(L, 7);
  if ((double)ns * (double)nt * 96 > (double)(SIZE_MAX / 4)) luaL_error(L, "too many frames");
  list = lua_newuserdatauv(L, sizeof(int) * (size_t)(nl ? nl : 1), 0);
  w = lua_newuserdatauv(L, sizeof(double) * 12 * (size_t)(tree.n ? tree.n : 1), 0);
  h = lua_newuserdatauv(L, f_size(tree.n, nt, ns), 0);
  h->tag = FRAMES_TAG, h->n = tree.n, h->nt = nt, h->ns = ns;
  luaL_setmetatable(L, FRAMES_MT);
  hi = lua_gettop(L);
  slot = f_slot(h);
  for (k = 0; k < tree.n; k++) slot[k] = -1;
  for (k = 0; k < nt; k++) f_times(h)[k] = anim_lua_number_at(L, 5, k + 1, "times");
  for (k = 0; k < ns; k++) {
    int i = anim_lua_node_at(L, 7, k + 1, tree.n, "need");
    if (slot[i] >= 0) luaL_error(L, "need[%d]: node %d is needed twice", k + 1, i + 1);
    slot[i] = k;
  }
  listed = read_list(L, 6, &tree, list, nl, NULL);
  for (k = 0; k < tree.n; k++)
    if (slot[k] >= 0 && !listed[k]) luaL_error(L, "need: node %d is not in the list", k + 1);
  f.nt = nt, f.times = f_times(h), f.slot = slot, f.fa = f_fa(h);
  take(L, 2, &mc);
  take_keys(L, kt, tree.n, &mc);
  anim_measure_frames(&tree, &mc, &f, list, nl, w);
  lua_pushvalue(L, hi);
  return 1;
}

/* core.measure_error(frames, tree, clip, binds, absolute, list, distance,
 * per [, errs [, chans]]) */
static int measure_error(lua_State *L) {
  anim_mtree tree;
  anim_mclip mc;
  anim_mframes f;
  frames_head *h = check_frames(L, 1);
  double distance = luaL_checknumber(L, 7), *w, *per, *errs = NULL;
  int nl, k, kt, *list;
  unsigned char *dirty;
  lua_Integer at;
  luaL_checktype(L, 6, LUA_TTABLE);
  luaL_checktype(L, 8, LUA_TTABLE);
  if (!lua_isnoneornil(L, 9)) luaL_checktype(L, 9, LUA_TTABLE);
  lua_settop(L, 10);
  read_tree(L, 2, &tree);
  if (tree.n != h->n) luaL_error(L, "the tree has %d nodes, the frames %d", tree.n, h->n);
  read_clip(L, 3, 4, 5, tree.n, &mc);
  read_chans(L, 10, tree.n, &mc, &kt);
  if (lua_rawlen(L, 6) > (size_t)tree.n) luaL_error(L, "too many nodes listed");
  nl = (int)lua_rawlen(L, 6);
  list = lua_newuserdatauv(L, sizeof(int) * (size_t)(nl ? nl : 1), 0);
  w = lua_newuserdatauv(L, sizeof(double) * 12 * (size_t)(tree.n ? tree.n : 1), 0);
  per = lua_newuserdatauv(L, sizeof(double) * (size_t)(nl ? nl : 1), 0);
  if (!lua_isnil(L, 9)) errs = lua_newuserdatauv(L, sizeof(double) * ((size_t)h->nt * (size_t)nl + 1), 0);
  dirty = read_list(L, 6, &tree, list, nl, f_slot(h));
  f.nt = h->nt, f.times = f_times(h), f.slot = f_slot(h), f.fa = f_fa(h);
  take(L, 3, &mc);
  take_keys(L, kt, tree.n, &mc);
  anim_measure_error(&tree, &mc, &f, list, nl, dirty, distance, w, per, errs);
  /* (an error of exactly 0 is Lua's integer 0, as reduce.lua's start: push_lua) */
  for (k = 0; k < nl; k++) anim_lua_push_exact(L, per[k]), lua_rawseti(L, 8, list[k] + 1);
  if (errs) {
    size_t e, ne = (size_t)h->nt * (size_t)nl;
    at = (lua_Integer)lua_rawlen(L, 9);
    for (e = 0; e < ne; e++) {
      lua_pushnumber(L, errs[e]);
      lua_rawseti(L, 9, at + (lua_Integer)e + 1);
    }
  }
  return 0;
}

/* core.measure_frame(frames, node) -> its 12 numbers a time */
static int measure_frame(lua_State *L) {
  frames_head *h = check_frames(L, 1);
  int i = (int)anim_lua_checkrange(L, 2, 1, h->n, "node") - 1, s = f_slot(h)[i];
  size_t k, n = (size_t)h->nt * 12;
  if (s < 0) return luaL_argerror(L, 2, "the node was not measured");
  lua_createtable(L, (int)n, 0);
  h = lua_touserdata(L, 1);
  for (k = 0; k < n; k++) {
    lua_pushnumber(L, f_fa(h)[(size_t)s * n + k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

static const int CH_OF[3] = {ANIM_CH_POS, ANIM_CH_ROT, ANIM_CH_SCL};

/* The finite times at idx into a userdata pushed, their count in *nt;
 * a mask of the tree's n nodes with node's channel ch alone in another. */
static double *read_times(lua_State *L, int idx, int n, int node, int ch, int *nt, unsigned char **mask) {
  double *times;
  int k;
  luaL_checktype(L, idx, LUA_TTABLE);
  if (lua_rawlen(L, idx) > (size_t)INT32_MAX / 64) luaL_error(L, "too many times");
  *nt = (int)lua_rawlen(L, idx);
  *mask = lua_newuserdatauv(L, (size_t)n, 0);
  times = lua_newuserdatauv(L, sizeof(double) * (size_t)(*nt ? *nt : 1), 0);
  for (k = 0; k < n; k++) (*mask)[k] = 0;
  (*mask)[node] = (unsigned char)ch;
  for (k = 0; k < *nt; k++) {
    times[k] = anim_lua_number_at(L, idx, k + 1, "times");
    if (!isfinite(times[k])) luaL_error(L, "times[%d] must be finite", k + 1);
  }
  return times;
}

/* A key's ar values at v pushed as a list; with shorts, a quaternion as
 * keys.lua's short_quat makes it (unit, then the nearest n / 32767). */
static void push_value(lua_State *L, const double *v, int ar, int shorts) {
  double n = shorts ? sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) : 1;
  int a;
  lua_createtable(L, ar, 0);
  for (a = 0; a < ar; a++) {
    lua_pushnumber(L, shorts ? floor(v[a] / n * 32767 + 0.5) / 32767 : v[a]);
    lua_rawseti(L, -2, a + 1);
  }
}

/* core.measure_bake(tree, clip, binds, absolute, node, ch, times [, shorts]) */
static int measure_bake(lua_State *L) {
  anim_mtree tree;
  anim_mclip mc;
  unsigned char *mask;
  double *times, *ot, *ov;
  int node, ch, nt, n, k, ar, shorts = lua_toboolean(L, 8), top;
  luaL_checktype(L, 7, LUA_TTABLE);
  lua_settop(L, 7);
  read_tree(L, 1, &tree);
  node = (int)anim_lua_checkrange(L, 5, 1, tree.n, "node") - 1;
  ch = CH_OF[anim_lua_checkrange(L, 6, 1, 3, "channel") - 1];
  ar = ch == ANIM_CH_ROT ? 4 : 3;
  read_clip(L, 2, 3, 4, tree.n, &mc);
  times = read_times(L, 7, tree.n, node, ch, &nt, &mask);
  ot = lua_newuserdatauv(L, sizeof(double) * (size_t)(nt ? 2 * nt * (ar + 1) : 1), 0);
  ov = ot + 2 * (size_t)nt;
  take(L, 2, &mc);
  mc.mask = mask, mc.keys = NULL;
  n = anim_measure_bake(&tree, &mc, node, ch, times, nt, ot, ov);
  shorts = shorts && ch == ANIM_CH_ROT;
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  top = lua_gettop(L);
  for (k = 0; k < n; k++) {
    lua_createtable(L, 0, 2);
    lua_pushnumber(L, ot[k]);
    lua_pushvalue(L, -1);
    lua_rawseti(L, top - 1, k + 1);
    lua_setfield(L, -2, "t");
    push_value(L, ov + k * ar, ar, 0);
    if (!shorts) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, top, k + 1);
    }
    lua_setfield(L, -2, "v");
    lua_rawseti(L, top - 2, k + 1);
    if (shorts) {
      push_value(L, ov + k * ar, ar, 1);
      lua_rawseti(L, top, k + 1);
    }
  }
  return 3;
}

/* core.measure_compare(tree, clip, binds, absolute, clip2, binds2,
 * absolute2, node, ch (or a list of them), times) */
static int measure_compare(lua_State *L) {
  anim_mtree tree;
  anim_mclip a, b;
  unsigned char *mask;
  double *times, worst[3];
  int node, chs = 0, slot[3], nt, k, list = lua_istable(L, 9), nc = list ? (int)lua_rawlen(L, 9) : 1;
  luaL_checktype(L, 10, LUA_TTABLE);
  lua_settop(L, 10);
  if (nc < 1 || nc > 3) luaL_error(L, "1 to 3 channels");
  for (k = 0; k < nc; k++, lua_settop(L, 10)) {
    if (list) lua_rawgeti(L, 9, k + 1);
    chs |= CH_OF[slot[k] = (int)anim_lua_checkrange(L, list ? 11 : 9, 1, 3, "channel") - 1];
  }
  read_tree(L, 1, &tree);
  node = (int)anim_lua_checkrange(L, 8, 1, tree.n, "node") - 1;
  read_clip(L, 2, 3, 4, tree.n, &a);
  read_clip(L, 5, 6, 7, tree.n, &b);
  times = read_times(L, 10, tree.n, node, chs, &nt, &mask);
  take(L, 2, &a);
  take(L, 5, &b);
  a.mask = b.mask = mask, a.keys = b.keys = NULL;
  anim_measure_compare(&tree, &a, &b, node, chs, times, nt, worst);
  /* (none above 0: Lua's integer 0, as compare_back's start) */
  for (k = 0; k < nc; k++) anim_lua_push_exact(L, worst[slot[k]]);
  return nc;
}

static const luaL_Reg funcs[] = {
  {"measure_frames", measure_frames},
  {"measure_error", measure_error},
  {"measure_frame", measure_frame},
  {"measure_bake", measure_bake},
  {"measure_compare", measure_compare},
  {NULL, NULL}
};

void anim_lua_open_measure(lua_State *L) {
  anim_lua_sealed_meta(L, FRAMES_MT);
  luaL_setfuncs(L, funcs, 0);
}
