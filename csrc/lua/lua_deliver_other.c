/* lua_deliver_other.c - the entries the delivery loop (lua_deliver.c)
 * hands on, each read from the tables its header describes: a marker of a
 * track without its marker tables or of a blend space's point, events and
 * sounds, `plays` items, state changes (looped, stopped, ended), a state
 * machine's exits, transitions and entries; the tracks that ended leaving
 * the live ones once all is delivered; and the tracks a state machine's
 * update started, adopted before the delivery. */
#include "core/graph.h"
#include "lua_deliver.h"

/* Marker k (0-based) of the clip at `clip` whose info is at `info` (a
 * blend space's point's clip, or a track without the tables
 * deliver_marker reads): its name and value from the info, the track's
 * callbacks of that name (cbs.marker[name]), then the animator's when it
 * hears markers, both read before either is called.  The run's S_CBS is
 * read (slot) before anything is pushed. */
ANIM_LUA_COLD void dl_marker_from_info(deliv *d, int info, int clip, int k, double late, int all) {
  lua_State *L = d->L;
  int top = lua_gettop(L), cbs = d->base + S_CBS;
  luaL_checkstack(L, 12, NULL);
  if (dl_getk(d, info, K_MARKERS) != LUA_TTABLE || geti(L, top + 1, (lua_Integer)k + 1) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  dl_getk(d, top + 2, K_NAME);   /* top + 3 */
  dl_getk(d, top + 2, K_VALUE);  /* top + 4 */
  /* top + 5: the track's callbacks of that name */
  if (lua_type(L, cbs) == LUA_TTABLE && dl_getk(d, cbs, K_MARKER) == LUA_TTABLE) {
    lua_pushvalue(L, top + 3);
    lua_rawget(L, -2);
    lua_remove(L, -2);
  } else {
    lua_settop(L, top + 4);
    lua_pushnil(L);
  }
  if (all) lua_getiuservalue(L, d->ai, ANIM_UV_ANIMATOR_ON_MARKER);  /* top + 6 */
  else lua_pushnil(L);
  lua_pushvalue(L, d->base + S_TRACK);
  lua_pushvalue(L, top + 4);
  lua_pushnumber(L, late);
  lua_pushvalue(L, clip);
  dl_call_list(d, top + 5, 4);
  lua_pushvalue(L, d->base + S_TRACK);
  lua_pushvalue(L, top + 3);
  lua_pushvalue(L, top + 4);
  lua_pushnumber(L, late);
  lua_pushvalue(L, clip);
  dl_call_callbacks(d, top + 6, 5);
  lua_settop(L, top);
}

/* Event or sound k (0-based) of the clip at `clip` whose info is at
 * `info`, to the animator's on_event or on_sound (its fourth and fifth
 * user values), the clip after `late`. */
void dl_deliver_item(deliv *d, int info, int clip, int kind, int k, double late) {
  lua_State *L = d->L;
  int m, top = lua_gettop(L);
  if (dl_getk(d, info, kind == ANIM_ITEM_EVENT ? K_EVENTS : K_SOUNDS) != LUA_TTABLE ||
      geti(L, top + 1, (lua_Integer)k + 1) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  m = top + 2;
  lua_getiuservalue(L, d->ai, kind == ANIM_ITEM_EVENT ? ANIM_UV_ANIMATOR_ON_EVENT : ANIM_UV_ANIMATOR_ON_SOUND);  /* top + 3 */
  lua_pushvalue(L, d->base + S_TRACK);
  if (kind == ANIM_ITEM_EVENT) {
    dl_getk(d, m, K_NAME);
    dl_getk(d, m, K_PAYLOAD);
    lua_pushnumber(L, late);
    lua_pushvalue(L, clip);
    dl_call_callbacks(d, top + 3, 5);
  } else {
    dl_getk(d, m, K_SOUND);
    dl_getk(d, m, K_VOLUME);
    dl_getk(d, m, K_PITCH);
    lua_pushnumber(L, late);
    lua_pushvalue(L, clip);
    dl_call_callbacks(d, top + 3, 6);
  }
  lua_settop(L, top);
}

/* `plays` item k (0-based) of the clip at `clip` whose info is at `info`:
 * to the plays handler (it starts the clip, or restarts its live track,
 * and calls on_play), whose error is kept as a callback's. */
ANIM_LUA_COLD void dl_deliver_play(deliv *d, int info, int clip, int k, double late) {
  lua_State *L = d->L;
  int top = lua_gettop(L);
  luaL_checkstack(L, 10, NULL);
  if (dl_getk(d, info, K_PLAYS) == LUA_TTABLE) geti(L, top + 1, (lua_Integer)k + 1);
  else lua_pushnil(L);
  lua_pushvalue(L, d->ai);
  lua_insert(L, -2);
  lua_pushnumber(L, late);
  lua_pushboolean(L, d->co);
  lua_pushboolean(L, d->batch);
  lua_pushvalue(L, clip);
  dl_call_handler(d, H_PLAYS, 6);  /* plays(animator, item, late, in_co, batch, from) */
  lua_settop(L, top);
}

/* A state machine's exit, transition or entry: to the state handler. */
ANIM_LUA_COLD void dl_deliver_state_machine(deliv *d, const anim_event *e) {
  lua_State *L = d->L;
  int top = lua_gettop(L);
  luaL_checkstack(L, 10, NULL);
  lua_pushvalue(L, d->ai);
  lua_pushinteger(L, e->type);
  lua_pushinteger(L, e->kind);
  lua_pushinteger(L, e->index);
  lua_pushinteger(L, e->item);
  lua_pushnumber(L, e->late);
  lua_pushboolean(L, d->co);
  lua_pushboolean(L, d->batch);
  dl_call_handler(d, H_STATE, 8);
  lua_settop(L, top);
}

/* An item of a blend space's point: its clip (the space's info's
 * clips[point]) and that clip's info read for it.  The run's S_CBS is
 * read first (slot). */
ANIM_LUA_COLD void dl_deliver_point(deliv *d, const anim_event *e, int all) {
  lua_State *L = d->L;
  int top, info;
  dl_slot(d, S_CBS);
  top = lua_gettop(L);
  luaL_checkstack(L, 16, NULL);
  if (lua_getiuservalue(L, d->base + S_TRACK, ANIM_UV_TRACK_SOURCE) == LUA_TUSERDATA &&
      lua_getiuservalue(L, top + 1, 1) == LUA_TTABLE && dl_getk(d, top + 2, K_CLIPS) == LUA_TTABLE &&
      geti(L, top + 3, (lua_Integer)e->point + 1) == LUA_TUSERDATA && lua_getiuservalue(L, top + 4, 1) == LUA_TTABLE) {
    info = top + 5;  /* (top + 4: the point's clip) */
    if (e->kind == ANIM_ITEM_MARKER) dl_marker_from_info(d, info, top + 4, e->index, e->late, all);
    else if (e->kind == ANIM_ITEM_PLAY) dl_deliver_play(d, info, top + 4, e->index, e->late);
    else dl_deliver_item(d, info, top + 4, e->kind, e->index, e->late);
  }
  lua_settop(L, top);
}

/* A track's looped, stopped or ended, to its callbacks. */
void dl_deliver_state(deliv *d, int type, double late) {
  lua_State *L = d->L;
  if (!dl_slot(d, S_CBS)) return;
  dl_getk(d, d->base + S_CBS, type == ANIM_EV_LOOPED ? K_LOOPED : type == ANIM_EV_STOPPED ? K_STOPPED : K_ENDED);
  lua_pushvalue(L, d->base + S_TRACK);
  lua_pushnumber(L, late);
  dl_call_list(d, d->run + 1, 2);
  lua_settop(L, d->run);
}

/* Whether slot s still holds the core track t: a callback may have taken
 * its track out (finalized, or its animator) and given the slot to
 * another. */
int dl_slot_holds(lua_State *L, int sl, int s, const anim_track *t) {
  int same = geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_KEY)) == LUA_TLIGHTUSERDATA &&
             lua_touserdata(L, -1) == (const void *)t;
  lua_pop(L, 1);
  return same;
}

