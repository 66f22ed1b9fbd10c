/* rootmotion.c - root motion: the motion joint's animated translation
 * (every axis) and turn about the rig's up axis (+y) taken out of the
 * pose and handed to the game as each update's motion, as the motion
 * extraction of ozz-animation and the root motion of Godot and Unity do.
 *
 * Each track keeps its binding of the joint sampled at its clip's two
 * ends and at its playhead; every pass of its clock adds what the joint
 * moved over it (anim_rootmotion_passes reads the clock's records,
 * passes.h, after the clock: update.c), so a wrap adds (end
 * - here) + (there - start) and N loops move N x (end - start) whatever
 * dt is; pingpong and backwards play move as the playhead does; a seek
 * moves nothing.  After the blend, the joint is blended again with each
 * track's sample held -- its position at the clip's time 0, its turn
 * about +y at time 0 -- and the tracks' motions are blended with the same
 * weights (levels, budgets, additive layers: SEMANTICS 6).  A turn is read
 * per pass the short way round (under half a turn). */
#include <float.h>
#include <math.h>

#include "animator_impl.h"
#include "gameplay.h"
#include "passes.h"

static double wrap_pi(double x) {
  if (x > ANIM_PI) x -= 2 * ANIM_PI;
  else if (x <= -ANIM_PI) x += 2 * ANIM_PI;
  return x;
}

/* The turn of q about +y: its twist (a unit quaternion about y; identity
 * for a half turn about a horizontal axis, where there is none). */
static void twist_y(const double q[4], double out[4]) {
  double n = sqrt(q[1] * q[1] + q[3] * q[3]);
  out[0] = out[2] = 0;
  if (n > 0) { out[1] = q[1] / n; out[3] = q[3] / n; }
  else { out[1] = 0; out[3] = 1; }
}

/* Binding b of t sampled at x: the position offset and the rotation in
 * the rig's space (the joint's rest turn and its parents' at rest, rr,
 * before it); s[10] the effective weight with tw.  Returns the channels. */
static int sample(anim_track *t, int b, double x, int cursors, double tw, const double *rr, double s[11],
                  double rig_q[4]) {
  int ch;
  s[0] = s[1] = s[2] = 0;
  s[3] = s[4] = s[5] = 0; s[6] = 1;
  s[7] = s[8] = s[9] = 1;
  s[10] = 1;
  ch = anim_sample_binding(t, b, x, cursors, tw, s);
  anim_quat_mul(rig_q, rr, s + 3);
  return ch;
}

static double yaw_of(const double q[4]) {
  double tw[4];
  twist_y(q, tw);
  return wrap_pi(2 * atan2(tw[1], tw[3]));
}

/* The track's binding of rig joint j, or -1 (the first, should two clip
 * joints play on it). */
static int binding_of(const anim_track *t, int j) { return t->byjoint[j]; }

/* v, or the nearest finite number (0 for a NaN).  The motion a track
 * sums over an update is kept finite with it: a speed of 1e300 for 1e9 s
 * moves the joint by more than a double holds (an infinity, or a NaN of 0
 * motion times infinite loops), and a state saves the sums (state.c). */
static double finite_or(double v) {
  if (v != v) return 0;
  if (v > DBL_MAX) return DBL_MAX;
  if (v < -DBL_MAX) return -DBL_MAX;
  return v;
}

void anim_rootmotion_begin(anim_animator *a, anim_track *t) {
  anim_track_rm *r = &t->rm;
  const double *rr = a->rig->rig_rot[a->rm_joint];
  double s[11], q[4];
  int k;
  r->dp[0] = r->dp[1] = r->dp[2] = 0;
  r->dy = 0;
  if (r->joint != a->rm_joint) {
    r->joint = a->rm_joint;
    r->valid = 0;
    r->b = binding_of(t, r->joint);
    if (r->b >= 0) {
      /* the ends are sampled once: binary searches, the cursors left alone */
      r->ch = sample(t, r->b, 0, 0, 1, rr, s, q);
      for (k = 0; k < 3; k++) r->p0[k] = s[k];
      r->y0 = yaw_of(q);
      twist_y(q, r->q0);
      sample(t, r->b, t->clip->length, 0, 1, rr, s, q);
      for (k = 0; k < 3; k++) r->pL[k] = s[k];
      r->yL = yaw_of(q);
      if (!r->ch) r->b = -1;  /* a muted joint */
    }
  }
  if (r->b >= 0 && !r->valid) {
    sample(t, r->b, t->time, 1, 1, rr, s, q);
    for (k = 0; k < 3; k++) r->pc[k] = s[k];
    r->yc = yaw_of(q);
    r->valid = 1;
  }
}

