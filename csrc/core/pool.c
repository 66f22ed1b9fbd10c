/* pool.c - worker threads for the batch update (pool.h).
 *
 * A run publishes its job (the count `run` goes up), does part 0 on the
 * calling thread, then waits for the count of parts still running on
 * workers (`pending`) to reach 0.  Between calls the workers sleep on a
 * condition variable, and waking one is slow where it matters most: on a
 * virtual machine whose other processor is idle, the broadcast and the
 * worker's start took 15 to 50 us each (measured on the 2-vCPU VM of
 * docs/performance.md), against about 1 ms for a whole W1 frame of 1000
 * animators.  So:
 *   - the binding wakes the workers as its call begins (anim_pool_wake),
 *     and their wake-up overlaps its check of the list; a woken worker
 *     waits for the run awake, at most SPIN_RUN, then sleeps again;
 *   - the caller, its part done, waits for the last parts awake (they
 *     are at most a short stretch of anim_pool_take each) at most
 *     SPIN_DONE, then sleeps.
 * Both wait yielding the processor between looks (sched_yield): when the
 * machine is busy, another process may want it, and the scheduler may
 * have put the caller and a worker on the same processor, where a wait
 * that kept it would hold up the very thread it waits for (measured: the
 * caller spun out SPIN_DONE in three frames of four while a worker on its
 * processor held the last stretch).
 * Nothing waits awake between calls: a run puts the workers back to
 * sleep once their part is done, so a game's frame that leaves time
 * between updates pays each wake-up again (bench/w1.lua --gap measures
 * that).  What the threads share is read and written through atomic
 * operations (GCC and Clang builtins; under a mutex elsewhere), sleeping
 * and waking under the mutex m, so the parts' results are visible to the
 * caller when anim_pool_run returns. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

/* (seconds) A woken worker's wait for the run: the caller's check of a
 * list of some thousands of animators; longer lists make the wake-up a
 * small share of their run anyway. */
#define SPIN_RUN 1e-3
/* The caller's wait for the last parts, beyond which their thread is
 * likely not running at all (the machine is busy). */
#define SPIN_DONE 2e-4

typedef struct worker {
  struct anim_pool *pool;
  int part;
  pthread_t tid;
} worker;

struct anim_pool {
  anim_mem mem;
  int threads;
  int started;             /* workers running */
  pthread_mutex_t m;       /* sleeping and waking: sleepers and waiting, and the stores they wait on */
  pthread_cond_t go, done;
  unsigned run;            /* runs published so far (atomic) */
  unsigned wakes;          /* anim_pool_wake calls so far (atomic) */
  unsigned awake;          /* 1 from anim_pool_wake to the run or anim_pool_rest (atomic) */
  unsigned pending;        /* parts of this run still running on workers (atomic) */
  unsigned quit;           /* (atomic) */
  int sleepers;            /* workers asleep on go (m) */
  int waiting;             /* the caller asleep on done (m) */
  anim_pool_job job;       /* the run's: written before it is published */
  void *arg;
  pthread_mutex_t serial;
#ifndef __ATOMIC_ACQUIRE
  pthread_mutex_t am;      /* the atomic operations, where the compiler has none */
#endif
  worker w[1];             /* threads - 1 of them */
};

/* ---- atomic operations ----------------------------------------------------
 * Loads acquire and stores release: what a thread wrote before a store is
 * seen by the thread that loads the stored value.  GCC's and Clang's
 * builtins (C11's <stdatomic.h> is not C99); a mutex elsewhere. */
#ifdef __ATOMIC_ACQUIRE
static unsigned ld(anim_pool *p, unsigned *x) { (void)p; return __atomic_load_n(x, __ATOMIC_ACQUIRE); }
static void st(anim_pool *p, unsigned *x, unsigned v) { (void)p; __atomic_store_n(x, v, __ATOMIC_RELEASE); }
/* *x - 1, stored and returned */
static unsigned dec(anim_pool *p, unsigned *x) { (void)p; return __atomic_sub_fetch(x, 1, __ATOMIC_ACQ_REL); }
/* *x = v when *x is *expect (1); else *expect = *x (0).  Relaxed: the
 * stretches it hands out are published by the run, and their results by
 * pending. */
