/* reload.h - hot reload: a clip's content replaced in place while tracks
 * play it.  Everything that can fail is made first (anim_rebind_prepare,
 * per track: its arrays and property block for the new content); then
 * anim_reload_commit swaps the content and gives each track what was
 * made for it, and cannot fail.  Plain C, no Lua. */
#ifndef ANIM_RELOAD_H
#define ANIM_RELOAD_H

#include <stddef.h>

#include "animator.h"
#include "propmix.h"

/* What a track keeps of the reloads it went through (the track holds
 * it; only reload.c and the track's end read it): whether it is prepared
 * for the reload under way, and the block its arrays are in once one
 * rebound it (NULL before: they follow the track in its own block). */
typedef struct anim_track_reload {
  void *arrays;            /* NULL, or the block of the track's arrays, size bytes */
  size_t size;
  unsigned char rebound;   /* prepared for a reload, until its commit */
} anim_track_reload;

/* What track t will need to play the new content (its arrays laid out in
 * a block of their own, its property block).  Filled by
 * anim_rebind_prepare, consumed by anim_reload_commit or freed by
 * anim_rebind_discard. */
typedef struct anim_rebind {
  anim_track *t;
  void *arrays;
  size_t size, hot_end;
  anim_tprops *props;
  anim_binding *bind;      /* the laid out arrays (pointers into arrays) */
  int *hot, *byjoint, *cj, *rj, *cold, *nextb;
  unsigned char *adjust, *pkc;
  int nbind, unique, pq, direct;
} anim_rebind;

/* Makes r ready for track t (playing clip `old`, on a live animator) to
 * play clip `fresh` with these bindings (cj indices into fresh).  Returns
 * ANIM_PROPS_OK; ANIM_PROPS_NOMEM; ANIM_PROPS_CONFLICT (propmix.h: a
 * property of fresh has another number of components than a track of
 * another clip on the animator gives that name: *which and *other say
 * which and how many); -3 when t has no animator, was prepared already
 * or bindings are out of range.  r is empty (nothing to discard) on
 * failure. */
int anim_rebind_prepare(anim_rebind *r, anim_track *t, const anim_clip *old, const anim_clip *fresh,
                        const anim_binding *binds, int nbind, int *which, int *other);
void anim_rebind_discard(anim_rebind *r);
/* 1 when every live track of `old` (in an animator, not ended: queued
 * ones too) is prepared, so that the commit ends none of them. */
int anim_reload_covers(const anim_clip *old);
/* Point i of the blend space that `lead` plays (0: lead itself, whatever
 * it plays), or NULL when there is no such point. */
anim_track *anim_reload_point(anim_track *lead, int i);
/* The rig of the animator track t plays on, or NULL when it has none. */
const anim_rig *anim_track_rig(const anim_track *t);

/* Swaps the contents of clips `old` and `fresh` (each keeps its
 * references: every track of old plays the new content, fresh holds the
 * old one, to be freed with it), then rebinds the n prepared tracks (any
 * other track that holds old ends, firing nothing: its arrays were laid
 * out for the old content, and it plays nothing more): their
 * arrays and property blocks, their time clamped into the new length (a
 * track that was never updated keeps its first pass inclusive; any other
 * goes on from its time, which the next pass excludes), their priority
 * the new clip's unless play gave one.  Cannot fail. */
void anim_reload_commit(anim_clip *old, anim_clip *fresh, anim_rebind *r, int n);

#endif
