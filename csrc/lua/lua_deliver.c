/* lua_deliver.c - an animator's queued callbacks delivered: the one loop
 * over the queue (issue 24: a few raw table reads and a protected call a
 * callback, instead of a Lua loop with a call into C per entry; issue 36:
 * the only loop).  Every entry is delivered here, in order, each callback
 * in a protected call with debug.traceback as its message handler, the
 * first error kept for the caller to raise once all are delivered.  What
 * only Lua can do is a call into one of two Lua handlers registered once
 * (core.deliver_handlers, lua/anim/runtime/deliver.lua):
 *   call(batch, fn, ...) -> nil or the error: where a callback could
 *        yield (the update runs in a coroutine), each callback runs
 *        through it, in a coroutine of its own, so that a yield comes
 *        back as an error instead of suspending the update;
 *   plays(animator, item, late, in_co, batch, from) -> nil or the
 *        error: a `plays` item starts (or restarts) its library clip and
 *        calls on_play (from: the clip that held the item);
 *   dl_adopt(animator) -> nil or the error: the tracks a state machine's
 *        controller started in the update get their objects and slots
 *        (before anything is delivered: their entries then reach them);
 *   state(animator, type, layer, state, other, late, in_co, batch) -> nil
 *        or the error: a state machine's exit, transition or entry, to the
 *        controller's callbacks (lua/anim/runtime/controller.lua).
 * Every item's callback gets the clip the item came from after `late`
 * (a track's source, or a blend space's point's clip).
 * The tracks that ended leave the animator's live tracks (and their
 * slots) once the whole queue is delivered: entries after an `ended`
 * still reach their track.  An animator finalized by one of its
 * callbacks delivers nothing more; the error says so.
 *
 * The Lua side's tables, read raw (keys are upvalues: nothing is
 * interned, so nothing allocates outside the protected calls):
 *   the slot table (lua_slots.c): a live track's entries carry its slot s
 *        (anim_event.slot; a blend space's points their lead's), [4s - 3]
 *        the track, [4s - 2] and [4s - 1] its user values 4 and 5, [4s]
 *        the core track
 *   the animator's user values: 2 its state { live, cbs, src } (live: id
 *        -> track; cbs, src: id -> its callbacks table and its source),
 *        3, 4, 5 its on_marker, on_event and on_sound callbacks: the
 *        function of the only connection, the list of connections when
 *        several, or nil
 *   a track (its user values): 1 its source, a clip (whose first user
 *        value is the clip's info) or a blend space (whose first is {
 *        clips = { clip, ... } }), 3 its callbacks = { looped, stopped,
 *        ended, marker = { [name] = list } } (st.cbs[id] of the Lua side),
 *        4 its marker callbacks by marker, nil (none) or false (too many
 *        to keep: its markers are read from the clip's info) { [k] = the
 *        function of the only connection, or the list of connections when
 *        several, [-k] = marker k's value where [k] is set }, 5 its clip's
 *        marker table, or nil: [2k - 1] = marker k's name, [2k] = its value
 *        (runtime/dispatch.lua)
 *   a list: { connection, ... }, connection.fn the function
 *   a clip's info: markers[i] = { name, value }, events[i] = { name,
 *        payload }, sounds[i] = { sound, volume, pitch }, plays[i] (what
 *        the plays handler reads)
 * Tables not as the Lua side makes them are passed over. */
#include "core/graph.h"
#include "lua_deliver.h"

static const char *const keys[] = {"looped", "stopped", "ended", "fn",
                                   "events", "sounds", "name", "payload", "sound", "volume", "pitch",
                                   "markers", "marker", "value", "plays", "clips", "live", "cbs", "src"};
#define HANDLERS_KEY "anim.deliver_handlers"

/* The message handler when there is no debug.traceback: the message as
 * it is. */
static int message_as_is(lua_State *L) {
  (void)L;
  return 1;
}

int anim_lua_pushdeliver(lua_State *L) {
  size_t i;
  /* (more than the LUA_MINSTACK slots a C function is promised: without
   * this, opening the module wrote past the stack's end when it had no
   * room to spare; spec/core_open_spec.lua) */
  luaL_checkstack(L, UV_COUNT + 2, "anim.core: the delivery's upvalues");
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
  /* (one table of handlers per state: every copy of the module delivers
   * through the handlers registered last) */
  if (lua_getfield(L, LUA_REGISTRYINDEX, HANDLERS_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, HANDLERS_KEY);
  }
  anim_lua_pushfinalized(L, ANIM_BOX_ANIMATOR);
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++) lua_pushstring(L, keys[i]);
  return UV_COUNT;
}

