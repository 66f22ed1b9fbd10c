/* bench/ref/w1_ref.c: the hand-tuned C loops of ../shared/bench/README.md,
 * so that they are measured in the same run as anim.
 *
 *   build/bench/w1_ref --kind float|exact [--n N] [--runs R] [--data w1.txt]
 *
 * float: float32 keys and time, nlerp (what SIMD runtimes do);
 * exact: double keys and time, true slerp with libm's acos and sin.
 * Both: N characters, each playing clip 0 and clip 1 at weight 0.5 from
 * time frac((i + 1) * phi) * 2, a time and a key cursor per track; each
 * frame advances every track by 1/60 s (looping at 2 s), samples its 20
 * joints, blends the two clips (positions 0.5/0.5, rotations as a
 * hemisphere-aligned weighted sum, normalised) and stores the local pose.
 * One untimed 600-frame warm-up, then R timed runs; the median, and the
 * W1 cross-check, as one JSON line in the format of bench/w1.lua.  Time is
 * CLOCK_PROCESS_CPUTIME_ID, the clock behind Lua's os.clock. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAMES 600
#define KMAX 64
#define JMAX 20 /* W1's joints: the per-character state stays compact */
#define CMAX 2

/* one channel of one joint of one clip, in both precisions */
typedef struct {
  int n;
  double t[KMAX], v[KMAX * 4];
  float tf[KMAX], vf[KMAX * 4];
} track;

static int J, C, K;
static double D;
static track rot[CMAX][JMAX], pos[CMAX][JMAX];

/* NULL, or what is wrong with the file */
static const char *read_w1(const char *path) {
  FILE *f = fopen(path, "r");
  int c, j, k;
  if (!f) return "cannot read";
  if (fscanf(f, "W1 %d %d %d %lf", &J, &C, &K, &D) != 4 || J > JMAX || C != CMAX || K > KMAX || K < 2) {
    fclose(f);
    return "not W1 data";
  }
  for (c = 0; c < C; c++)
    for (j = 0; j < J; j++) {
      track *r = &rot[c][j], *p = &pos[c][j];
      int ok = 1;
      r->n = p->n = K;
      for (k = 0; k < K; k++) ok &= fscanf(f, "%lf", &r->t[k]) == 1;
      for (k = 0; k < 4 * K; k++) ok &= fscanf(f, "%lf", &r->v[k]) == 1;
      for (k = 0; k < K; k++) ok &= fscanf(f, "%lf", &p->t[k]) == 1;
      for (k = 0; k < 3 * K; k++) ok &= fscanf(f, "%lf", &p->v[k]) == 1;
      if (!ok) { fclose(f); return "short"; }
      for (k = 0; k < K; k++) { r->tf[k] = (float)r->t[k]; p->tf[k] = (float)p->t[k]; }
      for (k = 0; k < 4 * K; k++) r->vf[k] = (float)r->v[k];
      for (k = 0; k < 3 * K; k++) p->vf[k] = (float)p->v[k];
    }
  fclose(f);
  return NULL;
}

/* The segment [cur, cur + 1] holding t, moving the cursor forward (or back
 * to 0 after a wrap); keys hold their end values outside [t0, tn]. */
#define SEEK(times, n, cur, t) do { \
    if ((t) < (times)[cur]) (cur) = 0; \
    while ((cur) < (n) - 2 && (t) >= (times)[(cur) + 1]) (cur)++; \
  } while (0)

/* ---- float32, nlerp ------------------------------------------------------ */

typedef struct { float time[CMAX]; unsigned char cr[CMAX][JMAX], cp[CMAX][JMAX]; float out[JMAX][7]; } char_f;

