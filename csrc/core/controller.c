/* controller.c - an animator's run of a state machine (graph.h).  The
 * stage anim_controller_step runs first in the update (update.c): for each
 * layer it finds, in time order, every transition that fires within the
 * update's dt -- at the earliest instant one may fire, ties going to the
 * first in evaluation order (any-state transitions, then the current
 * state's, each in file order) -- and fires it there: the current state's
 * track fades out from that instant, the destination's track starts at it
 * (as a queued track starts within an update, chain.c), and the exit, the
 * transition and the entry are queued at it.  Parameters and triggers are
 * as they were set before the update, so that a condition set then holds
 * from the update's start; an exit time fires where the state's
 * normalized time reaches it, whatever the frame rate.  A state's
 * normalized time is its clip time over its clip's length, counting on
 * over loops (an empty state's, or a clip's of length 0: its seconds).
 * While a transition fades, only the transitions its `interrupt` names may
 * fire; the destination's own are evaluated from the end of its fade. */
#include <math.h>

#include "animator_impl.h"
#include "controller_impl.h"
#include "graph.h"
#include "pool.h"
#include "propmix.h"
#include "spaceplay.h"

/* ---- the state's clock ---------------------------------------------------- */

static const anim_gstate *state_of(const anim_controller *c, int l, int s) {
  return &c->g->states[c->g->layers[l].state0 + s];
}

/* State s's speed: its own times its speed parameter's value. */
static double state_speed(const anim_controller *c, const anim_gstate *st) {
  return st->speed * (st->speed_param >= 0 ? c->param[st->speed_param] : 1);
}

/* A blend space state's parameter, from its float parameters. */
static void space_at(const anim_controller *c, const anim_gstate *st, double p[2]) {
  p[0] = c->param[st->at[0]];
  p[1] = st->at[1] >= 0 ? c->param[st->at[1]] : 0;
}

/* How fast state s's normalized time moves, per animator second: its
 * clip's (a blend space's: its first point's, at the synced speed of its
 * parameter now). */
static double nrate(const anim_controller *c, int l, int s) {
  const anim_gstate *st = state_of(c, l, s);
  const anim_clip *k = st->clip >= 0 ? c->g->clips[st->clip] : st->space >= 0 ? c->g->spaces[st->space]->clip[0] : NULL;
  double r, f = 1;
  if (!k || !(k->length > 0)) return 1;
  if (st->space >= 0) {
    double p[2];
    space_at(c, st, p);
    f = anim_space_factor(c->g->spaces[st->space], p);
  }
  r = fabs(k->speed * state_speed(c, st) * f) / k->length;
  return isfinite(r) ? r : 0;
}

/* ---- the conditions ------------------------------------------------------- */

static int holds(const anim_controller *c, int l, const anim_gcond *k, double at) {
  double v = c->param[k->param];
  if (c->g->ptype[k->param] == ANIM_GPARAM_TRIGGER)
    return c->armed[l * c->g->nparams + k->param] && (c->buffer[k->param] < 0 || at <= c->buffer[k->param]);
  switch (k->op) {
    case ANIM_GOP_EQ: return v == k->value;
    case ANIM_GOP_NE: return v != k->value;
    case ANIM_GOP_LT: return v < k->value;
    case ANIM_GOP_LE: return v <= k->value;
    case ANIM_GOP_GT: return v > k->value;
    case ANIM_GOP_GE: return v >= k->value;
    default: return v != 0;
  }
}

/* The instant in [w0, w1] at which transition t may fire, its source at
 * normalized time nt0 at w0 moving at r per second; -1 when none.  An
 * exit time below 1 is reached once in every loop, one from 1 up once. */
static double when(const anim_controller *c, int l, const anim_gtrans *t, double nt0, double r, double w0,
                   double w1, int conds) {
  double at = w0;
  int k;
  if (t->exit_time >= 0) {
    double x = t->exit_time, cross;
    if (x < 1) {
      cross = floor(nt0) + x;
      if (cross < nt0) cross += 1;
    } else {
      cross = x;
      if (cross < nt0) return -1;
    }
    if (cross > nt0) {
      if (!(r > 0)) return -1;
      at = w0 + (cross - nt0) / r;
    }
    if (!(at <= w1)) return -1;
  }
  for (k = t->cond0; conds && k < t->cond0 + t->ncond; k++)
    if (!holds(c, l, &c->g->conds[k], at)) return -1;
  return at;
}

