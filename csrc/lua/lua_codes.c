/* lua_codes.c - anim.core.codes: every list of csrc/core/codes.h as a
 * read-only table, codes[group][name] = value (integers; the "float" group
 * holds the constants that are not).  lua/anim/base/codes.lua is its one
 * reader on the Lua side.  Read-only: each group is an empty proxy whose
 * __index is the real table, so that no script can change a number the
 * core relies on; __pairs and __len let it be walked like a table, and
 * core.codes_copy() gives a plain copy where they are not honoured. */
#include "lua.h"
#include "lauxlib.h"

#include "core/codes.h"
#include "lua_helpers.h"

typedef struct { const char *name; lua_Integer value; } code_entry;
typedef struct { const char *group; const code_entry *entries; } code_group;

#define ENTRY(id, name, value) { name, value },
#define GROUP_ARRAY(gname, LIST) static const code_entry LIST##_entries[] = { LIST(ENTRY) { NULL, 0 } };
ANIM_CODE_GROUPS(GROUP_ARRAY)
#define GROUP(gname, LIST) { gname, LIST##_entries },
static const code_group groups[] = { ANIM_CODE_GROUPS(GROUP) { NULL, NULL } };

static const struct { const char *name; double value; } floats[] = {
#define FLOAT_ENTRY(id, name, value) { name, value },
  ANIM_FLOAT_CODES(FLOAT_ENTRY)
  { NULL, 0 }
};

/* Pushes a plain table of every group. */
static void push_plain(lua_State *L) {
  int g, i;
  lua_newtable(L);
  for (g = 0; groups[g].group; g++) {
    lua_newtable(L);
    for (i = 0; groups[g].entries[i].name; i++) {
      lua_pushinteger(L, groups[g].entries[i].value);
      lua_setfield(L, -2, groups[g].entries[i].name);
    }
    lua_setfield(L, -2, groups[g].group);
  }
  lua_newtable(L);
  for (i = 0; floats[i].name; i++) {
    lua_pushnumber(L, floats[i].value);
    lua_setfield(L, -2, floats[i].name);
  }
  lua_setfield(L, -2, "float");
}

static int codes_copy(lua_State *L) {
  push_plain(L);
  return 1;
}

static int refuse(lua_State *L) {
  return luaL_error(L, "anim.core.codes is read-only (csrc/core/codes.h defines the codes)");
}

/* __pairs of a proxy: next over the table behind it. */
static int proxy_pairs(lua_State *L) {
  lua_getglobal(L, "next");
  luaL_getmetafield(L, 1, "__index");
  lua_pushnil(L);
  return 3;
}

static int proxy_len(lua_State *L) {
  luaL_getmetafield(L, 1, "__index");
  lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
  return 1;
}

/* Replaces the table on the top of the stack with a read-only proxy. */
static void make_readonly(lua_State *L) {
  lua_newtable(L);                 /* the proxy */
  lua_createtable(L, 0, 5);        /* its metatable */
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, refuse);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, proxy_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushcfunction(L, proxy_len);
  lua_setfield(L, -2, "__len");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

void anim_lua_open_codes(lua_State *L) {
  push_plain(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {        /* each group becomes a proxy */
    make_readonly(L);
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  make_readonly(L);
  lua_setfield(L, -2, "codes");
  lua_pushcfunction(L, codes_copy);
  lua_setfield(L, -2, "codes_copy");
}
