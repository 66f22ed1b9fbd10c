/* override.h - overrides of joints from scripts (a look-at, a recoil) on
 * top of the blended pose: applied in every update after the blend and
 * before any constraint, in creation order.  Plain C, no Lua. */
#ifndef ANIM_OVERRIDE_H
#define ANIM_OVERRIDE_H

#include "animator.h"

/* What an override does to one joint.  Its values are the quantities
 * anim_animator_get gives: offsets from the joint's rest, as clips give
 * them.  mode ANIM_OVR_REPLACE sets them; ANIM_OVR_ADD composes them with
 * the blended value (rotation: blended * rot; position: + pos; scale:
 * componentwise * scl).  weight (0..1) slerps the rotation and lerps the
 * position and scale from the blended value to that result.  channels:
 * the ANIM_CH_* it sets (the others are left as blended). */
typedef struct anim_override {
  int joint;               /* 0-based rig joint */
  int mode;                /* ANIM_OVR_* (codes.h) */
  int channels;            /* ANIM_CH_* */
  double weight;
  double pos[3], rot[4], scl[3];  /* rot: a unit quaternion */
} anim_override;

/* Adds an override after the others; returns its id (> 0), 0 when out of
 * memory, -1 when o is out of range (joint, mode, weight, values that are
 * not finite, a rotation of no length: made unit here).  Changes apply
 * from the next update. */
long long anim_override_add(anim_animator *a, const anim_override *o);
/* Replaces what override `id` does (it keeps its place); 0, or -1 when
 * there is no such override or o is out of range. */
int anim_override_set(anim_animator *a, long long id, const anim_override *o);
/* Removes override `id`; 0, or -1 when there is none. */
int anim_override_remove(anim_animator *a, long long id);

#endif
