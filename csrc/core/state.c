/* state.c - an animator's saveable state (state.h): its tracks' numbers
 * read out, and a new animator built from them.  Building plays each
 * saved lead again (so that its block, bindings, property channels and
 * blend space are made by the code that always makes them), then sets
 * every number the play chose to the saved one; the caller swaps the new
 * animator in only once all of it is made. */
#include "state.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "animator_impl.h"
#include "spaceplay.h"

#define TF(name, kind, n, member, lo, hi, names) \
  { name, kind, n, offsetof(anim_track_state, member), lo, hi, names, 0 }
const anim_state_field anim_track_state_fields[] = {
  TF("time", ANIM_SF_NUM, 1, time, 0, 0, NULL),
  TF("tlo", ANIM_SF_NUM, 1, tlo, 0, 0, NULL),
  TF("speed", ANIM_SF_NUM, 1, speed, 0, 0, NULL),
  TF("priority", ANIM_SF_NUM, 1, priority, 0, 0, NULL),
  TF("own_priority", ANIM_SF_FLAG, 1, own_priority, 0, 1, NULL),
  TF("fade", ANIM_SF_NUM, 4, fade, 0, 0, NULL),
  TF("weight", ANIM_SF_NUM, 4, weight, 0, 0, NULL),
  /* (loops saturate there: clock.c) */
  { "loops", ANIM_SF_COUNT, 1, offsetof(anim_track_state, loops), 0, 0, NULL, LLONG_MAX },
  TF("direction", ANIM_SF_INT, 1, dir, -1, 1, NULL),
  /* (play's loop mode: "clip" when the track plays its clip's) */
  TF("loop", ANIM_SF_ENUM, 1, loop, 0, ANIM_LOOP_COUNT, "clip,once,loop,hold,pingpong"),
  TF("state", ANIM_SF_ENUM, 1, state, 0, 3, "pending,playing,ended,queued"),
  TF("fresh", ANIM_SF_FLAG, 1, fresh, 0, 1, NULL),
  TF("stopping", ANIM_SF_FLAG, 1, stopping, 0, 1, NULL),
  TF("stop_pending", ANIM_SF_FLAG, 1, stop_pending, 0, 1, NULL),
  TF("shows_last", ANIM_SF_FLAG, 1, shows_last, 0, 1, NULL),
  TF("hold_end", ANIM_SF_FLAG, 1, hold_end, 0, 1, NULL),
  TF("vscale", ANIM_SF_NUM, 1, vscale, 0, 0, NULL),
  TF("point_weight", ANIM_SF_NUM, 1, bw, 0, 0, NULL),
  TF("blend_weight", ANIM_SF_NUM, 1, tw, 0, 0, NULL),
  TF("last_at", ANIM_SF_NUM, 1, last_at, 0, 0, NULL),
  TF("e0", ANIM_SF_NUM, 1, e0, 0, 0, NULL),
  TF("e1", ANIM_SF_NUM, 1, e1, 0, 0, NULL),
  TF("start_at", ANIM_SF_NUM, 1, start_at, 0, 0, NULL),
  TF("cut_at", ANIM_SF_NUM, 1, cut_at, 0, 0, NULL),
  TF("rm_joint", ANIM_SF_INT, 1, rm_joint, -1, ANIM_MAX_RIG_JOINTS, NULL),
  TF("rm_binding", ANIM_SF_INT, 1, rm_binding, -1, ANIM_MAX_RIG_JOINTS, NULL),
  TF("rm_channels", ANIM_SF_INT, 1, rm_channels, 0, ANIM_CHANNEL_ALL, NULL),
  TF("rm_valid", ANIM_SF_FLAG, 1, rm_valid, 0, 1, NULL),
  TF("rm_p0", ANIM_SF_NUM, 3, rm_p0, 0, 0, NULL),
  TF("rm_pL", ANIM_SF_NUM, 3, rm_pL, 0, 0, NULL),
  TF("rm_pc", ANIM_SF_NUM, 3, rm_pc, 0, 0, NULL),
  TF("rm_y0", ANIM_SF_NUM, 1, rm_y0, 0, 0, NULL),
  TF("rm_yL", ANIM_SF_NUM, 1, rm_yL, 0, 0, NULL),
  TF("rm_yc", ANIM_SF_NUM, 1, rm_yc, 0, 0, NULL),
  TF("rm_q0", ANIM_SF_NUM, 4, rm_q0, 0, 0, NULL),
  TF("rm_dp", ANIM_SF_NUM, 3, rm_dp, 0, 0, NULL),
  TF("rm_dy", ANIM_SF_NUM, 1, rm_dy, 0, 0, NULL),
  TF("fade_interp", ANIM_SF_ENUM, 1, fade_interp, 0, ANIM_INTERP_COUNT - 1,
     "linear,step,catmullrom,bezier,sine,quad,cubic,quart,quint,expo,circ,back,bounce,elastic,cubicspline"),
  TF("fade_ease", ANIM_SF_ENUM, 1, fade_ease, 0, ANIM_EASE_COUNT - 1, "in,out,inOut"),
  TF("state_layer", ANIM_SF_INT, 1, ctl_layer, -1, 1000000, NULL),
  { NULL, 0, 0, 0, 0, 0, NULL, 0 }
};