void anim_rootmotion_pass(anim_animator *a, anim_track *t, double from, double to) {
  anim_track_rm *r = &t->rm;
  double L = t->clip->length, pt[3], yt, s[11], q[4];
  const double *pf = from <= 0 ? r->p0 : from >= L ? r->pL : r->pc;
  double yf = from <= 0 ? r->y0 : from >= L ? r->yL : r->yc;
  int k;
  if (r->b < 0 || r->joint != a->rm_joint) return;
  if (to <= 0 || to >= L) {
    const double *p = to <= 0 ? r->p0 : r->pL;
    for (k = 0; k < 3; k++) pt[k] = p[k];
    yt = to <= 0 ? r->y0 : r->yL;
  } else {
    sample(t, r->b, to, 1, 1, a->rig->rig_rot[r->joint], s, q);
    for (k = 0; k < 3; k++) pt[k] = s[k];
    yt = yaw_of(q);
  }
  for (k = 0; k < 3; k++) { r->dp[k] = finite_or(r->dp[k] + finite_or(pt[k] - pf[k])); r->pc[k] = pt[k]; }
  r->dy = finite_or(r->dy + wrap_pi(yt - yf));
  r->yc = yt;
}

void anim_rootmotion_skip(anim_animator *a, anim_track *t, int mode, int dir, double k, double from,
                          double bt) {
  anim_track_rm *r = &t->rm;
  double L = t->clip->length, f, whole[4];
  const double *pb = bt <= 0 ? r->p0 : r->pL, *pf = from <= 0 ? r->p0 : from >= L ? r->pL : r->pc;
  double yf = from <= 0 ? r->y0 : from >= L ? r->yL : r->yc;
  int i;
  if (r->b < 0 || r->joint != a->rm_joint) return;
  /* from the playhead to the bound, then k whole passes: in a loop each
   * goes the way of play; in pingpong they alternate, starting the other
   * way, so that only an odd k leaves one (backwards) */
  for (i = 0; i < 3; i++) { r->dp[i] = finite_or(r->dp[i] + finite_or(pb[i] - pf[i])); whole[i] = r->pL[i] - r->p0[i]; }
  r->dy = finite_or(r->dy + wrap_pi((bt <= 0 ? r->y0 : r->yL) - yf));
  whole[3] = wrap_pi(r->yL - r->y0);
  f = mode == ANIM_LOOP ? dir * k : (fmod(k, 2) == 1 ? -dir : 0);
  /* (k may be infinite: no motion times it is none) */
  for (i = 0; i < 3; i++) r->dp[i] = finite_or(r->dp[i] + finite_or(f * whole[i]));
  r->dy = finite_or(r->dy + finite_or(f * whole[3]));
}

/* The stage after a track's clock: its passes and skips, in order. */
void anim_rootmotion_passes(anim_animator *a, anim_track *t, const anim_passes *ps) {
  int k;
  for (k = 0; k < ps->n; k++) {
    const anim_pass *p = &ps->p[k];
    if (p->what == ANIM_PASS_ITEMS) anim_rootmotion_pass(a, t, p->from, p->to);
    else if (p->what == ANIM_PASS_SKIP) anim_rootmotion_skip(a, t, p->type, p->dir, p->sp, p->from, p->to);
  }
}

/* One track's part of the held joint: the sample at its playhead with
 * its position at time 0 and its turn about +y at time 0.  Returns the
 * channels; s[10] the weight. */
static int held(anim_animator *a, anim_track *t, double s[11]) {
  const anim_track_rm *r = &t->rm;
  const double *rr = a->rig->rig_rot[r->joint];
  double q[4], tw[4], x[4], inv[4] = { -rr[0], -rr[1], -rr[2], rr[3] };
  int ch = sample(t, r->b, t->time, 1, t->tw, rr, s, q), k;
  for (k = 0; k < 3; k++) s[k] = r->p0[k];
  /* rig space: q0 . twist(q)^-1 . q, back to the joint's offset */
  twist_y(q, tw);
  tw[1] = -tw[1];
  anim_quat_mul(x, tw, q);
  anim_quat_mul(x, r->q0, x);
  anim_quat_mul(s + 3, inv, x);
  anim_quat_normalize(s + 3);
  return ch;
}

/* A track's part of the held joint j: its channels (0: none; s[10] its
 * weight). */
static int part(anim_animator *a, anim_track *t, int j, double s[11]) {
  if (t->rm.b < 0 || t->rm.joint != j) return 0;
  return held(a, t, s);
}

/* What a level of weight W takes of the budget left: its share (1 while
 * it fits), the budget shrinking by what it took (SEMANTICS 6). */
static double take(double W, double *budget) {
  double share = W <= *budget ? 1 : *budget / W;
  *budget = W <= *budget ? *budget - W : 0;
  return share;
}

/* After the blend: joint j held (each track's sample at time 0) and the
 * tracks' motions of this update blended into a->rm. */
