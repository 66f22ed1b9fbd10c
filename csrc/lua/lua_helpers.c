/* lua_helpers.c - the helpers every binding file shares (lua_helpers.h). */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* ---- boxes ---------------------------------------------------------------- */

static const struct { const char *mt, *dead; size_t size; } kinds[ANIM_BOX_KINDS] = {
  {ANIM_CLIP_MT, ANIM_CLIP_MT " (finalized)", sizeof(anim_clip_box)},
  {ANIM_RIG_MT, ANIM_RIG_MT " (finalized)", sizeof(anim_rig_box)},
  {ANIM_ANIMATOR_MT, ANIM_ANIMATOR_MT " (finalized)", sizeof(anim_animator_box)},
  {ANIM_TRACK_MT, ANIM_TRACK_MT " (finalized)", sizeof(anim_track_box)},
  {ANIM_RETARGET_MT, ANIM_RETARGET_MT " (finalized)", sizeof(anim_retarget_box)},
  {ANIM_SPACE_MT, ANIM_SPACE_MT " (finalized)", sizeof(anim_space_box)},
};

#define FINALIZED "%s used after it was finalized (garbage collected, or its __gc called by hand)"

/* The box at idx when its metatable is the one named mt (pushed and popped
 * here) and its size and tag are its kind's. */
static void *box_with(lua_State *L, int idx, int kind, const char *mt) {
  void *p = lua_touserdata(L, idx);
  int same;
  if (!p || lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
  luaL_getmetatable(L, mt);
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  if (!same || lua_rawlen(L, idx) < kinds[kind].size || *(unsigned *)p != ANIM_BOX_TAG(kind)) return NULL;
  return p;
}

/* (no position: the caller of a C function of the module is mostly the
 * module's own Lua side, whose line would say nothing to the script) */
int anim_lua_finalized(lua_State *L, int kind) {
  lua_pushfstring(L, FINALIZED, kinds[kind].mt);
  return lua_error(L);
}

void *anim_lua_checkbox(lua_State *L, int arg, int kind) {
  void *p = box_with(L, arg, kind, kinds[kind].mt);
  if (p) return p;
  if (box_with(L, arg, kind, kinds[kind].dead)) anim_lua_finalized(L, kind);
  if (lua_type(L, arg) == LUA_TUSERDATA && lua_getmetatable(L, arg)) {
    int same;
    luaL_getmetatable(L, kinds[kind].mt);
    same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (same) anim_lua_argerror(L, arg, "%s expected, got another userdata with its metatable", kinds[kind].mt);
  }
  anim_lua_argerror(L, arg, "%s expected, got %s", kinds[kind].mt, anim_lua_typename(L, arg));
  return NULL;
}

void *anim_lua_testbox_any(lua_State *L, int idx, int kind) {
  void *p = box_with(L, idx, kind, kinds[kind].mt);
  return p ? p : box_with(L, idx, kind, kinds[kind].dead);
}

void anim_lua_setfinalized(lua_State *L, int idx, int kind) {
  idx = lua_absindex(L, idx);
  luaL_getmetatable(L, kinds[kind].dead);
  lua_setmetatable(L, idx);
}

void *anim_lua_newbox(lua_State *L, int kind, size_t size, int nuv) {
  unsigned char *p = lua_newuserdatauv(L, size, nuv);
  size_t i;
  for (i = 0; i < size; i++) p[i] = 0;
  *(unsigned *)(void *)p = ANIM_BOX_TAG(kind);
  luaL_setmetatable(L, kinds[kind].mt);
  return p;
}

/* The metamethods of a finalized box: every use raises, at the line of the
 * code that made it (level 1: who indexed, called or set). */
static int dead_use(lua_State *L) {
  const char *name = lua_tostring(L, lua_upvalueindex(1));
  luaL_where(L, 1);
  lua_pushfstring(L, FINALIZED, name);
  lua_concat(L, 2);
  return lua_error(L);
}

static int dead_tostring(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushliteral(L, " (finalized)");
  lua_concat(L, 2);
  return 1;
}

void anim_lua_newmeta(lua_State *L, int kind, lua_CFunction gc, const char *field) {
  static const char *const uses[] = {"__index", "__newindex", "__call", "__len", "__concat", NULL};
  int i;
  luaL_newmetatable(L, kinds[kind].dead);  /* its __name: "anim.clip (finalized)" */
  for (i = 0; uses[i]; i++) {
    lua_pushstring(L, kinds[kind].mt);
    lua_pushcclosure(L, dead_use, 1);
    lua_setfield(L, -2, uses[i]);
  }
  lua_pushstring(L, kinds[kind].mt);
  lua_pushcclosure(L, dead_tostring, 1);
  lua_setfield(L, -2, "__tostring");
  lua_pushstring(L, kinds[kind].dead);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  luaL_newmetatable(L, kinds[kind].mt);
  if (gc) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
  }
  /* getmetatable(clip) is "anim.clip": no script changes the module's
   * metatables or calls their functions by accident */
  lua_pushstring(L, kinds[kind].mt);
  lua_setfield(L, -2, "__metatable");
  lua_setfield(L, -2, field);
  /* the finalized one as field "<field>_finalized": the Lua side tells an
   * object finalized by hand from another kind of value */
  lua_pushfstring(L, "%s_finalized", field);
  luaL_getmetatable(L, kinds[kind].dead);
  lua_rawset(L, -3);
}

