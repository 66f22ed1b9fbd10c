/* blendspace.c - blend spaces: their points, the triangulation of a 2D
 * space, and the weights of the points at a parameter (see blendspace.h).
 * As Godot's AnimationNodeBlendSpace1D and 2D
 * (scene/animation/animation_blend_space_2d.cpp: barycentric weights in
 * the triangle holding the parameter, the closest point of the triangles'
 * edges outside them), with the triangulation made here once, exactly
 * Delaunay, and a rule for points on one circle. */
#include "blendspace.h"

#include <math.h>

/* ---- the 2D triangulation --------------------------------------------- */

static double cross(const double *o, const double *a, const double *b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

/* > 0 when d is inside the circle through a, b, c (counter-clockwise). */
static double incircle(const double *a, const double *b, const double *c, const double *d) {
  double ax = a[0] - d[0], ay = a[1] - d[1], bx = b[0] - d[0], by = b[1] - d[1];
  double cx = c[0] - d[0], cy = c[1] - d[1];
  double a2 = ax * ax + ay * ay, b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
  return ax * (by * c2 - b2 * cy) - ay * (bx * c2 - b2 * cx) + a2 * (bx * cy - by * cx);
}

/* The points of a group by their angle round the circle's centre
 * (insertion sort: a group is small). */
static void sort_round(const double (*p)[2], double cx, double cy, int *g, int m) {
  int i, k;
  for (i = 1; i < m; i++) {
    int v = g[i];
    double av = atan2(p[v][1] - cy, p[v][0] - cx);
    for (k = i; k > 0 && atan2(p[g[k - 1]][1] - cy, p[g[k - 1]][0] - cx) > av; k--) g[k] = g[k - 1];
    g[k] = v;
  }
}

/* Delaunay by its definition: a triangle whose circumcircle holds no
 * other point.  Where four or more points lie on one empty circle (any
 * of their triangles would do), the polygon they make is split by the
 * diagonals from its lowest-indexed point: one rule, whatever the order
 * the points were given in.  O(n^4) for n <= 64 points, once per space.
 * Returns the number of triangles (counter-clockwise), or -1 when the
 * points are too close to lying on one circle for the tolerance to give
 * one triangulation. */
static int triangulate(const double (*p)[2], int n, int (*tri)[3], int cap) {
  double lo[2] = { p[0][0], p[0][1] }, hi[2] = { p[0][0], p[0][1] }, scale, eps_o, eps_c;
  int i, j, k, m, q, nt = 0, g[ANIM_MAX_SPACE_POINTS];
  for (i = 1; i < n; i++)
    for (k = 0; k < 2; k++) { if (p[i][k] < lo[k]) lo[k] = p[i][k]; if (p[i][k] > hi[k]) hi[k] = p[i][k]; }
  scale = fmax(hi[0] - lo[0], hi[1] - lo[1]);
  /* relative tolerances: the areas and the in-circle determinant scale as
   * the square and the fourth power of the spread */
  eps_o = 1e-12 * scale * scale;
  eps_c = 1e-10 * scale * scale * scale * scale;
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      for (k = j + 1; k < n; k++) {
        const double *a = p[i], *b = p[j], *c = p[k];
        double o = cross(a, b, c);
        int empty = 1, cnt = 0, first = 1;
        if (fabs(o) <= eps_o) continue;  /* on a line */
        if (o < 0) { const double *t = b; b = c; c = t; }
        for (m = 0; m < n && empty && first; m++) {
          double d;
          if (m == i || m == j || m == k) continue;
          d = incircle(a, b, c, p[m]);
          if (d > eps_c) empty = 0;
          else if (d >= -eps_c) {
            if (m < k) first = 0;  /* made from the group's three lowest only */
            g[cnt++] = m;
          }
        }
        if (!empty || !first) continue;
        if (cnt == 0) {
          if (nt >= cap) return -1;
          tri[nt][0] = i;
          tri[nt][1] = o < 0 ? k : j;
          tri[nt][2] = o < 0 ? j : k;
          nt++;
          continue;
        }
        {
          /* a polygon of cnt + 3 points on the circle: fan from its
           * lowest-indexed point, i */
          double ax = a[0], ay = a[1], bx = b[0], by = b[1], cx = c[0], cy = c[1];
          double dd = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
          double ux = ((ax * ax + ay * ay) * (by - cy) + (bx * bx + by * by) * (cy - ay) +
                       (cx * cx + cy * cy) * (ay - by)) / dd;
          double uy = ((ax * ax + ay * ay) * (cx - bx) + (bx * bx + by * by) * (ax - cx) +
                       (cx * cx + cy * cy) * (bx - ax)) / dd;
          int poly[ANIM_MAX_SPACE_POINTS], np = 0, s0 = 0;
          poly[np++] = i; poly[np++] = j; poly[np++] = k;
          for (q = 0; q < cnt; q++) poly[np++] = g[q];
          sort_round(p, ux, uy, poly, np);
          for (q = 0; q < np; q++) if (poly[q] == i) s0 = q;
          for (q = 1; q + 1 < np; q++) {
            if (nt >= cap) return -1;
            tri[nt][0] = i;
            tri[nt][1] = poly[(s0 + q) % np];
            tri[nt][2] = poly[(s0 + q + 1) % np];
            nt++;
          }
        }
      }
  return nt;
}

/* The hull's edges: the triangles' edges that no other triangle has the
 * other way round.  With no triangle (every point on one line) the line's
 * segments, the points in order along it. */
static int hull_edges(const double (*p)[2], int n, const int (*tri)[3], int nt, int (*edge)[2], int cap) {
  int i, e, k, ne = 0;
  if (nt == 0) {
    int ord[ANIM_MAX_SPACE_POINTS], far = 0;
    double best = -1, dx, dy;
    for (i = 0; i < n; i++) {
      double d = (p[i][0] - p[0][0]) * (p[i][0] - p[0][0]) + (p[i][1] - p[0][1]) * (p[i][1] - p[0][1]);
      if (d > best) { best = d; far = i; }
    }
    dx = p[far][0] - p[0][0];
    dy = p[far][1] - p[0][1];
    for (i = 0; i < n; i++) {
      int v = i;
      double pv = (p[v][0] - p[0][0]) * dx + (p[v][1] - p[0][1]) * dy;
      for (k = i; k > 0 && (p[ord[k - 1]][0] - p[0][0]) * dx + (p[ord[k - 1]][1] - p[0][1]) * dy > pv; k--)
        ord[k] = ord[k - 1];
      ord[k] = v;
    }
    for (i = 0; i + 1 < n; i++) { edge[ne][0] = ord[i]; edge[ne][1] = ord[i + 1]; ne++; }
    return ne;
  }
  for (i = 0; i < nt; i++)
    for (e = 0; e < 3; e++) {
      int u = tri[i][e], v = tri[i][(e + 1) % 3], shared = 0;
      for (k = 0; k < nt && !shared; k++) {
        int f;
        for (f = 0; f < 3; f++)
          if (tri[k][f] == v && tri[k][(f + 1) % 3] == u) shared = 1;
      }
      if (shared) continue;
      if (ne >= cap) return -1;
      edge[ne][0] = u;
      edge[ne][1] = v;
      ne++;
    }
  return ne;
}

/* ---- the space ---------------------------------------------------------- */

anim_space *anim_space_new(const anim_mem *mem, int n, int dim, const anim_clip *const *clips,
                           const double (*at)[2], int sync, int markers, const char **err) {
  size_t o_clip, o_at, o_order, o_tri, o_edge, size;
  int i, k, tcap = 2 * n + 2, ecap = 3 * (2 * n + 2);
  anim_space *s;
  char *m;
  if (n < 1 || n > ANIM_MAX_SPACE_POINTS) { *err = "a blend space has 1 to 64 points"; return NULL; }
  if (dim != 1 && dim != 2) { *err = "a blend space has 1 or 2 dimensions"; return NULL; }
  if (markers < 0 || markers >= ANIM_MARKERS_COUNT) { *err = "an unknown markers mode"; return NULL; }
  for (i = 0; i < n; i++) {
    if (!clips[i]) { *err = "a point without a clip"; return NULL; }
    if (!isfinite(at[i][0]) || (dim == 2 && !isfinite(at[i][1]))) { *err = "a point's place is not finite"; return NULL; }
    for (k = 0; k < i; k++)
      if (at[k][0] == at[i][0] && (dim == 1 || at[k][1] == at[i][1])) { *err = "two points at one place"; return NULL; }
    if (sync) {
      if (!(clips[i]->length > 0)) { *err = "a synced blend space's clips need a length above 0"; return NULL; }
      if (!(clips[i]->speed > 0)) { *err = "a synced blend space's clips need a speed above 0"; return NULL; }
      if (clips[i]->loop != clips[0]->loop) { *err = "a synced blend space's clips need one loop mode"; return NULL; }
    }
  }
  o_clip = anim_align8(sizeof *s);
  o_at = anim_align8(o_clip + sizeof(anim_clip *) * (size_t)n);
  o_order = o_at + sizeof(double) * 2 * (size_t)n;
  o_tri = anim_align8(o_order + sizeof(int) * (size_t)n);
  o_edge = o_tri + sizeof(int) * 3 * (size_t)tcap;
  size = o_edge + sizeof(int) * 2 * (size_t)ecap;
  m = anim_calloc(mem, 1, size);
  if (!m) { *err = ANIM_CLIP_NOMEM; return NULL; }
  s = (anim_space *)(void *)m;
  s->mem = *mem;
  s->size = size;
  s->refs = 1;
  s->n = n;
  s->dim = dim;
  s->sync = sync;
  s->markers = markers;
  s->clip = (const anim_clip **)(void *)(m + o_clip);
  s->at = (double (*)[2])(void *)(m + o_at);
  s->order = (int *)(void *)(m + o_order);
  s->tri = (int (*)[3])(void *)(m + o_tri);
  s->edge = (int (*)[2])(void *)(m + o_edge);
  for (i = 0; i < n; i++) {
    s->at[i][0] = at[i][0];
    s->at[i][1] = dim == 2 ? at[i][1] : 0;
  }
  if (dim == 1) {
    for (i = 0; i < n; i++) {  /* insertion sort by place */
      for (k = i; k > 0 && s->at[s->order[k - 1]][0] > s->at[i][0]; k--) s->order[k] = s->order[k - 1];
      s->order[k] = i;
    }
  } else {
    s->ntri = n >= 3 ? triangulate((const double (*)[2])s->at, n, s->tri, tcap) : 0;
    s->nedge = s->ntri < 0 ? -1 : hull_edges((const double (*)[2])s->at, n, (const int (*)[3])s->tri, s->ntri, s->edge, ecap);
    if (s->ntri < 0 || s->nedge < 0) {
      anim_free(mem, m, size);
      *err = "the points are too close to lying on one circle to triangulate";
      return NULL;
    }
  }
  for (i = 0; i < n; i++) {
    s->clip[i] = clips[i];
    anim_clip_retain((anim_clip *)clips[i]);
  }
  return s;
}

void anim_space_retain(anim_space *s) { s->refs++; }

void anim_space_free(anim_space *s) {
  int i;
  if (!s || --s->refs > 0) return;
  for (i = 0; i < s->n; i++) anim_clip_free((anim_clip *)s->clip[i]);
  anim_free(&s->mem, s, s->size);
}

/* ---- weights ------------------------------------------------------------- */

/* Barycentric weights of p in triangle t; 1 when p is inside (or on it,
 * within rounding).  Each weight is the ratio of two areas written the
 * same way, so a p on a corner gives exactly 1 there and 0 elsewhere. */
static int in_triangle(const anim_space *s, const int *t, const double *p, double *w) {
  const double *a = s->at[t[0]], *b = s->at[t[1]], *c = s->at[t[2]];
  double d = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  double wb = ((p[0] - a[0]) * (c[1] - a[1]) - (p[1] - a[1]) * (c[0] - a[0])) / d;
  double wc = ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])) / d;
  double wa = 1 - wb - wc;
  const double eps = 1e-12;
  if (!(wa >= -eps && wb >= -eps && wc >= -eps)) return 0;
  w[t[0]] = wa > 0 ? wa : 0;
  w[t[1]] = wb > 0 ? wb : 0;
  w[t[2]] = wc > 0 ? wc : 0;
  return 1;
}

