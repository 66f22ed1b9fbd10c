/* update.c - the update of one animator (anim_animator_update: its
 * stages in order, SEMANTICS 6, 7, 7a) and of many, in turn with
 * prefetching or on the threads of a pool (animator.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "animator_impl.h"
#include "graph.h"
#include "world2d.h"
#include "passes.h"
#include "pool.h"
#include "propmix.h"
#include "skin.h"
#include "spaceplay.h"

/* ---- update ------------------------------------------------------------- */

/* One track through the stages that are its own, in order: its clock
 * (clock.c) records what it passes into ps, the records are queued
 * (passqueue.c) and moved over by the root motion joint (rootmotion.c).  A
 * blend space's lead first gives its points their weights and speed, and
 * its other points follow it afterwards (spaceplay.c); a point other than
 * the first steps only when not synced, on its own clock from where the
 * lead's advance began to where it ended.  Each track's stages end before
 * the next track's begin, as each track's entries must be queued in turn
 * (the queue's ties go by the order of queueing). */
static void step_track(anim_animator *a, anim_track *t, anim_passes *ps) {
  if (t->sp.lead != t) {
    if (!anim_space_follow(t)) return;
    anim_clock_advance(a, t, t->sp.lead->e1 - t->sp.lead->e0, t->sp.lead->e0, ps);
  } else {
    if (t->sp.play) anim_space_begin(a, t);  /* (root motion set up there for every point) */
    else if (a->rm_joint >= 0) anim_rootmotion_begin(a, t);
    if (!anim_clock_step(a, t, ps)) return;  /* queued, still waiting */
  }
  anim_passes_queue(a, t, ps);
  if (a->rm_joint >= 0) {
    anim_rootmotion_passes(a, t, ps);
    if (t->sp.play) anim_space_motion(a, t, ps);
  }
  if (t->sp.play) anim_space_end(t);
}

/* The stages after the pose: root motion taken out, the overrides, the
 * property channels, the constraints (after blending and the overrides). */
static ANIM_INLINE void after_blend(anim_animator *a) {
  anim_rootmotion_apply(a);
  anim_overrides_apply(a);
  anim_props_blend(a);
  anim_ik_apply(a);
}

/* The same for a 2D skeleton (only animators made from one have the
 * block): its pose (its blend's own copy), the stages after it, then its
 * world matrices and constraints, from the pose and the properties.
 * (Out of line and, for GCC and Clang, `cold`: only so that the other
 * animators' stages stay in the update's straight path, with no jump.) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((cold))
#endif
static void ANIM_NOINLINE stages_2d(anim_animator *a) {
  anim_blend_pose_2d(a);
  after_blend(a);
  anim_world2d_apply(a);
}

/* The path of a frame, its stages in a fixed order: tracks that ended in
 * the previous update leave; each track steps through dt (step_track:
 * clock, queue, root motion's passes); the pose is blended (blend.c),
 * the root motion joint held and its motion taken out (rootmotion.c), the
 * scripts' overrides applied (override.c), the property channels blended
 * (propmix.c), the constraints applied (ik.c); the queue is put in
 * delivery order (queue.c).  The binding then delivers the queue to Lua.
 * A new stage goes into this list at its place (docs/architecture.md). */
/* dead: NULL, or where a worker thread leaves the tracks whose last
 * reference went (see anim_animators_update_pool). */
static int update_one(anim_animator *a, double dt, anim_track **dead) {
  anim_passes ps;  /* (each track's records in turn: passes.h bounds them) */
  int i, k = 0;
  if (!isfinite(dt) || dt < 0) return ANIM_ST_BAD_DT;
  a->nqueue = 0;
  a->oom = 0;
  /* (the animator's clock: speed and pause scale every track's step; a
   * product too large for a double saturates) */
  dt = a->paused ? 0 : dt * a->speed;
  a->dt = dt <= DBL_MAX ? dt : DBL_MAX;
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
    if (anim_track_recycle(a, t)) continue;
    if (!dead) anim_track_release(t);
    else if (anim_track_unref(t)) { t->batch.dead_next = *dead; *dead = t; }
  }
  a->ntracks = k;
  /* the state machine first: the tracks it starts step in this update */
  if (a->ctl) anim_controller_step(a->ctl);
  for (i = 0; i < a->ntracks; i++) step_track(a, a->tracks[i], &ps);
  if (!a->w2d) {
    anim_blend_pose(a);
    after_blend(a);
  } else {
    stages_2d(a);
  }
  if (a->nqueue > 1) anim_queue_sort(a);  /* (one entry is in order) */
  return a->oom ? ANIM_ST_NOMEM : ANIM_ST_OK;
}

