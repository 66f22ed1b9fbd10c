/* lua_draw2d.c - a 2D skeleton's attachments in world space for Lua
 * (csrc/core/verts2d.c): the numbers anim.love draws and
 * world_vertices gives, computed in C so that a frame allocates nothing.
 *
 * An attachment is a record (core.record2d), made once by the runtime
 * (lua/anim/runtime/attach2d.lua) from a module buffer of doubles:
 *   [0] kind: 1 points in one bone's frame, 2 weighted (Spine's layout)
 *   [1] the bone (0-based; kind 1), [2] n its vertices, [3] len the
 *   numbers of its geometry (kind 1: 2n; kind 2: the layout's), [4] ntri
 *   its triangles, [5] 1 when uvs follow the geometry; then the geometry,
 *   2n uvs (when [5] is 1) and 3 ntri vertex indices (0-based).
 * The record is checked against itself once, when made, and copied into a
 * userdata no script can write: a call checks only what the record does
 * not know (the bones it is given, its deform's size), so that a broken
 * record raises when made and none reads out of bounds.
 *
 * A drawer (core.drawer2d, one per animator) holds what the draw of one
 * animator's slots reads beside the records: the bones' world matrices and
 * a scratch (module buffers it keeps), and the deforms' offsets of this
 * frame, copied by core.drawer2d_pose from the animator's property slots
 * (found again only when the animator knows more names or is another). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/amem.h"
#include "core/skin.h"
#include "core/world2d.h"
#include "core/propmix.h"
#include "core/verts2d.h"
#include "lua_helpers.h"
#include "lua_buffer.h"
#include "lua_draw2d.h"

#define HEAD 6
typedef anim_record2d record;
typedef anim_deform2d deform2d;
typedef anim_drawer2d drawer;
#define RECORD_TAG 0x72656332u /* "rec2" */
#define DRAWER_TAG ANIM_DRAWER2D_TAG
#define RECORD_MT ANIM_RECORD2D_MT
#define DRAWER_MT ANIM_DRAWER2D_MT


static anim_lua_buffer *doubles(lua_State *L, int arg, const char *what) {
  anim_lua_buffer *b = anim_lua_tobuffer(L, arg);
  if (!b || !b->is_double) anim_lua_argerror(L, arg, "%s must be an anim.buffer of doubles, got %s", what,
                                             b ? "a buffer of floats" : anim_lua_typename(L, arg));
  return b;
}

static int whole(double v, double below) { return v >= 0 && v < below && v == floor(v); }

/* The header of the buffer at arg, checked against itself: kind, counts
 * and what follows it; into r (its pointers into h). */
static void check_header(lua_State *L, int arg, const double *h, size_t nh, record *r) {
  size_t need;
  if (nh < HEAD || !(h[0] == 1 || h[0] == 2) || !whole(h[2], 1 << 24) || !whole(h[3], 1 << 26) ||
      !whole(h[4], 1 << 24) || !(h[5] == 0 || h[5] == 1))
    anim_lua_argerror(L, arg, "not an attachment record (its header is broken)");
  r->kind = (int)h[0];
  r->n = (size_t)h[2];
  r->len = (size_t)h[3];
  r->ntri = (size_t)h[4];
  need = HEAD + r->len + (h[5] == 1 ? 2 * r->n : 0) + 3 * r->ntri;
  if (nh != need) anim_lua_argerror(L, arg, "not an attachment record (%d numbers, its header says %d)", (int)nh, (int)need);
  r->total = nh;
  r->geom = h + HEAD;
  r->uv = h[5] == 1 ? r->geom + r->len : NULL;
}

/* The geometry of r checked (its bone, or its weights' layout, of any
 * skeleton: the bones a call gives are checked against r->need). */
