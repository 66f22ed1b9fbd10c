/* io/bytes.c - binary data for the glTF importer and exporter
 * (lua/anim/import/gltf/, lua/anim/export/gltf/): base64 both ways, the elements of an
 * accessor read from a buffer, and numbers written as 32-bit floats.  In
 * Lua, string.unpack per number cost several times the JSON decoding of
 * the same model; here it is one pass.  Little endian whatever the host
 * (glTF 2.0: "All buffer data ... MUST use little endian byte order"). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua/lua_helpers.h"
#include "io/io.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* core.base64_decode(s [, from]) -> bytes | nil, position: the base64 of s
 * from byte `from` (1-based, default 1) to its end (RFC 4648: the
 * alphabet A-Z a-z 0-9 + /; "=" padding, one or two, only at the end and
 * then on a whole quantum of 4; without it the last quantum has 2 or 3
 * characters).  position is the 1-based byte of s where it stops being
 * base64. */
static int base64_decode(lua_State *L) {
  size_t n, i, end, body, out = 0;
  const char *s = luaL_checklstring(L, 1, &n);
  lua_Integer from = anim_lua_optrange(L, 2, 1, 1, (lua_Integer)n + 1, "from");
  unsigned char val[256];
  luaL_Buffer b;
  char *p;
  unsigned long acc = 0;
  int bits = 0;
  size_t pad = 0;
  memset(val, 0xff, sizeof val);
  for (i = 0; i < 64; i++) val[(unsigned char)B64[i]] = (unsigned char)i;
  end = n;
  while (pad < 2 && end > (size_t)from - 1 && s[end - 1] == '=') { end--; pad++; }
  body = end - ((size_t)from - 1);
  p = luaL_buffinitsize(L, &b, body / 4 * 3 + 3);
  for (i = (size_t)from - 1; i < end; i++) {
    unsigned char c = (unsigned char)s[i];
    if (val[c] == 0xff) {
      lua_pushnil(L);
      lua_pushinteger(L, (lua_Integer)i + 1);
      return 2;
    }
    acc = (acc << 6 | val[c]) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      p[out++] = (char)((acc >> bits) & 0xff);
    }
  }
  if (body % 4 == 1 || (pad > 0 && (body + pad) % 4 != 0)) {
    lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
  }
  luaL_pushresultsize(&b, out);
  return 1;
}

/* core.base64_encode(s) -> the base64 of s, padded. */
static int base64_encode(lua_State *L) {
  size_t n, i, o = 0;
  const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, (n + 2) / 3 * 4);
  for (i = 0; i + 2 < n; i += 3) {
    unsigned v = (unsigned)s[i] << 16 | (unsigned)s[i + 1] << 8 | s[i + 2];
    p[o++] = B64[v >> 18]; p[o++] = B64[(v >> 12) & 63]; p[o++] = B64[(v >> 6) & 63]; p[o++] = B64[v & 63];
  }
  if (i < n) {
    unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0);
    p[o++] = B64[v >> 18];
    p[o++] = B64[(v >> 12) & 63];
    p[o++] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
    p[o++] = '=';
  }
  luaL_pushresultsize(&b, o);
  return 1;
}

/* The glTF component types (Specification.adoc, "Accessor Data Types"). */
enum { CT_BYTE = 5120, CT_UBYTE = 5121, CT_SHORT = 5122, CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126 };

static int component_size(int ct) {
  switch (ct) {
    case CT_BYTE: case CT_UBYTE: return 1;
    case CT_SHORT: case CT_USHORT: return 2;
    case CT_UINT: case CT_FLOAT: return 4;
    default: return 0;
  }
}

static unsigned long le32(const unsigned char *p) {
  return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}

/* One component at p.  Normalized integers decode as the specification
 * says (Specification.adoc, "Animations": f = max(c / 127.0, -1.0) for
 * signed bytes, c / 255.0 for unsigned ones, likewise for shorts). */
