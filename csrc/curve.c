/* curve.c - evaluation of scalar and quaternion curves (SEMANTICS 2) and
 * of the curve modifiers (SEMANTICS 3). */
#include "curve.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "amath.h"

#define KEY_T(keys, stride, i) (*(const double *)((const char *)(keys) + (size_t)(i) * (stride)))

static int search_key(const void *keys, int n, int stride, double t) {
  int lo = 0, hi = n - 1, ans = -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (KEY_T(keys, stride, mid) <= t) { ans = mid; lo = mid + 1; }
    else hi = mid - 1;
  }
  return ans;
}

/* Is k the answer for t: the last key with time <= t? */
static int key_holds(const void *keys, int n, int stride, int k, double t) {
  if (k < -1 || k >= n) return 0;
  if (k >= 0 && !(KEY_T(keys, stride, k) <= t)) return 0;
  return k + 1 == n || t < KEY_T(keys, stride, k + 1);
}

/* The cursor's key, its next or its previous: steady play in either
 * direction; anything else is a binary search. */
#define FIND_KEY(keys, n, stride, t, cursor)                                     \
  do {                                                                           \
    int k_ = *(cursor);                                                          \
    /* inside the cursor's segment: the steady case, two comparisons */          \
    if (k_ >= 0 && k_ < (n) - 1 && KEY_T(keys, stride, k_) <= (t) &&             \
        (t) < KEY_T(keys, stride, k_ + 1))                                       \
      return k_;                                                                 \
    if (key_holds(keys, n, stride, k_, t)) return k_;                            \
    if (key_holds(keys, n, stride, k_ + 1, t)) return *(cursor) = k_ + 1;        \
    if (key_holds(keys, n, stride, k_ - 1, t)) return *(cursor) = k_ - 1;        \
    return *(cursor) = search_key(keys, n, stride, t);                           \
  } while (0)

int anim_find_key(const void *keys, int n, int stride, double t, int *cursor) {
  if (!cursor) return search_key(keys, n, stride, t);
  FIND_KEY(keys, n, stride, t, cursor);
}

/* The same for scalar keys, with the stride known to the compiler. */
static int find_scalar_key(const anim_key *keys, int n, double t, int *cursor) {
  if (!cursor) return search_key(keys, n, (int)sizeof(anim_key), t);
  FIND_KEY(keys, n, (int)sizeof(anim_key), t, cursor);
}

/* ---- Catmull-Rom (uniform, Blockbench's neighbour rule) ---------------- */

/* The first key at the second distinct time, and the last key at the
 * second-to-last distinct time: the neighbours a looping channel wraps to. */
static int second_time(const anim_key *k, int n) {
  int j = 1;
  while (j < n && k[j].t == k[0].t) j++;
  return j < n ? j : n - 1;
}
static int second_last_time(const anim_key *k, int n) {
  int j = n - 2;
  while (j > 0 && k[j].t == k[n - 1].t) j--;
  return j > 0 ? j : 0;
}
static int distinct_times(const anim_key *k, int n, int atleast) {
  int i, c = n > 0;
  for (i = 1; i < n && c < atleast; i++) c += k[i].t != k[i - 1].t;
  return c;
}

static double catmullrom(const anim_curve *c, int i, double s) {
  const anim_key *k = c->keys;
  int n = c->n;
  int wrap = c->wrap && distinct_times(k, n, 3) >= 3;
  double p1 = k[i].v, p2 = k[i + 1].v, p0, p3, m1, m2, s2 = s * s, s3 = s2 * s;
  if (i > 0) p0 = k[i - 1].t == k[i].t ? p1 : k[i - 1].v;
  else p0 = wrap ? k[second_last_time(k, n)].v : p1;
  if (i + 2 < n) p3 = k[i + 2].t == k[i + 1].t ? p2 : k[i + 2].v;
  else p3 = wrap ? k[second_time(k, n)].v : p2;
  m1 = (p2 - p0) / 2;
  m2 = (p3 - p1) / 2;
  return (2 * p1 - 2 * p2 + m1 + m2) * s3 + (-3 * p1 + 3 * p2 - 2 * m1 - m2) * s2 + m1 * s + p1;
}

/* ---- Bezier (Blender's F-curve segment) -------------------------------- */

static double cubic(double a, double b, double c, double d, double u) {
  double v = 1 - u;
  return a * v * v * v + 3 * b * u * v * v + 3 * c * u * u * v + d * u * u * u;
}

/* Smallest u in [0,1] with x(u) = t.  The handle clamping makes x(u)
 * monotone, so a safeguarded Newton iteration converges to the root. */
