/* property.c - the property channels of a clip: building and sampling
 * them (see property.h; anim_clip_finish checks them, clipcheck.c).  The
 * animator's side (names, blending) is propmix.c. */
#include "property.h"

#include <math.h>
#include <string.h>

#include "amath.h"

#include "clip.h"

int anim_clip_props(anim_clip *c, int n) {
  if (n < 0) return -1;
  c->nprops = 0;
  c->props = NULL;
  if (n == 0) return 0;
  c->props = anim_clip_alloc(c, sizeof(anim_prop) * (size_t)n);
  if (!c->props) return -1;
  c->nprops = n;
  return 0;
}

/* One block per property: the shared times, then per component its values
 * and handle records, then the shared handle marks and interpolation
 * bytes; the keys, curves and base values in a block of their own. */
anim_keys *anim_prop_keys(anim_clip *c, int p, const char *name, size_t len, int n, int arity, int nh) {
  anim_prop *pr;
  size_t nn = (size_t)n, words, doubles, size, a;
  char *mem, *s;
  double *d;
  if (p < 0 || p >= c->nprops || n < 0 || n > ANIM_MAX_CURVE_KEYS || nh < 0 || nh > n ||
      arity < 1 || arity > ANIM_MAX_PROP_ARITY || len > ((size_t)-1) / 4)
    return NULL;
  pr = &c->props[p];
  words = nh ? (nn + 31) / 32 : 0;
  doubles = nn + (size_t)arity * (nn + (size_t)nh * ANIM_HREC(1));
  size = doubles * sizeof(double) + 2 * words * sizeof(unsigned) + nn;
  mem = anim_clip_alloc(c, size ? size : 1);
  s = anim_clip_alloc(c, len + 1);
  pr->keys = anim_clip_alloc(c, (sizeof(anim_keys) + sizeof(anim_curve) + sizeof(double)) * (size_t)arity);
  if (!mem || !s || !pr->keys) return NULL;
  memcpy(s, name, len);
  pr->name = s;
  pr->len = len;
  pr->arity = arity;
  pr->curves = (anim_curve *)(void *)(pr->keys + arity);
  pr->base = (double *)(void *)(pr->curves + arity);
  d = (double *)(void *)mem;
  for (a = 0; a < (size_t)arity; a++) {
    anim_keys *k = &pr->keys[a];
    k->n = n;
    k->arity = 1;
    k->nh = nh;
    k->hdt = 1;  /* (a component is its own curve: its record has its own time) */
    k->hrec = ANIM_HREC(1);
    k->t = d;
    k->v = d + nn + a * (nn + (size_t)nh * ANIM_HREC(1));
    k->h = k->v + nn;
    k->arc = k->unit = k->tan = NULL;
    k->hbits = k->hrank = NULL;
    if (nh) {
      k->hbits = (unsigned *)(void *)(mem + doubles * sizeof(double));
      k->hrank = k->hbits + words;
    }
    k->ie = (unsigned char *)(mem + doubles * sizeof(double) + 2 * words * sizeof(unsigned));
  }
  return pr->keys;
}

int anim_clip_find_prop(const anim_clip *c, const char *name, size_t len) {
  int p;
  for (p = 0; p < c->nprops; p++)
    if (c->props[p].len == len && memcmp(c->props[p].name, name, len) == 0) return p;
  return -1;
}

void anim_prop_sample(const anim_prop *p, double t, int *cursors, double *out) {
  int a;
  if (p->linear) {
    /* (anim_curve_eval's arithmetic, the key found once: the same bits) */
    anim_curves_lerp_n(p->curves, p->arity, t, cursors, out);
    for (a = 0; a < p->arity; a++) out[a] = anim_finite(out[a]);
    return;
  }
  for (a = 0; a < p->arity; a++) out[a] = anim_finite(anim_curve_eval(&p->curves[a], t, cursors ? cursors + a : NULL));
}
