/* verts2d_test.c - a 2D skeleton's attachments in world space
 * (csrc/core/verts2d.c) against values worked out by hand. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "verts2d.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (1 + fabs(b)); }

static int all_near(const double *a, const double *b, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (!near(a[i], b[i])) {
      fprintf(stderr, "  [%d] %.17g, expected %.17g\n", i, a[i], b[i]);
      return 0;
    }
  return 1;
}

int main(void) {
  double out[16];
  {
    /* a 4 x 2 image at (10, 0), not turned: its corners from (8, -1) to (12, 1) */
    anim_region2d r = { 10, 0, 0, 1, 1, 4, 2, 0, 0, 0, 0, 0, 0 };
    double want[8] = { 8, -1, 8, 1, 12, 1, 12, -1 };
    anim_region2d_corners(&r, out);
    CHECK(all_near(out, want, 8), "region: corners of a plain image");
  }
  {
    /* turned 90 degrees and scaled 2 on x: the local corner (-4, -1) is
     * (x, y) -> (-y, x): (1, -4), plus (10, 0) */
    anim_region2d r = { 10, 0, 90, 2, 1, 4, 2, 0, 0, 0, 0, 0, 0 };
    double want[8] = { 11, -4, 9, -4, 9, 4, 11, 4 };
    anim_region2d_corners(&r, out);
    CHECK(all_near(out, want, 8), "region: turned and scaled");
  }
  {
    /* a 100 x 50 image, its attachment 10 x 5 (0.1 a pixel), stripped to
     * 60 x 30 pixels with 20 left and 10 below: left = -5 + 2, bottom =
     * -2.5 + 1, right = -3 + 6, top = -1.5 + 3 */
    anim_region2d r = { 0, 0, 0, 1, 1, 10, 5, 60, 30, 20, 10, 100, 50 };
    double want[8] = { -3, -1.5, -3, 1.5, 3, 1.5, 3, -1.5 };
    anim_region2d_corners(&r, out);
    CHECK(all_near(out, want, 8), "region: whitespace stripped");
  }
  {
    /* points through m = [0 -2; 1 0] + (5, 7), with a deform */
    double m[6] = { 0, -2, 1, 0, 5, 7 }, v[4] = { 1, 0, 0, 1 }, d[4] = { 1, 1, 0, 0 };
    double want[6] = { 5 - 2, 7 + 2, 0, 5 - 2, 7 + 0, 0 };
    out[2] = out[5] = 0;
    anim_points2d_world(m, v, d, 2, out, 3);
    CHECK(all_near(out, want, 6), "points: matrix, deform and stride");
  }
  {
    /* two bones: the identity, and a translation by (10, 0) turned 90
     * degrees; vertex 0 on bone 0 alone, vertex 1 half on each */
    double world[12] = { 1, 0, 0, 1, 0, 0, 0, -1, 1, 0, 10, 0 };
    double layout[] = { 1, 0, 2, 3, 1, 2, 0, 1, 1, 0.5, 1, 1, 1, 0.5 };
    double d[6] = { 0, 0, 1, 0, 0, 1 };
    /* vertex 1: bone 0 (1 + 1, 1) = (2, 1); bone 1 (1, 1 + 1) -> (-2 + 10, 1) = (8, 1); mixed (5, 1) */
    double want[4] = { 2, 3, 5, 1 };
    size_t nv = 0, ne = 0;
    CHECK(anim_weighted2d_check(layout, 14, 2, &nv, &ne) == 1 && nv == 2 && ne == 3, "weighted: checked");
    anim_weighted2d_world(world, layout, 14, d, out, 2);
    CHECK(all_near(out, want, 4), "weighted: the bones' positions mixed by the weights, deformed");
    CHECK(anim_weighted2d_bones(layout, 14) == 2 && anim_weighted2d_bones(layout, 5) == 1, "weighted: the bones it reads");
    CHECK(anim_weighted2d_check(layout, 14, 1, &nv, &ne) == 0 && nv == 10, "weighted: a bone out of range, at its number");
    CHECK(anim_weighted2d_check(layout, 13, 2, &nv, &ne) == 0 && nv == 5, "weighted: cut short, at the vertex");
    layout[5] = 2.5;
    CHECK(anim_weighted2d_check(layout, 14, 2, &nv, &ne) == 0 && nv == 5, "weighted: a count that is not whole");
  }
  printf("verts2d_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
