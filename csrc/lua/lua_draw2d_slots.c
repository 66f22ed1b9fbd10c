/* lua_draw2d_slots.c - a 2D skeleton's slots as the drawing reads them each
 * frame: every slot's attachment, colour and dark colour and the draw
 * order, from the animator's properties (slot.<slot>.attachment,
 * .color, .dark, draworder: docs/formats.md, "The 2D model") or the
 * setup's, in one call instead of animator:slot's Lua function a slot.
 *
 * A reader (core.slots2d, one per animator: anim.love keeps it beside its
 * drawer) holds the properties' names and their slots among an animator's
 * properties.  A slot found is that name's for as long as the animator
 * lives (its slots are never removed nor renumbered: propmix.c); a name
 * not found is looked for again only when the animator knows more names
 * or is another one (its box's serial: an address may be a freed
 * animator's, and a restore puts a new animator in the same box). */
#include <math.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/amem.h"
#include "core/propmix.h"
#include "lua_helpers.h"
#include "lua_buffer.h"
#include "lua_draw2d.h"

#define READER_TAG ANIM_SLOTS2D_TAG
#define READER_MT ANIM_SLOTS2D_MT
/* the numbers a slot gives (slots2d_read) and takes from the setup */
#define PER_SLOT 8

typedef struct {
  const char *name; /* NULL: none (a slot without a dark colour) */
  size_t len;
  int slot;         /* among the animator's properties, -1: not known */
} prop;

/* A reader: the draw order's property, then each slot's attachment,
 * colour and dark colour (1 + 3 nslots), the setup's numbers (PER_SLOT a
 * slot), and the animator and its count of names when they were found. */
struct anim_slots2d {
  unsigned tag;
  size_t nslots;
  prop *p;
  double *setup;
  unsigned long long serial;
  int gen;
};
typedef anim_slots2d reader;

/* core.slots2d(names, setup) -> reader: names the 1 + 3n property names
 * (the draw order's, then each slot's attachment, colour and dark colour:
 * false for a slot without one), setup a module buffer of 8n doubles
 * (each slot's attachment index, -1 for the setup attachment; colour r,
 * g, b, a; dark r, g, b). */
