/* skinverts.h - linear blend skinning of vertices on the CPU (skinverts.c):
 * the reference a skinning shader is checked against, and what tools
 * that need skinned positions use.  Plain arrays, floats or doubles
 * each; nothing allocated. */
#ifndef ANIM_SKINVERTS_H
#define ANIM_SKINVERTS_H

#include <stddef.h>

/* An array of numbers: floats, or doubles when is_double. */
typedef struct { const void *data; int is_double; } anim_skv_in;
typedef struct { void *data; int is_double; } anim_skv_out;

/* The vertices and the joints' matrices.  pos: 3n numbers (x, y, z a
 * vertex); nrm: 3n, or data NULL; joints: 4n joint indices (0-based into
 * the matrices); weights: 4n.  mats: nmats matrices of width numbers each,
 * column-major: width 12 is the first three rows of the 4x4 column by
 * column (m[0..2] column 0, m[3..5] column 1, m[6..8] column 2, m[9..11]
 * the translation), width 16 the whole 4x4 (its last row not read: the
 * matrices are affine). */
typedef struct {
  size_t n;
  anim_skv_in pos, nrm, joints, weights, mats;
  size_t nmats;
  int width;
} anim_skv_mesh;

/* The first joint index that is not an integer in [0, nmats): 1 and its
 * number k (0-based, in joints) in *at, else 0.  Run before skinning. */
int anim_skin_vertices_check(const anim_skv_mesh *m, size_t *at);

/* pos_out[3v..3v+2] = sum over i of weights[4v+i] * M(joints[4v+i]) * [pos, 1];
 * nrm_out (data NULL: not written) the same with the matrices' 3x3 part
 * and w = 0, made unit length (as three.js's skinning shader: not the
 * inverse transpose).  The joints must have passed the check. */
void anim_skin_vertices(const anim_skv_mesh *m, anim_skv_out pos_out, anim_skv_out nrm_out);

#endif