#define AF(name, kind, n, member, lo, hi) \
  { name, kind, n, offsetof(anim_animator_state, member), lo, hi, NULL, ANIM_STATE_MAX_COUNTER }
const anim_state_field anim_animator_state_fields[] = {
  AF("seq", ANIM_SF_COUNT, 1, seq, 0, 0),
  AF("next_id", ANIM_SF_COUNT, 1, next_id, 0, 0),
  AF("overrides_next", ANIM_SF_COUNT, 1, overrides_next, 0, 0),
  AF("ik_next", ANIM_SF_COUNT, 1, ik_next, 0, 0),
  AF("dt", ANIM_SF_NUM, 1, dt, 0, 0),
  AF("root_motion_joint", ANIM_SF_INT, 1, rm_joint, -1, ANIM_MAX_RIG_JOINTS),
  AF("root_motion", ANIM_SF_NUM, 4, rm, 0, 0),
  AF("speed", ANIM_SF_NUM, 1, speed, 0, 0),
  AF("paused", ANIM_SF_FLAG, 1, paused, 0, 1),
  { NULL, 0, 0, 0, 0, 0, NULL, 0 }
};

/* ---- reading ------------------------------------------------------------- */

static int saved(const anim_track *t) { return t->state != TR_ENDED; }

int anim_state_count(const anim_animator *a) {
  int i, n = 0;
  for (i = 0; i < a->ntracks; i++) n += saved(a->tracks[i]);
  return n;
}

/* The ordinal of lead t among the saved leads, -1 when it is not one. */
static int lead_ordinal(const anim_animator *a, const anim_track *t) {
  int i, k = 0;
  for (i = 0; i < a->ntracks; i++) {
    const anim_track *u = a->tracks[i];
    if (!saved(u) || u->sp.lead != u) continue;
    if (u == t) return k;
    k++;
  }
  return -1;
}


/* The members anim_track_state has of anim_track (and its root motion),
 * by name there and here: reading and building copy the same list. */
#define SCALARS(X) X(time, time) X(tlo, tlo) X(speed, speed) X(priority, priority) X(loops, loops) \
  X(dir, pdir) X(state, state) X(fresh, fresh) X(stopping, stopping) X(stop_pending, stop_pending) \
  X(shows_last, shows_last) X(own_priority, own_priority) X(loop, loop) X(hold_end, chain.hold_end) X(vscale, sp.vscale) \
  X(bw, sp.bw) X(tw, tw) X(last_at, last_at) X(e0, e0) X(e1, e1) X(start_at, chain.start_at) X(cut_at, chain.cut_at) \
  X(rm_joint, rm.joint) X(rm_binding, rm.b) X(rm_channels, rm.ch) X(rm_valid, rm.valid) \
  X(rm_y0, rm.y0) X(rm_yL, rm.yL) X(rm_yc, rm.yc) X(rm_dy, rm.dy) \
  X(fade_interp, fade.interp) X(fade_ease, fade.ease) X(ctl_layer, ctl_layer)
