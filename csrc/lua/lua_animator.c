/* lua_animator.c - the Lua binding of an animator's life: made, played
 * on, told which callbacks listen, its queued entries read, finalized.
 * The friendly API (callbacks, options, names) is
 * lua/anim/runtime/animator.lua; its updates are lua_update.c, its pose
 * readers lua_pose.c, its tracks lua_track.c. */
#include "lua.h"
#include "lauxlib.h"

#include "core/propmix.h"
#include "lua_helpers.h"

typedef anim_animator_box animator_box;

/* ---- animators ---------------------------------------------------------- */

#define check_animator anim_lua_checkanimator

/* By the collector or by hand (a script may reach the metatable): the
 * animator is freed (tracks retained elsewhere stay valid, no longer
 * playing) and every later use of it raises. */
static int animator_gc(lua_State *L) {
  animator_box *b = anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  anim_animator_free(b->a);
  b->a = NULL;
  anim_lua_setfinalized(L, 1, ANIM_BOX_ANIMATOR);
  return 0;
}

/* core.animator_new(rig, side, state) -> animator (uservalues: rig, state,
 * then its callbacks for the delivery from C: animator_set_callbacks) */
static int animator_new(lua_State *L) {
  int side;
  animator_box *b;
  anim_mem m;
  anim_lua_checkrig(L, 1);
  side = (int)anim_lua_checkrange(L, 2, 0, ANIM_SIDE_COUNT - 1, "side");
  luaL_checktype(L, 3, LUA_TTABLE);
  b = anim_lua_newbox(L, ANIM_BOX_ANIMATOR, sizeof *b, ANIM_UV_ANIMATOR_COUNT);
  m = anim_lua_mem(L);
  b->acct = m.ud;
  /* (the rig is taken again after making the box: that may have run
   * finalizers, and the retry collects) */
  ANIM_LUA_RETRY(L, b->a, anim_animator_new(&m, anim_lua_checkrig(L, 1), side));
  if (!b->a) return anim_lua_nomem(L);
  b->serial = ++b->acct->serials;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, ANIM_UV_ANIMATOR_RIG);
  lua_pushvalue(L, 3);
  lua_setiuservalue(L, -2, ANIM_UV_ANIMATOR_STATE);
  anim_lua_account(L, b->acct);
  return 1;
}

static int animator_state(lua_State *L) { return anim_lua_uservalue(L, ANIM_BOX_ANIMATOR, ANIM_UV_ANIMATOR_STATE); }

/* core.animator_play(animator, clip, fade, weight, speed, priority|nil,
 *                    bindings, callbacks) -> track | nil, property index,
 *                    other arity | false
 * bindings: as anim_lua_checkbindings reads them (lua_helpers.h).  nil, p, n:
 * the clip's property p (1-based) has another number of components than
 * the n a track on the animator gives that name (propmix.h).  false: the
 * clip was reloaded since the call began (by a finalizer that reading the
 * bindings, making the track's box or a collection to find memory ran):
 * the bindings are for its old content, the caller makes them again.
 * The animator and the clip are taken again after each of those. */
static int animator_play(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  anim_clip *c = anim_lua_checkclip(L, 2);
  unsigned gen = c->gen;
  int njoints = c->njoints, rn = anim_animator_rig(a)->n;
  anim_play_opts o;
  anim_binding *binds;
  anim_track *t;
  int nb, tb, tries;
  anim_lua_checkplayopts(L, 3, &o);
  luaL_checktype(L, 8, LUA_TTABLE);
  binds = anim_lua_checkbindings(L, 7, njoints, gen, rn, &nb);
  if (!binds) { lua_pushboolean(L, 0); return 1; }
  tb = anim_lua_newtrack(L);
  for (tries = 0;; tries++) {
    int which = 0, other = 0;
    c = anim_lua_checkclip(L, 2);
    a = check_animator(L, 1);
    if (c->gen != gen) { lua_pushboolean(L, 0); return 1; }
    if (anim_props_conflict(a, c, NULL, &which, &other) != ANIM_PROPS_OK) {
      lua_pushnil(L);
      lua_pushinteger(L, which + 1);
      lua_pushinteger(L, other);
      return 3;
    }
    t = anim_animator_play(a, c, &o, binds, nb);
    if (t || tries > 0 || !anim_lua_retry(L)) break;
  }
  anim_lua_settrack(L, tb, t, 2, 1, 8);
  return 1;
}

