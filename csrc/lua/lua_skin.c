/* lua_skin.c - the Lua binding of the skinning matrices (core/skin.h):
 * animator:skin(out [, options]) and animator:skin_target(target [,
 * offset [, layout]]), and the targets they and anim.update's `skin`
 * write: a module buffer (lua_buffer.h: floats or doubles), an object
 * with getPointer() and getSize() (LÖVE's ByteData: 32-bit floats, its
 * size in bytes) or a Lua table (1-based: offset 0 writes from [1]).  Nothing is allocated on the way to a pointer's
 * memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "core/skin.h"
#include "core/world2d.h"
#include "lua_buffer.h"
#include "lua_helpers.h"

typedef anim_animator_box animator_box;

static const char *const LAYOUTS[] = {"mat3x4", "mat4"};
static const char *const OPTIONS[] = {"layout", "offset", "root"};
#define EXPECTED_TARGET "a module buffer, an object with getPointer and getSize (a ByteData) or a table"

/* A number or other value at idx as the messages show it: nan, inf and
 * -inf spelt the same on every C library (args.show's rule), a number
 * else as Lua writes it, anything else by its type. */
static const char *shown_value(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    lua_Number v = lua_tonumber(L, idx);
    if (v != v) return "nan";
    if (isinf(v)) return v > 0 ? "inf" : "-inf";
    return anim_lua_shown(L, idx);
  }
  return anim_lua_typename(L, idx);
}

/* The layout named at idx (nil: dflt) as ANIM_SKIN_*; a misspelt one gets
 * a suggestion.  arg: the argument the message names. */
int anim_lua_skin_layout(lua_State *L, int idx, int arg, int dflt) {
  size_t len;
  const char *s, *hint;
  int i;
  if (lua_isnil(L, idx)) return dflt;
  if (lua_type(L, idx) != LUA_TSTRING)
    return anim_lua_argerror(L, arg, "layout must be \"mat3x4\" or \"mat4\", got %s", anim_lua_typename(L, idx));
  s = lua_tolstring(L, idx, &len);
  for (i = 0; i < 2; i++)
    if (len == strlen(LAYOUTS[i]) && memcmp(s, LAYOUTS[i], len) == 0) return i ? ANIM_SKIN_MAT4 : ANIM_SKIN_MAT3X4;
  hint = strlen(s) == len ? anim_lua_suggest(s, LAYOUTS, 2) : NULL;
  s = anim_lua_shown(L, idx);
  if (hint) return anim_lua_argerror(L, arg, "layout must be \"mat3x4\" or \"mat4\", got '%s'; did you mean '%s'?", s, hint);
  return anim_lua_argerror(L, arg, "layout must be \"mat3x4\" or \"mat4\", got '%s'", s);
}

/* The float offset at idx (nil: 0): an integer >= 0. */
size_t anim_lua_skin_offset(lua_State *L, int idx, int arg) {
  lua_Number v;
  if (lua_isnil(L, idx)) return 0;
  v = lua_type(L, idx) == LUA_TNUMBER ? lua_tonumber(L, idx) : -1;
  if (!(v >= 0 && v == floor(v) && v <= 9007199254740992.0))
    return (size_t)anim_lua_argerror(L, arg, "offset must be an integer >= 0, got %s", shown_value(L, idx));
  return (size_t)v;
}

/* The target at idx into o (data, cap, is_double): 2 for a module
 * buffer (its elements), 1 for an object with getPointer; or 0 for a
 * table to write into (no getPointer); raises for anything else.  A
 * userdata or table with getPointer is asked for its pointer and size
 * (bytes, 32-bit floats).  What those calls return is checked: a pointer
 * (light or full userdata), a size that is an integer >= 0. */
