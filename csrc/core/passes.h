/* passes.h - what a track's clock produces in an update (clock.c) for the
 * stages after it (update.c runs them): its passes, the whole loops it
 * skipped and the state changes it made, in the order they happened.
 * Plain data, in an array on the update's stack: the clock calls nothing
 * above it, and each stage reads the records it needs --
 *   passqueue.c  the items each pass crosses and the state changes, queued
 *                (a synced blend space's other points at the same phase:
 *                spaceplay.c)
 *   rootmotion.c what the motion joint moved over each pass and skip (a
 *                synced space's other points: spaceplay.c)
 * Plain C, no Lua. */
#ifndef ANIM_PASSES_H
#define ANIM_PASSES_H

#include "animator_impl.h"
#include "codes.h"

enum {
  ANIM_PASS_ITEMS,  /* a pass: from, to, dir, incl, e0, sp */
  ANIM_PASS_SKIP,   /* whole lengths skipped beyond the pass bound: from (the
                     * playhead) to the bound `to`, then sp = k lengths; mode */
  ANIM_PASS_EVENT   /* a state change queued at e0: type (ANIM_EV_LOOPED,
                     * _STOPPED or _ENDED) */
};

typedef struct anim_pass {
  double from, to;  /* clip times */
  double e0;        /* seconds into the update: where the pass began, or when the change happened */
  double sp;        /* a pass: the playhead's speed; a skip: the whole lengths k */
  int what;         /* ANIM_PASS_* */
  int dir;          /* the direction of play (+1, -1) */
  int incl;         /* a pass includes the items at `from` */
  int type;         /* an event: ANIM_EV_*; a skip: the loop mode */
} anim_pass;

/* The most records of one track's update: a stop said (1); the passes to
 * a bound, at most ANIM_MAX_PASSES - 1 of them in a loop or pingpong
 * (clock.c's advance counts them), each with its `looped` (2) and one of
 * them with a hand-over's `stopped` (1); then the last pass, or a skip and
 * the last pass (2), or a pass ending the track with `stopped` and `ended`
 * (3); the end of a fade or a cut (1): 2 x ANIM_MAX_PASSES + 4 in all,
 * under the room below. */
#define ANIM_PASS_CAP (3 * ANIM_MAX_PASSES + 8)

typedef struct anim_passes {
  int n;
  anim_pass p[ANIM_PASS_CAP];
} anim_passes;

/* The queueing stage (passqueue.c): t's records queued in order.  The
 * usual update -- one pass, no state change, outside a blend space -- is
 * the items' pass alone, inline (no call of its own per track, none at
 * all for a clip without items). */
static inline void anim_passes_queue(anim_animator *a, anim_track *t, const anim_passes *ps) {
  const anim_pass *p = ps->p;
  if (ps->n == 1 && p->what == ANIM_PASS_ITEMS && !t->sp.play) {
    if (t->sp.fires && t->clip->nitems > 0)
      anim_items_pass(a, t, p->from, p->to, p->dir, p->incl, p->e0, p->sp);
  } else if (ps->n > 0) {
    anim_passes_queue_all(a, t, ps);
  }
}

#endif