static void check_geometry(lua_State *L, int arg, const double *h, record *r) {
  if (r->kind == 1) {
    if (r->len != 2 * r->n) anim_lua_argerror(L, arg, "not an attachment record (%d numbers for %d points)", (int)r->len, (int)r->n);
    if (!whole(h[1], 1 << 24)) {
      char num[32];
      snprintf(num, sizeof num, "%g", h[1]);
      anim_lua_argerror(L, arg, "its bone %s is not a bone's index", num);
    }
    r->bone = (int)h[1];
    r->nent = r->n;
    r->need = (size_t)r->bone + 1;
  } else {
    size_t nv = 0, ne = 0;
    if (!anim_weighted2d_check(r->geom, r->len, (size_t)1 << 24, &nv, &ne))
      anim_lua_argerror(L, arg, "its weights are broken at number %d of its layout (a count, or a bone not a bone's index)", (int)nv);
    if (nv != r->n) anim_lua_argerror(L, arg, "its weights give %d vertices, its header %d", (int)nv, (int)r->n);
    r->bone = -1;
    r->nent = ne;
    r->need = anim_weighted2d_bones(r->geom, r->len);
  }
}

/* core.record2d(buffer [, deform]) -> record: the record in buffer (the
 * layout above) checked and copied; deform the 1-based index of its
 * deform among its drawer's (nil: none). */
static int record2d(lua_State *L) {
  anim_lua_buffer *b = doubles(L, 1, "the attachment");
  const double *h = b->data, *tri;
  record r, *out;
  size_t i, at;
  double *hc;
  float *uf;
  unsigned *tc;
  check_header(L, 1, h, b->n, &r);
  check_geometry(L, 1, h, &r);
  tri = r.geom + r.len + (r.uv ? 2 * r.n : 0);
  for (i = 0; i < 3 * r.ntri; i++)
    if (!whole(tri[i], (double)r.n)) anim_lua_argerror(L, 1, "triangle corner %d is not a vertex (of %d)", (int)i + 1, (int)r.n);
  r.deform = -1;
  if (!lua_isnoneornil(L, 2)) {
    lua_Number d = luaL_checknumber(L, 2);
    if (!whole(d - 1, 1 << 24)) return anim_lua_argerror(L, 2, "a deform's index (1, 2, ...) expected");
    r.deform = (int)d - 1;
  }
  at = anim_align8(sizeof r);
  out = lua_newuserdatauv(L, at + r.total * sizeof(double) + (r.uv ? 2 * r.n * sizeof(float) : 0) +
                                 3 * r.ntri * sizeof(unsigned), 0);
  hc = (double *)(void *)((char *)out + at);
  uf = (float *)(void *)(hc + r.total);
  tc = (unsigned *)(void *)(uf + (r.uv ? 2 * r.n : 0));
  for (i = 0; r.uv && i < 2 * r.n; i++) uf[i] = (float)r.uv[i];
  memcpy(hc, h, r.total * sizeof(double));
  for (i = 0; i < 3 * r.ntri; i++) tc[i] = (unsigned)tri[i];
  r.tag = RECORD_TAG;
  r.h = hc;
  r.geom = hc + HEAD;
  r.uvf = r.uv ? uf : NULL;
  r.uv = r.uv ? r.geom + r.len : NULL;
  r.tri = tc;
  *out = r;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  return 1;
}

/* The userdata at arg when its metatable is the one at upvalue up (no
 * lookup in the registry) and its size and tag are a `size` block's. */
static void *typed(lua_State *L, int arg, int up, size_t size, unsigned tag) {
  const unsigned *p = lua_touserdata(L, arg);
  int same;
  if (!p || lua_type(L, arg) != LUA_TUSERDATA || lua_rawlen(L, arg) < size || *p != tag || !lua_getmetatable(L, arg))
    return NULL;
  same = lua_topointer(L, -1) == lua_topointer(L, lua_upvalueindex(up));
  lua_pop(L, 1);
  return same ? (void *)p : NULL;
}