int anim_lua_uservalue(lua_State *L, int kind, int n) {
  if (!anim_lua_testbox_any(L, 1, kind)) anim_lua_checkbox(L, 1, kind);
  lua_getiuservalue(L, 1, n);
  return 1;
}

anim_clip *anim_lua_checkclip(lua_State *L, int arg) {
  anim_clip_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_CLIP);
  if (!b->clip) anim_lua_finalized(L, ANIM_BOX_CLIP);
  return b->clip;
}

anim_rig *anim_lua_checkrig(lua_State *L, int arg) {
  anim_rig_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_RIG);
  if (!b->rig) anim_lua_finalized(L, ANIM_BOX_RIG);
  return b->rig;
}

/* ---- memory ----------------------------------------------------------------- */

#define ACCT_KEY "anim.acct"
#define ACCT_TAG 0x616e6163u
/* the collector is stepped once the core took this much */
#define ACCT_STEP (64 * 1024)

/* The state's allocator of the moment (a host may change it: Lua itself
 * frees old blocks with the new one), counting what the core takes. */
static void *acct_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  anim_lua_acct *acct = ud;
  void *aud;
  lua_Alloc f = lua_getallocf(acct->main, &aud);
  void *p = f(aud, ptr, ptr ? osize : 0, nsize);
  if (p && nsize > (ptr ? osize : 0)) acct->debt += nsize - (ptr ? osize : 0);
  return p;
}

/* A userdata without __gc in the registry: it is freed only after every
 * finalizer ran, when the state closes, so every core object can free
 * itself through it until then. */
anim_lua_acct *anim_lua_acct_of(lua_State *L) {
  anim_lua_acct *acct;
  lua_getfield(L, LUA_REGISTRYINDEX, ACCT_KEY);
  acct = lua_touserdata(L, -1);
  if (acct && lua_rawlen(L, -1) == sizeof *acct && acct->tag == ACCT_TAG) {
    lua_pop(L, 1);
    return acct;
  }
  lua_pop(L, 1);
  acct = lua_newuserdatauv(L, sizeof *acct, 0);
  acct->tag = ACCT_TAG;
  acct->debt = 0;
  acct->delivering = 0;
  acct->unslots = 0;
  /* the thread that made it, kept alive by the registry (5.1 has no
   * LUA_RIDX_MAINTHREAD; any thread of the state tells its allocator) */
  acct->main = L;
  lua_setfield(L, LUA_REGISTRYINDEX, ACCT_KEY);
  lua_pushthread(L);
  lua_setfield(L, LUA_REGISTRYINDEX, ACCT_KEY ".thread");
  return acct;
}

