/* io/io.h - the importers' and readers' byte and file utilities of the
 * module `anim.core`, apart from the binding of the core (csrc/lua/):
 * files read whole (fs.c), binary data for glTF (bytes.c), the check of
 * decoded JSON trees (check.c), the reader of a clip's keys (keyscan.c),
 * the order of a JSON object's members (jsonkeys.c).  They read Lua values and
 * use the binding's argument checks (lua/lua_helpers.h), never an object
 * of the core.  lua/lua_module.c registers each (docs/architecture.md). */
#ifndef ANIM_IO_H
#define ANIM_IO_H

#include "lua.h"

/* Each adds its functions (and metatables) to the module table on the top
 * of the stack. */
void anim_lua_open_check(lua_State *L);
void anim_lua_open_keyscan(lua_State *L);
void anim_lua_open_fs(lua_State *L);
void anim_lua_open_jsonkeys(lua_State *L);
void anim_lua_open_bytes(lua_State *L);

#endif
