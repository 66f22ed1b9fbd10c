/* queue.c - the callbacks an update queues, and their delivery order:
 * order of occurrence, ties (within ANIM_TIE_SECONDS) won by the track
 * started earlier (SEMANTICS 7a.12). */
#include <string.h>

#include "animator_impl.h"

void anim_queue_push(anim_animator *a, double at, anim_track *t, int type, int item) {
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

/* Order of occurrence; occurrences within ANIM_TIE_SECONDS are ties, won by the
 * track started earlier (SEMANTICS 7a.12).  A stable merge sort on the
 * exact times, then each cluster of ties re-ordered by rank. */
void anim_queue_sort(anim_animator *a) {
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
    for (j = i + 1; j < n && a->queue[j].at - a->queue[i].at <= ANIM_TIE_SECONDS; j++) {}
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
