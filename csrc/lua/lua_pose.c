/* lua_pose.c - the Lua binding of the pose readers: an animator's get,
 * animated, local_transform, world_transform (one joint: called per
 * joint, per character, per frame), pose_into and pose_array (the whole
 * pose), the animator's methods themselves (anim_lua_setmethods: their
 * argument errors name the method). */
#include <string.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

typedef anim_animator_box animator_box;


/* "no joint 'x' in rig 'player'; did you mean 'X'?" for the name at idx:
 * the rig's name from its Lua info (the animator at 1 holds the rig as
 * its first user value). */
static int no_joint(lua_State *L, const anim_rig *r, int idx) {
  const char *hint = anim_lua_suggest(lua_tostring(L, idx), r->names, r->n);
  const char *rig = "rig", *name = anim_lua_shown(L, idx);
  if (lua_getiuservalue(L, 1, ANIM_UV_ANIMATOR_RIG) == LUA_TUSERDATA && lua_getiuservalue(L, -1, 1) == LUA_TTABLE &&
      lua_getfield(L, -1, "name") == LUA_TSTRING)
    rig = anim_lua_shown(L, -1);
  /* (every name quoted cut: anim_lua_shown) */
  if (hint)
    return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'; did you mean '%s'?", name, rig,
                             anim_lua_pushshown(L, hint, strlen(hint), 0));
  return anim_lua_argerror(L, idx, "no joint '%s' in rig '%s'", name, rig);
}

/* Joint index (0-based) from a name or a 1-based index.  Out of line: the
 * readers of one joint (below) have their usual path inline
 * (ANIM_LUA_HOT), and this inlined there too would have its registers
 * saved and restored on every read. */
static ANIM_LUA_COLD int joint_arg(lua_State *L, const anim_rig *r, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    size_t len;
    const char *name = lua_tolstring(L, idx, &len);
    int j;
    /* (rig joint names hold no NUL: "a\0b" is no joint, not "a") */
    if (strlen(name) != len) return anim_lua_argerror(L, idx, "unknown joint (the name holds a NUL byte)");
    j = anim_rig_find(r, name);
    if (j < 0) return no_joint(L, r, idx);
    return j;
  }
  if (lua_type(L, idx) != LUA_TNUMBER)
    return anim_lua_argerror(L, idx, "joint name or index expected, got %s", anim_lua_typename(L, idx));
  return (int)anim_lua_checkrange(L, idx, 1, r->n, "joint index") - 1;
}

/* The animator at index 1 of a reader of the pose (lua_helpers.h). */
#define reader_box anim_lua_reader_box
#define reader_animator anim_lua_upanimator

/* (written out: no loop counter and branch between the ten calls of
 * every read) */
static ANIM_LUA_HOT int push10(lua_State *L, const double *v) {
  lua_pushnumber(L, v[0]); lua_pushnumber(L, v[1]); lua_pushnumber(L, v[2]); lua_pushnumber(L, v[3]);
  lua_pushnumber(L, v[4]); lua_pushnumber(L, v[5]); lua_pushnumber(L, v[6]);
  lua_pushnumber(L, v[7]); lua_pushnumber(L, v[8]); lua_pushnumber(L, v[9]);
  return 10;
}

/* The animator of a reader of one joint (get, animated, local_transform,
 * world_transform: called per joint, per character, per frame) and the
 * joint at 2, 0-based in *j.  The usual call takes seven calls into Lua:
 * a live animator, in the five of anim_lua_animator_mt (its metatable
 * left on the stack: these readers return their results from the top),
 * and an integer index in range, in two.  Anything else goes the checked
 * way, reader_animator and joint_arg, which raise the usual messages
 * (before 5.3 every number is a float, and goes there). */
static ANIM_LUA_HOT anim_animator *joint_reader(lua_State *L, int *j) {
  animator_box *b = anim_lua_animator_mt(L, 1, lua_upvalueindex(1));
  anim_animator *a = b && b->a ? b->a : reader_animator(L);
  const anim_rig *r = anim_animator_rig(a);
  lua_Integer k;
  *j = lua_isinteger(L, 2) && (k = lua_tointeger(L, 2)) >= 1 && k <= r->n ? (int)k - 1 : joint_arg(L, r, 2);
  return a;
}

static int animator_get(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_get(a, j, v, NULL);
  return push10(L, v);
}

