/* lua_track.c - the Lua binding of tracks: their state, the changes a
 * script makes to them (stop, weight, speed, seek, restart), their
 * callbacks' slot and dispatch (lua/anim/runtime/animator.lua and
 * dispatch.lua keep the callbacks), finalized. */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

typedef anim_track_box track_box;

/* ---- tracks ------------------------------------------------------------- */

#define check_track anim_lua_checktrack

/* By the collector or by hand.  The collector finalizes a track once
 * nothing plays it (it ended, or its animator goes too); by hand, a track
 * may still be playing: it ends at once (firing nothing more: its
 * callbacks are gone with it), and its animator plays on without it. */
static int track_gc(lua_State *L) {
  track_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  if (b->t) {
    anim_track_end_now(b->t);
    anim_track_release(b->t);
  }
  b->t = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_TRACK);
  return 0;
}

/* core.track_uservalue(track, n) -> clip (1), animator (2), callbacks (3),
 * marker callbacks by marker (4), the clip's marker table (5) (of a
 * finalized track too) */
static int track_uservalue(lua_State *L) {
  int n = (int)anim_lua_checkrange(L, 2, 1, ANIM_UV_TRACK_COUNT, "user value");
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  lua_getiuservalue(L, 1, n);
  return 1;
}

/* core.track_set_dispatch(track, n, table | nil): what the delivery from C
 * reads of a track's markers (lua_deliver.c), its user value 4 (its
 * marker callbacks by marker, or false: too many) or 5 (its clip's marker
 * table), made by runtime/dispatch.lua */
static int track_set_dispatch(lua_State *L) {
  int n = (int)anim_lua_checkrange(L, 2, ANIM_UV_TRACK_BY_MARKER, ANIM_UV_TRACK_MARKS, "user value");
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  luaL_argcheck(L, lua_istable(L, 3) || lua_isnil(L, 3) || (n == ANIM_UV_TRACK_BY_MARKER && lua_isboolean(L, 3) && !lua_toboolean(L, 3)), 3,
                "table or nil expected (or false for 4)");
  lua_settop(L, 3);
  anim_lua_set_dispatch(L, 1, n);
  return 0;
}

/* core.track_slot(track): gives a clip's track playing on an animator its
 * slot (lua_slots.c: its entries are delivered through it); once
 * (nothing for a track that has one, or a finalized one).
 * core.track_unslot(track) -> its slot, 0 when it had none: takes it back
 * (the track left its animator's live tracks). */
static int track_slot(lua_State *L) {
  anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  anim_lua_slot(L, 1);
  return 0;
}

static int track_unslot(lua_State *L) {
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_TRACK)) anim_lua_checkbox(L, 1, ANIM_BOX_TRACK);
  lua_pushinteger(L, anim_lua_unslot(L, 1));
  return 1;
}

static int track_state(lua_State *L) {
  anim_track *t = check_track(L, 1);
  lua_pushnumber(L, anim_track_time(t));
  lua_pushnumber(L, anim_track_speed(t));
  lua_pushnumber(L, anim_track_weight(t));
  lua_pushboolean(L, anim_track_playing(t));
  lua_pushinteger(L, (lua_Integer)anim_track_loops(t));
  lua_pushnumber(L, anim_track_fade(t));
  lua_pushinteger(L, (lua_Integer)anim_track_id(t));
  return 7;
}

static int track_time(lua_State *L) {
  lua_pushnumber(L, anim_track_time(check_track(L, 1)));
  return 1;
}

static int track_stop(lua_State *L) {
  anim_track_stop(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static int track_adjust_weight(lua_State *L) {
  anim_track_adjust_weight(check_track(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3));
  return 0;
}

static int track_adjust_speed(lua_State *L) {
  anim_track_adjust_speed(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

/* core.track_set_loop(track, mode): play's loop mode (a code; -1: the clip's) */
static int track_set_loop(lua_State *L) {
  anim_track_set_loop(check_track(L, 1), (int)luaL_checkinteger(L, 2));
  return 0;
}

static int track_seek(lua_State *L) {
  anim_track_seek(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

static int track_restart(lua_State *L) {
  anim_track_restart(check_track(L, 1), luaL_checknumber(L, 2));
  return 0;
}

/* core.track_hear(track, mask): as core.animator_hear (lua_animator.c) */
static int track_hear(lua_State *L) {
  anim_track_hear(anim_lua_checktrack(L, 1), (unsigned)anim_lua_checkrange(L, 2, 0, ANIM_HEAR_ALL, "mask"));
  return 0;
}

static const luaL_Reg funcs[] = {
  {"track_hear", track_hear},
  {"track_uservalue", track_uservalue},
  {"track_set_dispatch", track_set_dispatch},
  {"track_slot", track_slot},
  {"track_unslot", track_unslot},
  {"track_state", track_state},
  {"track_time", track_time},
  {"track_stop", track_stop},
  {"track_adjust_weight", track_adjust_weight},
  {"track_adjust_speed", track_adjust_speed},
  {"track_seek", track_seek},
  {"track_set_loop", track_set_loop},
  {"track_restart", track_restart},
  {NULL, NULL}
};

void anim_lua_open_track(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_TRACK, track_gc, "track_metatable");
  luaL_setfuncs(L, funcs, 0);
}
