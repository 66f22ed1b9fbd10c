/* ctlstate.c - an animator's state machine controller (graph.h) made and
 * freed, its parameters and triggers set and read, its layers read, a
 * force, a travel and a layer's weight asked for (the stage that acts on
 * them is controller.c's), and its numbers saved and put back for a
 * saved state. */
#include <math.h>
#include <string.h>

#include "controller_impl.h"


/* ---- making and freeing ------------------------------------------------- */

/* The number of binding lists of g: one per clip state, one per point of
 * a blend space state. */
static size_t lists_of(const anim_graph *g) {
  size_t n = 0;
  int i;
  for (i = 0; i < g->nstates; i++)
    n += (size_t)anim_graph_state_lists(g, i);
  return n;
}

/* The lists copied into area (room for all of them), c's lists set there. */
static void copy_lists(anim_controller *c, anim_binding *area, const anim_binding *const *binds, const int *nbind,
                       size_t nlists) {
  size_t i;
  for (i = 0; i < nlists; i++) {
    int n = nbind[i] > 0 ? nbind[i] : 0;
    if (n) memcpy(area, binds[i], sizeof *area * (size_t)n);
    c->binds[i] = area;
    c->nbind[i] = n;
    area += n;
  }
}

anim_controller *anim_controller_new(anim_animator *a, anim_graph *g, const anim_binding *const *binds,
                                     const int *nbind, const anim_clip *mark_clip) {
  size_t np = (size_t)g->nparams, nl = (size_t)g->nlayers, ns = (size_t)g->nstates, nb = 0, s, off[12], nlists, hot;
  anim_controller *c;
  anim_play_opts o = {0, 1, 1, 0, 1};
  char *p;
  int i;
  nlists = lists_of(g);
  for (i = 0; i < (int)nlists; i++) nb += (size_t)(nbind[i] > 0 ? nbind[i] : 0);
  /* what an update reads first (the hot part, prefetched: update.c), then
   * what making a track, reading and saving read */
  s = anim_align8(sizeof *c);
  off[2] = s; s = anim_align8(s + sizeof(ctl_layer) * nl);
  off[0] = s; s = anim_align8(s + sizeof(double) * np);
  off[1] = s; s = anim_align8(s + sizeof(double) * np);
  off[9] = s; s = anim_align8(s + nl * np);
  off[3] = s; s = anim_align8(s + sizeof(anim_track *) * nl);
  hot = s;
  off[4] = s; s = anim_align8(s + sizeof(anim_binding *) * nlists);
  off[5] = s; s = anim_align8(s + sizeof(int) * nlists);
  off[10] = s; s = anim_align8(s + sizeof(int) * ns);
  off[8] = s; s = anim_align8(s + sizeof(anim_binding) * nb);
  off[11] = s; s = anim_align8(s + sizeof(int) * 2 * ANIM_GRAPH_MAX_TRAVEL * nl);
  p = anim_calloc(&a->mem, 1, s);
  if (!p) return NULL;
  c = (anim_controller *)(void *)p;
  c->a = a;
  c->g = g;
  c->mem = a->mem;
  c->size = s;
  c->hot = hot;
  c->param = (double *)(void *)(p + off[0]);
  c->buffer = (double *)(void *)(p + off[1]);
  c->layers = (ctl_layer *)(void *)(p + off[2]);
  c->marks = (anim_track **)(void *)(p + off[3]);
  c->binds = (const anim_binding **)(void *)(p + off[4]);
  c->nbind = (int *)(void *)(p + off[5]);
  c->bind0 = (int *)(void *)(p + off[10]);
  c->armed = (unsigned char *)(p + off[9]);
  {
    int k = 0;
    copy_lists(c, (anim_binding *)(void *)(p + off[8]), binds, nbind, nlists);
    for (i = 0; i < g->nstates; i++) {
      c->bind0[i] = k;
      k += anim_graph_state_lists(g, i);
    }
  }
  for (i = 0; i < g->nparams; i++) {
    c->param[i] = g->pdefault[i];
    c->buffer[i] = -1;
  }
  for (i = 0; i < g->nlayers; i++) {
    ctl_layer *L = &c->layers[i];
    L->tr = -1;
    L->force = -1;
    /* (the entry, a state that is not a sub-machine, from the start: until
     * the first update and the first transition current() and a saved
     * state read them, and restore takes no sub-machine) */
    L->cur = L->src = g->layers[i].entry;
    L->plan = (int (*)[2])(void *)(p + off[11]) + (size_t)i * ANIM_GRAPH_MAX_TRAVEL;
    L->weight.from = L->weight.to = g->layers[i].weight;
    c->marks[i] = anim_track_new(a, mark_clip, &o, NULL, 0);
    if (!c->marks[i]) {
      while (--i >= 0) { c->marks[i]->owner = NULL; anim_track_release(c->marks[i]); }
      anim_free(&a->mem, p, s);
      return NULL;
    }
  }
  anim_graph_retain(g);
  if (a->ctl) anim_controller_free(a->ctl);
  a->ctl = c;
  return c;
}

