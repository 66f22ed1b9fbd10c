/* lua_reload.c - the Lua binding of hot reload (csrc/core/reload.h): a
 * clip's content replaced in place while tracks play it.  The Lua side
 * (lua/anim/runtime/reload.lua) finds the tracks and their new bindings;
 * this makes everything that can fail first, then commits. */
#include <math.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/reload.h"
#include "lua_helpers.h"

#define SCRATCH_MT "anim.rebind_scratch"
#define SCRATCH_TAG 0x616e7262u

/* The prepared tracks, in a userdata: what fails after preparing began is
 * discarded there and then (no Lua code runs from the first prepare to the
 * commit, so every track prepared is still alive); the collector's
 * discard is for what a longjmp leaves (out of memory). */
typedef struct {
  unsigned tag;
  int n, cap;
  anim_rebind r[1];
} scratch;

static void discard_all(scratch *s) {
  int i;
  for (i = 0; i < s->n; i++) anim_rebind_discard(&s->r[i]);
  s->n = 0;
}

static int scratch_gc(lua_State *L) {
  scratch *s = luaL_checkudata(L, 1, SCRATCH_MT);
  if (lua_rawlen(L, 1) < sizeof *s || s->tag != SCRATCH_TAG || s->n > s->cap) return 0;
  discard_all(s);
  return 0;
}

/* core.clip_reload(clip, fresh, tracks, bindings [, points]) -> true |
 * false, i, property, arity, other | false, 0
 * Replaces the content of `clip` with that of `fresh` (a clip nothing
 * plays, built for this), which gets the old content in exchange (and
 * the two clips swap their info tables, user value 1, and sampling
 * cursors).  tracks[i] (anim.track) plays `clip`, or is the track of a
 * blend space whose point points[i] (1-based; absent: 1, the track itself)
 * plays it; bindings[i] is that track's bindings for the new content
 * (anim_lua_checkbindings).  A track that no longer plays (collected, its
 * animator gone, finalized) is passed over.  false, i, name, n, m:
 * nothing changed, as property `name` of the new content has n
 * components where a track of another clip on the animator of tracks[i]
 * gives it m.  false, 0: nothing changed, as a live track of the clip is
 * not in the list (one started by a finalizer while the list was made or
 * read): the caller lists them again.
 * Two steps: the tables are read (raw) and the bindings made, which may
 * run finalizers, keeping only numbers and boxes; then the clips and the
 * tracks are taken out of their boxes again, and prepared and committed
 * with no Lua code in between. */

/* The track of entry i: tracks[i], or its point points[i]; NULL when it
 * no longer plays `old` (finalized, its animator gone, another clip). */
static anim_track *entry_track(lua_State *L, lua_Integer i, const anim_clip *old) {
  anim_track_box *tb;
  anim_track *t;
  lua_Integer p = 1;
  lua_rawgeti(L, 3, i);
  tb = anim_lua_testbox_any(L, -1, ANIM_BOX_TRACK);
  lua_pop(L, 1);
  if (!lua_isnoneornil(L, 5)) {
    double d;
    lua_rawgeti(L, 5, i);
    d = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    /* (compared as a double: no cast before the range is known) */
    p = d >= 1 && d <= ANIM_MAX_SPACE_POINTS && d == floor(d) ? (lua_Integer)d : 0;
  }
  if (!tb || !tb->t || p < 1) return NULL;
  t = anim_reload_point(tb->t, (int)p - 1);
  return t && anim_track_clip(t) == old && anim_track_rig(t) ? t : NULL;
}