static int animator_animated(lua_State *L) {
  int j, f;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_get(a, j, v, &f);
  lua_pushboolean(L, f & ANIM_CH_POS);
  lua_pushboolean(L, f & ANIM_CH_ROT);
  lua_pushboolean(L, f & ANIM_CH_SCL);
  return 3;
}

static int animator_local(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  anim_animator_local(a, j, v);
  return push10(L, v);
}

static int animator_world(lua_State *L) {
  int j;
  anim_animator *a = joint_reader(L, &j);
  double v[10];
  /* (the world transforms' block, made at the first read) */
  if (!anim_animator_world_room(a)) return anim_lua_nomem(L);
  anim_animator_world(a, j, v);
  return push10(L, v);
}

/* Joint j's ten numbers into v, which by pose_into's numbering (0
 * offsets, 1 local, 2 world), from the animator of b: taken again for each
 * joint by the readers of the whole pose (a finalizer run by an
 * allocation between two joints may have finalized it by hand: then this
 * raises).  Returns it. */
static ANIM_LUA_HOT anim_animator *pose_joint(lua_State *L, animator_box *b, int mode, int j, double *v) {
  anim_animator *a = b->a;
  if (!a) anim_lua_finalized(L, ANIM_BOX_ANIMATOR);
  if (mode == 2) {
    if (!anim_animator_world_room(a)) anim_lua_nomem(L);
    anim_animator_world(a, j, v);
  }
  else if (mode == 1) anim_animator_local(a, j, v);
  else anim_animator_get(a, j, v, NULL);
  return a;
}

/* The `which` at 3 of pose_array (nil or absent: dflt 1, "local") and
 * pose_into (dflt 0, "offsets"): its index in POSES, pose_joint's
 * numbering.  Compared with its length, so that "world\0x" is no pose;
 * a misspelt one gets a suggestion.  The message names the default
 * first. */
static const char *const POSES[] = {"offsets", "local", "world"};
static const char *const POSES_EXPECTED[] = {"\"offsets\", \"local\" or \"world\"",
                                             "\"local\", \"world\" or \"offsets\""};
static int pose_which(lua_State *L, int dflt) {
  size_t len;
  const char *s, *hint, *expected = POSES_EXPECTED[dflt];
  int i;
  if (lua_isnoneornil(L, 3)) return dflt;
  if (lua_type(L, 3) != LUA_TSTRING)
    return anim_lua_argerror(L, 3, "%s expected, got %s", expected, anim_lua_typename(L, 3));
  s = lua_tolstring(L, 3, &len);
  for (i = 0; i < 3; i++)
    if (len == strlen(POSES[i]) && memcmp(s, POSES[i], len) == 0) return i;
  if (strlen(s) != len) return anim_lua_argerror(L, 3, "%s expected, got a string holding a NUL byte", expected);
  hint = anim_lua_suggest(s, POSES, 3);
  s = anim_lua_shown(L, 3);
  if (hint) return anim_lua_argerror(L, 3, "%s expected, got '%s'; did you mean '%s'?", expected, s, hint);
  return anim_lua_argerror(L, 3, "%s expected, got '%s'", expected, s);
}

/* core.animator_pose_into(animator, t [, which]) fills t[name] with a
 * 10-number array per joint (created once, then reused): which is
 * "offsets" (default), "local" or "world" (pose_which).  It is the method
 * animator:pose_into itself, so that its errors name the script's line
 * and argument.  t is read and written raw: no metamethod of the
 * script's runs.  Making an array may still run a collection, whose
 * finalizers may finalize the animator by hand: the animator is taken
 * again for each joint, and the joint's name is pushed before anything
 * is made. */
static int animator_pose_into(lua_State *L) {
  animator_box *b = reader_box(L);
  int j, k, n, mode;
  if (lua_type(L, 2) != LUA_TTABLE)
    return anim_lua_argerror(L, 2, "table expected, got %s", anim_lua_typename(L, 2));
  mode = pose_which(L, 0);
  lua_settop(L, 2);
  n = anim_animator_rig(b->a)->n;
  for (j = 0; j < n; j++) {
    double v[10];
    anim_animator *a = pose_joint(L, b, mode, j, v);
    lua_pushstring(L, anim_animator_rig(a)->names[j]);
    lua_pushvalue(L, -1);
    lua_rawget(L, 2);
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_createtable(L, 10, 0);
      lua_pushvalue(L, -2);
      lua_pushvalue(L, -2);
      lua_rawset(L, 2);
    }
    /* (v is on the C stack) */
    for (k = 0; k < 10; k++) { lua_pushnumber(L, v[k]); lua_rawseti(L, -2, k + 1); }
    lua_pop(L, 2);
  }
  lua_settop(L, 2);
  return 1;
}

