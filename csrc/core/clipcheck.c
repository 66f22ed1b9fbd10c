/* clipcheck.c - finishing a built clip (anim_clip_finish, see clip.h):
 * the checks of what the builder made -- it may be a hostile script --
 * for the joints' channels, the property channels (property.h) and the
 * items, the set-up of the curves and fast paths the sampler relies on,
 * and the items sorted.  Apart from clip.c (building, sampling) and
 * property.c (the property channels' building and sampling), which both
 * stay below it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "property.h"

/* Checks a channel's keys (the builder may be a hostile script). */
static const char *keys_check(anim_keys *k) {
  int i, a;
  if (k->n < 0 || (k->n > 0 && (!k->t || !k->v || !k->ie))) return "bad curve";
  for (i = 0; i < k->n; i++) {
    int ip = k->ie[i] & ANIM_IE_INTERP, ez = (k->ie[i] & ANIM_IE_EASE) >> ANIM_IE_EASE_SHIFT;
    if (!isfinite(k->t[i])) return "non-finite key";
    for (a = 0; a < k->arity; a++)
      if (!isfinite(k->v[(size_t)i * (size_t)k->arity + (size_t)a])) return "non-finite key";
    if (i > 0 && k->t[i] < k->t[i - 1]) return "key times out of order";
    if (ip >= ANIM_INTERP_COUNT || ez > ANIM_EASE_INOUT) return "bad interpolation";
  }
  if (anim_keys_rank(k) != k->nh) return "bad handle marks";
  if (k->nh && ((k->hdt != 1 && k->hdt != ANIM_HDIMS(k->arity)) || k->hrec != ANIM_HREC_DT(k->hdt, k->arity)))
    return "bad handle record";
  for (i = 0; i < k->nh * ANIM_KEYS_HREC(k); i++) {
    int at = i % ANIM_KEYS_HREC(k);
    /* a handle's dt is NaN when absent; the rest is finite */
    if (at >= 2 * k->hdt ? !isfinite(k->h[i]) : (isinf(k->h[i]))) return "non-finite handle";
  }
  if (k->tan) {
    /* a tangent is all finite, or all NaN (absent) */
    for (i = 0; i < 2 * k->n; i++) {
      const double *v = k->tan + (size_t)i * (size_t)k->arity;
      int given = ANIM_TAN_GIVEN(v);
      for (a = 0; a < k->arity; a++)
        if (given ? !isfinite(v[a]) : v[a] == v[a]) return "non-finite tangent";
    }
  }
  return NULL;
}

/* Points the three curves of a channel (or one: the pose weight) at its
 * keys; checks the modifiers the builder gave them. */
static const char *curve_check_mods(const anim_curve *cv) {
  int i;
  if (cv->nmods < 0 || (cv->nmods > 0 && !cv->mods)) return "bad modifier list";
  for (i = 0; i < cv->nmods; i++) {
    const anim_mod *m = &cv->mods[i];
    if (m->type == ANIM_MOD_STEPPED && !(m->p[0] > 0)) return "step must be > 0";
    if (m->type == ANIM_MOD_NOISE && !(m->p[0] > 0)) return "noise scale must be > 0";
    if (m->type == ANIM_MOD_ENVELOPE && (m->npoints < 0 || (m->npoints && !m->points)))
      return "bad envelope";
  }
  return NULL;
}

static const char *setup_curves(anim_curve *cv, int ncurves, const anim_joint *jt, int ch,
                                int wrap) {
  int a, split = jt->split & (1 << ch);
  const char *e;
  for (a = 0; a < ncurves; a++) {
    const anim_keys *k = anim_joint_keys(jt, split ? ANIM_K_AXIS(ch, a) : ch);
    if (!k) return "bad split channel";
    cv[a].k = k->n > 0 ? k : NULL;
    cv[a].axis = split ? 0 : a;
    if (k->n > 0 && k->arity != (split ? 1 : ncurves)) return "bad channel arity";
    cv[a].wrap = wrap;
    if ((e = curve_check_mods(&cv[a]))) return e;
  }
  return NULL;
}

/* Checks the properties the builder made and sets up their curves (wrap:
 * catmull-rom neighbours wrap, as in a looping clip).  NULL, or a
 * message. */
