/* io/jsonkeys.c - core.json_members: the members of a JSON object in the
 * order of its text.  A decoded object is a Lua table, which keeps no
 * order; the Aseprite importer reads the frames of a sheet's hash form in
 * the file's order (lua/anim/import/aseprite/init.lua).  In Lua the scan took
 * 5 us a frame (1.5 s for a 16 MB sheet), here a few ns a byte.
 *
 * The text is one that cjson accepted, but the scanner trusts nothing of
 * it: every read is bounded by the text's length, nothing recurses (a
 * value is skipped by counting its brackets outside strings), and what it
 * cannot follow gives nil. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua/lua_helpers.h"
#include "io/io.h"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_space(const char *s, size_t n, size_t i) {
  while (i < n && is_space(s[i])) i++;
  return i;
}

/* s[i] is a quote: the index after the closing one, or 0 (none). */
static size_t skip_string(const char *s, size_t n, size_t i) {
  for (i++; i < n; i++) {
    if (s[i] == '\\') i++; /* the escaped byte, whatever it is */
    else if (s[i] == '"') return i + 1;
  }
  return 0;
}

/* The index after the value at i, or 0 (none). */
static size_t skip_value(const char *s, size_t n, size_t i) {
  size_t depth = 0;
  if (i >= n) return 0;
  if (s[i] == '"') return skip_string(s, n, i);
  if (s[i] != '{' && s[i] != '[') {
    size_t j = i;
    while (j < n && !is_space(s[j]) && s[j] != ',' && s[j] != '}' && s[j] != ']') j++;
    return j > i ? j : 0;
  }
  while (i < n) {
    char c = s[i];
    if (c == '"') {
      i = skip_string(s, n, i);
      if (i == 0) return 0;
      continue;
    }
    if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    i++;
  }
  return 0;
}

/* core.json_members(text, pos) -> names, starts | nil: the object whose
 * `{` is at byte pos (1-based) of text; names[i] is the i-th member's name
 * as the text writes it (escapes not decoded), starts[i] the byte where
 * its value starts. */
static int json_members(lua_State *L) {
  size_t n, i;
  const char *s = luaL_checklstring(L, 1, &n);
  lua_Integer pos = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "position");
  lua_Integer k = 0;
  if (pos < 1 || (size_t)(pos - 1) >= n || s[pos - 1] != '{') return 0;
  lua_newtable(L);
  lua_newtable(L);
  i = skip_space(s, n, (size_t)pos);
  if (i < n && s[i] == '}') return 2;
  for (;;) {
    size_t after;
    if (i >= n || s[i] != '"') return 0;
    after = skip_string(s, n, i);
    if (after == 0) return 0;
    lua_pushlstring(L, s + i + 1, after - i - 2);
    lua_rawseti(L, -3, ++k);
    i = skip_space(s, n, after);
    if (i >= n || s[i] != ':') return 0;
    i = skip_space(s, n, i + 1);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_rawseti(L, -2, k);
    i = skip_value(s, n, i);
    if (i == 0) return 0;
    i = skip_space(s, n, i);
    if (i < n && s[i] == '}') return 2;
    if (i >= n || s[i] != ',') return 0;
    i = skip_space(s, n, i + 1);
  }
}

/* -- Duplicate names ---------------------------------------------------------
 * JSON keeps one value of a name an object holds twice (RFC 8259, 4: the
 * behaviour "is unpredictable"; cjson and JavaScript's JSON.parse keep the
 * last), so that a block pasted twice under one name loses the first one
 * without a word.  The scan below finds such a name in a text cjson
 * accepted: each object's names sorted when it closes (n log n: a sheet's
 * hash of 10,000 frames), compared as decoded (escapes written out), so
 * that "a" and "\u0061" are the same name. */

typedef struct {
  const char *name; /* its bytes, set from off before each use (bytes_of) */
  size_t off;       /* where they are: in the text, or in the arena */
  size_t len;
  size_t pos;       /* its opening quote in the text */
  int decoded;      /* in the arena (the name has escapes), else in the text */
} Name;

typedef struct {
  int object;
  size_t base;      /* objects: the first of their names in names[] */
  size_t index;     /* arrays: the element being read, from 0 */
} Open;

typedef struct {
  lua_State *L;
  int slot;         /* the stack slots of the buffers: names, opens, arena */
  const char *s;
  size_t n;
  Name *names;
  size_t nnames, capnames;
  Open *opens;
  size_t nopens, capopens;
  char *arena;      /* the decoded names (grown: a new buffer each time) */
  size_t used, caparena;
  size_t first, second; /* a duplicate: its two names' indexes (positions) */
} Scan;

