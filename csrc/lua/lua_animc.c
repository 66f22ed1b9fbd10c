/* lua_animc.c - compressed clips and .animc files for Lua: a pack written
 * from the compressor's keys (csrc/core/packed.c), given to a clip, read
 * back; the value encoding of a clip's table (JSON's values in bytes, read
 * with no JSON library); the .animc file's frame (csrc/core/animc.c).
 *
 * The value encoding (docs/formats.md), one tag byte then:
 *   0 null, 1 false, 2 true, 3 f64 (a float that is not a whole number of
 *   at most 2^53, or -0), 4 i64 (an integer, or such a whole number),
 *   5 string: u32 length, bytes;  6 array: u32 n, n values;
 *   7 object: u32 n (1 ..), n times (u32 key length, key bytes, value),
 *   keys in increasing byte order, each once.
 * Little-endian throughout; an empty table is an empty array.  Nested at
 * most MAX_DEPTH deep; at most one value for every two bytes of the table
 * (JSON text's own bound: "0,"), so that a file makes no more Lua values
 * than JSON of its size would. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/animc.h"
#include "core/packed.h"
#include "lua_helpers.h"

#define MAX_DEPTH 128

enum {
  V_NULL = ANIM_VE_NULL, V_FALSE = ANIM_VE_FALSE, V_TRUE = ANIM_VE_TRUE, V_F64 = ANIM_VE_F64,
  V_I64 = ANIM_VE_I64, V_STR = ANIM_VE_STR, V_ARR = ANIM_VE_ARR, V_OBJ = ANIM_VE_OBJ
};

/* A double written as an i64: whole, at most 2^53 in size, not -0. */
static int whole_double(double d) {
  return d == floor(d) && fabs(d) <= 9007199254740992.0 && !(d == 0 && signbit(d));
}

/* ---- the pack ---------------------------------------------------------- */

static double tnum(lua_State *L, int t, const char *k) {
  double v;
  lua_getfield(L, t, k);
  if (!lua_isnumber(L, -1)) luaL_error(L, "pack description: '%s' must be a number", k);
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Reads n numbers of array t (absolute index) into a userdata it pushes. */
static double *tnums(lua_State *L, int t, lua_Integer n) {
  double *v = lua_newuserdatauv(L, sizeof(double) * (size_t)(n ? n : 1), 0);
  lua_Integer i;
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, t, i);
    if (!lua_isnumber(L, -1)) luaL_error(L, "pack description: a non-number");
    v[i - 1] = lua_tonumber(L, -1);
    if (!isfinite(v[i - 1])) luaL_error(L, "pack description: a non-finite number");
    lua_pop(L, 1);
  }
  return v;
}

/* One channel { frames = {...}, v = {...} } at the top of the stack:
 * checked, written at out (NULL: only measured).  Returns its bytes. */
static size_t pack_channel(lua_State *L, int kind, int rot, int nframes, unsigned char *out) {
  int ch = lua_gettop(L), fr, vv, i, *frames, bits;
  lua_Integer n;
  double *fv, *v;
  size_t size;
  lua_getfield(L, ch, "frames");
  lua_getfield(L, ch, "v");
  fr = ch + 1, vv = ch + 2;
  if (!lua_istable(L, fr) || !lua_istable(L, vv)) luaL_error(L, "pack description: a channel without frames or v");
  n = (lua_Integer)lua_rawlen(L, fr);
  if (n < 1 || n > 2 * (lua_Integer)nframes || (lua_Integer)lua_rawlen(L, vv) != n * (rot ? 4 : 3))
    luaL_error(L, "pack description: bad key count");
  lua_getfield(L, ch, "bits");
  bits = lua_isnil(L, -1) ? 16 : (int)lua_tointeger(L, -1);
  if (bits < 1 || bits > 16) luaL_error(L, "pack description: bits must be 1 .. 16");
  lua_pop(L, 1);
  fv = tnums(L, fr, n);
  v = tnums(L, vv, n * (rot ? 4 : 3));
  frames = lua_newuserdatauv(L, sizeof(int) * (size_t)n, 0);
  for (i = 0; i < n; i++) {
    if (!(fv[i] >= 0 && fv[i] < nframes && fv[i] == floor(fv[i])) || (i > 0 && fv[i] < fv[i - 1]) ||
        (i > 1 && fv[i] == fv[i - 2]))
      luaL_error(L, "pack description: frames must be integers below nframes, not decreasing, two at most alike");
    frames[i] = (int)fv[i];
  }
  size = anim_packed_ch_size(kind, rot, (int)n, frames, v, bits);
  if (out) anim_packed_ch_write(out, kind, rot, (int)n, frames, v, bits);
  lua_settop(L, ch);
  return size;
}