static double component(const unsigned char *p, int ct, int normalized) {
  switch (ct) {
    case CT_BYTE: {
      int c = p[0] < 128 ? p[0] : p[0] - 256;
      return normalized ? fmax(c / 127.0, -1.0) : c;
    }
    case CT_UBYTE: return normalized ? p[0] / 255.0 : p[0];
    case CT_SHORT: {
      long u = (long)p[0] | (long)p[1] << 8, c = u < 32768 ? u : u - 65536;
      return normalized ? fmax((double)c / 32767.0, -1.0) : (double)c;
    }
    case CT_USHORT: {
      long u = (long)p[0] | (long)p[1] << 8;
      return normalized ? (double)u / 65535.0 : (double)u;
    }
    case CT_UINT: return (double)le32(p);
    default: {
      unsigned long u = le32(p);
      float f;
      unsigned char q[4];
      /* the bits in the host's order (IEEE 754 binary32 assumed, as C99 does
       * where __STDC_IEC_559__: every platform Lua 5.4 runs on here) */
      unsigned long one = 1;
      if (*(const unsigned char *)&one) {
        q[0] = (unsigned char)(u & 0xff); q[1] = (unsigned char)(u >> 8 & 0xff);
        q[2] = (unsigned char)(u >> 16 & 0xff); q[3] = (unsigned char)(u >> 24 & 0xff);
      } else {
        q[3] = (unsigned char)(u & 0xff); q[2] = (unsigned char)(u >> 8 & 0xff);
        q[1] = (unsigned char)(u >> 16 & 0xff); q[0] = (unsigned char)(u >> 24 & 0xff);
      }
      memcpy(&f, q, sizeof f);
      return (double)f;
    }
  }
}

/* core.gltf_unpack(data, offset, count, ctype, rows, cols, stride,
 * normalized) -> numbers, bad
 * The count elements of an accessor: element e starts at byte offset +
 * e * stride (0-based offset into data), holds cols columns of rows
 * components of type ctype, each column starting on a 4-byte boundary
 * within the element (matrices of 1- and 2-byte components are padded:
 * Specification.adoc, "Data Alignment").  numbers: an array of count *
 * rows * cols numbers, element after element, column after column.  bad:
 * the 1-based index of the first that is not finite (NaN, infinity), or
 * nil.  The caller checks the bounds against the glTF file; they are
 * checked again here (an argument error, never a read out of data). */
static int gltf_unpack(lua_State *L) {
  size_t n;
  const unsigned char *d = (const unsigned char *)luaL_checklstring(L, 1, &n);
  /* (each in its range before any arithmetic: off + stride * count must
   * not overflow) */
  lua_Integer off = anim_lua_checkrange(L, 2, 0, (lua_Integer)n, "offset");
  lua_Integer count = anim_lua_checkrange(L, 3, 0, ANIM_MAX_CURVE_KEYS * 3, "count");
  int ct = (int)anim_lua_checkrange(L, 4, 0, 65535, "component type");
  lua_Integer rows = anim_lua_checkrange(L, 5, 1, 4, "rows"), cols = anim_lua_checkrange(L, 6, 1, 4, "columns");
  lua_Integer stride = anim_lua_checkrange(L, 7, 0, 1024, "stride");
  int normalized = lua_toboolean(L, 8), cs = component_size(ct);
  lua_Integer e, r, c, k = 0, bad = 0, colstride, need;
  luaL_argcheck(L, cs > 0, 4, "unknown component type");
  colstride = cols > 1 ? (rows * cs + 3) / 4 * 4 : rows * cs;
  need = count == 0 ? 0 : off + stride * (count - 1) + colstride * (cols - 1) + rows * cs;
  luaL_argcheck(L, off >= 0 && need <= (lua_Integer)n, 2, "the elements run past the data");
  lua_createtable(L, (int)(count * rows * cols), 0);
  for (e = 0; e < count; e++) {
    const unsigned char *base = d + off + e * stride;
    for (c = 0; c < cols; c++)
      for (r = 0; r < rows; r++) {
        double v = component(base + c * colstride + r * cs, ct, normalized);
        if (!bad && !isfinite(v)) bad = k + 1;
        lua_pushnumber(L, v);
        lua_rawseti(L, -2, ++k);
      }
  }
  if (bad) lua_pushinteger(L, bad); else lua_pushnil(L);
  return 2;
}

/* core.gltf_pack_floats(numbers [, from, to]) -> bytes | nil, index
 * The numbers from..to (default the whole array) as little-endian 32-bit
 * floats, each rounded to the nearest; nil and the index of the first
 * that is not finite or too large for a float. */
