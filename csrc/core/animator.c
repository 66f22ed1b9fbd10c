/* animator.c - tracks, clocks, loop modes, fades, blending and the queue
 * of timed callbacks (see animator.h; SEMANTICS 6, 7, 7a). */
#include "animator.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
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

/* A track is one block.  Every update reads the fields up to `hot_end`
 * and the arrays after the struct up to t + hot_end (the key cursors the
 * usual joint needs, the binding per rig joint, each binding's clip joint
 * and whether it is adjusted): few cache lines per track, together, which
 * the batch update prefetches.  The rest (the bindings themselves, the
 * other cursors, the samples of the general blend) follows them. */
struct anim_track {
  const anim_clip *clip;
  int *hot;                /* nbind * ANIM_HOT_CURSORS */
  int *byjoint;            /* per rig joint: its binding, or -1 */
  int *cj;                 /* per binding: its clip joint */
  unsigned char *adjust;   /* per binding: converts turns or scales positions */
  double tw;               /* weight x fade, for this update's pose */
  double priority, speed;
  double time, tlo;        /* playhead, and the rounding carried (Kahan) */
  double last_at;          /* the latest event queued in this update */
  ramp fade, weight;
  long long id;            /* start order: earlier wins ties */
  long long loops;
  int nbind;
  unsigned hot_end;        /* bytes from the track's start read by every update */
  signed char pdir;        /* pingpong direction */
  unsigned char state;
  unsigned char fresh;     /* the next pass includes its start */
  unsigned char stopping, stop_pending;
  unsigned char shows_last; /* ended by `once` in this update: still posed */
  unsigned char unique;    /* no rig joint has two bindings */
  /* cold */
  int refs;
  anim_animator *owner;    /* NULL once the animator let go of it */
  anim_mem mem;            /* the track frees itself (it may outlive its animator) */
  size_t size;
  anim_binding *bind;
  int *cold;               /* nbind * ANIM_COLD_CURSORS */
  double *sample;          /* nbind * SAMPLE_STRIDE */
  int *chans;              /* channels each binding wrote */
};

/* Tracks held in the animator block itself: the usual few need no array
 * of their own (one cache line fewer per character and frame). */
#define INLINE_TRACKS 4

/* The fields every update reads come first; the animated flags follow
 * the struct, then the pose, on a cache line of its own. */
struct anim_animator {
  int ntracks, cap;
  anim_track **tracks;     /* start order */
  anim_track **order;      /* scratch: blend order */
  double *pose;            /* per rig joint: pos 3, rot 4, scl 3 */
  unsigned char *animated; /* per rig joint: ANIM_CH_* */
  const anim_rig *rig;
  double dt;
  long long seq;
  int nqueue, oom;
  int world_valid;
  int side;
  anim_event *queue;
  anim_track *inl[2 * INLINE_TRACKS];  /* tracks and order while cap is INLINE_TRACKS */
  /* cold */
  anim_mem mem;
  long long next_id;
  int qcap;
  anim_event *qtmp;
  double *acc;             /* per rig joint: see ACC_* */
  double *world;           /* per rig joint: 10 numbers */
};

/* Blend accumulators per rig joint. */
enum { ACC_BUDGET = 0, ACC_POS = 3, ACC_ROT = 6, ACC_SCL = 10, ACC_REF = 13, ACC_HASREF = 17,
       ACC_LW = 18, ACC_LPOS = 21, ACC_LROT = 24, ACC_LSCL = 28, ACC_SIZE = 31 };

#define LINE 64  /* cache line bytes (for the layout and prefetching) */

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* ---- creation ----------------------------------------------------------- */

/* The animator and its per-joint arrays are one block (few cache misses
 * per character when thousands update in turn): the struct and the
 * animated flags, then from the next cache line the pose, the world
 * transforms and the accumulators of the general blend. */
static size_t animator_bytes(size_t n) {
  return sizeof(anim_animator) + n + LINE + sizeof(double) * n * (10 + 10 + ACC_SIZE);
}

anim_animator *anim_animator_new(const anim_mem *mem, const anim_rig *rig, int side) {
  size_t n = (size_t)rig->n;
  anim_animator *a = anim_calloc(mem, 1, animator_bytes(n));
  char *p;
  if (!a) return NULL;
  a->mem = *mem;
  a->rig = rig;
  anim_rig_retain((anim_rig *)rig);  /* held until the animator is freed */
  a->side = side;
  a->tracks = a->inl;
  a->order = a->inl + INLINE_TRACKS;
  a->cap = INLINE_TRACKS;
  a->animated = (unsigned char *)(a + 1);
  p = (char *)(a + 1) + n;
  p += (LINE - (size_t)((uintptr_t)p % LINE)) % LINE;  /* the pose starts a line */
  a->pose = (double *)(void *)p;
  a->world = a->pose + n * 10;
  a->acc = a->world + n * 10;
  return a;
}

