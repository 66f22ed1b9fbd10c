/* animator.c - tracks, clocks, loop modes, fades, blending and the queue
 * of timed callbacks (see animator.h; SEMANTICS 6, 7, 7a). */
#include "animator.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amath.h"

/* A ramp from `from` to `to` over `dur` animator seconds; `elapsed` counts
 * the updates since it was requested (it starts at the next update). */
typedef struct ramp { double from, to, dur, elapsed; } ramp;

static double ramp_value(const ramp *r) {
  if (r->dur <= 0 || r->elapsed >= r->dur) return r->to;
  return r->from + (r->to - r->from) * (r->elapsed / r->dur);
}

static void ramp_set(ramp *r, double to, double dur) {
  r->from = ramp_value(r);
  r->to = to;
  r->dur = dur > 0 ? dur : 0;
  r->elapsed = 0;
}

enum { TR_PENDING, TR_PLAYING, TR_ENDED };
#define SAMPLE_STRIDE 11   /* pos 3, rot 4, scl 3, pose weight */

struct anim_track {
  int refs;
  anim_mem mem;            /* the track frees itself (it may outlive its animator) */
  size_t size;
  long long id;            /* start order: earlier wins ties */
  anim_animator *owner;    /* NULL once the animator let go of it */
  const anim_clip *clip;
  int nbind;
  anim_binding *bind;
  int *cursors;            /* nbind * ANIM_JOINT_CURSORS */
  double *sample;          /* nbind * SAMPLE_STRIDE */
  int *chans;              /* channels each binding wrote */
  double priority, speed;
  double time, tlo;        /* playhead, and the rounding carried (Kahan) */
  long long loops;
  int pdir;                /* pingpong direction */
  int state;
  int fresh;               /* the next pass includes its start */
  int stopping, stop_pending;
  int shows_last;          /* ended by `once` in this update: still posed */
  double last_at;          /* the latest event queued in this update */
  ramp fade, weight;
};

struct anim_animator {
  anim_mem mem;
  const anim_rig *rig;
  int side;
  long long next_id, seq;
  int ntracks, cap;
  anim_track **tracks;     /* start order */
  anim_track **order;      /* scratch: blend order */
  int nqueue, qcap, oom;
  anim_event *queue, *qtmp;
  double dt;
  double *pose;            /* per rig joint: pos 3, rot 4, scl 3 */
  int *animated;           /* per rig joint: ANIM_CH_* */
  double *acc;             /* per rig joint: see ACC_* */
  double *world;           /* per rig joint: 10 numbers */
  int world_valid;
};

/* Blend accumulators per rig joint. */
enum { ACC_BUDGET = 0, ACC_LEVELW = 3, ACC_TAKE = 6, ACC_SHARE = 9, ACC_POS = 12, ACC_ROT = 15,
       ACC_SCL = 19, ACC_REF = 22, ACC_HASREF = 26, ACC_SIZE = 27 };

/* ---- creation ----------------------------------------------------------- */

anim_animator *anim_animator_new(const anim_mem *mem, const anim_rig *rig, int side) {
  anim_animator *a = anim_calloc(mem, 1, sizeof *a);
  size_t n = (size_t)rig->n;
  if (!a) return NULL;
  a->mem = *mem;
  a->rig = rig;
  a->side = side;
  a->pose = anim_calloc(mem, n * 10, sizeof(double));
  a->animated = anim_calloc(mem, n, sizeof(int));
  a->acc = anim_calloc(mem, n * ACC_SIZE, sizeof(double));
  a->world = anim_calloc(mem, n * 10, sizeof(double));
  if (!a->pose || !a->animated || !a->acc || !a->world) { anim_animator_free(a); return NULL; }
  return a;
}

