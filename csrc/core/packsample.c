/* packsample.c - compressed clips' channels sampled (see packed.h): the
 * keys decoded into the clip's table, the segment of a frame found, a
 * track's entries filled, moved on a key, refreshed before its joints are
 * sampled. */
#include "packed.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "amath.h"
#include "codes.h"

/* SSE (every x86-64) for the refresh's marks, the portable vector or
 * scalar code elsewhere (the same marks). */
#if defined(__SSE__) && !defined(ANIM_NO_VECTOR)
#include <xmmintrin.h>
#define ANIM_PK_SSE 1
#else
#define ANIM_PK_SSE 0
#endif

/* ---- sampling ---------------------------------------------------------- */

/* The 64 bits at byte p, little-endian (the pack's padding makes the 8
 * bytes readable). */
static ANIM_INLINE uint64_t load64(const unsigned char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
#else
  uint64_t w = 0;
  int k;
  for (k = 7; k >= 0; k--) w = w << 8 | p[k];
  return w;
#endif
}

/* Key i's three quantised numbers of a narrow channel: one load (its bits
 * start within a byte and take 48 at most: 55 of the 64 read). */
static ANIM_INLINE void key_bits(const anim_pk_ch *c, int i, unsigned q[3]) {
  size_t b = (size_t)i * (size_t)c->bits;
  uint64_t w = load64(c->data + (b >> 3)) >> (b & 7);
  q[0] = (unsigned)w & c->mask[0];
  w >>= c->kb[0];
  q[1] = (unsigned)w & c->mask[1];
  w >>= c->kb[1];
  q[2] = (unsigned)w & c->mask[2];
}

/* Key i of a channel, rounded to float: what every sample interpolates,
 * from the cache or not (a float keeps 24 bits, more than the pack's 16
 * at most a component, and a wide key is a float already). */
static ANIM_INLINE void key_vec(const anim_pk_ch *c, int i, float v[3]) {
  int a;
  if (c->kind == ANIM_PK_NARROW) {
    unsigned q[3];
    key_bits(c, i, q);
    v[0] = (float)(c->lo[0] + (double)q[0] * c->step[0]);
    v[1] = (float)(c->lo[1] + (double)q[1] * c->step[1]);
    v[2] = (float)(c->lo[2] + (double)q[2] * c->step[2]);
  } else {
    const unsigned char *d = c->data + 12 * (size_t)i;
    for (a = 0; a < 3; a++) v[a] = anim_pk_f32(d + 4 * a);
  }
}

/* out[0..3] = a, b, c, d in one store. */
static ANIM_INLINE void store4(float out[4], float a, float b, float c, float d) {
#if ANIM_VECTOR
  typedef float f4 __attribute__((vector_size(16)));
  f4 v = {a, b, c, d};
  memcpy(out, &v, sizeof v);
#else
  out[0] = a, out[1] = b, out[2] = c, out[3] = d;
#endif
}

/* A narrow rotation: three components, and the dropped one (>= 0) made
 * from them (the three scaled to unit length and it 0 when quantisation
 * took them beyond). */
static ANIM_INLINE void key_quat(const anim_pk_ch *c, int i, float out[4]) {
  int a;
  if (c->kind == ANIM_PK_NARROW) {
    unsigned k[3];
    int d = c->drop;
    double q0, q1, q2, sum, w = 0;
    float x, y, z, ww;
    key_bits(c, i, k);
    /* (written out, the sum in the loop's order: -O2 kept the loops) */
    q0 = c->lo[0] + (double)k[0] * c->step[0];
    q1 = c->lo[1] + (double)k[1] * c->step[1];
    q2 = c->lo[2] + (double)k[2] * c->step[2];
    sum = q0 * q0;
    sum += q1 * q1;
    sum += q2 * q2;
    if (sum < 1) {
      w = sqrt(1 - sum);
    } else {
      double l = 1 / sqrt(sum);
      q0 *= l, q1 *= l, q2 *= l;
    }
    x = (float)q0, y = (float)q1, z = (float)q2, ww = (float)w;
    /* the three in order, the dropped one in its place, selected into
     * one store of four: stored one at a time at places read from a
     * table, they were not forwarded to quat_arc's loads of pairs, which
     * waited for the stores to reach the cache */
    store4(out, d == 0 ? ww : x, d == 0 ? x : d == 1 ? ww : y, d <= 1 ? y : d == 2 ? ww : z, d == 3 ? ww : z);
  } else {
    /* (made unit: the index takes a wide key within 1% of it, and the
     * nlerp's length is worked out for unit keys: anim_pk_nlerp) */
    const unsigned char *d = c->data + 16 * (size_t)i;
    double v[4], l;
    for (a = 0; a < 4; a++) v[a] = anim_pk_f32(d + 4 * a);
    l = 1 / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (a = 0; a < 4; a++) out[a] = (float)(v[a] * l);
  }
}

