/* animator_impl.h - what the files of the animator share and nobody
 * else sees: the track and animator structs and the stages of an update.
 * One file per job (docs/architecture.md draws the stages and the call
 * graph):
 *   animator.c  creating and freeing animators, playing a clip
 *   update.c    the update of one animator or of many: the stages in order
 *   track.c     a track's life and controls (stop, seek, ramps, refs)
 *   clock.c     a track's time: its passes, wraps and ends as records (passes.h)
 *   chain.c     tracks queued after others: the hand-over the clock asks
 *   passqueue.c the clock's records queued: items crossed, state changes
 *   items.c     the timed items one pass crosses
 *   queue.c     the queue of callbacks and its order
 *   blend.c     priorities, weights, fades, additive layers: the pose
 *   pose.c      reading the pose: offsets, local and world transforms
 * and the gameplay features, each in a file of its own, run as stages by
 * update.c (declared at the end):
 *   spaceplay.c a blend space played as one track per point (spaceplay.h)
 *   rootmotion.c the motion joint held, its motion taken out
 *   override.c  the scripts' overrides of joints
 *   propmix.c   the property channels
 *   ik.c        constraints after blending
 *   world2d.c   a 2D skeleton's world matrices and constraints (world2d.h)
 * Plain C, no Lua. */
#ifndef ANIM_ANIMATOR_IMPL_H
#define ANIM_ANIMATOR_IMPL_H

#include <stddef.h>

#include "amath.h"
#include "prefetch.h"
#include "animator.h"
#include "batch.h"
#include "chain.h"
#include "propmix.h"
#include "reload.h"
#include "rootmotion.h"
#include "skin.h"
#include "spaceplay.h"

/* A ramp from `from` to `to` over `dur` animator seconds; `elapsed` counts
 * the updates since it was requested (it starts at the next update).  Its
 * curve: linear, or an easing of the .anim format (interp, ease: a state
 * machine's transition fades so, graph.h). */
typedef struct ramp {
  double from, to, dur, elapsed;
  unsigned char interp, ease;
} ramp;

/* A ramp's four numbers (from, to, duration, elapsed), out and in, for the
 * saved states (state.c, ctlstate.c); its curve is the caller's. */
static inline void anim_ramp_out(const ramp *r, double v[4]) { v[0] = r->from; v[1] = r->to; v[2] = r->dur; v[3] = r->elapsed; }
static inline void anim_ramp_in(ramp *r, const double v[4]) { r->from = v[0]; r->to = v[1]; r->dur = v[2]; r->elapsed = v[3]; }

static inline double anim_ramp_value(const ramp *r) {
  double x;
  if (r->dur <= 0 || r->elapsed >= r->dur) return r->to;
  x = r->elapsed / r->dur;
  if (r->interp != ANIM_LINEAR) x = anim_ease(r->interp, r->ease, x > 0 ? x : 0);
  return r->from + (r->to - r->from) * x;
}

/* A track is pending from play to its first update, queued while it waits
 * for the track it was queued after (chain.c), playing, then ended. */
enum { TR_PENDING, TR_PLAYING, TR_ENDED, TR_QUEUED };
#define SAMPLE_STRIDE 11   /* pos 3, rot 4, scl 3, pose weight */

/* A track is one block.  Every update reads the fields up to `hot_end`
 * and the arrays after the struct up to t + hot_end (the key cursors the
 * usual joint needs, the binding per rig joint, each binding's clip joint
 * and whether it is adjusted): few cache lines per track, together, which
 * the batch update prefetches.  The rest (the bindings themselves, the
 * other cursors, the chains of the general blend) follows them. */
