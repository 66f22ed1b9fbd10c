/* world2d.c - the 2D stage: a 2D skeleton's block on an animator and its
 * step of the update, after the property blend (see world2d.h; the rules,
 * with the Spine pages they come from and the readings chosen where a page
 * leaves a formula open, are in docs/formats.md, "2D skeletons").  Written
 * from Esoteric's public pages, never from the Spine Runtimes' code.
 *
 * Per update: each bone's applied local values (x, y, rotation, scaleX/Y
 * from the blended joint; shearX/Y from its `<bone>.shear` property, else
 * the setup's), then the steps of the update order: a bone's world from
 * its parent's (bone2d.c), or a constraint (constraint2d.c), which changes
 * its bones' applied values and poses them again.  One block per animator,
 * made with it, of what its updates write; what they only read is the
 * skeleton's shape, one for all its animators (shape2d.c): nothing is
 * allocated per update. */
#include "world2d.h"

#include <math.h>
#include <string.h>

#include "propmix.h"
#include "world2d_impl.h"

/* No property slot known (an animator's own numbering: looked up at its
 * next update), each bone in its setup's inherit mode. */
static void forget_slots(anim_world2d *w) {
  int i;
  w->gen = -1;
  for (i = 0; i < w->n; i++) {
    w->mode[i] = w->bone[i].inherit;
    w->shear_slot[i] = w->inherit_slot[i] = -1;
  }
  for (i = 0; i < 2 * w->nik; i++) w->ik_slot[i] = -1;
  for (i = 0; i < w->ntc; i++) w->tc_slot[i] = -1;
}

/* The ints of a block (after its doubles): each bone's mode, shear and
 * inherit slots and DragonBones sign, the IK constraints' two slots, the
 * transform constraints' slot. */
static size_t block_ints(int n, int nik, int ntc) { return 4 * (size_t)n + 2 * (size_t)nik + (size_t)ntc; }

anim_world2d *anim_world2d_new(const anim_mem *m, anim_w2d_shape *sh) {
  size_t size, o[4];
  anim_world2d *w;
  char *mem;
  int n = sh->n;
  /* one block: the doubles, then the ints */
  o[0] = anim_align8(sizeof *w);                                                        /* ap */
  o[1] = o[0] + sizeof(double) * ANIM_AP * (size_t)n;                           /* wm */
  o[2] = o[1] + sizeof(double) * 6 * (size_t)n;                                 /* fr, then ikal */
  o[3] = o[2] + sizeof(double) * (4 * (size_t)n + 3 * (size_t)sh->nik);         /* the ints */
  size = o[3] + sizeof(int) * block_ints(n, sh->nik, sh->ntc);
  mem = anim_calloc(m, 1, size);
  if (!mem) return NULL;
  w = (anim_world2d *)(void *)mem;
  w->size = size;
  w->mem = *m;
  w->shape = sh;
  anim_w2d_shape_retain(sh);
  w->n = n;
  w->nik = sh->nik;
  w->ntc = sh->ntc;
  w->nops = sh->nops;
  w->anydb = sh->anydb;
  w->bone = sh->bone;
  w->ik = sh->ik;
  w->tc = sh->tc;
  w->tcbones = sh->tcbones;
  w->ops = sh->ops;
  w->sht = sh->sht;
  w->rest2d = -1;
  w->ap = (double *)(void *)(mem + o[0]);
  w->wm = (double *)(void *)(mem + o[1]);
  w->fr = (double *)(void *)(mem + o[2]);
  w->ikal = w->fr + 4 * (size_t)n;
  w->mode = (int *)(void *)(mem + o[3]);
  w->shear_slot = w->mode + n;
  w->inherit_slot = w->shear_slot + n;
  w->dbn = w->inherit_slot + n;
  w->ik_slot = w->dbn + n;
  w->tc_slot = w->ik_slot + 2 * (size_t)sh->nik;
  forget_slots(w);
  return w;
}

void anim_world2d_prefetch(const anim_world2d *w, int stage) {
  if (!w) return;
  if (stage == 0) anim_prefetch_range(w, sizeof *w);
  else anim_prefetch_range(w->mode, sizeof(int) * block_ints(w->n, w->nik, w->ntc));
}

void anim_world2d_free(anim_world2d *w) {
  if (w) {
    anim_mem m = w->mem;
    anim_w2d_shape_release(w->shape);
    anim_free(&m, w, w->size);
  }
}

