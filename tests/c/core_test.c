/* core_test.c - the C core used from C alone (no Lua): build a clip, a rig
 * and an animator through the public headers, play, update, read the pose
 * and the queue of timed callbacks; share a run's indices out on a pool.
 * Run by `make test`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "amath.h"
#include "animator.h"
#include "clip.h"
#include "override.h"
#include "pool.h"
#include "propmix.h"
#include "reload.h"
#include "gameplay.h"
#include "rig.h"
#include "state.h"

#include "check.h"


static int near(double a, double b) { return fabs(a - b) <= 1e-12; }

/* An allocator with lua_Alloc's contract that checks the core keeps it:
 * every free and realloc names the size of the block, and nothing is left
 * when everything is freed.  fail_at > 0 fails that allocation. */
typedef struct counting {
  size_t live;
  long count, fail_at;
  int bad_size;
} counting;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = ud;
  size_t *h = ptr ? (size_t *)ptr - 2 : NULL;
  if (h && h[0] != osize) c->bad_size = 1;
  if (nsize == 0) {
    if (h) { c->live -= h[0]; free(h); }
    return NULL;
  }
  if (++c->count == c->fail_at) return NULL;
  h = realloc(h, nsize + 2 * sizeof(size_t));
  if (!h) return NULL;
  c->live += nsize - (ptr ? h[0] : 0);
  h[0] = nsize;
  return h + 2;
}

/* A clip of one joint "arm": position x from 0 to 2 over 1 s (linear, all
 * three axes), a marker at 0.5, looping. */
static anim_clip *make_clip(const anim_mem *m) {
  anim_clip *c = anim_clip_new(m, 1, 1);
  anim_joint *j;
  int a;
  if (!c) return NULL;
  j = &c->joints[0];
  j->name = anim_clip_strdup(c, "arm", 3);
  if (!j->name) { anim_clip_free(c); return NULL; }
  j->weight = 1;
  j->channels = ANIM_CH_POS;
  {
    /* keys of arity 3: x goes 0 -> 2, y and z stay 0 */
    anim_keys *k = anim_clip_keys(c, 0, ANIM_K_POS, 2, 3, 0);
    if (!k) { anim_clip_free(c); return NULL; }
    k->t[0] = 0; k->t[1] = 1;
    for (a = 0; a < 6; a++) k->v[a] = a == 3 ? 2 : 0;
    k->ie[0] = k->ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  }
  c->length = 1;
  c->loop = ANIM_LOOP;
  c->items[0].t = 0.5;
  c->items[0].kind = ANIM_ITEM_MARKER;
  return anim_clip_finish(c) ? (anim_clip_free(c), NULL) : c;
}

/* A clip of one joint "arm" (position y 0 -> 1 over `len` s) and two
 * property channels: "glow" (0 -> 2 over len, linear) and "tint" (3
 * components, a bezier key with a handle on each), looping. */
static anim_clip *make_prop_clip(const anim_mem *m, double len) {
  anim_clip *c = anim_clip_new(m, 1, 0);
  anim_keys *k, *p;
  int a;
  if (!c) return NULL;
  c->joints[0].name = anim_clip_strdup(c, "arm", 3);
  c->joints[0].weight = 1;
  c->joints[0].channels = ANIM_CH_POS;
  k = c->joints[0].name ? anim_clip_keys(c, 0, ANIM_K_POS, 2, 3, 0) : NULL;
  if (!k || anim_clip_props(c, 2) < 0) { anim_clip_free(c); return NULL; }
  k->t[0] = 0; k->t[1] = len;
  for (a = 0; a < 6; a++) k->v[a] = a == 4 ? 1 : 0;
  k->ie[0] = k->ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  p = anim_prop_keys(c, 0, "glow", 4, 2, 1, 0);
  if (!p) { anim_clip_free(c); return NULL; }
  p[0].t[0] = 0; p[0].t[1] = len;
  p[0].v[0] = 0; p[0].v[1] = 2;
  p[0].ie[0] = p[0].ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  p = anim_prop_keys(c, 1, "tint", 4, 2, 3, 1);
  if (!p) { anim_clip_free(c); return NULL; }
  p[0].t[0] = 0; p[0].t[1] = len;
  p[0].ie[0] = ANIM_IE(ANIM_BEZIER, 0);
  p[0].ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  for (a = 0; a < 3; a++) {
    double *h = anim_keys_mark(&p[a], 0, 0);
    p[a].v[0] = 0; p[a].v[1] = a + 1;
    h[0] = len / 3; h[1] = NAN; h[2] = 0.5; h[3] = 0; h[4] = 0;
  }
  c->length = len;
  c->loop = ANIM_LOOP;
  return anim_clip_finish(c) ? (anim_clip_free(c), NULL) : c;
}

/* What anim_clip_finish says of a clip whose keys a C builder got wrong:
 * a handle counted but not marked, a split axis of arity 3. */
static const char *finish_error(const anim_mem *m, int which) {
  anim_clip *c = anim_clip_new(m, 1, 0);
  anim_keys *k;
  const char *e;
  if (!c) return "no memory";
  c->joints[0].name = anim_clip_strdup(c, "j", 1);
  c->joints[0].channels = ANIM_CH_POS;
  if (which == 0) {
    k = anim_clip_keys(c, 0, ANIM_K_POS, 2, 3, 1);  /* room for one handle, none marked */
  } else {
    c->joints[0].split = 1 << ANIM_K_POS;
    k = anim_clip_keys(c, 0, ANIM_K_AXIS(ANIM_K_POS, 0), 2, 3, 0);
  }
  if (!k || !c->joints[0].name) { anim_clip_free(c); return "no memory"; }
  k->t[1] = 1;
  k->ie[0] = k->ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  e = anim_clip_finish(c);
  anim_clip_free(c);
  return e ? e : "";
}

static const char *names[] = {"root", "arm"};
static const int parents[] = {-1, 0};
static const double pivots[][3] = {{0, 0, 0}, {1, 2, 3}};
static const double rots[][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}};