static int gltf_pack_floats(lua_State *L) {
  lua_Integer from, to, i;
  luaL_Buffer b;
  char *p;
  luaL_checktype(L, 1, LUA_TTABLE);
  from = anim_lua_optrange(L, 2, 1, 1, ANIM_LUA_IMAX, "from");
  to = anim_lua_optrange(L, 3, (lua_Integer)lua_rawlen(L, 1), 0, ANIM_LUA_IMAX, "to");
  luaL_argcheck(L, from >= 1 && to >= from - 1 && to - from < (lua_Integer)1 << 28, 3, "range out of bounds");
  p = luaL_buffinitsize(L, &b, (size_t)(to - from + 1) * 4);
  for (i = from; i <= to; i++) {
    double x;
    float f;
    unsigned char q[4];
    unsigned long u, one = 1;
    lua_rawgeti(L, 1, i);
    x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!isfinite(x) || fabs(x) > FLT_MAX) {
      lua_pushnil(L);
      lua_pushinteger(L, i);
      return 2;
    }
    f = (float)x;
    memcpy(q, &f, sizeof f);
    if (*(const unsigned char *)&one) u = (unsigned long)q[0] | (unsigned long)q[1] << 8 | (unsigned long)q[2] << 16 | (unsigned long)q[3] << 24;
    else u = (unsigned long)q[3] | (unsigned long)q[2] << 8 | (unsigned long)q[1] << 16 | (unsigned long)q[0] << 24;
    p[(i - from) * 4] = (char)(u & 0xff);
    p[(i - from) * 4 + 1] = (char)(u >> 8 & 0xff);
    p[(i - from) * 4 + 2] = (char)(u >> 16 & 0xff);
    p[(i - from) * 4 + 3] = (char)(u >> 24 & 0xff);
  }
  luaL_pushresultsize(&b, (size_t)(to - from + 1) * 4);
  return 1;
}

/* core.gltf_pack_shorts(values) -> bytes
 * Values of a normalized short (each n / 32767, as keys.lua's short_quat
 * makes them) as glTF's little-endian SHORT: n = floor(x * 32767 + 0.5),
 * negative ones as their 16-bit complement.  The same arithmetic as the Lua
 * it replaces (export/gltf/keys.lua's pack_shorts), without a string a
 * value; a value out of a short's range is an argument error. */
static int gltf_pack_shorts(lua_State *L) {
  lua_Integer n, i;
  luaL_Buffer b;
  char *p;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 1);
  luaL_argcheck(L, n < (lua_Integer)1 << 28, 1, "too many values");
  p = luaL_buffinitsize(L, &b, (size_t)n * 2);
  for (i = 1; i <= n; i++) {
    double x, k;
    long u;
    lua_rawgeti(L, 1, i);
    x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    k = floor(x * 32767.0 + 0.5);
    /* (the range tested before the complement: 2 would wrap to -2) */
    if (!(k >= -32768 && k <= 32767)) return luaL_argerror(L, 1, "a value out of a normalized short's range");
    if (k < 0) k += 65536;
    u = (long)k;
    p[(i - 1) * 2] = (char)(u & 0xff);
    p[(i - 1) * 2 + 1] = (char)(u >> 8 & 0xff);
  }
  luaL_pushresultsize(&b, (size_t)n * 2);
  return 1;
}

/* core.float32(x) -> the 32-bit float nearest x, as a number (x itself
 * when it is not finite or beyond a float's range: the caller checks). */
static int float32(lua_State *L) {
  double x = luaL_checknumber(L, 1);
  if (isfinite(x) && fabs(x) <= FLT_MAX) x = (double)(float)x;
  lua_pushnumber(L, x);
  return 1;
}

/* core.float_bits(x) -> the bits of the 32-bit float nearest x, as a
 * signed 32-bit integer (string.pack("<f") read back as "<i4");
 * core.float_from_bits(b) -> that float. */
static int float_bits(lua_State *L) {
  float f = (float)luaL_checknumber(L, 1);
  uint32_t w;
  memcpy(&w, &f, sizeof w);  /* the same bytes, read as an integer */
  lua_pushinteger(L, w >= 0x80000000UL ? (lua_Integer)w - (lua_Integer)0x100000000LL : (lua_Integer)w);
  return 1;
}

static int float_from_bits(lua_State *L) {
  /* (the 32 bits as a signed or an unsigned integer: nothing else wraps) */
  lua_Integer b = anim_lua_checkrange(L, 1, -(lua_Integer)0x80000000LL, (lua_Integer)0xffffffffLL, "bits");
  uint32_t w = (uint32_t)((unsigned long long)(b < 0 ? b + (lua_Integer)0x100000000LL : b) & 0xffffffffULL);
  float f;
  memcpy(&f, &w, sizeof f);
  lua_pushnumber(L, (lua_Number)f);
  return 1;
}

static const luaL_Reg bytes_funcs[] = {
  {"float_bits", float_bits},
  {"float_from_bits", float_from_bits},
  {"base64_decode", base64_decode},
  {"base64_encode", base64_encode},
  {"gltf_unpack", gltf_unpack},
  {"gltf_pack_floats", gltf_pack_floats},
  {"gltf_pack_shorts", gltf_pack_shorts},
  {"float32", float32},
  {NULL, NULL}
};

void anim_lua_open_bytes(lua_State *L) { luaL_setfuncs(L, bytes_funcs, 0); }
