/* batch.h - what the batch update on a pool's threads
 * (anim_animators_update_pool in update.c) keeps per track.  A worker
 * thread must not free a track whose last reference went (freeing touches
 * its clip, shared between animators): it leaves it on a list, which the
 * calling thread frees after the run.  Plain C, no Lua. */
#ifndef ANIM_BATCH_H
#define ANIM_BATCH_H

#include "animator.h"

typedef struct anim_track_batch {
  anim_track *dead_next;   /* the next track of a worker's list to free afterwards */
} anim_track_batch;

#endif