anim_mem anim_lua_mem(lua_State *L) {
  anim_mem m;
  m.f = acct_alloc;
  m.ud = anim_lua_acct_of(L);
  return m;
}

void anim_lua_account(lua_State *L, anim_lua_acct *acct) {
  size_t kb;
  if (acct->debt < ACCT_STEP) return;
  kb = acct->debt / 1024;
  acct->debt = 0;
  /* (a host that stopped the collector keeps it stopped; 5.1 cannot tell) */
#ifdef LUA_GCISRUNNING
  if (!lua_gc(L, LUA_GCISRUNNING, 0)) return;
#endif
  lua_gc(L, LUA_GCSTEP, kb > 1000000 ? 1000000 : (int)kb);
}

int anim_lua_retry(lua_State *L) {
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 1;
}

int anim_lua_nomem(lua_State *L) {
  return luaL_error(L, "not enough memory");
}

/* ---- argument checks ---------------------------------------------------------- */

/* The registry's table of the C functions that are methods: function ->
 * the method's name (anim_lua_setmethods). */
#define METHOD_NAMES "anim.method_names"

/* The name of the running C function as a method, pushed (with the
 * function and the table under it), or NULL, nothing pushed, when it is no
 * method.  The function is the one running, found by the stack, not by
 * the name the call site used: a.get(a, x), a[k](a, x) or a hoisted get
 * all name 'get'. */
static const char *running_method(lua_State *L, int *colon) {
  lua_Debug ar;
  luaL_checkstack(L, 3, NULL);
  if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "nf", &ar)) return NULL;
  *colon = ar.namewhat && strcmp(ar.namewhat, "method") == 0;
  lua_getfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushvalue(L, -2);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return NULL;
}

/* A method counts its arguments after self, whatever form the call took
 * (luaL_argerror counts so for a:m(x) alone, and names what the call site
 * wrote: 'anim.core.animator_get' under a pcall, '?' for a[k](a, x)).  Its
 * self is "bad self" in the colon form, argument #1 in the others, as
 * luaL_argerror says it. */
int anim_lua_argerror(lua_State *L, int arg, const char *fmt, ...) {
  va_list ap;
  const char *msg, *name;
  int colon = 0;
  va_start(ap, fmt);
  msg = lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  name = running_method(L, &colon);
  if (!name) return luaL_argerror(L, arg, msg);
  luaL_where(L, 1);
  if (arg == 1 && colon) lua_pushfstring(L, "calling '%s' on bad self (%s)", name, msg);
  else lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg == 1 ? 1 : arg - 1, name, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

void anim_lua_setmethods(lua_State *L, const anim_lua_method *list, int nup) {
  int i;
  luaL_checkstack(L, nup + 3, "too many upvalues");
  lua_getfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, METHOD_NAMES);
  }
  for (; list->name; list++) {
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup - 1);  /* the upvalues, under the names */
    lua_pushcclosure(L, list->fn, nup);
    lua_pushvalue(L, -1);
    lua_pushstring(L, list->method);
    lua_rawset(L, -4);
    lua_setfield(L, -(nup + 3), list->name);
  }
  lua_pop(L, nup + 1);
}

const char *anim_lua_typename(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
    /* (a script's __name: quoted as user data is, left on the stack) */
    if (lua_type(L, -1) == LUA_TSTRING) return anim_lua_shown(L, -1);
    lua_pop(L, 1);
  }
  return luaL_typename(L, idx);
}

