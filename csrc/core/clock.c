/* clock.c - a track's time: its playhead through the clip's loop mode
 * (once, loop, hold, pingpong; speed of either sign), the passes an update
 * covers and the timed items and state changes they cross (SEMANTICS 7,
 * 7a), queued with how far into the update each happened. */
#include <float.h>
#include <limits.h>
#include <math.h>

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

/* The backward pass of anim_clock_fire_pass, out of line: the usual play
 * goes forward. */
static ANIM_NOINLINE void fire_back(anim_animator *a, anim_track *t, double from, double to,
                                    int incl, double e0, double sp) {
  const anim_clip *c = t->clip;
  const anim_item *items = c->items;
  unsigned hear = a->hear | t->lead->hear, side = (unsigned)a->side;
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

/* The forward pass of anim_clock_fire_pass from item i on, which someone
 * hears (queued `at` seconds into the update): the loop that queues, out
 * of line. */
static ANIM_NOINLINE int fire_heard(anim_animator *a, anim_track *t, int i, double at, double from,
                                    double to, double e0, double sp) {
  const anim_item *items = t->clip->items;
  unsigned hear = a->hear | t->lead->hear, side = (unsigned)a->side;
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
void anim_clock_fire_pass(anim_animator *a, anim_track *t, double from, double to, int dir,
                          int incl, double e0, double sp) {
  const anim_clip *c = t->clip;
  const anim_item *items = c->items;
  int i, n = c->nitems;
  unsigned hear, side;
  if (n == 0) return;
  if (dir < 0) { fire_back(a, t, from, to, incl, e0, sp); return; }
  i = first_item_from(c, from, !incl, t->icur);
  hear = a->hear | t->lead->hear;
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

/* Everything a pass covers: the items of t's clip while its point has a
 * weight (always, outside a blend space), the same phase of a synced
 * space's other points (spaceplay.c) and the motion of the root motion
 * joint (rootmotion.c). */
static void cover(anim_animator *a, anim_track *t, double from, double to, int dir, int incl,
                  double e0, double sp) {
  if (t->bw > 0) anim_clock_fire_pass(a, t, from, to, dir, incl, e0, sp);
  if (t->sp) anim_space_pass(a, t, from, to, dir, incl, e0, sp);
  if (a->rm_joint >= 0) anim_rootmotion_pass(a, t, from, to);
}

/* The same for the stretch passed over beyond the pass bound: from the
 * playhead to the bound bt, then k whole lengths (nothing fires). */
static void cover_skip(anim_animator *a, anim_track *t, int mode, int dir, double k, double bt) {
  if (t->sp) anim_space_skip(a, t, mode, dir, k, t->time, bt);
  if (a->rm_joint >= 0) anim_rootmotion_skip(a, t, mode, dir, k, t->time, bt);
}

void anim_track_end(anim_animator *a, anim_track *t, double at) {
  anim_queue_offer(a, at, t, ANIM_EV_ENDED, -1, ANIM_HEAR_ENDED);
  t->state = TR_ENDED;
  t->e1 = at;
  if (t->queued) { anim_chain_start(t->queued, at); t->queued = NULL; }
}

/* Moves the playhead by x (compensated summation: days of small steps
 * keep their phase). */
static void move_time(anim_track *t, double x) {
  double s = t->time + x, bp = s - t->time;
  double err = (t->time - (s - bp)) + (x - bp);
  double lo = t->tlo + err, s2 = s + lo;
  t->tlo = lo - (s2 - s);
  t->time = s2;
}

/* Advances track t by `span` animator seconds, queueing what it passes. */
/* Moves the playhead by x and fires the pass it covers: from the old time
 * to the new one exactly, so that consecutive passes join without a gap or
 * an overlap whatever the rounding. */
static void pass_to(anim_animator *a, anim_track *t, double x, int dir, int incl, double e, double sp) {
  double from = t->time, L = t->clip->length;
  move_time(t, x);
  if (t->time < 0) t->time = 0, t->tlo = 0;
  if (t->time > L) t->time = L, t->tlo = 0;
  cover(a, t, from, t->time, dir, incl, e, sp);
}

/* Advances track t by `span` animator seconds from `e0` seconds into the
 * update, queueing what it passes.  A blend space's points other than the
 * first, and a track fading out at its end for the one queued after it,
 * hold at the end instead of ending there; only a space's first point
 * reports its wraps and its end. */
static void advance(anim_animator *a, anim_track *t, double span, double e0) {
  const anim_clip *c = t->clip;
  double L = c->length, v = c->speed * t->speed * t->vscale, sp = fabs(v), D, e = e0;
  int lead = t->lead == t, mode = L > 0 ? c->loop : ANIM_HOLD, dir, incl = t->fresh, passes = 0, handover;
  if (mode == ANIM_ONCE && (!lead || t->hold_end)) mode = ANIM_HOLD;
  dir = (v < 0 ? -1 : 1) * (mode == ANIM_PINGPONG ? t->pdir : 1);
  /* a speed or a step too large for a double saturates (no NaN, no inf) */
  if (!(sp <= DBL_MAX)) sp = DBL_MAX;
  D = span > 0 ? sp * span : 0;
  if (!(D <= DBL_MAX)) D = DBL_MAX;
  t->fresh = 0;
  for (;;) {
    double pos = t->time + t->tlo;
    double b = dir > 0 ? L - pos : pos, bt = dir > 0 ? L : 0, eb;
    if (b < 0) b = 0;
    /* Stays inside: nothing is crossed.  A playhead on the bound it moves
     * toward (b = 0, after a seek there, a change of the speed's sign or a
     * pass that ended exactly there) crosses it even when D is 0: what
     * happens at an instant is delivered by the first update that reaches
     * it, update(0) included (SEMANTICS 7a.21). */
    if (!(D >= b && (D > 0 || (b <= 0 && sp > 0)))) {
      pass_to(a, t, dir * D, dir, incl, e, sp);
      return;
    }
    if ((mode == ANIM_LOOP || mode == ANIM_PINGPONG) && passes >= ANIM_MAX_PASSES - 1) {
      /* Beyond the bound: skip whole lengths without firing, counting
       * them (the count saturates), then fire the final partial pass.
       * fmod is exact at any magnitude. */
      double rest = fmod(D - b, L), k = floor((D - b) / L);
      if (!(rest >= 0 && rest < L)) rest = 0;
      if (!(k >= 0)) k = 0;
      cover_skip(a, t, mode, dir, k, bt);
      t->loops = k + 1 >= (double)(LLONG_MAX - t->loops) ? LLONG_MAX : t->loops + (long long)k + 1;
      e += sp > 0 ? (D - rest) / sp : 0;
      if (mode == ANIM_LOOP) { t->time = dir > 0 ? 0 : L; incl = 1; }
      else {
        if (fmod(k + 1, 2) == 1) { dir = -dir; t->pdir = -t->pdir; }
        t->time = (dir > 0) ? 0 : L;
        incl = 0;
      }
      t->tlo = 0;
      pass_to(a, t, dir * rest, dir, incl, e, sp);
      return;
    }
    eb = e + (sp > 0 ? b / sp : 0);
    cover(a, t, t->time, bt, dir, incl, e, sp);
    passes++;
    if ((handover = t->queued != NULL)) {
      /* the track queued after this one starts at this bound (chain.c):
       * this one ends here, or fades out (holding its last frame, or going
       * on into its next pass) until t->cut_at when that is within dt */
      if (anim_chain_bound(a, t, eb)) { t->time = bt; t->tlo = 0; return; }
      if (mode != ANIM_LOOP && mode != ANIM_PINGPONG) { anim_chain_fade(a, t, eb); mode = ANIM_HOLD; }
    }
    if (mode == ANIM_HOLD) { t->time = bt; t->tlo = 0; return; }
    if (mode == ANIM_ONCE) {
      t->time = bt;
      t->tlo = 0;
      if (!t->stopping) anim_queue_offer(a, eb, t, ANIM_EV_STOPPED, -1, ANIM_HEAR_STOPPED); /* a stop already said it */
      anim_track_end(a, t, eb);
      t->shows_last = 1;
      return;
    }
    if (lead) anim_queue_offer(a, eb, t, ANIM_EV_LOOPED, -1, ANIM_HEAR_LOOPED);
    if (handover) {
      anim_chain_fade(a, t, eb);
      if (t->cut_at >= 0 && (t->cut_at - eb) * sp < D - b) D = b + (t->cut_at - eb) * sp;
    }
    if (t->loops < LLONG_MAX) t->loops++;
    D -= b;
    e = eb;
    t->tlo = 0;
    if (mode == ANIM_LOOP) { t->time = dir > 0 ? 0 : L; incl = 1; }
    else { t->time = bt; dir = -dir; t->pdir = -t->pdir; incl = 0; }
  }
}

/* Advances track t by the update's dt: a pending track starts (a queued
 * one where the track it waited for ended), a stop requested since the
 * last update says so, a fade-out that ends within dt cuts the advance
 * short and ends the track there; ramps move on.  A blend space steps
 * through its first point's track (spaceplay.c). */
void anim_track_step(anim_animator *a, anim_track *t) {
  double dt = a->dt, span = dt, e0 = 0;
  int fade_ends = 0;
  if (t->lead != t) {
    /* another point of a blend space: it moves with its lead, or on its
     * own clock from where the lead's advance began to where it ended */
    if (anim_space_follow(a, t)) advance(a, t, t->lead->e1 - t->lead->e0, t->lead->e0);
    return;
  }
  if (t->sp) anim_space_begin(a, t);  /* (root motion set up there for every point) */
  else if (a->rm_joint >= 0) anim_rootmotion_begin(a, t);
  t->shows_last = 0;
  t->last_at = 0;
  t->cut_at = -1;
  t->e0 = t->e1 = dt;
  if (t->state == TR_QUEUED) {
    if (t->start_at < 0) return;  /* still waiting (its ramps too) */
    e0 = t->start_at;
    span = dt - e0;
    t->start_at = -1;
    t->fade.elapsed -= e0;
    t->weight.elapsed -= e0;
  }
  if (t->state != TR_ENDED) t->state = TR_PLAYING;
  if (t->stop_pending) { anim_queue_offer(a, 0, t, ANIM_EV_STOPPED, -1, ANIM_HEAR_STOPPED); t->stop_pending = 0; }
  if (t->stopping) {
    double left = t->fade.dur - t->fade.elapsed;
    if (left <= dt) { span = left > e0 ? left - e0 : 0; fade_ends = 1; }
  }
  t->e0 = e0;
  if (!(fade_ends && span <= 0)) advance(a, t, span, e0);
  if (t->state != TR_ENDED) {
    if (fade_ends) anim_track_end(a, t, e0 + span);
    else if (t->cut_at >= 0) anim_track_end(a, t, t->cut_at);
  }
  /* (kept finite: dts near the largest double would make them infinite,
   * and a state saves them; past any duration either way) */
  t->fade.elapsed = anim_finite(t->fade.elapsed + dt);
  t->weight.elapsed = anim_finite(t->weight.elapsed + dt);
  if (t->sp) anim_space_end(a, t);
}