struct anim_track {
  const anim_clip *clip;
  int *hot;                /* nbind * ANIM_HOT_CURSORS; NULL when every joint it
                            * binds is compressed (track.c: track_needs) */
  int *byjoint;            /* per rig joint: its (first) binding, or -1 */
  int *cj;                 /* per binding: its clip joint */
  unsigned char *adjust;   /* per binding: converts turns or scales positions */
  unsigned char *pkc;      /* a compressed clip's: where its playhead is in each
                            * channel (packed.h's track cache), else NULL */
  double tw;               /* weight x fade, for this update's pose */
  double frame;            /* a compressed clip's: the time in its frames, for this
                            * update's pose (anim_packed_frame_at) */
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
  unsigned char pq;        /* a compressed clip's track whose every binding is a joint of a
                            * position and a rotation with keys, unmuted, not adjusted: the
                            * blend samples them with no test a joint (blend.c, sample_pq) */
  unsigned char direct;    /* pq and unique, of a clip whose every joint is pq: clip joint
                            * c's channels in the cache's slots 2c and 2c + 1 (blendpq.c) */
  unsigned char inside;    /* a compressed clip's: anim_packed_refresh found every segment
                            * holding this update's frame strictly inside (or of one key) */
  unsigned char own_priority; /* the priority came from play, not from the clip */
  unsigned char loop;      /* 0: its clip's loop mode; else play's, as ANIM_* + 1 (anim_track_loop) */
  unsigned char hear;      /* ANIM_HEAR_* its own callbacks listen to (a space's lead: all its points') */
  int slot;                /* the binding's (anim_track_set_slot), copied into its entries */
  int icur;                /* the item its last pass stopped at: the next pass's
                            * first, in steady play (items.c checks it) */
  anim_tprops *props;      /* for its clip's property channels (propmix.c), or NULL */
  double e0, e1;           /* where in this update its advance began and ended */
  anim_track_sp sp;        /* its place in a blend space (spaceplay.h) */
  /* cold */
  anim_track *clip_prev, *clip_next;  /* the other tracks that hold its clip */
  int refs;
  anim_animator *owner;    /* NULL once the animator let go of it */
  anim_mem mem;            /* the track frees itself (it may outlive its animator) */
  size_t size;
  int *rj;                 /* per binding: its rig joint */
  anim_binding *bind;      /* per binding, when one is retargeted (else NULL) */
  int *cold;               /* nbind * ANIM_COLD_CURSORS; NULL when no joint it
                            * binds needs them (compressed or fast: track.c) */
  int *nextb;              /* per binding: the next binding of its rig joint, or -1
                            * (the general blend's walk, joint by joint: blend.c) */
  anim_track_reload reload; /* the block of the arrays above once a reload rebound
                            * the track (reload.h) */
  anim_track_chain chain;  /* queued clips (chain.h) */
  double stop_at;          /* >= 0: its fade-out starts that far into this update (a state
                            * machine's transition, controller.c), its `stopped` there */
  int ctl_layer;           /* the state machine's layer that started it, else -1 */
  int ctl_state;           /* and the (layer-local) state it plays */
  anim_track_rm rm;        /* root motion (rootmotion.h) */
  anim_track_batch batch;  /* a threaded batch update's (batch.h) */
};

/* The loop mode track t plays its clip in: play's, else the clip's. */
static inline int anim_track_loop(const anim_track *t) { return t->loop ? t->loop - 1 : t->clip->loop; }

/* Tracks held in the animator block itself: the usual few need no array
 * of their own (one cache line fewer per character and frame). */
#define INLINE_TRACKS 4

/* The ended tracks' blocks an animator keeps for its state machine's next
 * tracks: as many as a state machine's layers start in a few updates. */
#define ANIM_SPARES 4

/* The fields every update reads come first; the animated flags follow
 * the struct, then the pose, on a cache line of its own. */
