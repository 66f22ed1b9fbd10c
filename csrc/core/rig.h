/* rig.h - joint hierarchies with rest transforms.  Plain C, no Lua.
 * A rig gives each joint its pivot in rig space and its rest rotation
 * relative to its parent (as Bedrock geometry does); the local rest
 * position is pivot - parent pivot (SEMANTICS 1).  A joint may give its
 * local rest position itself instead (a glTF node's translation, in the
 * parent's frame), and a rest scale (1 when not given). */
#ifndef ANIM_RIG_H
#define ANIM_RIG_H

#include "amem.h"

/* What a rig's inverse binds are, for the skinning's shortcuts (skin.c):
 * all identities, all affine (last row 0 0 0 1), or some not. */
enum { ANIM_IB_IDENTITY, ANIM_IB_AFFINE, ANIM_IB_GENERAL };

typedef struct anim_rig {
  int n;
  const char **names;
  int *parent;             /* -1 for a root; parents come before children */
  double (*pivot)[3];      /* rig space */
  double (*rest_pos)[3];   /* pivot - parent pivot */
  double (*rest_rot)[4];   /* relative to the parent */
  double (*rig_rot)[4];    /* rest rotation in rig space (composed down) */
  double (*rest_scl)[3];   /* rest scale (1, 1, 1 unless given) */
  int scaled;              /* some rest scale is not 1 */
  /* its skin (skin.h): the joints skinned, in the skin's order (rig
   * indices; a rig built without one: every joint in rig order), and each
   * one's inverse bind matrix (4x4, column-major; identity when not given) */
  int nskin;
  int *skin;
  double (*inv_bind)[16];
  int inv_bind_kind;       /* ANIM_IB_*: all identities, all affine, or some not */
  void *mem;               /* the arrays above, memsize bytes */
  size_t memsize;
  anim_mem alloc;
  int refs;                /* its owner and each animator on it */
} anim_rig;

/* A rig of n joints, in any order.  parent[i] is an index or -1.  Rotations
 * are quaternions (x, y, z, w), normalised here.  Returns NULL and sets
 * *err on bad input (unknown parent, a cycle) or when out of memory; joint
 * order is then changed so that parents come first (names keep their
 * strings: the caller's array must outlive the call only). */
anim_rig *anim_rig_new(const anim_mem *mem, int n, const char *const *names, const int *parent,
                       const double (*pivot)[3], const double (*rot)[4], const char **err);
/* The same from one description per joint: `local` set, the joint's
 * local rest position is `translation` (and its pivot the parent's pivot
 * plus it); else it is pivot - parent pivot.  scale is the rest scale. */
typedef struct anim_rig_def {
  const char *name;
  int parent;              /* an index, or -1 */
  int local;
  double pivot[3], translation[3], rot[4], scale[3];
} anim_rig_def;
anim_rig *anim_rig_build(const anim_mem *mem, int n, const anim_rig_def *defs, const char **err);
/* The same with a skin: nskin joints given as indices into defs (a glTF
 * skin's joints; in any order, the skin's), each with its inverse bind
 * matrix ibm[k] (16 numbers, column-major; ibm NULL: identities).  skin
 * NULL: every joint is skinned, in the rig's order, and ibm (when not
 * NULL) holds one matrix per def (defs[i]'s is ibm[i]).  *err "unknown
 * skin joint" for an index out of range, or nskin not 1..ANIM_MAX_RIG_JOINTS. */
anim_rig *anim_rig_build_skin(const anim_mem *mem, int n, const anim_rig_def *defs, int nskin, const int *skin,
                              const double (*ibm)[16], const char **err);
/* Drops a reference (the creator holds the first); the last frees it. */
void anim_rig_free(anim_rig *r);
void anim_rig_retain(anim_rig *r);

/* Index of the joint with this name, or -1. */
int anim_rig_find(const anim_rig *r, const char *name);

#endif
