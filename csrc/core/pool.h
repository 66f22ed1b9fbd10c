/* pool.h - a pool of worker threads, made once and kept, that runs one job
 * split into parts: part 0 on the calling thread, the others on the
 * workers, returning when all are done.  Running allocates nothing.  A
 * mutex of the pool serializes what the parts may not do at once
 * (allocating through a host's allocator: animator.c).  No global state:
 * the pool is an object its owner keeps (the binding keeps one per Lua
 * state).  POSIX threads. */
#ifndef ANIM_POOL_H
#define ANIM_POOL_H

#include "amem.h"
#include "codes.h"

typedef struct anim_pool anim_pool;
/* One part of a job: part in [0, nparts). */
typedef void (*anim_pool_job)(void *arg, int part, int nparts);

#define ANIM_POOL_MAX ANIM_MAX_THREADS  /* the most threads a pool runs (the caller included) */

/* A pool of `threads` threads in all (1 to ANIM_POOL_MAX; threads - 1
 * workers are started now).  NULL when out of memory or when a thread
 * cannot be started (nothing is left running then). */
anim_pool *anim_pool_new(const anim_mem *mem, int threads);
/* Stops and joins the workers, frees the pool (NULL: nothing). */
void anim_pool_free(anim_pool *p);
int anim_pool_threads(const anim_pool *p);
/* Wakes the sleeping workers for a run to come: they wait for it awake (a
 * bounded while), so that their wake-up overlaps what the caller does
 * before anim_pool_run instead of delaying the run.  To be followed by
 * anim_pool_run, or anim_pool_rest when no run comes after all. */
void anim_pool_wake(anim_pool *p);
void anim_pool_rest(anim_pool *p);
/* Runs job(arg, i, n) for every part i of n = anim_pool_threads(p), and
 * returns once all have returned.  Not reentrant: one run at a time. */
void anim_pool_run(anim_pool *p, anim_pool_job job, void *arg);
/* The indices [0, n) of a run shared out between its parts: set before
 * the run (anim_pool_share), then each part takes them one at a time
 * (anim_pool_next) until it gets -1.  Part i starts on the i-th of equal
 * stretches, in order; a part whose stretch is done takes from the part
 * with the most left: the back half when 2 x (ANIM_POOL_AHEAD + 1) or
 * more are left, else all of it if that part has not started, else all
 * but ANIM_POOL_AHEAD.  So the parts end within a few indices of each
 * other, one that starts late or runs slowly (its processor shared) is
 * relieved of what it has not reached, and each part's indices come in
 * long runs in order (the batch update prefetches ahead).  *ahead gets
 * how many of the indices after the one returned (at most
 * ANIM_POOL_AHEAD) are the part's until its next call: no other part
 * takes them before, so it may read what they index. */
#define ANIM_POOL_AHEAD 3
void anim_pool_share(anim_pool *p, int n);
int anim_pool_next(anim_pool *p, int part, int *ahead);
/* The pool's serializing mutex. */
void anim_pool_lock(anim_pool *p);
void anim_pool_unlock(anim_pool *p);
/* The processors online (at least 1). */
int anim_pool_cores(void);

#endif