static const char *props_finish(anim_clip *c, int wrap) {
  int p, a, q;
  for (p = 0; p < c->nprops; p++) {
    anim_prop *pr = &c->props[p];
    const char *e;
    if (!pr->name || !pr->keys || pr->arity < 1 || pr->arity > ANIM_MAX_PROP_ARITY) return "property without keys";
    for (q = 0; q < p; q++)
      if (c->props[q].len == pr->len && memcmp(c->props[q].name, pr->name, pr->len) == 0)
        return "two properties of one name";
    for (a = 0; a < pr->arity; a++) {
      anim_curve *cv = &pr->curves[a];
      if ((e = keys_check(&pr->keys[a]))) return e;
      if (pr->keys[a].n != pr->keys[0].n || pr->keys[a].t != pr->keys[0].t) return "bad property keys";
      cv->k = pr->keys[a].n > 0 ? &pr->keys[a] : NULL;
      cv->axis = 0;
      cv->wrap = wrap;
      if ((e = curve_check_mods(cv))) return e;
    }
    pr->linear = pr->keys[0].n > 0;
    for (a = 0; a < pr->arity; a++) {
      pr->base[a] = anim_finite(anim_curve_eval(&pr->curves[a], 0, NULL));
      if (!anim_curve_all_linear(&pr->curves[a])) pr->linear = 0;
    }
  }
  return NULL;
}