/* The record at arg (upvalue 1 its metatable). */
static const record *check_record(lua_State *L, int arg) {
  const record *r = typed(L, arg, 1, sizeof(record), RECORD_TAG);
  if (!r) anim_lua_argerror(L, arg, "an attachment record (core.record2d) expected, got %s", anim_lua_typename(L, arg));
  return r;
}

/* r read with the world matrices of nbones bones: raises when it reads a
 * bone beyond them (the message of the first such number). */
static void check_bones(lua_State *L, int arg, const record *r, size_t nbones) {
  size_t nv = 0, ne = 0;
  if (r->need <= nbones) return;
  if (r->kind == 1) anim_lua_argerror(L, arg, "its bone %d is not one of the %d bones", r->bone, (int)nbones);
  anim_weighted2d_check(r->geom, r->len, nbones, &nv, &ne);
  anim_lua_argerror(L, arg, "its weights are broken at number %d of its layout (a count, or a bone not one of the %d)", (int)nv, (int)nbones);
}

/* The world positions of r's n vertices into xy (2 doubles each). */
static void place(const record *r, const double *world, const double *deform, double *xy) {
  if (r->kind == 1)
    anim_points2d_world(world + 6 * r->bone, r->geom, deform, r->n, xy, 2);
  else
    anim_weighted2d_world(world, r->geom, r->len, deform, xy, 2);
}

/* core.attachment2d(world, record, deform|nil, scratch) -> n: its
 * positions into scratch (2 doubles a vertex) */
static int attachment2d(lua_State *L) {
  anim_lua_buffer *w = doubles(L, 1, "the bones' world matrices"), *d = NULL, *s;
  const record *r;
  if (w->n % 6) return anim_lua_argerror(L, 1, "%d numbers: not 6 a bone", (int)w->n);
  r = check_record(L, 2);
  check_bones(L, 2, r, w->n / 6);
  if (!lua_isnoneornil(L, 3)) {
    d = doubles(L, 3, "the deform");
    if (d->n != 2 * r->nent) return anim_lua_argerror(L, 3, "%d offsets, the attachment needs %d", (int)d->n, (int)(2 * r->nent));
  }
  s = doubles(L, 4, "the scratch");
  if (s->n < 2 * r->n) return anim_lua_argerror(L, 4, "too small: %d doubles, %d needed", (int)s->n, (int)(2 * r->n));
  place(r, w->data, d ? d->data : NULL, s->data);
  lua_pushinteger(L, (lua_Integer)r->n);
  return 1;
}

/* (by the registry's metatable, for lua_draw2d_run.c's core.draw2d_run
 * too, which has not this file's upvalues: one check for both) */
anim_drawer2d *anim_lua_checkdrawer2d(lua_State *L, int arg) {
  drawer *d = luaL_testudata(L, arg, DRAWER_MT);
  if (!d || lua_rawlen(L, arg) < sizeof *d || d->tag != DRAWER_TAG)
    anim_lua_argerror(L, arg, "a drawer (core.drawer2d) expected, got %s", anim_lua_typename(L, arg));
  return d;
}

/* core.drawer2d(world, scratch, deforms) -> drawer: world (6 doubles a
 * bone) and scratch module buffers of doubles, deforms the names of the
 * deform properties its records name by index. */
