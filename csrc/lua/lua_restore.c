/* lua_restore.c - an animator's saved state restored (core/state.h): a
 * plan of numbers, clips and bindings, checked by the Lua side
 * (lua/anim/runtime/state.lua), built into a new animator that takes the
 * place of the old one in its box only once every part of it is made.
 * Numbers travel as flat arrays in the order of core.state_fields
 * (lua_state.c), read with lua_rawgeti: nothing is allocated while they
 * are read. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "core/state.h"
#include "core/skin.h"
#include "core/world2d.h"
#include "lua_helpers.h"

/* A count at idx: a decimal string of digits (what the Lua side passes:
 * exact on every runtime), or a whole number, within [0, LLONG_MAX].  0
 * when it is neither; nothing is allocated. */
static int to_count(lua_State *L, int idx, long long *out) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t len, i;
    const char *s = lua_tolstring(L, idx, &len);
    unsigned long long v = 0;
    /* (19 digits fit an unsigned 64-bit number: the range is checked after) */
    if (len == 0 || len > 19) return 0;
    for (i = 0; i < len; i++) {
      if (s[i] < '0' || s[i] > '9') return 0;
      v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > (unsigned long long)LLONG_MAX) return 0;
    *out = (long long)v;
    return 1;
  }
  if (lua_type(L, idx) == LUA_TNUMBER) {
    double v;
    if (lua_isinteger(L, idx)) {
      lua_Integer k = lua_tointeger(L, idx);
      if (k < 0) return 0;
      *out = (long long)k;
      return 1;
    }
    /* (compared as a double: no cast before the range is known) */
    v = lua_tonumber(L, idx);
    if (!(v == floor(v) && v >= 0 && v < 9223372036854775808.0)) return 0;
    *out = (long long)v;
    return 1;
  }
  return 0;
}

/* The flat array at idx into struct s (fields f): numbers, and counts as
 * to_count reads them, raw (the Lua side made it); 0 when one is missing
 * or not of its kind. */
static int read_flat(lua_State *L, int idx, const anim_state_field *f, void *s) {
  int i, k, at = 0, ok = 1;
  for (i = 0; f[i].name; i++) {
    char *p = (char *)s + f[i].off;
    for (k = 0; k < f[i].n; k++) {
      double v;
      lua_rawgeti(L, idx, ++at);
      if (f[i].kind == ANIM_SF_COUNT) {
        long long c = 0;
        ok = ok && to_count(L, -1, &c);
        ((long long *)(void *)p)[k] = c;
        lua_pop(L, 1);
        continue;
      }
      ok = ok && lua_type(L, -1) == LUA_TNUMBER;
      v = lua_tonumber(L, -1);
      lua_pop(L, 1);
      if (f[i].kind == ANIM_SF_NUM) { ((double *)(void *)p)[k] = v; continue; }
      /* (compared as doubles: no cast before the range is known) */
      if (!(v == floor(v) && v >= -2147483647.0 && v <= 2147483647.0)) { ok = 0; v = 0; }
      ((int *)(void *)p)[k] = (int)v;
    }
  }
  return ok;
}

/* ---- restoring ------------------------------------------------------------ */

/* The plan's sizes, read before anything is made. */
typedef struct {
  int nlead, npoints, nprops, ncomp, nov, nik, nrig;
} plan_size;

/* What the build reads, in one userdata (freed by the collector). */
typedef struct {
  anim_state_in in;
  anim_state_lead *lead;
  anim_track_state *points;
  const anim_binding **binds;  /* npoints */
  int *nbind;                  /* npoints */
  double *pose;
  int *animated;
  anim_state_prop *props;
  double *comp;
  long long *ov_id, *ik_id;
  anim_override *ov;
  anim_ik_desc *ik;
  anim_track **made;           /* nlead */
} plan_mem;

static lua_Integer raw_len_field(lua_State *L, int t, const char *k) {
  lua_Integer n;
  lua_getfield(L, t, k);
  n = lua_type(L, -1) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, -1) : -1;
  lua_pop(L, 1);
  return n;
}

