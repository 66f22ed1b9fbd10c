/* clip.c - building and sampling immutable clips (see clip.h). */
#include "clip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amath.h"

struct anim_block {
  anim_block *next;
  size_t size;            /* of the whole block, for the allocator */
  /* the payload follows, aligned as a double */
  double payload[];
};

void *anim_clip_alloc(anim_clip *c, size_t size) {
  anim_block *b;
  if (size > ((size_t)-1) / 4) return NULL;
  b = anim_calloc(&c->mem, 1, sizeof(anim_block) + size);
  if (!b) return NULL;
  b->size = sizeof(anim_block) + size;
  b->next = c->blocks;
  c->blocks = b;
  return b->payload;
}

const char ANIM_CLIP_NOMEM[] = "out of memory";

anim_keys *anim_joint_keys(const anim_joint *jt, int s) {
  if (s < 0 || s >= ANIM_K_COUNT) return NULL;
  if (s <= ANIM_K_PW) return (anim_keys *)&jt->keys[s];
  return jt->axes ? &jt->axes[s - ANIM_K_PW - 1] : NULL;
}

anim_keys *anim_clip_keys(anim_clip *c, int j, int ch, int n, int arity, int nh) {
  anim_joint *jt = &c->joints[j];
  anim_keys *k;
  size_t nn = (size_t)n, words = nh ? (nn + 31) / 32 : 0, arcs = arity == 4 ? nn * 4 : 0, doubles, size;
  char *p;
  if (n < 0 || nh < 0 || nh > n || arity < 1 || arity > 4 || nn > ((size_t)-1) / 256 ||
      ch < 0 || ch >= ANIM_K_COUNT)
    return NULL;
  if (ch >= ANIM_K_PW + 1 && !jt->axes) {
    jt->axes = anim_clip_alloc(c, sizeof(anim_keys) * (ANIM_K_COUNT - ANIM_K_PW - 1));
    if (!jt->axes) return NULL;
  }
  k = anim_joint_keys(jt, ch);
  /* doubles first, then the words, then the bytes: each aligned */
  doubles = nn * (1 + (size_t)arity) + arcs + (size_t)nh * ANIM_HREC(arity);
  size = doubles * sizeof(double) + 2 * words * sizeof(unsigned) + nn;
  p = anim_clip_alloc(c, size ? size : 1);
  if (!p) return NULL;
  k->n = n;
  k->arity = arity;
  k->nh = nh;
  k->t = (double *)p;
  k->v = k->t + nn;
  k->arc = arcs ? k->v + nn * 4 : NULL;
  k->h = k->v + nn * (size_t)arity + arcs;
  p += doubles * sizeof(double);
  k->hbits = k->hrank = NULL;
  if (nh) {
    k->hbits = (unsigned *)p;
    k->hrank = k->hbits + words;
    p += 2 * words * sizeof(unsigned);
  }
  k->ie = (unsigned char *)p;
  k->tan = NULL;
  return k;
}

double *anim_clip_tangents(anim_clip *c, anim_keys *k) {
  size_t i, m = (size_t)k->n * 2 * (size_t)k->arity;
  k->tan = anim_clip_alloc(c, sizeof(double) * (m ? m : 1));
  if (k->tan) for (i = 0; i < m; i++) k->tan[i] = NAN;
  return k->tan;
}

const char *anim_clip_strdup(anim_clip *c, const char *s, size_t len) {
  char *d = anim_clip_alloc(c, len + 1);
  if (d) memcpy(d, s, len);
  return d;
}

anim_clip *anim_clip_new(const anim_mem *mem, int njoints, int nitems) {
  anim_clip *c;
  if (njoints < 0 || nitems < 0) return NULL;
  c = anim_calloc(mem, 1, sizeof *c);
  if (!c) return NULL;
  c->mem = *mem;
  c->refs = 1;
  c->speed = 1;
  c->euler = ANIM_YXZ;
  c->njoints = njoints;
  c->nitems = nitems;
  c->joints = anim_clip_alloc(c, sizeof(anim_joint) * (size_t)(njoints ? njoints : 1));
  c->items = anim_clip_alloc(c, sizeof(anim_item) * (size_t)(nitems ? nitems : 1));
  if (!c->joints || !c->items) { anim_clip_free(c); return NULL; }
  return c;
}

void anim_clip_retain(anim_clip *c) { c->refs++; }

void anim_clip_free(anim_clip *c) {
  anim_block *b, *n;
  if (!c || --c->refs > 0) return;
  for (b = c->blocks; b; b = n) { n = b->next; anim_free(&c->mem, b, b->size); }
  anim_free(&c->mem, c, sizeof *c);
}

/* Checks a channel's keys (the builder may be a hostile script). */
const char *anim_keys_check(anim_keys *k) {
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
  for (i = 0; i < k->nh * ANIM_HREC(k->arity); i++) {
    int at = i % ANIM_HREC(k->arity);
    /* a handle's dt is NaN when absent; the rest is finite */
    if (at > 1 ? !isfinite(k->h[i]) : (isinf(k->h[i]))) return "non-finite handle";
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
const char *anim_curve_check_mods(const anim_curve *cv) {
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
    if ((e = anim_curve_check_mods(&cv[a]))) return e;
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
      if (k && (e = anim_keys_check(k))) return e;
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
  }
  {
    const char *e = anim_props_finish(c, wrap);
    if (e) return e;
  }
  for (i = 0; i < c->nitems; i++) {
    if (!isfinite(c->items[i].t)) return "non-finite item time";
    c->items[i].fires = item_sides(&c->items[i]);
  }
  qsort(c->items, (size_t)c->nitems, sizeof(anim_item), item_cmp);
  return NULL;
}

/* One channel's three axes into out[3]. */
static void sample3(const anim_curve c[3], int shared, double t, int *c0, int *c12, double out[3]) {
  if (shared) { anim_curves_eval_shared(c, t, c0, out); return; }
  out[0] = anim_curve_eval(&c[0], t, c0);
  out[1] = anim_curve_eval(&c[1], t, c12);
  out[2] = anim_curve_eval(&c[2], t, c12 ? c12 + 1 : NULL);
}

int anim_clip_sample_joint(const anim_clip *c, int j, double t, int *hot, int *cold, double out[11]) {
  const anim_joint *jt = &c->joints[j];
  int *h = hot, *x = hot ? cold : NULL;  /* NULL: binary searches */
  double *pos = out, *rot = out + 3, *scl = out + 7;
  if (jt->fast && hot) return anim_clip_sample_fast(c, jt, t, hot, out);
  /* hot: first axes; cold: the other two axes of each channel, then the
   * pose weight */
  if (jt->channels & ANIM_CH_POS) sample3(jt->pos, jt->shared & ANIM_CH_POS, t, h, x, pos);
  if (jt->channels & ANIM_CH_ROT) {
    if (jt->rot_quat) anim_qcurve_eval(&jt->qrot, t, h ? h + 1 : NULL, rot);
    else {
      double deg[3];
      sample3(jt->rot, jt->shared & ANIM_CH_ROT, t, h ? h + 1 : NULL, x ? x + 2 : NULL, deg);
      anim_quat_from_euler(rot, deg, c->euler);
    }
  }
  if (jt->channels & ANIM_CH_SCL)
    sample3(jt->scl, jt->shared & ANIM_CH_SCL, t, h ? h + 2 : NULL, x ? x + 4 : NULL, scl);
  out[10] = jt->keys[ANIM_K_PW].n > 0 ? anim_curve_eval(&jt->pose_weight, t, x ? x + 6 : NULL) : 1;
  return jt->channels;
}
