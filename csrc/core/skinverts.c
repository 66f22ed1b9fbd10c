/* skinverts.c - linear blend skinning of vertices on the CPU
 * (skinverts.h).  Each vertex's matrix is the weighted sum of its joints'
 * (glTF 2.0, "Skins": the joint matrices are world(joint) x
 * inverseBind(joint), computed by the caller); its position is that
 * matrix times [p, 1], its normal the matrix's 3x3 part times n, made
 * unit.  A weight of 0 adds nothing (its joint is still checked). */
#include <float.h>
#include <math.h>

#include "skinverts.h"

static double get(anim_skv_in a, size_t i) {
  return a.is_double ? ((const double *)a.data)[i] : (double)((const float *)a.data)[i];
}

static void put(anim_skv_out a, size_t i, double v) {
  if (a.is_double) ((double *)a.data)[i] = v;
  /* (beyond the float range: the infinity of its sign, a conversion out
   * of range being undefined in C) */
  else ((float *)a.data)[i] = v > FLT_MAX ? (float)HUGE_VAL : v < -FLT_MAX ? (float)-HUGE_VAL : (float)v;
}

int anim_skin_vertices_check(const anim_skv_mesh *m, size_t *at) {
  size_t k;
  for (k = 0; k < 4 * m->n; k++) {
    double j = get(m->joints, k);
    /* (NaN fails the comparisons: refused too) */
    if (!(j >= 0 && j < (double)m->nmats && j == floor(j))) {
      *at = k;
      return 1;
    }
  }
  return 0;
}

/* The 12 numbers of matrix j as a 3x4 (column-major, translation last). */
static void mat34(const anim_skv_mesh *m, size_t j, double out[12]) {
  size_t b = j * (size_t)m->width, c, r;
  for (c = 0; c < 4; c++)
    for (r = 0; r < 3; r++)
      out[c * 3 + r] = get(m->mats, b + (m->width == 16 ? c * 4 + r : c * 3 + r));
}

void anim_skin_vertices(const anim_skv_mesh *m, anim_skv_out pos_out, anim_skv_out nrm_out) {
  size_t v;
  for (v = 0; v < m->n; v++) {
    double s[12] = {0}, mj[12], p[3], x, y, z;
    int i, k;
    for (i = 0; i < 4; i++) {
      double w = get(m->weights, 4 * v + (size_t)i);
      if (w == 0) continue;
      mat34(m, (size_t)get(m->joints, 4 * v + (size_t)i), mj);
      for (k = 0; k < 12; k++) s[k] += w * mj[k];
    }
    p[0] = get(m->pos, 3 * v);
    p[1] = get(m->pos, 3 * v + 1);
    p[2] = get(m->pos, 3 * v + 2);
    put(pos_out, 3 * v, s[0] * p[0] + s[3] * p[1] + s[6] * p[2] + s[9]);
    put(pos_out, 3 * v + 1, s[1] * p[0] + s[4] * p[1] + s[7] * p[2] + s[10]);
    put(pos_out, 3 * v + 2, s[2] * p[0] + s[5] * p[1] + s[8] * p[2] + s[11]);
    if (nrm_out.data && m->nrm.data) {
      double len;
      p[0] = get(m->nrm, 3 * v);
      p[1] = get(m->nrm, 3 * v + 1);
      p[2] = get(m->nrm, 3 * v + 2);
      x = s[0] * p[0] + s[3] * p[1] + s[6] * p[2];
      y = s[1] * p[0] + s[4] * p[1] + s[7] * p[2];
      z = s[2] * p[0] + s[5] * p[1] + s[8] * p[2];
      len = sqrt(x * x + y * y + z * z);
      if (len > 0) { x /= len; y /= len; z /= len; }
      put(nrm_out, 3 * v, x);
      put(nrm_out, 3 * v + 1, y);
      put(nrm_out, 3 * v + 2, z);
    }
  }
}