struct anim_animator {
  int ntracks, cap;
  anim_track **tracks;     /* start order */
  anim_track **order;      /* scratch: blend order */
  double *pose;            /* per rig joint: pos 3, rot 4, scl 3 */
  unsigned char *animated; /* per rig joint: ANIM_CH_* */
  const anim_rig *rig;
  double dt;               /* this update's, scaled by speed (0 paused) */
  double speed;            /* the time scale of every track (animator.speed) */
  long long seq;
  int nqueue, oom;
  int world_valid;
  int paused;              /* updates advance by 0 (animator.paused) */
  int side;
  unsigned hear;           /* ANIM_HEAR_* the animator's callbacks listen to (all by default) */
  int qcap;                /* the room of queue and qtmp */
  anim_event *queue;       /* starts a cache line: an entry (64 bytes) is one line (queue.c) */
  anim_track *inl[2 * INLINE_TRACKS];  /* tracks and order while cap is INLINE_TRACKS */
  /* cold */
  anim_mem mem;
  long long next_id;
  void *qraw;              /* the block queue is in */
  anim_event *qtmp;
  double *world;           /* per rig joint: 10 numbers */
  double *mats;            /* per rig joint: its world matrix, 3x4 (skin.c's scratch) */
  anim_skin_out skin_target; /* a batch update's per-animator target (data NULL: none) */
  size_t skin_at;          /* where a batch's shared target takes its matrices (update.c) */
  struct anim_pslots *pslots;       /* property channels (propmix.c), NULL until one plays */
  struct anim_overrides *overrides; /* joint overrides from scripts (override.c), or NULL */
  int norder;              /* the tracks in `order` after the blend */
  int rm_joint;            /* the root motion joint (-1: none; rootmotion.c) */
  double rm[4];            /* this update's root motion: dx, dy, dz, yaw */
  struct anim_ik *ik;      /* the constraints (ik.c) */
  struct anim_world2d *w2d; /* a 2D skeleton's stage (world2d.c), or NULL */
  struct anim_pool *serial; /* while a worker thread updates it: the pool whose lock its
                             * allocations take (queue.c), else NULL */
  struct anim_controller *ctl; /* its state machine (controller.c), or NULL */
  void *spare[ANIM_SPARES]; /* blocks of ended tracks of its state machine, kept for the
                             * next tracks it starts (track.c: anim_track_recycle) */
  size_t spare_size[ANIM_SPARES];
  int nspare;
};

/* The world transforms (10 doubles a rig joint) and the skinning's world
 * matrices (12), each in a block made at its first use (pose.c's
 * anim_animator_world_room, skin.c's anim_animator_skin_room): its bytes
 * (one for a rig of none), and the block made in *p (on a worker thread
 * under the pool's lock, as queue.c's); 0 when out of memory. */
#define ANIM_WORLD_STRIDE 10
#define ANIM_MATS_STRIDE 12
static inline size_t anim_scratch_bytes(const anim_rig *r, size_t per_joint) {
  return r->n > 0 ? sizeof(double) * (size_t)r->n * per_joint : 1;
}
int anim_scratch_room(anim_animator *a, double **p, size_t per_joint);

/* The general blend's accumulators of a joint (blend.c: on its stack, for
 * a chunk of joints at a time). */
enum { ACC_BUDGET = 0, ACC_POS = 3, ACC_ROT = 6, ACC_SCL = 10, ACC_REF = 13, ACC_HASREF = 17,
       ACC_LW = 18, ACC_LPOS = 21, ACC_LROT = 24, ACC_LSCL = 28, ACC_SIZE = 31 };

#define LINE ANIM_LINE /* cache line bytes (prefetch.h: for the layout and prefetching) */


/* The stages of an update, in the order anim_animator_update takes them
 * (update.c).  Per track: */
struct anim_passes;
/* clock.c: advances track t by the update's dt (a->dt): its fades and
 * weight ramps, its playhead through its loop mode, recording into ps the
 * passes, skips and state changes (passes.h); 0 when t is queued and
 * still waiting.  anim_clock_advance: a blend space's other point (not
 * synced) by `span` from e0 seconds into the update. */
