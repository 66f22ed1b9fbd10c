/* blend.c - the pose of an update: normal tracks by priority level
 * (highest first, each level taking what the budget left), additive
 * tracks on top (lowest priority first), retargeted turns carried across
 * (SEMANTICS 6, 7a.15-17). */
#include "amath.h"
#include "animator_impl.h"

static int contributes(const anim_track *t) {
  return t->state == TR_PLAYING || t->shows_last;
}

/* weight x fade; a blend space's points share their lead's, each x its
 * point's weight (spaceplay.c) */
static double track_weight(const anim_track *t) {
  const anim_track *l = t->sp.lead;
  return anim_ramp_value(&l->weight) * anim_ramp_value(&l->fade) * t->sp.bw;
}

/* The joints the general blend takes at a time: its accumulators (see
 * ACC_*) are on its stack, GEN_CHUNK x ACC_SIZE doubles (4 KB), instead
 * of 31 doubles a rig joint in every animator. */
#define GEN_CHUNK 16

/* Normal tracks of one priority level [from, to) of a->order, for the
 * joints [j0, j1) (acc: their accumulators, joint j0 first): each track's
 * bindings of those joints are sampled and summed at once into the
 * level's sums (LW: the weights W of each channel; LPOS, LROT, LSCL: the
 * weighted values).  Then per joint the level takes min(W, budget) of
 * each channel: its sums scaled by take / W (1 while W fits the budget: no
 * division), and the budget shrinks by what it took.  A rotation is
 * turned into the hemisphere of the first one that counts (the reference),
 * so that q and -q add up; one counts when its weight and the budget left
 * before the level are both > 0.  A joint's samples are summed in the
 * order of the tracks, then of their bindings (byjoint, nextb): the order
 * of a pass over every binding of every track, so the same bits. */
static void blend_level(anim_animator *a, int from, int to, int j0, int j1, double *acc) {
  int i, j, b;
  for (j = j0; j < j1; j++) {
    double *ac = &acc[(j - j0) * ACC_SIZE];
    ac[ACC_LW] = ac[ACC_LW + 1] = ac[ACC_LW + 2] = 0;
    ac[ACC_LPOS] = ac[ACC_LPOS + 1] = ac[ACC_LPOS + 2] = 0;
    ac[ACC_LROT] = ac[ACC_LROT + 1] = ac[ACC_LROT + 2] = ac[ACC_LROT + 3] = 0;
    ac[ACC_LSCL] = ac[ACC_LSCL + 1] = ac[ACC_LSCL + 2] = 0;
  }
  for (i = from; i < to; i++) {
    anim_track *t = a->order[i];
    for (j = j0; j < j1; j++) {
      double *ac = &acc[(j - j0) * ACC_SIZE];
      for (b = t->byjoint[j]; b >= 0; b = t->nextb[b]) {
        double sv[SAMPLE_STRIDE], w;
        int ch = anim_sample_binding(t, b, t->time, 1, t->tw, sv);
        if (!ch) continue;
        w = sv[10];
        a->animated[j] |= ch;
        if (ch & ANIM_CH_POS) {
          ac[ACC_LW] += w;
          ac[ACC_LPOS] += w * sv[0];
          ac[ACC_LPOS + 1] += w * sv[1];
          ac[ACC_LPOS + 2] += w * sv[2];
        }
        if (ch & ANIM_CH_ROT) {
          ac[ACC_LW + 1] += w;
          if (w > 0 && ac[ACC_BUDGET + 1] > 0) {
            double *r = &ac[ACC_REF], sw = w;
            if (!ac[ACC_HASREF]) {
              r[0] = sv[3]; r[1] = sv[4]; r[2] = sv[5]; r[3] = sv[6];
              ac[ACC_HASREF] = 1;
            } else if (r[0] * sv[3] + r[1] * sv[4] + r[2] * sv[5] + r[3] * sv[6] < 0) {
              sw = -w;
            }
            ac[ACC_LROT] += sw * sv[3];
            ac[ACC_LROT + 1] += sw * sv[4];
            ac[ACC_LROT + 2] += sw * sv[5];
            ac[ACC_LROT + 3] += sw * sv[6];
          }
        }
        if (ch & ANIM_CH_SCL) {
          ac[ACC_LW + 2] += w;
          ac[ACC_LSCL] += w * sv[7];
          ac[ACC_LSCL + 1] += w * sv[8];
          ac[ACC_LSCL + 2] += w * sv[9];
        }
      }
    }
  }
  for (j = j0; j < j1; j++) {
    double *ac = &acc[(j - j0) * ACC_SIZE], share[3];
    int ch, k;
    for (ch = 0; ch < 3; ch++) {
      double W = ac[ACC_LW + ch], B = ac[ACC_BUDGET + ch];
      if (W <= B) { share[ch] = 1; ac[ACC_BUDGET + ch] = B - W; }
      else { share[ch] = B / W; ac[ACC_BUDGET + ch] = 0; }
    }
    for (k = 0; k < 3; k++) ac[ACC_POS + k] += share[0] * ac[ACC_LPOS + k];
    for (k = 0; k < 4; k++) ac[ACC_ROT + k] += share[1] * ac[ACC_LROT + k];
    for (k = 0; k < 3; k++) ac[ACC_SCL + k] += share[2] * ac[ACC_LSCL + k];
  }
}