#define ARRAYS(X) X(rm_p0, rm.p0) X(rm_pL, rm.pL) X(rm_pc, rm.pc) X(rm_q0, rm.q0) X(rm_dp, rm.dp)

const anim_track *anim_state_track(const anim_animator *a, int i, anim_track_state *s, int *point,
                                   int *after) {
  const anim_track *t = NULL;
  int k;
  for (k = 0; k < a->ntracks; k++)
    if (saved(a->tracks[k]) && i-- == 0) { t = a->tracks[k]; break; }
  memset(s, 0, sizeof *s);
#define OUT(m, tm) s->m = t->tm;
#define OUTA(m, tm) memcpy(s->m, t->tm, sizeof s->m);
  SCALARS(OUT)
  ARRAYS(OUTA)
#undef OUT
#undef OUTA
  anim_ramp_out(&t->fade, s->fade);
  anim_ramp_out(&t->weight, s->weight);
  *point = t->sp.lead->sp.play ? t->sp.point : 0;
  *after = t->chain.after ? lead_ordinal(a, t->chain.after) : -1;
  return t;
}

void anim_state_animator(const anim_animator *a, anim_animator_state *s) {
  memset(s, 0, sizeof *s);
  s->seq = a->seq;
  s->next_id = a->next_id;
  s->overrides_next = anim_overrides_next(a);
  s->ik_next = anim_ik_next(a);
  s->dt = a->dt;
  s->rm_joint = a->rm_joint;
  memcpy(s->rm, a->rm, sizeof s->rm);
  s->speed = a->speed;
  s->paused = a->paused;
}

/* ---- building ------------------------------------------------------------ */

/* What would make a saved track unsafe to run (indices the core follows,
 * codes it switches on), else NULL.  The Lua side checks every field
 * first with its path; this is the core's own guard. */
static const char *track_refusal(const anim_rig *rig, const anim_track_state *s, const anim_clip *c,
                                 int nbind) {
  int k;
  if (s->state < TR_PENDING || s->state > TR_QUEUED || s->state == TR_ENDED) return "state";
  if (s->dir != 1 && s->dir != -1) return "direction";
  if (!(s->time >= 0 && s->time <= c->length)) return "time";
  if (s->loops < 0) return "loops";
  if (s->loop < 0 || s->loop > ANIM_LOOP_COUNT) return "loop";
  if (s->rm_joint < -1 || s->rm_joint >= rig->n) return "rm_joint";
  /* (the binding is followed only for the joint it was found for) */
  if (s->rm_joint >= 0 && (s->rm_binding < -1 || s->rm_binding >= nbind)) return "rm_binding";
  if (s->rm_channels < 0 || s->rm_channels > ANIM_CHANNEL_ALL) return "rm_channels";
  for (k = 0; k < 4; k++)
    if (!isfinite(s->fade[k]) || !isfinite(s->weight[k])) return k < 2 ? "fade" : "weight";
  if (!isfinite(s->tlo) || !isfinite(s->speed) || !isfinite(s->priority)) return "speed";
  if (s->fade_interp < 0 || s->fade_interp >= ANIM_INTERP_COUNT || s->fade_ease < 0 || s->fade_ease >= ANIM_EASE_COUNT)
    return "fade";
  if (s->ctl_layer < -1) return "state_layer";
  return NULL;
}

static void track_in(anim_track *t, const anim_track_state *s) {
  /* (the narrow members take values the checks above kept in range) */
#define IN(m, tm) t->tm = s->m;
#define INA(m, tm) memcpy(t->tm, s->m, sizeof t->tm);
  SCALARS(IN)
  ARRAYS(INA)
#undef IN
#undef INA
  anim_ramp_in(&t->fade, s->fade);
  anim_ramp_in(&t->weight, s->weight);
}

/* Plays lead l on a (its points' tracks too); NULL when out of memory, or
 * *conflict set when its property channels do not fit the tracks before. */