/* core.deliver_handlers(call, plays, adopt, state): the Lua handlers (see
 * above), set once by the runtime.  call nil: the callbacks are called
 * from here wherever the update runs (Lua 5.1, whose coroutines cannot
 * yield across a protected call: a callback's yield fails where it is). */
int anim_lua_deliver_handlers(lua_State *L) {
  int h;
  if (!lua_isnil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
  for (h = H_PLAYS; h <= H_STATE; h++) luaL_checktype(L, h, LUA_TFUNCTION);
  for (h = H_CALL; h <= H_STATE; h++) {
    lua_pushvalue(L, h);
    lua_rawseti(L, lua_upvalueindex(UV_HANDLERS), h);
  }
  return 0;
}

/* (a live box found by the metatable in upvalue 1; a finalized one, or
 * nothing, as anim_lua_testbox_any finds it) */
anim_animator_box *anim_lua_deliver_animator(lua_State *L, int idx) {
  anim_animator_box *b = anim_lua_animator_at(L, idx, lua_upvalueindex(UV_ANIMATOR_MT));
  return b ? b : anim_lua_testbox_any(L, idx, ANIM_BOX_ANIMATOR);
}


/* Whether a callback called from here could yield (then it runs through
 * the call handler): 5.3+ say so; before, only the main thread surely
 * cannot. */
static int may_yield(lua_State *L) {
#if LUA_VERSION_NUM >= 503
  return lua_isyieldable(L);
#else
  int main = lua_pushthread(L);
  lua_pop(L, 1);
  return !main;
#endif
}


/* t[key k] (t an absolute index), pushed; returns its type. */
int dl_getk(deliv *d, int t, int k) {
  lua_pushvalue(d->L, lua_upvalueindex(d->uv + k));
  return lua_rawget(d->L, t);  /* (the type: lua_compat.h before 5.3) */
}

/* The error on the top of the stack (popped) goes to base + S_ERR when
 * that is still nil: the first error is the one raised. */
void dl_keep_first(lua_State *L, int base) {
  if (lua_isnil(L, base + S_ERR)) lua_replace(L, base + S_ERR);
  else lua_pop(L, 1);
}

/* A protected call of the function below its nargs arguments, above the
 * delivery's handler at base + S_MSGH; the first error goes to base +
 * S_ERR. */
static ANIM_LUA_HOT void pcall_first(lua_State *L, int base, int nargs) {
  if (lua_pcall(L, nargs, 0, base + S_MSGH) != 0) dl_keep_first(L, base);
}

/* A protected call of Lua handler h with the nargs values on the top of
 * the stack: its result (nil, or an error) or its own error is kept as
 * pcall_first keeps one. */
ANIM_LUA_COLD void dl_call_handler(deliv *d, int h, int nargs) {
  lua_State *L = d->L;
  geti(L, lua_upvalueindex(d->uv + UV_HANDLERS), h);
  lua_insert(L, -nargs - 1);
  d->called = 1;
  if (lua_pcall(L, nargs, 1, d->base + S_MSGH) != 0 || !lua_isnil(L, -1)) dl_keep_first(L, d->base);
  else lua_pop(L, 1);
}

/* A callback where it could yield: call(batch, fn, ...) of the call
 * handler, in place of the function below its nargs arguments. */
static ANIM_LUA_COLD void pcall_handler(deliv *d, int nargs) {
  lua_State *L = d->L;
  luaL_checkstack(L, 2, NULL);
  lua_pushboolean(L, d->batch);
  lua_insert(L, -nargs - 2);
  dl_call_handler(d, H_CALL, nargs + 2);
}

/* pcall_first in a run, which then reads the track's callbacks again;
 * through the call handler where the callback could yield. */
static void pcall_keep(deliv *d, int nargs) {
  d->called = 1;
  if (d->co) pcall_handler(d, nargs);
  else pcall_first(d->L, d->base, nargs);
}

/* Calls fn of each connection of the list at `list` (when a table) with
 * the nargs values on the top of the stack, which it pops. */
void dl_call_list(deliv *d, int list, int nargs) {
  lua_State *L = d->L;
  int top = lua_gettop(L) - nargs;
  if (lua_type(L, list) == LUA_TTABLE) {
    int i, j, n = (int)lua_rawlen(L, list);
    luaL_checkstack(L, nargs + 2, NULL);
    for (i = 1; i <= n; i++) {
      if (geti(L, list, i) == LUA_TTABLE) dl_getk(d, lua_gettop(L), K_FN);
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

/* Slot t (S_MARKS, S_CBS or S_INFO, which sets S_CLIP too) of the run,
 * read when first needed: whether it is a table.  Only between entries
 * (it may set the stack's height). */
int dl_slot(deliv *d, int t) {
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
    ty = d->marks = geti(L, lua_upvalueindex(d->uv + UV_SLOTS), ANIM_SLOT_AT(d->s, ANIM_SLOTS_MARKS));
  } else if (t == S_CBS) {
    ty = lua_getiuservalue(L, base + S_TRACK, ANIM_UV_TRACK_CALLBACKS);
  } else {
    /* S_INFO and S_CLIP, read together: the track's source (its clip)
     * and its info */
    if (lua_getiuservalue(L, base + S_TRACK, ANIM_UV_TRACK_SOURCE) == LUA_TUSERDATA) ty = lua_getiuservalue(L, -1, 1);
    else lua_pushnil(L);
    lua_replace(L, base + S_INFO);
    lua_replace(L, base + S_CLIP);
    return ty == LUA_TTABLE;
  }
  lua_replace(L, base + t);
  return ty == LUA_TTABLE;
}

/* The run's track's source pushed (a track outside a blend space: its
 * clip), the `clip` of its items' callbacks: one read, no slot (the
 * usual marker keeps the stack as it is). */
static ANIM_LUA_HOT void push_clip(deliv *d) {
  lua_getiuservalue(d->L, d->base + S_TRACK, ANIM_UV_TRACK_SOURCE);
}

/* Calls the callbacks at cb (the function of the only connection, the list
 * of connections, or nothing) with the nargs values on the top of the
 * stack, which it pops. */
void dl_call_callbacks(deliv *d, int cb, int nargs) {
  lua_State *L = d->L;
  int t = lua_type(L, cb);
  if (t == LUA_TFUNCTION) {
    lua_pushvalue(L, cb);
    lua_insert(L, -nargs - 1);
    pcall_keep(d, nargs);
  } else if (t == LUA_TTABLE) {
    dl_call_list(d, cb, nargs);
  } else {
    lua_pop(L, nargs);
  }
}

/* Marker k (0-based) of the run's track: the callbacks its track connected
 * to its name (track, value, late, clip), then (when the animator hears
 * markers) the animator's on_marker callbacks (track, name, value, late,
 * clip), both read before either is called.  0 when the
 * track keeps no callbacks by marker (false: too many) or, where its
 * marker table is needed (for the name, or the value of a marker without
 * callbacks of the track), has none: marker_from_info then delivers it. */
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
  if (d->by == LUA_TBOOLEAN || ((all || d->by != LUA_TTABLE) && !dl_slot(d, S_MARKS))) return 0;
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
      push_clip(d);
      pcall_keep(d, 4);
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
  if (per == LUA_TFUNCTION || per == LUA_TTABLE) {
    lua_pushvalue(L, base + S_TRACK);
    lua_pushvalue(L, top + 2);
    lua_pushnumber(L, late);
    push_clip(d);
    dl_call_callbacks(d, top + 1, 4);
  }
  if (all) {
    lua_pushvalue(L, base + S_TRACK);
    lua_pushvalue(L, top + 3);
    lua_pushvalue(L, top + 2);
    lua_pushnumber(L, late);
    push_clip(d);
    dl_call_callbacks(d, top + 4, 5);
  }
  lua_settop(L, top);
  return 1;
}

/* anim_lua_deliver_open, inline in anim_lua_deliver */
static ANIM_LUA_HOT int open_base(lua_State *L, int uv) {
  int base = lua_gettop(L);
  /* The callers come with two values on the stack: the room every C
   * function has (LUA_MINSTACK, 20) holds the slots and what an entry
   * pushes before call_list, which checks for its own (at most 10: an
   * animator's on_marker or on_sound callback, its arguments with the
   * clip, and the function). */
  if (base > 2) luaL_checkstack(L, S_COUNT + 10, NULL);
  /* (the handler is a function: anim_lua_pushdeliver) */
  lua_pushvalue(L, lua_upvalueindex(uv + UV_TRACEBACK));
  lua_pushnil(L);
  return base;
}

/* The usual update's queue, delivered without the loop's bookkeeping: a
 * single entry, a marker of a clip's track whose marker callbacks hold a
 * function for it, on an animator that does not hear markers itself,
 * where the callback cannot yield.  The same reads, checks and call as the
 * loop below makes for it (a new run, then deliver_marker's first case),
 * the function read first so that it and its arguments come in place.  1
 * when delivered; 0 with nothing done when the entry is not such a one
 * (the loop then takes it). */
static ANIM_LUA_HOT int deliver_lone_marker(lua_State *L, int uv, int base, anim_animator_box *b, int n, int yieldable) {
  int sl = lua_upvalueindex(uv + UV_SLOTS), nev = 0;
  const anim_event *e = n == 1 && b && b->a && !yieldable ? anim_animator_events(b->a, &nev) : NULL;
  lua_Integer s, j;
  if (nev < 1) return 0;
  s = e->slot;
  j = (lua_Integer)e->index + 1;
  if (e->type != ANIM_EV_ITEM || e->kind != ANIM_ITEM_MARKER || e->point >= 0 || s <= 0 ||
      b->acct->unslots != b->unslots || (anim_animator_hears(b->a) & ANIM_HEAR_MARKER))
    return 0;
  /* base + 3: the track's marker callbacks, then the function, the
   * track, the marker's value ([-j]), how late and the track's clip (its
   * source) */
  if (geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_BY_MARKER)) != LUA_TTABLE || geti(L, base + S_TRACK, j) != LUA_TFUNCTION ||
      geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_TRACK)) != LUA_TUSERDATA) {
    lua_settop(L, base + S_ERR);
    return 0;
  }
  geti(L, base + S_TRACK, -j);
  lua_pushnumber(L, e->late);
  lua_getiuservalue(L, base + S_TRACK + 2, ANIM_UV_TRACK_SOURCE);
  anim_lua_setdelivering(b, ANIM_DELIVERING);
  pcall_first(L, base, 4);
  anim_lua_setdelivering(b, ANIM_IDLE);
  return 1;  /* (the table of callbacks left above: the callers set the top) */
}