static void frame_float(char_f *ch, int n, float dt, float len) {
  int i, j, c;
  for (i = 0; i < n; i++) {
    char_f *s = &ch[i];
    for (c = 0; c < C; c++) {
      float t = s->time[c] + dt;
      if (t >= len) t -= len;
      s->time[c] = t;
    }
    for (j = 0; j < J; j++) {
      float q[4] = {0, 0, 0, 0}, p[3] = {0, 0, 0};
      for (c = 0; c < C; c++) {
        const track *r = &rot[c][j], *pt = &pos[c][j];
        float t = s->time[c], u, a[4], d, l, w = 0.5f;
        int k = s->cr[c][j], m;
        const float *v0, *v1;
        SEEK(r->tf, r->n, k, t);
        s->cr[c][j] = (unsigned char)k;
        u = (t - r->tf[k]) / (r->tf[k + 1] - r->tf[k]);
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        v0 = &r->vf[4 * k]; v1 = v0 + 4;
        for (m = 0; m < 4; m++) a[m] = v0[m] + (v1[m] - v0[m]) * u;
        l = 1.0f / sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        d = q[0] * a[0] + q[1] * a[1] + q[2] * a[2] + q[3] * a[3];
        if (d < 0) w = -w;
        for (m = 0; m < 4; m++) q[m] += a[m] * l * w;
        k = s->cp[c][j];
        SEEK(pt->tf, pt->n, k, t);
        s->cp[c][j] = (unsigned char)k;
        u = (t - pt->tf[k]) / (pt->tf[k + 1] - pt->tf[k]);
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        v0 = &pt->vf[3 * k]; v1 = v0 + 3;
        for (m = 0; m < 3; m++) p[m] += 0.5f * (v0[m] + (v1[m] - v0[m]) * u);
      }
      {
        float l = 1.0f / sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        float *o = s->out[j];
        o[0] = p[0]; o[1] = p[1]; o[2] = p[2];
        o[3] = q[0] * l; o[4] = q[1] * l; o[5] = q[2] * l; o[6] = q[3] * l;
      }
    }
  }
}

#ifndef W1_REF_LUA /* (the module times the float loop alone) */
/* ---- double, libm slerp -------------------------------------------------- */

typedef struct { double time[CMAX]; unsigned char cr[CMAX][JMAX], cp[CMAX][JMAX]; double out[JMAX][7]; } char_d;

static void slerp(const double *a, const double *b, double u, double *o) {
  double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = 1, wa, wb, th, sn;
  int m;
  if (d < 0) { d = -d; s = -1; }
  th = acos(d > 1 ? 1 : d);
  sn = sin(th);
  if (sn < 1e-12) { wa = 1 - u; wb = u; }
  else { wa = sin((1 - u) * th) / sn; wb = sin(u * th) / sn; }
  wb *= s;
  for (m = 0; m < 4; m++) o[m] = a[m] * wa + b[m] * wb;
}

static void frame_exact(char_d *ch, int n, double dt, double len) {
  int i, j, c;
  for (i = 0; i < n; i++) {
    char_d *s = &ch[i];
    for (c = 0; c < C; c++) {
      double t = s->time[c] + dt;
      if (t >= len) t -= len;
      s->time[c] = t;
    }
    for (j = 0; j < J; j++) {
      double q[4] = {0, 0, 0, 0}, p[3] = {0, 0, 0};
      for (c = 0; c < C; c++) {
        const track *r = &rot[c][j], *pt = &pos[c][j];
        double t = s->time[c], u, a[4], d, w = 0.5;
        int k = s->cr[c][j], m;
        const double *v0, *v1;
        SEEK(r->t, r->n, k, t);
        s->cr[c][j] = (unsigned char)k;
        u = (t - r->t[k]) / (r->t[k + 1] - r->t[k]);
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        slerp(&r->v[4 * k], &r->v[4 * k + 4], u, a);
        d = q[0] * a[0] + q[1] * a[1] + q[2] * a[2] + q[3] * a[3];
        if (d < 0) w = -w;
        for (m = 0; m < 4; m++) q[m] += a[m] * w;
        k = s->cp[c][j];
        SEEK(pt->t, pt->n, k, t);
        s->cp[c][j] = (unsigned char)k;
        u = (t - pt->t[k]) / (pt->t[k + 1] - pt->t[k]);
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        v0 = &pt->v[3 * k]; v1 = v0 + 3;
        for (m = 0; m < 3; m++) p[m] += 0.5 * (v0[m] + (v1[m] - v0[m]) * u);
      }
      {
        double l = 1 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        double *o = s->out[j];
        o[0] = p[0]; o[1] = p[1]; o[2] = p[2];
        o[3] = q[0] * l; o[4] = q[1] * l; o[5] = q[2] * l; o[6] = q[3] * l;
      }
    }
  }
}

