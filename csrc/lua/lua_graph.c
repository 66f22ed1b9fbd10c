/* lua_graph.c - the Lua binding of state machines (csrc/core/graph.h; the
 * friendly API with its checks and messages is lua/anim/runtime/graph.lua
 * and controller.lua): a graph made from the tables the Lua side compiles
 * a .animgraph description into, an animator's controller, its
 * parameters, its layers' states, and the tracks its updates made given
 * their objects before their callbacks are delivered.  Nothing here runs
 * per frame except what a script calls. */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/blendspace.h"
#include "core/clip.h"
#include "core/graph.h"
#include "lua_helpers.h"

static anim_graph *check_graph(lua_State *L, int idx) {
  anim_graph_box *b = anim_lua_checkbox(L, idx, ANIM_BOX_GRAPH);
  if (!b->g) anim_lua_finalized(L, ANIM_BOX_GRAPH);
  return b->g;
}

/* By the collector or by hand: the controllers running it keep it. */
static int graph_gc(lua_State *L) {
  anim_graph_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_GRAPH);
  anim_graph_release(b->g);
  b->g = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_GRAPH);
  return 0;
}

/* Number k of the record (a list) at idx (read raw). */
static double field(lua_State *L, int idx, int k) {
  double v;
  lua_rawgeti(L, idx, k);
  if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "graph record: number expected at %d", k);
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static int ifield(lua_State *L, int idx, int k) {
  double v = field(L, idx, k);
  if (!(v >= -2 && v <= 1e6) || v != floor(v)) luaL_error(L, "graph record: integer out of range at %d", k);
  return (int)v;
}

/* The records of the list spec[key]: their count, the list left on the
 * stack (its index in *at). */
static int records(lua_State *L, const char *key, int *at) {
  lua_getfield(L, 1, key);
  luaL_checktype(L, -1, LUA_TTABLE);
  *at = lua_gettop(L);
  return (int)lua_rawlen(L, *at);
}

/* Each record i of the list at idx, on the stack for fill. */
#define EACH(L, idx, n, i) for (i = 0; i < (n) && (lua_rawgeti(L, idx, i + 1), luaL_checktype(L, -1, LUA_TTABLE), 1); i++, lua_pop(L, 1))

/* core.graph_new(spec, info) -> graph: spec = { params = { {type,
 * default} }, layers = { {state0, nstates, machine0, entry, weight,
 * priority} }, machines = { {state, any0, nany} }, states = { {machine,
 * child, space, at0, at1, clip, loop, speed, speed_param, tr0, ntr} },
 * trans = { {from, to, cond0, ncond, dur, exit_time, offset, interp, ease,
 * sync, interrupt, can_self} }, conds = { {param, op, value} }, durs = {
 * d }, clips = { clip }, spaces = { space } }, every index 0-based (-1:
 * none); info: its user
 * value.  A spec the Lua side did not make raises. */
