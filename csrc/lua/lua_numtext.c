/* lua_numtext.c - a number's text as the .anim writer puts it
 * (lua/anim/format/encode.lua's number_text), for the one part that costs:
 *   core.number_text(x) -> the shortest of x's %.15g, %.16g and %.17g that
 *     reads back as x (%.17g always does), its decimal point '.' whatever
 *     the C locale (os.setlocale) writes
 * x finite and not integral within 2^53 (the writer's other cases).  The
 * Lua it replaces made each try a string of its own and read it back with
 * tonumber: two interned strings and two calls a try, three tries for most
 * of a float's values (a glTF's); here one buffer and strtod. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

static int number_text(lua_State *L) {
  double v = luaL_checknumber(L, 1);
  /* (%.17g of a double: at most 24 bytes; a locale's point, a few more) */
  char buf[64], out[64];
  const char *dp = localeconv()->decimal_point;
  size_t dl = strlen(dp), i, o = 0;
  int prec;
  for (prec = 15;; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    /* (strtod reads the locale's point, as printf wrote it) */
    if (prec == 17 || strtod(buf, NULL) == v) break;
  }
  for (i = 0; buf[i]; ) {
    if (dl > 0 && strncmp(buf + i, dp, dl) == 0) {
      out[o++] = '.';
      i += dl;
    } else {
      out[o++] = buf[i++];
    }
  }
  lua_pushlstring(L, out, o);
  return 1;
}

void anim_lua_open_numtext(lua_State *L) {
  lua_pushcfunction(L, number_text);
  lua_setfield(L, -2, "number_text");
}
