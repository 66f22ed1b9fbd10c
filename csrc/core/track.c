/* track.c - a track's life: its block, its references, what scripts read
 * of it and the controls they change it with (stop, weight, speed, seek,
 * restart).  The controls take effect at the next update (SEMANTICS 7a.11).
 * A blend space's lead holds its points' tracks (spaceplay.h): they go
 * with it -- released, seeked, ended -- so that no point outlives its
 * lead playing. */
#include <string.h>

#include "animator_impl.h"
#include "pool.h"
#include "spaceplay.h"

/* A new ramp to `to` over `dur`, from where the current one is now. */
static void ramp_set(ramp *r, double to, double dur) {
  r->from = anim_ramp_value(r);
  r->to = to;
  r->dur = dur > 0 ? dur : 0;
  r->elapsed = 0;
  r->interp = ANIM_LINEAR;
}

/* What the bindings of a track of c need beside their joints: the hot
 * cursors (any joint not compressed: a compressed one is sampled through
 * the track's cache instead), the cold ones (any joint neither compressed
 * nor `fast`: a fast joint's sampling reads the hot ones alone, clip.h)
 * and the bindings themselves (any retargeted: turns converted or
 * positions scaled). */
enum { NEED_HOT = 1, NEED_COLD = 2, NEED_BIND = 4 };
static int track_needs(const anim_clip *c, const anim_binding *binds, size_t nb) {
  size_t b;
  int need = 0;
  for (b = 0; b < nb; b++) {
    const anim_joint *jt = &c->joints[binds[b].cj];
    if (!jt->packed) need |= jt->fast ? NEED_HOT : NEED_HOT | NEED_COLD;
    if (binds[b].convert || binds[b].pscale != 1) need |= NEED_BIND;
  }
  return need;
}

/* The per-binding arrays of a track laid out from byte `base` of a block
 * at mem (NULL: only measured): what every update reads first (the hot
 * cursors, the binding of each rig joint, each binding's clip joint and
 * whether it is adjusted, and a compressed clip's track cache,
 * packed.h: they end at *hot_end), then each binding's rig joint, the
 * bindings (read only for retargeted joints), the other cursors and the
 * chains of the general blend (nextb: byjoint and nextb list each rig
 * joint's bindings in order).  The cursors and the bindings only when
 * some binding needs them (track_needs; else NULL).  Sets t's pointers to
 * them, its bindings, unique, pq, direct and fresh cursors.  Returns the end of the
 * block.  (The track's own block holds them after its struct; a reload
 * gives them a block of their own, reload.c.) */
size_t anim_track_lay_arrays(anim_track *t, char *mem, size_t base, const anim_clip *c,
                             const anim_binding *binds, int nbind, int nrig, size_t *hot_end) {
  size_t nb = (size_t)(nbind > 0 ? nbind : 0), rn = (size_t)nrig;
  size_t o_hot, o_byjoint, o_cj, o_adjust, o_pkc, o_rj, o_bind, o_cold, o_nextb, size;
  size_t npkc = c->packed ? c->packed->cache_size : 0;
  int need = track_needs(c, binds, nb);
  size_t nhot = need & NEED_HOT ? nb * ANIM_HOT_CURSORS : 0, ncold = need & NEED_COLD ? nb * ANIM_COLD_CURSORS : 0;
  o_hot = base;
  o_byjoint = o_hot + nhot * sizeof(int);
  o_cj = o_byjoint + rn * sizeof(int);
  o_adjust = o_cj + nb * sizeof(int);
  o_pkc = anim_align8(o_adjust + nb);
  o_rj = o_pkc + npkc;
  o_bind = anim_align8(o_rj + nb * sizeof(int));
  o_cold = o_bind + (need & NEED_BIND ? nb * sizeof(anim_binding) : 0);
  o_nextb = o_cold + ncold * sizeof(int);
  size = o_nextb + nb * sizeof(int);
  if (hot_end) *hot_end = o_pkc + npkc;
  if (!mem) return size;
  t->hot = nhot ? (int *)(void *)(mem + o_hot) : NULL;
  t->byjoint = (int *)(void *)(mem + o_byjoint);
  t->cj = (int *)(void *)(mem + o_cj);
  t->adjust = (unsigned char *)(mem + o_adjust);
  t->pkc = npkc ? (unsigned char *)(mem + o_pkc) : NULL;
  if (npkc) anim_packed_cache_init(c->packed, t->pkc);
  t->rj = (int *)(void *)(mem + o_rj);
  t->bind = need & NEED_BIND ? (anim_binding *)(void *)(mem + o_bind) : NULL;
  t->cold = ncold ? (int *)(void *)(mem + o_cold) : NULL;
  t->nextb = (int *)(void *)(mem + o_nextb);
  if (t->bind) memcpy(t->bind, binds, nb * sizeof(anim_binding));
  t->nbind = (int)nb;
  {
    int j, b;
    t->unique = 1;
    t->pq = c->packed != NULL;
    for (j = 0; j < (int)rn; j++) t->byjoint[j] = -1;
    /* (backwards: each joint's chain in the bindings' order, byjoint its
     * first) */
    for (b = (int)nb - 1; b >= 0; b--) {
      int rj = binds[b].rj;
      t->cj[b] = binds[b].cj;
      t->rj[b] = rj;
      t->adjust[b] = binds[b].convert || binds[b].pscale != 1 || c->absolute;
      t->nextb[b] = -1;
      {
        const anim_joint *jt = &c->joints[binds[b].cj];
        if (t->adjust[b] || jt->muted || !jt->packed || !jt->packed->pq) t->pq = 0;
      }
      if (rj < 0 || rj >= (int)rn) { t->unique = 0; continue; }
      if (t->byjoint[rj] >= 0) t->unique = 0;
      t->nextb[b] = t->byjoint[rj];
      t->byjoint[rj] = b;
    }
    /* (direct: besides, every joint of the clip pq, so that clip joint c's
     * channels are the slots 2c and 2c + 1, anim_packed_list: blendpq.c
     * finds them without the joint) */
    t->direct = t->pq && t->unique;
    for (j = 0; j < (c->packed ? c->packed->njoints : 0) && t->direct; j++)
      if (!c->packed->joints[j].pq) t->direct = 0;
  }
  {
    size_t i;
    for (i = 0; i < nhot; i++) t->hot[i] = -1;
    for (i = 0; i < ncold; i++) t->cold[i] = -1;
  }
  return size;
}

