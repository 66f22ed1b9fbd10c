/* io/check.c - core.check_tree: the walk over a decoded JSON tree that
 * looks for what the readers' own checks do not (strings over the limit,
 * numbers that are not finite, keys that are neither strings nor array
 * indices, nesting over the limit, values JSON cannot hold), done in C:
 * in Lua it cost more than decoding the text.  It only finds the place;
 * lua/anim/base/json.lua words the message. */
#include <math.h>
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/codes.h"
#include "lua/lua_helpers.h"
#include "io/io.h"

/* The deepest a tree may be checked to: the hard maximum of
 * anim.limits.depth (lua/anim/base/limits.lua). */
#define MAX_DEPTH 1000

/* What was wrong: ANIM_TREE_* (codes.h; json.lua words the message). */

typedef struct walk {
  lua_State *L;
  size_t max_string;
  int max_depth;
  int path;        /* stack index of the table the failing path is built in */
  int skip;        /* stack index of the set of tables left out, or 0 */
  int code;
} walk;

static int is_null(lua_State *L, int idx) {
  return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == NULL;
}

static int index_key(lua_State *L, int idx) {
  lua_Number k;
  if (lua_isinteger(L, idx)) return lua_tointeger(L, idx) >= 1;
  k = lua_tonumber(L, idx);
  return k >= 1 && k == floor(k) && k < HUGE_VAL;
}

/* Records the key at stack index idx as the next outer step of the path. */
static void add_step(walk *w, int idx) {
  lua_State *L = w->L;
  lua_pushvalue(L, idx);
  lua_rawseti(L, w->path, (lua_Integer)lua_rawlen(L, w->path) + 1);
}

/* The value on the top of the stack, at nesting `depth`: 0 when fine;
 * else 1, with the failing value or key on the top of the stack and the
 * keys leading to it (innermost first) in the path table. */
static int check(walk *w, int depth) {
  lua_State *L = w->L;
  int v = lua_gettop(L);
  switch (lua_type(L, v)) {
    case LUA_TSTRING:
      if (lua_rawlen(L, v) > w->max_string) { w->code = ANIM_TREE_BAD_STRING; return 1; }
      return 0;
    case LUA_TNUMBER:
      if (!lua_isinteger(L, v) && !isfinite(lua_tonumber(L, v))) { w->code = ANIM_TREE_BAD_NUMBER; return 1; }
      return 0;
    case LUA_TBOOLEAN: return 0;
    case LUA_TTABLE: break;
    default:
      if (is_null(L, v)) return 0;
      w->code = ANIM_TREE_BAD_VALUE;
      return 1;
  }
  if (w->skip) {
    int left_out;
    lua_pushvalue(L, v);
    lua_rawget(L, w->skip);
    left_out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (left_out) return 0;
  }
  if (depth > w->max_depth) { w->code = ANIM_TREE_TOO_DEEP; return 1; }
  luaL_checkstack(L, 4, "nested too deep");
  lua_pushnil(L);
  while (lua_next(L, v)) {
    /* key at v + 1, value at v + 2 */
    int tk = lua_type(L, v + 1);
    if (tk == LUA_TSTRING) {
      if (lua_rawlen(L, v + 1) > w->max_string) {
        w->code = ANIM_TREE_BAD_KEY_LENGTH;
        lua_pushvalue(L, v + 1);
        return 1;
      }
    } else if (!(tk == LUA_TNUMBER && index_key(L, v + 1))) {
      w->code = ANIM_TREE_BAD_KEY_TYPE;
      lua_pushvalue(L, v + 1);
      return 1;
    }
    if (lua_type(L, v + 2) == LUA_TNUMBER) {
      /* numbers, the bulk of a clip, without a call */
      if (!lua_isinteger(L, v + 2) && !isfinite(lua_tonumber(L, v + 2))) {
        w->code = ANIM_TREE_BAD_NUMBER;
        add_step(w, v + 1);
        return 1;
      }
    } else if (check(w, depth + 1)) {
      add_step(w, v + 1);
      return 1;
    }
    lua_settop(L, v + 1);
  }
  return 0;
}

/* core.check_tree(v, max_string, max_depth [, skip]) -> nil | code, path,
 * what: path is the keys from the root to the failing value (for a key or
 * for nesting: to its table); what is the failing value or key.  skip: a
 * set of tables inside v not to walk (already checked). */
static int check_tree(lua_State *L) {
  walk w;
  luaL_checkany(L, 1);
  w.L = L;
  w.max_string = (size_t)anim_lua_checkrange(L, 2, 0, ANIM_LUA_IMAX, "max_string");
  /* (the walk recurses once per level: at most the hard maximum of
   * anim.limits.depth, whatever a script asks for) */
  w.max_depth = (int)anim_lua_checkrange(L, 3, 0, MAX_DEPTH, "max_depth");
  w.code = 0;
  if (!lua_isnoneornil(L, 4)) luaL_checktype(L, 4, LUA_TTABLE);
  lua_settop(L, 4);
  w.skip = lua_istable(L, 4) ? 4 : 0;
  lua_newtable(L);
  w.path = 5;
  lua_pushvalue(L, 1);
  if (!check(&w, 1)) return 0;
  {
    /* the path, outermost first (the walk's levels left their keys on
     * the stack, and the room each asked for: three more) */
    lua_Integer n = (lua_Integer)lua_rawlen(L, w.path), i;
    int what = lua_gettop(L);
    luaL_checkstack(L, 3, "nested too deep");
    lua_pushinteger(L, w.code);
    lua_createtable(L, (int)n, 0);
    for (i = 1; i <= n; i++) {
      lua_rawgeti(L, w.path, n - i + 1);
      lua_rawseti(L, -2, i);
    }
    lua_pushvalue(L, what);
    return 3;
  }
}

void anim_lua_open_check(lua_State *L) {
  lua_pushcfunction(L, check_tree);
  lua_setfield(L, -2, "check_tree");
}