/* Additive track t on the pose of joints [j0, j1), each binding sampled
 * and applied in turn (a sample reads nothing of the pose: the order of a
 * pass that samples them all first, so the same bits). */
static void apply_additive(anim_animator *a, anim_track *t, int j0, int j1) {
  int j, b, k;
  for (j = j0; j < j1; j++) {
    double *p = &a->pose[j * 10];
    for (b = t->byjoint[j]; b >= 0; b = t->nextb[b]) {
      double s[SAMPLE_STRIDE], w;
      int ch = anim_sample_binding(t, b, t->time, 1, t->tw, s);
      if (!ch) continue;
      w = s[10];
      a->animated[j] |= ch;
      if (ch & ANIM_CH_POS)
        for (k = 0; k < 3; k++) p[k] += w * s[k];
      if (ch & ANIM_CH_ROT) {
        double id[4] = {0, 0, 0, 1}, r[4];
        anim_quat_slerp(r, id, s + 3, w);
        anim_quat_mul(p + 3, p + 3, r);
        anim_quat_normalize(p + 3);
      }
      if (ch & ANIM_CH_SCL)
        for (k = 0; k < 3; k++) p[7 + k] *= 1 + (s[7 + k] - 1) * w;
    }
  }
}

/* The most tracks pose_one_level takes (their samples are on its stack). */
#define ONE_LEVEL_MAX ANIM_ONE_LEVEL_MAX

static int blend_before(const anim_track *x, const anim_track *y) {
  int ax = x->clip->blend == ANIM_BLEND_ADDITIVE, ay = y->clip->blend == ANIM_BLEND_ADDITIVE;
  if (ax != ay) return ax < ay;               /* normal first */
  if (x->priority != y->priority)
    return ax ? x->priority < y->priority      /* additive: lowest first */
              : x->priority > y->priority;     /* normal: highest first */
  return x->id < y->id;
}

/* The joints pose_one_level takes at a time (its samples are on its
 * stack: ONE_LEVEL_MAX x ONE_LEVEL_CHUNK of them). */
#define ONE_LEVEL_CHUNK 16

/* What the chunk's sampling reads of a track, in locals: the stores of
 * the samples (doubles, ints) could otherwise be its fields for all the
 * compiler knows, and it would read them again after each. */
typedef struct track_view {
  anim_track *t;
  const anim_joint *joints;
  const int *byjoint, *cj;
  const unsigned char *adjust;
  int *hot;
  unsigned char *pkc;          /* a compressed clip's: the track's cache (packed.h) */
  double time, tw, frame;      /* frame: a compressed clip's time in its frames */
} track_view;

/* (a sample's flag beside its ANIM_CH_*, in the 2D copy only: its
 * rotation a turn about z alone, x and y zeros -- anim_zturn_inline's,
 * anim_zturn_eval's) */
#define CH_ZTURN 0x40
/* (pose_joint's constant for samples that wrote nothing) */
#define CH_NONE 0x80
/* (a compressed rotation's nlerp not yet divided by its length: s[3..6]
 * the sum, s[7] its length squared; pose_chunk divides, two at once) */
#define CH_NLERP 0x20

/* Binding b of a track whose every binding is a compressed joint of a
 * position and a rotation with keys (anim_track's pq): sample_one's case
 * of it, with none of its tests. */