/* Walks the description: the pack's size, or the pack written at out. */
static size_t pack_walk(lua_State *L, int d, unsigned char *out) {
  double rate = tnum(L, d, "rate"), nf = tnum(L, d, "nframes");
  lua_Integer nj, j;
  size_t o = 16;
  int c;
  if (!(rate > 0 && rate <= 1e6) || !(nf >= 1 && nf <= ANIM_PK_MAX_FRAMES && nf == floor(nf)))
    luaL_error(L, "pack description: bad rate or frame count");
  lua_getfield(L, d, "joints");
  if (!lua_istable(L, -1)) luaL_error(L, "pack description: 'joints' must be a table");
  nj = (lua_Integer)lua_rawlen(L, -1);
  if (out) {
    anim_packed_put_u32(out, (unsigned long)nj);
    anim_packed_put_f64(out + 4, rate);
    anim_packed_put_u32(out + 12, (unsigned long)nf);
  }
  for (j = 1; j <= nj; j++) {
    int jt, kinds = 0, kind[3];
    lua_rawgeti(L, -1, j);
    jt = lua_gettop(L);
    if (!lua_istable(L, jt)) luaL_error(L, "pack description: a joint must be a table");
    for (c = 0; c < 3; c++) {
      lua_rawgeti(L, jt, c + 1);
      kind[c] = lua_isnil(L, -1) ? ANIM_PK_ABSENT : (int)lua_tointeger(L, -1);
      if (kind[c] < ANIM_PK_ABSENT || kind[c] > ANIM_PK_WIDE) luaL_error(L, "pack description: bad kind");
      lua_pop(L, 1);
      kinds |= kind[c] << (2 * c);
    }
    if (out) out[o] = (unsigned char)kinds;
    o++;
    for (c = 0; c < 3; c++) {
      if (kind[c] < ANIM_PK_NARROW) continue;
      lua_rawgeti(L, jt, 4 + c);
      if (!lua_istable(L, -1)) luaL_error(L, "pack description: a channel must be a table");
      o += pack_channel(L, kind[c], c == 1, (int)nf, out ? out + o : NULL);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return o;
}

/* core.pack_write(desc) -> the pack's bytes.  desc = { rate = frames a
 * second, nframes = n, joints = { joint, ... } (the clip's order) }, joint
 * = { kind of position, of rotation, of scale (ANIM_PK_*: 0 absent, 1
 * identity, 2 narrow, 3 wide), channel, channel, channel } where a channel
 * with keys is { frames = { increasing frame indices }, v = { 3 numbers a
 * key, 4 for a rotation (x, y, z, w) }, bits = a narrow one's bits a
 * component (1 .. 16; 16 when absent) }. */
static int pack_write(lua_State *L) {
  size_t size;
  unsigned char *out;
  luaL_checktype(L, 1, LUA_TTABLE);
  size = pack_walk(L, 1, NULL);
  out = lua_newuserdatauv(L, size, 0);
  pack_walk(L, 1, out);
  lua_pushlstring(L, (const char *)out, size);
  return 1;
}

/* core.clip_set_packed(clip, pack, max keys) -> true | nil, message, byte
 * offset: a clip just built with no keys made a compressed one, its keys
 * (all channels) at most max keys (anim.limits.keys). */
static int clip_set_packed(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  size_t len, at;
  const char *p = luaL_checklstring(L, 2, &len), *e;
  lua_Integer max = luaL_checkinteger(L, 3);
  if (c->tracks) e = "the clip is playing", at = 0;
  else e = anim_clip_set_packed(c, (const unsigned char *)p, len, max > 0 ? (size_t)max : 0, &at);
  if (e == ANIM_CLIP_NOMEM) return anim_lua_nomem(L);
  if (e) {
    lua_pushnil(L);
    if (e == ANIM_PK_TOO_MANY_KEYS) lua_pushfstring(L, "too many keys (at most %d, anim.limits.keys)", (int)max);
    else lua_pushstring(L, e);
    lua_pushinteger(L, (lua_Integer)at);
    return 3;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* core.clip_pack(clip) -> a compressed clip's pack, its rate and frame
 * count; nil for another clip. */
static int clip_pack(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  if (!c->packed) return 0;
  lua_pushlstring(L, (const char *)c->packed->bytes, c->packed->len);
  lua_pushnumber(L, c->packed->rate);
  lua_pushinteger(L, c->packed->nframes);
  return 3;
}

/* core.clip_pack_rate(clip) -> a compressed clip's rate and frame count
 * (clip_pack's without a copy of the pack); nil for another clip. */
static int clip_pack_rate(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  if (!c->packed) return 0;
  lua_pushnumber(L, c->packed->rate);
  lua_pushinteger(L, c->packed->nframes);
  return 2;
}

/* core.clip_pack_channels(clip) -> { kind, keys, bytes, bits x, y, z,
 * dropped, ... } (position, rotation, scale of each joint in the clip's
 * order: 7 numbers a channel, 21 a joint; kind ANIM_PK_*; a narrow
 * channel's bits of each number it keeps, and a narrow rotation's
 * component rebuilt from the others, 0 .. 3 for x .. w), what `anim info`
 * says of a compressed clip; nil for another clip. */
static int clip_pack_channels(lua_State *L) {
  anim_clip *c = anim_lua_checkclip(L, 1);
  const anim_packed *pk = c->packed;
  int j, k, a, i = 0;
  if (!pk) return 0;
  lua_createtable(L, pk->njoints * 21, 0);
  for (j = 0; j < pk->njoints; j++) {
    for (k = 0; k < 3; k++) {
      const anim_pk_ch *ch = &pk->joints[j].ch[k];
      int keyed = ch->kind >= ANIM_PK_NARROW, narrow = ch->kind == ANIM_PK_NARROW;
      lua_Integer v[7];
      v[0] = ch->kind;
      v[1] = keyed ? ch->n : 0;
      v[2] = keyed ? (lua_Integer)ch->bytes : 0;
      for (a = 0; a < 3; a++) v[3 + a] = narrow ? ch->kb[a] : 0;
      v[6] = narrow ? ch->drop : 0;
      for (a = 0; a < 7; a++) {
        lua_pushinteger(L, v[a]);
        lua_rawseti(L, -2, ++i);
      }
    }
  }
  return 1;
}

/* ---- the value encoding: writing --------------------------------------- */

typedef struct key_ref { const char *s; size_t len; } key_ref;

static int key_cmp(const void *pa, const void *pb) {
  const key_ref *a = pa, *b = pb;
  size_t n = a->len < b->len ? a->len : b->len;
  int r = memcmp(a->s, b->s, n);
  if (r) return r;
  return (a->len > b->len) - (a->len < b->len);
}

typedef struct wbuf { unsigned char *p; size_t n; } wbuf;

static void put(wbuf *w, const void *src, size_t n) {
  if (w->p) memcpy(w->p + w->n, src, n);
  w->n += n;
}
static void put_byte(wbuf *w, int b) { unsigned char c = (unsigned char)b; put(w, &c, 1); }
static void put_u32(wbuf *w, size_t v) {
  unsigned char b[4];
  anim_packed_put_u32(b, (unsigned long)v);
  put(w, b, 4);
}
static void put_str(wbuf *w, const char *s, size_t len) { put_u32(w, len); put(w, s, len); }

static void enc(lua_State *L, int i, wbuf *w, int depth);

/* Is table i an array: n keys, all the integers 1 .. n? */
static int is_array(lua_State *L, int i, size_t *count) {
  size_t n = 0;
  int arr = 1;
  lua_pushnil(L);
  while (lua_next(L, i)) {
    lua_pop(L, 1);
    n++;
    if (arr && !(lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1 &&
                 lua_tonumber(L, -1) == floor(lua_tonumber(L, -1))))
      arr = 0;
  }
  *count = n;
  return arr && (size_t)lua_rawlen(L, i) == n;
}

static void enc_table(lua_State *L, int i, wbuf *w, int depth) {
  size_t n, k;
  if (depth > MAX_DEPTH) luaL_error(L, "value encoding: nested deeper than %d levels", MAX_DEPTH);
  luaL_checkstack(L, 8, "value encoding");
  if (is_array(L, i, &n)) {
    put_byte(w, V_ARR);
    put_u32(w, n);
    for (k = 1; k <= n; k++) {
      lua_rawgeti(L, i, (lua_Integer)k);
      enc(L, lua_gettop(L), w, depth + 1);
      lua_pop(L, 1);
    }
    return;
  } else {
    key_ref *keys = lua_newuserdatauv(L, sizeof(key_ref) * (n ? n : 1), 0);
    k = 0;
    lua_pushnil(L);
    while (lua_next(L, i)) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "value encoding: a table with a key that is not a string");
      keys[k].s = lua_tolstring(L, -1, &keys[k].len);
      k++;
    }
    qsort(keys, n, sizeof(key_ref), key_cmp);
    put_byte(w, V_OBJ);
    put_u32(w, n);
    for (k = 0; k < n; k++) {
      put_str(w, keys[k].s, keys[k].len);
      lua_pushlstring(L, keys[k].s, keys[k].len);
      lua_rawget(L, i);
      enc(L, lua_gettop(L), w, depth + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
}

static void enc(lua_State *L, int i, wbuf *w, int depth) {
  switch (lua_type(L, i)) {
    case LUA_TBOOLEAN: put_byte(w, lua_toboolean(L, i) ? V_TRUE : V_FALSE); return;
    case LUA_TLIGHTUSERDATA:
      if (lua_touserdata(L, i) != NULL) break;
      put_byte(w, V_NULL);
      return;
    case LUA_TNUMBER: {
      unsigned char b[8];
      /* (one encoding a value, on every runtime: a whole double of at most
       * 2^53 in size, -0 aside, is written as the integer it is, as an
       * integer subtype is -- Lua 5.1, 5.2 and LuaJIT have none) */
      double d = (double)lua_tonumber(L, i);
      if (lua_isinteger(L, i) || whole_double(d)) {
        int64_t v = lua_isinteger(L, i) ? (int64_t)lua_tointeger(L, i) : (int64_t)d;
        uint64_t u;
        int k;
        memcpy(&u, &v, 8);
        for (k = 0; k < 8; k++) b[k] = (unsigned char)(u >> (8 * k) & 255);
        put_byte(w, V_I64);
      } else {
        anim_packed_put_f64(b, lua_tonumber(L, i));
        put_byte(w, V_F64);
      }
      put(w, b, 8);
      return;
    }
    case LUA_TSTRING: {
      size_t len;
      const char *s = lua_tolstring(L, i, &len);
      put_byte(w, V_STR);
      put_str(w, s, len);
      return;
    }
    case LUA_TTABLE: enc_table(L, i, w, depth); return;
    default: break;
  }
  luaL_error(L, "value encoding: a %s is not a JSON value", luaL_typename(L, i));
}

/* core.value_encode(v) -> bytes: JSON's values (the decoder's null, a
 * lightuserdata NULL) in the encoding above; raises for anything else. */
static int value_encode(lua_State *L) {
  wbuf w = {NULL, 0};
  luaL_checkany(L, 1);
  lua_settop(L, 1);
  enc(L, 1, &w, 0);
  w.p = lua_newuserdatauv(L, w.n ? w.n : 1, 0);
  w.n = 0;
  enc(L, 1, &w, 0);
  lua_pushlstring(L, (const char *)w.p, w.n);
  return 1;
}

/* ---- the value encoding: reading --------------------------------------- */

typedef struct rbuf {
  const unsigned char *p;
  size_t len, o, base;  /* base: where p is in the file, for messages */
  size_t values;        /* the values still allowed: one for every two bytes,
                         * as many as JSON text of that size holds ("0,") */
  const char *err;
  size_t at;
  size_t longest;       /* the longest string or key read */
  int deepest;          /* the deepest table read (the top one: 1) */
  size_t sk_at, sk_end; /* the top object's skeleton's bytes (sk_end 0: none) */
  int push;             /* 0: checked only, nothing pushed (anim_lua_animc_scan) */
} rbuf;

static int fail(rbuf *r, const char *e, size_t at) {
  if (!r->err) { r->err = e; r->at = r->base + at; }
  return 0;
}

static int get_u32(rbuf *r, size_t *v) {
  if (r->len - r->o < 4) return fail(r, "truncated", r->len);
  *v = anim_packed_u32(r->p + r->o);
  r->o += 4;
  return 1;
}

/* Pushes the value at r->o (nothing on failure: r->err says why); with
 * r->push 0, checks it the same and pushes nothing. */
static int dec(lua_State *L, rbuf *r, int depth) {
  int tag, push = r->push;
  size_t n, k, at = r->o;
  if (depth > MAX_DEPTH) return fail(r, "nested too deep", at);
  if (r->o >= r->len) return fail(r, "truncated", r->len);
  if (r->values == 0) return fail(r, "more values than one for every two bytes of the table", at);
  r->values--;
  tag = r->p[r->o++];
  switch (tag) {
    case V_NULL: if (push) lua_pushlightuserdata(L, NULL); return 1;
    case V_FALSE: case V_TRUE: if (push) lua_pushboolean(L, tag == V_TRUE); return 1;
    case V_F64: case V_I64:
      if (r->len - r->o < 8) return fail(r, "truncated", r->len);
      if (tag == V_F64) {
        double v = anim_packed_f64(r->p + r->o);
        if (!isfinite(v)) return fail(r, "non-finite number", r->o);
        if (whole_double(v)) return fail(r, "a whole number written as f64 (it is written as i64)", at);
        if (push) lua_pushnumber(L, v);
      } else if (push) {
        anim_lua_push_i64(L, r->p + r->o);
      }
      r->o += 8;
      return 1;
    case V_STR:
      if (!get_u32(r, &n)) return 0;
      if (n > r->len - r->o) return fail(r, "string length beyond the file", r->o - 4);
      if (n > r->longest) r->longest = n;
      if (push) lua_pushlstring(L, (const char *)r->p + r->o, n);
      r->o += n;
      return 1;
    case V_ARR: case V_OBJ: {
      size_t cnt_at = r->o, prev_at = 0, prev_len = 0, vat;
      int t = 0;
      if (!get_u32(r, &n)) return 0;
      /* (each element takes a byte at least, each member five) */
      if (n > (r->len - r->o) / (tag == V_ARR ? 1 : 6)) return fail(r, "count beyond the file", cnt_at);
      /* (one encoding of a value: an empty table is an empty array) */
      if (tag == V_OBJ && n == 0) return fail(r, "empty object (written as an empty array)", at);
      if (depth + 1 > r->deepest) r->deepest = depth + 1;
      if (push) {
        luaL_checkstack(L, 4, "value decoding");
        if (tag == V_ARR) lua_createtable(L, (int)n, 0); else lua_createtable(L, 0, (int)n);
        t = lua_gettop(L);
      }
      for (k = 0; k < n; k++) {
        if (tag == V_OBJ) {
          size_t klen, kat = r->o;
          if (!get_u32(r, &klen)) break;
          if (klen > r->len - r->o) { fail(r, "key length beyond the file", kat); break; }
          if (k > 0) {
            size_t m = klen < prev_len ? klen : prev_len;
            int c = memcmp(r->p + prev_at, r->p + r->o, m);
            if (c > 0 || (c == 0 && prev_len >= klen)) { fail(r, "keys out of order or repeated", kat); break; }
          }
          prev_at = r->o, prev_len = klen;
          if (klen > r->longest) r->longest = klen;
          if (push) lua_pushlstring(L, (const char *)r->p + r->o, klen);
          r->o += klen;
          vat = r->o;
          if (!dec(L, r, depth + 1)) break;
          if (depth == 0 && klen == 8 && memcmp(r->p + prev_at, "skeleton", 8) == 0) r->sk_at = vat, r->sk_end = r->o;
          if (push) lua_rawset(L, t);
        } else {
          if (!dec(L, r, depth + 1)) break;
          if (push) lua_rawseti(L, t, (lua_Integer)k + 1);
        }
      }
      if (r->err) { if (push) lua_settop(L, t - 1); return 0; }
      return 1;
    }
    default: break;
  }
  return fail(r, "bad value tag", at);
}

static void rbuf_init(rbuf *r, const anim_animc_parts *parts, int push) {
  r->p = parts->table, r->len = parts->tlen, r->o = 0, r->base = parts->table_at, r->err = NULL, r->at = 0;
  r->longest = 0, r->deepest = 0, r->sk_at = 0, r->sk_end = 0;
  r->values = parts->tlen / 2 + 1;
  r->push = push;
}

int anim_lua_animc_scan(const anim_animc_parts *parts, size_t *longest, int *deepest) {
  rbuf r;
  rbuf_init(&r, parts, 0);
  if (!dec(NULL, &r, 0) || r.o != r.len) return 0;
  *longest = r.longest, *deepest = r.deepest;
  return 1;
}

/* core.value_decode(bytes) -> the value of a clip table's encoding alone
 * (what core.animc_read decodes of a file) | nil, message, byte offset. */
static int value_decode(lua_State *L) {
  size_t len;
  const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 1, &len);
  anim_animc_parts parts;
  rbuf r;
  memset(&parts, 0, sizeof parts);
  parts.table = p, parts.tlen = len;
  rbuf_init(&r, &parts, 1);
  lua_settop(L, 1);
  if (dec(L, &r, 0) && r.o != r.len) { lua_pop(L, 1); fail(&r, "bytes after the table", r.o); }
  if (!r.err) return 1;
  lua_pushnil(L);
  lua_pushstring(L, r.err);
  lua_pushinteger(L, (lua_Integer)r.at);
  return 3;
}

/* ---- the file ---------------------------------------------------------- */

/* core.animc_write(stats, table bytes, pack) -> the file's bytes; stats
 * = { error, distance, worst, p99, bytes raw }. */
static int animc_write(lua_State *L) {
  double st[ANIM_ANIMC_NSTATS];
  size_t tlen, plen, size;
  const char *tb, *pk;
  unsigned char *out;
  int i;
  luaL_checktype(L, 1, LUA_TTABLE);
  tb = luaL_checklstring(L, 2, &tlen);
  pk = luaL_checklstring(L, 3, &plen);
  if (tlen > 0xffffffffUL || plen > 0xffffffffUL - tlen - 64) return luaL_error(L, ".animc: too large");
  for (i = 0; i < ANIM_ANIMC_NSTATS; i++) {
    lua_rawgeti(L, 1, i + 1);
    st[i] = lua_tonumber(L, -1);
    if (!isfinite(st[i]) || st[i] < 0) st[i] = 0;
    lua_pop(L, 1);
  }
  size = anim_animc_size(tlen, plen);
  out = lua_newuserdatauv(L, size, 0);
  anim_animc_write(out, st, (const unsigned char *)tb, tlen, (const unsigned char *)pk, plen);
  lua_pushlstring(L, (const char *)out, size);
  return 1;
}

/* core.animc_read(bytes [, max joints]) -> table, pack, stats, pack's
 * offset, longest, deepest, skeleton | nil, message, byte offset.  The
 * pack is checked when a clip takes it (clip_set_packed, whose offsets are
 * the pack's: add the fourth result).  longest: the longest string or key
 * in the table, deepest: its nesting (the top table 1), for the check of
 * the limits (json.check's: the encoding holds no other value it refuses).
 * skeleton: given max joints, the table's skeleton as format/read.lua
 * reads it when it is plain (lua_skeleton.c), else nil. */
static int animc_read(lua_State *L) {
  size_t len, at;
  const unsigned char *p = (const unsigned char *)luaL_checklstring(L, 1, &len);
  lua_Integer max_joints = luaL_optinteger(L, 2, -1);
  anim_animc_parts parts;
  const char *e = anim_animc_split(p, len, &parts, &at);
  rbuf r;
  int i;
  lua_settop(L, 1);
  if (!e) {
    rbuf_init(&r, &parts, 1);
    if (dec(L, &r, 0) && r.o != r.len) { lua_pop(L, 1); fail(&r, "bytes after the table", r.o); }
    if (r.err) e = r.err, at = r.at;
  }
  if (e) {
    lua_settop(L, 1);
    lua_pushnil(L);
    lua_pushstring(L, e);
    lua_pushinteger(L, (lua_Integer)at);
    return 3;
  }
  lua_pushlstring(L, (const char *)parts.pack, parts.plen);
  lua_createtable(L, ANIM_ANIMC_NSTATS, 0);
  for (i = 0; i < ANIM_ANIMC_NSTATS; i++) {
    lua_pushnumber(L, parts.stats[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushinteger(L, (lua_Integer)parts.pack_at);
  lua_pushinteger(L, (lua_Integer)r.longest);
  lua_pushinteger(L, (lua_Integer)r.deepest);
  if (max_joints >= 0 && r.sk_end > 0 && lua_istable(L, 2)) {
    lua_getfield(L, 2, "skeleton");
    if (anim_lua_skeleton_bytes(L, r.p + r.sk_at, r.sk_end - r.sk_at, -1, max_joints)) lua_remove(L, -2);
    else { lua_pop(L, 1); lua_pushnil(L); }
  } else {
    lua_pushnil(L);
  }
  return 7;
}

static int crc32_of(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  lua_pushnumber(L, (lua_Number)anim_crc32((const unsigned char *)s, len));
  return 1;
}

static const luaL_Reg funcs[] = {
  {"pack_write", pack_write},
  {"clip_set_packed", clip_set_packed},
  {"clip_pack", clip_pack},
  {"clip_pack_rate", clip_pack_rate},
  {"clip_pack_channels", clip_pack_channels},
  {"value_encode", value_encode},
  {"value_decode", value_decode},
  {"animc_write", animc_write},
  {"animc_read", animc_read},
  {"crc32", crc32_of},
  {NULL, NULL}
};

void anim_lua_open_animc(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  lua_pushlightuserdata(L, NULL);  /* JSON's null, as lua-cjson decodes it (cjson.null) */
  lua_setfield(L, -2, "null");
}
