/* ik.c - inverse kinematics constraints, applied in the order they were
 * added at the end of every update, after blending, in the rig's space
 * (the animator's world transforms).  The models are ozz-animation's
 * IKTwoBoneJob and IKAimJob (src/animation/runtime/ik_two_bone_job.cc,
 * ik_aim_job.cc): the corrections are world-space turns of the joints,
 * carried into their local rotations, each slerped by the constraint's
 * weight from the unconstrained one.
 *
 * Two-bone: the mid joint turns about the normal of the chain's plane so
 * that the chain spans the distance to the target (law of cosines: the
 * chain straight beyond its reach, folded below |a - b|); the root then
 * turns the tip onto the target direction (the shortest arc), then about
 * that direction so that the mid joint lies on the pole's side.  Bone
 * lengths are kept (only rotations change); a chain with a bone of no
 * length, or a target on the root, is left alone.  Softening is ozz's
 * (SoftenTarget: the reach approaches its end as 1 - 3^4 / (alpha + 3)^4).
 * Aim: the joint turns the shortest arc bringing its forward axis onto
 * the target, then about that axis to bring its up axis nearest the
 * rig's +y (its own up where the target is straight above or below). */
#include <math.h>
#include <string.h>

#include "animator_impl.h"
#include "gameplay.h"
#include "state.h"

typedef struct anim_ik_c {
  long long id;
  anim_ik_desc d;
} anim_ik_c;

struct anim_ik {
  int n, cap;
  long long next_id;
  anim_ik_c *c;
};

/* ---- vectors and turns --------------------------------------------------- */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(double *o, const double *a, const double *b) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  o[0] = x; o[1] = y; o[2] = z;
}

static double len3(const double *a) { return sqrt(dot3(a, a)); }

/* Scales a to unit length; 0 (a unchanged) when it has none. */
static int unit3(double *a) {
  double l = len3(a);
  if (!(l > 0) || !isfinite(l)) return 0;
  a[0] /= l; a[1] /= l; a[2] /= l;
  return 1;
}

static void sub3(double *o, const double *a, const double *b) {
  o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2];
}

/* A unit vector at right angles to unit a. */
static void perpendicular(double *o, const double *a) {
  double x[3] = { 1, 0, 0 }, y[3] = { 0, 1, 0 };
  cross3(o, a, fabs(a[0]) < 0.9 ? x : y);
  unit3(o);
}

static void axis_angle(double q[4], const double *axis, double angle) {
  double s, c;
  anim_sincos(angle / 2, &s, &c);
  q[0] = axis[0] * s; q[1] = axis[1] * s; q[2] = axis[2] * s; q[3] = c;
}

/* The shortest turn taking unit a onto unit b (a half turn about a
 * perpendicular when they are opposite). */
static void from_to(double q[4], const double *a, const double *b) {
  double d = dot3(a, b);
  if (d < -1 + 1e-12) {
    perpendicular(q, a);
    q[3] = 0;
    return;
  }
  cross3(q, a, b);
  q[3] = 1 + d;
  anim_quat_normalize(q);
}

static void qconj(double o[4], const double q[4]) { o[0] = -q[0]; o[1] = -q[1]; o[2] = -q[2]; o[3] = q[3]; }

/* The world transforms a constraint reads: those of joint `last` and its
 * ancestors, composed down from its root as pose.c does (a few joints,
 * not the whole rig; the whole rig's, cached, when the chain is deeper
 * than ANCESTORS).  w[j * 10] for each joint j of the path. */
#define ANCESTORS 64
typedef struct { int n, path[ANCESTORS]; double w[ANCESTORS][10]; int all; } chain_world;