static void free_track_arrays(anim_animator *a) {
  if (a->tracks == a->inl) return;
  anim_free(&a->mem, a->tracks, sizeof(anim_track *) * (size_t)a->cap);
  anim_free(&a->mem, a->order, sizeof(anim_track *) * (size_t)a->cap);
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
  free_track_arrays(a);
  anim_free(&a->mem, a->queue, sizeof(anim_event) * (size_t)a->qcap);
  anim_free(&a->mem, a->qtmp, sizeof(anim_event) * (size_t)a->qcap);
  anim_rig_free((anim_rig *)a->rig);
  anim_free(&a->mem, a, animator_bytes(n));
}

const anim_rig *anim_animator_rig(const anim_animator *a) { return a->rig; }

/* Room for one more track (both arrays grow together: each holds cap
 * pointers).  0 when out of memory, nothing changed. */
static int grow_tracks(anim_animator *a) {
  int cap = a->cap * 2;
  size_t ns = sizeof(anim_track *) * (size_t)cap;
  anim_track **tr = anim_malloc(&a->mem, ns), **od;
  if (!tr) return 0;
  od = anim_malloc(&a->mem, ns);
  if (!od) { anim_free(&a->mem, tr, ns); return 0; }
  memcpy(tr, a->tracks, sizeof(anim_track *) * (size_t)a->ntracks);
  free_track_arrays(a);  /* order is scratch: nothing to keep */
  a->tracks = tr;
  a->order = od;
  a->cap = cap;
  return 1;
}

