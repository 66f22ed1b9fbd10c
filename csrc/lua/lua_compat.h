/* lua_compat.h - the one place where the Lua versions differ for the
 * binding.  The binding is written against Lua 5.4's API; built against
 * 5.1 (and LuaJIT 2.1, whose API is 5.1's), 5.2 or 5.3 this header gives
 * the 5.4 names it uses their meaning there:
 *   - userdata user values: 5.4 has any number per userdata; before, a
 *     userdata has one (5.2, 5.3: lua_setuservalue; 5.1: its environment
 *     table), which holds a table of them here;
 *   - lua_geti, lua_getfield, lua_rawgeti, lua_rawget and lua_getiuservalue
 *     return the type pushed (5.3+), and luaL_newmetatable sets __name (5.3+); luaL_len, lua_rawlen, luaL_setfuncs, luaL_setmetatable,
 *     luaL_testudata, lua_absindex, lua_copy, luaL_buffinitsize and
 *     luaL_pushresultsize (5.2+);
 *   - integers: 5.1 and 5.2 have no integer subtype, so lua_isinteger is
 *     0 there and the callers read numbers as doubles (lua_args.c);
 *     lua_pushfstring's %I is 5.3+: anim_lua_pushint formats an integer
 *     everywhere; anim_lua_rawgetn and anim_lua_rawsetn take any
 *     lua_Integer key (lua_rawgeti and lua_rawseti take an int before 5.3:
 *     track ids, the slot table's keys).
 * Included by lua_helpers.h, so by every binding file. */
#ifndef ANIM_LUA_COMPAT_H
#define ANIM_LUA_COMPAT_H

#include <stdio.h>

#include "lua.h"
#include "lauxlib.h"

/* A lua_Integer as a string on the stack (a message's number). */
static inline const char *anim_lua_pushint(lua_State *L, lua_Integer v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  lua_pushstring(L, buf);
  return lua_tostring(L, -1);
}

#if LUA_VERSION_NUM < 502
/* ---- 5.1 and LuaJIT ---- */
static inline int anim_compat_absindex(lua_State *L, int i) {
  return (i > 0 || i <= LUA_REGISTRYINDEX) ? i : lua_gettop(L) + i + 1;
}
#define lua_absindex(L, i) anim_compat_absindex(L, i)
#define lua_rawlen(L, i) lua_objlen(L, i)
/* (5.1 has no lua_copy; LuaJIT's is the same as this) */
static inline void anim_compat_copy(lua_State *L, int from, int to) {
  to = anim_compat_absindex(L, to);
  lua_pushvalue(L, from);
  lua_replace(L, to);
}
#define lua_copy(L, from, to) anim_compat_copy(L, from, to)
#define luaL_len(L, i) ((lua_Integer)lua_objlen(L, i))
static inline void anim_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
  luaL_checkstack(L, nup, "too many upvalues");
  for (; l->name; l++) {
    int i;
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, l->func, nup);
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}
#define luaL_setfuncs(L, l, nup) anim_compat_setfuncs(L, l, nup)
#define luaL_setmetatable(L, name) (luaL_getmetatable(L, name), lua_setmetatable(L, -2))
static inline void *anim_compat_testudata(lua_State *L, int i, const char *name) {
  void *p = lua_touserdata(L, i);
  if (p == NULL || !lua_getmetatable(L, i)) return NULL;
  luaL_getmetatable(L, name);
  if (!lua_rawequal(L, -1, -2)) p = NULL;
  lua_pop(L, 2);
  return p;
}
#define luaL_testudata(L, i, name) anim_compat_testudata(L, i, name)
/* A buffer of a known size: 5.1's luaL_Buffer cannot hand out one piece
 * of memory, so the bytes are written in a userdata on the top of the
 * stack (the callers keep the stack as it was in between), then copied
 * into the string. */