static int graph_new(lua_State *L) {
  anim_graph_counts n;
  anim_graph_box *b;
  anim_graph *g;
  anim_mem m = anim_lua_mem(L);
  int ip, il, is, it, ic, id, ik, im, isp, i;
  const char *why;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  n.nparams = records(L, "params", &ip);
  n.nlayers = records(L, "layers", &il);
  n.nstates = records(L, "states", &is);
  n.ntrans = records(L, "trans", &it);
  n.nconds = records(L, "conds", &ic);
  n.ndurs = records(L, "durs", &id);
  n.nclips = records(L, "clips", &ik);
  n.nmachines = records(L, "machines", &im);
  n.nspaces = records(L, "spaces", &isp);
  for (i = 0; i < n.nspaces; i++) {
    lua_rawgeti(L, isp, i + 1);
    anim_lua_checkspace(L, -1);
    lua_pop(L, 1);
  }
  for (i = 0; i < n.nclips; i++) {
    lua_rawgeti(L, ik, i + 1);
    anim_lua_checkclip(L, -1);
    lua_pop(L, 1);
  }
  b = anim_lua_newbox(L, ANIM_BOX_GRAPH, sizeof *b, 1);
  ANIM_LUA_RETRY(L, g, anim_graph_new(&m, &n));
  if (!g) return anim_lua_nomem(L);
  b->g = g;
  EACH(L, ip, n.nparams, i) {
    g->ptype[i] = (unsigned char)ifield(L, -1, 1);
    g->pdefault[i] = field(L, -1, 2);
  }
  EACH(L, il, n.nlayers, i) {
    anim_glayer *y = &g->layers[i];
    y->state0 = ifield(L, -1, 1);
    y->nstates = ifield(L, -1, 2);
    y->machine0 = ifield(L, -1, 3);
    y->entry = ifield(L, -1, 4);
    y->weight = field(L, -1, 5);
    y->priority = field(L, -1, 6);
  }
  EACH(L, im, n.nmachines, i) {
    anim_gmachine *mc = &g->machines[i];
    mc->state = ifield(L, -1, 1);
    mc->any0 = ifield(L, -1, 2);
    mc->nany = ifield(L, -1, 3);
  }
  EACH(L, is, n.nstates, i) {
    anim_gstate *s = &g->states[i];
    s->machine = ifield(L, -1, 1);
    s->child = ifield(L, -1, 2);
    s->space = ifield(L, -1, 3);
    s->at[0] = ifield(L, -1, 4);
    s->at[1] = ifield(L, -1, 5);
    s->clip = ifield(L, -1, 6);
    s->loop = ifield(L, -1, 7);
    s->speed = field(L, -1, 8);
    s->speed_param = ifield(L, -1, 9);
    s->tr0 = ifield(L, -1, 10);
    s->ntr = ifield(L, -1, 11);
  }
  EACH(L, it, n.ntrans, i) {
    anim_gtrans *t = &g->trans[i];
    t->from = ifield(L, -1, 1);
    t->to = ifield(L, -1, 2);
    t->cond0 = ifield(L, -1, 3);
    t->ncond = ifield(L, -1, 4);
    t->dur = ifield(L, -1, 5);
    t->exit_time = field(L, -1, 6);
    t->offset = field(L, -1, 7);
    t->interp = ifield(L, -1, 8);
    t->ease = ifield(L, -1, 9);
    t->sync = (unsigned char)(ifield(L, -1, 10) != 0);
    t->interrupt = (unsigned char)ifield(L, -1, 11);
    t->can_self = (unsigned char)(ifield(L, -1, 12) != 0);
  }
  EACH(L, ic, n.nconds, i) {
    anim_gcond *c = &g->conds[i];
    c->param = ifield(L, -1, 1);
    c->op = ifield(L, -1, 2);
    c->value = field(L, -1, 3);
  }
  for (i = 0; i < n.ndurs; i++) g->durs[i] = field(L, id, i + 1);
  for (i = 0; i < n.nclips; i++) {
    lua_rawgeti(L, ik, i + 1);
    anim_graph_set_clip(g, i, anim_lua_checkclip(L, -1));
    lua_pop(L, 1);
  }
  for (i = 0; i < n.nspaces; i++) {
    lua_rawgeti(L, isp, i + 1);
    anim_graph_set_space(g, i, anim_lua_checkspace(L, -1));
    lua_pop(L, 1);
  }
  if ((why = anim_graph_check(g)) != NULL) return luaL_error(L, "graph: %s", why);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* core.graph_info(graph) -> its info (its user value) */
static int graph_info(lua_State *L) {
  check_graph(L, 1);
  lua_getiuservalue(L, 1, 1);
  return 1;
}

static anim_controller *check_controller(lua_State *L, int idx) {
  anim_controller *c = anim_animator_controller(anim_lua_checkanimator(L, idx));
  if (!c) luaL_error(L, "the animator has no controller");
  return c;
}

/* core.controller_new(animator, graph, bindings, mark_clip, cbs) -> {
 * track, ... }: bindings, in the graph's state order, the bindings of
 * each state's clip on the animator's rig for its layer (a blend space's
 * state: of each point's clip in turn; others: none); the tracks that
 * carry each layer's entries, their callbacks tables cbs[l]. */
#define MAX_LISTS 4096
/* The bindings at stack index arg (a table, in the graph's state order)
 * into binds and nbind, checked against the clips and rig; the arrays
 * read stay on the stack while they are used. */
static void read_bindings(lua_State *L, const anim_graph *g, int nrig, int arg, const anim_binding **binds, int *nbind) {
  int i, k = 0;
  luaL_checktype(L, arg, LUA_TTABLE);
  for (i = 0; i < g->nstates; i++) {
    const anim_gstate *s = &g->states[i];
    int np = anim_graph_state_lists(g, i), j;
    luaL_argcheck(L, k + np <= MAX_LISTS, 2, "too many clips in the graph's states");
    luaL_checkstack(L, np + 8, "too many states");
    for (j = 0; j < np; j++, k++) {
      const anim_clip *cl = s->space >= 0 ? g->spaces[s->space]->clip[j] : g->clips[s->clip];
      lua_rawgeti(L, arg, k + 1);
      binds[k] = anim_lua_checkbindings(L, -1, cl->njoints, cl->gen, nrig, &nbind[k]);
      if (!binds[k]) luaL_error(L, "a clip of the graph was reloaded while its bindings were made");
      lua_replace(L, -2);  /* (the bindings' array stays on the stack while they are read) */
    }
  }
}

static int controller_new(lua_State *L) {
  const anim_binding *binds[MAX_LISTS];
  int nbind[MAX_LISTS], i, nl;
  anim_graph *g = check_graph(L, 2);
  anim_animator *a = anim_lua_checkanimator(L, 1);
  const anim_clip *mark = anim_lua_checkclip(L, 4);
  anim_controller *c;
  luaL_checktype(L, 5, LUA_TTABLE);
  nl = g->nlayers;
  read_bindings(L, g, anim_animator_rig(a)->n, 3, binds, nbind);
  ANIM_LUA_RETRY(L, c, anim_controller_new(anim_lua_checkanimator(L, 1), check_graph(L, 2), binds, nbind, mark));
  if (!c) return anim_lua_nomem(L);
  lua_createtable(L, nl, 0);
  for (i = 0; i < nl; i++) {
    int box = anim_lua_newtrack(L);
    anim_controller *now = anim_animator_controller(anim_lua_checkanimator(L, 1));
    if (now != c) return luaL_error(L, "the controller went while it was made");
    lua_rawgeti(L, 5, i + 1);
    anim_lua_settrack(L, box, anim_controller_mark(c, i), 2, 1, lua_gettop(L));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* core.animator_spares(animator) -> the blocks it keeps for its state
 * machine's next tracks (a test's view) */
static int animator_spares(lua_State *L) {
  lua_pushinteger(L, anim_animator_spares(anim_lua_checkanimator(L, 1)));
  return 1;
}

/* core.controller_rebind(animator, bindings): the bindings of its graph's
 * states again (as controller_new takes them), after a clip's reload */
static int controller_rebind(lua_State *L) {
  const anim_binding *binds[MAX_LISTS];
  int nbind[MAX_LISTS];
  anim_animator *a = anim_lua_checkanimator(L, 1);
  anim_controller *c = check_controller(L, 1);
  read_bindings(L, anim_controller_graph(c), anim_animator_rig(a)->n, 2, binds, nbind);
  if (anim_animator_controller(a) != c) return luaL_error(L, "the controller went while it was rebound");
  if (!anim_controller_rebind(c, binds, nbind)) return anim_lua_nomem(L);
  return 0;
}

/* core.controller_param(animator, i [, v]) -> v: parameter i (0-based)
 * read, or set to v (the Lua side checked its type). */
static int controller_param(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int i = (int)luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 0 && i < anim_controller_graph(c)->nparams, 2, "no such parameter");
  if (!lua_isnoneornil(L, 3)) anim_controller_set(c, i, luaL_checknumber(L, 3));
  lua_pushnumber(L, anim_controller_get(c, i));
  return 1;
}

/* core.controller_fire(animator, i, buffer) (buffer < 0: none) */
static int controller_fire(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int i = (int)luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 0 && i < anim_controller_graph(c)->nparams, 2, "no such parameter");
  anim_controller_fire(c, i, luaL_checknumber(L, 3));
  return 0;
}

