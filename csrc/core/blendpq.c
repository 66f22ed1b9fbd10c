/* blendpq.c - the pose of one level of compressed tracks, in floats, four
 * joints at a time.
 *
 * When every track of an animator's pose is of one priority, normal, and
 * plays a compressed clip whose every joint it binds holds a position and
 * a rotation with keys (anim_track's pq: W1's and most baked motion's),
 * the pose is made here instead of by blend.c's double sums: the keys are
 * floats already (the clip's records, packed.h), and the sums of four
 * joints go in the four lanes of one register (f4.h), as ozz-animation's
 * SoA jobs make theirs.  The rules are the blend's (SEMANTICS 6): each
 * joint's samples weighted by the track's weight and the joint's, the
 * positions summed and divided by the weights' sum when it is over 1, the
 * rotations turned into the hemisphere of the first that counts (weight >
 * 0), summed likewise, the identity taking what the weights leave below 1,
 * the sum made unit; the scale 1 (a pq joint has none); each weight
 * divided by the weights' sum first (sums within the samples' range), a
 * weight > 0 kept > 0 however small, +0 where every weight is 0.  Only
 * the arithmetic is single precision: a pose within a few float
 * roundings of the double blend's (3e-7 in W1), except where rounding
 * decides -- two rotations at right angles within a float's precision may
 * be summed in opposite hemispheres, rotations that nearly cancel lose
 * digits --, as in any float blend (api.md, anim.compress).  The same
 * bits on every thread and build (f4.h).
 *
 * Per group of four joints and track: each lane's segment (the track's
 * cache, moved on by anim_packed_refresh before the pose; where it left
 * an entry not strictly holding the frame -- the frame on a segment's
 * first, a key held -- the record found by anim_pk_move_to), then the
 * lanes' keys turned from records (x y z | w) into components (xxxx yyyy
 * ...) and lerped and nlerped four at a time. */
#include <float.h>

#include "animator_impl.h"
#include "f4.h"

/* (the records of a lane that has no binding, or holds a key: zeros, or
 * the key twice: u = 0 then gives the key) */
static const float zeros[ANIM_PK_QREC];

/* A group's lanes of one track, gathered: the records and the fractions. */
typedef struct lanes {
  const float *p[4], *q[4]; /* position records (a[3] b[3]), rotation records (a[4] b[4] and 4 terms) */
  float pd[4], ps[4];       /* a position's fraction: pd / ps (its frame's distance from the
                             * segment's start, the segment's length; moved: u / 1) */
  float qd[4], qs[4];       /* a rotation's likewise */
  float w[4];               /* the joint's weight in this track (0: no binding) */
  float hp[4][8], hq[4][ANIM_PK_QREC]; /* a held key's numbers, twice (a rotation's terms 0) */
  int bound;                /* lane l bound: bit l */
} lanes;

/* (four floats written one by one, read as one: built in a register, not
 * loaded from the four stores, which the store buffer does not forward) */
static ANIM_INLINE anim_f4 lanes4(const float *x) { return anim_f4_set(x[0], x[1], x[2], x[3]); }

/* A sample's weight as a float: one > 0 stays > 0 (the first of weight >
 * 0 is the rotations' reference), however small. */
static ANIM_INLINE float weight_of(double w) {
  float x = (float)w;
  return x == 0 && w > 0 ? FLT_MIN : x;
}

/* Lane l of L with no binding: weight 0, records of zeros. */
static ANIM_INLINE void unbound(lanes *L, int l) {
  L->p[l] = L->q[l] = zeros;
  L->pd[l] = L->qd[l] = L->w[l] = 0;
  L->ps[l] = L->qs[l] = 1;
}

/* Channel c's segment at frame f on the track's cache: its record, and
 * its fraction as *d / *len (the division made four lanes at a time); a
 * held key copied twice into buf (its fraction 0). */
