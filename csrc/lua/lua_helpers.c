/* lua_helpers.c - the helpers every binding file shares (lua_helpers.h). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

anim_mem anim_lua_mem(lua_State *L) {
  anim_mem m;
  m.f = (anim_alloc_fn)lua_getallocf(L, &m.ud);
  return m;
}

int anim_lua_nomem(lua_State *L) {
  return luaL_error(L, "not enough memory");
}

int anim_lua_argerror(lua_State *L, int arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  return luaL_argerror(L, arg, lua_tostring(L, -1));
}

const char *anim_lua_typename(lua_State *L, int idx) {
  const char *name = NULL;
  if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
    name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1);  /* (the metatable still holds the string) */
  }
  return name ? name : luaL_typename(L, idx);
}

void *anim_lua_checkbox(lua_State *L, int arg, const char *mt) {
  void *p = luaL_testudata(L, arg, mt);
  if (!p) anim_lua_argerror(L, arg, "%s expected, got %s", mt, anim_lua_typename(L, arg));
  return p;
}

/* "what v out of range lo..hi" (v already on the stack as a string). */
static int out_of_range(lua_State *L, int arg, const char *what, const char *v, lua_Integer lo, lua_Integer hi) {
  const char *l = anim_lua_pushint(L, lo), *h = anim_lua_pushint(L, hi);
  return anim_lua_argerror(L, arg, "%s %s out of range %s..%s", what, v, l, h);
}

lua_Integer anim_lua_checkrange(lua_State *L, int arg, lua_Integer lo, lua_Integer hi, const char *what) {
  lua_Number x;
  if (lua_type(L, arg) != LUA_TNUMBER)
    anim_lua_argerror(L, arg, "%s expected, got %s", what, anim_lua_typename(L, arg));
  if (lua_isinteger(L, arg)) {  /* 5.3+: an integer, exact at any size */
    lua_Integer k = lua_tointeger(L, arg);
    if (k < lo || k > hi) out_of_range(L, arg, what, anim_lua_pushint(L, k), lo, hi);
    return k;
  }
  /* a float (every number before 5.3): integral and within the range,
   * compared as doubles before any cast */
  x = lua_tonumber(L, arg);
  if (x != floor(x)) anim_lua_argerror(L, arg, "%s must be an integer, got %s", what, lua_tostring(L, arg));
  if (!(x >= (lua_Number)lo && x <= (lua_Number)hi)) {
    if (x >= -9007199254740992.0 && x <= 9007199254740992.0)  /* 2^53: exact as an integer */
      return out_of_range(L, arg, what, anim_lua_pushint(L, (lua_Integer)x), lo, hi);
    return out_of_range(L, arg, what, lua_tostring(L, arg), lo, hi);
  }
  return (lua_Integer)x;
}

void anim_lua_pushnumbers(lua_State *L, const double *v, size_t n) {
  size_t i;
  lua_createtable(L, (int)n, 0);
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

void anim_lua_newmeta(lua_State *L, const char *name, lua_CFunction gc, const char *field) {
  luaL_newmetatable(L, name);
  if (gc) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setfield(L, -2, field);
}

int anim_lua_uservalue(lua_State *L, const char *mt, int n) {
  anim_lua_checkbox(L, 1, mt);
  lua_getiuservalue(L, 1, n);
  return 1;
}

/* Edit distance (optimal string alignment, letter case ignored) of a and
 * b, or a large number when either is longer than MAX_SUGGEST (names that
 * long are not suggested). */
#define MAX_SUGGEST 64
static int distance(const char *a, size_t la, const char *b, size_t lb) {
  int rows[3][MAX_SUGGEST + 1], *p2 = rows[0], *p = rows[1], *c = rows[2];
  size_t i, j;
  if (la > MAX_SUGGEST || lb > MAX_SUGGEST) return 1 << 20;
  for (j = 0; j <= lb; j++) p[j] = (int)j;
  for (i = 1; i <= la; i++) {
    int ca = tolower((unsigned char)a[i - 1]);
    int *t;
    c[0] = (int)i;
    for (j = 1; j <= lb; j++) {
      int cb = tolower((unsigned char)b[j - 1]);
      int d = p[j] + 1, x = c[j - 1] + 1, s = p[j - 1] + (ca != cb);
      if (x < d) d = x;
      if (s < d) d = s;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
          p2[j - 2] + 1 < d)
        d = p2[j - 2] + 1;
      c[j] = d;
    }
    t = p2; p2 = p; p = c; c = t;
  }
  return p[lb];
}