static ANIM_NOINLINE void apply_joint(anim_animator *a, int j) {
  int m = a->norder, i = 0, k, c;
  double budget[2] = { 1, 1 }, pos[3] = { 0, 0, 0 }, rot[4] = { 0, 0, 0, 0 }, ref[4] = { 0, 0, 0, 1 };
  double mp[3] = { 0, 0, 0 }, my = 0, *p, s[11];
  int hasref = 0;
  /* normal tracks, by priority level (blend.c's order) */
  while (i < m && a->order[i]->clip->blend != ANIM_BLEND_ADDITIVE) {
    double W[2] = { 0, 0 }, lp[3] = { 0, 0, 0 }, lr[4] = { 0, 0, 0, 0 }, lm[3] = { 0, 0, 0 }, ly = 0, share;
    for (k = i; k < m && a->order[k]->clip->blend != ANIM_BLEND_ADDITIVE &&
                a->order[k]->priority == a->order[i]->priority; k++) {
      anim_track *t = a->order[k];
      int ch = part(a, t, j, s);
      double w = s[10];
      if (ch & ANIM_CH_POS) {
        W[0] += w;
        for (c = 0; c < 3; c++) { lp[c] += w * s[c]; lm[c] += w * t->rm.dp[c]; }
      }
      if (ch & ANIM_CH_ROT) {
        W[1] += w;
        ly += w * t->rm.dy;
        if (w > 0 && budget[1] > 0) {
          double sw = w;
          if (!hasref) { for (c = 0; c < 4; c++) ref[c] = s[3 + c]; hasref = 1; }
          else if (ref[0] * s[3] + ref[1] * s[4] + ref[2] * s[5] + ref[3] * s[6] < 0) sw = -w;
          for (c = 0; c < 4; c++) lr[c] += sw * s[3 + c];
        }
      }
    }
    share = take(W[0], &budget[0]);
    for (c = 0; c < 3; c++) { pos[c] += share * lp[c]; mp[c] += share * lm[c]; }
    share = take(W[1], &budget[1]);
    for (c = 0; c < 4; c++) rot[c] += share * lr[c];
    my += share * ly;
    i = k;
  }
  if (hasref) {
    rot[3] += ref[3] < 0 ? -budget[1] : budget[1];
    anim_quat_normalize(rot);
  } else {
    anim_quat_identity(rot);
  }
  /* additive tracks on top, lowest priority first */
  for (; i < m; i++) {
    int ch = part(a, a->order[i], j, s);
    double w = s[10];
    const anim_track *t = a->order[i];
    if (ch & ANIM_CH_POS)
      for (c = 0; c < 3; c++) { pos[c] += w * s[c]; mp[c] += w * t->rm.dp[c]; }
    if (ch & ANIM_CH_ROT) {
      double id[4] = { 0, 0, 0, 1 }, r[4];
      anim_quat_slerp(r, id, s + 3, w);
      anim_quat_mul(rot, rot, r);
      anim_quat_normalize(rot);
      my += w * t->rm.dy;
    }
  }
  /* tracks that ended within this update and are not posed by it (a
   * hand-over with fade 0, a fade-out's end) moved up to their end: their
   * motion counts at the weight they had (0 at the end of a fade-out) */
  for (i = 0; i < a->ntracks; i++) {
    const anim_track *t = a->tracks[i];
    double w;
    if (t->state != TR_ENDED || t->shows_last || t->rm.b < 0 || t->rm.joint != j) continue;
    w = anim_ramp_value(&t->sp.lead->weight) * anim_ramp_value(&t->sp.lead->fade) * t->sp.bw *
        t->clip->joints[t->cj[t->rm.b]].weight;
    if (t->rm.ch & ANIM_CH_POS) for (c = 0; c < 3; c++) mp[c] += w * t->rm.dp[c];
    if (t->rm.ch & ANIM_CH_ROT) my += w * t->rm.dy;
  }
  p = &a->pose[j * 10];
  for (c = 0; c < 3; c++) p[c] = pos[c];
  for (c = 0; c < 4; c++) p[3 + c] = rot[c];
  anim_finite10(p);
  /* the motion in the rig's space: the joint's offsets are in its
   * parent's frame, taken at rest */
  if (a->rig->parent[j] >= 0) anim_quat_rotate(mp, a->rig->rig_rot[a->rig->parent[j]], mp);
  for (c = 0; c < 3; c++) a->rm[c] = finite_or(mp[c]);
  a->rm[3] = finite_or(my);
}

/* (the usual animator has no root motion joint: a test, no frame) */
void anim_rootmotion_apply(anim_animator *a) {
  a->rm[0] = a->rm[1] = a->rm[2] = a->rm[3] = 0;
  if (a->rm_joint >= 0) apply_joint(a, a->rm_joint);
}

void anim_animator_set_root_motion(anim_animator *a, int joint) {
  a->rm_joint = joint >= 0 && joint < a->rig->n ? joint : -1;
  a->rm[0] = a->rm[1] = a->rm[2] = a->rm[3] = 0;
}

int anim_animator_root_motion_joint(const anim_animator *a) { return a->rm_joint; }

void anim_animator_root_motion(const anim_animator *a, double out[7]) {
  double s, c, y = a->rm[3];
  out[0] = a->rm[0];
  out[1] = a->rm[1];
  out[2] = a->rm[2];
  /* (a turn of many rounds: its remainder; sin and cos by the core's own,
   * the same bits everywhere) */
  if (!(fabs(y) < 1e15)) y = 0;
  anim_sincos(y / 2, &s, &c);
  out[3] = 0;
  out[4] = s;
  out[5] = 0;
  out[6] = c;
}