#define MAX_SAVED 16
static int state_round_trip(const anim_mem *m, const anim_rig *rig, anim_animator *an, const anim_binding *bind) {
  anim_track_state ts[MAX_SAVED];
  anim_state_lead leads[MAX_SAVED];
  anim_track *made[MAX_SAVED];
  anim_override ov[4];
  long long ov_id[4];
  double pose[20], va[10], vb[10];
  int animated[2], n = anim_state_count(an), k, point, after, which, nb = 1, ok, r;
  const anim_binding *bp = bind;
  anim_state_in in;
  anim_animator *b = NULL;
  const char *why;
  if (n > MAX_SAVED || anim_state_noverrides(an) > 4) return 0;
  memset(&in, 0, sizeof in);
  for (k = 0; k < n; k++) {
    const anim_track *t = anim_state_track(an, k, &ts[k], &point, &after);
    leads[k].clip = anim_track_clip(t);
    leads[k].space = NULL;
    leads[k].binds = &bp;
    leads[k].nbind = &nb;
    leads[k].at[0] = leads[k].at[1] = 0;
    leads[k].after = after;
    leads[k].id = anim_track_id(t);
    leads[k].points = &ts[k];
  }
  in.nov = anim_state_noverrides(an);
  for (k = 0; k < in.nov; k++) ov_id[k] = anim_state_override(an, k, &ov[k]);
  anim_state_animator(an, &in.an);
  for (k = 0; k < 2; k++) anim_animator_get(an, k, pose + 10 * k, &animated[k]);
  in.nlead = n;
  in.lead = leads;
  in.pose = pose;
  in.animated = animated;
  in.ov = ov;
  in.ov_id = ov_id;
  if (n > 0) {
    /* queued after itself: refused, after its tracks were made (or out
     * of memory: reported like any other failure) */
    leads[0].after = 0;
    r = anim_state_build(m, rig, ANIM_SIDE_BOTH, &in, &b, made, &which, &why);
    leads[0].after = -1;
    if (b || r != ANIM_STATE_BAD_TRACK || which != 0 || strcmp(why, "after") != 0) return 0;
  }
  if (anim_state_build(m, rig, ANIM_SIDE_BOTH, &in, &b, made, &which, &why) != ANIM_STATE_OK) return 0;
  ok = anim_animator_update(an, 0.3) == 0 && anim_animator_update(b, 0.3) == 0 &&
       anim_animator_nevents(an) == anim_animator_nevents(b);
  for (k = 0; k < 2 && ok; k++) {
    anim_animator_get(an, k, va, NULL);
    anim_animator_get(b, k, vb, NULL);
    ok = memcmp(va, vb, sizeof va) == 0;
  }
  anim_animator_free(b);
  return ok;
}

/* Builds everything, plays and updates with an allocator that fails its
 * fail_at-th allocation: returns 1 when it all worked, 0 when an
 * allocation failed (and was reported, not crashed on). */
static int run_with(counting *cn) {
  anim_mem m;
  const char *err = NULL;
  anim_rig *rig;
  anim_clip *clip;
  anim_animator *an = NULL;
  anim_binding bind;
  anim_play_opts opts;
  int ok = 0, i;
  m.f = counting_alloc;
  m.ud = cn;
  rig = anim_rig_new(&m, 2, names, parents, pivots, rots, &err);
  clip = make_clip(&m);
  if (rig && clip) an = anim_animator_new(&m, rig, ANIM_SIDE_BOTH);
  if (an) {
    memset(&bind, 0, sizeof bind);
    bind.cj = 0; bind.rj = 1; bind.pscale = 1;
    opts.fade = 0; opts.weight = 1; opts.speed = 1; opts.priority = 0; opts.has_priority = 0;
    ok = 1;
    /* ten tracks (the track arrays grow), then enough updates that the
     * callback queue grows past its first size */
    for (i = 0; i < 10 && ok; i++) ok = anim_animator_play(an, clip, &opts, &bind, 1) != NULL;
    for (i = 0; i < 3 && ok; i++) ok = anim_animator_update(an, 9.75) == 0;
    /* and through the batch update, which reports the failing animator */
    if (ok) {
      int queued[1], nq = -1;
      ok = anim_animators_update(&an, 1, 19.5, queued, &nq) == 0 && nq == 1 && queued[0] == 0;
    }
    /* property channels, an override and a reload (issue 23) */
    if (ok) {
      anim_clip *pc = make_prop_clip(&m, 1), *fresh = make_prop_clip(&m, 2);
      anim_track *pt = NULL;
      anim_override o;
      anim_rebind r;
      memset(&o, 0, sizeof o);
      o.joint = 1; o.mode = ANIM_OVR_ADD; o.channels = ANIM_CH_POS; o.weight = 1; o.pos[0] = 1; o.rot[3] = 1;
      ok = pc && fresh && (pt = anim_animator_play(an, pc, &opts, &bind, 1)) != NULL &&
           anim_override_add(an, &o) > 0 && anim_animator_update(an, 0.25) == 0;
      if (ok) {
        ok = anim_rebind_prepare(&r, pt, pc, fresh, &bind, 1, NULL, NULL) == ANIM_PROPS_OK;
        if (ok) anim_reload_commit(pc, fresh, &r, 1);
      }
      ok = ok && anim_animator_update(an, 0.25) == 0;
      anim_clip_free(pc);
      anim_clip_free(fresh);
    }
    /* the saveable state (state.h): every track and override read out, a
     * state that does not fit refused (nothing left behind), a new
     * animator built from the state; both updated alike pose alike */
    if (ok) ok = state_round_trip(&m, rig, an, &bind);
  }
  anim_animator_free(an);
  anim_clip_free(clip);
  anim_rig_free(rig);
  return ok;
}

/* ---- the slerp's error bound over a dense sweep of angles ---------------- */