/* "what v out of range lo..hi" (v already on the stack as a string). */
static int out_of_range(lua_State *L, int arg, const char *what, const char *v, lua_Integer lo, lua_Integer hi) {
  const char *l = anim_lua_pushint(L, lo), *h = anim_lua_pushint(L, hi);
  return anim_lua_argerror(L, arg, "%s %s out of range %s..%s", what, v, l, h);
}

lua_Integer anim_lua_checkrange(lua_State *L, int arg, lua_Integer lo, lua_Integer hi, const char *what) {
  lua_Number x;
  /* 2^(bits - 1): every double in [-top, top) is a lua_Integer, exactly */
  const lua_Number top = ldexp(1.0, (int)(sizeof(lua_Integer) * CHAR_BIT) - 1);
  if (lua_type(L, arg) != LUA_TNUMBER)
    anim_lua_argerror(L, arg, "%s expected, got %s", what, anim_lua_typename(L, arg));
  if (lua_isinteger(L, arg)) {  /* 5.3+: an integer, exact at any size */
    lua_Integer k = lua_tointeger(L, arg);
    if (k < lo || k > hi) out_of_range(L, arg, what, anim_lua_pushint(L, k), lo, hi);
    return k;
  }
  /* a float (every number before 5.3): integral and within the range,
   * compared as doubles before any cast (a cast of NaN, of an infinity
   * or of 2^63 is undefined: never made) */
  x = lua_tonumber(L, arg);
  if (x != x) anim_lua_argerror(L, arg, "%s must be an integer, got nan", what);
  if (x != floor(x)) anim_lua_argerror(L, arg, "%s must be an integer, got %s", what, lua_tostring(L, arg));
  if (x >= -top && x < top && x >= (lua_Number)lo && x <= (lua_Number)hi) {
    lua_Integer k = (lua_Integer)x;
    /* ((lua_Number)hi may round up: the integer is compared too) */
    if (k >= lo && k <= hi) return k;
  }
  if (x >= -9007199254740992.0 && x <= 9007199254740992.0)  /* 2^53: exact as an integer */
    return out_of_range(L, arg, what, anim_lua_pushint(L, (lua_Integer)x), lo, hi);
  return out_of_range(L, arg, what, lua_tostring(L, arg), lo, hi);
}

lua_Integer anim_lua_optrange(lua_State *L, int arg, lua_Integer dflt, lua_Integer lo, lua_Integer hi, const char *what) {
  return lua_isnoneornil(L, arg) ? dflt : anim_lua_checkrange(L, arg, lo, hi, what);
}

void anim_lua_fillnumbers(lua_State *L, const double *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

void anim_lua_pushnumbers(lua_State *L, const double *v, size_t n) {
  lua_createtable(L, (int)n, 0);
  anim_lua_fillnumbers(L, v, n);
}

/* Edit distance (optimal string alignment, letter case ignored) of a and
 * b when it is at most limit, else limit + 1 (also when either is longer
 * than MAX_SUGGEST: names that long are not suggested); *cells gets the
 * cells of the table filled.  Only the band within limit of the diagonal
 * is filled, and a row whose every cell is over limit ends it: the same
 * as lua/anim/base/suggest.lua's distance. */
#define MAX_SUGGEST 64
static int distance(const char *a, size_t la, const char *b, size_t lb, int limit, long *cells) {
  int rows[3][MAX_SUGGEST + 2], *p2 = rows[0], *p = rows[1], *c = rows[2], big = limit + 1;
  size_t i, j, lim = (size_t)limit;
  *cells = 0;
  if (la > MAX_SUGGEST || lb > MAX_SUGGEST || (la > lb ? la - lb : lb - la) > lim) return big;
  for (j = 0; j <= lb; j++) p[j] = j <= lim ? (int)j : big;
  for (i = 1; i <= la; i++) {
    int ca = tolower((unsigned char)a[i - 1]), row, *t;
    size_t lo = i > lim ? i - lim : 1, hi = i + lim < lb ? i + lim : lb;
    row = c[lo - 1] = lo == 1 && i <= lim ? (int)i : big;
    for (j = lo; j <= hi; j++) {
      int cb = tolower((unsigned char)b[j - 1]);
      int d = p[j] + 1, x = c[j - 1] + 1, s = p[j - 1] + (ca != cb);
      if (x < d) d = x;
      if (s < d) d = s;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
          p2[j - 2] + 1 < d)
        d = p2[j - 2] + 1;
      if (d > big) d = big;
      c[j] = d;
      if (d < row) row = d;
    }
    c[hi + 1] = big;  /* (the next row reads one cell further right) */
    *cells += hi >= lo ? (long)(hi - lo + 1) : 0;
    if (row > limit) return big;
    t = p2; p2 = p; p = c; c = t;
  }
  return p[lb];
}

