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
 * the queued track where it ends.  A stop cancels a queued track. */
#include "animator_impl.h"

int anim_track_queue_after(anim_track *t, anim_track *after) {
  if (t == after || !t->owner || t->owner != after->owner || t->state != TR_PENDING ||
      after->lead != after || after->queued)
    return -1;
  if (after->state == TR_ENDED) return 0;  /* it has ended: t starts at the next update */
  t->state = TR_QUEUED;
  t->after = after;
  t->start_at = -1;
  after->queued = t;
  return 1;
}

void anim_chain_start(anim_track *t, double at) {
  t->start_at = at;
  t->after = NULL;
}

void anim_chain_cancel(anim_track *t) {
  if (t->after) t->after->queued = NULL;
  t->after = NULL;
  t->state = TR_PENDING;
}

int anim_chain_bound(anim_animator *a, anim_track *t, double eb) {
  anim_track *q = t->queued;
  t->queued = NULL;
  anim_chain_start(q, eb);
  t->cut_at = q->fade.dur;  /* (the fade-out's length, until anim_chain_fade) */
  if (q->fade.dur <= 0) {
    if (!t->stopping) anim_queue_offer(a, eb, t, ANIM_EV_STOPPED, -1, ANIM_HEAR_STOPPED);
    anim_track_end(a, t, eb);
    return 1;
  }
  if (t->clip->loop != ANIM_LOOP && t->clip->loop != ANIM_PINGPONG) t->hold_end = 1;
  return 0;
}

void anim_chain_fade(anim_animator *a, anim_track *t, double eb) {
  double f = t->cut_at;
  t->cut_at = -1;
  if (t->stopping) return;  /* already fading out: it ends as it was going to */
  anim_queue_offer(a, eb, t, ANIM_EV_STOPPED, -1, ANIM_HEAR_STOPPED);
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
  }
  if (eb + f <= a->dt) t->cut_at = eb + f;
}