static double solve_u(double x0, double x1, double x2, double x3, double t) {
  double lo = 0, hi = 1, u = (t - x0) / (x3 - x0);
  int it;
  if (u <= 0) return 0;
  if (u >= 1) return 1;
  for (it = 0; it < 100; it++) {
    double x = cubic(x0, x1, x2, x3, u) - t;
    double v = 1 - u;
    double dx = 3 * ((x1 - x0) * v * v + 2 * (x2 - x1) * u * v + (x3 - x2) * u * u);
    double nu;
    if (x == 0) return u;
    if (x < 0) lo = u; else hi = u;
    nu = dx > 0 ? u - x / dx : -1;
    if (!(nu > lo && nu < hi)) nu = (lo + hi) / 2;
    if (fabs(nu - u) <= 1e-16 || hi - lo <= 1e-16) return nu;
    u = nu;
  }
  return u;
}

static double bezier(const anim_key *a, const anim_key *b, double t) {
  double len = b->t - a->t;
  double odt = isnan(a->out_dt) ? len / 3 : a->out_dt, odv = isnan(a->out_dt) ? 0 : a->out_dv;
  double idt = isnan(b->in_dt) ? -len / 3 : b->in_dt, idv = isnan(b->in_dt) ? 0 : b->in_dv;
  double l1, l2;
  if (odt < 0) odt = 0;
  if (idt > 0) idt = 0;
  /* A handle longer than the segment is scaled down to it, keeping its
   * slope (SEMANTICS 2.7). */
  l1 = odt; l2 = -idt;
  if (l1 > len) { odv *= len / l1; odt = len; }
  if (l2 > len) { idv *= len / l2; idt = -len; }
  {
    double u = solve_u(a->t, a->t + odt, b->t + idt, b->t, t);
    return cubic(a->v, a->v + odv, b->v + idv, b->v, u);
  }
}

/* ---- scalar curves ------------------------------------------------------ */

/* The value at t of a curve whose last key at or before t is key i. */
static double eval_at(const anim_curve *c, int i, double t) {
  const anim_key *k = c->keys, *a, *b;
  double s;
  if (i < 0) return k[0].v;
  if (i >= c->n - 1) return k[c->n - 1].v;
  a = &k[i];
  b = &k[i + 1];
  s = (t - a->t) / (b->t - a->t);
  switch (a->interp) {
    case ANIM_STEP: return a->v;
    case ANIM_LINEAR: return a->v + (b->v - a->v) * s;
    case ANIM_CATMULLROM: return catmullrom(c, i, s);
    case ANIM_BEZIER: return bezier(a, b, t);
    default: return a->v + (b->v - a->v) * anim_ease(a->interp, a->ease, s);
  }
}

static double eval_keys(const anim_curve *c, double t, int *cursor) {
  if (c->n <= 0) return 0;
  return eval_at(c, find_scalar_key(c->keys, c->n, t, cursor), t);
}

int anim_curve_all_linear(const anim_curve *c) {
  int i;
  if (c->nmods != 0) return 0;
  for (i = 0; i < c->n; i++)
    if (c->keys[i].interp != ANIM_LINEAR) return 0;
  return 1;
}

int anim_qcurve_all_slerp(const anim_qcurve *c) {
  int i;
  for (i = 0; i < c->n; i++) {
    int ip = c->keys[i].interp;
    if (ip != ANIM_LINEAR && ip != ANIM_CATMULLROM && ip != ANIM_BEZIER) return 0;
  }
  return 1;
}

/* The three axes at t on the linear segment from key i (same key times):
 * one fraction for the three. */
static void lerp3_at(const anim_curve c[3], int i, double t, double out[3]) {
  const anim_key *a = &c[0].keys[i];
  double s = (t - a->t) / (a[1].t - a->t);
  out[0] = a->v + (a[1].v - a->v) * s;
  a = &c[1].keys[i]; out[1] = a->v + (a[1].v - a->v) * s;
  a = &c[2].keys[i]; out[2] = a->v + (a[1].v - a->v) * s;
}

void anim_curves_lerp_shared(const anim_curve c[3], double t, int *cursor, double out[3]) {
  int n = c[0].n, i = find_scalar_key(c[0].keys, n, t, cursor);
  if (i < 0 || i >= n - 1) {
    int e = i < 0 ? 0 : n - 1;
    out[0] = c[0].keys[e].v; out[1] = c[1].keys[e].v; out[2] = c[2].keys[e].v;
    return;
  }
  lerp3_at(c, i, t, out);
}

int anim_curves_share_times(const anim_curve c[3]) {
  int a, i;
  for (a = 0; a < 3; a++)
    if (c[a].nmods != 0 || c[a].n != c[0].n || c[a].n == 0) return 0;
  for (i = 0; i < c[0].n; i++)
    if (c[1].keys[i].t != c[0].keys[i].t || c[2].keys[i].t != c[0].keys[i].t) return 0;
  return 1;
}

