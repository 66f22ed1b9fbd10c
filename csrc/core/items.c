/* items.c - the timed items one pass of a track's clip crosses (SEMANTICS
 * 7, 7a), queued with how far into the update each happened: the items of
 * the animator's side, for whoever hears their kind.  The passes come from
 * the clock (clock.c) through the queueing stage (passqueue.c), and from a
 * synced blend space's other points at the lead's phase (spaceplay.c).
 * What the track keeps between updates: its cursor (icur), where its last
 * pass stopped, and its latest time queued (last_at). */
#include "animator_impl.h"

/* First item index with time > x (strict) or >= x: a binary search, kept
 * out of line (steady play finds its answer in the hint, below). */
static ANIM_NOINLINE int first_item(const anim_clip *c, double x, int strict) {
  int lo = 0, hi = c->nitems;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    double t = c->items[mid].t;
    if (strict ? t > x : t >= x) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/* first_item, answered in O(1) when `hint` is the answer: the index where
 * the track's last pass stopped is where the next one starts, in steady
 * play (the items of a pass are found without a search per update).  The
 * answer is the one index with the condition false before it and true
 * from it on (the items are sorted), so a hint that passes is exact. */
static ANIM_INLINE int first_item_from(const anim_clip *c, double x, int strict, int hint) {
  const anim_item *it = c->items;
  if ((unsigned)hint <= (unsigned)c->nitems &&
      (hint == c->nitems || (strict ? it[hint].t > x : it[hint].t >= x)) &&
      (hint == 0 || !(strict ? it[hint - 1].t > x : it[hint - 1].t >= x)))
    return hint;
  return first_item(c, x, strict);
}

/* Item i of t's clip crossed `at` seconds into the update: queued when
 * someone hears its kind (anim_queue_offer's rule, with the animator's
 * and the track's masks read once a pass). */
static ANIM_INLINE void cross(anim_animator *a, anim_track *t, unsigned hear, int i, double at) {
  if (hear & (1u << t->clip->items[i].kind)) anim_queue_push(a, at, t, ANIM_EV_ITEM, i);
  else if (at > t->last_at) t->last_at = at;
}

/* The backward pass of anim_items_pass, out of line: the usual play
 * goes forward. */
static ANIM_NOINLINE void fire_back(anim_animator *a, anim_track *t, double from, double to,
                                    int incl, double e0, double sp) {
  const anim_clip *c = t->clip;
  const anim_item *items = c->items;
  unsigned hear = a->hear | t->sp.lead->hear, side = (unsigned)a->side;
  int end = first_item_from(c, from, incl, t->icur) - 1;  /* last item with t < from (or <= from) */
  while (end >= 0 && items[end].t >= to) {
    int start = end, k;
    double tt = items[end].t;
    while (start > 0 && items[start - 1].t == tt) start--;
    for (k = start; k <= end; k++)
      if ((items[k].fires >> side) & 1) cross(a, t, hear, k, e0 + (sp > 0 ? (from - tt) / sp : 0));
    end = start - 1;
  }
  t->icur = end + 1;  /* the first item at or after `to`: where the next pass back starts */
}

/* The forward pass of anim_items_pass from item i on, which someone
 * hears (queued `at` seconds into the update): the loop that queues, out
 * of line. */
static ANIM_NOINLINE int fire_heard(anim_animator *a, anim_track *t, int i, double at, double from,
                                    double to, double e0, double sp) {
  const anim_item *items = t->clip->items;
  unsigned hear = a->hear | t->sp.lead->hear, side = (unsigned)a->side;
  int n = t->clip->nitems;
  anim_queue_push(a, at, t, ANIM_EV_ITEM, i);
  while (++i < n && items[i].t <= to)
    if ((items[i].fires >> side) & 1) cross(a, t, hear, i, e0 + (sp > 0 ? (items[i].t - from) / sp : 0));
  return i;
}

/* Queues the items of the pass from clip time `from` to `to` in direction
 * dir, starting `e0` seconds into the update at playhead speed sp.  At
 * equal times items keep their kind and file order in both directions.
 * A forward pass that crosses nothing costs the hint's check and one
 * comparison; an item nobody hears, a bit test and its time: the track's
 * last_at, since a later entry of the track never sorts before it, heard
 * or not (what is delivered does not depend on what else is heard).  That
 * much calls nothing (no registers saved); an item someone hears hands
 * the rest of the pass to fire_heard. */
void anim_items_pass(anim_animator *a, anim_track *t, double from, double to, int dir, int incl,
                     double e0, double sp) {
  const anim_clip *c = t->clip;
  const anim_item *items = c->items;
  int i, n = c->nitems;
  unsigned hear, side;
  if (n == 0) return;
  if (dir < 0) { fire_back(a, t, from, to, incl, e0, sp); return; }
  i = first_item_from(c, from, !incl, t->icur);
  hear = a->hear | t->sp.lead->hear;
  side = (unsigned)a->side;
  for (; i < n && items[i].t <= to; i++) {
    if ((items[i].fires >> side) & 1) {
      double at = e0 + (sp > 0 ? (items[i].t - from) / sp : 0);
      if (hear & (1u << items[i].kind)) { i = fire_heard(a, t, i, at, from, to, e0, sp); break; }
      if (at > t->last_at) t->last_at = at;
    }
  }
  t->icur = i;  /* the first item after `to`: the next pass (exclusive of to) starts there */
}
