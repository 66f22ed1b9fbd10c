/* state.h - an animator's saveable state as plain structs of numbers:
 * everything its next updates depend on (each track's clock, ramps and
 * flags, its root motion, the animator's clock and last pose, its property
 * values, overrides and constraints), read out of an animator and built
 * into a new one.  Clips, spaces and bindings are the caller's to name and
 * find again (the binding resolves them by name).  Plain C, no Lua. */
#ifndef ANIM_STATE_H
#define ANIM_STATE_H

#include <stddef.h>

#include "animator.h"
#include "blendspace.h"
#include "gameplay.h"
#include "override.h"

/* The numbers of one track (a clip's, or one point of a blend space's) that
 * its future depends on: the struct anim_track of animator_impl.h less its
 * pointers and caches.  Key cursors are not saved: they are hints (a
 * search gives the same key). */
typedef struct anim_track_state {
  double time, tlo, speed, priority;
  double fade[4], weight[4];           /* from, to, duration, elapsed */
  long long loops;
  int dir, state, fresh, stopping, stop_pending, shows_last, own_priority, hold_end, loop;
  double vscale, bw, tw, last_at, e0, e1, start_at, cut_at;
  int rm_joint, rm_binding, rm_channels, rm_valid;
  double rm_p0[3], rm_pL[3], rm_pc[3], rm_y0, rm_yL, rm_yc, rm_q0[4], rm_dp[3], rm_dy;
  int fade_interp, fade_ease;          /* its fade's curve (a state machine's transition's) */
  int ctl_layer;                       /* the state machine's layer that started it, -1 */
} anim_track_state;

/* The animator's own numbers. */
typedef struct anim_animator_state {
  long long seq, next_id, overrides_next, ik_next;
  double dt;
  int rm_joint;
  double rm[4];
  double speed;
  int paused;
} anim_animator_state;

/* What a field is, for the binding to move it and the Lua side to check
 * and write it: a finite double; a 64-bit count from lo to max; a small
 * int in [lo, hi]; a flag (0 or 1); an int in [0, hi] written by name
 * (names: comma-separated, in code order).  n numbers at byte `off`. */
enum { ANIM_SF_NUM, ANIM_SF_COUNT, ANIM_SF_INT, ANIM_SF_FLAG, ANIM_SF_ENUM };
typedef struct anim_state_field {
  const char *name;
  int kind, n;
  size_t off;
  double lo, hi;
  const char *names;
  long long max;
} anim_state_field;

/* The fields of anim_track_state and of anim_animator_state, ended by a
 * NULL name. */
extern const anim_state_field anim_track_state_fields[];
extern const anim_state_field anim_animator_state_fields[];

/* ---- reading ---------------------------------------------------------------
 * The tracks saved are those not ended (an ended track leaves at the next
 * update and its part of the pose is in the pose itself), in start order,
 * a blend space's points right after its first; a "lead" is a track that
 * is not another point of a space.  anim_state_track fills s for saved
 * track i and returns the track; *point gets its point (0 for a lead),
 * *after the ordinal among the saved leads of the track it is queued
 * after (-1: none). */
int anim_state_count(const anim_animator *a);
const anim_track *anim_state_track(const anim_animator *a, int i, anim_track_state *s, int *point,
                                   int *after);
void anim_state_animator(const anim_animator *a, anim_animator_state *s);
/* Overrides and constraints in creation order: id and description of the
 * i-th (0-based); the counts. */
int anim_state_noverrides(const anim_animator *a);
long long anim_state_override(const anim_animator *a, int i, anim_override *o);
int anim_state_nik(const anim_animator *a);
long long anim_state_ik(const anim_animator *a, int i, anim_ik_desc *d);

/* ---- building ---------------------------------------------------------------- */

/* One saved lead: a clip (space NULL) or a blend space, the bindings of
 * each of its clips, the space's parameter, the ordinal of the lead it is
 * queued after (-1), its id and the states of its points (1 for a clip). */
typedef struct anim_state_lead {
  const anim_clip *clip;
  anim_space *space;
  const anim_binding *const *binds;
  const int *nbind;
  double at[2];
  int after;
  long long id;
  const anim_track_state *points;
} anim_state_lead;

/* A property known after the last update and its value (arity 0: none). */
typedef struct anim_state_prop {
  const char *name;
  size_t len;
  int arity;
  const double *v;
} anim_state_prop;

typedef struct anim_state_in {
  int nlead;
  const anim_state_lead *lead;
  anim_animator_state an;
  const double *pose;          /* 10 per rig joint */
  const int *animated;         /* ANIM_CH_* per rig joint */
  int nprops;
  const anim_state_prop *props;
  int nov;
  const long long *ov_id;
  const anim_override *ov;
  int nik;
  const long long *ik_id;
  const anim_ik_desc *ik;
} anim_state_in;

/* The most a restored counter may hold (the callback clock, the next ids;
 * every id is below it): 2^62, so that as many plays, callbacks,
 * overrides or constraints again cannot overflow 64 bits.  An animator
 * that counts from 0 would need 2^62 of them to reach it.  (A track's
 * loops saturate at LLONG_MAX instead: any count >= 0 restores.) */
#define ANIM_STATE_MAX_COUNTER 4611686018427387904LL

/* What anim_state_build found wrong (*which: the index of the lead, prop,
 * override or constraint; *why: what, for the message). */
enum { ANIM_STATE_OK = 0, ANIM_STATE_NOMEM = -1, ANIM_STATE_BAD_TRACK = 1, ANIM_STATE_BAD_PROP = 2,
       ANIM_STATE_BAD_OVERRIDE = 3, ANIM_STATE_BAD_IK = 4, ANIM_STATE_BAD_ANIMATOR = 5 };

/* A new animator of rig and side (through mem) in the state `in`, into
 * *out, with leads[i] the track of lead i (the animator holds them: retain
 * to keep).  Nothing else is touched: on failure nothing is made (an
 * animator half built is freed). */
int anim_state_build(const anim_mem *mem, const anim_rig *rig, int side, const anim_state_in *in,
                     anim_animator **out, anim_track **leads, int *which, const char **why);

/* The steps of building that reach into other files' structs (override.c,
 * ik.c, propmix.c): an override or a constraint added with its id (0, or
 * -1 refused / -2 out of memory), the next ids (0, or -1 out of memory), a property's value set
 * (0; -2 another number of components than the tracks on a give it; -3
 * out of memory; a name no track on a animates -- only tracks that ended
 * in the saved animator's last update did -- is held known until the
 * next update, as the saved animator holds it). */
int anim_override_put(anim_animator *a, long long id, const anim_override *o);
long long anim_overrides_next(const anim_animator *a);
int anim_overrides_set_next(anim_animator *a, long long next);
int anim_ik_put(anim_animator *a, long long id, const anim_ik_desc *d);
long long anim_ik_next(const anim_animator *a);
int anim_ik_set_next(anim_animator *a, long long next);
int anim_props_put(anim_animator *a, const anim_state_prop *p);
/* (propmix.c: lets go of the names anim_props_put held; the update does) */
void anim_props_release(anim_animator *a);

#endif
