/* lua_deliver.c - an animator's queued callbacks delivered from C (issue
 * 24: a protected call and a few raw table reads a callback, instead of a
 * Lua loop over the queue with a call into C per entry).  It delivers what most
 * updates queue -- markers, events and sounds of a clip's track, a
 * track's looped and stopped -- exactly as the Lua side's `deliver` does
 * (lua/anim/runtime/animator.lua: the same tables read, the same
 * callbacks in the same order with the same arguments, each in a
 * protected call with debug.traceback as its message handler, the first
 * error kept), and stops at the first entry it leaves to the Lua side:
 * a `plays` item (it starts a clip), an `ended` (the live tracks change),
 * an item of a blend space's point, an animator finalized by one of the
 * callbacks, or Lua tables not as the Lua side makes them.  The Lua side
 * then delivers from that entry on and raises the first error.  Nothing
 * is delivered here where a callback could yield (in a coroutine: the
 * Lua side runs each callback in a coroutine of its own there).
 *
 * The Lua side's tables, read raw (keys are upvalues: nothing is
 * interned, so nothing allocates outside the protected calls):
 *   st = the animator's state: live = { [track id] = track }; on_marker,
 *        on_event, on_sound = lists
 *   a track (its user values): 1 its clip, 3 its callbacks = { marker =
 *        { [name] = list }, looped, stopped } (st.cbs[id] and st.src[id]
 *        of the Lua side are the same)
 *   a list: { connection, ... }, connection.fn the function
 *   a clip's info (its first user value): markers[i] = { name, value },
 *        events[i] = { name, payload }, sounds[i] = { sound, volume, pitch } */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* The upvalues of the functions that deliver: the metatable of animators,
 * debug.traceback, then the keys, in this order
 * (anim_lua_pushdeliver pushes them). */
enum {
  UV_ANIMATOR_MT = 1, UV_TRACEBACK,
  K_LIVE, K_ON_MARKER, K_ON_EVENT, K_ON_SOUND, K_MARKER, K_LOOPED, K_STOPPED, K_FN,
  K_MARKERS, K_EVENTS, K_SOUNDS, K_NAME, K_VALUE, K_PAYLOAD, K_SOUND, K_VOLUME, K_PITCH,
  UV_COUNT = K_PITCH
};
static const char *const keys[] = {"live", "on_marker", "on_event", "on_sound", "marker",
                                   "looped", "stopped", "fn", "markers", "events", "sounds", "name",
                                   "value", "payload", "sound", "volume", "pitch"};

int anim_lua_pushdeliver(lua_State *L) {
  size_t i;
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  lua_getglobal(L, "debug");
  if (lua_type(L, -1) == LUA_TTABLE) lua_getfield(L, -1, "traceback");
  else lua_pushnil(L);
  lua_remove(L, -2);
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++) lua_pushstring(L, keys[i]);
  return UV_COUNT;
}

/* (a live box found by the metatable in upvalue 1; a finalized one, or
 * nothing, as anim_lua_testbox_any finds it) */
anim_animator_box *anim_lua_deliver_animator(lua_State *L, int idx) {
  anim_animator_box *b = anim_lua_animator_at(L, idx, lua_upvalueindex(UV_ANIMATOR_MT));
  return b ? b : anim_lua_testbox_any(L, idx, ANIM_BOX_ANIMATOR);
}

/* t[key k] (t an absolute index), pushed; returns its type. */
static int getk(lua_State *L, int t, int k) {
  lua_pushvalue(L, lua_upvalueindex(k));
  return lua_rawget(L, t);  /* (the type: lua_compat.h before 5.3) */
}

/* t[i], pushed; returns its type (any integer: ids are lua_Integers, and
 * lua_rawgeti takes an int before 5.3) */
static int geti(lua_State *L, int t, lua_Integer i) {
#if LUA_VERSION_NUM >= 503
  return lua_rawgeti(L, t, i);
#else
  lua_pushinteger(L, i);
  return lua_rawget(L, t);
#endif
}

/* Whether a callback called from here could yield (then the Lua side
 * delivers): 5.3+ say so; before, only the main thread surely cannot. */
static int may_yield(lua_State *L) {
#if LUA_VERSION_NUM >= 503
  return lua_isyieldable(L);
#else
  int main = lua_pushthread(L);
  lua_pop(L, 1);
  return !main;
#endif
}

/* The stack slots of a delivery, from base + 1 on. */
enum { S_MSGH = 1, S_ERR, S_LIVE, S_TRACK, S_CBS, S_INFO, S_COUNT = S_INFO };

/* Calls fn of each connection of the list at `list` (when a table) with
 * the nargs values on the top of the stack, which it pops; the first error
 * goes to the slot base + S_ERR. */
static void call_list(lua_State *L, int base, int list, int nargs) {
  int top = lua_gettop(L) - nargs;
  if (lua_type(L, list) == LUA_TTABLE) {
    int i, n = (int)lua_rawlen(L, list);
    for (i = 1; i <= n; i++) {
      int j;
      if (geti(L, list, i) == LUA_TTABLE) getk(L, lua_gettop(L), K_FN);
      else lua_pushnil(L);  /* (not a connection: "attempt to call a nil value") */
      lua_remove(L, -2);
      if (i < n) {
        for (j = 1; j <= nargs; j++) lua_pushvalue(L, top + j);
      } else {
        lua_insert(L, top + 1);  /* the last takes the arguments themselves */
      }
      if (lua_pcall(L, nargs, 0, base + S_MSGH) != 0) {
        if (lua_isnil(L, base + S_ERR)) lua_replace(L, base + S_ERR);
        else lua_pop(L, 1);
      }
    }
  }
  lua_settop(L, top);
}

