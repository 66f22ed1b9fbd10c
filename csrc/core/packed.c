/* packed.c - compressed clips' channels (see packed.h): the pack written,
 * checked and indexed, and sampled with a cursor per channel. */
#include "packed.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "amath.h"
#include "codes.h"

/* The smallest three components of a unit quaternion lie in [-K, K]. */
#define PK_K 0.70710678118654752440
#define PK_Q15 32766.0 /* (even: 0 is a code) */
#define PK_Q16 65535.0

/* Little-endian numbers, byte by byte: the same on every host. */
void anim_packed_put_u32(unsigned char *p, unsigned long v) {
  p[0] = (unsigned char)(v & 255); p[1] = (unsigned char)(v >> 8 & 255);
  p[2] = (unsigned char)(v >> 16 & 255); p[3] = (unsigned char)(v >> 24 & 255);
}
unsigned long anim_packed_u32(const unsigned char *p) {
  return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}
static void put_u16(unsigned char *p, unsigned v) { p[0] = (unsigned char)(v & 255); p[1] = (unsigned char)(v >> 8 & 255); }
static unsigned u16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static void put_f32(unsigned char *p, float f) {
  uint32_t w;
  memcpy(&w, &f, 4);
  anim_packed_put_u32(p, w);
}
static float f32(const unsigned char *p) {
  uint32_t w = (uint32_t)anim_packed_u32(p);
  float f;
  memcpy(&f, &w, 4);
  return f;
}
void anim_packed_put_f64(unsigned char *p, double v) {
  uint64_t w;
  int i;
  memcpy(&w, &v, 8);
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(w >> (8 * i) & 255);
}
double anim_packed_f64(const unsigned char *p) {
  uint64_t w = 0;
  double v;
  int i;
  for (i = 0; i < 8; i++) w |= (uint64_t)p[i] << (8 * i);
  memcpy(&v, &w, 8);
  return v;
}

/* ---- writing ----------------------------------------------------------- */

size_t anim_packed_ch_size(int kind, int rot, int n) {
  size_t nn = (size_t)n, head = 4 + ((kind == ANIM_PK_NARROW && !rot) ? 24 : 0);
  if (kind < ANIM_PK_NARROW) return 0;
  return head + 2 * nn + nn * (kind == ANIM_PK_NARROW ? 6 : (rot ? 16 : 12));
}

static void quat_unit(const double *q, double *u) {
  double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  int c;
  for (c = 0; c < 4; c++) u[c] = l > 0 ? q[c] / l : (c == 3);
}

/* A unit quaternion in 48 bits: the largest component made positive (q
 * and -q are one rotation), its index, the other three at 15 bits. */
static void put_q48(unsigned char *p, const double *q) {
  double u[4];
  unsigned long long w;
  int c, big = 0, k;
  quat_unit(q, u);
  for (c = 1; c < 4; c++) if (fabs(u[c]) > fabs(u[big])) big = c;
  if (u[big] < 0) for (c = 0; c < 4; c++) u[c] = -u[c];
  w = (unsigned long long)big;
  for (c = 0; c < 4; c++) {
    double x;
    long code;
    if (c == big) continue;
    x = (u[c] + PK_K) / (2 * PK_K) * PK_Q15;
    code = lround(x);
    if (code < 0) code = 0;
    if (code > 32766) code = 32766;
    w = w << 15 | (unsigned long long)code;
  }
  for (k = 0; k < 6; k++) p[k] = (unsigned char)(w >> (8 * k) & 255);
}