static ANIM_INLINE const float *segment_of(const anim_pk_ch *c, double f, unsigned char *cache, int stride,
                                           float *d, float *len, float *buf) {
  const unsigned char *e = cache + c->cache;
  float f0 = *(const float *)(const void *)e, f1 = *(const float *)(const void *)(e + ANIM_PK_F1);
  double v;
  const float *k;
  int i, n = stride == ANIM_PK_VREC ? 3 : 4;
  if (f0 < f && f < f1) {
    /* (f - f0 exact in doubles; as a float within 2^-24 of a segment's
     * length, whatever the frame) */
    *d = (float)(f - f0);
    *len = f1 - f0;
    return c->rec + (size_t) * (const int *)(const void *)(e + ANIM_PK_I) * (size_t)stride;
  }
  v = anim_pk_move_to(c, f, cache, stride, &k);
  *len = 1;
  if (v >= 0) {
    *d = (float)v;
    return k;
  }
  for (i = 0; i < n; i++) buf[i] = buf[n + i] = k[i];
  /* (a rotation's four terms after its keys: 0, so that its fraction stays 0) */
  if (n == 4) buf[8] = buf[9] = buf[10] = buf[11] = 0;
  *d = 0;
  return buf;
}

/* Track t's lanes of the group of joints [j0, j0 + count) into L. */
static ANIM_INLINE void gather(const anim_track *t, int j0, int count, lanes *L) {
  const anim_joint *joints = t->clip->joints;
  double f = t->frame, tw = t->tw;
  int l;
  L->bound = 0;
  for (l = 0; l < 4; l++) {
    int b = l < count ? t->byjoint[j0 + l] : -1;
    const anim_joint *jt;
    if (b < 0) {
      unbound(L, l);
      continue;
    }
    L->bound |= 1 << l;
    jt = &joints[t->cj[b]];
    L->w[l] = weight_of(tw * jt->weight);
    L->p[l] = segment_of(&jt->packed->ch[0], f, t->pkc, ANIM_PK_VREC, &L->pd[l], &L->ps[l], L->hp[l]);
    L->q[l] = segment_of(&jt->packed->ch[1], f, t->pkc, ANIM_PK_QREC, &L->qd[l], &L->qs[l], L->hq[l]);
  }
}

/* gather's for a track whose clip's every joint is pq (its channels'
 * slots 2c and 2c + 1: anim_packed_list) and every segment of which holds
 * this update's frame strictly inside (anim_track's direct and inside):
 * each lane's entries found from its clip joint, with no look at the
 * joint nor test of the segment. */
static ANIM_INLINE void gather_direct(const anim_track *t, int j0, int count, lanes *L) {
  const anim_joint *joints = t->clip->joints;
  const anim_pk_joint *pj = t->clip->packed->joints;
  const unsigned char *cache = t->pkc;
  double f = t->frame, tw = t->tw;
  int l;
  L->bound = 0;
  for (l = 0; l < 4; l++) {
    int b = l < count ? t->byjoint[j0 + l] : -1, c, ip, iq;
    const unsigned char *pe, *qe;
    const anim_pk_ch *pc, *qc;
    float p0, q0;
    if (b < 0) {
      unbound(L, l);
      continue;
    }
    L->bound |= 1 << l;
    c = t->cj[b];
    pc = &pj[c].ch[0];
    qc = &pj[c].ch[1];
    pe = cache + anim_pk_slot_at(2 * c);
    qe = pe + 4;
    p0 = *(const float *)(const void *)pe;
    q0 = *(const float *)(const void *)qe;
    ip = *(const int *)(const void *)(pe + ANIM_PK_I);
    iq = *(const int *)(const void *)(qe + ANIM_PK_I);
    L->pd[l] = (float)(f - p0);
    L->ps[l] = *(const float *)(const void *)(pe + ANIM_PK_F1) - p0;
    L->qd[l] = (float)(f - q0);
    L->qs[l] = *(const float *)(const void *)(qe + ANIM_PK_F1) - q0;
    /* (a channel of one key, which the refresh counts as holding every
     * frame: its one record, the key twice, at 0) */
    if (ip >= pc->n) { ip = 0; L->pd[l] = 0; L->ps[l] = 1; }
    if (iq >= qc->n) { iq = 0; L->qd[l] = 0; L->qs[l] = 1; }
    L->w[l] = weight_of(tw * joints[c].weight);
    L->p[l] = pc->rec + (size_t)ip * ANIM_PK_VREC;
    L->q[l] = qc->rec + (size_t)iq * ANIM_PK_QREC;
  }
}

/* What a group's tracks add up to: each lane's position (x y z, in
 * its own register), the rotations' components four lanes at a time. */