static ANIM_INLINE int sample_pq(const track_view *v, int b, double *s) {
  const anim_joint *jt = &v->joints[v->cj[b]];
  const anim_pk_joint *pj = jt->packed;
  double w;
  anim_pk_vec_track(&pj->ch[0], v->frame, v->pkc, s);
  anim_pk_quat_sum(&pj->ch[1], v->frame, v->pkc, s + 3, s + 7);
  w = v->tw * jt->weight;
  s[10] = w > ANIM_WEIGHT_CAP ? ANIM_WEIGHT_CAP : w;
  return ANIM_CH_POS | ANIM_CH_ROT | CH_NLERP;
}

/* Binding b of track v.t sampled into s: anim_sample_binding, with the
 * usual joint's (fast, not muted, not adjusted) inline: the same bits. */
static ANIM_INLINE int sample_one(const track_view *v, int b, double *s, int zinline) {
  const anim_joint *jt = &v->joints[v->cj[b]];
  int ch;
  double w;
  if (v->adjust[b]) return anim_sample_binding(v->t, b, v->time, 1, v->tw, s);
  /* (a fast joint is not compressed: the track has hot cursors; the
   * exact clip's test first, so that it pays nothing for the other; in a
   * 2D skeleton's copy, a turn about z alone's first: its joint is fast,
   * and not of the two others) */
  if (zinline && jt->zturn && !jt->muted) {
    ch = anim_clip_sample_fast_2d(v->t->clip, jt, v->time, v->hot + b * ANIM_HOT_CURSORS, s) | CH_ZTURN;
  } else if (jt->fast == ANIM_FAST_PQ) {
    /* anim_clip_sample_fast of a position and a quaternion rotation (not
     * muted: ANIM_FAST_PQ says so) */
    int *hot = v->hot + b * ANIM_HOT_CURSORS;
    anim_curves_lerp_inline(jt->pos, &jt->fk[0], v->time, hot, s);
    anim_qcurve_slerp_inline(&jt->qrot, &jt->fk[1], v->time, hot + 1, s + 3);
    ch = ANIM_CH_POS | ANIM_CH_ROT;
  } else if (jt->packed && jt->packed->pq && !jt->muted) {
    /* anim_packed_sample of a compressed joint of a position and a
     * rotation with keys, no scale, on the track's cache */
    return sample_pq(v, b, s);
  } else if (jt->fast && !jt->muted) {
    if (zinline) ch = anim_clip_sample_fast_2d(v->t->clip, jt, v->time, v->hot + b * ANIM_HOT_CURSORS, s);
    else ch = anim_clip_sample_fast(v->t->clip, jt, v->time, v->hot + b * ANIM_HOT_CURSORS, s);
  } else {
    return anim_sample_binding(v->t, b, v->time, 1, v->tw, s);
  }
  w = v->tw * jt->weight;
  s[10] = w > ANIM_WEIGHT_CAP ? ANIM_WEIGHT_CAP : w;
  return ch;
}

/* The nlerps of a track's n samples (CH_NLERP) divided by their lengths,
 * as anim_pk_nlerp divides (the same bits), two samples at once, after
 * the track's samples: at each sample, its square root and division
 * ended a chain of operations the next samples waited behind (perf: a
 * quarter of the compressed sampling's time on them); here they are one
 * of each for two samples, their operands ready (W1 compressed 4% faster,
 * docs/performance.md). */
static ANIM_INLINE void divide_nlerps(double sv[ONE_LEVEL_CHUNK][SAMPLE_STRIDE], int *chs, int n) {
  int jj, held = -1;
  for (jj = 0; jj < n; jj++) {
    double *p, *q;
    anim_v2 l;
    if (!(chs[jj] & CH_NLERP)) continue;
    chs[jj] &= ~CH_NLERP;
    if (held < 0) { held = jj; continue; }
    p = sv[held], q = sv[jj];
    l = anim_v2_div(anim_v2_splat(1), anim_v2_sqrt(anim_v2_set(p[7], q[7])));
    anim_v2_store(p + 3, anim_v2_mul(anim_v2_load(p + 3), anim_v2_splat(anim_v2_lo(l))));
    anim_v2_store(p + 5, anim_v2_mul(anim_v2_load(p + 5), anim_v2_splat(anim_v2_lo(l))));
    anim_v2_store(q + 3, anim_v2_mul(anim_v2_load(q + 3), anim_v2_splat(anim_v2_hi(l))));
    anim_v2_store(q + 5, anim_v2_mul(anim_v2_load(q + 5), anim_v2_splat(anim_v2_hi(l))));
    held = -1;
  }
  if (held >= 0) {
    double *p = sv[held];
    anim_v2 l = anim_v2_splat(1 / sqrt(p[7]));
    anim_v2_store(p + 3, anim_v2_mul(anim_v2_load(p + 3), l));
    anim_v2_store(p + 5, anim_v2_mul(anim_v2_load(p + 5), l));
  }
}

