/* controller_impl.h - what the state machine controller's two files
 * share: its structs.  controller.c holds its stage (the transitions of an
 * update found and fired), ctlstate.c its making and freeing, its
 * parameters, reading and saved states.  Plain C, no Lua. */
#ifndef ANIM_CONTROLLER_IMPL_H
#define ANIM_CONTROLLER_IMPL_H

#include "animator_impl.h"
#include "graph.h"

typedef struct ctl_layer {
  /* (first what a settled layer's update reads: one cache line) */
  int settled;             /* nothing may fire until a parameter, trigger, force or travel
                            * changes (no fade, no exit time to reach): its search is skipped */
  int started;             /* its entry state entered */
  double nt, nt_e;         /* its normalized time at nt_e seconds into the update */
  double rate;             /* its state's normalized rate (nrate) at the parameters of this
                            * update (kept while settled: the parameters are unchanged) */
  ramp weight;             /* the layer's weight (its tracks', and those it starts) */
  int cur;                 /* the current state (layer-local) */
  int tr;                  /* the transition under way (the graph's index), -1: none, -2: a force */
  anim_track *track;       /* its track (held), or NULL */
  int src;                 /* its source state */
  int force;               /* a state to go to at the next update (-1: none) */
  double src_nt, src_e;    /* the source's normalized time at src_e */
  double src_rate;         /* and its rate (as rate) */
  double fade_end;         /* seconds from the update's start to the end of its fade */
  double fade_dur;
  double force_fade;
  int nplan, iplan;        /* a travel: its transitions (and where each goes), the next */
  int (*plan)[2];          /* (ANIM_GRAPH_MAX_TRAVEL of them, in the block's cold part) */
} ctl_layer;

struct anim_controller {
  anim_animator *a;
  anim_graph *g;
  anim_mem mem;
  size_t size;
  double *param;
  double *buffer;          /* per parameter: a buffered trigger's seconds left (-1: not buffered) */
  unsigned char *armed;    /* per layer and parameter: a trigger armed */
  ctl_layer *layers;
  anim_track **marks;      /* per layer: the track its entries are queued on */
  const anim_binding **binds;  /* the lists of bindings (in this block): per state of the graph */
  int *nbind;                  /* with a clip one, with a blend space one per point, else none */
  int *bind0;                  /* per state: its first list */
  unsigned over;
  /* The first state entered in the last update whose clip (a point's)
   * gives a property another number of components than a track on the
   * animator: entered with no track (anim_controller_clash).  layer + 1
   * (0: none), the layer's state, the point (0 for a clip state), the
   * clip's property, the components the animator's tracks give it. */
  int clash[5];
  int armed_any;           /* a trigger may be armed (the end of an update clears them) */
  unsigned hear;           /* the entries queued: 1 << (ANIM_EV_EXIT .. _ENTER - ANIM_EV_EXIT) */
  anim_binding *rebound;   /* the bindings of a rebind (anim_controller_rebind), else NULL */
  size_t nrebound;
  int marked;              /* an entry was queued on the marks since the last update began */
  size_t hot;              /* the bytes from the struct's start that an update reads */
};

/* Every layer searches again at the next update (ctlstate.c: a parameter,
 * a trigger, a force, a travel, a saved state changed what may fire). */
static inline void anim_controller_unsettle(anim_controller *c) {
  int l;
  for (l = 0; l < c->g->nlayers; l++) c->layers[l].settled = 0;
}

#endif
