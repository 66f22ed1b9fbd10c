/* queue.c - the callbacks an update queues, and their delivery order:
 * order of occurrence, ties (within ANIM_TIE_SECONDS) won by the track
 * started earlier (SEMANTICS 7a.12). */
#include <stdint.h>
#include <string.h>

#include "animator_impl.h"
#include "graph.h"
#include "pool.h"

/* The bytes of a queue block of cap entries: one line more, for the
 * entries to start a line (an entry is 64 bytes: queueing one writes one
 * line, not two). */
static size_t qbytes(int cap) { return cap ? sizeof(anim_event) * (size_t)cap + LINE : 0; }

/* Room for one more: grows in steps of two (the scratch array of the sort
 * keeps nothing).  0 when out of memory, nothing changed. */
static int grow(anim_animator *a) {
  int cap = a->qcap ? a->qcap * 2 : 64;
  size_t ns = sizeof(anim_event) * (size_t)cap;
  anim_event *tmp = anim_malloc(&a->mem, ns), *q;
  char *raw;
  if (!tmp) return 0;
  raw = anim_malloc(&a->mem, qbytes(cap));
  if (!raw) { anim_free(&a->mem, tmp, ns); return 0; }
  q = (anim_event *)(void *)(raw + (LINE - (size_t)((uintptr_t)raw % LINE)) % LINE);
  if (a->nqueue > 0) memcpy(q, a->queue, sizeof(anim_event) * (size_t)a->nqueue);
  anim_queue_free(a);
  a->qraw = raw;
  a->queue = q;
  a->qtmp = tmp;
  a->qcap = cap;
  return 1;
}

void anim_queue_free(anim_animator *a) {
  anim_free(&a->mem, a->qraw, qbytes(a->qcap));
  anim_free(&a->mem, a->qtmp, sizeof(anim_event) * (size_t)a->qcap);
  a->qraw = NULL;
  a->queue = a->qtmp = NULL;
  a->qcap = 0;
}

void anim_queue_push(anim_animator *a, double at, anim_track *t, int type, int item) {
  anim_event *e;
  if (a->nqueue == a->qcap) {
    /* on a worker thread, one allocation at a time: the host's allocator
     * need not be thread-safe (animator.c) */
    int ok;
    if (a->serial) anim_pool_lock(a->serial);
    ok = grow(a);
    if (a->serial) anim_pool_unlock(a->serial);
    if (!ok) { a->oom = 1; return; }
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
  e->id = t->id;
  e->slot = t->sp.lead->slot;  /* (a point's entries are found through its lead) */
  e->point = t->sp.lead->sp.play ? t->sp.point : -1;
  if (type == ANIM_EV_ITEM) {
    const anim_item *it = &t->clip->items[item];
    e->kind = it->kind;
    e->index = it->index;
  } else {
    e->kind = e->index = -1;
  }
}

static int ev_before(const anim_event *x, const anim_event *y) {
  if (x->at != y->at) return x->at < y->at;
  if (x->track->id != y->track->id) return x->track->id < y->track->id;
  return x->seq < y->seq;
}

/* (a state machine's exits, transitions and entries come before what
 * tracks queue at the same instant: graph.h) */
static int ev_rank_before(const anim_event *x, const anim_event *y) {
  int cx = x->type >= ANIM_EV_EXIT, cy = y->type >= ANIM_EV_EXIT;
  if (cx != cy) return cx;
  if (x->track->id != y->track->id) return x->track->id < y->track->id;
  return x->seq < y->seq;
}

/* Sorts q[0..n) by `before`, stably, using tmp[0..n) as scratch; the
 * result ends in q.  A natural merge sort: the runs already in order are
 * found first, then merged pairwise, O(n log r) for r runs -- and the queue
 * comes in few runs (each track queues its events in order, tracks step in
 * start order), so two tracks of 250,000 events each take one merge.  Any
 * input is O(n log n). */
static void merge_sort(anim_event *q, anim_event *tmp, int n,
                       int (*before)(const anim_event *, const anim_event *)) {
  anim_event *src = q, *dst = tmp;
  int merged = 0, i;
  for (i = 1; i < n && !before(&q[i], &q[i - 1]); i++) {}
  if (i >= n) return;  /* in order already (the usual queue) */
  while (!merged) {
    merged = 1;
    for (i = 0; i < n;) {
      /* two runs from i: [i, mid) and [mid, hi) */
      int mid = i + 1, hi, l, r, k;
      while (mid < n && !before(&src[mid], &src[mid - 1])) mid++;
      hi = mid < n ? mid + 1 : n;
      while (hi < n && !before(&src[hi], &src[hi - 1])) hi++;
      if (mid < n) merged = 0;
      l = i, r = mid, k = i;
      while (l < mid && r < hi) dst[k++] = before(&src[r], &src[l]) ? src[r++] : src[l++];
      while (l < mid) dst[k++] = src[l++];
      while (r < hi) dst[k++] = src[r++];
      i = hi;
    }
    { anim_event *s = src; src = dst; dst = s; }
  }
  if (src != q) memcpy(q, src, sizeof *src * (size_t)n);
}

/* Order of occurrence; occurrences within ANIM_TIE_SECONDS are ties, won by the
 * track started earlier (SEMANTICS 7a.12).  A merge sort on the exact
 * times, then each cluster of ties sorted by rank the same way: O(n log n)
 * in the events queued, however many tie (an insertion sort of the
 * clusters took 30 s for the 512,000 events of two tracks of 4,000
 * markers at speed 1e15, all within 1e-12 s). */
void anim_queue_sort(anim_animator *a) {
  int n = a->nqueue, i, j;
  merge_sort(a->queue, a->qtmp, n, ev_before);
  for (i = 0; i < n; i = j) {
    for (j = i + 1; j < n && a->queue[j].at - a->queue[i].at <= ANIM_TIE_SECONDS; j++) {}
    if (j - i > 1) merge_sort(a->queue + i, a->qtmp + i, j - i, ev_rank_before);
  }
}

void anim_animator_reslot(anim_animator *a) {
  int i;
  for (i = 0; i < a->nqueue; i++)
    if (a->queue[i].slot == 0) a->queue[i].slot = a->queue[i].track->sp.lead->slot;
}

int anim_animator_nevents(const anim_animator *a) { return a->nqueue; }
const anim_event *anim_animator_events(const anim_animator *a, int *n) {
  *n = a->nqueue;
  return a->queue;
}
const anim_event *anim_animator_event(const anim_animator *a, int i) {
  return i >= 0 && i < a->nqueue ? &a->queue[i] : NULL;
}
