/* amath.h - the small maths the core needs: quaternions, Euler orders and
 * the easing curves of easings.net.  Plain C, no Lua. */
#ifndef ANIM_AMATH_H
#define ANIM_AMATH_H

#define ANIM_PI 3.14159265358979323846

/* Interpolations of a key (the segment that starts at it). */
enum {
  ANIM_LINEAR, ANIM_STEP, ANIM_CATMULLROM, ANIM_BEZIER,
  ANIM_SINE, ANIM_QUAD, ANIM_CUBIC, ANIM_QUART, ANIM_QUINT,
  ANIM_EXPO, ANIM_CIRC, ANIM_BACK, ANIM_BOUNCE, ANIM_ELASTIC,
  ANIM_INTERP_COUNT
};

/* Easing directions. */
enum { ANIM_EASE_IN, ANIM_EASE_OUT, ANIM_EASE_INOUT };

/* Euler orders: "abc" means R = R_a * R_b * R_c (three.js). */
enum { ANIM_XYZ, ANIM_XZY, ANIM_YXZ, ANIM_YZX, ANIM_ZXY, ANIM_ZYX };

/* The easing curve of interpolation `interp` (ANIM_SINE..ANIM_ELASTIC) in
 * direction `ease`, at fraction s in [0,1]. */
double anim_ease(int interp, int ease, double s);

/* The default direction of an easing when a key leaves `ease` out:
 * back, bounce and elastic ease out, the rest ease in. */
int anim_ease_default(int interp);

/* Quaternions are double[4] = x, y, z, w. */
void anim_quat_identity(double q[4]);
void anim_quat_mul(double out[4], const double a[4], const double b[4]);
void anim_quat_normalize(double q[4]);
void anim_quat_conj(double out[4], const double q[4]);
/* Shortest-arc slerp; f may lie outside [0,1] (carries on along the arc). */
void anim_quat_slerp(double out[4], const double a[4], const double b[4], double f);
/* Angles in degrees, composed in `order` (ANIM_XYZ..). */
void anim_quat_from_euler(double out[4], const double deg[3], int order);
void anim_quat_rotate(double out[3], const double q[4], const double v[3]);

#endif
