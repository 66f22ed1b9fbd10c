/* lua_box.c - the userdata boxes every class lives in (lua_helpers.h):
 * their kinds, tags and metatables, the checks that take one from the
 * stack (a live one, or any, or a finalized one's message), and the
 * readers' fast test of an animator box. */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* ---- boxes ---------------------------------------------------------------- */

static const struct { const char *mt, *dead; size_t size; } kinds[ANIM_BOX_KINDS] = {
  {ANIM_CLIP_MT, ANIM_CLIP_MT " (finalized)", sizeof(anim_clip_box)},
  {ANIM_RIG_MT, ANIM_RIG_MT " (finalized)", sizeof(anim_rig_box)},
  {ANIM_ANIMATOR_MT, ANIM_ANIMATOR_MT " (finalized)", sizeof(anim_animator_box)},
  {ANIM_TRACK_MT, ANIM_TRACK_MT " (finalized)", sizeof(anim_track_box)},
  {ANIM_RETARGET_MT, ANIM_RETARGET_MT " (finalized)", sizeof(anim_retarget_box)},
  {ANIM_SPACE_MT, ANIM_SPACE_MT " (finalized)", sizeof(anim_space_box)},
  {ANIM_GRAPH_MT, ANIM_GRAPH_MT " (finalized)", sizeof(anim_graph_box)},
};

#define FINALIZED "%s used after it was finalized (garbage collected, or its __gc called by hand)"

/* The box at idx when its metatable is the one named mt (pushed and popped
 * here) and its size and tag are its kind's. */
static void *box_with(lua_State *L, int idx, int kind, const char *mt) {
  void *p = lua_touserdata(L, idx);
  int same;
  if (!p || lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
  luaL_getmetatable(L, mt);
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  if (!same || lua_rawlen(L, idx) < kinds[kind].size || *(unsigned *)p != ANIM_BOX_TAG(kind)) return NULL;
  return p;
}

/* (no position: the caller of a C function of the module is mostly the
 * module's own Lua side, whose line would say nothing to the script) */
void anim_lua_pushfinalized(lua_State *L, int kind) { lua_pushfstring(L, FINALIZED, kinds[kind].mt); }

int anim_lua_finalized(lua_State *L, int kind) {
  anim_lua_pushfinalized(L, kind);
  return lua_error(L);
}

void *anim_lua_checkbox(lua_State *L, int arg, int kind) {
  void *p = box_with(L, arg, kind, kinds[kind].mt);
  if (p) return p;
  if (box_with(L, arg, kind, kinds[kind].dead)) anim_lua_finalized(L, kind);
  if (lua_type(L, arg) == LUA_TUSERDATA && lua_getmetatable(L, arg)) {
    int same;
    luaL_getmetatable(L, kinds[kind].mt);
    same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (same) anim_lua_argerror(L, arg, "%s expected, got another userdata with its metatable", kinds[kind].mt);
  }
  anim_lua_argerror(L, arg, "%s expected, got %s", kinds[kind].mt, anim_lua_typename(L, arg));
  return NULL;
}

void *anim_lua_testbox_any(lua_State *L, int idx, int kind) {
  void *p = box_with(L, idx, kind, kinds[kind].mt);
  return p ? p : box_with(L, idx, kind, kinds[kind].dead);
}

void anim_lua_setfinalized(lua_State *L, int idx, int kind) {
  idx = lua_absindex(L, idx);
  luaL_getmetatable(L, kinds[kind].dead);
  lua_setmetatable(L, idx);
}

void *anim_lua_newbox(lua_State *L, int kind, size_t size, int nuv) {
  unsigned char *p = lua_newuserdatauv(L, size, nuv);
  size_t i;
  for (i = 0; i < size; i++) p[i] = 0;
  *(unsigned *)(void *)p = ANIM_BOX_TAG(kind);
  luaL_setmetatable(L, kinds[kind].mt);
  return p;
}

/* The metamethods of a finalized box: every use raises, at the line of the
 * code that made it (level 1: who indexed, called or set). */
static int dead_use(lua_State *L) {
  const char *name = lua_tostring(L, lua_upvalueindex(1));
  luaL_where(L, 1);
  lua_pushfstring(L, FINALIZED, name);
  lua_concat(L, 2);
  return lua_error(L);
}

static int dead_tostring(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushliteral(L, " (finalized)");
  lua_concat(L, 2);
  return 1;
}

void anim_lua_gcmeta(lua_State *L, const char *name, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
}

void anim_lua_sealed_meta(lua_State *L, const char *name) {
  luaL_newmetatable(L, name);
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
}

void anim_lua_newmeta(lua_State *L, int kind, lua_CFunction gc, const char *field) {
  static const char *const uses[] = {"__index", "__newindex", "__call", "__len", "__concat", NULL};
  int i;
  luaL_newmetatable(L, kinds[kind].dead);  /* its __name: "anim.clip (finalized)" */
  for (i = 0; uses[i]; i++) {
    lua_pushstring(L, kinds[kind].mt);
    lua_pushcclosure(L, dead_use, 1);
    lua_setfield(L, -2, uses[i]);
  }
  lua_pushstring(L, kinds[kind].mt);
  lua_pushcclosure(L, dead_tostring, 1);
  lua_setfield(L, -2, "__tostring");
  lua_pushstring(L, kinds[kind].dead);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  luaL_newmetatable(L, kinds[kind].mt);
  if (gc) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  /* getmetatable(clip) is "anim.clip": no script changes the module's
   * metatables or calls their functions by accident */
  lua_pushstring(L, kinds[kind].mt);
  lua_setfield(L, -2, "__metatable");
  lua_setfield(L, -2, field);
  /* the finalized one as field "<field>_finalized": the Lua side tells an
   * object finalized by hand from another kind of value */
  lua_pushfstring(L, "%s_finalized", field);
  luaL_getmetatable(L, kinds[kind].dead);
  lua_rawset(L, -3);
}

int anim_lua_uservalue(lua_State *L, int kind, int n) {
  if (!anim_lua_testbox_any(L, 1, kind)) anim_lua_checkbox(L, 1, kind);
  lua_getiuservalue(L, 1, n);
  return 1;
}

anim_clip *anim_lua_checkclip(lua_State *L, int arg) {
  anim_clip_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_CLIP);
  if (!b->clip) anim_lua_finalized(L, ANIM_BOX_CLIP);
  return b->clip;
}

anim_rig *anim_lua_checkrig(lua_State *L, int arg) {
  anim_rig_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_RIG);
  if (!b->rig) anim_lua_finalized(L, ANIM_BOX_RIG);
  return b->rig;
}

anim_animator *anim_lua_checkanimator(lua_State *L, int arg) {
  anim_animator_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_ANIMATOR);
  if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  return b->a;
}

anim_track *anim_lua_checktrack(lua_State *L, int arg) {
  anim_track_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_TRACK);
  if (!b->t) anim_lua_finalized(L, ANIM_BOX_TRACK);
  return b->t;
}

anim_animator_box *anim_lua_animator_at(lua_State *L, int idx, int mt) {
  anim_animator_box *b = anim_lua_animator_mt(L, idx, mt);
  if (b) lua_pop(L, 1);
  return b;
}

anim_animator_box *anim_lua_reader_box(lua_State *L) {
  anim_animator_box *b = anim_lua_animator_at(L, 1, lua_upvalueindex(1));
  if (b && b->a) return b;
  b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);  /* raises the usual message */
  if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  return b;
}

anim_animator *anim_lua_upanimator(lua_State *L) { return anim_lua_reader_box(L)->a; }
