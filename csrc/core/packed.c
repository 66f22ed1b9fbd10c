/* packed.c - compressed clips' channels (see packed.h): the pack written,
 * checked and indexed (the sampling: packsample.c). */
#include "packed.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "amath.h"
#include "codes.h"


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

/* ---- bit strings --------------------------------------------------------- */

/* k bits (0 .. 16) at bit offset b of d, least significant first; reads
 * only the bytes those bits are in. */
static ANIM_INLINE unsigned get_bits(const unsigned char *d, size_t b, int k) {
  const unsigned char *p = d + (b >> 3);
  int s = (int)(b & 7);
  unsigned long w;
  if (!k) return 0;
  w = p[0];
  if (s + k > 8) w |= (unsigned long)p[1] << 8;
  if (s + k > 16) w |= (unsigned long)p[2] << 16;
  return (unsigned)(w >> s & ((1UL << k) - 1));
}
/* (the bytes written to must be zero first) */
static void put_bits(unsigned char *d, size_t b, int k, unsigned v) {
  int i;
  for (i = 0; i < k; i++, b++)
    if (v >> i & 1) d[b >> 3] = (unsigned char)(d[b >> 3] | 1u << (b & 7));
}
static size_t bit_bytes(size_t nbits) { return (nbits + 7) / 8; }

/* A key count in 1 to 3 bytes: 7 bits a byte, the low ones first, the top
 * bit set on every byte but the last. */
static size_t varint_size(unsigned long v) { return v < 128 ? 1 : v < 16384 ? 2 : 3; }
static size_t put_varint(unsigned char *p, unsigned long v) {
  size_t k = 0;
  while (v >= 128) { p[k++] = (unsigned char)(v & 127) | 128; v >>= 7; }
  p[k++] = (unsigned char)v;
  return k;
}

/* A channel's frame deltas: the least, and the bits the others take
 * above it (0: every delta is the least, as in a key at every frame). */
static int delta_base(int n, const int *frames) {
  int i, b = frames[1] - frames[0];
  for (i = 2; i < n; i++) if (frames[i] - frames[i - 1] < b) b = frames[i] - frames[i - 1];
  return b;
}
static int delta_bits(int n, const int *frames) {
  int i, b = 0, base = delta_base(n, frames);
  for (i = 1; i < n; i++)
    while (frames[i] - frames[i - 1] - base >= 1 << b) b++;
  return b;
}

/* A narrow rotation's range: lo and its extent as u16 over [-1, 1] and
 * [0, 2] (a unit quaternion's components), rounded outwards. */
#define PK_R16 (2.0 / 65535)

/* ---- writing ----------------------------------------------------------- */

static void quat_unit(const double *q, double *u) {
  double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  int c;
  for (c = 0; c < 4; c++) u[c] = l > 0 ? q[c] / l : (c == 3);
}

/* The component of a rotation channel's unit quaternions a narrow channel
 * leaves out: the one whose smallest size over the keys is the largest
 * (rebuilt from the others, its error is theirs over its size: a few
 * times theirs at most, ACL's dropped w without its loss near w = 0). */
static int dropped(int n, const double *values) {
  double least[4] = {2, 2, 2, 2};
  int i, c, d = 3;
  for (i = 0; i < n; i++) {
    double u[4];
    quat_unit(values + 4 * i, u);
    for (c = 0; c < 4; c++) if (fabs(u[c]) < least[c]) least[c] = fabs(u[c]);
  }
  for (c = 0; c < 4; c++) if (least[c] > least[d]) d = c;
  return d;
}

/* Component a (0 .. 2) of key i of a narrow channel: a position's or
 * scale's, or of a rotation the a-th of those kept (the dropped one, d,
 * made >= 0: q and -q are one rotation). */
static double narrow_part(const double *values, int rot, int d, int i, int a) {
  double u[4];
  if (!rot) return values[3 * i + a];
  quat_unit(values + 4 * i, u);
  return u[d] < 0 ? -u[a + (a >= d)] : u[a + (a >= d)];
}

/* How a narrow channel is written: its dropped component d (a
 * rotation's), each number's bits kb (the widest range's `bits`, the
 * others' fewer by the whole powers of 2 their ranges are narrower: about
 * the same step; 0 for a number that never changes), and each number's
 * range as written (lo, step or l16, e16) and as the index reads it
 * (rlo, rstep). */
typedef struct pk_plan {
  int d, kb[3];
  float lo[3], step[3];
  double l16[3], e16[3], rlo[3], rstep[3];
} pk_plan;

