/* verts2d.c - a 2D skeleton's attachments in world space: what drawing,
 * hit tests and bounding boxes read.  The rules are Spine's as its user
 * guide and JSON format page describe them (esotericsoftware.com,
 * "spine-json-format": a region attachment is an image of width x height
 * centred at x, y in its bone's frame, turned by rotation and scaled; a
 * mesh's vertices are in its bone's frame, or, weighted, one position per
 * bone that moves it, each in that bone's frame, mixed by the weights; a
 * deform key offsets those positions) and the texture packer's (a
 * stripped region keeps its place in the untrimmed image by its offsets). */
#include "verts2d.h"

#include <math.h>

void anim_region2d_corners(const anim_region2d *r, double out[8]) {
  double sx = 1, sy = 1, l, b, rt, t, rad = r->rotation * (3.14159265358979323846 / 180);
  double cs = cos(rad), sn = sin(rad), lx[4], ly[4];
  int i;
  l = -r->width / 2;
  b = -r->height / 2;
  rt = r->width / 2;
  t = r->height / 2;
  /* (a stripped region: its packed rectangle where it was in the image,
   * the image's pixels scaled to the attachment's size) */
  if (r->original_w > 0 && r->original_h > 0) {
    sx = r->width / r->original_w;
    sy = r->height / r->original_h;
    l += r->offset_x * sx;
    b += r->offset_y * sy;
    rt = l + r->packed_w * sx;
    t = b + r->packed_h * sy;
  }
  lx[0] = l, ly[0] = b;
  lx[1] = l, ly[1] = t;
  lx[2] = rt, ly[2] = t;
  lx[3] = rt, ly[3] = b;
  for (i = 0; i < 4; i++) {
    double x = lx[i] * r->scale_x, y = ly[i] * r->scale_y;
    out[2 * i] = r->x + cs * x - sn * y;
    out[2 * i + 1] = r->y + sn * x + cs * y;
  }
}

void anim_points2d_world(const double m[6], const double *v, const double *deform, size_t n, double *out,
                         size_t stride) {
  size_t i;
  for (i = 0; i < n; i++) {
    double x = v[2 * i], y = v[2 * i + 1];
    if (deform) x += deform[2 * i], y += deform[2 * i + 1];
    out[i * stride] = m[0] * x + m[1] * y + m[4];
    out[i * stride + 1] = m[2] * x + m[3] * y + m[5];
  }
}

/* (the layout's numbers are doubles from a file: a count or an index is
 * taken only when it is a whole number in range) */
static int whole_below(double v, size_t n) { return v >= 0 && v < (double)n && v == floor(v); }

int anim_weighted2d_check(const double *layout, size_t len, size_t nbones, size_t *nverts, size_t *nentries) {
  size_t at = 0, nv = 0, ne = 0;
  while (at < len) {
    size_t k, e;
    if (!whole_below(layout[at], (len - at - 1) / 4 + 1)) break;
    k = (size_t)layout[at];
    if (len - at - 1 < 4 * k) break;
    for (e = 0; e < k; e++)
      if (!whole_below(layout[at + 1 + 4 * e], nbones)) {
        *nverts = at + 1 + 4 * e;
        return 0;
      }
    at += 1 + 4 * k;
    nv++;
    ne += k;
  }
  if (at != len) {
    *nverts = at;
    return 0;
  }
  *nverts = nv;
  *nentries = ne;
  return 1;
}

size_t anim_weighted2d_bones(const double *layout, size_t len) {
  size_t at = 0, need = 0;
  while (at < len) {
    size_t k = (size_t)layout[at++], j;
    for (j = 0; j < k; j++, at += 4)
      if ((size_t)layout[at] + 1 > need) need = (size_t)layout[at] + 1;
  }
  return need;
}

void anim_weighted2d_world(const double *world, const double *layout, size_t len, const double *deform,
                           double *out, size_t stride) {
  size_t at = 0, v = 0, e = 0;
  /* (counts and bones through long long: whole numbers below the
   * layout's length and the bones' count, checked, where a conversion to
   * size_t is a test and two paths a number on x86-64) */
  while (at < len) {
    size_t k = (size_t)(long long)layout[at++], j;
    double wx = 0, wy = 0;
    for (j = 0; j < k; j++, e++, at += 4) {
      const double *m = world + 6 * (size_t)(long long)layout[at];
      double x = layout[at + 1], y = layout[at + 2], w = layout[at + 3];
      if (deform) x += deform[2 * e], y += deform[2 * e + 1];
      wx += (m[0] * x + m[1] * y + m[4]) * w;
      wy += (m[2] * x + m[3] * y + m[5]) * w;
    }
    out[v * stride] = wx;
    out[v * stride + 1] = wy;
    v++;
  }
}
