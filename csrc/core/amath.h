/* amath.h - the small maths the core needs: quaternions, Euler orders and
 * the easing curves of easings.net.  Plain C, no Lua. */
#ifndef ANIM_AMATH_H
#define ANIM_AMATH_H

#include <math.h>

#include "codes.h"

#define ANIM_PI 3.14159265358979323846

/* Interpolations, easing directions and Euler orders are in codes.h. */

/* The easing curve of interpolation `interp` (ANIM_SINE..ANIM_ELASTIC) in
 * direction `ease`, at fraction s in [0,1]. */
double anim_ease(int interp, int ease, double s);

/* Quaternions are double[4] = x, y, z, w.  identity and normalize are
 * inline: the blend calls them once per joint and character. */
static inline void anim_quat_identity(double q[4]) { q[0] = q[1] = q[2] = 0; q[3] = 1; }
static inline void anim_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    double r = 1 / n;  /* one division, four products */
    q[0] *= r; q[1] *= r; q[2] *= r; q[3] *= r;
  } else {
    anim_quat_identity(q);
  }
}
void anim_quat_mul(double out[4], const double a[4], const double b[4]);
/* Shortest-arc slerp; f may lie outside [0,1] (carries on along the arc). */
void anim_quat_slerp(double out[4], const double a[4], const double b[4], double f);
/* Angles in degrees, composed in `order` (ANIM_XYZ..). */
void anim_quat_from_euler(double out[4], const double deg[3], int order);
void anim_quat_rotate(double out[3], const double q[4], const double v[3]);

/* A transform (position 3, rotation 4, scale 3) made finite: finite keys
 * can still overflow on the way (1e308 - -1e308), and nothing the core
 * hands out is inf or NaN.  NaN becomes 0, +-inf +-DBL_MAX; a rotation
 * with a component that is not finite, or with no length, the identity.
 * Cheap when all is finite (the usual case): inline, one sum in a tree
 * (short dependency chains), inf or NaN when any value is not finite --
 * or when finite values overflow, which anim_finite10_fix leaves as they
 * are. */
void anim_finite10_fix(double v[10]);
static inline void anim_finite10(double v[10]) {
  double z = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])) + (v[8] + v[9]);
  if (z - z == 0 && (v[3] != 0 || v[4] != 0 || v[5] != 0 || v[6] != 0)) return;
  anim_finite10_fix(v);
}

/* One number made finite the same way (property values). */
static inline double anim_finite(double v) {
  if (v != v) return 0;
  if (v > 1.7976931348623157e308) return 1.7976931348623157e308;
  if (v < -1.7976931348623157e308) return -1.7976931348623157e308;
  return v;
}

/* sin x and cos x for |x| <= 1.6 by their Taylor series to x^15 and x^16:
 * the error is below 1e-11 (the first left-out terms, 1.6^17/17! and
 * 1.6^18/18!).  About a fifth of libm's sincos, for slerp on the per-key
 * arcs (angles up to pi/2; eased fractions overshoot a little). */
#define ANIM_SINCOS_RANGE 1.6
/* sin x and cos x for any x: reduced by multiples of pi/2 (Cody and
 * Waite's two-part pi/2, exact for |x| < 1e5; libm beyond), then the
 * series above on |r| <= pi/4, where its error is below 1e-15.  Only +, -,
 * * and floor: the same bits on every IEEE machine, unlike libm. */
void anim_sincos(double x, double *s, double *c);

/* The series in scalars: Estrin's scheme in y = x^2 (short dependency
 * chains: a slerp waits on this), the same terms as Horner's. */
static inline void anim_sincos_small_scalar(double x, double *s, double *c) {
  double y = x * x, y2 = y * y, y4 = y2 * y2;
  double s01 = 1 + y * (-1.0 / 6), s23 = 1.0 / 120 + y * (-1.0 / 5040);
  double s45 = 1.0 / 362880 + y * (-1.0 / 39916800);
  double s67 = 1.0 / 6227020800.0 + y * (-1.0 / 1307674368000.0);
  double c01 = 1 + y * -0.5, c23 = 1.0 / 24 + y * (-1.0 / 720);
  double c45 = 1.0 / 40320 + y * (-1.0 / 3628800);
  double c67 = 1.0 / 479001600 + y * (-1.0 / 87178291200.0);
  *s = x * ((s01 + y2 * s23) + y4 * (s45 + y2 * s67));
  *c = (c01 + y2 * c23) + y4 * ((c45 + y2 * c67) + y4 * (1.0 / 20922789888000.0));
}

/* ANIM_VECTOR: the compiler's vector extensions (GCC, Clang) carry the
 * hot loops two doubles at a time; each lane makes the operations the
 * scalar code makes, in the same order (no FMA: -ffp-contract=off), so
 * the bits are the same with or without them (-DANIM_NO_VECTOR builds the
 * scalar code; tests/c/core_test.c compares the two). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(ANIM_NO_VECTOR)
#define ANIM_VECTOR 1
typedef double anim_v2 __attribute__((vector_size(16)));
#else
#define ANIM_VECTOR 0
#endif

/* The series above with the sine in one lane and the cosine in the other:
 * half the operations.  The sine's lane adds y^4 * 0 where the cosine's
 * adds its last term: (s45 + y2 s67) + 0 is s45 + y2 s67 itself (a
 * positive number, never -0), so both lanes give the scalar bits. */
static inline void anim_sincos_small(double x, double *s, double *c) {
#if ANIM_VECTOR
  const anim_v2 k0 = {1, 1}, k1 = {-1.0 / 6, -0.5}, k2 = {1.0 / 120, 1.0 / 24},
                k3 = {-1.0 / 5040, -1.0 / 720}, k4 = {1.0 / 362880, 1.0 / 40320},
                k5 = {-1.0 / 39916800, -1.0 / 3628800}, k6 = {1.0 / 6227020800.0, 1.0 / 479001600},
                k7 = {-1.0 / 1307674368000.0, -1.0 / 87178291200.0}, k8 = {0, 1.0 / 20922789888000.0};
  double y = x * x, y2 = y * y, y4 = y2 * y2;
  anim_v2 vy = {y, y}, vy2 = {y2, y2}, vy4 = {y4, y4}, r;
  r = ((k0 + vy * k1) + vy2 * (k2 + vy * k3)) + vy4 * (((k4 + vy * k5) + vy2 * (k6 + vy * k7)) + vy4 * k8);
  *s = x * r[0];
  *c = r[1];
#else
  anim_sincos_small_scalar(x, s, c);
#endif
}

#endif
