/* curve.c - evaluation of scalar and quaternion curves (SEMANTICS 2) and
 * of the curve modifiers (SEMANTICS 3). */
#include "curve.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "amath.h"

static int search_key(const double *t, int n, double x) {
  int lo = 0, hi = n - 1, ans = -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (t[mid] <= x) { ans = mid; lo = mid + 1; }
    else hi = mid - 1;
  }
  return ans;
}

/* Is k the answer for x: the last time <= x? */
static inline int key_holds(const double *t, int n, int k, double x) {
  if (k < -1 || k >= n) return 0;
  if (k >= 0 && !(t[k] <= x)) return 0;
  return k + 1 == n || x < t[k + 1];
}

/* The cursor's key, its next or its previous: steady play in either
 * direction; anything else is a binary search. */
static int find_key_moved(const double *t, int n, double x, int *cursor) {
  int k = *cursor;
  if (key_holds(t, n, k, x)) return k;
  if (key_holds(t, n, k + 1, x)) return *cursor = k + 1;
  if (key_holds(t, n, k - 1, x)) return *cursor = k - 1;
  return *cursor = search_key(t, n, x);
}

/* Index of the last of the n times that is <= x, or -1 before the first.
 * *cursor is the previous answer (any int; -1 to start): steady forward
 * or backward play finds the key in O(1), a jump falls back to a binary
 * search.  cursor may be NULL (a binary search).  Inside the cursor's
 * segment, the steady case, it is two comparisons, inline. */
static inline int find_key(const double *t, int n, double x, int *cursor) {
  int k;
  if (!cursor) return search_key(t, n, x);
  k = *cursor;
  if (k >= 0 && k < n - 1 && t[k] <= x && x < t[k + 1]) return k;
  return find_key_moved(t, n, x, cursor);
}

/* Key i's value on the curve's axis. */
#define VAL(c, i) ((c)->k->v[(size_t)(i) * (size_t)(c)->k->arity + (size_t)(c)->axis])
#define INTERP(k, i) ((k)->ie[i] & ANIM_IE_INTERP)
#define EASE(k, i) (((k)->ie[i] & ANIM_IE_EASE) >> ANIM_IE_EASE_SHIFT)

/* ---- Catmull-Rom (uniform, Blockbench's neighbour rule) ---------------- */

/* The first key at the second distinct time, and the last key at the
 * second-to-last distinct time: the neighbours a looping channel wraps to. */
static int second_time(const double *t, int n) {
  int j = 1;
  while (j < n && t[j] == t[0]) j++;
  return j < n ? j : n - 1;
}
static int second_last_time(const double *t, int n) {
  int j = n - 2;
  while (j > 0 && t[j] == t[n - 1]) j--;
  return j > 0 ? j : 0;
}
static int distinct_times(const double *t, int n, int atleast) {
  int i, c = n > 0;
  for (i = 1; i < n && c < atleast; i++) c += t[i] != t[i - 1];
  return c;
}

static double catmullrom(const anim_curve *c, int i, double s) {
  const double *t = c->k->t;
  int n = c->k->n;
  int wrap = c->wrap && distinct_times(t, n, 3) >= 3;
  double p1 = VAL(c, i), p2 = VAL(c, i + 1), p0, p3, m1, m2, s2 = s * s, s3 = s2 * s;
  if (i > 0) p0 = t[i - 1] == t[i] ? p1 : VAL(c, i - 1);
  else p0 = wrap ? VAL(c, second_last_time(t, n)) : p1;
  if (i + 2 < n) p3 = t[i + 2] == t[i + 1] ? p2 : VAL(c, i + 2);
  else p3 = wrap ? VAL(c, second_time(t, n)) : p2;
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

static int popcount(unsigned x) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_popcount(x);
#else
  int c = 0;
  for (; x; x &= x - 1) c++;
  return c;
#endif
}

const double *anim_keys_handle(const anim_keys *k, int i) {
  unsigned w, bit;
  if (!k->hbits) return NULL;
  w = k->hbits[i >> 5];
  bit = 1u << (i & 31);
  if (!(w & bit)) return NULL;
  return k->h + (size_t)(k->hrank[i >> 5] + (unsigned)popcount(w & (bit - 1))) * ANIM_KEYS_HREC(k);
}

double *anim_keys_mark(anim_keys *k, int i, int rank) {
  k->hbits[i >> 5] |= 1u << (i & 31);
  return k->h + (size_t)rank * ANIM_KEYS_HREC(k);
}