anim_track *anim_animator_play(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                               const anim_binding *binds, int nbind) {
  anim_track *t;
  size_t nb = (size_t)(nbind > 0 ? nbind : 0), rn = (size_t)a->rig->n;
  size_t o_hot, o_byjoint, o_cj, o_adjust, o_bind, o_sample, o_cold, o_chans, size;
  double v;
  char *mem;
  if (a->ntracks == a->cap && !grow_tracks(a)) return NULL;
  /* one block: the struct, what every update reads (hot_end), then the
   * bindings (read only for retargeted joints), the other cursors and
   * the samples of the general blend */
  o_hot = sizeof *t;
  o_byjoint = o_hot + nb * sizeof(int) * ANIM_HOT_CURSORS;
  o_cj = o_byjoint + rn * sizeof(int);
  o_adjust = o_cj + nb * sizeof(int);
  o_bind = round_up(o_adjust + nb, sizeof(double));
  o_sample = o_bind + nb * sizeof(anim_binding);
  o_cold = o_sample + nb * sizeof(double) * SAMPLE_STRIDE;
  o_chans = o_cold + nb * sizeof(int) * ANIM_COLD_CURSORS;
  size = o_chans + nb * sizeof(int);
  mem = anim_calloc(&a->mem, 1, size);
  if (!mem) return NULL;
  t = (anim_track *)(void *)mem;
  t->mem = a->mem;
  t->size = size;
  t->hot = (int *)(void *)(mem + o_hot);
  t->byjoint = (int *)(void *)(mem + o_byjoint);
  t->cj = (int *)(void *)(mem + o_cj);
  t->adjust = (unsigned char *)(mem + o_adjust);
  t->hot_end = (unsigned)(o_adjust + nb);
  t->bind = (anim_binding *)(void *)(mem + o_bind);
  t->sample = (double *)(void *)(mem + o_sample);
  t->cold = (int *)(void *)(mem + o_cold);
  t->chans = (int *)(void *)(mem + o_chans);
  if (nb) memcpy(t->bind, binds, nb * sizeof(anim_binding));
  t->nbind = (int)nb;
  {
    int j, b;
    t->unique = 1;
    for (j = 0; j < (int)rn; j++) t->byjoint[j] = -1;
    for (b = 0; b < (int)nb; b++) {
      int rj = binds[b].rj;
      t->cj[b] = binds[b].cj;
      t->adjust[b] = binds[b].convert || binds[b].pscale != 1;
      if (rj < 0 || rj >= (int)rn || t->byjoint[rj] >= 0) t->unique = 0;
      else t->byjoint[rj] = b;
    }
  }
  {
    size_t i;
    for (i = 0; i < nb * ANIM_HOT_CURSORS; i++) t->hot[i] = -1;
    for (i = 0; i < nb * ANIM_COLD_CURSORS; i++) t->cold[i] = -1;
  }
  t->refs = 1;
  t->id = a->next_id++;
  t->owner = a;
  t->clip = c;
  anim_clip_retain((anim_clip *)c);  /* held until the track is freed */
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

/* Samples binding b of track t (weight tw = track weight x fade) into
 * s[SAMPLE_STRIDE]; s[10] becomes the binding's effective weight: tw x
 * joint weight x pose weight.  Returns the channels written. */
static inline int sample_into(anim_track *t, int b, double tw, double *s) {
  const anim_clip *c = t->clip;
  int cj = t->cj[b], ch;
  const anim_joint *jt = &c->joints[cj];
  if (jt->muted) return 0;
  ch = anim_clip_sample_joint(c, cj, t->time, &t->hot[b * ANIM_HOT_CURSORS],
                              &t->cold[b * ANIM_COLD_CURSORS], s);
  if (t->adjust[b]) {
    /* retargeted: turns carried across, positions scaled */
    const anim_binding *bd = &t->bind[b];
    if (bd->convert && (ch & ANIM_CH_ROT)) {
      anim_quat_mul(s + 3, bd->pre, s + 3);
      anim_quat_mul(s + 3, s + 3, bd->post);
    }
    if ((ch & ANIM_CH_POS) && bd->pscale != 1) { s[0] *= bd->pscale; s[1] *= bd->pscale; s[2] *= bd->pscale; }
  }
  s[10] *= tw * jt->weight;
  /* capped so that a level's sum of weights stays finite */
  if (s[10] > 1e300) s[10] = 1e300;
  return ch;
}

/* The same into the binding's slot of t->sample (kept for the blending
 * that reads it back). */
static int sample_binding(anim_track *t, int b, double tw) {
  return t->chans[b] = sample_into(t, b, tw, &t->sample[b * SAMPLE_STRIDE]);
}

static double track_weight(const anim_track *t) {
  return ramp_value(&t->weight) * ramp_value(&t->fade);
}

/* Normal tracks of one priority level [from, to) of a->order, in one pass
 * over their bindings: each is sampled and summed at once into the
 * level's sums (LW: the weights W of each channel; LPOS, LROT, LSCL: the
 * weighted values).  Then per joint the level takes min(W, budget) of
 * each channel: its sums scaled by take / W (1 while W fits the budget: no
 * division), and the budget shrinks by what it took.  A rotation is
 * turned into the hemisphere of the first one that counts (the reference),
 * so that q and -q add up; one counts when its weight and the budget left
 * before the level are both > 0. */
static void blend_level(anim_animator *a, int from, int to) {
  int n = a->rig->n, i, j, b;
  double *acc = a->acc;
  for (j = 0; j < n; j++) {
    double *ac = &acc[j * ACC_SIZE];
    ac[ACC_LW] = ac[ACC_LW + 1] = ac[ACC_LW + 2] = 0;
    ac[ACC_LPOS] = ac[ACC_LPOS + 1] = ac[ACC_LPOS + 2] = 0;
    ac[ACC_LROT] = ac[ACC_LROT + 1] = ac[ACC_LROT + 2] = ac[ACC_LROT + 3] = 0;
    ac[ACC_LSCL] = ac[ACC_LSCL + 1] = ac[ACC_LSCL + 2] = 0;
  }
  for (i = from; i < to; i++) {
    anim_track *t = a->order[i];
    const anim_binding *bd = t->bind;
    for (b = 0; b < t->nbind; b++) {
      int rj = bd[b].rj, ch = sample_binding(t, b, t->tw);
      const double *sv = &t->sample[b * SAMPLE_STRIDE];
      double w = sv[10], *ac = &acc[rj * ACC_SIZE];
      a->animated[rj] |= ch;
      if (ch & ANIM_CH_POS) {
        ac[ACC_LW] += w;
        ac[ACC_LPOS] += w * sv[0];
        ac[ACC_LPOS + 1] += w * sv[1];
        ac[ACC_LPOS + 2] += w * sv[2];
      }
      if (ch & ANIM_CH_ROT) {
        ac[ACC_LW + 1] += w;
        if (w > 0 && ac[ACC_BUDGET + 1] > 0) {
          double *r = &ac[ACC_REF], sw = w;
          if (!ac[ACC_HASREF]) {
            r[0] = sv[3]; r[1] = sv[4]; r[2] = sv[5]; r[3] = sv[6];
            ac[ACC_HASREF] = 1;
          } else if (r[0] * sv[3] + r[1] * sv[4] + r[2] * sv[5] + r[3] * sv[6] < 0) {
            sw = -w;
          }
          ac[ACC_LROT] += sw * sv[3];
          ac[ACC_LROT + 1] += sw * sv[4];
          ac[ACC_LROT + 2] += sw * sv[5];
          ac[ACC_LROT + 3] += sw * sv[6];
        }
      }
      if (ch & ANIM_CH_SCL) {
        ac[ACC_LW + 2] += w;
        ac[ACC_LSCL] += w * sv[7];
        ac[ACC_LSCL + 1] += w * sv[8];
        ac[ACC_LSCL + 2] += w * sv[9];
      }
    }
  }
  for (j = 0; j < n; j++) {
    double *ac = &acc[j * ACC_SIZE], share[3];
    int ch, k;
    for (ch = 0; ch < 3; ch++) {
      double W = ac[ACC_LW + ch], B = ac[ACC_BUDGET + ch];
      if (W <= B) { share[ch] = 1; ac[ACC_BUDGET + ch] = B - W; }
      else { share[ch] = B / W; ac[ACC_BUDGET + ch] = 0; }
    }
    for (k = 0; k < 3; k++) ac[ACC_POS + k] += share[0] * ac[ACC_LPOS + k];
    for (k = 0; k < 4; k++) ac[ACC_ROT + k] += share[1] * ac[ACC_LROT + k];
    for (k = 0; k < 3; k++) ac[ACC_SCL + k] += share[2] * ac[ACC_LSCL + k];
  }
}

static void apply_additive(anim_animator *a, anim_track *t) {
  int b, k;
  for (b = 0; b < t->nbind; b++) sample_binding(t, b, t->tw);
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

/* The most tracks pose_one_level takes (their samples are on its stack). */
#define ONE_LEVEL_MAX 8

static int blend_before(const anim_track *x, const anim_track *y) {
  int ax = x->clip->blend == ANIM_BLEND_ADDITIVE, ay = y->clip->blend == ANIM_BLEND_ADDITIVE;
  if (ax != ay) return ax < ay;               /* normal first */
  if (x->priority != y->priority)
    return ax ? x->priority < y->priority      /* additive: lowest first */
              : x->priority > y->priority;     /* normal: highest first */
  return x->id < y->id;
}

/* The pose of joint j when every contributing track is normal and of one
 * priority (one level: the usual case) and they are at most ONE_LEVEL_MAX:
 * the same sums as blend_level, made joint by joint in registers instead
 * of through the accumulators, and finished at once (the same operations
 * in the same order: the same bits). */
static void pose_one_level(anim_animator *a, int m, int j) {
  double W0 = 0, W1 = 0, W2 = 0, P0 = 0, P1 = 0, P2 = 0, R0 = 0, R1 = 0, R2 = 0, R3 = 0;
  double S0 = 0, S1 = 0, S2 = 0, f0 = 0, f1 = 0, f2 = 0, f3 = 0, sh, left, *p = &a->pose[j * 10];
  double sv[ONE_LEVEL_MAX][SAMPLE_STRIDE];
  int chs[ONE_LEVEL_MAX];
  int i, hasref = 0, animated = 0;
  /* the samples first, then the sums (f: the reference rotation), in
   * scalars: no call between the sums, which stay in registers */
  for (i = 0; i < m; i++) {
    anim_track *t = a->order[i];
    int b = t->byjoint[j];
    chs[i] = b < 0 ? 0 : sample_into(t, b, t->tw, sv[i]);
  }
  for (i = 0; i < m; i++) {
    const double *v = sv[i];
    int ch = chs[i];
    double w;
    if (!ch) continue;
    w = v[10];
    animated |= ch;
    if (ch & ANIM_CH_POS) {
      W0 += w;
      P0 += w * v[0]; P1 += w * v[1]; P2 += w * v[2];
    }
    if (ch & ANIM_CH_ROT) {
      W1 += w;
      if (w > 0) {
        double sw = w;
        if (!hasref) { f0 = v[3]; f1 = v[4]; f2 = v[5]; f3 = v[6]; hasref = 1; }
        else if (f0 * v[3] + f1 * v[4] + f2 * v[5] + f3 * v[6] < 0) sw = -w;
        R0 += sw * v[3]; R1 += sw * v[4]; R2 += sw * v[5]; R3 += sw * v[6];
      }
    }
    if (ch & ANIM_CH_SCL) {
      W2 += w;
      S0 += w * v[7]; S1 += w * v[8]; S2 += w * v[9];
    }
  }
  a->animated[j] = (unsigned char)animated;
  sh = W0 <= 1 ? 1 : 1 / W0;
  p[0] = 0 + sh * P0; p[1] = 0 + sh * P1; p[2] = 0 + sh * P2;
  if (W2 <= 1) { sh = 1; left = 1 - W2; } else { sh = 1 / W2; left = 0; }
  p[7] = (0 + sh * S0) + left; p[8] = (0 + sh * S1) + left; p[9] = (0 + sh * S2) + left;
  if (hasref) {
    if (W1 <= 1) { sh = 1; left = 1 - W1; } else { sh = 1 / W1; left = 0; }
    p[3] = 0 + sh * R0; p[4] = 0 + sh * R1; p[5] = 0 + sh * R2; p[6] = 0 + sh * R3;
    p[6] += (f3 < 0 ? -left : left);
    anim_quat_normalize(p + 3);
  } else {
    anim_quat_identity(p + 3);
  }
  anim_finite10(p);
}

static void compute_pose(anim_animator *a) {
  int n = a->rig->n, m = 0, i, j, k, one_level = 1;
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (!contributes(t)) continue;
    t->tw = track_weight(t);
    if (!t->unique || t->clip->blend == ANIM_BLEND_ADDITIVE ||
        (m > 0 && t->priority != a->order[0]->priority) || m == ONE_LEVEL_MAX)
      one_level = 0;
    /* insertion into blend order (tracks are few) */
    for (k = m; k > 0 && blend_before(t, a->order[k - 1]); k--) a->order[k] = a->order[k - 1];
    a->order[k] = t;
    m++;
  }
  if (one_level) {
    for (j = 0; j < n; j++) pose_one_level(a, m, j);
    return;
  }
  for (j = 0; j < n; j++) {
    /* the accumulators the levels add to (each zeroes its own sums) */
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
  for (j = 0; j < n; j++) anim_finite10(&a->pose[j * 10]);
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

/* ---- updating many animators --------------------------------------------- */

/* Software prefetching (a hint: no effect on results; nothing where the
 * compiler has no such builtin).  Hot data is read and written. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define PREFETCH_W(p) ((void)(p))
#endif

static void prefetch_range(const void *p, size_t bytes) {
  uintptr_t c = (uintptr_t)p / LINE * LINE, end = (uintptr_t)p + bytes;
  for (; c < end; c += LINE) PREFETCH_W((const void *)c);
}

/* The three stages of an animator's prefetch, each reading only what the
 * stage before brought in: its struct; then its tracks' structs, the
 * animated flags and the pose it writes; then the rest of its tracks'
 * hot data (a track's hot_end is in its struct). */
static void prefetch_head(const anim_animator *a) { prefetch_range(a, sizeof *a); }

static void prefetch_tracks(const anim_animator *a) {
  size_t n = (size_t)a->rig->n;
  int i;
  for (i = 0; i < a->ntracks; i++) PREFETCH_W(a->tracks[i]);
  prefetch_range(a->animated, n);
  prefetch_range(a->pose, sizeof(double) * 10 * n);
}

static void prefetch_hot(const anim_animator *a) {
  int i;
  for (i = 0; i < a->ntracks; i++) prefetch_range(a->tracks[i], a->tracks[i]->hot_end);
}

/* The prefetches run three, two and one animators ahead of the one being
 * updated: each stage has a whole update's time to arrive.  Only current
 * pointers are followed (an animator's ended tracks are freed by its own
 * update), so a list naming one animator twice is safe too. */
int anim_animators_update(anim_animator *const *as, int n, double dt, int *queued, int *nqueued) {
  int i, k = 0;
  if (nqueued) *nqueued = 0;
  if (!isfinite(dt) || dt < 0) return -1;
  /* (the first animator is used at once: nothing to prefetch) */
  for (i = 1; i < n && i < 3; i++) prefetch_head(as[i]);
  if (n > 1) prefetch_tracks(as[1]);
  for (i = 0; i < n; i++) {
    anim_animator *a = as[i];
    if (i + 3 < n) prefetch_head(as[i + 3]);
    if (i + 2 < n) prefetch_tracks(as[i + 2]);
    if (i + 1 < n) prefetch_hot(as[i + 1]);
    if (anim_animator_update(a, dt) == -2) {
      if (nqueued) *nqueued = k;
      return i + 1;
    }
    if (a->nqueue > 0 && queued) queued[k++] = i;
  }
  if (nqueued) *nqueued = k;
  return 0;
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
  /* both are unit quaternions: so is the product, within rounding */
  anim_quat_mul(out + 3, r->rest_rot[j], p + 3);
  for (k = 0; k < 3; k++) out[7 + k] = p[7 + k];
  anim_finite10(out);
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
        anim_finite10(w);
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
    anim_clip_free((anim_clip *)t->clip);
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