static int drawer2d(lua_State *L) {
  anim_lua_buffer *w = doubles(L, 1, "the bones' world matrices"), *s = doubles(L, 2, "the scratch");
  size_t ndef, i, names = 0, at;
  drawer *d;
  char *text;
  if (w->n % 6) return anim_lua_argerror(L, 1, "%d numbers: not 6 a bone", (int)w->n);
  luaL_checktype(L, 3, LUA_TTABLE);
  ndef = (size_t)lua_rawlen(L, 3);
  for (i = 0; i < ndef; i++) {
    size_t len;
    anim_lua_rawgetn(L, 3, (int)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) return anim_lua_argerror(L, 3, "deform %d: a property's name expected, got %s", (int)i + 1, anim_lua_typename(L, -1));
    lua_tolstring(L, -1, &len);
    names += len + 1;
    lua_pop(L, 1);
  }
  at = anim_align8(sizeof *d);
  d = lua_newuserdatauv(L, at + ndef * sizeof(deform2d) + names, 1);
  memset(d, 0, at + ndef * sizeof(deform2d) + names);
  d->tag = DRAWER_TAG;
  d->world = w->data;
  d->scratch = s->data;
  d->nbones = w->n / 6;
  d->nscratch = s->n / 2;
  d->ndef = ndef;
  d->gen = -1;
  d->def = (deform2d *)(void *)((char *)d + at);
  text = (char *)(d->def + ndef);
  /* (the names read again into the block: the allocation may have run
   * finalizers, which may have changed the table; a name that no longer
   * fits, or is no longer one, is refused) */
  for (i = 0; i < ndef; i++) {
    const char *name;
    anim_lua_rawgetn(L, 3, (int)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) + 1 > names)
      return anim_lua_argerror(L, 3, "deform %d changed while it was read", (int)i + 1);
    name = lua_tolstring(L, -1, &d->def[i].len);
    names -= d->def[i].len + 1;
    memcpy(text, name, d->def[i].len);
    d->def[i].name = text;
    d->def[i].slot = -1;
    text += d->def[i].len + 1;
    lua_pop(L, 1);
  }
  /* (its table: [1] world, [2] scratch, [2 + k] deform k's block) */
  lua_createtable(L, 2 + (int)ndef, 0);
  lua_pushvalue(L, 1);
  anim_lua_rawsetn(L, -2, 1);
  lua_pushvalue(L, 2);
  anim_lua_rawsetn(L, -2, 2);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_setmetatable(L, -2);
  return 1;
}

/* Each bone's world matrix (6 numbers) into out, in the description's
 * order: map[i] bone i's joint of the rig (0-based). */
static void world_into(lua_State *L, anim_animator *a, double *out, const anim_lua_buffer *map, int maparg) {
  const double *j = map->data;
  size_t i, njoints = (size_t)anim_animator_rig(a)->n;
  for (i = 0; i < map->n; i++) {
    if (!whole(j[i], (double)njoints) || anim_animator_world2d(a, (int)j[i], out + 6 * i) != 0)
      anim_lua_argerror(L, maparg, "bone %d: no 2D bone %d on this animator", (int)i + 1, (int)j[i]);
  }
}

/* The slots of d's deforms among a's properties (serial: a's box's).  A
 * slot found is that name's while a lives (an animator's slots are never
 * removed nor renumbered: propmix.c); a deform not found is looked for
 * again when a knows more names, or when a is another animator (the
 * serial, not the address: it may be a freed animator's, and a restore
 * puts a new animator in the same box). */
static void find_deforms(const anim_animator *a, drawer *d, unsigned long long serial) {
  size_t k;
  int gen = anim_props_generation(a);
  if (serial != d->serial)
    for (k = 0; k < d->ndef; k++) d->def[k].slot = -1;
  else if (gen == d->gen)
    return;
  d->serial = serial;
  d->gen = gen;
  for (k = 0; k < d->ndef; k++)
    if (d->def[k].slot < 0) d->def[k].slot = anim_props_find(a, d->def[k].name, d->def[k].len);
}

/* A block for deform k's offsets of this frame made when it needs one or
 * a larger one: 1 when one was made (an allocation: finalizers may have
 * run), else 0. */
static int deform_room(lua_State *L, const anim_animator *a, drawer *d, size_t k) {
  deform2d *f = &d->def[k];
  const double *v;
  int n = f->slot < 0 ? 0 : anim_props_at(a, f->slot, &v);
  if (n <= 0 || (size_t)n <= f->cap) return 0;
  lua_getiuservalue(L, 1, 1);
  f->v = anim_lua_newbuffer(L, (size_t)n, 1)->data;
  f->cap = (size_t)n;
  anim_lua_rawsetn(L, -2, 3 + (int)k);
  lua_pop(L, 1);
  return 1;
}

