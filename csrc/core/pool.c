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
 *   - the caller, its part done, waits for the last parts awake (what
 *     they have left is what anim_pool_next would not let it take: a few
 *     indices each) at most SPIN_DONE, then sleeps.
 * Both wait yielding the processor between looks (sched_yield): when the
 * machine is busy, another process may want it, and the scheduler may
 * have put the caller and a worker on the same processor, where a wait
 * that kept it would hold up the very thread it waits for (measured: the
 * caller spun out SPIN_DONE in three frames of four while a worker on its
 * processor held the last of a stretch).
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
#include <stdint.h>
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

/* A part's share of a run's indices (anim_pool_share): its next index and
 * its end, packed in one word (next << 32 | end) so that the owner's take
 * and another part's cut change both at once, and SPAN_FRESH while its
 * owner has taken none of it (it was promised nothing yet: see cut).
 * Each is on cache lines of its own, SPAN_STRIDE bytes apart: its owner
 * changes it at every index, and a line shared with another part's share
 * would move between the processors each time. */
typedef unsigned long long span;
#define SPAN(next, end) ((span)(unsigned)(next) << 32 | (unsigned)(end))
#define SPAN_NEXT(s) ((int)((s) >> 32))
#define SPAN_END(s) ((int)((s) & 0x7fffffffu))
#define SPAN_FRESH 0x80000000u
#define SPAN_STRIDE 128

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
  unsigned char *spans;    /* the parts' shares, SPAN_STRIDE apart, in this block */
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
/* *x = v when *x is *expect (1); else *expect = *x (0).  Relaxed: a
 * share only says which part updates what; what the parts read and write
 * is published by the run and by pending. */
static int cas(anim_pool *p, span *x, span *expect, span v) {
  (void)p;
  return __atomic_compare_exchange_n(x, expect, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static span lds(anim_pool *p, span *x) { (void)p; return __atomic_load_n(x, __ATOMIC_RELAXED); }
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
static int cas(anim_pool *p, span *x, span *expect, span v) {
  int ok;
  pthread_mutex_lock(&p->am);
  ok = *x == *expect;
  if (ok) *x = v;
  else *expect = *x;
  pthread_mutex_unlock(&p->am);
  return ok;
}
/* (*x is left as it is: 0 when it is 0) */
static span lds(anim_pool *p, span *x) {
  span v = 0;
  cas(p, x, &v, 0);
  return v;
}
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The pool, its workers, then room for the shares on their own lines. */
static size_t workers_end(int threads) {
  return sizeof(struct anim_pool) + sizeof(worker) * (size_t)(threads > 2 ? threads - 2 : 0);
}
static size_t pool_bytes(int threads) { return workers_end(threads) + SPAN_STRIDE * (size_t)(threads + 1); }

static span *span_of(anim_pool *p, int part) { return (span *)(void *)(p->spans + SPAN_STRIDE * (size_t)part); }

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
  p->spans = (unsigned char *)p + workers_end(threads);
  p->spans += (SPAN_STRIDE - (size_t)((uintptr_t)p->spans % SPAN_STRIDE)) % SPAN_STRIDE;
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

/* The caller's wait for the workers' parts: awake at most SPIN_DONE
 * (they have a few indices left), then asleep until the last part
 * signals. */
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

void anim_pool_share(anim_pool *p, int n) {
  int i;
  for (i = 0; i < p->threads; i++)
    *span_of(p, i) = SPAN((long long)n * i / p->threads, (long long)n * (i + 1) / p->threads) | SPAN_FRESH;
}

/* Where another part may cut share s: its back half when at least
 * 2 x (ANIM_POOL_AHEAD + 1) are left; else all of it when its owner has
 * not started (a worker that wakes late need not be waited for), or all
 * but the ANIM_POOL_AHEAD its owner was told are its own (anim_pool_next's
 * ahead: it may be reading them).  SPAN_END(s): nothing. */
static int cut(span s) {
  int b = SPAN_NEXT(s), e = SPAN_END(s), left = e - b;
  if (left >= 2 * (ANIM_POOL_AHEAD + 1)) return b + left / 2;
  if (s & SPAN_FRESH) return b;
  return left > ANIM_POOL_AHEAD ? b + ANIM_POOL_AHEAD : e;
}

/* Part `part`, its share done (*own: its value), takes what it may of the
 * share with the most to take (cut), and makes it its own share.  Returns
 * 0 when no share has anything to take. */
static int steal(anim_pool *p, int part, span *own) {
  for (;;) {
    int v, best = -1, most = 0;
    span bs = 0;
    for (v = 0; v < p->threads; v++) {
      span s = v == part ? 0 : lds(p, span_of(p, v));
      if (SPAN_END(s) - cut(s) > most) {
        best = v;
        bs = s;
        most = SPAN_END(s) - cut(s);
      }
    }
    if (best < 0) return 0;
    /* (the owner's part keeps SPAN_FRESH: it has still taken none) */
    if (cas(p, span_of(p, best), &bs, SPAN(SPAN_NEXT(bs), cut(bs)) | (bs & SPAN_FRESH))) {
      span mine = SPAN(cut(bs), SPAN_END(bs));
      /* (an empty share is no one else's to change: this succeeds) */
      while (!cas(p, span_of(p, part), own, mine)) continue;
      *own = mine;
      return 1;
    }
  }
}

int anim_pool_next(anim_pool *p, int part, int *ahead) {
  span *mine = span_of(p, part), s = lds(p, mine);
  for (;;) {
    int b = SPAN_NEXT(s), e = SPAN_END(s);
    if (b >= e) {
      if (!steal(p, part, &s)) return -1;
    } else if (cas(p, mine, &s, SPAN(b + 1, e))) {
      *ahead = e - b - 1 < ANIM_POOL_AHEAD ? e - b - 1 : ANIM_POOL_AHEAD;
      return b;
    }
    /* (else s is what another part left of it: taken again) */
  }
}

void anim_pool_lock(anim_pool *p) { pthread_mutex_lock(&p->serial); }
void anim_pool_unlock(anim_pool *p) { pthread_mutex_unlock(&p->serial); }

int anim_pool_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > ANIM_POOL_MAX ? ANIM_POOL_MAX : (int)n;
}