/* The key before f (frame units) and the fraction towards the next: the
 * cursor's segment or one of the next few (steady play: a clip's keys
 * sparser than the frames, or a few a frame), else a binary search.
 * *u < 0: hold key *i. */
#define PK_SCAN 4
static ANIM_INLINE int segment(const anim_pk_ch *c, double f, int *cursor, double *u) {
  int n = c->n, i, lo, hi, k;
  const unsigned char *fr = c->fr;
  *u = -1;
  if (n == 1 || f <= anim_pk_frame(fr, 0)) return 0;
  if (f >= anim_pk_frame(fr, n - 1)) return n - 1;
  i = cursor ? *cursor : -1;
  if (i >= 0 && i < n - 1 && anim_pk_frame(fr, i) <= f) {
    for (k = 0; k < PK_SCAN && !(f < anim_pk_frame(fr, i + 1)); k++) i++;
    if (!(f < anim_pk_frame(fr, i + 1))) i = -1;
  } else {
    i = -1;
  }
  if (i < 0) {
    lo = 0;
    hi = n - 1;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (anim_pk_frame(fr, mid) <= f) lo = mid; else hi = mid;
    }
    i = lo;
  }
  if (cursor) *cursor = i;
  {
    double f0 = anim_pk_frame(fr, i), f1 = anim_pk_frame(fr, i + 1);
    *u = (f - f0) / (f1 - f0);
  }
  return i;
}

/* Between two keys, slerp approximated: nlerp at a corrected fraction.
 * The nlerp of a and b at s points where the slerp at u does when s =
 * sin(u t) / (sin(u t) + sin((1 - u) t)), t the keys' arc (cos t = d);
 * for a small arc that is u + u (u - 1/2) (u - 1) k with k = 2 (1 - d) / 3,
 * and the terms after it were fitted (least squares over arcs to 2.4 rad
 * of turn, in the manner of A. Kapoulkine's "Approximating slerp", 2015):
 * within 6e-7 rad of slerp on a turn of 1 rad between two keys, 2e-5 on 2
 * rad, 1e-3 on a half turn -- so that keys chosen for a slerped curve
 * (reduce.lua measures with slerp) stay within its bound, for a few
 * multiplications instead of an acos and two sines.  With x = 1 - |d|,
 * k = ka + (u - 1/2)^2 xb, and ka and xb depend on the keys only: they are
 * worked out when the keys are decoded (b is taken into a's hemisphere
 * by the sign sg): r, a rotation's record (packed.h). */
static void quat_arc(float *r) {
  /* (in pairs: d as (a0 b0 + a2 b2) + (a1 b1 + a3 b3), and the two
   * polynomials side by side, ka's lane x (2/3 + x (0.1366 + x (0.0182 +
   * x 0.0331))), xb's x (0.00176 + x (0.486 + x (0.456 + x 0))): the
   * added 0 changes no bit) */
  anim_v2 p = anim_v2_add(anim_v2_mul(anim_pk_v2f(r), anim_pk_v2f(r + 4)),
                          anim_v2_mul(anim_pk_v2f(r + 2), anim_pk_v2f(r + 6)));
  double d = anim_v2_lo(p) + anim_v2_hi(p), x = 1 - fabs(d);
  anim_v2 vx = anim_v2_splat(x), k;
  k = anim_v2_add(anim_v2_set(0.018217259440747872, 0.4564420121984589), anim_v2_mul(vx, anim_v2_set(0.03307828180654799, 0)));
  k = anim_v2_add(anim_v2_set(0.13658519572037026, 0.48600935776855103), anim_v2_mul(vx, k));
  k = anim_v2_add(anim_v2_set(2.0 / 3, 0.0017596514155278254), anim_v2_mul(vx, k));
  k = anim_v2_mul(vx, k);
  r[8] = d < 0 ? -1.0f : 1.0f;
  r[9] = (float)anim_v2_lo(k);
  r[10] = (float)anim_v2_hi(k);
  r[11] = (float)(2 * x);
}

