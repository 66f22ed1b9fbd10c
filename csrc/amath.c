/* amath.c - quaternions, Euler orders and easings (see amath.h). */
#include "amath.h"

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

int anim_ease_default(int interp) {
  return (interp == ANIM_BACK || interp == ANIM_BOUNCE || interp == ANIM_ELASTIC)
    ? ANIM_EASE_OUT : ANIM_EASE_IN;
}

void anim_quat_identity(double q[4]) { q[0] = q[1] = q[2] = 0; q[3] = 1; }

void anim_quat_mul(double o[4], const double a[4], const double b[4]) {
  double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  o[0] = x; o[1] = y; o[2] = z; o[3] = w;
}

void anim_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) { q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n; }
  else anim_quat_identity(q);
}

void anim_quat_conj(double o[4], const double q[4]) {
  o[0] = -q[0]; o[1] = -q[1]; o[2] = -q[2]; o[3] = q[3];
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

static void axis_quat(double q[4], int axis, double deg) {
  double h = deg * (ANIM_PI / 360);
  q[0] = q[1] = q[2] = 0;
  q[axis] = sin(h);
  q[3] = cos(h);
}

void anim_quat_from_euler(double o[4], const double deg[3], int order) {
  static const int axes[6][3] = {
    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double qa[4], qb[4], qc[4];
  const int *ax = axes[order >= 0 && order < 6 ? order : ANIM_YXZ];
  axis_quat(qa, ax[0], deg[ax[0]]);
  axis_quat(qb, ax[1], deg[ax[1]]);
  axis_quat(qc, ax[2], deg[ax[2]]);
  anim_quat_mul(o, qa, qb);
  anim_quat_mul(o, o, qc);
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