static int check_layer(lua_State *L, const anim_controller *c, int arg) {
  int l = (int)luaL_checkinteger(L, arg);
  luaL_argcheck(L, l >= 0 && l < anim_controller_graph(c)->nlayers, arg, "no such layer");
  return l;
}

/* core.controller_current(animator, l) -> state, normalized time */
static int controller_current(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  double nt;
  int s = anim_controller_current(c, check_layer(L, c, 2), &nt);
  lua_pushinteger(L, s);
  lua_pushnumber(L, nt);
  return 2;
}

/* core.controller_transition(animator, l) -> transition (-2: a force),
 * from, progress | nothing */
static int controller_transition(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int from = 0;
  double progress = 0;
  int tr = anim_controller_transition(c, check_layer(L, c, 2), &from, &progress);
  if (tr == -1) return 0;
  lua_pushinteger(L, tr);
  lua_pushinteger(L, from);
  lua_pushnumber(L, progress);
  return 3;
}

/* core.controller_force(animator, l, s, fade) */
static int controller_force(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int l = check_layer(L, c, 2), s = (int)luaL_checkinteger(L, 3);
  luaL_argcheck(L, s >= 0 && s < anim_controller_graph(c)->layers[l].nstates, 3, "no such state");
  anim_controller_force(c, l, s, luaL_checknumber(L, 4));
  return 0;
}

