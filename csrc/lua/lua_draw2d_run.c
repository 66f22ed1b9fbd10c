/* lua_draw2d_run.c - a run of a 2D skeleton's slots drawn in one call:
 * anim.love.draw's loop over the draw order, in C for the slots that need
 * nothing of Lua (the usual ones), back in Lua for the others.
 *
 * A draw list (core.draw2d_list, one per skeleton and skin, made by
 * lua/anim/runtime/attach2d.lua) holds, for each slot and each of its
 * attachment indices (-1 the setup attachment, 0 none, 1.. its names),
 * what the attachment draws: nothing, a record on an atlas page with its
 * colour, or "Lua's" (a clipping, a sequence: their drawing needs the
 * stencil or a frame's property); and each slot's blend mode.  A run
 * (core.draw2d_run) goes down the draw order from a place, drawing each
 * slot's attachment as anim.love's draw_one would (the same colours, the
 * same vertices: lua_draw2d.c's), while it is on the run's page and blend
 * mode, and stops at the first slot it cannot draw so: another page or
 * blend, Lua's, or the slot that ends a clipping. */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/amem.h"
#include "lua_helpers.h"
#include "lua_draw2d.h"

#define LIST_TAG 0x646c7332u /* "dls2" */
#define LIST_MT "anim.drawlist2d"
/* the numbers a row gives per attachment index: flag, page, record, r, g, b, a */
#define PER_ENTRY 7

enum { NOTHING = 0, DRAWN = 1, LUAS = 2 };

typedef struct {
  int flag, page;
  const anim_record2d *r;
  double color[4];
} entry;

typedef struct {
  int blend, m;
  entry *e; /* e[k + 1] for the attachment index k, -1 to m */
} lslot;

typedef struct {
  unsigned tag;
  size_t nslots;
  lslot *s;
} dlist;

/* A whole number in [lo, hi] at index i of the table at t, else raises
 * naming the row. */
static int row_int(lua_State *L, int t, int i, int lo, int hi, int row, const char *what) {
  lua_Number v;
  anim_lua_rawgetn(L, t, i);
  v = lua_tonumber(L, -1);
  if (lua_type(L, -1) != LUA_TNUMBER || !(v >= lo && v <= hi) || v != (lua_Number)(int)v)
    anim_lua_argerror(L, 1, "row %d: %s must be a whole number from %d to %d", row, what, lo, hi);
  lua_pop(L, 1);
  return (int)v;
}

/* core.draw2d_list(rows) -> list: rows[i] slot i's { blend, m, then for
 * each attachment index k from -1 to m: flag (0 nothing, 1 a record, 2
 * Lua's), page, record (core.record2d) or false, r, g, b, a }. */