void anim_animator_free(anim_animator *a) {
  int i;
  size_t n;
  if (!a) return;
  n = (size_t)a->rig->n;
  for (i = 0; i < a->ntracks; i++) {
    a->tracks[i]->owner = NULL;
    anim_track_release(a->tracks[i]);
  }
  anim_free(&a->mem, a->tracks, sizeof(anim_track *) * (size_t)a->cap);
  anim_free(&a->mem, a->order, sizeof(anim_track *) * (size_t)a->cap);
  anim_free(&a->mem, a->queue, sizeof(anim_event) * (size_t)a->qcap);
  anim_free(&a->mem, a->qtmp, sizeof(anim_event) * (size_t)a->qcap);
  anim_free(&a->mem, a->pose, sizeof(double) * n * 10);
  anim_free(&a->mem, a->animated, sizeof(int) * n);
  anim_free(&a->mem, a->acc, sizeof(double) * n * ACC_SIZE);
  anim_free(&a->mem, a->world, sizeof(double) * n * 10);
  anim_free(&a->mem, a, sizeof *a);
}

const anim_rig *anim_animator_rig(const anim_animator *a) { return a->rig; }

anim_track *anim_animator_play(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                               const anim_binding *binds, int nbind) {
  anim_track *t;
  size_t nb = (size_t)(nbind > 0 ? nbind : 0);
  double v;
  char *mem;
  size_t size;
  if (a->ntracks == a->cap) {
    /* both arrays grow together: the size of each is cap pointers */
    int cap = a->cap ? a->cap * 2 : 8;
    size_t os = sizeof(anim_track *) * (size_t)a->cap, ns = sizeof(anim_track *) * (size_t)cap;
    anim_track **tr, **od = anim_malloc(&a->mem, ns);
    if (!od) return NULL;
    tr = anim_realloc(&a->mem, a->tracks, os, ns);
    if (!tr) { anim_free(&a->mem, od, ns); return NULL; }
    a->tracks = tr;
    anim_free(&a->mem, a->order, os);  /* scratch: nothing to keep */
    a->order = od;
    a->cap = cap;
  }
  size = sizeof *t + nb * (sizeof(anim_binding) + sizeof(double) * SAMPLE_STRIDE +
                           sizeof(int) * (ANIM_JOINT_CURSORS + 1));
  mem = anim_calloc(&a->mem, 1, size);
  if (!mem) return NULL;
  t = (anim_track *)mem;
  t->mem = a->mem;
  t->size = size;
  mem += sizeof *t;
  t->bind = (anim_binding *)mem; mem += nb * sizeof(anim_binding);
  t->sample = (double *)mem; mem += nb * sizeof(double) * SAMPLE_STRIDE;
  t->cursors = (int *)mem; mem += nb * sizeof(int) * ANIM_JOINT_CURSORS;
  t->chans = (int *)mem;
  if (nb) memcpy(t->bind, binds, nb * sizeof(anim_binding));
  t->nbind = (int)nb;
  {
    size_t i;
    for (i = 0; i < nb * ANIM_JOINT_CURSORS; i++) t->cursors[i] = -1;
  }
  t->refs = 1;
  t->id = a->next_id++;
  t->owner = a;
  t->clip = c;
  t->priority = o->has_priority ? o->priority : c->priority;
  t->speed = o->speed;
  v = c->speed * t->speed;
  t->time = v < 0 ? c->length : 0;
  t->pdir = 1;
  t->state = TR_PENDING;
  t->fresh = 1;
  t->fade.from = 0; t->fade.to = 1; t->fade.dur = o->fade > 0 ? o->fade : 0;
  t->weight.from = t->weight.to = o->weight;
  a->tracks[a->ntracks++] = t;
  return t;
}

/* ---- the queue ---------------------------------------------------------- */

static void push(anim_animator *a, double at, anim_track *t, int type, int item) {
  anim_event *e;
  if (a->nqueue == a->qcap) {
    /* grows in steps of two; the scratch array of the sort keeps nothing */
    int cap = a->qcap ? a->qcap * 2 : 64;
    size_t os = sizeof(anim_event) * (size_t)a->qcap, ns = sizeof(anim_event) * (size_t)cap;
    anim_event *tmp = anim_malloc(&a->mem, ns), *q;
    if (!tmp) { a->oom = 1; return; }
    q = anim_realloc(&a->mem, a->queue, os, ns);
    if (!q) { anim_free(&a->mem, tmp, ns); a->oom = 1; return; }
    a->queue = q;
    anim_free(&a->mem, a->qtmp, os);
    a->qtmp = tmp;
    a->qcap = cap;
  }
  /* a track's events keep their order in time, whatever the rounding of
   * their offsets (a later event never sorts before an earlier one) */
  if (at < t->last_at) at = t->last_at;
  t->last_at = at;
  e = &a->queue[a->nqueue++];
  e->at = at;
  e->late = a->dt - at;
  if (e->late < 0) e->late = 0;
  e->track = t;
  e->type = type;
  e->item = item;
  e->seq = a->seq++;
}