/* core.controller_travel(animator, l, { tr, ... }, { fin, ... }) -> true |
 * false (a transition out of range, or too many) */
static int controller_travel(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int l = check_layer(L, c, 2), tr[ANIM_GRAPH_MAX_TRAVEL], fin[ANIM_GRAPH_MAX_TRAVEL], n, k;
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  n = (int)lua_rawlen(L, 3);
  if (n > ANIM_GRAPH_MAX_TRAVEL || (int)lua_rawlen(L, 4) != n) { lua_pushboolean(L, 0); return 1; }
  for (k = 0; k < n; k++) {
    tr[k] = ifield(L, 3, k + 1);
    fin[k] = ifield(L, 4, k + 1);
  }
  lua_pushboolean(L, anim_controller_travel(c, l, tr, fin, n));
  return 1;
}

/* core.controller_weight(animator, l, w, fade) */
static int controller_weight(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  int l = check_layer(L, c, 2);
  anim_controller_weight(c, l, luaL_checknumber(L, 3), luaL_checknumber(L, 4));
  return 0;
}

/* The integer fields of a layer's saved numbers, then the doubles, in the
 * order of core.controller_save's records. */
#define LAYER_INTS(X) X(started) X(cur) X(tr) X(src) X(force) X(nplan) X(iplan)
#define LAYER_NUMS(X) X(nt) X(src_nt) X(fade_end) X(fade_dur) X(force_fade)

/* core.controller_save(animator) -> { params = { v }, buffers = { b },
 * armed = { { 0 | 1 per parameter } per layer }, layers = { { started,
 * cur, tr, src, force, nplan, iplan, nt, src_nt, fade_end, fade_dur,
 * force_fade, w1, w2, w3, w4, track id (-1: none), plan = { tr, fin, ...
 * } } } } (indices 0-based) */