void anim_controller_free(anim_controller *c) {
  int i;
  anim_mem m;
  if (!c) return;
  if (c->a->ctl == c) c->a->ctl = NULL;
  for (i = 0; i < c->g->nlayers; i++) {
    if (c->layers[i].track) anim_track_release(c->layers[i].track);
    c->marks[i]->owner = NULL;
    anim_track_release(c->marks[i]);
  }
  anim_graph_release(c->g);
  m = c->mem;
  if (c->rebound) anim_free(&m, c->rebound, sizeof *c->rebound * c->nrebound);
  anim_free(&m, c, c->size);
}

anim_controller *anim_animator_controller(const anim_animator *a) { return a->ctl; }

int anim_controller_rebind(anim_controller *c, const anim_binding *const *binds, const int *nbind) {
  size_t nb = 0, nlists = lists_of(c->g), i;
  anim_binding *area;
  for (i = 0; i < nlists; i++) nb += (size_t)(nbind[i] > 0 ? nbind[i] : 0);
  area = anim_malloc(&c->mem, sizeof *area * (nb ? nb : 1));
  if (!area) return 0;
  copy_lists(c, area, binds, nbind, nlists);
  if (c->rebound) anim_free(&c->mem, c->rebound, sizeof *c->rebound * c->nrebound);
  c->rebound = area;
  c->nrebound = nb ? nb : 1;
  /* (a reloaded clip has another length and speed: the rates a settled
   * layer keeps, and whether an exit time is still ahead, are found again) */
  anim_controller_unsettle(c);
  return 1;
}
/* (its tracks play on as any other: no layer of theirs any more) */
void anim_animator_detach(anim_animator *a) {
  int i;
  if (!a->ctl) return;
  for (i = 0; i < a->ntracks; i++) a->tracks[i]->ctl_layer = a->tracks[i]->ctl_state = -1;
  anim_controller_free(a->ctl);
}
anim_track *anim_controller_mark(const anim_controller *c, int layer) { return c->marks[layer]; }

/* ---- parameters and reading --------------------------------------------- */

double anim_controller_get(const anim_controller *c, int i) {
  int l;
  if (c->g->ptype[i] != ANIM_GPARAM_TRIGGER) return c->param[i];
  for (l = 0; l < c->g->nlayers; l++)
    if (c->armed[l * c->g->nparams + i]) return 1;
  return 0;
}

void anim_controller_set(anim_controller *c, int i, double v) {
  c->param[i] = v;
  anim_controller_unsettle(c);
}

void anim_controller_fire(anim_controller *c, int i, double buffer) {
  int l;
  for (l = 0; l < c->g->nlayers; l++) c->armed[l * c->g->nparams + i] = 1;
  c->buffer[i] = buffer >= 0 ? buffer : -1;
  c->armed_any = 1;
  anim_controller_unsettle(c);
}

int anim_controller_current(const anim_controller *c, int l, double *normalized) {
  *normalized = c->layers[l].nt;
  return c->layers[l].cur;
}

int anim_controller_transition(const anim_controller *c, int l, int *from, double *progress) {
  const ctl_layer *L = &c->layers[l];
  if (L->tr == -1) return -1;
  *from = L->src;
  /* (within [0, 1]: a fade started inside an update may end a rounding
   * past its duration) */
  *progress = L->fade_dur > 0 ? 1 - L->fade_end / L->fade_dur : 1;
  if (!(*progress >= 0)) *progress = 0;
  if (*progress > 1) *progress = 1;
  return L->tr;
}

