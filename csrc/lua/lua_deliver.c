/* lua_deliver.c - an animator's queued callbacks delivered from C (issue
 * 24: a few raw table reads and a protected call a callback, instead of a
 * Lua loop over the queue with a call into C per entry).  It delivers what
 * most updates queue -- markers, events and sounds of a clip's track, a
 * track's looped and stopped -- exactly as the Lua side's `deliver` does
 * (lua/anim/runtime/deliver.lua: the same callbacks in the same order
 * with the same arguments, each in a protected call with debug.traceback
 * as its message handler, the first error kept), and stops at the first
 * entry it leaves to the Lua side: a `plays` item (it starts a clip), an
 * `ended` (the live tracks change), an item of a blend space's point, an
 * entry of a track without a slot, a marker of a track without its marker
 * table, an animator finalized by one of the callbacks, or Lua tables not
 * as the Lua side makes them.  The Lua side then delivers from that
 * entry on and raises the first error.  Nothing is delivered here where a
 * callback could yield (in a coroutine: the Lua side runs each callback in
 * a coroutine of its own there).
 *
 * The Lua side's tables, read raw (keys are upvalues: nothing is
 * interned, so nothing allocates outside the protected calls):
 *   the slot table (anim_lua_pushslots): a live clip track's entries carry
 *        its slot s (anim_event.slot), [4s - 3] the track, [4s - 2] and
 *        [4s - 1] its user values 4 and 5, [4s] the core track
 *   the animator's user values: 3, 4, 5 its on_marker, on_event and
 *        on_sound callbacks: the function of the only connection, the list
 *        of connections when several, or nil
 *   a track (its user values): 1 its clip (whose first user value is the
 *        clip's info), 3 its callbacks = { looped, stopped, ... } (st.cbs[id]
 *        of the Lua side), 4 its marker callbacks by marker, nil (none) or
 *        false (too many to keep: the Lua side delivers its markers): { [k]
 *        = the function of the only connection, or the list of connections
 *        when several, [-k] = marker k's value where [k] is set }, 5 its
 *        clip's marker table, or nil: [2k - 1] = marker k's name, [2k] = its
 *        value (runtime/dispatch.lua)
 *   a list: { connection, ... }, connection.fn the function
 *   a clip's info: events[i] = { name, payload }, sounds[i] = { sound,
 *        volume, pitch } */
#include <limits.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* The upvalues of the functions that deliver: the metatable of animators,
 * debug.traceback, the slot table, then the keys, in this order
 * (anim_lua_pushdeliver pushes them). */
enum {
  UV_ANIMATOR_MT = 1, UV_TRACEBACK, UV_SLOTS,
  K_LOOPED, K_STOPPED, K_FN,
  K_EVENTS, K_SOUNDS, K_NAME, K_PAYLOAD, K_SOUND, K_VOLUME, K_PITCH,
  UV_COUNT = K_PITCH
};
static const char *const keys[] = {"looped", "stopped", "fn",
                                   "events", "sounds", "name", "payload", "sound", "volume", "pitch"};

/* The message handler when there is no debug.traceback: the message as
 * it is. */
static int message_as_is(lua_State *L) {
  (void)L;
  return 1;
}

int anim_lua_pushdeliver(lua_State *L) {
  size_t i;
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  lua_getglobal(L, "debug");
  if (lua_type(L, -1) == LUA_TTABLE) lua_getfield(L, -1, "traceback");
  else lua_pushnil(L);
  lua_remove(L, -2);
  if (lua_type(L, -1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    lua_pushcfunction(L, message_as_is);
  }
  anim_lua_pushslots(L);
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++) lua_pushstring(L, keys[i]);
  return UV_COUNT;
}

/* (a live box found by the metatable in upvalue 1; a finalized one, or
 * nothing, as anim_lua_testbox_any finds it) */
anim_animator_box *anim_lua_deliver_animator(lua_State *L, int idx) {
  anim_animator_box *b = anim_lua_animator_at(L, idx, lua_upvalueindex(UV_ANIMATOR_MT));
  return b ? b : anim_lua_testbox_any(L, idx, ANIM_BOX_ANIMATOR);
}


