/* lua_slots.c - the slot table: what an entry of a track needs, found by
 * the slot number it carries (anim_event.slot) in one table of the
 * state's instead of the animator's live tracks, the track's user values
 * and their tables: a frame of a thousand characters would find each of
 * those out of the processor's cache.  A track gets its slot when it
 * starts playing (core.track_slot), gives it back when it leaves its
 * animator's live tracks (core.track_unslot, or the delivery's clean-up
 * of the tracks that ended: lua_deliver.c); the state counts the slots
 * given back, so that a delivery checks a slot's owner only when that
 * count moved since its queue was made. */
#include <limits.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

#define SLOTS_KEY "anim.slots"
/* The entry of slot s that holds the track's user value n (its marker
 * callbacks by marker or its clip's marker table). */
#define SLOT_OF_UV(s, n) ANIM_SLOT_AT(s, (n) == ANIM_UV_TRACK_BY_MARKER ? ANIM_SLOTS_BY_MARKER : ANIM_SLOTS_MARKS)

void anim_lua_pushslots(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SLOTS_KEY) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, SLOTS_KEY);
}

static lua_Integer slot_int(lua_State *L, int st, lua_Integer i) {
  lua_Integer v;
  anim_lua_rawgetn(L, st, i);
  v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

void anim_lua_slot(lua_State *L, int idx) {
  anim_track_box *b = lua_touserdata(L, idx);
  lua_Integer s;
  int st, n;
  idx = lua_absindex(L, idx);
  anim_lua_pushslots(L);
  st = lua_gettop(L);
  if (b->slot > 0 || !b->t) { lua_pop(L, 1); return; }
  /* (the first free slot, or a new one) */
  if ((s = slot_int(L, st, -1)) > 0) {
    lua_pushinteger(L, slot_int(L, st, ANIM_SLOT_AT(s, ANIM_SLOTS_KEY)));
  } else {
    s = slot_int(L, st, 0) + 1;
    if (s > INT_MAX / ANIM_SLOTS_WIDTH) luaL_error(L, "too many tracks");
    lua_pushinteger(L, s);
    anim_lua_rawsetn(L, st, 0);
    lua_pushinteger(L, 0);
  }
  anim_lua_rawsetn(L, st, -1);
  lua_pushvalue(L, idx);
  anim_lua_rawsetn(L, st, ANIM_SLOT_AT(s, ANIM_SLOTS_TRACK));
  for (n = ANIM_UV_TRACK_BY_MARKER; n <= ANIM_UV_TRACK_MARKS; n++) {
    lua_getiuservalue(L, idx, n);
    anim_lua_rawsetn(L, st, SLOT_OF_UV(s, n));
  }
  lua_pushlightuserdata(L, b->t);
  anim_lua_rawsetn(L, st, ANIM_SLOT_AT(s, ANIM_SLOTS_KEY));
  b->slot = (int)s;
  anim_track_set_slot(b->t, (int)s);
  lua_pop(L, 1);
}

int anim_lua_unslot(lua_State *L, int idx) {
  anim_track_box *b = lua_touserdata(L, idx);
  int s = b->slot, i;
  if (s <= 0) return 0;
  anim_lua_pushslots(L);
  for (i = ANIM_SLOTS_TRACK; i >= ANIM_SLOTS_MARKS; i--) {
    lua_pushnil(L);
    anim_lua_rawsetn(L, -2, ANIM_SLOT_AT(s, i));
  }
  anim_lua_rawgetn(L, -1, -1);
  anim_lua_rawsetn(L, -2, ANIM_SLOT_AT(s, ANIM_SLOTS_KEY));
  lua_pushinteger(L, s);
  anim_lua_rawsetn(L, -2, -1);
  lua_pop(L, 1);
  if (b->t) anim_track_set_slot(b->t, 0);
  b->slot = 0;
  anim_lua_acct_of(L)->unslots++;
  return s;
}

void anim_lua_set_dispatch(lua_State *L, int idx, int n) {
  anim_track_box *b = lua_touserdata(L, idx);
  idx = lua_absindex(L, idx);
  if (b->slot > 0) {
    anim_lua_pushslots(L);
    lua_pushvalue(L, -2);
    anim_lua_rawsetn(L, -2, SLOT_OF_UV(b->slot, n));
    lua_pop(L, 1);
  }
  lua_setiuservalue(L, idx, n);
}