int anim_keys_rank(anim_keys *k) {
  int w, words = (k->n + 31) / 32;
  unsigned total = 0;
  if (!k->hbits) return 0;
  for (w = 0; w < words; w++) {
    k->hrank[w] = total;
    total += (unsigned)popcount(k->hbits[w]);
  }
  return (int)total;
}

/* Key i's handle on the curve's axis: *dt (NaN: absent) and *dv.  The
 * axes share the dt of a record of one time per handle; else each axis
 * reads its own (and solves its own parameter: bezier). */
static ANIM_INLINE void handle(const anim_curve *c, int i, int in, double *dt, double *dv) {
  const double *r = anim_keys_handle(c->k, i);
  int hdt = c->k->hdt;
  if (!r) { *dt = NAN; *dv = 0; return; }
  *dt = r[in * hdt + (hdt > 1 ? c->axis : 0)];
  *dv = r[2 * hdt + in * ANIM_HDIMS(c->k->arity) + c->axis];
}

/* The segment from key i to key i + 1 at time x. */
static double bezier(const anim_curve *c, int i, double x) {
  double ta = c->k->t[i], tb = c->k->t[i + 1], va = VAL(c, i), vb = VAL(c, i + 1);
  double len = tb - ta, odt, odv, idt, idv, l1, l2;
  handle(c, i, 0, &odt, &odv);
  handle(c, i + 1, 1, &idt, &idv);
  if (isnan(odt)) { odt = len / 3; odv = 0; }
  if (isnan(idt)) { idt = -len / 3; idv = 0; }
  if (odt < 0) odt = 0;
  if (idt > 0) idt = 0;
  /* A handle longer than the segment is scaled down to it, keeping its
   * slope (SEMANTICS 2.7). */
  l1 = odt; l2 = -idt;
  if (l1 > len) { odv *= len / l1; odt = len; }
  if (l2 > len) { idv *= len / l2; idt = -len; }
  {
    double u = solve_u(ta, ta + odt, tb + idt, tb, x);
    return cubic(va, va + odv, vb + idv, vb, u);
  }
}

/* ---- cubic Hermite splines (glTF's CUBICSPLINE) ------------------------- */

/* The tangent of key i on component a: in (which = 0) or out (1), value
 * units per second; 0 when the key gives none. */
static double tangent(const anim_keys *k, int i, int which, int a) {
  const double *v;
  if (!k->tan) return 0;
  v = k->tan + ((size_t)i * 2 + (size_t)which) * (size_t)k->arity;
  return ANIM_TAN_GIVEN(v) ? v[a] : 0;
}

/* The Hermite basis at s in [0, 1] (glTF 2.0, Appendix C, "Cubic Spline
 * Interpolation", specification/2.0/Specification.adoc): the value is
 * h[0] v_i + h[1] td b_i + h[2] v_{i+1} + h[3] td a_{i+1}, b_i the out-tangent
 * of key i, a_{i+1} the in-tangent of the next, td the segment's length. */
static void hermite_basis(double s, double h[4]) {
  double s2 = s * s, s3 = s2 * s;
  h[2] = -2 * s3 + 3 * s2;
  h[0] = 1 - h[2];
  h[3] = s3 - s2;
  h[1] = h[3] - s2 + s;
}

/* Component a of the segment from key i (values v, arity numbers a key). */
static double hermite_at(const anim_keys *k, const double *v, int i, int a, double s) {
  double h[4], td = k->t[i + 1] - k->t[i];
  size_t ar = (size_t)k->arity;
  hermite_basis(s, h);
  return h[0] * v[(size_t)i * ar + (size_t)a] + h[1] * td * tangent(k, i, 1, a) +
         h[2] * v[(size_t)(i + 1) * ar + (size_t)a] + h[3] * td * tangent(k, i + 1, 0, a);
}

/* ---- scalar curves ------------------------------------------------------ */

static int curve_n(const anim_curve *c) { return c->k ? c->k->n : 0; }