#endif

/* W1's start times: character i at frac((i + 1) * phi) * D */
static double start_of(int i) { return fmod((i + 1) * 0.6180339887498949, 1.0) * D; }

#ifndef W1_REF_LUA
/* ---- driver --------------------------------------------------------------- */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void) {
  char line[256];
  long kb = -1;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = atol(line + 6);
  fclose(f);
  return kb;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-3; }

int main(int argc, char **argv) {
  const char *kind = "float", *data = "../shared/bench/w1.txt", *why;
  int n = 1000, runs = 5, i, r, c, exact, bad;
  double *times, med, per, q3[4], p3[3], psum = 0;
  char_f *chf = NULL;
  char_d *chd = NULL;
  for (i = 1; i < argc; i++) {
    if (i + 1 < argc && !strcmp(argv[i], "--kind")) kind = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--n")) n = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--runs")) runs = atoi(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--data")) data = argv[++i];
    else {
      fprintf(stderr, "usage: w1_ref --kind float|exact [--n N] [--runs R] [--data w1.txt]\n");
      return 2;
    }
  }
  exact = !strcmp(kind, "exact");
  if ((!exact && strcmp(kind, "float")) || n < 1 || runs < 1) {
    fprintf(stderr, "w1_ref: --kind float|exact, --n >= 1, --runs >= 1\n");
    return 2;
  }
  if ((why = read_w1(data))) {
    fprintf(stderr, "w1_ref: %s: %s\n", data, why);
    return 2;
  }
  times = malloc(sizeof *times * runs);
  if (exact) chd = calloc(n, sizeof *chd); else chf = calloc(n, sizeof *chf);
  if (!times || (!chd && !chf)) { fprintf(stderr, "w1_ref: out of memory\n"); return 2; }
  for (i = 0; i < n; i++) {
    double start = start_of(i);
    for (c = 0; c < C; c++) {
      if (exact) chd[i].time[c] = start; else chf[i].time[c] = (float)start;
    }
  }
  /* warm-up, cross-check, timed runs */
  for (r = -1; r < runs; r++) {
    double t0 = now();
    for (i = 0; i < FRAMES; i++) {
      if (exact) frame_exact(chd, n, 1.0 / 60, D);
      else frame_float(chf, n, 1.0f / 60, (float)D);
    }
    if (r >= 0) times[r] = now() - t0;
    else {
      int j, m;
      for (m = 0; m < 7; m++) {
        double v = exact ? chd[0].out[3][m] : chf[0].out[3][m];
        if (m < 3) p3[m] = v; else q3[m - 3] = v;
      }
      if (q3[3] < 0) for (m = 0; m < 4; m++) q3[m] = -q3[m];
      for (j = 0; j < J; j++)
        for (m = 0; m < 3; m++) psum += exact ? chd[0].out[j][m] : chf[0].out[j][m];
    }
  }
  { /* keep the stores of the timed runs observable */
    volatile double sink = exact ? chd[n - 1].out[J - 1][6] : chf[n - 1].out[J - 1][6];
    (void)sink;
  }
  qsort(times, runs, sizeof *times, cmp);
  med = times[(runs - 1) / 2];
  per = 1e9 / ((double)FRAMES * n * J);
  printf("{\"workload\":\"W1-ref-%s\",\"variant\":\"w1\",\"n\":%d,\"mode\":\"update\",\"runs\":%d,"
         "\"ns_per_joint_sample\":%.2f,\"ms_per_frame\":%.4f,\"peak_rss_kb\":%ld,"
         "\"check\":{\"q3\":[%.6f,%.6f,%.6f,%.6f],\"p3\":[%.6f,%.6f,%.6f],\"psum\":%.6f},"
         "\"ns_min\":%.2f,\"ns_max\":%.2f,\"clock\":\"CLOCK_PROCESS_CPUTIME_ID\"}\n",
         kind, n, runs, med * per, med / FRAMES * 1e3, peak_rss_kb(),
         q3[0], q3[1], q3[2], q3[3], p3[0], p3[1], p3[2], psum, times[0] * per, times[runs - 1] * per);
  bad = !(close_to(q3[0], -0.1487) && close_to(q3[1], -0.0030) && close_to(q3[2], -0.1411) &&
          close_to(q3[3], 0.9788) && close_to(p3[0], 0.3329) && close_to(p3[1], 0.9340) &&
          close_to(p3[2], -0.1903) && close_to(psum, 20.024));
  if (bad) fprintf(stderr, "w1_ref: the W1 cross-check is off (README: q3 (-0.1487, -0.0030, -0.1411, 0.9788), "
                           "p3 (0.3329, 0.9340, -0.1903), psum 20.024)\n");
  free(times); free(chf); free(chd);
  return bad;
}
#else
/* ---- the float loop as the Lua module bench.w1float ------------------------
 * (build/bench/w1float.so: this file built with -DW1_REF_LUA) so that
 * bench/w1pair.lua can time it and anim's batch update in the same process,
 * in slices taking turns.
 * - setup(path, n): reads the W1 data, makes n characters at W1's start
 *   times (the float loop's state), or nil and why.
 * - frames(k): k frames of the float loop (dt 1/60).
 * - check(): character 0's joint j3 (px, py, pz, qx, qy, qz, qw) and the
 *   sum of its 60 position components: the W1 cross-check. */
