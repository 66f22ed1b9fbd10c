/* passqueue.c - the stage after a track's clock: its records (passes.h)
 * turned into queue entries, in the order they happened -- the items each
 * pass crosses (items.c) when the track's point fires them in this update
 * (sp.fires: its space's markers mode; always, outside a blend space), a
 * synced blend space's other points at the same
 * phase (spaceplay.c: their entries share the lead's start order, so they
 * must come between the lead's as they did), and the wraps, stops and ends
 * for whoever hears them.  The queue's order (queue.c) is by time, start
 * order, then the order of queueing: that is why one loop takes the
 * records in turn. */
#include "animator_impl.h"
#include "passes.h"
#include "spaceplay.h"

/* The ANIM_HEAR_* bit of a state change (ANIM_EV_LOOPED, _STOPPED, _ENDED). */
static unsigned hear_bit(int type) {
  return type == ANIM_EV_LOOPED ? ANIM_HEAR_LOOPED : type == ANIM_EV_STOPPED ? ANIM_HEAR_STOPPED : ANIM_HEAR_ENDED;
}

/* Every record in turn (the usual update, one pass and nothing else,
 * takes the inline path of passes.h's anim_passes_queue). */
void anim_passes_queue_all(anim_animator *a, anim_track *t, const anim_passes *ps) {
  const anim_pass *p = ps->p, *end = p + ps->n;
  int heard = t->sp.fires;  /* (set with the weights, before the clock: spaceplay.c) */
  for (; p < end; p++) {
    if (p->what == ANIM_PASS_ITEMS) {
      if (heard) anim_items_pass(a, t, p->from, p->to, p->dir, p->incl, p->e0, p->sp);
      if (t->sp.play) anim_space_pass(a, t, p->from, p->to, p->dir, p->incl, p->e0, p->sp);
    } else if (p->what == ANIM_PASS_EVENT) {
      anim_queue_offer(a, p->e0, t, p->type, -1, hear_bit(p->type));
    }
  }
}