/* The segment of f (*u its fraction) found from the cursor, else from the
 * segment cached (i, from where steady play looks a few keys on). */
static ANIM_INLINE int find(const anim_pk_ch *c, double f, int *cursor, int cached, double *u) {
  int hint = cached >= 0 && cached < c->n ? cached : -1;
  /* steady play: the segment after the cached one, which `segment` finds
   * from it (f > the first key and below the last: no key held) */
  if (!cursor && hint >= 0 && hint + 2 < c->n && anim_pk_hit(c, hint + 1, f, u)) return hint + 1;
  return segment(c, f, cursor ? cursor : &hint, u);
}

/* Key k's numbers in the channel's records: the a of record k, the b of
 * the last one for the last key (a channel of one key: its one record). */
static const float *held_key(const anim_pk_ch *c, int k, int stride) {
  if (k < c->n - 1 || c->n == 1) return c->rec + (size_t)k * (size_t)stride;
  return c->rec + (size_t)(k - 1) * (size_t)stride + (stride == ANIM_PK_VREC ? 3 : 4);
}

ANIM_NOINLINE void anim_pk_fill(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double *u) {
  int i = find(c, f, cursor, *e->i, u);
  if (*u < 0) { *e->i = c->n + i; *e->f0 = *e->f1 = 0; return; }
  *e->i = i;
  *e->f0 = (float)anim_pk_frame(c->fr, i);
  *e->f1 = (float)anim_pk_frame(c->fr, i + 1);
}

/* Entry e made to hold frame f when it does not strictly inside its
 * segment, as the sampling finds it: moved on a key when f is in the next
 * segment (f1 <= f < f2), else anim_pk_hit and the fill; f's fraction in
 * the segment (< 0: key *e->i - n held).  f2: the frame of key i + 2 when
 * segment i + 1 may be stepped into from segment i (anim_pk_hit's test of
 * it, f > the first frame, then holds whenever f1 <= f: segment i + 1
 * starts after the first frame, as it does for i > 0, three keys never
 * sharing a frame), else 0 (a held key, none, the last segment: f1 <= f
 * < 0 never holds). */
static ANIM_INLINE double move(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e) {
  int i = *e->i;
  double u, f1 = *e->f1, f2 = i >= 0 && i + 2 < c->n && (i > 0 || anim_pk_frame(c->fr, 1) > c->first)
                                  ? anim_pk_frame(c->fr, i + 2)
                                  : 0;
  if (f1 <= f && f < f2) {
    *e->i = i + 1;
    *e->f0 = *e->f1;
    *e->f1 = (float)f2;
    u = (f - f1) / (f2 - f1);
  } else if (!anim_pk_hit(c, i, f, &u)) {
    anim_pk_fill(c, f, cursor, e, &u);
  }
  return u;
}

/* move, then where the numbers are: the segment's record (the fraction
 * returned), or the key held (< 0) -- the three below's one way. */
static ANIM_INLINE double locate(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, int stride,
                                 const float **k) {
  double u = move(c, f, cursor, e);
  *k = u < 0 ? held_key(c, *e->i - c->n, stride) : c->rec + (size_t)*e->i * (size_t)stride;
  return u;
}

ANIM_NOINLINE void anim_pk_vec_other(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[3]) {
  const float *k;
  double u = locate(c, f, cursor, e, ANIM_PK_VREC, &k);
  if (u < 0) {
    out[0] = k[0], out[1] = k[1], out[2] = k[2];
    return;
  }
  anim_pk_lerp(k, u, out);
}

ANIM_NOINLINE void anim_pk_quat_other(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[4]) {
  const float *q;
  double u = locate(c, f, cursor, e, ANIM_PK_QREC, &q);
  if (u < 0) {
    double v[4], l;
    int k;
    for (k = 0; k < 4; k++) v[k] = q[k];
    l = 1 / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    for (k = 0; k < 4; k++) out[k] = v[k] * l;
    return;
  }
  anim_pk_nlerp(q, u, out);
}

