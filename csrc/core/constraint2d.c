/* constraint2d.c - a 2D skeleton's constraints, each applied at its step
 * of the update order (see world2d_impl.h): IK of one bone and of two
 * (the user guide's "IK constraints": mix, softness, bend direction,
 * compress, stretch, uniform) and transform constraints (its "Transform
 * constraints": the target's world or local transform copied, or added
 * when relative, channel by channel with mixes and offsets).  Written from
 * the pages' meaning, not from the Spine Runtimes' code; the formulas and
 * the readings chosen are in docs/formats.md, "2D skeletons". */
#include <float.h>
#include <math.h>
#include <string.h>

#include "world2d_impl.h"

#define RAD ANIM_W2D_RAD
#define DEG ANIM_W2D_DEG
#define TINY ANIM_W2D_TINY
#define wrap anim_w2d_wrap

/* ---- IK ----------------------------------------------------------------- */

/* The cosine and sine of applied values ap's shearX (bone j's): 0's, the
 * setup's (made with the shape), else 0 (an animated shear: the caller
 * takes the angles). */
static int shear_cs(const anim_world2d *w, int j, const double *ap, double *k, double *q) {
  double sh = ap[ANIM_ASHX];
  if (sh == 0) { *k = 1; *q = 0; return 1; }
  if (sh != w->bone[j].shear[0]) return 0;
  *k = w->sht[ANIM_SHT * j];
  *q = w->sht[ANIM_SHT * j + 1];
  return 1;
}

/* (x, y) over its length into u: 0 when it has none, or overflowed */
static int unit(double x, double y, double u[2]) {
  double d = sqrt(x * x + y * y);
  if (!(d > 0 && d <= DBL_MAX)) return 0;
  u[0] = x / d;
  u[1] = y / d;
  return 1;
}

/* Applied values ap turned to the direction (c, s) times (k, -q) (a turn
 * by minus the angle of (k, q)), half a turn more when neg: set as the
 * rotation's cosine and sine, as the pose gives them (ANIM_AR NaN). */
static void set_turn(double *ap, double c, double s, double k, double q, int neg) {
  double x = c * k + s * q, y = s * k - c * q;
  ap[ANIM_ACR] = neg ? -x : x;
  ap[ANIM_ASR] = neg ? -y : y;
  ap[ANIM_AR] = NAN;
}

/* One bone: turned so that its x axis points at the target; compress and
 * stretch scale it (its x, and y too when uniform) so that its tip reaches
 * the target when nearer, farther than its length. */
static void ik_one(const anim_animator *a, anim_world2d *w, const anim_w2d_ik *k, double mix, int compress,
                   int stretch) {
  int j = k->bones[0];
  double *ap = &w->ap[ANIM_AP * j], *m = &w->wm[6 * j];
  const double *t = &w->wm[6 * k->target];
  double lx, ly, r, len, d, u[2], sk, sq;
  if (!anim_w2d_in_frame(&w->fr[4 * j], m[4], m[5], t[4], t[5], &lx, &ly)) return;
  if (mix == 1 && unit(lx, ly, u) && shear_cs(w, j, ap, &sk, &sq)) {
    /* (at mix 1 the turn is the direction's: its cosine and sine from the
     * vector, no atan2 and no sine -- the same within rounding) */
    set_turn(ap, u[0], u[1], sk, sq, ap[ANIM_ASX] < 0);
  } else {
    anim_w2d_angle(ap);
    r = atan2(ly, lx) * DEG - ap[ANIM_ASHX] + (ap[ANIM_ASX] < 0 ? 180 : 0);
    ap[ANIM_AR] += wrap(r - ap[ANIM_AR]) * mix;
  }
  len = w->bone[j].length * fabs(ap[ANIM_ASX]);
  d = sqrt(lx * lx + ly * ly);
  if (len > TINY && ((compress && d < len) || (stretch && d > len))) {
    double s = (d / len - 1) * mix + 1;
    ap[ANIM_ASX] *= s;
    if (k->uniform) ap[ANIM_ASY] *= s;
  }
  anim_w2d_bone_world(a, w, j);
}