/* t[i], pushed; returns its type (any integer: ids are lua_Integers, and
 * lua_rawgeti takes an int before 5.3) */
#if LUA_VERSION_NUM >= 503
#define geti(L, t, i) lua_rawgeti((L), (t), (i))
#else
static int geti(lua_State *L, int t, lua_Integer i) {
  t = lua_absindex(L, t);
  lua_pushinteger(L, i);
  return lua_rawget(L, t);
}
#endif

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

/* ---- the slot table (lua_helpers.h) ----------------------------------------
 * What an entry of a track needs, found by the slot number it carries
 * (anim_event.slot) in one table of the state's instead of the animator's
 * live tracks, the track's user values and their tables: a frame of a
 * thousand characters would find each of those out of the processor's
 * cache. */
#define SLOTS_KEY "anim.slots"
/* Entry k of slot s (codes.h, ANIM_SLOTS_CODES): 4s - k. */
#define SLOT_AT(s, k) (ANIM_SLOTS_WIDTH * (lua_Integer)(s) - (k))
/* The entry of slot s that holds the track's user value n (its marker
 * callbacks by marker or its clip's marker table). */
#define SLOT_OF_UV(s, n) SLOT_AT(s, (n) == ANIM_UV_TRACK_BY_MARKER ? ANIM_SLOTS_BY_MARKER : ANIM_SLOTS_MARKS)

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

/* slots[i] = the value on the top of the stack (popped); slots at st. */
static void seti(lua_State *L, int st, lua_Integer i) {
#if LUA_VERSION_NUM >= 503
  lua_rawseti(L, st, i);
#else
  st = lua_absindex(L, st);
  lua_pushinteger(L, i);
  lua_insert(L, -2);
  lua_rawset(L, st);
#endif
}

static lua_Integer slot_int(lua_State *L, int st, lua_Integer i) {
  lua_Integer v;
  geti(L, st, i);
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
    lua_pushinteger(L, slot_int(L, st, SLOT_AT(s, ANIM_SLOTS_KEY)));
  } else {
    s = slot_int(L, st, 0) + 1;
    if (s > INT_MAX / ANIM_SLOTS_WIDTH) luaL_error(L, "too many tracks");
    lua_pushinteger(L, s);
    seti(L, st, 0);
    lua_pushinteger(L, 0);
  }
  seti(L, st, -1);
  lua_pushvalue(L, idx);
  seti(L, st, SLOT_AT(s, ANIM_SLOTS_TRACK));
  for (n = ANIM_UV_TRACK_BY_MARKER; n <= ANIM_UV_TRACK_MARKS; n++) {
    lua_getiuservalue(L, idx, n);
    seti(L, st, SLOT_OF_UV(s, n));
  }
  lua_pushlightuserdata(L, b->t);
  seti(L, st, SLOT_AT(s, ANIM_SLOTS_KEY));
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
    seti(L, -2, SLOT_AT(s, i));
  }
  geti(L, -1, -1);
  seti(L, -2, SLOT_AT(s, ANIM_SLOTS_KEY));
  lua_pushinteger(L, s);
  seti(L, -2, -1);
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
    seti(L, -2, SLOT_OF_UV(b->slot, n));
    lua_pop(L, 1);
  }
  lua_setiuservalue(L, idx, n);
}

/* A delivery's stack, from base + 1 on: the message handler, the first
 * error, then what a run of one track's entries reads from its slot: the
 * track and its marker callbacks by marker, and (when an entry needs one
 * of them, all made nil at once, each read when first needed) its clip's
 * marker table, its callbacks table and its clip's info.  Above them, an
 * entry's values.  The stack's height between entries is kept in `run`
 * rather than asked for: every call into Lua counts on this path. */
enum { S_MSGH = 1, S_ERR, S_TRACK, S_BY, S_MARKS, S_CBS, S_INFO, S_COUNT = S_INFO };