static int item_cmp(const void *pa, const void *pb) {
  const anim_item *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* The animator sides an item fires on, a bit per ANIM_SIDE_* (SEMANTICS 7:
 * an event where its `on` matches, `both` animators firing all; sounds on
 * client and both; plays on server and both; markers everywhere): decided
 * once here, so that the clock's pass tests a bit (clock.c). */
static int item_sides(const anim_item *it) {
  int s, bits = 0;
  for (s = 0; s < ANIM_SIDE_COUNT; s++) {
    int f;
    switch (it->kind) {
      case ANIM_ITEM_EVENT: f = s == ANIM_SIDE_BOTH || it->side == ANIM_SIDE_BOTH || it->side == s; break;
      case ANIM_ITEM_SOUND: f = s != ANIM_SIDE_SERVER; break;
      case ANIM_ITEM_PLAY: f = s != ANIM_SIDE_CLIENT; break;
      default: f = 1;
    }
    bits |= f << s;
  }
  return bits;
}

/* A fast joint's zturn (clip.h): 1 or -1 when its rotation is Euler keys
 * whose x and y are all +0 (then every sample's are: a turn about z alone,
 * anim_zturn_eval) in an order that ends in z; else 0. */
static int zturn(const anim_clip *c, const anim_joint *jt) {
  const anim_keys *k = &jt->keys[ANIM_K_ROT];
  int i;
  if (!(jt->channels & ANIM_CH_ROT) || jt->rot_quat || k->arity != 3 || k->n <= 0 ||
      (c->euler != ANIM_XYZ && c->euler != ANIM_YXZ))
    return 0;
  for (i = 0; i < k->n; i++) {
    const double *v = k->v + 3 * (size_t)i;
    if (v[0] != 0 || v[1] != 0 || signbit(v[0]) || signbit(v[1])) return 0;
  }
  return c->euler == ANIM_XYZ ? 1 : -1;
}

const char *anim_clip_finish(anim_clip *c) {
  int j, a, i;
  int wrap = c->loop == ANIM_LOOP;
  if (!isfinite(c->length) || c->length < 0) return "length must be a finite number >= 0";
  if (!isfinite(c->speed)) return "speed must be finite";
  for (j = 0; j < c->njoints; j++) {
    anim_joint *jt = &c->joints[j];
    const char *e;
    if (!jt->name) return "joint without a name";
    for (a = 0; a < ANIM_K_COUNT; a++) {
      anim_keys *k = anim_joint_keys(jt, a);
      if (k && (e = keys_check(k))) return e;
    }
    if ((e = setup_curves(jt->pos, 3, jt, ANIM_K_POS, wrap)) ||
        (e = setup_curves(jt->scl, 3, jt, ANIM_K_SCL, wrap)) ||
        (e = setup_curves(&jt->pose_weight, 1, jt, ANIM_K_PW, 0)))
      return e;
    if (!jt->rot_quat) {
      if ((e = setup_curves(jt->rot, 3, jt, ANIM_K_ROT, wrap))) return e;
    } else if (jt->keys[ANIM_K_ROT].n > 0) {
      if (jt->keys[ANIM_K_ROT].arity != 4 || (jt->split & (1 << ANIM_K_ROT))) return "bad quaternion keys";
      anim_keys *q = &jt->keys[ANIM_K_ROT];
      if (!q->unit && anim_qcurve_needs_unit(q)) {
        q->unit = anim_clip_alloc(c, sizeof(double) * 4 * (size_t)q->n);
        if (!q->unit) return ANIM_CLIP_NOMEM;
      }
      if (anim_qcurve_prepare(q) < 0) return "quaternion key with no length";
      jt->qrot.k = &jt->keys[ANIM_K_ROT];
    }
    jt->shared = (anim_curves_share_times(jt->pos) ? ANIM_CH_POS : 0) |
                 (!jt->rot_quat && anim_curves_share_times(jt->rot) ? ANIM_CH_ROT : 0) |
                 (anim_curves_share_times(jt->scl) ? ANIM_CH_SCL : 0);
    jt->linear = 0;
    if ((jt->shared & ANIM_CH_POS) && anim_curve_all_linear(&jt->pos[0]) &&
        anim_curve_all_linear(&jt->pos[1]) && anim_curve_all_linear(&jt->pos[2]))
      jt->linear |= ANIM_CH_POS;
    if ((jt->shared & ANIM_CH_SCL) && anim_curve_all_linear(&jt->scl[0]) &&
        anim_curve_all_linear(&jt->scl[1]) && anim_curve_all_linear(&jt->scl[2]))
      jt->linear |= ANIM_CH_SCL;
    if (jt->rot_quat ? anim_qcurve_all_slerp(&jt->qrot)
                     : (jt->shared & ANIM_CH_ROT) && anim_curve_all_linear(&jt->rot[0]) &&
                           anim_curve_all_linear(&jt->rot[1]) && anim_curve_all_linear(&jt->rot[2]))
      jt->linear |= ANIM_CH_ROT;
    jt->fast = jt->keys[ANIM_K_PW].n == 0 && (jt->channels & ~jt->linear) == 0;
    if (jt->fast && jt->channels == (ANIM_CH_POS | ANIM_CH_ROT) && jt->rot_quat && !jt->muted)
      jt->fast = ANIM_FAST_PQ;
    memset(jt->fk, 0, sizeof jt->fk);
    jt->zturn = jt->fast ? zturn(c, jt) : 0;
    if (jt->fast) {
      /* (a fast channel's curves share their keys: anim_curves_share_times) */
      static const int slot[3] = {ANIM_K_POS, ANIM_K_ROT, ANIM_K_SCL}, bit[3] = {ANIM_CH_POS, ANIM_CH_ROT, ANIM_CH_SCL};
      for (a = 0; a < 3; a++) {
        const anim_keys *k = &jt->keys[slot[a]];
        if (!(jt->channels & bit[a]) || k->n <= 0) continue;
        jt->fk[a].t = k->t;
        jt->fk[a].v = k->unit ? k->unit : k->v;
        jt->fk[a].arc = k->arc;
        jt->fk[a].n = k->n;
      }
    }
    if (jt->zturn && jt->keys[ANIM_K_ROT].n > 1) {
      /* (its segments' half angles: anim_zturn_prepare) */
      const anim_keys *k = &jt->keys[ANIM_K_ROT];
      double *zt = anim_clip_alloc(c, sizeof(double) * ANIM_ZTURN_REC * (size_t)(k->n - 1));
      if (!zt) return ANIM_CLIP_NOMEM;
      anim_zturn_prepare(k, zt);
      jt->fk[1].arc = zt;
    }
  }
  {
    const char *e = props_finish(c, wrap);
    if (e) return e;
  }
  for (i = 0; i < c->nitems; i++) {
    if (!isfinite(c->items[i].t)) return "non-finite item time";
    c->items[i].fires = item_sides(&c->items[i]);
  }
  qsort(c->items, (size_t)c->nitems, sizeof(anim_item), item_cmp);
  return NULL;
}