void anim_curves_eval_shared(const anim_curve c[3], double t, int *cursor, double out[3]) {
  int i = find_scalar_key(c[0].keys, c[0].n, t, cursor);
  if (i >= 0 && i < c[0].n - 1 && c[0].keys[i].interp == ANIM_LINEAR &&
      c[1].keys[i].interp == ANIM_LINEAR && c[2].keys[i].interp == ANIM_LINEAR) {
    lerp3_at(c, i, t, out);  /* the common case */
    return;
  }
  out[0] = eval_at(&c[0], i, t);
  out[1] = eval_at(&c[1], i, t);
  out[2] = eval_at(&c[2], i, t);
}

/* Time modifiers map t into the keyed range; cycles "offset" adds a value
 * per cycle, returned through *dv. */
static double cycles_time(const anim_curve *c, const anim_mod *m, double t, double *dv) {
  double t0 = c->keys[0].t, t1 = c->keys[c->n - 1].t, p = t1 - t0, k, r;
  int mode;
  if (p <= 0) return t;
  if (t < t0) mode = m->before;
  else if (t > t1) mode = m->after;
  else return t;
  if (mode == ANIM_CYC_NONE) return t;
  k = floor((t - t0) / p);
  r = (t - t0) - k * p;
  if (r < 0) r = 0;
  if (r > p) r = p;
  if (mode == ANIM_CYC_OFFSET) *dv += k * (c->keys[c->n - 1].v - c->keys[0].v);
  if (mode == ANIM_CYC_MIRROR && fmod(fabs(k), 2) == 1) return t1 - r;
  return t0 + r;
}

static double envelope(const anim_mod *m, double t, double v) {
  const double *pt = m->points;
  int n = m->npoints, i;
  double lo, hi;
  if (n <= 0 || m->p[2] == m->p[1]) return v;
  if (t < pt[0]) { lo = pt[1]; hi = pt[2]; }
  else if (t >= pt[3 * (n - 1)]) { lo = pt[3 * (n - 1) + 1]; hi = pt[3 * (n - 1) + 2]; }
  else {
    /* the last point at or before t: a binary search (no O(points) per sample) */
    int a = 0, b = n - 1;
    while (a < b) {
      int mid = a + (b - a + 1) / 2;
      if (pt[3 * mid] <= t) a = mid; else b = mid - 1;
    }
    i = a;
    {
      double ta = pt[3 * i], tb = pt[3 * i + 3];
      double f = tb > ta ? (t - ta) / (tb - ta) : 1;
      lo = pt[3 * i + 1] + (pt[3 * i + 4] - pt[3 * i + 1]) * f;
      hi = pt[3 * i + 2] + (pt[3 * i + 5] - pt[3 * i + 2]) * f;
    }
  }
  return lo + (v - (m->p[0] + m->p[1])) * (hi - lo) / (m->p[2] - m->p[1]);
}

double anim_curve_eval(const anim_curve *c, double t, int *cursor) {
  double dv = 0, v;
  int i;
  if (c->nmods == 0) return eval_keys(c, t, cursor);
  for (i = 0; i < c->nmods; i++) {
    const anim_mod *m = &c->mods[i];
    if (m->type == ANIM_MOD_CYCLES) t = cycles_time(c, m, t, &dv);
    else if (m->type == ANIM_MOD_STEPPED)
      t = m->p[1] + floor((t - m->p[1]) / m->p[0]) * m->p[0];
  }
  v = eval_keys(c, t, cursor) + dv;
  for (i = 0; i < c->nmods; i++) {
    const anim_mod *m = &c->mods[i];
    switch (m->type) {
      case ANIM_MOD_NOISE:
        v += m->p[1] * (anim_noise((t - m->p[3]) / m->p[0], m->p[2]) - 0.5);
        break;
      case ANIM_MOD_LIMITS:
        if (v < m->p[0]) v = m->p[0];
        if (v > m->p[1]) v = m->p[1];
        break;
      case ANIM_MOD_ENVELOPE: v = envelope(m, t, v); break;
      default: break;
    }
  }
  return v;
}

/* ---- quaternion curves -------------------------------------------------- */

