/* world2d.c - the 2D stage: a 2D skeleton's world matrices and its IK
 * constraints, after the property blend (see world2d.h; the rules, with
 * the Spine pages they come from and the readings chosen where a page
 * leaves a formula open, are in docs/formats.md, "2D skeletons").  Written
 * from Esoteric's public pages (the JSON export format, the user guide's
 * "Bones" and "IK constraints"), never from the Spine Runtimes' code.
 *
 * Per update: each bone's applied local values (x, y, rotation, scaleX/Y
 * from the blended joint; shearX/Y from its `<bone>.shear` property, else
 * the setup's), then the steps of the update order: a bone's world from
 * its parent's (its inherit mode choosing the frame F its local matrix is
 * applied in), or a constraint, which changes its bones' applied values
 * and poses them again.  One block per animator, made with it: nothing is
 * allocated per update. */
#include "world2d.h"

#include <math.h>
#include <string.h>

#include "amath.h"
#include "animator_impl.h"
#include "propmix.h"

#define RAD (ANIM_PI / 180)
#define DEG (180 / ANIM_PI)
/* a scale or determinant below this is taken as none (a frame not inverted) */
#define TINY 1e-9

/* the applied local values of a bone, AP numbers each */
enum { AX, AY, AR, ASX, ASY, ASHX, ASHY, AP };

struct anim_world2d {
  size_t size;
  anim_mem mem;
  int n, nik, nops;
  int valid;               /* the matrices are those of the pose now */
  int gen;                 /* anim_props_generation when the slots were looked up */
  anim_w2d_bone *bone;     /* n */
  anim_w2d_ik *ik;         /* nik */
  int *ops;                /* 2 nops */
  int *shear_slot;         /* n: the property slot of "<bone>.shear", or -1 */
  int *ik_slot;            /* 2 nik: of ik.<name> and ik.<name>.flags */
  double *ap;              /* AP n */
  double *wm;              /* 6 n: a b c d x y */
  double *fr;              /* 4 n: the frame F the local matrix was applied in */
};

static size_t up8(size_t x) { return (x + 7) / 8 * 8; }

anim_world2d *anim_world2d_new(const anim_mem *m, int n, const anim_w2d_bone *bones, int nik,
                               const anim_w2d_ik *ik, int nops, const int *ops, const char **err) {
  size_t size, o_bone, o_ik, o_ops, o_ss, o_is, o_ap, o_wm, o_fr, o_str, strs = 0;
  anim_world2d *w;
  char *mem, *s;
  int i;
  *err = NULL;
  if (n < 1 || nik < 0 || nops < 0) { *err = "bad counts"; return NULL; }
  for (i = 0; i < n; i++) {
    if (bones[i].inherit < 0 || bones[i].inherit >= ANIM_INHERIT_COUNT) { *err = "bad inherit mode"; return NULL; }
    strs += bones[i].shear_len + 1;
  }
  for (i = 0; i < nik; i++) {
    const anim_w2d_ik *k = &ik[i];
    if (k->nbones < 1 || k->nbones > 2 || k->target < 0 || k->target >= n || k->bones[0] < 0 ||
        k->bones[0] >= n || (k->nbones == 2 && (k->bones[1] < 0 || k->bones[1] >= n))) {
      *err = "IK bone out of range";
      return NULL;
    }
    strs += k->name_len + k->flags_len + 2;
  }
  for (i = 0; i < nops; i++) {
    int kind = ops[2 * i], at = ops[2 * i + 1];
    if (!((kind == ANIM_W2D_BONE && at >= 0 && at < n) || (kind == ANIM_W2D_IK && at >= 0 && at < nik))) {
      *err = "update step out of range";
      return NULL;
    }
  }
  o_ap = up8(sizeof *w);
  o_wm = o_ap + sizeof(double) * AP * (size_t)n;
  o_fr = o_wm + sizeof(double) * 6 * (size_t)n;
  o_bone = up8(o_fr + sizeof(double) * 4 * (size_t)n);
  o_ik = up8(o_bone + sizeof(anim_w2d_bone) * (size_t)n);
  o_ops = up8(o_ik + sizeof(anim_w2d_ik) * (size_t)nik);
  o_ss = o_ops + sizeof(int) * 2 * (size_t)nops;
  o_is = o_ss + sizeof(int) * (size_t)n;
  o_str = o_is + sizeof(int) * 2 * (size_t)nik;
  size = o_str + strs;
  mem = anim_calloc(m, 1, size);
  if (!mem) return NULL;
  w = (anim_world2d *)(void *)mem;
  w->size = size;
  w->mem = *m;
  w->n = n;
  w->nik = nik;
  w->nops = nops;
  w->gen = -1;
  w->ap = (double *)(void *)(mem + o_ap);
  w->wm = (double *)(void *)(mem + o_wm);
  w->fr = (double *)(void *)(mem + o_fr);
  w->bone = (anim_w2d_bone *)(void *)(mem + o_bone);
  w->ik = (anim_w2d_ik *)(void *)(mem + o_ik);
  w->ops = (int *)(void *)(mem + o_ops);
  w->shear_slot = (int *)(void *)(mem + o_ss);
  w->ik_slot = (int *)(void *)(mem + o_is);
  s = mem + o_str;
  /* the names copied after the arrays, each ended by a 0 */
#define COPY(dst, src, len) do { memcpy(s, (src), (len)); (dst) = s; s += (len) + 1; } while (0)
  for (i = 0; i < n; i++) {
    w->bone[i] = bones[i];
    COPY(w->bone[i].shear_name, bones[i].shear_name, bones[i].shear_len);
    w->shear_slot[i] = -1;
  }
  for (i = 0; i < nik; i++) {
    w->ik[i] = ik[i];
    COPY(w->ik[i].name, ik[i].name, ik[i].name_len);
    COPY(w->ik[i].flags, ik[i].flags, ik[i].flags_len);
    w->ik_slot[2 * i] = w->ik_slot[2 * i + 1] = -1;
  }
#undef COPY
  if (nops > 0) memcpy(w->ops, ops, sizeof(int) * 2 * (size_t)nops);
  return w;
}