/* The entries the loop below does not take inline (kept out of its
 * code): an end, a blend space's point's item, a `plays` item, a marker
 * of a track without the tables deliver_marker reads (marker: 1). */
static ANIM_LUA_COLD void deliver_other(deliv *d, const anim_event *e, int all, int marker) {
  if (e->type != ANIM_EV_ITEM) {
    d->ended = 1;
    dl_deliver_state(d, e->type, e->late);
  } else if (e->point >= 0) {
    dl_deliver_point(d, e, all);
  } else if (marker) {
    dl_slot(d, S_CBS);
    if (dl_slot(d, S_INFO)) dl_marker_from_info(d, d->base + S_INFO, d->base + S_CLIP, e->index, e->late, all);
  } else if (dl_slot(d, S_INFO)) {
    dl_deliver_play(d, d->base + S_INFO, d->base + S_CLIP, e->index, e->late);
  }
}

/* A new run at entry e, of slot s: the track, its marker callbacks and
 * marker table.  0 when the slot no longer holds the entry's track (its
 * entries are passed over). */
static int new_run(deliv *d, anim_animator_box *b, int s, const anim_event *e) {
  lua_State *L = d->L;
  int sl = lua_upvalueindex(d->uv + UV_SLOTS);
  if (d->run != d->base + S_ERR) {
    lua_settop(L, d->base + S_ERR);
    d->run = d->base + S_ERR;
  }
  if (b->acct->unslots != b->unslots && !dl_slot_holds(L, sl, s, anim_track_lead(e->track))) return 0;
  if (geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_TRACK)) != LUA_TUSERDATA) {
    lua_settop(L, d->base + S_ERR);
    return 0;
  }
  d->by = geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_BY_MARKER));
  d->run = d->base + S_BY;
  d->s = s;
  d->marks = LUA_TNONE;
  /* (the marker table too where markers need it: the animator hears
   * them, or the track keeps no callbacks by marker) */
  if (d->by != LUA_TTABLE || (anim_animator_hears(b->a) & ANIM_HEAR_MARKER)) {
    d->marks = geti(L, sl, ANIM_SLOT_AT(s, ANIM_SLOTS_MARKS));
    d->run = d->base + S_MARKS;
  }
  d->called = 0;
  d->unslots = b->acct->unslots;
  return 1;
}

