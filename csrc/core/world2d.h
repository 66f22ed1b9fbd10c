/* world2d.h - the 2D stage of an animator made from a 2D skeleton (Spine,
 * DragonBones: issue 40): per bone its 2x3 world matrix in the file's own
 * axes, from the blended local pose (x, y from the position, the angle
 * about z, scaleX/Y) and its shear property, by its inherit mode; then
 * the constraints (IK of one and two bones, transform constraints) in
 * the skeleton's update order (bone2d.c: a bone's world; constraint2d.c:
 * the constraints; world2d.c: the block and the stage).  docs/formats.md, "2D skeletons", states every rule.  Plain C,
 * no Lua. */
#ifndef ANIM_WORLD2D_H
#define ANIM_WORLD2D_H

#include <stddef.h>

#include "animator.h"

/* How a bone takes its parent's transform (Spine's names, in its order). */
enum { ANIM_INHERIT_NORMAL, ANIM_INHERIT_ONLY_TRANSLATION, ANIM_INHERIT_NO_ROTATION_OR_REFLECTION,
       ANIM_INHERIT_NO_SCALE, ANIM_INHERIT_NO_SCALE_OR_REFLECTION, ANIM_INHERIT_COUNT };

/* The steps of the update order: a bone's world from its local values, or
 * a constraint applied (it poses its own bones). */
enum { ANIM_W2D_BONE = 1, ANIM_W2D_IK = 2, ANIM_W2D_TRANSFORM = 3 };

/* A bone posed by DragonBones' rules instead of its inherit mode
 * (dragonbones2d.c): ANIM_DB_BONE and the flags the file gives it. */
enum { ANIM_DB_BONE = 1, ANIM_DB_TRANSLATION = 2, ANIM_DB_ROTATION = 4, ANIM_DB_SCALE = 8, ANIM_DB_REFLECTION = 16,
       ANIM_DB_ALL = 31 };

/* One bone (the rig's joint of the same index; the rig gives its parent). */
typedef struct anim_w2d_bone {
  int inherit;             /* ANIM_INHERIT_* */
  int dragonbones;         /* 0 (the inherit mode's rule), or ANIM_DB_BONE | ANIM_DB_* flags */
  double shear[2];         /* setup shearX, shearY (degrees) */
  double length;           /* setup length (one-bone IK's compress and stretch; two-bone IK's child) */
  const char *shear_name;  /* the property "<bone>.shear" (copied) */
  size_t shear_len;
  const char *inherit_name; /* the property "<bone>.inherit" (copied): a discrete ANIM_INHERIT_*
                            * code that replaces `inherit` where a track gives it (Spine 4.2) */
  size_t inherit_len;
} anim_w2d_bone;

/* An IK constraint: one bone, or a parent and its child; its setup values
 * (the properties ik.<name> = [mix, softness] and ik.<name>.flags =
 * [bend, compress, stretch] replace them where a track animates them). */
typedef struct anim_w2d_ik {
  int nbones, bones[2], target;
  double mix, softness;
  int bend, compress, stretch, uniform;
  int dragonbones;         /* 1: DragonBones' solver (bend > 0: bendPositive; mix: weight) */
  const char *name, *flags; /* the two property names (copied) */
  size_t name_len, flags_len;
} anim_w2d_ik;

/* A transform constraint: its bones (bones[first .. first + count) of the
 * list given with them), its target, its setup mixes and offsets
 * (rotate, x, y, scaleX, scaleY, shearY; the property transform.<name>
 * replaces the mixes where a track animates it), local and relative. */
typedef struct anim_w2d_tc {
  int first, count, target;
  double mix[6], offset[6];
  int local, relative;
  const char *name;        /* the property name (copied) */
  size_t name_len;
} anim_w2d_tc;

typedef struct anim_world2d anim_world2d;
/* What every animator of one 2D skeleton reads and none writes (its
 * bones, constraints and update order): made once, shared by their
 * blocks (shape2d.c). */
typedef struct anim_w2d_shape anim_w2d_shape;

/* What anim_w2d_shape_new reads: the bones (the rig's count), the IK and
 * transform constraints with the transform constraints' bone list, the
 * update order (nops steps of two ints: ANIM_W2D_*, index). */
typedef struct anim_w2d_def {
  int nbones, nik, ntc, ntcbones, nops;
  const anim_w2d_bone *bones;
  const anim_w2d_ik *ik;
  const anim_w2d_tc *tc;
  const int *tcbones, *ops;
} anim_w2d_def;

/* The shape of d (everything copied; its count of references 1).  NULL
 * when out of memory, or *err says what is wrong (an index out of
 * range). */
anim_w2d_shape *anim_w2d_shape_new(const anim_mem *m, const anim_w2d_def *d, const char **err);
/* A reference dropped (NULL: nothing); the last frees the shape. */
void anim_w2d_shape_release(anim_w2d_shape *s);
/* The bones of the shape (the rig's joints it is made for). */
int anim_w2d_shape_bones(const anim_w2d_shape *s);

/* A 2D block of shape s for an animator (a reference to s taken): what
 * each update writes, per animator.  NULL when out of memory. */
anim_world2d *anim_world2d_new(const anim_mem *m, anim_w2d_shape *s);
/* The block freed (NULL: nothing), its reference to the shape dropped. */
void anim_world2d_free(anim_world2d *w);
/* The block's lines a batch update reads first, prefetched (prefetch.h)
 * animators ahead: stage 0 its struct, stage 1 (the struct in) its
 * property slots and modes.  w may be NULL. */
void anim_world2d_prefetch(const anim_world2d *w, int stage);

/* Gives animator a the block (freeing the one it had; NULL: none): from
 * then its updates run the 2D stage.  0, or -1 when the block was made for
 * another number of bones (nothing changed). */
int anim_animator_set_world2d(anim_animator *a, anim_world2d *w);
/* Takes the block away from a (a restore moves it to the new animator). */
anim_world2d *anim_animator_take_world2d(anim_animator *a);
int anim_animator_has_world2d(const anim_animator *a);

/* The stage (update.c, after the property blend): allocates nothing,
 * O(bones + constraints). */
void anim_world2d_apply(anim_animator *a);

/* Bone j's world matrix a, b, c, d, x, y into out (x' = a x + b y + x,
 * y' = c x + d y + y), computed now when no update made it (a restored
 * animator).  0, or -1 without a block. */
int anim_animator_world2d(anim_animator *a, int j, double out[6]);

#endif
