/* animator.c - animators: their block, playing a clip, and the update of
 * one animator or of many (see animator.h, animator_impl.h for the other
 * steps; SEMANTICS 6, 7, 7a). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "animator_impl.h"
#include "pool.h"

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
  a->hear = ANIM_HEAR_ALL;  /* a caller that says nothing hears everything */
  a->tracks = a->inl;
  a->order = a->inl + INLINE_TRACKS;
  a->cap = INLINE_TRACKS;
  a->animated = (unsigned char *)(a + 1);
  p = (char *)(a + 1) + n;
  p += (LINE - (size_t)((uintptr_t)p % LINE)) % LINE;  /* the pose starts a line */
  a->pose = (double *)(void *)p;
  a->world = a->pose + n * 10;
  a->acc = a->world + n * 10;
  a->rm_joint = -1;
  {
    /* before the first update the pose is the rest: no offset, no turn,
     * scale 1 (get, local and world transforms read it) */
    size_t j;
    for (j = 0; j < n; j++) {
      double *p = a->pose + j * 10;
      p[6] = 1;
      p[7] = p[8] = p[9] = 1;
    }
  }
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
    anim_props_detach(a, a->tracks[i]);
    a->tracks[i]->owner = NULL;
    anim_track_release(a->tracks[i]);
  }
  free_track_arrays(a);
  anim_pslots_free(a);
  anim_overrides_free(a);
  anim_ik_free(a);
  anim_queue_free(a);
  anim_rig_free((anim_rig *)a->rig);
  anim_free(&a->mem, a, animator_bytes(n));
}

const anim_rig *anim_animator_rig(const anim_animator *a) { return a->rig; }

void anim_animator_hear(anim_animator *a, unsigned mask) { a->hear = mask & ANIM_HEAR_ALL; }
unsigned anim_animator_hears(const anim_animator *a) { return a->hear; }

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
  anim_tprops *tp;
  if (a->ntracks == a->cap && !grow_tracks(a)) return NULL;
  /* its property channels first (propmix.c: refused when their number of
   * components differs from the one a track on a gives a name) */
  if (anim_props_prepare(a, c, NULL, &tp, NULL, NULL) != ANIM_PROPS_OK) return NULL;
  t = anim_track_new(a, c, o, binds, nbind);
  if (!t) { anim_tprops_free(&a->mem, tp); return NULL; }
  anim_props_install(a, t, tp);
  a->tracks[a->ntracks++] = t;
  return t;
}

/* ---- update ------------------------------------------------------------- */

/* The path of a frame: tracks that ended in the previous update leave;
 * each track steps through dt (clock.c, queueing what it passes); the
 * pose is blended (blend.c), the root motion joint held and its motion
 * taken out (rootmotion.c), the constraints applied (ik.c); the queue is
 * put in delivery order (queue.c).  The binding then delivers the queue
 * to Lua. */
/* dead: NULL, or where a worker thread leaves the tracks whose last
 * reference went (see anim_animators_update_pool). */
static int update_one(anim_animator *a, double dt, anim_track **dead) {
  int i, k = 0;
  if (!isfinite(dt) || dt < 0) return ANIM_ST_BAD_DT;
  a->nqueue = 0;
  a->oom = 0;
  a->dt = dt;
  a->world_valid = 0;
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (t->state != TR_ENDED) { a->tracks[k++] = t; continue; }
    /* (detaching frees the track's property shares: on a worker, under the
     * pool's lock, as every allocation there) */
    if (a->serial) anim_pool_lock(a->serial);
    anim_props_detach(a, t);
    if (a->serial) anim_pool_unlock(a->serial);
    t->owner = NULL;
    if (!dead) anim_track_release(t);
    else if (anim_track_unref(t)) { t->dead_next = *dead; *dead = t; }
  }
  a->ntracks = k;
  for (i = 0; i < a->ntracks; i++) anim_track_step(a, a->tracks[i]);
  anim_blend_pose(a);
  anim_rootmotion_apply(a);
  anim_overrides_apply(a);
  anim_props_blend(a);
  /* after blending and the overrides, before the constraints */
  anim_ik_apply(a);
  if (a->nqueue > 1) anim_queue_sort(a);  /* (one entry is in order) */
  return a->oom ? ANIM_ST_NOMEM : ANIM_ST_OK;
}

int anim_animator_update(anim_animator *a, double dt) { return update_one(a, dt, NULL); }

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
 * update), so a list naming one animator twice is safe too.  The
 * animators of as[i + 1 .. end) are the caller's to read. */
