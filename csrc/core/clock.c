/* clock.c - a track's time: its playhead through the clip's loop mode
 * (once, loop, hold, pingpong; speed of either sign), the passes an update
 * covers, the whole loops it skips, the wraps, ends and stops on the way
 * (SEMANTICS 7, 7a), and the hand-over to a track queued after it
 * (chain.c).  It produces data and calls nothing above it: each pass and
 * state change is a record (passes.h) that the stages after it read
 * (update.c runs them) -- the items crossed and the changes queued
 * (passqueue.c), the motion of the root motion joint (rootmotion.c). */
#include <float.h>
#include <limits.h>
#include <math.h>

#include "animator_impl.h"
#include "passes.h"

/* The next record (the bound of passes.h holds: the last is reused rather
 * than written past, which cannot happen). */
static ANIM_INLINE anim_pass *record(anim_passes *ps, int what) {
  anim_pass *p = &ps->p[ps->n < ANIM_PASS_CAP ? ps->n++ : ANIM_PASS_CAP - 1];
  p->what = what;
  return p;
}

/* A state change of the track `at` seconds into the update (ANIM_EV_*). */
static void event(anim_passes *ps, int type, double at) {
  anim_pass *p = record(ps, ANIM_PASS_EVENT);
  p->type = type;
  p->e0 = at;
}

/* A pass: everything it covers is the next stages' (the items of t's
 * clip while its point has a weight, the same phase of a synced space's
 * other points, the motion of the root motion joint). */
static ANIM_INLINE void cover(anim_passes *ps, double from, double to, int dir, int incl, double e0,
                              double sp) {
  anim_pass *p = record(ps, ANIM_PASS_ITEMS);
  p->from = from;
  p->to = to;
  p->dir = dir;
  p->incl = incl;
  p->e0 = e0;
  p->sp = sp;
}

/* The same for the stretch passed over beyond the pass bound: from the
 * playhead to the bound bt, then k whole lengths (nothing fires). */
static void cover_skip(anim_passes *ps, const anim_track *t, int mode, int dir, double k, double bt) {
  anim_pass *p = record(ps, ANIM_PASS_SKIP);
  p->type = mode;
  p->dir = dir;
  p->sp = k;
  p->from = t->time;
  p->to = bt;
}

/* Ends t `at` seconds into the update (`ended`); the track queued after
 * it starts there. */
static void end_at(anim_passes *ps, anim_track *t, double at) {
  event(ps, ANIM_EV_ENDED, at);
  t->state = TR_ENDED;
  t->e1 = at;
  if (t->chain.queued) { anim_chain_start(t->chain.queued, at); t->chain.queued = NULL; }
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

/* Moves the playhead by x and records the pass it covers: from the old time
 * to the new one exactly, so that consecutive passes join without a gap or
 * an overlap whatever the rounding. */
static void pass_to(anim_passes *ps, anim_track *t, double x, int dir, int incl, double e, double sp) {
  double from = t->time, L = t->clip->length;
  move_time(t, x);
  if (t->time < 0) t->time = 0, t->tlo = 0;
  if (t->time > L) t->time = L, t->tlo = 0;
  cover(ps, from, t->time, dir, incl, e, sp);
}

/* Advances track t by `span` animator seconds from `e0` seconds into the
 * update, recording what it passes.  A blend space's points other than the
 * first, and a track fading out at its end for the one queued after it,
 * hold at the end instead of ending there; only a space's first point
 * reports its wraps and its end. */
static void advance(const anim_animator *a, anim_track *t, double span, double e0, anim_passes *ps) {
  const anim_clip *c = t->clip;
  double L = c->length, v = c->speed * t->speed * t->sp.vscale, sp = fabs(v), D, e = e0;
  int lead = t->sp.lead == t, mode = L > 0 ? anim_track_loop(t) : ANIM_HOLD, dir, incl = t->fresh, passes = 0, handover;
  if (mode == ANIM_ONCE && (!lead || t->chain.hold_end)) mode = ANIM_HOLD;
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
      pass_to(ps, t, dir * D, dir, incl, e, sp);
      return;
    }
    if ((mode == ANIM_LOOP || mode == ANIM_PINGPONG) && passes >= ANIM_MAX_PASSES - 1) {
      /* Beyond the bound: skip whole lengths without firing, counting
       * them (the count saturates), then fire the final partial pass.
       * fmod is exact at any magnitude. */
      double rest = fmod(D - b, L), k = floor((D - b) / L);
      if (!(rest >= 0 && rest < L)) rest = 0;
      if (!(k >= 0)) k = 0;
      cover_skip(ps, t, mode, dir, k, bt);
      t->loops = k + 1 >= (double)(LLONG_MAX - t->loops) ? LLONG_MAX : t->loops + (long long)k + 1;
      e += sp > 0 ? (D - rest) / sp : 0;
      if (mode == ANIM_LOOP) { t->time = dir > 0 ? 0 : L; incl = 1; }
      else {
        if (fmod(k + 1, 2) == 1) { dir = -dir; t->pdir = -t->pdir; }
        t->time = (dir > 0) ? 0 : L;
        incl = 0;
      }
      t->tlo = 0;
      pass_to(ps, t, dir * rest, dir, incl, e, sp);
      return;
    }
    eb = e + (sp > 0 ? b / sp : 0);
    cover(ps, t->time, bt, dir, incl, e, sp);
    passes++;
    if ((handover = t->chain.queued != NULL)) {
      /* the track queued after this one starts at this bound (chain.c):
       * this one ends here, or fades out (holding its last frame, or going
       * on into its next pass) until t->chain.cut_at when that is within dt */
      if (anim_chain_bound(t, eb)) {
        if (!t->stopping) event(ps, ANIM_EV_STOPPED, eb);
        end_at(ps, t, eb);
        t->time = bt;
        t->tlo = 0;
        return;
      }
      if (mode != ANIM_LOOP && mode != ANIM_PINGPONG) {
        if (anim_chain_fade(t, eb, a->dt)) event(ps, ANIM_EV_STOPPED, eb);
        mode = ANIM_HOLD;
      }
    }
    if (mode == ANIM_HOLD) { t->time = bt; t->tlo = 0; return; }
    if (mode == ANIM_ONCE) {
      t->time = bt;
      t->tlo = 0;
      if (!t->stopping) event(ps, ANIM_EV_STOPPED, eb); /* a stop already said it */
      end_at(ps, t, eb);
      t->shows_last = 1;
      return;
    }
    if (lead) event(ps, ANIM_EV_LOOPED, eb);
    if (handover) {
      if (anim_chain_fade(t, eb, a->dt)) event(ps, ANIM_EV_STOPPED, eb);
      if (t->chain.cut_at >= 0 && (t->chain.cut_at - eb) * sp < D - b) D = b + (t->chain.cut_at - eb) * sp;
    }
    if (t->loops < LLONG_MAX) t->loops++;
    D -= b;
    e = eb;
    t->tlo = 0;
    if (mode == ANIM_LOOP) { t->time = dir > 0 ? 0 : L; incl = 1; }
    else { t->time = bt; dir = -dir; t->pdir = -t->pdir; incl = 0; }
  }
}

