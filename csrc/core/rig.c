/* rig.c - building rigs: joints sorted parents first, rests derived. */
#include "rig.h"

#include <string.h>

#include "amath.h"
#include "codes.h"

/* Bytes of the joint arrays of a rig of n joints and nskin skinned ones
 * (names follow them). */
static size_t rig_bytes(int n, int nskin) {
  return (sizeof(char *) + sizeof(int) + sizeof(double) * 17) * (size_t)n +
         (sizeof(double) * 16 + sizeof(int)) * (size_t)nskin + 16;
}

void anim_rig_retain(anim_rig *r) { r->refs++; }

void anim_rig_free(anim_rig *r) {
  if (!r || --r->refs > 0) return;
  anim_free(&r->alloc, r->mem, r->memsize);
  anim_free(&r->alloc, r, sizeof *r);
}

anim_rig *anim_rig_new(const anim_mem *am, int n, const char *const *names, const int *parent,
                       const double (*pivot)[3], const double (*rot)[4], const char **err) {
  anim_rig_def *defs;
  anim_rig *r;
  int i, a;
  if (n < 1) { *err = "a rig needs at least one joint"; return NULL; }
  defs = anim_malloc(am, sizeof *defs * (size_t)n);
  if (!defs) { *err = "not enough memory"; return NULL; }
  for (i = 0; i < n; i++) {
    defs[i].name = names[i];
    defs[i].parent = parent[i];
    defs[i].local = 0;
    for (a = 0; a < 3; a++) {
      defs[i].pivot[a] = pivot[i][a];
      defs[i].translation[a] = 0;
      defs[i].scale[a] = 1;
    }
    for (a = 0; a < 4; a++) defs[i].rot[a] = rot[i][a];
  }
  r = anim_rig_build(am, n, defs, err);
  anim_free(am, defs, sizeof *defs * (size_t)n);
  return r;
}

anim_rig *anim_rig_build(const anim_mem *am, int n, const anim_rig_def *defs, const char **err) {
  return anim_rig_build_skin(am, n, defs, n, NULL, NULL, err);
}

/* The skin's joints (rig indices: newpos maps a def's index to its joint)
 * and their inverse binds, once the joints are in place. */
static void set_skin(anim_rig *r, const int *newpos, const int *order, const int *skin,
                     const double (*ibm)[16]) {
  int k, a;
  for (k = 0; k < r->nskin; k++) {
    /* (without a skin list, joint k is def order[k], whose matrix is ibm[order[k]]) */
    const double *m = ibm ? ibm[skin ? k : order[k]] : NULL;
    r->skin[k] = skin ? newpos[skin[k]] : k;
    for (a = 0; a < 16; a++) {
      double v = m ? m[a] : (a % 5 == 0);
      r->inv_bind[k][a] = v;
      if (v != (a % 5 == 0) && r->inv_bind_kind == ANIM_IB_IDENTITY) r->inv_bind_kind = ANIM_IB_AFFINE;
      if (a % 4 == 3 && v != (a == 15)) r->inv_bind_kind = ANIM_IB_GENERAL;
    }
  }
}

