/* dragonbones2d.c - DragonBones' own rules in the 2D stage (see
 * world2d_impl.h): a bone's world from its parent's by the file's four
 * inherit flags, and DragonBones' IK solver of one and two bones.  The
 * rules are those of DragonBones' MIT runtime, DragonBonesJS 5.7 (npm
 * @cocos/dragonbones-js 1.0.2, tools/dragonbones-reference):
 * Bone._updateGlobalTransformMatrix and Transform.toMatrix / fromMatrix
 * (src/dragonBones/armature/Bone.ts, geom/Transform.ts) for the bones,
 * IKConstraint._computeA / _computeB (armature/Constraint.ts) for IK, the
 * armature neither flipped nor y-up (the data's own axes); the code is
 * ours.  docs/formats.md ("DragonBones") states each rule.
 *
 * DragonBones keeps per bone a "global" transform beside its matrix: for
 * a root or a bone without inheritScale the values it composed the matrix
 * from; for the others the matrix decomposed (fromMatrix: the rotation
 * atan(b / a), the scaleX's sign kept when the local scaleX was negative,
 * else made positive with the rotation turned half a turn).  Either way
 * its x axis is scaleX (cos rotation, sin rotation), so its rotation is
 * the direction of the x axis, plus half a turn when its scaleX is
 * negative: the stage keeps that sign per bone (dbn) and reads the rest
 * off the matrix.  (Not the same only where a bone's x axis has no length:
 * DragonBones then keeps the rotation it composed, or decomposes a NaN.) */
#include <math.h>

#include "world2d_impl.h"

#define TINY ANIM_W2D_TINY

/* DragonBones' global rotation of bone j (radians, up to whole turns). */
static double rotation(const anim_world2d *w, int j) {
  const double *m = &w->wm[6 * j];
  return atan2(m[2], m[0]) + (w->dbn[j] ? ANIM_PI : 0);
}

/* Transform.normalizeRadian: into (-pi, pi]. */
static double normal(double v) {
  v = fmod(v + ANIM_PI, 2 * ANIM_PI);
  return v + (v > 0 ? -ANIM_PI : ANIM_PI);
}

/* F = W L^-1 (the frame a constraint of Spine's reads), or none when L
 * has no inverse. */
static void frame_of(double *f, const double *m, double la, double lb, double lc, double ld) {
  double det = la * ld - lb * lc;
  if (!(fabs(det) > TINY)) {
    f[0] = 1; f[1] = 0; f[2] = 0; f[3] = 1;
    return;
  }
  f[0] = (m[0] * ld - m[1] * lc) / det;
  f[1] = (m[1] * la - m[0] * lb) / det;
  f[2] = (m[2] * ld - m[3] * lc) / det;
  f[3] = (m[3] * la - m[2] * lb) / det;
}

void anim_w2d_db_world(anim_world2d *w, int j, int p, const double u[4]) {
  const double *ap = &w->ap[ANIM_AP * j], *pm = &w->wm[6 * p];
  double *m = &w->wm[6 * j], *f = &w->fr[4 * j];
  int fl = w->bone[j].dragonbones;
  double sx = ap[ANIM_ASX], sy = ap[ANIM_ASY];
  double la = u[0] * sx, lc = u[1] * sx, lb = u[2] * sy, ld = u[3] * sy;
  double pa = pm[0], pb = pm[1], pc = pm[2], pd = pm[3];
  /* the origin: through the parent's matrix, or without inheritTranslation
   * the bone's own x, y (not the parent's point: DragonBones' rule) */
  if (fl & ANIM_DB_TRANSLATION) {
    m[4] = pa * ap[ANIM_AX] + pb * ap[ANIM_AY] + pm[4];
    m[5] = pc * ap[ANIM_AX] + pd * ap[ANIM_AY] + pm[5];
  } else {
    m[4] = ap[ANIM_AX];
    m[5] = ap[ANIM_AY];
  }
  if (fl & ANIM_DB_SCALE) {
    /* the local matrix times the parent's; without inheritRotation the
     * local rotation less the parent's global rotation first */
    if (fl & ANIM_DB_ROTATION) {
      f[0] = pa; f[1] = pb; f[2] = pc; f[3] = pd;
    } else {
      double r = rotation(w, p), c = cos(r), s = sin(r);
      f[0] = pa * c - pb * s;
      f[1] = pa * s + pb * c;
      f[2] = pc * c - pd * s;
      f[3] = pc * s + pd * c;
    }
    m[0] = f[0] * la + f[1] * lc;
    m[1] = f[0] * lb + f[1] * ld;
    m[2] = f[2] * la + f[3] * lc;
    m[3] = f[2] * lb + f[3] * ld;
    /* (fromMatrix: the sign of a negative local scaleX kept when a < 0) */
    w->dbn[j] = sx < 0 && m[0] < 0;
    return;
  }
  /* without inheritScale: the bone's own scales and skew; with
   * inheritRotation its rotation plus the parent's global rotation (plus
   * half a turn for a negative global scaleX: the direction d of the
   * parent's x axis), and under a reflecting parent d less its rotation,
   * the skew half a turn more with inheritReflection */
  w->dbn[j] = sx < 0;
  if (!(fl & ANIM_DB_ROTATION)) {
    f[0] = 1; f[1] = 0; f[2] = 0; f[3] = 1;
    m[0] = la; m[1] = lb; m[2] = lc; m[3] = ld;
    return;
  }
  {
    double n = sqrt(pa * pa + pc * pc), cd = n > 0 ? pa / n : 1, sd = n > 0 ? pc / n : 0;
    if (pa * pd - pb * pc >= 0) {
      f[0] = cd; f[1] = -sd; f[2] = sd; f[3] = cd;
      m[0] = cd * la - sd * lc;
      m[1] = cd * lb - sd * ld;
      m[2] = sd * la + cd * lc;
      m[3] = sd * lb + cd * ld;
    } else {
      /* the x axis at d - a (a its local angle), the y axis at the same
       * angle from it as in the local matrix (its skew), turned half a
       * turn with inheritReflection */
      double x0 = cd * u[0] + sd * u[1], x1 = sd * u[0] - cd * u[1];
      double k = u[2] * u[0] + u[3] * u[1], q = u[3] * u[0] - u[2] * u[1];
      double y0 = x0 * k - x1 * q, y1 = x1 * k + x0 * q;
      if (fl & ANIM_DB_REFLECTION) { y0 = -y0; y1 = -y1; }
      m[0] = x0 * sx; m[2] = x1 * sx;
      m[1] = y0 * sy; m[3] = y1 * sy;
      frame_of(f, m, la, lb, lc, ld);
    }
  }
}

