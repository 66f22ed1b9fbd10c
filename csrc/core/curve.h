/* curve.h - scalar curves (one axis of a channel), quaternion curves and
 * the curve modifiers.  Plain C, no Lua. */
#ifndef ANIM_CURVE_H
#define ANIM_CURVE_H

#include <math.h>
#include <stddef.h>

#include "amath.h"
#include "codes.h"

/* A key's interpolation byte (its bits are ANIM_IE_* in codes.h): the
 * interpolation of the segment that starts at the key, the easing
 * direction, and whether the file wrote the interpolation and the ease
 * (kept so that a clip encodes back to the same text; sampling ignores
 * them). */
#define ANIM_IE(interp, ease) ((unsigned char)((interp) | (ease) << ANIM_IE_EASE_SHIFT))

/* One channel's keys, stored as arrays: the numbers of the file and one
 * byte per key, so that a clip of many keys stays small and sampling reads
 * consecutive memory.  Bezier handles take room only for the keys that
 * have them: bit i of hbits marks key i, and the records are in key order
 * (anim_keys_handle finds key i's in O(1) from hrank, the count of marked
 * keys before each word of hbits).  A record is ANIM_HREC_DT(hdt, arity)
 * numbers: out dt[hdt], in dt[hdt] (NaN: that handle is absent), out
 * dv[d], in dv[d] (d = 1 for arity 1, else 3: a handle's dv has three
 * axes), then ANIM_HFORM_* flags (for encoding; a quaternion key keeps its
 * handles only for that).  hdt is 1 (the axes share each handle's time:
 * ANIM_HREC(arity) numbers, the usual record) or d (each axis its own
 * time: a channel where some key's axes differ; its every record is then
 * of that size).  Quaternion channels (arity 4) also get arc: per key, the
 * slerp to the next key prepared by anim_qcurve_prepare. */
#define ANIM_HDIMS(arity) ((arity) == 1 ? 1 : 3)
#define ANIM_HREC_DT(hdt, arity) (1 + 2 * (hdt) + 2 * ANIM_HDIMS(arity))
#define ANIM_HREC(arity) ANIM_HREC_DT(1, arity)

typedef struct anim_keys {
  int n, arity, nh;
  unsigned char hdt;       /* the handle times of a record: 1 or ANIM_HDIMS(arity) */
  unsigned char hrec;      /* the numbers of a record: ANIM_HREC_DT(hdt, arity) (no room
                            * taken: the struct's padding) */
  double *t;               /* n times, not decreasing */
  double *v;               /* n * arity values, key after key, as the file wrote them */
  double *arc;             /* quaternions: n * 4 */
  double *unit;            /* quaternions: NULL, or when a key's largest component is beyond
                            * what one factor can scale (below 2^-1000, above 2^1000): the
                            * keys made unit, which sampling then reads instead of v */
  double *h;               /* nh records */
  unsigned *hbits, *hrank; /* (n + 31) / 32 words each; NULL when nh = 0 */
  double *tan;             /* NULL, or per key its in-tangent then its out-tangent
                            * (arity numbers each, in value units per second) for
                            * ANIM_CUBICSPLINE segments; a tangent the key does not
                            * give is all NaN (sampled as 0) */
  unsigned char *ie;       /* n */
} anim_keys;

/* Is v (arity numbers) a tangent the key gave (not NaN)? */
#define ANIM_TAN_GIVEN(v) ((v)[0] == (v)[0])

/* The numbers of one of k's handle records. */
#define ANIM_KEYS_HREC(k) ((int)(k)->hrec)

/* Key i's handle record, or NULL. */
const double *anim_keys_handle(const anim_keys *k, int i);
/* Marks key i as the one with record `rank` (records go in key order:
 * rank is the count of keys marked before it); returns the record to
 * fill.  anim_keys_rank then counts hrank (anim_clip_finish does). */
double *anim_keys_mark(anim_keys *k, int i, int rank);
/* Counts hrank from hbits; returns the number of marked keys. */
int anim_keys_rank(anim_keys *k);

/* Curve modifiers (SEMANTICS 3): their types (ANIM_MOD_*) and the modes
 * of cycles (ANIM_CYC_*) are in codes.h. */

typedef struct anim_mod {
  int type;
  /* cycles: a = before mode, b = after mode
   * stepped: step, offset
   * noise: scale, strength, phase, offset
   * limits: min, max (use -inf/+inf for an absent side)
   * envelope: reference, min, max, then npoints points (time, lo, hi) */
  int before, after;
  double p[4];
  int npoints;
  const double *points;
} anim_mod;

/* A scalar curve: one axis of a channel's keys. */
typedef struct anim_curve {
  const anim_keys *k;      /* NULL or no keys: the curve is 0 */
  int axis;
  int wrap;                /* catmullrom neighbours wrap (looping clip) */
  int nmods;
  const anim_mod *mods;    /* only those that apply to this axis, enabled */
} anim_curve;