int anim_animator_update(anim_animator *a, double dt) { return update_one(a, dt, NULL); }

/* ---- updating many animators --------------------------------------------- */

/* The three stages of an animator's prefetch, each reading only what the
 * stage before brought in: its struct; then its tracks' structs, the
 * animated flags and the pose it writes; then the rest of its tracks'
 * hot data (a track's hot_end is in its struct). */
static void prefetch_head(const anim_animator *a) { anim_prefetch_range(a, sizeof *a); }

static void prefetch_tracks(const anim_animator *a) {
  size_t n = (size_t)a->rig->n;
  int i;
  for (i = 0; i < a->ntracks; i++) ANIM_PREFETCH_W(a->tracks[i]);
  if (a->ctl) ANIM_PREFETCH_W(a->ctl);
  anim_prefetch_range(a->animated, n);
  anim_prefetch_range(a->pose, sizeof(double) * 10 * n);
}

/* (a compressed clip's track cache, packed.h, is the end of its hot
 * block: 12 bytes a channel with keys, in the range) */
static void prefetch_hot(const anim_animator *a) {
  int i;
  for (i = 0; i < a->ntracks; i++) {
    const anim_track *t = a->tracks[i];
    anim_prefetch_range(t, t->hot_end);
  }
  if (a->ctl) anim_prefetch_range(a->ctl, anim_controller_hot(a->ctl));
}

/* The prefetches run four, three and one animators ahead of the one
 * being updated: each stage has a whole update's time to arrive.  Only
 * current pointers are followed (an animator's ended tracks are freed by
 * its own update), so a list naming one animator twice is safe too.  The
 * animators of as[i + 1 .. end) are the caller's to read. */
static void prefetch_start(anim_animator *const *as, int i, int end) {
  int k;
  /* (as[i] is used at once: nothing to prefetch) */
  for (k = i + 1; k < end && k < i + 4; k++) prefetch_head(as[k]);
  for (k = i + 1; k < end && k < i + 3; k++) prefetch_tracks(as[k]);
}

static void prefetch_next(anim_animator *const *as, int i, int end) {
  if (i + 4 < end) prefetch_head(as[i + 4]);
  if (i + 3 < end) prefetch_tracks(as[i + 3]);
  if (i + 1 < end) prefetch_hot(as[i + 1]);
  /* (a 2D skeleton's and properties' parts, by their files, in three
   * stages of their own: what each reads is behind the one before) */
  if (i + 3 < end) { anim_world2d_prefetch(as[i + 3]->w2d, 0); anim_props_prefetch(as[i + 3], 0); }
  if (i + 2 < end) { anim_world2d_prefetch(as[i + 2]->w2d, 1); anim_props_prefetch(as[i + 2], 1); }
  if (i + 1 < end) anim_props_prefetch(as[i + 1], 2);
}

/* Before an animator's update in a batch: the scratch of its first
 * skinning made, when it will be skinned; 0 when it could not be (then the
 * animator is not updated: out of memory leaves it as it was, its events
 * unqueued). */
static int skin_ready(anim_animator *a, const anim_skin_out *shared) {
  if (!shared && !a->skin_target.data) return 1;
  return anim_animator_skin_room(a);
}

/* After an animator's update in a batch: its skinning matrices written
 * (skin.h) into the batch's shared target at its place (skin_at, set by
 * place_skins), else into its own target when it has one (skin_ready made
 * the scratch). */
static void skin_after(anim_animator *a, const anim_skin_out *shared) {
  if (shared) {
    anim_skin_out o = *shared;
    o.offset = a->skin_at;
    anim_animator_skin(a, &o);
  } else if (a->skin_target.data) {
    anim_animator_skin(a, &a->skin_target);
  }
}

