/* lua_animc_plain.c - core.animc_plain: a .animc whose table is a
 * compressed clip's usual one -- a version 2 or 3, a loop and an euler
 * named as the reader names them, a length >= 0, absolute true or false,
 * joints that are all empty objects, a plain skeleton (lua_skeleton.c),
 * and fields the reader does not know (lua/anim/format/read.lua's
 * PLAIN_FIELDS; none of its FULL_FIELDS) -- loaded from the file's bytes with no table decoded: the
 * core's clip, its info table and its skeleton made here, the table itself
 * decoded when first asked for (lua/anim/format/keys.lua's lazy).  Issue
 * 41: a small .animc's load was mostly making tables and reading them
 * back.  Any other file gives nothing, and lua/anim/format/animc.lua reads
 * it the full way, whose messages are the file's. */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/animc.h"
#include "core/codes.h"
#include "core/packed.h"
#include "lua_helpers.h"

/* Names on the C stack (more: in a userdata). */
#define ON_STACK 64

#define NAME_OF(sym, name, code) name,
static const char *const LOOPS[] = {ANIM_LOOP_CODES(NAME_OF) NULL};
static const char *const EULERS[] = {ANIM_EULER_CODES(NAME_OF) NULL};

/* What the top object holds (pointers at the values' tags; NULL: absent). */
typedef struct {
  const unsigned char *joints, *skeleton, *version, *length;
  size_t sklen;
  int loop, euler, absolute; /* codes; -1 absent */
} plain_top;

/* The value at p[*o] skipped, within p[0..len): 0 when it does not fit
 * (the checks of anim_lua_animc_scan come later, for a plain table only:
 * this walks a table before the checksum is known). */
static int skip(const unsigned char *p, size_t len, size_t *o, int depth) {
  size_t n, k;
  int tag;
  if (depth > 128 || *o >= len) return 0;
  tag = p[(*o)++];
  if (tag <= ANIM_VE_TRUE) return 1;
  if (tag == ANIM_VE_F64 || tag == ANIM_VE_I64) {
    if (len - *o < 8) return 0;
    *o += 8;
    return 1;
  }
  if (tag > ANIM_VE_OBJ || len - *o < 4) return 0;
  n = anim_packed_u32(p + *o);
  *o += 4;
  if (tag == ANIM_VE_STR) {
    if (n > len - *o) return 0;
    *o += n;
    return 1;
  }
  for (k = 0; k < n; k++) {
    if (tag == ANIM_VE_OBJ) {
      size_t klen;
      if (len - *o < 4) return 0;
      klen = anim_packed_u32(p + *o);
      if (klen > len - *o - 4) return 0;
      *o += 4 + klen;
    }
    if (!skip(p, len, o, depth + 1)) return 0;
  }
  return 1;
}

/* The code of the string value at v among names, -1 if none. */
static int code_of(const unsigned char *v, const char *const *names) {
  size_t len;
  int i;
  if (v[0] != ANIM_VE_STR) return -1;
  len = anim_packed_u32(v + 1);
  for (i = 0; names[i]; i++)
    if (strlen(names[i]) == len && memcmp(names[i], v + 5, len) == 0) return i;
  return -1;
}

/* The top object of the table p[0..len) read into t: 0 when it is not
 * plain (or not whole).  full: the fields left to the full reader
 * (read.lua's FULL_FIELDS, at that index). */