int anim_animator_set_world2d(anim_animator *a, anim_world2d *w) {
  if (w && w->n != a->rig->n) return -1;
  anim_world2d_free(a->w2d);
  a->w2d = w;
  if (w) {
    /* (a block moved from another animator, by a restore: its slots were
     * that one's) */
    w->valid = 0;
    w->rest2d = -1;
    forget_slots(w);
  }
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
  for (i = 0; i < w->n; i++)
    if (w->inherit_slot[i] < 0) w->inherit_slot[i] = anim_props_find(a, w->bone[i].inherit_name, w->bone[i].inherit_len);
  for (i = 0; i < w->nik; i++) {
    if (w->ik_slot[2 * i] < 0) w->ik_slot[2 * i] = anim_props_find(a, w->ik[i].name, w->ik[i].name_len);
    if (w->ik_slot[2 * i + 1] < 0)
      w->ik_slot[2 * i + 1] = anim_props_find(a, w->ik[i].flags, w->ik[i].flags_len);
  }
  for (i = 0; i < w->ntc; i++)
    if (w->tc_slot[i] < 0) w->tc_slot[i] = anim_props_find(a, w->tc[i].name, w->tc[i].name_len);
}

/* Component c of the property in slot (-1: none), else dflt (no track
 * gives it a value, or it has fewer components). */
static double prop_or(const anim_animator *a, int slot, int c, double dflt) {
  const double *v;
  int n;
  if (slot < 0) return dflt;  /* (most bones: no call) */
  n = anim_props_at(a, slot, &v);
  return c < n ? v[c] : dflt;
}

/* The bones' applied local values from the blended joints: of each
 * bone's local transform (anim_animator_local: the rest composed with the
 * blended pose, then made finite as anim_finite10 makes it), what the 2D
 * stage reads -- x, y, the rotation's z and w, scale x and y -- without the
 * call and the z axis; its shear from the property, its inherit mode.
 * (Each number but the rotation's is made finite alone by anim_finite10,
 * the rotation as a whole: the identity when a component is not finite or
 * all are 0.  Here a rotation of four zeros stays: it gets the identity's
 * cosine and sine below.)  The rotation as the pose gives it is a turn
 * about z: an absolute clip's quaternion is one, so any angle's sine and
 * cosine come back: cos r = (w^2 - z^2) / n, sin r = 2 w z / n (n: the
 * quaternion's length squared); its angle (2 atan2(z, w)) only when a
 * constraint asks.  Unchecked, the numbers are summed over the skeleton
 * (a sum is finite only when every number is; an overflow only makes the
 * caller check): 0 when the sum is not, and the caller reads them again
 * checked, each bone's numbers made finite (rarely). */
static ANIM_INLINE int read_locals_in(const anim_animator *a, anim_world2d *w, int checked, int rest2d) {
  const anim_rig *r = a->rig;
  const double *pose = a->pose;
  double(*rest_pos)[3] = r->rest_pos, (*rest_rot)[4] = r->rest_rot, (*rest_scl)[3] = r->rest_scl;
  const int *shear_slot = w->shear_slot, *inherit_slot = w->inherit_slot;
  const anim_w2d_bone *bone = w->bone;
  int *mode = w->mode;
  double *ap = w->ap;
  int n = w->n, scaled = r->scaled, j;
  anim_v2 sum = anim_v2_splat(0);
  for (j = 0; j < n; j++, ap += ANIM_AP, pose += 10) {
    const double *rq = rest_rot[j], *b = pose + 3;
    anim_v2 xy = anim_v2_add(anim_v2_load(rest_pos[j]), anim_v2_load(pose)), q01, q23, sc;
    double z, qw, nq;
    if (rest2d || (rq[0] == 0 && rq[1] == 0)) {
      /* (a 2D rest: a turn about z, whose product with the pose's quaternion
       * is anim_quat_mul's with its zero terms left out: the same values,
       * the zeros' signs aside; u - v as u + -v, the same bits) */
      anim_v2 r2 = anim_v2_splat(rq[2]), r3 = anim_v2_splat(rq[3]);
      q01 = anim_v2_lin(r3, anim_v2_load(b), r2, anim_v2_set(-b[1], b[0]));
      q23 = anim_v2_lin(r3, anim_v2_load(b + 2), r2, anim_v2_set(b[3], -b[2]));
    } else {
      double q[4];
      anim_quat_mul(q, rq, b);
      q01 = anim_v2_load(q);
      q23 = anim_v2_load(q + 2);
    }
    if (!scaled) {
      sc = anim_v2_load(pose + 7);
    } else if (rest2d) {
      sc = anim_v2_mul(anim_v2_load(rest_scl[j]), anim_v2_load(pose + 7));
    } else {
      double rx = rest_scl[j][0], ry = rest_scl[j][1];
      sc = anim_v2_set(rx != 0 ? rx * pose[7] : pose[7] - 1, ry != 0 ? ry * pose[8] : pose[8] - 1);
    }
    if (!checked) {
      sum = anim_v2_add(sum, anim_v2_add(anim_v2_add(xy, sc), anim_v2_add(q01, q23)));
    } else {
      anim_v2 zero = anim_v2_splat(0), t = anim_v2_add(anim_v2_mul(q01, zero), anim_v2_mul(q23, zero));
      if (!(anim_v2_lo(t) + anim_v2_hi(t) == 0)) q23 = anim_v2_set(0, 1);
      xy = anim_v2_set(anim_finite(anim_v2_lo(xy)), anim_finite(anim_v2_hi(xy)));
      sc = anim_v2_set(anim_finite(anim_v2_lo(sc)), anim_finite(anim_v2_hi(sc)));
    }
    z = anim_v2_lo(q23);
    qw = anim_v2_hi(q23);
    nq = qw * qw + z * z;
    anim_v2_store(&ap[ANIM_AX], xy);
    if (nq > 0) {
      ap[ANIM_ACR] = (qw * qw - z * z) / nq;
      ap[ANIM_ASR] = 2 * qw * z / nq;
    } else {
      ap[ANIM_ACR] = 1;
      ap[ANIM_ASR] = 0;
    }
    ap[ANIM_AR] = ap[ANIM_AHV] = NAN;
    anim_v2_store(&ap[ANIM_ASX], sc);
    if (shear_slot[j] < 0) {
      ap[ANIM_ASHX] = bone[j].shear[0];
      ap[ANIM_ASHY] = bone[j].shear[1];
    } else {
      ap[ANIM_ASHX] = prop_or(a, shear_slot[j], 0, bone[j].shear[0]);
      ap[ANIM_ASHY] = prop_or(a, shear_slot[j], 1, bone[j].shear[1]);
    }
    if (inherit_slot[j] >= 0) {
      /* the inherit mode: the property's code, else (none, or not a mode) the setup's */
      double m = prop_or(a, inherit_slot[j], 0, -1);
      mode[j] = m >= 0 && m < ANIM_INHERIT_COUNT ? (int)m : bone[j].inherit;
    }
  }
  return (anim_v2_lo(sum) + anim_v2_hi(sum)) * 0 == 0;
}