/* A quaternion curve: slerp; catmullrom and bezier act as linear;
 * cubicspline is glTF's Hermite spline on the four components of the keys
 * as written, made unit (glTF 2.0, Appendix C).  The values are the
 * file's; samples are made unit. */
typedef struct anim_qcurve {
  const anim_keys *k;      /* arity 4, arc prepared */
} anim_qcurve;

/* Value of the curve at time t (modifiers applied).  cursor may be NULL. */
double anim_curve_eval(const anim_curve *c, double t, int *cursor);

/* Three curves (the axes of a channel) with the same key times and no
 * modifiers: one key search serves all three. */
int anim_curves_share_times(const anim_curve c[3]);
void anim_curves_eval_shared(const anim_curve c[3], double t, int *cursor, double out[3]);

/* Whether every key of the curve interpolates linearly (no easing, no
 * bezier, catmull-rom or step) and no modifier applies. */
int anim_curve_all_linear(const anim_curve *c);
/* The same for a quaternion curve: slerp everywhere (catmull-rom and
 * bezier act as linear on quaternions; no step, no easing). */
int anim_qcurve_all_slerp(const anim_qcurve *c);
/* Three curves with the same key times, all linear (both checked at build
 * time): one key search and one fraction for the three axes. */
void anim_curves_lerp_shared(const anim_curve c[3], double t, int *cursor, double out[3]);

/* n curves of one key array's times each (a property's components), all
 * linear: anim_curve_eval's values, one key search (cursor: the first
 * curve's) and one fraction for the n. */
void anim_curves_lerp_n(const anim_curve *c, int n, double t, int *cursor, double *out);

/* Whether the quaternion keys need k->unit (anim_qcurve_prepare fills it). */
int anim_qcurve_needs_unit(const anim_keys *k);
/* Fills k->arc (and k->unit when set): each key's slerp to the next, the
 * values made unit on the way.  Returns 0, or -1 when a value has no
 * length or is not finite. */
int anim_qcurve_prepare(anim_keys *k);

/* Rotation of the quaternion curve at time t.  cursor may be NULL. */
void anim_qcurve_eval(const anim_qcurve *c, double t, int *cursor, double out[4]);

/* The steady case of a cursor, inline (the blend calls these per joint and
 * track): the segment [t_i, t_i+1) holding t when it is the cursor's or
 * the next one (the cursor then moves to it), else -1.  A segment holds at
 * most one t, so this is the key anim_curve_eval's search finds.  Which of
 * the two is chosen without a branch: in steady play the move to the next
 * segment comes every few frames, at no time a branch predictor can
 * guess, and each guess it misses costs a dozen instructions' time. */
static ANIM_INLINE int anim_keys_segment(const double *tt, int n, double t, int *cursor) {
  int i = *cursor;
  if (i >= 0 && i < n - 1) {
    i += (i + 1 < n - 1) & (t >= tt[i + 1]);
    if (tt[i] <= t && t < tt[i + 1]) return *cursor = i;
  }
  return -1;
}

/* A channel's keys as the inline sampling below reads them (an
 * anim_joint keeps one per channel of a `fast` joint, set by
 * anim_clip_finish): times, values (quaternions: made unit when the keys
 * needed it: anim_keys' unit, else v), the slerps' arcs (a turn about z
 * alone: its segments' records, anim_zturn_prepare), the count; n = 0
 * sends every sample through the curve functions. */
typedef struct anim_fastkeys {
  const double *t, *v, *arc;
  int n;
} anim_fastkeys;

/* anim_curves_lerp_shared with a cursor (the same arithmetic, so the same
 * bits) on f, c's keys: inline on the cursor's segment or the next;
 * anything else through the function. */
static ANIM_INLINE void anim_curves_lerp_inline(const anim_curve c[3], const anim_fastkeys *f, double t,
                                                int *cursor, double out[3]) {
  const double *a, *tt;
  double s;
  int i = anim_keys_segment(f->t, f->n, t, cursor);
  if (i < 0) { anim_curves_lerp_shared(c, t, cursor, out); return; }
  a = f->v + 3 * (size_t)i;
  tt = f->t + i;
  s = (t - tt[0]) / (tt[1] - tt[0]);
  {
    /* x and y as a pair (anim_v2), z alone */
    anim_v2 a01 = anim_v2_load(a);
    anim_v2_store(out, anim_v2_add(a01, anim_v2_mul(anim_v2_sub(anim_v2_load(a + 3), a01), anim_v2_splat(s))));
  }
  out[2] = a[2] + (a[5] - a[2]) * s;
}

/* anim_qcurve_eval with a cursor, on f, c's keys, for a curve that slerps
 * everywhere (anim_qcurve_all_slerp): inline on the cursor's segment or
 * the next when its arc is one of sines and cosines (the usual case: the
 * same arithmetic, so the same bits); anything else through the
 * function. */
