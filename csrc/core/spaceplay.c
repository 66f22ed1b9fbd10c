/* spaceplay.c - a blend space on an animator.  The space plays as one
 * track per point, consecutive in the animator's tracks: the first point's
 * (the lead: the track scripts hold, stop, seek) then the others, all with
 * the lead's start order and priority.  Each blends with the lead's weight
 * and fade times its point's weight (blend.c), so the points of a space
 * combine as tracks of one level do.  Before the lead steps, the
 * parameter gives the points their weights.
 *
 * Synced (the default): the lead's clock is the space's, its playhead
 * speed scaled so that a cycle lasts the weighted mean of the clips'
 * durations (length / speed); the other points sit at the same phase
 * (their time is the lead's time x their length / the lead's length) and
 * the lead's passes cover their items and motion at that phase.  On its
 * own point the lead plays exactly as its clip alone would.  Not synced:
 * each point runs on its own clock beside the lead's, from where the
 * lead's advance began to where it ended (a `once` clip holds its end);
 * only the lead reports wraps and ends.  Which points fire their items
 * (markers, events, sounds, plays) is the space's markers mode, set in
 * each track's sp.fires before the clock (anim_space_begin): "dominant",
 * the point of the greatest weight in the update (the lower index at a
 * tie: the weights come from the parameter once an update, so one point
 * for the whole update); "all", every point whose weight is above 0;
 * "none", no point (the lead's wraps and ends still go).  Synced, the
 * stretch of phase an update crosses is crossed once, by the lead's
 * passes: it fires the items of the one point dominant then, and a
 * dominant that changes between updates takes over from the phase
 * reached (nothing crossed twice, nothing skipped). */
#include <math.h>

#include "animator_impl.h"
#include "passes.h"
#include "spaceplay.h"

anim_track *anim_animator_play_space(anim_animator *a, anim_space *s, const anim_play_opts *o,
                                     const anim_binding *const *binds, const int *nbind,
                                     const double p[2]) {
  size_t size = sizeof(struct anim_spaceplay) + sizeof(anim_track *) * (size_t)(s->n - 1);
  struct anim_spaceplay *sp = anim_malloc(&a->mem, size);
  int i, base = a->ntracks;
  anim_track *lead;
  if (!sp) return NULL;
  for (i = 0; i < s->n; i++) {
    anim_track *t = anim_animator_play(a, s->clip[i], o, binds[i], nbind[i]);
    if (!t) {
      /* out of memory: the tracks made so far go (nothing changed) */
      int k;
      for (k = base; k < a->ntracks; k++) {
        a->tracks[k]->owner = NULL;
        anim_track_release(a->tracks[k]);
      }
      a->ntracks = base;
      anim_free(&a->mem, sp, size);
      return NULL;
    }
    sp->m[i] = t;
  }
  lead = sp->m[0];
  for (i = 0; i < s->n; i++) {
    anim_track *t = sp->m[i];
    t->sp.lead = lead;
    t->sp.point = i;
    t->id = lead->id;
    t->priority = lead->priority;
    if (i > 0) anim_track_retain(t);
  }
  sp->space = s;
  anim_space_retain(s);
  sp->at[0] = p[0];
  sp->at[1] = s->dim == 2 ? p[1] : 0;
  sp->size = size;
  sp->n = s->n;
  lead->sp.play = sp;
  return lead;
}

int anim_track_set_at(anim_track *t, const double p[2]) {
  if (!t->sp.play) return 0;
  t->sp.play->at[0] = p[0];
  t->sp.play->at[1] = t->sp.play->space->dim == 2 ? p[1] : 0;
  return 1;
}

int anim_track_at(const anim_track *t, double p[2]) {
  if (!t->sp.play) return 0;
  p[0] = t->sp.play->at[0];
  p[1] = t->sp.play->at[1];
  return 1;
}

const anim_space *anim_track_space(const anim_track *t) { return t->sp.play ? t->sp.play->space : NULL; }

/* A clip's duration at its own speed, or 0 when it has none (a length
 * or a speed not above 0). */
static double duration(const anim_clip *c) {
  double d = c->length / c->speed;
  return c->length > 0 && c->speed > 0 && d < HUGE_VAL ? d : 0;
}

/* A synced space's playhead factor at its points' weights w: a cycle lasts
 * the weighted mean of the durations, so on the first point alone the
 * factor is exactly 1 (a clip without a duration, as a synced space's
 * are not but core.clip_reload may make one, counts as the first
 * point's; without that, 1). */
