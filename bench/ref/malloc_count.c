/* bench/ref/malloc_count.c: counts calls to malloc, calloc and realloc, for
 * LD_PRELOAD (bench/allocs.lua).  The count is the global
 * bench_malloc_calls, which bench/ref/memstat.c reads.  Single-threaded use
 * (the benchmarks); the memory comes from glibc's own allocator. */
#include <stddef.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

unsigned long long bench_malloc_calls = 0;

void *malloc(size_t n) { bench_malloc_calls++; return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { bench_malloc_calls++; return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { bench_malloc_calls++; return __libc_realloc(p, n); }
