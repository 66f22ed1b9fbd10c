/* measure.h - the model-space measure of anim.compress and of the .anim
 * reduction (lua/anim/export/gltf/reduce.lua, reduce_clip.lua): a node
 * tree played from a clip as sample.lua's `played` puts each node's local
 * transform together, its world matrices (reduce.lua's world_into) and the
 * error of a second clip's against them (point_error), with the same
 * arithmetic in the same order, so that the results are the same bits as
 * the Lua measure's.  Plain arrays; nothing allocated. */
#ifndef ANIM_MEASURE_H
#define ANIM_MEASURE_H

#include "animator.h"
#include "clip.h"
#include "keyreduce.h"

/* The tree: n nodes, each one's parent (-1 at a root) and its rest (10
 * numbers: translation, rotation x y z w, scale). */
typedef struct anim_mtree {
  int n;
  const int *parent;
  const double *rest;
} anim_mtree;

/* A clip played on the tree: on[node] its binding (cj, pre/post when
 * convert, pscale; animator.h), or NULL (the node keeps its rest);
 * absolute: the clip's values are the nodes' own, not offsets from their
 * rests; cursors: the clip's (clip.h: ANIM_HOT_CURSORS then
 * ANIM_COLD_CURSORS a joint) or NULL.  The glTF export's channels
 * (lua/anim/export/gltf/init.lua's localA and its reduced channels): mask
 * NULL, or mask[node] the channels (ANIM_CH_*) the node takes from the
 * clip, the rest's for the others; keys NULL, or keys[3 node + c] (c: 0
 * position, 1 rotation, 2 scale) NULL or the channel's keys, which it takes
 * instead (reduce_curve.lua's evaluator: linear, quaternions made unit and
 * slerped; held before the first key and after the last). */
typedef struct anim_mclip {
  const anim_clip *clip;
  int *cursors;
  int absolute;
  const anim_binding *const *on;
  const unsigned char *mask;
  const anim_keychan *const *keys;
} anim_mclip;

/* The times and where a node's world matrices are: node i's at time k at
 * fa + slot[i] * nt * 12 + k * 12 (12 numbers: the three axes, then the
 * origin) when slot[i] >= 0. */
typedef struct anim_mframes {
  int nt;
  const double *times;
  const int *slot;
  double *fa;
} anim_mframes;

/* The world matrices of the nodes list[0..nl) (parents first; each one's
 * parent is listed before it, or is none) at every time, kept in f->fa for
 * those with a slot; w: 12 * tree->n doubles of scratch. */
void anim_measure_frames(const anim_mtree *tree, const anim_mclip *mc, const anim_mframes *f, const int *list, int nl,
                         double *w);

/* The error of mc against f's frames at every time, for the nodes
 * list[0..nl) (parents first; dirty[i] for each, and no other): per[k] the
 * worst of list[k]'s (the largest distance between where the two put the
 * points +-distance on each axis of the node's frame), errs (NULL, or nt *
 * nl numbers) every error, time after time, in the list's order.  A
 * listed node's world is made from its parent's in mc when the parent is
 * dirty, else from the parent's in f (which must have a slot, as every
 * listed node must).  w: 12 * tree->n doubles of scratch. */
void anim_measure_error(const anim_mtree *tree, const anim_mclip *mc, const anim_mframes *f, const int *list, int nl,
                        const unsigned char *dirty, double distance, double *w, double *per, double *errs);

/* sample.lua's bake of node i's local channel ch (ANIM_CH_POS, _ROT or
 * _SCL) as mc plays it (mask[i] ch: sample.lua's played): the times ts[0..nts) sorted in place, then a key at each (its time
 * the 32-bit float after the last key's when it is not above it), a key
 * one float before it where the value jumps, quaternions each in the
 * hemisphere of the key before; the keys' times into ot and values into ov
 * (3 numbers a key, 4 for a rotation), room for 2 * nts keys; returns their
 * count. */
int anim_measure_bake(const anim_mtree *tree, const anim_mclip *mc, int i, int ch, double *ts, int nts, double *ot,
                      double *ov);

/* The largest difference of each of node i's local channels chs (flags)
 * between a and b (each with mask[i] chs) at times[0..nt), into worst
 * (position, rotation, scale; 0 for a channel not asked): sample.lua's
 * difference (the angle between two turns, radians; else the largest
 * difference of a component), as export/gltf/init.lua's compare_back
 * takes it -- a node's channels in one pass, each played once a time. */
void anim_measure_compare(const anim_mtree *tree, const anim_mclip *a, const anim_mclip *b, int i, int chs,
                          const double *times, int nt, double worst[3]);

#endif
