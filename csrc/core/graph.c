/* graph.c - a state machine's graph (graph.h): one block holding every
 * array, filled by its maker, checked once, then shared read-only by the
 * controllers that run it (and the threads that update them). */
#include <math.h>
#include <stdint.h>

#include "blendspace.h"
#include "clip.h"
#include "graph.h"

/* The most of each count: far beyond any real graph, and small enough
 * that a block's size cannot overflow. */
#define GRAPH_MAX 1000000


/* The arrays' offsets in the block, in this order; returns its size. */
static size_t layout(const anim_graph_counts *n, size_t off[10]) {
  size_t s = anim_align8(sizeof(anim_graph));
  off[0] = s; s = anim_align8(s + sizeof(double) * (size_t)n->nparams);            /* pdefault */
  off[1] = s; s = anim_align8(s + sizeof(anim_glayer) * (size_t)n->nlayers);
  off[2] = s; s = anim_align8(s + sizeof(anim_gstate) * (size_t)n->nstates);
  off[3] = s; s = anim_align8(s + sizeof(anim_gtrans) * (size_t)n->ntrans);
  off[4] = s; s = anim_align8(s + sizeof(anim_gcond) * (size_t)n->nconds);
  off[5] = s; s = anim_align8(s + sizeof(double) * (size_t)n->ndurs);
  off[6] = s; s = anim_align8(s + sizeof(anim_clip *) * (size_t)n->nclips);
  off[7] = s; s = anim_align8(s + sizeof(anim_gmachine) * (size_t)n->nmachines);
  off[8] = s; s = anim_align8(s + sizeof(anim_space *) * (size_t)n->nspaces);
  off[9] = s; s = anim_align8(s + (size_t)n->nparams);                             /* ptype */
  return s;
}

anim_graph *anim_graph_new(const anim_mem *m, const anim_graph_counts *n) {
  size_t off[10], size;
  char *p;
  anim_graph *g;
  const int *c = &n->nparams;  /* (the counts, in their struct's order) */
  int i;
  for (i = 0; i < 9; i++)
    if (c[i] < 0 || c[i] > GRAPH_MAX) return NULL;
  if (n->nlayers < 1 || n->nmachines < n->nlayers) return NULL;
  size = layout(n, off);
  p = anim_calloc(m, 1, size);
  if (!p) return NULL;
  g = (anim_graph *)(void *)p;
  g->refs = 1;
  g->mem = *m;
  g->size = size;
  g->nparams = n->nparams;
  g->nlayers = n->nlayers;
  g->nstates = n->nstates;
  g->ntrans = n->ntrans;
  g->nconds = n->nconds;
  g->ndurs = n->ndurs;
  g->nclips = n->nclips;
  g->nmachines = n->nmachines;
  g->nspaces = n->nspaces;
  g->pdefault = (double *)(void *)(p + off[0]);
  g->layers = (anim_glayer *)(void *)(p + off[1]);
  g->states = (anim_gstate *)(void *)(p + off[2]);
  g->trans = (anim_gtrans *)(void *)(p + off[3]);
  g->conds = (anim_gcond *)(void *)(p + off[4]);
  g->durs = (double *)(void *)(p + off[5]);
  g->clips = (anim_clip **)(void *)(p + off[6]);
  g->machines = (anim_gmachine *)(void *)(p + off[7]);
  g->spaces = (anim_space **)(void *)(p + off[8]);
  g->ptype = (unsigned char *)(p + off[9]);
  return g;
}

void anim_graph_set_clip(anim_graph *g, int i, anim_clip *c) {
  if (i < 0 || i >= g->nclips || !c) return;
  if (g->clips[i]) anim_clip_free(g->clips[i]);
  anim_clip_retain(c);
  g->clips[i] = c;
}

void anim_graph_set_space(anim_graph *g, int i, anim_space *s) {
  if (i < 0 || i >= g->nspaces || !s) return;
  if (g->spaces[i]) anim_space_free(g->spaces[i]);
  anim_space_retain(s);
  g->spaces[i] = s;
}

static int in(int i, int lo, int hi) { return i >= lo && i < hi; }
static int finite_ge(double x, double lo) { return isfinite(x) && x >= lo; }

/* One transition of layer ly (its states [0, ns)). */
static const char *check_trans(const anim_graph *g, const anim_glayer *ly, const anim_gtrans *t) {
  int ns = ly->nstates, k;
  if (!(t->from == -1 || in(t->from, 0, ns))) return "transition state out of range";
  if (t->to == ANIM_GRAPH_EXIT) {
    if (t->from < 0 || g->machines[g->states[ly->state0 + t->from].machine].state < 0)
      return "an exit from outside a sub-machine";
  } else if (!in(t->to, 0, ns) || g->states[ly->state0 + t->to].child >= 0) {
    return "transition destination out of range";
  }
  if (t->ncond < 0 || !in(t->cond0, 0, g->nconds + 1) || t->cond0 + t->ncond > g->nconds)
    return "conditions out of range";
  if (!in(t->dur, 0, g->ndurs) || t->dur + (t->from < 0 ? ns : 1) > g->ndurs) return "durations out of range";
  for (k = 0; k < (t->from < 0 ? ns : 1); k++)
    if (!finite_ge(g->durs[t->dur + k], 0)) return "duration not a finite number >= 0";
  if (!(t->exit_time < 0 || finite_ge(t->exit_time, 0))) return "exit time not finite";
  if (!(t->offset >= 0 && t->offset <= 1)) return "offset out of [0, 1]";
  if (!in(t->interp, 0, ANIM_INTERP_COUNT) || !in(t->ease, 0, ANIM_EASE_COUNT)) return "curve out of range";
  if (t->interrupt >= ANIM_GINT_COUNT) return "interrupt out of range";
  for (k = t->cond0; k < t->cond0 + t->ncond; k++) {
    const anim_gcond *c = &g->conds[k];
    if (!in(c->param, 0, g->nparams) || !in(c->op, 0, ANIM_GOP_COUNT) || !isfinite(c->value))
      return "condition out of range";
  }
  return NULL;
}

