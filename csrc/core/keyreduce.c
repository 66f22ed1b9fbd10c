/* keyreduce.c - the greedy choice of a dense channel's keys (keyreduce.h):
 * reduce_curve.lua's simplify and the two distances it asks, written with
 * their arithmetic in their order (the build has no FMA contraction; the
 * sines and arc cosines are the C library's, which Lua's math calls). */
#include <math.h>
#include <stdlib.h>

#include "keyreduce.h"

#define KR_PI 3.141592653589793238462643383279502884

/* The slerp of two keys (qa at sample a, qb at b: the second in the
 * first's hemisphere), as farthest_quat sets it up. */
typedef struct {
  double ax, ay, az, aw, bx, by, bz, bw, th, sth, t0, span;
  int b;
} kr_slerp;

static void slerp_of(const anim_keychan *ch, int a, int b, const double *qa, const double *qb, kr_slerp *s) {
  double d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
  s->ax = qa[0], s->ay = qa[1], s->az = qa[2], s->aw = qa[3], s->bx = qb[0], s->by = qb[1], s->bz = qb[2], s->bw = qb[3];
  if (d < 0) s->bx = -s->bx, s->by = -s->by, s->bz = -s->bz, s->bw = -s->bw, d = -d;
  s->th = d < 1 ? acos(d) : 0;
  s->sth = sin(s->th);
  s->t0 = ch->times[a], s->span = ch->times[b] - ch->times[a], s->b = b;
}

/* The cosine of half the angle between sample i and the slerp at its time. */
static double slerp_dot(const anim_keychan *ch, const kr_slerp *s, int i) {
  double u = s->span > 0 ? (ch->times[i] - s->t0) / s->span : (i == s->b ? 1 : 0), wa, wb, x, y, z, w, n;
  const double *q = ch->vals + 4 * i;
  if (s->th < 1e-4) wa = 1 - u, wb = u;
  else wa = sin((1 - u) * s->th) / s->sth, wb = sin(u * s->th) / s->sth;
  x = wa * s->ax + wb * s->bx, y = wa * s->ay + wb * s->by, z = wa * s->az + wb * s->bz, w = wa * s->aw + wb * s->bw;
  n = sqrt(x * x + y * y + z * z + w * w);
  return fabs(x * q[0] + y * q[1] + z * q[2] + w * q[3]) / n;
}

/* The first distance above stop from the samples a+1 .. b-1 to the slerp
 * of samples a and b (radians), else the largest; -1 when none compares
 * (NaN): farthest_quat with stop. */