void anim_controller_force(anim_controller *c, int l, int s, double fade) {
  c->layers[l].force = s;
  c->layers[l].force_fade = fade > 0 ? fade : 0;
  c->layers[l].nplan = c->layers[l].iplan = 0;
  c->layers[l].settled = 0;
}

int anim_controller_travel(anim_controller *c, int l, const int *tr, const int *fin, int n) {
  ctl_layer *L = &c->layers[l];
  int k;
  if (n < 0 || n > ANIM_GRAPH_MAX_TRAVEL) return 0;
  for (k = 0; k < n; k++) {
    if (tr[k] < 0 || tr[k] >= c->g->ntrans || fin[k] < 0 || fin[k] >= c->g->ntrans ||
        c->g->trans[fin[k]].to == ANIM_GRAPH_EXIT)
      return 0;
    L->plan[k][0] = tr[k];
    L->plan[k][1] = fin[k];
  }
  L->nplan = n;
  L->iplan = 0;
  L->settled = 0;
  return 1;
}

void anim_controller_weight(anim_controller *c, int l, double w, double fade) {
  anim_animator *a = c->a;
  ramp *r = &c->layers[l].weight;
  int i;
  r->from = anim_ramp_value(r);
  r->to = w;
  r->dur = fade > 0 ? fade : 0;
  r->elapsed = 0;
  for (i = 0; i < a->ntracks; i++)
    if (a->tracks[i]->ctl_layer == l) anim_track_adjust_weight(a->tracks[i], w, fade);
}

/* Whether entry e was queued before its track had a slot and needs its
 * object: an `ended` does not (the host never knew the track: nothing of
 * it to forget; the delivery passes over entries of no slot). */
static int needs_object(const anim_event *e) { return e->slot == 0 && e->type != ANIM_EV_ENDED; }

/* (such an entry queued for lead track t) */
static int queued_for(const anim_animator *a, const anim_track *t) {
  int k;
  for (k = 0; k < a->nqueue; k++)
    if (needs_object(&a->queue[k]) && a->queue[k].track->sp.lead == t) return 1;
  return 0;
}

anim_track *anim_animator_unhosted(const anim_animator *a, int queued_only, int *i, int *layer, int *state) {
  for (; *i >= 0 && *i < a->ntracks; (*i)++) {
    anim_track *t = a->tracks[*i];
    /* (an ended track needs its object only for entries still to deliver:
     * for the host's script it is gone, forgotten if it had one) */
    if (t->ctl_layer < 0 || t->slot != 0 || (queued_only ? !queued_for(a, t) : t->state == TR_ENDED)) continue;
    (*i)++;
    *layer = t->ctl_layer;
    *state = t->ctl_state;
    return t;
  }
  return NULL;
}

int anim_animator_needs_host(const anim_animator *a) {
  int k;
  if (!a->ctl) return 0;
  if (a->ctl->over || a->ctl->clash[0]) return 1;
  for (k = 0; k < a->nqueue; k++)
    if (needs_object(&a->queue[k])) return 1;
  return 0;
}

int anim_animator_spares(const anim_animator *a) { return a->nspare; }

int anim_animator_to_deliver(const anim_animator *a) {
  int k;
  if (!a->ctl) return a->nqueue > 0;
  if (a->ctl->over || a->ctl->clash[0]) return 1;
  for (k = 0; k < a->nqueue; k++)
    if (a->queue[k].slot != 0 || a->queue[k].type != ANIM_EV_ENDED) return 1;
  return 0;
}

unsigned anim_controller_over(const anim_controller *c) { return c->over; }
const int *anim_controller_clash(const anim_controller *c) { return c->clash[0] ? c->clash : NULL; }
void anim_controller_hear(anim_controller *c, unsigned mask) { c->hear = mask & 7u; }
const anim_graph *anim_controller_graph(const anim_controller *c) { return c->g; }
size_t anim_controller_hot(const anim_controller *c) { return c->hot; }

/* ---- saved states ---------------------------------------------------------- */