/* Quaternion keys are sampled with a series for sine and cosine
 * (anim_sincos_small: Taylor to x^15 and x^16) on per-key arcs prepared at
 * build (anim_qcurve_prepare): no acos or sin per sample.  The claim
 * (issue 24 asks for 1e-7): every component of a sampled rotation is within
 * SLERP_BOUND of the exact slerp of the keys made unit, for every angle
 * between keys, at every fraction, eased or not; positions (linear) within
 * LERP_BOUND.  The reference is the textbook formula in long double. */
#define SLERP_BOUND 2e-11
#define LERP_BOUND 1e-12

static unsigned long long lcg_state = 88172645463325252ull;
static double lcg(void) {  /* in [-1, 1) */
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(lcg_state >> 11) * (2.0 / 9007199254740992.0) - 1;
}

static void unit4(double q[4]) {
  double n;
  do {
    int a;
    for (a = 0; a < 4; a++) q[a] = lcg();
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1);
  q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n;
}

/* The exact slerp (shortest arc) of the keys a and b made unit, at f (any
 * real: an easing may overshoot), in long double; `other`: along the
 * other arc (both are shortest when the keys are orthogonal). */
static void slerp_ref(const double *a, const double *b, double f, int other, long double out[4]) {
  long double p[4], q[4], np = 0, nq = 0, d = 0, c[4], cn = 0, th;
  int i;
  for (i = 0; i < 4; i++) { np += (long double)a[i] * a[i]; nq += (long double)b[i] * b[i]; }
  np = sqrtl(np); nq = sqrtl(nq);
  for (i = 0; i < 4; i++) { p[i] = a[i] / np; q[i] = b[i] / nq; d += p[i] * q[i]; }
  if ((d < 0) != (other != 0)) { for (i = 0; i < 4; i++) q[i] = -q[i]; d = -d; }
  for (i = 0; i < 4; i++) { c[i] = q[i] - d * p[i]; cn += c[i] * c[i]; }
  cn = sqrtl(cn);
  th = atan2l(cn, d);
  for (i = 0; i < 4; i++)
    out[i] = th == 0 ? p[i] : (p[i] * sinl((1 - f) * th) + q[i] * sinl(f * th)) / sinl(th);
}

static double quat_err(const double got[4], const double *a, const double *b, double f) {
  long double r[4];
  double e = 0, e2 = 0;
  int i, orth;
  long double d = 0;
  for (i = 0; i < 4; i++) d += (long double)a[i] * b[i];
  orth = fabsl(d) < 1e-9L * sqrtl(((long double)a[0] * a[0] + (long double)a[1] * a[1] +
                                    (long double)a[2] * a[2] + (long double)a[3] * a[3]) *
                                   ((long double)b[0] * b[0] + (long double)b[1] * b[1] +
                                    (long double)b[2] * b[2] + (long double)b[3] * b[3]));
  slerp_ref(a, b, f, 0, r);
  for (i = 0; i < 4; i++) e = fmax(e, (double)fabsl(got[i] - r[i]));
  if (!orth) return e;
  slerp_ref(a, b, f, 1, r);
  for (i = 0; i < 4; i++) e2 = fmax(e2, (double)fabsl(got[i] - r[i]));
  return fmin(e, e2);
}

/* The angles between consecutive keys (as quaternions: the keys' dot is
 * cos w, w in [0, pi]; the turn between them is 2w, or 2(pi - w) the short
 * way): a uniform sweep, and sweeps near 0, near pi/2 (turns near 180
 * degrees, either hemisphere) and near pi. */
static int sweep_angles(double *w, int cap) {
  int n = 0, k;
  double e;
  for (k = 0; k <= 4000 && n < cap; k++) w[n++] = ANIM_PI * k / 4000;
  for (e = 1; e <= 15 && n + 4 <= cap; e += 0.125) {
    double x = pow(10, -e);
    w[n++] = x; w[n++] = ANIM_PI - x;
    w[n++] = ANIM_PI / 2 - x; w[n++] = ANIM_PI / 2 + x;
  }
  return n;
}

/* One clip of one joint whose quaternion keys, at times 0, 1, 2 ..., turn
 * by the sweep's angles about random axes (some keys not unit), all in
 * interpolation ie; and a position channel of random keys.  Every segment
 * sampled at 65 fractions through anim_qcurve_eval and the inline path of
 * the blend (the same bits), measured against the exact values. */
