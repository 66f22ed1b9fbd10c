/* property.h - property channels of a clip: named scalar or vector curves
 * that are not joints (a glow, a tint, a sprite's frame index, morph
 * weights).  Keys, interpolations, easings, handles and modifiers are
 * those of a joint's position channel; each component is a scalar curve
 * of its own.  Plain C, no Lua. */
#ifndef ANIM_PROPERTY_H
#define ANIM_PROPERTY_H

#include <stddef.h>

#include "curve.h"

/* ANIM_MAX_PROP_ARITY (codes.h): the most components of one property. */

/* A property of a clip.  Its `arity` components are keys of arity 1 that
 * share one array of times and one of interpolation bytes (and the marks
 * of the keys with handles); each has its own values and handle records
 * (ANIM_HREC(1): out dt, in dt, out dv, in dv, form). */
typedef struct anim_prop {
  const char *name;
  size_t len;              /* of the name, in bytes */
  int arity;
  anim_keys *keys;         /* arity */
  anim_curve *curves;      /* arity: component a reads keys[a]; the builder sets their modifiers */
  double *base;            /* arity: the value at time 0 (an additive track adds its value minus it) */
  int discrete;            /* 1: every key a step, blended by the largest share (propmix.c), not summed */
  int linear;              /* every component's keys linear, no modifier (anim_clip_finish):
                            * sampled with one key search and one fraction */
} anim_prop;

struct anim_clip;

/* Building (after anim_clip_new, before anim_clip_finish).
 * anim_clip_props gives clip c room for n properties; 0, or -1 when out
 * of memory.  anim_prop_keys names property p and gives it room for n keys
 * of `arity` components, nh of them with handles: the builder fills
 * keys[0].t and keys[0].ie (the others share them), each keys[a].v, and
 * marks the keys with handles in order on each component
 * (anim_keys_mark) to fill its records.  Returns p's keys array, or NULL
 * when out of memory or out of range. */
int anim_clip_props(struct anim_clip *c, int n);
anim_keys *anim_prop_keys(struct anim_clip *c, int p, const char *name, size_t len, int n, int arity, int nh);
/* (anim_clip_finish checks the properties the builder made and sets up
 * their curves: clipcheck.c) */

/* The n components of property p at clip time t into out[], made finite
 * (NaN is 0, infinities +-DBL_MAX).  cursors: NULL (binary searches) or
 * p->arity ints (-1 to start): steady play finds keys in O(1). */
void anim_prop_sample(const anim_prop *p, double t, int *cursors, double *out);

/* Index of the property named name[0..len) of clip c, or -1. */
int anim_clip_find_prop(const struct anim_clip *c, const char *name, size_t len);

#endif
