/* lua_draw2d.c - a 2D skeleton's attachments in world space for Lua
 * (csrc/core/verts2d.c): the numbers anim.love draws and
 * world_vertices gives, computed in C so that a frame allocates nothing.
 *
 * An attachment is a record in a module buffer of doubles, built once by
 * the runtime (lua/anim/runtime/attach2d.lua):
 *   [0] kind: 1 points in one bone's frame, 2 weighted (Spine's layout)
 *   [1] the bone (0-based; kind 1), [2] n its vertices, [3] len the
 *   numbers of its geometry (kind 1: 2n; kind 2: the layout's), [4] ntri
 *   its triangles, [5] 1 when uvs follow the geometry; then the geometry,
 *   2n uvs (when [5] is 1) and 3 ntri vertex indices (0-based).
 * Every call checks the record against itself and the bones it is given:
 * a broken buffer raises, never reads out of bounds. */
#include <math.h>
#include <stdio.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/skin.h"
#include "core/world2d.h"
#include "core/propmix.h"
#include "core/verts2d.h"
#include "lua_helpers.h"
#include "lua_buffer.h"

#define HEAD 6

typedef struct {
  const double *h, *geom, *uv, *tri;
  size_t n, len, ntri, nent;
  int kind, bone;
} record;

static anim_lua_buffer *doubles(lua_State *L, int arg, const char *what) {
  anim_lua_buffer *b = anim_lua_tobuffer(L, arg);
  if (!b || !b->is_double) anim_lua_argerror(L, arg, "%s must be an anim.buffer of doubles, got %s", what,
                                             b ? "a buffer of floats" : anim_lua_typename(L, arg));
  return b;
}

static int whole(double v, double below) { return v >= 0 && v < below && v == floor(v); }

/* The record at arg, checked; nbones: the bones of world (6 numbers each). */
static void read_record(lua_State *L, int arg, size_t nbones, record *r) {
  anim_lua_buffer *b = doubles(L, arg, "the attachment");
  const double *h = b->data;
  size_t need, i;
  if (b->n < HEAD || !(h[0] == 1 || h[0] == 2) || !whole(h[2], 1 << 24) || !whole(h[3], 1 << 26) ||
      !whole(h[4], 1 << 24) || !(h[5] == 0 || h[5] == 1))
    anim_lua_argerror(L, arg, "not an attachment record (its header is broken)");
  r->kind = (int)h[0];
  r->n = (size_t)h[2];
  r->len = (size_t)h[3];
  r->ntri = (size_t)h[4];
  need = HEAD + r->len + (h[5] == 1 ? 2 * r->n : 0) + 3 * r->ntri;
  if (b->n != need) anim_lua_argerror(L, arg, "not an attachment record (%d numbers, its header says %d)", (int)b->n, (int)need);
  r->geom = h + HEAD;
  r->uv = h[5] == 1 ? r->geom + r->len : NULL;
  r->tri = r->geom + r->len + (r->uv ? 2 * r->n : 0);
  if (r->kind == 1) {
    if (r->len != 2 * r->n) anim_lua_argerror(L, arg, "not an attachment record (%d numbers for %d points)", (int)r->len, (int)r->n);
    if (!whole(h[1], (double)nbones)) {
      char num[32];
      snprintf(num, sizeof num, "%g", h[1]);
      anim_lua_argerror(L, arg, "its bone %s is not one of the %d bones", num, (int)nbones);
    }
    r->bone = (int)h[1];
    r->nent = r->n;
  } else {
    size_t nv = 0, ne = 0;
    if (!anim_weighted2d_check(r->geom, r->len, nbones, &nv, &ne))
      anim_lua_argerror(L, arg, "its weights are broken at number %d of its layout (a count, or a bone not one of the %d)", (int)nv, (int)nbones);
    if (nv != r->n) anim_lua_argerror(L, arg, "its weights give %d vertices, its header %d", (int)nv, (int)r->n);
    r->nent = ne;
  }
  for (i = 0; i < 3 * r->ntri; i++)
    if (!whole(r->tri[i], (double)r->n)) anim_lua_argerror(L, arg, "triangle corner %d is not a vertex (of %d)", (int)i + 1, (int)r->n);
}