/* Deform k's offsets of this frame copied (none: n 0), into its block,
 * which deform_room made large enough. */
static void copy_deform(const anim_animator *a, drawer *d, size_t k) {
  deform2d *f = &d->def[k];
  const double *v;
  size_t i;
  int n = f->slot < 0 ? 0 : anim_props_at(a, f->slot, &v);
  f->n = 0;
  if (n <= 0 || (size_t)n > f->cap) return;
  for (i = 0; i < (size_t)n; i++) f->v[i] = v[i];
  f->n = (size_t)n;
}

/* core.drawer2d_pose(drawer, animator, map): the bones' world matrices
 * into the drawer's world (map: each bone's joint of the rig, a buffer of
 * doubles), its deforms' offsets of this frame copied.  The deforms'
 * blocks are made first, and the animator taken again after each round
 * that made one: an allocation may run finalizers, and one may restore
 * the animator (a new one in its box, the old one freed). */
static int drawer2d_pose(lua_State *L) {
  drawer *d = anim_lua_checkdrawer2d(L, 1);
  anim_animator *a;
  const anim_animator_box *b;
  anim_lua_buffer *map = doubles(L, 3, "the bones' joints");
  size_t k;
  int grew;
  (void)anim_lua_checkanimator(L, 2);
  if (map->n != d->nbones) return anim_lua_argerror(L, 3, "%d joints for %d bones", (int)map->n, (int)d->nbones);
  do {
    a = anim_lua_checkanimator(L, 2);
    b = lua_touserdata(L, 2);
    find_deforms(a, d, b->serial);
    /* (after a block is made, nothing of a is read: it is taken again) */
    for (grew = 0, k = 0; k < d->ndef && !grew; k++) grew = deform_room(L, a, d, k);
  } while (grew);
  world_into(L, a, d->world, map, 3);
  for (k = 0; k < d->ndef; k++) copy_deform(a, d, k);
  return 0;
}

#define STRIDE ANIM_DRAW2D_STRIDE

/* The deform of r in d (NULL: none this frame), after the checks of what
 * r reads of d: its bones, its uvs, the scratch, its deform's size. */
static const double *checked(lua_State *L, int arg, const drawer *d, const record *r) {
  const deform2d *df;
  check_bones(L, arg, r, d->nbones);
  if (!r->uv) anim_lua_argerror(L, arg, "the attachment has no uvs: it is not drawn");
  if (r->n > d->nscratch) anim_lua_argerror(L, arg, "%d vertices: the drawer's scratch holds %d", (int)r->n, (int)d->nscratch);
  if (r->deform < 0) return NULL;
  if ((size_t)r->deform >= d->ndef) anim_lua_argerror(L, arg, "its deform %d is not one of the drawer's %d", r->deform + 1, (int)d->ndef);
  df = &d->def[r->deform];
  if (df->n && df->n != 2 * r->nent)
    anim_lua_argerror(L, arg, "its deform '%s': %d offsets, the attachment needs %d", df->name, (int)df->n, (int)(2 * r->nent));
  return df->n ? df->v : NULL;
}