int anim_clock_step(const anim_animator *a, anim_track *t, struct anim_passes *ps);
void anim_clock_advance(const anim_animator *a, anim_track *t, double span, double e0,
                        struct anim_passes *ps);
/* items.c: the items of one pass of t's clip from clip time `from` to
 * `to` in direction dir (incl: those at `from` too), starting e0 seconds
 * into the update at playhead speed sp.  passqueue.c (passes.h's
 * anim_passes_queue): t's records queued, in order (items crossed, state
 * changes). */
void anim_items_pass(anim_animator *a, anim_track *t, double from, double to, int dir, int incl,
                     double e0, double sp);
void anim_passes_queue_all(anim_animator *a, anim_track *t, const struct anim_passes *ps);
/* Then for the animator: */
/* blend.c: the pose of this update from the contributing tracks (_2d: of
 * an animator made from a 2D skeleton, its turns about z alone sampled
 * inline in a copy of the pose's code of its own: the same pose). */
void anim_blend_pose(anim_animator *a);
/* blendpq.c: the pose of the m tracks of a->order (1 <= m <=
 * ANIM_ONE_LEVEL_MAX), one level whose every track is pq, in floats
 * (blend.c chooses it) */
#define ANIM_ONE_LEVEL_MAX 8
void anim_blend_pq(anim_animator *a, int m);
void anim_blend_pose_2d(anim_animator *a);
/* override.c: the scripts' overrides of joints, on the blended pose, in
 * creation order (before any constraint). */
void anim_overrides_apply(anim_animator *a);
void anim_overrides_free(anim_animator *a);
/* pose.c: the world transform w of a joint from its parent's pw and its
 * local transform l (what anim_animator_world composes down the rig). */
void anim_pose_compose(const double pw[10], const double l[10], double w[10]);
/* queue.c: queues an event `at` seconds into the update (a->oom is set
 * when the queue cannot grow), and sorts the queue into delivery order. */
void anim_queue_push(anim_animator *a, double at, anim_track *t, int type, int item);
/* queue.c: frees the queue's arrays (none after it). */
void anim_queue_free(anim_animator *a);
void anim_queue_sort(anim_animator *a);

/* Queues an entry of kind `bit` (ANIM_HEAR_*) only when someone hears it:
 * the animator, or the track (a blend space's point: its lead, whose
 * callbacks its entries reach).  Inline, so that an unheard marker costs a
 * test and no call.  An entry left out still moves the track's latest
 * time, so that the entries queued keep the times they had with it. */
static inline void anim_queue_offer(anim_animator *a, double at, anim_track *t, int type, int item,
                                    unsigned bit) {
  if ((a->hear | t->sp.lead->hear) & bit) anim_queue_push(a, at, t, type, item);
  else if (at > t->last_at) t->last_at = at;
}
/* track.c: drops a reference; 1 when it was the last (the track must then
 * go through anim_track_destroy, which touches its clip: shared between
 * animators, so a worker thread leaves it to the calling thread). */
int anim_track_unref(anim_track *t);
void anim_track_destroy(anim_track *t);
/* track.c: an ended track of a's state machine that only a's list held,
 * taken out of it: its block becomes a's spare for the next track the
 * state machine starts (its transitions then allocate nothing once each
 * state was played), its clip let go (under the pool's lock on a worker:
 * the clip is shared; a full set of spares frees its smallest for a larger
 * block).  0 (nothing done) for any other track, or a block no larger
 * than a full set's smallest. */
int anim_track_recycle(anim_animator *a, anim_track *t);
/* track.c: a new track of a (one block), not yet in a->tracks; NULL when
 * out of memory. */
anim_track *anim_track_new(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                           const anim_binding *binds, int nbind);
/* track.c: frees an animator's arrays of tracks when they are not in its
 * block. */