static void narrow_plan(int rot, int n, const double *values, int bits, pk_plan *pl) {
  double mn[3], mx[3], w[3], wmax = 0;
  int i, a;
  pl->d = rot ? dropped(n, values) : 0;
  for (a = 0; a < 3; a++) {
    for (i = 0; i < n; i++) {
      double x = narrow_part(values, rot, pl->d, i, a);
      if (i == 0 || x < mn[a]) mn[a] = x;
      if (i == 0 || x > mx[a]) mx[a] = x;
    }
    if (rot) {
      double l16 = floor((mn[a] + 1) / PK_R16), e16;
      if (l16 < 0) l16 = 0;
      if (l16 > 65535) l16 = 65535;
      e16 = ceil((mx[a] - (-1 + l16 * PK_R16)) / PK_R16);
      if (e16 < 0) e16 = 0;
      if (e16 > 65535) e16 = 65535;
      pl->l16[a] = l16, pl->e16[a] = e16;
      w[a] = e16;
    } else {
      pl->lo[a] = (float)mn[a];
      if ((double)pl->lo[a] > mn[a]) pl->lo[a] = nextafterf(pl->lo[a], -INFINITY);
      w[a] = mx[a] - (double)pl->lo[a];
    }
    if (w[a] > wmax) wmax = w[a];
  }
  for (a = 0; a < 3; a++) {
    int k = 0;
    double top;
    if (w[a] > 0) {
      k = bits;
      while (k > 1 && w[a] * 2 <= wmax / (double)(1L << (bits - k))) k--;
    }
    pl->kb[a] = k;
    top = (double)((1UL << k) - 1);
    if (rot) {
      pl->rlo[a] = -1 + pl->l16[a] * PK_R16;
      pl->rstep[a] = k ? pl->e16[a] * PK_R16 / top : 0;
      continue;
    }
    pl->step[a] = k ? (float)((mx[a] - (double)pl->lo[a]) / top) : 0;
    /* (the float step rounded down would leave the largest value out of reach) */
    if (k && (double)pl->lo[a] + top * (double)pl->step[a] < mx[a]) pl->step[a] = nextafterf(pl->step[a], INFINITY);
    pl->rlo[a] = pl->lo[a], pl->rstep[a] = pl->step[a];
  }
}

static size_t narrow_size(int rot, int n, const pk_plan *pl) {
  return 3 + (rot ? 12 : 24) + bit_bytes((size_t)n * (size_t)(pl->kb[0] + pl->kb[1] + pl->kb[2]));
}

/* A narrow channel: its three bits bytes (a rotation's dropped component
 * above the first's bits), its range, and three numbers a key, each lo +
 * q step with q of its kb bits. */
static unsigned char *put_narrow(unsigned char *p, int rot, int n, const double *values, int bits) {
  pk_plan pl;
  int i, a, kk;
  size_t nb, b = 0;
  narrow_plan(rot, n, values, bits, &pl);
  kk = pl.kb[0] + pl.kb[1] + pl.kb[2];
  p[0] = (unsigned char)(pl.kb[0] | pl.d << 5);
  p[1] = (unsigned char)pl.kb[1];
  p[2] = (unsigned char)pl.kb[2];
  for (a = 0; a < 3; a++) {
    if (rot) {
      put_u16(p + 3 + 4 * a, (unsigned)pl.l16[a]);
      put_u16(p + 5 + 4 * a, (unsigned)pl.e16[a]);
    } else {
      put_f32(p + 3 + 4 * a, pl.lo[a]);
      put_f32(p + 15 + 4 * a, pl.step[a]);
    }
  }
  p += rot ? 15 : 27;
  nb = bit_bytes((size_t)n * (size_t)kk);
  memset(p, 0, nb);
  for (i = 0; i < n; i++)
    for (a = 0; a < 3; a++) {
      long q = 0, top = (1L << pl.kb[a]) - 1;
      if (pl.rstep[a] > 0) q = lround((narrow_part(values, rot, pl.d, i, a) - pl.rlo[a]) / pl.rstep[a]);
      if (q < 0) q = 0;
      if (q > top) q = top;
      put_bits(p, b, pl.kb[a], (unsigned)q);
      b += (size_t)pl.kb[a];
    }
  return p + nb;
}

size_t anim_packed_ch_size(int kind, int rot, int n, const int *frames, const double *values, int bits) {
  size_t nn = (size_t)n, size;
  if (kind < ANIM_PK_NARROW) return 0;
  size = varint_size((unsigned long)n);
  if (n > 1)
    size += 3 + varint_size((unsigned long)delta_base(n, frames)) + bit_bytes((nn - 1) * (size_t)delta_bits(n, frames));
  if (kind == ANIM_PK_NARROW) {
    pk_plan pl;
    narrow_plan(rot, n, values, bits, &pl);
    return size + narrow_size(rot, n, &pl);
  }
  return size + nn * (rot ? 16 : 12);
}