int anim_lua_skin_target(lua_State *L, int idx, int arg, anim_skin_out *o) {
  int t = lua_type(L, idx);
  lua_Number size;
  anim_lua_buffer *buf = anim_lua_tobuffer(L, idx);
  if (buf) {
    o->data = buf->data;
    o->cap = buf->n;
    o->is_double = buf->is_double;
    return 2;
  }
  if (t == LUA_TUSERDATA) {
    if (luaL_getmetafield(L, idx, "__index") == LUA_TNIL)
      return anim_lua_argerror(L, arg, EXPECTED_TARGET " expected, got %s", anim_lua_typename(L, idx));
    lua_pop(L, 1);
  } else if (t != LUA_TTABLE) {
    return anim_lua_argerror(L, arg, EXPECTED_TARGET " expected, got %s", anim_lua_typename(L, idx));
  }
  lua_getfield(L, idx, "getPointer");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    if (t == LUA_TTABLE) return 0;
    return anim_lua_argerror(L, arg, EXPECTED_TARGET " expected, got %s (no getPointer)", anim_lua_typename(L, idx));
  }
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  o->data = lua_touserdata(L, -1);
  if (!o->data)
    return anim_lua_argerror(L, arg, "getPointer() must give a pointer (a light userdata), got %s",
                             anim_lua_typename(L, -1));
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "getSize") == LUA_TNIL)
    return anim_lua_argerror(L, arg, "an object with getPointer must have getSize too");
  lua_pushvalue(L, idx);
  lua_call(L, 1, 1);
  size = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
  if (!(size >= 0 && size == floor(size) && size <= 9007199254740992.0))
    return anim_lua_argerror(L, arg, "getSize() must give a size in bytes (an integer >= 0), got %s",
                             shown_value(L, lua_gettop(L)));
  lua_pop(L, 1);
  o->cap = (size_t)size / sizeof(float);
  o->is_double = 0;
  return 1;
}

/* Raises "out holds ..., ... needed" for a target o too small for n
 * numbers from its offset: in bytes for an object with getPointer, else
 * in its elements. */
int anim_lua_skin_room(lua_State *L, int arg, const anim_skin_out *o, size_t n, int bytes) {
  /* (sizes below 2^53 written whole by snprintf: lua_pushfstring has no
   * integer format on every runtime) */
  char msg[160];
  double need = (double)o->offset + (double)n;
  if (bytes)
    snprintf(msg, sizeof msg, "too small: %.0f bytes needed (%.0f floats from float %.0f), it holds %.0f", need * 4,
             (double)n, (double)o->offset, (double)o->cap * 4);
  else
    snprintf(msg, sizeof msg, "too small: %.0f %s needed (%.0f from offset %.0f), it holds %.0f", need,
             o->is_double ? "doubles" : "floats", (double)n, (double)o->offset, (double)o->cap);
  return anim_lua_argerror(L, arg, "%s", msg);
}

/* The options table at idx (nil: none): layout, offset, root (16 finite
 * numbers into root[], o->root set).  An unknown key raises, with a
 * suggestion. */
static void skin_options(lua_State *L, int idx, anim_skin_out *o, double root[16]) {
  int i;
  o->layout = ANIM_SKIN_MAT3X4;
  o->offset = 0;
  o->root = NULL;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    anim_lua_argerror(L, idx, "table of options expected, got %s", anim_lua_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    lua_pop(L, 1);
    for (i = 0; k && i < 3 && strcmp(k, OPTIONS[i]) != 0; i++) {}
    if (!k)
      anim_lua_argerror(L, idx, "options are named: %s is not an option name (the options are layout, offset, root)",
                        anim_lua_typename(L, -1));
    if (i == 3) {
      const char *hint = anim_lua_suggest(k, OPTIONS, 3);
      const char *shown = anim_lua_shown(L, -1);
      if (hint) anim_lua_argerror(L, idx, "unknown option '%s'; did you mean '%s'?", shown, hint);
      anim_lua_argerror(L, idx, "unknown option '%s'", shown);
    }
  }
  lua_getfield(L, idx, "layout");
  o->layout = anim_lua_skin_layout(L, lua_gettop(L), idx, ANIM_SKIN_MAT3X4);
  lua_getfield(L, idx, "offset");
  o->offset = anim_lua_skin_offset(L, lua_gettop(L), idx);
  if (lua_getfield(L, idx, "root") != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != 16)
      anim_lua_argerror(L, idx, "root must be a table of 16 numbers (a column-major 4x4), got %s",
                        lua_type(L, -1) == LUA_TTABLE ? lua_pushfstring(L, "a table of %d", (int)lua_rawlen(L, -1))
                                                      : anim_lua_typename(L, -1));
    for (i = 0; i < 16; i++) {
      lua_rawgeti(L, -1, i + 1);
      root[i] = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
      if (!isfinite(root[i]))
        anim_lua_argerror(L, idx, "root[%d] must be a finite number, got %s", i + 1, shown_value(L, lua_gettop(L)));
      lua_pop(L, 1);
    }
    o->root = root;
  }
  lua_pop(L, 3);
}

/* out[o + 1 ..] = the matrices, a table at 2, raw: the world matrices
 * computed once, then each joint's numbers read onto the C stack and
 * set.  Setting may run a collection, whose finalizers may finalize the
 * animator by hand: it is taken again for each joint. */