/* The next transition of layer l from instant e within the update's dt:
 * tr, and fin, the one whose destination it goes to (tr itself, or for a
 * transition to "exit" the first of the parent machine's transitions from
 * the sub-machine that may fire at that instant, and so on up). */
typedef struct pick {
  double at;
  int tr, fin;
} pick;

/* Where transition tr to "exit" goes at `at`: the first transition from
 * its machine's state (in the parent machine, in file order) whose
 * conditions hold then, followed up while it goes to "exit" too; -1 when
 * none may fire (then the exit does not either). */
/* One step of it: the first transition from the sub-machine's state whose
 * conditions hold at `at`, or -1. */
static int exit_to1(const anim_controller *c, int l, int tr, double at) {
  const anim_graph *g = c->g;
  const anim_glayer *ly = &g->layers[l];
  int ms = g->machines[g->states[ly->state0 + g->trans[tr].from].machine].state, i;
  const anim_gstate *st = &g->states[ly->state0 + ms];
  for (i = st->tr0; i < st->tr0 + st->ntr; i++) {
    const anim_gtrans *u = &g->trans[i];
    int k, ok = 1;
    for (k = u->cond0; k < u->cond0 + u->ncond && ok; k++) ok = holds(c, l, &g->conds[k], at);
    if (ok) return i;
  }
  return -1;
}

static int exit_to(const anim_controller *c, int l, int tr, double at) {
  int depth;
  for (depth = 0; depth <= ANIM_GRAPH_MAX_DEPTH && tr >= 0 && c->g->trans[tr].to == ANIM_GRAPH_EXIT; depth++)
    tr = exit_to1(c, l, tr, at);
  return tr >= 0 && c->g->trans[tr].to != ANIM_GRAPH_EXIT ? tr : -1;
}

/* Considers the transitions trans[t0 .. t0 + n) from a state at normalized
 * time nt0 at w0 moving at r (any-state ones from the current state cur). */
static void consider(const anim_controller *c, int l, int t0, int n, int cur, double nt0, double r, double w0,
                     double w1, pick *best) {
  int i;
  for (i = t0; i < t0 + n; i++) {
    const anim_gtrans *t = &c->g->trans[i];
    double at;
    int fin = i;
    if (t->from < 0 && t->to == cur && !t->can_self) continue;
    if (i == c->layers[l].tr) continue;  /* (the transition under way does not interrupt itself) */
    at = when(c, l, t, nt0, r, w0, w1, 1);
    if (at >= 0 && at < best->at && t->to == ANIM_GRAPH_EXIT) fin = exit_to(c, l, i, at);
    if (at >= 0 && at < best->at && fin >= 0) { best->at = at; best->tr = i; best->fin = fin; }
  }
}

/* The any-state transitions of every machine from the layer's own down to
 * state s's, outermost first. */
static void consider_any(const anim_controller *c, int l, int s, double nt0, double r, double w0, double w1,
                         pick *best) {
  const anim_graph *g = c->g;
  const anim_glayer *ly = &g->layers[l];
  int chain[ANIM_GRAPH_MAX_DEPTH + 2], n = 0, m = g->states[ly->state0 + s].machine;
  for (;;) {
    chain[n++] = m;
    if (g->machines[m].state < 0 || n > ANIM_GRAPH_MAX_DEPTH) break;
    m = g->states[ly->state0 + g->machines[m].state].machine;
  }
  while (n-- > 0) consider(c, l, g->machines[chain[n]].any0, g->machines[chain[n]].nany, s, nt0, r, w0, w1, best);
}

/* (kept finite: the largest dt at a fast rate overflows, and a state
 * saves it; at 1e308 loops the phase means nothing anyway) */
