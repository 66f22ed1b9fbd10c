/* packed.h - the compressed clips' channel storage (anim.compress): each
 * joint's position, rotation and scale as linear keys at frame indices,
 * quantised.  One byte string (the "pack", little-endian, the same bytes
 * in memory and in a .animc file: docs/formats.md) holds them all; a clip
 * keeps it and an index of where each channel's keys are.  Plain C, no
 * Lua.
 *
 * The pack (version 2 of the .animc file; docs/formats.md):
 *   u32 njoints, f64 rate (frames a second), u32 nframes (frame indices are
 *   below it), then per joint (the clip's order) one byte of kinds, two
 *   bits per channel (position, rotation, scale from bit 0):
 *   ANIM_PK_ABSENT, ANIM_PK_IDENTITY (the channel is there and holds the
 *   identity: no bytes), ANIM_PK_NARROW, ANIM_PK_WIDE, then for each channel
 *   with keys:
 *     n, the key count (1 .. 2 nframes), in 1 to 3 bytes (7 bits a byte,
 *     low first, the top bit set on all but the last);
 *     when n > 1 (one key is at frame 0): u16 the first key's frame, u8
 *     db (0 .. 16), the least delta (a varint, as n), the n - 1 frame
 *     deltas, each the least plus db bits (two keys at a frame at most);
 *     narrow: u8 k[0] + 32 d, u8 k[1], u8 k[2] (each 0 .. 16), the range,
 *     then 3 numbers a key, number c of k[c] bits, its value lo[c] + q
 *     step[c]: a position or scale (d = 0): x, y, z, the range f32 lo[3],
 *     f32 step[3]; a rotation: the unit quaternion's components but the
 *     d-th (0 .. 3: x, y, z, w), that one made >= 0 and rebuilt as
 *     sqrt(1 - the others' squares), the range u16 pairs (l, e) for each:
 *     lo = -1 + l 2/65535, step = e 2/65535 / (2^k[c] - 1) (0 when k[c]
 *     is 0);
 *     wide: f32 x 3 (x 4: a quaternion x, y, z, w) a key.
 *   Bit strings are packed least significant bit first from each byte's
 *   bit 0, and end on a whole byte.
 * Between two keys positions and scales are linear, rotations normalised
 * linear (nlerp, the second key in the first's hemisphere); before the
 * first key and after the last the values are held.
 *
 * In memory a clip also keeps its keys decoded, once, when it takes the
 * pack (anim_packed_decode): a table of floats with a record a segment
 * (a channel's key i and i + 1; one record, the key twice, for a channel
 * of one key), what every sample interpolates.  A position's or scale's
 * record: a[3], b[3] (ANIM_PK_VREC floats); a rotation's: a[4], b[4] as
 * decoded, then sg (+-1: b taken into a's hemisphere), ka, xb (the parts
 * of the slerp correction that depend on the keys only: packsample.c,
 * quat_arc) and g = 2 (1 - |a.b|), of which the nlerp's length follows
 * (anim_pk_nlerp): ANIM_PK_QREC floats.  Every track playing the clip
 * reads the one table, and keeps only where its playhead is (below):
 * decoding into each track's cache at every crossing cost more than the
 * sampling's reads of the shared records (docs/performance.md). */
#ifndef ANIM_PACKED_H
#define ANIM_PACKED_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "amath.h"
#include "amem.h"

enum { ANIM_PK_ABSENT = 0, ANIM_PK_IDENTITY = 1, ANIM_PK_NARROW = 2, ANIM_PK_WIDE = 3 };
/* The zero bytes that follow a pack in memory (anim_clip_set_packed): a
 * key's numbers are read 8 bytes at a time, which may reach past the
 * pack's last byte (by 7 at most). */
#define ANIM_PK_PAD 8
/* The most frames a pack indexes (frame indices are 16 bits). */
#define ANIM_PK_MAX_FRAMES 65536