ANIM_NOINLINE double anim_pk_move_to(const anim_pk_ch *c, double f, unsigned char *cache, int stride, const float **k) {
  anim_pk_key e = anim_pk_entry(cache, c);
  return locate(c, f, NULL, &e, stride, k);
}

/* A channel's keys decoded into its records (packed.h): each key once,
 * the b of a record the a of the next. */
static void decode_channel(const anim_pk_ch *c, float *r, int rot) {
  int i, stride = rot ? ANIM_PK_QREC : ANIM_PK_VREC, m = rot ? 4 : 3;
  if (rot) key_quat(c, 0, r); else key_vec(c, 0, r);
  if (c->n == 1) { /* (one key: the key twice) */
    memcpy(r + m, r, sizeof(float) * (size_t)m);
    if (rot) quat_arc(r);
    return;
  }
  for (i = 0; i + 1 < c->n; i++, r += stride) {
    if (i > 0) memcpy(r, r - stride + m, sizeof(float) * (size_t)m);
    if (rot) {
      key_quat(c, i + 1, r + m);
      quat_arc(r);
    } else {
      key_vec(c, i + 1, r + m);
    }
  }
}

void anim_packed_decode(anim_packed *pk, float *table) {
  int j, c;
  size_t at = 0;
  for (j = 0; j < pk->njoints; j++)
    for (c = 0; c < 3; c++) {
      anim_pk_ch *k = &pk->joints[j].ch[c];
      size_t recs = k->n > 1 ? (size_t)k->n - 1 : 1;
      if (k->kind < ANIM_PK_NARROW) continue;
      k->rec = table + at;
      decode_channel(k, table + at, c == 1);
      at += recs * (c == 1 ? ANIM_PK_QREC : ANIM_PK_VREC);
    }
}

void anim_packed_list(anim_packed *pk) {
  int j, c;
  for (j = 0; j < pk->njoints; j++)
    for (c = 0; c < 3; c++) {
      const anim_pk_ch *k = &pk->joints[j].ch[c];
      if (k->kind >= ANIM_PK_NARROW) pk->keyed[k->slot] = k;
    }
}

/* The index of m's lowest bit set (m != 0). */
static ANIM_INLINE int low_bit(uint64_t m) {
#if defined(__GNUC__)
  return __builtin_ctzll(m);
#else
  /* (de Bruijn's multiplication: the lowest bit times the sequence puts
   * a different 6 bits on top for each of the 64) */
  static const unsigned char at[64] = {
    0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30,
    24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40, 15, 34, 20, 31,
    10, 25, 14, 19, 9, 13, 8, 7, 6};
  return at[((m & (0 - m)) * UINT64_C(0x03f79d71b4cb0a89)) >> 58];
#endif
}

/* floor(f) and ceil(f) as floats, through an integer when f is within
 * 2^52 of 0 (SSE2 has no rounding instruction: the library's sequences
 * took 45 instructions a refresh). */
static ANIM_INLINE void frame_bounds(double f, float *fl, float *ce) {
  if (fabs(f) < 4503599627370496.0) {
    double d = (double)(int64_t)f;
    d -= d > f;
    *fl = (float)d;
    *ce = (float)(d + (d < f));
  } else {
    *fl = (float)floor(f);
    *ce = (float)ceil(f);
  }
}

/* The channels 64 at a time: those whose frames do not hold f strictly
 * inside marked first, four at a time with no branch a channel (the
 * frames are whole: f0 < f when f0 < ceil(f), f < f1 when floor(f) < f1;
 * the tests in float), then each marked one moved.  A channel marked
 * where its entry held f already (a key held, f at a segment's first
 * frame) is left as it is. */
