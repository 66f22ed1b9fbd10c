/* skin_test.c - skinning matrices from C alone (no Lua), as a C or C++
 * engine calls the core: a rig with inverse binds and a clip made in C,
 * an animator updated, its matrices written into a float array and
 * checked against matrices this test composes itself (4x4 products of
 * T x R x S written out from axis-angle turns, no quaternion); a subset
 * skin in its own order, a root matrix, both layouts, offsets, doubles,
 * the bounds refused and the batch update's writes.  Run by `make test`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "animator.h"
#include "clip.h"
#include "rig.h"
#include "skin.h"

#include "check.h"


static void *plain_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud; (void)osize;
  if (nsize == 0) { free(ptr); return NULL; }
  return realloc(ptr, nsize);
}

/* ---- the reference: 4x4 column-major matrices --------------------------- */

static void mat_mul(const double *a, const double *b, double *c) {
  double t[16];
  int r, k, j;
  for (j = 0; j < 4; j++)
    for (r = 0; r < 4; r++) {
      t[4 * j + r] = 0;
      for (k = 0; k < 4; k++) t[4 * j + r] += a[4 * k + r] * b[4 * j + k];
    }
  memcpy(c, t, sizeof t);
}

/* T x R x S, R a turn of `deg` degrees about the unit axis (Rodrigues). */
static void trs(const double t[3], const double axis[3], double deg, const double s[3], double *m) {
  double th = deg * 3.14159265358979323846 / 180, c = cos(th), sn = sin(th), C = 1 - c;
  double x = axis[0], y = axis[1], z = axis[2];
  double R[9] = {c + x * x * C, y * x * C + z * sn, z * x * C - y * sn,
                 x * y * C - z * sn, c + y * y * C, z * y * C + x * sn,
                 x * z * C + y * sn, y * z * C - x * sn, c + z * z * C};
  int col, r;
  for (col = 0; col < 3; col++) {
    for (r = 0; r < 3; r++) m[4 * col + r] = R[3 * col + r] * s[col];
    m[4 * col + 3] = 0;
  }
  for (r = 0; r < 3; r++) m[12 + r] = t[r];
  m[15] = 1;
}

/* The quaternion (x, y, z, w) of the same turn, for the rig's rests. */
static void axis_quat(const double axis[3], double deg, double q[4]) {
  double h = deg * 3.14159265358979323846 / 360;
  q[0] = axis[0] * sin(h); q[1] = axis[1] * sin(h); q[2] = axis[2] * sin(h); q[3] = cos(h);
}

/* ---- the rig: three joints, a non-uniform scale above a turned one ----- */

/* given child first: the rig puts parents first (joint order: root, arm, hand) */
static const char *NAMES[] = {"hand", "root", "arm"};
static const int PARENT[] = {2, -1, 1};
static const double T[3][3] = {{0.5, 0, 0.25}, {1, 2, 3}, {0, 1, 0}};
static const double AX[3][3] = {{1, 0, 0}, {0.6, 0, 0.8}, {0, 0, 1}};
static const double DEG[3] = {-20, 30, 50};
static const double S[3][3] = {{1, 3, 1}, {2, 1, 0.5}, {1, 1, 1}};

static anim_rig *make_rig(const anim_mem *m, int nskin, const int *skin, const double (*ibm)[16]) {
  anim_rig_def d[3];
  const char *err = NULL;
  int i, a;
  anim_rig *r;
  for (i = 0; i < 3; i++) {
    d[i].name = NAMES[i];
    d[i].parent = PARENT[i];
    d[i].local = 1;
    for (a = 0; a < 3; a++) { d[i].pivot[a] = 0; d[i].translation[a] = T[i][a]; d[i].scale[a] = S[i][a]; }
    axis_quat(AX[i], DEG[i], d[i].rot);
  }
  r = anim_rig_build_skin(m, 3, d, nskin, skin, ibm, &err);
  if (!r) fprintf(stderr, "rig: %s\n", err);
  return r;
}

/* A clip moving "arm" by x 0 -> 2 over 1 s (an offset from its rest). */
static anim_clip *make_clip(const anim_mem *m) {
  anim_clip *c = anim_clip_new(m, 1, 0);
  anim_keys *k;
  int a;
  if (!c) return NULL;
  c->joints[0].name = anim_clip_strdup(c, "arm", 3);
  c->joints[0].weight = 1;
  c->joints[0].channels = ANIM_CH_POS;
  k = anim_clip_keys(c, 0, ANIM_K_POS, 2, 3, 0);
  if (!k || !c->joints[0].name) { anim_clip_free(c); return NULL; }
  k->t[0] = 0; k->t[1] = 1;
  for (a = 0; a < 6; a++) k->v[a] = a == 3 ? 2 : 0;
  k->ie[0] = k->ie[1] = ANIM_IE(ANIM_LINEAR, 0);
  c->length = 1;
  c->loop = ANIM_LOOP;
  return anim_clip_finish(c) ? (anim_clip_free(c), NULL) : c;
}