static int ev_before(const anim_event *x, const anim_event *y) {
  if (x->at != y->at) return x->at < y->at;
  if (x->track->id != y->track->id) return x->track->id < y->track->id;
  return x->seq < y->seq;
}

static int ev_rank_before(const anim_event *x, const anim_event *y) {
  if (x->track->id != y->track->id) return x->track->id < y->track->id;
  return x->seq < y->seq;
}

/* Order of occurrence; occurrences within 1e-12 s are ties, won by the
 * track started earlier (SEMANTICS 7a.12).  A stable merge sort on the
 * exact times, then each cluster of ties re-ordered by rank. */
static void sort_queue(anim_animator *a) {
  int n = a->nqueue, w, i, j;
  anim_event *src = a->queue, *dst = a->qtmp;
  for (w = 1; w < n; w *= 2) {
    for (i = 0; i < n; i += 2 * w) {
      int mid = i + w < n ? i + w : n, hi = i + 2 * w < n ? i + 2 * w : n;
      int l = i, r = mid, k = i;
      while (l < mid && r < hi) dst[k++] = ev_before(&src[r], &src[l]) ? src[r++] : src[l++];
      while (l < mid) dst[k++] = src[l++];
      while (r < hi) dst[k++] = src[r++];
    }
    { anim_event *s = src; src = dst; dst = s; }
  }
  if (src != a->queue) memcpy(a->queue, src, sizeof *src * (size_t)n);
  for (i = 0; i < n; i = j) {
    for (j = i + 1; j < n && a->queue[j].at - a->queue[i].at <= 1e-12; j++) {}
    if (j - i > 1) {
      int p, q;
      for (p = i + 1; p < j; p++) {
        anim_event e = a->queue[p];
        for (q = p; q > i && ev_rank_before(&e, &a->queue[q - 1]); q--) a->queue[q] = a->queue[q - 1];
        a->queue[q] = e;
      }
    }
  }
}

int anim_animator_nevents(const anim_animator *a) { return a->nqueue; }
const anim_event *anim_animator_event(const anim_animator *a, int i) {
  return i >= 0 && i < a->nqueue ? &a->queue[i] : NULL;
}

/* ---- passes ------------------------------------------------------------- */

static int item_fires(const anim_animator *a, const anim_item *it) {
  switch (it->kind) {
    case ANIM_ITEM_EVENT:
      return a->side == ANIM_SIDE_BOTH || it->side == ANIM_SIDE_BOTH || it->side == a->side;
    case ANIM_ITEM_SOUND: return a->side != ANIM_SIDE_SERVER;
    case ANIM_ITEM_PLAY: return a->side != ANIM_SIDE_CLIENT;
    default: return 1;
  }
}