static int same_but_case(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

/* The work one suggestion may do: a name looked at costs 1, a cell of a
 * distance table 1 (MAX_CELLS in lua/anim/base/suggest.lua). */
#define MAX_CELLS 500000L

const char *anim_lua_suggest(const char *name, const char *const *names, int n) {
  size_t ln = strlen(name);
  int i, limit = (int)(ln / 3), best = -1, bestd = 0;
  long budget = MAX_CELLS;
  if (ln >= 3 && limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  for (i = 0; i < n; i++)
    if (strcmp(names[i], name) != 0 && same_but_case(names[i], name)) return names[i];
  if (limit == 0 || ln > MAX_SUGGEST) return NULL;
  for (i = 0; i < n && budget > 0; i++) {
    size_t lc = strlen(names[i]);
    long cells;
    int d;
    budget--;
    if (strcmp(names[i], name) == 0 || lc > MAX_SUGGEST || (lc > ln ? lc - ln : ln - lc) > (size_t)limit) continue;
    /* (past the best so far, nothing is worth the cells) */
    d = distance(name, ln, names[i], lc, best < 0 ? limit : bestd - 1, &cells);
    budget -= cells;
    if (d <= limit && (best < 0 || d < bestd)) { best = i; bestd = d; }
  }
  return best < 0 ? NULL : names[best];
}

anim_animator *anim_lua_checkanimator(lua_State *L, int arg) {
  anim_animator_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_ANIMATOR);
  if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  return b->a;
}

anim_track *anim_lua_checktrack(lua_State *L, int arg) {
  anim_track_box *b = anim_lua_checkbox(L, arg, ANIM_BOX_TRACK);
  if (!b->t) anim_lua_finalized(L, ANIM_BOX_TRACK);
  return b->t;
}

/* ---- what playing takes ---------------------------------------------------- */

void anim_lua_checkplayopts(lua_State *L, int idx, anim_play_opts *o) {
  o->fade = luaL_checknumber(L, idx);
  o->weight = luaL_checknumber(L, idx + 1);
  o->speed = luaL_checknumber(L, idx + 2);
  o->has_priority = !lua_isnoneornil(L, idx + 3);
  o->priority = o->has_priority ? luaL_checknumber(L, idx + 3) : 0;
}

/* A number at field k of the table at t, read raw (dflt when absent). */
static double raw_number(lua_State *L, int t, const char *k, double dflt) {
  double v = dflt;
  lua_pushstring(L, k);
  lua_rawget(L, t);
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "binding field '%s' must be a number", k);
    v = lua_tonumber(L, -1);
  }
  lua_pop(L, 1);
  return v;
}

