/* lua_buffer.c - the module buffer (lua_buffer.h): anim.buffer(n [, kind]),
 * #buf, buf[i] read and written (1-based, checked), buf:pointer(),
 * buf:string([i [, j]]), buf.kind, anim.is_buffer(v).
 *
 * One userdata block holds the header and the elements after it, so the
 * collector counts every byte (no separate allocation to account for,
 * nothing to free in a __gc, no pointer that dangles when the buffer is
 * collected while C code holds the block: it holds the block).  A block is
 * taken as a buffer only with the buffer metatable, its tag, its size
 * (header + n elements) and its data pointer pointing into itself: a
 * userdata given the metatable by debug.setmetatable is refused. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"
#include "lua_buffer.h"

#define BUFFER_TAG 0x616e6266u

typedef struct {
  anim_lua_buffer b;  /* first: a block's address is its anim_lua_buffer's */
  unsigned tag;
  double elems[1];    /* the elements start here (aligned for doubles) */
} buffer_block;

#define HEADER offsetof(buffer_block, elems)
#define ELEM_SIZE(is_double) ((is_double) ? sizeof(double) : sizeof(float))
/* the block of n elements (never less than the struct: 0 elements too) */
static size_t block_size(size_t n, int is_double) {
  size_t size = HEADER + n * ELEM_SIZE(is_double);
  return size < sizeof(buffer_block) ? sizeof(buffer_block) : size;
}

anim_lua_buffer *anim_lua_tobuffer(lua_State *L, int idx) {
  buffer_block *k = lua_touserdata(L, idx);
  size_t len;
  if (!k || lua_type(L, idx) != LUA_TUSERDATA) return NULL;
  len = lua_rawlen(L, idx);
  /* (the size before anything is read: a smaller userdata may not hold a header) */
  if (len < sizeof(buffer_block) || k->tag != BUFFER_TAG || k->b.data != (void *)k->elems ||
      k->b.n > ANIM_LUA_BUFFER_MAX || len != block_size(k->b.n, k->b.is_double))
    return NULL;
  if (!luaL_testudata(L, idx, ANIM_BUFFER_MT)) return NULL;
  return &k->b;
}

anim_lua_buffer *anim_lua_newbuffer(lua_State *L, size_t n, int is_double) {
  buffer_block *k;
  size_t size;
  if (n > ANIM_LUA_BUFFER_MAX) luaL_error(L, "a buffer holds at most %d elements", (int)ANIM_LUA_BUFFER_MAX);
  size = block_size(n, is_double);
  /* (raises the memory error itself when the allocation fails) */
  k = lua_newuserdatauv(L, size, 0);
  memset(k, 0, size);
  k->b.n = n;
  k->b.is_double = is_double != 0;
  k->b.data = k->elems;
  k->tag = BUFFER_TAG;
  luaL_setmetatable(L, ANIM_BUFFER_MT);
  return &k->b;
}

static const char *kind_name(const anim_lua_buffer *b) { return b->is_double ? "double" : "float"; }

static anim_lua_buffer *check_self(lua_State *L) {
  anim_lua_buffer *b = anim_lua_tobuffer(L, 1);
  if (!b) anim_lua_argerror(L, 1, "anim.buffer expected, got %s", anim_lua_typename(L, 1));
  return b;
}

/* The 0-based element of the 1-based index at idx for a buffer of b->n
 * elements, or raises naming the index and the size. */
static size_t check_index(lua_State *L, const anim_lua_buffer *b, int idx) {
  double x;
  if (lua_type(L, idx) != LUA_TNUMBER)
    return (size_t)luaL_error(L, "anim.buffer index must be a number, got %s (buffer of %d %ss)",
      anim_lua_typename(L, idx), (int)b->n, kind_name(b));
  /* (as a double: an integer beyond 2^53 is out of range all the same;
   * NaN is no integer) */
  x = (double)lua_tonumber(L, idx);
  if (x != floor(x))
    return (size_t)luaL_error(L, "anim.buffer index %s is not an integer (buffer of %d %ss)",
      lua_tostring(L, idx), (int)b->n, kind_name(b));
  if (x < 1 || x > (double)b->n)
    return (size_t)luaL_error(L, "anim.buffer index %s out of range 1..%d (buffer of %d %ss)",
      lua_tostring(L, idx), (int)b->n, (int)b->n, kind_name(b));
  return (size_t)x - 1;
}

/* A double stored as a float: beyond the float range it is the infinity
 * of its sign (a conversion out of range is undefined in C). */
static float to_float(double v) {
  if (v > FLT_MAX) return (float)HUGE_VAL;
  if (v < -FLT_MAX) return (float)-HUGE_VAL;
  return (float)v;
}

static const char *const FIELDS[] = { "kind", "pointer", "string" };

/* buf[i] (an element), buf.kind, buf:pointer, buf:string: upvalue 1 the
 * method table */
static int buffer_index(lua_State *L) {
  anim_lua_buffer *b = check_self(L);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2), *hint;
    if (strcmp(k, "kind") == 0) { lua_pushstring(L, kind_name(b)); return 1; }
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    hint = anim_lua_suggest(k, FIELDS, 3);
    k = anim_lua_shown(L, 2);
    if (hint) return luaL_error(L, "no field '%s' on anim.buffer; did you mean '%s'?", k, hint);
    return luaL_error(L, "no field '%s' on anim.buffer (its fields: kind, pointer, string)", k);
  } else {
    size_t i = check_index(L, b, 2);
    lua_pushnumber(L, b->is_double ? ((double *)b->data)[i] : (double)((float *)b->data)[i]);
    return 1;
  }
}

