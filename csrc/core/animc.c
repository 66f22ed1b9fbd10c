/* animc.c - the .animc file's frame (see animc.h): header, checksum,
 * parts.  What the parts hold is checked by their readers (packed.c for
 * the pack, the binding for the table). */
#include "animc.h"

#include <math.h>
#include <string.h>

#include "packed.h"

const unsigned char ANIM_ANIMC_MAGIC[8] = {0x89, 'A', 'N', 'I', 'M', 'C', '\r', '\n'};

/* CRC-32 (ISO-HDLC, as zlib's), bit by bit from a 16-entry table: small,
 * and fast enough for files read once. */
unsigned long anim_crc32(const unsigned char *p, size_t n) {
  static const unsigned long tab[16] = {
    0x00000000UL, 0x1db71064UL, 0x3b6e20c8UL, 0x26d930acUL, 0x76dc4190UL, 0x6b6b51f4UL,
    0x4db26158UL, 0x5005713cUL, 0xedb88320UL, 0xf00f9344UL, 0xd6d6a3e8UL, 0xcb61b38cUL,
    0x9b64c2b0UL, 0x86d3d2d4UL, 0xa00ae278UL, 0xbdbdf21cUL};
  unsigned long c = 0xffffffffUL;
  size_t i;
  for (i = 0; i < n; i++) {
    c ^= p[i];
    c = (c >> 4) ^ tab[c & 15];
    c = (c >> 4) ^ tab[c & 15];
  }
  return (c ^ 0xffffffffUL) & 0xffffffffUL;
}

#define BODY_FIXED (8 * ANIM_ANIMC_NSTATS + 4 + 4)

size_t anim_animc_size(size_t tlen, size_t plen) { return ANIM_ANIMC_HEAD + BODY_FIXED + tlen + plen; }

void anim_animc_write(unsigned char *out, const double stats[ANIM_ANIMC_NSTATS], const unsigned char *table,
                      size_t tlen, const unsigned char *pack, size_t plen) {
  unsigned char *b = out + ANIM_ANIMC_HEAD, *p = b;
  size_t body = BODY_FIXED + tlen + plen;
  int i;
  memcpy(out, ANIM_ANIMC_MAGIC, 8);
  anim_packed_put_u32(out + 8, ANIM_ANIMC_VERSION);
  anim_packed_put_u32(out + 12, (unsigned long)body);
  for (i = 0; i < ANIM_ANIMC_NSTATS; i++, p += 8) anim_packed_put_f64(p, stats[i]);
  anim_packed_put_u32(p, (unsigned long)tlen);
  memcpy(p + 4, table, tlen);
  p += 4 + tlen;
  anim_packed_put_u32(p, (unsigned long)plen);
  memcpy(p + 4, pack, plen);
  anim_packed_put_u32(out + 16, anim_crc32(b, body));
}

const char *anim_animc_split(const unsigned char *p, size_t len, anim_animc_parts *out, size_t *at) {
  size_t body, o;
  unsigned long v;
  int i;
  *at = 0;
  if (len < 8 || memcmp(p, ANIM_ANIMC_MAGIC, 8) != 0) return "not an .animc file (no magic number)";
  if (len < ANIM_ANIMC_HEAD) { *at = len; return "truncated"; }
  v = anim_packed_u32(p + 8);
  /* (version 1 packed every key in 8 bytes: the key widths and the frame
   * deltas of version 2 are a new layout, and reading both would keep two
   * decoders on the sampling path for files that compressing again makes
   * smaller) */
  if (v == 1) {
    *at = 8;
    return "version 1 is no longer read (this reader reads version 2): compress the clip again "
           "(anim compress source.anim -o clip.animc)";
  }
  if (v != ANIM_ANIMC_VERSION) { *at = 8; return "version not supported (this reader reads version 2)"; }
  body = anim_packed_u32(p + 12);
  if (body != len - ANIM_ANIMC_HEAD) {
    *at = body < len - ANIM_ANIMC_HEAD ? ANIM_ANIMC_HEAD + body : len;
    return body < len - ANIM_ANIMC_HEAD ? "bytes after the body" : "truncated";
  }
  if (anim_crc32(p + ANIM_ANIMC_HEAD, body) != anim_packed_u32(p + 16)) { *at = 16; return "checksum mismatch"; }
  o = ANIM_ANIMC_HEAD;
  if (body < BODY_FIXED) { *at = len; return "truncated"; }
  for (i = 0; i < ANIM_ANIMC_NSTATS; i++, o += 8) {
    out->stats[i] = anim_packed_f64(p + o);
    if (!isfinite(out->stats[i]) || out->stats[i] < 0) { *at = o; return "bad figure"; }
  }
  v = anim_packed_u32(p + o);
  if (v > len - o - 8) { *at = o; return "table length beyond the file"; }
  out->tlen = v;
  out->table = p + o + 4;
  out->table_at = o + 4;
  o += 4 + v;
  v = anim_packed_u32(p + o);
  if (v != len - o - 4) { *at = o; return "pack length differs from the bytes left"; }
  out->plen = v;
  out->pack = p + o + 4;
  out->pack_at = o + 4;
  return NULL;
}
