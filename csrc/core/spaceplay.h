/* spaceplay.h - a blend space played on an animator, as the core's files
 * see it (the public side is blendspace.h).  A space plays as one track
 * per point; its lead (the first point's track) holds the points' tracks
 * here.  track.c keeps them with the lead (released, seeked, ended with
 * it); spaceplay.c gives them their weights and the synced clock, the
 * stages around the lead's clock.  Plain C, no Lua. */
#ifndef ANIM_SPACEPLAY_H
#define ANIM_SPACEPLAY_H

#include "animator.h"
#include "blendspace.h"

struct anim_passes;

/* What a track keeps of its blend space (the track holds it; spaceplay.c
 * sets it, and reads it with the clock, the queue, the blend and the
 * saved state): outside a space, lead is the track itself, vscale and bw
 * are 1, play is NULL, point 0 and fires 1.  The first three are read by
 * every update (the track's hot fields, animator_impl.h); fires by the
 * queueing stage (passes.h, passqueue.c, spaceplay.c's anim_space_pass). */
typedef struct anim_track_sp {
  anim_track *lead;        /* its blend space's first track (itself outside a space) */
  double vscale;           /* the playhead speed's factor: 1 (a synced space's lead: spaceplay.c) */
  double bw;               /* its point's weight in its blend space (1 outside one) */
  struct anim_spaceplay *play; /* on a lead: its space and points' tracks, else NULL */
  int point;               /* its point in its space (0 outside one) */
  unsigned char fires;     /* its items are queued in this update: the space's markers
                            * mode at the weights anim_space_begin set (1 outside one) */
} anim_track_sp;

struct anim_spaceplay {
  anim_space *space;       /* retained */
  double at[2];            /* the parameter */
  size_t size;
  int n;
  anim_track *m[1];        /* n: the points' tracks, m[0] the lead (the others retained) */
};

/* A synced point's clip time at the lead's clip time x, for a lead's clip
 * of length L0 and the point's of length L: the same phase, each end onto
 * its end exactly (items there are neither lost nor fired twice at a
 * wrap). */
static inline double anim_space_phase(double L0, double L, double x) {
  double y;
  if (x >= L0) return L;
  if (x <= 0) return 0;
  y = x * (L / L0);
  return y < L ? y : L;
}

/* track.c: a space's number of points and the track of point i (0: the
 * lead); its points released with the lead; a seek of the lead moves
 * them. */
int anim_space_points(const anim_track *lead);
anim_track *anim_space_point(const anim_track *lead, int i);
void anim_space_release(anim_track *lead);
void anim_space_seek(anim_track *lead, double time);

/* spaceplay.c, the stages of update.c.  Before a space's lead steps: its
 * points' weights from its parameter, its playhead speed (synced), its
 * points' root motion set up.  After: a synced space's other tracks follow
 * the lead.  A track of a point other than the first steps only when
 * anim_space_follow says (not synced: on its own clock).  A pass of a
 * synced lead covers the other points' items (anim_space_pass, from
 * passqueue.c) and their motion (anim_space_motion, over the lead's
 * records) at the same phase. */
void anim_space_begin(anim_animator *a, anim_track *lead);
/* The factor of a synced space's playhead speed at parameter `at` (1
 * without sync): what anim_space_begin gives its lead (a state machine
 * reads it for the state's normalized time: controller.c). */
double anim_space_factor(const anim_space *s, const double at[2]);
void anim_space_end(anim_track *lead);
int anim_space_follow(anim_track *t);
void anim_space_pass(anim_animator *a, anim_track *lead, double from, double to, int dir, int incl,
                     double e0, double sp);
void anim_space_motion(anim_animator *a, anim_track *lead, const struct anim_passes *ps);

#endif
