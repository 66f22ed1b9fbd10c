/* ctlstate.c - an animator's state machine controller (graph.h) made and
 * freed, its parameters and triggers set and read, its layers read, a
 * force, a travel and a layer's weight asked for (the stage that acts on
 * them is controller.c's), and its numbers saved and put back for a
 * saved state. */
#include <math.h>
#include <string.h>

#include "controller_impl.h"


/* ---- making and freeing ------------------------------------------------- */

anim_controller *anim_controller_new(anim_animator *a, anim_graph *g, const anim_binding *const *binds,
                                     const int *nbind, const anim_clip *mark_clip) {
  size_t np = (size_t)g->nparams, nl = (size_t)g->nlayers, ns = (size_t)g->nstates, nb = 0, s, off[11], nlists = 0;
  size_t capmade = nl * (ANIM_GRAPH_MAX_STEPS + 1);
  anim_controller *c;
  anim_play_opts o = {0, 1, 1, 0, 1};
  char *p;
  int i;
  for (i = 0; i < g->nstates; i++)
    nlists += g->states[i].space >= 0 ? (size_t)g->spaces[g->states[i].space]->n : g->states[i].clip >= 0 ? 1 : 0;
  for (i = 0; i < (int)nlists; i++) nb += (size_t)(nbind[i] > 0 ? nbind[i] : 0);
  s = anim_align8(sizeof *c);
  off[0] = s; s = anim_align8(s + sizeof(double) * np);
  off[1] = s; s = anim_align8(s + sizeof(double) * np);
  off[2] = s; s = anim_align8(s + sizeof(ctl_layer) * nl);
  off[3] = s; s = anim_align8(s + sizeof(anim_track *) * nl);
  off[4] = s; s = anim_align8(s + sizeof(anim_binding *) * nlists);
  off[5] = s; s = anim_align8(s + sizeof(int) * nlists);
  off[10] = s; s = anim_align8(s + sizeof(int) * ns);
  off[6] = s; s = anim_align8(s + sizeof(anim_track *) * capmade);
  off[7] = s; s = anim_align8(s + sizeof(int) * 2 * capmade);
  off[8] = s; s = anim_align8(s + sizeof(anim_binding) * nb);
  off[9] = s; s = anim_align8(s + nl * np);
  p = anim_calloc(&a->mem, 1, s);
  if (!p) return NULL;
  c = (anim_controller *)(void *)p;
  c->a = a;
  c->g = g;
  c->mem = a->mem;
  c->size = s;
  c->param = (double *)(void *)(p + off[0]);
  c->buffer = (double *)(void *)(p + off[1]);
  c->layers = (ctl_layer *)(void *)(p + off[2]);
  c->marks = (anim_track **)(void *)(p + off[3]);
  c->binds = (const anim_binding **)(void *)(p + off[4]);
  c->nbind = (int *)(void *)(p + off[5]);
  c->bind0 = (int *)(void *)(p + off[10]);
  c->made = (anim_track **)(void *)(p + off[6]);
  c->made_layer = (int *)(void *)(p + off[7]);
  c->made_state = c->made_layer + capmade;
  c->armed = (unsigned char *)(p + off[9]);
  c->capmade = (int)capmade;
  {
    anim_binding *copy = (anim_binding *)(void *)(p + off[8]);
    int k = 0;
    for (i = 0; i < (int)nlists; i++) {
      int n = nbind[i] > 0 ? nbind[i] : 0;
      if (n) memcpy(copy, binds[i], sizeof *copy * (size_t)n);
      c->binds[i] = copy;
      c->nbind[i] = n;
      copy += n;
    }
    for (i = 0; i < g->nstates; i++) {
      c->bind0[i] = k;
      k += g->states[i].space >= 0 ? g->spaces[g->states[i].space]->n : g->states[i].clip >= 0 ? 1 : 0;
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
  anim_free(&m, c, c->size);
}

anim_controller *anim_animator_controller(const anim_animator *a) { return a->ctl; }
void anim_animator_detach(anim_animator *a) { anim_controller_free(a->ctl); }
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
  *progress = L->fade_dur > 0 ? 1 - L->fade_end / L->fade_dur : 1;
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

int anim_controller_made(const anim_controller *c, anim_track *const **tracks, const int **layers,
                         const int **states) {
  *tracks = c->made;
  *layers = c->made_layer;
  *states = c->made_state;
  return c->nmade;
}

unsigned anim_controller_over(const anim_controller *c) { return c->over; }
void anim_controller_forget_made(anim_controller *c) { c->nmade = 0; }
void anim_controller_hear(anim_controller *c, unsigned mask) { c->hear = mask & 7u; }
int anim_animator_has_made(const anim_animator *a) { return a->ctl && a->ctl->nmade > 0; }
const anim_graph *anim_controller_graph(const anim_controller *c) { return c->g; }

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
  *track = L->track ? L->track->id : -1;
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
  if (track) anim_track_retain(track);
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