/* After the loop: an animator finalized by a callback (or before its
 * turn in a batch) with entries left says so, in place of its own
 * callbacks' errors (not of an animator before it in a batch); else the
 * tracks that ended leave. */
static ANIM_LUA_COLD void finish(deliv *d, anim_animator_box *b, const anim_event *q, int n, int left) {
  lua_State *L = d->L;
  lua_settop(L, d->base + S_ERR);
  if (b->a) {
    dl_drop_ended(d, q, n);
  } else if ((q == NULL || left) && !d->err_before) {
    lua_pushvalue(L, lua_upvalueindex(d->uv + UV_FINALIZED));
    lua_replace(L, d->base + S_ERR);
  }
}

/* anim_lua_deliver_from past the lone marker: the entries one by one.
 * A track taken out of its slot since its entries were queued (the state
 * counts those) has left the live tracks: its entries are passed over. */
static ANIM_LUA_COLD void deliver_loop(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n, int yieldable) {
  deliv d;
  int i, last = 0, nev = 0;
  const anim_event *q;
  if (!b) return;
  d.L = L;
  d.uv = uv;
  d.ai = ai;
  d.base = base;
  d.run = d.base + S_ERR;
  d.co = d.ended = 0;
  /* (a batch's functions have upvalues before the delivery's; an
   * animator's own update starts with no error) */
  d.batch = uv != 0;
  d.err_before = d.batch && !lua_isnil(L, base + S_ERR);
  anim_lua_setdelivering(b, ANIM_DELIVERING);
  q = b->a ? anim_animator_events(b->a, &nev) : NULL;
  if (q && yieldable) {
    d.co = geti(L, lua_upvalueindex(uv + UV_HANDLERS), H_CALL) == LUA_TFUNCTION;
    lua_pop(L, 1);
  }
  if (nev < n) n = nev;
  for (i = 0; i < n; i++) {
    const anim_event *e;
    int s;
    /* (q stays the queue: no callback can update the animator while it
     * delivers, nor restore it; finalized, it has none) */
    if (!b->a) break;
    e = &q[i];
    if ((s = e->slot) <= 0) continue;  /* (no longer live when queued) */
    if (s != last) {
      last = new_run(&d, b, s, e) ? s : 0;
      if (!last) continue;
    } else if (b->acct->unslots != d.unslots) {
      if (!dl_slot_holds(L, lua_upvalueindex(uv + UV_SLOTS), s, anim_track_lead(e->track))) continue;
      d.unslots = b->acct->unslots;
    }
    if (e->type >= ANIM_EV_EXIT) {
      dl_deliver_state_machine(&d, e);
    } else if (e->type == ANIM_EV_ENDED || e->point >= 0 || e->kind == ANIM_ITEM_PLAY) {
      deliver_other(&d, e, (anim_animator_hears(b->a) & ANIM_HEAR_MARKER) != 0, 0);
    } else if (e->type != ANIM_EV_ITEM) {
      dl_deliver_state(&d, e->type, e->late);
    } else if (e->kind != ANIM_ITEM_MARKER) {
      if (dl_slot(&d, S_INFO)) dl_deliver_item(&d, d.base + S_INFO, d.base + S_CLIP, e->kind, e->index, e->late);
    } else {
      int all = (anim_animator_hears(b->a) & ANIM_HEAR_MARKER) != 0;
      if (!deliver_marker(&d, e->index, e->late, all)) deliver_other(&d, e, all, 1);
    }
  }
  if (!b->a || d.ended) finish(&d, b, q, n, i < n);
  anim_lua_setdelivering(b, ANIM_IDLE);
}

int anim_lua_deliver_open(lua_State *L, int uv) { return open_base(L, uv); }

void anim_lua_deliver_from(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n) {
  int yieldable = may_yield(L);  /* (asked once: a call into Lua's API) */
  if (b && b->a && anim_animator_controller(b->a)) dl_adopt(L, uv, base, b, ai);
  if (!deliver_lone_marker(L, uv, base, b, n, yieldable)) deliver_loop(L, uv, base, b, ai, n, yieldable);
}

int anim_lua_deliver(lua_State *L, anim_animator_box *b, int ai, int n) {
  int base = open_base(L, 0), yieldable = may_yield(L);
  if (b && b->a && anim_animator_controller(b->a)) dl_adopt(L, 0, base, b, ai);
  if (!deliver_lone_marker(L, 0, base, b, n, yieldable)) deliver_loop(L, 0, base, b, ai, n, yieldable);
  return base + S_ERR;
}