/* The two-bone IK's turns at mix 1 as cosines and sines (the target at
 * (lx, ly), (ex, ey) the direction of the child's origin, l1 its
 * distance, l2 the child's length, cos2 the cosine of the child's bend):
 * the angles' sums and differences as products of unit vectors -- no
 * atan2, acos, sine or cosine; the same turns within rounding.  0 (and
 * nothing set) when a vector has no length or a shear is animated: the
 * caller takes the angles. */
static int two_turns(anim_world2d *w, const anim_w2d_ik *k, double lx, double ly, double ex, double ey, double l1,
                     double l2, double cos2, int bend) {
  int p = k->bones[0], c = k->bones[1];
  double *pa = &w->ap[ANIM_AP * p], *ca = &w->ap[ANIM_AP * c];
  double u[2], v[2], kp, qp, kc, qc, s2 = sqrt(1 - cos2 * cos2), x, y;
  if (bend < 0) s2 = -s2;
  if (!unit(lx, ly, u) || !unit(l1 + l2 * cos2, l2 * s2, v) || !shear_cs(w, p, pa, &kp, &qp) ||
      !shear_cs(w, c, ca, &kc, &qc))
    return 0;
  /* parent: th1 - al = atan2(u) - atan2(v) - atan2(e) */
  x = u[0] * v[0] + u[1] * v[1];
  y = u[1] * v[0] - u[0] * v[1];
  set_turn(pa, x, y, ex, ey, 0);
  /* child: th2 + al - shX(parent) - shX(child), half a turn more when its scaleX < 0 */
  x = cos2 * ex - s2 * ey;
  y = s2 * ex + cos2 * ey;
  set_turn(ca, x * kp + y * qp, y * kp - x * qp, kc, qc, ca[ANIM_ASX] < 0);
  return 1;
}

/* Two bones, a parent and its child, solved in the parent's frame: the
 * law of cosines on l1 (the parent's origin to the child's) and l2 (the
 * child's length, scaled by its scaleX and the parent's), the reach eased
 * by softness, or the parent stretched (its scaleX, and Y when uniform)
 * so that the straight chain reaches a target beyond it. */
static void ik_two(const anim_animator *a, anim_world2d *w, const anim_w2d_ik *k, double mix, double soft,
                   int bend, int stretch) {
  int p = k->bones[0], c = k->bones[1];
  double *pa = &w->ap[ANIM_AP * p], *ca = &w->ap[ANIM_AP * c], *pm = &w->wm[6 * p];
  const double *t = &w->wm[6 * k->target];
  double lx, ly, a0, b0, c0, d0, cx, cy, l1, l2, d, reach, dd, cos2, th2, th1, r1, r2, s = 1;
  if (!anim_w2d_in_frame(&w->fr[4 * p], pm[4], pm[5], t[4], t[5], &lx, &ly)) return;
  /* the parent's local matrix at rotation 0: L(r) = R(r) L(0) (the setup
   * shear's cosines and sines made with the shape) */
  {
    const double *sht = &w->sht[ANIM_SHT * p];
    double kx = sht[0], qx = sht[1], ky = sht[4], qy = sht[5];
    if (pa[ANIM_ASHX] != w->bone[p].shear[0]) { kx = cos(pa[ANIM_ASHX] * RAD); qx = sin(pa[ANIM_ASHX] * RAD); }
    if (pa[ANIM_ASHY] != w->bone[p].shear[1]) {
      ky = cos((90 + pa[ANIM_ASHY]) * RAD);
      qy = sin((90 + pa[ANIM_ASHY]) * RAD);
    }
    a0 = kx * pa[ANIM_ASX];
    c0 = qx * pa[ANIM_ASX];
    b0 = ky * pa[ANIM_ASY];
    d0 = qy * pa[ANIM_ASY];
  }
  cx = a0 * ca[ANIM_AX] + b0 * ca[ANIM_AY];
  cy = c0 * ca[ANIM_AX] + d0 * ca[ANIM_AY];
  l1 = sqrt(cx * cx + cy * cy);
  l2 = w->bone[c].length * fabs(ca[ANIM_ASX]) * fabs(pa[ANIM_ASX]);
  if (!(l1 > TINY) || !(l2 > TINY)) return;
  d = sqrt(lx * lx + ly * ly);
  reach = l1 + l2;
  dd = d;
  if (stretch && d > reach) {
    s = d / reach;
    dd = reach;
  } else if (soft > 0 && d > reach - soft) {
    /* eased from reach - soft (slope 1) to straight at reach + soft (slope 0) */
    double e = reach + soft - d;
    dd = d >= reach + soft ? reach : reach - e * e / (4 * soft);
  }
  if (dd > reach) dd = reach;
  if (dd < fabs(l1 - l2)) dd = fabs(l1 - l2);
  cos2 = (dd * dd - l1 * l1 - l2 * l2) / (2 * l1 * l2);
  cos2 = cos2 > 1 ? 1 : cos2 < -1 ? -1 : cos2;
  if (mix != 1 || !two_turns(w, k, lx, ly, cx / l1, cy / l1, l1, l2, cos2, bend)) {
    double al;
    {
      /* (its direction kept with the block: the same numbers, to the bit,
       * give the same atan2 -- a chain's local geometry rarely moves) */
      double *memo = &w->ikal[3 * (k - w->ik)], in[2];
      in[0] = cx;
      in[1] = cy;
      if (memcmp(in, memo, sizeof in) != 0) {
        memo[0] = cx;
        memo[1] = cy;
        memo[2] = atan2(cy, cx);
      }
      al = memo[2];
    }
    th2 = (bend < 0 ? -1 : 1) * acos(cos2);
    th1 = atan2(ly, lx) - atan2(l2 * sin(th2), l1 + l2 * cos(th2));
    r1 = (th1 - al) * DEG;
    r2 = (th2 + al) * DEG - pa[ANIM_ASHX] - ca[ANIM_ASHX] + (ca[ANIM_ASX] < 0 ? 180 : 0);
    anim_w2d_angle(pa);
    anim_w2d_angle(ca);
    pa[ANIM_AR] += wrap(r1 - pa[ANIM_AR]) * mix;
    ca[ANIM_AR] += wrap(r2 - ca[ANIM_AR]) * mix;
  }
  if (s != 1) {
    s = (s - 1) * mix + 1;
    pa[ANIM_ASX] *= s;
    if (k->uniform) pa[ANIM_ASY] *= s;
  }
  anim_w2d_bone_world(a, w, p);
  anim_w2d_bone_world(a, w, c);
}

