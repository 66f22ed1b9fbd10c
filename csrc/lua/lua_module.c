/* lua_module.c - luaopen_anim_core: the C module `anim.core`, the layer
 * below lua/anim/ (docs/architecture.md).  The friendly API lives in
 * lua/anim/; this module holds the per-frame work and the codes both sides
 * share.  Each binding file adds its part to the module table. */
#include "lua.h"

#include "lua_helpers.h"
#include "io/io.h"

/* The one symbol the module exports: the rest of the core is built with
 * hidden visibility (Makefile), so that its calls between files are
 * direct, not through the procedure linkage table of a shared library. */
#if defined(__GNUC__)
#define ANIM_EXPORT __attribute__((visibility("default")))
#else
#define ANIM_EXPORT
#endif

ANIM_EXPORT int luaopen_anim_core(lua_State *L);

ANIM_EXPORT int luaopen_anim_core(lua_State *L) {
  lua_newtable(L);
  anim_lua_open_codes(L);
  anim_lua_open_clip(L);
  anim_lua_open_clip_read(L);
  anim_lua_open_rig(L);
  anim_lua_open_animator(L);
  anim_lua_open_track(L);
  anim_lua_open_update(L);
  anim_lua_open_pose(L);
  anim_lua_open_skin(L);
  anim_lua_open_check(L);
  anim_lua_open_keyscan(L);
  anim_lua_open_fs(L);
  anim_lua_open_jsonkeys(L);
  anim_lua_open_property(L);
  anim_lua_open_override(L);
  anim_lua_open_reload(L);
  anim_lua_open_bytes(L);
  anim_lua_open_blendspace(L);
  anim_lua_open_graph(L);
  anim_lua_open_gameplay(L);
  anim_lua_open_state(L);
  anim_lua_open_restore(L);
  anim_lua_open_shown(L);
  anim_lua_open_numtext(L);
  anim_lua_open_order(L);
  anim_lua_open_buffer(L);
  anim_lua_open_skinverts(L);
  anim_lua_open_draw2d(L);
  anim_lua_open_draw2d_slots(L);
  anim_lua_open_draw2d_run(L);
  anim_lua_open_animc(L);
  anim_lua_open_skeleton(L);
  anim_lua_open_animc_plain(L);
  anim_lua_open_measure(L);
  anim_lua_open_keyreduce(L);
  anim_lua_open_suggest(L);
  anim_lua_open_world2d(L);
  return 1;
}