void anim_clock_advance(const anim_animator *a, anim_track *t, double span, double e0, anim_passes *ps) {
  ps->n = 0;
  advance(a, t, span, e0, ps);
}

/* Advances track t by the update's dt: a pending track starts (a queued
 * one where the track it waited for ended), a stop requested since the
 * last update says so, a fade-out that ends within dt cuts the advance
 * short and ends the track there; ramps move on.  (A blend space's lead
 * steps here, its points' weights and speed set before: spaceplay.c.)
 * 0 when t is queued and still waiting: nothing moved. */
int anim_clock_step(const anim_animator *a, anim_track *t, anim_passes *ps) {
  double dt = a->dt, span = dt, e0 = 0;
  int fade_ends = 0;
  ps->n = 0;
  t->shows_last = 0;
  t->last_at = 0;
  t->chain.cut_at = -1;
  t->e0 = t->e1 = dt;
  if (t->state == TR_QUEUED) {
    if (t->chain.start_at < 0) return 0;  /* still waiting (its ramps too) */
    e0 = t->chain.start_at;
    span = dt - e0;
    t->chain.start_at = -1;
    t->fade.elapsed -= e0;
    t->weight.elapsed -= e0;
  }
  if (t->state != TR_ENDED) t->state = TR_PLAYING;
  if (t->stop_pending) { event(ps, ANIM_EV_STOPPED, 0); t->stop_pending = 0; }
  if (t->stopping) {
    double left = t->fade.dur - t->fade.elapsed;
    if (left <= dt) { span = left > e0 ? left - e0 : 0; fade_ends = 1; }
  }
  t->e0 = e0;
  if (t->stop_at >= 0) {
    /* a fade-out from within this update (a state machine's transition,
     * controller.c): the advance up to there, then its `stopped` */
    double s = t->stop_at - e0;
    if (s > 0 && span > 0) {
      if (s > span) s = span;
      advance(a, t, s, e0, ps);
      span -= s;
      e0 += s;
    }
    if (t->state != TR_ENDED) event(ps, ANIM_EV_STOPPED, t->stop_at);
    t->stop_at = -1;
  }
  if (t->state != TR_ENDED && !(fade_ends && span <= 0)) advance(a, t, span, e0, ps);
  if (t->state != TR_ENDED) {
    if (fade_ends) end_at(ps, t, e0 + span);
    else if (t->chain.cut_at >= 0) end_at(ps, t, t->chain.cut_at);
  }
  /* (kept finite: dts near the largest double would make them infinite,
   * and a state saves them; past any duration either way) */
  t->fade.elapsed = anim_finite(t->fade.elapsed + dt);
  t->weight.elapsed = anim_finite(t->weight.elapsed + dt);
  return 1;
}