/* Room for `need` elements of `size` bytes in the buffer *p (stack slot
 * sc->slot + which): a userdata twice as large, the old one's elements
 * copied and the old one left to the collector.  The scan's memory is
 * Lua's: a memory error (raised here, after Lua's own emergency
 * collection) leaves nothing behind that only a finalizer would free --
 * a finalizer a collection may fail to run when memory is short (Lua
 * 5.3 then drops the object without it). */
static void grow(Scan *sc, int which, void **p, size_t *cap, size_t need, size_t size) {
  size_t c = *cap ? *cap : 16;
  void *q;
  if (need <= *cap) return;
  while (c < need) c *= 2;
  q = lua_newuserdatauv(sc->L, c * size, 0);
  if (*cap) memcpy(q, *p, *cap * size);
  lua_replace(sc->L, sc->slot + which);
  *p = q;
  *cap = c;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static unsigned long hex4(const char *p) {
  unsigned long v = 0;
  int k;
  for (k = 0; k < 4; k++) {
    int h = hexval(p[k]);
    if (h < 0) return 0xFFFFFFFFUL;
    v = v * 16 + (unsigned long)h;
  }
  return v;
}

static char *put_utf8(char *o, unsigned long cp) {
  if (cp < 0x80) *o++ = (char)cp;
  else if (cp < 0x800) {
    *o++ = (char)(0xC0 | (cp >> 6));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xE0 | (cp >> 12));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *o++ = (char)(0xF0 | (cp >> 18));
    *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  }
  return o;
}

/* The bytes of a name, wherever they are now. */
static const char *bytes_of(const Scan *sc, const Name *nm) {
  return (nm->decoded ? sc->arena : sc->s) + nm->off;
}

/* The name of the string at s[a] (its quote) .. s[b] (after the closing
 * one) into nm: in place, or decoded into the arena when it has escapes
 * (the decoded text is never longer than the escaped one). */
static int name_of(Scan *sc, size_t a, size_t b, Name *nm) {
  const char *p = sc->s + a + 1, *end = sc->s + b - 1;
  char *o, *start;
  nm->pos = a;
  nm->decoded = 0;
  if (!memchr(p, '\\', (size_t)(end - p))) {
    nm->off = a + 1;
    nm->len = (size_t)(end - p);
    return 1;
  }
  grow(sc, 2, (void **)&sc->arena, &sc->caparena, sc->used + (b - a), 1);
  nm->decoded = 1;
  nm->off = sc->used;
  o = start = sc->arena + sc->used;
  while (p < end) {
    if (*p != '\\') {
      *o++ = *p++;
      continue;
    }
    if (p + 1 >= end) return 0;
    switch (p[1]) {
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      unsigned long cp;
      if (end - p < 6 || (cp = hex4(p + 2)) > 0xFFFF) return 0;
      p += 6;
      if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
        unsigned long lo = hex4(p + 2);
        if (lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      o = put_utf8(o, cp);
      continue;
    }
    default: *o++ = p[1]; break; /* " \ / */
    }
    p += 2;
  }
  nm->len = (size_t)(o - start);
  sc->used += nm->len;
  return 1;
}

static int name_cmp(const void *x, const void *y) {
  const Name *a = x, *b = y;
  size_t m = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->name, b->name, m);
  if (c) return c;
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos; /* (text order among equals) */
}

/* The object on top closes: its names sorted; a name held twice -> 1 (the
 * pair whose second comes first in the text kept in sc). */
static int closes_with_duplicate(Scan *sc) {
  size_t base = sc->opens[sc->nopens - 1].base, k, found = 0;
  Name *nm = sc->names;
  if (sc->nnames - base < 2) return 0;
  for (k = base; k < sc->nnames; k++) nm[k].name = bytes_of(sc, &nm[k]);
  qsort(nm + base, sc->nnames - base, sizeof *nm, name_cmp);
  for (k = base + 1; k < sc->nnames; k++) {
    if (nm[k].len == nm[k - 1].len && memcmp(nm[k].name, nm[k - 1].name, nm[k].len) == 0 &&
        (!found || nm[k].pos < nm[sc->second].pos)) {
      sc->first = k - 1;
      sc->second = k;
      found = 1;
    }
  }
  return (int)found;
}

/* Scans the text: 1 (a duplicate: sc->first, sc->second, the opens its
 * path), 0 (none), -1 (what cjson accepted and this cannot follow). */
