/* animator_impl.h - what the files of the animator share and nobody
 * else sees: the track and animator structs and the steps of an update.
 * One file per job (docs/architecture.md has the path of a frame):
 *   animator.c  creating animators, playing, the update, the batch update
 *   track.c     a track's life and controls (stop, seek, ramps, refs)
 *   clock.c     a track's time: passes, loop modes, what it crosses
 *   queue.c     the queue of callbacks and its order
 *   blend.c     priorities, weights, fades, additive layers: the pose
 *   pose.c      reading the pose: offsets, local and world transforms
 * Plain C, no Lua. */
#ifndef ANIM_ANIMATOR_IMPL_H
#define ANIM_ANIMATOR_IMPL_H

#include <stddef.h>

#include "animator.h"
#include "propmix.h"

/* A ramp from `from` to `to` over `dur` animator seconds; `elapsed` counts
 * the updates since it was requested (it starts at the next update). */
typedef struct ramp { double from, to, dur, elapsed; } ramp;

static inline double anim_ramp_value(const ramp *r) {
  if (r->dur <= 0 || r->elapsed >= r->dur) return r->to;
  return r->from + (r->to - r->from) * (r->elapsed / r->dur);
}

enum { TR_PENDING, TR_PLAYING, TR_ENDED };
#define SAMPLE_STRIDE 11   /* pos 3, rot 4, scl 3, pose weight */

/* A track is one block.  Every update reads the fields up to `hot_end`
 * and the arrays after the struct up to t + hot_end (the key cursors the
 * usual joint needs, the binding per rig joint, each binding's clip joint
 * and whether it is adjusted): few cache lines per track, together, which
 * the batch update prefetches.  The rest (the bindings themselves, the
 * other cursors, the samples of the general blend) follows them. */
struct anim_track {
  const anim_clip *clip;
  int *hot;                /* nbind * ANIM_HOT_CURSORS */
  int *byjoint;            /* per rig joint: its binding, or -1 */
  int *cj;                 /* per binding: its clip joint */
  unsigned char *adjust;   /* per binding: converts turns or scales positions */
  double tw;               /* weight x fade, for this update's pose */
  double priority, speed;
  double time, tlo;        /* playhead, and the rounding carried (Kahan) */
  double last_at;          /* the latest event queued in this update */
  ramp fade, weight;
  long long id;            /* start order: earlier wins ties */
  long long loops;
  int nbind;
  unsigned hot_end;        /* bytes from the track's start read by every update */
  signed char pdir;        /* pingpong direction */
  unsigned char state;
  unsigned char fresh;     /* the next pass includes its start */
  unsigned char stopping, stop_pending;
  unsigned char shows_last; /* ended by `once` in this update: still posed */
  unsigned char unique;    /* no rig joint has two bindings */
  unsigned char rebound;   /* (reload.c, during a commit) */
  unsigned char own_priority; /* the priority came from play, not from the clip */
  anim_tprops *props;      /* for its clip's property channels (propmix.c), or NULL */
  /* cold */
  anim_track *clip_prev, *clip_next;  /* the other tracks that hold its clip */
  int refs;
  anim_animator *owner;    /* NULL once the animator let go of it */
  anim_mem mem;            /* the track frees itself (it may outlive its animator) */
  size_t size;
  anim_binding *bind;
  int *cold;               /* nbind * ANIM_COLD_CURSORS */
  double *sample;          /* nbind * SAMPLE_STRIDE */
  int *chans;              /* channels each binding wrote */
  void *arrays;            /* NULL, or the block of the arrays above once a reload
                            * rebound the track (reload.c), arrays_size bytes */
  size_t arrays_size;
};

/* Tracks held in the animator block itself: the usual few need no array
 * of their own (one cache line fewer per character and frame). */
#define INLINE_TRACKS 4

/* The fields every update reads come first; the animated flags follow
 * the struct, then the pose, on a cache line of its own. */
struct anim_animator {
  int ntracks, cap;
  anim_track **tracks;     /* start order */
  anim_track **order;      /* scratch: blend order */
  double *pose;            /* per rig joint: pos 3, rot 4, scl 3 */
  unsigned char *animated; /* per rig joint: ANIM_CH_* */
  const anim_rig *rig;
  double dt;
  long long seq;
  int nqueue, oom;
  int world_valid;
  int side;
  anim_event *queue;
  anim_track *inl[2 * INLINE_TRACKS];  /* tracks and order while cap is INLINE_TRACKS */
  /* cold */
  anim_mem mem;
  long long next_id;
  int qcap;
  anim_event *qtmp;
  double *acc;             /* per rig joint: see ACC_* */
  double *world;           /* per rig joint: 10 numbers */
  struct anim_pslots *pslots;       /* property channels (propmix.c), NULL until one plays */
  struct anim_overrides *overrides; /* joint overrides from scripts (override.c), or NULL */
};

/* Blend accumulators per rig joint. */
enum { ACC_BUDGET = 0, ACC_POS = 3, ACC_ROT = 6, ACC_SCL = 10, ACC_REF = 13, ACC_HASREF = 17,
       ACC_LW = 18, ACC_LPOS = 21, ACC_LROT = 24, ACC_LSCL = 28, ACC_SIZE = 31 };

#define LINE 64  /* cache line bytes (for the layout and prefetching) */


/* The steps of an update, in the order anim_animator_update takes them. */

/* clock.c: advances track t by the update's dt (a->dt): its fades and
 * weight ramps, its playhead through its loop mode, queueing the items
 * and state changes it passes. */
void anim_track_step(anim_animator *a, anim_track *t);
/* blend.c: the pose of this update from the contributing tracks. */
void anim_blend_pose(anim_animator *a);
/* override.c: the scripts' overrides of joints, on the blended pose, in
 * creation order (before any constraint). */
void anim_overrides_apply(anim_animator *a);
void anim_overrides_free(anim_animator *a);
/* queue.c: queues an event `at` seconds into the update (a->oom is set
 * when the queue cannot grow), and sorts the queue into delivery order. */
void anim_queue_push(anim_animator *a, double at, anim_track *t, int type, int item);
void anim_queue_sort(anim_animator *a);
/* track.c: a new track of a (one block), not yet in a->tracks; NULL when
 * out of memory. */
anim_track *anim_track_new(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                           const anim_binding *binds, int nbind);
/* track.c: lays out a track's per-binding arrays in a block (see there). */
size_t anim_track_lay_arrays(anim_track *t, char *mem, size_t base, const anim_clip *c,
                             const anim_binding *binds, int nbind, int nrig, size_t *hot_end);

#endif