static void prefetch_start(anim_animator *const *as, int i, int end) {
  int k;
  /* (as[i] is used at once: nothing to prefetch) */
  for (k = i + 1; k < end && k < i + 3; k++) prefetch_head(as[k]);
  if (i + 1 < end) prefetch_tracks(as[i + 1]);
}

static void prefetch_next(anim_animator *const *as, int i, int end) {
  if (i + 3 < end) prefetch_head(as[i + 3]);
  if (i + 2 < end) prefetch_tracks(as[i + 2]);
  if (i + 1 < end) prefetch_hot(as[i + 1]);
}

int anim_animators_update(anim_animator *const *as, int n, double dt, int *queued, int *nqueued) {
  int i, k = 0;
  if (nqueued) *nqueued = 0;
  if (!isfinite(dt) || dt < 0) return -1;
  prefetch_start(as, 0, n);
  for (i = 0; i < n; i++) {
    prefetch_next(as, i, n);
    if (update_one(as[i], dt, NULL) == ANIM_ST_NOMEM) break;
    if (as[i]->nqueue > 0 && queued) queued[k++] = i;
  }
  if (nqueued) *nqueued = k;
  return i < n ? i + 1 : 0;
}

/* ---- the same on the threads of a pool ------------------------------------ */

/* One run: the threads share the list out through anim_pool_next (each
 * starts on a stretch of its own and takes the back half of what another
 * has left when its own is done), so they end within an animator or so of
 * each other, a worker that wakes late or runs slowly is relieved, and
 * each takes its animators in long runs in list order, prefetching ahead
 * within what is its own.  queued[i] gets i when as[i] has a queue to
 * deliver, else -1; the tracks a thread freed go to dead[its part].
 * Which thread updates an animator changes nothing in it: the results are
 * those of one thread. */
typedef struct batch_run {
  anim_animator *const *as;
  double dt;
  int *queued;
  anim_pool *pool;
  int fail[ANIM_POOL_MAX];
  anim_track *dead[ANIM_POOL_MAX];
} batch_run;

static void batch_part(void *arg, int part, int nparts) {
  batch_run *b = arg;
  anim_animator *const *as = b->as;
  int *queued = b->queued, i, ahead, last = -2, fail = 0;
  double dt = b->dt;
  anim_pool *pool = b->pool;
  anim_track *dead = NULL;
  (void)nparts;
  while ((i = anim_pool_next(pool, part, &ahead)) >= 0) {
    anim_animator *a = as[i];
    int r;
    /* (a new run of animators, after taking another's: its prefetches
     * start again) */
    if (i != last + 1) prefetch_start(as, i, i + 1 + ahead);
    prefetch_next(as, i, i + 1 + ahead);
    last = i;
    /* (each animator's allocations under the pool's lock, its freed
     * tracks left for the calling thread) */
    a->serial = pool;
    r = update_one(a, dt, &dead);
    a->serial = NULL;
    if (r == ANIM_ST_NOMEM && (!fail || i + 1 < fail)) fail = i + 1;
    if (queued) queued[i] = r != ANIM_ST_NOMEM && a->nqueue > 0 ? i : -1;
  }
  b->dead[part] = dead;
  b->fail[part] = fail;
}

int anim_animators_update_pool(anim_pool *pool, anim_animator *const *as, int n, double dt, int *queued,
                               int *nqueued) {
  batch_run b;
  int parts, p, i, k = 0, fail = 0;
  /* (a pool woken for this run (anim_pool_wake) rests when none comes) */
  if (!pool || anim_pool_threads(pool) == 1 || n < 2 || !isfinite(dt) || dt < 0) {
    if (pool) anim_pool_rest(pool);
    return anim_animators_update(as, n, dt, queued, nqueued);
  }
  if (nqueued) *nqueued = 0;
  parts = anim_pool_threads(pool);
  anim_pool_share(pool, n);
  b.as = as;
  b.dt = dt;
  b.queued = queued;
  b.pool = pool;
  anim_pool_run(pool, batch_part, &b);
  for (p = 0; p < parts; p++) {
    anim_track *t = b.dead[p];
    if (b.fail[p] && (!fail || b.fail[p] < fail)) fail = b.fail[p];
    while (t) {
      anim_track *next = t->dead_next;
      anim_track_destroy(t);
      t = next;
    }
  }
  /* (k <= i: the list moves down, in list order) */
  if (queued)
    for (i = 0; i < n; i++)
      if (queued[i] >= 0) queued[k++] = queued[i];
  if (nqueued) *nqueued = k;
  return fail;
}