static double sync_factor(const anim_space *s, const double *w) {
  double d0 = duration(s->clip[0]), cycle = 0, f;
  int i;
  for (i = 0; i < s->n; i++) {
    double d = duration(s->clip[i]);
    cycle += w[i] * (d > 0 ? d : d0);
  }
  f = d0 / cycle;
  return d0 > 0 && f > 0 && f < HUGE_VAL ? f : 1;
}

double anim_space_factor(const anim_space *s, const double at[2]) {
  double w[ANIM_MAX_SPACE_POINTS];
  if (!s->sync) return 1;
  anim_space_weights(s, at, w);
  return sync_factor(s, w);
}

void anim_space_begin(anim_animator *a, anim_track *lead) {
  struct anim_spaceplay *sp = lead->sp.play;
  const anim_space *s = sp->space;
  double w[ANIM_MAX_SPACE_POINTS];
  int i;
  int dom = 0;
  anim_space_weights(s, sp->at, w);
  for (i = 1; i < sp->n; i++)
    if (w[i] > w[dom]) dom = i;  /* (strictly: the lower index at a tie) */
  for (i = 0; i < sp->n; i++) {
    anim_track *t = sp->m[i];
    t->sp.bw = w[i];
    t->sp.fires = w[i] > 0 && (s->markers == ANIM_MARKERS_ALL || (s->markers == ANIM_MARKERS_DOMINANT && i == dom));
    t->last_at = 0;
    if (a->rm_joint >= 0) anim_rootmotion_begin(a, t);
  }
  if (s->sync) {
    lead->sp.vscale = sync_factor(s, w);
    for (i = 1; i < sp->n; i++) sp->m[i]->shows_last = 0;
  }
}

void anim_space_end(anim_track *lead) {
  struct anim_spaceplay *sp = lead->sp.play;
  int i;
  if (!sp->space->sync) return;
  for (i = 1; i < sp->n; i++) {
    anim_track *t = sp->m[i];
    t->time = anim_space_phase(lead->clip->length, t->clip->length, lead->time);
    t->tlo = 0;
    t->pdir = lead->pdir;
    t->loops = lead->loops;
    t->fresh = lead->fresh;
    t->state = lead->state;
    t->shows_last = lead->shows_last;
  }
}

int anim_space_follow(anim_track *t) {
  const anim_track *l = t->sp.lead;
  if (l->sp.play->space->sync || l->state == TR_QUEUED) return 0;  /* moved by the lead, or waiting */
  t->state = l->state == TR_ENDED ? TR_ENDED : TR_PLAYING;
  t->shows_last = l->shows_last;
  t->speed = l->speed;
  return l->state != TR_ENDED || l->e1 > l->e0;
}

void anim_space_pass(anim_animator *a, anim_track *lead, double from, double to, int dir, int incl,
                     double e0, double sp) {
  struct anim_spaceplay *s = lead->sp.play;
  int i;
  if (!s->space->sync) return;
  for (i = 1; i < s->n; i++) {
    anim_track *t = s->m[i];
    double f = anim_space_phase(lead->clip->length, t->clip->length, from), g = anim_space_phase(lead->clip->length, t->clip->length, to);
    if (t->sp.fires)
      anim_items_pass(a, t, f, g, dir, incl, e0,
                      lead->clip->length > 0 ? sp * (t->clip->length / lead->clip->length) : sp);
  }
}

/* Each other point of a synced space moves its root motion joint over
 * the lead's passes and skips at the same phase (each point's motion is
 * its own sum: the points may go one after the other). */
void anim_space_motion(anim_animator *a, anim_track *lead, const anim_passes *ps) {
  struct anim_spaceplay *s = lead->sp.play;
  int i, k;
  if (!s->space->sync) return;
  for (i = 1; i < s->n; i++) {
    anim_track *t = s->m[i];
    for (k = 0; k < ps->n; k++) {
      const anim_pass *p = &ps->p[k];
      double f, g;
      if (p->what == ANIM_PASS_EVENT) continue;  /* (its clip times are not set) */
      f = anim_space_phase(lead->clip->length, t->clip->length, p->from);
      g = anim_space_phase(lead->clip->length, t->clip->length, p->to);
      if (p->what == ANIM_PASS_ITEMS) anim_rootmotion_pass(a, t, f, g);
      else anim_rootmotion_skip(a, t, p->type, p->dir, p->sp, f, g);
    }
  }
}
