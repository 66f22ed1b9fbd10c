/* lua_reload.c - the Lua binding of hot reload (csrc/core/reload.h): a
 * clip's content replaced in place while tracks play it.  The Lua side
 * (lua/anim/runtime/reload.lua) finds the tracks and their new bindings;
 * this makes everything that can fail first, then commits. */
#include "lua.h"
#include "lauxlib.h"

#include "core/reload.h"
#include "lua_helpers.h"

#define SCRATCH_MT "anim.rebind_scratch"

/* The prepared tracks, in a userdata: the collector frees what an error
 * (a bad argument, out of memory) left prepared and not committed. */
typedef struct {
  int n;
  anim_rebind r[1];
} scratch;

static int scratch_gc(lua_State *L) {
  scratch *s = luaL_checkudata(L, 1, SCRATCH_MT);
  int i;
  for (i = 0; i < s->n; i++) anim_rebind_discard(&s->r[i]);
  s->n = 0;
  return 0;
}

/* core.clip_reload(clip, fresh, tracks, bindings) -> true | false, i,
 * property, arity, other
 * Replaces the content of `clip` with that of `fresh` (a clip nothing
 * plays, built for this), which gets the old content in exchange (and
 * the two clips swap their info tables, user value 1, and sampling
 * cursors).  tracks[i] (anim.track) plays `clip`; bindings[i] is its
 * bindings for the new content (anim_lua_checkbindings).  A track that no
 * longer plays (collected, its animator gone) is passed over.  false, i,
 * name, n, m: nothing changed, as property `name` of the new content has
 * n components where a track of another clip on the animator of
 * tracks[i] gives it m. */
static int clip_reload(lua_State *L) {
  anim_clip_box *ob = anim_lua_checkbox(L, 1, ANIM_CLIP_MT), *fb = anim_lua_checkbox(L, 2, ANIM_CLIP_MT);
  anim_clip *old = anim_lua_checkclip(L, 1), *fresh = anim_lua_checkclip(L, 2);
  lua_Integer n, i;
  scratch *s;
  int k;
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  luaL_argcheck(L, old != fresh, 2, "must be another clip");
  luaL_argcheck(L, fresh->refs == 1, 2, "must be a clip nothing plays");
  n = luaL_len(L, 3);
  if (n < 0 || n > (1 << 24)) return luaL_error(L, "too many tracks");
  s = lua_newuserdatauv(L, sizeof(scratch) + sizeof(anim_rebind) * (size_t)(n > 0 ? n - 1 : 0), 0);
  s->n = 0;
  luaL_setmetatable(L, SCRATCH_MT);
  for (i = 1; i <= n; i++) {
    anim_track_box *tb;
    const anim_rig *rig;
    anim_binding *binds;
    int nb, which = 0, other = 0, st;
    lua_geti(L, 3, i);
    tb = anim_lua_checkbox(L, -1, ANIM_TRACK_MT);
    lua_pop(L, 1);
    if (!tb->t || anim_track_clip(tb->t) != old || !(rig = anim_track_rig(tb->t))) continue;
    for (k = 0; k < s->n && s->r[k].t != tb->t; k++) {}
    if (k < s->n) continue;  /* listed twice */
    lua_geti(L, 4, i);
    binds = anim_lua_checkbindings(L, -1, fresh, rig, &nb);
    st = anim_rebind_prepare(&s->r[s->n], tb->t, old, fresh, binds, nb, &which, &other);
    lua_pop(L, 2);
    if (st == ANIM_PROPS_CONFLICT) {
      lua_pushboolean(L, 0);
      lua_pushinteger(L, i);
      lua_pushlstring(L, fresh->props[which].name, fresh->props[which].len);
      lua_pushinteger(L, fresh->props[which].arity);
      lua_pushinteger(L, other);
      return 5;
    }
    if (st == ANIM_PROPS_NOMEM) return anim_lua_nomem(L);
    if (st == ANIM_PROPS_OK) s->n++;
  }
  /* nothing below fails */
  anim_reload_commit(old, fresh, s->r, s->n);
  s->n = 0;
  {
    int *c = ob->cursors;
    size_t nc = ob->ncursors;
    ob->cursors = fb->cursors;
    ob->ncursors = fb->ncursors;
    fb->cursors = c;
    fb->ncursors = nc;
  }
  lua_getiuservalue(L, 1, 1);
  lua_getiuservalue(L, 2, 1);
  lua_setiuservalue(L, 1, 1);
  lua_setiuservalue(L, 2, 1);
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"clip_reload", clip_reload},
  {NULL, NULL}
};

void anim_lua_open_reload(lua_State *L) {
  luaL_newmetatable(L, SCRATCH_MT);
  lua_pushcfunction(L, scratch_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  luaL_setfuncs(L, funcs, 0);
}
