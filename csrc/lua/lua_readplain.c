/* lua_readplain.c - core.plain_tables: the joints of a compressed clip's
 * table (every one an empty object: its keys are in the pack) and the
 * tables lua/anim/format/read.lua's read_plain makes of them, made in C
 * (issue 41: a small .animc's load was mostly its table's reading). */
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

#if LUA_VERSION_NUM >= 502
#define LESS(L, a, b) lua_compare(L, a, b, LUA_OPLT)
#else
#define LESS(L, a, b) lua_lessthan(L, a, b)
#endif

/* Names sorted on the C stack (more: in a userdata). */
#define ON_STACK 64

typedef struct {
  const char *s;
  size_t len;
} pl_name;

/* Byte order: Lua's string order in the C locale (checked name by name
 * with Lua's < below, so that the order is table.sort's in any locale or
 * the table is left to read.lua). */
static int name_cmp(const void *a, const void *b) {
  const pl_name *x = a, *y = b;
  return anim_lua_bytes_cmp(x->s, x->len, y->s, y->len);
}

/* The count of joints at 1 when every one is an empty table of no
 * metatable named by a string, else -1. */
static long count_empty(lua_State *L) {
  long n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TTABLE || lua_getmetatable(L, -1)) return -1;
    lua_pushnil(L);
    if (lua_next(L, -2)) return -1;
    lua_pop(L, 1);
    n++;
  }
  return n;
}

static void set_new_table(lua_State *L, int t, const char *k) {
  lua_newtable(L);
  lua_setfield(L, t, k);
}

static void set_string(lua_State *L, int t, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, t, k);
}

/* desc's and info's fields that read_plain does not set, pushed: desc
 * then info, with the joints' tables at dt and the names at nt. */
static void push_tables(lua_State *L, int dt, int nt) {
  int d, i;
  lua_createtable(L, 0, 8);
  d = lua_gettop(L);
  lua_pushvalue(L, dt);
  lua_setfield(L, d, "joints");
  set_new_table(L, d, "items");
  lua_pushinteger(L, 0);
  lua_setfield(L, d, "priority");
  lua_pushinteger(L, 1);
  lua_setfield(L, d, "speed");
  lua_createtable(L, 0, 21);
  i = d + 1;
  lua_pushvalue(L, nt);
  lua_setfield(L, i, "joints");
  set_new_table(L, i, "compact");
  set_new_table(L, i, "markers");
  set_new_table(L, i, "events");
  set_new_table(L, i, "sounds");
  set_new_table(L, i, "plays");
  set_string(L, i, "layout", "curves");
  set_string(L, i, "blend", "normal");
  set_string(L, i, "space", "body");
  lua_pushinteger(L, 0);
  lua_setfield(L, i, "priority");
  lua_pushinteger(L, 1);
  lua_setfield(L, i, "speed");
  lua_pushboolean(L, 0);
  lua_setfield(L, i, "autoplay");
}

/* core.plain_tables(joints, max joints) -> desc, info | nil.  joints: a
 * table of no metatable, every key a string and every value an empty
 * table of no metatable, at most max of them, whose names Lua's < puts in
 * their bytes' order (else nil: read.lua reads the table).  desc = {
 * joints = { { name = n }, ... }, items = {}, priority = 0, speed = 1 },
 * info = { joints = { n, ... }, compact = {}, markers = {}, events = {},
 * sounds = {}, plays = {}, layout = "curves", blend = "normal", space =
 * "body", priority = 0, speed = 1, autoplay = false }, the names sorted;
 * read.lua's read_plain sets the rest. */
static int plain_tables(lua_State *L) {
  lua_Integer max = luaL_checkinteger(L, 2);
  pl_name stack[ON_STACK], *ns = stack;
  long n, i;
  int nt, dt;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (lua_getmetatable(L, 1)) return 0;
  n = count_empty(L);
  if (n < 0 || n > max) return 0;
  lua_settop(L, 2);
  if (n > ON_STACK) ns = lua_newuserdatauv(L, sizeof *ns * (size_t)n, 0);
  i = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) && i < n) {
    lua_pop(L, 1);
    ns[i].s = lua_tolstring(L, -1, &ns[i].len); /* (the key, held by the table) */
    i++;
  }
  lua_settop(L, n > ON_STACK ? 3 : 2);
  qsort(ns, (size_t)n, sizeof *ns, name_cmp);
  luaL_checkstack(L, 8, "plain_tables");
  lua_createtable(L, (int)n, 0);
  nt = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  dt = nt + 1;
  for (i = 0; i < n; i++) {
    lua_pushlstring(L, ns[i].s, ns[i].len);
    if (i > 0) {
      int less;
      lua_rawgeti(L, nt, (lua_Integer)i);
      less = LESS(L, -1, -2);
      lua_pop(L, 1);
      if (!less) return 0;
    }
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "name");
    lua_rawseti(L, dt, (lua_Integer)i + 1);
    lua_rawseti(L, nt, (lua_Integer)i + 1);
  }
  push_tables(L, dt, nt);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"plain_tables", plain_tables},
  {NULL, NULL}
};

void anim_lua_open_readplain(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
