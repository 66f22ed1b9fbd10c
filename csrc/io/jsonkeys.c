/* io/jsonkeys.c - core.json_members: the members of a JSON object in the
 * order of its text.  A decoded object is a Lua table, which keeps no
 * order; the Aseprite importer reads the frames of a sheet's hash form in
 * the file's order (lua/anim/import/aseprite/init.lua).  In Lua the scan took
 * 5 us a frame (1.5 s for a 16 MB sheet), here a few ns a byte.
 *
 * The text is one that cjson accepted, but the scanner trusts nothing of
 * it: every read is bounded by the text's length, nothing recurses (a
 * value is skipped by counting its brackets outside strings), and what it
 * cannot follow gives nil. */
#include <stddef.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua/lua_helpers.h"
#include "io/io.h"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_space(const char *s, size_t n, size_t i) {
  while (i < n && is_space(s[i])) i++;
  return i;
}

/* s[i] is a quote: the index after the closing one, or 0 (none). */
static size_t skip_string(const char *s, size_t n, size_t i) {
  for (i++; i < n; i++) {
    if (s[i] == '\\') i++; /* the escaped byte, whatever it is */
    else if (s[i] == '"') return i + 1;
  }
  return 0;
}

/* The index after the value at i, or 0 (none). */
static size_t skip_value(const char *s, size_t n, size_t i) {
  size_t depth = 0;
  if (i >= n) return 0;
  if (s[i] == '"') return skip_string(s, n, i);
  if (s[i] != '{' && s[i] != '[') {
    size_t j = i;
    while (j < n && !is_space(s[j]) && s[j] != ',' && s[j] != '}' && s[j] != ']') j++;
    return j > i ? j : 0;
  }
  while (i < n) {
    char c = s[i];
    if (c == '"') {
      i = skip_string(s, n, i);
      if (i == 0) return 0;
      continue;
    }
    if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    i++;
  }
  return 0;
}

/* core.json_members(text, pos) -> names, starts | nil: the object whose
 * `{` is at byte pos (1-based) of text; names[i] is the i-th member's name
 * as the text writes it (escapes not decoded), starts[i] the byte where
 * its value starts. */
static int json_members(lua_State *L) {
  size_t n, i;
  const char *s = luaL_checklstring(L, 1, &n);
  lua_Integer pos = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "position");
  lua_Integer k = 0;
  if (pos < 1 || (size_t)(pos - 1) >= n || s[pos - 1] != '{') return 0;
  lua_newtable(L);
  lua_newtable(L);
  i = skip_space(s, n, (size_t)pos);
  if (i < n && s[i] == '}') return 2;
  for (;;) {
    size_t after;
    if (i >= n || s[i] != '"') return 0;
    after = skip_string(s, n, i);
    if (after == 0) return 0;
    lua_pushlstring(L, s + i + 1, after - i - 2);
    lua_rawseti(L, -3, ++k);
    i = skip_space(s, n, after);
    if (i >= n || s[i] != ':') return 0;
    i = skip_space(s, n, i + 1);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_rawseti(L, -2, k);
    i = skip_value(s, n, i);
    if (i == 0) return 0;
    i = skip_space(s, n, i);
    if (i < n && s[i] == '}') return 2;
    if (i >= n || s[i] != ',') return 0;
    i = skip_space(s, n, i + 1);
  }
}

static const luaL_Reg jsonkeys_funcs[] = {
  {"json_members", json_members},
  {NULL, NULL}
};

void anim_lua_open_jsonkeys(lua_State *L) { luaL_setfuncs(L, jsonkeys_funcs, 0); }