/* What pose_joint leaves to pose_tails: its rotation's sum of squares (-1:
 * no rotation counted, the identity) and z, the pose's numbers summed
 * for anim_finite10's test, the rotation's not yet. */
typedef struct joint_tail {
  double ss;
  anim_v2 z;
} joint_tail;

/* The sums and the pose of joint j from the m samples sv[i][jj] that
 * wrote chs[i][jj]: cst, 0 or what every one wrote (a constant where it
 * is called, so that the tests fold: ANIM_CH_POS | ANIM_CH_ROT in the
 * usual blend; in the 2D copy also a rotation alone, a turn about z alone
 * (CH_ZTURN: its x and y sums are +0 whatever the zeros' signs, so they
 * are left out, the same bits), or nothing (CH_NONE)); zinline, the 2D
 * copy's (its samples' flags carry CH_ZTURN). */
static ANIM_INLINE void pose_joint(anim_animator *a, int m, int j, int jj,
                                   double sv[ONE_LEVEL_MAX][ONE_LEVEL_CHUNK][SAMPLE_STRIDE],
                                   int chs[ONE_LEVEL_MAX][ONE_LEVEL_CHUNK], int cst, int zinline, joint_tail *tail) {
  int i;
  /* the sums (f: the reference rotation), x and y of each in a pair
   * (anim_v2: P01 is P0, P1 of the scalars), in registers: no call
   * between them */
  anim_v2 P01 = anim_v2_splat(0), R01 = P01, R23 = P01, S01 = P01, f01 = P01, f23 = P01;
  double W0 = 0, W1 = 0, W2 = 0, P2 = 0, S2 = 0, f3 = 0, sh, left, *p = &a->pose[j * 10];
  int hasref = 0, animated = 0;
  for (i = 0; i < m; i++) {
    const double *v = sv[i][jj];
    int ch = cst ? cst & ~CH_NONE : chs[i][jj];
    double w;
    anim_v2 vw;
    if (!ch) continue;
    w = v[10];
    vw = anim_v2_splat(w);
    animated |= ch;
    if (ch & ANIM_CH_POS) {
      W0 += w;
      P01 = anim_v2_add(P01, anim_v2_mul(vw, anim_v2_load(v)));
      P2 += w * v[2];
    }
    if (ch & ANIM_CH_ROT) {
      W1 += w;
      if (w > 0) {
        anim_v2 r01 = (cst & CH_ZTURN) ? anim_v2_splat(0) : anim_v2_load(v + 3), r23 = anim_v2_load(v + 5),
                vs = vw;
        if (!hasref) { f01 = r01; f23 = r23; f3 = v[6]; hasref = 1; }
        else {
          /* f . v in the scalar order: ((f0 v3 + f1 v4) + f2 v5) + f3 v6 */
          anim_v2 d01 = anim_v2_mul(f01, r01), d23 = anim_v2_mul(f23, r23);
          double d = ((anim_v2_lo(d01) + anim_v2_hi(d01)) + anim_v2_lo(d23)) + anim_v2_hi(d23);
          vs = anim_v2_splat(anim_neg_if(w, d < 0));
        }
        R01 = anim_v2_add(R01, anim_v2_mul(vs, r01));
        R23 = anim_v2_add(R23, anim_v2_mul(vs, r23));
      }
    }
    if (ch & ANIM_CH_SCL) {
      W2 += w;
      S01 = anim_v2_add(S01, anim_v2_mul(vw, anim_v2_load(v + 7)));
      S2 += w * v[9];
    }
  }
  a->animated[j] = (unsigned char)(zinline ? animated & ANIM_CHANNEL_ALL : animated);
  {
    /* p[k] = 0 + sh * P_k (0 +: a sum of -0 gives 0, as the general
     * blend's); z: the sum anim_finite10 tests, by pairs (its order
     * does not matter: anim_finite10_fix changes only what is not
     * finite, or a rotation of no length) */
    anim_v2 p01, s01, z;
    sh = W0 <= 1 ? 1 : 1 / W0;
    p01 = anim_v2_add(anim_v2_splat(0), anim_v2_mul(anim_v2_splat(sh), P01));
    anim_v2_store(p, p01);
    p[2] = 0 + sh * P2;
    if (W2 <= 1) { sh = 1; left = 1 - W2; } else { sh = 1 / W2; left = 0; }
    s01 = anim_v2_add(anim_v2_add(anim_v2_splat(0), anim_v2_mul(anim_v2_splat(sh), S01)), anim_v2_splat(left));
    anim_v2_store(p + 7, s01);
    p[9] = (0 + sh * S2) + left;
    z = anim_v2_add(p01, s01);
    if (hasref) {
      /* q = 0 + sh R, w += the rest's share (+0 on z: q's z is never
       * -0), and its sum of squares in anim_quat_normalize's order: the
       * division is pose_tails' */
      anim_v2 vsh, q01, q23, s01q, s23q;
      if (W1 <= 1) { sh = 1; left = 1 - W1; } else { sh = 1 / W1; left = 0; }
      vsh = anim_v2_splat(sh);
      q01 = anim_v2_add(anim_v2_splat(0), anim_v2_mul(vsh, R01));
      q23 = anim_v2_add(anim_v2_add(anim_v2_splat(0), anim_v2_mul(vsh, R23)), anim_v2_set(0, anim_neg_if(left, f3 < 0)));
      s01q = anim_v2_mul(q01, q01);
      s23q = anim_v2_mul(q23, q23);
      anim_v2_store(p + 3, q01);
      anim_v2_store(p + 5, q23);
      tail->ss = ((anim_v2_lo(s01q) + anim_v2_hi(s01q)) + anim_v2_lo(s23q)) + anim_v2_hi(s23q);
    } else {
      tail->ss = -1;
    }
    tail->z = z;
  }
}

