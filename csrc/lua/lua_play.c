/* lua_play.c - what playing a clip or a blend space takes from the Lua
 * side (lua_helpers.h): the play options, the bindings of clip joints to
 * rig joints, and the track's box. */
#include "lua.h"
#include "lauxlib.h"

#include "lua_helpers.h"

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
  anim_lua_newbox(L, ANIM_BOX_TRACK, sizeof(anim_track_box), ANIM_UV_TRACK_COUNT);
  return lua_gettop(L);
}

void anim_lua_settrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs) {
  anim_lua_bindtrack(L, box, t, src, animator, cbs);
  /* (last: the collector may run finalizers) */
  anim_lua_account(L, ((anim_animator_box *)lua_touserdata(L, animator))->acct);
}

void anim_lua_bindtrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs) {
  anim_track_box *tb = lua_touserdata(L, box);
  if (!t) anim_lua_nomem(L);
  tb->t = t;
  anim_track_retain(t);
  lua_pushvalue(L, src);
  lua_setiuservalue(L, box, ANIM_UV_TRACK_SOURCE);
  lua_pushvalue(L, animator);
  lua_setiuservalue(L, box, ANIM_UV_TRACK_ANIMATOR);
  lua_pushvalue(L, cbs);
  lua_setiuservalue(L, box, ANIM_UV_TRACK_CALLBACKS);
  lua_settop(L, box);
}
