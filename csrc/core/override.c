/* override.c - overrides of joints from scripts, applied after the blend
 * (see override.h). */
#include "override.h"

#include <math.h>
#include <string.h>

#include "amath.h"
#include "animator_impl.h"
#include "state.h"

typedef struct entry {
  long long id;
  anim_override o;
} entry;

typedef struct anim_overrides {
  int n, cap;
  long long next_id;
  entry *e;                /* creation order */
} anim_overrides;

void anim_overrides_free(anim_animator *a) {
  anim_overrides *ov = a->overrides;
  if (!ov) return;
  anim_free(&a->mem, ov->e, sizeof(entry) * (size_t)ov->cap);
  anim_free(&a->mem, ov, sizeof *ov);
  a->overrides = NULL;
}

/* o checked and its rotation made unit into *out; 0, or -1 when out of range. */
static int checked(const anim_animator *a, const anim_override *o, anim_override *out) {
  int k;
  double m = 0;
  if (o->joint < 0 || o->joint >= a->rig->n) return -1;
  if (o->mode < 0 || o->mode >= ANIM_OVERRIDE_COUNT) return -1;
  if ((o->channels & ~ANIM_CHANNEL_ALL) != 0) return -1;
  if (!(o->weight >= 0 && o->weight <= 1)) return -1;
  for (k = 0; k < 3; k++)
    if (!isfinite(o->pos[k]) || !isfinite(o->scl[k])) return -1;
  for (k = 0; k < 4; k++) {
    if (!isfinite(o->rot[k])) return -1;
    if (fabs(o->rot[k]) > m) m = fabs(o->rot[k]);
  }
  *out = *o;
  if (o->channels & ANIM_CH_ROT) {
    if (!(m > 0)) return -1;
    /* over the largest component first: any finite quaternion normalises */
    for (k = 0; k < 4; k++) out->rot[k] = o->rot[k] / m;
    anim_quat_normalize(out->rot);
  }
  return 0;
}

static entry *find(anim_overrides *ov, long long id) {
  int i;
  if (!ov) return NULL;
  for (i = 0; i < ov->n; i++)
    if (ov->e[i].id == id) return &ov->e[i];
  return NULL;
}

long long anim_override_add(anim_animator *a, const anim_override *o) {
  anim_overrides *ov = a->overrides;
  anim_override c;
  if (checked(a, o, &c) < 0) return -1;
  if (!ov) {
    ov = anim_calloc(&a->mem, 1, sizeof *ov);
    if (!ov) return 0;
    ov->next_id = 1;
    a->overrides = ov;
  }
  if (ov->n == ov->cap) {
    int cap = ov->cap ? ov->cap * 2 : 4;
    entry *e = anim_realloc(&a->mem, ov->e, sizeof(entry) * (size_t)ov->cap, sizeof(entry) * (size_t)cap);
    if (!e) return 0;
    ov->e = e;
    ov->cap = cap;
  }
  ov->e[ov->n].id = ov->next_id++;
  ov->e[ov->n].o = c;
  return ov->e[ov->n++].id;
}

int anim_override_set(anim_animator *a, long long id, const anim_override *o) {
  entry *e = find(a->overrides, id);
  anim_override c;
  if (!e || checked(a, o, &c) < 0) return -1;
  e->o = c;
  return 0;
}

int anim_override_remove(anim_animator *a, long long id) {
  anim_overrides *ov = a->overrides;
  entry *e = find(ov, id);
  if (!e) return -1;
  /* the others keep their order */
  memmove(e, e + 1, sizeof(entry) * (size_t)(ov->n - (int)(e - ov->e) - 1));
  ov->n--;
  return 0;
}

/* (1 - w) x + w y: exactly x at w = 0 and y at w = 1. */
static double lerp(double x, double y, double w) { return (1 - w) * x + w * y; }

void anim_overrides_apply(anim_animator *a) {
  anim_overrides *ov = a->overrides;
  int i, k;
  if (!ov) return;
  for (i = 0; i < ov->n; i++) {
    const anim_override *o = &ov->e[i].o;
    double *p = &a->pose[o->joint * 10], w = o->weight;
    int add = o->mode == ANIM_OVR_ADD;
    if (o->channels & ANIM_CH_POS)
      for (k = 0; k < 3; k++) p[k] = lerp(p[k], add ? p[k] + o->pos[k] : o->pos[k], w);
    if (o->channels & ANIM_CH_ROT) {
      double r[4];
      if (add) {
        anim_quat_mul(r, p + 3, o->rot);
        anim_quat_normalize(r);
      } else {
        memcpy(r, o->rot, sizeof r);
      }
      if (w >= 1) memcpy(p + 3, r, sizeof r);
      else if (w > 0) anim_quat_slerp(p + 3, p + 3, r, w);
    }
    if (o->channels & ANIM_CH_SCL)
      for (k = 0; k < 3; k++) p[7 + k] = lerp(p[7 + k], add ? p[7 + k] * o->scl[k] : o->scl[k], w);
    a->animated[o->joint] |= (unsigned char)o->channels;
    anim_finite10(p);
  }
}

/* ---- the saveable state (state.h) ----------------------------------------- */

int anim_state_noverrides(const anim_animator *a) { return a->overrides ? a->overrides->n : 0; }

long long anim_state_override(const anim_animator *a, int i, anim_override *o) {
  *o = a->overrides->e[i].o;
  return a->overrides->e[i].id;
}

long long anim_overrides_next(const anim_animator *a) { return a->overrides ? a->overrides->next_id : 1; }

/* (the ids given back must stay unique and in creation order: each after
 * the last, below the next) */
int anim_override_put(anim_animator *a, long long id, const anim_override *o) {
  anim_overrides *ov = a->overrides;
  long long made;
  if (id <= 0 || (ov && ov->n > 0 && id <= ov->e[ov->n - 1].id)) return -1;
  made = anim_override_add(a, o);
  if (made < 0) return -1;
  if (made == 0) return -2;
  ov = a->overrides;
  ov->e[ov->n - 1].id = id;
  ov->next_id = id + 1;
  return 0;
}

/* (an animator whose overrides were all removed has no entry left but
 * still its next id: the list is made to hold it) */
int anim_overrides_set_next(anim_animator *a, long long next) {
  anim_overrides *ov = a->overrides;
  if (!ov) {
    if (next <= 1) return 0;
    ov = anim_calloc(&a->mem, 1, sizeof *ov);
    if (!ov) return -1;
    a->overrides = ov;
  }
  if (next > ov->next_id) ov->next_id = next;
  return 0;
}
