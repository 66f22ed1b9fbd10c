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
/* Takes the next stretch [lo, *hi) of [*next, n) for a part of a run and
 * returns lo (n when none is left): its share of what is left (a
 * 1 / (2 x threads) of it, at least `least`), so that the stretches get
 * shorter as the run ends and the threads end close together.  *next,
 * shared by the parts of the run, is set to 0 before the run. */
int anim_pool_take(anim_pool *p, int *next, int n, int least, int *hi);
/* The pool's serializing mutex. */
void anim_pool_lock(anim_pool *p);
void anim_pool_unlock(anim_pool *p);
/* The processors online (at least 1). */
int anim_pool_cores(void);

#endif