static void skin_table(lua_State *L, animator_box *b, const anim_skin_out *o) {
  int k, e, nskin;
  lua_Integer at = (lua_Integer)o->offset;
  if (!anim_animator_skin_room(b->a)) anim_lua_nomem(L);
  anim_animator_skin_prepare(b->a);
  nskin = anim_animator_rig(b->a)->nskin;
  for (k = 0; k < nskin; k++) {
    double m[16];
    if (!b->a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
    anim_animator_skin_joint(b->a, k, o->root, m);
    for (e = 0; e < 16; e++) {
      if (o->layout == ANIM_SKIN_MAT3X4 && e % 4 == 3) continue;
      lua_pushnumber(L, m[e]);
      lua_rawseti(L, 2, ++at);
    }
  }
}

/* core.animator_skin(animator, out [, options]) -> the numbers written:
 * the method animator:skin itself (its errors name it). */
/* animator:skin() / animator:skin(name) on an animator of a 2D skeleton:
 * its skin, read or switched by the Lua handler, which answers true and
 * the name, or false and why (raised here: the script's line). */
static int skin2d(lua_State *L) {
  lua_settop(L, 2);
  if (lua_getfield(L, LUA_REGISTRYINDEX, ANIM_SKIN2D_KEY) != LUA_TFUNCTION)
    return luaL_error(L, "the 2D skin handler is not registered");
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_call(L, 2, 2);
  if (!lua_toboolean(L, -2)) return anim_lua_argerror(L, 2, "%s", lua_tostring(L, -1));
  return 1;
}

static int animator_skin(lua_State *L) {
  animator_box *b = anim_lua_reader_box(L);
  anim_skin_out o;
  double root[16];
  size_t n;
  int ptr;
  /* (a 2D skeleton's skins: a name or nothing; anything else, the matrices) */
  if (lua_gettop(L) <= 2 && (lua_isnoneornil(L, 2) || lua_type(L, 2) == LUA_TSTRING) && b->a &&
      anim_animator_has_world2d(b->a))
    return skin2d(L);
  lua_settop(L, 3);
  skin_options(L, 3, &o, root);
  o.data = NULL;
  o.cap = 0;
  o.is_double = 0;
  ptr = anim_lua_skin_target(L, 2, 2, &o);
  /* (the calls above ran Lua code: the animator is taken again) */
  if (!b->a) return anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  n = anim_skin_size(anim_animator_rig(b->a), o.layout);
  /* (the skinning's scratch, made at the first: out of memory is not a
   * lack of room in out) */
  if (!anim_animator_skin_room(b->a)) return anim_lua_nomem(L);
  if (!ptr) skin_table(L, b, &o);
  else if (anim_animator_skin(b->a, &o) != n) return anim_lua_skin_room(L, 2, &o, n, ptr == 1);
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

/* core.animator_skin_target(animator, target [, offset [, layout]]): the
 * target anim.update writes the animator's matrices into when it is given
 * no `skin` (nil clears it); kept alive in the animator's state table
 * (its field skin_target) while it is the target. */
static int animator_skin_target(lua_State *L) {
  animator_box *b = anim_lua_reader_box(L);
  anim_skin_out o;
  size_t n;
  int kind;
  lua_settop(L, 4);
  memset(&o, 0, sizeof o);
  o.offset = anim_lua_skin_offset(L, 3, 3);
  o.layout = anim_lua_skin_layout(L, 4, 4, ANIM_SKIN_MAT3X4);
  kind = lua_isnil(L, 2) ? -1 : anim_lua_skin_target(L, 2, 2, &o);
  if (kind == 0)
    return anim_lua_argerror(L, 2, "a module buffer or an object with getPointer and getSize expected (the batch"
                                   " writes it on its threads), got a table");
  if (!b->a) return anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  n = anim_skin_size(anim_animator_rig(b->a), o.layout);
  /* (the skinning's scratch made now, not in the batch, and before the
   * target is set: out of memory leaves the animator as it was) */
  if (o.data && !anim_animator_skin_room(b->a)) return anim_lua_nomem(L);
  if (anim_animator_set_skin_target(b->a, &o) != 0) return anim_lua_skin_room(L, 2, &o, n, kind == 1);
  lua_getiuservalue(L, 1, ANIM_UV_ANIMATOR_STATE);
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_pushliteral(L, "skin_target");
    lua_pushvalue(L, 2);
    lua_rawset(L, -3);
  }
  return 0;
}

static const anim_lua_method skin_methods[] = {
  {"animator_skin", "skin", animator_skin},
  {"animator_skin_target", "skin_target", animator_skin_target},
  {NULL, NULL, NULL}
};

void anim_lua_open_skin(lua_State *L) {
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  anim_lua_setmethods(L, "animator_methods", skin_methods, 1);
}
