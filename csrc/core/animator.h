/* animator.h - tracks playing clips on a rig: clocks, loop modes, fades,
 * priority/weight blending and the queue of timed callbacks (SEMANTICS 6,
 * 7 and 7a).  Plain C, no Lua: the binding delivers the queue to Lua. */
#ifndef ANIM_ANIMATOR_H
#define ANIM_ANIMATOR_H

#include "clip.h"
#include "rig.h"

/* ANIM_MAX_PASSES (codes.h): the most passes (stretches of a track's
 * timeline in one direction) fired per track per update; beyond it whole
 * loops are skipped silently. */

typedef struct anim_animator anim_animator;
typedef struct anim_track anim_track;

/* How a clip joint plays on a rig joint (computed once per clip, rig and
 * retarget map by the caller).  A turn R is carried across as pre*R*post
 * when `convert` is set; positions are multiplied by pscale. */
typedef struct anim_binding {
  int cj, rj;
  int convert;
  double pre[4], post[4];
  double pscale;
} anim_binding;

/* Queue entries, in delivery order after anim_animator_update (their
 * types are ANIM_EV_* in codes.h). */
typedef struct anim_event {
  double at;          /* seconds after the start of the update */
  double late;        /* dt - at */
  anim_track *track;
  int type;           /* ANIM_EV_* */
  int item;           /* ANIM_EV_ITEM: index into the clip's items */
  long long seq;      /* order of queueing, for ties */
  /* what a delivery reads, copied from the track and the item when queued
   * (none of it changes before the next update) */
  long long id;       /* the track's anim_track_id */
  int kind, index;    /* ANIM_EV_ITEM: the item's kind and 0-based index
                       * within its kind (-1, -1 otherwise) */
  int point;          /* anim_track_point of the track */
  int slot;           /* its lead's anim_track_set_slot when queued */
} anim_event;

typedef struct anim_play_opts {
  double fade, weight, speed, priority;
  int has_priority;
} anim_play_opts;

/* Allocates through mem (its tracks too); NULL when out of memory. */
anim_animator *anim_animator_new(const anim_mem *mem, const anim_rig *rig, int side);
/* Frees the animator and releases its tracks (tracks still retained by
 * someone stay valid but no longer play). */
void anim_animator_free(anim_animator *a);
const anim_rig *anim_animator_rig(const anim_animator *a);
/* The time scale of every track (1; finite, >= 0: another is ignored) and
 * the pause: an update advances by dt x speed, by 0 while paused (the
 * callbacks' `late` in those seconds). */
void anim_animator_set_speed(anim_animator *a, double speed);
double anim_animator_speed(const anim_animator *a);
void anim_animator_set_paused(anim_animator *a, int paused);
int anim_animator_paused(const anim_animator *a);

/* Starts a track at the next update.  The animator holds one reference;
 * retain it to keep the track past its end.  NULL when out of memory. */
anim_track *anim_animator_play(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                               const anim_binding *binds, int nbind);

/* Advances every track by dt (finite, >= 0; else returns -1 and changes
 * nothing), computes the pose and fills the queue.  Returns 0. */
int anim_animator_update(anim_animator *a, double dt);
/* Updates as[0..n-1] by dt, in order, each exactly as anim_animator_update
 * would (each fills its own queue), prefetching the data of the next ones
 * while one computes: thousands of animators do not wait on cache misses
 * one after the other.  queued (n ints, or NULL) gets the indices of the
 * animators whose queue is not empty, in order, and *nqueued (or NULL)
 * their count.  Returns 0; -1 when dt is not finite and >= 0 (nothing
 * changed); i + 1 when the queue of as[i] ran out of memory (as[0..i]
 * were updated, as[i]'s queue is incomplete and not listed in queued, the
 * animators after it are untouched).  An animator listed twice is
 * updated twice (its queue holds the second update's). */
int anim_animators_update(anim_animator *const *as, int n, double dt, int *queued, int *nqueued);
/* The same on the threads of a pool (pool.h; NULL or one thread: exactly
 * anim_animators_update): the anim_pool_threads(pool) threads share the
 * list out (anim_pool_next), the poses and queues bit for bit those of
 * anim_animators_update; queued lists them in list order.  The pool may
 * have been woken for it (anim_pool_wake): it runs or rests.  The
 * animators must be distinct (one listed twice would be updated by two
 * threads at once).  Out of memory differs:
 * every animator is updated, and the first whose queue ran out of memory
 * is returned (index + 1), its queue incomplete and not listed; the
 * others are listed.  The tracks the update frees are freed on the
 * calling thread (their clips are shared), and what a worker allocates or
 * frees (a queue that grows, an ended track's property shares) takes the
 * pool's lock (mem need not be thread-safe). */