int anim_packed_refresh(const anim_packed *pk, unsigned char *cache, double f) {
  int n = pk->nkeyed, k0, k, inside = 1;
  float fc, ff;
#if ANIM_PK_SSE
  __m128 vc, vf;
#elif ANIM_VECTOR
  typedef float f4 __attribute__((vector_size(16)));
  typedef int i4 __attribute__((vector_size(16)));
  f4 vc, vf;
  i4 bit = {1, 2, 4, 8};
#endif
  frame_bounds(f, &ff, &fc);
#if ANIM_PK_SSE
  vc = _mm_set1_ps(fc), vf = _mm_set1_ps(ff);
#elif ANIM_VECTOR
  vc[0] = vc[1] = vc[2] = vc[3] = fc;
  vf[0] = vf[1] = vf[2] = vf[3] = ff;
#endif
  for (k0 = 0; k0 < n; k0 += 64) {
    int m = n - k0 < 64 ? n - k0 : 64;
    uint64_t miss = 0;
#if ANIM_PK_SSE
    /* (the four tests' signs in four bits: movmskps) */
    for (k = 0; k < m; k += 4) {
      const float *g = (const float *)(const void *)(cache + anim_pk_slot_at(k0 + k)); /* (its group) */
      __m128 x = _mm_or_ps(_mm_cmpge_ps(_mm_loadu_ps(g), vc), _mm_cmple_ps(_mm_loadu_ps(g + 4), vf));
      miss |= (uint64_t)(unsigned)_mm_movemask_ps(x) << k;
    }
#elif ANIM_VECTOR
    for (k = 0; k < m; k += 4) {
      const unsigned char *g = cache + anim_pk_slot_at(k0 + k);
      f4 l, h;
      i4 x;
      memcpy(&l, g, sizeof l);
      memcpy(&h, g + ANIM_PK_F1, sizeof h);
      x = ((l >= vc) | (h <= vf)) & bit;
      miss |= (uint64_t)(unsigned)(x[0] | x[1] | x[2] | x[3]) << k;
    }
#else
    for (k = 0; k < m; k++) {
      const unsigned char *p = cache + anim_pk_slot_at(k0 + k);
      float f0, f1;
      memcpy(&f0, p, sizeof f0);
      memcpy(&f1, p + ANIM_PK_F1, sizeof f1);
      miss |= (uint64_t)(!(f0 < fc) | !(ff < f1)) << k;
    }
#endif
    if (m < 64) miss &= ((uint64_t)1 << m) - 1;
    for (; miss; miss &= miss - 1) {
      const anim_pk_ch *c = pk->keyed[k0 + low_bit(miss)];
      anim_pk_key e = anim_pk_entry(cache, c);
      inside &= move(c, f, NULL, &e) > 0 || c->n == 1;
    }
  }
  return inside;
}

void anim_packed_cache_init(const anim_packed *pk, unsigned char *cache) {
  /* (a channel's [0, 0) holds no frame, the padding's every one) */
  int n = pk->nkeyed, n4 = (n + 3) & ~3, b;
  for (b = 0; b < n4; b++) {
    unsigned char *p = cache + anim_pk_slot_at(b);
    *(float *)(void *)p = b >= n ? -FLT_MAX : 0;
    *(float *)(void *)(p + ANIM_PK_F1) = b >= n ? FLT_MAX : 0;
    *(int *)(void *)(p + ANIM_PK_I) = -1;
  }
}

int anim_packed_sample(const anim_packed *pk, const anim_pk_joint *jt, double t, int *cursors,
                       unsigned char *cache, double out[11]) {
  static const double id[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  static const int bit[3] = {ANIM_CH_POS, ANIM_CH_ROT, ANIM_CH_SCL}, at[3] = {0, 3, 7};
  double f = anim_packed_frame_at(pk, t);
  int c, ch = 0;
  for (c = 0; c < 3; c++) {
    const anim_pk_ch *k = &jt->ch[c];
    if (k->kind == ANIM_PK_ABSENT) continue;
    ch |= bit[c];
    if (k->kind == ANIM_PK_IDENTITY) {
      memcpy(out + at[c], id + at[c], sizeof(double) * (c == 1 ? 4 : 3));
    } else {
      /* (without a track's cache, an entry of the sample's own, empty) */
      float f0 = 0, f1 = 0;
      int i = -1, *cur = cache || !cursors ? NULL : cursors + c;
      anim_pk_key e;
      if (cache) e = anim_pk_entry(cache, k);
      else e.f0 = &f0, e.f1 = &f1, e.i = &i;
      if (c == 1) anim_pk_quat(k, f, cur, &e, out + 3);
      else anim_pk_vec(k, f, cur, &e, out + at[c]);
    }
  }
  out[10] = 1;
  return ch;
}