void anim_space_weights(const anim_space *s, const double p[2], double *w) {
  int i, n = s->n;
  double sum = 0;
  for (i = 0; i < n; i++) w[i] = 0;
  if (n == 1) { w[0] = 1; return; }
  if (s->dim == 1) {
    const int *o = s->order;
    double x = p[0];
    if (!(x > s->at[o[0]][0])) { w[o[0]] = 1; return; }   /* (NaN: the first) */
    if (x >= s->at[o[n - 1]][0]) { w[o[n - 1]] = 1; return; }
    for (i = 0; i + 1 < n && x > s->at[o[i + 1]][0]; i++) {}
    {
      double a = s->at[o[i]][0], b = s->at[o[i + 1]][0], f = (x - a) / (b - a);
      w[o[i]] = 1 - f;
      w[o[i + 1]] = f;
    }
    return;
  }
  for (i = 0; i < s->ntri; i++)
    if (in_triangle(s, s->tri[i], p, w)) break;
  if (i == s->ntri) {
    /* outside: the nearest point of the hull (the first edge at ties) */
    double best = -1, bf = 0;
    int be = 0, e;
    for (e = 0; e < s->nedge; e++) {
      const double *a = s->at[s->edge[e][0]], *b = s->at[s->edge[e][1]];
      double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
      double f = l2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2 : 0, qx, qy, d;
      if (!(f > 0)) f = 0;
      if (f > 1) f = 1;
      qx = a[0] + f * dx - p[0];
      qy = a[1] + f * dy - p[1];
      d = qx * qx + qy * qy;
      if (best < 0 || d < best) { best = d; be = e; bf = f; }
    }
    w[s->edge[be][0]] = 1 - bf;
    w[s->edge[be][1]] += bf;
  }
  for (i = 0; i < n; i++) sum += w[i];
  if (sum != 1 && sum > 0)
    for (i = 0; i < n; i++) w[i] /= sum;
}