static int draw2d_list(lua_State *L) {
  size_t n, i, total = 0, at, ate;
  int nrec = 0;
  dlist *l;
  entry *e, *end;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  n = (size_t)lua_rawlen(L, 1);
  for (i = 0; i < n; i++) {
    int m;
    anim_lua_rawgetn(L, 1, (int)i + 1);
    if (!lua_istable(L, -1)) return anim_lua_argerror(L, 1, "row %d: a table expected, got %s", (int)i + 1, anim_lua_typename(L, -1));
    m = row_int(L, 2, 2, 0, 1 << 20, (int)i + 1, "its number of names");
    if ((size_t)lua_rawlen(L, 2) != 2 + PER_ENTRY * ((size_t)m + 2))
      return anim_lua_argerror(L, 1, "row %d: %d numbers, %d expected (2, then 7 for each index from -1 to %d)", (int)i + 1,
                               (int)lua_rawlen(L, 2), (int)(2 + PER_ENTRY * (m + 2)), m);
    /* (each row's numbers are in a table of its own: the entries cannot
     * outnumber what memory holds of them, nor this sum overflow) */
    total += (size_t)m + 2;
    lua_pop(L, 1);
  }
  at = anim_align8(sizeof *l);
  ate = anim_align8(at + n * sizeof(lslot));
  l = lua_newuserdatauv(L, ate + total * sizeof(entry), 1);
  memset(l, 0, ate + total * sizeof(entry));
  l->tag = LIST_TAG;
  l->nslots = n;
  l->s = (lslot *)(void *)((char *)l + at);
  e = (entry *)(void *)((char *)l + ate);
  end = e + total;
  /* (its uservalue, at 3: the records, kept alive while the list is) */
  lua_createtable(L, 0, 0);
  /* (the rows are read again: the allocations may have run finalizers,
   * which may have changed them; a row that no longer fits is refused) */
  for (i = 0; i < n; i++) {
    int row, k, m;
    anim_lua_rawgetn(L, 1, (int)i + 1);
    row = 4;
    if (!lua_istable(L, row)) return anim_lua_argerror(L, 1, "row %d changed while it was read", (int)i + 1);
    l->s[i].blend = row_int(L, row, 1, 0, 1 << 20, (int)i + 1, "its blend");
    m = l->s[i].m = row_int(L, row, 2, 0, 1 << 20, (int)i + 1, "its number of names");
    if ((size_t)(end - e) < (size_t)m + 2 || (size_t)lua_rawlen(L, row) != 2 + PER_ENTRY * ((size_t)m + 2))
      return anim_lua_argerror(L, 1, "row %d changed while it was read", (int)i + 1);
    l->s[i].e = e;
    for (k = -1; k <= m; k++, e++) {
      int base = 2 + PER_ENTRY * (k + 1), c;
      e->flag = row_int(L, row, base + 1, 0, 2, (int)i + 1, "a flag");
      e->page = row_int(L, row, base + 2, 0, 1 << 20, (int)i + 1, "a page");
      if (k == 0 && e->flag != NOTHING) return anim_lua_argerror(L, 1, "row %d: index 0 (none) draws nothing", (int)i + 1);
      if (e->flag != DRAWN) continue;
      anim_lua_rawgetn(L, row, base + 3);
      e->r = luaL_testudata(L, -1, ANIM_RECORD2D_MT);
      if (!e->r) return anim_lua_argerror(L, 1, "row %d: index %d: a record (core.record2d) expected, got %s", (int)i + 1, k, anim_lua_typename(L, -1));
      anim_lua_rawsetn(L, 3, ++nrec);
      for (c = 0; c < 4; c++) {
        anim_lua_rawgetn(L, row, base + 4 + c);
        if (lua_type(L, -1) != LUA_TNUMBER) return anim_lua_argerror(L, 1, "row %d: index %d: a colour's number expected", (int)i + 1, k);
        e->color[c] = lua_tonumber(L, -1);
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, LIST_MT);
  return 1;
}

static dlist *check_list(lua_State *L, int arg) {
  dlist *l = luaL_testudata(L, arg, LIST_MT);
  if (!l || l->tag != LIST_TAG) anim_lua_argerror(L, arg, "a draw list (core.draw2d_list) expected, got %s", anim_lua_typename(L, arg));
  return l;
}

/* A whole number in [lo, hi] at arg, else raises naming it. */
static int arg_int(lua_State *L, int arg, int lo, int hi, const char *what) {
  lua_Number v = luaL_checknumber(L, arg);
  if (!(v >= lo && v <= hi) || v != (lua_Number)(int)v)
    anim_lua_argerror(L, arg, "%s must be a whole number from %d to %d", what, lo, hi);
  return (int)v;
}

/* core.draw2d_run(drawer, reader, animator, list, order, o, out, first,
 * page, blend, stop) -> o', written: the slots order[o], order[o + 1], ...
 * (slot indices, 1-based) drawn into out (a module buffer or a ByteData of
 * floats) from vertex `first`, each attachment as core.draw2d draws it
 * with the reader's colours times the attachment's, while each draws
 * nothing or a record on page `page` with the slot's blend `blend`; o' is
 * the first slot not drawn (#order + 1 when none is left): one of another
 * page or blend, one of Lua's, or slot `stop` (0: none). */
static int draw2d_run(lua_State *L) {
  anim_drawer2d *d = anim_lua_checkdrawer2d(L, 1);
  anim_slots2d *rd = anim_lua_checkslots2d(L, 2);
  anim_animator *a;
  const anim_animator_box *b;
  const dlist *l = check_list(L, 4);
  anim_skin_out o = { 0 };
  int kind, page, blend, stop, n, at;
  size_t first, written = 0;
  (void)anim_lua_checkanimator(L, 3);
  luaL_checktype(L, 5, LUA_TTABLE);
  n = (int)lua_rawlen(L, 5);
  at = arg_int(L, 6, 1, n + 1, "o");
  kind = anim_lua_skin_target(L, 7, 7, &o);
  if (kind == 0) return anim_lua_argerror(L, 7, "a module buffer or a ByteData expected, got a table");
  first = (size_t)arg_int(L, 8, 0, (1 << 26) - 1, "first");
  page = arg_int(L, 9, 0, 1 << 20, "page");
  blend = arg_int(L, 10, 0, 1 << 20, "blend");
  stop = arg_int(L, 11, 0, 1 << 30, "stop");
  if (anim_slots2d_count(rd) != l->nslots)
    return anim_lua_argerror(L, 4, "%d slots, the reader's %d", (int)l->nslots, (int)anim_slots2d_count(rd));
  /* (the animator taken after the target's getPointer and getSize, Lua
   * code that may have restored it: a new animator in the box, the old
   * one freed) */
  a = anim_lua_checkanimator(L, 3);
  b = lua_touserdata(L, 3);
  n = (int)lua_rawlen(L, 5);
  if (at > n + 1) return anim_lua_argerror(L, 6, "o must be a whole number from 1 to %d", n + 1);
  anim_slots2d_find(a, rd, b->serial);
  for (; at <= n; at++) {
    const lslot *s;
    const entry *e;
    lua_Integer k;
    lua_Number iv;
    double v[7], col[8];
    int i, c;
    lua_rawgeti(L, 5, at);
    iv = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!(iv >= 1 && iv <= (lua_Number)l->nslots) || iv != (lua_Number)(int)iv)
      return anim_lua_argerror(L, 5, "order[%d] is not a slot's index (1 to %d)", at, (int)l->nslots);
    i = (int)iv;
    if (i == stop) break;
    s = &l->s[i - 1];
    anim_slots2d_values(a, rd, (size_t)i - 1, &k, v);
    if (k < -1 || k > s->m) continue; /* (an index past the names: none, as animator:slot says) */
    e = &s->e[k + 1];
    if (e->flag == NOTHING) continue;
    if (e->flag == LUAS || e->page != page || s->blend != blend) break;
    for (c = 0; c < 4; c++) col[c] = v[c] * e->color[c];
    for (c = 4; c < 7; c++) col[c] = v[c];
    col[7] = 1;
    written += anim_lua_draw2d_record(L, 4, d, e->r, 7, &o, kind == 1, first + written, col);
  }
  lua_pushinteger(L, at);
  lua_pushinteger(L, (lua_Integer)written);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"draw2d_list", draw2d_list},
  {"draw2d_run", draw2d_run},
  {NULL, NULL}
};

void anim_lua_open_draw2d_run(lua_State *L) {
  luaL_newmetatable(L, LIST_MT);
  lua_pushliteral(L, LIST_MT);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  luaL_setfuncs(L, funcs, 0);
}