static int read_top(lua_State *L, const unsigned char *p, size_t len, int full, plain_top *t) {
  size_t n, k, o = 5;
  memset(t, 0, sizeof *t);
  t->loop = t->euler = t->absolute = -1;
  if (len < 5 || p[0] != ANIM_VE_OBJ) return 0;
  n = anim_packed_u32(p + 1);
  for (k = 0; k < n; k++) {
    size_t klen;
    const char *key;
    const unsigned char *v;
    int known;
    if (len - o < 4 || (klen = anim_packed_u32(p + o)) > len - o - 4) return 0;
    key = (const char *)p + o + 4;
    v = p + o + 4 + klen;
    lua_pushlstring(L, key, klen);
    known = lua_rawget(L, full) != LUA_TNIL;
    lua_pop(L, 1);
    if (known) return 0;
    o += 4 + klen;
    if (!skip(p, len, &o, 1)) return 0;
#define IS(name) (klen == sizeof name - 1 && memcmp(key, name, klen) == 0)
    if (IS("joints")) t->joints = v;
    else if (IS("skeleton")) t->skeleton = v, t->sklen = (size_t)(p + o - v);
    else if (IS("version")) {
      if (v[0] != ANIM_VE_I64 || (v[1] != 2 && v[1] != 3) || memcmp(v + 2, "\0\0\0\0\0\0\0", 7)) return 0;
      t->version = v;
    } else if (IS("length")) {
      if (v[0] == ANIM_VE_I64 ? (v[8] & 0x80) != 0 : v[0] != ANIM_VE_F64 || !(anim_packed_f64(v + 1) >= 0)) return 0;
      t->length = v;
    } else if (IS("loop")) {
      if ((t->loop = code_of(v, LOOPS)) < 0) return 0;
    } else if (IS("euler")) {
      if ((t->euler = code_of(v, EULERS)) < 0) return 0;
    } else if (IS("absolute")) {
      if (v[0] != ANIM_VE_TRUE && v[0] != ANIM_VE_FALSE) return 0;
      t->absolute = v[0] == ANIM_VE_TRUE;
    }
#undef IS
  }
  return t->joints != NULL;
}

/* How many joints the joints' value at v holds (an object of them, or an
 * empty array), at most max; -1 when it is neither. */
static long joint_count(const unsigned char *v, lua_Integer max) {
  size_t n;
  if (v[0] != ANIM_VE_ARR && v[0] != ANIM_VE_OBJ) return -1;
  n = anim_packed_u32(v + 1);
  if (v[0] == ANIM_VE_ARR) return n == 0 ? 0 : -1;
  return n > (size_t)max ? -1 : (long)n;
}

/* The n names of the joints' object at v into out: 0 unless every joint
 * is an empty table (an empty array). */
static int joint_names(const unsigned char *v, long n, anim_lua_name *out) {
  size_t o = 5;
  long k;
  for (k = 0; k < n; k++) {
    size_t klen = anim_packed_u32(v + o);
    const unsigned char *e = v + o + 4 + klen;
    if (e[0] != ANIM_VE_ARR || anim_packed_u32(e + 1) != 0) return 0;
    out[k].s = (const char *)v + o + 4, out[k].len = klen;
    o += 4 + klen + 5;
  }
  return 1;
}

/* The number of the length's value at v (an i64 >= 0 or an f64). */
static double length_of(const unsigned char *v) {
  return v[0] == ANIM_VE_F64 ? anim_packed_f64(v + 1) : (double)anim_lua_i64_at(v + 1);
}

static void set_new_table(lua_State *L, int t, const char *k) {
  lua_newtable(L);
  lua_setfield(L, t, k);
}

static void set_string(lua_State *L, int t, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, t, k);
}

static void set_integer(lua_State *L, int t, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, t, k);
}

/* The info table format/read.lua, props.read and keys.build make of t, pushed
 * (but its name, clip, compression and tree: format/animc.lua's); the
 * joints' list at names, in their bytes' order (the table's keys; what
 * read.lua's sort gives, lua/anim/base/order.lua). */