static int clip_reload(lua_State *L) {
  anim_clip_box *ob = anim_lua_checkbox(L, 1, ANIM_BOX_CLIP), *fb = anim_lua_checkbox(L, 2, ANIM_BOX_CLIP);
  anim_clip *old = anim_lua_checkclip(L, 1), *fresh = anim_lua_checkclip(L, 2);
  int fresh_joints = fresh->njoints, binds_at, counts_at;
  unsigned fresh_gen = fresh->gen;
  lua_Integer n, i;
  scratch *s;
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!lua_isnoneornil(L, 5)) luaL_checktype(L, 5, LUA_TTABLE);
  lua_settop(L, 5);
  luaL_argcheck(L, old != fresh, 2, "must be another clip");
  n = (lua_Integer)lua_rawlen(L, 3);
  if (n < 0 || n > (1 << 24)) return luaL_error(L, "too many tracks");
  s = lua_newuserdatauv(L, sizeof(scratch) + sizeof(anim_rebind) * (size_t)(n > 0 ? n - 1 : 0), 0);
  s->tag = SCRATCH_TAG;
  s->n = 0;
  s->cap = (int)(n > 0 ? n : 1);
  luaL_setmetatable(L, SCRATCH_MT);
  /* step 1: each track's bindings (the arrays kept in binds_at[i], their
   * counts in counts_at[i]) */
  lua_createtable(L, (int)n, 0);
  binds_at = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  counts_at = lua_gettop(L);
  for (i = 1; i <= n; i++) {
    anim_track *t = entry_track(L, i, old);
    int nb;
    if (!t) continue;
    lua_rawgeti(L, 4, i);
    if (!anim_lua_checkbindings(L, -1, fresh_joints, fresh_gen, anim_track_rig(t)->n, &nb))
      return luaL_argerror(L, 4, "bindings made for another content of the new clip");
    lua_rawseti(L, binds_at, i);  /* the array's userdata */
    lua_pop(L, 1);
    lua_pushinteger(L, nb);
    lua_rawseti(L, counts_at, i);
    /* (finalizers may have run: the clips are taken again below) */
    old = anim_lua_checkclip(L, 1);
    fresh = anim_lua_checkclip(L, 2);
  }
  /* step 2: nothing runs Lua code from here */
  old = anim_lua_checkclip(L, 1);
  fresh = anim_lua_checkclip(L, 2);
  luaL_argcheck(L, fresh->refs == 1, 2, "must be a clip nothing plays");
  luaL_argcheck(L, fresh->njoints == fresh_joints && fresh->gen == fresh_gen, 2, "changed while read");
  for (i = 1; i <= n; i++) {
    anim_binding *binds;
    anim_track *t;
    int which = 0, other = 0, st, nb;
    lua_rawgeti(L, binds_at, i);
    binds = lua_touserdata(L, -1);
    lua_pop(L, 1);  /* (binds_at keeps it) */
    if (!binds) continue;
    lua_rawgeti(L, counts_at, i);
    nb = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    /* a track finalized, or of an animator gone, since: passed over (the
     * bindings were checked against its rig, which it still plays on);
     * one listed twice is prepared once */
    if (!(t = entry_track(L, i, old))) continue;
    st = anim_rebind_prepare(&s->r[s->n], t, old, fresh, binds, nb, &which, &other);
    if (st == ANIM_PROPS_CONFLICT) {
      discard_all(s);
      lua_pushboolean(L, 0);
      lua_pushinteger(L, i);
      lua_pushlstring(L, fresh->props[which].name, fresh->props[which].len);
      lua_pushinteger(L, fresh->props[which].arity);
      lua_pushinteger(L, other);
      return 5;
    }
    if (st == ANIM_PROPS_NOMEM) { discard_all(s); return anim_lua_nomem(L); }
    if (st == ANIM_PROPS_OK) s->n++;
  }
  if (!anim_reload_covers(old)) {
    discard_all(s);
    lua_pushboolean(L, 0);
    lua_pushinteger(L, 0);
    return 2;
  }
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

/* core.clip_reloads(clip) -> how many times its content was replaced:
 * format/bind.lua notes it in the bindings it makes, which the functions
 * that take bindings refuse once it changed (anim_lua_checkbindings). */
static int clip_reloads(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)anim_lua_checkclip(L, 1)->gen);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"clip_reload", clip_reload},
  {"clip_reloads", clip_reloads},
  {NULL, NULL}
};

void anim_lua_open_reload(lua_State *L) {
  anim_lua_gcmeta(L, SCRATCH_MT, scratch_gc);
  luaL_setfuncs(L, funcs, 0);
}