/* out[o + 1 .. o + 10] = v[0 .. 9], out at 2, raw (written out, as
 * push10).  Each number is a push and a set, each a call into Lua that
 * moves the stack's top: most of what pose_array costs (8 to 10 ns a
 * number on the development VM, docs/performance.md).  On 5.3+ lua_seti
 * finds a slot of the array part inline where lua_rawseti calls two
 * functions of the table (about 20 % less time a number); on a table
 * without a metatable it is a raw set (a missing key is set as
 * lua_rawseti sets it), so it is used then.  Before 5.3 there is only
 * lua_rawseti, whose key is an int. */
#if LUA_VERSION_NUM >= 503
#define SET_AT(L, plain, k) ((plain) ? lua_seti(L, 2, k) : lua_rawseti(L, 2, k))
#else
#define SET_AT(L, plain, k) ((void)(plain), lua_rawseti(L, 2, (int)(k)))
#endif
static ANIM_LUA_HOT void put10(lua_State *L, int plain, lua_Integer o, const double *v) {
  lua_pushnumber(L, v[0]); SET_AT(L, plain, o + 1);
  lua_pushnumber(L, v[1]); SET_AT(L, plain, o + 2);
  lua_pushnumber(L, v[2]); SET_AT(L, plain, o + 3);
  lua_pushnumber(L, v[3]); SET_AT(L, plain, o + 4);
  lua_pushnumber(L, v[4]); SET_AT(L, plain, o + 5);
  lua_pushnumber(L, v[5]); SET_AT(L, plain, o + 6);
  lua_pushnumber(L, v[6]); SET_AT(L, plain, o + 7);
  lua_pushnumber(L, v[7]); SET_AT(L, plain, o + 8);
  lua_pushnumber(L, v[8]); SET_AT(L, plain, o + 9);
  lua_pushnumber(L, v[9]); SET_AT(L, plain, o + 10);
}

/* core.animator_pose_array(animator, out [, which]) -> out: out[10j + 1 ..
 * 10j + 10] = joint j's ten numbers (j 0-based, rig order), the numbers
 * pose_into gives; which is "local" (default), "world" or "offsets".  One
 * call a character instead of one a joint.  out is written raw (no
 * metamethod runs) and its entries past 10 * #joints are left alone; an
 * array already that long is written in place, allocating nothing, a
 * shorter one grows.  No Lua code runs in between, so out's metatable,
 * read once, stays what it was: neither set steps the collector, even
 * when it grows the table, on any runtime the binding supports (only a
 * failed allocation collects, in an emergency collection, which runs no
 * finalizer; spec/finalized_spec.lua checks it).  pose_joint takes the
 * animator again for each joint all the same (a load and a test), and
 * reads a joint's numbers onto the C stack before any is written. */
static int animator_pose_array(lua_State *L) {
  animator_box *b = reader_box(L);
  int j, n, mode, plain;
  if (lua_type(L, 2) != LUA_TTABLE)
    return anim_lua_argerror(L, 2, "table expected, got %s", anim_lua_typename(L, 2));
  mode = pose_which(L, 1);
  plain = !lua_getmetatable(L, 2);
  lua_settop(L, 2);
  n = anim_animator_rig(b->a)->n;
  for (j = 0; j < n; j++) {
    double v[10];
    pose_joint(L, b, mode, j, v);
    put10(L, plain, (lua_Integer)j * 10, v);
  }
  return 1;
}

/* The readers of the pose, the animator's methods themselves: the
 * animator metatable is their upvalue. */
static const anim_lua_method readers[] = {
  {"animator_get", "get", animator_get},
  {"animator_animated", "animated", animator_animated},
  {"animator_local", "local_transform", animator_local},
  {"animator_world", "world_transform", animator_world},
  {"animator_pose_into", "pose_into", animator_pose_into},
  {"animator_pose_array", "pose_array", animator_pose_array},
  {NULL, NULL, NULL}
};
void anim_lua_open_pose(lua_State *L) {
  luaL_getmetatable(L, ANIM_ANIMATOR_MT);
  anim_lua_setmethods(L, "animator_methods", readers, 1);
}