static void chain_of(anim_animator *a, int last, chain_world *cw) {
  const anim_rig *r = a->rig;
  int j, n = 0, k;
  for (j = last; j >= 0 && n < ANCESTORS; j = r->parent[j]) cw->path[n++] = j;
  cw->all = j >= 0;
  cw->n = n;
  if (cw->all) return;
  for (k = n - 1; k >= 0; k--) {
    double l[10];
    anim_animator_local(a, cw->path[k], l);
    if (k == n - 1) memcpy(cw->w[k], l, sizeof l);
    else anim_pose_compose(cw->w[k + 1], l, cw->w[k]);
  }
}

/* The world transform of joint j (on the path, or -1 for "the parent of
 * the path's root": the identity). */
static void world_of(anim_animator *a, const chain_world *cw, int j, double out[10]) {
  int k;
  if (j < 0) {
    static const double id[10] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
    memcpy(out, id, sizeof id);
    return;
  }
  if (cw->all) { anim_animator_world(a, j, out); return; }
  for (k = 0; k < cw->n; k++)
    if (cw->path[k] == j) { memcpy(out, cw->w[k], sizeof(double) * 10); return; }
  anim_animator_world(a, j, out);  /* (not on the path: not asked for) */
}

/* The turn the joint's local rotation is given in: its parent's world
 * turn times its rest turn (pose.c: world = parent . rest . offset). */
static void frame_of(anim_animator *a, const chain_world *cw, int j, double f[4]) {
  double w[10];
  world_of(a, cw, a->rig->parent[j], w);
  anim_quat_mul(f, w + 3, a->rig->rest_rot[j]);
}

/* Joint j's offset rotation once the world turn R is applied to it
 * (within frame f: offset' = f^-1 R f offset), slerped by w from the one
 * it has. */
static void turn_joint(anim_animator *a, int j, const double f[4], const double R[4], double w) {
  double *off = &a->pose[j * 10 + 3], fi[4], x[4];
  qconj(fi, f);
  anim_quat_mul(x, R, f);
  anim_quat_mul(x, x, off);
  anim_quat_mul(x, fi, x);
  anim_quat_normalize(x);
  if (w < 1) anim_quat_slerp(x, off, x, w);
  memcpy(off, x, sizeof x);
  anim_finite10(&a->pose[j * 10]);
}

/* The world rotation of joint j set to Q (offset = f^-1 Q), slerped by w. */
static void set_joint(anim_animator *a, int j, const double f[4], const double Q[4], double w) {
  double *off = &a->pose[j * 10 + 3], fi[4], x[4];
  qconj(fi, f);
  anim_quat_mul(x, fi, Q);
  anim_quat_normalize(x);
  if (w < 1) anim_quat_slerp(x, off, x, w);
  memcpy(off, x, sizeof x);
  anim_finite10(&a->pose[j * 10]);
}

static double clamp1(double x) { return x < -1 ? -1 : x > 1 ? 1 : x; }

/* ---- the constraints ----------------------------------------------------- */

