/* lua_buffer.h - the module buffer (lua_buffer.c) for the other binding
 * files: a userdata holding n floats or doubles in its own block, which a
 * binding writes into (skinning matrices, skinned vertices) and a script
 * hands to a renderer (buf:pointer(), buf:string()).  The data lives in
 * the userdata's block, after the header: the collector sees its size and
 * frees it with the userdata, and no C pointer to it outlives the call
 * that took it from the stack. */
#ifndef ANIM_LUA_BUFFER_H
#define ANIM_LUA_BUFFER_H

#include <stddef.h>

#include "lua.h"

typedef struct anim_lua_buffer { size_t n; int is_double; void *data; } anim_lua_buffer;
/* the module buffer at idx, or NULL when idx holds none */
anim_lua_buffer *anim_lua_tobuffer(lua_State *L, int idx);
/* a new buffer of n elements (zeroed) pushed on the stack; raises when out of memory */
anim_lua_buffer *anim_lua_newbuffer(lua_State *L, size_t n, int is_double);

/* The most elements a buffer holds: 2^26 (256 MiB of floats, 512 MiB of
 * doubles: a crowd of 10,000 characters of 100 joints in mat4 is 16 Mi
 * floats, a mesh of anim.limits.bytes' default 16 Mi), so that a size in
 * elements, bytes or an int never wraps anywhere. */
#define ANIM_LUA_BUFFER_MAX ((size_t)1 << 26)
#define ANIM_BUFFER_MT "anim.buffer"

#endif
