/* bytedata.c - a test-only Lua module (never installed): a stand-in for
 * LÖVE's ByteData, so that the specs can hand animator:skin and
 * anim.update's `skin` real memory through getPointer and getSize.
 *   local bd = require "bytedata"
 *   local d = bd.new(nbytes)   -- zeroed memory of nbytes
 *   d:getPointer() -> light userdata, d:getSize() -> nbytes
 *   d:float(i) -> the 32-bit float at float index i (0-based), as a number
 *   d:bits(i) -> its bits as an integer (for bit-for-bit comparisons)
 *   d:fill(v)  -- every float set to v */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#define MT "test.bytedata"

typedef struct { size_t size; float f[1]; } bytedata;

static bytedata *check(lua_State *L) { return luaL_checkudata(L, 1, MT); }

static int bd_new(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  bytedata *d;
  luaL_argcheck(L, n >= 0 && n <= (1 << 28), 1, "size out of range");
  d = lua_newuserdata(L, offsetof(bytedata, f) + (size_t)n + sizeof(float));
  memset(d, 0, offsetof(bytedata, f) + (size_t)n + sizeof(float));
  d->size = (size_t)n;
  luaL_getmetatable(L, MT);
  lua_setmetatable(L, -2);
  return 1;
}

static int bd_pointer(lua_State *L) { lua_pushlightuserdata(L, check(L)->f); return 1; }
static int bd_size(lua_State *L) { lua_pushinteger(L, (lua_Integer)check(L)->size); return 1; }

static float *at(lua_State *L) {
  bytedata *d = check(L);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 0 && (size_t)i < d->size / sizeof(float), 2, "float index out of range");
  return &d->f[i];
}
static int bd_float(lua_State *L) { lua_pushnumber(L, *at(L)); return 1; }
static int bd_bits(lua_State *L) {
  unsigned int u;
  memcpy(&u, at(L), sizeof u);
  lua_pushinteger(L, (lua_Integer)u);
  return 1;
}
static int bd_fill(lua_State *L) {
  bytedata *d = check(L);
  float v = (float)luaL_checknumber(L, 2);
  size_t i;
  for (i = 0; i < d->size / sizeof(float); i++) d->f[i] = v;
  return 0;
}

static const luaL_Reg methods[] = {
  {"getPointer", bd_pointer}, {"getSize", bd_size}, {"float", bd_float}, {"bits", bd_bits}, {"fill", bd_fill},
  {NULL, NULL}
};

int luaopen_bytedata(lua_State *L);
int luaopen_bytedata(lua_State *L) {
  if (luaL_newmetatable(L, MT)) {
    const luaL_Reg *m;
    lua_newtable(L);
    /* (no luaL_setfuncs: 5.1 and LuaJIT have none) */
    for (m = methods; m->name; m++) {
      lua_pushcfunction(L, m->func);
      lua_setfield(L, -2, m->name);
    }
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushcfunction(L, bd_new);
  lua_setfield(L, -2, "new");
  return 1;
}