void anim_controller_layer_save(const anim_controller *c, int l, anim_ctl_layer_state *s, long long *track) {
  const ctl_layer *L = &c->layers[l];
  int k;
  memset(s, 0, sizeof *s);
  s->started = L->started;
  s->cur = L->cur;
  s->tr = L->tr;
  s->src = L->src;
  s->force = L->force;
  s->nplan = L->nplan;
  s->iplan = L->iplan;
  s->nt = L->nt;
  s->src_nt = L->src_nt;
  s->fade_end = L->fade_end;
  s->fade_dur = L->fade_dur;
  s->force_fade = L->force_fade;
  anim_ramp_out(&L->weight, s->weight);
  for (k = 0; k < L->nplan; k++) { s->plan[k][0] = L->plan[k][0]; s->plan[k][1] = L->plan[k][1]; }
  /* (a track the script stopped, or that ended, is not saved: the state's
   * layer has none then, as it plays none) */
  *track = L->track && L->track->owner == c->a && L->track->state != TR_ENDED ? L->track->id : -1;
}

const char *anim_controller_layer_load(anim_controller *c, int l, const anim_ctl_layer_state *s, anim_track *track) {
  ctl_layer *L = &c->layers[l];
  const anim_graph *g = c->g;
  int ns = g->layers[l].nstates, k;
  if (s->started != 0 && s->started != 1) return "started";
  if (s->cur < 0 || s->cur >= ns || g->states[g->layers[l].state0 + s->cur].child >= 0) return "state";
  if (!(s->tr == -1 || s->tr == -2 || (s->tr >= 0 && s->tr < g->ntrans))) return "transition";
  if (s->src < 0 || s->src >= ns) return "source";
  if (!(s->force == -1 || (s->force >= 0 && s->force < ns && g->states[g->layers[l].state0 + s->force].child < 0)))
    return "force";
  if (s->nplan < 0 || s->nplan > ANIM_GRAPH_MAX_TRAVEL || s->iplan < 0 || s->iplan > s->nplan) return "travel";
  for (k = 0; k < s->nplan; k++)
    if (s->plan[k][0] < 0 || s->plan[k][0] >= g->ntrans || s->plan[k][1] < 0 || s->plan[k][1] >= g->ntrans ||
        g->trans[s->plan[k][1]].to == ANIM_GRAPH_EXIT)
      return "travel";
  if (!isfinite(s->nt) || !isfinite(s->src_nt) || !isfinite(s->fade_end) || !(s->fade_dur >= 0) ||
      !isfinite(s->fade_dur) || !(s->force_fade >= 0) || !isfinite(s->force_fade))
    return "time";
  for (k = 0; k < 4; k++)
    if (!isfinite(s->weight[k])) return "weight";
  if (track && track->owner != c->a) return "track";
  L->started = s->started;
  L->cur = s->cur;
  L->tr = s->tr;
  L->src = s->src;
  L->force = s->force;
  L->nplan = s->nplan;
  L->iplan = s->iplan;
  L->nt = s->nt;
  L->nt_e = 0;
  L->src_nt = s->src_nt;
  L->src_e = 0;
  L->fade_end = s->fade_end;
  L->fade_dur = s->fade_dur;
  L->force_fade = s->force_fade;
  anim_ramp_in(&L->weight, s->weight);
  L->weight.interp = ANIM_LINEAR;
  for (k = 0; k < s->nplan; k++) { L->plan[k][0] = s->plan[k][0]; L->plan[k][1] = s->plan[k][1]; }
  if (L->track) anim_track_release(L->track);
  L->track = track;
  if (track) {
    anim_track_retain(track);
    track->ctl_layer = l;
    track->ctl_state = s->cur;
  }
  L->settled = 0;
  return NULL;
}

int anim_controller_armed(const anim_controller *c, int l, int i) { return c->armed[l * c->g->nparams + i]; }
double anim_controller_buffer(const anim_controller *c, int i) { return c->buffer[i]; }
void anim_controller_set_trigger(anim_controller *c, int l, int i, int armed, double buffer) {
  c->armed[l * c->g->nparams + i] = (unsigned char)(armed != 0);
  c->buffer[i] = buffer >= 0 ? buffer : -1;
  if (armed) c->armed_any = 1;
  anim_controller_unsettle(c);
}

