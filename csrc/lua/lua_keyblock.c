/* lua_keyblock.c - key blocks: a clip's keys read by the key scanner
 * (csrc/io/keyscan.c), handed to the clip's builder (lua_clip.c). */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* ---- key blocks (lua_helpers.h) ---- */

anim_keyblock *anim_lua_newkeyblock(lua_State *L, int cap, int stride) {
  anim_keyblock *kb = lua_newuserdatauv(L, ANIM_KEYBLOCK_SIZE(cap, stride), 0);
  kb->tag = ANIM_KEYBLOCK_TAG;
  kb->n = kb->arity = kb->pad = 0;
  kb->cap = cap;
  kb->stride = stride;
  luaL_setmetatable(L, ANIM_KEYBLOCK_MT);
  return kb;
}

anim_keyblock *anim_lua_tokeyblock(lua_State *L, int idx) {
  anim_keyblock *kb = luaL_testudata(L, idx, ANIM_KEYBLOCK_MT);
  if (!kb || lua_rawlen(L, idx) < sizeof *kb || kb->tag != ANIM_KEYBLOCK_TAG) return NULL;
  if (kb->cap < 0 || kb->stride < 1 || kb->stride > 4 || kb->n < 0 || kb->n > kb->cap || kb->arity < 0 ||
      kb->arity > kb->stride || lua_rawlen(L, idx) != ANIM_KEYBLOCK_SIZE(kb->cap, kb->stride))
    return NULL;
  return kb;
}

void anim_lua_open_keyblock(lua_State *L) {
  anim_lua_sealed_meta(L, ANIM_KEYBLOCK_MT);
}
