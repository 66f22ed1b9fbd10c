/* gameplay.h - what a game needs beyond playing clips: queued clips
 * (chain.c), root motion (rootmotion.c) and inverse kinematics constraints
 * (ik.c); blend spaces are in blendspace.h.  Plain C, no Lua. */
#ifndef ANIM_GAMEPLAY_H
#define ANIM_GAMEPLAY_H

#include "animator.h"
#include "blendspace.h"

/* ---- queued clips (chain.c) ---------------------------------------------
 * Queues t (just played, not updated yet) after `after`, a track of the
 * same animator with nothing queued after it: t starts when `after`
 * reaches its end (once, hold: its last frame; loop, pingpong: the end of
 * the pass under way), fading in over its fade while `after` fades out
 * over the same time and then ends.  1 when queued; 0 when `after` has
 * already ended (t plays from the next update); -1 refused. */
int anim_track_queue_after(anim_track *t, anim_track *after);

/* ---- root motion (rootmotion.c) -----------------------------------------
 * The joint (-1: none) whose animated translation and rotation about +y
 * are taken out of the pose -- held at the blended value of its tracks at
 * their clips' time 0 -- and given as each update's motion: dx, dy, dz (in
 * the rig's space, the joint's parents at rest) and the turn about +y as a
 * quaternion.  Loop-aware: a wrap adds (end - here) + (there - start). */
void anim_animator_set_root_motion(anim_animator *a, int joint);
int anim_animator_root_motion_joint(const anim_animator *a);
void anim_animator_root_motion(const anim_animator *a, double out[7]);

/* ---- constraints (ik.c) -------------------------------------------------
 * Applied after blending, in the order they were added, at the end of
 * every update; the pose read afterwards shows them.  Points and axes are
 * in the rig's space.  Two-bone (ANIM_IK_TWO_BONE): j[0] the root, j[1]
 * the mid joint below it, j[2] the tip below that; the tip reaches the
 * target (the chain straight toward it beyond its reach), the mid joint
 * bending toward the pole; soften in [0, 1] (1: none) as ozz-animation's
 * IKTwoBoneJob.  Aim (ANIM_IK_AIM): joint j[0]'s axis `fwd` (its own
 * space) points at the target, its `up` as close to the rig's +y as that
 * allows.  weight in [0, 1] slerps each joint's local rotation from its
 * unconstrained one. */
typedef struct anim_ik_desc {
  int kind;                /* ANIM_IK_* */
  int j[3];
  double target[3], pole[3], fwd[3], up[3];
  double weight, soften;
} anim_ik_desc;
/* Adds a constraint: its id (> 0), -1 when out of memory, -2 for a bad
 * description (joints not in a chain, axes of no length or parallel). */
long long anim_ik_add(anim_animator *a, const anim_ik_desc *d);
/* 1 when it was there. */
int anim_ik_remove(anim_animator *a, long long id);
/* A field (ANIM_IKF_*: target, pole 3 numbers; weight, soften 1) set or
 * read; 0 when there is no such constraint. */
int anim_ik_set(anim_animator *a, long long id, int field, const double v[3]);
int anim_ik_get(const anim_animator *a, long long id, int field, double v[3]);

#endif