/* A spare block of a (anim_track_recycle) of at least *size bytes and at
 * most twice that, zeroed, *size its size; NULL when none. */
static char *take_spare(anim_animator *a, size_t *size) {
  int i;
  for (i = 0; i < a->nspare; i++) {
    char *mem = a->spare[i];
    size_t s = a->spare_size[i];
    if (s < *size || s / 2 > *size) continue;
    a->nspare--;
    a->spare[i] = a->spare[a->nspare];
    a->spare_size[i] = a->spare_size[a->nspare];
    memset(mem, 0, s);
    *size = s;
    return mem;
  }
  return NULL;
}

anim_track *anim_track_new(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                           const anim_binding *binds, int nbind) {
  anim_track *t;
  size_t size, hot_end;
  double v;
  char *mem;
  /* one block: the struct, then its arrays */
  size = anim_track_lay_arrays(NULL, NULL, sizeof *t, c, binds, nbind, a->rig->n, &hot_end);
  mem = take_spare(a, &size);
  if (!mem) mem = anim_calloc(&a->mem, 1, size);
  if (!mem) return NULL;
  t = (anim_track *)(void *)mem;
  t->mem = a->mem;
  t->size = size;
  anim_track_lay_arrays(t, mem, sizeof *t, c, binds, nbind, a->rig->n, NULL);
  t->hot_end = (unsigned)hot_end;
  t->refs = 1;
  t->id = a->next_id++;
  t->owner = a;
  t->clip = c;
  anim_clip_retain((anim_clip *)c);  /* held until the track is freed */
  t->clip_next = c->tracks;
  if (c->tracks) c->tracks->clip_prev = t;
  ((anim_clip *)c)->tracks = t;
  t->priority = o->has_priority ? o->priority : c->priority;
  t->own_priority = o->has_priority != 0;
  t->speed = o->speed;
  v = c->speed * t->speed;
  t->time = v < 0 ? c->length : 0;
  t->pdir = 1;
  t->state = TR_PENDING;
  t->fresh = 1;
  t->fade.from = 0; t->fade.to = 1; t->fade.dur = o->fade > 0 ? o->fade : 0;
  t->weight.from = t->weight.to = o->weight;
  t->sp.lead = t;
  t->sp.bw = 1;
  t->sp.fires = 1;
  t->sp.vscale = 1;
  t->chain.start_at = -1;
  t->chain.cut_at = -1;
  t->stop_at = -1;
  t->ctl_layer = -1;
  t->ctl_state = -1;
  t->rm.joint = -1;
  return t;
}

/* ---- playing: a new track in an animator's list ------------------------ */

