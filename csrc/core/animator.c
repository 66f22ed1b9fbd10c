/* animator.c - animators: their block, creating and freeing them (see
 * animator.h; playing a clip is track.c's, the update of one animator or
 * of many update.c's). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "animator_impl.h"
#include "graph.h"
#include "world2d.h"

/* The animator and its per-joint arrays are one block (few cache misses
 * per character when thousands update in turn): the struct and the
 * animated flags, then from the next cache line the pose.  (The general
 * blend's accumulators are on its stack: blend.c.  The world transforms
 * and the skinning's matrices have blocks of their own, made at their
 * first use: pose.c's anim_animator_world_room, skin.c's
 * anim_animator_skin_room.) */
static size_t animator_bytes(size_t n) {
  return sizeof(anim_animator) + n + LINE + sizeof(double) * n * 10;
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
  a->rm_joint = -1;
  a->speed = 1;
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
  anim_controller_free(a->ctl);
  while (a->nspare > 0) {
    a->nspare--;
    anim_free(&a->mem, a->spare[a->nspare], a->spare_size[a->nspare]);
  }
  anim_track_arrays_free(a);
  anim_pslots_free(a);
  anim_overrides_free(a);
  anim_ik_free(a);
  anim_world2d_free(a->w2d);
  anim_queue_free(a);
  anim_free(&a->mem, a->world, anim_scratch_bytes(a->rig, ANIM_WORLD_STRIDE));
  anim_free(&a->mem, a->mats, anim_scratch_bytes(a->rig, ANIM_MATS_STRIDE));
  anim_rig_free((anim_rig *)a->rig);
  anim_free(&a->mem, a, animator_bytes(n));
}

const anim_rig *anim_animator_rig(const anim_animator *a) { return a->rig; }

/* (the caller refused a speed not finite or below 0: the Lua side) */
void anim_animator_set_speed(anim_animator *a, double speed) {
  if (isfinite(speed) && speed >= 0) a->speed = speed;
}
double anim_animator_speed(const anim_animator *a) { return a->speed; }
void anim_animator_set_paused(anim_animator *a, int paused) { a->paused = paused != 0; }
int anim_animator_paused(const anim_animator *a) { return a->paused; }

void anim_animator_hear(anim_animator *a, unsigned mask) { a->hear = mask & ANIM_HEAR_ALL; }
unsigned anim_animator_hears(const anim_animator *a) { return a->hear; }