static int controller_save(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  const anim_graph *g = anim_controller_graph(c);
  int i, l, k;
  lua_createtable(L, 0, 4);
  lua_createtable(L, g->nparams, 0);
  lua_createtable(L, g->nparams, 0);
  for (i = 0; i < g->nparams; i++) {
    lua_pushnumber(L, anim_controller_get(c, i));
    lua_rawseti(L, -3, i + 1);
    lua_pushnumber(L, anim_controller_buffer(c, i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -3, "buffers");
  lua_setfield(L, -2, "params");
  lua_createtable(L, g->nlayers, 0);
  lua_createtable(L, g->nlayers, 0);
  for (l = 0; l < g->nlayers; l++) {
    anim_ctl_layer_state s;
    long long id;
    int n = 0;
    lua_createtable(L, g->nparams, 0);
    for (i = 0; i < g->nparams; i++) {
      lua_pushinteger(L, anim_controller_armed(c, l, i));
      lua_rawseti(L, -2, i + 1);
    }
    lua_rawseti(L, -3, l + 1);
    anim_controller_layer_save(c, l, &s, &id);
    lua_createtable(L, 17, 1);
#define PUT(f) lua_pushinteger(L, s.f); lua_rawseti(L, -2, ++n);
#define PUTN(f) lua_pushnumber(L, s.f); lua_rawseti(L, -2, ++n);
    LAYER_INTS(PUT)
    LAYER_NUMS(PUTN)
#undef PUT
#undef PUTN
    for (k = 0; k < 4; k++) { lua_pushnumber(L, s.weight[k]); lua_rawseti(L, -2, ++n); }
    lua_pushnumber(L, (lua_Number)id);
    lua_rawseti(L, -2, ++n);
    lua_createtable(L, 2 * s.nplan, 0);
    for (k = 0; k < s.nplan; k++) {
      lua_pushinteger(L, s.plan[k][0]);
      lua_rawseti(L, -2, 2 * k + 1);
      lua_pushinteger(L, s.plan[k][1]);
      lua_rawseti(L, -2, 2 * k + 2);
    }
    lua_setfield(L, -2, "plan");
    lua_rawseti(L, -2, l + 1);
  }
  lua_setfield(L, -3, "layers");
  lua_setfield(L, -2, "armed");
  return 1;
}

/* core.controller_load(animator, saved, tracks) -> nil | (layer, what is
 * out of range): saved as controller_save gives it, its track ids
 * replaced by tracks[l] (a track of the animator, or false); triggers
 * armed and parameters too (the Lua side checked every type). */
static int controller_load(lua_State *L) {
  anim_controller *c = check_controller(L, 1);
  const anim_graph *g = anim_controller_graph(c);
  int i, l, k;
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  for (l = 0; l < g->nlayers; l++) {
    anim_ctl_layer_state s;
    anim_track *t = NULL;
    const char *why;
    int n = 0, top = lua_gettop(L);
    memset(&s, 0, sizeof s);
    lua_getfield(L, 2, "layers");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_rawgeti(L, -1, l + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
#define GET(f) s.f = ifield(L, -1, ++n);
#define GETN(f) s.f = field(L, -1, ++n);
    LAYER_INTS(GET)
    LAYER_NUMS(GETN)
#undef GET
#undef GETN
    for (k = 0; k < 4; k++) s.weight[k] = field(L, -1, ++n);
    lua_getfield(L, -1, "plan");
    luaL_checktype(L, -1, LUA_TTABLE);
    if (s.nplan < 0 || s.nplan > ANIM_GRAPH_MAX_TRAVEL || (int)lua_rawlen(L, -1) != 2 * s.nplan) {
      lua_pushinteger(L, l + 1);
      lua_pushliteral(L, "travel");
      return 2;
    }
    for (k = 0; k < s.nplan; k++) {
      s.plan[k][0] = ifield(L, -1, 2 * k + 1);
      s.plan[k][1] = ifield(L, -1, 2 * k + 2);
    }
    lua_rawgeti(L, 3, l + 1);
    if (lua_toboolean(L, -1)) t = anim_lua_checktrack(L, lua_gettop(L));
    if ((why = anim_controller_layer_load(c, l, &s, t)) != NULL) {
      lua_pushinteger(L, l + 1);
      lua_pushstring(L, why);
      return 2;
    }
    lua_settop(L, top);
  }
  lua_getfield(L, 2, "params");
  lua_getfield(L, 2, "buffers");
  lua_getfield(L, 2, "armed");
  for (i = 0; i < g->nparams; i++) {
    if (g->ptype[i] != ANIM_GPARAM_TRIGGER) { anim_controller_set(c, i, field(L, -3, i + 1)); continue; }
    for (l = 0; l < g->nlayers; l++) {
      lua_rawgeti(L, -1, l + 1);
      anim_controller_set_trigger(c, l, i, ifield(L, -1, i + 1), field(L, -3, i + 1));
      lua_pop(L, 1);
    }
  }
  return 0;
}

/* core.controller_hear(animator, mask): which entries are queued (bits:
 * 1 exit, 2 transition, 4 enter) */
static int controller_hear(lua_State *L) {
  anim_controller_hear(check_controller(L, 1), (unsigned)luaL_checkinteger(L, 2));
  return 0;
}

/* core.controller_clash(animator) -> nil | layer, state, point, property,
 * components: the first state its last update entered with no track, its
 * clip's property having another number of components than a track on the
 * animator gives it (graph.h, anim_controller_clash; 1-based: the
 * layer's state, the blend space's point (1 for a clip state), the clip's
 * property) */
static int controller_clash(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  const int *k = anim_animator_controller(a) ? anim_controller_clash(anim_animator_controller(a)) : NULL;
  int i;
  if (!k) return 0;
  for (i = 0; i < 4; i++) lua_pushinteger(L, k[i] + (i > 0));
  lua_pushinteger(L, k[4]);
  return 5;
}

/* core.controller_detach(animator) */
static int controller_detach(lua_State *L) {
  anim_animator_detach(anim_lua_checkanimator(L, 1));
  return 0;
}

/* core.controller_adopt(animator, clips, live, cbs, srcs, notes, marks,
 * all) -> over: the tracks the controller started that have no object yet
 * (graph.h: with entries queued only, unless `all`) get one (a box, its
 * source clips[graph state + 1] and a new callbacks table), their places
 * in the animator's live tracks (live[id], cbs[id], srcs[id]: the Lua
 * side's st.live, st.cbs, st.src, as play gives them), their notes for a
 * hot reload (notes[graph state + 1]: { set, entry, ... }, each
 * set[box] = entry: runtime/playing.lua), marks(box) for a clip state's
 * clip that has items (its marker tables: runtime/dispatch.lua) and their
 * slots; the queue's entries then find their slots.  Returns the layers
 * (bits) that had more transitions than an update takes.  A track nobody
 * asks for costs no object: most of a controller's never get one. */
static int controller_adopt(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  const anim_animator_box *b = lua_touserdata(L, 1);
  int all = lua_toboolean(L, 8), i = 0, k, layer, state;
  anim_track *t;
  unsigned over = anim_animator_controller(a) ? anim_controller_over(anim_animator_controller(a)) : 0;
  for (k = 2; k <= 6; k++) luaL_checktype(L, k, LUA_TTABLE);
  luaL_checktype(L, 7, LUA_TFUNCTION);
  lua_settop(L, 7);
  /* (the animator is read again from its box at every track: making a box
   * or a table may run finalizers, and one may finalize the animator --
   * one a clip's reload hosts from the weak list of controllers may be
   * garbage already, its finalizer pending -- which frees it, its
   * controller and maybe its graph: then nothing more is hosted) */
  while ((a = b->a) != NULL && (t = anim_animator_unhosted(a, !all, &i, &layer, &state)) != NULL) {
    const anim_graph *g = anim_animator_controller(a) ? anim_controller_graph(anim_animator_controller(a)) : NULL;
    int box, gs, notes, items;
    lua_Integer id = (lua_Integer)anim_track_id(t);
    if (!g || layer >= g->nlayers || state < 0 || state >= g->layers[layer].nstates) break;
    gs = g->layers[layer].state0 + state;
    items = g->states[gs].space < 0 && anim_track_clip(t)->nitems > 0;
    anim_track_retain(t);  /* (making the box may run finalizers) */
    box = anim_lua_newtrack(L);
    lua_rawgeti(L, 2, gs + 1);            /* box + 1: the source */
    lua_newtable(L);                      /* box + 2: the callbacks */
    anim_lua_pushslots(L);                /* (made now if new: anim_lua_slot makes nothing) */
    lua_pop(L, 1);
    /* A finalizer those ran may have hosted t already: a clip's reload
     * hosts every controller's tracks (runtime/reload.lua), this one's
     * too.  Then it keeps that object (two would both own its slot), and
     * from here to its slot nothing runs the collector: t is hosted before
     * any finalizer can start another host. */
    if (b->a != a || anim_track_slot(t) != 0) {
      anim_track_release(t);
      lua_settop(L, 7);
      continue;
    }
    anim_lua_bindtrack(L, box, t, box + 1, 1, box + 2);
    anim_track_release(t);
    lua_pushvalue(L, box);
    lua_rawseti(L, 3, id);
    lua_pushvalue(L, box + 2);
    lua_rawseti(L, 4, id);
    lua_pushvalue(L, box + 1);
    lua_rawseti(L, 5, id);
    notes = lua_rawgeti(L, 6, gs + 1) == LUA_TTABLE ? lua_gettop(L) : 0;
    for (k = 1; notes && lua_rawgeti(L, notes, k) == LUA_TTABLE; k += 2) {
      lua_pushvalue(L, box);
      lua_rawgeti(L, notes, k + 1);
      lua_rawset(L, -3);
      lua_pop(L, 1);
    }
    lua_settop(L, box + 2);
    anim_lua_slot(L, box);
    /* (the finalizers may run from here) */
    anim_lua_account(L, b->acct);
    if (items) {  /* (the marker tables reach the slot: anim_lua_set_dispatch) */
      lua_pushvalue(L, 7);
      lua_pushvalue(L, box);
      lua_call(L, 1, 0);
    }
    lua_settop(L, 7);
  }
  if (b->a) anim_animator_reslot(b->a);
  lua_pushinteger(L, (lua_Integer)over);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"graph_new", graph_new},
  {"graph_info", graph_info},
  {"controller_new", controller_new},
  {"controller_param", controller_param},
  {"controller_fire", controller_fire},
  {"controller_current", controller_current},
  {"controller_transition", controller_transition},
  {"controller_force", controller_force},
  {"controller_detach", controller_detach},
  {"controller_travel", controller_travel},
  {"controller_hear", controller_hear},
  {"controller_clash", controller_clash},
  {"controller_save", controller_save},
  {"controller_load", controller_load},
  {"controller_weight", controller_weight},
  {"controller_adopt", controller_adopt},
  {"controller_rebind", controller_rebind},
  {"animator_spares", animator_spares},
  {NULL, NULL}
};

void anim_lua_open_graph(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_GRAPH, graph_gc, "graph_metatable");
  luaL_setfuncs(L, funcs, 0);
}