/* ---- IK ------------------------------------------------------------------- */

/* Bone j's world turned by t about its origin (toMatrix of its global
 * transform at rotation + t), and the frame with it. */
static void turn(anim_world2d *w, int j, double t) {
  double *m = &w->wm[6 * j], *f = &w->fr[4 * j], c = cos(t), s = sin(t), x, y;
  int k;
  for (k = 0; k < 2; k++) {
    x = m[k]; y = m[2 + k];
    m[k] = c * x - s * y; m[2 + k] = s * x + c * y;
    x = f[k]; y = f[2 + k];
    f[k] = c * x - s * y; f[2 + k] = s * x + c * y;
  }
}

/* _computeA: the bone's rotation toward the target by the weight (its x
 * axis, whatever its scaleX's sign: the half turns cancel). */
static void one(anim_world2d *w, int j, const double *t, double weight) {
  const double *m = &w->wm[6 * j];
  double r = atan2(t[5] - m[5], t[4] - m[4]) + (w->dbn[j] ? ANIM_PI : 0);
  turn(w, j, normal(r - rotation(w, j)) * weight);
}

/* _computeB: a parent p and its child c.  The child's tip (its length
 * along its x axis) is put on the target by the triangle of the parent's
 * segment (origin to the child's origin, lP), the child's length (lL) and
 * the target's distance (lT), on the side bendPositive names (the other
 * under a reflecting grandparent); out of reach, the chain points at the
 * target.  The parent turns by the weight; the child's origin follows at
 * lP; the child turns toward the target by the weight. */
static void two(const anim_animator *a, anim_world2d *w, int p, int c, const double *t, double weight, int bend) {
  double *pm = &w->wm[6 * p], *cm = &w->wm[6 * c];
  double len = w->bone[c].length, x = cm[0] * len, y = cm[2] * len;
  double lLL = x * x + y * y, lL = sqrt(lLL);
  double dX = cm[4] - pm[4], dY = cm[5] - pm[5], lPP = dX * dX + dY * dY, lP = sqrt(lPP);
  double raw = rotation(w, c), rawa = atan2(dY, dX), lTT, lT, ra, dr, cur, rb, cx, cy;
  int pp = a->rig->parent[p];
  dX = t[4] - pm[4];
  dY = t[5] - pm[5];
  lTT = dX * dX + dY * dY;
  lT = sqrt(lTT);
  if (lL + lP <= lT || lT + lL <= lP || lT + lP <= lL) {
    ra = atan2(dY, dX);
    if (!(lL + lP <= lT) && lP < lL) ra += ANIM_PI;
  } else {
    /* (a rounding below 0 at a flat triangle taken as 0: DragonBones' NaN) */
    double h = (lPP - lLL + lTT) / (2 * lTT), r = sqrt(fmax(0, lPP - h * h * lTT)) / lT;
    double hx = pm[4] + dX * h, hy = pm[5] + dY * h, rx = -dY * r, ry = dX * r;
    int ppr = 0;
    if (pp >= 0) {
      const double *g = &w->wm[6 * pp];
      ppr = g[0] * g[3] - g[1] * g[2] < 0;
    }
    if (ppr != (bend > 0)) { cx = hx - rx; cy = hy - ry; }
    else { cx = hx + rx; cy = hy + ry; }
    ra = atan2(cy - pm[5], cx - pm[4]);
  }
  dr = normal(ra - rawa);
  turn(w, p, dr * weight);
  cur = rawa + dr * weight;
  cx = pm[4] + cos(cur) * lP;
  cy = pm[5] + sin(cur) * lP;
  rb = atan2(t[5] - cy, t[4] - cx) + (w->dbn[c] ? ANIM_PI : 0);
  /* the child's new rotation less its old: (rawp + dr w) + raw - rawp +
   * normal(rb - dr - raw) w - raw, rawp the parent's old rotation */
  turn(w, c, dr * weight + normal(rb - dr - raw) * weight);
  cm[4] = cx;
  cm[5] = cy;
}

void anim_w2d_db_ik(const anim_animator *a, anim_world2d *w, int i, double weight, int bend) {
  const anim_w2d_ik *k = &w->ik[i];
  const double *t = &w->wm[6 * k->target];
  if (k->nbones == 1) one(w, k->bones[0], t, weight);
  else two(a, w, k->bones[0], k->bones[1], t, weight, bend);
}