void anim_track_arrays_free(anim_animator *a);
/* track.c: lays out a track's per-binding arrays in a block (see there). */
size_t anim_track_lay_arrays(anim_track *t, char *mem, size_t base, const anim_clip *c,
                             const anim_binding *binds, int nbind, int nrig, size_t *hot_end);
/* An absolute clip's sample of rig joint j (channels ch) made offsets
 * from the rig's rests, which the blend adds up like any others: the
 * position less the rest position, the rest rotation undone (q0^-1 q),
 * the scale over the rest scale -- so that anim_animator_local (pose.c)
 * gives back the sample itself.  On an axis whose rest scale is 0, where
 * the offset adds to the rest, the scale plus 1. */
static inline void anim_to_offsets(const anim_rig *r, int j, int ch, double *s) {
  int k;
  if (ch & ANIM_CH_POS) for (k = 0; k < 3; k++) s[k] -= r->rest_pos[j][k];
  if (ch & ANIM_CH_ROT) {
    const double *q0 = r->rest_rot[j];
    double inv[4] = {-q0[0], -q0[1], -q0[2], q0[3]};
    anim_quat_mul(s + 3, inv, s + 3);
  }
  if (ch & ANIM_CH_SCL)
    for (k = 0; k < 3; k++) {
      double rs = r->rest_scl[j][k];
      s[7 + k] = rs != 0 ? s[7 + k] / rs : s[7 + k] + 1;
    }
}

/* Samples binding b of track t at clip time `at` into s[SAMPLE_STRIDE]
 * with the key cursors (hot, cold) of the binding (a compressed clip: the
 * track's cache, packed.h), or binary searches when `cursors` is 0;
 * retargeted turns and positions carried across;
 * s[10] becomes the binding's effective weight: tw x joint weight x pose
 * weight (capped).  Returns the channels written, 0 for a muted joint. */
static inline int anim_sample_binding(anim_track *t, int b, double at, int cursors, double tw,
                                      double *s) {
  const anim_clip *c = t->clip;
  int cj = t->cj[b], ch;
  const anim_joint *jt = &c->joints[cj];
  if (jt->muted) return 0;
  if (jt->packed) ch = anim_packed_sample(c->packed, jt->packed, at, NULL, cursors ? t->pkc : NULL, s);
  else if (cursors) ch = anim_clip_sample_joint(c, cj, at, t->hot + b * ANIM_HOT_CURSORS,
                                                t->cold ? t->cold + b * ANIM_COLD_CURSORS : NULL, s);
  else ch = anim_clip_sample_joint(c, cj, at, NULL, NULL, s);
  if (t->adjust[b]) {
    /* retargeted: turns carried across, positions scaled; an absolute
     * clip's sample made offsets from the rests */
    const anim_binding *bd = t->bind ? &t->bind[b] : NULL;
    if (bd && bd->convert && (ch & ANIM_CH_ROT)) {
      anim_quat_mul(s + 3, bd->pre, s + 3);
      anim_quat_mul(s + 3, s + 3, bd->post);
    }
    if (bd && (ch & ANIM_CH_POS) && bd->pscale != 1) { s[0] *= bd->pscale; s[1] *= bd->pscale; s[2] *= bd->pscale; }
    if (c->absolute) anim_to_offsets(t->owner->rig, t->rj[b], ch, s);
  }
  s[10] *= tw * jt->weight;
  /* capped so that a level's sum of weights stays finite */
  if (s[10] > ANIM_WEIGHT_CAP) s[10] = ANIM_WEIGHT_CAP;
  return ch;
}

/* ---- the stages of the gameplay features ---------------------------------- */

/* spaceplay.c: spaceplay.h (included above: the track holds its
 * anim_track_sp). */

/* chain.c: chain.h. */

/* rootmotion.c: rootmotion.h. */

/* ik.c.  The constraints, in creation order, after blending. */
void anim_ik_apply(anim_animator *a);
void anim_ik_free(anim_animator *a);

#endif
