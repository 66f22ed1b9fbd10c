/* chain.c - tracks queued after others: animator:play(clip, { after =
 * track }).  The queued track waits (is_playing false) until its
 * predecessor reaches its end -- a once or hold track its last frame, a
 * loop or pingpong track the end of the pass under way -- and starts at
 * that instant, within the update, fading in over its own fade while the
 * predecessor fades out over the same time and then ends: a once or hold
 * track holding its last frame, a loop or pingpong one going on into its
 * next pass (firing `looped` and that pass's items).  With fade 0 the
 * predecessor ends at the bound (`stopped`, `ended`; not `looped`).  A
 * predecessor that ends another way first (stopped, its fade out) starts
 * the queued track where it ends.  A stop cancels a queued track.
 * The clock (clock.c) calls the hand-over at a bound and records what it
 * says; nothing here queues or calls above. */
#include "animator_impl.h"
#include "chain.h"

int anim_track_queue_after(anim_track *t, anim_track *after) {
  if (t == after || !t->owner || t->owner != after->owner || t->state != TR_PENDING ||
      after->sp.lead != after || after->chain.queued)
    return -1;
  if (after->state == TR_ENDED) return 0;  /* it has ended: t starts at the next update */
  t->state = TR_QUEUED;
  t->chain.after = after;
  t->chain.start_at = -1;
  after->chain.queued = t;
  return 1;
}

void anim_chain_start(anim_track *t, double at) {
  t->chain.start_at = at;
  t->chain.after = NULL;
}

void anim_chain_cancel(anim_track *t) {
  if (t->chain.after) t->chain.after->chain.queued = NULL;
  t->chain.after = NULL;
  t->state = TR_PENDING;
}

/* At t's bound, with a track queued after it: the queued one starts at
 * `eb`.  1 when t ends there (its fade 0: the clock says `stopped`, unless
 * a stop said it already, and `ended`); else t's fade-out's length is in
 * t->chain.cut_at until anim_chain_fade, and a once or hold track holds its end. */
int anim_chain_bound(anim_track *t, double eb) {
  anim_track *q = t->chain.queued;
  t->chain.queued = NULL;
  anim_chain_start(q, eb);
  t->chain.cut_at = q->fade.dur;  /* (the fade-out's length, until anim_chain_fade) */
  if (q->fade.dur <= 0) return 1;
  if (anim_track_loop(t) != ANIM_LOOP && anim_track_loop(t) != ANIM_PINGPONG) t->chain.hold_end = 1;
  return 0;
}

/* t's fade-out over the queued one's fade starts at eb (ending at
 * t->chain.cut_at when that is within the update's dt).  1 when it starts (the
 * clock says `stopped` there), 0 when t was fading out already. */
int anim_chain_fade(anim_track *t, double eb, double dt) {
  double f = t->chain.cut_at;
  t->chain.cut_at = -1;
  if (t->stopping) return 0;  /* already fading out: it ends as it was going to */
  t->stopping = 1;
  {
    /* the fade-out starts at eb, from the fade reached there (the step
     * adds dt to `elapsed` at its end) */
    ramp r = t->fade;
    r.elapsed += eb;
    t->fade.from = anim_ramp_value(&r);
    t->fade.to = 0;
    t->fade.dur = f;
    t->fade.elapsed = -eb;
    t->fade.interp = ANIM_LINEAR;
  }
  if (eb + f <= dt) t->chain.cut_at = eb + f;
  return 1;
}
