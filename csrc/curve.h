/* curve.h - scalar curves (one axis of a channel), quaternion curves and
 * the curve modifiers.  Plain C, no Lua. */
#ifndef ANIM_CURVE_H
#define ANIM_CURVE_H

/* A key of a scalar curve.  The interpolation decides the segment that
 * starts at this key.  Bezier handles are [dt, dv] from the key; a handle
 * whose dt is NaN is absent (flat, a third of the segment). */
typedef struct anim_key {
  double t, v;
  double out_dt, out_dv, in_dt, in_dv;
  unsigned char interp, ease;
} anim_key;

/* Curve modifiers (SEMANTICS 3). */
enum { ANIM_MOD_CYCLES, ANIM_MOD_STEPPED, ANIM_MOD_NOISE, ANIM_MOD_LIMITS,
       ANIM_MOD_ENVELOPE };
enum { ANIM_CYC_NONE, ANIM_CYC_REPEAT, ANIM_CYC_OFFSET, ANIM_CYC_MIRROR };

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

typedef struct anim_curve {
  int n;
  const anim_key *keys;
  int wrap;                /* catmullrom neighbours wrap (looping clip) */
  int nmods;
  const anim_mod *mods;    /* only those that apply to this axis, enabled */
} anim_curve;

/* A quaternion key: slerp; catmullrom and bezier act as linear. */
typedef struct anim_qkey {
  double t;
  double q[4];
  unsigned char interp, ease;
  /* The arc to the next key, computed once by anim_qcurve_prepare: angle
   * th and the unit quaternion c orthogonal to q (the next key, taken in
   * q's hemisphere, is q cos th + c sin th).  th = 0: nearly equal keys. */
  double th, c[4];
} anim_qkey;

typedef struct anim_qcurve {
  int n;
  const anim_qkey *keys;
} anim_qcurve;

/* Index of the last key whose time is <= t, or -1 before the first key.
 * *cursor is the previous answer (any int; -1 to start): steady forward
 * or backward play finds the key in O(1), a jump falls back to a binary
 * search.  Works on any array of structs that start with a double time. */
int anim_find_key(const void *keys, int n, int stride, double t, int *cursor);

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

/* Computes each key's arc to the next (the keys are unit quaternions). */
void anim_qcurve_prepare(anim_qkey *keys, int n);

/* Rotation of the quaternion curve at time t.  cursor may be NULL. */
void anim_qcurve_eval(const anim_qcurve *c, double t, int *cursor, double out[4]);

/* The noise of the noise modifier: smooth (C2), deterministic, in [0, 1]. */
double anim_noise(double x, double phase);

#endif
