/* animc.h - the .animc file (docs/formats.md, ".animc: compressed clips"):
 * a header, then a body of three parts -- the compression's figures, the
 * clip's table in the value encoding (everything but its keys: the
 * binding encodes and decodes it) and the pack (packed.h) -- with the
 * body's CRC-32 in the header.  Plain C, no Lua. */
#ifndef ANIM_ANIMC_H
#define ANIM_ANIMC_H

#include <stddef.h>

/* The header: 8 bytes of magic, u32 version, u32 body length, u32 CRC-32
 * of the body. */
#define ANIM_ANIMC_HEAD 20
#define ANIM_ANIMC_VERSION 2
#define ANIM_ANIMC_NSTATS 5
extern const unsigned char ANIM_ANIMC_MAGIC[8];

/* The parts of a file read by anim_animc_split (pointers into its bytes). */
typedef struct anim_animc_parts {
  double stats[ANIM_ANIMC_NSTATS]; /* error, distance, worst, p99, bytes raw */
  const unsigned char *table, *pack;
  size_t tlen, plen;
  size_t table_at, pack_at;        /* their offsets in the file */
} anim_animc_parts;

unsigned long anim_crc32(const unsigned char *p, size_t n);
/* The bytes of a file of these parts. */
size_t anim_animc_size(size_t tlen, size_t plen);
/* Writes the file into out (anim_animc_size bytes). */
void anim_animc_write(unsigned char *out, const double stats[ANIM_ANIMC_NSTATS], const unsigned char *table,
                      size_t tlen, const unsigned char *pack, size_t plen);
/* Checks the header, the checksum and the parts' lengths of p[0..len).
 * NULL, or a message with *at the byte offset where the file is wrong. */
const char *anim_animc_split(const unsigned char *p, size_t len, anim_animc_parts *out, size_t *at);
/* The same without the checksum (a reader that looks at the parts before
 * it knows it wants them), and the checksum's check of a file whose
 * header anim_animc_split_unchecked read. */
const char *anim_animc_split_unchecked(const unsigned char *p, size_t len, anim_animc_parts *out, size_t *at);
int anim_animc_crc_ok(const unsigned char *p, size_t len);

#endif