void anim_world2d_free(anim_world2d *w) {
  if (w) {
    anim_mem m = w->mem;
    anim_free(&m, w, w->size);
  }
}

int anim_animator_set_world2d(anim_animator *a, anim_world2d *w) {
  if (w && w->n != a->rig->n) return -1;
  anim_world2d_free(a->w2d);
  a->w2d = w;
  if (w) w->valid = 0;
  return 0;
}

anim_world2d *anim_animator_take_world2d(anim_animator *a) {
  anim_world2d *w = a->w2d;
  a->w2d = NULL;
  if (w) w->valid = 0;
  return w;
}

int anim_animator_has_world2d(const anim_animator *a) { return a->w2d != NULL; }

/* ---- reading the pose ------------------------------------------------------ */

/* The property slots of the names, looked up again only when the animator
 * knows new names (a clip of new properties played): O(names log slots)
 * then, nothing in steady play. */
static void find_slots(const anim_animator *a, anim_world2d *w) {
  int g = anim_props_generation(a), i;
  if (g == w->gen) return;
  w->gen = g;
  for (i = 0; i < w->n; i++)
    if (w->shear_slot[i] < 0) w->shear_slot[i] = anim_props_find(a, w->bone[i].shear_name, w->bone[i].shear_len);
  for (i = 0; i < w->nik; i++) {
    if (w->ik_slot[2 * i] < 0) w->ik_slot[2 * i] = anim_props_find(a, w->ik[i].name, w->ik[i].name_len);
    if (w->ik_slot[2 * i + 1] < 0)
      w->ik_slot[2 * i + 1] = anim_props_find(a, w->ik[i].flags, w->ik[i].flags_len);
  }
}

/* Component c of the property in `slot`, else dflt (no track gives it a
 * value, or it has fewer components). */
static double prop_or(const anim_animator *a, int slot, int c, double dflt) {
  const double *v;
  int n = anim_props_at(a, slot, &v);
  return c < n ? v[c] : dflt;
}

/* Bone j's applied local values from the blended joint: the angle about z
 * of its rotation (2 atan2(qz, qw): an absolute clip's quaternion is a
 * turn about z, so any angle's sine and cosine come back), its shear from
 * the property. */
static void read_local(const anim_animator *a, anim_world2d *w, int j) {
  double l[10], *ap = &w->ap[AP * j];
  anim_animator_local(a, j, l);
  ap[AX] = l[0];
  ap[AY] = l[1];
  ap[AR] = 2 * atan2(l[5], l[6]) * DEG;
  ap[ASX] = l[7];
  ap[ASY] = l[8];
  ap[ASHX] = prop_or(a, w->shear_slot[j], 0, w->bone[j].shear[0]);
  ap[ASHY] = prop_or(a, w->shear_slot[j], 1, w->bone[j].shear[1]);
}

/* ---- a bone's world ------------------------------------------------------- */