static anim_track *play_lead(anim_animator *a, const anim_state_lead *l, int *conflict) {
  anim_play_opts o;
  o.fade = 0;
  o.weight = 1;
  o.speed = l->points[0].speed;
  o.priority = l->points[0].priority;
  o.has_priority = 1;
  *conflict = 0;
  if (l->space) {
    int i;
    for (i = 0; i < l->space->n; i++)
      if (anim_props_conflict(a, l->space->clip[i], NULL, NULL, NULL) != ANIM_PROPS_OK) { *conflict = 1; return NULL; }
    return anim_animator_play_space(a, l->space, &o, l->binds, l->nbind, l->at);
  }
  if (anim_props_conflict(a, l->clip, NULL, NULL, NULL) != ANIM_PROPS_OK) { *conflict = 1; return NULL; }
  return anim_animator_play(a, l->clip, &o, l->binds[0], l->nbind[0]);
}

/* Refuses a queue that comes back to a track (1 after 2 after 1: each
 * would wait for the other for ever; the public API cannot make one, a
 * state can).  With one predecessor and one successor at most per lead,
 * the leads form chains and cycles: those reached from the chains' heads
 * are every lead when there is no cycle.  Linear; nothing allocated. */
static int queue_cycle(const anim_state_in *in, anim_track **leads, int *which, const char **why) {
  int i, reached = 0;
  for (i = 0; i < in->nlead; i++) {
    const anim_track *t;
    if (in->lead[i].after >= 0) continue;
    for (t = leads[i]; t; t = t->chain.queued) reached++;
  }
  if (reached == in->nlead) return ANIM_STATE_OK;
  /* (name one lead of a cycle: the first whose predecessors come back to
   * it; the Lua side refused such a state before, with its path) */
  for (i = 0; i < in->nlead; i++) {
    const anim_track *t = leads[i]->chain.after;
    int k;
    for (k = 0; t && t != leads[i] && k < in->nlead; k++) t = t->chain.after;
    if (t == leads[i]) break;
  }
  *which = i < in->nlead ? i : 0;
  *why = "after";
  return ANIM_STATE_BAD_TRACK;
}

static int build_tracks(anim_animator *a, const anim_state_in *in, anim_track **leads, int *which,
                        const char **why) {
  int i, k;
  for (i = 0; i < in->nlead; i++) {
    const anim_state_lead *l = &in->lead[i];
    int n = l->space ? l->space->n : 1, conflict;
    anim_track *t;
    *which = i;
    for (k = 0; k < n; k++) {
      const anim_clip *c = l->space ? l->space->clip[k] : l->clip;
      const char *bad = track_refusal(a->rig, &l->points[k], c, l->nbind[k]);
      if (bad) { *why = bad; return ANIM_STATE_BAD_TRACK; }
    }
    if (l->id < 0 || (i > 0 && l->id <= in->lead[i - 1].id) || l->id >= in->an.next_id ||
        in->an.next_id > ANIM_STATE_MAX_COUNTER) {
      *why = "id";
      return ANIM_STATE_BAD_TRACK;
    }
    t = play_lead(a, l, &conflict);
    if (conflict) { *why = "properties"; return ANIM_STATE_BAD_TRACK; }
    if (!t) return ANIM_STATE_NOMEM;
    leads[i] = t;
    for (k = 0; k < n; k++) {
      anim_track *p = l->space ? anim_space_point(t, k) : t;
      track_in(p, &l->points[k]);
      p->id = l->id;
    }
  }
  /* the queue: each queued lead after another (each has one at most) */
  for (i = 0; i < in->nlead; i++) {
    const anim_state_lead *l = &in->lead[i];
    anim_track *t = leads[i];
    *which = i;
    *why = "after";
    if (l->after < 0) continue;
    if (l->after >= in->nlead || l->after == i || t->state != TR_QUEUED) return ANIM_STATE_BAD_TRACK;
    if (leads[l->after]->chain.queued) return ANIM_STATE_BAD_TRACK;
    t->chain.after = leads[l->after];
    leads[l->after]->chain.queued = t;
  }
  return queue_cycle(in, leads, which, why);
}

