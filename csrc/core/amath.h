/* amath.h - the small maths the core needs: quaternions, Euler orders and
 * the easing curves of easings.net.  Plain C, no Lua. */
#ifndef ANIM_AMATH_H
#define ANIM_AMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "codes.h"

#define ANIM_PI 3.14159265358979323846

/* Interpolations, easing directions and Euler orders are in codes.h. */

/* The easing curve of interpolation `interp` (ANIM_SINE..ANIM_ELASTIC) in
 * direction `ease`, at fraction s in [0,1]. */
double anim_ease(int interp, int ease, double s);

/* Quaternions are double[4] = x, y, z, w.  identity, normalize and mul
 * are inline: the blend calls them once per joint and character, the
 * pose readers mul once per joint read (o may be a or b). */
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
static inline void anim_quat_mul(double o[4], const double a[4], const double b[4]);
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

/* anim_quat_from_euler of (+0, +0, z) degrees in an order whose last axis
 * is z (eps 1: xyz; -1: yxz), from the sine sc and cosine cc of the half
 * angle z / 2: its operations with the first two sines +0 and cosines 1
 * written in (the products with 0 kept: their zeros' signs), so the same
 * bits for anim_sincos's sc and cc (a 2D bone's rotation channel). */
static inline void anim_quat_z_sincos(double o[4], double sc, double cc, double eps) {
  double vc = eps * 0.0 * 0.0, a, b;
  a = cc * 0.0 + sc * eps * 0.0;
  b = cc * 0.0 - sc * eps * 0.0;
  o[eps > 0 ? 0 : 1] = a;
  o[eps > 0 ? 1 : 0] = b;
  o[2] = cc * vc + 1 * sc;
  o[3] = 1 * cc - sc * vc;
}

/* The same of the angle z (degrees): one sine and cosine, no call to
 * anim_quat_from_euler, its bits. */
static inline void anim_quat_about_z(double o[4], double z, double eps) {
  double sc, cc;
  anim_sincos(z * (ANIM_PI / 360), &sc, &cc);
  anim_quat_z_sincos(o, sc, cc, eps);
}

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

/* A function to be inlined wherever it is called (its callers give it
 * constants to fold), and one kept out of line (a rare path whose
 * registers, inlined, its caller would save on every call). */
#if defined(__GNUC__) || defined(__clang__)
#define ANIM_INLINE inline __attribute__((always_inline))
#define ANIM_NOINLINE __attribute__((noinline))
#else
#define ANIM_INLINE inline
#define ANIM_NOINLINE
#endif

/* Two doubles, added and multiplied lane by lane: the hot loops carry
 * pairs of numbers through these.  With ANIM_VECTOR (GCC and Clang) they
 * are the compiler's vector extensions, two lanes in one register; else
 * (or with -DANIM_NO_VECTOR) a struct of two.  Each lane makes the
 * operation the scalar code makes (no FMA: -ffp-contract=off), so both
 * builds give the same bits. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(ANIM_NO_VECTOR)
#define ANIM_VECTOR 1
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
typedef double anim_v2 __attribute__((vector_size(16)));
static inline anim_v2 anim_v2_set(double a, double b) { anim_v2 r = {a, b}; return r; }
static inline anim_v2 anim_v2_add(anim_v2 a, anim_v2 b) { return a + b; }
static inline anim_v2 anim_v2_sub(anim_v2 a, anim_v2 b) { return a - b; }
static inline anim_v2 anim_v2_mul(anim_v2 a, anim_v2 b) { return a * b; }
static inline anim_v2 anim_v2_div(anim_v2 a, anim_v2 b) { return a / b; }
static inline double anim_v2_lo(anim_v2 a) { return a[0]; }
static inline double anim_v2_hi(anim_v2 a) { return a[1]; }
#else
#define ANIM_VECTOR 0
typedef struct anim_v2 { double l[2]; } anim_v2;
static inline anim_v2 anim_v2_set(double a, double b) { anim_v2 r; r.l[0] = a; r.l[1] = b; return r; }
static inline anim_v2 anim_v2_add(anim_v2 a, anim_v2 b) { return anim_v2_set(a.l[0] + b.l[0], a.l[1] + b.l[1]); }
static inline anim_v2 anim_v2_sub(anim_v2 a, anim_v2 b) { return anim_v2_set(a.l[0] - b.l[0], a.l[1] - b.l[1]); }
static inline anim_v2 anim_v2_mul(anim_v2 a, anim_v2 b) { return anim_v2_set(a.l[0] * b.l[0], a.l[1] * b.l[1]); }
static inline anim_v2 anim_v2_div(anim_v2 a, anim_v2 b) { return anim_v2_set(a.l[0] / b.l[0], a.l[1] / b.l[1]); }
static inline double anim_v2_lo(anim_v2 a) { return a.l[0]; }
static inline double anim_v2_hi(anim_v2 a) { return a.l[1]; }
#endif
static inline anim_v2 anim_v2_splat(double a) { return anim_v2_set(a, a); }
/* the square roots of both lanes (one instruction with SSE2) */
#if ANIM_VECTOR && defined(__SSE2__)
static inline anim_v2 anim_v2_sqrt(anim_v2 a) { return (anim_v2)_mm_sqrt_pd((__m128d)a); }
#else
static inline anim_v2 anim_v2_sqrt(anim_v2 a) { return anim_v2_set(sqrt(anim_v2_lo(a)), sqrt(anim_v2_hi(a))); }
#endif
/* p[0], p[1] (any alignment) */
static inline anim_v2 anim_v2_load(const double *p) {
  anim_v2 r;
  memcpy(&r, p, sizeof r);
  return r;
}
static inline void anim_v2_store(double *p, anim_v2 a) { memcpy(p, &a, sizeof a); }
/* a x + b y, lane by lane */
static inline anim_v2 anim_v2_lin(anim_v2 a, anim_v2 x, anim_v2 b, anim_v2 y) {
  return anim_v2_add(anim_v2_mul(a, x), anim_v2_mul(b, y));
}