typedef struct {
  lua_State *L;
  int base, ai;  /* ai: the animator's stack index */
  int run;       /* the height between entries: base + S_BY, S_MARKS or S_COUNT */
  int s;         /* the run's slot */
  int by, marks; /* the types of the run's S_BY and S_MARKS (LUA_TNONE: not read) */
  int called;    /* a callback ran since S_BY was read (it may have replaced it) */
  unsigned long long unslots;  /* the state's count of unslots when the run's slot was checked */
  int uv;        /* the delivery's upvalues start at lua_upvalueindex(uv + 1) */
} deliv;

/* t[key k] (t an absolute index), pushed; returns its type. */
static int getk(deliv *d, int t, int k) {
  lua_pushvalue(d->L, lua_upvalueindex(d->uv + k));
  return lua_rawget(d->L, t);  /* (the type: lua_compat.h before 5.3) */
}

/* A protected call of the function below its nargs arguments, above the
 * delivery's handler at base + S_MSGH; the first error goes to base +
 * S_ERR. */
static ANIM_LUA_HOT void pcall_first(lua_State *L, int base, int nargs) {
  if (lua_pcall(L, nargs, 0, base + S_MSGH) != 0) {
    if (lua_isnil(L, base + S_ERR)) lua_replace(L, base + S_ERR);
    else lua_pop(L, 1);
  }
}

/* pcall_first in a run, which then reads the track's callbacks again. */
static void pcall_keep(deliv *d, int nargs) {
  d->called = 1;
  pcall_first(d->L, d->base, nargs);
}

/* Calls fn of each connection of the list at `list` (when a table) with
 * the nargs values on the top of the stack, which it pops. */
static void call_list(deliv *d, int list, int nargs) {
  lua_State *L = d->L;
  int top = lua_gettop(L) - nargs;
  if (lua_type(L, list) == LUA_TTABLE) {
    int i, j, n = (int)lua_rawlen(L, list);
    luaL_checkstack(L, nargs + 2, NULL);
    for (i = 1; i <= n; i++) {
      if (geti(L, list, i) == LUA_TTABLE) getk(d, lua_gettop(L), K_FN);
      else lua_pushnil(L);  /* (not a connection: "attempt to call a nil value") */
      lua_remove(L, -2);
      if (i < n) {
        for (j = 1; j <= nargs; j++) lua_pushvalue(L, top + j);
      } else {
        lua_insert(L, top + 1);  /* the last takes the arguments themselves */
      }
      pcall_keep(d, nargs);
    }
  }
  lua_settop(L, top);
}

/* Slot t (S_MARKS, S_CBS or S_INFO) of the run, read when first needed:
 * whether it is a table.  Only between entries (it may set the stack's
 * height). */
