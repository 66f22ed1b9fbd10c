/* lua_deliver.h - what the two files of the delivery share (nobody else
 * includes it): lua_deliver.c holds the loop over the queue, its runs and
 * the usual marker; lua_deliver_other.c the entries it hands on (a marker
 * read from its clip's info, events and sounds, `plays`, a blend space's
 * points, state changes, a state machine's entries), the tracks that
 * ended leaving, and a state machine's tracks adopted before a delivery. */
#ifndef ANIM_LUA_DELIVER_H
#define ANIM_LUA_DELIVER_H

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* The upvalues of the functions that deliver: the metatable of animators,
 * debug.traceback, the slot table, the handlers' table ([H_CALL],
 * [H_PLAYS]), the error of an animator finalized while it delivers (made
 * once: nothing allocates outside the protected calls), then the keys, in
 * this order (anim_lua_pushdeliver pushes them). */
enum {
  UV_ANIMATOR_MT = 1, UV_TRACEBACK, UV_SLOTS, UV_HANDLERS, UV_FINALIZED,
  K_LOOPED, K_STOPPED, K_ENDED, K_FN,
  K_EVENTS, K_SOUNDS, K_NAME, K_PAYLOAD, K_SOUND, K_VOLUME, K_PITCH,
  K_MARKERS, K_MARKER, K_VALUE, K_PLAYS, K_CLIPS, K_LIVE, K_CBS, K_SRC,
  UV_COUNT = K_SRC
};

enum { H_CALL = 1, H_PLAYS, H_ADOPT, H_STATE };
#define geti anim_lua_rawgetn

/* A delivery's stack, from base + 1 on: the message handler, the first
 * error, then what a run of one track's entries reads from its slot: the
 * track and its marker callbacks by marker, and (when an entry needs one
 * of them, all made nil at once, each read when first needed) its clip's
 * marker table, its callbacks table, its clip's info and its source (a
 * clip: what item callbacks get as their `clip`).  Above them, an
 * entry's values.  The stack's height between entries is kept in `run`
 * rather than asked for: every call into Lua counts on this path. */
enum { S_MSGH = 1, S_ERR, S_TRACK, S_BY, S_MARKS, S_CBS, S_INFO, S_CLIP, S_COUNT = S_CLIP };

typedef struct {
  lua_State *L;
  int base, ai;  /* ai: the animator's stack index */
  int run;       /* the height between entries: base + S_BY, S_MARKS or S_COUNT */
  int s;         /* the run's slot */
  int by, marks; /* the types of the run's S_BY and S_MARKS (LUA_TNONE: not read) */
  int called;    /* a callback ran since S_BY was read (it may have replaced it) */
  int co;        /* callbacks run through the call handler (the update may yield) */
  int batch;     /* anim.update delivers (the handlers' messages name it) */
  int ended;     /* an `ended` was delivered (the tracks leave after the loop) */
  int err_before;  /* a batch's error of an animator before this one */
  unsigned long long unslots;  /* the state's count of unslots when the run's slot was checked */
  int uv;        /* the delivery's upvalues start at lua_upvalueindex(uv + 1) */
} deliv;

/* lua_deliver.c */
int dl_getk(deliv *d, int t, int k);
void dl_keep_first(lua_State *L, int base);
void dl_call_handler(deliv *d, int h, int nargs);
void dl_call_list(deliv *d, int list, int nargs);
int dl_slot(deliv *d, int t);
void dl_call_callbacks(deliv *d, int cb, int nargs);
/* lua_deliver_other.c */
void dl_marker_from_info(deliv *d, int info, int clip, int k, double late, int all);
void dl_deliver_item(deliv *d, int info, int clip, int kind, int k, double late);
void dl_deliver_play(deliv *d, int info, int clip, int k, double late);
void dl_deliver_state_machine(deliv *d, const anim_event *e);
void dl_deliver_point(deliv *d, const anim_event *e, int all);
void dl_deliver_state(deliv *d, int type, double late);
int dl_slot_holds(lua_State *L, int sl, int s, const anim_track *t);
void dl_drop_ended(deliv *d, const anim_event *q, int n);
void dl_adopt(lua_State *L, int uv, int base, anim_animator_box *b, int ai);

#endif