/* (an animator's arrays of tracks: in its block while few, else their own) */
void anim_track_arrays_free(anim_animator *a) {
  if (a->tracks == a->inl) return;
  anim_free(&a->mem, a->tracks, sizeof(anim_track *) * (size_t)a->cap);
  anim_free(&a->mem, a->order, sizeof(anim_track *) * (size_t)a->cap);
}

/* Room for one more track (both arrays grow together: each holds cap
 * pointers).  0 when out of memory, nothing changed. */
static int grow_tracks(anim_animator *a) {
  int cap = a->cap * 2;
  size_t ns = sizeof(anim_track *) * (size_t)cap;
  anim_track **tr = anim_malloc(&a->mem, ns), **od;
  if (!tr) return 0;
  od = anim_malloc(&a->mem, ns);
  if (!od) { anim_free(&a->mem, tr, ns); return 0; }
  memcpy(tr, a->tracks, sizeof(anim_track *) * (size_t)a->ntracks);
  anim_track_arrays_free(a);  /* order is scratch: nothing to keep */
  a->tracks = tr;
  a->order = od;
  a->cap = cap;
  return 1;
}

anim_track *anim_animator_play(anim_animator *a, const anim_clip *c, const anim_play_opts *o,
                               const anim_binding *binds, int nbind) {
  anim_track *t;
  anim_tprops *tp;
  if (a->ntracks == a->cap && !grow_tracks(a)) return NULL;
  /* its property channels first (propmix.c: refused when their number of
   * components differs from the one a track on a gives a name) */
  if (anim_props_prepare(a, c, NULL, &tp, NULL, NULL) != ANIM_PROPS_OK) return NULL;
  t = anim_track_new(a, c, o, binds, nbind);
  if (!t) { anim_tprops_free(&a->mem, tp); return NULL; }
  anim_props_install(a, t, tp);
  a->tracks[a->ntracks++] = t;
  return t;
}

void anim_track_retain(anim_track *t) { t->refs++; }
int anim_track_unref(anim_track *t) { return --t->refs <= 0; }
void anim_track_release(anim_track *t) {
  if (anim_track_unref(t)) anim_track_destroy(t);
}
int anim_track_recycle(anim_animator *a, anim_track *t) {
  anim_clip *c = (anim_clip *)t->clip;
  int i, small = 0;
  if (t->refs != 1 || t->ctl_layer < 0 || t->props || t->reload.arrays || t->sp.play) return 0;
  /* (full: the smallest spare gives way to a larger block, which serves
   * more of the state machine's tracks) */
  for (i = 1; i < a->nspare; i++)
    if (a->spare_size[i] < a->spare_size[small]) small = i;
  if (a->nspare == ANIM_SPARES && a->spare_size[small] >= t->size) return 0;
  /* (the clip's list and count, and the allocator, are shared with other
   * animators' threads) */
  if (a->serial) anim_pool_lock(a->serial);
  if (t->clip_prev) t->clip_prev->clip_next = t->clip_next;
  else c->tracks = t->clip_next;
  if (t->clip_next) t->clip_next->clip_prev = t->clip_prev;
  anim_clip_free(c);
  if (a->nspare == ANIM_SPARES) anim_free(&a->mem, a->spare[small], a->spare_size[small]);
  else small = a->nspare++;
  if (a->serial) anim_pool_unlock(a->serial);
  a->spare[small] = t;
  a->spare_size[small] = t->size;
  return 1;
}

void anim_track_destroy(anim_track *t) {
  anim_mem m = t->mem;
  anim_clip *c = (anim_clip *)t->clip;
  if (t->clip_prev) t->clip_prev->clip_next = t->clip_next;
  else c->tracks = t->clip_next;
  if (t->clip_next) t->clip_next->clip_prev = t->clip_prev;
  anim_tprops_free(&m, t->props);
  anim_free(&m, t->reload.arrays, t->reload.size);
  if (t->sp.play) anim_space_release(t);
  anim_clip_free((anim_clip *)t->clip);
  anim_free(&m, t, t->size);
}
/* ---- a blend space's points, kept with their lead ---------------------- */

int anim_space_points(const anim_track *lead) { return lead->sp.play->n; }
anim_track *anim_space_point(const anim_track *lead, int i) { return lead->sp.play->m[i]; }

void anim_space_release(anim_track *lead) {
  struct anim_spaceplay *sp = lead->sp.play;
  anim_mem m = lead->mem;
  int i;
  lead->sp.play = NULL;
  for (i = 1; i < sp->n; i++) anim_track_release(sp->m[i]);
  anim_space_free(sp->space);
  anim_free(&m, sp, sp->size);
}

