/* lua_state.c - the binding of an animator's saveable state (core/state.h):
 * the numbers read out into plain tables (lua/anim/runtime/state.lua names
 * the clips and writes them losslessly), numbers as flat arrays in the
 * order of core.state_fields; lua_restore.c builds a state back. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "core/state.h"
#include "lua_helpers.h"

static const char *const KINDS[] = { "num", "count", "int", "flag", "enum" };

/* A count's digits, pushed (exact on every runtime). */
static void push_digits(lua_State *L, long long c) {
  char buf[24];
  snprintf(buf, sizeof buf, "%lld", c);
  lua_pushstring(L, buf);
}

/* One list of fields as { { name =, kind =, n =, lo =, hi =, names = "a,b", max = "digits" }, ... } */
static void push_fields(lua_State *L, const anim_state_field *f) {
  int i;
  lua_newtable(L);
  for (i = 0; f[i].name; i++) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, f[i].name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, KINDS[f[i].kind]);
    lua_setfield(L, -2, "kind");
    lua_pushinteger(L, f[i].n);
    lua_setfield(L, -2, "n");
    lua_pushnumber(L, f[i].lo);
    lua_setfield(L, -2, "lo");
    lua_pushnumber(L, f[i].hi);
    lua_setfield(L, -2, "hi");
    if (f[i].names) {
      lua_pushstring(L, f[i].names);
      lua_setfield(L, -2, "names");
    }
    if (f[i].kind == ANIM_SF_COUNT) {
      /* (its digits: a double would round it) */
      push_digits(L, f[i].max);
      lua_setfield(L, -2, "max");
    }
    lua_rawseti(L, -2, i + 1);
  }
}

/* core.state_fields() -> { track = fields, animator = fields, max_id = "digits" } */
static int state_fields(lua_State *L) {
  lua_createtable(L, 0, 3);
  push_fields(L, anim_track_state_fields);
  lua_setfield(L, -2, "track");
  push_fields(L, anim_animator_state_fields);
  lua_setfield(L, -2, "animator");
  push_digits(L, ANIM_STATE_MAX_COUNTER - 1);
  lua_setfield(L, -2, "max_id");
  return 1;
}

/* The numbers of struct s (fields f) as a new flat array.  s is on the C
 * stack: making the table may run finalizers. */
static void push_flat(lua_State *L, const anim_state_field *f, const void *s) {
  int i, k, n = 0, at = 0;
  for (i = 0; f[i].name; i++) n += f[i].n;
  lua_createtable(L, n, 0);
  for (i = 0; f[i].name; i++) {
    const char *p = (const char *)s + f[i].off;
    for (k = 0; k < f[i].n; k++) {
      switch (f[i].kind) {
        case ANIM_SF_NUM: lua_pushnumber(L, ((const double *)(const void *)p)[k]); break;
        /* (a decimal string: exact on every runtime, where a double would
         * round a count beyond 2^53 and 5.1's %d overflow) */
        case ANIM_SF_COUNT: push_digits(L, ((const long long *)(const void *)p)[k]); break;
        default: lua_pushinteger(L, ((const int *)(const void *)p)[k]); break;
      }
      lua_rawseti(L, -2, ++at);
    }
  }
}

/* ---- reading ------------------------------------------------------------- */

/* A vector of n numbers as a new array (v on the C stack). */
static void push_vec(lua_State *L, const double *v, int n) { anim_lua_pushnumbers(L, v, (size_t)n); }

/* core.animator_state_export(animator) -> {
 *   animator = flat, pose = { 10 numbers per joint }, animated = { flags per joint },
 *   tracks = { { id =, digits = id's, point = 0-based, after = -1 | lead ordinal, f = flat }, ... },
 *   properties = { { name =, v = { ... } }, ... } (the names known; v empty: no value),
 *   constraints = { { id =, digits = id's, kind =, j = { 3 }, target, pole, fwd, up, weight =, soften = }, ... } }
 * Every table made may run finalizers: the animator is taken out of its
 * box again before each read, and what is read is copied to the C stack
 * before the next table is made. */
