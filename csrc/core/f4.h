/* f4.h - four floats lane by lane, for the compressed clips' blend
 * (blendpq.c): GCC's and Clang's vector extensions, with SSE's shuffles
 * and conversions where the host has them, else a struct of four.  Each
 * lane makes the operation the scalar code makes (no FMA:
 * -ffp-contract=off; min and max as their ternaries), so every build
 * gives the same bits. */
#ifndef ANIM_F4_H
#define ANIM_F4_H

#include "amath.h"

#if ANIM_VECTOR
typedef float anim_f4 __attribute__((vector_size(16)));
typedef int anim_i4 __attribute__((vector_size(16)));
static inline anim_f4 anim_f4_set(float a, float b, float c, float d) { anim_f4 r = {a, b, c, d}; return r; }
static inline anim_f4 anim_f4_add(anim_f4 a, anim_f4 b) { return a + b; }
static inline anim_f4 anim_f4_sub(anim_f4 a, anim_f4 b) { return a - b; }
static inline anim_f4 anim_f4_mul(anim_f4 a, anim_f4 b) { return a * b; }
static inline anim_f4 anim_f4_div(anim_f4 a, anim_f4 b) { return a / b; }
static inline float anim_f4_at(anim_f4 a, int i) { return a[i]; }
/* c ? a : b, lane by lane, c a comparison's mask */
static inline anim_f4 anim_f4_pick(anim_i4 c, anim_f4 a, anim_f4 b) {
  return (anim_f4)((c & (anim_i4)a) | (~c & (anim_i4)b));
}
#define ANIM_F4_LT(a, b) ((a) < (b))
#define ANIM_F4_GT(a, b) ((a) > (b))
#else
typedef struct anim_f4 { float l[4]; } anim_f4;
typedef struct anim_i4 { int l[4]; } anim_i4;
static inline anim_f4 anim_f4_set(float a, float b, float c, float d) {
  anim_f4 r;
  r.l[0] = a; r.l[1] = b; r.l[2] = c; r.l[3] = d;
  return r;
}
#define ANIM_F4_OP(name, op)                                                                     \
  static inline anim_f4 name(anim_f4 a, anim_f4 b) {                                            \
    return anim_f4_set(a.l[0] op b.l[0], a.l[1] op b.l[1], a.l[2] op b.l[2], a.l[3] op b.l[3]); \
  }
ANIM_F4_OP(anim_f4_add, +)
ANIM_F4_OP(anim_f4_sub, -)
ANIM_F4_OP(anim_f4_mul, *)
ANIM_F4_OP(anim_f4_div, /)
#undef ANIM_F4_OP
static inline float anim_f4_at(anim_f4 a, int i) { return a.l[i]; }
static inline anim_i4 anim_f4_cmp(anim_f4 a, anim_f4 b, int gt) {
  anim_i4 r;
  int k;
  for (k = 0; k < 4; k++) r.l[k] = (gt ? a.l[k] > b.l[k] : a.l[k] < b.l[k]) ? -1 : 0;
  return r;
}
static inline anim_f4 anim_f4_pick(anim_i4 c, anim_f4 a, anim_f4 b) {
  return anim_f4_set(c.l[0] ? a.l[0] : b.l[0], c.l[1] ? a.l[1] : b.l[1], c.l[2] ? a.l[2] : b.l[2],
                     c.l[3] ? a.l[3] : b.l[3]);
}
#define ANIM_F4_LT(a, b) anim_f4_cmp(a, b, 0)
#define ANIM_F4_GT(a, b) anim_f4_cmp(a, b, 1)
#endif

static inline anim_f4 anim_f4_splat(float a) { return anim_f4_set(a, a, a, a); }
/* p[0..3] (any alignment) */
static inline anim_f4 anim_f4_load(const float *p) {
  anim_f4 r;
  memcpy(&r, p, sizeof r);
  return r;
}
/* the square roots of the four lanes (correctly rounded: sqrtps, sqrtf) */
static inline anim_f4 anim_f4_sqrt(anim_f4 a) {
#if ANIM_VECTOR && defined(__SSE2__)
  return (anim_f4)_mm_sqrt_ps((__m128)a);
#else
  return anim_f4_set(sqrtf(anim_f4_at(a, 0)), sqrtf(anim_f4_at(a, 1)), sqrtf(anim_f4_at(a, 2)), sqrtf(anim_f4_at(a, 3)));
#endif
}
/* a < b ? a : b and a > b ? a : b, lane by lane (SSE's minps, maxps) */
static inline anim_f4 anim_f4_min(anim_f4 a, anim_f4 b) { return anim_f4_pick(ANIM_F4_LT(a, b), a, b); }
static inline anim_f4 anim_f4_max(anim_f4 a, anim_f4 b) { return anim_f4_pick(ANIM_F4_GT(a, b), a, b); }
/* -x where d < 0, else x, lane by lane (the sign bit flipped: -x's bits) */
static inline anim_f4 anim_f4_neg_if(anim_f4 x, anim_f4 d) {
  return anim_f4_pick(ANIM_F4_LT(d, anim_f4_splat(0)), anim_f4_sub(anim_f4_splat(-0.0f), x), x);
}

/* The rows r[0..3] made the columns (lane k of row i becomes lane i of
 * row k). */
static inline void anim_f4_transpose(anim_f4 r[4]) {
#if ANIM_VECTOR && defined(__SSE2__)
  __m128 a = (__m128)r[0], b = (__m128)r[1], c = (__m128)r[2], d = (__m128)r[3];
  _MM_TRANSPOSE4_PS(a, b, c, d);
  r[0] = (anim_f4)a; r[1] = (anim_f4)b; r[2] = (anim_f4)c; r[3] = (anim_f4)d;
#else
  anim_f4 t[4];
  int i;
  for (i = 0; i < 4; i++)
    t[i] = anim_f4_set(anim_f4_at(r[0], i), anim_f4_at(r[1], i), anim_f4_at(r[2], i), anim_f4_at(r[3], i));
  for (i = 0; i < 4; i++) r[i] = t[i];
#endif
}

/* lanes 1, 2, 3, 3 of x (a record's b from its floats 2..5) */
static inline anim_f4 anim_f4_tail3(anim_f4 x) {
#if ANIM_VECTOR && defined(__SSE2__)
  return (anim_f4)_mm_shuffle_ps((__m128)x, (__m128)x, _MM_SHUFFLE(3, 3, 2, 1));
#else
  return anim_f4_set(anim_f4_at(x, 1), anim_f4_at(x, 2), anim_f4_at(x, 3), anim_f4_at(x, 3));
#endif
}

/* x's four lanes as doubles into p[0..3] (exact) */
static inline void anim_f4_store_doubles(double *p, anim_f4 x) {
#if ANIM_VECTOR && defined(__SSE2__)
  _mm_storeu_pd(p, _mm_cvtps_pd((__m128)x));
  _mm_storeu_pd(p + 2, _mm_cvtps_pd(_mm_movehl_ps((__m128)x, (__m128)x)));
#else
  p[0] = anim_f4_at(x, 0); p[1] = anim_f4_at(x, 1); p[2] = anim_f4_at(x, 2); p[3] = anim_f4_at(x, 3);
#endif
}

#endif
