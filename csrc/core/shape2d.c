/* shape2d.c - what the animators of one 2D skeleton share (world2d_impl.h,
 * struct anim_w2d_shape): its bones, IK and transform constraints, update
 * order, the cosines and sines of the bones' setup shears and the
 * properties' names, checked and copied into one block when the
 * skeleton's first animator is made (lua/anim/runtime/animator2d.lua keeps
 * it with the skeleton), read by each of its animators' updates, never
 * written after.
 * One copy for all: a thousand animators of one skeleton read the same
 * lines, which stay in the caches (a copy each was 3.7 kB an animator of
 * 30 bones, missed from beyond the second level at each update).  Plain
 * C, no Lua. */
#include <math.h>
#include <string.h>

#include "world2d_impl.h"

/* What d asks for, checked: 0, or *err set. */
static int check(const anim_w2d_def *d, size_t *strs, const char **err) {
  int i, n = d->nbones;
  *strs = 0;
  if (n < 1 || d->nik < 0 || d->ntc < 0 || d->ntcbones < 0 || d->nops < 0) { *err = "bad counts"; return -1; }
  for (i = 0; i < n; i++) {
    int db = d->bones[i].dragonbones;
    if (d->bones[i].inherit < 0 || d->bones[i].inherit >= ANIM_INHERIT_COUNT) { *err = "bad inherit mode"; return -1; }
    if (db < 0 || db > ANIM_DB_ALL || (db != 0 && !(db & ANIM_DB_BONE))) { *err = "bad DragonBones flags"; return -1; }
    *strs += d->bones[i].shear_len + d->bones[i].inherit_len + 2;
  }
  for (i = 0; i < d->nik; i++) {
    const anim_w2d_ik *k = &d->ik[i];
    if (k->nbones < 1 || k->nbones > 2 || k->target < 0 || k->target >= n || k->bones[0] < 0 ||
        k->bones[0] >= n || (k->nbones == 2 && (k->bones[1] < 0 || k->bones[1] >= n))) {
      *err = "IK bone out of range";
      return -1;
    }
    if (k->dragonbones != 0 && k->dragonbones != 1) { *err = "bad IK solver"; return -1; }
    *strs += k->name_len + k->flags_len + 2;
  }
  for (i = 0; i < d->ntcbones; i++)
    if (d->tcbones[i] < 0 || d->tcbones[i] >= n) { *err = "transform constraint bone out of range"; return -1; }
  for (i = 0; i < d->ntc; i++) {
    const anim_w2d_tc *c = &d->tc[i];
    if (c->first < 0 || c->count < 0 || c->count > d->ntcbones - c->first || c->target < 0 || c->target >= n) {
      *err = "transform constraint out of range";
      return -1;
    }
    *strs += c->name_len + 1;
  }
  for (i = 0; i < d->nops; i++) {
    int kind = d->ops[2 * i], at = d->ops[2 * i + 1];
    if (!((kind == ANIM_W2D_BONE && at >= 0 && at < n) || (kind == ANIM_W2D_IK && at >= 0 && at < d->nik) ||
          (kind == ANIM_W2D_TRANSFORM && at >= 0 && at < d->ntc))) {
      *err = "update step out of range";
      return -1;
    }
  }
  return 0;
}

anim_w2d_shape *anim_w2d_shape_new(const anim_mem *m, const anim_w2d_def *d, const char **err) {
  size_t size, o[6], strs;
  anim_w2d_shape *s;
  char *mem, *names;
  int i, n = d->nbones;
  *err = NULL;
  if (check(d, &strs, err) != 0) return NULL;
  /* one block: the doubles, the structs, the ints, the names */
  o[0] = anim_align8(sizeof *s);                                                   /* sht */
  o[1] = o[0] + sizeof(double) * ANIM_SHT * (size_t)n;                     /* bone */
  o[2] = anim_align8(o[1] + sizeof(anim_w2d_bone) * (size_t)n);                    /* ik */
  o[3] = anim_align8(o[2] + sizeof(anim_w2d_ik) * (size_t)d->nik);                 /* tc */
  o[4] = anim_align8(o[3] + sizeof(anim_w2d_tc) * (size_t)d->ntc);                 /* ops, then tcbones */
  o[5] = o[4] + sizeof(int) * (2 * (size_t)d->nops + (size_t)d->ntcbones); /* names */
  size = o[5] + strs;
  mem = anim_calloc(m, 1, size);
  if (!mem) return NULL;
  s = (anim_w2d_shape *)(void *)mem;
  s->size = size;
  s->mem = *m;
  s->refs = 1;
  s->n = n;
  s->nik = d->nik;
  s->ntc = d->ntc;
  s->nops = d->nops;
  s->sht = (double *)(void *)(mem + o[0]);
  s->bone = (anim_w2d_bone *)(void *)(mem + o[1]);
  s->ik = (anim_w2d_ik *)(void *)(mem + o[2]);
  s->tc = (anim_w2d_tc *)(void *)(mem + o[3]);
  s->ops = (int *)(void *)(mem + o[4]);
  s->tcbones = s->ops + 2 * (size_t)d->nops;
  names = mem + o[5];
  /* the names copied after the arrays, each ended by a 0 */
#define COPY(dst, src, len) do { memcpy(names, (src), (len)); (dst) = names; names += (len) + 1; } while (0)
  for (i = 0; i < n; i++) {
    double *sht = &s->sht[ANIM_SHT * i];
    s->bone[i] = d->bones[i];
    s->anydb |= d->bones[i].dragonbones != 0;
    COPY(s->bone[i].shear_name, d->bones[i].shear_name, d->bones[i].shear_len);
    COPY(s->bone[i].inherit_name, d->bones[i].inherit_name, d->bones[i].inherit_len);
    sht[0] = cos(d->bones[i].shear[0] * ANIM_W2D_RAD);
    sht[1] = sin(d->bones[i].shear[0] * ANIM_W2D_RAD);
    sht[2] = cos(d->bones[i].shear[1] * ANIM_W2D_RAD);
    sht[3] = sin(d->bones[i].shear[1] * ANIM_W2D_RAD);
    /* (as constraint2d.c's two-bone IK computes them, the same bits) */
    sht[4] = cos((90 + d->bones[i].shear[1]) * ANIM_W2D_RAD);
    sht[5] = sin((90 + d->bones[i].shear[1]) * ANIM_W2D_RAD);
  }
  for (i = 0; i < d->nik; i++) {
    s->ik[i] = d->ik[i];
    s->anydb |= d->ik[i].dragonbones != 0;
    COPY(s->ik[i].name, d->ik[i].name, d->ik[i].name_len);
    COPY(s->ik[i].flags, d->ik[i].flags, d->ik[i].flags_len);
  }
  for (i = 0; i < d->ntc; i++) {
    s->tc[i] = d->tc[i];
    COPY(s->tc[i].name, d->tc[i].name, d->tc[i].name_len);
  }
#undef COPY
  if (d->nops > 0) memcpy(s->ops, d->ops, sizeof(int) * 2 * (size_t)d->nops);
  if (d->ntcbones > 0) memcpy(s->tcbones, d->tcbones, sizeof(int) * (size_t)d->ntcbones);
  return s;
}

void anim_w2d_shape_retain(anim_w2d_shape *s) { s->refs++; }

void anim_w2d_shape_release(anim_w2d_shape *s) {
  if (s && --s->refs == 0) {
    anim_mem m = s->mem;
    anim_free(&m, s, s->size);
  }
}

int anim_w2d_shape_bones(const anim_w2d_shape *s) { return s->n; }