/* Machine m of layer ly: its state in its parent, its any-state
 * transitions; the depth of its nesting. */
static const char *check_machine(const anim_graph *g, const anim_glayer *ly, int m) {
  const anim_gmachine *mc = &g->machines[m];
  int i, depth = 0, k = m;
  if (!(mc->state == -1 || in(mc->state, 0, ly->nstates))) return "machine state out of range";
  if (mc->state >= 0 && g->states[ly->state0 + mc->state].child != m) return "machine state not its machine's";
  if ((m == ly->machine0) != (mc->state < 0)) return "a layer's own machine is its first";
  while (g->machines[k].state >= 0) {
    k = g->states[ly->state0 + g->machines[k].state].machine;
    if (++depth > ANIM_GRAPH_MAX_DEPTH || !in(k, ly->machine0, g->nmachines)) return "machines nested too deep";
  }
  if (mc->nany < 0 || !in(mc->any0, 0, g->ntrans + 1) || mc->any0 + mc->nany > g->ntrans)
    return "machine transitions out of range";
  for (i = mc->any0; i < mc->any0 + mc->nany; i++) {
    const char *why = g->trans[i].from != -1 || g->trans[i].to == ANIM_GRAPH_EXIT ? "an any-state transition from a state"
                                                                                   : check_trans(g, ly, &g->trans[i]);
    if (why) return why;
  }
  return NULL;
}

const char *anim_graph_check(const anim_graph *g) {
  int i, l, s;
  for (i = 0; i < g->nparams; i++)
    if (g->ptype[i] >= ANIM_GPARAM_COUNT || !isfinite(g->pdefault[i])) return "parameter out of range";
  for (i = 0; i < g->nclips; i++)
    if (!g->clips[i]) return "clip missing";
  for (i = 0; i < g->nspaces; i++)
    if (!g->spaces[i]) return "space missing";
  for (l = 0; l < g->nlayers; l++) {
    const anim_glayer *ly = &g->layers[l];
    int mend = l + 1 < g->nlayers ? g->layers[l + 1].machine0 : g->nmachines;
    if (ly->nstates < 1 || !in(ly->state0, 0, g->nstates) || ly->state0 + ly->nstates > g->nstates)
      return "layer states out of range";
    if (!in(ly->machine0, 0, g->nmachines) || mend <= ly->machine0 || mend > g->nmachines)
      return "layer machines out of range";
    for (s = ly->state0; s < ly->state0 + ly->nstates; s++) {
      const anim_gstate *st = &g->states[s];
      if (!in(st->machine, ly->machine0, mend) || !(st->child == -1 || in(st->child, ly->machine0, mend)))
        return "state machine out of range";
    }
    if (!in(ly->entry, 0, ly->nstates) || g->states[ly->state0 + ly->entry].child >= 0 || !finite_ge(ly->weight, 0) ||
        !isfinite(ly->priority))
      return "layer entry, weight or priority out of range";
    for (i = ly->machine0; i < mend; i++) {
      const char *why = check_machine(g, ly, i);
      if (why) return why;
    }
    for (s = ly->state0; s < ly->state0 + ly->nstates; s++) {
      const anim_gstate *st = &g->states[s];
      if (!(st->clip == -1 || in(st->clip, 0, g->nclips)) || !(st->loop == -1 || in(st->loop, 0, ANIM_LOOP_COUNT)))
        return "state clip or loop out of range";
      if (st->child >= 0 && st->clip >= 0) return "a sub-machine with a clip";
      if (st->space >= 0) {
        int k;
        if (st->space >= g->nspaces || st->clip >= 0 || st->child >= 0) return "state space out of range";
        for (k = 0; k < g->spaces[st->space]->dim; k++)
          if (!in(st->at[k], 0, g->nparams) || g->ptype[st->at[k]] != ANIM_GPARAM_FLOAT) return "space parameter out of range";
      } else if (st->space != -1) {
        return "state space out of range";
      }
      if (!isfinite(st->speed) || !(st->speed_param == -1 || in(st->speed_param, 0, g->nparams)))
        return "state speed out of range";
      if (st->ntr < 0 || !in(st->tr0, 0, g->ntrans + 1) || st->tr0 + st->ntr > g->ntrans)
        return "state transitions out of range";
      for (i = st->tr0; i < st->tr0 + st->ntr; i++) {
        const anim_gtrans *t = &g->trans[i];
        const char *why = t->from != s - ly->state0 ? "a state's transition from another"
                          : st->child >= 0 && t->exit_time >= 0 ? "an exit time from a sub-machine"
                          : check_trans(g, ly, t);
        if (why) return why;
      }
    }
  }
  return NULL;
}

void anim_graph_retain(anim_graph *g) { g->refs++; }

void anim_graph_release(anim_graph *g) {
  int i;
  anim_mem m;
  if (!g || --g->refs > 0) return;
  for (i = 0; i < g->nclips; i++)
    if (g->clips[i]) anim_clip_free(g->clips[i]);
  for (i = 0; i < g->nspaces; i++)
    if (g->spaces[i]) anim_space_free(g->spaces[i]);
  m = g->mem;
  anim_free(&m, g, g->size);
}

int anim_graph_state_lists(const anim_graph *g, int s) {
  const anim_gstate *st = &g->states[s];
  return st->space >= 0 ? g->spaces[st->space]->n : st->clip >= 0 ? 1 : 0;
}