/* First item index with time > x (strict) or >= x. */
static int first_item(const anim_clip *c, double x, int strict) {
  int lo = 0, hi = c->nitems;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    double t = c->items[mid].t;
    if (strict ? t > x : t >= x) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/* Queues the items of the pass from clip time `from` to `to` in direction
 * dir, starting `e0` seconds into the update at playhead speed sp.  At
 * equal times items keep their kind and file order in both directions. */
static void fire_pass(anim_animator *a, anim_track *t, double from, double to, int dir,
                      int incl, double e0, double sp) {
  const anim_clip *c = t->clip;
  int i;
  if (c->nitems == 0) return;
  if (dir > 0) {
    for (i = first_item(c, from, !incl); i < c->nitems && c->items[i].t <= to; i++) {
      const anim_item *it = &c->items[i];
      if (item_fires(a, it)) push(a, e0 + (sp > 0 ? (it->t - from) / sp : 0), t, ANIM_EV_ITEM, i);
    }
  } else {
    int end = first_item(c, from, incl) - 1;  /* last item with t < from (or <= from) */
    while (end >= 0 && c->items[end].t >= to) {
      int start = end, k;
      double tt = c->items[end].t;
      while (start > 0 && c->items[start - 1].t == tt) start--;
      for (k = start; k <= end; k++) {
        const anim_item *it = &c->items[k];
        if (item_fires(a, it)) push(a, e0 + (sp > 0 ? (from - tt) / sp : 0), t, ANIM_EV_ITEM, k);
      }
      end = start - 1;
    }
  }
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
  fire_pass(a, t, from, t->time, dir, incl, e, sp);
}

/* Advances track t by `span` animator seconds, queueing what it passes. */
static void advance(anim_animator *a, anim_track *t, double span) {
  const anim_clip *c = t->clip;
  double L = c->length, v = c->speed * t->speed, sp = fabs(v), D, e = 0;
  int mode = L > 0 ? c->loop : ANIM_HOLD;
  int dir = (v < 0 ? -1 : 1) * (mode == ANIM_PINGPONG ? t->pdir : 1);
  int incl = t->fresh, passes = 0;
  /* a speed or a step too large for a double saturates (no NaN, no inf) */
  if (!(sp <= DBL_MAX)) sp = DBL_MAX;
  D = span > 0 ? sp * span : 0;
  if (!(D <= DBL_MAX)) D = DBL_MAX;
  t->fresh = 0;
  for (;;) {
    double pos = t->time + t->tlo;
    double b = dir > 0 ? L - pos : pos, bt = dir > 0 ? L : 0, eb;
    if (b < 0) b = 0;
    if (!(D > 0 && D >= b)) {  /* stays inside: nothing is crossed */
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
    fire_pass(a, t, t->time, bt, dir, incl, e, sp);
    passes++;
    if (mode == ANIM_HOLD) { t->time = bt; t->tlo = 0; return; }
    if (mode == ANIM_ONCE) {
      t->time = bt;
      t->tlo = 0;
      if (!t->stopping) push(a, eb, t, ANIM_EV_STOPPED, -1); /* a stop already said it */
      push(a, eb, t, ANIM_EV_ENDED, -1);
      t->state = TR_ENDED;
      t->shows_last = 1;
      return;
    }
    push(a, eb, t, ANIM_EV_LOOPED, -1);
    if (t->loops < LLONG_MAX) t->loops++;
    D -= b;
    e = eb;
    t->tlo = 0;
    if (mode == ANIM_LOOP) { t->time = dir > 0 ? 0 : L; incl = 1; }
    else { t->time = bt; dir = -dir; t->pdir = -t->pdir; incl = 0; }
  }
}

/* ---- blending ----------------------------------------------------------- */

static int contributes(const anim_track *t) {
  return t->state == TR_PLAYING || t->shows_last;
}

/* Samples every binding of t at its time; sample[10] becomes the binding's
 * effective weight: track weight x fade x joint weight x pose weight. */
static void sample_track(anim_track *t) {
  const anim_clip *c = t->clip;
  double tw = ramp_value(&t->weight) * ramp_value(&t->fade);
  int b;
  for (b = 0; b < t->nbind; b++) {
    const anim_binding *bd = &t->bind[b];
    double *s = &t->sample[b * SAMPLE_STRIDE];
    int ch;
    if (c->joints[bd->cj].muted) { t->chans[b] = 0; continue; }
    ch = anim_clip_sample_joint(c, bd->cj, t->time, &t->cursors[b * ANIM_JOINT_CURSORS],
                                s, s + 3, s + 7, s + 10);
    if (bd->convert && (ch & ANIM_CH_ROT)) {
      anim_quat_mul(s + 3, bd->pre, s + 3);
      anim_quat_mul(s + 3, s + 3, bd->post);
    }
    if ((ch & ANIM_CH_POS) && bd->pscale != 1) { s[0] *= bd->pscale; s[1] *= bd->pscale; s[2] *= bd->pscale; }
    s[10] *= tw * c->joints[bd->cj].weight;
    /* capped so that a level's sum of weights stays finite */
    if (s[10] > 1e300) s[10] = 1e300;
    t->chans[b] = ch;
  }
}

/* Normal tracks of one priority level [from, to) of a->order. */
static void blend_level(anim_animator *a, int from, int to) {
  int n = a->rig->n, i, j, b, ch;
  for (j = 0; j < n; j++)
    for (ch = 0; ch < 3; ch++) a->acc[j * ACC_SIZE + ACC_LEVELW + ch] = 0;
  for (i = from; i < to; i++) {
    anim_track *t = a->order[i];
    for (b = 0; b < t->nbind; b++) {
      int rj = t->bind[b].rj, chans = t->chans[b];
      double w = t->sample[b * SAMPLE_STRIDE + 10], *lw = &a->acc[rj * ACC_SIZE + ACC_LEVELW];
      a->animated[rj] |= chans;
      if (chans & ANIM_CH_POS) lw[0] += w;
      if (chans & ANIM_CH_ROT) lw[1] += w;
      if (chans & ANIM_CH_SCL) lw[2] += w;
    }
  }
  /* each level takes min(W, budget); a contribution of weight w gets the
   * share w * take / W (ACC_SHARE holds take / W, 0 when W is 0) */
  for (j = 0; j < n; j++) {
    double *ac = &a->acc[j * ACC_SIZE];
    for (ch = 0; ch < 3; ch++) {
      double W = ac[ACC_LEVELW + ch], take = W < ac[ACC_BUDGET + ch] ? W : ac[ACC_BUDGET + ch];
      ac[ACC_TAKE + ch] = take;
      ac[ACC_SHARE + ch] = W > 0 ? take / W : 0;
    }
  }
  for (i = from; i < to; i++) {
    anim_track *t = a->order[i];
    for (b = 0; b < t->nbind; b++) {
      double *ac = &a->acc[t->bind[b].rj * ACC_SIZE];
      const double *s = &t->sample[b * SAMPLE_STRIDE];
      double w = s[10], share;
      int k;
      if (t->chans[b] & ANIM_CH_POS) {
        share = w * ac[ACC_SHARE];
        for (k = 0; k < 3; k++) ac[ACC_POS + k] += share * s[k];
      }
      if (t->chans[b] & ANIM_CH_ROT) {
        double sg = 1;
        share = w * ac[ACC_SHARE + 1];
        if (share > 0) {
          if (!ac[ACC_HASREF]) {
            for (k = 0; k < 4; k++) ac[ACC_REF + k] = s[3 + k];
            ac[ACC_HASREF] = 1;
          } else if (ac[ACC_REF] * s[3] + ac[ACC_REF + 1] * s[4] + ac[ACC_REF + 2] * s[5] +
                     ac[ACC_REF + 3] * s[6] < 0) {
            sg = -1;
          }
          for (k = 0; k < 4; k++) ac[ACC_ROT + k] += sg * share * s[3 + k];
        }
      }
      if (t->chans[b] & ANIM_CH_SCL) {
        share = w * ac[ACC_SHARE + 2];
        for (k = 0; k < 3; k++) ac[ACC_SCL + k] += share * s[7 + k];
      }
    }
  }
  for (j = 0; j < n; j++) {
    double *ac = &a->acc[j * ACC_SIZE];
    for (ch = 0; ch < 3; ch++) ac[ACC_BUDGET + ch] -= ac[ACC_TAKE + ch];
  }
}

static void apply_additive(anim_animator *a, anim_track *t) {
  int b, k;
  for (b = 0; b < t->nbind; b++) {
    int rj = t->bind[b].rj;
    double *p = &a->pose[rj * 10];
    const double *s = &t->sample[b * SAMPLE_STRIDE];
    double w = s[10];
    a->animated[rj] |= t->chans[b];
    if (t->chans[b] & ANIM_CH_POS)
      for (k = 0; k < 3; k++) p[k] += w * s[k];
    if (t->chans[b] & ANIM_CH_ROT) {
      double id[4] = {0, 0, 0, 1}, r[4];
      anim_quat_slerp(r, id, s + 3, w);
      anim_quat_mul(p + 3, p + 3, r);
      anim_quat_normalize(p + 3);
    }
    if (t->chans[b] & ANIM_CH_SCL)
      for (k = 0; k < 3; k++) p[7 + k] *= 1 + (s[7 + k] - 1) * w;
  }
}

static int blend_before(const anim_track *x, const anim_track *y) {
  int ax = x->clip->blend == ANIM_BLEND_ADDITIVE, ay = y->clip->blend == ANIM_BLEND_ADDITIVE;
  if (ax != ay) return ax < ay;               /* normal first */
  if (x->priority != y->priority)
    return ax ? x->priority < y->priority      /* additive: lowest first */
              : x->priority > y->priority;     /* normal: highest first */
  return x->id < y->id;
}

static void compute_pose(anim_animator *a) {
  int n = a->rig->n, m = 0, i, j, k;
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (!contributes(t)) continue;
    sample_track(t);
    /* insertion into blend order (tracks are few) */
    for (k = m; k > 0 && blend_before(t, a->order[k - 1]); k--) a->order[k] = a->order[k - 1];
    a->order[k] = t;
    m++;
  }
  for (j = 0; j < n; j++) {
    /* the accumulators a level reads before writing (LEVELW, TAKE and
     * SHARE are set by each level) */
    double *ac = &a->acc[j * ACC_SIZE];
    ac[ACC_BUDGET] = ac[ACC_BUDGET + 1] = ac[ACC_BUDGET + 2] = 1;
    ac[ACC_POS] = ac[ACC_POS + 1] = ac[ACC_POS + 2] = 0;
    ac[ACC_ROT] = ac[ACC_ROT + 1] = ac[ACC_ROT + 2] = ac[ACC_ROT + 3] = 0;
    ac[ACC_SCL] = ac[ACC_SCL + 1] = ac[ACC_SCL + 2] = 0;
    ac[ACC_HASREF] = 0;
    a->animated[j] = 0;
  }
  for (i = 0; i < m && a->order[i]->clip->blend != ANIM_BLEND_ADDITIVE; i = k) {
    for (k = i + 1; k < m && a->order[k]->clip->blend != ANIM_BLEND_ADDITIVE &&
                    a->order[k]->priority == a->order[i]->priority; k++) {}
    blend_level(a, i, k);
  }
  for (j = 0; j < n; j++) {
    double *ac = &a->acc[j * ACC_SIZE], *p = &a->pose[j * 10];
    for (k = 0; k < 3; k++) p[k] = ac[ACC_POS + k];
    for (k = 0; k < 3; k++) p[7 + k] = ac[ACC_SCL + k] + ac[ACC_BUDGET + 2];
    if (ac[ACC_HASREF]) {
      /* the rest (identity) takes the budget left, aligned to the reference */
      double left = ac[ACC_BUDGET + 1];
      for (k = 0; k < 4; k++) p[3 + k] = ac[ACC_ROT + k];
      p[6] += (ac[ACC_REF + 3] < 0 ? -left : left);
      anim_quat_normalize(p + 3);
    } else {
      anim_quat_identity(p + 3);
    }
  }
  for (; i < m; i++) apply_additive(a, a->order[i]);
}

/* ---- update ------------------------------------------------------------- */

int anim_animator_update(anim_animator *a, double dt) {
  int i, k = 0;
  if (!isfinite(dt) || dt < 0) return -1;
  a->nqueue = 0;
  a->oom = 0;
  a->dt = dt;
  a->world_valid = 0;
  /* tracks that ended in the previous update leave now */
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (t->state == TR_ENDED) { t->owner = NULL; anim_track_release(t); }
    else a->tracks[k++] = t;
  }
  a->ntracks = k;
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    double span = dt;
    int fade_ends = 0;
    if (t->state == TR_PENDING) t->state = TR_PLAYING;
    t->shows_last = 0;
    t->last_at = 0;
    if (t->stop_pending) { push(a, 0, t, ANIM_EV_STOPPED, -1); t->stop_pending = 0; }
    if (t->stopping) {
      double left = t->fade.dur - t->fade.elapsed;
      if (left <= dt) { span = left > 0 ? left : 0; fade_ends = 1; }
    }
    if (!(fade_ends && span <= 0)) advance(a, t, span);
    if (fade_ends && t->state != TR_ENDED) {
      push(a, span, t, ANIM_EV_ENDED, -1);
      t->state = TR_ENDED;
    }
    t->fade.elapsed += dt;
    t->weight.elapsed += dt;
  }
  compute_pose(a);
  sort_queue(a);
  return a->oom ? -2 : 0;
}