#include <lauxlib.h>
#include <lua.h>

/* the characters, in the module's one upvalue (a full userdata) */
typedef struct { int n; char_f *ch; } w1float;

static int w1f_gc(lua_State *L) {
  w1float *w = lua_touserdata(L, 1);
  free(w->ch);
  w->ch = NULL;
  w->n = 0;
  return 0;
}

static int w1f_setup(lua_State *L) {
  w1float *w = lua_touserdata(L, lua_upvalueindex(1));
  const char *path = luaL_checkstring(L, 1), *why;
  lua_Integer n = luaL_checkinteger(L, 2);
  int i, c;
  luaL_argcheck(L, n >= 1 && n <= 1000000, 2, "1 to 1000000 characters");
  if ((why = read_w1(path))) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, why);
    return 2;
  }
  free(w->ch);
  w->n = 0;
  if (!(w->ch = calloc((size_t)n, sizeof *w->ch))) return luaL_error(L, "out of memory");
  w->n = (int)n;
  for (i = 0; i < w->n; i++)
    for (c = 0; c < C; c++) w->ch[i].time[c] = (float)start_of(i);
  lua_pushboolean(L, 1);
  return 1;
}

static w1float *w1f_ready(lua_State *L) {
  w1float *w = lua_touserdata(L, lua_upvalueindex(1));
  if (!w->ch) luaL_error(L, "bench.w1float: setup first");
  return w;
}

static int w1f_frames(lua_State *L) {
  w1float *w = w1f_ready(L);
  lua_Integer k = luaL_checkinteger(L, 1);
  for (; k > 0; k--) frame_float(w->ch, w->n, 1.0f / 60, (float)D);
  return 0;
}

static int w1f_check(lua_State *L) {
  w1float *w = w1f_ready(L);
  double psum = 0;
  int j, m;
  for (m = 0; m < 7; m++) lua_pushnumber(L, w->ch[0].out[3][m]);
  for (j = 0; j < J; j++)
    for (m = 0; m < 3; m++) psum += w->ch[0].out[j][m];
  lua_pushnumber(L, psum);
  return 8;
}

int luaopen_bench_w1float(lua_State *L) {
  static const luaL_Reg fns[] = { { "setup", w1f_setup }, { "frames", w1f_frames }, { "check", w1f_check }, { NULL, NULL } };
  w1float *w;
  lua_newtable(L);
  w = lua_newuserdata(L, sizeof *w);
  w->n = 0;
  w->ch = NULL;
  lua_newtable(L);
  lua_pushcfunction(L, w1f_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  luaL_setfuncs(L, fns, 1);
  return 1;
}
#endif
