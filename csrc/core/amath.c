/* amath.c - quaternions, Euler orders and easings (see amath.h). */
#include "amath.h"

#include <float.h>
#include <math.h>

static double bounce_out(double x) {
  const double n1 = 7.5625, d1 = 2.75;
  if (x < 1 / d1) return n1 * x * x;
  if (x < 2 / d1) { x -= 1.5 / d1; return n1 * x * x + 0.75; }
  if (x < 2.5 / d1) { x -= 2.25 / d1; return n1 * x * x + 0.9375; }
  x -= 2.625 / d1;
  return n1 * x * x + 0.984375;
}

/* The "in" form of the power and sine-like easings; out and inOut are
 * derived from it by symmetry (easings.net's formulas are exactly that). */
static double ease_in(int interp, double x) {
  const double c1 = 1.70158;
  switch (interp) {
    case ANIM_SINE: return 1 - cos(x * ANIM_PI / 2);
    case ANIM_QUAD: return x * x;
    case ANIM_CUBIC: return x * x * x;
    case ANIM_QUART: return x * x * x * x;
    case ANIM_QUINT: return x * x * x * x * x;
    case ANIM_EXPO: return x <= 0 ? 0 : pow(2, 10 * x - 10);
    case ANIM_CIRC: return 1 - sqrt(fmax(0, 1 - x * x));
    case ANIM_BACK: return (c1 + 1) * x * x * x - c1 * x * x;
    case ANIM_BOUNCE: return 1 - bounce_out(1 - x);
    case ANIM_ELASTIC:
      if (x <= 0) return 0;
      if (x >= 1) return 1;
      return -pow(2, 10 * x - 10) * sin((x * 10 - 10.75) * (2 * ANIM_PI / 3));
    default: return x;
  }
}

double anim_ease(int interp, int ease, double x) {
  if (interp == ANIM_EXPO) {  /* exactly 0 and 1 at the ends */
    if (x <= 0) return 0;
    if (x >= 1) return 1;
  }
  if (ease == ANIM_EASE_IN) return ease_in(interp, x);
  if (ease == ANIM_EASE_OUT) return 1 - ease_in(interp, 1 - x);
  /* inOut: back and elastic use their own constants (c1*1.525, period 0.45) */
  if (interp == ANIM_BACK) {
    const double c2 = 1.70158 * 1.525;
    return x < 0.5
      ? (pow(2 * x, 2) * ((c2 + 1) * 2 * x - c2)) / 2
      : (pow(2 * x - 2, 2) * ((c2 + 1) * (x * 2 - 2) + c2) + 2) / 2;
  }
  if (interp == ANIM_ELASTIC) {
    const double c5 = 2 * ANIM_PI / 4.5;
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return x < 0.5
      ? -(pow(2, 20 * x - 10) * sin((20 * x - 11.125) * c5)) / 2
      : (pow(2, -20 * x + 10) * sin((20 * x - 11.125) * c5)) / 2 + 1;
  }
  return x < 0.5 ? ease_in(interp, 2 * x) / 2
                 : 1 - ease_in(interp, 2 - 2 * x) / 2;
}

void anim_finite10_fix(double v[10]) {
  int k;
  for (k = 0; k < 10; k++) {
    if (k >= 3 && k < 7) continue;
    if (v[k] != v[k]) v[k] = 0;
    else if (v[k] > DBL_MAX) v[k] = DBL_MAX;
    else if (v[k] < -DBL_MAX) v[k] = -DBL_MAX;
  }
  {
    double z = 0;
    for (k = 3; k < 7; k++) z += v[k] * 0;
    if (z != 0 || (v[3] == 0 && v[4] == 0 && v[5] == 0 && v[6] == 0)) anim_quat_identity(v + 3);
  }
}

void anim_quat_slerp(double o[4], const double a[4], const double b[4], double f) {
  double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  double s = d < 0 ? -1 : 1, c[4], cn;
  int i;
  d *= s;
  if (d > 0.9999999) {  /* nearly equal: the arc is a line to 1e-14 */
    for (i = 0; i < 4; i++) o[i] = (1 - f) * a[i] + f * s * b[i];
  } else {
    /* o = a cos(f th) + c sin(f th), with c the unit part of b orthogonal
     * to a: one sin and one cos instead of three sines */
    double th, sf, cf;
    for (i = 0; i < 4; i++) c[i] = s * b[i] - d * a[i];
    cn = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    th = atan2(cn, d);
    sf = sin(f * th) / cn;
    cf = cos(f * th);
    for (i = 0; i < 4; i++) o[i] = cf * a[i] + sf * c[i];
  }
  anim_quat_normalize(o);
}