static double farthest_quat(const anim_keychan *ch, int a, int b, double stop) {
  kr_slerp s;
  double least = 2, stopd = stop < KR_PI ? cos(stop / 2) : -1;
  int i, found = 0;
  slerp_of(ch, a, b, ch->vals + 4 * a, ch->vals + 4 * b, &s);
  for (i = a + 1; i <= b - 1; i++) {
    double dot = slerp_dot(ch, &s, i);
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

/* One segment's distances for keys placed at a and b (values qa, qb):
 * farthest_quat with qa, qb and errs (no stop). */
static double segment_quat(const anim_keychan *ch, int a, int b, const double *qa, const double *qb, double *errs) {
  kr_slerp s;
  double least = 2;
  int i, found = 0;
  slerp_of(ch, a, b, qa, qb, &s);
  for (i = a; i <= b; i++) {
    double dot = slerp_dot(ch, &s, i);
    errs[i] = dot < 1 ? sqrt(8 * (1 - dot)) : 0;
    if (dot < least) least = dot, found = 1;
  }
  if (!found) return -1;
  return least < 1 ? 2 * acos(least) : 0;
}

/* The same, linear: farthest_lin with va, vb and errs. */
static double segment_lin(const anim_keychan *ch, int a, int b, const double *va, const double *vb, double *errs) {
  int m = ch->m, i, c;
  const double *times = ch->times;
  double t0 = times[a], span = times[b] - times[a], worst = -1;
  for (i = a; i <= b; i++) {
    double u = span > 0 ? (times[i] - t0) / span : (i == b ? 1 : 0), e = 0;
    const double *v = ch->vals + m * i;
    for (c = 0; c < m; c++) {
      double dd = fabs(v[c] - (va[c] + (vb[c] - va[c]) * u));
      if (dd > e) e = dd;
    }
    errs[i] = e;
    if (e > worst) worst = e;
  }
  return worst;
}

void anim_keys_errors(const anim_keychan *ch, const int *knots, int nk, const double *fv, double *errs, double *segw) {
  int j, m = ch->m;
  for (j = 0; j + 1 < nk; j++) {
    const double *va = fv + m * j, *vb = fv + m * (j + 1);
    segw[j] = ch->quat ? segment_quat(ch, knots[j], knots[j + 1], va, vb, errs)
                       : segment_lin(ch, knots[j], knots[j + 1], va, vb, errs);
  }
}

/* The normal equations' diagonal d, off-diagonal o and right-hand sides
 * r (4 * nk: the components' in turn) of lsq, summed segment by segment. */
static void lsq_sums(const anim_keychan *ch, const int *knots, int nk, const double *w, double *d, double *o, double *r) {
  const double *times = ch->times;
  double *r1 = r, *r2 = r + nk, *r3 = r + 2 * nk, *r4 = r + 3 * nk;
  int j, i, m = ch->m;
  for (j = 0; j < nk; j++) d[j] = o[j] = r1[j] = r2[j] = r3[j] = r4[j] = 0;
  for (j = 0; j + 1 < nk; j++) {
    int a = knots[j], b = knots[j + 1], last = j == nk - 2 ? b : b - 1;
    double t0 = times[a], span = times[b] - times[a];
    double dj = d[j], dk = d[j + 1], oj = o[j], x1 = r1[j], x2 = r2[j], x3 = r3[j], x4 = r4[j];
    double y1 = 0, y2 = 0, y3 = 0, y4 = 0;
    for (i = a; i <= last; i++) {
      double u = span > 0 ? (times[i] - t0) / span : (i == b ? 1 : 0);
      double wi = w[i], p = (1 - u) * wi, q = u * wi;
      const double *v = ch->vals + m * i;
      double v1 = v[0], v2 = v[1], v3 = v[2], v4 = m > 3 ? v[3] : 0;
      dj = dj + p * (1 - u), dk = dk + q * u, oj = oj + p * u;
      x1 = x1 + p * v1, x2 = x2 + p * v2, x3 = x3 + p * v3, x4 = x4 + p * v4;
      y1 = y1 + q * v1, y2 = y2 + q * v2, y3 = y3 + q * v3, y4 = y4 + q * v4;
    }
    d[j] = dj, d[j + 1] = dk, o[j] = oj, r1[j] = x1, r2[j] = x2, r3[j] = x3, r4[j] = x4;
    r1[j + 1] = y1, r2[j + 1] = y2, r3[j + 1] = y3, r4[j + 1] = y4;
  }
}

int anim_keys_lsq(const anim_keychan *ch, const int *knots, int nk, const double *w, double *out, double *scratch) {
  double *d = scratch, *o = d + nk, *r = o + nk, *cp = r + 4 * nk, *den = cp + nk, *y = den + nk;
  int j, c, m = ch->m;
  lsq_sums(ch, knots, nk, w, d, o, r);
  /* (Thomas's elimination: the matrix is symmetric positive definite) */
  for (j = 0; j < nk; j++) {
    double dj = d[j] - (j > 0 ? o[j - 1] * cp[j - 1] : 0);
    if (dj != dj || dj <= 0) return 0;
    den[j] = dj, cp[j] = o[j] / dj;
  }
  for (c = 0; c < m; c++) {
    const double *rc = r + c * nk;
    for (j = 0; j < nk; j++) y[j] = (rc[j] - (j > 0 ? o[j - 1] * y[j - 1] : 0)) / den[j];
    out[(nk - 1) * m + c] = y[nk - 1];
    for (j = nk - 2; j >= 0; j--) out[j * m + c] = y[j] - cp[j] * out[(j + 1) * m + c];
  }
  return 1;
}

/* One fit: the values at the knots (finite; made unit when o->cont,
 * rounded to shorts when o->shorts) and their distances (errs, segw);
 * 0 when it fails: reduce_curve.lua's fit_once. */
static int fit_once(const anim_keychan *ch, const anim_keychan *fc, const int *knots, int nk, const double *w,
                    const anim_fitopts *o, double *fv, double *errs, double *segw, double *scratch) {
  int j, c, m = fc->m;
  if (!anim_keys_lsq(fc, knots, nk, w, fv, scratch)) return 0;
  for (j = 0; j < nk; j++) {
    double *v = fv + j * m;
    for (c = 0; c < m; c++)
      if (v[c] != v[c] || v[c] == HUGE_VAL || v[c] == -HUGE_VAL) return 0;
    if (o->cont) {
      double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
      if (n != n || n <= 0) return 0;
      v[0] = v[0] / n, v[1] = v[1] / n, v[2] = v[2] / n, v[3] = v[3] / n;
    }
    if (o->shorts) {
      /* (short_quat: made unit, each component the nearest n / 32767) */
      double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
      for (c = 0; c < 4; c++) v[c] = floor(v[c] / n * 32767 + 0.5) / 32767;
    }
  }
  anim_keys_errors(ch, knots, nk, fv, errs, segw);
  return 1;
}

/* The worst sample of each segment of fit astray (beyond tol, or NaN)
 * into add; its count, or -1 when a segment astray has no sample inside. */
static int astray(const int *knots, int nk, const double *errs, const double *segw, double tol, int *add) {
  int j, i, na = 0;
  for (j = 0; j + 1 < nk; j++) {
    double e = segw[j];
    if (e > tol || e != e) {
      int wi = -1;
      double we = -1;
      for (i = knots[j] + 1; i <= knots[j + 1] - 1; i++)
        if (errs[i] > we) wi = i, we = errs[i];
      if (wi < 0) return -1;
      add[na++] = wi;
    }
  }
  return na;
}

int anim_keys_fit(const anim_keychan *ch, const anim_keychan *fc, int *knots, int nk, const anim_fitopts *o, double *fv,
                  double *scratch, int *add) {
  int n = ch->n, r, l, i, j, na;
  double *w = scratch, *errs = w + n, *segw = errs + n, *lsq = segw + n;
  for (i = 0; i < n; i++) w[i] = 1;
  for (r = 0; r < o->repair; r++) {
    for (l = 1; l <= o->lawson; l++) {
      double worst = 0, sum = 0;
      if (!fit_once(ch, fc, knots, nk, w, o, fv, errs, segw, lsq)) return 0;
      for (j = 0; j + 1 < nk; j++)
        if (segw[j] > worst) worst = segw[j];
      if (worst <= o->tol || l == o->lawson) break;
      /* (Lawson: each weight times its error; a floor keeps the system regular) */
      for (i = 0; i < n; i++) sum = sum + w[i] * errs[i];
      if (sum != sum || sum <= 0) break;
      for (i = 0; i < n; i++) {
        double x = w[i] * errs[i] * n / sum;
        w[i] = x < 1e-6 ? 1e-6 : x;
      }
    }
    na = astray(knots, nk, errs, segw, o->tol, add);
    if (na < 0) return 0;
    if (na == 0) return nk;
    if (nk + na >= o->most) return 0;
    /* (the knots and those added merged, from the back: both ascending) */
    {
      int x = nk - 1, y = na - 1, z = nk + na - 1;
      while (y >= 0) knots[z--] = x >= 0 && knots[x] > add[y] ? knots[x--] : add[y--];
    }
    nk += na;
  }
  return 0;
}

void anim_keys_unit(double *q, int n) {
  int i;
  for (i = 0; i < n; i++, q += 4) {
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q[0] = q[0] / l, q[1] = q[1] / l, q[2] = q[2] / l, q[3] = q[3] / l;
  }
}

void anim_keys_cont(const double *in, double *out, int n) {
  int i, c;
  for (i = 0; i < n; i++) {
    const double *q = in + 4 * i, *p = out + 4 * (i - 1);
    int flip = i > 0 && q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0;
    for (c = 0; c < 4; c++) out[4 * i + c] = flip ? -q[c] : q[c];
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y ? 1 : 0;
}

double anim_keys_before(double t) {
  return t - 1e-9 * (fabs(t) > 1 ? fabs(t) : 1);
}

int anim_keys_times(double *all, int n, double L, double *out) {
  int i, k = 0, m = 0;
  for (i = 0; i < n; i++)
    if (all[i] >= 0 && all[i] <= L) all[m++] = all[i];
  qsort(all, (size_t)m, sizeof *all, cmp_double);
  for (i = 0; i < m; i++) {
    if (i > 0 && all[i] == all[i - 1]) continue;
    if (k > 0) out[k] = (out[k - 1] + all[i]) / 2, out[k + 1] = all[i], k += 2;
    else out[k++] = all[i];
  }
  if (k == 0) out[k++] = 0;
  return k;
}
