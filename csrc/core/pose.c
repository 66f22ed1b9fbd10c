/* pose.c - reading the pose an update made: the blended offsets, and the
 * local and world transforms from the rig's rests (world transforms are
 * computed once per update, on the first read).  A world transform
 * composes positions exactly as matrices would (the parent's rotation and
 * scale applied to the child's position); its rotation and scale are the
 * products of the parents', which is the matrix product when scales are
 * uniform (a non-uniform scale above a turned joint would shear it). */
#include <string.h>

#include "amath.h"
#include "animator_impl.h"
#include "pool.h"

void anim_animator_get(const anim_animator *a, int j, double out[10], int *animated) {
  memcpy(out, &a->pose[j * 10], sizeof(double) * 10);
  if (animated) *animated = a->animated[j];
}

void anim_animator_local(const anim_animator *a, int j, double out[10]) {
  const anim_rig *r = a->rig;
  const double *p = &a->pose[j * 10], *rp = r->rest_pos[j];
  int k;
  /* (written out: this runs once per joint read, and the compiler keeps
   * a loop of three) */
  out[0] = rp[0] + p[0];
  out[1] = rp[1] + p[1];
  out[2] = rp[2] + p[2];
  /* both are unit quaternions: so is the product, within rounding */
  anim_quat_mul(out + 3, r->rest_rot[j], p + 3);
  /* the scale offset multiplies the rest scale; on an axis whose rest
   * scale is 0 it adds to it (offset 1 is the rest), so that an absolute
   * clip can still grow that axis from 0 (blend.c, to_offsets) */
  if (!r->scaled) {
    out[7] = p[7];
    out[8] = p[8];
    out[9] = p[9];
  } else {
    for (k = 0; k < 3; k++) {
      double rs = r->rest_scl[j][k];
      out[7 + k] = rs != 0 ? rs * p[7 + k] : p[7 + k] - 1;
    }
  }
  anim_finite10(out);
}

void anim_pose_compose(const double pw[10], const double l[10], double w[10]) {
  double sp[3];
  int k;
  for (k = 0; k < 3; k++) sp[k] = pw[7 + k] * l[k];
  anim_quat_rotate(w, pw + 3, sp);
  for (k = 0; k < 3; k++) w[k] += pw[k];
  anim_quat_mul(w + 3, pw + 3, l + 3);
  anim_quat_normalize(w + 3);
  for (k = 0; k < 3; k++) w[7 + k] = pw[7 + k] * l[7 + k];
  anim_finite10(w);
}

int anim_scratch_room(anim_animator *a, double **p, size_t per_joint) {
  if (*p) return 1;
  if (a->serial) anim_pool_lock(a->serial);
  *p = anim_malloc(&a->mem, anim_scratch_bytes(a->rig, per_joint));
  if (a->serial) anim_pool_unlock(a->serial);
  return *p != NULL;
}

int anim_animator_world_room(anim_animator *a) { return anim_scratch_room(a, &a->world, ANIM_WORLD_STRIDE); }

void anim_animator_world(anim_animator *a, int j, double out[10]) {
  if (!anim_animator_world_room(a)) {
    a->oom = 1;
    anim_animator_local(a, j, out);
    return;
  }
  if (!a->world_valid) {
    const anim_rig *r = a->rig;
    int i;
    for (i = 0; i < r->n; i++) {
      double *w = &a->world[i * 10], l[10];
      anim_animator_local(a, i, l);
      if (r->parent[i] < 0) memcpy(w, l, sizeof l);
      else anim_pose_compose(&a->world[r->parent[i] * 10], l, w);
    }
    a->world_valid = 1;
  }
  memcpy(out, &a->world[j * 10], sizeof(double) * 10);
}