/* read_locals_in, its loop without the rests' tests where each rest is a
 * turn about z and no rest scale is 0 (rest2d: found once; the same
 * operations, so the same bits) */
static int read_locals(const anim_animator *a, anim_world2d *w, int checked) {
  if (w->rest2d < 0) {
    const anim_rig *r = a->rig;
    int j;
    w->rest2d = 1;
    for (j = 0; j < r->n; j++)
      if (r->rest_rot[j][0] != 0 || r->rest_rot[j][1] != 0 || r->rest_scl[j][0] == 0 || r->rest_scl[j][1] == 0)
        w->rest2d = 0;
  }
  if (!checked && w->rest2d) return read_locals_in(a, w, 0, 1);
  return read_locals_in(a, w, checked, 0);
}

/* IK constraint i with its properties' values, else its setup's. */
static void ik(const anim_animator *a, anim_world2d *w, int i) {
  const anim_w2d_ik *k = &w->ik[i];
  int s = w->ik_slot[2 * i], fs = w->ik_slot[2 * i + 1];
  anim_w2d_ik_apply(a, w, i, prop_or(a, s, 0, k->mix), prop_or(a, s, 1, k->softness),
                    prop_or(a, fs, 0, k->bend) < 0 ? -1 : 1, prop_or(a, fs, 1, k->compress) != 0,
                    prop_or(a, fs, 2, k->stretch) != 0);
}

static void transform(const anim_animator *a, anim_world2d *w, int i) {
  double mix[6];
  int k;
  for (k = 0; k < 6; k++) mix[k] = prop_or(a, w->tc_slot[i], k, w->tc[i].mix[k]);
  anim_w2d_tc_apply(a, w, i, mix);
}

/* ---- the stage ------------------------------------------------------------ */

static void pose(anim_animator *a, anim_world2d *w) {
  int i;
  find_slots(a, w);
  if (!read_locals(a, w, 0)) read_locals(a, w, 1);
  for (i = 0; i < w->nops; i++) {
    int at = w->ops[2 * i + 1];
    switch (w->ops[2 * i]) {
    case ANIM_W2D_BONE:
      /* (the bones' steps in a row: one call) */
      i += anim_w2d_bones_world(a, w, &w->ops[2 * i], w->nops - i) - 1;
      break;
    case ANIM_W2D_IK: ik(a, w, at); break;
    default: transform(a, w, at); break;
    }
  }
  {
    /* the matrices made finite: a sum of numbers is finite only when each
     * is (an overflow of finite ones only makes anim_finite run, which
     * leaves them as they are), so one sum tells whether any number needs
     * anim_finite (rarely) */
    anim_v2 z0 = anim_v2_splat(0), z1 = z0, z2 = z0;
    for (i = 0; i < 6 * w->n; i += 6) {
      z0 = anim_v2_add(z0, anim_v2_load(&w->wm[i]));
      z1 = anim_v2_add(z1, anim_v2_load(&w->wm[i + 2]));
      z2 = anim_v2_add(z2, anim_v2_load(&w->wm[i + 4]));
    }
    z0 = anim_v2_add(anim_v2_add(z0, z1), z2);
    if (!((anim_v2_lo(z0) + anim_v2_hi(z0)) * 0 == 0))
      for (i = 0; i < 6 * w->n; i++) w->wm[i] = anim_finite(w->wm[i]);
  }
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