static void two_bone(anim_animator *a, const anim_ik_desc *d) {
  int jr = d->j[0], jm = d->j[1], jt = d->j[2];
  double wr[10], wm[10], wt[10], fr[4], fm[4], u[3], v[3], t[3], n[3], pv[3];
  double la, lb, lt, reach, lo, dist, ang, ang0, Rm[4], Rb[4], Rc[4], R[4], v2[3], e[3], m[3];
  double w = d->weight;
  chain_world cw;
  chain_of(a, jt, &cw);  /* (the tip's path holds the mid joint and the root) */
  world_of(a, &cw, jr, wr);
  world_of(a, &cw, jm, wm);
  world_of(a, &cw, jt, wt);
  frame_of(a, &cw, jr, fr);
  frame_of(a, &cw, jm, fm);
  sub3(u, wm, wr);
  sub3(v, wt, wm);
  sub3(t, d->target, wr);
  sub3(pv, d->pole, wr);
  la = len3(u);
  lb = len3(v);
  lt = len3(t);
  reach = la + lb;
  if (!(la > 1e-12 * reach && lb > 1e-12 * reach && lt > 1e-12 * reach) || !isfinite(reach + lt)) return;
  /* softening (ozz's SoftenTarget): beyond soften x the reach, the
   * distance reached approaches the reach without getting there */
  {
    double s = d->soften < 0 ? 0 : d->soften > 1 ? 1 : d->soften, da = reach * s, ds = reach - da;
    if (lt > da && ds > 0) {
      double al = (lt - da) / ds, p = (al + 3) * (al + 3);
      dist = da + ds - ds * (81 / (p * p));
    } else {
      dist = lt;
    }
  }
  lo = fabs(la - lb);
  if (dist > reach) dist = reach;
  if (dist < lo) dist = lo;
  /* the mid joint: the angle the chain needs at it (straight at the end
   * of its reach, folded at its start: exactly, where the law of cosines
   * loses half the digits), against the one it has */
  if (dist >= reach) ang = ANIM_PI;
  else if (dist <= lo) ang = 0;
  else ang = acos(clamp1((la * la + lb * lb - dist * dist) / (2 * la * lb)));
  cross3(n, v, u);  /* (-u) x v: turning v about it opens the angle */
  ang0 = atan2(len3(n), -dot3(u, v));
  if (len3(n) > 1e-9 * la * lb) {
    unit3(n);
  } else {
    /* straight or folded: any normal of the bone will do (the pole step
     * puts the bend on the pole's side) */
    cross3(n, u, pv);
    if (!unit3(n)) { double uu[3] = { u[0] / la, u[1] / la, u[2] / la }; perpendicular(n, uu); }
  }
  axis_angle(Rm, n, ang - ang0);
  anim_quat_rotate(v2, Rm, v);
  e[0] = u[0] + v2[0]; e[1] = u[1] + v2[1]; e[2] = u[2] + v2[2];
  /* the root: the tip onto the target's direction ... */
  t[0] /= lt; t[1] /= lt; t[2] /= lt;
  if (!unit3(e)) return;
  from_to(Rb, e, t);
  /* ... then about it, the mid joint onto the pole's side */
  anim_quat_rotate(m, Rb, u);
  {
    double mp[3], pp[3], c[3], km = dot3(m, t), kp = dot3(pv, t);
    mp[0] = m[0] - km * t[0]; mp[1] = m[1] - km * t[1]; mp[2] = m[2] - km * t[2];
    pp[0] = pv[0] - kp * t[0]; pp[1] = pv[1] - kp * t[1]; pp[2] = pv[2] - kp * t[2];
    if (len3(mp) > 1e-9 * la && len3(pp) > 1e-9 * (len3(pv) + la)) {
      cross3(c, mp, pp);
      axis_angle(Rc, t, atan2(dot3(t, c), dot3(mp, pp)));
      anim_quat_mul(R, Rc, Rb);
    } else {
      memcpy(R, Rb, sizeof R);
    }
  }
  turn_joint(a, jm, fm, Rm, w);
  turn_joint(a, jr, fr, R, w);
  a->world_valid = 0;
}