static double nt_at(const ctl_layer *L, double r, double e) { return anim_finite(L->nt + r * (e - L->nt_e)); }

static pick find(const anim_controller *c, int l, double e, double dt) {
  const ctl_layer *L = &c->layers[l];
  const anim_gstate *cs = state_of(c, l, L->cur);
  double r = L->rate;
  pick best;
  best.at = HUGE_VAL;
  best.tr = best.fin = -1;
  if (L->iplan < L->nplan) {
    /* a travel: its next transition, whatever its conditions, once the
     * fade before it is done (at its exit time after that) */
    int tr = L->plan[L->iplan][0];
    double at;
    if (L->tr != -1 && L->fade_end > e) e = L->fade_end;
    if (e > dt) return best;
    at = when(c, l, &c->g->trans[tr], nt_at(L, r, e), r, e, dt, 0);
    if (at >= 0) { best.at = at; best.tr = tr; best.fin = L->plan[L->iplan][1]; }
    return best;
  }
  if (L->tr != -1 && L->fade_end > e) {
    /* a fade under way: the transitions its interrupt allows, up to its end */
    int in = L->tr >= 0 ? c->g->trans[L->tr].interrupt : ANIM_GINT_NONE, pass;
    double w1 = L->fade_end < dt ? L->fade_end : dt;
    if (in != ANIM_GINT_NONE) {
      const anim_gstate *ss = state_of(c, l, L->src);
      double rs = L->src_rate, nts = L->src_nt + rs * (e - L->src_e);
      /* 1: the source's transitions, 2: the destination's, in the order named */
      int order[2];
      order[0] = in == ANIM_GINT_SOURCE || in == ANIM_GINT_SOURCE_THEN_DESTINATION ? 1 : 2;
      order[1] = in == ANIM_GINT_SOURCE_THEN_DESTINATION ? 2 : in == ANIM_GINT_DESTINATION_THEN_SOURCE ? 1 : 0;
      consider_any(c, l, L->cur, nt_at(L, r, e), r, e, w1, &best);
      for (pass = 0; pass < 2; pass++) {
        if (order[pass] == 1) consider(c, l, ss->tr0, ss->ntr, L->cur, nts, rs, e, w1, &best);
        else if (order[pass] == 2) consider(c, l, cs->tr0, cs->ntr, L->cur, nt_at(L, r, e), r, e, w1, &best);
      }
    }
    if (best.tr >= 0) return best;
    e = L->fade_end;
    if (e > dt) return best;
  }
  consider_any(c, l, L->cur, nt_at(L, r, e), r, e, dt, &best);
  consider(c, l, cs->tr0, cs->ntr, L->cur, nt_at(L, r, e), r, e, dt, &best);
  return best;
}

/* ---- firing ----------------------------------------------------------------- */

/* Queues an exit, transition or entry of layer l at `at` on its track of
 * entries: kind the layer, index the state, item the other (a
 * transition's source; -1). */
static void queue(anim_controller *c, int l, int type, double at, int state, int other) {
  anim_animator *a = c->a;
  int n = a->nqueue;
  if (!(c->hear & (1u << (type - ANIM_EV_EXIT)))) return;  /* (nobody hears it) */
  anim_queue_push(a, at, c->marks[l], type, other);
  c->marked = 1;
  if (a->nqueue > n) {
    anim_event *e = &a->queue[n];
    e->kind = l;
    e->index = state;
  }
}

/* Track t fades out from `at` seconds into this update over dur (curve
 * interp, ease), from the fade it has there: its `stopped` at `at` (the
 * clock splits its advance there: clock.c). */
static void stop_at(anim_track *t, double at, double dur, int interp, int ease) {
  double from;
  int queued = t->state == TR_QUEUED && t->chain.start_at >= 0;
  ramp r = t->fade;
  if (!t->owner || t->state == TR_ENDED || t->stopping) return;
  /* (a track that starts in this update counts its fade from its start) */
  r.elapsed = queued ? at - t->chain.start_at : r.elapsed + at;
  if (r.elapsed < 0) r.elapsed = 0;
  from = anim_ramp_value(&r);
  t->fade.from = from;
  t->fade.to = 0;
  t->fade.dur = dur;
  t->fade.elapsed = -at + (queued ? t->chain.start_at : 0);
  t->fade.interp = (unsigned char)interp;
  t->fade.ease = (unsigned char)ease;
  t->stopping = 1;
  t->stop_pending = 0;
  t->stop_at = at;
}