/* Joint p's rotation made unit (n2: its length, r = 1 / n2) and the pose's
 * test (anim_finite10's): a rotation of finite length > 0 made unit has a
 * component of about 1/2 or more: not of no length. */
static ANIM_INLINE void pose_tail(double *p, anim_v2 z, double n2, double r) {
  double zz;
  if (n2 > 0) {
    anim_v2 q01 = anim_v2_mul(anim_v2_load(p + 3), anim_v2_splat(r)), q23 = anim_v2_mul(anim_v2_load(p + 5), anim_v2_splat(r));
    anim_v2_store(p + 3, q01);
    anim_v2_store(p + 5, q23);
    z = anim_v2_add(z, anim_v2_add(q01, q23));
  } else {
    anim_quat_identity(p + 3);
  }
  zz = (anim_v2_lo(z) + anim_v2_hi(z)) + (p[2] + p[9]);
  if (!(zz - zz == 0) || !(n2 <= 1.7976931348623157e308)) anim_finite10_fix(p);
}

/* The tails of pose_joint's n joints from j0: each rotation divided by its
 * length as anim_quat_normalize divides (the same bits), two joints at a
 * time (one square root and one division of pairs, their operands ready:
 * at each joint they ended a chain the next joint waited behind). */
static ANIM_INLINE void pose_tails(anim_animator *a, int j0, int n, const joint_tail *tails) {
  int jj, held = -1;
  for (jj = 0; jj < n; jj++) {
    anim_v2 n2, r;
    if (tails[jj].ss < 0) { pose_tail(&a->pose[(j0 + jj) * 10], tails[jj].z, 0, 0); continue; }
    if (held < 0) { held = jj; continue; }
    n2 = anim_v2_sqrt(anim_v2_set(tails[held].ss, tails[jj].ss));
    r = anim_v2_div(anim_v2_splat(1), n2);
    pose_tail(&a->pose[(j0 + held) * 10], tails[held].z, anim_v2_lo(n2), anim_v2_lo(r));
    pose_tail(&a->pose[(j0 + jj) * 10], tails[jj].z, anim_v2_hi(n2), anim_v2_hi(r));
    held = -1;
  }
  if (held >= 0) {
    double n2 = sqrt(tails[held].ss);
    pose_tail(&a->pose[(j0 + held) * 10], tails[held].z, n2, 1 / n2);
  }
}