/* The world positions of r's n vertices into scratch (2 doubles each). */
static void place(lua_State *L, int wa, int ra, int da, int sa, record *r, double **xy) {
  anim_lua_buffer *w = doubles(L, wa, "the bones' world matrices"), *d = NULL, *s;
  if (w->n % 6) anim_lua_argerror(L, wa, "%d numbers: not 6 a bone", (int)w->n);
  read_record(L, ra, w->n / 6, r);
  if (!lua_isnoneornil(L, da)) {
    d = doubles(L, da, "the deform");
    if (d->n != 2 * r->nent) anim_lua_argerror(L, da, "%d offsets, the attachment needs %d", (int)d->n, (int)(2 * r->nent));
  }
  s = doubles(L, sa, "the scratch");
  if (s->n < 2 * r->n) anim_lua_argerror(L, sa, "too small: %d doubles, %d needed", (int)s->n, (int)(2 * r->n));
  if (r->kind == 1)
    anim_points2d_world((const double *)w->data + 6 * r->bone, r->geom, d ? d->data : NULL, r->n, s->data, 2);
  else
    anim_weighted2d_world(w->data, r->geom, r->len, d ? d->data : NULL, s->data, 2);
  *xy = s->data;
}

/* core.attachment2d(world, record, deform|nil, scratch) -> n */
static int attachment2d(lua_State *L) {
  record r;
  double *xy;
  place(L, 1, 2, 3, 4, &r, &xy);
  lua_pushinteger(L, (lua_Integer)r.n);
  return 1;
}

#define STRIDE 12 /* x, y, u, v, r, g, b, a, dark r, g, b, 1 */

/* core.draw2d(world, record, deform|nil, scratch, out, first, r, g, b, a,
 * dr, dg, db) -> vertices written: the triangles unrolled from vertex
 * `first` of out (a module buffer or a ByteData of floats), 12 numbers a
 * vertex (LÖVE's mesh format of anim.love). */
static int draw2d(lua_State *L) {
  record r;
  double *xy, col[8];
  anim_skin_out o = { 0 };
  size_t first, i, k;
  int kind, c;
  lua_Number f = luaL_checknumber(L, 6);
  place(L, 1, 2, 3, 4, &r, &xy);
  if (!r.uv) return anim_lua_argerror(L, 2, "the attachment has no uvs: it is not drawn");
  kind = anim_lua_skin_target(L, 5, 5, &o);
  if (kind == 0) return anim_lua_argerror(L, 5, "a module buffer or a ByteData expected, got a table");
  if (!whole(f, 1 << 26)) {
    char num[32];
    snprintf(num, sizeof num, "%g", (double)f);
    return anim_lua_argerror(L, 6, "first must be an integer in [0, 2^26), got %s", num);
  }
  first = (size_t)f;
  for (c = 0; c < 7; c++) col[c] = luaL_checknumber(L, 7 + c);
  col[7] = 1;
  if ((first + 3 * r.ntri) * STRIDE > o.cap) {
    o.offset = first * STRIDE;
    return anim_lua_skin_room(L, 5, &o, 3 * r.ntri * STRIDE, kind == 1);
  }
  for (i = 0; i < 3 * r.ntri; i++) {
    size_t v = (size_t)r.tri[i], at = (first + i) * STRIDE;
    double row[STRIDE];
    row[0] = xy[2 * v];
    row[1] = xy[2 * v + 1];
    row[2] = r.uv[2 * v];
    row[3] = r.uv[2 * v + 1];
    for (k = 0; k < 8; k++) row[4 + k] = col[k];
    if (o.is_double)
      for (k = 0; k < STRIDE; k++) ((double *)o.data)[at + k] = row[k];
    else
      for (k = 0; k < STRIDE; k++) ((float *)o.data)[at + k] = (float)row[k];
  }
  lua_pushinteger(L, (lua_Integer)(3 * r.ntri));
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
  const double *j = map->data;
  size_t i, n = map->n, njoints = (size_t)anim_animator_rig(a)->n;
  if (out->n != 6 * n) return anim_lua_argerror(L, 2, "%d numbers for %d bones (6 each)", (int)out->n, (int)n);
  for (i = 0; i < n; i++) {
    if (!whole(j[i], (double)njoints) || anim_animator_world2d(a, (int)j[i], (double *)out->data + 6 * i) != 0)
      return anim_lua_argerror(L, 3, "bone %d: no 2D bone %d on this animator", (int)i + 1, (int)j[i]);
  }
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

void anim_lua_open_draw2d(lua_State *L) {
  lua_pushcfunction(L, property_buffer);
  lua_setfield(L, -2, "property_buffer");
  lua_pushcfunction(L, world2d_into);
  lua_setfield(L, -2, "world2d_into");
  lua_pushcfunction(L, attachment2d);
  lua_setfield(L, -2, "attachment2d");
  lua_pushcfunction(L, draw2d);
  lua_setfield(L, -2, "draw2d");
  lua_pushcfunction(L, region2d_corners);
  lua_setfield(L, -2, "region2d_corners");
}