size_t anim_packed_ch_write(unsigned char *out, int kind, int rot, int n, const int *frames, const double *values) {
  unsigned char *p = out;
  int i, a, m = rot ? 4 : 3;
  if (kind < ANIM_PK_NARROW) return 0;
  anim_packed_put_u32(p, (unsigned long)n);
  p += 4;
  if (kind == ANIM_PK_NARROW && !rot) {
    float lo[3], step[3];
    for (a = 0; a < 3; a++) {
      double mn = values[a], mx = values[a];
      for (i = 1; i < n; i++) {
        double v = values[3 * i + a];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      lo[a] = (float)mn;
      step[a] = (float)((mx - (double)lo[a]) / PK_Q16);
      /* (the float step rounded down would leave the largest value out of reach) */
      if ((double)lo[a] + PK_Q16 * (double)step[a] < mx) step[a] = nextafterf(step[a], INFINITY);
      put_f32(p + 4 * a, lo[a]);
      put_f32(p + 12 + 4 * a, step[a]);
    }
    p += 24;
    for (i = 0; i < n; i++) put_u16(p + 2 * i, (unsigned)frames[i]);
    p += 2 * (size_t)n;
    for (i = 0; i < n; i++)
      for (a = 0; a < 3; a++) {
        long q = 0;
        if (step[a] > 0) q = lround((values[3 * i + a] - (double)lo[a]) / (double)step[a]);
        if (q < 0) q = 0;
        if (q > 65535) q = 65535;
        put_u16(p, (unsigned)q);
        p += 2;
      }
    return (size_t)(p - out);
  }
  for (i = 0; i < n; i++) put_u16(p + 2 * i, (unsigned)frames[i]);
  p += 2 * (size_t)n;
  for (i = 0; i < n; i++) {
    if (rot && kind == ANIM_PK_NARROW) { put_q48(p, values + 4 * i); p += 6; continue; }
    if (rot) {
      double u[4];
      quat_unit(values + 4 * i, u);
      for (a = 0; a < 4; a++) put_f32(p + 4 * a, (float)u[a]);
    } else {
      for (a = 0; a < 3; a++) put_f32(p + 4 * a, (float)values[3 * i + a]);
    }
    p += 4 * m;
  }
  return (size_t)(p - out);
}

/* ---- checking and indexing --------------------------------------------- */

long anim_packed_count(const unsigned char *p, size_t len) {
  unsigned long n;
  if (len < 4) return -1;
  n = anim_packed_u32(p);
  return n > 0x7fffffffUL ? -1 : (long)n;
}

#define NEED(k) do { if ((size_t)(k) > len - o) { *at = len; return "truncated"; } } while (0)

const char *anim_packed_index(const unsigned char *p, size_t len, int njoints, anim_packed *out, size_t *at) {
  size_t o = 0, cache = 0;
  unsigned long nj, nframes;
  double rate;
  int j, c;
  *at = 0;
  NEED(16);
  nj = anim_packed_u32(p);
  if (nj != (unsigned long)njoints) return "joint count differs from the clip's";
  rate = anim_packed_f64(p + 4);
  if (!(rate > 0 && rate <= 1e6)) { *at = 4; return "frame rate must be > 0 and at most 1e6"; }
  nframes = anim_packed_u32(p + 12);
  if (nframes < 1 || nframes > ANIM_PK_MAX_FRAMES) { *at = 12; return "frame count must be 1 .. 65536"; }
  o = 16;
  if (out) {
    out->rate = rate;
    out->nframes = (int)nframes;
    out->njoints = njoints;
    out->bytes = p;
    out->len = len;
  }
  for (j = 0; j < njoints; j++) {
    unsigned kinds;
    NEED(1);
    kinds = p[o];
    if (kinds >> 6) { *at = o; return "bad channel kinds"; }
    o++;
    for (c = 0; c < 3; c++) {
      int kind = (int)(kinds >> (2 * c) & 3), rot = c == 1, a;
      unsigned long n, i;
      anim_pk_ch ch;
      memset(&ch, 0, sizeof ch);
      ch.kind = kind;
      if (kind >= ANIM_PK_NARROW) {
        NEED(4);
        n = anim_packed_u32(p + o);
        if (n < 1 || n > 2 * nframes) { *at = o; return "key count must be 1 .. twice the frame count"; }
        o += 4;
        ch.n = (int)n;
        if (kind == ANIM_PK_NARROW && !rot) {
          NEED(24);
          for (a = 0; a < 3; a++) {
            float lo = f32(p + o + 4 * a), st = f32(p + o + 12 + 4 * a);
            if (!isfinite(lo) || !isfinite(st) || st < 0 || !isfinite((double)lo + PK_Q16 * (double)st)) {
              *at = o + 4 * (size_t)a;
              return "bad range";
            }
            ch.lo[a] = lo;
            ch.step[a] = st;
          }
          o += 24;
        }
        NEED(2 * n);
        ch.fr = p + o;
        for (i = 0; i < n; i++) {
          unsigned f = u16(p + o + 2 * i);
          /* (two keys at a frame: a jump, the value before it first) */
          if (f >= nframes || (i > 0 && f < u16(p + o + 2 * i - 2)) ||
              (i > 1 && f == u16(p + o + 2 * i - 4))) {
            *at = o + 2 * i;
            return "frame indices must not decrease (two keys at a frame at most) and stay below the frame count";
          }
        }
        o += 2 * n;
        ch.first = u16(ch.fr);
        ch.last = u16(ch.fr + 2 * (n - 1));
        ch.cache = cache;
        /* (each entry at a multiple of 8 bytes: a rotation's holds doubles) */
        cache += ((rot ? sizeof(anim_pk_qkey) : sizeof(anim_pk_vkey)) + 7) & ~(size_t)7;
        ch.data = p + o;
        if (kind == ANIM_PK_NARROW) {
          NEED(6 * n);
          for (i = 0; i < n && rot; i++)
            if (p[o + 6 * i + 5] & 0x80) { *at = o + 6 * i + 5; return "bad rotation key"; }
          o += 6 * n;
        } else {
          size_t m = rot ? 4 : 3;
          NEED(4 * m * n);
          for (i = 0; i < n; i++) {
            double l2 = 0;
            for (a = 0; a < (int)m; a++) {
              float v = f32(p + o + 4 * (m * i + (size_t)a));
              if (!isfinite(v)) { *at = o + 4 * (m * i + (size_t)a); return "non-finite value"; }
              l2 += (double)v * v;
            }
            if (rot && !(l2 > 0.98 && l2 < 1.02)) { *at = o + 4 * m * i; return "rotation key not of unit length"; }
          }
          o += 4 * m * n;
        }
      }
      if (out) out->joints[j].ch[c] = ch;
    }
  }
  if (o != len) { *at = o; return "bytes after the last joint"; }
  if (out) out->cache_size = cache;
  return NULL;
}

/* ---- sampling ---------------------------------------------------------- */

/* Key i of a channel, rounded to float: what every sample interpolates,
 * from the cache or not (a float keeps 24 bits, more than the pack's 15
 * or 16 a component, and a wide key is a float already). */
static ANIM_INLINE void key_vec(const anim_pk_ch *c, int i, float v[3]) {
  int a;
  if (c->kind == ANIM_PK_NARROW) {
    const unsigned char *d = c->data + 6 * (size_t)i;
    for (a = 0; a < 3; a++) v[a] = (float)(c->lo[a] + (double)u16(d + 2 * a) * c->step[a]);
  } else {
    const unsigned char *d = c->data + 12 * (size_t)i;
    for (a = 0; a < 3; a++) v[a] = f32(d + 4 * a);
  }
}

static ANIM_INLINE void key_quat(const anim_pk_ch *c, int i, float out[4]) {
  int a;
  if (c->kind == ANIM_PK_NARROW) {
    const unsigned char *d = c->data + 6 * (size_t)i;
    unsigned long long w = 0;
    int big, k, s = 30;
    double sum = 0, q[4];
    for (k = 0; k < 6; k++) w |= (unsigned long long)d[k] << (8 * k);
    big = (int)(w >> 45 & 3);
    for (a = 0; a < 4; a++) {
      if (a == big) continue;
      q[a] = (double)(w >> s & 32767) * (2 * PK_K / PK_Q15) - PK_K;
      sum += q[a] * q[a];
      s -= 15;
    }
    q[big] = sum < 1 ? sqrt(1 - sum) : 0;
    for (a = 0; a < 4; a++) out[a] = (float)q[a];
  } else {
    const unsigned char *d = c->data + 16 * (size_t)i;
    for (a = 0; a < 4; a++) out[a] = f32(d + 4 * a);
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
  if (n == 1 || f <= (double)u16(fr)) return 0;
  if (f >= (double)u16(fr + 2 * (size_t)(n - 1))) return n - 1;
  i = cursor ? *cursor : -1;
  if (i >= 0 && i < n - 1 && (double)u16(fr + 2 * (size_t)i) <= f) {
    for (k = 0; k < PK_SCAN && !(f < (double)u16(fr + 2 * (size_t)i + 2)); k++) i++;
    if (!(f < (double)u16(fr + 2 * (size_t)i + 2))) i = -1;
  } else {
    i = -1;
  }
  if (i < 0) {
    lo = 0;
    hi = n - 1;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if ((double)u16(fr + 2 * (size_t)mid) <= f) lo = mid; else hi = mid;
    }
    i = lo;
  }
  if (cursor) *cursor = i;
  {
    double f0 = u16(fr + 2 * (size_t)i), f1 = u16(fr + 2 * (size_t)i + 2);
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
 * by the sign sg). */
static void quat_arc(anim_pk_qkey *e) {
  double d = (double)e->a[0] * e->b[0] + (double)e->a[1] * e->b[1] + (double)e->a[2] * e->b[2] +
             (double)e->a[3] * e->b[3];
  double x = 1 - fabs(d);
  e->sg = d < 0 ? -1.0f : 1.0f;
  e->ka = (float)(x * (2.0 / 3 + x * (0.13658519572037026 + x * (0.018217259440747872 + x * 0.03307828180654799))));
  e->xb = (float)(x * (0.0017596514155278254 + x * (0.48600935776855103 + x * 0.4564420121984589)));
}

/* Whether the segment (or held key) cached as i is the one `segment`
 * finds for f, and then its fraction *u (< 0: a held key). */
static ANIM_INLINE int cache_hit(const anim_pk_ch *c, int i, double f, double *u) {
  int n = c->n;
  if (i >= n) {
    *u = -1;
    return i == n ? (n == 1 || f <= c->first) : (!(f <= c->first) && f >= c->last);
  }
  if (i >= 0 && f > c->first) {
    double f0 = u16(c->fr + 2 * (size_t)i), f1 = u16(c->fr + 2 * (size_t)i + 2);
    if (f0 <= f && f < f1) { *u = (f - f0) / (f1 - f0); return 1; }
  }
  return 0;
}

/* The segment of f (*u its fraction) found from the cursor, else from the
 * segment cached (i, from where steady play looks a few keys on); the
 * fill_ functions decode its keys into the cache's entry e (the next
 * segment's first key is the cached one's second: not decoded again). */
static int find(const anim_pk_ch *c, double f, int *cursor, int cached, double *u) {
  int hint = cached >= 0 && cached < c->n ? cached : -1;
  return segment(c, f, cursor ? cursor : &hint, u);
}

static ANIM_NOINLINE void fill_vec(const anim_pk_ch *c, double f, int *cursor, anim_pk_vkey *e, double *u) {
  int was = e->i, i = find(c, f, cursor, was, u);
  if (*u < 0) { e->i = c->n + i; key_vec(c, i, e->a); return; }
  if (was >= 0 && i == was + 1) memcpy(e->a, e->b, sizeof e->a);
  else key_vec(c, i, e->a);
  key_vec(c, i + 1, e->b);
  e->i = i;
}

static ANIM_NOINLINE void fill_quat(const anim_pk_ch *c, double f, int *cursor, anim_pk_qkey *e, double *u) {
  int was = e->i, i = find(c, f, cursor, was, u);
  if (*u < 0) { e->i = c->n + i; key_quat(c, i, e->a); return; }
  if (was >= 0 && i == was + 1) memcpy(e->a, e->b, sizeof e->a);
  else key_quat(c, i, e->a);
  key_quat(c, i + 1, e->b);
  quat_arc(e);
  e->i = i;
}

static ANIM_INLINE void sample_vec(const anim_pk_ch *c, double f, int *cursor, anim_pk_vkey *e, double out[3]) {
  double u;
  int k;
  if (!cache_hit(c, e->i, f, &u)) fill_vec(c, f, cursor, e, &u);
  if (u < 0) { for (k = 0; k < 3; k++) out[k] = e->a[k]; return; }
  for (k = 0; k < 3; k++) out[k] = (double)e->a[k] + ((double)e->b[k] - e->a[k]) * u;
}

static ANIM_INLINE void sample_quat(const anim_pk_ch *c, double f, int *cursor, anim_pk_qkey *e, double out[4]) {
  double u, v[4], l;
  int k;
  if (!cache_hit(c, e->i, f, &u)) fill_quat(c, f, cursor, e, &u);
  if (u < 0) {
    for (k = 0; k < 4; k++) v[k] = e->a[k];
  } else {
    double w = (u - 0.5) * (u - 0.5), s = u + u * (u - 0.5) * (u - 1) * ((double)e->ka + w * e->xb);
    double sb = s * e->sg;
    for (k = 0; k < 4; k++) v[k] = e->a[k] * (1 - s) + e->b[k] * sb;
  }
  l = 1 / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  for (k = 0; k < 4; k++) out[k] = v[k] * l;
}

void anim_packed_cache_init(const anim_packed *pk, unsigned char *cache) {
  int j, c;
  for (j = 0; j < pk->njoints; j++)
    for (c = 0; c < 3; c++) {
      const anim_pk_ch *k = &pk->joints[j].ch[c];
      if (k->kind >= ANIM_PK_NARROW) ((anim_pk_vkey *)(void *)(cache + k->cache))->i = -1;
    }
}

int anim_packed_sample(const anim_packed *pk, const anim_pk_joint *jt, double t, int *cursors,
                       unsigned char *cache, double out[11]) {
  static const double id[10] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  static const int bit[3] = {ANIM_CH_POS, ANIM_CH_ROT, ANIM_CH_SCL}, at[3] = {0, 3, 7};
  double f = t * pk->rate;
  int c, ch = 0;
  for (c = 0; c < 3; c++) {
    const anim_pk_ch *k = &jt->ch[c];
    if (k->kind == ANIM_PK_ABSENT) continue;
    ch |= bit[c];
    if (k->kind == ANIM_PK_IDENTITY) {
      memcpy(out + at[c], id + at[c], sizeof(double) * (c == 1 ? 4 : 3));
    } else if (c == 1) {
      anim_pk_qkey own, *e = cache ? (anim_pk_qkey *)(void *)(cache + k->cache) : &own;
      if (!cache) own.i = -1;
      sample_quat(k, f, cache || !cursors ? NULL : cursors + 1, e, out + 3);
    } else {
      anim_pk_vkey own, *e = cache ? (anim_pk_vkey *)(void *)(cache + k->cache) : &own;
      if (!cache) own.i = -1;
      sample_vec(k, f, cache || !cursors ? NULL : cursors + c, e, out + at[c]);
    }
  }
  out[10] = 1;
  return ch;
}
