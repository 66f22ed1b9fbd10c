/* lua_anim.c - luaopen_anim_core: the C module `anim.core`.  The friendly
 * API lives in lua/anim/init.lua; this module holds the per-frame work. */
/* realpath(3) is POSIX (XSI) */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_anim.h"

int luaopen_anim_core(lua_State *L);

anim_mem anim_lua_mem(lua_State *L) {
  anim_mem m;
  m.f = (anim_alloc_fn)lua_getallocf(L, &m.ud);
  return m;
}

int anim_lua_nomem(lua_State *L) {
  return luaL_error(L, "not enough memory");
}

/* core.realpath(path) -> the canonical absolute path | nil, message: the
 * library uses it to refuse res:// paths that leave its root (symlinks). */
static int realpath_l(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  char *r = realpath(p, NULL);
  if (!r) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  lua_pushstring(L, r);
  free(r);
  return 1;
}

/* core.file_kind(path) -> "file" | "directory" | "other" | nil: what a path
 * names after following links (anim.save refuses to replace a non-file). */
static int file_kind(lua_State *L) {
  struct stat st;
  if (stat(luaL_checkstring(L, 1), &st) != 0) { lua_pushnil(L); return 1; }
  lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" : "other");
  return 1;
}

int luaopen_anim_core(lua_State *L) {
  lua_newtable(L);
  anim_lua_open_clip(L);
  anim_lua_open_animator(L);
  anim_lua_open_check(L);
  lua_pushcfunction(L, realpath_l);
  lua_setfield(L, -2, "realpath");
  lua_pushcfunction(L, file_kind);
  lua_setfield(L, -2, "file_kind");
  return 1;
}
