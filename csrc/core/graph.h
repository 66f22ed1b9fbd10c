/* graph.h - animation state machines.  A graph (graph.c) is data, shared
 * and never changed once made: its parameters, its layers, each layer's
 * states and transitions with their conditions, the mix durations
 * resolved, the clips its states play.  A controller (controller.c) is
 * one animator's run of a graph: the parameters' values, the triggers
 * armed, each layer's current state, its time and the transition under
 * way.  Its stage, anim_controller_step, runs at the start of the
 * animator's update (update.c), before the tracks step: it finds every
 * transition of the update at the exact instant it happens (parameters
 * and triggers as they were set before the update; exit times where the
 * state's normalized time reaches them) and starts and stops the states'
 * tracks at those instants, as a queued track starts within an update
 * (chain.c), and queues its exits, transitions and entries with the
 * markers.  Plain C, no Lua. */
#ifndef ANIM_GRAPH_H
#define ANIM_GRAPH_H

#include "amem.h"
#include "animator.h"

/* The most transitions one layer takes in one update (the rest wait for
 * the next update): a cycle of instant transitions cannot hang it.  The
 * deepest nesting of sub-machines. */
#define ANIM_GRAPH_MAX_STEPS 8
#define ANIM_GRAPH_MAX_DEPTH 16
/* A transition's `to` that leaves its sub-machine ("to": "exit"). */
#define ANIM_GRAPH_EXIT (-2)

/* A condition: parameter `param` (its index) against `value` by `op`
 * (ANIM_GOP_*: ANIM_GOP_SET is the one-element form, a bool true or a
 * trigger fired). */
typedef struct anim_gcond {
  int param, op;
  double value;
} anim_gcond;

/* A transition of a layer.  from: its source state (layer-local), or -1
 * for any state; to: its destination, a state that is not a sub-machine
 * (one to a sub-machine goes to its entry's), or ANIM_GRAPH_EXIT.  Its fade lasts durs[dur] (from a
 * state), or durs[dur + current state] (from any state: the mix table
 * gives each pair its own). */
typedef struct anim_gtrans {
  int from, to;
  int cond0, ncond;      /* its conditions: conds[cond0 .. cond0 + ncond) */
  int dur;
  double exit_time;      /* < 0: none */
  double offset;         /* the destination's normalized start time */
  int interp, ease;      /* the fade's curve (ANIM_LINEAR: none) */
  unsigned char sync;    /* the destination starts at the source's phase */
  unsigned char interrupt;  /* ANIM_GINT_* */
  unsigned char can_self;   /* (from any state) may restart the current state */
} anim_gtrans;

/* A state: a clip (clips[clip]) or nothing (clip -1: the layer adds
 * nothing, or a sub-machine), the loop mode its track plays in (-1: the
 * clip's; a `once` clip holds its last frame), its speed (times the float
 * parameter speed_param unless that is -1), and its transitions trans[tr0
 * .. tr0 + ntr) in file order; machine: the machine it is in (the graph's
 * index). */
typedef struct anim_gstate {
  int machine;
  int child;             /* a sub-machine's state: its machine (the graph's index), else -1 */
  int space;             /* a blend space's state: spaces[space], else -1 */
  int at[2];             /* its parameter: these float parameters (at[1] -1 in 1D) */
  int clip;
  int loop;
  double speed;
  int speed_param;
  int tr0, ntr;
} anim_gstate;

/* A machine: the layer's own, or a sub-machine, whose state in its parent
 * machine is `state` (layer-local; -1 for the layer's own) and whose
 * transitions from it fire when one "to": "exit" inside may; its any-state
 * transitions trans[any0 .. any0 + nany), which apply to every state
 * inside it, sub-machines' too. */
typedef struct anim_gmachine {
  int state;
  int any0, nany;
} anim_gmachine;

/* A layer: its states states[state0 .. state0 + nstates), its machines
 * machines[machine0 ..] (its own first), its entry state (layer-local, a
 * state that is not a sub-machine), the weight and priority of its
 * tracks. */
