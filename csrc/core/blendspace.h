/* blendspace.h - blend spaces: clips placed at points of a line (1D) or a
 * plane (2D); a parameter gives each point a weight (linear between the
 * two neighbours on a line; barycentric in a Delaunay triangulation of
 * the plane, the nearest point of the hull outside it), and a track plays
 * the space as the weighted blend of its clips.  Immutable once made,
 * shared by any number of tracks.  Plain C, no Lua. */
#ifndef ANIM_BLENDSPACE_H
#define ANIM_BLENDSPACE_H

#include "animator.h"

/* ANIM_MAX_SPACE_POINTS (codes.h): the most points of a space. */

typedef struct anim_space {
  int n, dim, sync;
  int markers;             /* ANIM_MARKERS_*: which points fire their items (spaceplay.c) */
  const anim_clip **clip;  /* n clips, each retained */
  double (*at)[2];         /* n points (1D: at[i][1] is 0) */
  int *order;              /* 1D: the points by their place on the line */
  int ntri;
  int (*tri)[3];           /* 2D: the triangles, counter-clockwise */
  int nedge;
  int (*edge)[2];          /* 2D: the hull's edges (all on a line: its segments) */
  int refs;
  anim_mem mem;
  size_t size;             /* of the one block holding the space */
} anim_space;

/* A space of n points (1 to ANIM_MAX_SPACE_POINTS) of dim 1 or 2 from the
 * clips and their places (finite, no two the same).  sync: the clips'
 * phases stay equal (each must have a length and a speed above 0 and all
 * one loop mode).  markers: which points fire their items (markers,
 * events, sounds, plays), an ANIM_MARKERS_* code -- DOMINANT, the point of
 * the greatest weight in each update (the lower index at a tie); ALL,
 * every point whose weight is above 0; NONE, no point.  NULL with *err on
 * bad input or out of memory (the pointer ANIM_CLIP_NOMEM then). */
anim_space *anim_space_new(const anim_mem *mem, int n, int dim, const anim_clip *const *clips,
                           const double (*at)[2], int sync, int markers, const char **err);
void anim_space_retain(anim_space *s);
/* Drops a reference (the creator holds the first); the last frees it. */
void anim_space_free(anim_space *s);

/* The weight of each point (w[0..n-1]: >= 0, summing to 1) at parameter
 * p (p[1] unused in 1D).  No allocation. */
void anim_space_weights(const anim_space *s, const double p[2], double *w);

/* Plays the space on a: one track per point (the first is the space's
 * own: the one to stop, seek, read; its id and priority are all of
 * theirs), binds[i] and nbind[i] the bindings of point i's clip, at the
 * parameter p.  NULL when out of memory (nothing changed). */
anim_track *anim_animator_play_space(anim_animator *a, anim_space *s, const anim_play_opts *o,
                                     const anim_binding *const *binds, const int *nbind,
                                     const double p[2]);
/* A space's track: its parameter, set (it takes effect at the next update)
 * or read; 0 when t does not play a space. */
int anim_track_set_at(anim_track *t, const double p[2]);
int anim_track_at(const anim_track *t, double p[2]);
const anim_space *anim_track_space(const anim_track *t);

#endif