void anim_sincos(double x, double *s, double *c) {
  /* pi/2 = PIO2_HI + PIO2_LO; PIO2_HI has 33 bits, so k * PIO2_HI is
   * exact for |k| < 2^20 (fdlibm's constants) */
  static const double PIO2_HI = 1.57079632673412561417e+00, PIO2_LO = 6.07710050650619224932e-11;
  double k, r, rs, rc;
  /* (0 exactly as below gives it, sign of zero kept: an Euler channel's
   * axes that do not turn, as a 2D skeleton's x and y, cost nothing) */
  if (x == 0) { *s = x; *c = 1; return; }
  if (!(fabs(x) < 1e5)) { *s = sin(x); *c = cos(x); return; }
  k = floor(x * (2 / ANIM_PI) + 0.5);
  r = (x - k * PIO2_HI) - k * PIO2_LO;
  anim_sincos_small(r, &rs, &rc);
  switch ((long)k & 3) {
    case 0: *s = rs; *c = rc; break;
    case 1: *s = rc; *c = -rs; break;
    case 2: *s = -rs; *c = -rc; break;
    default: *s = -rc; *c = rs; break;
  }
}

/* R = R_a R_b R_c for the three distinct axes a, b, c of the order: the
 * product of three one-axis quaternions, written out (a third of the
 * products of two general quaternion products). */
void anim_quat_from_euler(double o[4], const double deg[3], int order) {
  /* the axes of each order, and eps: e_a x e_b = eps e_c, +1 when a, b,
   * c run x -> y -> z -> x */
  static const int axes[6][4] = {
    {0, 1, 2, 1}, {0, 2, 1, -1}, {1, 0, 2, -1}, {1, 2, 0, 1}, {2, 0, 1, 1}, {2, 1, 0, -1}};
  const int *ax = axes[order >= 0 && order < 6 ? order : ANIM_YXZ];
  int a = ax[0], b = ax[1], c = ax[2];
  double eps = ax[3];
  double sa, ca, sb, cb, sc, cc, v[3], w, ha = deg[a] * (ANIM_PI / 360), hb = deg[b] * (ANIM_PI / 360);
  /* a turn about the last axis alone (a 2D skeleton's channels, about z
   * in xyz or yxz): the first two half angles are 0, whose sine and
   * cosine anim_sincos gives as the angle itself (its zero's sign kept)
   * and 1 -- without its two calls */
  if (ha == 0 && hb == 0) {
    sa = ha; ca = 1;
    sb = hb; cb = 1;
  } else {
    anim_sincos(ha, &sa, &ca);
    anim_sincos(hb, &sb, &cb);
  }
  anim_sincos(deg[c] * (ANIM_PI / 360), &sc, &cc);
  /* q_a q_b = (ca sb e_b + cb sa e_a + sa sb (e_a x e_b), ca cb) */
  v[a] = sa * cb;
  v[b] = ca * sb;
  v[c] = eps * sa * sb;
  w = ca * cb;
  /* times (sc e_c, cc): v' = w sc e_c + cc v + sc (v x e_c), w' = w cc - sc v_c;
   * v x e_c = v_a (e_a x e_c) + v_b (e_b x e_c) = eps (v_b e_a - v_a e_b) */
  o[a] = cc * v[a] + sc * eps * v[b];
  o[b] = cc * v[b] - sc * eps * v[a];
  o[c] = cc * v[c] + w * sc;
  o[3] = w * cc - sc * v[c];
}

void anim_quat_rotate(double o[3], const double q[4], const double v[3]) {
  /* v' = v + 2w(u x v) + 2 u x (u x v) */
  double ux = q[0], uy = q[1], uz = q[2], w = q[3];
  double cx = uy * v[2] - uz * v[1], cy = uz * v[0] - ux * v[2], cz = ux * v[1] - uy * v[0];
  double dx = uy * cz - uz * cy, dy = uz * cx - ux * cz, dz = ux * cy - uy * cx;
  o[0] = v[0] + 2 * (w * cx + dx);
  o[1] = v[1] + 2 * (w * cy + dy);
  o[2] = v[2] + 2 * (w * cz + dz);
}