/* Each animator's place in the shared target, in list order from its
 * offset, each right after the one before; 0 when they do not all fit
 * (then nothing is written: the caller refuses the batch). */
static int place_skins(anim_animator *const *as, int n, const anim_skin_out *shared) {
  size_t at = shared->offset;
  int i;
  if (!shared->data || (shared->layout != ANIM_SKIN_MAT3X4 && shared->layout != ANIM_SKIN_MAT4) ||
      at > shared->cap)
    return 0;
  for (i = 0; i < n; i++) {
    size_t size = anim_skin_size(as[i]->rig, shared->layout);
    if (size > shared->cap - at) return 0;
    as[i]->skin_at = at;
    at += size;
  }
  return 1;
}

static int update_list(anim_animator *const *as, int n, double dt, const anim_skin_out *shared, int *queued,
                       int *nqueued) {
  int i, k = 0, r = ANIM_ST_OK;
  if (nqueued) *nqueued = 0;
  if (!isfinite(dt) || dt < 0) return -1;
  prefetch_start(as, 0, n);
  for (i = 0; i < n; i++) {
    prefetch_next(as, i, n);
    if (!skin_ready(as[i], shared)) { r = ANIM_ST_NOMEM; break; }
    r = update_one(as[i], dt, NULL);
    /* (its pose is made, its queue or not) */
    skin_after(as[i], shared);
    if (r == ANIM_ST_NOMEM) break;
    if (anim_animator_to_deliver(as[i]) && queued) queued[k++] = i;
  }
  if (nqueued) *nqueued = k;
  return i < n ? i + 1 : 0;
}

int anim_animators_update(anim_animator *const *as, int n, double dt, int *queued, int *nqueued) {
  return update_list(as, n, dt, NULL, queued, nqueued);
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
  const anim_skin_out *skin;
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
    if (skin_ready(a, b->skin)) {
      r = update_one(a, dt, &dead);
      skin_after(a, b->skin);
    } else {
      r = ANIM_ST_NOMEM;
    }
    a->serial = NULL;
    if (r == ANIM_ST_NOMEM && (!fail || i + 1 < fail)) fail = i + 1;
    if (queued) queued[i] = r != ANIM_ST_NOMEM && anim_animator_to_deliver(a) ? i : -1;
  }
  b->dead[part] = dead;
  b->fail[part] = fail;
}

int anim_animators_update_skin(anim_pool *pool, anim_animator *const *as, int n, double dt,
                               const anim_skin_out *shared, int *queued, int *nqueued) {
  batch_run b;
  int parts, p, i, k = 0, fail = 0;
  /* (refused before anything changes: nothing half written) */
  if (shared && isfinite(dt) && dt >= 0 && !place_skins(as, n, shared)) {
    if (pool) anim_pool_rest(pool);
    if (nqueued) *nqueued = 0;
    return -2;
  }
  /* (a pool woken for this run (anim_pool_wake) rests when none comes) */
  if (!pool || anim_pool_threads(pool) == 1 || n < 2 || !isfinite(dt) || dt < 0) {
    if (pool) anim_pool_rest(pool);
    return update_list(as, n, dt, shared, queued, nqueued);
  }
  if (nqueued) *nqueued = 0;
  parts = anim_pool_threads(pool);
  anim_pool_share(pool, n);
  b.as = as;
  b.skin = shared;
  b.dt = dt;
  b.queued = queued;
  b.pool = pool;
  anim_pool_run(pool, batch_part, &b);
  for (p = 0; p < parts; p++) {
    anim_track *t = b.dead[p];
    if (b.fail[p] && (!fail || b.fail[p] < fail)) fail = b.fail[p];
    while (t) {
      anim_track *next = t->batch.dead_next;
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

int anim_animators_update_pool(anim_pool *pool, anim_animator *const *as, int n, double dt, int *queued,
                               int *nqueued) {
  return anim_animators_update_skin(pool, as, n, dt, NULL, queued, nqueued);
}
