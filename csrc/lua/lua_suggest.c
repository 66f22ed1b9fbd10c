/* lua_suggest.c - the one suggestion for a misspelt name ("did you mean
 * 'rightArm'?"): the known name that differs only in letter case, else
 * the nearest a few edits away, else one it is the start or stem of
 * (`pos`, `rotate`), within a bounded amount of work. */
#include <ctype.h>
#include <limits.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

/* Edit distance (optimal string alignment, letter case ignored) of a and
 * b when it is at most limit, else limit + 1 (also when either is longer
 * than MAX_SUGGEST: names that long are not suggested); *cells gets the
 * cells of the table filled.  Only the band within limit of the diagonal
 * is filled (a cell outside it is more than limit edits), and a row
 * whose every cell is over limit ends it (no later cell can come back
 * under it): for unlike names a few rows of 2 * limit + 1 cells. */
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

/* Whether a and b (of one length n) differ only in letter case. */
static int same_but_case(const char *a, const char *b, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
  return 1;
}

/* The work one suggestion may do: a name looked at costs 1, a cell of a
 * distance table 1 (at most about 22 million instructions).  Names alike
 * enough to be worth it cost 2 * 3 + 1 cells a letter; a list of more
 * names than that (a rig of 65,536 joints) is searched until the budget
 * is spent, and what was found is the answer (65,536 rig joints of 64
 * bytes alike and a misspelt one took 35 s in Lua before the bound). */
#define MAX_CELLS 500000L

/* Name i of the list (0-based) and its length, from the list's reader. */
typedef const char *(*name_at)(void *list, int i, size_t *len);

/* The letters a and b share at their start, letter case ignored. */
static size_t common_start(const char *a, size_t la, const char *b, size_t lb) {
  size_t i = 0;
  while (i < la && i < lb && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i])) i++;
  return i;
}

/* When no name is a few edits away: a name that name is the start or the
 * stem of (`pos` of `position`, `rotate` of `rotation`): one that shares
 * its first letters but at most its last two, and at least three; the
 * one sharing the most, ties to the first listed.  -1 for none. */
static int stem(const char *name, size_t ln, name_at at, void *list, int n, long *budget) {
  int i, best = -1;
  size_t need = ln > 5 ? ln - 2 : 3, bestn = 0;
  if (ln < 3 || ln > MAX_SUGGEST) return -1;
  for (i = 0; i < n && *budget > 0; i++) {
    size_t lc, k;
    const char *c = at(list, i, &lc);
    (*budget)--;
    if (!c || lc <= ln || lc > MAX_SUGGEST) continue;
    k = common_start(name, ln, c, lc);
    *budget -= (long)k;
    if (k >= need && k > bestn) { best = i; bestn = k; }
  }
  return best;
}

/* The rule, over any list: the first name (not name itself) that differs
 * from it only in letter case; else, for a name of three letters or
 * more, the nearest by edit distance within a third of its length (at
 * most 3) edits, ties to the first listed, searched while *budget lasts
 * (each name looked at and each cell spends 1).  -1 for none.  Names are
 * compared with their lengths: a NUL byte is a byte like another. */
static int suggest(const char *name, size_t ln, name_at at, void *list, int n, long *budget) {
  int i, limit = (int)(ln / 3), best = -1, bestd = 0;
  if (ln >= 3 && limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  for (i = 0; i < n; i++) {
    size_t lc;
    const char *c = at(list, i, &lc);
    if (c && lc == ln && memcmp(c, name, ln) != 0 && same_but_case(c, name, ln)) return i;
  }
  if (limit == 0 || ln > MAX_SUGGEST) return -1;
  for (i = 0; i < n && *budget > 0; i++) {
    size_t lc;
    const char *c = at(list, i, &lc);
    long cells;
    int d;
    (*budget)--;
    if (!c || (lc == ln && memcmp(c, name, ln) == 0) || lc > MAX_SUGGEST || (lc > ln ? lc - ln : ln - lc) > (size_t)limit)
      continue;
    /* (past the best so far, nothing is worth the cells) */
    d = distance(name, ln, c, lc, best < 0 ? limit : bestd - 1, &cells);
    *budget -= cells;
    if (d <= limit && (best < 0 || d < bestd)) { best = i; bestd = d; }
  }
  return best >= 0 ? best : stem(name, ln, at, list, n, budget);
}

/* A C array of NUL-terminated names (a rig's, a list of the binding's). */
static const char *c_name(void *list, int i, size_t *len) {
  const char *s = ((const char *const *)list)[i];
  *len = strlen(s);
  return s;
}

const char *anim_lua_suggest(const char *name, const char *const *names, int n) {
  long budget = MAX_CELLS;
  int i = suggest(name, strlen(name), c_name, (void *)names, n, &budget);
  return i < 0 ? NULL : names[i];
}

/* The array at stack index idx of a Lua state, names read raw (each stays
 * in the array while it is read: its bytes stay put); NULL for what is no
 * string. */
typedef struct { lua_State *L; int idx; } lua_list;
static const char *lua_name(void *list, int i, size_t *len) {
  lua_list *l = list;
  const char *s = NULL;
  lua_rawgeti(l->L, l->idx, i + 1);
  if (lua_type(l->L, -1) == LUA_TSTRING) s = lua_tolstring(l->L, -1, len);
  lua_pop(l->L, 1);
  return s;
}

/* core.suggest(name, list [, budget]) -> the name of list (an array of
 * names) to suggest for name, or nil: anim_lua_suggest's rule, the one
 * of both sides (lua/anim/base/suggest.lua).  budget: a table whose field
 * cells several searches spend from (read and written raw); absent, a
 * budget of MAX_CELLS for this one. */
static int lua_suggest(lua_State *L) {
  size_t ln;
  const char *name;
  lua_list list;
  long budget = MAX_CELLS;
  lua_Integer n;
  int i;
  if (lua_type(L, 1) != LUA_TSTRING) return 0;
  name = lua_tolstring(L, 1, &ln);
  luaL_checktype(L, 2, LUA_TTABLE);
  n = (lua_Integer)lua_rawlen(L, 2);
  if (n > INT_MAX) n = INT_MAX;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushliteral(L, "cells");
    lua_rawget(L, 3);
    budget = (long)luaL_checknumber(L, -1);
    lua_pop(L, 1);
  }
  list.L = L;
  list.idx = 2;
  i = suggest(name, ln, lua_name, &list, (int)n, &budget);
  if (!lua_isnoneornil(L, 3)) {
    lua_pushliteral(L, "cells");
    lua_pushinteger(L, (lua_Integer)budget);
    lua_rawset(L, 3);
  }
  if (i < 0) return 0;
  lua_rawgeti(L, 2, i + 1);
  return 1;
}

void anim_lua_open_suggest(lua_State *L) {
  lua_pushcfunction(L, lua_suggest);
  lua_setfield(L, -2, "suggest");
  lua_pushinteger(L, MAX_CELLS);
  lua_setfield(L, -2, "suggest_max_cells");
}