/* ---- reading the pose --------------------------------------------------- */

void anim_animator_get(const anim_animator *a, int j, double out[10], int *animated) {
  memcpy(out, &a->pose[j * 10], sizeof(double) * 10);
  if (animated) *animated = a->animated[j];
}

void anim_animator_local(const anim_animator *a, int j, double out[10]) {
  const anim_rig *r = a->rig;
  const double *p = &a->pose[j * 10];
  int k;
  for (k = 0; k < 3; k++) out[k] = r->rest_pos[j][k] + p[k];
  anim_quat_mul(out + 3, r->rest_rot[j], p + 3);
  anim_quat_normalize(out + 3);
  for (k = 0; k < 3; k++) out[7 + k] = p[7 + k];
}

void anim_animator_world(anim_animator *a, int j, double out[10]) {
  if (!a->world_valid) {
    const anim_rig *r = a->rig;
    int i, k;
    for (i = 0; i < r->n; i++) {
      double *w = &a->world[i * 10], l[10];
      anim_animator_local(a, i, l);
      if (r->parent[i] < 0) { memcpy(w, l, sizeof l); continue; }
      {
        const double *pw = &a->world[r->parent[i] * 10];
        double sp[3];
        for (k = 0; k < 3; k++) sp[k] = pw[7 + k] * l[k];
        anim_quat_rotate(w, pw + 3, sp);
        for (k = 0; k < 3; k++) w[k] += pw[k];
        anim_quat_mul(w + 3, pw + 3, l + 3);
        anim_quat_normalize(w + 3);
        for (k = 0; k < 3; k++) w[7 + k] = pw[7 + k] * l[7 + k];
      }
    }
    a->world_valid = 1;
  }
  memcpy(out, &a->world[j * 10], sizeof(double) * 10);
}