/* core.animator_live(v) -> whether v is an animator not finalized */
static int animator_live(lua_State *L) {
  anim_animator_box *b = anim_lua_testbox_any(L, 1, ANIM_BOX_ANIMATOR);
  lua_pushboolean(L, b && b->a);
  return 1;
}

/* core.animator_event(animator, i) -> type, track id, kind, index, late, point
 * type: an ANIM_EV_* code; kind, index: the item's kind (ANIM_ITEM_*) and
 * 1-based index in file order within its kind (nil for state
 * callbacks); point: for a blend space's track, the 1-based point whose
 * clip has the item (nil otherwise); nothing when there is no event i. */
static int animator_event(lua_State *L) {
  anim_animator *a = check_animator(L, 1);
  lua_Integer i = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX, "entry");
  const anim_event *e = i >= 1 && i <= anim_animator_nevents(a) ? anim_animator_event(a, (int)(i - 1)) : NULL;
  if (!e) return 0;
  lua_pushinteger(L, e->type);
  lua_pushinteger(L, (lua_Integer)anim_track_id(e->track));
  if (e->type == ANIM_EV_ITEM) {
    const anim_item *it = &anim_track_clip(e->track)->items[e->item];
    lua_pushinteger(L, it->kind);
    lua_pushinteger(L, it->index + 1);
  } else {
    lua_pushnil(L);
    lua_pushnil(L);
  }
  lua_pushnumber(L, e->late);
  if (anim_track_point(e->track) < 0) return 5;
  lua_pushinteger(L, anim_track_point(e->track) + 1);
  return 6;
}

/* core.animator_set_callbacks(animator, marker, event, sound): its
 * on_marker, on_event and on_sound callbacks as the delivery from C calls
 * them (lua_deliver.c: its user values 3 to 5), each the function of the
 * only connection, the list of connections, or nil (runtime/connect.lua
 * keeps them) */
static int animator_set_callbacks(lua_State *L) {
  int i;
  if (!anim_lua_testbox_any(L, 1, ANIM_BOX_ANIMATOR)) anim_lua_checkbox(L, 1, ANIM_BOX_ANIMATOR);
  lua_settop(L, 4);
  for (i = 4; i >= 2; i--) {
    int t = lua_type(L, i);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TFUNCTION || t == LUA_TTABLE, i, "function, table or nil expected");
    lua_setiuservalue(L, 1, ANIM_UV_ANIMATOR_ON_MARKER + i - 2);
  }
  return 0;
}

/* core.animator_hear(animator, mask), core.track_hear(track, mask): the
 * kinds of entries (codes.hear bits) their callbacks listen to; the Lua
 * side says so whenever a registration changes. */
static int animator_hear(lua_State *L) {
  anim_animator_hear(check_animator(L, 1), (unsigned)anim_lua_checkrange(L, 2, 0, ANIM_HEAR_ALL, "mask"));
  return 0;
}
/* core.animator_queued(animator) -> the entries its last update queued */
static int animator_queued(lua_State *L) {
  lua_pushinteger(L, anim_animator_nevents(check_animator(L, 1)));
  return 1;
}

static const luaL_Reg funcs[] = {
  {"animator_new", animator_new},
  {"animator_state", animator_state},
  {"animator_play", animator_play},
  {"animator_event", animator_event},
  {"animator_live", animator_live},
  {"animator_hear", animator_hear},
  {"animator_set_callbacks", animator_set_callbacks},
  {"animator_queued", animator_queued},
  {NULL, NULL}
};

void anim_lua_open_animator(lua_State *L) {
  anim_lua_newmeta(L, ANIM_BOX_ANIMATOR, animator_gc, "animator_metatable");
  luaL_setfuncs(L, funcs, 0);
}
