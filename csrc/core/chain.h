/* chain.h - tracks queued after others (chain.c): what a track keeps of
 * its place in a queue, and the hand-over the clock (clock.c) asks at a
 * bound.  The track holds an anim_track_chain; only chain.c, the clock
 * and the saved state (state.c) read it.  Plain C, no Lua. */
#ifndef ANIM_CHAIN_H
#define ANIM_CHAIN_H

#include "animator.h"

typedef struct anim_track_chain {
  anim_track *after;       /* the track it is queued after (while queued) */
  anim_track *queued;      /* the track queued after it */
  double start_at;         /* queued: it starts this far into the update (< 0: not yet) */
  double cut_at;           /* < 0, or its fade-out ends this far into the update */
  unsigned char hold_end;  /* once or hold, at its end while a track queued after it fades in */
} anim_track_chain;

/* At the bound of a track with a track queued after it (clock.c): the
 * queued one starts at `eb`; 1 when t ended there (fade 0), else
 * anim_chain_fade (after the wrap's `looped`, if any) starts t's fade-out
 * over the queued one's fade from eb (ending at chain.cut_at when that is
 * within dt), 1 when it started it.  A queued track whose predecessor
 * ended at `at` starts there; a stop cancels a queued track. */
int anim_chain_bound(anim_track *t, double eb);
int anim_chain_fade(anim_track *t, double eb, double dt);
void anim_chain_start(anim_track *t, double at);
void anim_chain_cancel(anim_track *t);

#endif
