/* bone2d.c - a 2D bone's world matrix from its applied local values and
 * its parent's world, by its inherit mode, and back (see world2d_impl.h;
 * the rules and the readings chosen: docs/formats.md, "2D skeletons").
 * The local matrix is the JSON export format page's:
 * [cos(r+shX) sX, cos(r+90+shY) sY; sin(r+shX) sX, sin(r+90+shY) sY]. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "world2d_impl.h"

#define RAD ANIM_W2D_RAD
#define DEG ANIM_W2D_DEG
#define TINY ANIM_W2D_TINY

double anim_w2d_wrap(double d) {
  /* (fmod(d, 360) is d itself when |d| < 360: the call only beyond) */
  if (!(fabs(d) < 360)) d = fmod(d, 360);
  if (d > 180) d -= 360;
  else if (d <= -180) d += 360;
  return d;
}

double anim_w2d_angle(double *ap) {
  if (isnan(ap[ANIM_AR])) {
    /* (the same cosine and sine, to the bit, give the same angle) */
    if (memcmp(&ap[ANIM_ACR], &ap[ANIM_AMC], 2 * sizeof(double)) != 0) {
      ap[ANIM_AMC] = ap[ANIM_ACR];
      ap[ANIM_AMS] = ap[ANIM_ASR];
      ap[ANIM_AMR] = atan2(ap[ANIM_ASR], ap[ANIM_ACR]) * DEG;
    }
    ap[ANIM_AR] = ap[ANIM_AMR];
  }
  return ap[ANIM_AR];
}

int anim_w2d_in_frame(const double *f, double ox, double oy, double x, double y, double *lx, double *ly) {
  double det = f[0] * f[3] - f[1] * f[2];
  if (!(fabs(det) > TINY)) return 0;
  x -= ox;
  y -= oy;
  *lx = (f[3] * x - f[1] * y) / det;
  *ly = (f[0] * y - f[2] * x) / det;
  return 1;
}

/* The frame f (2x2: a b c d) a bone's local matrix is applied in, from its
 * parent's world matrix p by its inherit mode. */
static ANIM_INLINE void frame(int inherit, const double *p, double *f) {
  double pa = p[0], pb = p[1], pc = p[2], pd = p[3], det, sx, sy2, ct, st;
  if (inherit == ANIM_INHERIT_NORMAL) { f[0] = pa; f[1] = pb; f[2] = pc; f[3] = pd; return; }
  if (inherit == ANIM_INHERIT_ONLY_TRANSLATION) { f[0] = 1; f[1] = 0; f[2] = 0; f[3] = 1; return; }
  det = pa * pd - pb * pc;
  sx = sqrt(pa * pa + pc * pc);
  /* the direction th of the parent's x axis (of its y axis less a quarter
   * turn when its x axis has no length): cos th and sin th are the axis
   * over its length, without atan2 and its sine and cosine (the same
   * values within rounding); by the angle only where a length is 0 or
   * overflowed (its square infinite), which atan2 reads as a direction */
  sy2 = pb * pb + pd * pd;
  if (sx > TINY && sx <= DBL_MAX) {
    ct = pa / sx;
    st = pc / sx;
  } else if (!(sx > TINY) && sy2 > 0 && sy2 <= DBL_MAX) {
    double n = sqrt(sy2);
    /* cos(phi - 90) = sin phi, sin(phi - 90) = -cos phi */
    ct = pd / n;
    st = -pb / n;
  } else {
    double th = sx > TINY ? atan2(pc, pa) : atan2(pd, pb) - ANIM_PI / 2;
    ct = cos(th);
    st = sin(th);
  }
  if (inherit == ANIM_INHERIT_NO_ROTATION_OR_REFLECTION) {
    /* the parent's scale along its own axes, its turn and reflection
     * taken out: R(th) diag(sx, |det| / sx) R(-th) */
    double sy = sx > TINY ? fabs(det) / sx : sqrt(sy2);
    f[0] = ct * ct * sx + st * st * sy;
    f[1] = f[2] = ct * st * (sx - sy);
    f[3] = st * st * sx + ct * ct * sy;
    return;
  }
  /* noScale: the parent's turn (and reflection: its y axis flipped when
   * its determinant is negative); noScaleOrReflection: its turn only */
  {
    double r = inherit == ANIM_INHERIT_NO_SCALE && det < 0 ? -1 : 1;
    f[0] = ct;
    f[1] = -st * r;
    f[2] = st;
    f[3] = ct * r;
  }
}