static void slerp_sweep(const anim_mem *mem, unsigned char ie, double *qerr, double *perr, int *same) {
  static double w[8000];
  int nw = sweep_angles(w, 8000), n = nw + 1, i, a, cur1 = -1, cur2 = -1, pc = -1, pc2 = -1;
  anim_clip *c = anim_clip_new(mem, 1, 0);
  anim_joint *jt;
  anim_keys *k, *kp;
  if (!c) { *same = 0; return; }
  jt = &c->joints[0];
  jt->name = anim_clip_strdup(c, "j", 1);
  jt->weight = 1;
  jt->channels = ANIM_CH_ROT | ANIM_CH_POS;
  jt->rot_quat = 1;
  k = anim_clip_keys(c, 0, ANIM_K_ROT, n, 4, 0);
  kp = anim_clip_keys(c, 0, ANIM_K_POS, n, 3, 0);
  if (!jt->name || !k || !kp) { anim_clip_free(c); *same = 0; return; }
  unit4(k->v);
  for (i = 0; i < n; i++) {
    k->t[i] = kp->t[i] = i;
    k->ie[i] = ie;
    kp->ie[i] = ANIM_IE(ANIM_LINEAR, 0);
    for (a = 0; a < 3; a++) kp->v[3 * i + a] = 100 * lcg();
    if (i > 0) {
      /* q = p cos w + u sin w, u a unit quaternion orthogonal to p */
      const double *p = k->v + 4 * (i - 1);
      double pn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]), pu[4], u[4], d = 0, un = 0;
      for (a = 0; a < 4; a++) pu[a] = p[a] / pn;
      unit4(u);
      for (a = 0; a < 4; a++) d += u[a] * pu[a];
      for (a = 0; a < 4; a++) { u[a] -= d * pu[a]; un += u[a] * u[a]; }
      un = sqrt(un);
      for (a = 0; a < 4; a++) k->v[4 * i + a] = pu[a] * cos(w[i - 1]) + u[a] / un * sin(w[i - 1]);
    }
  }
  /* some keys not unit: a key is made unit when sampled */
  for (i = 0; i < n; i += 7)
    for (a = 0; a < 4; a++) k->v[4 * i + a] *= i % 2 ? 3.5 : 1e-3;
  c->length = n - 1;
  if (anim_clip_finish(c)) { anim_clip_free(c); *same = 0; return; }
  jt = &c->joints[0];
  for (i = 0; i < n - 1; i++) {
    int m;
    for (m = 0; m <= 64; m++) {
      double s = m / 64.0, t = i + s, f, q1[4], q2[4], p1[3], p2[3];
      long double pr;
      int ip = ie & ANIM_IE_INTERP;
      anim_qcurve_eval(&jt->qrot, t, &cur1, q1);
      if (ip == ANIM_LINEAR) anim_qcurve_slerp_inline(&jt->qrot, &jt->fk[1], t, &cur2, q2);
      else memcpy(q2, q1, sizeof q2);  /* (the inline path is for curves that slerp everywhere) */
      anim_curves_lerp_shared(jt->pos, t, &pc, p1);
      anim_curves_lerp_inline(jt->pos, &jt->fk[0], t, &pc2, p2);
      if (memcmp(q1, q2, sizeof q1) || memcmp(p1, p2, sizeof p1)) *same = 0;
      f = ip >= ANIM_SINE && ip <= ANIM_ELASTIC
                             ? anim_ease(ip, (ie & ANIM_IE_EASE) >> ANIM_IE_EASE_SHIFT, s) : s;
      /* s = 1: the next key itself, made unit */
      *qerr = fmax(*qerr, m < 64 ? quat_err(q1, k->v + 4 * i, k->v + 4 * (i + 1), f)
                                  : quat_err(q1, k->v + 4 * (i + 1), k->v + 4 * (i + 1), 0));
      for (a = 0; a < 3; a++) {
        long double va = kp->v[3 * (m == 64 ? i + 1 : i) + a], vb = kp->v[3 * (m == 64 ? i + 1 : i + 1) + a];
        pr = m == 64 ? va : va + (vb - va) * (long double)s;
        *perr = fmax(*perr, (double)fabsl(p1[a] - pr));
      }
    }
  }
  anim_clip_free(c);
}

/* A pool's run sharing [0, n) out (anim_pool_next): every index taken
 * once, the `ahead` after an index its taker's own, and a late part (it
 * sleeps first) relieved of its stretch by the others. */
#define SHARE_N 20000
typedef struct share_run {
  anim_pool *pool;
  int late;                    /* the part that starts late */
  unsigned char owner[SHARE_N];  /* part + 1 that took each index */
  unsigned char ahead_bad;     /* an ahead index taken by another part (set by part 0) */
  int ahead[SHARE_N];
  int count[ANIM_POOL_MAX];
} share_run;

static void share_part(void *arg, int part, int nparts) {
  share_run *r = arg;
  int i, a;
  (void)nparts;
  if (part == r->late) {
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
  }
  while ((i = anim_pool_next(r->pool, part, &a)) >= 0) {
    r->owner[i] = (unsigned char)(part + 1);
    r->ahead[i] = a;
    r->count[part]++;
  }
}

static void test_share(anim_mem *mem, int threads, int late) {
  anim_pool *p = anim_pool_new(mem, threads);
  share_run *r = calloc(1, sizeof *r);
  int i, k, once = 1, ahead_own = 1;
  char what[96];
  CHECK(p && r, "a pool and its run");
  if (!p || !r) { anim_pool_free(p); free(r); return; }
  r->pool = p;
  r->late = late;
  anim_pool_share(p, SHARE_N);
  anim_pool_run(p, share_part, r);
  for (i = 0; i < SHARE_N; i++) {
    if (!r->owner[i]) once = 0;
    for (k = 1; k <= r->ahead[i] && i + k < SHARE_N; k++)
      if (r->owner[i + k] != r->owner[i]) ahead_own = 0;
  }
  for (i = k = 0; i < threads; i++) k += r->count[i];
  snprintf(what, sizeof what, "%d threads: every index taken, once", threads);
  CHECK(once && k == SHARE_N, what);
  snprintf(what, sizeof what, "%d threads: the indices said ahead are the taker's", threads);
  CHECK(ahead_own, what);
  snprintf(what, sizeof what, "%d threads: the late part took less than its stretch (%d)", threads, r->count[late]);
  CHECK(r->count[late] < SHARE_N / threads, what);
  /* and again on the same pool, no part late */
  memset(r->owner, 0, sizeof r->owner);
  memset(r->count, 0, sizeof r->count);
  r->late = -1;
  anim_pool_share(p, 7);
  anim_pool_run(p, share_part, r);
  for (i = k = 0; i < threads; i++) k += r->count[i];
  CHECK(k == 7 && r->owner[0] && r->owner[6] && !r->owner[7], "a run of fewer indices than threads x 8");
  anim_pool_free(p);
  free(r);
}

