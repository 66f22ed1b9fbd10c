/* lua_draw2d.h - what the 2D drawing's files share (csrc/lua/lua_draw2d.c:
 * records and drawers; lua_draw2d_slots.c: the slots' readers;
 * lua_draw2d_run.c: a run of slots drawn in one call).  Not Lua's API. */
#ifndef ANIM_LUA_DRAW2D_H
#define ANIM_LUA_DRAW2D_H

#include <stddef.h>

#include "lua.h"

#include "core/animator.h"
#include "core/skin.h"

#define ANIM_RECORD2D_MT "anim.record2d"
#define ANIM_DRAWER2D_MT "anim.drawer2d"
#define ANIM_SLOTS2D_MT "anim.slots2d"
#define ANIM_DRAWER2D_TAG 0x64726132u /* "dra2" */
#define ANIM_SLOTS2D_TAG 0x736c7432u  /* "slt2" */

/* A record: the header's numbers, then (in the same block) the record's
 * numbers as made (h: its 1-based reads) and its corners as indices. */
typedef struct anim_record2d {
  unsigned tag;
  int kind, bone, deform;  /* deform: its index among a drawer's (0-based), or -1 */
  size_t n, len, ntri, nent, need, total; /* need: the bones it reads; total: the numbers of h */
  const double *h, *geom, *uv;
  const float *uvf;        /* the uvs as the vertices' floats (NULL: no uvs) */
  const unsigned *tri;
} anim_record2d;

/* A deform of a drawer: its property's name (in the drawer's block), its
 * slot among the animator's properties (-1: not known), and this frame's
 * offsets (n of them, 0: none; v a block of cap doubles, anchored in the
 * drawer's table, made when first needed). */
typedef struct {
  const char *name;
  size_t len, n, cap;
  int slot;
  double *v;
} anim_deform2d;

/* A drawer: its world and scratch buffers' numbers (the buffers kept in
 * its table: a buffer's numbers are in its own block, which neither moves
 * nor changes size while it lives), its deforms, and the animator their
 * slots were found on. */
typedef struct {
  unsigned tag;
  double *world, *scratch;
  size_t nbones, nscratch, ndef;
  unsigned long long serial;   /* the animator the deforms' slots are of (its box's serial) */
  int gen;                     /* and its count of names then */
  anim_deform2d *def;
} anim_drawer2d;

/* The vertices per slot the drawing writes: x, y, u, v, r, g, b, a, dark
 * r, g, b, 1 (LÖVE's mesh format of anim.love). */
#define ANIM_DRAW2D_STRIDE 12

/* r's triangles unrolled into o from vertex `first`, placed by d's world
 * matrices and r's deform of this frame, coloured col (8 numbers); the
 * vertices written.  Raises (naming argument arg: the record's) when r
 * reads bones, a scratch or a deform the drawer lacks, or (outarg; bytes:
 * o is a ByteData) when o has no room. */
size_t anim_lua_draw2d_record(lua_State *L, int arg, anim_drawer2d *d, const anim_record2d *r, int outarg,
                              const anim_skin_out *o, int bytes, size_t first, const double col[8]);

/* A slot reader (lua_draw2d_slots.c): its number of slots, and slot i's
 * (0-based) attachment index (*k: 1-based among its names, 0 none, -1
 * the setup attachment) and colours (v: r, g, b, a, dark r, g, b) now,
 * the property slots found first (serial: the animator's box's). */
typedef struct anim_slots2d anim_slots2d;
/* The drawer, the reader at arg (their metatables by name, their tags and
 * sizes), else raises naming what was given. */
anim_drawer2d *anim_lua_checkdrawer2d(lua_State *L, int arg);
anim_slots2d *anim_lua_checkslots2d(lua_State *L, int arg);
size_t anim_slots2d_count(const anim_slots2d *r);
void anim_slots2d_find(const anim_animator *a, anim_slots2d *r, unsigned long long serial);
void anim_slots2d_values(const anim_animator *a, const anim_slots2d *r, size_t i, lua_Integer *k, double v[7]);

#endif
