/* pool.c - worker threads for the batch update (pool.h).  The workers
 * sleep on a condition variable between runs; a run bumps a generation
 * number and wakes them, does part 0 itself, then waits for the count of
 * parts still running to reach 0.  Everything a run shares is read and
 * written under the pool's mutex, so the parts' results are visible to
 * the caller when anim_pool_run returns. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#include "pool.h"

typedef struct worker {
  struct anim_pool *pool;
  int part;
  pthread_t tid;
} worker;

struct anim_pool {
  anim_mem mem;
  int threads;
  int started;             /* workers running */
  pthread_mutex_t m;       /* guards gen, pending, quit, job, arg and the counters of anim_pool_take */
  pthread_cond_t go, done;
  unsigned long gen;       /* runs so far */
  int pending;             /* parts of this run still running on workers */
  int quit;
  anim_pool_job job;
  void *arg;
  pthread_mutex_t serial;
  worker w[1];             /* threads - 1 of them */
};

static size_t pool_bytes(int threads) {
  return sizeof(struct anim_pool) + sizeof(worker) * (size_t)(threads > 2 ? threads - 2 : 0);
}

static void *work(void *arg) {
  worker *w = arg;
  anim_pool *p = w->pool;
  unsigned long seen = 0;
  for (;;) {
    anim_pool_job job;
    void *jarg;
    pthread_mutex_lock(&p->m);
    while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->m);
    if (p->quit) { pthread_mutex_unlock(&p->m); return NULL; }
    seen = p->gen;
    job = p->job;
    jarg = p->arg;
    pthread_mutex_unlock(&p->m);
    job(jarg, w->part, p->threads);
    pthread_mutex_lock(&p->m);
    if (--p->pending == 0) pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->m);
  }
}

static void stop_workers(anim_pool *p) {
  int i;
  pthread_mutex_lock(&p->m);
  p->quit = 1;
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
  pthread_mutex_destroy(&p->serial);
  pthread_mutex_destroy(&p->m);
  m = p->mem;
  anim_free(&m, p, pool_bytes(p->threads));
}

int anim_pool_threads(const anim_pool *p) { return p->threads; }

void anim_pool_run(anim_pool *p, anim_pool_job job, void *arg) {
  if (p->threads > 1) {
    pthread_mutex_lock(&p->m);
    p->job = job;
    p->arg = arg;
    p->pending = p->threads - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->m);
  }
  job(arg, 0, p->threads);
  if (p->threads > 1) {
    pthread_mutex_lock(&p->m);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->m);
    pthread_mutex_unlock(&p->m);
  }
}

int anim_pool_take(anim_pool *p, int *next) {
  int v;
  pthread_mutex_lock(&p->m);
  v = (*next)++;
  pthread_mutex_unlock(&p->m);
  return v;
}

void anim_pool_lock(anim_pool *p) { pthread_mutex_lock(&p->serial); }
void anim_pool_unlock(anim_pool *p) { pthread_mutex_unlock(&p->serial); }

int anim_pool_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > ANIM_POOL_MAX ? ANIM_POOL_MAX : (int)n;
}