/* The value at t of a curve whose last key at or before t is key i. */
static double eval_at(const anim_curve *c, int i, double t) {
  const anim_keys *k = c->k;
  double s, va, vb;
  if (i < 0) return VAL(c, 0);
  if (i >= k->n - 1) return VAL(c, k->n - 1);
  va = VAL(c, i);
  vb = VAL(c, i + 1);
  s = (t - k->t[i]) / (k->t[i + 1] - k->t[i]);
  switch (INTERP(k, i)) {
    case ANIM_STEP: return va;
    case ANIM_LINEAR: return va + (vb - va) * s;
    case ANIM_CATMULLROM: return catmullrom(c, i, s);
    case ANIM_BEZIER: return bezier(c, i, t);
    case ANIM_CUBICSPLINE: return hermite_at(k, k->v, i, c->axis, s);
    default: return va + (vb - va) * anim_ease(INTERP(k, i), EASE(k, i), s);
  }
}

static double eval_keys(const anim_curve *c, double t, int *cursor) {
  if (curve_n(c) <= 0) return 0;
  return eval_at(c, find_key(c->k->t, c->k->n, t, cursor), t);
}

int anim_curve_all_linear(const anim_curve *c) {
  int i;
  if (c->nmods != 0) return 0;
  for (i = 0; i < curve_n(c); i++)
    if (INTERP(c->k, i) != ANIM_LINEAR) return 0;
  return 1;
}

int anim_qcurve_all_slerp(const anim_qcurve *c) {
  int i, n = c->k ? c->k->n : 0;
  for (i = 0; i < n; i++) {
    int ip = INTERP(c->k, i);
    if (ip != ANIM_LINEAR && ip != ANIM_CATMULLROM && ip != ANIM_BEZIER) return 0;
  }
  return 1;
}

/* The three axes at t on the linear segment from key i: one fraction for
 * the three (the axes are the consecutive values of each key). */
static void lerp3_at(const anim_keys *k, int i, double t, double out[3]) {
  const double *a = k->v + 3 * (size_t)i, *tt = k->t + i;
  double s = (t - tt[0]) / (tt[1] - tt[0]);
  out[0] = a[0] + (a[3] - a[0]) * s;
  out[1] = a[1] + (a[4] - a[1]) * s;
  out[2] = a[2] + (a[5] - a[2]) * s;
}

void anim_curves_lerp_shared(const anim_curve c[3], double t, int *cursor, double out[3]) {
  const anim_keys *k = c[0].k;
  int n = k->n, i = find_key(k->t, n, t, cursor);
  if (i < 0 || i >= n - 1) {
    const double *v = k->v + 3 * (size_t)(i < 0 ? 0 : n - 1);
    out[0] = v[0]; out[1] = v[1]; out[2] = v[2];
    return;
  }
  lerp3_at(k, i, t, out);
}

void anim_zturn_prepare(const anim_keys *k, double *zt) {
  int i;
  for (i = 0; i + 1 < k->n; i++) {
    const double *a = k->v + 3 * (size_t)i, *t = k->t + i;
    double *z = zt + ANIM_ZTURN_REC * (size_t)i;
    double d = (a[5] - a[2]) * (ANIM_PI / 360), m = (a[2] * 0.5 + a[5] * 0.5) * (ANIM_PI / 360);
    double r = t[1] > t[0] ? d / (t[1] - t[0]) : NAN;
    /* (|m| < 1e5: anim_sincos's reduction is exact there; r finite: not a
     * segment of no length, which is never sampled, nor one so short that
     * its turn over its length overflows) */
    if (fabs(d) <= ANIM_PI / 2 && fabs(m) < 1e5 && r - r == 0) {
      anim_sincos(m, &z[0], &z[1]);
      z[2] = r;
      z[3] = t[0] * 0.5 + t[1] * 0.5;
    } else {
      z[0] = z[1] = z[3] = 0;
      z[2] = NAN;
    }
  }
}

/* The quaternion on segment i at t, f's arc the prepared records
 * (anim_zturn_series, curve.h; the lerped angle's where the record says
 * so). */
static void zturn_at(const anim_fastkeys *f, int i, double t, double eps, double out[4]) {
  const double *z = f->arc + ANIM_ZTURN_REC * (size_t)i;
  if (!(z[2] == z[2])) {
    const double *a = f->v + 3 * (size_t)i, *tt = f->t + i;
    double s = (t - tt[0]) / (tt[1] - tt[0]);
    anim_quat_about_z(out, a[2] + (a[5] - a[2]) * s, eps);
    return;
  }
  anim_zturn_series(z, t, out);
}

void anim_zturn_eval(const anim_fastkeys *f, double t, int *cursor, double eps, double out[4]) {
  int n = f->n, i = find_key(f->t, n, t, cursor);
  if (i < 0 || i >= n - 1) anim_quat_about_z(out, f->v[3 * (size_t)(i < 0 ? 0 : n - 1) + 2], eps);
  else zturn_at(f, i, t, eps, out);
}