void anim_qcurve_prepare(anim_qkey *k, int n) {
  int i, a;
  for (i = 0; i < n; i++) {
    const double *p = k[i].q, *q = i + 1 < n ? k[i + 1].q : k[i].q;
    double d = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    double s = d < 0 ? -1 : 1, cn;
    d *= s;
    for (a = 0; a < 4; a++) k[i].c[a] = s * q[a] - d * p[a];
    cn = sqrt(k[i].c[0] * k[i].c[0] + k[i].c[1] * k[i].c[1] + k[i].c[2] * k[i].c[2] +
              k[i].c[3] * k[i].c[3]);
    if (d > 0.9999999 || !(cn > 0)) {
      /* nearly equal: slerp is the normalised lerp to 1e-14; keep the
       * aligned next key in c */
      k[i].th = 0;
      for (a = 0; a < 4; a++) k[i].c[a] = s * q[a];
    } else {
      k[i].th = atan2(cn, d);
      for (a = 0; a < 4; a++) k[i].c[a] /= cn;
    }
  }
}

static int find_qkey(const anim_qkey *keys, int n, double t, int *cursor) {
  if (!cursor) return search_key(keys, n, (int)sizeof(anim_qkey), t);
  FIND_KEY(keys, n, (int)sizeof(anim_qkey), t, cursor);
}

void anim_qcurve_eval(const anim_qcurve *c, double t, int *cursor, double out[4]) {
  const anim_qkey *k = c->keys, *a, *b;
  int i, j;
  double s;
  if (c->n <= 0) { anim_quat_identity(out); return; }
  i = find_qkey(k, c->n, t, cursor);
  /* before the first key: the first key's value (SEMANTICS 2.2), not the
   * first segment's slerp extrapolated backwards */
  if (i < 0) i = 0;
  if (t < k[0].t || i >= c->n - 1 || k[i].interp == ANIM_STEP) {
    for (j = 0; j < 4; j++) out[j] = k[i].q[j];
    return;
  }
  a = &k[i];
  b = &k[i + 1];
  s = (t - a->t) / (b->t - a->t);
  if (a->interp >= ANIM_SINE) s = anim_ease(a->interp, a->ease, s);
  /* slerp on the arc prepared at build time (shortest arc) */
  if (a->th == 0) {
    for (j = 0; j < 4; j++) out[j] = (1 - s) * a->q[j] + s * a->c[j];
    anim_quat_normalize(out);
  } else {
    /* q and c are orthonormal: the result is a unit quaternion as it is */
    double x = s * a->th, cf, sf;
    if (fabs(x) <= ANIM_SINCOS_RANGE) anim_sincos_small(x, &sf, &cf);
    else { cf = cos(x); sf = sin(x); }
    for (j = 0; j < 4; j++) out[j] = cf * a->q[j] + sf * a->c[j];
  }
}

/* ---- noise -------------------------------------------------------------- */

/* 2-D gradient noise over (x, phase): an integer hash picks one of eight
 * unit gradients at each lattice point, blended with the quintic fade
 * 6u^5 - 15u^4 + 10u^3 (C2).  Only +, -, * and floor on doubles and
 * 32-bit integer arithmetic: the same bits on every IEEE platform.  For
 * unit gradients |noise| <= sqrt(2)/2, so 0.5 + noise/sqrt(2) is in [0,1]. */
static uint32_t hash2(long long ix, long long iy) {
  uint32_t h = (uint32_t)ix * 0x8da6b343u ^ (uint32_t)iy * 0xd8163841u;
  h ^= h >> 15; h *= 0x2c1b3c6du; h ^= h >> 12; h *= 0x297a2d39u; h ^= h >> 15;
  return h;
}

static double grad(long long ix, long long iy, double dx, double dy) {
  static const double g[8][2] = {
    {1, 0}, {0.70710678118654752, 0.70710678118654752}, {0, 1},
    {-0.70710678118654752, 0.70710678118654752}, {-1, 0},
    {-0.70710678118654752, -0.70710678118654752}, {0, -1},
    {0.70710678118654752, -0.70710678118654752}};
  const double *v = g[hash2(ix, iy) & 7];
  return v[0] * dx + v[1] * dy;
}

static double fade(double u) { return u * u * u * (u * (u * 6 - 15) + 10); }

double anim_noise(double x, double y) {
  double fx = floor(x), fy = floor(y), dx = x - fx, dy = y - fy, u, v, a, b, n;
  long long ix, iy;
  if (!(fabs(fx) < 4e15 && fabs(fy) < 4e15)) return 0.5;
  ix = (long long)fx; iy = (long long)fy;
  u = fade(dx); v = fade(dy);
  a = grad(ix, iy, dx, dy) + u * (grad(ix + 1, iy, dx - 1, dy) - grad(ix, iy, dx, dy));
  b = grad(ix, iy + 1, dx, dy - 1) + u * (grad(ix + 1, iy + 1, dx - 1, dy - 1) - grad(ix, iy + 1, dx, dy - 1));
  n = 0.5 + (a + v * (b - a)) * 0.70710678118654752;
  return n < 0 ? 0 : n > 1 ? 1 : n;
}