struct anim_pool;
int anim_animators_update_pool(struct anim_pool *pool, anim_animator *const *as, int n, double dt,
                               int *queued, int *nqueued);
/* The same (on the pool's threads when pool is not NULL), each animator's
 * skinning matrices (skin.h) written right after its update: into
 * `shared` when not NULL, each animator's right after the previous one's
 * from shared->offset in list order (shared->root is multiplied in front
 * of each), else into each animator's own target when it has one
 * (anim_animator_set_skin_target).  Returns -2 when shared cannot hold
 * them all (or its layout is not one of skin.h's): nothing changed.  The
 * bits written are those anim_animator_skin writes after each update. */
struct anim_skin_out;
int anim_animators_update_skin(struct anim_pool *pool, anim_animator *const *as, int n, double dt,
                               const struct anim_skin_out *shared, int *queued, int *nqueued);
int anim_animator_nevents(const anim_animator *a);
/* Which kinds of entries (ANIM_HEAR_* bits, codes.h) the animator's own
 * callbacks listen to; a track adds those of its callbacks.  An update
 * queues only what the animator or the entry's track hears.  A new
 * animator hears everything, a new track nothing of its own. */
void anim_animator_hear(anim_animator *a, unsigned mask);
void anim_track_hear(anim_track *t, unsigned mask);
/* A number of the binding's for the track (0 when new), copied into the
 * entries it queues (anim_event.slot; a blend space's points queue their
 * lead's): the binding finds its own objects for an entry by it, without
 * a search. */
void anim_track_set_slot(anim_track *t, int slot);
/* That number (0: the track has no binding yet). */
int anim_track_slot(const anim_track *t);
/* The animator's own mask (what anim_animator_hear set). */
unsigned anim_animator_hears(const anim_animator *a);
const anim_event *anim_animator_event(const anim_animator *a, int i);
/* The queue itself, in delivery order, and its count in *n: valid until
 * the animator's next update or its end. */
const anim_event *anim_animator_events(const anim_animator *a, int *n);

/* The blended offsets of joint j (position, rotation, scale: 10 numbers),
 * identity where nothing animates; *animated gets ANIM_CH_* flags. */
void anim_animator_get(const anim_animator *a, int j, double out[10], int *animated);
/* Local and world transforms (10 numbers) from the rests and offsets.
 * The world transforms are kept in a block made at their first use:
 * anim_animator_world_room makes it (0 when out of memory), which a
 * caller that can report that calls first (anim_animator_world itself
 * then gives the local transform and marks the update out of memory). */
void anim_animator_local(const anim_animator *a, int j, double out[10]);
void anim_animator_world(anim_animator *a, int j, double out[10]);
int anim_animator_world_room(anim_animator *a);

/* Tracks. */
void anim_track_retain(anim_track *t);
void anim_track_release(anim_track *t);
int anim_track_playing(const anim_track *t);  /* started or pending, not ended nor queued */
int anim_track_queued(const anim_track *t);   /* waiting for the track it was queued after */
/* The state machine layer that started it (0-based), -1 for none. */
int anim_track_layer(const anim_track *t);
/* The point of a blend space's track (0-based; the space's own track is
 * point 0), -1 for a track that plays a clip. */
int anim_track_point(const anim_track *t);
const anim_clip *anim_track_clip(const anim_track *t);
long long anim_track_id(const anim_track *t);
/* The track a blend space's point plays under (itself outside a space):
 * the one the binding knows. */
const anim_track *anim_track_lead(const anim_track *t);
double anim_track_time(const anim_track *t);
double anim_track_speed(const anim_track *t);
double anim_track_weight(const anim_track *t);
double anim_track_fade(const anim_track *t);
long long anim_track_loops(const anim_track *t);
void anim_track_stop(anim_track *t, double fade);
/* Ends the track now: it is no longer playing, fires nothing more and
 * leaves its animator at the next update (the binding's track finalized
 * by hand while it played), with the other points of its blend space; a
 * track queued after it starts at the next update, as after a stop. */
void anim_track_end_now(anim_track *t);
void anim_track_adjust_weight(anim_track *t, double w, double fade);
void anim_track_adjust_speed(anim_track *t, double s);
void anim_track_seek(anim_track *t, double time);
/* Plays its clip (a blend space's lead: every point's) in loop mode `mode`
 * (ANIM_ONCE...; -1: the clip's own) instead of the clip's. */
void anim_track_set_loop(anim_track *t, int mode);
/* Back to the start with a fresh inclusive first pass, fading from the
 * current fade to 1 over `fade` (a `plays` item hitting a live track). */
void anim_track_restart(anim_track *t, double fade);

#endif