static int cas(anim_pool *p, int *x, int *expect, int v) {
  (void)p;
  return __atomic_compare_exchange_n(x, expect, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static int ldi(anim_pool *p, int *x) { (void)p; return __atomic_load_n(x, __ATOMIC_RELAXED); }
#else
static unsigned ld(anim_pool *p, unsigned *x) {
  unsigned v;
  pthread_mutex_lock(&p->am);
  v = *x;
  pthread_mutex_unlock(&p->am);
  return v;
}
static void st(anim_pool *p, unsigned *x, unsigned v) {
  pthread_mutex_lock(&p->am);
  *x = v;
  pthread_mutex_unlock(&p->am);
}
static unsigned dec(anim_pool *p, unsigned *x) {
  unsigned v;
  pthread_mutex_lock(&p->am);
  v = --*x;
  pthread_mutex_unlock(&p->am);
  return v;
}
static int cas(anim_pool *p, int *x, int *expect, int v) {
  int ok;
  pthread_mutex_lock(&p->am);
  ok = *x == *expect;
  if (ok) *x = v;
  else *expect = *x;
  pthread_mutex_unlock(&p->am);
  return ok;
}
/* (*x is left as it is: 0 when it is 0) */
static int ldi(anim_pool *p, int *x) {
  int v = 0;
  cas(p, x, &v, 0);
  return v;
}
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t pool_bytes(int threads) {
  return sizeof(struct anim_pool) + sizeof(worker) * (size_t)(threads > 2 ? threads - 2 : 0);
}

/* Returns 1 once run seen + 1 is published, 0 when the pool quits.  While
 * a run is announced (awake) the worker waits for it awake, at most
 * SPIN_RUN for each announcement (`tired_of`: the one it gave up on), and
 * asleep otherwise.  A run always wakes the sleepers, so a worker that
 * gave up too early only starts later. */
static int await_run(anim_pool *p, unsigned seen) {
  int tired = 0;
  unsigned tired_of = 0;
  for (;;) {
    if (ld(p, &p->run) != seen) return 1;
    if (ld(p, &p->quit)) return 0;
    if (ld(p, &p->awake) && !(tired && tired_of == ld(p, &p->wakes))) {
      double end = now() + SPIN_RUN;
      while (ld(p, &p->run) == seen && ld(p, &p->awake) && !ld(p, &p->quit)) {
        if (now() > end) {
          tired = 1;
          tired_of = ld(p, &p->wakes);
          break;
        }
        sched_yield();
      }
      continue;
    }
    pthread_mutex_lock(&p->m);
    p->sleepers++;
    while (ld(p, &p->run) == seen && !ld(p, &p->quit) &&
           !(ld(p, &p->awake) && !(tired && tired_of == ld(p, &p->wakes))))
      pthread_cond_wait(&p->go, &p->m);
    p->sleepers--;
    pthread_mutex_unlock(&p->m);
  }
}

static void *work(void *arg) {
  worker *w = arg;
  anim_pool *p = w->pool;
  unsigned seen = 0;  /* the runs this worker took part in (every one: the caller waits for each part) */
  while (await_run(p, seen)) {
    seen++;
    p->job(p->arg, w->part, p->threads);
    if (dec(p, &p->pending) == 0) {
      pthread_mutex_lock(&p->m);
      if (p->waiting) pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->m);
    }
  }
  return NULL;
}

static void stop_workers(anim_pool *p) {
  int i;
  pthread_mutex_lock(&p->m);
  st(p, &p->quit, 1);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->m);
  for (i = 0; i < p->started; i++) pthread_join(p->w[i].tid, NULL);
  p->started = 0;
}

