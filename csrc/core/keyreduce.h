/* keyreduce.h - the greedy choice of a dense channel's keys
 * (lua/anim/export/gltf/reduce_curve.lua's simplify, with its
 * farthest_quat and farthest_lin): the same arithmetic in the same order,
 * so that the keys kept are the Lua choice's.  Plain arrays; nothing
 * allocated. */
#ifndef ANIM_KEYREDUCE_H
#define ANIM_KEYREDUCE_H

/* A channel's n samples: times[0..n), m numbers a sample in vals (sample i
 * at vals + i * m); quat: unit quaternions (m = 4), slerped, the distance
 * an angle in radians; else interpolated linearly, the distance the
 * largest difference of a component. */
typedef struct anim_keychan {
  int n, m, quat;
  const double *times, *vals;
} anim_keychan;

/* The indices (0-based, ascending, the first sample first) of the keys
 * kept so that the keys kept, interpolated, stay within tol of every
 * sample left out, into out (n numbers of room, at least 1); returns their
 * count. */
int anim_keys_simplify(const anim_keychan *ch, double tol, int *out);

#endif