static int slot(deliv *d, int t) {
  lua_State *L = d->L;
  int base = d->base, ty;
  if (t == S_MARKS && d->marks != LUA_TNONE) return d->marks == LUA_TTABLE;
  if (d->run != base + S_COUNT) {
    lua_settop(L, base + S_COUNT);
    d->run = base + S_COUNT;
  }
  ty = lua_type(L, base + t);
  if (ty != LUA_TNIL) return ty == LUA_TTABLE;
  if (t == S_MARKS) {
    ty = d->marks = geti(L, lua_upvalueindex(d->uv + UV_SLOTS), SLOT_AT(d->s, ANIM_SLOTS_MARKS));
  } else if (t == S_CBS) {
    ty = lua_getiuservalue(L, base + S_TRACK, ANIM_UV_TRACK_CALLBACKS);
  } else if (lua_getiuservalue(L, base + S_TRACK, ANIM_UV_TRACK_SOURCE) == LUA_TUSERDATA) {
    ty = lua_getiuservalue(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_replace(L, base + t);
  return ty == LUA_TTABLE;
}

/* Calls the callbacks at cb (the function of the only connection, the list
 * of connections, or nothing) with the nargs values on the top of the
 * stack, which it pops. */
static void call_callbacks(deliv *d, int cb, int nargs) {
  lua_State *L = d->L;
  int t = lua_type(L, cb);
  if (t == LUA_TFUNCTION) {
    lua_pushvalue(L, cb);
    lua_insert(L, -nargs - 1);
    pcall_keep(d, nargs);
  } else if (t == LUA_TTABLE) {
    call_list(d, cb, nargs);
  } else {
    lua_pop(L, nargs);
  }
}

/* Marker k (0-based) of the run's track: the callbacks its track connected
 * to its name, then (when the animator hears markers) the animator's
 * on_marker callbacks, both read before either is called.  0 when the
 * track keeps no callbacks by marker (false: too many) or, where its
 * marker table is needed (for the name, or the value of a marker without
 * callbacks of the track), has none. */
static int deliver_marker(deliv *d, int k, double late, int all) {
  lua_State *L = d->L;
  int base = d->base, top, per;
  lua_Integer j = (lua_Integer)k + 1;
  if (d->called) {
    /* (a callback may have (dis)connected one of the track's: the table
     * is replaced then, never changed) */
    d->by = lua_getiuservalue(L, base + S_TRACK, ANIM_UV_TRACK_BY_MARKER);
    lua_replace(L, base + S_BY);
    d->called = 0;
  }
  if (d->by == LUA_TBOOLEAN || ((all || d->by != LUA_TTABLE) && !slot(d, S_MARKS))) return 0;
  top = d->run;
  if (d->by == LUA_TTABLE) {
    per = geti(L, base + S_BY, j);  /* top + 1: its callbacks */
  } else {
    lua_pushnil(L);
    per = LUA_TNIL;
  }
  if (!all) {
    if (per == LUA_TFUNCTION) {
      /* the usual marker: one callback of its track ([-k]: the value) */
      lua_pushvalue(L, base + S_TRACK);
      geti(L, base + S_BY, -j);
      lua_pushnumber(L, late);
      pcall_keep(d, 3);
      return 1;
    }
    if (per != LUA_TTABLE) {  /* (none: heard for a marker of another name) */
      lua_pop(L, 1);
      return 1;
    }
  }
  /* top + 2: the value */
  if (per == LUA_TFUNCTION || per == LUA_TTABLE) geti(L, base + S_BY, -j);
  else geti(L, base + S_MARKS, 2 * j);
  if (all) {
    geti(L, base + S_MARKS, 2 * j - 1);  /* top + 3: the name */
    /* top + 4: the animator's (its third user value: its on_marker
     * callbacks, as lua_animator.c keeps them) */
    lua_getiuservalue(L, d->ai, ANIM_UV_ANIMATOR_ON_MARKER);
  }
  lua_pushvalue(L, base + S_TRACK);
  lua_pushvalue(L, top + 2);
  lua_pushnumber(L, late);
  call_callbacks(d, top + 1, 3);
  if (all) {
    lua_pushvalue(L, base + S_TRACK);
    lua_pushvalue(L, top + 3);
    lua_pushvalue(L, top + 2);
    lua_pushnumber(L, late);
    call_callbacks(d, top + 4, 4);
  }
  lua_settop(L, top);
  return 1;
}

/* Event or sound k (0-based) of the run's track's clip, to the animator's
 * on_event or on_sound (its fourth and fifth user values); 0 when the
 * tables are not as the Lua side makes them. */
static int deliver_item(deliv *d, int kind, int k, double late) {
  lua_State *L = d->L;
  int m, top;
  if (!slot(d, S_INFO)) return 0;
  top = d->run;
  if (getk(d, d->base + S_INFO, kind == ANIM_ITEM_EVENT ? K_EVENTS : K_SOUNDS) != LUA_TTABLE ||
      geti(L, top + 1, (lua_Integer)k + 1) != LUA_TTABLE) {
    lua_settop(L, top);
    return 0;
  }
  m = top + 2;
  lua_getiuservalue(L, d->ai, kind == ANIM_ITEM_EVENT ? ANIM_UV_ANIMATOR_ON_EVENT : ANIM_UV_ANIMATOR_ON_SOUND);  /* top + 3 */
  lua_pushvalue(L, d->base + S_TRACK);
  if (kind == ANIM_ITEM_EVENT) {
    getk(d, m, K_NAME);
    getk(d, m, K_PAYLOAD);
    lua_pushnumber(L, late);
    call_callbacks(d, top + 3, 4);
  } else {
    getk(d, m, K_SOUND);
    getk(d, m, K_VOLUME);
    getk(d, m, K_PITCH);
    lua_pushnumber(L, late);
    call_callbacks(d, top + 3, 5);
  }
  lua_settop(L, top);
  return 1;
}

/* A track's looped or stopped, to its callbacks; 0 when its callbacks
 * table is not a table. */
static int deliver_state(deliv *d, int type, double late) {
  lua_State *L = d->L;
  if (!slot(d, S_CBS)) return 0;
  getk(d, d->base + S_CBS, type == ANIM_EV_LOOPED ? K_LOOPED : K_STOPPED);
  lua_pushvalue(L, d->base + S_TRACK);
  lua_pushnumber(L, late);
  call_list(d, d->run + 1, 2);
  lua_settop(L, d->run);
  return 1;
}

/* Whether slot s still holds the core track t: a callback may have taken
 * its track out (finalized, or its animator) and given the slot to
 * another. */
static int slot_holds(lua_State *L, int sl, int s, const anim_track *t) {
  int same = geti(L, sl, SLOT_AT(s, ANIM_SLOTS_KEY)) == LUA_TLIGHTUSERDATA &&
             lua_touserdata(L, -1) == (const void *)t;
  lua_pop(L, 1);
  return same;
}

/* anim_lua_deliver_open, inline in anim_lua_deliver */
static ANIM_LUA_HOT int open_base(lua_State *L, int uv) {
  int base = lua_gettop(L);
  /* The callers come with two values on the stack: the room every C
   * function has (LUA_MINSTACK, 20) holds the slots and what an entry
   * pushes before call_list, which checks for its own. */
  if (base > 2) luaL_checkstack(L, S_COUNT + 10, NULL);
  /* (the handler is a function: anim_lua_pushdeliver) */
  lua_pushvalue(L, lua_upvalueindex(uv + UV_TRACEBACK));
  lua_pushnil(L);
  return base;
}

/* The usual update's queue, delivered without the loop's bookkeeping: a
 * single entry, a marker of a clip's track whose marker callbacks hold a
 * function for it, on an animator that does not hear markers itself.
 * The same reads, checks and call as the loop below makes for it (a new
 * run, then deliver_marker's first case), the function read first so that
 * it and its arguments come in place.  1 when delivered; 0 with nothing
 * done when the entry is not such a one (the loop then takes it). */
static ANIM_LUA_HOT int deliver_lone_marker(lua_State *L, int uv, int base, anim_animator_box *b, int n) {
  int sl = lua_upvalueindex(uv + UV_SLOTS), nev = 0;
  const anim_event *e = n == 1 && b && b->a && !may_yield(L) ? anim_animator_events(b->a, &nev) : NULL;
  lua_Integer s, j;
  if (nev < 1) return 0;
  s = e->slot;
  j = (lua_Integer)e->index + 1;
  if (e->type != ANIM_EV_ITEM || e->kind != ANIM_ITEM_MARKER || e->point >= 0 || s <= 0 ||
      b->acct->unslots != b->unslots || (anim_animator_hears(b->a) & ANIM_HEAR_MARKER))
    return 0;
  /* base + 3: the track's marker callbacks, then the function, the
   * track, the marker's value ([-j]) and how late */
  if (geti(L, sl, SLOT_AT(s, ANIM_SLOTS_BY_MARKER)) != LUA_TTABLE || geti(L, base + S_TRACK, j) != LUA_TFUNCTION ||
      geti(L, sl, SLOT_AT(s, ANIM_SLOTS_TRACK)) != LUA_TUSERDATA) {
    lua_settop(L, base + S_ERR);
    return 0;
  }
  geti(L, base + S_TRACK, -j);
  lua_pushnumber(L, e->late);
  anim_lua_setdelivering(b, ANIM_DELIVERING);
  pcall_first(L, base, 3);
  anim_lua_setdelivering(b, ANIM_IDLE);
  return 1;  /* (the table of callbacks left above: the callers set the top) */
}

/* anim_lua_deliver_from past the lone marker: the entries one by one. */
static ANIM_LUA_COLD int deliver_loop(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n) {
  deliv d;
  int i = 1, last = 0, sl = lua_upvalueindex(uv + UV_SLOTS), nev;
  const anim_event *q;
  d.L = L;
  d.uv = uv;
  d.ai = ai;
  d.base = base;
  /* (the slot table is always one: anim_lua_pushslots) */
  if (n <= 0 || !b || !b->a || may_yield(L)) return 1;
  q = anim_animator_events(b->a, &nev);
  d.run = d.base + S_ERR;
  anim_lua_setdelivering(b, ANIM_DELIVERING);
  for (i = 1; i <= n; i++) {
    const anim_event *e;
    int ok, s;
    /* (q stays the queue: no callback can update the animator while it
     * delivers, nor restore it; finalized, it has none) */
    if (!b->a) break;  /* finalized by a callback: the Lua side says so */
    if (i > nev) { i = n + 1; break; }
    e = &q[i - 1];
    if (e->type == ANIM_EV_ENDED || e->point >= 0 || e->kind == ANIM_ITEM_PLAY || (s = e->slot) <= 0) break;
    /* A track taken out of its slot since its entries were queued (the
     * state counts those) has left the live tracks: its entries are
     * passed over, as the Lua side passes over a track no longer in
     * st.live. */
    if (s != last) {
      /* a new run: the track, its marker callbacks and marker table */
      if (d.run != d.base + S_ERR) {
        lua_settop(L, d.base + S_ERR);
        d.run = d.base + S_ERR;
      }
      last = 0;
      if (b->acct->unslots != b->unslots && !slot_holds(L, sl, s, e->track)) continue;
      if (geti(L, sl, SLOT_AT(s, ANIM_SLOTS_TRACK)) != LUA_TUSERDATA) {
        lua_settop(L, d.base + S_ERR);
        break;
      }
      d.by = geti(L, sl, SLOT_AT(s, ANIM_SLOTS_BY_MARKER));
      d.run = d.base + S_BY;
      d.s = s;
      d.marks = LUA_TNONE;
      /* (the marker table too where markers need it: the animator hears
       * them, or the track keeps no callbacks by marker) */
      if (d.by != LUA_TTABLE || (anim_animator_hears(b->a) & ANIM_HEAR_MARKER)) {
        d.marks = geti(L, sl, SLOT_AT(s, ANIM_SLOTS_MARKS));
        d.run = d.base + S_MARKS;
      }
      d.called = 0;
      d.unslots = b->acct->unslots;
      last = s;
    } else if (b->acct->unslots != d.unslots) {
      if (!slot_holds(L, sl, s, e->track)) continue;
      d.unslots = b->acct->unslots;
    }
    if (e->type != ANIM_EV_ITEM) ok = deliver_state(&d, e->type, e->late);
    else if (e->kind != ANIM_ITEM_MARKER) ok = deliver_item(&d, e->kind, e->index, e->late);
    else ok = deliver_marker(&d, e->index, e->late, (anim_animator_hears(b->a) & ANIM_HEAR_MARKER) != 0);
    if (!ok) break;
  }
  anim_lua_setdelivering(b, ANIM_IDLE);
  return i;
}

/* The lone marker inline, the loop out of line: the usual update pays
 * neither the loop's registers nor another call. */
static ANIM_LUA_HOT int deliver_from(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n) {
  if (deliver_lone_marker(L, uv, base, b, n)) return 2;
  return deliver_loop(L, uv, base, b, ai, n);
}

int anim_lua_deliver_from(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n) {
  return deliver_from(L, uv, base, b, ai, n);
}

int anim_lua_deliver_open(lua_State *L, int uv) { return open_base(L, uv); }

int anim_lua_deliver(lua_State *L, anim_animator_box *b, int ai, int n, int *err) {
  int base = open_base(L, 0);
  *err = base + S_ERR;
  return deliver_from(L, 0, base, b, ai, n);
}