anim_rig *anim_rig_build_skin(const anim_mem *am, int n, const anim_rig_def *defs, int nskin, const int *skin,
                              const double (*ibm)[16], const char **err) {
  anim_rig *r;
  int *order, *state, i, k = 0;
  size_t namebytes = 0, ordersize, memsize;
  char *mem, *p;
  *err = NULL;
  if (n < 1) { *err = "a rig needs at least one joint"; return NULL; }
  for (i = 0; i < n; i++) {
    if (defs[i].parent < -1 || defs[i].parent >= n) { *err = "unknown parent"; return NULL; }
    namebytes += strlen(defs[i].name) + 1;
  }
  if (!skin) nskin = n;
  if (nskin < 1 || nskin > ANIM_MAX_RIG_JOINTS) { *err = "unknown skin joint"; return NULL; }
  for (i = 0; skin && i < nskin; i++)
    if (skin[i] < 0 || skin[i] >= n) { *err = "unknown skin joint"; return NULL; }
  ordersize = sizeof(int) * (3 * (size_t)n + 1);
  memsize = rig_bytes(n, nskin) + namebytes;
  r = anim_calloc(am, 1, sizeof *r);
  order = anim_malloc(am, ordersize);
  mem = anim_malloc(am, memsize);
  if (!r || !order || !mem) {
    anim_free(am, r, sizeof *r); anim_free(am, order, ordersize); anim_free(am, mem, memsize);
    *err = "not enough memory";
    return NULL;
  }
  r->alloc = *am;
  r->refs = 1;
  state = order + n;
  {
    /* Each joint's depth (a root is 0), each found once: walk up to a
     * joint whose depth is known, then walk again setting the depths on
     * the way.  A walk longer than n joints goes round a cycle.  Then a
     * counting sort by depth puts parents first, in O(n). */
    int *depth = state, *count = order + 2 * n, maxd = 0;
    for (i = 0; i < n; i++) depth[i] = -1;
    for (i = 0; i < n; i++) {
      int j = i, steps = 0, d;
      while (j >= 0 && depth[j] < 0) {
        if (++steps > n) {
          anim_free(am, r, sizeof *r); anim_free(am, order, ordersize); anim_free(am, mem, memsize);
          *err = "the parents form a cycle";
          return NULL;
        }
        j = defs[j].parent;
      }
      d = (j < 0 ? -1 : depth[j]) + steps;
      if (d > maxd) maxd = d;
      for (j = i; j >= 0 && depth[j] < 0; j = defs[j].parent) depth[j] = d--;
    }
    for (i = 0; i <= maxd; i++) count[i] = 0;
    for (i = 0; i < n; i++) count[depth[i]]++;
    for (i = 0, k = 0; i <= maxd; i++) { int c = count[i]; count[i] = k; k += c; }
    for (i = 0; i < n; i++) order[count[depth[i]]++] = i;
  }
  r->mem = mem;
  r->memsize = memsize;
  r->n = n;
  r->pivot = (double (*)[3])mem;
  r->rest_pos = (double (*)[3])(mem + sizeof(double) * 3 * (size_t)n);
  r->rest_rot = (double (*)[4])(mem + sizeof(double) * 6 * (size_t)n);
  r->rig_rot = (double (*)[4])(mem + sizeof(double) * 10 * (size_t)n);
  r->rest_scl = (double (*)[3])(mem + sizeof(double) * 14 * (size_t)n);
  r->inv_bind = (double (*)[16])(mem + sizeof(double) * 17 * (size_t)n);
  p = mem + sizeof(double) * (17 * (size_t)n + 16 * (size_t)nskin);
  r->names = (const char **)p;
  r->parent = (int *)(p + sizeof(char *) * (size_t)n);
  r->skin = r->parent + n;
  r->nskin = nskin;
  p += (sizeof(char *) + sizeof(int)) * (size_t)n + sizeof(int) * (size_t)nskin;
  {
    int *newpos = state; /* reuse: old index -> new index */
    for (i = 0; i < n; i++) newpos[order[i]] = i;
    for (i = 0; i < n; i++) {
      const anim_rig_def *d = &defs[order[i]];
      int a;
      size_t len = strlen(d->name) + 1;
      memcpy(p, d->name, len);
      r->names[i] = p;
      p += len;
      r->parent[i] = d->parent < 0 ? -1 : newpos[d->parent];
      for (a = 0; a < 3; a++) {
        r->pivot[i][a] = d->pivot[a];
        r->rest_pos[i][a] = d->translation[a];
        r->rest_scl[i][a] = d->scale[a];
        if (d->scale[a] != 1) r->scaled = 1;
      }
      for (a = 0; a < 4; a++) r->rest_rot[i][a] = d->rot[a];
      anim_quat_normalize(r->rest_rot[i]);
      /* the parent comes first: its pivot is final */
      for (a = 0; a < 3; a++) {
        int pa = r->parent[i];
        double pp = pa >= 0 ? r->pivot[pa][a] : 0;
        if (d->local) r->pivot[i][a] = pp + d->translation[a];
        else r->rest_pos[i][a] = r->pivot[i][a] - pp;
      }
    }
    set_skin(r, newpos, order, skin, ibm);
  }
  for (i = 0; i < n; i++) {
    int pa = r->parent[i], a;
    if (pa >= 0) anim_quat_mul(r->rig_rot[i], r->rig_rot[pa], r->rest_rot[i]);
    else for (a = 0; a < 4; a++) r->rig_rot[i][a] = r->rest_rot[i][a];
  }
  anim_free(am, order, ordersize);
  return r;
}

int anim_rig_find(const anim_rig *r, const char *name) {
  int i;
  for (i = 0; i < r->n; i++)
    if (strcmp(r->names[i], name) == 0) return i;
  return -1;
}
