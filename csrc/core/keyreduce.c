/* keyreduce.c - the greedy choice of a dense channel's keys (keyreduce.h):
 * reduce_curve.lua's simplify and the two distances it asks, written with
 * their arithmetic in their order (the build has no FMA contraction; the
 * sines and arc cosines are the C library's, which Lua's math calls). */
#include <math.h>

#include "keyreduce.h"

#define KR_PI 3.141592653589793238462643383279502884

/* The first distance above stop from the samples a+1 .. b-1 to the slerp
 * of samples a and b (radians), else the largest; -1 when none compares
 * (NaN): farthest_quat with stop. */
static double farthest_quat(const anim_keychan *ch, int a, int b, double stop) {
  const double *qa = ch->vals + 4 * a, *qb = ch->vals + 4 * b, *times = ch->times;
  double ax = qa[0], ay = qa[1], az = qa[2], aw = qa[3], bx = qb[0], by = qb[1], bz = qb[2], bw = qb[3];
  double d = ax * bx + ay * by + az * bz + aw * bw, th, sth, t0 = times[a], span = times[b] - times[a];
  double least = 2, stopd = stop < KR_PI ? cos(stop / 2) : -1;
  int i, found = 0;
  if (d < 0) bx = -bx, by = -by, bz = -bz, bw = -bw, d = -d;
  th = d < 1 ? acos(d) : 0;
  sth = sin(th);
  for (i = a + 1; i <= b - 1; i++) {
    double u = span > 0 ? (times[i] - t0) / span : (i == b ? 1 : 0), wa, wb, x, y, z, w, n, dot;
    const double *q = ch->vals + 4 * i;
    if (th < 1e-4) wa = 1 - u, wb = u;
    else wa = sin((1 - u) * th) / sth, wb = sin(u * th) / sth;
    x = wa * ax + wb * bx, y = wa * ay + wb * by, z = wa * az + wb * bz, w = wa * aw + wb * bw;
    n = sqrt(x * x + y * y + z * z + w * w);
    dot = fabs(x * q[0] + y * q[1] + z * q[2] + w * q[3]) / n;
    if (dot < least) {
      least = dot, found = 1;
      if (dot < stopd) break;
    }
  }
  if (!found) return -1;
  return least < 1 ? 2 * acos(least) : 0;
}

/* The same for linear samples of m components: farthest_lin with stop. */
static double farthest_lin(const anim_keychan *ch, int a, int b, double stop) {
  int m = ch->m, i, c;
  const double *va = ch->vals + m * a, *vb = ch->vals + m * b, *times = ch->times;
  double t0 = times[a], span = times[b] - times[a], worst = -1;
  for (i = a + 1; i <= b - 1; i++) {
    double u = span > 0 ? (times[i] - t0) / span : (i == b ? 1 : 0), e = 0;
    const double *v = ch->vals + m * i;
    for (c = 0; c < m; c++) {
      double dd = fabs(v[c] - (va[c] + (vb[c] - va[c]) * u));
      if (dd > e) e = dd;
    }
    if (e > worst) {
      worst = e;
      if (e > stop) break;
    }
  }
  return worst;
}

/* Do the keys a and b hold every sample between them within tol? */
static int fits(const anim_keychan *ch, int a, int b, double tol) {
  if (b - a < 2) return 1;
  return (ch->quat ? farthest_quat(ch, a, b, tol) : farthest_lin(ch, a, b, tol)) <= tol;
}

int anim_keys_simplify(const anim_keychan *ch, double tol, int *out) {
  /* (1-based as the Lua: the indices written less one) */
  long n = ch->n, a = 1;
  int k = 0;
  out[k++] = 0;
  while (a < n) {
    long good = a + 1, step = 2, hi;
    while (good < n) {
      long b = n < a + step ? n : a + step;
      if (!fits(ch, (int)a - 1, (int)b - 1, tol)) break;
      good = b, step = step * 2;
    }
    hi = n < a + step ? n : a + step;
    while (hi - good > 1) {
      long mid = (good + hi) / 2;
      if (fits(ch, (int)a - 1, (int)mid - 1, tol)) good = mid;
      else hi = mid;
    }
    out[k++] = (int)good - 1;
    a = good;
  }
  return k;
}