void anim_w2d_ik_apply(const anim_animator *a, anim_world2d *w, int i, double mix, double soft, int bend,
                       int compress, int stretch) {
  const anim_w2d_ik *k = &w->ik[i];
  if (!(mix != 0)) return;
  if (k->dragonbones) anim_w2d_db_ik(a, w, i, mix, bend);
  else if (k->nbones == 1) ik_one(a, w, k, mix, compress, stretch);
  else ik_two(a, w, k, mix, soft, bend, stretch);
}

/* ---- transform constraints ------------------------------------------------ */

enum { TR, TX, TY, TSX, TSY, TSHY };

static double len2(double x, double y) { return sqrt(x * x + y * y); }

/* The world matrix m of a constrained bone moved toward the target's t
 * (or by it, relative): its axes turned, its origin moved, its axes
 * scaled, its y axis turned against its x axis (shear). */
static void tc_world(double *m, const double *t, const double *mix, const double *off, int relative) {
  double r, s, k;
  if (mix[TR] != 0) {
    double cr, sr, x, y;
    if (relative) {
      r = wrap(atan2(t[2], t[0]) * DEG + off[TR]) * mix[TR] * RAD;
    } else {
      /* the turn from the bone's x axis to the target's: one atan2 of the
       * two axes' cross and dot products (the difference of their two
       * angles within rounding); an axis of no length has the direction
       * atan2 gives it alone */
      double ys = m[0] * t[2] - m[2] * t[0], xs = m[0] * t[0] + m[2] * t[2];
      double d = ys != 0 || xs != 0 ? atan2(ys, xs) * DEG : atan2(t[2], t[0]) * DEG - atan2(m[2], m[0]) * DEG;
      r = wrap(d + off[TR]) * mix[TR] * RAD;
    }
    cr = cos(r);
    sr = sin(r);
    x = m[0]; y = m[2];
    m[0] = cr * x - sr * y; m[2] = sr * x + cr * y;
    x = m[1]; y = m[3];
    m[1] = cr * x - sr * y; m[3] = sr * x + cr * y;
  }
  if (mix[TX] != 0 || mix[TY] != 0) {
    /* the target's point at the offset, in its own axes */
    double px = t[0] * off[TX] + t[1] * off[TY] + t[4], py = t[2] * off[TX] + t[3] * off[TY] + t[5];
    m[4] += (relative ? px : px - m[4]) * mix[TX];
    m[5] += (relative ? py : py - m[5]) * mix[TY];
  }
  if (mix[TSX] != 0 && (s = len2(m[0], m[2])) > TINY) {
    double ts = len2(t[0], t[2]);
    k = relative ? 1 + (ts - 1 + off[TSX]) * mix[TSX] : (s + (ts - s + off[TSX]) * mix[TSX]) / s;
    m[0] *= k;
    m[2] *= k;
  }
  if (mix[TSY] != 0 && (s = len2(m[1], m[3])) > TINY) {
    double ts = len2(t[1], t[3]);
    k = relative ? 1 + (ts - 1 + off[TSY]) * mix[TSY] : (s + (ts - s + off[TSY]) * mix[TSY]) / s;
    m[1] *= k;
    m[3] *= k;
  }
  if (mix[TSHY] != 0 && (s = len2(m[1], m[3])) > TINY) {
    /* the angles from the x axis to the y axis (90: no shear) */
    double bx = atan2(m[2], m[0]) * DEG, by = atan2(m[3], m[1]) * DEG;
    double ts = wrap(atan2(t[3], t[1]) * DEG - atan2(t[2], t[0]) * DEG);
    r = relative ? wrap(ts - 90 + off[TSHY]) : wrap(ts + off[TSHY] - (by - bx));
    by = (by + r * mix[TSHY]) * RAD;
    m[1] = cos(by) * s;
    m[3] = sin(by) * s;
  }
}