/* One channel of one joint, read in place from the pack. */
typedef struct anim_pk_ch {
  /* (first what sampling and the refresh read: one line) */
  int kind, n;
  unsigned cache;             /* with keys: its f0's byte offset in a track's cache (anim_pk_key) */
  int slot;                   /* with keys: its place among them (anim_packed_list) */
  const float *rec;           /* with keys: its records in the clip's table (max(n - 1, 1)) */
  const unsigned char *fr;    /* n u16 frame indices (in anim_packed's frames) */
  double first, last;         /* the frames of its first and last keys */
  /* (then what the decoding reads) */
  int kb[3], bits, drop;      /* a narrow channel's bits of each number, and of a key; a
                               * narrow rotation's component rebuilt from the others (0 .. 3) */
  unsigned mask[3];           /* (1 << kb[c]) - 1 */
  size_t bytes;               /* with keys: the bytes it takes in the pack */
  const unsigned char *data;  /* the values */
  double lo[3], step[3];      /* a narrow position or scale */
} anim_pk_ch;

/* A track's cache of a compressed clip: where its playhead is in each
 * channel with keys, so that steady play finds its segment with no
 * search.  The channels with keys by slot in groups of four, each group
 * 48 bytes: f0[4] and f1[4], the segments' frames (u16: exact; 0, 0 else,
 * and in the padding -FLT_MAX, FLT_MAX: they hold every frame), which
 * anim_packed_refresh tests four at a time, then i[4]: the segment (its
 * first key; its record the channel's rec + i ANIM_PK_VREC or _QREC
 * floats), or n + k while key k is held (before the first key, after the
 * last), or -1 (nothing yet).  A channel's f0 is at its `cache` offset,
 * its f1 16 bytes on, its i 32.  An anim_pk_key points at a channel's
 * three (anim_pk_entry), or at a sample's own. */
typedef struct anim_pk_key {
  float *f0, *f1;
  int *i;
} anim_pk_key;
/* A record's floats: a position or scale, a rotation (above). */
#define ANIM_PK_VREC 6
#define ANIM_PK_QREC 12

typedef struct anim_pk_joint {
  anim_pk_ch ch[3];           /* position, rotation, scale */
  int pq;                     /* a position and a rotation with keys, no scale: the
                               * blend samples it inline (anim_pk_vec, anim_pk_quat) */
} anim_pk_joint;

typedef struct anim_packed {
  double rate;
  int nframes, njoints;
  const unsigned char *bytes; /* the pack (ANIM_PK_PAD zero bytes after it) */
  unsigned char *frames;      /* every channel's frame indices as u16, decoded from the
                               * pack's deltas by the index (2 bytes a key) */
  size_t len;
  size_t cache_size;          /* the bytes of a track's cache (anim_pk_key) */
  anim_pk_joint *joints;      /* njoints */
  int nkeyed;                 /* the channels with keys */
  const anim_pk_ch **keyed;   /* those channels, by slot (anim_packed_list) */
  size_t table;               /* the floats of the decoded keys' table (anim_packed_decode) */
} anim_packed;

/* The pack's index: checks every byte of p[0..len), its keys at most
 * max_keys in all, and, when out is not NULL, fills it (out->joints must
 * have room for njoints, the count the pack gives: anim_packed_count
 * reads it first; out->frames for 2 bytes a key: the count *nkeys gives,
 * when not NULL; the records' pointers are anim_packed_decode's).  NULL,
 * or a message with *at the byte offset where the pack is wrong (ANIM_PK_
 * TOO_MANY_KEYS: more keys than max_keys). */
const char *anim_packed_index(const unsigned char *p, size_t len, int njoints, size_t max_keys, anim_packed *out,
                              size_t *nkeys, size_t *at);
extern const char ANIM_PK_TOO_MANY_KEYS[];
/* The keys of an indexed pack decoded into table (pk->table floats),
 * each channel's records pointed at. */
void anim_packed_decode(anim_packed *pk, float *table);
/* The joint count of a pack of at least 4 bytes (-1 otherwise or beyond
 * an int). */
long anim_packed_count(const unsigned char *p, size_t len);

