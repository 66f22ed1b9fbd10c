/* clip.h - immutable clips: joints -> channels -> curves, plus the times of
 * their timed items.  Built once through the functions below, then shared
 * read-only by any number of tracks.  Plain C, no Lua. */
#ifndef ANIM_CLIP_H
#define ANIM_CLIP_H

#include <stddef.h>

#include "amem.h"
#include "codes.h"
#include "curve.h"
#include "packed.h"
#include "property.h"

/* Loop modes, blend modes, spaces, item kinds, sides, channel flags
 * (ANIM_CH_*) and key slots (ANIM_K_*) are in codes.h. */

/* Key cursors kept per joint: the hot ones (the first axis of position,
 * rotation -- or its quaternions -- and scale: all a joint whose axes share
 * their key times needs) and the cold ones (the other axes of each, then
 * the pose weight).  Callers keep the hot ones of all joints together: few
 * cache lines per character. */
#define ANIM_HOT_CURSORS 3
#define ANIM_COLD_CURSORS 7
#define ANIM_JOINT_CURSORS (ANIM_HOT_CURSORS + ANIM_COLD_CURSORS)

/* A joint's channels of keys: rotation is Euler angles (arity 3) or
 * quaternions (arity 4, rot_quat set); pose weights have arity 1.  A split
 * channel (an importer's exact curves whose axes have keys at different
 * times) keeps axis a in slot ANIM_K_AXIS(ch, a), arity 1. */
enum { ANIM_K_COUNT = 10 };
#define ANIM_FAST_PQ 2
#define ANIM_K_AXIS(ch, a) ((a) == 0 ? (ch) : 4 + 2 * (ch) + (a) - 1)

typedef struct anim_joint {
  const char *name;
  size_t name_len;         /* its bytes (a name may hold a NUL byte) */
  double weight;           /* the joint's weight, 0..1 */
  int muted;
  int fast;                /* every channel is in `linear`; ANIM_FAST_PQ:
                            * and they are a position and a quaternion
                            * rotation (W1's joints), not muted */
  int channels;            /* ANIM_CH_* present */
  int rot_quat;            /* rotation keys are quaternions */
  int shared;              /* ANIM_CH_* whose three axes share key times */
  int linear;              /* ANIM_CH_* shared and linear throughout (or
                            * slerped: rotation); with no pose weights,
                            * all of them: the joint's fast path */
  int zturn;               /* a fast joint's Euler rotation keys turn about
                            * z alone (x and y +0) in xyz (1) or yxz (-1):
                            * sampled by anim_zturn_eval (curve.h; fk[1].arc
                            * its segments), with cursors or without; else 0 */
  /* A fast joint's position, rotation and scale keys as its inline
   * sampling reads them (anim_clip_sample_fast; n = 0 when not `fast`),
   * beside the fields above: the blend's usual joint reads one cache line
   * of its struct. */
  anim_fastkeys fk[3];
  /* The keys of each channel (ANIM_K_*), then the curves that read them
   * (set up by anim_clip_finish; the builder sets only their modifiers).
   * A channel in `split` has keys of its own per axis (slot ANIM_K_AXIS). */
  int split;               /* 1 << ANIM_K_* of the split channels */
  anim_keys keys[ANIM_K_PW + 1];
  anim_keys *axes;         /* NULL, or slots ANIM_K_PW + 1 .. ANIM_K_COUNT - 1 */
  anim_curve pos[3], rot[3], scl[3];
  anim_qcurve qrot;
  anim_curve pose_weight;  /* version 1 pose weights; no keys when constant 1 */
  const anim_pk_joint *packed; /* a compressed clip's joint: its channels in
                            * the clip's pack (packed.h), none of the above */
} anim_joint;



typedef struct anim_item {
  double t;
  int kind;                /* ANIM_ITEM_* */
  int index;               /* 0-based, in file order within its kind */
  int side;                /* events: ANIM_SIDE_*; others ANIM_SIDE_BOTH */
  int fires;               /* bit s set: fires on an animator of ANIM_SIDE s
                              (anim_clip_finish, from kind and side: SEMANTICS 7) */
} anim_item;

typedef struct anim_block anim_block;

struct anim_track;

typedef struct anim_clip {
  double length, speed, priority;
  int loop, blend, euler;
  int absolute;            /* channels are the joint's local transform (a
                            * glTF node's translation, rotation and scale),
                            * not offsets from its rest: the animator turns
                            * them into offsets from the rig's rests */
  int njoints;
  anim_joint *joints;
  int nitems;
  anim_item *items;        /* sorted by time, kind, file order */
  int nprops;
  anim_prop *props;        /* property channels (property.h), in the builder's order */
  anim_block *blocks;      /* everything the clip owns */
  anim_mem mem;            /* what it was allocated with */
  int refs;                /* its owner and each track playing it */
  unsigned gen;            /* reloads so far (reload.c): bindings made for
                            * one content are stale once it changes, which
                            * a finalizer run by an allocation may do */
  const anim_packed *packed; /* a compressed clip (anim.compress): its pack */
  struct anim_track *tracks; /* the tracks that hold it, linked through them:
                            * a reload ends those it does not rebind
                            * (reload.c) */
} anim_clip;