typedef struct sums {
  anim_f4 p[4], r[4], ref[4], has; /* has: a rotation counted (1) or not (0) */
} sums;

/* One track's samples of a group (its lanes L) added to the sums s, its
 * weights times sh (each lane's 1 / W when the weights' sum W is over 1,
 * else 1: the sums stay within the samples' range); first (a constant):
 * the level's first track, whose samples start the sums (and are the
 * references where their weight is > 0). */
static ANIM_INLINE void add_track(const lanes *L, sums *s, anim_f4 sh, int first) {
  anim_f4 a[4], b[4], u, one = anim_f4_splat(1), zero = anim_f4_splat(0);
  anim_f4 w0 = lanes4(L->w), w = anim_f4_mul(w0, sh), t, sg, k9, k10, g, sq, c0, c1, len2, wn;
  int l, k;
  /* positions, a lane at a time: a (and b's first) from the record's
   * floats 0..3, b from 2..5 */
  u = anim_f4_div(lanes4(L->pd), lanes4(L->ps));
  for (l = 0; l < 4; l++) {
    anim_f4 x = anim_f4_load(L->p[l]), y = anim_f4_tail3(anim_f4_load(L->p[l] + 2));
    y = anim_f4_mul(anim_f4_add(x, anim_f4_mul(anim_f4_sub(y, x), anim_f4_splat(anim_f4_at(u, l)))),
                    anim_f4_splat(anim_f4_at(w, l)));
    s->p[l] = first ? y : anim_f4_add(s->p[l], y);
  }
  /* rotations: the keys a and b, then the terms (sg ka xb g), turned
   * into components */
  for (l = 0; l < 4; l++) { a[l] = anim_f4_load(L->q[l]); b[l] = anim_f4_load(L->q[l] + 4); }
  anim_f4_transpose(a);
  anim_f4_transpose(b);
  {
    anim_f4 m[4];
    for (l = 0; l < 4; l++) m[l] = anim_f4_load(L->q[l] + 8);
    anim_f4_transpose(m);
    sg = m[0], k9 = m[1], k10 = m[2], g = m[3];
  }
  /* the corrected fraction s and the nlerp's length squared (packed.h,
   * anim_pk_nlerp_sum), then the weight over that length */
  u = anim_f4_div(lanes4(L->qd), lanes4(L->qs));
  t = anim_f4_sub(u, anim_f4_splat(0.5f));
  sq = anim_f4_add(u, anim_f4_mul(anim_f4_mul(anim_f4_mul(u, t), anim_f4_sub(u, one)),
                                  anim_f4_add(k9, anim_f4_mul(anim_f4_mul(t, t), k10))));
  c0 = anim_f4_sub(one, sq);
  c1 = anim_f4_mul(sq, sg);
  len2 = anim_f4_sub(one, anim_f4_mul(anim_f4_mul(sq, c0), g));
  for (k = 0; k < 4; k++) a[k] = anim_f4_add(anim_f4_mul(a[k], c0), anim_f4_mul(b[k], c1));
  wn = anim_f4_div(w, anim_f4_sqrt(len2));
  if (first) {
    /* (the references: these samples where their weight is > 0) */
    anim_i4 on = ANIM_F4_GT(w0, zero);
    for (k = 0; k < 4; k++) {
      s->r[k] = anim_f4_mul(a[k], wn);
      s->ref[k] = anim_f4_pick(on, a[k], zero);
    }
    s->has = anim_f4_pick(on, one, zero);
    return;
  }
  {
    /* the hemisphere of the reference; a lane's first sample of weight > 0
     * is its reference */
    anim_f4 d = anim_f4_add(anim_f4_add(anim_f4_mul(s->ref[0], a[0]), anim_f4_mul(s->ref[1], a[1])),
                            anim_f4_add(anim_f4_mul(s->ref[2], a[2]), anim_f4_mul(s->ref[3], a[3])));
    anim_i4 now = ANIM_F4_GT(anim_f4_pick(ANIM_F4_GT(w0, zero), anim_f4_sub(one, s->has), zero), zero);
    wn = anim_f4_neg_if(wn, d);
    for (k = 0; k < 4; k++) {
      s->r[k] = anim_f4_add(s->r[k], anim_f4_mul(a[k], wn));
      s->ref[k] = anim_f4_pick(now, a[k], s->ref[k]);
    }
    s->has = anim_f4_pick(now, one, s->has);
  }
}