#define MAX_PLAN 1000000
/* (the binding's own refusal, beside the ANIM_STATE_* codes) */
#define RESTORE_DELIVERING 6
#define RESTORE_QUEUED 7
/* (a clip of the plan reloaded since its bindings were made: the Lua side
 * makes the plan again) */
#define RESTORE_STALE 8
#define PLAN_STALE (-1)

/* The length of plan[field] (a list), and the sum over its entries of the
 * lengths of entry[sub], each in [lo, hi] (raises otherwise: the Lua side
 * made the plan). */
static int plan_list(lua_State *L, const char *field, const char *sub, lua_Integer lo, lua_Integer hi,
                     int *total) {
  lua_Integer i, n = raw_len_field(L, 2, field);
  if (n < 0 || n > MAX_PLAN) luaL_error(L, "state plan: bad %s", field);
  if (!sub) return (int)n;
  lua_getfield(L, 2, field);
  for (i = 1; i <= n; i++) {
    lua_Integer k;
    lua_rawgeti(L, -1, i);
    luaL_checktype(L, -1, LUA_TTABLE);
    k = raw_len_field(L, lua_gettop(L), sub);
    if (k < lo || k > hi) luaL_error(L, "state plan: bad %s", field);
    *total += (int)k;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return (int)n;
}

/* The sizes of the plan at 2. */
static void plan_sizes(lua_State *L, plan_size *z) {
  memset(z, 0, sizeof *z);
  z->nlead = plan_list(L, "leads", "points", 1, ANIM_MAX_SPACE_POINTS, &z->npoints);
  z->nprops = plan_list(L, "properties", "v", 0, ANIM_MAX_PROP_ARITY, &z->ncomp);
  z->nov = plan_list(L, "overrides", NULL, 0, 0, NULL);
  z->nik = plan_list(L, "constraints", NULL, 0, 0, NULL);
}

static size_t up(size_t x) { return (x + 15) / 16 * 16; }

/* The plan's memory, carved from one new userdata (pushed). */
static plan_mem *plan_alloc(lua_State *L, const plan_size *z) {
  size_t o = up(sizeof(plan_mem)), o_lead, o_pts, o_binds, o_nbind, o_pose, o_anim, o_props, o_comp, o_ovid,
         o_ikid, o_ov, o_ik, o_made;
  char *m;
  plan_mem *p;
  o_lead = o; o += up(sizeof(anim_state_lead) * (size_t)z->nlead);
  o_pts = o; o += up(sizeof(anim_track_state) * (size_t)z->npoints);
  o_binds = o; o += up(sizeof(anim_binding *) * (size_t)z->npoints);
  o_nbind = o; o += up(sizeof(int) * (size_t)z->npoints);
  o_pose = o; o += up(sizeof(double) * 10 * (size_t)z->nrig);
  o_anim = o; o += up(sizeof(int) * (size_t)z->nrig);
  o_props = o; o += up(sizeof(anim_state_prop) * (size_t)z->nprops);
  o_comp = o; o += up(sizeof(double) * (size_t)z->ncomp);
  o_ovid = o; o += up(sizeof(long long) * (size_t)z->nov);
  o_ikid = o; o += up(sizeof(long long) * (size_t)z->nik);
  o_ov = o; o += up(sizeof(anim_override) * (size_t)z->nov);
  o_ik = o; o += up(sizeof(anim_ik_desc) * (size_t)z->nik);
  o_made = o; o += up(sizeof(anim_track *) * (size_t)z->nlead);
  m = lua_newuserdatauv(L, o, 0);
  memset(m, 0, o);
  p = (plan_mem *)(void *)m;
  p->lead = (anim_state_lead *)(void *)(m + o_lead);
  p->points = (anim_track_state *)(void *)(m + o_pts);
  p->binds = (const anim_binding **)(void *)(m + o_binds);
  p->nbind = (int *)(void *)(m + o_nbind);
  p->pose = (double *)(void *)(m + o_pose);
  p->animated = (int *)(void *)(m + o_anim);
  p->props = (anim_state_prop *)(void *)(m + o_props);
  p->comp = (double *)(void *)(m + o_comp);
  p->ov_id = (long long *)(void *)(m + o_ovid);
  p->ik_id = (long long *)(void *)(m + o_ikid);
  p->ov = (anim_override *)(void *)(m + o_ov);
  p->ik = (anim_ik_desc *)(void *)(m + o_ik);
  p->made = (anim_track **)(void *)(m + o_made);
  return p;
}

static double num_at(lua_State *L, int t, int i, int *ok) {
  double v;
  lua_rawgeti(L, t, i);
  if (lua_type(L, -1) != LUA_TNUMBER) *ok = 0;
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* The id of an override or constraint at t: its digits. */
static long long id_at(lua_State *L, int t, int *ok) {
  long long c = 0;
  lua_getfield(L, t, "digits");
  if (!to_count(L, -1, &c)) *ok = 0;
  lua_pop(L, 1);
  return c;
}

static int int_at(lua_State *L, int t, int i, int *ok) {
  double v = num_at(L, t, i, ok);
  if (!(v == floor(v) && v >= -2147483647.0 && v <= 2147483647.0)) { *ok = 0; return 0; }
  return (int)v;
}

/* The clip or space of lead i (its box at src in the lead table li);
 * a finalized one: 0. */
static int lead_source(lua_State *L, int li, anim_state_lead *l) {
  int ok = 1;
  lua_getfield(L, li, "src");
  l->clip = NULL;
  l->space = NULL;
  if (anim_lua_testbox_any(L, -1, ANIM_BOX_SPACE)) {
    anim_space_box *b = lua_touserdata(L, -1);
    l->space = b->s;
    ok = b->s != NULL;
  } else if (anim_lua_testbox_any(L, -1, ANIM_BOX_CLIP)) {
    anim_clip_box *b = lua_touserdata(L, -1);
    l->clip = b->clip;
    ok = b->clip != NULL;
  } else {
    ok = 0;
  }
  lua_pop(L, 1);
  return ok;
}

/* The leads of the plan (its field leads at lt) into p: 0 when one is not
 * of the shape the Lua side makes or its source was finalized.  *ok is
 * cleared for a number that is not one, *stale set when a clip was
 * reloaded since its bindings (the table at binds) were made. */
static int fill_leads(lua_State *L, plan_mem *p, const plan_size *z, int binds, int lt, int *ok, int *stale) {
  int i, k, pt = 0;
  for (i = 0; i < z->nlead; i++) {
    anim_state_lead *l = &p->lead[i];
    int li, n, np;
    lua_rawgeti(L, lt, i + 1);
    li = lua_gettop(L);
    if (!lead_source(L, li, l)) return 0;
    n = l->space ? l->space->n : 1;
    np = (int)raw_len_field(L, li, "points");
    if (np != n) return 0;
    lua_getfield(L, li, "after");
    {
      double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -2;
      l->after = v >= -1 && v < z->nlead && v == floor(v) ? (int)v : -2;
    }
    lua_getfield(L, li, "digits");
    if (!to_count(L, -1, &l->id)) l->id = -1;
    lua_getfield(L, li, "at");
    if (lua_type(L, -1) == LUA_TTABLE) {
      l->at[0] = num_at(L, lua_gettop(L), 1, ok);
      l->at[1] = num_at(L, lua_gettop(L), 2, ok);
    }
    lua_settop(L, li);
    l->points = &p->points[pt];
    l->binds = &p->binds[pt];
    l->nbind = &p->nbind[pt];
    lua_getfield(L, li, "points");
    for (k = 0; k < n; k++, pt++) {
      lua_rawgeti(L, li + 1, k + 1);
      if (lua_type(L, -1) != LUA_TTABLE || !read_flat(L, lua_gettop(L), anim_track_state_fields, &p->points[pt]))
        *ok = 0;
      lua_pop(L, 1);
      /* the binding arrays were made before (anim_lua_checkbindings),
       * for the content the clip had then (a finalizer may have reloaded
       * it since) */
      lua_rawgeti(L, binds, 3 * pt + 1);
      p->binds[pt] = lua_touserdata(L, -1);
      lua_rawgeti(L, binds, 3 * pt + 2);
      p->nbind[pt] = (int)lua_tointeger(L, -1);
      lua_rawgeti(L, binds, 3 * pt + 3);
      if ((l->space ? l->space->clip[k] : l->clip)->gen != (unsigned)lua_tointeger(L, -1)) *stale = 1;
      lua_pop(L, 3);
    }
    lua_settop(L, lt);
  }
  return 1;
}

/* The properties of the plan (at pt) into p: 0 when a name is no string. */
static int fill_props(lua_State *L, plan_mem *p, const plan_size *z, int pt, int *ok) {
  int i, k, c = 0;
  for (i = 0; i < z->nprops; i++) {
    anim_state_prop *q = &p->props[i];
    int pi;
    lua_rawgeti(L, pt, i + 1);
    pi = lua_gettop(L);
    lua_getfield(L, pi, "name");
    if (lua_type(L, -1) != LUA_TSTRING) return 0;
    /* (the plan at 2 holds the string: its bytes stay put) */
    q->name = lua_tolstring(L, -1, &q->len);
    lua_getfield(L, pi, "v");
    q->arity = (int)lua_rawlen(L, -1);
    q->v = &p->comp[c];
    for (k = 0; k < q->arity; k++) p->comp[c++] = num_at(L, pi + 2, k + 1, ok);
    lua_settop(L, pt);
  }
  return 1;
}

/* The overrides of the plan (at ot) into p: 0 when one is no table. */
static int fill_overrides(lua_State *L, plan_mem *p, const plan_size *z, int ot, int *ok) {
  int i, k;
  for (i = 0; i < z->nov; i++) {
    anim_override *o = &p->ov[i];
    int t;
    lua_rawgeti(L, ot, i + 1);
    t = lua_gettop(L);
    if (lua_type(L, t) != LUA_TTABLE) return 0;
    p->ov_id[i] = id_at(L, t, ok);
    o->joint = int_at(L, t, 2, ok);
    o->mode = int_at(L, t, 3, ok);
    o->channels = int_at(L, t, 4, ok);
    o->weight = num_at(L, t, 5, ok);
    for (k = 0; k < 3; k++) o->pos[k] = num_at(L, t, 6 + k, ok);
    for (k = 0; k < 4; k++) o->rot[k] = num_at(L, t, 9 + k, ok);
    for (k = 0; k < 3; k++) o->scl[k] = num_at(L, t, 13 + k, ok);
    lua_pop(L, 1);
  }
  return 1;
}

/* The constraints of the plan (at ct) into p: 0 when one is no table. */
static int fill_constraints(lua_State *L, plan_mem *p, const plan_size *z, int ct, int *ok) {
  int i, k;
  for (i = 0; i < z->nik; i++) {
    anim_ik_desc *d = &p->ik[i];
    int t;
    lua_rawgeti(L, ct, i + 1);
    t = lua_gettop(L);
    if (lua_type(L, t) != LUA_TTABLE) return 0;
    p->ik_id[i] = id_at(L, t, ok);
    d->kind = int_at(L, t, 2, ok);
    for (k = 0; k < 3; k++) d->j[k] = int_at(L, t, 3 + k, ok);
    for (k = 0; k < 3; k++) {
      d->target[k] = num_at(L, t, 6 + k, ok);
      d->pole[k] = num_at(L, t, 9 + k, ok);
      d->fwd[k] = num_at(L, t, 12 + k, ok);
      d->up[k] = num_at(L, t, 15 + k, ok);
    }
    d->weight = num_at(L, t, 18, ok);
    d->soften = num_at(L, t, 19, ok);
    lua_pop(L, 1);
  }
  return 1;
}

/* Fills p from the plan at 2 (nothing is allocated: no finalizer runs),
 * the sources taken out of their boxes now.  binds: the stack index of
 * the table of binding arrays (one per point, in order: array, count,
 * the clip's count of reloads).  0 when the plan is not of the shape the
 * Lua side makes, or a source was finalized; PLAN_STALE when a clip was
 * reloaded since its bindings were made. */
static int plan_fill(lua_State *L, plan_mem *p, const plan_size *z, int binds) {
  int ok = 1, stale = 0, i, k, top = lua_gettop(L);
  anim_state_in *in = &p->in;
  lua_getfield(L, 2, "animator");
  ok = lua_type(L, -1) == LUA_TTABLE && read_flat(L, lua_gettop(L), anim_animator_state_fields, &in->an);
  lua_settop(L, top);
  lua_getfield(L, 2, "pose");
  lua_getfield(L, 2, "animated");
  if (lua_type(L, -1) != LUA_TTABLE || lua_type(L, -2) != LUA_TTABLE) return 0;
  for (i = 0; i < z->nrig; i++) {
    for (k = 0; k < 10; k++) p->pose[i * 10 + k] = num_at(L, top + 1, i * 10 + k + 1, &ok);
    p->animated[i] = int_at(L, top + 2, i + 1, &ok);
  }
  lua_settop(L, top);
  lua_getfield(L, 2, "leads");
  if (!fill_leads(L, p, z, binds, top + 1, &ok, &stale)) return 0;
  lua_settop(L, top);
  lua_getfield(L, 2, "properties");
  if (!fill_props(L, p, z, top + 1, &ok)) return 0;
  lua_settop(L, top);
  lua_getfield(L, 2, "overrides");
  if (!fill_overrides(L, p, z, top + 1, &ok)) return 0;
  lua_settop(L, top);
  lua_getfield(L, 2, "constraints");
  if (!fill_constraints(L, p, z, top + 1, &ok)) return 0;
  lua_settop(L, top);
  in->nlead = z->nlead;
  in->lead = p->lead;
  in->pose = p->pose;
  in->animated = p->animated;
  in->nprops = z->nprops;
  in->props = p->props;
  in->nov = z->nov;
  in->ov_id = p->ov_id;
  in->ov = p->ov;
  in->nik = z->nik;
  in->ik_id = p->ik_id;
  in->ik = p->ik;
  return !ok ? 0 : stale ? PLAN_STALE : 1;
}

/* Binding arrays for every point of every lead, into the table at
 * `binds` (array, count and the clip's count of reloads, per point), each
 * checked against its clip's joints and the rig (read before the array
 * is made: that may run finalizers).  0 when bindings of the plan were
 * made for content their clip no longer has (nothing more is made). */
static int plan_bindings(lua_State *L, const plan_size *z, int binds) {
  int i, k, pt = 0, top = lua_gettop(L);
  lua_getfield(L, 2, "leads");
  for (i = 0; i < z->nlead; i++) {
    int li, n;
    lua_rawgeti(L, top + 1, i + 1);
    li = lua_gettop(L);
    lua_getfield(L, li, "bindings");
    luaL_checktype(L, -1, LUA_TTABLE);
    n = (int)lua_rawlen(L, -1);
    for (k = 0; k < n; k++, pt++) {
      anim_state_lead l;
      const anim_clip *c;
      int njoints, nb;
      unsigned gen;
      if (!lead_source(L, li, &l)) luaL_error(L, "state plan: a clip or blend space was finalized");
      if (l.space && k >= l.space->n) luaL_error(L, "state plan: bad bindings");
      if (!l.space && k > 0) luaL_error(L, "state plan: bad bindings");
      c = l.space ? l.space->clip[k] : l.clip;
      njoints = c->njoints;
      gen = c->gen;
      lua_rawgeti(L, li + 1, k + 1);
      if (!anim_lua_checkbindings(L, -1, njoints, gen, z->nrig, &nb)) {
        lua_settop(L, top);
        return 0;
      }
      lua_rawseti(L, binds, 3 * pt + 1);
      lua_pop(L, 1);
      lua_pushinteger(L, nb);
      lua_rawseti(L, binds, 3 * pt + 2);
      lua_pushinteger(L, (lua_Integer)gen);
      lua_rawseti(L, binds, 3 * pt + 3);
    }
    lua_settop(L, top + 1);
  }
  lua_settop(L, top);
  if (pt != z->npoints) luaL_error(L, "state plan: bad bindings");
  return 1;
}

/* A track box for each lead, its user values set (its source, the
 * animator, its callbacks table), into plan.out[i], plan.live[id] and, for
 * a lead queued after another, plan.queued_after[that one's box]: all of
 * it made before anything is built (it may run finalizers); the boxes get
 * their tracks at the swap. */
static void plan_boxes(lua_State *L, const plan_size *z) {
  int i, top = lua_gettop(L);
  lua_getfield(L, 2, "out");
  lua_getfield(L, 2, "live");
  lua_getfield(L, 2, "queued_after");
  lua_getfield(L, 2, "leads");
  for (i = 1; i <= 4; i++) luaL_checktype(L, top + i, LUA_TTABLE);
  for (i = 0; i < z->nlead; i++) {
    int box = anim_lua_newtrack(L);
    lua_rawgeti(L, top + 4, i + 1);
    lua_getfield(L, -1, "src");
    lua_setiuservalue(L, box, ANIM_UV_TRACK_SOURCE);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, box, ANIM_UV_TRACK_ANIMATOR);
    lua_getfield(L, -1, "cbs");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_setiuservalue(L, box, ANIM_UV_TRACK_CALLBACKS);
    lua_getfield(L, -1, "id");
    lua_pushvalue(L, box);
    lua_rawset(L, top + 2);
    lua_pop(L, 1);
    lua_rawseti(L, top + 1, i + 1);
  }
  for (i = 0; i < z->nlead; i++) {
    lua_Integer after;
    lua_rawgeti(L, top + 4, i + 1);
    lua_getfield(L, -1, "after");
    after = lua_tointeger(L, -1);
    lua_pop(L, 2);
    if (after < 0 || after >= z->nlead) continue;
    lua_rawgeti(L, top + 1, after + 1);
    lua_rawgeti(L, top + 1, i + 1);
    lua_rawset(L, top + 3);
  }
  lua_settop(L, top);
}

/* core.animator_restore(animator, plan) -> plan.out | nil, code, which
 * (0-based), why (code 6: the animator is delivering its callbacks; 7: a
 * batch update has yet to deliver them; 8: a clip of the plan was
 * reloaded since its bindings were made, by a finalizer: the Lua side
 * makes the plan again)
 * plan = { out = {}, live = {}, queued_after = {} (filled here: plan_boxes),
 *   side =, animator = flat, pose = {..}, animated = {..},
 *   leads = { { src = clip | space, bindings = { per point }, at = { x, y }?, after = -1 | ordinal,
 *               id =, digits = id's digits, cbs = table, points = { flat per point } }, ... },
 *   properties = { { name =, v = { ... } } },
 *   overrides = { { id, joint, mode, channels, weight, p x3, q x4, s x3, digits = id's } },
 *   constraints = { { id, kind, j x3, target x3, pole x3, fwd x3, up x3, weight, soften, digits = id's } } }
 * (ids are read from their digits: exact on every runtime)
 * (0-based joints, as the core has them).  Everything Lua is made first
 * (the track boxes, the binding arrays, the plan's memory), then the
 * plan is read and the new animator built; only then does it replace the
 * old one, which is freed (its tracks' boxes no longer play).  On a
 * refusal nothing changed. */
/* nil, RESTORE_STALE: nothing changed (what was made is garbage) */
static int stale(lua_State *L) {
  lua_pushnil(L);
  lua_pushinteger(L, RESTORE_STALE);
  return 2;
}

static int animator_restore(lua_State *L) {
  anim_animator_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  plan_size z;
  plan_mem *p;
  int i, res, binds, side, r, which;
  const char *why;
  anim_animator *made;
  anim_mem m;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  anim_lua_account(L, b->acct);
  anim_lua_checkanimator(L, 1);
  if (b->delivering) {
    /* (its callbacks would be delivered for tracks it no longer has) */
    lua_pushnil(L);
    lua_pushinteger(L, b->delivering == ANIM_DELIVERING ? RESTORE_DELIVERING : RESTORE_QUEUED);
    return 2;
  }
  lua_getfield(L, 2, "side");
  {
    /* (compared as a double: no cast before the range is known) */
    double v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
    if (!(v >= 0 && v < ANIM_SIDE_COUNT && v == floor(v))) luaL_error(L, "state plan: bad side");
    side = (int)v;
  }
  lua_pop(L, 1);
  plan_sizes(L, &z);
  z.nrig = anim_animator_rig(anim_lua_checkanimator(L, 1))->n;
  plan_boxes(L, &z);
  lua_getfield(L, 2, "out");
  res = lua_gettop(L);
  lua_createtable(L, 3 * z.npoints, 0);
  binds = lua_gettop(L);
  if (!plan_bindings(L, &z, binds)) return stale(L);
  p = plan_alloc(L, &z);
  m = anim_lua_mem(L);
  for (i = 0;; i++) {
    /* from here until the swap nothing of Lua's is made: pointers taken
     * now stay good (unless a retry collects: then they are taken again) */
    anim_animator *a;
    int filled = plan_fill(L, p, &z, binds);
    if (filled == PLAN_STALE) return stale(L);
    if (!filled) luaL_error(L, "state plan: not of the shape expected");
    a = anim_lua_checkanimator(L, 1);
    r = anim_state_build(&m, anim_animator_rig(a), side, &p->in, &made, p->made, &which, &why);
    if (r != ANIM_STATE_NOMEM || i > 0 || !anim_lua_retry(L)) break;
  }
  if (r == ANIM_STATE_NOMEM) return anim_lua_nomem(L);
  if (r != ANIM_STATE_OK) {
    lua_pushnil(L);
    lua_pushinteger(L, r);
    lua_pushinteger(L, which);
    lua_pushstring(L, why);
    return 4;
  }
  b = lua_touserdata(L, 1);
  if (b->delivering || !b->a) {
    /* (a retry's finalizers may have changed the animator's box) */
    anim_animator_free(made);
    return luaL_error(L, "state plan: the animator changed while it was restored");
  }
  {
    /* the swap: the boxes made above get their tracks, nothing is made */
    anim_animator *old = b->a;
    for (i = 0; i < z.nlead; i++) {
      anim_track_box *tb;
      lua_rawgeti(L, res, i + 1);
      tb = lua_touserdata(L, -1);
      tb->t = p->made[i];
      anim_track_retain(tb->t);
      lua_pop(L, 1);
    }
    /* (the skinning target is the binding's, not the state's: it stays) */
    anim_animator_set_skin_target(made, anim_animator_skin_target(old));
    /* (a 2D skeleton's block is derived data: it moves, and poses the
     * restored animator when next read) */
    anim_animator_set_world2d(made, anim_animator_take_world2d(old));
    b->a = made;
    b->serial = ++b->acct->serials;
    anim_animator_free(old);
  }
  lua_pushvalue(L, res);
  return 1;
}

/* core.animator_busy(animator) -> 0, or animator_restore's code 6 or 7: a
 * restore is refused before its state is read (a bad state from a callback
 * is the callback's error too) */
static int animator_busy(lua_State *L) {
  anim_animator_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  lua_pushinteger(L, !b->delivering ? 0 : b->delivering == ANIM_DELIVERING ? RESTORE_DELIVERING : RESTORE_QUEUED);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"animator_restore", animator_restore},
  {"animator_busy", animator_busy},
  {NULL, NULL}
};

void anim_lua_open_restore(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