/* Writing a pack: the bytes a channel takes (n keys of `kind`, rotation
 * or not, at those frames, of those values: n keys of 3 numbers, 4 for a
 * rotation: x, y, z, w; frames not decreasing, two alike at most; a narrow
 * one at `bits` bits, 1 .. 16, for its widest number, fewer for the
 * others), and the channel written at out.  Returns the bytes written.
 * The header and the kinds byte are the caller's (anim_packed_put_u32 and
 * friends). */
size_t anim_packed_ch_size(int kind, int rot, int n, const int *frames, const double *values, int bits);
size_t anim_packed_ch_write(unsigned char *out, int kind, int rot, int n, const int *frames, const double *values,
                            int bits);
void anim_packed_put_u32(unsigned char *p, unsigned long v);
void anim_packed_put_f64(unsigned char *p, double v);
unsigned long anim_packed_u32(const unsigned char *p);
double anim_packed_f64(const unsigned char *p);

/* Joint j of the pack sampled at clip time t into out (position 0..2,
 * rotation 3..6, scale 7..9; out[10] = 1): cursors: NULL (binary
 * searches) or 3 ints (-1 to start), with which steady play finds its
 * keys in O(1); cache: NULL, or a track's cache of the pack
 * (pk->cache_size bytes, anim_packed_cache_init), which then serves
 * instead of the cursors.  The same bits with or without either.
 * Returns the ANIM_CH_* flags written. */
int anim_packed_sample(const anim_packed *pk, const anim_pk_joint *jt, double t, int *cursors,
                       unsigned char *cache, double out[11]);
/* pk's keyed filled (room for nkeyed, the count anim_packed_index
 * gives). */
void anim_packed_list(anim_packed *pk);
/* A track's cache made to hold, for every channel with keys, the segment
 * of frame f (or the key held there), before the track's joints are
 * sampled at f: the playhead's crossings of keys found first, without a
 * branch a channel, then moved one after the other (a crossing in the
 * sampling would be a mispredicted branch each).  Returns 1 when every
 * channel's segment then holds f strictly inside (f0 < f < f1: no key
 * held, f at no key's frame) or the channel has one key, else 0. */
int anim_packed_refresh(const anim_packed *pk, unsigned char *cache, double f);
/* A track's cache of pk emptied (cache: pk->cache_size bytes, aligned as
 * a double). */
void anim_packed_cache_init(const anim_packed *pk, unsigned char *cache);

/* ---- sampling a channel with keys, inline (the blend's usual joint and
 * anim_packed_sample: one code, the same bits) ---------------------------- */

/* packsample.c: the segment of frame f (*u its fraction; < 0: a key held)
 * found from the cursor, else from the segment e caches, and e made to
 * hold it. */
void anim_pk_fill(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double *u);

/* The 32-bit float at p, little-endian (a wide key's numbers, a narrow
 * position's range). */