void anim_curves_lerp_n(const anim_curve *c, int n, double t, int *cursor, double *out) {
  const anim_keys *k = c[0].k;
  int nk = k->n, i = find_key(k->t, nk, t, cursor), a;
  double s;
  if (i < 0 || i >= nk - 1) {
    for (a = 0; a < n; a++) out[a] = VAL(&c[a], i < 0 ? 0 : nk - 1);
    return;
  }
  s = (t - k->t[i]) / (k->t[i + 1] - k->t[i]);
  for (a = 0; a < n; a++) {
    double va = VAL(&c[a], i), vb = VAL(&c[a], i + 1);
    out[a] = va + (vb - va) * s;
  }
}

int anim_curves_share_times(const anim_curve c[3]) {
  int a;
  for (a = 0; a < 3; a++)
    if (c[a].nmods != 0 || c[a].k != c[0].k || c[a].axis != a) return 0;
  return curve_n(&c[0]) > 0 && c[0].k->arity == 3;
}

void anim_curves_eval_shared(const anim_curve c[3], double t, int *cursor, double out[3]) {
  const anim_keys *k = c[0].k;
  int i = find_key(k->t, k->n, t, cursor);
  if (i >= 0 && i < k->n - 1 && INTERP(k, i) == ANIM_LINEAR) {
    lerp3_at(k, i, t, out);  /* the common case */
    return;
  }
  out[0] = eval_at(&c[0], i, t);
  out[1] = eval_at(&c[1], i, t);
  out[2] = eval_at(&c[2], i, t);
}

/* Time modifiers map t into the keyed range; cycles "offset" adds a value
 * per cycle, returned through *dv. */