/* Building.  anim_clip_new returns a zeroed clip with njoints joints and
 * nitems items, allocated through mem (NULL when out of memory).  anim_clip_alloc gives zeroed
 * memory owned by the clip.  anim_clip_finish checks the invariants the
 * evaluator relies on, sorts the items and returns NULL, or a message. */
anim_clip *anim_clip_new(const anim_mem *mem, int njoints, int nitems);
void *anim_clip_alloc(anim_clip *c, size_t size);
/* The keys in slot s (ANIM_K_* or ANIM_K_AXIS) of a joint, or NULL (an
 * axis slot of a joint with no split channel). */
anim_keys *anim_joint_keys(const anim_joint *jt, int s);
/* Gives slot ch (ANIM_K_* or ANIM_K_AXIS) of joint j room for n keys of `arity`
 * numbers, nh of them with handles, in one block owned by the clip: the
 * builder fills t, v and ie, and marks the nh keys with handles in order
 * (anim_keys_mark) to fill their records.
 * Returns the keys, or NULL when out of memory or too many. */
anim_keys *anim_clip_keys(anim_clip *c, int j, int ch, int n, int arity, int nh);
/* The same with hdt handle times a record (curve.h: 1, or
 * ANIM_HDIMS(arity) for a channel whose axes have handles of their own
 * times). */
anim_keys *anim_clip_keys_dt(anim_clip *c, int j, int ch, int n, int arity, int nh, int hdt);
/* Gives keys k (of clip c) room for tangents, all absent (NaN); returns
 * k->tan or NULL when out of memory. */
double *anim_clip_tangents(anim_clip *c, anim_keys *k);
const char *anim_clip_strdup(anim_clip *c, const char *s, size_t len);
/* (clipcheck.c: the checks of the joints', the properties' and the
 * items' data, the curves set up) */
const char *anim_clip_finish(anim_clip *c);
/* What anim_clip_finish returns when an allocation failed (compare the
 * pointer). */
extern const char ANIM_CLIP_NOMEM[];
/* Makes a finished clip whose joints have no keys a compressed one: the
 * pack p[0..len) (packed.h) copied, checked (at most max_keys keys) and
 * indexed, its keys decoded, each joint's channels read from it.  NULL,
 * or a message with *at the byte offset in the pack (ANIM_CLIP_NOMEM: out
 * of memory; ANIM_PK_TOO_MANY_KEYS: more keys than max_keys). */
const char *anim_clip_set_packed(anim_clip *c, const unsigned char *p, size_t len, size_t max_keys, size_t *at);
/* Drops a reference (the creator holds the first); the last frees it. */
void anim_clip_free(anim_clip *c);
void anim_clip_retain(anim_clip *c);

/* Sample joint j at clip time t into out: position 0..2, rotation 3..6,
 * scale 7..9 and at 10 the pose weight (1 unless version 1 poses animate
 * it).  Channels the joint does not animate are left as they were.  hot
 * and cold are NULL (binary searches) or the joint's ANIM_HOT_CURSORS and
 * ANIM_COLD_CURSORS ints (-1 to start).  Returns the ANIM_CH_* flags
 * written. */
int anim_clip_sample_joint(const anim_clip *c, int j, double t, int *hot, int *cold, double out[11]);

/* anim_clip_sample_joint for a joint with `fast` set, with its hot
 * cursors: linear positions and scales, slerped rotations (the usual
 * clip), inline in the steady case (anim_curves_lerp_inline,
 * anim_qcurve_slerp_inline): the same bits.  _2d: a turn about z alone
 * inline too (anim_zturn_inline), for a 2D skeleton's copy of the blend
 * (blend.c).  (One body for both, written out by the macro: the usual
 * one as it was, so that W1's blend keeps its registers.) */
#define ANIM_CLIP_SAMPLE_FAST(name, zfn)                                                         \
  static ANIM_INLINE int name(const anim_clip *c, const anim_joint *jt, double t, int *hot,      \
                              double out[11]) {                                                  \
    int ch = jt->channels;                                                                       \
    if (ch & ANIM_CH_POS) anim_curves_lerp_inline(jt->pos, &jt->fk[0], t, hot, out);             \
    if (ch & ANIM_CH_ROT) {                                                                      \
      if (jt->rot_quat) anim_qcurve_slerp_inline(&jt->qrot, &jt->fk[1], t, hot + 1, out + 3);    \
      else if (jt->zturn) zfn(&jt->fk[1], t, hot + 1, jt->zturn, out + 3);                       \
      else {                                                                                     \
        double deg[3];                                                                           \
        anim_curves_lerp_inline(jt->rot, &jt->fk[1], t, hot + 1, deg);                           \
        anim_quat_from_euler(out + 3, deg, c->euler);                                            \
      }                                                                                          \
    }                                                                                            \
    if (ch & ANIM_CH_SCL) anim_curves_lerp_inline(jt->scl, &jt->fk[2], t, hot + 2, out + 7);     \
    out[10] = 1;                                                                                 \
    return ch;                                                                                   \
  }
ANIM_CLIP_SAMPLE_FAST(anim_clip_sample_fast, anim_zturn_eval)
ANIM_CLIP_SAMPLE_FAST(anim_clip_sample_fast_2d, anim_zturn_inline)
#undef ANIM_CLIP_SAMPLE_FAST

#endif