/* The tracks whose `ended` the queue's first n entries held leave the
 * animator's live tracks (st.live, st.cbs, st.src) and their slots, once
 * the whole queue is delivered (a track that ended is kept alive until
 * then, with its clip). */
ANIM_LUA_COLD void dl_drop_ended(deliv *d, const anim_event *q, int n) {
  lua_State *L = d->L;
  int top = lua_gettop(L), i, t;
  luaL_checkstack(L, 8, NULL);
  if (lua_getiuservalue(L, d->ai, ANIM_UV_ANIMATOR_STATE) != LUA_TTABLE || dl_getk(d, top + 1, K_LIVE) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  dl_getk(d, top + 1, K_CBS);  /* top + 3 */
  dl_getk(d, top + 1, K_SRC);  /* top + 4 */
  for (i = n - 1; i >= 0; i--) {
    if (q[i].type != ANIM_EV_ENDED) continue;
    if (geti(L, top + 2, q[i].id) != LUA_TNIL && anim_lua_testbox_any(L, -1, ANIM_BOX_TRACK))
      anim_lua_unslot(L, lua_gettop(L));  /* (out of its slot too: runtime/dispatch.lua) */
    lua_pop(L, 1);
    for (t = top + 2; t <= top + 4; t++) {
      if (lua_type(L, t) != LUA_TTABLE) continue;
      lua_pushnil(L);
      anim_lua_rawsetn(L, t, q[i].id);
    }
  }
  lua_settop(L, top);
}

/* The tracks a state machine started that have entries queued get their
 * objects and slots first (the adopt handler), so that their entries
 * reach them, and layers over the bound are reported; its error is kept
 * as a callback's. */
ANIM_LUA_COLD void dl_adopt(lua_State *L, int uv, int base, anim_animator_box *b, int ai) {
  if (!b || !b->a || !anim_animator_needs_host(b->a)) return;
  luaL_checkstack(L, 4, NULL);
  geti(L, lua_upvalueindex(uv + UV_HANDLERS), H_ADOPT);
  lua_pushvalue(L, ai);
  if (lua_pcall(L, 1, 1, base + S_MSGH) != 0 || !lua_isnil(L, -1)) dl_keep_first(L, base);
  else lua_pop(L, 1);
}
