/* lua_anim.h - shared declarations of the Lua binding files (lua_*.c). */
#ifndef ANIM_LUA_ANIM_H
#define ANIM_LUA_ANIM_H

#include "lua.h"

#include "core/amem.h"
#include "core/clip.h"

#define ANIM_CLIP_MT "anim.clip"

/* The state's allocator (lua_Alloc): the core allocates through it. */
anim_mem anim_lua_mem(lua_State *L);
/* Raises the memory error of a failed allocation in the core. */
int anim_lua_nomem(lua_State *L);

anim_clip *anim_lua_toclip(lua_State *L, int idx);
anim_clip *anim_lua_checkclip(lua_State *L, int idx);

/* Each adds its functions to the module table on the top of the stack. */
void anim_lua_open_clip(lua_State *L);
void anim_lua_open_animator(lua_State *L);
void anim_lua_open_check(lua_State *L);

#endif
