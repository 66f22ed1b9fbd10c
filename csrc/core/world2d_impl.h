/* world2d_impl.h - what the 2D stage's files share: the shape and block of an
 * animator made from a 2D skeleton, a bone's applied local values, and
 * the calls between them (bone2d.c: a bone's world and the frame it is
 * applied in; constraint2d.c: IK and transform constraints; shape2d.c:
 * what the animators of a skeleton share; world2d.c: an animator's block
 * and the stage).  Plain C, no Lua. */
#ifndef ANIM_WORLD2D_IMPL_H
#define ANIM_WORLD2D_IMPL_H

#include "amath.h"
#include "animator_impl.h"
#include "world2d.h"

#define ANIM_W2D_RAD (ANIM_PI / 180)
#define ANIM_W2D_DEG (180 / ANIM_PI)
/* a scale or determinant below this is taken as none (a frame not inverted) */
#define ANIM_W2D_TINY 1e-9

/* the applied local values of a bone, ANIM_AP numbers each: what the
 * pose gave, as constraints changed them.  The rotation as the pose gives
 * it is its cosine and sine (ANIM_ACR, ANIM_ASR, read off the quaternion:
 * no atan2 and no sine per bone and update), ANIM_AR NaN; a constraint
 * that reads the angle asks anim_w2d_angle, and one that sets it sets
 * ANIM_AR, which bone2d.c then reads instead. */
enum { ANIM_AX, ANIM_AY, ANIM_AR, ANIM_ASX, ANIM_ASY, ANIM_ASHX, ANIM_ASHY, ANIM_ACR, ANIM_ASR,
       ANIM_AMC, ANIM_AMS, ANIM_AMR, ANIM_AHV, ANIM_AHC, ANIM_AHS, ANIM_AP };
/* (ANIM_AMC, ANIM_AMS: the cosine and sine anim_w2d_angle last read an
 * angle from, ANIM_AMR that angle: kept between updates, 0, 0, 0 at first,
 * atan2's; a constraint's bone the pose does not turn asks no atan2;
 * ANIM_AHV: the shearY whose cosine and sine a constraint that set it
 * knew, ANIM_AHC and ANIM_AHS, so that bone2d.c asks no sine for it --
 * NaN from each update's reading of the pose) */
/* the numbers of a bone's setup shear kept with the shape (sht) */
#define ANIM_SHT 6

/* The shape (shape2d.c): one block, counted (its owner, a Lua skeleton's
 * userdata, and each animator's block); written only when made, so that
 * the animators of a skeleton, on any thread, read one copy, which stays
 * in the caches from one animator's update to the next's. */
struct anim_w2d_shape {
  size_t size;
  anim_mem mem;
  int refs;
  int n, nik, ntc, nops;
  int anydb;               /* a bone or an IK constraint takes DragonBones' rules (else dbn is not kept) */
  anim_w2d_bone *bone;     /* n: bone[j].inherit is the setup's mode */
  anim_w2d_ik *ik;         /* nik */
  anim_w2d_tc *tc;         /* ntc */
  int *tcbones;            /* the transform constraints' bones */
  int *ops;                /* 2 nops */
  double *sht;             /* ANIM_SHT n: cos, sin of the setup shearX, of shearY, of 90 + shearY
                            * (the usual shear; the last two the two-bone IK's) */
};

/* An animator's block: what its updates write, and the shape's numbers
 * and arrays copied beside them (read by every step). */
struct anim_world2d {
  size_t size;
  anim_mem mem;
  anim_w2d_shape *shape;
  int n, nik, ntc, nops, anydb;
  const anim_w2d_bone *bone;
  const anim_w2d_ik *ik;
  const anim_w2d_tc *tc;
  const int *tcbones, *ops;
  const double *sht;
  int valid;               /* the matrices are those of the pose now */
  int gen;                 /* anim_props_generation when the slots were looked up */
  int *mode;               /* n: each bone's inherit mode in this update (its setup's, or
                            * the "<bone>.inherit" property's) */
  int *shear_slot;         /* n: the property slot of "<bone>.shear", or -1 */
  int *inherit_slot;       /* n: the property slot of "<bone>.inherit", or -1 */
  int *ik_slot;            /* 2 nik: of ik.<name> and ik.<name>.flags */
  int *tc_slot;            /* ntc: of transform.<name> */
  double *ap;              /* ANIM_AP n */
  double *wm;              /* 6 n: a b c d x y */
  double *fr;              /* 4 n: the frame F the local matrix was applied in */
  double *ikal;            /* 3 nik: a two-bone IK's last child origin (x, y) in its parent's axes
                            * and its direction atan2(y, x) (0, 0, 0 at first: atan2's) */
  int *dbn;                /* n: DragonBones' global scaleX of the bone is negative (dragonbones2d.c) */
  int rest2d;              /* -1 not known yet; 1: each rest of the rig a turn about z alone and each
                            * rest scale's x and y not 0 (read_locals' loop without their tests) */
};

/* shape2d.c: a reference to s taken (by a block). */
void anim_w2d_shape_retain(anim_w2d_shape *s);

/* bone2d.c.  Bone j's world (and its frame) from its applied values and its parent's
 * world. */
void anim_w2d_bone_world(const anim_animator *a, anim_world2d *w, int j);
/* The same for the steps of the update order from ops (its pairs,
 * ANIM_W2D_BONE and the bone; count of them at most) up to the first that
 * is not a bone's: one call; how many it took. */
int anim_w2d_bones_world(const anim_animator *a, anim_world2d *w, const int *ops, int count);
/* Bone j's applied values from its world matrix as a constraint left it
 * (shearX 0: its turn is its x axis'), so that posing it again keeps it. */
void anim_w2d_from_world(const anim_animator *a, anim_world2d *w, int j);
/* The point (x, y) in the frame f of origin (ox, oy): 0 when the frame
 * has no inverse. */
int anim_w2d_in_frame(const double *f, double ox, double oy, double x, double y, double *lx, double *ly);
/* The rotation of applied values ap in degrees (made from its cosine and
 * sine when the pose gave it). */
double anim_w2d_angle(double *ap);
/* An angle difference (degrees) brought into (-180, 180]. */
double anim_w2d_wrap(double d);

/* dragonbones2d.c (DragonBonesJS 5.7's Bone and IKConstraint, MIT): bone
 * j's world (and frame) by DragonBones' rules from its parent p's, u the
 * directions of its local x and y axes (cos, sin each) before its scale;
 * and IK constraint i solved as DragonBones does, weight its mix, bend > 0
 * its bendPositive. */
void anim_w2d_db_world(anim_world2d *w, int j, int p, const double u[4]);
void anim_w2d_db_ik(const anim_animator *a, anim_world2d *w, int i, double weight, int bend);

/* constraint2d.c: constraint i of its kind applied with the values of
 * this update (world2d.c reads them from the properties; its bones posed
 * again: those below them are the update order's). */
void anim_w2d_ik_apply(const anim_animator *a, anim_world2d *w, int i, double mix, double softness, int bend,
                       int compress, int stretch);
void anim_w2d_tc_apply(const anim_animator *a, anim_world2d *w, int i, const double mix[6]);

#endif
