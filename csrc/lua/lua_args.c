/* lua_args.c - the argument checks of every binding file
 * (lua_helpers.h): "bad argument #n to 'name' (why)" at the caller's line,
 * naming a method as scripts know it (anim_lua_setmethods); integers
 * checked, not cast; numbers to and from arrays. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* ---- argument checks ---------------------------------------------------------- */

/* The registry's table of the C functions that are methods: function ->
 * the method's name (anim_lua_setmethods). */
#define METHOD_NAMES "anim.method_names"

/* The name of the running C function as a method, pushed (with the
 * function and the table under it), or NULL, nothing pushed, when it is no
 * method.  The function is the one running, found by the stack, not by
 * the name the call site used: a.get(a, x), a[k](a, x) or a hoisted get
 * all name 'get'. */
static const char *running_method(lua_State *L, int *colon) {
  lua_Debug ar;
  luaL_checkstack(L, 3, NULL);
  if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "nf", &ar)) return NULL;
  *colon = ar.namewhat && strcmp(ar.namewhat, "method") == 0;
  lua_getfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushvalue(L, -2);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return NULL;
}

/* A method counts its arguments after self, whatever form the call took
 * (luaL_argerror counts so for a:m(x) alone, and names what the call site
 * wrote: 'anim.core.animator_get' under a pcall, '?' for a[k](a, x)).  Its
 * self is "bad self" in the colon form, argument #1 in the others, as
 * luaL_argerror says it. */
int anim_lua_argerror(lua_State *L, int arg, const char *fmt, ...) {
  va_list ap;
  const char *msg, *name;
  int colon = 0;
  va_start(ap, fmt);
  msg = lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  name = running_method(L, &colon);
  if (!name) return luaL_argerror(L, arg, msg);
  luaL_where(L, 1);
  if (arg == 1 && colon) lua_pushfstring(L, "calling '%s' on bad self (%s)", name, msg);
  else lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg == 1 ? 1 : arg - 1, name, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

void anim_lua_setmethods(lua_State *L, const char *table, const anim_lua_method *list, int nup) {
  int i;
  luaL_checkstack(L, nup + 4, "too many upvalues");
  /* under the upvalues: the module, then (pushed) the registry's names and
   * the class's method table */
  lua_getfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  }
  if (lua_getfield(L, -(nup + 2), table) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, -(nup + 4), table);
  }
  for (; list->name; list++) {
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup - 2);  /* the upvalues */
    lua_pushcclosure(L, list->fn, nup);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, list->method);
    lua_pushvalue(L, -1);
    lua_pushstring(L, list->method);
    lua_rawset(L, -5);
    lua_setfield(L, -(nup + 4), list->name);
  }
  lua_pop(L, nup + 2);
}

const char *anim_lua_typename(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
    /* (a script's __name: quoted as user data is, left on the stack) */
    if (lua_type(L, -1) == LUA_TSTRING) return anim_lua_shown(L, -1);
    lua_pop(L, 1);
  }
  return luaL_typename(L, idx);
}

/* "what v out of range lo..hi" (v already on the stack as a string). */
static int out_of_range(lua_State *L, int arg, const char *what, const char *v, lua_Integer lo, lua_Integer hi) {
  const char *l = anim_lua_pushint(L, lo), *h = anim_lua_pushint(L, hi);
  return anim_lua_argerror(L, arg, "%s %s out of range %s..%s", what, v, l, h);
}

lua_Integer anim_lua_checkrange(lua_State *L, int arg, lua_Integer lo, lua_Integer hi, const char *what) {
  lua_Number x;
  /* 2^(bits - 1): every double in [-top, top) is a lua_Integer, exactly */
  const lua_Number top = ldexp(1.0, (int)(sizeof(lua_Integer) * CHAR_BIT) - 1);
  if (lua_type(L, arg) != LUA_TNUMBER)
    anim_lua_argerror(L, arg, "%s expected, got %s", what, anim_lua_typename(L, arg));
  if (lua_isinteger(L, arg)) {  /* 5.3+: an integer, exact at any size */
    lua_Integer k = lua_tointeger(L, arg);
    if (k < lo || k > hi) out_of_range(L, arg, what, anim_lua_pushint(L, k), lo, hi);
    return k;
  }
  /* a float (every number before 5.3): integral and within the range,
   * compared as doubles before any cast (a cast of NaN, of an infinity
   * or of 2^63 is undefined: never made) */
  x = lua_tonumber(L, arg);
  if (x != x) anim_lua_argerror(L, arg, "%s must be an integer, got nan", what);
  if (x != floor(x)) anim_lua_argerror(L, arg, "%s must be an integer, got %s", what, lua_tostring(L, arg));
  if (x >= -top && x < top && x >= (lua_Number)lo && x <= (lua_Number)hi) {
    lua_Integer k = (lua_Integer)x;
    /* ((lua_Number)hi may round up: the integer is compared too) */
    if (k >= lo && k <= hi) return k;
  }
  if (x >= -9007199254740992.0 && x <= 9007199254740992.0)  /* 2^53: exact as an integer */
    return out_of_range(L, arg, what, anim_lua_pushint(L, (lua_Integer)x), lo, hi);
  return out_of_range(L, arg, what, lua_tostring(L, arg), lo, hi);
}

lua_Integer anim_lua_optrange(lua_State *L, int arg, lua_Integer dflt, lua_Integer lo, lua_Integer hi, const char *what) {
  return lua_isnoneornil(L, arg) ? dflt : anim_lua_checkrange(L, arg, lo, hi, what);
}

void anim_lua_fillnumbers(lua_State *L, const double *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

void anim_lua_pushnumbers(lua_State *L, const double *v, size_t n) {
  lua_createtable(L, (int)n, 0);
  anim_lua_fillnumbers(L, v, n);
}