/* The quaternion at field k of the table at t, read raw. */
static void raw_quat(lua_State *L, int t, const char *k, double q[4]) {
  int a;
  lua_pushstring(L, k);
  lua_rawget(L, t);
  luaL_checktype(L, -1, LUA_TTABLE);
  for (a = 0; a < 4; a++) {
    lua_rawgeti(L, -1, a + 1);
    if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "binding field '%s' must hold 4 numbers", k);
    q[a] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

anim_binding *anim_lua_checkbindings(lua_State *L, int idx, int njoints, unsigned gen, int nrig, int *n) {
  anim_binding *binds;
  lua_Integer nb, i;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  if (raw_number(L, idx, "gen", 0) != (double)gen) return NULL;
  nb = (lua_Integer)lua_rawlen(L, idx);
  if (nb < 0 || nb > ANIM_MAX_RIG_JOINTS) luaL_error(L, "too many bindings");
  binds = lua_newuserdatauv(L, sizeof(anim_binding) * (size_t)(nb ? nb : 1), 0);
  for (i = 0; i < nb; i++) {
    anim_binding *bd = &binds[i];
    int t;
    lua_rawgeti(L, idx, i + 1);
    luaL_checktype(L, -1, LUA_TTABLE);
    t = lua_gettop(L);
    {
      double cj = raw_number(L, t, "cj", 0), rj = raw_number(L, t, "rj", 0);
      /* (compared as doubles: no cast before the range is known) */
      if (!(cj >= 1 && cj <= njoints && cj == floor(cj) && rj >= 1 && rj <= nrig && rj == floor(rj)))
        luaL_error(L, "binding out of range");
      bd->cj = (int)cj - 1;
      bd->rj = (int)rj - 1;
    }
    bd->pscale = raw_number(L, t, "pscale", 1);
    lua_pushliteral(L, "pre");
    lua_rawget(L, t);
    bd->convert = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (bd->convert) { raw_quat(L, t, "pre", bd->pre); raw_quat(L, t, "post", bd->post); }
    lua_pop(L, 1);
  }
  *n = (int)nb;
  return binds;
}

int anim_lua_newtrack(lua_State *L) {
  anim_lua_newbox(L, ANIM_BOX_TRACK, sizeof(anim_track_box), 5);
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
  /* (last: the collector may run finalizers) */
  anim_lua_account(L, ((anim_animator_box *)lua_touserdata(L, animator))->acct);
}

anim_animator_box *anim_lua_animator_at(lua_State *L, int idx, int mt) {
  anim_animator_box *b = anim_lua_animator_mt(L, idx, mt);
  if (b) lua_pop(L, 1);
  return b;
}

anim_animator_box *anim_lua_reader_box(lua_State *L) {
  anim_animator_box *b = anim_lua_animator_at(L, 1, lua_upvalueindex(1));
  if (b && b->a) return b;
  b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);  /* raises the usual message */
  if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  return b;
}

anim_animator *anim_lua_upanimator(lua_State *L) { return anim_lua_reader_box(L)->a; }

/* ---- key blocks (lua_helpers.h) ---- */

anim_keyblock *anim_lua_newkeyblock(lua_State *L, int cap, int stride) {
  anim_keyblock *kb = lua_newuserdatauv(L, ANIM_KEYBLOCK_SIZE(cap, stride), 0);
  kb->tag = ANIM_KEYBLOCK_TAG;
  kb->n = kb->arity = kb->pad = 0;
  kb->cap = cap;
  kb->stride = stride;
  luaL_setmetatable(L, ANIM_KEYBLOCK_MT);
  return kb;
}

anim_keyblock *anim_lua_tokeyblock(lua_State *L, int idx) {
  anim_keyblock *kb = luaL_testudata(L, idx, ANIM_KEYBLOCK_MT);
  if (!kb || lua_rawlen(L, idx) < sizeof *kb || kb->tag != ANIM_KEYBLOCK_TAG) return NULL;
  if (kb->cap < 0 || kb->stride < 1 || kb->stride > 4 || kb->n < 0 || kb->n > kb->cap || kb->arity < 0 ||
      kb->arity > kb->stride || lua_rawlen(L, idx) != ANIM_KEYBLOCK_SIZE(kb->cap, kb->stride))
    return NULL;
  return kb;
}

void anim_lua_open_keyblock(lua_State *L) {
  luaL_newmetatable(L, ANIM_KEYBLOCK_MT);
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
}