int anim_lua_deliver(lua_State *L, anim_animator_box *b, int sti, int n) {
  int base, i = 1;
  long long last = -1;
  luaL_checkstack(L, S_COUNT + 16, NULL);
  base = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(UV_TRACEBACK));
  lua_pushnil(L);
  if (n <= 0 || !b || !b->a || lua_type(L, base + S_MSGH) != LUA_TFUNCTION || lua_type(L, sti) != LUA_TTABLE ||
      may_yield(L) || getk(L, sti, K_LIVE) != LUA_TTABLE) {
    lua_settop(L, base);
    lua_pushinteger(L, 1);
    lua_pushnil(L);
    return 2;
  }
  lua_settop(L, base + S_COUNT);
  anim_lua_setdelivering(b, ANIM_DELIVERING);
  for (i = 1; i <= n; i++) {
    const anim_event *e;
    const anim_item *it = NULL;
    long long id;
    if (!b->a) break;  /* finalized by a callback: the Lua side says so */
    if (i > anim_animator_nevents(b->a)) { i = n + 1; break; }
    e = anim_animator_event(b->a, i - 1);
    if (e->type == ANIM_EV_ENDED || anim_track_point(e->track) >= 0) break;
    if (e->type == ANIM_EV_ITEM) {
      it = &anim_track_clip(e->track)->items[e->item];
      if (it->kind == ANIM_ITEM_PLAY) break;
    }
    id = anim_track_id(e->track);
    if (geti(L, base + S_LIVE, id) == LUA_TNIL) { lua_pop(L, 1); continue; }  /* not a live track */
    if (id != last) {
      /* a track's user values: its clip (whose first is the clip's info)
       * and its callbacks table, the one its connections go to and
       * st.cbs[id] names (nothing of a box is read here: only Lua values) */
      if (lua_type(L, -1) != LUA_TUSERDATA) break;
      lua_replace(L, base + S_TRACK);
      if (lua_getiuservalue(L, base + S_TRACK, 3) != LUA_TTABLE) break;
      lua_replace(L, base + S_CBS);
      if (lua_getiuservalue(L, base + S_TRACK, 1) == LUA_TUSERDATA) lua_getiuservalue(L, -1, 1);
      else lua_pushnil(L);
      lua_replace(L, base + S_INFO);
      lua_pop(L, 1);
      last = id;
    } else {
      lua_pop(L, 1);
    }
    if (it) {
      int top, m;
      static const int lists[] = {K_MARKERS, K_EVENTS, K_SOUNDS};
      if (lua_type(L, base + S_INFO) != LUA_TTABLE || getk(L, base + S_INFO, lists[it->kind]) != LUA_TTABLE ||
          geti(L, lua_gettop(L), it->index + 1) != LUA_TTABLE)
        break;
      m = lua_gettop(L);
      top = m;
      if (it->kind == ANIM_ITEM_MARKER) {
        /* per-track lists first, then the animator's (both read before) */
        getk(L, m, K_NAME);                              /* top + 1 */
        getk(L, m, K_VALUE);                             /* top + 2 */
        if (getk(L, base + S_CBS, K_MARKER) == LUA_TTABLE) {
          lua_pushvalue(L, top + 1);
          lua_rawget(L, -2);
        } else {
          lua_pushnil(L);
        }
        lua_remove(L, -2);                               /* top + 3: per[name] */
        getk(L, sti, K_ON_MARKER);                       /* top + 4 */
        lua_pushvalue(L, base + S_TRACK);
        lua_pushvalue(L, top + 2);
        lua_pushnumber(L, e->late);
        call_list(L, base, top + 3, 3);
        lua_pushvalue(L, base + S_TRACK);
        lua_pushvalue(L, top + 1);
        lua_pushvalue(L, top + 2);
        lua_pushnumber(L, e->late);
        call_list(L, base, top + 4, 4);
      } else if (it->kind == ANIM_ITEM_EVENT) {
        getk(L, sti, K_ON_EVENT);                        /* top + 1 */
        lua_pushvalue(L, base + S_TRACK);
        getk(L, m, K_NAME);
        getk(L, m, K_PAYLOAD);
        lua_pushnumber(L, e->late);
        call_list(L, base, top + 1, 4);
      } else {
        getk(L, sti, K_ON_SOUND);                        /* top + 1 */
        lua_pushvalue(L, base + S_TRACK);
        getk(L, m, K_SOUND);
        getk(L, m, K_VOLUME);
        getk(L, m, K_PITCH);
        lua_pushnumber(L, e->late);
        call_list(L, base, top + 1, 5);
      }
    } else {
      getk(L, base + S_CBS, e->type == ANIM_EV_LOOPED ? K_LOOPED : K_STOPPED);
      lua_pushvalue(L, base + S_TRACK);
      lua_pushnumber(L, e->late);
      call_list(L, base, lua_gettop(L) - 2, 2);
    }
    lua_settop(L, base + S_COUNT);
  }
  anim_lua_setdelivering(b, ANIM_IDLE);
  lua_pushinteger(L, i);
  lua_replace(L, base + S_MSGH);
  lua_settop(L, base + S_ERR);
  return 2;
}