/* o = a b, as
 *   x = a3 b0 + a0 b3 + a1 b2 - a2 b1    y = a3 b1 - a0 b2 + a1 b3 + a2 b0
 *   z = a3 b2 + a0 b1 - a1 b0 + a2 b3    w = a3 b3 - a0 b0 - a1 b1 - a2 b2
 * summed left to right, in the pairs (x, y) and (z, w): a subtraction is
 * the addition of the product with b's component negated (u - v is
 * u + -v, and a (-c) is -(a c), to the bit), so each lane makes the
 * scalar operations.  o may be a or b. */
static inline void anim_quat_mul(double o[4], const double a[4], const double b[4]) {
  anim_v2 a0 = anim_v2_splat(a[0]), a1 = anim_v2_splat(a[1]), a2 = anim_v2_splat(a[2]), a3 = anim_v2_splat(a[3]);
  anim_v2 b01 = anim_v2_load(b), b23 = anim_v2_load(b + 2);
  anim_v2 xy = anim_v2_add(anim_v2_add(anim_v2_add(anim_v2_mul(a3, b01), anim_v2_mul(a0, anim_v2_set(b[3], -b[2]))),
                                       anim_v2_mul(a1, b23)), anim_v2_mul(a2, anim_v2_set(-b[1], b[0])));
  anim_v2 zw = anim_v2_add(anim_v2_add(anim_v2_add(anim_v2_mul(a3, b23), anim_v2_mul(a0, anim_v2_set(b[1], -b[0]))),
                                       anim_v2_mul(a1, anim_v2_set(-b[0], -b[1]))), anim_v2_mul(a2, anim_v2_set(b[3], -b[2])));
  anim_v2_store(o, xy);
  anim_v2_store(o + 2, zw);
}

/* -x when c, else x, without a branch (where the sign is anyone's guess:
 * a missed guess costs a dozen instructions' time): negation is the sign
 * bit flipped, so the bits are those of -x. */
static inline double anim_neg_if(double x, int c) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u ^= (uint64_t)(c != 0) << 63;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* The series above with the sine in one lane and the cosine in the other:
 * half the operations.  The sine's lane adds y^4 * 0 where the cosine's
 * adds its last term: (s45 + y2 s67) + 0 is s45 + y2 s67 itself (a
 * positive number, never -0), so both lanes give the scalar bits
 * (tests/c/core_test.c compares them). */
static ANIM_INLINE void anim_sincos_small(double x, double *s, double *c) {
  double y = x * x, y2 = y * y, y4 = y2 * y2;
  anim_v2 vy = anim_v2_splat(y), vy2 = anim_v2_splat(y2), vy4 = anim_v2_splat(y4), r;
  anim_v2 t01 = anim_v2_add(anim_v2_set(1, 1), anim_v2_mul(vy, anim_v2_set(-1.0 / 6, -0.5)));
  anim_v2 t23 = anim_v2_add(anim_v2_set(1.0 / 120, 1.0 / 24), anim_v2_mul(vy, anim_v2_set(-1.0 / 5040, -1.0 / 720)));
  anim_v2 t45 = anim_v2_add(anim_v2_set(1.0 / 362880, 1.0 / 40320),
                            anim_v2_mul(vy, anim_v2_set(-1.0 / 39916800, -1.0 / 3628800)));
  anim_v2 t67 = anim_v2_add(anim_v2_set(1.0 / 6227020800.0, 1.0 / 479001600),
                            anim_v2_mul(vy, anim_v2_set(-1.0 / 1307674368000.0, -1.0 / 87178291200.0)));
  anim_v2 hi = anim_v2_add(anim_v2_add(t45, anim_v2_mul(vy2, t67)),
                           anim_v2_mul(vy4, anim_v2_set(0, 1.0 / 20922789888000.0)));
  r = anim_v2_add(anim_v2_add(t01, anim_v2_mul(vy2, t23)), anim_v2_mul(vy4, hi));
  *s = x * anim_v2_lo(r);
  *c = anim_v2_hi(r);
}

#endif
