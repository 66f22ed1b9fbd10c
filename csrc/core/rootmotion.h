/* rootmotion.h - root motion (rootmotion.c) as the core's files see it
 * (the public side is gameplay.h): what a track keeps of its motion joint,
 * and the stages of an update that move it.  Plain C, no Lua. */
#ifndef ANIM_ROOTMOTION_H
#define ANIM_ROOTMOTION_H

#include "animator.h"

struct anim_passes;

/* A track's root motion (rootmotion.c): the motion joint's position offset
 * and yaw (radians, in the rig's space) at the clip's two ends and at the
 * playhead, and what this update moved it.  For the rig joint `joint`. */
typedef struct anim_track_rm {
  int joint;               /* the rig joint these are for (-1: not set up) */
  int b;                   /* the track's binding of it (-1: none) */
  int ch;                  /* the channels that binding animates */
  int valid;               /* pc, yc are at the playhead (a seek clears it) */
  double p0[3], pL[3], pc[3];
  double y0, yL, yc;
  double q0[4];            /* the yaw at time 0 (what the joint is held at) */
  double dp[3], dy;        /* this update's motion */
} anim_track_rm;

/* Before a track steps: its motion set to 0 (its samples
 * set up for the motion joint); after its clock, each pass adds what it
 * moved, whole loops skipped too (anim_rootmotion_passes over its
 * records; a synced space's other points through anim_space_motion);
 * after the blend, the motion joint is held and the motion of the update
 * blended into a->rm. */
void anim_rootmotion_begin(anim_animator *a, anim_track *t);
void anim_rootmotion_passes(anim_animator *a, anim_track *t, const struct anim_passes *ps);
void anim_rootmotion_pass(anim_animator *a, anim_track *t, double from, double to);
void anim_rootmotion_skip(anim_animator *a, anim_track *t, int mode, int dir, double k, double from,
                          double bt);
void anim_rootmotion_apply(anim_animator *a);

#endif