/* The pose of joints [j0, j1) (at most ONE_LEVEL_CHUNK) when every
 * contributing track is normal and of one priority (one level: the usual
 * case) and they are at most ONE_LEVEL_MAX: the same sums as blend_level,
 * made joint by joint in registers instead of through the accumulators,
 * and finished at once (the same operations in the same order: the same
 * bits).  The samples come first, track by track over the joints (the
 * samples of different joints do not wait on each other), then the sums
 * joint by joint.  The keys at the cursors are not prefetched: a clip's
 * keys stay in the second-level cache (W1's two clips are 125 KB), where
 * out-of-order execution covers their latency, and the hints cost about 60
 * instructions a joint (7% of W1's update) and, timed, about 1% of its time
 * (bench/w1pair.lua, docs/performance.md). */
static ANIM_INLINE void pose_chunk(anim_animator *a, int m, int j0, int j1, int zinline) {
  double sv[ONE_LEVEL_MAX][ONE_LEVEL_CHUNK][SAMPLE_STRIDE];
  int chs[ONE_LEVEL_MAX][ONE_LEVEL_CHUNK];
  joint_tail tails[ONE_LEVEL_CHUNK];
  int i, j;
  for (i = 0; i < m; i++) {
    anim_track *t = a->order[i];
    track_view v;
    v.t = t;
    v.joints = t->clip->joints;
    v.byjoint = t->byjoint;
    v.cj = t->cj;
    v.adjust = t->adjust;
    v.hot = t->hot;
    v.pkc = t->pkc;
    v.time = t->time;
    v.tw = t->tw;
    v.frame = t->frame;
    if (t->pq) {
      for (j = j0; j < j1; j++) {
        int b = v.byjoint[j];
        chs[i][j - j0] = b < 0 ? 0 : sample_pq(&v, b, sv[i][j - j0]);
      }
    } else {
      for (j = j0; j < j1; j++) {
        int b = v.byjoint[j];
        chs[i][j - j0] = b < 0 ? 0 : sample_one(&v, b, sv[i][j - j0], zinline);
      }
    }
    if (v.pkc) divide_nlerps(sv[i], chs[i], j1 - j0);
  }
  for (j = j0; j < j1; j++) {
    int jj = j - j0, pq = 1, same = 1;
    if (!zinline) {
      for (i = 0; i < m; i++) pq &= chs[i][jj] == (ANIM_CH_POS | ANIM_CH_ROT);
      if (pq) pose_joint(a, m, j, jj, sv, chs, ANIM_CH_POS | ANIM_CH_ROT, 0, &tails[jj]);
      else pose_joint(a, m, j, jj, sv, chs, 0, 0, &tails[jj]);
      continue;
    }
    /* (a 2D bone: what every track wrote, when they agree, a constant) */
    for (i = 1; i < m; i++) same &= chs[i][jj] == chs[0][jj];
#define CASE(c) case c: pose_joint(a, m, j, jj, sv, chs, c, 1, &tails[jj]); break
    switch (same ? chs[0][jj] : -1) {
    CASE(ANIM_CH_ROT | CH_ZTURN);
    CASE(ANIM_CH_POS | ANIM_CH_ROT | CH_ZTURN);
    CASE(ANIM_CH_ROT | ANIM_CH_SCL | CH_ZTURN);
    CASE(ANIM_CH_POS);
    case 0: pose_joint(a, m, j, jj, sv, chs, CH_NONE, 1, &tails[jj]); break;
    default: pose_joint(a, m, j, jj, sv, chs, 0, 1, &tails[jj]); break;
    }
#undef CASE
  }
  pose_tails(a, j0, j1 - j0, tails);
}

/* pose_chunk with the number of tracks a constant for the usual 2 (its
 * loops then unrolled). */
static void pose_one_level(anim_animator *a, int m, int j0, int j1) {
  if (m == 2) pose_chunk(a, 2, j0, j1, 0);
  else pose_chunk(a, m, j0, j1, 0);
}

/* The same for a 2D skeleton's animator, its turns about z alone sampled
 * inline (anim_zturn_inline: the same bits), in a copy of its own so that
 * the usual pose keeps its registers. */
static void pose_one_level_2d(anim_animator *a, int m, int j0, int j1) {
  if (m == 2) pose_chunk(a, 2, j0, j1, 1);
  else pose_chunk(a, m, j0, j1, 0);
}

/* The pose of joints [j0, j1) (at most GEN_CHUNK) from the m tracks of
 * a->order in blend order: the normal levels, highest first, each taking
 * what the budget left, the rest (the identity) the remainder; then the
 * additive tracks on top. */