typedef struct anim_glayer {
  int state0, nstates;
  int machine0;
  int entry;
  double weight, priority;
} anim_glayer;

typedef struct anim_graph {
  int refs;
  anim_mem mem;
  size_t size;
  int nparams, nlayers, nstates, ntrans, nconds, ndurs, nclips, nmachines, nspaces;
  unsigned char *ptype;  /* ANIM_GPARAM_* */
  struct anim_space **spaces;  /* retained */
  anim_gmachine *machines;
  double *pdefault;
  anim_glayer *layers;
  anim_gstate *states;
  anim_gtrans *trans;
  anim_gcond *conds;
  double *durs;
  anim_clip **clips;     /* retained */
} anim_graph;

typedef struct anim_graph_counts {
  int nparams, nlayers, nstates, ntrans, nconds, ndurs, nclips, nmachines, nspaces;
} anim_graph_counts;

/* A graph of these counts, its arrays zeroed for the caller to fill (its
 * clips through anim_graph_set_clip), then anim_graph_check; NULL when out
 * of memory or a count is out of range.  One reference. */
anim_graph *anim_graph_new(const anim_mem *m, const anim_graph_counts *n);
void anim_graph_set_clip(anim_graph *g, int i, anim_clip *c);
void anim_graph_set_space(anim_graph *g, int i, struct anim_space *s);
/* NULL when every index and number of g is in range, else what is not. */
const char *anim_graph_check(const anim_graph *g);
void anim_graph_retain(anim_graph *g);
void anim_graph_release(anim_graph *g);
/* The lists of bindings state s of g plays with (anim_controller_new's and
 * anim_controller_rebind's order): its blend space's points, 1 for a clip,
 * else 0. */
int anim_graph_state_lists(const anim_graph *g, int s);

typedef struct anim_controller anim_controller;

/* The controller of animator a running g (a holds it: one per animator;
 * a controller already there is freed).  binds[k], nbind[k]: the bindings
 * on a's rig (for the layer's mask), copied, of each state's clip in turn
 * (a blend space's state: of each of its points' clips; other states:
 * none).  Each layer
 * has a track that carries its entries in the queue (never stepped
 * or posed), made from mark_clip (a clip of no joints).  NULL when out
 * of memory (a keeps its controller then). */
anim_controller *anim_controller_new(anim_animator *a, anim_graph *g, const anim_binding *const *binds,
                                     const int *nbind, const anim_clip *mark_clip);
/* a's controller, or NULL; a without one (its tracks play on as they
 * are). */
anim_controller *anim_animator_controller(const anim_animator *a);
/* New bindings for its states' clips (as anim_controller_new takes them:
 * a clip of the graph was reloaded); 0 when out of memory (the old kept). */
int anim_controller_rebind(anim_controller *c, const anim_binding *const *binds, const int *nbind);
void anim_animator_detach(anim_animator *a);

/* The layer's track that carries its entries (anim_event.track of its
 * exits, transitions and entries). */
anim_track *anim_controller_mark(const anim_controller *c, int layer);
/* Parameter i: its value (a trigger: 1 while armed in some layer) and a new
 * one (the caller checked the type); fire: a trigger armed in every
 * layer, buffered for `buffer` animator seconds (< 0: until the end of
 * the next update). */
double anim_controller_get(const anim_controller *c, int i);
void anim_controller_set(anim_controller *c, int i, double v);
void anim_controller_fire(anim_controller *c, int i, double buffer);
/* Layer l's current state (layer-local) and normalized time; its
 * transition under way (the graph's index, -1 for none), its source and
 * its progress in [0, 1]. */
int anim_controller_current(const anim_controller *c, int l, double *normalized);
int anim_controller_transition(const anim_controller *c, int l, int *from, double *progress);
/* Layer l goes to state s at the start of the next update, fading over
 * `fade` seconds (its exit, transition and entry queued then); a travel
 * under way stops. */
