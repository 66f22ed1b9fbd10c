/* prefetch.h - software prefetching: a hint that brings a line towards
 * the caches before it is read, with no effect on any result (nothing
 * where the compiler has no such builtin).  The batch update
 * (update.c) issues them animators ahead, in stages, each stage following
 * only pointers the stage before brought in; the parts of an animator a
 * file owns (its 2D block, its property slots) are prefetched by that
 * file.  Hot data is read and written: prefetched for writing. */
#ifndef ANIM_PREFETCH_H
#define ANIM_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#define ANIM_LINE 64 /* cache line bytes */

#if defined(__GNUC__) || defined(__clang__)
#define ANIM_PREFETCH_W(p) __builtin_prefetch((p), 1, 3)
#else
#define ANIM_PREFETCH_W(p) ((void)(p))
#endif

/* Every line of [p, p + bytes). */
static inline void anim_prefetch_range(const void *p, size_t bytes) {
  uintptr_t c = (uintptr_t)p / ANIM_LINE * ANIM_LINE, end = (uintptr_t)p + bytes;
  for (; c < end; c += ANIM_LINE) ANIM_PREFETCH_W((const void *)c);
}

#endif