/* Bone j's world (and its frame) from its applied values and its
 * parent's world: 1.  Not general, only the usual bone, whose rotation is
 * the pose's cosine and sine, whose shears are 0 or the setup's and which
 * takes its inherit mode's rule -- no call, so that the bones' loop keeps
 * its registers --, else 0 before anything is written; general: any bone. */
static ANIM_INLINE int pose_bone(const anim_animator *a, anim_world2d *w, int j, int general) {
  const double *ap = &w->ap[ANIM_AP * j], *sht = &w->sht[ANIM_SHT * j];
  const anim_w2d_bone *b = &w->bone[j];
  double *m = &w->wm[6 * j], *f = &w->fr[4 * j];
  double c, s, cx, sx, cy, sy, la, lb, lc, ld, f0, f1, f2, f3, m0;
  double shx = ap[ANIM_ASHX], shy = ap[ANIM_ASHY], scx = ap[ANIM_ASX], scy = ap[ANIM_ASY];
  int p = a->rig->parent[j];
  /* (everything read into locals first, each matrix written once: a store
   * would otherwise make the compiler read the arrays again) */
  /* cos and sin of r + shX and of r + 90 + shY: from the pose's cosine and
   * sine (a shear turns them by its own), or from the angle a constraint set */
  if (isnan(ap[ANIM_AR])) {
    c = ap[ANIM_ACR];
    s = ap[ANIM_ASR];
  } else if (!general) {
    return 0;
  } else {
    c = cos(ap[ANIM_AR] * RAD);
    s = sin(ap[ANIM_AR] * RAD);
  }
  cx = c; sx = s; cy = -s; sy = c;
  /* (the setup shear's cosine and sine made with the shape) */
  if (shx != 0) {
    double k = sht[0], q = sht[1];
    /* (an animated shear: its cosine and sine as one sincos) */
    if (shx != b->shear[0]) {
      if (!general) return 0;
      k = cos(shx * RAD);
      q = sin(shx * RAD);
    }
    cx = c * k - s * q;
    sx = s * k + c * q;
  }
  if (shy != 0) {
    double k = sht[2], q = sht[3];
    if (shy != b->shear[1]) {
      if (!general) return 0;
      if (shy == ap[ANIM_AHV]) {
        /* (a constraint's, which knew its cosine and sine) */
        k = ap[ANIM_AHC];
        q = ap[ANIM_AHS];
      } else {
        k = cos(shy * RAD);
        q = sin(shy * RAD);
      }
    }
    cy = -s * k - c * q;
    sy = c * k - s * q;
  }
  if (p >= 0 && b->dragonbones) {
    const double u[4] = { cx, sx, cy, sy };
    if (!general) return 0;
    anim_w2d_db_world(w, j, p, u);
    return 1;
  }
  la = cx * scx;
  lc = sx * scx;
  lb = cy * scy;
  ld = sy * scy;
  if (p < 0) {
    f0 = 1; f1 = 0; f2 = 0; f3 = 1;
    m[4] = ap[ANIM_AX];
    m[5] = ap[ANIM_AY];
  } else {
    const double *pm = &w->wm[6 * p];
    double x = ap[ANIM_AX], y = ap[ANIM_AY];
    int mode = w->mode[j];
    if (mode == ANIM_INHERIT_NORMAL) {
      f0 = pm[0]; f1 = pm[1]; f2 = pm[2]; f3 = pm[3];
    } else {
      double fo[4];
      frame(mode, pm, fo);
      f0 = fo[0]; f1 = fo[1]; f2 = fo[2]; f3 = fo[3];
    }
    /* the origin: always the parent's point (x, y) */
    m[4] = pm[0] * x + pm[1] * y + pm[4];
    m[5] = pm[2] * x + pm[3] * y + pm[5];
  }
  f[0] = f0; f[1] = f1; f[2] = f2; f[3] = f3;
  m0 = f0 * la + f1 * lc;
  m[0] = m0;
  m[1] = f0 * lb + f1 * ld;
  m[2] = f2 * la + f3 * lc;
  m[3] = f2 * lb + f3 * ld;
  /* (what DragonBones' rules read of a parent: its global scaleX's sign,
   * a root's its own, a product's as DragonBones decomposes it) */
  if (w->anydb) w->dbn[j] = scx < 0 && (p < 0 || m0 < 0);
  return 1;
}