static int slots2d(lua_State *L) {
  size_t n, i, text = 0, at, ats;
  anim_lua_buffer *s;
  reader *r;
  char *out;
  luaL_checktype(L, 1, LUA_TTABLE);
  n = (size_t)lua_rawlen(L, 1);
  if (n % 3 != 1) return anim_lua_argerror(L, 1, "%d names: not 1 + 3 a slot", (int)n);
  for (i = 0; i < n; i++) {
    anim_lua_rawgetn(L, 1, (int)i + 1);
    if (lua_type(L, -1) == LUA_TSTRING) text += lua_rawlen(L, -1) + 1;
    else if (!(i % 3 == 0 && i > 0 && lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)))
      return anim_lua_argerror(L, 1, "name %d: a property's name%s expected, got %s", (int)i + 1,
                               i % 3 == 0 && i > 0 ? " or false" : "", anim_lua_typename(L, -1));
    lua_pop(L, 1);
  }
  s = anim_lua_tobuffer(L, 2);
  if (!s || !s->is_double || s->n != PER_SLOT * (n / 3))
    return anim_lua_argerror(L, 2, "a module buffer of %d doubles expected (8 a slot)", (int)(PER_SLOT * (n / 3)));
  at = anim_align8(sizeof *r);
  ats = anim_align8(at + n * sizeof(prop));
  r = lua_newuserdatauv(L, ats + s->n * sizeof(double) + text, 0);
  r->tag = READER_TAG;
  r->nslots = n / 3;
  r->p = (prop *)(void *)((char *)r + at);
  r->setup = (double *)(void *)((char *)r + ats);
  r->serial = 0;
  r->gen = -1;
  /* (what was measured is read again into the block: the allocation may
   * have run finalizers, which may have changed the table or the buffer;
   * what no longer fits, or is no longer of its kind, is refused) */
  memcpy(r->setup, s->data, s->n * sizeof(double));
  for (i = 0; i < s->n; i += PER_SLOT) {
    double k = r->setup[i];
    if (!(k >= -1 && k < 2147483648.0 && k == floor(k)))
      return anim_lua_argerror(L, 2, "slot %d: its setup attachment index is not a whole number from -1", (int)(i / PER_SLOT) + 1);
  }
  out = (char *)(r->setup + s->n);
  for (i = 0; i < n; i++) {
    prop *p = &r->p[i];
    anim_lua_rawgetn(L, 1, (int)i + 1);
    p->slot = -1;
    p->name = NULL;
    p->len = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *name = lua_tolstring(L, -1, &p->len);
      if (p->len + 1 > text) return anim_lua_argerror(L, 1, "name %d changed while it was read", (int)i + 1);
      memcpy(out, name, p->len);
      out[p->len] = 0;
      p->name = out;
      out += p->len + 1;
      text -= p->len + 1;
    } else if (!(i % 3 == 0 && i > 0 && lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
      return anim_lua_argerror(L, 1, "name %d changed while it was read", (int)i + 1);
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  return 1;
}

anim_slots2d *anim_lua_checkslots2d(lua_State *L, int arg) {
  reader *r = luaL_testudata(L, arg, READER_MT);
  if (!r || lua_rawlen(L, arg) < sizeof *r || r->tag != READER_TAG)
    anim_lua_argerror(L, arg, "a slot reader (core.slots2d) expected, got %s", anim_lua_typename(L, arg));
  return r;
}

size_t anim_slots2d_count(const reader *r) { return r->nslots; }

/* The slots of r's names among a's properties (serial: a's box's). */
void anim_slots2d_find(const anim_animator *a, reader *r, unsigned long long serial) {
  size_t i, n = 1 + 3 * r->nslots;
  int gen = anim_props_generation(a);
  if (serial != r->serial)
    for (i = 0; i < n; i++) r->p[i].slot = -1;
  else if (gen == r->gen)
    return;
  r->serial = serial;
  r->gen = gen;
  for (i = 0; i < n; i++)
    if (r->p[i].slot < 0 && r->p[i].name) r->p[i].slot = anim_props_find(a, r->p[i].name, r->p[i].len);
}

/* An index property's value as a whole number (animator2d.lua's
 * floor(k + 0.5)), 0 when it names nothing (below 1, too large, NaN);
 * dflt when it has no value. */
static lua_Integer index_of(const anim_animator *a, const prop *p, lua_Integer dflt) {
  const double *v;
  double k;
  if (anim_props_at(a, p->slot, &v) < 1) return dflt;
  k = floor(v[0] + 0.5);
  return k >= 1 && k < 2147483648.0 ? (lua_Integer)k : 0;
}

void anim_slots2d_values(const anim_animator *a, const reader *r, size_t i, lua_Integer *k, double out[7]) {
  const prop *p = &r->p[1 + 3 * i];
  const double *s = &r->setup[PER_SLOT * i], *v;
  int n, c;
  *k = index_of(a, &p[0], (lua_Integer)s[0]);
  n = anim_props_at(a, p[1].slot, &v);
  for (c = 0; c < 4; c++) out[c] = c < n ? v[c] : s[1 + c];
  n = anim_props_at(a, p[2].slot, &v);
  for (c = 0; c < 3; c++) out[4 + c] = c < n ? v[c] : s[5 + c];
}

/* core.slots2d_read(reader, animator [, out]) -> the draw order's index
 * (0: the setup's), with out (a table) filled: out[8 (i - 1) + 1 .. 8 i]
 * slot i's attachment index (its attachment_names' 1-based, 0 none, -1
 * the setup attachment), colour r, g, b, a and dark r, g, b (each
 * component the property's when a track gives it, else the setup's). */
static int slots2d_read(lua_State *L) {
  reader *r = anim_lua_checkslots2d(L, 1);
  anim_animator *a = anim_lua_checkanimator(L, 2);
  const anim_animator_box *b = lua_touserdata(L, 2);
  size_t i;
  int c;
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  anim_slots2d_find(a, r, b->serial);
  for (i = 0; !lua_isnoneornil(L, 3) && i < r->nslots; i++) {
    int base = PER_SLOT * (int)i;
    lua_Integer k;
    double v[7];
    anim_slots2d_values(a, r, i, &k, v);
    lua_pushinteger(L, k);
    lua_rawseti(L, 3, base + 1);
    for (c = 0; c < 7; c++) {
      lua_pushnumber(L, v[c]);
      lua_rawseti(L, 3, base + 2 + c);
    }
  }
  lua_pushinteger(L, index_of(a, &r->p[0], 0));
  return 1;
}

/* core.slots2d_slot(reader, animator, i) -> slot i's (1-based) attachment
 * index, r, g, b, a, dr, dg, db: what slots2d_read gives it. */
static int slots2d_slot(lua_State *L) {
  reader *r = anim_lua_checkslots2d(L, 1);
  anim_animator *a = anim_lua_checkanimator(L, 2);
  const anim_animator_box *b = lua_touserdata(L, 2);
  lua_Number i = luaL_checknumber(L, 3);
  lua_Integer k;
  double v[7];
  int c;
  if (!(i >= 1 && i <= (lua_Number)r->nslots) || i != floor(i))
    return anim_lua_argerror(L, 3, "a slot's index (1 to %d) expected", (int)r->nslots);
  anim_slots2d_find(a, r, b->serial);
  anim_slots2d_values(a, r, (size_t)i - 1, &k, v);
  lua_pushinteger(L, k);
  for (c = 0; c < 7; c++) lua_pushnumber(L, v[c]);
  return 8;
}

static const luaL_Reg funcs[] = {
  {"slots2d", slots2d},
  {"slots2d_read", slots2d_read},
  {"slots2d_slot", slots2d_slot},
  {NULL, NULL}
};

void anim_lua_open_draw2d_slots(lua_State *L) {
  luaL_newmetatable(L, READER_MT);
  lua_pushliteral(L, READER_MT);
  lua_setfield(L, -2, "__metatable");
  luaL_setfuncs(L, funcs, 1);
}