void anim_space_seek(anim_track *lead, double time) {
  struct anim_spaceplay *sp = lead->sp.play;
  int i;
  for (i = 1; i < sp->n; i++) {
    anim_track *t = sp->m[i];
    if (sp->space->sync) {
      t->time = anim_space_phase(lead->clip->length, t->clip->length, time);
      t->tlo = 0;
      t->fresh = 0;
      t->rm.valid = 0;
    } else {
      anim_track_seek(t, time);
    }
  }
}

/* Alive: in an animator, not ended (queued ones too: scripts set them up
 * before they start); playing: alive and not queued. */
static int alive(const anim_track *t) { return t->owner && t->state != TR_ENDED; }
int anim_track_playing(const anim_track *t) { return alive(t) && t->state != TR_QUEUED; }
int anim_track_queued(const anim_track *t) { return alive(t) && t->state == TR_QUEUED; }
int anim_track_layer(const anim_track *t) { return t->ctl_layer; }
int anim_track_point(const anim_track *t) { return t->sp.lead->sp.play ? t->sp.point : -1; }
const anim_clip *anim_track_clip(const anim_track *t) { return t->clip; }
long long anim_track_id(const anim_track *t) { return t->id; }
const anim_track *anim_track_lead(const anim_track *t) { return t->sp.lead; }
void anim_track_hear(anim_track *t, unsigned mask) { t->hear = (unsigned char)(mask & ANIM_HEAR_ALL); }
void anim_track_set_slot(anim_track *t, int slot) { t->slot = slot; }
int anim_track_slot(const anim_track *t) { return t->slot; }
double anim_track_time(const anim_track *t) { return t->time; }
double anim_track_speed(const anim_track *t) { return t->speed; }
double anim_track_weight(const anim_track *t) { return anim_ramp_value(&t->weight); }
double anim_track_fade(const anim_track *t) { return anim_ramp_value(&t->fade); }
long long anim_track_loops(const anim_track *t) { return t->loops; }

static void end_silently(anim_track *t) {
  t->state = TR_ENDED;
  t->shows_last = 0;
  t->stopping = 0;
  t->stop_pending = 0;
}

void anim_track_end_now(anim_track *t) {
  int i;
  if (t->state == TR_QUEUED) anim_chain_cancel(t);
  if (t->chain.queued) { anim_chain_start(t->chain.queued, 0); t->chain.queued = NULL; }
  end_silently(t);
  /* (the other points go with their lead: none may outlive it playing) */
  for (i = 1; t->sp.play && i < anim_space_points(t); i++) end_silently(anim_space_point(t, i));
}

void anim_track_stop(anim_track *t, double fade) {
  if (!alive(t)) return;
  if (t->state == TR_QUEUED) { anim_chain_cancel(t); fade = 0; }  /* it never starts */
  if (!t->stopping) t->stop_pending = 1;
  t->stopping = 1;
  ramp_set(&t->fade, 0, fade);
}

void anim_track_adjust_weight(anim_track *t, double w, double fade) {
  if (alive(t)) ramp_set(&t->weight, w, fade);
}

void anim_track_adjust_speed(anim_track *t, double s) {
  if (alive(t)) t->speed = s;
}

void anim_track_set_loop(anim_track *t, int mode) {
  int i;
  if (!alive(t) || mode < -1 || mode >= ANIM_LOOP_COUNT) return;
  /* (a blend space's points play in its lead's mode) */
  for (i = 0; i < (t->sp.play ? anim_space_points(t) : 1); i++)
    (i ? anim_space_point(t, i) : t)->loop = (unsigned char)(mode + 1);
}

void anim_track_seek(anim_track *t, double time) {
  double L = t->clip->length;
  if (!alive(t)) return;
  if (!(time >= 0)) time = 0;
  if (time > L) time = L;
  t->time = time;
  t->tlo = 0;
  t->fresh = 0;
  t->rm.valid = 0;  /* a seek moves nothing */
  if (t->sp.play) anim_space_seek(t, time);
}

void anim_track_restart(anim_track *t, double fade) {
  double v;
  if (!anim_track_playing(t)) return;
  v = t->clip->speed * t->speed;
  t->time = v < 0 ? t->clip->length : 0;
  t->tlo = 0;
  t->fresh = 1;
  t->pdir = 1;
  t->loops = 0;
  t->stopping = 0;
  t->stop_pending = 0;
  t->rm.valid = 0;
  ramp_set(&t->fade, 1, fade);
}
