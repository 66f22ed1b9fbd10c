/* skin.h - skinning matrices: for each joint of a rig's skin (rig.h:
 * nskin joints, the skin's order), world(joint) x inverse_bind(joint),
 * optionally a root (model) matrix in front, written as floats or doubles
 * into the caller's array.  The world transforms are composed as 4x4
 * matrices (T x R x S, parent first, as glTF's "Skins" defines the joint
 * matrix), not as the TRS triples anim_animator_world gives: the two
 * differ under a non-uniform scale above a turned joint.
 * Layouts (column-major, glTF's and OpenGL's order): ANIM_SKIN_MAT4, the
 * 16 numbers of the 4x4; ANIM_SKIN_MAT3X4, its first three rows column by
 * column (m[0..2] column 0's x, y, z, ..., m[9..11] the translation).
 * Plain C, no Lua; nothing is allocated (the world matrices' scratch is
 * in the animator's block). */
#ifndef ANIM_SKIN_H
#define ANIM_SKIN_H

#include <stddef.h>

#include "animator.h"

enum { ANIM_SKIN_MAT3X4 = 12, ANIM_SKIN_MAT4 = 16 };

/* Where the matrices go: data holds cap floats (is_double 0) or doubles;
 * the first is written at element `offset`; layout is ANIM_SKIN_MAT3X4 or
 * ANIM_SKIN_MAT4; root is a column-major 4x4 multiplied in front, or NULL. */
typedef struct anim_skin_out {
  void *data;
  size_t cap, offset;
  int is_double, layout;
  const double *root;
} anim_skin_out;

/* The numbers an animator on rig r writes (nskin x layout). */
size_t anim_skin_size(const anim_rig *r, int layout);
/* Writes a's matrices from its current pose as o says; returns the
 * numbers written, or 0 writing nothing when they do not fit (offset +
 * size > cap, a layout other than the two, data NULL). */
size_t anim_animator_skin(anim_animator *a, const anim_skin_out *o);
/* The two steps of it, for a writer of another kind (a Lua table): the
 * world matrices of the current pose computed into the animator's
 * scratch, then skin joint k's 4x4 (column-major) read from them.  The
 * scratch is made at the first skinning: anim_animator_skin_room (0 when
 * out of memory), which anim_animator_skin calls (0 written then) and a
 * caller of these two first. */
int anim_animator_skin_room(anim_animator *a);
void anim_animator_skin_prepare(anim_animator *a);
void anim_animator_skin_joint(const anim_animator *a, int k, const double *root, double m[16]);

/* The per-animator target of a batch update (anim_animators_update_skin
 * in animator.h): copied, its root left out; data NULL clears it.  0, or
 * -1 (nothing set) when the matrices would not fit. */
int anim_animator_set_skin_target(anim_animator *a, const anim_skin_out *o);
/* The animator's target (data NULL: none), for a restore's new animator. */
const anim_skin_out *anim_animator_skin_target(const anim_animator *a);

#endif