static inline char *anim_compat_buffinitsize(lua_State *L, luaL_Buffer *b, size_t size) {
  luaL_buffinit(L, b);
  return (char *)lua_newuserdata(L, size ? size : 1);
}
#define luaL_buffinitsize(L, b, size) anim_compat_buffinitsize(L, b, size)
static inline void anim_compat_pushresultsize(luaL_Buffer *b, size_t n) {
  lua_pushlstring(b->L, (const char *)lua_touserdata(b->L, -1), n);
  lua_remove(b->L, -2);
}
#define luaL_pushresultsize(b, n) anim_compat_pushresultsize(b, n)
#define anim_compat_getuv(L, i) lua_getfenv(L, i)
#define anim_compat_setuv(L, i) lua_setfenv(L, i)
#else
#define anim_compat_getuv(L, i) lua_getuservalue(L, i)
#define anim_compat_setuv(L, i) lua_setuservalue(L, i)
#endif

#if LUA_VERSION_NUM < 503
/* ---- 5.1, LuaJIT, 5.2 ---- */
#define lua_isinteger(L, i) ((void)(L), (void)(i), 0)
/* luaL_newmetatable sets __name from 5.3 on; the messages name values by
 * it ("got anim.clip (finalized)"), so it is set here before. */
static inline int anim_compat_newmetatable(lua_State *L, const char *name) {
  if (!luaL_newmetatable(L, name)) return 0;
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__name");
  return 1;
}
#define luaL_newmetatable(L, name) anim_compat_newmetatable(L, name)
static inline int anim_compat_geti(lua_State *L, int i, lua_Integer n) {
  i = lua_absindex(L, i);
  lua_pushinteger(L, n);
  lua_gettable(L, i);
  return lua_type(L, -1);
}
#define lua_geti(L, i, n) anim_compat_geti(L, i, n)
static inline int anim_compat_getfield(lua_State *L, int i, const char *k) {
  lua_getfield(L, i, k);
  return lua_type(L, -1);
}
#define lua_getfield(L, i, k) anim_compat_getfield(L, i, k)
static inline int anim_compat_rawgeti(lua_State *L, int i, lua_Integer n) {
  lua_rawgeti(L, i, (int)n);
  return lua_type(L, -1);
}
#define lua_rawgeti(L, i, n) anim_compat_rawgeti(L, i, n)
static inline int anim_compat_rawget(lua_State *L, int i) {
  lua_rawget(L, i);
  return lua_type(L, -1);
}
#define lua_rawget(L, i) anim_compat_rawget(L, i)
#endif

#if LUA_VERSION_NUM < 504
/* ---- user values: a table of them as the userdata's one ---- */
static inline void *anim_compat_newuserdatauv(lua_State *L, size_t size, int nuv) {
  void *p = lua_newuserdata(L, size);
  if (nuv > 0) {
    lua_createtable(L, nuv, 0);
    anim_compat_setuv(L, -2);
  }
  return p;
}
#define lua_newuserdatauv(L, size, nuv) anim_compat_newuserdatauv(L, size, nuv)
static inline int anim_compat_getiuservalue(lua_State *L, int i, int n) {
  anim_compat_getuv(L, i);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_pushnil(L);
    return LUA_TNONE;
  }
  lua_rawgeti(L, -1, n);
  lua_remove(L, -2);
  return lua_type(L, -1);
}
#define lua_getiuservalue(L, i, n) anim_compat_getiuservalue(L, i, n)
static inline int anim_compat_setiuservalue(lua_State *L, int i, int n) {
  i = lua_absindex(L, i);
  anim_compat_getuv(L, i);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 2);
    return 0;
  }
  lua_insert(L, -2);
  lua_rawseti(L, -2, n);
  lua_pop(L, 1);
  return 1;
}
#define lua_setiuservalue(L, i, n) anim_compat_setiuservalue(L, i, n)
#endif

/* t[i] raw, pushed (its type returned); t[i] = the value on the top
 * (popped).  Any integer i. */
#if LUA_VERSION_NUM >= 503
#define anim_lua_rawgetn(L, t, i) lua_rawgeti((L), (t), (i))
#define anim_lua_rawsetn(L, t, i) lua_rawseti((L), (t), (i))
#else
static inline int anim_lua_rawgetn(lua_State *L, int t, lua_Integer i) {
  t = lua_absindex(L, t);
  lua_pushinteger(L, i);
  lua_rawget(L, t);
  return lua_type(L, -1);
}
static inline void anim_lua_rawsetn(lua_State *L, int t, lua_Integer i) {
  t = lua_absindex(L, t);
  lua_pushinteger(L, i);
  lua_insert(L, -2);
  lua_rawset(L, t);
}
#endif

#endif
