/* verts2d.h - a 2D skeleton's attachments in world space (verts2d.c): the
 * corners of a region, the vertices of a mesh, weighted or not, with a
 * deform's offsets.  A bone's world transform is the 2x3 affine matrix
 * m = { a, b, c, d, x, y }: x' = a x + b y + x, y' = c x + d y + y (Spine's
 * order; the file's own axes).  Plain arrays; nothing allocated. */
#ifndef ANIM_VERTS2D_H
#define ANIM_VERTS2D_H

#include <stddef.h>

/* A region attachment as the skeleton file and the atlas give it. */
typedef struct {
  double x, y, rotation, scale_x, scale_y; /* its place on the bone (degrees) */
  double width, height;                    /* its size in the skeleton's units */
  /* The atlas region, in pixels: the packed rectangle's size, the
   * whitespace stripped at its left and bottom, the image's size before
   * stripping.  original_w or original_h <= 0: nothing stripped. */
  double packed_w, packed_h, offset_x, offset_y, original_w, original_h;
} anim_region2d;

/* The region's four corners in its bone's frame, 8 numbers: bottom-left,
 * top-left, top-right, bottom-right (counter-clockwise in y-up axes). */
void anim_region2d_corners(const anim_region2d *r, double out[8]);

/* n points (2n numbers) through m into out: out[i * stride], out[i *
 * stride + 1] for point i (stride >= 2; doubles). deform (2n, or NULL) is
 * added to each point first. */
void anim_points2d_world(const double m[6], const double *v, const double *deform, size_t n, double *out,
                         size_t stride);

/* A weighted mesh in Spine's layout: per vertex its count k, then k
 * entries (bone, x, y, weight), the bone a 0-based index.  The layout is
 * whole and every bone index in [0, nbones): 1 and the vertex and entry
 * counts in *nverts, *nentries; else 0 and *nverts the offset (in
 * numbers) of the first wrong one.  Run once, at load. */
int anim_weighted2d_check(const double *layout, size_t len, size_t nbones, size_t *nverts, size_t *nentries);
/* The bones a checked layout reads: 1 + its highest bone index (0 when it
 * has no entry), so that a later check against a skeleton is one test. */
size_t anim_weighted2d_bones(const double *layout, size_t len);

/* Each vertex: the sum over its entries of weight * M(bone) * (x + dx, y + dy),
 * (dx, dy) the entry's deform offsets (2 per entry, or NULL).  world: 6
 * numbers a bone.  The layout must have passed the check. */
void anim_weighted2d_world(const double *world, const double *layout, size_t len, const double *deform,
                           double *out, size_t stride);

#endif