/* Whether state s of layer l would play a clip (a blend space's point)
 * that gives a property another number of components than a track on the
 * animator (a track the script played: a property keeps one number of
 * components on an animator, and play refuses what would break that; a
 * state's track cannot be refused, so the state plays none).  The first of
 * an update is kept for the host to warn of. */
static int clashes(anim_controller *c, int l, int s, const anim_gstate *st) {
  const anim_space *sp = st->space >= 0 ? c->g->spaces[st->space] : NULL;
  int i, n = sp ? sp->n : 1, which, other;
  for (i = 0; i < n; i++) {
    const anim_clip *k = sp ? sp->clip[i] : c->g->clips[st->clip];
    if (anim_props_conflict(c->a, k, NULL, &which, &other) == ANIM_PROPS_OK) continue;
    if (!c->clash[0]) {
      c->clash[0] = l + 1;
      c->clash[1] = s;
      c->clash[2] = i;
      c->clash[3] = which;
      c->clash[4] = other;
    }
    return 1;
  }
  return 0;
}

/* Layer l enters state s at `at` (its normalized time nt0), its track
 * fading in over `fade` with the curve. */
static void enter(anim_controller *c, int l, int s, double at, double nt0, double fade, int interp, int ease) {
  anim_animator *a = c->a;
  ctl_layer *L = &c->layers[l];
  const anim_glayer *ly = &c->g->layers[l];
  const anim_gstate *st = state_of(c, l, s);
  const anim_clip *k;
  anim_play_opts o;
  anim_track *t;
  int gs = ly->state0 + s, loop;
  L->cur = s;
  L->rate = nrate(c, l, s);
  L->nt = nt0;
  L->nt_e = at;
  L->track = NULL;
  queue(c, l, ANIM_EV_ENTER, at, s, -1);
  if ((st->clip < 0 && st->space < 0) || clashes(c, l, s, st)) return;
  k = st->clip >= 0 ? c->g->clips[st->clip] : c->g->spaces[st->space]->clip[0];
  o.fade = fade;
  o.weight = 1;
  o.speed = state_speed(c, st);
  if (!isfinite(o.speed)) o.speed = 0;
  o.priority = ly->priority;
  o.has_priority = 1;
  /* (on a worker thread, one allocation at a time: animator.c) */
  if (a->serial) anim_pool_lock(a->serial);
  if (st->space >= 0) {
    double p[2];
    space_at(c, st, p);
    t = anim_animator_play_space(a, c->g->spaces[st->space], &o, c->binds + c->bind0[gs], c->nbind + c->bind0[gs], p);
  } else {
    t = anim_animator_play(a, k, &o, c->binds[c->bind0[gs]], c->nbind[c->bind0[gs]]);
  }
  if (a->serial) anim_pool_unlock(a->serial);
  if (!t) { a->oom = 1; return; }
  loop = st->loop >= 0 ? st->loop : k->loop;
  anim_track_set_loop(t, loop == ANIM_ONCE ? ANIM_HOLD : loop);  /* a once clip holds its end */
  t->fade.interp = (unsigned char)interp;
  t->fade.ease = (unsigned char)ease;
  if (nt0 > 0 && k->length > 0) {
    double x = fmod(nt0, 1) * k->length;
    t->time = k->speed * o.speed < 0 ? k->length - x : x;
    if (t->sp.play) anim_space_seek(t, t->time);
  }
  /* the layer's weight, its ramp counted from this update's start as the
   * track's ramps are once it starts at `at` (the clock takes `at` off) */
  t->weight = L->weight;
  t->weight.elapsed += at;
  t->ctl_layer = l;
  t->ctl_state = s;
  t->state = TR_QUEUED;
  t->chain.start_at = at;
  anim_track_retain(t);
  L->track = t;
}