/* ---- tracks ------------------------------------------------------------- */

void anim_track_retain(anim_track *t) { t->refs++; }
void anim_track_release(anim_track *t) {
  if (--t->refs <= 0) {
    anim_mem m = t->mem;
    anim_free(&m, t, t->size);
  }
}
int anim_track_playing(const anim_track *t) { return t->owner && t->state != TR_ENDED; }
const anim_clip *anim_track_clip(const anim_track *t) { return t->clip; }
long long anim_track_id(const anim_track *t) { return t->id; }
anim_animator *anim_track_animator(const anim_track *t) { return t->owner; }
double anim_track_time(const anim_track *t) { return t->time; }
double anim_track_speed(const anim_track *t) { return t->speed; }
double anim_track_weight(const anim_track *t) { return ramp_value(&t->weight); }
double anim_track_fade(const anim_track *t) { return ramp_value(&t->fade); }
long long anim_track_loops(const anim_track *t) { return t->loops; }

void anim_track_stop(anim_track *t, double fade) {
  if (!anim_track_playing(t)) return;
  if (!t->stopping) t->stop_pending = 1;
  t->stopping = 1;
  ramp_set(&t->fade, 0, fade);
}

void anim_track_adjust_weight(anim_track *t, double w, double fade) {
  if (anim_track_playing(t)) ramp_set(&t->weight, w, fade);
}

void anim_track_adjust_speed(anim_track *t, double s) {
  if (anim_track_playing(t)) t->speed = s;
}

void anim_track_seek(anim_track *t, double time) {
  double L = t->clip->length;
  if (!anim_track_playing(t)) return;
  if (!(time >= 0)) time = 0;
  if (time > L) time = L;
  t->time = time;
  t->tlo = 0;
  t->fresh = 0;
}

void anim_track_restart(anim_track *t, double fade) {
  double v;
  if (!anim_track_playing(t)) return;
  v = t->clip->speed * t->speed;
  t->time = v < 0 ? t->clip->length : 0;
  t->tlo = 0;
  t->fresh = 1;
  t->pdir = 1;
  t->loops = 0;
  t->stopping = 0;
  t->stop_pending = 0;
  ramp_set(&t->fade, 1, fade);
}