static ANIM_INLINE void anim_qcurve_slerp_inline(const anim_qcurve *c, const anim_fastkeys *f, double t,
                                                 int *cursor, double out[4]) {
  const double *v, *arc;
  double s, x, sf, cf, wa, wb;
  int i = anim_keys_segment(f->t, f->n, t, cursor);
  if (i < 0) { anim_qcurve_eval(c, t, cursor, out); return; }
  arc = f->arc + 4 * (size_t)i;
  if (arc[3] == 0) { anim_qcurve_eval(c, t, cursor, out); return; }
  s = (t - f->t[i]) / (f->t[i + 1] - f->t[i]);
  /* on the segment s is in [0, 1] (rounding is monotone) and the arc in
   * (0, pi/2] (anim_qcurve_prepare turns the next key into the first's
   * hemisphere): x is within ANIM_SINCOS_RANGE, where anim_qcurve_eval
   * takes the series too */
  x = s * arc[3];
  anim_sincos_small(x, &sf, &cf);
  v = f->v + 4 * (size_t)i;
  wa = arc[0] * cf - arc[1] * sf;
  wb = arc[2] * sf;
  {
    /* out[c] = wa v[c] + wb v[4 + c], two components at a time */
    anim_v2 va = anim_v2_splat(wa), vb = anim_v2_splat(wb);
    anim_v2_store(out, anim_v2_lin(va, anim_v2_load(v), vb, anim_v2_load(v + 4)));
    anim_v2_store(out + 2, anim_v2_lin(va, anim_v2_load(v + 2), vb, anim_v2_load(v + 6)));
  }
}

/* A turn about z alone: Euler keys (+0, +0, z) lerped, as a quaternion
 * (eps 1: xyz, -1: yxz; a 2D bone's rotation channel).  Per segment
 * anim_zturn_prepare keeps the sine and cosine of its middle half angle
 * h_m, its half turn d (radians) over its length and its middle time: the
 * half angle at t is h_m + x, x = (t - t_m) d / (t1 - t0), whose sine and
 * cosine are those of h_m turned by x's from the series (|x| <= pi/4
 * where its error is below 1e-15): the lerped angle's quaternion within
 * rounding, no anim_sincos and no division a sample.  A segment turning
 * more than half a turn (its |d| > pi/2), or of angles too large for it,
 * keeps the lerped angle (anim_quat_about_z); so do the keys themselves
 * before the first and after the last. */
#define ANIM_ZTURN_REC 4
/* Fills zt (ANIM_ZTURN_REC (n - 1) numbers) from the n keys of arity 3. */
void anim_zturn_prepare(const anim_keys *k, double *zt);

/* The quaternion at t, any t (a binary search when cursor is NULL).  Out
 * of line: inline in the blend's usual pose it would take registers from
 * W1's joints there (2 instructions more a joint-sample:
 * bench/skeleton2d.lua --grind); a 2D animator's blend has its own copy
 * of the pose, which takes anim_zturn_inline. */
void anim_zturn_eval(const anim_fastkeys *f, double t, int *cursor, double eps, double out[4]);

/* The quaternion at t on the prepared record z of its segment (z[2] not
 * NaN): x = (t - t_m) d / (t1 - t0) from the middle time t_m (no division
 * a sample), the quaternion (+0, +0, sin, cos) (a turn about z: its x and
 * y zeros of one sign, where anim_quat_about_z's carry the signs of its
 * products). */
static ANIM_INLINE void anim_zturn_series(const double *z, double t, double out[4]) {
  double sx, cx;
  anim_sincos_small((t - z[3]) * z[2], &sx, &cx);
  out[0] = out[1] = 0;
  out[2] = z[0] * cx + z[1] * sx;
  out[3] = z[1] * cx - z[0] * sx;
}

/* anim_zturn_eval with a cursor, inline on the cursor's segment or the
 * next when its record is the series' (the same arithmetic, so the same
 * bits); anything else through the function. */
static ANIM_INLINE void anim_zturn_inline(const anim_fastkeys *f, double t, int *cursor, double eps, double out[4]) {
  int i = anim_keys_segment(f->t, f->n, t, cursor);
  const double *z;
  /* (a channel of one key has no records: arc is NULL, and not an
   * address to add to, even 0; found by fuzz_spine under UBSan) */
  if (i < 0) {
    anim_zturn_eval(f, t, cursor, eps, out);
    return;
  }
  z = f->arc + ANIM_ZTURN_REC * (size_t)i;
  if (!(z[2] == z[2])) anim_zturn_eval(f, t, cursor, eps, out);
  else anim_zturn_series(z, t, out);
}

/* The noise of the noise modifier: smooth (C2), deterministic, in [0, 1]. */
double anim_noise(double x, double phase);

#endif