int main(void) {
  const char *err = NULL;
  counting cn = {0, 0, 0, 0};
  anim_mem mem;
  anim_rig *rig;
  anim_clip *clip;
  anim_animator *an;
  anim_binding bind;
  anim_play_opts opts;
  anim_track *tr;
  double v[10], s[11];
  int flags;
  long n, total;

  {
    /* the fast sines and cosines against libm's */
    double x, e = 0, es = 0, sn, cs;
    for (x = -2000; x <= 2000; x += 0.0123) {
      anim_sincos(x, &sn, &cs);
      e = fmax(e, fmax(fabs(sn - sin(x)), fabs(cs - cos(x))));
    }
    int vsame = 1;
    for (x = -ANIM_SINCOS_RANGE; x <= ANIM_SINCOS_RANGE; x += 1e-4) {
      double sn2, cs2;
      anim_sincos_small(x, &sn, &cs);
      es = fmax(es, fmax(fabs(sn - sin(x)), fabs(cs - cos(x))));
      /* the lanes of the vector form (ANIM_VECTOR) give the scalar bits */
      anim_sincos_small_scalar(x, &sn2, &cs2);
      if (memcmp(&sn, &sn2, sizeof sn) || memcmp(&cs, &cs2, sizeof cs)) vsame = 0;
    }
    CHECK(vsame, "anim_sincos_small: the vector form gives the scalar form's bits");
    CHECK(e < 1e-14, "anim_sincos within 1e-14 of libm");
    CHECK(es < 1e-11, "anim_sincos_small within 1e-11 of libm on its range");
    anim_sincos(1e300, &sn, &cs);
    CHECK(sn == sin(1e300) && cs == cos(1e300), "huge angles: libm");
  }
  {
    /* anim_quat_mul in pairs against the products summed one by one, left
     * to right, to the bit: random quaternions, and components of +-0, 1,
     * tiny, huge (overflowing) in every place (not NaN: a NaN rotation
     * never leaves the core, the finite tests make it the identity) */
    static const double vals[] = {0.0, -0.0, 1.0, -0.5, 0.3, 1e-310, -1e-200, 1e300, -1e308};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    int i, k, qsame = 1;
    unsigned long long seed = 88172645463325252ull;
    for (i = 0; i < 200000; i++) {
      double a[4], b[4], o[4], e[4];
      for (k = 0; k < 8; k++) {
        double *q = k < 4 ? a : b;
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        q[k & 3] = i < 100000 ? vals[(seed >> 8) % (unsigned)nv] : (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
      }
      e[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
      e[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
      e[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
      e[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
      anim_quat_mul(o, a, b);
      for (k = 0; k < 4; k++)
        if (e[k] == e[k] && memcmp(&o[k], &e[k], sizeof o[k])) qsame = 0;
      anim_quat_mul(a, a, b);  /* o may be a */
      if (memcmp(a, o, sizeof o) && e[0] == e[0] && e[1] == e[1] && e[2] == e[2] && e[3] == e[3]) qsame = 0;
    }
    CHECK(qsame, "anim_quat_mul: the pairs give the scalar products' bits");
  }
  {
    /* a turn about z alone (a 2D bone's Euler channel, x and y +0):
     * anim_quat_about_z gives anim_quat_from_euler's bits in xyz and yxz,
     * zeros' signs too, at every angle (+-0, whole turns, huge) */
    static const double zs[] = {0.0, -0.0, 360.0, -720.0, 180.0, 1e6, -1e300};
    int i, k, zsame = 1;
    for (i = -200000; i < 200000 + 7; i++) {
      double z = i < 200000 ? i * 0.0137 : zs[i - 200000], deg[3], o[4], e[4];
      int order;
      for (order = 0; order < 2; order++) {
        int eu = order ? ANIM_YXZ : ANIM_XYZ;
        deg[0] = 0.0; deg[1] = 0.0; deg[2] = z;
        anim_quat_from_euler(e, deg, eu);
        anim_quat_about_z(o, z, order ? -1 : 1);
        for (k = 0; k < 4; k++)
          if (memcmp(&o[k], &e[k], sizeof o[k])) zsame = 0;
      }
    }
    CHECK(zsame, "anim_quat_about_z: anim_quat_from_euler's bits, zeros' signs too");
  }
  {
    /* a turn about z alone sampled by its segments (anim_zturn_eval): the
     * lerped angle's quaternion within 4 roundings of its half angle on
     * segments of at most half a turn (keys near 0 and near -1e4 degrees),
     * its bits on longer ones and beyond the keys; the same bits with a
     * cursor and without */
    enum { NK = 64 };
    double t[NK], v[3 * NK], zt[ANIM_ZTURN_REC * NK], err = 0;
    anim_keys k;
    anim_fastkeys f;
    int i, order, start, bits = 1, exact = 1;
    unsigned seed = 40;
    for (start = 0; start < 2; start++) {
      int cursor = -1;
      memset(&k, 0, sizeof k);
      for (i = 0; i < NK; i++) {
        seed = seed * 1103515245u + 12345u;
        t[i] = i * 0.25;
        v[3 * i] = v[3 * i + 1] = 0.0;
        /* steps up to 190 degrees (a few beyond half a turn) */
        v[3 * i + 2] = (i ? v[3 * i - 1] : start ? -1e4 + 9.75 : 0.3) + ((double)(seed >> 8 & 0xffff) / 65535 - 0.45) * 380;
      }
      v[3 * 10 + 2] = v[3 * 9 + 2] + 180;   /* exactly half a turn: the series */
      k.n = NK; k.arity = 3; k.t = t; k.v = v;
      anim_zturn_prepare(&k, zt);
      f.t = t; f.v = v; f.arc = zt; f.n = NK;
      for (order = 0; order < 2; order++) {
        double eps = order ? -1 : 1;
        for (i = -40; i < 64 * 40 + 40; i++) {
          double at = i * (0.25 / 40) + 0.001, o[4], p[4], e[4], deg;
          int seg = (int)floor(at / 0.25), c;
          anim_zturn_eval(&f, at, &cursor, eps, o);
          anim_zturn_eval(&f, at, NULL, eps, p);
          if (memcmp(o, p, sizeof o)) bits = 0;
          if (seg < 0 || seg >= NK - 1) deg = v[3 * (seg < 0 ? 0 : NK - 1) + 2];
          else {
            double s = (at - t[seg]) / (t[seg + 1] - t[seg]);
            deg = v[3 * seg + 2] + (v[3 * seg + 5] - v[3 * seg + 2]) * s;
          }
          anim_quat_about_z(e, deg, eps);
          if (seg < 0 || seg >= NK - 1 || fabs(v[3 * seg + 5] - v[3 * seg + 2]) > 180) {
            if (memcmp(o, e, sizeof o)) exact = 0;
          } else {
            /* (in units of the rounding of the half angle h itself: 2^-52 max(1, |h|)) */
            double u = ldexp(fmax(1, fabs(deg) * (ANIM_PI / 360)), -52);
            for (c = 0; c < 4; c++) if (fabs(o[c] - e[c]) / u > err) err = fabs(o[c] - e[c]) / u;
            if (o[0] != 0 || o[1] != 0) exact = 0;
          }
        }
      }
    }
    {
      /* two keys 1e-310 s apart (the turn over the length overflows):
       * the lerped angle */
      double t2[2] = {0, 1e-310}, v2[6] = {0.0, 0.0, 10, 0.0, 0.0, 40}, at = 0.5e-310, o[4], e[4];
      double s = (at - t2[0]) / (t2[1] - t2[0]);
      k.n = 2; k.t = t2; k.v = v2;
      anim_zturn_prepare(&k, zt);
      f.t = t2; f.v = v2; f.arc = zt; f.n = 2;
      anim_zturn_eval(&f, at, NULL, 1, o);
      anim_quat_about_z(e, 10 + (40 - 10) * s, 1);
      CHECK(memcmp(o, e, sizeof o) == 0 && o[3] == o[3], "anim_zturn_eval: a segment too short for its record lerps the angle");
    }
    CHECK(bits, "anim_zturn_eval: the same bits with a cursor and without");
    CHECK(exact, "anim_zturn_eval: anim_quat_about_z's bits beyond the keys and on segments beyond half a turn");
    CHECK(err <= 4, "anim_zturn_eval: within 4 roundings of the half angle of the lerped angle's quaternion");
    if (err > 4) fprintf(stderr, "anim_zturn_eval: error %g roundings\n", err);
  }

  mem.f = counting_alloc;
  mem.ud = &cn;
  {
    /* the slerp's error over a dense sweep of angles (see slerp_sweep) */
    static const unsigned char ies[] = {ANIM_IE(ANIM_LINEAR, 0), ANIM_IE(ANIM_BACK, ANIM_EASE_INOUT),
                                        ANIM_IE(ANIM_ELASTIC, ANIM_EASE_OUT), ANIM_IE(ANIM_QUAD, ANIM_EASE_IN)};
    double qerr = 0, perr = 0;
    int same = 1;
    size_t e;
    for (e = 0; e < sizeof ies; e++) slerp_sweep(&mem, ies[e], &qerr, &perr, &same);
    printf("slerp sweep: quaternion components within %.3g of the exact slerp, positions within %.3g\n",
           qerr, perr);
    CHECK(qerr <= SLERP_BOUND, "sampled rotations within SLERP_BOUND of the exact slerp, every angle");
    CHECK(perr <= LERP_BOUND, "sampled positions within LERP_BOUND of the exact lerp");
    CHECK(same, "the blend's inline sampling gives the bits of the curve functions");
  }
  rig = anim_rig_new(&mem, 2, names, parents, pivots, rots, &err);
  clip = make_clip(&mem);

  CHECK(rig && !err, "rig builds");
  CHECK(clip != NULL, "clip builds");
  if (!rig || !clip) return 1;
  CHECK(anim_rig_find(rig, "arm") == 1, "rig finds its joints");
  CHECK(strcmp(finish_error(&mem, 0), "bad handle marks") == 0, "finish: handles counted but not marked");
  CHECK(strcmp(finish_error(&mem, 1), "bad channel arity") == 0, "finish: a split axis of arity 3");

  flags = anim_clip_sample_joint(clip, 0, 0.25, NULL, NULL, s);
  CHECK(flags == ANIM_CH_POS && near(s[0], 0.5) && near(s[10], 1), "clip samples at 0.25");

  an = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
  CHECK(an != NULL, "animator");
  memset(&bind, 0, sizeof bind);
  bind.cj = 0; bind.rj = 1; bind.pscale = 1;
  opts.fade = 0; opts.weight = 1; opts.speed = 1; opts.priority = 0; opts.has_priority = 0;
  tr = anim_animator_play(an, clip, &opts, &bind, 1);
  CHECK(tr != NULL, "play");
  anim_track_retain(tr);

  CHECK(anim_animator_update(an, 0.75) == 0, "update");
  anim_animator_get(an, 1, v, &flags);
  CHECK(near(v[0], 1.5) && flags == ANIM_CH_POS, "pose at 0.75");
  CHECK(anim_animator_nevents(an) == 1 && anim_animator_event(an, 0)->type == ANIM_EV_ITEM &&
        near(anim_animator_event(an, 0)->late, 0.25), "the marker at 0.5, late 0.25");
  anim_animator_world(an, 1, v);
  CHECK(near(v[0], 2.5) && near(v[1], 2) && near(v[2], 3), "world = pivot + offset");

  CHECK(anim_animator_update(an, 0.5) == 0, "update across the loop");
  CHECK(near(anim_track_time(tr), 0.25) && anim_track_loops(tr) == 1, "wrapped once");
  CHECK(anim_animator_nevents(an) == 1 && anim_animator_event(an, 0)->type == ANIM_EV_LOOPED, "looped");
  CHECK(anim_animator_update(an, -1) == -1 && near(anim_track_time(tr), 0.25), "a bad dt changes nothing");

  anim_track_stop(tr, 0);
  anim_animator_update(an, 0.1);
  CHECK(!anim_track_playing(tr), "stop(0) ends at the next update");

  {
    /* the batch update: the same as updating each in turn */
    anim_animator *as[3], *one[3];
    anim_track *ts[3], *t1[3];
    int queued[3], nq = -1, i, same = 1;
    for (i = 0; i < 3; i++) {
      as[i] = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
      one[i] = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
      ts[i] = anim_animator_play(as[i], clip, &opts, &bind, 1);
      t1[i] = anim_animator_play(one[i], clip, &opts, &bind, 1);
      anim_track_seek(ts[i], 0.1 * i);
      anim_track_seek(t1[i], 0.1 * i);
    }
    CHECK(anim_animators_update(as, 3, 0.35, queued, &nq) == 0, "batch update");
    for (i = 0; i < 3; i++) {
      double w1[10];
      anim_animator_update(one[i], 0.35);
      anim_animator_get(as[i], 1, v, NULL);
      anim_animator_get(one[i], 1, w1, NULL);
      same = same && memcmp(v, w1, sizeof v) == 0 && anim_track_time(ts[i]) == anim_track_time(t1[i]) &&
             anim_animator_nevents(as[i]) == anim_animator_nevents(one[i]);
    }
    CHECK(same, "the batch update poses as an update of each");
    /* the marker at 0.5 falls in (0.2, 0.55] only: the third animator */
    CHECK(nq == 1 && queued[0] == 2, "the batch update lists the animators with callbacks");
    CHECK(anim_animators_update(as, 3, NAN, queued, &nq) == -1 && nq == 0 &&
          anim_track_time(ts[0]) == anim_track_time(t1[0]), "a bad dt changes nothing in a batch");
    CHECK(anim_animators_update(as, 0, 1, NULL, NULL) == 0, "an empty batch");
    for (i = 0; i < 3; i++) { anim_animator_free(as[i]); anim_animator_free(one[i]); }
  }

  /* Property channels, an override, a reload (issue 23), from C. */
  {
    anim_clip *pc = make_prop_clip(&mem, 1), *fresh = make_prop_clip(&mem, 0.5);
    anim_animator *pa = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
    anim_binding bind;
    anim_play_opts opts;
    anim_track *pt;
    anim_override o;
    anim_rebind r;
    const double *pv = NULL;
    double s3[3], v[10];
    int cur[3] = {-1, -1, -1};
    long long id;
    CHECK(pc && fresh && pa, "a clip with property channels builds");
    CHECK(pc->nprops == 2 && anim_clip_find_prop(pc, "tint", 4) == 1, "its properties");
    anim_prop_sample(&pc->props[1], 0.5, cur, s3);
    CHECK(s3[0] > 0.5 && s3[0] < 1 && s3[2] > 1.5 && s3[2] < 3, "a bezier property samples");
    memset(&bind, 0, sizeof bind);
    bind.cj = 0; bind.rj = 1; bind.pscale = 1;
    opts.fade = 0; opts.weight = 0.5; opts.speed = 1; opts.priority = 0; opts.has_priority = 0;
    pt = anim_animator_play(pa, pc, &opts, &bind, 1);
    CHECK(pt != NULL && anim_animator_property(pa, "glow", 4, &pv) == 0, "a property is known once its track plays");
    CHECK(anim_animator_property(pa, "none", 4, &pv) == -1, "an unknown property");
    anim_animator_update(pa, 0.25);
    CHECK(anim_animator_property(pa, "glow", 4, &pv) == 1 && pv[0] == 0.5, "a lone track at weight 0.5 gives its own value");
    memset(&o, 0, sizeof o);
    o.joint = 1; o.mode = ANIM_OVR_REPLACE; o.channels = ANIM_CH_POS; o.weight = 1; o.pos[2] = 7; o.rot[3] = 1;
    id = anim_override_add(pa, &o);
    o.weight = 2;
    CHECK(id > 0 && anim_override_add(pa, &o) == -1, "an override; a weight out of range refused");
    anim_animator_update(pa, 0.25);
    anim_animator_get(pa, 1, v, NULL);
    CHECK(v[0] == 0 && v[1] == 0 && v[2] == 7, "the override replaces the blended position");
    CHECK(anim_override_remove(pa, id) == 0 && anim_override_remove(pa, id) == -1, "removed once");
    CHECK(anim_rebind_prepare(&r, pt, pc, fresh, &bind, 1, NULL, NULL) == ANIM_PROPS_OK, "a reload prepared");
    anim_reload_commit(pc, fresh, &r, 1);
    CHECK(pc->length == 0.5 && fresh->length == 1 && anim_track_time(pt) == 0.5, "swapped; the track clamped into the new length");
    anim_animator_update(pa, 0.125);
    CHECK(near(anim_track_time(pt), 0.125) && anim_animator_property(pa, "glow", 4, &pv) == 1 && near(pv[0], 0.5),
          "the track plays the new content");
    anim_animator_free(pa);
    anim_clip_free(pc);
    anim_clip_free(fresh);
  }

  {
    /* a rig of local rests and rest scales (glTF nodes), an absolute clip
     * with a cubicspline quaternion channel */
    anim_rig_def defs[2];
    anim_rig *gr;
    anim_clip *ac = anim_clip_new(&mem, 1, 0);
    anim_keys *k;
    anim_animator *ga;
    double hs = sqrt(0.5);
    int i;
    memset(defs, 0, sizeof defs);
    defs[0].name = "root"; defs[0].parent = -1; defs[0].local = 1;
    defs[0].translation[1] = 1; defs[0].rot[3] = 1;
    defs[0].scale[0] = defs[0].scale[1] = defs[0].scale[2] = 2;
    defs[1].name = "arm"; defs[1].parent = 0; defs[1].local = 1;
    defs[1].translation[0] = 1; defs[1].rot[2] = hs; defs[1].rot[3] = hs;
    defs[1].scale[0] = defs[1].scale[1] = defs[1].scale[2] = 1;
    gr = anim_rig_build(&mem, 2, defs, &err);
    CHECK(gr && near(gr->rest_pos[1][0], 1) && near(gr->rest_scl[0][1], 2) && near(gr->pivot[1][1], 1),
          "a rig of local rests and rest scales");
    CHECK(ac != NULL, "absolute clip");
    ac->joints[0].name = anim_clip_strdup(ac, "arm", 3);
    ac->joints[0].weight = 1;
    ac->joints[0].channels = ANIM_CH_ROT;
    ac->joints[0].rot_quat = 1;
    ac->absolute = 1;
    ac->length = 1;
    k = anim_clip_keys(ac, 0, ANIM_K_ROT, 2, 4, 0);
    CHECK(k && anim_clip_tangents(ac, k), "keys and tangents");
    k->t[0] = 0; k->t[1] = 1;
    for (i = 0; i < 8; i++) k->v[i] = 0;
    k->v[3] = 1; k->v[6] = 1;             /* identity, then half a turn about z */
    k->ie[0] = ANIM_IE(ANIM_CUBICSPLINE, 0); k->ie[1] = ANIM_IE(ANIM_LINEAR, 0);
    CHECK(anim_clip_finish(ac) == NULL, "the absolute clip finishes");
    anim_clip_sample_joint(ac, 0, 0.5, NULL, NULL, s);
    /* zero tangents: (1 - h) identity + h z-turn, h = 0.5 at the middle */
    CHECK(near(s[5], hs) && near(s[6], hs), "cubicspline quaternion, made unit");
    ga = anim_animator_new(&mem, gr, ANIM_SIDE_BOTH);
    bind.cj = 0; bind.rj = 1;
    anim_animator_play(ga, ac, &opts, &bind, 1);
    anim_animator_update(ga, 0.5);
    anim_animator_local(ga, 1, v);
    /* the absolute rotation replaces the rest's; the rest position stays */
    CHECK(near(v[0], 1) && near(v[5], hs) && near(v[6], hs) && near(v[7], 1), "the absolute clip sets the local turn");
    anim_animator_world(ga, 1, v);
    CHECK(near(v[0], 2) && near(v[1], 1) && near(v[7], 2), "world: the parent's rest scale applied");
    anim_animator_free(ga);
    anim_clip_free(ac);
    anim_rig_free(gr);
  }

  {
    /* the gameplay features from C: a blend space of the clip at two
     * places, root motion of the arm, a track queued after it, and a
     * two-bone constraint on a rig of three joints in a chain */
    static const char *cn3[] = {"a", "b", "c"};
    static const int cp3[] = {-1, 0, 1};
    static const double cv3[][3] = {{0, 0, 0}, {0, 1, 0}, {0, 2, 0}}, cr3[][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
    const anim_clip *two[2];
    const double at[2][2] = {{0, 0}, {1, 0}}, p[2] = {0.25, 0};
    const anim_binding *bs[2];
    int nb[2] = {1, 1};
    double w[2], m[7];
    anim_space *sp;
    anim_animator *a2 = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
    anim_track *st, *q;
    anim_rig *chain = anim_rig_new(&mem, 3, cn3, cp3, cv3, cr3, &err);
    anim_animator *a3 = chain ? anim_animator_new(&mem, chain, ANIM_SIDE_BOTH) : NULL;
    anim_ik_desc d;
    two[0] = two[1] = clip;
    bs[0] = bs[1] = &bind;
    sp = anim_space_new(&mem, 2, 1, two, at, 1, ANIM_MARKERS_DOMINANT, &err);
    CHECK(sp && a2 && a3, "a space, animators");
    if (sp && a2 && a3) {
      anim_space_weights(sp, p, w);
      CHECK(near(w[0], 0.75) && near(w[1], 0.25), "weights at 0.25");
      st = anim_animator_play_space(a2, sp, &opts, bs, nb, p);
      q = anim_animator_play(a2, clip, &opts, &bind, 1);
      CHECK(st && q && anim_track_queue_after(q, st) == 1 && anim_track_queued(q), "queued after the space");
      anim_animator_set_root_motion(a2, 1);
      CHECK(anim_animator_update(a2, 0.75) == 0, "update");
      anim_animator_root_motion(a2, m);
      CHECK(near(m[0], 1.5) && near(m[6], 1), "root motion: 0.75 of a loop of 2");
      anim_animator_get(a2, 1, v, NULL);
      CHECK(near(v[0], 0), "the arm held at time 0");
      CHECK(anim_animator_update(a2, 0.5) == 0 && !anim_track_playing(st) && anim_track_playing(q),
            "the queued track starts at the loop's end (fade 0)");
      anim_animator_root_motion(a2, m);
      CHECK(near(m[0], 0.5 + 0.5), "the rest of the space's loop, then the queued track's");
      memset(&d, 0, sizeof d);
      d.kind = ANIM_IK_TWO_BONE;
      d.j[0] = 0; d.j[1] = 1; d.j[2] = 2;
      d.target[0] = 1; d.target[1] = 1;
      d.pole[2] = 1;
      d.weight = 1; d.soften = 1;
      CHECK(anim_ik_add(a3, &d) > 0, "a constraint");
      anim_animator_update(a3, 0);
      anim_animator_world(a3, 2, v);
      CHECK(fabs(v[0] - 1) < 1e-9 && fabs(v[1] - 1) < 1e-9 && fabs(v[2]) < 1e-9, "the tip on the target");
      d.j[1] = 2; d.j[2] = 1;
      CHECK(anim_ik_add(a3, &d) == -2, "a chain upside down is refused");
    }
    anim_space_free(sp);
    anim_animator_free(a2);
    anim_animator_free(a3);
    anim_rig_free(chain);
  }

  anim_animator_free(an);
  anim_track_release(tr);
  anim_clip_free(clip);
  anim_rig_free(rig);
  CHECK(cn.live == 0 && !cn.bad_size, "everything allocated is freed, with its size");

  test_share(&mem, 2, 1);
  test_share(&mem, 3, 1);
  test_share(&mem, 3, 0);
  CHECK(cn.live == 0 && !cn.bad_size, "the pools are freed, with their size");

  /* Out of memory at every allocation in turn (SQLite's way): each run
   * fails cleanly and frees all it took. */
  cn.count = 0; cn.fail_at = 0;
  CHECK(run_with(&cn), "the run works with memory");
  total = cn.count;
  CHECK(total > 10, "the run allocates");
  for (n = 1; n <= total; n++) {
    cn.count = 0; cn.fail_at = n; cn.live = 0;
    if (run_with(&cn)) { failed++; fprintf(stderr, "FAIL: allocation %ld failed unnoticed\n", n); }
    if (cn.live != 0 || cn.bad_size) { failed++; fprintf(stderr, "FAIL: allocation %ld failing leaks\n", n); }
  }
  passed++;
  printf("core_test: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