static int same_but_case(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

const char *anim_lua_suggest(const char *name, const char *const *names, int n) {
  size_t ln = strlen(name);
  int i, limit = (int)(ln / 3), best = -1, bestd = 0;
  if (ln >= 3 && limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  for (i = 0; i < n; i++)
    if (strcmp(names[i], name) != 0 && same_but_case(names[i], name)) return names[i];
  if (limit == 0) return NULL;
  for (i = 0; i < n; i++) {
    size_t lc = strlen(names[i]);
    int d;
    if (strcmp(names[i], name) == 0 || (lc > ln ? lc - ln : ln - lc) > (size_t)limit) continue;
    d = distance(name, ln, names[i], lc);
    if (d <= limit && (best < 0 || d < bestd)) { best = i; bestd = d; }
  }
  return best < 0 ? NULL : names[best];
}

anim_clip *anim_lua_checkclip(lua_State *L, int arg) {
  anim_clip_box *b = anim_lua_checkbox(L, arg, ANIM_CLIP_MT);
  if (!b->clip) anim_lua_argerror(L, arg, "clip is not built");
  return b->clip;
}

anim_animator *anim_lua_checkanimator(lua_State *L, int arg) {
  anim_animator_box *b = anim_lua_checkbox(L, arg, ANIM_ANIMATOR_MT);
  if (!b->a) anim_lua_argerror(L, arg, "animator is not built");
  return b->a;
}

anim_animator *anim_lua_upanimator(lua_State *L) {
  anim_animator_box *b = lua_touserdata(L, 1);
  if (b && lua_getmetatable(L, 1)) {
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (same && b->a) return b->a;
  }
  return anim_lua_checkanimator(L, 1);  /* raises the usual message */
}

anim_track *anim_lua_checktrack(lua_State *L, int arg) {
  anim_track_box *b = anim_lua_checkbox(L, arg, ANIM_TRACK_MT);
  if (!b->t) anim_lua_argerror(L, arg, "track is not built");
  return b->t;
}

anim_rig *anim_lua_checkrig(lua_State *L, int arg) {
  anim_rig_box *b = anim_lua_checkbox(L, arg, ANIM_RIG_MT);
  if (!b->rig) anim_lua_argerror(L, arg, "rig is not built");
  return b->rig;
}

/* ---- what playing takes ---------------------------------------------------- */

void anim_lua_checkplayopts(lua_State *L, int idx, anim_play_opts *o) {
  o->fade = luaL_checknumber(L, idx);
  o->weight = luaL_checknumber(L, idx + 1);
  o->speed = luaL_checknumber(L, idx + 2);
  o->has_priority = !lua_isnoneornil(L, idx + 3);
  o->priority = o->has_priority ? luaL_checknumber(L, idx + 3) : 0;
}

static double opt_field(lua_State *L, int t, const char *k, double dflt) {
  double v = dflt;
  if (lua_getfield(L, t, k) != LUA_TNIL) v = luaL_checknumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static void read_quat(lua_State *L, int t, const char *k, double q[4]) {
  int a;
  lua_getfield(L, t, k);
  luaL_checktype(L, -1, LUA_TTABLE);
  for (a = 0; a < 4; a++) { lua_geti(L, -1, a + 1); q[a] = luaL_checknumber(L, -1); lua_pop(L, 1); }
  lua_pop(L, 1);
}

anim_binding *anim_lua_checkbindings(lua_State *L, int idx, const anim_clip *c, const anim_rig *r, int *n) {
  anim_binding *binds;
  lua_Integer nb, i;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  nb = luaL_len(L, idx);
  if (nb < 0 || nb > ANIM_MAX_RIG_JOINTS) luaL_error(L, "too many bindings");
  binds = lua_newuserdatauv(L, sizeof(anim_binding) * (size_t)(nb ? nb : 1), 0);
  for (i = 0; i < nb; i++) {
    anim_binding *bd = &binds[i];
    int t;
    lua_geti(L, idx, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    t = lua_gettop(L);
    {
      double cj = opt_field(L, t, "cj", 0), rj = opt_field(L, t, "rj", 0);
      /* (compared as doubles: no cast before the range is known) */
      if (!(cj >= 1 && cj <= c->njoints && cj == floor(cj) && rj >= 1 && rj <= r->n && rj == floor(rj)))
        luaL_error(L, "binding out of range");
      bd->cj = (int)cj - 1;
      bd->rj = (int)rj - 1;
    }
    bd->pscale = opt_field(L, t, "pscale", 1);
    bd->convert = lua_getfield(L, t, "pre") != LUA_TNIL;
    lua_pop(L, 1);
    if (bd->convert) { read_quat(L, t, "pre", bd->pre); read_quat(L, t, "post", bd->post); }
    lua_pop(L, 1);
  }
  *n = (int)nb;
  return binds;
}

int anim_lua_newtrack(lua_State *L) {
  anim_track_box *tb = lua_newuserdatauv(L, sizeof *tb, 3);
  tb->t = NULL;
  luaL_setmetatable(L, ANIM_TRACK_MT);
  return lua_gettop(L);
}

void anim_lua_settrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs) {
  anim_track_box *tb = lua_touserdata(L, box);
  if (!t) anim_lua_nomem(L);
  tb->t = t;
  anim_track_retain(t);
  lua_pushvalue(L, src);
  lua_setiuservalue(L, box, 1);
  lua_pushvalue(L, animator);
  lua_setiuservalue(L, box, 2);
  lua_pushvalue(L, cbs);
  lua_setiuservalue(L, box, 3);
  lua_settop(L, box);
}