static void blend_general(anim_animator *a, int m, int j0, int j1) {
  double acc[GEN_CHUNK * ACC_SIZE];
  int i, j, k;
  for (j = j0; j < j1; j++) {
    /* the accumulators the levels add to (each zeroes its own sums) */
    double *ac = &acc[(j - j0) * ACC_SIZE];
    ac[ACC_BUDGET] = ac[ACC_BUDGET + 1] = ac[ACC_BUDGET + 2] = 1;
    ac[ACC_POS] = ac[ACC_POS + 1] = ac[ACC_POS + 2] = 0;
    ac[ACC_ROT] = ac[ACC_ROT + 1] = ac[ACC_ROT + 2] = ac[ACC_ROT + 3] = 0;
    ac[ACC_SCL] = ac[ACC_SCL + 1] = ac[ACC_SCL + 2] = 0;
    ac[ACC_HASREF] = 0;
    a->animated[j] = 0;
  }
  for (i = 0; i < m && a->order[i]->clip->blend != ANIM_BLEND_ADDITIVE; i = k) {
    for (k = i + 1; k < m && a->order[k]->clip->blend != ANIM_BLEND_ADDITIVE &&
                    a->order[k]->priority == a->order[i]->priority; k++) {}
    blend_level(a, i, k, j0, j1, acc);
  }
  for (j = j0; j < j1; j++) {
    double *ac = &acc[(j - j0) * ACC_SIZE], *p = &a->pose[j * 10];
    for (k = 0; k < 3; k++) p[k] = ac[ACC_POS + k];
    for (k = 0; k < 3; k++) p[7 + k] = ac[ACC_SCL + k] + ac[ACC_BUDGET + 2];
    if (ac[ACC_HASREF]) {
      /* the rest (identity) takes the budget left, aligned to the reference */
      double left = ac[ACC_BUDGET + 1];
      for (k = 0; k < 4; k++) p[3 + k] = ac[ACC_ROT + k];
      p[6] += (ac[ACC_REF + 3] < 0 ? -left : left);
      anim_quat_normalize(p + 3);
    } else {
      anim_quat_identity(p + 3);
    }
  }
  for (; i < m; i++) apply_additive(a, a->order[i], j0, j1);
  for (j = j0; j < j1; j++) anim_finite10(&a->pose[j * 10]);
}

/* The pose of animator a; twod, a constant: a 2D skeleton's animator
 * (pose_one_level_2d). */
static ANIM_INLINE void blend_pose(anim_animator *a, int twod) {
  int n = a->rig->n, m = 0, i, j0, k, one_level = 1, allpq = 1;
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (!contributes(t)) continue;
    t->tw = track_weight(t);
    /* (a compressed clip's track cache moved on first: packed.h) */
    if (t->clip->packed) t->frame = anim_packed_frame_at(t->clip->packed, t->time);
    if (t->pkc) t->inside = (unsigned char)anim_packed_refresh(t->clip->packed, t->pkc, t->frame);
    allpq &= t->pq && t->tw <= 1e30; /* (anim_blend_pq's weights are floats) */
    if (!t->unique || t->clip->blend == ANIM_BLEND_ADDITIVE ||
        (m > 0 && t->priority != a->order[0]->priority) || m == ONE_LEVEL_MAX)
      one_level = 0;
    /* insertion into blend order (tracks are few) */
    for (k = m; k > 0 && blend_before(t, a->order[k - 1]); k--) a->order[k] = a->order[k - 1];
    a->order[k] = t;
    m++;
  }
  a->norder = m;
  if (one_level && allpq && m > 0 && !twod) {
    anim_blend_pq(a, m);
    return;
  }
  if (one_level) {
    for (j0 = 0; j0 < n; j0 += ONE_LEVEL_CHUNK) {
      if (twod) pose_one_level_2d(a, m, j0, j0 + ONE_LEVEL_CHUNK < n ? j0 + ONE_LEVEL_CHUNK : n);
      else pose_one_level(a, m, j0, j0 + ONE_LEVEL_CHUNK < n ? j0 + ONE_LEVEL_CHUNK : n);
    }
    return;
  }
  for (j0 = 0; j0 < n; j0 += GEN_CHUNK) blend_general(a, m, j0, j0 + GEN_CHUNK < n ? j0 + GEN_CHUNK : n);
}

void anim_blend_pose(anim_animator *a) { blend_pose(a, 0); }
void anim_blend_pose_2d(anim_animator *a) { blend_pose(a, 1); }
