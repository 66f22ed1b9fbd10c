/* measure.c - the model-space measure (measure.h): each node's local
 * transform as sample.lua's played_into makes it, its world matrix as
 * reduce.lua's world_into, the error as its point_error -- each written
 * with their arithmetic in their order (the build has no FMA contraction:
 * the same bits as Lua's doubles). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amath.h"
#include "measure.h"

/* a * b (anim.base.quat's mul) into o; o may be a or b. */
static void qmul(const double a[4], const double b[4], double o[4]) {
  double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

/* q made unit (keys.lua's qnorm) into u. */
static void unit_of(const double *q, double u[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  u[0] = q[0] / n, u[1] = q[1] / n, u[2] = q[2] / n, u[3] = q[3] / n;
}

/* The value at t of keys k into out: reduce_curve.lua's evaluator (the
 * segment the last key at or before t begins, as its scan finds it). */
static void keys_at(const anim_keychan *k, double t, double *out) {
  const double *T = k->times;
  int n = k->n, m = k->m, lo = 0, hi = n - 1, a;
  double span, u;
  if (t <= T[0] || t >= T[n - 1]) {
    const double *v = k->vals + (t <= T[0] ? 0 : (size_t)(n - 1) * (size_t)m);
    if (k->quat) unit_of(v, out);
    else for (a = 0; a < m; a++) out[a] = v[a];
    return;
  }
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (T[mid] <= t) lo = mid;
    else hi = mid;
  }
  span = T[lo + 1] - T[lo];
  u = span > 0 ? (t - T[lo]) / span : 1;
  if (!k->quat) {
    const double *va = k->vals + (size_t)lo * (size_t)m, *vb = va + m;
    for (a = 0; a < m; a++) out[a] = va[a] + (vb[a] - va[a]) * u;
    return;
  }
  {
    double qa[4], qb[4], dd, th, sth, wa, wb;
    unit_of(k->vals + (size_t)lo * 4, qa);
    unit_of(k->vals + (size_t)(lo + 1) * 4, qb);
    dd = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    if (dd < 0) {
      for (a = 0; a < 4; a++) qb[a] = -qb[a];
      dd = -dd;
    }
    th = dd < 1 ? acos(dd) : 0;
    sth = sin(th);
    if (th < 1e-4) wa = 1 - u, wb = u;
    else wa = sin((1 - u) * th) / sth, wb = sin(u * th) / sth;
    for (a = 0; a < 4; a++) out[a] = wa * qa[a] + wb * qb[a];
  }
}

/* Node i's local translation, rotation and scale at t (the rest's where
 * the clip does not animate them): reduce_clip.lua's local_of; with a mask
 * and keys, export/gltf/init.lua's localA and the localB of its apply. */
static void local_at(const anim_mtree *tree, const anim_mclip *mc, int i, double t, double tr[3], double q[4],
                     double sc[3]) {
  const double *r = tree->rest + 10 * i;
  const anim_binding *b = mc->on[i];
  const anim_keychan *const *kk = mc->keys ? mc->keys + 3 * i : NULL;
  double s[11], v[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  int ch, k, a, keyed = 0;
  for (a = 0; a < 3; a++) tr[a] = r[a], sc[a] = r[7 + a];
  for (a = 0; a < 4; a++) q[a] = r[3 + a];
  if (kk) {
    if (kk[0]) keys_at(kk[0], t, tr), keyed |= ANIM_CH_POS;
    if (kk[1]) keys_at(kk[1], t, q), keyed |= ANIM_CH_ROT;
    if (kk[2]) keys_at(kk[2], t, sc), keyed |= ANIM_CH_SCL;
  }
  if (!b || (mc->mask && !(mc->mask[i] & ~keyed))) return;
  /* (core.clip_sample_joint's values: the ones not animated 0, identity, 1;
   * made finite) */
  {
    const anim_clip *c = mc->clip;
    int j = b->cj;
    int *hot = mc->cursors ? mc->cursors + j * ANIM_HOT_CURSORS : NULL;
    int *cold = mc->cursors ? mc->cursors + c->njoints * ANIM_HOT_CURSORS + j * ANIM_COLD_CURSORS : NULL;
    ch = anim_clip_sample_joint(c, j, t, hot, cold, s);
  }
  if (ch & ANIM_CH_POS) for (k = 0; k < 3; k++) v[k] = s[k];
  if (ch & ANIM_CH_ROT) for (k = 0; k < 4; k++) v[3 + k] = s[3 + k];
  if (ch & ANIM_CH_SCL) for (k = 0; k < 3; k++) v[7 + k] = s[7 + k];
  anim_finite10(v);
  ch = (mc->mask ? mc->mask[i] : ch) & ~keyed;
  if (ch & ANIM_CH_POS) {
    double kk = b->pscale;
    if (mc->absolute) for (a = 0; a < 3; a++) tr[a] = v[a] * kk;
    else for (a = 0; a < 3; a++) tr[a] = r[a] + kk * v[a];
  }
  if (ch & ANIM_CH_ROT) {
    double x[4];
    for (a = 0; a < 4; a++) x[a] = v[3 + a];
    if (b->convert) {
      qmul(b->pre, x, x);
      qmul(x, b->post, x);
    }
    if (!mc->absolute) qmul(r + 3, x, x);
    for (a = 0; a < 4; a++) q[a] = x[a];
  }
  if (ch & ANIM_CH_SCL) {
    if (mc->absolute) for (a = 0; a < 3; a++) sc[a] = v[7 + a];
    else for (a = 0; a < 3; a++) sc[a] = r[7 + a] != 0 ? r[7 + a] * v[7 + a] : v[7 + a] - 1;
  }
}

/* The world matrix m (T * R * S, column-major: three axes and the origin)
 * from the local transform and the parent's world pm (NULL at a root):
 * reduce.lua's world_into. */
static void world_into(double m[12], const double *pm, const double tr[3], const double q[4], const double s[3]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double n = sqrt(x * x + y * y + z * z + w * w);
  double a1, a2, a3, b1, b2, b3, c1, c2, c3, o1 = tr[0], o2 = tr[1], o3 = tr[2];
  if (n > 0) x = x / n, y = y / n, z = z / n, w = w / n;
  a1 = (1 - 2 * (y * y + z * z)) * s[0], a2 = 2 * (x * y + z * w) * s[0], a3 = 2 * (x * z - y * w) * s[0];
  b1 = 2 * (x * y - z * w) * s[1], b2 = (1 - 2 * (x * x + z * z)) * s[1], b3 = 2 * (y * z + x * w) * s[1];
  c1 = 2 * (x * z + y * w) * s[2], c2 = 2 * (y * z - x * w) * s[2], c3 = (1 - 2 * (x * x + y * y)) * s[2];
  if (!pm) {
    m[0] = a1, m[1] = a2, m[2] = a3, m[3] = b1, m[4] = b2, m[5] = b3;
    m[6] = c1, m[7] = c2, m[8] = c3, m[9] = o1, m[10] = o2, m[11] = o3;
    return;
  }
  {
    double p1 = pm[0], p2 = pm[1], p3 = pm[2], p4 = pm[3], p5 = pm[4], p6 = pm[5], p7 = pm[6], p8 = pm[7], p9 = pm[8];
    double p10 = pm[9], p11 = pm[10], p12 = pm[11];
    m[0] = p1 * a1 + p4 * a2 + p7 * a3, m[1] = p2 * a1 + p5 * a2 + p8 * a3, m[2] = p3 * a1 + p6 * a2 + p9 * a3;
    m[3] = p1 * b1 + p4 * b2 + p7 * b3, m[4] = p2 * b1 + p5 * b2 + p8 * b3, m[5] = p3 * b1 + p6 * b2 + p9 * b3;
    m[6] = p1 * c1 + p4 * c2 + p7 * c3, m[7] = p2 * c1 + p5 * c2 + p8 * c3, m[8] = p3 * c1 + p6 * c2 + p9 * c3;
    m[9] = p1 * o1 + p4 * o2 + p7 * o3 + p10;
    m[10] = p2 * o1 + p5 * o2 + p8 * o3 + p11;
    m[11] = p3 * o1 + p6 * o2 + p9 * o3 + p12;
  }
}

/* The largest distance between the points +-d on each axis of a node's
 * frame in world matrices a and b: reduce.lua's point_error. */
static double point_error(const double *a, const double *b, double d) {
  double ox = a[9] - b[9], oy = a[10] - b[10], oz = a[11] - b[11];
  double oo = ox * ox + oy * oy + oz * oz, worst = 0;
  int ax;
  for (ax = 0; ax <= 6; ax += 3) {
    double cx = d * (a[ax] - b[ax]), cy = d * (a[ax + 1] - b[ax + 1]), cz = d * (a[ax + 2] - b[ax + 2]);
    /* |o + c| or |o - c|, the larger: |o|^2 + |c|^2 + 2 |o . c| */
    double e = oo + cx * cx + cy * cy + cz * cz + 2 * fabs(ox * cx + oy * cy + oz * cz);
    if (e > worst) worst = e;
  }
  return sqrt(worst);
}

void anim_measure_frames(const anim_mtree *tree, const anim_mclip *mc, const anim_mframes *f, const int *list, int nl,
                         double *w) {
  int k, l, x;
  for (k = 0; k < f->nt; k++) {
    double t = f->times[k];
    for (l = 0; l < nl; l++) {
      int i = list[l], p = tree->parent[i];
      double tr[3], q[4], sc[3], *m = w + 12 * i;
      local_at(tree, mc, i, t, tr, q, sc);
      world_into(m, p >= 0 ? w + 12 * p : NULL, tr, q, sc);
      if (f->slot[i] >= 0) {
        double *o = f->fa + ((size_t)f->slot[i] * (size_t)f->nt + (size_t)k) * 12;
        for (x = 0; x < 12; x++) o[x] = m[x];
      }
    }
  }
}

void anim_measure_error(const anim_mtree *tree, const anim_mclip *mc, const anim_mframes *f, const int *list, int nl,
                        const unsigned char *dirty, double distance, double *w, double *per, double *errs) {
  int k, l;
  size_t nt = (size_t)f->nt;
  for (l = 0; l < nl; l++) per[l] = 0;
  for (k = 0; k < f->nt; k++) {
    double t = f->times[k];
    for (l = 0; l < nl; l++) {
      int i = list[l], p = tree->parent[i];
      double tr[3], q[4], sc[3], e, *m = w + 12 * i;
      const double *pw = NULL;
      if (p >= 0) pw = dirty[p] ? w + 12 * p : f->fa + ((size_t)f->slot[p] * nt + (size_t)k) * 12;
      local_at(tree, mc, i, t, tr, q, sc);
      world_into(m, pw, tr, q, sc);
      e = point_error(f->fa + ((size_t)f->slot[i] * nt + (size_t)k) * 12, m, distance);
      if (e > per[l]) per[l] = e;
      if (errs) errs[(size_t)k * (size_t)nl + (size_t)l] = e;
    }
  }
}

/* The difference of two values of channel ch: sample.lua's difference
 * (x ^ 2 is Lua 5.4's x * x). */
static double difference(int ch, const double *a, const double *b) {
  double m = 0;
  int i;
  if (ch == ANIM_CH_ROT) {
    double qa[4], qb[4], d, sg, dn = 0, sn = 0;
    unit_of(a, qa);
    unit_of(b, qb);
    d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    sg = d < 0 ? -1 : 1;
    for (i = 0; i < 4; i++) {
      double x = qa[i] - sg * qb[i], y = qa[i] + sg * qb[i];
      dn = dn + x * x, sn = sn + y * y;
    }
    return 2 * atan2(sqrt(dn), sqrt(sn));
  }
  for (i = 0; i < 3; i++) {
    double x = fabs(a[i] - b[i]);
    if (m < x) m = x;
  }
  return m;
}

void anim_measure_compare(const anim_mtree *tree, const anim_mclip *a, const anim_mclip *b, int i, int chs,
                          const double *times, int nt, double worst[3]) {
  int k, c;
  for (c = 0; c < 3; c++) worst[c] = 0;
  for (k = 0; k < nt; k++) {
    double tr[2][3], q[2][4], sc[2][3], d;
    local_at(tree, a, i, times[k], tr[0], q[0], sc[0]);
    local_at(tree, b, i, times[k], tr[1], q[1], sc[1]);
    if ((chs & ANIM_CH_POS) && (d = difference(ANIM_CH_POS, tr[0], tr[1])) > worst[0]) worst[0] = d;
    if ((chs & ANIM_CH_ROT) && (d = difference(ANIM_CH_ROT, q[0], q[1])) > worst[1]) worst[1] = d;
    if ((chs & ANIM_CH_SCL) && (d = difference(ANIM_CH_SCL, sc[0], sc[1])) > worst[2]) worst[2] = d;
  }
}

/* keys.lua's 32-bit floats: f32 (core.float32), the float after (up) or
 * before x by its bits (next32, prev32), the largest float at most t. */
static double f32(double x) { return isfinite(x) && fabs(x) <= FLT_MAX ? (double)(float)x : x; }
static double step32(double x, int up) {
  float f;
  uint32_t w = 1;
  if (x == 0) {
    memcpy(&f, &w, sizeof f);
    return up ? (double)f : -(double)f;
  }
  f = (float)x;
  memcpy(&w, &f, sizeof w);
  w = (x > 0) == (up != 0) ? w + 1 : w - 1;
  memcpy(&f, &w, sizeof f);
  return (double)f;
}
static double floor32(double t) {
  double f = f32(t);
  return f > t ? step32(f, 0) : f;
}

static int cmp_time(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Node i's channel ch at t into v (3 numbers, 4 for a rotation). */
static void channel_at(const anim_mtree *tree, const anim_mclip *mc, int i, int ch, double t, double v[4]) {
  double tr[3], q[4], sc[3];
  int a;
  local_at(tree, mc, i, t, tr, q, sc);
  for (a = 0; a < 4; a++) v[a] = ch == ANIM_CH_ROT ? q[a] : a < 3 ? (ch == ANIM_CH_POS ? tr[a] : sc[a]) : 0;
}

int anim_measure_bake(const anim_mtree *tree, const anim_mclip *mc, int i, int ch, double *ts, int nts, double *ot,
                      double *ov) {
  int ar = ch == ANIM_CH_ROT ? 4 : 3, n = 0, k, a;
  double last = 0;
  qsort(ts, (size_t)nts, sizeof *ts, cmp_time);
  for (k = 0; k < nts; k++) {
    double t = ts[k], ft, before, v[4], vb[4];
    int have = 0;
    if (n > 0 && t == last) continue;
    ft = f32(t);
    if (n > 0 && ft <= ot[n - 1]) ft = step32(ot[n - 1], 1);
    /* a jump at t: the value arriving, one float before */
    before = step32(floor32(t), 0);
    if (n > 0 && before > ot[n - 1]) {
      double d = 0;
      channel_at(tree, mc, i, ch, before, vb);
      channel_at(tree, mc, i, ch, t, v);
      have = 1;
      for (a = 0; a < ar; a++) {
        double x = fabs(v[a] - vb[a]);
        if (d < x) d = x;
      }
      if (d > 1e-9 * (1 + fabs(v[0])) && d > 1e-6) {
        ot[n] = before;
        for (a = 0; a < ar; a++) ov[n * ar + a] = vb[a];
        n++;
        ft = floor32(t);
      }
    }
    if (!have) channel_at(tree, mc, i, ch, t, v);
    /* in the hemisphere of the key before (the slerp takes the short way either way) */
    if (ar == 4 && n > 0) {
      const double *p = ov + (n - 1) * 4;
      if (p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3] * v[3] < 0)
        for (a = 0; a < 4; a++) v[a] = -v[a];
    }
    ot[n] = ft;
    for (a = 0; a < ar; a++) ov[n * ar + a] = v[a];
    n++;
    last = t;
  }
  return n;
}