/* (a call apart from the bones' loop: the rare bone) */
static void ANIM_NOINLINE pose_general(const anim_animator *a, anim_world2d *w, int j) { (void)pose_bone(a, w, j, 1); }

void anim_w2d_bone_world(const anim_animator *a, anim_world2d *w, int j) { pose_general(a, w, j); }

int anim_w2d_bones_world(const anim_animator *a, anim_world2d *w, const int *ops, int count) {
  int i;
  for (i = 0; i < count && ops[2 * i] == ANIM_W2D_BONE; i++)
    if (!pose_bone(a, w, ops[2 * i + 1], 0)) pose_general(a, w, ops[2 * i + 1]);
  return i;
}

void anim_w2d_from_world(const anim_animator *a, anim_world2d *w, int j) {
  double *ap = &w->ap[ANIM_AP * j];
  const double *m = &w->wm[6 * j], *f = &w->fr[4 * j];
  double la, lb, lc, ld, r, sx, sy;
  int p = a->rig->parent[j];
  if (p < 0 || (w->bone[j].dragonbones && !(w->bone[j].dragonbones & ANIM_DB_TRANSLATION))) {
    /* (a root's, or a DragonBones bone's that takes no translation: its own) */
    ap[ANIM_AX] = m[4];
    ap[ANIM_AY] = m[5];
  } else {
    const double *pm = &w->wm[6 * p];
    if (!anim_w2d_in_frame(pm, pm[4], pm[5], m[4], m[5], &ap[ANIM_AX], &ap[ANIM_AY])) return;
  }
  /* L = F^-1 W, each column through the frame's inverse */
  if (!anim_w2d_in_frame(f, 0, 0, m[0], m[2], &la, &lc) || !anim_w2d_in_frame(f, 0, 0, m[1], m[3], &lb, &ld)) return;
  sx = sqrt(la * la + lc * lc);
  sy = sqrt(lb * lb + ld * ld);
  ap[ANIM_ASHX] = 0;
  ap[ANIM_ASX] = sx;
  ap[ANIM_ASY] = sy;
  if (!(sx > 0 && sx <= DBL_MAX && sy > 0 && sy <= DBL_MAX)) {
    r = atan2(lc, la) * DEG;
    ap[ANIM_AR] = r;
    ap[ANIM_ASHY] = anim_w2d_wrap(atan2(ld, lb) * DEG - 90 - r);
    return;
  }
  /* the turn as the x axis' direction (its cosine and sine: no atan2, and
   * no sine when the bone is posed), shearY from the angle phi between the
   * axes, whose cosine and sine are kept with it: cos(phi - 90) = sin phi,
   * sin(phi - 90) = -cos phi (the same values within rounding as the
   * axes' two angles' difference) */
  ap[ANIM_ACR] = la / sx;
  ap[ANIM_ASR] = lc / sx;
  ap[ANIM_AR] = NAN;
  {
    double cp = (la * lb + lc * ld) / (sx * sy), sp = (la * ld - lc * lb) / (sx * sy);
    ap[ANIM_ASHY] = anim_w2d_wrap(atan2(sp, cp) * DEG - 90);
    ap[ANIM_AHV] = ap[ANIM_ASHY];
    ap[ANIM_AHC] = sp;
    ap[ANIM_AHS] = -cp;
  }
}