/* The frame f (2x2: a b c d) a bone's local matrix is applied in, from its
 * parent's world matrix p by its inherit mode (docs/formats.md). */
static void frame(int inherit, const double *p, double *f) {
  double pa = p[0], pb = p[1], pc = p[2], pd = p[3], det = pa * pd - pb * pc;
  double sx = sqrt(pa * pa + pc * pc), th, ct, st;
  if (inherit == ANIM_INHERIT_NORMAL) { f[0] = pa; f[1] = pb; f[2] = pc; f[3] = pd; return; }
  if (inherit == ANIM_INHERIT_ONLY_TRANSLATION) { f[0] = 1; f[1] = 0; f[2] = 0; f[3] = 1; return; }
  /* the direction of the parent's x axis (of its y axis less a quarter
   * turn when its x axis has no length) */
  th = sx > TINY ? atan2(pc, pa) : atan2(pd, pb) - ANIM_PI / 2;
  ct = cos(th);
  st = sin(th);
  if (inherit == ANIM_INHERIT_NO_ROTATION_OR_REFLECTION) {
    /* the parent's scale along its own axes, its turn and reflection
     * taken out: R(th) diag(sx, |det| / sx) R(-th) */
    double sy = sx > TINY ? fabs(det) / sx : sqrt(pb * pb + pd * pd);
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

/* Bone j's world from its applied values and its parent's world. */
static void bone_world(const anim_animator *a, anim_world2d *w, int j) {
  const double *ap = &w->ap[AP * j];
  double *m = &w->wm[6 * j], *f = &w->fr[4 * j];
  double rx = (ap[AR] + ap[ASHX]) * RAD, ry = (ap[AR] + 90 + ap[ASHY]) * RAD;
  double la = cos(rx) * ap[ASX], lb = cos(ry) * ap[ASY], lc = sin(rx) * ap[ASX], ld = sin(ry) * ap[ASY];
  int p = a->rig->parent[j];
  if (p < 0) {
    f[0] = 1; f[1] = 0; f[2] = 0; f[3] = 1;
    m[4] = ap[AX];
    m[5] = ap[AY];
  } else {
    const double *pm = &w->wm[6 * p];
    frame(w->bone[j].inherit, pm, f);
    /* the origin: always the parent's point (x, y) */
    m[4] = pm[0] * ap[AX] + pm[1] * ap[AY] + pm[4];
    m[5] = pm[2] * ap[AX] + pm[3] * ap[AY] + pm[5];
  }
  m[0] = f[0] * la + f[1] * lc;
  m[1] = f[0] * lb + f[1] * ld;
  m[2] = f[2] * la + f[3] * lc;
  m[3] = f[2] * lb + f[3] * ld;
}

/* ---- IK (docs/formats.md, "IK constraints") -------------------------------- */

/* an angle difference brought into (-180, 180] */
static double wrap(double d) {
  d = fmod(d, 360);
  if (d > 180) d -= 360;
  else if (d <= -180) d += 360;
  return d;
}

/* The point (x, y) of the world in the frame f of origin (ox, oy): 0 when
 * the frame has no inverse. */
static int in_frame(const double *f, double ox, double oy, double x, double y, double *lx, double *ly) {
  double det = f[0] * f[3] - f[1] * f[2];
  if (!(fabs(det) > TINY)) return 0;
  x -= ox;
  y -= oy;
  *lx = (f[3] * x - f[1] * y) / det;
  *ly = (f[0] * y - f[2] * x) / det;
  return 1;
}

/* One bone: turned so that its x axis points at the target; compress and
 * stretch scale it (its x, and y too when uniform) so that its tip reaches
 * the target when nearer, farther than its length. */
static void ik_one(const anim_animator *a, anim_world2d *w, const anim_w2d_ik *k, double mix, int compress,
                   int stretch) {
  int j = k->bones[0];
  double *ap = &w->ap[AP * j], *m = &w->wm[6 * j];
  const double *t = &w->wm[6 * k->target];
  double lx, ly, r, len, d;
  if (!in_frame(&w->fr[4 * j], m[4], m[5], t[4], t[5], &lx, &ly)) return;
  r = atan2(ly, lx) * DEG - ap[ASHX] + (ap[ASX] < 0 ? 180 : 0);
  ap[AR] += wrap(r - ap[AR]) * mix;
  len = w->bone[j].length * fabs(ap[ASX]);
  d = sqrt(lx * lx + ly * ly);
  if (len > TINY && ((compress && d < len) || (stretch && d > len))) {
    double s = (d / len - 1) * mix + 1;
    ap[ASX] *= s;
    if (k->uniform) ap[ASY] *= s;
  }
  bone_world(a, w, j);
}

/* Two bones, a parent and its child, solved in the parent's frame: the
 * law of cosines on l1 (the parent's origin to the child's) and l2 (the
 * child's length, scaled by its scaleX and the parent's), the reach eased
 * by softness, or the parent stretched (its scaleX, and Y when uniform)
 * so that the straight chain reaches a target beyond it. */
static void ik_two(const anim_animator *a, anim_world2d *w, const anim_w2d_ik *k, double mix, double soft,
                   int bend, int stretch) {
  int p = k->bones[0], c = k->bones[1];
  double *pa = &w->ap[AP * p], *ca = &w->ap[AP * c], *pm = &w->wm[6 * p];
  const double *t = &w->wm[6 * k->target];
  double lx, ly, a0, b0, c0, d0, cx, cy, l1, l2, al, d, reach, dd, cos2, th2, th1, r1, r2, s = 1;
  if (!in_frame(&w->fr[4 * p], pm[4], pm[5], t[4], t[5], &lx, &ly)) return;
  /* the parent's local matrix at rotation 0: L(r) = R(r) L(0) */
  a0 = cos(pa[ASHX] * RAD) * pa[ASX];
  c0 = sin(pa[ASHX] * RAD) * pa[ASX];
  b0 = cos((90 + pa[ASHY]) * RAD) * pa[ASY];
  d0 = sin((90 + pa[ASHY]) * RAD) * pa[ASY];
  cx = a0 * ca[AX] + b0 * ca[AY];
  cy = c0 * ca[AX] + d0 * ca[AY];
  l1 = sqrt(cx * cx + cy * cy);
  al = atan2(cy, cx);
  l2 = w->bone[c].length * fabs(ca[ASX]) * fabs(pa[ASX]);
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
  th2 = (bend < 0 ? -1 : 1) * acos(cos2);
  th1 = atan2(ly, lx) - atan2(l2 * sin(th2), l1 + l2 * cos(th2));
  r1 = (th1 - al) * DEG;
  r2 = (th2 + al) * DEG - pa[ASHX] - ca[ASHX] + (ca[ASX] < 0 ? 180 : 0);
  pa[AR] += wrap(r1 - pa[AR]) * mix;
  ca[AR] += wrap(r2 - ca[AR]) * mix;
  if (s != 1) {
    s = (s - 1) * mix + 1;
    pa[ASX] *= s;
    if (k->uniform) pa[ASY] *= s;
  }
  bone_world(a, w, p);
  bone_world(a, w, c);
}

static void ik_apply(const anim_animator *a, anim_world2d *w, int i) {
  const anim_w2d_ik *k = &w->ik[i];
  int s = w->ik_slot[2 * i], fs = w->ik_slot[2 * i + 1];
  double mix = prop_or(a, s, 0, k->mix), soft = prop_or(a, s, 1, k->softness);
  int bend = prop_or(a, fs, 0, k->bend) < 0 ? -1 : 1;
  int compress = prop_or(a, fs, 1, k->compress) != 0, stretch = prop_or(a, fs, 2, k->stretch) != 0;
  if (!(mix != 0)) return;
  if (k->nbones == 1) ik_one(a, w, k, mix, compress, stretch);
  else ik_two(a, w, k, mix, soft, bend, stretch);
}

/* ---- the stage ------------------------------------------------------------ */

static void pose(anim_animator *a, anim_world2d *w) {
  int i;
  find_slots(a, w);
  for (i = 0; i < w->n; i++) read_local(a, w, i);
  for (i = 0; i < w->nops; i++) {
    int at = w->ops[2 * i + 1];
    if (w->ops[2 * i] == ANIM_W2D_BONE) bone_world(a, w, at);
    else ik_apply(a, w, at);
  }
  for (i = 0; i < 6 * w->n; i++) w->wm[i] = anim_finite(w->wm[i]);
  w->valid = 1;
}

void anim_world2d_apply(anim_animator *a) {
  if (a->w2d) pose(a, a->w2d);
}

int anim_animator_world2d(anim_animator *a, int j, double out[6]) {
  anim_world2d *w = a->w2d;
  if (!w || j < 0 || j >= w->n) return -1;
  if (!w->valid) pose(a, w);
  memcpy(out, &w->wm[6 * j], sizeof(double) * 6);
  return 0;
}
