/* reload.c - hot reload: a clip's content replaced in place while tracks
 * play it (see reload.h). */
#include "reload.h"

#include <string.h>

#include "animator_impl.h"
#include "spaceplay.h"

int anim_rebind_prepare(anim_rebind *r, anim_track *t, const anim_clip *old, const anim_clip *fresh,
                        const anim_binding *binds, int nbind, int *which, int *other) {
  anim_animator *a = t->owner;
  anim_track lay;
  int b, st;
  memset(r, 0, sizeof *r);
  if (!a || t->clip != old || nbind < 0 || t->reload.rebound) return -3;
  for (b = 0; b < nbind; b++)
    if (binds[b].cj < 0 || binds[b].cj >= fresh->njoints || binds[b].rj < 0 || binds[b].rj >= a->rig->n) return -3;
  st = anim_props_prepare(a, fresh, old, &r->props, which, other);
  if (st != ANIM_PROPS_OK) return st;
  r->size = anim_track_lay_arrays(NULL, NULL, 0, fresh, binds, nbind, a->rig->n, &r->hot_end);
  r->arrays = anim_calloc(&a->mem, 1, r->size ? r->size : 1);
  if (!r->arrays) {
    anim_tprops_free(&a->mem, r->props);
    memset(r, 0, sizeof *r);
    return ANIM_PROPS_NOMEM;
  }
  if (!r->size) r->size = 1;
  memset(&lay, 0, sizeof lay);
  anim_track_lay_arrays(&lay, r->arrays, 0, fresh, binds, nbind, a->rig->n, NULL);
  r->t = t;
  r->hot = lay.hot;
  r->byjoint = lay.byjoint;
  r->cj = lay.cj;
  r->adjust = lay.adjust;
  r->pkc = lay.pkc;
  r->rj = lay.rj;
  r->bind = lay.bind;
  r->cold = lay.cold;
  r->nextb = lay.nextb;
  r->nbind = lay.nbind;
  r->unique = lay.unique;
  r->pq = lay.pq;
  r->direct = lay.direct;
  t->reload.rebound = 1;  /* (prepared: anim_reload_covers, and no second time) */
  return ANIM_PROPS_OK;
}

int anim_reload_covers(const anim_clip *old) {
  const anim_track *t;
  for (t = old->tracks; t; t = t->clip_next)
    if (!t->reload.rebound && t->owner && t->state != TR_ENDED) return 0;
  return 1;
}

anim_track *anim_reload_point(anim_track *lead, int i) {
  if (i == 0) return lead;
  if (lead->sp.lead != lead || !lead->sp.play || i < 0 || i >= anim_space_points(lead)) return NULL;
  return anim_space_point(lead, i);
}

const anim_rig *anim_track_rig(const anim_track *t) { return t->owner ? t->owner->rig : NULL; }

void anim_rebind_discard(anim_rebind *r) {
  if (r->t) {
    r->t->reload.rebound = 0;
    anim_free(&r->t->mem, r->arrays, r->size);
    anim_tprops_free(&r->t->mem, r->props);
  }
  memset(r, 0, sizeof *r);
}

/* (the references, the tracks that hold each and the count of reloads
 * stay with the object) */
static void swap_content(anim_clip *x, anim_clip *y) {
  anim_clip tmp = *x;
  int rx = x->refs, ry = y->refs;
  unsigned gx = x->gen, gy = y->gen;
  struct anim_track *tx = x->tracks, *ty = y->tracks;
  *x = *y;
  *y = tmp;
  x->refs = rx;
  y->refs = ry;
  x->gen = gx + 1;
  y->gen = gy + 1;
  x->tracks = tx;
  y->tracks = ty;
}

/* Root motion keeps the track's binding of the motion joint and the
 * joint sampled at the clip's ends (rootmotion.c): all of the old
 * content.  Forgotten, they are found again at the next update, from the
 * playhead (nothing moves across the reload, as nothing fires). */
static void forget_root_motion(anim_track *t) {
  t->rm.joint = -1;
  t->rm.b = -1;
  t->rm.ch = 0;
  t->rm.valid = 0;
}

/* A track left with arrays laid out for the old content plays nothing
 * more: no binding, every rig joint unbound. */
static void unbind(anim_track *t) {
  int j, n = t->owner ? t->owner->rig->n : 0;
  for (j = 0; j < n; j++) t->byjoint[j] = -1;
  t->nbind = 0;
  t->unique = 1;
  forget_root_motion(t);
}

void anim_reload_commit(anim_clip *old, anim_clip *fresh, anim_rebind *r, int n) {
  int i;
  /* every track's names leave first, those of the tracks not rebound too
   * (an ended one: it ends below): a name whose number of components
   * changes is then free to (propmix.c; anim_props_conflict counted them
   * all as leaving) */
  for (i = 0; i < n; i++) anim_props_detach(r[i].t->owner, r[i].t);
  {
    anim_track *t;
    for (t = old->tracks; t; t = t->clip_next)
      if (!t->reload.rebound && t->owner) anim_props_detach(t->owner, t);
  }
  swap_content(old, fresh);
  for (i = 0; i < n; i++) {
    anim_track *t = r[i].t;
    double L = old->length;
    anim_free(&t->mem, t->reload.arrays, t->reload.size);
    t->reload.arrays = r[i].arrays;
    t->reload.size = r[i].size;
    t->hot = r[i].hot;
    t->byjoint = r[i].byjoint;
    t->cj = r[i].cj;
    t->adjust = r[i].adjust;
    t->pkc = r[i].pkc;
    t->rj = r[i].rj;
    t->bind = r[i].bind;
    t->cold = r[i].cold;
    t->nextb = r[i].nextb;
    t->nbind = r[i].nbind;
    t->unique = (unsigned char)r[i].unique;
    t->pq = (unsigned char)r[i].pq;
    t->direct = (unsigned char)r[i].direct;
    forget_root_motion(t);
    t->reload.rebound = 1;  /* (cleared below, with the others) */
    /* (the batch update prefetches the struct only: the arrays moved) */
    t->hot_end = (unsigned)sizeof *t;
    anim_props_install(t->owner, t, r[i].props);
    if (!t->own_priority) t->priority = old->priority;
    if (t->state == TR_PENDING) {
      /* never updated: it starts at the new content's start (its first
       * pass still includes it) */
      t->time = old->speed * t->speed < 0 ? L : 0;
      t->tlo = 0;
    } else if (t->time > L) {
      t->time = L;
      t->tlo = 0;
    }
    memset(&r[i], 0, sizeof r[i]);
  }
  /* A track of the clip the caller did not rebind (the binding refuses a
   * reload that leaves out a live track: csrc/lua/lua_reload.c; an ended
   * one may be left out) would go on with arrays laid out for the old
   * content: it ends here, firing nothing, plays nothing more, and leaves
   * its animator at its next update (its property slots it left at the
   * top: nothing reads it before). */
  {
    anim_track *t;
    for (t = old->tracks; t; t = t->clip_next) {
      /* the queue its animator's last update made (delivered: a reload
       * waits while one is to be) names items by their index in the old
       * content: it goes (core.animator_event read past the new items) */
      if (t->owner) t->owner->nqueue = 0;
      if (t->reload.rebound) { t->reload.rebound = 0; continue; }
      anim_track_end_now(t);
      unbind(t);
    }
  }
}