static int animator_state_export(lua_State *L) {
  int i, n, nrig;
  anim_animator_state as;
  anim_lua_checkanimator(L, 1);
  lua_settop(L, 1);
  lua_createtable(L, 0, 6);
  anim_state_animator(anim_lua_checkanimator(L, 1), &as);
  push_flat(L, anim_animator_state_fields, &as);
  lua_setfield(L, 2, "animator");
  nrig = anim_animator_rig(anim_lua_checkanimator(L, 1))->n;
  lua_createtable(L, nrig * 10, 0);
  lua_createtable(L, nrig, 0);
  for (i = 0; i < nrig; i++) {
    double v[10];
    int f, k;
    anim_animator_get(anim_lua_checkanimator(L, 1), i, v, &f);
    for (k = 0; k < 10; k++) { lua_pushnumber(L, v[k]); lua_rawseti(L, -3, i * 10 + k + 1); }
    lua_pushinteger(L, f);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, 2, "animated");
  lua_setfield(L, 2, "pose");
  n = anim_state_count(anim_lua_checkanimator(L, 1));
  lua_createtable(L, n, 0);
  for (i = 0; i < n && i < anim_state_count(anim_lua_checkanimator(L, 1)); i++) {
    anim_track_state s;
    int point, after;
    long long id = anim_track_id(anim_state_track(anim_lua_checkanimator(L, 1), i, &s, &point, &after));
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, (lua_Integer)id);
    lua_setfield(L, -2, "id");
    push_digits(L, id);
    lua_setfield(L, -2, "digits");
    lua_pushinteger(L, point);
    lua_setfield(L, -2, "point");
    lua_pushinteger(L, after);
    lua_setfield(L, -2, "after");
    push_flat(L, anim_track_state_fields, &s);
    lua_setfield(L, -2, "f");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, 2, "tracks");
  lua_newtable(L);
  for (i = 0;; i++) {
    size_t len = 0;
    const char *name = NULL;
    const double *v;
    double copy[ANIM_MAX_PROP_ARITY];
    int arity, known = anim_animator_property_slot(anim_lua_checkanimator(L, 1), i, &name, &len);
    if (known < 0) break;
    if (!known) continue;
    arity = anim_animator_property(anim_lua_checkanimator(L, 1), name, len, &v);
    if (arity < 0) continue;
    if (arity > 0) memcpy(copy, v, sizeof(double) * (size_t)arity);
    lua_createtable(L, 0, 2);
    /* (the name is copied into the string before anything can run) */
    lua_pushlstring(L, name, len);
    lua_setfield(L, -2, "name");
    push_vec(L, copy, arity);
    lua_setfield(L, -2, "v");
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  }
  lua_setfield(L, 2, "properties");
  n = anim_state_nik(anim_lua_checkanimator(L, 1));
  lua_createtable(L, n, 0);
  for (i = 0; i < n && i < anim_state_nik(anim_lua_checkanimator(L, 1)); i++) {
    anim_ik_desc d;
    long long id = anim_state_ik(anim_lua_checkanimator(L, 1), i, &d);
    double j[3];
    j[0] = d.j[0]; j[1] = d.j[1]; j[2] = d.j[2];
    lua_createtable(L, 0, 10);
    lua_pushinteger(L, (lua_Integer)id);
    lua_setfield(L, -2, "id");
    push_digits(L, id);
    lua_setfield(L, -2, "digits");
    lua_pushinteger(L, d.kind);
    lua_setfield(L, -2, "kind");
    push_vec(L, j, 3);
    lua_setfield(L, -2, "j");
    push_vec(L, d.target, 3);
    lua_setfield(L, -2, "target");
    push_vec(L, d.pole, 3);
    lua_setfield(L, -2, "pole");
    push_vec(L, d.fwd, 3);
    lua_setfield(L, -2, "fwd");
    push_vec(L, d.up, 3);
    lua_setfield(L, -2, "up");
    lua_pushnumber(L, d.weight);
    lua_setfield(L, -2, "weight");
    lua_pushnumber(L, d.soften);
    lua_setfield(L, -2, "soften");
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, 2, "constraints");
  return 1;
}

static const luaL_Reg funcs[] = {
  {"state_fields", state_fields},
  {"animator_state_export", animator_state_export},
  {NULL, NULL}
};

void anim_lua_open_state(lua_State *L) { luaL_setfuncs(L, funcs, 0); }