size_t anim_packed_ch_write(unsigned char *out, int kind, int rot, int n, const int *frames, const double *values,
                            int bits) {
  unsigned char *p = out;
  int i, a;
  if (kind < ANIM_PK_NARROW) return 0;
  p += put_varint(p, (unsigned long)n);
  if (n > 1) {
    int db = delta_bits(n, frames), base = delta_base(n, frames);
    size_t nb = bit_bytes((size_t)(n - 1) * (size_t)db);
    put_u16(p, (unsigned)frames[0]);
    p[2] = (unsigned char)db;
    p += 3;
    p += put_varint(p, (unsigned long)base);
    memset(p, 0, nb);
    for (i = 1; i < n && db; i++)
      put_bits(p, (size_t)(i - 1) * (size_t)db, db, (unsigned)(frames[i] - frames[i - 1] - base));
    p += nb;
  }
  if (kind == ANIM_PK_NARROW) return (size_t)(put_narrow(p, rot, n, values, bits) - out);
  for (i = 0; i < n; i++) {
    if (rot) {
      double u[4];
      quat_unit(values + 4 * i, u);
      for (a = 0; a < 4; a++) put_f32(p + 4 * a, (float)u[a]);
      p += 16;
    } else {
      for (a = 0; a < 3; a++) put_f32(p + 4 * a, (float)values[3 * i + a]);
      p += 12;
    }
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

/* A channel's key count and frames from p + *o: checked, and written as
 * u16 at fr (when not NULL).  NULL or a message (*at where). */
/* A varint at p + *o of at most `most`, in its one encoding (no last
 * byte of zeros); NULL or `why` (*at where it starts). */
static const char *get_varint(const unsigned char *p, size_t len, size_t *o_, unsigned long most, unsigned long *v,
                              const char *why, size_t *at) {
  size_t o = *o_, start = o;
  unsigned long n = 0;
  int k;
  for (k = 0; k < 3; k++) {
    NEED(1);
    n |= (unsigned long)(p[o] & 127) << (7 * k);
    if (!(p[o++] & 128)) break;
  }
  if (k == 3 || (k > 0 && p[o - 1] == 0) || n > most) { *at = start; return why; }
  *o_ = o;
  *v = n;
  return NULL;
}

static const char *index_frames(const unsigned char *p, size_t len, size_t *o_, unsigned long nframes,
                                unsigned long *n_, unsigned char *fr, size_t *at) {
  size_t o = *o_, start = o, nb;
  unsigned long n = 0, f, prev = 1, i, base;
  int db;
  const char *e;
  if ((e = get_varint(p, len, &o, 2 * nframes, &n, "key count must be 1 .. twice the frame count", at))) return e;
  if (n < 1) { *at = start; return "key count must be 1 .. twice the frame count"; }
  f = 0;
  if (fr) put_u16(fr, 0);
  if (n > 1) {
    NEED(3);
    f = u16(p + o);
    if (f >= nframes) { *at = o; return "frame indices must stay below the frame count"; }
    if (fr) put_u16(fr, (unsigned)f);
    db = p[o + 2];
    if (db > 16) { *at = o + 2; return "frame delta bits must be 0 .. 16"; }
    o += 3;
    if ((e = get_varint(p, len, &o, nframes - 1, &base, "least frame delta beyond the frames", at))) return e;
    nb = bit_bytes((size_t)(n - 1) * (size_t)db);
    NEED(nb);
    for (i = 1; i < n; i++) {
      unsigned long d = base + (db ? get_bits(p + o, (size_t)(i - 1) * (size_t)db, db) : 0);
      /* (two keys at a frame: a jump, the value before it first) */
      if (d == 0 && prev == 0) { *at = o + (size_t)(i - 1) * (size_t)db / 8; return "three keys at a frame"; }
      f += d;
      if (f >= nframes) { *at = o + (size_t)(i - 1) * (size_t)db / 8; return "frame indices must stay below the frame count"; }
      if (fr) put_u16(fr + 2 * i, (unsigned)f);
      prev = d;
    }
    o += nb;
  }
  *o_ = o;
  *n_ = n;
  return NULL;
}

const char ANIM_PK_TOO_MANY_KEYS[] = "more keys than the limit";

const char *anim_packed_index(const unsigned char *p, size_t len, int njoints, size_t max_keys, anim_packed *out,
                              size_t *nkeys, size_t *at) {
  size_t o = 0, keys = 0, table = 0;
  int nkeyed = 0;
  unsigned long nj, nframes;
  double rate;
  int j, c;
  const char *e;
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
        unsigned char *fr = out ? out->frames + 2 * keys : NULL;
        size_t start = o;
        if ((e = index_frames(p, len, &o, nframes, &n, fr, at))) return e;
        /* (a key may take no bits -- a number that never changes, a frame
         * at the usual step --, but the index keeps 2 bytes a key: at most
         * 8 keys a byte of the pack bounds it by 16 times the pack) */
        if (keys + n > 8 * len) { *at = start; return "more keys than 8 a byte of the pack"; }
        if (keys + n > max_keys) { *at = start; return ANIM_PK_TOO_MANY_KEYS; }
        ch.n = (int)n;
        ch.fr = fr;
        if (fr) {
          ch.first = u16(fr);
          ch.last = u16(fr + 2 * (n - 1));
        }
        keys += n;
        ch.slot = nkeyed++;
        ch.cache = (unsigned)anim_pk_slot_at(ch.slot);
        table += (n > 1 ? n - 1 : 1) * (size_t)(rot ? ANIM_PK_QREC : ANIM_PK_VREC);
        if (kind == ANIM_PK_NARROW) {
          NEED(rot ? 15 : 27);
          ch.drop = p[o] >> 5;
          for (a = 0; a < 3; a++) {
            ch.kb[a] = a ? p[o + (size_t)a] : p[o] & 31;
            if (ch.kb[a] > 16 || (a == 0 && ((ch.drop && !rot) || ch.drop > 3))) {
              *at = o + (size_t)a;
              return "bad bits byte (bits a number 0 .. 16, a rotation's dropped component 0 .. 3)";
            }
          }
          ch.bits = ch.kb[0] + ch.kb[1] + ch.kb[2];
          for (a = 0; a < 3; a++) ch.mask[a] = (1u << ch.kb[a]) - 1;
          for (a = 0; a < 3 && rot; a++) {
            ch.lo[a] = -1 + u16(p + o + 3 + 4 * a) * PK_R16;
            ch.step[a] = ch.kb[a] ? u16(p + o + 5 + 4 * a) * PK_R16 / (double)((1UL << ch.kb[a]) - 1) : 0;
          }
          for (a = 0; a < 3 && !rot; a++) {
            float lo = anim_pk_f32(p + o + 3 + 4 * a), st = anim_pk_f32(p + o + 15 + 4 * a);
            double top = lo + (double)((1UL << ch.kb[a]) - 1) * st;
            /* (a key is decoded to float: its top finite as a float too) */
            if (!isfinite(lo) || !isfinite(st) || st < 0 || !(fabs(top) <= FLT_MAX)) {
              *at = o + 3 + 4 * (size_t)a + (isfinite(lo) ? 12 : 0); /* (the number at fault) */
              return "bad range";
            }
            ch.lo[a] = lo;
            ch.step[a] = st;
          }
          o += rot ? 15 : 27;
          ch.data = p + o;
          NEED(bit_bytes(n * (size_t)ch.bits));
          o += bit_bytes(n * (size_t)ch.bits);
        } else {
          size_t m = rot ? 4 : 3;
          ch.data = p + o;
          NEED(4 * m * n);
          for (i = 0; i < n; i++) {
            double l2 = 0;
            for (a = 0; a < (int)m; a++) {
              float v = anim_pk_f32(p + o + 4 * (m * i + (size_t)a));
              if (!isfinite(v)) { *at = o + 4 * (m * i + (size_t)a); return "non-finite value"; }
              l2 += (double)v * v;
            }
            if (rot && !(l2 > 0.98 && l2 < 1.02)) { *at = o + 4 * m * i; return "rotation key not of unit length"; }
          }
          o += 4 * m * n;
        }
        ch.bytes = o - start;
      }
      if (out) out->joints[j].ch[c] = ch;
    }
    if (out) {
      const anim_pk_ch *ch = out->joints[j].ch;
      out->joints[j].pq = ch[0].kind >= ANIM_PK_NARROW && ch[1].kind >= ANIM_PK_NARROW && ch[2].kind == ANIM_PK_ABSENT;
    }
  }
  if (o != len) { *at = o; return "bytes after the last joint"; }
  if (out) {
    out->nkeyed = nkeyed, out->table = table;
    /* (groups of four f0, f1, i: anim_pk_key) */
    out->cache_size = 3 * sizeof(float) * (((size_t)nkeyed + 3) & ~(size_t)3);
  }
  if (nkeys) *nkeys = keys;
  return NULL;
}
