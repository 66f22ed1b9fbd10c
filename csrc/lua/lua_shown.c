/* lua_shown.c - user data as messages quote it: the one rule, for the
 * binding's messages (anim_lua_pushshown) and for the Lua side's
 * (core.shown, which lua/anim/base/errors.lua's E.shown, E.cut and E.key
 * call).
 *
 * A name, key, path or value that came from a file, a state or a script
 * is written with its control bytes escaped (\n, \r, \t, else \ddd; or all
 * \ddd), and at most ANIM_LUA_SHOWN bytes of it: a longer one is cut
 * (never inside an escape or a UTF-8 sequence) and its length given, "...
 * (N bytes)".  Whatever the data, a message quotes it in bounded bytes,
 * reading at most ANIM_LUA_SHOWN + 1 bytes of it (a joint name of 10 MB
 * of control bytes made a 40 MB message).  A key of a JSON path is the
 * same with `"` and `\` escaped too, inside quotes, in at most KEY_SHOWN
 * bytes (errors.lua's E.key: `joints["a b"]`). */
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

enum { PLAIN, DDD, KEY };
/* the escaped bytes of a key, at most (its quotes and length aside) */
#define KEY_SHOWN 64

static int control(unsigned char c) { return c < 32 || c == 127; }

/* The bytes byte c is written as (at most 4). */
static size_t escape(unsigned char c, int how, char *out) {
  if (how == KEY && (c == '"' || c == '\\')) {
    out[0] = '\\';
    out[1] = (char)c;
    return 2;
  }
  if (!control(c)) { out[0] = (char)c; return 1; }
  if (how != DDD && (c == '\n' || c == '\r' || c == '\t')) {
    out[0] = '\\';
    out[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
    return 2;
  }
  out[0] = '\\';
  out[1] = (char)('0' + c / 100);
  out[2] = (char)('0' + c / 10 % 10);
  out[3] = (char)('0' + c % 10);
  return 4;
}

/* Writes into buf the escapes of as many bytes of s as fit in room bytes
 * (all of s when it fits: returns len), never the start of a UTF-8
 * sequence without its end; returns the bytes of s written, *n the bytes
 * of buf. */
static size_t head(const unsigned char *u, size_t len, int how, size_t room, char *buf, size_t *n) {
  char e[4];
  size_t i;
  *n = 0;
  for (i = 0; i < len; i++) {
    size_t k = escape(u[i], how, e);
    if (*n + k > room) break;
    memcpy(buf + *n, e, k);
    *n += k;
  }
  /* (raw bytes of a sequence the cut falls in: each was written as itself) */
  while (i > 0 && i < len && (u[i] & 0xC0) == 0x80 && u[i - 1] >= 0x80) { i--; (*n)--; }
  return i;
}

static const char *push(lua_State *L, const char *s, size_t len, int how) {
  /* (the escapes, then "... (N bytes)": 20 digits at most, quotes) */
  char buf[ANIM_LUA_SHOWN + 40];
  const unsigned char *u = (const unsigned char *)s;
  size_t n, max = how == KEY ? KEY_SHOWN : ANIM_LUA_SHOWN, at = how == KEY ? 1 : 0;
  /* whole, when it fits escaped (read up to max + 1 bytes: no more is needed to know) */
  if (head(u, len < max + 1 ? len : max + 1, how, max, buf + at, &n) == len) {
    if (how == KEY) { buf[0] = '"'; buf[++n] = '"'; n++; }
    lua_pushlstring(L, buf, n);
    return lua_tostring(L, -1);
  }
  /* cut: the room left for "..." (a key keeps the length outside its quotes) */
  head(u, len, how, how == KEY ? KEY_SHOWN - 4 : ANIM_LUA_SHOWN - 3, buf + at, &n);
  if (how == KEY) { buf[0] = '"'; buf[++n] = '"'; n++; }
  n += (size_t)snprintf(buf + n, sizeof buf - n, "... (%llu bytes)", (unsigned long long)len);
  lua_pushlstring(L, buf, n);
  return lua_tostring(L, -1);
}

const char *anim_lua_pushshown(lua_State *L, const char *s, size_t len, int ddd) {
  return push(L, s, len, ddd ? DDD : PLAIN);
}

const char *anim_lua_shown(lua_State *L, int idx) {
  size_t len;
  const char *s = lua_tolstring(L, idx, &len);
  return push(L, s ? s : "?", s ? len : 1, PLAIN);
}

/* core.shown(s [, how]) -> s as messages quote it; how: nil, true (every
 * control byte written \ddd) or "key" (a key of a path: in quotes, `"`
 * and `\` escaped, at most KEY_SHOWN bytes of it). */
static int shown(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  int how = lua_type(L, 2) == LUA_TSTRING && strcmp(lua_tostring(L, 2), "key") == 0 ? KEY
          : lua_toboolean(L, 2) ? DDD : PLAIN;
  push(L, s, len, how);
  return 1;
}

void anim_lua_open_shown(lua_State *L) {
  lua_pushcfunction(L, shown);
  lua_setfield(L, -2, "shown");
  lua_pushinteger(L, ANIM_LUA_SHOWN);
  lua_setfield(L, -2, "shown_bytes");
}