static ANIM_INLINE float anim_pk_f32(const unsigned char *p) {
  unsigned long w = (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
  uint32_t u = (uint32_t)w;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Where slot s's f0 is in a track's cache (its group of four, its lane). */
#define ANIM_PK_F1 16 /* (bytes from an entry's f0 to its f1, to its i) */
#define ANIM_PK_I 32
static ANIM_INLINE size_t anim_pk_slot_at(int s) { return 48 * ((size_t)s >> 2) + 4 * ((size_t)s & 3); }
/* Channel c's entry in a track's cache. */
static ANIM_INLINE anim_pk_key anim_pk_entry(unsigned char *cache, const anim_pk_ch *c) {
  anim_pk_key e;
  e.f0 = (float *)(void *)(cache + c->cache);
  e.f1 = (float *)(void *)(cache + c->cache + ANIM_PK_F1);
  e.i = (int *)(void *)(cache + c->cache + ANIM_PK_I);
  return e;
}

/* Frame index i of fr (u16, little-endian: one load where the host is). */
static ANIM_INLINE double anim_pk_frame(const unsigned char *fr, int i) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint16_t v;
  memcpy(&v, fr + 2 * (size_t)i, 2);
  return (double)v;
#else
  return (double)((unsigned)fr[2 * (size_t)i] | (unsigned)fr[2 * (size_t)i + 1] << 8);
#endif
}

/* The frame of clip time t: t times the rate, or the next frame when t is
 * within a nanosecond (times t beyond 1 s) before it.  anim.compress puts a
 * jump of the clip's that close before a frame at that frame
 * (export/gltf/compress.lua), and t * rate may round a frame's own time to
 * just below it: so such a jump plays from its own time on, as the
 * clip's. */
static ANIM_INLINE double anim_packed_frame_at(const anim_packed *pk, double t) {
  double f = t * pk->rate, r = floor(f) + 1;
  return r - f <= 1e-9 * (t > 1 ? t : 1) * pk->rate ? r : f;
}

/* Whether the segment (or held key) cached as i is the one the fill
 * functions find for f, and then its fraction *u (< 0: a held key): from
 * the channel's frames. */
static ANIM_INLINE int anim_pk_hit(const anim_pk_ch *c, int i, double f, double *u) {
  int n = c->n;
  if (i >= n) {
    *u = -1;
    return i == n ? (n == 1 || f <= c->first) : (!(f <= c->first) && f >= c->last);
  }
  if (i >= 0 && f > c->first) {
    double f0 = anim_pk_frame(c->fr, i), f1 = anim_pk_frame(c->fr, i + 1);
    if (f0 <= f && f < f1) { *u = (f - f0) / (f1 - f0); return 1; }
  }
  return 0;
}

/* Two floats p[0], p[1] as doubles (exact), in a pair. */
static ANIM_INLINE anim_v2 anim_pk_v2f(const float *p) {
#if ANIM_VECTOR
  /* (so written, one load and one conversion of the pair: cvtps2pd) */
  typedef float f4 __attribute__((vector_size(16)));
  f4 x = {p[0], p[1], 0, 0};
  anim_v2 r = {(double)x[0], (double)x[1]};
  return r;
#else
  return anim_v2_set(p[0], p[1]);
#endif
}

/* The keys of record k lerped at u (0 <= u < 1): a + (b - a) u, x and y
 * in a pair. */
static ANIM_INLINE void anim_pk_lerp(const float *k, double u, double out[3]) {
  const float *a = k, *b = k + 3;
  anim_v2 a01 = anim_pk_v2f(a);
  anim_v2_store(out, anim_v2_add(a01, anim_v2_mul(anim_v2_sub(anim_pk_v2f(b), a01), anim_v2_splat(u))));
  out[2] = (double)a[2] + ((double)b[2] - a[2]) * u;
}

/* The keys of record k nlerped at u (0 <= u < 1): at the corrected fraction s
 * (packsample.c, quat_arc), (a (1 - s) + b s sg) / its length, the
 * components in pairs.  For unit keys that length squared is
 * (1 - s)^2 + s^2 + 2 s (1 - s) |a.b| = 1 - s (1 - s) g, so it is worked
 * out from s and the entry's g, beside the sum instead of after it: the
 * sample waits on s, then the longer of the sum and a square root and a
 * division, not on the sum's squares as well (the keys are floats, unit
 * within 1.2e-7 and g rounded to a float: the sample's length is 1 within
 * 1e-7, about what the keys' rounding allows; the division folded into
 * the two weights instead put it before the sum: 1.5% slower in W1).
 * anim_pk_nlerp_sum leaves the division to its caller: the sum into out,
 * the length squared into *len2 (the blend divides two samples at once,
 * blend.c's divide_nlerps). */
static ANIM_INLINE void anim_pk_nlerp_sum(const float *k, double u, double out[4], double *len2) {
  const float *a = k, *b = k + 4;
  double w = (u - 0.5) * (u - 0.5), s = u + u * (u - 0.5) * (u - 1) * ((double)k[9] + w * k[10]);
  anim_v2 sa = anim_v2_splat(1 - s), sb = anim_v2_splat(s * k[8]);
  *len2 = 1 - s * (1 - s) * k[11];
  anim_v2_store(out, anim_v2_lin(anim_pk_v2f(a), sa, anim_pk_v2f(b), sb));
  anim_v2_store(out + 2, anim_v2_lin(anim_pk_v2f(a + 2), sa, anim_pk_v2f(b + 2), sb));
}
static ANIM_INLINE void anim_pk_nlerp(const float *k, double u, double out[4]) {
  double len2;
  anim_v2 l;
  anim_pk_nlerp_sum(k, u, out, &len2);
  l = anim_v2_splat(1 / sqrt(len2));
  anim_v2_store(out, anim_v2_mul(anim_v2_load(out), l));
  anim_v2_store(out + 2, anim_v2_mul(anim_v2_load(out + 2), l));
}

/* packsample.c: a sample whose frame f is not strictly inside the
 * segment e holds (the playhead past it, at its first frame, a key held,
 * a seek): e made to hold f -- moved on a key when f is in the next
 * segment (f1 <= f < f2), else as anim_pk_hit and the fill find it --,
 * then the sample as below (a key held: as it is, a rotation made unit). */
void anim_pk_vec_other(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[3]);
void anim_pk_quat_other(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[4]);
/* Channel c's entry in a track's cache made to hold frame f (as the two
 * above make it, stride its records' floats): f's fraction in its
 * segment, *k the record; or < 0, a key held, *k its numbers (blendpq.c:
 * after the refresh, f at a segment's first frame or a key held). */
double anim_pk_move_to(const anim_pk_ch *c, double f, unsigned char *cache, int stride, const float **k);

/* A position or scale channel at frame f into out[3]: the keys of e's
 * record lerped.  Steady play is strictly inside the segment e holds (a
 * track's entries moved on first: anim_packed_refresh). */
static ANIM_INLINE void anim_pk_vec(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[3]) {
  double f0 = *e->f0, f1 = *e->f1;
  if (f0 < f && f < f1) anim_pk_lerp(c->rec + (size_t)*e->i * ANIM_PK_VREC, (f - f0) / (f1 - f0), out);
  else anim_pk_vec_other(c, f, cursor, e, out);
}

/* The blend's: anim_pk_vec on a track's cache (base: its slot 0), and a
 * rotation's nlerp left undivided: its sum into out, *len2 its length
 * squared, which the caller divides by (1 for a sample made otherwise,
 * unit already).  (The entry is made only for the call: made before the
 * test, it was kept in memory for it, a store and a load a field.) */
static ANIM_INLINE void anim_pk_vec_track(const anim_pk_ch *c, double f, unsigned char *cache, double out[3]) {
  const unsigned char *p = cache + c->cache;
  double f0 = *(const float *)(const void *)p, f1 = *(const float *)(const void *)(p + ANIM_PK_F1);
  if (f0 < f && f < f1) {
    anim_pk_lerp(c->rec + (size_t) * (const int *)(const void *)(p + ANIM_PK_I) * ANIM_PK_VREC, (f - f0) / (f1 - f0),
                 out);
  } else {
    anim_pk_key e = anim_pk_entry(cache, c);
    anim_pk_vec_other(c, f, NULL, &e, out);
  }
}
static ANIM_INLINE void anim_pk_quat_sum(const anim_pk_ch *c, double f, unsigned char *cache, double out[4],
                                         double *len2) {
  const unsigned char *p = cache + c->cache;
  double f0 = *(const float *)(const void *)p, f1 = *(const float *)(const void *)(p + ANIM_PK_F1);
  if (f0 < f && f < f1) {
    anim_pk_nlerp_sum(c->rec + (size_t) * (const int *)(const void *)(p + ANIM_PK_I) * ANIM_PK_QREC,
                      (f - f0) / (f1 - f0), out, len2);
  } else {
    anim_pk_key e = anim_pk_entry(cache, c);
    anim_pk_quat_other(c, f, NULL, &e, out);
    *len2 = 1;
  }
}

/* A rotation channel at frame f into out[4]: the keys of e's record
 * nlerped. */
static ANIM_INLINE void anim_pk_quat(const anim_pk_ch *c, double f, int *cursor, anim_pk_key *e, double out[4]) {
  double f0 = *e->f0, f1 = *e->f1;
  if (f0 < f && f < f1) anim_pk_nlerp(c->rec + (size_t)*e->i * ANIM_PK_QREC, (f - f0) / (f1 - f0), out);
  else anim_pk_quat_other(c, f, cursor, e, out);
}

#endif