anim_pool *anim_pool_new(const anim_mem *mem, int threads) {
  anim_pool *p;
  int i;
  if (threads < 1 || threads > ANIM_POOL_MAX) return NULL;
  p = anim_calloc(mem, 1, pool_bytes(threads));
  if (!p) return NULL;
  p->mem = *mem;
  p->threads = threads;
  if (pthread_mutex_init(&p->m, NULL)) goto no_m;
  if (pthread_mutex_init(&p->serial, NULL)) goto no_serial;
#ifndef __ATOMIC_ACQUIRE
  if (pthread_mutex_init(&p->am, NULL)) goto no_am;
#endif
  if (pthread_cond_init(&p->go, NULL)) goto no_go;
  if (pthread_cond_init(&p->done, NULL)) goto no_done;
  for (i = 0; i < threads - 1; i++) {
    p->w[i].pool = p;
    p->w[i].part = i + 1;
    if (pthread_create(&p->w[i].tid, NULL, work, &p->w[i])) { stop_workers(p); goto no_thread; }
    p->started++;
  }
  return p;
no_thread:
  pthread_cond_destroy(&p->done);
no_done:
  pthread_cond_destroy(&p->go);
no_go:
#ifndef __ATOMIC_ACQUIRE
  pthread_mutex_destroy(&p->am);
no_am:
#endif
  pthread_mutex_destroy(&p->serial);
no_serial:
  pthread_mutex_destroy(&p->m);
no_m:
  anim_free(mem, p, pool_bytes(threads));
  return NULL;
}

void anim_pool_free(anim_pool *p) {
  anim_mem m;
  if (!p) return;
  stop_workers(p);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->go);
#ifndef __ATOMIC_ACQUIRE
  pthread_mutex_destroy(&p->am);
#endif
  pthread_mutex_destroy(&p->serial);
  pthread_mutex_destroy(&p->m);
  m = p->mem;
  anim_free(&m, p, pool_bytes(p->threads));
}

int anim_pool_threads(const anim_pool *p) { return p->threads; }

void anim_pool_wake(anim_pool *p) {
  if (p->threads < 2) return;
  pthread_mutex_lock(&p->m);
  st(p, &p->wakes, ld(p, &p->wakes) + 1);
  st(p, &p->awake, 1);
  if (p->sleepers) pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->m);
}

void anim_pool_rest(anim_pool *p) {
  if (p->threads > 1) st(p, &p->awake, 0);
}

/* The caller's wait for the workers' parts: awake at most SPIN_DONE (the
 * last stretches are short), then asleep until the last part signals. */
static void await_parts(anim_pool *p) {
  double end = now() + SPIN_DONE;
  while (ld(p, &p->pending) && now() < end) sched_yield();
  if (!ld(p, &p->pending)) return;
  pthread_mutex_lock(&p->m);
  p->waiting = 1;
  while (ld(p, &p->pending)) pthread_cond_wait(&p->done, &p->m);
  p->waiting = 0;
  pthread_mutex_unlock(&p->m);
}

void anim_pool_run(anim_pool *p, anim_pool_job job, void *arg) {
  if (p->threads > 1) {
    p->job = job;
    p->arg = arg;
    st(p, &p->pending, (unsigned)p->threads - 1);
    /* (the run before awake: a worker that sees awake go to 0 sees the
     * run too; under m, as a sleeper checks it) */
    pthread_mutex_lock(&p->m);
    st(p, &p->run, ld(p, &p->run) + 1);
    st(p, &p->awake, 0);
    if (p->sleepers) pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
  }
  job(arg, 0, p->threads);
  if (p->threads > 1) await_parts(p);
}

int anim_pool_take(anim_pool *p, int *next, int n, int least, int *hi) {
  int lo = ldi(p, next), size;
  do {
    if (lo >= n) return n;
    size = (n - lo) / (2 * p->threads);
    if (size < least) size = least;
    *hi = n - lo <= size ? n : lo + size;
  } while (!cas(p, next, &lo, *hi));
  return lo;
}

void anim_pool_lock(anim_pool *p) { pthread_mutex_lock(&p->serial); }
void anim_pool_unlock(anim_pool *p) { pthread_mutex_unlock(&p->serial); }

int anim_pool_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > ANIM_POOL_MAX ? ANIM_POOL_MAX : (int)n;
}
