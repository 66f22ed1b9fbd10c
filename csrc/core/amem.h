/* amem.h - the allocator the core allocates through.  Its signature is
 * lua_Alloc's (without naming Lua): the binding passes the host's
 * allocator, so a host's memory limit applies to the core too, and the C
 * test passes one over malloc.  Every free says the size it frees, as
 * lua_Alloc allows a host to expect. */
#ifndef ANIM_AMEM_H
#define ANIM_AMEM_H

#include <stddef.h>
#include <string.h>

typedef void *(*anim_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct anim_mem {
  anim_alloc_fn f;
  void *ud;
} anim_mem;

/* x rounded up to a multiple of 8: where the next array of a block made of
 * several starts (graph.c, ctlstate.c, blendspace.c, track.c, shape2d.c,
 * world2d.c). */
static inline size_t anim_align8(size_t x) { return (x + 7) / 8 * 8; }

/* NULL when out of memory or when the size overflows. */
static inline void *anim_malloc(const anim_mem *m, size_t n) {
  return n ? m->f(m->ud, NULL, 0, n) : NULL;
}
static inline void *anim_calloc(const anim_mem *m, size_t count, size_t size) {
  void *p;
  if (size && count > ((size_t)-1) / 2 / size) return NULL;
  p = anim_malloc(m, count * size);
  if (p) memset(p, 0, count * size);
  return p;
}
/* Like realloc; on failure the old block stays valid. */
static inline void *anim_realloc(const anim_mem *m, void *p, size_t osize, size_t nsize) {
  return m->f(m->ud, p, p ? osize : 0, nsize);
}
static inline void anim_free(const anim_mem *m, void *p, size_t size) {
  if (p) m->f(m->ud, p, size, 0);
}

#endif
