/* clip.c - building and sampling immutable clips (see clip.h; finishing
 * one: clipcheck.c). */
#include "clip.h"

#include <math.h>
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
  return anim_clip_keys_dt(c, j, ch, n, arity, nh, 1);
}

anim_keys *anim_clip_keys_dt(anim_clip *c, int j, int ch, int n, int arity, int nh, int hdt) {
  anim_joint *jt = &c->joints[j];
  anim_keys *k;
  size_t nn = (size_t)n, words = nh ? (nn + 31) / 32 : 0, arcs = arity == 4 ? nn * 4 : 0, doubles, size;
  char *p;
  if (n < 0 || nh < 0 || nh > n || arity < 1 || arity > 4 || nn > ((size_t)-1) / 256 ||
      ch < 0 || ch >= ANIM_K_COUNT || (hdt != 1 && hdt != ANIM_HDIMS(arity)))
    return NULL;
  if (ch >= ANIM_K_PW + 1 && !jt->axes) {
    jt->axes = anim_clip_alloc(c, sizeof(anim_keys) * (ANIM_K_COUNT - ANIM_K_PW - 1));
    if (!jt->axes) return NULL;
  }
  k = anim_joint_keys(jt, ch);
  /* doubles first, then the words, then the bytes: each aligned */
  doubles = nn * (1 + (size_t)arity) + arcs + (size_t)nh * ANIM_HREC_DT(hdt, arity);
  size = doubles * sizeof(double) + 2 * words * sizeof(unsigned) + nn;
  p = anim_clip_alloc(c, size ? size : 1);
  if (!p) return NULL;
  k->n = n;
  k->arity = arity;
  k->nh = nh;
  k->hdt = (unsigned char)hdt;
  k->hrec = (unsigned char)ANIM_HREC_DT(hdt, arity);
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

const char *anim_clip_set_packed(anim_clip *c, const unsigned char *p, size_t len, size_t max_keys, size_t *at) {
  static const int bit[3] = {ANIM_CH_POS, ANIM_CH_ROT, ANIM_CH_SCL};
  anim_packed *pk;
  unsigned char *copy;
  float *table;
  const char *e;
  size_t nkeys = 0;
  int j, k;
  *at = 0;
  if (c->packed) return "the clip is compressed already";
  for (j = 0; j < c->njoints; j++)
    if (c->joints[j].channels) return "the clip's joints have keys";
  if ((e = anim_packed_index(p, len, c->njoints, max_keys, NULL, &nkeys, at))) return e;
  pk = anim_clip_alloc(c, sizeof *pk);
  copy = anim_clip_alloc(c, len + ANIM_PK_PAD); /* (zeroed: the padding sampling reads) */
  if (!pk || !copy) return ANIM_CLIP_NOMEM;
  pk->joints = anim_clip_alloc(c, sizeof(anim_pk_joint) * (size_t)(c->njoints ? c->njoints : 1));
  pk->frames = anim_clip_alloc(c, 2 * nkeys + 1);
  if (!pk->joints || !pk->frames) return ANIM_CLIP_NOMEM;
  memcpy(copy, p, len);
  anim_packed_index(copy, len, c->njoints, max_keys, pk, NULL, at);
  pk->keyed = anim_clip_alloc(c, sizeof(const anim_pk_ch *) * (size_t)(pk->nkeyed + 1));
  /* (a size_t of 32 bits: the records' bytes must not wrap) */
  table = pk->table < ((size_t)-1) / (2 * sizeof(float)) ? anim_clip_alloc(c, sizeof(float) * (pk->table + 1)) : NULL;
  if (!pk->keyed || !table) return ANIM_CLIP_NOMEM;
  anim_packed_decode(pk, table);
  anim_packed_list(pk);
  for (j = 0; j < c->njoints; j++) {
    anim_joint *jt = &c->joints[j];
    jt->packed = &pk->joints[j];
    jt->channels = 0;
    for (k = 0; k < 3; k++)
      if (pk->joints[j].ch[k].kind != ANIM_PK_ABSENT) jt->channels |= bit[k];
    jt->rot_quat = 1;
    jt->fast = 0;
    jt->linear = jt->shared = 0;
  }
  c->packed = pk;
  return NULL;
}

void anim_clip_retain(anim_clip *c) { c->refs++; }

void anim_clip_free(anim_clip *c) {
  anim_block *b, *n;
  if (!c || --c->refs > 0) return;
  for (b = c->blocks; b; b = n) { n = b->next; anim_free(&c->mem, b, b->size); }
  anim_free(&c->mem, c, sizeof *c);
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
  if (jt->packed) return anim_packed_sample(c->packed, jt->packed, t, hot, NULL, out);
  if (jt->fast && hot) return anim_clip_sample_fast(c, jt, t, hot, out);
  /* hot: first axes; cold: the other two axes of each channel, then the
   * pose weight */
  if (jt->channels & ANIM_CH_POS) sample3(jt->pos, jt->shared & ANIM_CH_POS, t, h, x, pos);
  if (jt->channels & ANIM_CH_ROT) {
    if (jt->rot_quat) anim_qcurve_eval(&jt->qrot, t, h ? h + 1 : NULL, rot);
    else if (jt->zturn) anim_zturn_eval(&jt->fk[1], t, h ? h + 1 : NULL, jt->zturn, rot);
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