void anim_controller_force(anim_controller *c, int l, int s, double fade);
/* Layer l takes transitions tr[0..n) in turn from the next update,
 * whatever their conditions (fin[k]: where an exit goes, as the parent's
 * transition it fires with; else tr[k]), each when the fade before it is
 * done, or at its exit time after that; at most ANIM_GRAPH_MAX_TRAVEL.
 * 0 when n is out of range. */
#define ANIM_GRAPH_MAX_TRAVEL 64
int anim_controller_travel(anim_controller *c, int l, const int *tr, const int *fin, int n);
/* Layer l's weight: w over `fade` seconds from the next update, for its
 * tracks playing and those it starts. */
void anim_controller_weight(anim_controller *c, int l, double w, double fade);
/* The layers that had more transitions than ANIM_GRAPH_MAX_STEPS in its
 * last update (a bit per layer, the 31st for every layer past 30). */
unsigned anim_controller_over(const anim_controller *c);
/* The first state entered in its last update with no track because its
 * clip (a blend space point's) gives a property another number of
 * components than a track on the animator: { layer + 1, the layer's
 * state, the point (0 for a clip state), the clip's property, the
 * components the tracks give it }; NULL when none. */
const int *anim_controller_clash(const anim_controller *c);
/* The tracks a controller starts have no host object (no slot: 0) until
 * the host gives them one: at a delivery those that have entries queued,
 * or all of them when the host's script asks for its tracks.  The next
 * such track of a's list from index *i on (those with entries queued
 * only, when queued_only), its layer and layer-local state; NULL at the
 * end.  Whether a delivery has such tracks to host first, or layers over
 * the bound to report (anim_animator_needs_host).  Whether a delivery has
 * anything to do (anim_animator_to_deliver): an entry queued other than
 * the `ended` of a track the host never knew (a state machine's track
 * that ended unseen: the common case, delivered as nothing), or layers
 * over the bound to report (even with nothing queued). */
anim_track *anim_animator_unhosted(const anim_animator *a, int queued_only, int *i, int *layer, int *state);
int anim_animator_needs_host(const anim_animator *a);
int anim_animator_to_deliver(const anim_animator *a);
/* The blocks of ended tracks a keeps for its state machine's next tracks
 * (animator_impl.h: anim_track_recycle), for tests. */
int anim_animator_spares(const anim_animator *a);
/* Which of its entries are queued (a bit per ANIM_EV_EXIT, _TRANSITION,
 * _ENTER: 1 << (type - ANIM_EV_EXIT)); none at first: an entry nobody
 * hears costs nothing. */
void anim_controller_hear(anim_controller *c, unsigned mask);
const anim_graph *anim_controller_graph(const anim_controller *c);
/* The bytes from c's start that its update reads (update.c prefetches them). */
size_t anim_controller_hot(const anim_controller *c);
/* The queue's entries queued before their tracks had a slot (a
 * controller's tracks, given theirs after the update) take it. */
void anim_animator_reslot(anim_animator *a);
/* A layer's numbers between updates, for a saved state: all its next
 * updates depend on (beside its current track, by id; -1: none). */
typedef struct anim_ctl_layer_state {
  int started, cur, tr, src, force, nplan, iplan;
  double nt, src_nt, fade_end, fade_dur, force_fade, weight[4];
  int plan[ANIM_GRAPH_MAX_TRAVEL][2];
} anim_ctl_layer_state;
void anim_controller_layer_save(const anim_controller *c, int l, anim_ctl_layer_state *s, long long *track);
/* The same put back, its current track `track` (a track of the animator,
 * or NULL); NULL when every number is in range, else which is not (nothing
 * changed then). */
const char *anim_controller_layer_load(anim_controller *c, int l, const anim_ctl_layer_state *s, anim_track *track);
/* A trigger's state: whether it is armed in layer l, its buffer's seconds
 * left (-1: none). */
int anim_controller_armed(const anim_controller *c, int l, int i);
double anim_controller_buffer(const anim_controller *c, int i);
void anim_controller_set_trigger(anim_controller *c, int l, int i, int armed, double buffer);
/* The stage (update.c). */
void anim_controller_step(anim_controller *c);
void anim_controller_free(anim_controller *c);

#endif
