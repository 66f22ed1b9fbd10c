/* skin.c - skinning matrices (skin.h): the world matrices of the current
 * pose composed down the rig, each skin joint's times its inverse bind,
 * a root matrix in front, written in one of two layouts. */
#include "animator_impl.h"
#include "skin.h"

/* The affine 3x4 (column-major, skin.h's mat3x4) T x R x S of a
 * translation t, a rotation q (x y z w: a unit quaternion within
 * rounding, taken as it is) and a scale s. */
static inline void trs_matrix(const double t[3], const double q[4], const double s[3], double m[12]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double xx = 2 * x * x, yy = 2 * y * y, zz = 2 * z * z;
  double xy = 2 * x * y, xz = 2 * x * z, yz = 2 * y * z;
  double wx = 2 * w * x, wy = 2 * w * y, wz = 2 * w * z;
  m[0] = (1 - yy - zz) * s[0]; m[1] = (xy + wz) * s[0]; m[2] = (xz - wy) * s[0];
  m[3] = (xy - wz) * s[1]; m[4] = (1 - xx - zz) * s[1]; m[5] = (yz + wx) * s[1];
  m[6] = (xz + wy) * s[2]; m[7] = (yz - wx) * s[2]; m[8] = (1 - xx - yy) * s[2];
  m[9] = t[0]; m[10] = t[1]; m[11] = t[2];
}

/* c = a x b, both affine 3x4 (their last row 0 0 0 1), written out. */
static inline void affine_mul(const double a[12], const double b[12], double c[12]) {
  int r;
  for (r = 0; r < 3; r++) {
    double a0 = a[r], a1 = a[3 + r], a2 = a[6 + r];
    c[r] = a0 * b[0] + a1 * b[1] + a2 * b[2];
    c[3 + r] = a0 * b[3] + a1 * b[4] + a2 * b[5];
    c[6 + r] = a0 * b[6] + a1 * b[7] + a2 * b[8];
    c[9 + r] = a0 * b[9] + a1 * b[10] + a2 * b[11] + a[9 + r];
  }
}

/* The local transforms are anim_animator_local's (pose.c: the rest and
 * the pose's offsets), computed here in the loop: a call a joint cost a
 * third of the skinning.  The pose is finite (the blend makes it so). */
void anim_animator_skin_prepare(anim_animator *a) {
  const anim_rig *r = a->rig;
  const double *p = a->pose;
  int i, k, n = r->n;
  for (i = 0; i < n; i++, p += 10) {
    double t[3], q[4], s[3], m[12];
    const double *rp = r->rest_pos[i];
    t[0] = rp[0] + p[0];
    t[1] = rp[1] + p[1];
    t[2] = rp[2] + p[2];
    anim_quat_mul(q, r->rest_rot[i], p + 3);
    if (!r->scaled) {
      s[0] = p[7]; s[1] = p[8]; s[2] = p[9];
    } else {
      for (k = 0; k < 3; k++) {
        double rs = r->rest_scl[i][k];
        s[k] = rs != 0 ? rs * p[7 + k] : p[7 + k] - 1;
      }
    }
    if (r->parent[i] < 0) trs_matrix(t, q, s, &a->mats[i * 12]);
    else {
      trs_matrix(t, q, s, m);
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

/* A double as a float, rounded as IEEE 754 says (C99's Annex F, which
 * the compilers the core supports follow: one beyond a float's range
 * becomes an infinity, not undefined behaviour; clang's
 * float-cast-overflow checks only conversions to integers). */
static float to_float(double v) { return (float)v; }

/* The usual case, written out: floats, no root, inverse binds whose last
 * row is 0 0 0 1 (every glTF file's; identities: r->inv_bind_kind 0).
 * Each joint's 3x4 is W x IB as affine matrices (36 products, not 64),
 * written without a test per number. */
static void skin_floats(const anim_animator *a, float *out, int layout) {
  const anim_rig *r = a->rig;
  int k, e, nskin = r->nskin;
  for (k = 0; k < nskin; k++, out += layout) {
    const double *w = &a->mats[r->skin[k] * 12];
    double s[12];
    if (r->inv_bind_kind == ANIM_IB_IDENTITY) {
      s[0] = 0;  /* (unused: w is written as it is) */
      if (layout == ANIM_SKIN_MAT3X4) {
        for (e = 0; e < 12; e++) out[e] = to_float(w[e]);
        continue;
      }
      for (e = 0; e < 12; e++) s[e] = w[e];
    } else {
      const double *ib = r->inv_bind[k];
      int c;
      for (c = 0; c < 4; c++)
        for (e = 0; e < 3; e++)
          s[3 * c + e] = w[e] * ib[4 * c] + w[3 + e] * ib[4 * c + 1] + w[6 + e] * ib[4 * c + 2] +
                         (c == 3 ? w[9 + e] : 0);
    }
    if (layout == ANIM_SKIN_MAT3X4) {
      for (e = 0; e < 12; e++) out[e] = to_float(s[e]);
    } else {
      for (e = 0; e < 4; e++) {
        out[4 * e] = to_float(s[3 * e]);
        out[4 * e + 1] = to_float(s[3 * e + 1]);
        out[4 * e + 2] = to_float(s[3 * e + 2]);
        out[4 * e + 3] = e == 3 ? 1.0f : 0.0f;
      }
    }
  }
}

int anim_animator_skin_room(anim_animator *a) { return anim_scratch_room(a, &a->mats, ANIM_MATS_STRIDE); }

size_t anim_animator_skin(anim_animator *a, const anim_skin_out *o) {
  size_t size, at;
  int k, e, nskin = a->rig->nskin, layout = o->layout;
  if (!o->data || (layout != ANIM_SKIN_MAT3X4 && layout != ANIM_SKIN_MAT4)) return 0;
  size = anim_skin_size(a->rig, layout);
  if (o->offset > o->cap || size > o->cap - o->offset || !anim_animator_skin_room(a)) return 0;
  anim_animator_skin_prepare(a);
  if (!o->is_double && !o->root && a->rig->inv_bind_kind != ANIM_IB_GENERAL) {
    skin_floats(a, (float *)o->data + o->offset, layout);
    return size;
  }
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

const anim_skin_out *anim_animator_skin_target(const anim_animator *a) { return &a->skin_target; }