static void aim(anim_animator *a, const anim_ik_desc *d) {
  int j = d->j[0];
  double wj[10], f[4], dir[3], fl[3], ul[3], cf[3], q1[4], q[4], cu[3], u[3], c[3], Q[4];
  double y[3] = { 0, 1, 0 }, k;
  chain_world cw;
  chain_of(a, j, &cw);
  world_of(a, &cw, j, wj);
  frame_of(a, &cw, j, f);
  sub3(dir, d->target, wj);
  if (!(len3(dir) > 1e-12) || !unit3(dir)) return;  /* the target on the joint */
  memcpy(fl, d->fwd, sizeof fl);
  memcpy(ul, d->up, sizeof ul);
  unit3(fl);
  k = dot3(ul, fl);
  ul[0] -= k * fl[0]; ul[1] -= k * fl[1]; ul[2] -= k * fl[2];
  unit3(ul);
  /* the forward axis onto the target, from where it points now */
  anim_quat_rotate(cf, wj + 3, fl);
  from_to(q1, cf, dir);
  anim_quat_mul(q, q1, wj + 3);
  /* then its up axis nearest +y (or, the target straight above or
   * below, nearest where it is) */
  anim_quat_rotate(cu, q, ul);
  k = dot3(y, dir);
  u[0] = -k * dir[0]; u[1] = 1 - k * dir[1]; u[2] = -k * dir[2];
  if (len3(u) < 1e-9 || !unit3(u)) {
    k = dot3(cu, dir);
    u[0] = cu[0] - k * dir[0]; u[1] = cu[1] - k * dir[1]; u[2] = cu[2] - k * dir[2];
    if (!unit3(u)) memcpy(u, cu, sizeof u);
  }
  cross3(c, cu, u);
  axis_angle(Q, dir, atan2(dot3(dir, c), dot3(cu, u)));
  anim_quat_mul(Q, Q, q);
  anim_quat_normalize(Q);
  set_joint(a, j, f, Q, d->weight);
  a->world_valid = 0;
}

void anim_ik_apply(anim_animator *a) {
  struct anim_ik *ik = a->ik;
  int i;
  if (!ik) return;
  for (i = 0; i < ik->n; i++) {
    const anim_ik_desc *d = &ik->c[i].d;
    if (!(d->weight > 0)) continue;
    if (d->kind == ANIM_IK_TWO_BONE) two_bone(a, d);
    else aim(a, d);
  }
}

/* ---- the list ------------------------------------------------------------ */

void anim_ik_free(anim_animator *a) {
  if (!a->ik) return;
  anim_free(&a->mem, a->ik->c, sizeof(anim_ik_c) * (size_t)a->ik->cap);
  anim_free(&a->mem, a->ik, sizeof(struct anim_ik));
  a->ik = NULL;
}

/* Is joint `lo` below joint `hi` (a descendant)? */
static int below(const anim_rig *r, int lo, int hi) {
  int j;
  for (j = r->parent[lo]; j >= 0; j = r->parent[j])
    if (j == hi) return 1;
  return 0;
}