size_t anim_lua_draw2d_record(lua_State *L, int arg, drawer *d, const record *r, int outarg, const anim_skin_out *o,
                              int bytes, size_t first, const double col[8]) {
  const double *def = checked(L, arg, d, r), *xy = d->scratch;
  size_t i, k;
  if ((first + 3 * r->ntri) * STRIDE > o->cap) {
    anim_skin_out room = *o;
    room.offset = first * STRIDE;
    anim_lua_skin_room(L, outarg, &room, 3 * r->ntri * STRIDE, bytes);
  }
  place(r, d->world, def, d->scratch);
  if (o->is_double) {
    for (i = 0; i < 3 * r->ntri; i++) {
      size_t v = r->tri[i];
      double *row = (double *)o->data + (first + i) * STRIDE;
      row[0] = xy[2 * v];
      row[1] = xy[2 * v + 1];
      row[2] = r->uv[2 * v];
      row[3] = r->uv[2 * v + 1];
      for (k = 0; k < 8; k++) row[4 + k] = col[k];
    }
  } else {
    /* (floats: each vertex's position and uv made once, not at each of
     * its corners, into the scratch: vertex v's four floats take the
     * bytes of its two doubles, read before they are written and never
     * after; the uvs were converted when the record was made; a corner is
     * then two copies, its vertex's 16 bytes and the colours' 32; the same
     * floats) */
    unsigned char *xyuv = (unsigned char *)d->scratch; /* (written and read by memcpy: doubles alias it) */
    float colf[8];
    for (i = 0; i < r->n; i++) {
      float p[4];
      p[0] = (float)xy[2 * i];
      p[1] = (float)xy[2 * i + 1];
      p[2] = r->uvf[2 * i];
      p[3] = r->uvf[2 * i + 1];
      memcpy(xyuv + i * sizeof p, p, sizeof p);
    }
    for (k = 0; k < 8; k++) colf[k] = (float)col[k];
    {
      /* (in locals: the copies could write r's and o's fields for all the
       * compiler knows, which it would then read again at each corner) */
      const unsigned *tri = r->tri;
      float *row = (float *)o->data + first * STRIDE;
      size_t nc = 3 * r->ntri;
      for (i = 0; i < nc; i++, row += STRIDE) {
        memcpy(row, xyuv + (size_t)tri[i] * 4 * sizeof(float), 4 * sizeof(float));
        memcpy(row + 4, colf, sizeof colf);
      }
    }
  }
  return 3 * r->ntri;
}

/* core.draw2d(drawer, record, out, first, r, g, b, a, dr, dg, db) ->
 * vertices written: the triangles unrolled from vertex `first` of out (a
 * module buffer or a ByteData of floats), 12 numbers a vertex (LÖVE's
 * mesh format of anim.love), placed by the drawer's world matrices and
 * the record's deform of this frame. */
static int draw2d(lua_State *L) {
  drawer *d = anim_lua_checkdrawer2d(L, 1);
  const record *r = check_record(L, 2);
  double col[8];
  anim_skin_out o = { 0 };
  int kind, c;
  lua_Number f = luaL_checknumber(L, 4);
  (void)checked(L, 2, d, r); /* (what the record reads raises before the target's checks) */
  kind = anim_lua_skin_target(L, 3, 3, &o);
  if (kind == 0) return anim_lua_argerror(L, 3, "a module buffer or a ByteData expected, got a table");
  if (!whole(f, 1 << 26)) {
    char num[32];
    snprintf(num, sizeof num, "%g", (double)f);
    return anim_lua_argerror(L, 4, "first must be an integer in [0, 2^26), got %s", num);
  }
  for (c = 0; c < 7; c++) col[c] = luaL_checknumber(L, 5 + c);
  col[7] = 1;
  lua_pushinteger(L, (lua_Integer)anim_lua_draw2d_record(L, 2, d, r, 3, &o, kind == 1, (size_t)f, col));
  return 1;
}

/* record[i]: the i-th number it was made of (1-based); #record */
static int record_index(lua_State *L) {
  const record *r = check_record(L, 1);
  lua_Number i = luaL_checknumber(L, 2);
  if (!whole(i - 1, (double)r->total)) return anim_lua_argerror(L, 2, "index %d out of the record's %d numbers", (int)i, (int)r->total);
  lua_pushnumber(L, r->h[(size_t)i - 1]);
  return 1;
}

static int record_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)check_record(L, 1)->total);
  return 1;
}

/* core.region2d_corners(x, y, rotation, sx, sy, width, height [, packed_w,
 * packed_h, offset_x, offset_y, original_w, original_h]) -> 8 numbers */
