/* lua_suggest.c - the one suggestion for a misspelt name ("did you mean
 * 'rightArm'?"): the known name that differs only in letter case, else
 * the nearest a few edits away, within a bounded amount of work. */
#include <ctype.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

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