static int finite3(const double *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static int valid(const anim_animator *a, const anim_ik_desc *d) {
  int n = a->rig->n, k, nj = d->kind == ANIM_IK_TWO_BONE ? 3 : 1;
  for (k = 0; k < nj; k++) if (d->j[k] < 0 || d->j[k] >= n) return 0;
  if (!finite3(d->target) || !isfinite(d->weight)) return 0;
  if (d->kind == ANIM_IK_TWO_BONE)
    return below(a->rig, d->j[1], d->j[0]) && below(a->rig, d->j[2], d->j[1]) && finite3(d->pole) &&
           isfinite(d->soften);
  if (d->kind == ANIM_IK_AIM) {
    double f[3], u[3], c[3];
    memcpy(f, d->fwd, sizeof f);
    memcpy(u, d->up, sizeof u);
    if (!finite3(f) || !finite3(u) || !unit3(f) || !unit3(u)) return 0;
    cross3(c, f, u);
    return len3(c) > 1e-9;
  }
  return 0;
}

long long anim_ik_add(anim_animator *a, const anim_ik_desc *d) {
  struct anim_ik *ik = a->ik;
  if (!valid(a, d)) return -2;
  /* (the constraints read world transforms in every update: their block
   * made now, not there) */
  if (!anim_animator_world_room(a)) return -1;
  if (!ik) {
    ik = anim_calloc(&a->mem, 1, sizeof *ik);
    if (!ik) return -1;
    a->ik = ik;
  }
  if (ik->n == ik->cap) {
    int cap = ik->cap ? ik->cap * 2 : 4;
    anim_ik_c *c = anim_realloc(&a->mem, ik->c, sizeof(anim_ik_c) * (size_t)ik->cap, sizeof(anim_ik_c) * (size_t)cap);
    if (!c) return -1;
    ik->c = c;
    ik->cap = cap;
  }
  ik->c[ik->n].id = ++ik->next_id;
  ik->c[ik->n].d = *d;
  if (ik->c[ik->n].d.weight < 0) ik->c[ik->n].d.weight = 0;
  if (ik->c[ik->n].d.weight > 1) ik->c[ik->n].d.weight = 1;
  return ik->c[ik->n++].id;
}

static anim_ik_c *find(const anim_animator *a, long long id) {
  int i;
  if (!a->ik) return NULL;
  for (i = 0; i < a->ik->n; i++) if (a->ik->c[i].id == id) return &a->ik->c[i];
  return NULL;
}

int anim_ik_remove(anim_animator *a, long long id) {
  anim_ik_c *c = find(a, id);
  struct anim_ik *ik = a->ik;
  if (!c) return 0;
  memmove(c, c + 1, sizeof *c * (size_t)(ik->n - (int)(c - ik->c) - 1));  /* keeps the order */
  ik->n--;
  return 1;
}

int anim_ik_set(anim_animator *a, long long id, int field, const double v[3]) {
  anim_ik_c *c = find(a, id);
  if (!c) return 0;
  switch (field) {
    case ANIM_IKF_TARGET: if (finite3(v)) memcpy(c->d.target, v, sizeof c->d.target); break;
    case ANIM_IKF_POLE: if (finite3(v)) memcpy(c->d.pole, v, sizeof c->d.pole); break;
    case ANIM_IKF_WEIGHT: if (v[0] >= 0 && v[0] <= 1) c->d.weight = v[0]; break;
    case ANIM_IKF_SOFTEN: if (v[0] >= 0 && v[0] <= 1) c->d.soften = v[0]; break;
    default: return 0;
  }
  return 1;
}

int anim_ik_get(const anim_animator *a, long long id, int field, double v[3]) {
  const anim_ik_c *c = find(a, id);
  if (!c) return 0;
  switch (field) {
    case ANIM_IKF_TARGET: memcpy(v, c->d.target, sizeof c->d.target); break;
    case ANIM_IKF_POLE: memcpy(v, c->d.pole, sizeof c->d.pole); break;
    case ANIM_IKF_WEIGHT: v[0] = c->d.weight; break;
    case ANIM_IKF_SOFTEN: v[0] = c->d.soften; break;
    default: return 0;
  }
  return 1;
}

/* ---- the saveable state (state.h) ----------------------------------------- */

int anim_state_nik(const anim_animator *a) { return a->ik ? a->ik->n : 0; }

long long anim_state_ik(const anim_animator *a, int i, anim_ik_desc *d) {
  *d = a->ik->c[i].d;
  return a->ik->c[i].id;
}

long long anim_ik_next(const anim_animator *a) { return a->ik ? a->ik->next_id : 0; }

/* (ids stay unique and in creation order, as anim_override_put's) */
int anim_ik_put(anim_animator *a, long long id, const anim_ik_desc *d) {
  struct anim_ik *ik = a->ik;
  long long made;
  if (id <= 0 || (ik && ik->n > 0 && id <= ik->c[ik->n - 1].id)) return -1;
  made = anim_ik_add(a, d);
  if (made == -2) return -1;
  if (made < 0) return -2;
  ik = a->ik;
  ik->c[ik->n - 1].id = id;
  ik->next_id = id;
  return 0;
}

/* (as anim_overrides_set_next: constraints all removed keep their next id) */
int anim_ik_set_next(anim_animator *a, long long next) {
  struct anim_ik *ik = a->ik;
  if (!ik) {
    if (next <= 0) return 0;
    ik = anim_calloc(&a->mem, 1, sizeof *ik);
    if (!ik) return -1;
    a->ik = ik;
  }
  if (next > ik->next_id) ik->next_id = next;
  return 0;
}