/* World of def joint i with arm moved by dx: the reference's own walk. */
static void ref_world(int i, double dx, double *w) {
  double l[16], t[3];
  int a;
  for (a = 0; a < 3; a++) t[a] = T[i][a] + (i == 2 && a == 0 ? dx : 0);
  trs(t, AX[i], DEG[i], S[i], l);
  if (PARENT[i] < 0) { memcpy(w, l, sizeof l); return; }
  ref_world(PARENT[i], dx, w);
  mat_mul(w, l, w);
}

/* Every float within 1e-5 of the reference (relative to its size). */
static int near16(const float *got, const double *want, int layout) {
  int e, at = 0;
  for (e = 0; e < 16; e++) {
    if (layout == ANIM_SKIN_MAT3X4 && e % 4 == 3) continue;
    if (fabs(got[at] - want[e]) > 1e-5 * (1 + fabs(want[e]))) return 0;
    at++;
  }
  return 1;
}

int main(void) {
  anim_mem mem = {plain_alloc, NULL};
  /* inverse binds: arbitrary affine matrices, one per def (def order) */
  double ibm[3][16], root[16], want[16], w[16];
  const double raxis[3] = {0, 1, 0}, rt[3] = {10, 0, -4}, rs[3] = {2, 2, 2};
  float out[3 * 16 + 8];
  double dout[3 * 16];
  anim_skin_out o;
  anim_rig *rig, *sub;
  anim_clip *clip;
  anim_animator *an, *bn, *list[2];
  anim_binding bind;
  anim_play_opts po = {0, 1, 1, 0, 0};
  int i, k;
  /* (rig order: root, arm, hand; def of each rig joint) */
  const int DEF_OF[3] = {1, 2, 0};
  const double dx = 0.5;  /* arm's x offset after 0.25 s */

  for (i = 0; i < 3; i++) {
    const double ax[3] = {0, 0, 1}, t[3] = {-i * 0.5, 0.25, 1}, s[3] = {1, 1.5, 1};
    trs(t, ax, 15.0 * i, s, ibm[i]);
  }
  trs(rt, raxis, 90, rs, root);
  rig = make_rig(&mem, 0, NULL, (const double (*)[16])ibm);
  clip = make_clip(&mem);
  CHECK(rig && clip, "rig and clip made");
  if (!rig || !clip) return 1;
  CHECK(rig->nskin == 3 && strcmp(rig->names[0], "root") == 0 && strcmp(rig->names[2], "hand") == 0,
        "a rig without a skin list skins every joint, in its order");
  an = anim_animator_new(&mem, rig, ANIM_SIDE_BOTH);
  memset(&bind, 0, sizeof bind);
  bind.cj = 0; bind.rj = 1; bind.pscale = 1;
  CHECK(an && anim_animator_play(an, clip, &po, &bind, 1), "played");
  CHECK(anim_animator_update(an, 0.25) == 0, "updated");

  /* mat3x4 floats, no root: world x inverse bind */
  memset(&o, 0, sizeof o);
  o.data = out; o.cap = 36; o.layout = ANIM_SKIN_MAT3X4;
  CHECK(anim_animator_skin(an, &o) == 36, "36 floats written");
  for (k = 0; k < 3; k++) {
    ref_world(DEF_OF[k], dx, w);
    mat_mul(w, ibm[DEF_OF[k]], want);
    CHECK(near16(out + 12 * k, want, ANIM_SKIN_MAT3X4), "mat3x4 = world x inverse bind");
  }
  /* mat4 with a root and an offset of 5 */
  for (i = 0; i < (int)(sizeof out / sizeof *out); i++) out[i] = -7;
  o.cap = 5 + 48; o.offset = 5; o.layout = ANIM_SKIN_MAT4; o.root = root;
  CHECK(anim_animator_skin(an, &o) == 48, "48 floats written");
  CHECK(out[4] == -7 && out[53] == -7, "nothing written outside offset .. offset + 48");
  for (k = 0; k < 3; k++) {
    ref_world(DEF_OF[k], dx, w);
    mat_mul(w, ibm[DEF_OF[k]], want);
    mat_mul(root, want, want);
    CHECK(near16(out + 5 + 16 * k, want, ANIM_SKIN_MAT4), "mat4 = root x world x inverse bind");
  }
  /* doubles: the same numbers, unrounded */
  o.data = dout; o.cap = 48; o.offset = 0; o.is_double = 1;
  CHECK(anim_animator_skin(an, &o) == 48, "48 doubles written");
  for (k = 0; k < 3; k++) {
    int e;
    ref_world(DEF_OF[k], dx, w);
    mat_mul(w, ibm[DEF_OF[k]], want);
    mat_mul(root, want, want);
    for (e = 0; e < 16; e++) CHECK(fabs(dout[16 * k + e] - want[e]) < 1e-12 * (1 + fabs(want[e])), "double");
  }
  /* bounds: one float short, an offset past the end: refused, nothing written */
  for (i = 0; i < (int)(sizeof out / sizeof *out); i++) out[i] = -7;
  o.data = out; o.is_double = 0; o.root = NULL; o.layout = ANIM_SKIN_MAT3X4; o.cap = 35; o.offset = 0;
  CHECK(anim_animator_skin(an, &o) == 0 && out[0] == -7 && out[34] == -7, "too small: refused, untouched");
  o.cap = 40; o.offset = 41;
  CHECK(anim_animator_skin(an, &o) == 0 && out[0] == -7, "offset past the end: refused");
  o.offset = 0; o.layout = 9;
  CHECK(anim_animator_skin(an, &o) == 0, "another layout: refused");

  /* a skin of two joints given in its own order (hand, then root: defs 0
   * and 1), each with its matrix */
  {
    const int skin[2] = {0, 1};
    double sib[2][16];
    memcpy(sib[0], ibm[2], sizeof sib[0]);
    memcpy(sib[1], ibm[0], sizeof sib[1]);
    sub = make_rig(&mem, 2, skin, (const double (*)[16])sib);
    CHECK(sub && sub->nskin == 2 && sub->skin[0] == 2 && sub->skin[1] == 0, "the skin's joints in its order");
    bn = sub ? anim_animator_new(&mem, sub, ANIM_SIDE_BOTH) : NULL;
    if (bn) {
      anim_animator_play(bn, clip, &po, &bind, 1);
      anim_animator_update(bn, 0.25);
      o.layout = ANIM_SKIN_MAT3X4; o.cap = 24;
      CHECK(anim_animator_skin(bn, &o) == 24, "24 floats: two joints");
      ref_world(0, dx, w); mat_mul(w, sib[0], want);
      CHECK(near16(out, want, ANIM_SKIN_MAT3X4), "skin joint 0 is the hand");
      ref_world(1, dx, w); mat_mul(w, sib[1], want);
      CHECK(near16(out + 12, want, ANIM_SKIN_MAT3X4), "skin joint 1 is the root");
    }
  }
  {
    const int bad[1] = {3};
    const char *err = NULL;
    anim_rig_def d[1];
    memset(d, 0, sizeof d);
    d[0].name = "a"; d[0].parent = -1; d[0].rot[3] = 1; d[0].scale[0] = d[0].scale[1] = d[0].scale[2] = 1;
    CHECK(!anim_rig_build_skin(&mem, 1, d, 1, bad, NULL, &err) && err && strcmp(err, "unknown skin joint") == 0,
          "a skin joint out of range: refused");
  }

  /* the batch: a shared target, each animator's right after the other's,
   * the same floats as each one's own call after the same update */
  if (bn) {
    float batch[36 + 24 + 2], one[36 + 24];
    anim_skin_out sh;
    list[0] = an; list[1] = bn;
    memset(&sh, 0, sizeof sh);
    sh.data = batch; sh.cap = 1 + 36 + 24; sh.offset = 1; sh.layout = ANIM_SKIN_MAT3X4;
    batch[0] = batch[61] = -7;
    CHECK(anim_animators_update_skin(NULL, list, 2, 0.125, &sh, NULL, NULL) == 0, "batch updated");
    o.data = one; o.cap = 36; o.offset = 0; o.root = NULL;
    anim_animator_skin(an, &o);
    o.data = one + 36; o.cap = 24;
    anim_animator_skin(bn, &o);
    CHECK(memcmp(batch + 1, one, sizeof one) == 0 && batch[0] == -7 && batch[61] == -7,
          "batch: each animator's matrices after the previous one's, bit for bit");
    sh.cap = 60;
    CHECK(anim_animators_update_skin(NULL, list, 2, 0.125, &sh, NULL, NULL) == -2, "batch: too small, refused");
    /* a per-animator target */
    o.data = one; o.cap = 36; o.offset = 0;
    CHECK(anim_animator_set_skin_target(an, &o) == 0, "target set");
    o.cap = 35;
    CHECK(anim_animator_set_skin_target(bn, &o) == 0 && anim_animator_set_skin_target(an, &o) == -1,
          "a target too small: refused");
    memset(one, 0, sizeof one);
    CHECK(anim_animators_update_skin(NULL, list, 1, 0.1, NULL, NULL, NULL) == 0 && one[0] != 0,
          "the animator's own target written by the batch");
    anim_animator_free(bn);
    anim_rig_free(sub);
  }
  anim_animator_free(an);
  anim_rig_free(rig);
  anim_clip_free(clip);
  printf("skin_test: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