static double cycles_time(const anim_curve *c, const anim_mod *m, double t, double *dv) {
  int n = c->k->n;
  double t0 = c->k->t[0], t1 = c->k->t[n - 1], p = t1 - t0, k, r;
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
  if (mode == ANIM_CYC_OFFSET) *dv += k * (VAL(c, n - 1) - VAL(c, 0));
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
  if (c->nmods == 0 || curve_n(c) <= 0) return eval_keys(c, t, cursor);
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

/* Per key i, arc[4 i ..] = A, B, C, th such that the slerp from key i to
 * key i + 1 at fraction u is v_i (A cos u th - B sin u th) + v_{i+1} C sin
 * u th, v being the keys as written.  With p = v_i / |v_i| and q the next
 * key made unit and turned into p's hemisphere (sign sg), the slerp is
 * (p sin((1 - u) th) + q sin(u th)) / sin th, so A = 1 / |v_i|, B = A cot
 * th and C = sg / (|v_{i+1}| sin th).  Nearly equal keys (th = 0) blend
 * linearly then normalise: A and B = sg / |v_{i+1}|.  A alone makes key i
 * unit (steps, ends). */
/* The largest |component| of a quaternion. */
static double largest(const double *v) {
  double m = 0;
  int a;
  for (a = 0; a < 4; a++) if (fabs(v[a]) > m) m = fabs(v[a]);
  return m;
}

static double inv_length(const double *v) {
  double m = largest(v), l2 = 0, x;
  int a;
  if (!(m > 0) || !isfinite(m)) return 0;
  /* scaled by the largest component first: no overflow in the squares
   * (1 / m itself overflows for keys beyond UNIT_LO: those are made unit
   * first, anim_qcurve_needs_unit) */
  for (a = 0; a < 4; a++) { x = v[a] / m; l2 += x * x; }
  return 1 / m / sqrt(l2);
}

/* 1 / m overflows (or loses bits as a subnormal) beyond these. */
#define UNIT_LO 0x1p-1000
#define UNIT_HI 0x1p+1000

int anim_qcurve_needs_unit(const anim_keys *k) {
  int i;
  for (i = 0; i < k->n; i++) {
    double m = largest(k->v + 4 * (size_t)i);
    if (m > 0 && (m < UNIT_LO || m > UNIT_HI)) return 1;
  }
  return 0;
}

int anim_qcurve_prepare(anim_keys *k) {
  int i, a, n = k->n;
  const double *vals = k->v;
  for (i = 0; i < n; i++) {
    double m = largest(k->v + 4 * (size_t)i);
    if (!(m > 0) || !isfinite(m)) return -1;
  }
  if (k->unit) {
    /* each key over its largest component, then over its length: two
     * steps that stay within range whatever the magnitude */
    for (i = 0; i < n; i++) {
      const double *v = k->v + 4 * (size_t)i;
      double m = largest(v), l2 = 0, *u = k->unit + 4 * (size_t)i;
      for (a = 0; a < 4; a++) { u[a] = v[a] / m; l2 += u[a] * u[a]; }
      l2 = sqrt(l2);
      for (a = 0; a < 4; a++) u[a] /= l2;
    }
    vals = k->unit;
  }
  for (i = 0; i < n; i++) {
    const double *vp = vals + 4 * (size_t)i, *vq = i + 1 < n ? vp + 4 : vp;
    double ip = inv_length(vp), iq = inv_length(vq), p[4], q[4], c[4];
    double d = 0, sg, cn = 0, *arc = k->arc + 4 * (size_t)i;
    for (a = 0; a < 4; a++) { p[a] = vp[a] * ip; q[a] = vq[a] * iq; d += p[a] * q[a]; }
    sg = d < 0 ? -1 : 1;
    d *= sg;
    for (a = 0; a < 4; a++) { c[a] = sg * q[a] - d * p[a]; cn += c[a] * c[a]; }
    cn = sqrt(cn);
    arc[0] = ip;
    if (d > 0.9999999 || !(cn > 0)) {
      /* nearly equal (an arc below 4.5e-4): the normalised lerp, within
       * 1e-12 of the slerp (2e-11 where an easing overshoots: the sweep of
       * tests/c/core_test.c) */
      arc[1] = sg * iq;
      arc[2] = 0;
      arc[3] = 0;
    } else {
      double th = atan2(cn, d);
      arc[1] = ip * cos(th) / sin(th);
      arc[2] = sg * iq / sin(th);
      arc[3] = th;
    }
  }
  return 0;
}

/* a v[0..3] + b v[4..7], written out (a slerp waits on it). */
static void blend4(double out[4], const double *v, double a, double b) {
  out[0] = a * v[0] + b * v[4];
  out[1] = a * v[1] + b * v[5];
  out[2] = a * v[2] + b * v[6];
  out[3] = a * v[3] + b * v[7];
}

void anim_qcurve_eval(const anim_qcurve *c, double t, int *cursor, double out[4]) {
  const anim_keys *k = c->k;
  const double *v, *arc;
  int i, n = k ? k->n : 0;
  double s;
  if (n <= 0) { anim_quat_identity(out); return; }
  i = find_key(k->t, n, t, cursor);
  /* before the first key: the first key's value (SEMANTICS 2.2), not the
   * first segment's slerp extrapolated backwards */
  if (i < 0) i = 0;
  v = (k->unit ? k->unit : k->v) + 4 * (size_t)i;
  arc = k->arc + 4 * (size_t)i;
  if (t < k->t[0] || i >= n - 1 || INTERP(k, i) == ANIM_STEP) {
    double a = arc[0];
    out[0] = v[0] * a; out[1] = v[1] * a; out[2] = v[2] * a; out[3] = v[3] * a;
    return;
  }
  s = (t - k->t[i]) / (k->t[i + 1] - k->t[i]);
  if (INTERP(k, i) == ANIM_CUBICSPLINE) {
    /* the Hermite spline of the keys as written, made unit (glTF 2.0,
     * Appendix C: "the interpolated quaternion MUST be normalized"); a
     * spline through zero holds the key */
    int a;
    for (a = 0; a < 4; a++) out[a] = hermite_at(k, k->v, i, a, s);
    if (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3] > 0) {
      anim_quat_normalize(out);
      return;
    }
    for (a = 0; a < 4; a++) out[a] = v[a] * arc[0];
    return;
  }
  if (INTERP(k, i) >= ANIM_SINE && INTERP(k, i) <= ANIM_ELASTIC) s = anim_ease(INTERP(k, i), EASE(k, i), s);
  if (arc[3] == 0) {
    blend4(out, v, (1 - s) * arc[0], s * arc[1]);
    anim_quat_normalize(out);
  } else {
    /* the slerp of unit keys: a unit quaternion as it is */
    double x = s * arc[3], cf, sf;
    if (fabs(x) <= ANIM_SINCOS_RANGE) anim_sincos_small(x, &sf, &cf);
    else { cf = cos(x); sf = sin(x); }
    blend4(out, v, arc[0] * cf - arc[1] * sf, arc[2] * sf);
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