/* The triggers of transition i's conditions consumed (in layer l). */
static void consume(anim_controller *c, int l, int i) {
  const anim_gtrans *t = &c->g->trans[i];
  int k;
  for (k = t->cond0; k < t->cond0 + t->ncond; k++)
    if (c->g->ptype[c->g->conds[k].param] == ANIM_GPARAM_TRIGGER)
      c->armed[l * c->g->nparams + c->g->conds[k].param] = 0;
}

/* Layer l goes to state `to` at `at` by transition tr (the graph's index;
 * -2: a force) over dur; fin: the transition whose fade it takes (tr, or
 * where an exit went: exit_to). */
static void go(anim_controller *c, int l, int tr, int fin, int to, double at, double dur) {
  ctl_layer *L = &c->layers[l];
  const anim_gtrans *t = fin >= 0 ? &c->g->trans[fin] : NULL;
  int from = L->cur, interp = t ? t->interp : ANIM_LINEAR, ease = t ? t->ease : 0;
  double nt_from = nt_at(L, L->rate, at), nt0;
  if (tr >= 0) {
    /* (an exit's chain, found before any of its triggers is consumed:
     * each transition's) */
    int chain[ANIM_GRAPH_MAX_DEPTH + 2], n = 0, k;
    chain[n++] = tr;
    while (n < ANIM_GRAPH_MAX_DEPTH + 2 && chain[n - 1] != fin && c->g->trans[chain[n - 1]].to == ANIM_GRAPH_EXIT) {
      int next = exit_to1(c, l, chain[n - 1], at);
      if (next < 0) break;
      chain[n++] = next;
    }
    for (k = 0; k < n; k++) consume(c, l, chain[k]);
  }
  queue(c, l, ANIM_EV_EXIT, at, from, -1);
  queue(c, l, ANIM_EV_TRANSITION, at, to, from);
  if (L->track) {
    stop_at(L->track, at, dur, interp, ease);
    anim_track_release(L->track);
    L->track = NULL;
  }
  L->src = from;
  L->src_rate = L->rate;
  L->src_nt = nt_from;
  L->src_e = at;
  L->tr = tr >= 0 ? tr : fin >= 0 ? fin : -2;
  L->fade_end = at + dur;
  L->fade_dur = dur;
  nt0 = !t ? 0 : t->sync ? nt_from - floor(nt_from) : t->offset;
  enter(c, l, to, at, nt0, dur, interp, ease);
}

/* ---- the stage ------------------------------------------------------------- */

/* Whether layer l, whose search found nothing up to the update's end, finds
 * nothing at later updates either while the parameters, triggers and
 * forces stay as they are: no fade under way, no travel, and none of the
 * transitions it evaluates (the any-state ones around its state, its
 * state's own) has an exit time.  (Triggers only expire meanwhile, which
 * fires nothing new.) */
static int settles(const anim_controller *c, int l) {
  const anim_graph *g = c->g;
  const ctl_layer *L = &c->layers[l];
  const anim_glayer *ly = &g->layers[l];
  const anim_gstate *cs = state_of(c, l, L->cur);
  int i, m = cs->machine, depth;
  if (L->tr != -1 || L->force >= 0 || L->iplan < L->nplan) return 0;
  for (i = cs->tr0; i < cs->tr0 + cs->ntr; i++)
    if (g->trans[i].exit_time >= 0) return 0;
  for (depth = 0; depth <= ANIM_GRAPH_MAX_DEPTH; depth++) {
    const anim_gmachine *mc = &g->machines[m];
    for (i = mc->any0; i < mc->any0 + mc->nany; i++)
      if (g->trans[i].exit_time >= 0) return 0;
    if (mc->state < 0) break;
    m = g->states[ly->state0 + mc->state].machine;
  }
  return 1;
}

