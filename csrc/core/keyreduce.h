/* keyreduce.h - the greedy choice of a dense channel's keys
 * (lua/anim/export/gltf/reduce_curve.lua's simplify, with its
 * farthest_quat and farthest_lin): the same arithmetic in the same order,
 * so that the keys kept are the Lua choice's.  Plain arrays; nothing
 * allocated. */
#ifndef ANIM_KEYREDUCE_H
#define ANIM_KEYREDUCE_H

/* A channel's n samples: times[0..n), m numbers a sample in vals (sample i
 * at vals + i * m); quat: unit quaternions (m = 4), slerped, the distance
 * an angle in radians; else interpolated linearly, the distance the
 * largest difference of a component. */
typedef struct anim_keychan {
  int n, m, quat;
  const double *times, *vals;
} anim_keychan;

/* The indices (0-based, ascending, the first sample first) of the keys
 * kept so that the keys kept, interpolated, stay within tol of every
 * sample left out, into out (n numbers of room, at least 1); returns their
 * count. */
int anim_keys_simplify(const anim_keychan *ch, double tol, int *out);

/* The distances of every sample of the segments between the knots
 * knots[0..nk) (ascending sample indices) to the keys placed at them,
 * fv (nk * ch->m numbers), as played (slerp, or linearly): errs[i] each
 * sample's (the square root of 8 (1 - cos) for a quaternion; a knot's
 * from the segment after it), segw[j] the largest of segment j (radians;
 * -1 when none compares): fit_once's farthest_quat / farthest_lin calls. */
void anim_keys_errors(const anim_keychan *ch, const int *knots, int nk, const double *fv, double *errs, double *segw);

/* The values at the knots (nk * m numbers into out) of the least-squares
 * piecewise-linear curve through the samples (m <= 4 numbers each) weighted
 * by w (n numbers): reduce_curve.lua's lsq; 0 when the system is singular
 * (out then undefined), else 1.  scratch: 9 * nk doubles. */
int anim_keys_lsq(const anim_keychan *ch, const int *knots, int nk, const double *w, double *out, double *scratch);

/* n quaternions (4 numbers each) made unit in place: keys.lua's qnorm. */
void anim_keys_unit(double *q, int n);

/* n quaternions of in into out, each in the hemisphere of the one before
 * it as written (negated when their dot product is below 0):
 * reduce_curve.lua's choose, its `cont`. */
void anim_keys_cont(const double *in, double *out, int n);

/* The times a clip is measured at (reduce.lua's sample_times): of the n
 * times in all (sorted in place), those in [0, L] once each, ascending,
 * and halfway between two, into out (room for 2 n, at least 1); 0 when
 * none is. Returns their count. */
int anim_keys_times(double *all, int n, double L, double *out);

/* The time just before a jump at t, where it is measured too (the value
 * arriving): t less 1e-9 times the larger of |t| and 1 (a nanosecond up
 * to a second, relative beyond, where a nanosecond may be no double). */
double anim_keys_before(double t);

/* The fit's options: the tolerance, the keys it must keep fewer than,
 * its reweighting rounds (lawson, at least 1) and its rounds of keys added
 * (repair); cont: quaternions fitted in components, made unit; shorts:
 * each value then rounded to normalized shorts (keys.lua's short_quat). */
typedef struct anim_fitopts {
  double tol;
  int most, lawson, repair, cont, shorts;
} anim_fitopts;

/* reduce_curve.lua's fit: the values at the knots knots[0..nk) (room for
 * ch->n) of the least-squares curve through fc's samples (m <= 4 numbers,
 * a quaternion's in one hemisphere when cont), reweighted towards the
 * least largest error of ch's samples as played (ch: the samples
 * keys_errors measures, fc's made unit), the worst sample of each segment
 * still astray made a knot; into fv (ch->n * m numbers).  Returns the count
 * of knots, or 0 when no fit holds with fewer than o->most.  scratch: 12 *
 * ch->n doubles; add: ch->n ints. */
int anim_keys_fit(const anim_keychan *ch, const anim_keychan *fc, int *knots, int nk, const anim_fitopts *o, double *fv,
                  double *scratch, int *add);

#endif