static int region2d_corners(lua_State *L) {
  double v[13] = { 0 }, out[8];
  anim_region2d r;
  int i;
  for (i = 0; i < 13; i++) v[i] = i < 7 ? luaL_checknumber(L, i + 1) : luaL_optnumber(L, i + 1, 0);
  r.x = v[0], r.y = v[1], r.rotation = v[2], r.scale_x = v[3], r.scale_y = v[4], r.width = v[5], r.height = v[6];
  r.packed_w = v[7], r.packed_h = v[8], r.offset_x = v[9], r.offset_y = v[10], r.original_w = v[11], r.original_h = v[12];
  anim_region2d_corners(&r, out);
  for (i = 0; i < 8; i++) lua_pushnumber(L, out[i]);
  return 8;
}

/* core.world2d_into(animator, out, map): each bone's world matrix (6
 * numbers) into out, in the description's order: map[i] is bone i's joint
 * of the rig (0-based), as a buffer of doubles.  No Lua value is made. */
static int world2d_into(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  anim_lua_buffer *out = doubles(L, 2, "the bones' world matrices"), *map = doubles(L, 3, "the bones' joints");
  if (out->n != 6 * map->n) return anim_lua_argerror(L, 2, "%d numbers for %d bones (6 each)", (int)out->n, (int)map->n);
  world_into(L, a, out->data, map, 3);
  return 0;
}

/* core.property_buffer(animator, name [, buf]) -> buf | nil: the blended
 * value of property `name` (a deform's offsets) copied into buf when it
 * is a buffer of doubles of its size, else into a new one; nil when the
 * property is unknown or has no value.  (A frame allocates only when a
 * deform's size changes.) */
static int property_buffer(lua_State *L) {
  anim_animator *a = anim_lua_checkanimator(L, 1);
  size_t len, i;
  const char *name = luaL_checklstring(L, 2, &len);
  anim_lua_buffer *b = anim_lua_tobuffer(L, 3);
  const double *v;
  int n = anim_animator_property(a, name, len, &v);
  if (n <= 0) { lua_pushnil(L); return 1; }
  if (!b || !b->is_double || b->n != (size_t)n) {
    b = anim_lua_newbuffer(L, (size_t)n, 1);
    /* (a new buffer: the blended values may have moved if its allocation collected; read them again) */
    n = anim_animator_property(a, name, len, &v);
    if (n <= 0 || b->n != (size_t)n) { lua_pushnil(L); return 1; }
  } else {
    lua_settop(L, 3);
  }
  for (i = 0; i < (size_t)n; i++) ((double *)b->data)[i] = v[i];
  return 1;
}

/* (the functions that take records and drawers: upvalue 1 the records'
 * metatable, 2 the drawers') */
static const luaL_Reg typed_funcs[] = {
  {"record2d", record2d},
  {"attachment2d", attachment2d},
  {"drawer2d", drawer2d},
  {"drawer2d_pose", drawer2d_pose},
  {"draw2d", draw2d},
  {NULL, NULL}
};

void anim_lua_open_draw2d(lua_State *L) {
  lua_pushcfunction(L, property_buffer);
  lua_setfield(L, -2, "property_buffer");
  lua_pushcfunction(L, world2d_into);
  lua_setfield(L, -2, "world2d_into");
  lua_pushcfunction(L, region2d_corners);
  lua_setfield(L, -2, "region2d_corners");
  luaL_newmetatable(L, RECORD_MT);
  luaL_newmetatable(L, DRAWER_MT);
  lua_pushliteral(L, DRAWER_MT);
  lua_setfield(L, -2, "__metatable");
  lua_pushvalue(L, -3);
  lua_pushvalue(L, -3);
  lua_pushvalue(L, -3);
  luaL_setfuncs(L, typed_funcs, 2);
  lua_pop(L, 2);
  /* (the stack: module, records' metatable) */
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, record_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, -1);
  lua_pushcclosure(L, record_len, 1);
  lua_setfield(L, -2, "__len");
  lua_pushliteral(L, RECORD_MT);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
}