static int build_rest(anim_animator *a, const anim_state_in *in, int *which, const char **why) {
  int i, n = a->rig->n, r;
  for (i = 0; i < in->nov; i++) {
    *which = i;
    *why = "override";
    if (in->ov_id[i] >= ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_OVERRIDE;
    if ((r = anim_override_put(a, in->ov_id[i], &in->ov[i])) != 0)
      return r == -2 ? ANIM_STATE_NOMEM : ANIM_STATE_BAD_OVERRIDE;
  }
  for (i = 0; i < in->nik; i++) {
    *which = i;
    *why = "constraint";
    if (in->ik_id[i] >= ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_IK;
    if ((r = anim_ik_put(a, in->ik_id[i], &in->ik[i])) != 0) return r == -2 ? ANIM_STATE_NOMEM : ANIM_STATE_BAD_IK;
  }
  for (i = 0; i < in->nprops; i++) {
    *which = i;
    r = anim_props_put(a, &in->props[i]);
    if (r == -3) return ANIM_STATE_NOMEM;
    if (r != 0) {
      *why = "its value has another number of components than the property has on the tracks";
      return ANIM_STATE_BAD_PROP;
    }
  }
  *which = 0;
  *why = "root_motion_joint";
  if (in->an.rm_joint < -1 || in->an.rm_joint >= n) return ANIM_STATE_BAD_ANIMATOR;
  *why = "seq";
  if (in->an.seq < 0 || in->an.seq > ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_ANIMATOR;
  *why = "next_id";
  if (in->an.next_id < 0 || in->an.next_id > ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_ANIMATOR;
  *why = "overrides_next";
  if (in->an.overrides_next < 0 || in->an.overrides_next > ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_ANIMATOR;
  *why = "ik_next";
  if (in->an.ik_next < 0 || in->an.ik_next > ANIM_STATE_MAX_COUNTER) return ANIM_STATE_BAD_ANIMATOR;
  *why = "root_motion";
  for (i = 0; i < 4; i++) if (!isfinite(in->an.rm[i])) return ANIM_STATE_BAD_ANIMATOR;
  *why = "speed";
  if (!isfinite(in->an.speed) || in->an.speed < 0 || (in->an.paused != 0 && in->an.paused != 1))
    return ANIM_STATE_BAD_ANIMATOR;
  for (i = 0; i < n * 10; i++) if (!isfinite(in->pose[i])) { *why = "pose"; return ANIM_STATE_BAD_ANIMATOR; }
  for (i = 0; i < n; i++) {
    if (in->animated[i] < 0 || in->animated[i] > ANIM_CHANNEL_ALL) { *why = "animated"; return ANIM_STATE_BAD_ANIMATOR; }
    a->animated[i] = (unsigned char)in->animated[i];
  }
  memcpy(a->pose, in->pose, sizeof(double) * 10 * (size_t)n);
  a->seq = in->an.seq;
  a->next_id = in->an.next_id;
  a->dt = in->an.dt;
  a->rm_joint = in->an.rm_joint;
  memcpy(a->rm, in->an.rm, sizeof a->rm);
  a->speed = in->an.speed;
  a->paused = in->an.paused;
  if (anim_overrides_set_next(a, in->an.overrides_next) < 0 || anim_ik_set_next(a, in->an.ik_next) < 0)
    return ANIM_STATE_NOMEM;
  a->world_valid = 0;
  return ANIM_STATE_OK;
}

int anim_state_build(const anim_mem *mem, const anim_rig *rig, int side, const anim_state_in *in,
                     anim_animator **out, anim_track **leads, int *which, const char **why) {
  anim_animator *a = anim_animator_new(mem, rig, side);
  int r;
  *out = NULL;
  *which = 0;
  *why = "";
  if (!a) return ANIM_STATE_NOMEM;
  r = build_tracks(a, in, leads, which, why);
  if (r == ANIM_STATE_OK) r = build_rest(a, in, which, why);
  if (r != ANIM_STATE_OK) { anim_animator_free(a); return r; }
  *out = a;
  return ANIM_STATE_OK;
}