static int scan_duplicates(Scan *sc) {
  const char *s = sc->s;
  size_t n = sc->n, i = skip_space(s, n, 0);
  for (;;) {
    /* a value at i */
    if (i >= n) return -1;
    if (s[i] == '{' || s[i] == '[') {
      Open *op;
      grow(sc, 1, (void **)&sc->opens, &sc->capopens, sc->nopens + 1, sizeof *sc->opens);
      op = &sc->opens[sc->nopens++];
      op->object = s[i] == '{';
      op->base = sc->nnames;
      op->index = 0;
      i = skip_space(s, n, i + 1);
      if (i < n && s[i] == (op->object ? '}' : ']')) {
        sc->nopens--;
        i++;
      } else if (op->object) {
        goto name;
      } else {
        continue;
      }
    } else {
      size_t j = s[i] == '"' ? skip_string(s, n, i) : skip_value(s, n, i);
      if (j == 0) return -1;
      i = j;
    }
    /* after a value: a comma, or its container's end */
    for (;;) {
      Open *op;
      i = skip_space(s, n, i);
      if (sc->nopens == 0) return 0;
      op = &sc->opens[sc->nopens - 1];
      if (i >= n) return -1;
      if (s[i] == ',') {
        i = skip_space(s, n, i + 1);
        if (op->object) goto name;
        op->index++;
        break;
      }
      if (s[i] != (op->object ? '}' : ']')) return -1;
      if (op->object && closes_with_duplicate(sc)) return 1;
      if (op->object) sc->nnames = op->base;
      sc->nopens--;
      i++;
    }
    continue;
  name:
    {
      size_t after;
      if (i >= n || s[i] != '"' || (after = skip_string(s, n, i)) == 0) return -1;
      grow(sc, 0, (void **)&sc->names, &sc->capnames, sc->nnames + 1, sizeof *sc->names);
      if (!name_of(sc, i, after, &sc->names[sc->nnames])) return -1;
      sc->nnames++;
      i = skip_space(s, n, after);
      if (i >= n || s[i] != ':') return -1;
      i = skip_space(s, n, i + 1);
    }
  }
}

static lua_Integer line_at(const char *s, size_t pos) {
  lua_Integer line = 1;
  size_t k;
  for (k = 0; k < pos; k++) line += s[k] == '\n';
  return line;
}

/* The path of the object that closed: for each open container below it,
 * its member's name (the last of its names so far) or element (1-based). */
static void push_path(lua_State *L, const Scan *sc) {
  size_t k;
  lua_createtable(L, (int)(sc->nopens - 1), 0);
  for (k = 0; k + 1 < sc->nopens; k++) {
    const Open *op = &sc->opens[k];
    if (op->object) {
      const Name *nm = &sc->names[sc->opens[k + 1].base - 1];
      lua_pushlstring(L, bytes_of(sc, nm), nm->len);
    } else {
      lua_pushinteger(L, (lua_Integer)op->index + 1);
    }
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
}

/* core.json_duplicate(text) -> nil | path, name, line, line: a name an
 * object of text (a text cjson accepted) holds twice -- of several, one in
 * the first object to close holding one; path the
 * object's ({ names and 1-based indexes }), the lines of both -- or nil
 * when every object's names differ (or the scan cannot follow the text:
 * then it claims nothing). */
static int json_duplicate(lua_State *L) {
  Scan sc;
  int r;
  memset(&sc, 0, sizeof sc);
  sc.s = luaL_checklstring(L, 1, &sc.n);
  sc.L = L;
  lua_settop(L, 1);
  luaL_checkstack(L, 8, "json_duplicate");
  lua_pushnil(L);
  lua_pushnil(L);
  lua_pushnil(L);
  sc.slot = 2;
  r = scan_duplicates(&sc);
  if (r != 1) return 0;
  {
    const Name *a = &sc.names[sc.first], *b = &sc.names[sc.second];
    push_path(L, &sc);
    lua_pushlstring(L, bytes_of(&sc, b), b->len);
    lua_pushinteger(L, line_at(sc.s, a->pos));
    lua_pushinteger(L, line_at(sc.s, b->pos));
    return 4;
  }
}

static const luaL_Reg jsonkeys_funcs[] = {
  {"json_members", json_members},
  {"json_duplicate", json_duplicate},
  {NULL, NULL}
};

void anim_lua_open_jsonkeys(lua_State *L) { luaL_setfuncs(L, jsonkeys_funcs, 0); }