/* The applied values ap of a constrained bone moved toward the target's
 * applied values t (or by them, relative). */
static void tc_local(double *ap, double *t, const double *mix, const double *off, int relative) {
  anim_w2d_angle(ap);
  anim_w2d_angle(t);
  if (relative) {
    ap[ANIM_AR] += (t[ANIM_AR] + off[TR]) * mix[TR];
    ap[ANIM_AX] += (t[ANIM_AX] + off[TX]) * mix[TX];
    ap[ANIM_AY] += (t[ANIM_AY] + off[TY]) * mix[TY];
    ap[ANIM_ASX] *= 1 + (t[ANIM_ASX] - 1 + off[TSX]) * mix[TSX];
    ap[ANIM_ASY] *= 1 + (t[ANIM_ASY] - 1 + off[TSY]) * mix[TSY];
    ap[ANIM_ASHY] += (t[ANIM_ASHY] + off[TSHY]) * mix[TSHY];
    return;
  }
  ap[ANIM_AR] += wrap(t[ANIM_AR] + off[TR] - ap[ANIM_AR]) * mix[TR];
  ap[ANIM_AX] += (t[ANIM_AX] + off[TX] - ap[ANIM_AX]) * mix[TX];
  ap[ANIM_AY] += (t[ANIM_AY] + off[TY] - ap[ANIM_AY]) * mix[TY];
  ap[ANIM_ASX] += (t[ANIM_ASX] + off[TSX] - ap[ANIM_ASX]) * mix[TSX];
  ap[ANIM_ASY] += (t[ANIM_ASY] + off[TSY] - ap[ANIM_ASY]) * mix[TSY];
  ap[ANIM_ASHY] += (t[ANIM_ASHY] + off[TSHY] - ap[ANIM_ASHY]) * mix[TSHY];
}

void anim_w2d_tc_apply(const anim_animator *a, anim_world2d *w, int i, const double mix[6]) {
  const anim_w2d_tc *c = &w->tc[i];
  int k, any = 0;
  for (k = 0; k < 6; k++) any |= mix[k] != 0;
  if (!any) return;
  for (k = 0; k < c->count; k++) {
    int j = w->tcbones[c->first + k];
    if (c->local) {
      tc_local(&w->ap[ANIM_AP * j], &w->ap[ANIM_AP * c->target], mix, c->offset, c->relative);
    } else {
      tc_world(&w->wm[6 * j], &w->wm[6 * c->target], mix, c->offset, c->relative);
      anim_w2d_from_world(a, w, j);
    }
    anim_w2d_bone_world(a, w, j);
  }
}