/* The pose of joints [j0, j0 + count) (count <= 4) from the sums and the
 * weights' sums W. */
static ANIM_INLINE void finish(anim_animator *a, int j0, int count, const sums *s, anim_f4 W, int bound) {
  anim_f4 one = anim_f4_splat(1), zero = anim_f4_splat(0), r[4], n2, z;
  anim_i4 has = ANIM_F4_GT(s->has, zero);
  int l, k;
  /* (0 + x: a sum of -0 gives +0, as the double blend's) */
  for (k = 0; k < 4; k++) r[k] = anim_f4_add(zero, s->r[k]);
  /* the identity's share, 1 - W below 1, in the reference's hemisphere */
  r[3] = anim_f4_add(r[3], anim_f4_neg_if(anim_f4_max(zero, anim_f4_sub(one, W)), s->ref[3]));
  n2 = anim_f4_add(anim_f4_add(anim_f4_mul(r[0], r[0]), anim_f4_mul(r[1], r[1])),
                   anim_f4_add(anim_f4_mul(r[2], r[2]), anim_f4_mul(r[3], r[3])));
  n2 = anim_f4_div(one, anim_f4_sqrt(n2));
  for (k = 0; k < 4; k++) r[k] = anim_f4_pick(has, anim_f4_mul(r[k], n2), k == 3 ? one : zero);
  z = anim_f4_add(anim_f4_add(r[0], r[1]), anim_f4_add(r[2], r[3]));
  anim_f4_transpose(r); /* each joint's rotation */
  for (l = 0; l < count; l++) {
    double *p = &a->pose[(j0 + l) * 10];
    anim_f4 x = anim_f4_add(zero, s->p[l]);
    z = anim_f4_add(z, x); /* (x's lane 3: a weighted mean of records' numbers, finite as they are) */
    anim_f4_store_doubles(p, x); /* (p[3], x's lane 3, the rotation's next) */
    anim_f4_store_doubles(p + 3, r[l]);
    p[7] = p[8] = p[9] = 1;
    a->animated[j0 + l] = (unsigned char)(bound >> l & 1 ? ANIM_CH_POS | ANIM_CH_ROT : 0);
  }
  /* (a number not finite, or a rotation of no length: anim_finite10's
   * remedy; z's lanes are finite only when each joint's are) */
  z = anim_f4_mul(z, zero);
  if (!(anim_f4_at(z, 0) + anim_f4_at(z, 1) + anim_f4_at(z, 2) + anim_f4_at(z, 3) == 0))
    for (l = 0; l < count; l++) anim_finite10_fix(&a->pose[(j0 + l) * 10]);
}

/* The pose of the joints from m tracks (m a constant where it is 2): per
 * group of four joints, every track's lanes, the weights' sums, then the
 * sums of the samples. */
static ANIM_INLINE void blend(anim_animator *a, int m) {
  int n = a->rig->n, j0, i;
  anim_f4 one = anim_f4_splat(1);
  for (j0 = 0; j0 < n; j0 += 4) {
    int count = n - j0 < 4 ? n - j0 : 4, bound = 0;
    lanes L[ANIM_ONE_LEVEL_MAX];
    anim_f4 W, sh;
    sums s;
    s.has = anim_f4_splat(0); /* (set by the first track: for the compiler) */
    for (i = 0; i < m; i++) {
      const anim_track *t = a->order[i];
      if (t->direct && t->inside) gather_direct(t, j0, count, &L[i]);
      else gather(t, j0, count, &L[i]);
      bound |= L[i].bound;
    }
    W = anim_f4_splat(0);
    for (i = 0; i < m; i++) W = anim_f4_add(W, lanes4(L[i].w));
    sh = anim_f4_min(one, anim_f4_div(one, W)); /* (min(1, 1 / W): 1 / W over 1) */
    for (i = 0; i < m; i++) {
      if (i == 0) add_track(&L[i], &s, sh, 1);
      else add_track(&L[i], &s, sh, 0);
    }
    finish(a, j0, count, &s, W, bound);
  }
}

void anim_blend_pq(anim_animator *a, int m) {
  if (m == 2) blend(a, 2);
  else blend(a, m);
}
