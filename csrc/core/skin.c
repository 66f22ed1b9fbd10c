/* skin.c - skinning matrices (skin.h): the world matrices of the current
 * pose composed down the rig, each skin joint's times its inverse bind,
 * a root matrix in front, written in one of two layouts. */
#include <float.h>

#include "animator_impl.h"
#include "skin.h"

/* The affine 3x4 (column-major, skin.h's mat3x4) of a local transform l
 * (position, rotation x y z w, scale: anim_animator_local's ten numbers):
 * T x R x S.  The rotation is taken as it is, divided by its squared norm
 * (a unit quaternion within rounding; a zero one turns nothing). */
static void local_matrix(const double l[10], double m[12]) {
  double x = l[3], y = l[4], z = l[5], w = l[6];
  double nn = x * x + y * y + z * z + w * w, s = nn > 0 ? 2 / nn : 0;
  double xx = x * x * s, yy = y * y * s, zz = z * z * s;
  double xy = x * y * s, xz = x * z * s, yz = y * z * s;
  double wx = w * x * s, wy = w * y * s, wz = w * z * s;
  m[0] = (1 - yy - zz) * l[7]; m[1] = (xy + wz) * l[7]; m[2] = (xz - wy) * l[7];
  m[3] = (xy - wz) * l[8]; m[4] = (1 - xx - zz) * l[8]; m[5] = (yz + wx) * l[8];
  m[6] = (xz + wy) * l[9]; m[7] = (yz - wx) * l[9]; m[8] = (1 - xx - yy) * l[9];
  m[9] = l[0]; m[10] = l[1]; m[11] = l[2];
}

/* c = a x b, both affine 3x4 (their last row 0 0 0 1). */
static void affine_mul(const double a[12], const double b[12], double c[12]) {
  int j, r;
  for (j = 0; j < 4; j++)
    for (r = 0; r < 3; r++)
      c[3 * j + r] = a[r] * b[3 * j] + a[3 + r] * b[3 * j + 1] + a[6 + r] * b[3 * j + 2] + (j == 3 ? a[9 + r] : 0);
}

void anim_animator_skin_prepare(anim_animator *a) {
  const anim_rig *r = a->rig;
  int i;
  for (i = 0; i < r->n; i++) {
    double l[10], m[12];
    anim_animator_local(a, i, l);
    if (r->parent[i] < 0) local_matrix(l, &a->mats[i * 12]);
    else {
      local_matrix(l, m);
      affine_mul(&a->mats[r->parent[i] * 12], m, &a->mats[i * 12]);
    }
  }
}

void anim_animator_skin_joint(const anim_animator *a, int k, const double *root, double m[16]) {
  const anim_rig *r = a->rig;
  const double *w = &a->mats[r->skin[k] * 12], *ib = r->inv_bind[k];
  double s[16];
  int c, row;
  /* s = W x IB: W's last row is 0 0 0 1, so s's is IB's */
  for (c = 0; c < 4; c++) {
    const double *col = ib + 4 * c;
    for (row = 0; row < 3; row++)
      s[4 * c + row] = w[row] * col[0] + w[3 + row] * col[1] + w[6 + row] * col[2] + w[9 + row] * col[3];
    s[4 * c + 3] = col[3];
  }
  if (!root) {
    for (c = 0; c < 16; c++) m[c] = s[c];
    return;
  }
  for (c = 0; c < 4; c++)
    for (row = 0; row < 4; row++)
      m[4 * c + row] = root[row] * s[4 * c] + root[4 + row] * s[4 * c + 1] + root[8 + row] * s[4 * c + 2] +
                       root[12 + row] * s[4 * c + 3];
}

size_t anim_skin_size(const anim_rig *r, int layout) { return (size_t)r->nskin * (size_t)layout; }

/* A double as a float: one beyond a float's range is its largest (a cast
 * of such a double is undefined behaviour), NaN and infinities stay. */
static float to_float(double v) {
  if (v > FLT_MAX && v <= DBL_MAX) return FLT_MAX;
  if (v < -FLT_MAX && v >= -DBL_MAX) return -FLT_MAX;
  return (float)v;
}

size_t anim_animator_skin(anim_animator *a, const anim_skin_out *o) {
  size_t size, at;
  int k, e, nskin = a->rig->nskin, layout = o->layout;
  if (!o->data || (layout != ANIM_SKIN_MAT3X4 && layout != ANIM_SKIN_MAT4)) return 0;
  size = anim_skin_size(a->rig, layout);
  if (o->offset > o->cap || size > o->cap - o->offset) return 0;
  anim_animator_skin_prepare(a);
  at = o->offset;
  for (k = 0; k < nskin; k++) {
    double m[16];
    anim_animator_skin_joint(a, k, o->root, m);
    /* mat3x4: the first three rows of each column */
    for (e = 0; e < 16; e++) {
      if (layout == ANIM_SKIN_MAT3X4 && e % 4 == 3) continue;
      if (o->is_double) ((double *)o->data)[at++] = m[e];
      else ((float *)o->data)[at++] = to_float(m[e]);
    }
  }
  return size;
}

int anim_animator_set_skin_target(anim_animator *a, const anim_skin_out *o) {
  if (o->data) {
    size_t size;
    if (o->layout != ANIM_SKIN_MAT3X4 && o->layout != ANIM_SKIN_MAT4) return -1;
    size = anim_skin_size(a->rig, o->layout);
    if (o->offset > o->cap || size > o->cap - o->offset) return -1;
  }
  a->skin_target = *o;
  /* (its root is not kept: a batch writes none) */
  a->skin_target.root = NULL;
  return 0;
}
