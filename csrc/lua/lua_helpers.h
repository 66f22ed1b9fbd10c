/* lua_helpers.h - what every file of the binding shares, and nothing else:
 * the userdata boxes and their metatable names, the allocator, and the
 * argument checks.  Every binding file includes this and the core's
 * headers, never another binding file (docs/architecture.md); lua_module.c
 * calls the open functions declared at the end. */
#ifndef ANIM_LUA_HELPERS_H
#define ANIM_LUA_HELPERS_H

#include "lua.h"

#include "lua_compat.h"
#include "core/amem.h"
#include "core/animator.h"
#include "core/blendspace.h"
#include "core/clip.h"
#include "core/gameplay.h"
#include "core/rig.h"

/* The metatables of the userdata (their __name is what messages show). */
#define ANIM_CLIP_MT "anim.clip"
#define ANIM_RIG_MT "anim.rig"
#define ANIM_ANIMATOR_MT "anim.animator"
#define ANIM_TRACK_MT "anim.track"
#define ANIM_RETARGET_MT "anim.retarget"
#define ANIM_SPACE_MT "anim.blendspace"

/* The boxes.  A clip keeps the key cursors clip:sample uses between calls
 * (a cache beside the immutable clip: steady sampling finds keys in O(1)).
 * An animator's `delivering` is DELIVERING while the Lua side delivers its
 * callbacks (an update from one of them is refused, not re-entered), QUEUED
 * from the batch update that queued them until their delivery starts (an
 * update then would drop them); mark and slot: the batch update's call and
 * list index that last saw it (an animator listed twice is refused). */
typedef struct { anim_clip *clip; int *cursors; size_t ncursors; } anim_clip_box;
typedef struct { anim_rig *rig; } anim_rig_box;
enum { ANIM_IDLE, ANIM_DELIVERING, ANIM_QUEUED };
typedef struct {
  anim_animator *a;
  int delivering;
  int slot;
  unsigned long long mark;
} anim_animator_box;
typedef struct { anim_track *t; } anim_track_box;
typedef struct { anim_space *s; } anim_space_box;

/* The state's allocator (lua_Alloc): the core allocates through it. */
anim_mem anim_lua_mem(lua_State *L);
/* Raises the memory error of a failed allocation in the core. */
int anim_lua_nomem(lua_State *L);

/* ---- argument checks ------------------------------------------------------
 * Each raises "bad argument #arg to 'name' (message)" at the caller's line,
 * as luaL_argerror does (a method call counts from its first argument after
 * self), and names what it got by its metatable's __name. */

/* luaL_argerror with a formatted message. */
int anim_lua_argerror(lua_State *L, int arg, const char *fmt, ...);
/* The __name of the value's metatable, else its type name. */
const char *anim_lua_typename(lua_State *L, int idx);
/* The userdata at arg with metatable `mt` ("X expected, got Y"). */
void *anim_lua_checkbox(lua_State *L, int arg, const char *mt);
/* An integer in [lo, hi] at arg: a Lua integer, or a float with an integral
 * value; anything else, or out of range, raises naming `what` (never a
 * cast that wraps: 2^32 + 1 is out of range, not 1). */
lua_Integer anim_lua_checkrange(lua_State *L, int arg, lua_Integer lo, lua_Integer hi, const char *what);

/* A new array of the n numbers of v. */
void anim_lua_pushnumbers(lua_State *L, const double *v, size_t n);
/* Makes the metatable `name` (with gc as its __gc, unless NULL) and sets
 * it as field `field` of the table on the top of the stack. */
void anim_lua_newmeta(lua_State *L, const char *name, lua_CFunction gc, const char *field);
/* Pushes user value n of the userdata at index 1, which must have the
 * metatable mt: the Lua side's table of an object (returns 1). */
int anim_lua_uservalue(lua_State *L, const char *mt, int n);

/* Playing: the play options at idx..idx+3 (fade, weight, speed, priority
 * or nil); the bindings of clip c on rig r from the table at idx ({ { cj
 * = 1-based clip joint, rj = 1-based rig joint, pre = quat?, post =
 * quat?, pscale = number? }, ... }, as lua/anim/format/bind.lua makes
 * them), a userdata array pushed on the stack, their count in *n; a new
 * empty track box (its stack index), then the track of a play in it
 * (retained: raises the memory error for NULL), its user values the
 * values at src (the clip or blend space), animator and cbs (the Lua
 * side's callbacks), the box left on the top of the stack. */
void anim_lua_checkplayopts(lua_State *L, int idx, anim_play_opts *o);
anim_binding *anim_lua_checkbindings(lua_State *L, int idx, const anim_clip *c, const anim_rig *r, int *n);
int anim_lua_newtrack(lua_State *L);
void anim_lua_settrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs);

/* The closest of names[0..n-1] to `name` for "did you mean?", or NULL:
 * the one that differs only in letter case, else the nearest by edit
 * distance (letter case ignored) when at most a third of the name's
 * length edits away (at most 3; at least 1 for names of 3 letters or more,
 * none for shorter ones); ties go to the first.  The same rule as
 * lua/anim/base/suggest.lua. */
const char *anim_lua_suggest(const char *name, const char *const *names, int n);

/* The built objects under the boxes (raises when the box is empty). */
anim_clip *anim_lua_checkclip(lua_State *L, int arg);
anim_rig *anim_lua_checkrig(lua_State *L, int arg);
anim_animator *anim_lua_checkanimator(lua_State *L, int arg);
/* The same at index 1 for the functions called every frame, whose upvalue
 * 1 is the animator metatable: compared with it instead of looked up in
 * the registry by name. */
anim_animator *anim_lua_upanimator(lua_State *L);
anim_track *anim_lua_checktrack(lua_State *L, int arg);

/* Each adds its functions (and metatables) to the module table on the top
 * of the stack. */
void anim_lua_open_codes(lua_State *L);
void anim_lua_open_clip(lua_State *L);
void anim_lua_open_rig(lua_State *L);
void anim_lua_open_animator(lua_State *L);
void anim_lua_open_check(lua_State *L);
void anim_lua_open_fs(lua_State *L);
void anim_lua_open_reload(lua_State *L);
void anim_lua_open_property(lua_State *L);
void anim_lua_open_override(lua_State *L);
void anim_lua_open_bytes(lua_State *L);
void anim_lua_open_blendspace(lua_State *L);
void anim_lua_open_gameplay(lua_State *L);

#endif