static void push_info(lua_State *L, const plain_top *t, const anim_lua_name *ns, long n) {
  int i, nt;
  long k;
  lua_createtable(L, 0, 24);
  i = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  nt = i + 1;
  for (k = 0; k < n; k++) {
    lua_pushlstring(L, ns[k].s, ns[k].len);
    lua_rawseti(L, nt, (lua_Integer)k + 1);
  }
  lua_setfield(L, i, "joints");
  set_new_table(L, i, "markers");
  set_new_table(L, i, "events");
  set_new_table(L, i, "sounds");
  set_new_table(L, i, "plays");
  set_new_table(L, i, "properties");
  set_string(L, i, "layout", "curves");
  set_string(L, i, "blend", "normal");
  set_string(L, i, "space", "body");
  set_integer(L, i, "priority", 0);
  set_integer(L, i, "speed", 1);
  lua_pushboolean(L, 0);
  lua_setfield(L, i, "autoplay");
  set_integer(L, i, "version", t->version ? t->version[1] : 2);
  set_string(L, i, "loop", LOOPS[t->loop < 0 ? ANIM_ONCE : t->loop]);
  set_string(L, i, "euler", EULERS[t->euler < 0 ? ANIM_YXZ : t->euler]);
  lua_pushboolean(L, t->absolute == 1);
  lua_setfield(L, i, "absolute");
  if (!t->length) lua_pushinteger(L, 0);
  /* (an i64 beyond 2^53 as the double the clip plays, as read.lua has it) */
  else if (t->length[0] == ANIM_VE_I64 && anim_lua_i64_at(t->length + 1) <= ((int64_t)1 << 53))
    anim_lua_push_i64(L, t->length + 1);
  else lua_pushnumber(L, length_of(t->length));
  lua_setfield(L, i, "length");
}

/* core.animc_plain(bytes, full fields, max joints, max string, max depth,
 * max keys)
 * -> clip, info, error, distance, worst, p99, bytes raw, the pack's bytes,
 * the table's encoding (for core.value_decode when it is asked for)
 * | nothing: the file is not a plain one within the limits (or is wrong:
 * core.animc_read says where). */
static int animc_plain(lua_State *L) {
  size_t len, at, longest;
  const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 1, &len);
  lua_Integer max = luaL_checkinteger(L, 3), max_string = luaL_checkinteger(L, 4);
  lua_Integer max_depth = luaL_checkinteger(L, 5), max_keys = luaL_checkinteger(L, 6);
  anim_animc_parts parts;
  plain_top t;
  anim_lua_name stack[ON_STACK], *ns = stack;
  anim_clip fields;
  anim_clip *c;
  long n;
  int deepest, info, k;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 6);
  luaL_checkstack(L, 24, "animc_plain");
  /* (the top object first: a file of another table costs the full
   * reading little more) */
  if (anim_animc_split_unchecked(p, len, &parts, &at) || !read_top(L, parts.table, parts.tlen, 2, &t)) return 0;
  if (!anim_animc_crc_ok(p, len) || !anim_lua_animc_scan(&parts, &longest, &deepest)) return 0;
  if (longest > (size_t)max_string || deepest > max_depth) return 0;
  if ((n = joint_count(t.joints, max)) < 0) return 0;
  if (n > ON_STACK) ns = lua_newuserdatauv(L, sizeof *ns * (size_t)n, 0);
  if (!joint_names(t.joints, n, ns)) return 0;
  push_info(L, &t, ns, n);
  info = lua_gettop(L);
  if (t.skeleton) {
    if (!anim_lua_skeleton_bytes(L, t.skeleton, t.sklen, 0, max)) return 0;
    lua_setfield(L, info, "skeleton");
  }
  memset(&fields, 0, sizeof fields);
  fields.length = t.length ? length_of(t.length) : 0;
  fields.loop = t.loop < 0 ? ANIM_ONCE : t.loop;
  fields.euler = t.euler < 0 ? ANIM_YXZ : t.euler;
  fields.absolute = t.absolute == 1;
  c = anim_lua_clip_named(L, ns, (int)n, &fields, info);
  if (anim_clip_set_packed(c, parts.pack, parts.plen, max_keys > 0 ? (size_t)max_keys : 0, &at)) return 0;
  lua_pushvalue(L, info);
  for (k = 0; k < ANIM_ANIMC_NSTATS; k++) lua_pushnumber(L, parts.stats[k]);
  lua_pushinteger(L, (lua_Integer)parts.plen);
  lua_pushlstring(L, (const char *)parts.table, parts.tlen);
  return 2 + ANIM_ANIMC_NSTATS + 2;
}

static const luaL_Reg funcs[] = {
  {"animc_plain", animc_plain},
  {NULL, NULL}
};

void anim_lua_open_animc_plain(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