void anim_controller_step(anim_controller *c) {
  anim_graph *g = c->g;
  double dt = c->a->dt;
  int l, i;
  c->over = 0;
  c->clash[0] = 0;
  if (c->marked) {
    /* (the marks' entries of this update sort after none of the last's) */
    c->marked = 0;
    for (l = 0; l < g->nlayers; l++) c->marks[l]->last_at = 0;
  }
  for (l = 0; l < g->nlayers; l++) {
    ctl_layer *L = &c->layers[l];
    double e = 0;
    int n;
    if (L->settled > 0) {
      /* nothing may fire and no parameter changed: the state's clock only */
      L->weight.elapsed = anim_finite(L->weight.elapsed + dt);
      L->nt = anim_finite(L->nt + L->rate * dt);
      continue;
    }
    if (!L->started) {
      L->started = 1;
      enter(c, l, g->layers[l].entry, 0, 0, 0, ANIM_LINEAR, 0);
    } else {
      /* (the parameters may have changed since the last update) */
      L->rate = nrate(c, l, L->cur);
      if (L->tr != -1) L->src_rate = nrate(c, l, L->src);
      if (L->track && !L->track->stopping) {
        /* a speed or a blend space's parameters set since the last update */
        const anim_gstate *st = state_of(c, l, L->cur);
        if (st->speed_param >= 0) L->track->speed = isfinite(state_speed(c, st)) ? state_speed(c, st) : 0;
        if (st->space >= 0) {
          double p[2];
          space_at(c, st, p);
          anim_track_set_at(L->track, p);
        }
      }
    }
    if (L->force >= 0) {
      int s = L->force;
      L->force = -1;
      go(c, l, -2, -1, s, 0, L->force_fade);
    }
    for (n = 0; !L->settled && n <= ANIM_GRAPH_MAX_STEPS; n++) {
      pick p;
      const anim_gtrans *t;
      if (L->iplan < L->nplan) {
        /* (a travel whose next step does not leave the current state stops:
         * a force came first) */
        int from = g->trans[L->plan[L->iplan][0]].from;
        if (from >= 0 && from != L->cur) L->nplan = L->iplan = 0;
      }
      p = find(c, l, e, dt);
      if (p.tr < 0) { L->settled = -1; break; }  /* (settled below if nothing can fire later) */
      if (n == ANIM_GRAPH_MAX_STEPS) { c->over |= 1u << (l < 31 ? l : 31); break; }
      t = &g->trans[p.fin];
      if (L->iplan < L->nplan) {
        /* (a travel ignores conditions: it consumes no trigger) */
        L->iplan++;
        go(c, l, -3, p.fin, t->to, p.at, g->durs[t->dur + (t->from < 0 ? L->cur : 0)]);
        if (L->iplan == L->nplan) L->nplan = L->iplan = 0;
      } else {
        go(c, l, p.tr, p.fin, t->to, p.at, g->durs[t->dur + (t->from < 0 ? L->cur : 0)]);
      }
      e = p.at;
    }
    /* on to the update's end */
    L->weight.elapsed = anim_finite(L->weight.elapsed + dt);
    L->nt = nt_at(L, L->rate, dt);
    L->nt_e = 0;
    if (L->tr != -1) {
      L->src_nt = anim_finite(L->src_nt + L->src_rate * (dt - L->src_e));
      L->src_e = 0;
      L->fade_end -= dt;
      if (L->fade_end <= 0) L->tr = -1;
    }
    if (L->settled < 0) L->settled = settles(c, l);
  }
  /* triggers: an unbuffered one lasts its update, a buffered one its
   * seconds (the pass runs while one may be armed) */
  if (!c->armed_any) return;
  c->armed_any = 0;
  for (i = 0; i < g->nparams; i++) {
    if (g->ptype[i] != ANIM_GPARAM_TRIGGER) continue;
    if (c->buffer[i] >= 0) {
      c->buffer[i] -= dt;
      if (c->buffer[i] >= 0) { c->armed_any = 1; continue; }
      c->buffer[i] = -1;
    }
    for (l = 0; l < g->nlayers; l++) c->armed[l * g->nparams + i] = 0;
  }
}