/* buf[i] = v: v a number, stored as the buffer's kind */
static int buffer_newindex(lua_State *L) {
  anim_lua_buffer *b = check_self(L);
  size_t i;
  double v;
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = anim_lua_shown(L, 2);
    return luaL_error(L, "cannot set field '%s' of anim.buffer (only its elements buf[i] are written)", k);
  }
  i = check_index(L, b, 2);
  if (lua_type(L, 3) != LUA_TNUMBER)
    return luaL_error(L, "anim.buffer[%d] = value: number expected, got %s (buffer of %d %ss)", (int)i + 1,
      anim_lua_typename(L, 3), (int)b->n, kind_name(b));
  v = lua_tonumber(L, 3);
  if (b->is_double) ((double *)b->data)[i] = v;
  else ((float *)b->data)[i] = to_float(v);
  return 0;
}

static int buffer_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_self(L)->n);
  return 1;
}

static int buffer_tostring(lua_State *L) {
  anim_lua_buffer *b = check_self(L);
  lua_pushfstring(L, "anim.buffer (%d %ss): %p", (int)b->n, kind_name(b), b->data);
  return 1;
}

/* buf:pointer() -> light userdata: the first element (LuaJIT's FFI, a C
 * engine); valid while the buffer is alive */
static int buffer_pointer(lua_State *L) {
  lua_pushlightuserdata(L, check_self(L)->data);
  return 1;
}

/* buf:string([i [, j]]) -> the bytes of elements i..j (default 1..#buf),
 * in the machine's byte order; i..j empty when j = i - 1 */
static int buffer_string(lua_State *L) {
  anim_lua_buffer *b = check_self(L);
  lua_Integer n = (lua_Integer)b->n;
  lua_Integer i = anim_lua_optrange(L, 2, 1, 1, n + 1, "first index");
  lua_Integer j = anim_lua_optrange(L, 3, n, i - 1, n, "last index");
  size_t es = ELEM_SIZE(b->is_double);
  lua_pushlstring(L, (const char *)b->data + (size_t)(i - 1) * es, (size_t)(j - i + 1) * es);
  return 1;
}

/* core.buffer(n [, kind]) -> buffer */
static int buffer_new(lua_State *L) {
  lua_Integer n = anim_lua_checkrange(L, 1, 0, (lua_Integer)ANIM_LUA_BUFFER_MAX, "element count");
  int is_double = 0;
  if (!lua_isnoneornil(L, 2)) {
    static const char *const KINDS[] = { "float", "double" };
    const char *s, *hint;
    if (lua_type(L, 2) != LUA_TSTRING)
      return anim_lua_argerror(L, 2, "'float' or 'double' expected, got %s", anim_lua_typename(L, 2));
    s = lua_tostring(L, 2);
    if (strcmp(s, "double") == 0) is_double = 1;
    else if (strcmp(s, "float") != 0) {
      hint = anim_lua_suggest(s, KINDS, 2);
      s = anim_lua_shown(L, 2);
      if (hint) return anim_lua_argerror(L, 2, "unknown kind '%s'; did you mean '%s'?", s, hint);
      return anim_lua_argerror(L, 2, "unknown kind '%s' (expected 'float' or 'double')", s);
    }
  }
  anim_lua_newbuffer(L, (size_t)n, is_double);
  return 1;
}

/* core.buffer_from(numbers, kind) -> buffer: a new buffer of the #numbers
 * numbers of an array (read raw; a value not a number is 0: the callers
 * give arrays of numbers), for the importers (lua/anim/import/gltf). */
static int buffer_from(lua_State *L) {
  size_t n, i;
  anim_lua_buffer *b;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = (size_t)lua_rawlen(L, 1);
  b = anim_lua_newbuffer(L, n, lua_toboolean(L, 2));
  for (i = 0; i < n; i++) {
    double v;
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (b->is_double) ((double *)b->data)[i] = v;
    else ((float *)b->data)[i] = to_float(v);
  }
  return 1;
}

/* core.is_buffer(v) -> boolean */
static int buffer_is(lua_State *L) {
  lua_pushboolean(L, anim_lua_tobuffer(L, 1) != NULL);
  return 1;
}

static const anim_lua_method methods[] = {
  {"buffer_pointer", "pointer", buffer_pointer},
  {"buffer_string", "string", buffer_string},
  {NULL, NULL, NULL}
};

void anim_lua_open_buffer(lua_State *L) {
  anim_lua_setmethods(L, "buffer_methods", methods, 0);
  lua_pushcfunction(L, buffer_new);
  lua_setfield(L, -2, "buffer");
  lua_pushcfunction(L, buffer_from);
  lua_setfield(L, -2, "buffer_from");
  lua_pushcfunction(L, buffer_is);
  lua_setfield(L, -2, "is_buffer");
  luaL_newmetatable(L, ANIM_BUFFER_MT);
  lua_getfield(L, -2, "buffer_methods");
  lua_pushcclosure(L, buffer_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, buffer_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, buffer_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, buffer_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, ANIM_BUFFER_MT);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
}
