/* io/fs.c - the file system calls the Lua side needs and Lua lacks:
 * core.realpath, core.file_kind, core.file_mtime, and the two readers of
 * a whole file every reader of the module goes through: core.read_file
 * (a host path) and core.read_beneath (a library's res:// files, read
 * below its root without following links).  Both read only a regular
 * file: a FIFO would block open(2) and read(2), a device never end. */
/* realpath(3) is POSIX (XSI); O_PATH is Linux's (glibc shows it with
 * _GNU_SOURCE), used when there */
#define _XOPEN_SOURCE 700
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lua.h"
#include "lauxlib.h"

#include "lua/lua_helpers.h"
#include "io/io.h"


/* core.realpath(path) -> the canonical absolute path | nil, message: the
 * library uses it to refuse res:// paths that leave its root (symlinks). */
static int realpath_l(lua_State *L) {
  size_t len;
  const char *p = luaL_checklstring(L, 1, &len);
  /* (into a buffer of its own, not malloc's: a memory error of the push
   * below would lose a block of malloc's) */
  char buf[PATH_MAX];
  char *r = strlen(p) != len ? NULL : realpath(p, buf);  /* (a NUL byte would cut the path) */
  if (!r && strlen(p) != len) {
    lua_pushnil(L);
    lua_pushliteral(L, "the path holds a NUL byte");
    return 2;
  }
  if (!r) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  lua_pushstring(L, r);
  return 1;
}

/* core.file_kind(path [, nofollow]) -> "file" | "directory" | "link" |
 * "other" | nil, message: what a path names after following links, or
 * itself with nofollow (anim.save refuses to replace a non-file, and a
 * link to nothing).  A path holding a NUL byte names nothing. */
static int file_kind(lua_State *L) {
  struct stat st;
  size_t len;
  const char *path = luaL_checklstring(L, 1, &len);
  int r = strlen(path) != len ? (errno = EINVAL, -1) : lua_toboolean(L, 2) ? lstat(path, &st) : stat(path, &st);
  if (r != 0) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  lua_pushstring(L, S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "directory" :
                    S_ISLNK(st.st_mode) ? "link" : "other");
  return 1;
}

/* core.file_mtime(path) -> the modification time as a string "seconds.nanoseconds"
 * (exact, and compared as it is) | nil, message: a library's changed files. */
static int file_mtime(lua_State *L) {
  struct stat st;
  if (stat(luaL_checkstring(L, 1), &st) != 0) {
    lua_pushnil(L);
    lua_pushstring(L, strerror(errno));
    return 2;
  }
  {
    char buf[64];
    snprintf(buf, sizeof buf, "%lld.%09ld", (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
    lua_pushstring(L, buf);
  }
  return 1;
}

/* Directories on the way are opened only to look names up in them:
 * O_PATH (Linux) or O_SEARCH (POSIX 2008) need no read permission, as a
 * lookup by path does not (a directory may allow search but not
 * listing). */
#if defined(O_PATH)
#define DIR_OPEN (O_PATH | O_DIRECTORY)
#elif defined(O_SEARCH)
#define DIR_OPEN (O_SEARCH | O_DIRECTORY)
#else
#define DIR_OPEN (O_RDONLY | O_DIRECTORY)
#endif

/* nil, why (a word for the caller's message), detail.  Called with no
 * descriptor open, or inside read_open's protected call: the strings it
 * pushes may raise a memory error. */
static int read_fail(lua_State *L, const char *why, const char *detail) {
  lua_pushnil(L);
  lua_pushstring(L, why);
  lua_pushstring(L, detail);
  return 3;
}

/* A descriptor closed (errno kept for the message after it). */
static void close_fd(int fd) {
  int e = errno;
  if (fd >= 0) close(fd);
  errno = e;
}

/* What a file that is not a regular one is, for a message. */
static const char *kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

/* How a file is opened for reading: O_NONBLOCK, so that opening a FIFO
 * does not wait for a writer (the descriptor is fstat()ed and refused
 * before anything is read; on a regular file the flag changes nothing);
 * O_NOCTTY, so that a terminal opened by mistake does not become the
 * process's controlling one. */
#define READ_OPEN (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* Why open(2) failed, for the caller: a socket cannot be opened (ENXIO),
 * so a path that names one is told as such (st: what a stat of the path
 * found, or NULL).  No descriptor is open. */
static int open_fail(lua_State *L, int e, const struct stat *st) {
  if (e == ENXIO && st && S_ISSOCK(st->st_mode)) return read_fail(L, "other", "a socket");
  return read_fail(L, "open", strerror(e));
}

/* The file open at fd, read whole if it is a regular file of at most
 * limit bytes: text | nil, why, detail (read_fail).  It is fstat()ed once
 * open, not before (no stat-then-open race), and never more than limit + 1
 * bytes are read, even from a file that grows meanwhile; the first read
 * asks for the size fstat gave (one read(2) for a file that does not
 * change).  Run by read_open in a protected call: a memory error of the
 * buffer or a message comes back to it, which closes fd first. */
typedef struct { int fd; lua_Integer limit; } read_job;

static int read_open_p(lua_State *L) {
  const read_job *job = lua_touserdata(L, 1);
  int fd = job->fd;
  lua_Integer limit = job->limit;
  struct stat st;
  luaL_Buffer b;
  size_t total = 0, want;
  if (fstat(fd, &st) != 0) return read_fail(L, "open", strerror(errno));
  if (S_ISDIR(st.st_mode)) return read_fail(L, "directory", "");
  if (!S_ISREG(st.st_mode)) return read_fail(L, "other", kind_of(st.st_mode));
  if (limit < 0) limit = 0;
  if (st.st_size > limit) return read_fail(L, "large", anim_lua_pushint(L, (lua_Integer)st.st_size));
  want = (size_t)st.st_size + 1; /* (at most limit + 1) */
  luaL_buffinit(L, &b);
  for (;;) {
#if LUA_VERSION_NUM >= 502
    char *p = luaL_prepbuffsize(&b, want);
#else
    char *p = luaL_prepbuffer(&b);
    if (want > LUAL_BUFFERSIZE) want = LUAL_BUFFERSIZE;
#endif
    ssize_t n = read(fd, p, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return read_fail(L, "read", strerror(errno));
    if (n == 0) break;
    luaL_addsize(&b, (size_t)n);
    total += (size_t)n;
    /* never more than the limit, even from a file that grows meanwhile */
    if ((lua_Integer)total > limit) break;
    want = LUAL_BUFFERSIZE;
    if ((lua_Integer)want > limit + 1 - (lua_Integer)total) want = (size_t)(limit + 1 - (lua_Integer)total);
  }
  luaL_pushresult(&b);
  return 1;
}

/* The descriptor is a plain int, never in a box a finalizer closes: a
 * collection short of memory may not run a finalizer (Lua 5.4 then drops
 * the object, its descriptor open), so each failure that raised a memory
 * error here lost one.  read_open_p is pushed before anything is opened
 * (5.1 makes a closure of it), its reading runs in a protected call, and
 * the descriptor is closed whatever it gave before its error goes on. */
static void read_prepare(lua_State *L) {
  luaL_checkstack(L, 4, NULL);
  lua_pushcfunction(L, read_open_p);
}

/* With read_open_p on the top (read_prepare) and fd open: its results,
 * fd closed. */
static int read_open(lua_State *L, int fd, lua_Integer limit) {
  read_job job;
  int base = lua_gettop(L) - 1, status;
  job.fd = fd;
  job.limit = limit;
  lua_pushlightuserdata(L, &job);
  status = lua_pcall(L, 1, LUA_MULTRET, 0);
  close_fd(fd);
  if (status != 0) return lua_error(L);
  return lua_gettop(L) - base;
}

/* core.read_file(path, limit) -> text | nil, why, detail: the whole of
 * the regular file at path, for anim.load, the importers and the CLI
 * (json.read_file).  why: "open" (detail: the system's message),
 * "directory", "other" (not a regular file; detail: what it is, "a
 * FIFO"), "large" (detail: the size) or "read". */
static int read_file(lua_State *L) {
  size_t len;
  const char *path = luaL_checklstring(L, 1, &len);
  lua_Integer limit = anim_lua_checkrange(L, 2, ANIM_LUA_IMIN, ANIM_LUA_IMAX - 1, "limit");
  int fd;
  if (strlen(path) != len) return read_fail(L, "open", "the path holds a NUL byte");
  read_prepare(L);
  fd = open(path, READ_OPEN);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    return open_fail(L, e, stat(path, &st) == 0 ? &st : NULL);
  }
  return read_open(L, fd, limit);
}

/* core.read_beneath(root, rel, limit) -> text | nil, why, detail.  Reads
 * the regular file rel under the directory root, opening each component
 * of rel from the one before with O_NOFOLLOW: a link put on the path after
 * the library resolved it (a directory swapped for a link) is refused,
 * not followed out of the root.  why: those of core.read_file, and "link".
 * It stops reading once it holds more than limit bytes (a file that grows
 * meanwhile). */
static int read_beneath(lua_State *L) {
  size_t rootlen, len, i = 0;
  const char *root = luaL_checklstring(L, 1, &rootlen);
  const char *rel = luaL_checklstring(L, 2, &len);
  lua_Integer limit = anim_lua_checkrange(L, 3, ANIM_LUA_IMIN, ANIM_LUA_IMAX - 1, "limit");
  int fd;
  if (strlen(root) != rootlen || memchr(rel, 0, len)) return read_fail(L, "open", "the path holds a NUL byte");
  read_prepare(L);
  /* (each failure closes fd before its message is pushed) */
  fd = open(root, DIR_OPEN | O_CLOEXEC);
  if (fd < 0) return read_fail(L, "open", strerror(errno));
  while (i < len) {
    size_t j = i;
    char name[NAME_MAX + 1];
    int last, next;
    while (j < len && rel[j] != '/') j++;
    last = j == len;
    if (j - i > NAME_MAX) {
      close_fd(fd);
      return read_fail(L, "open", strerror(ENAMETOOLONG));
    }
    memcpy(name, rel + i, j - i);
    name[j - i] = 0;
    i = j + 1;
    if (name[0] == 0 || strcmp(name, ".") == 0) continue;
    if (strcmp(name, "..") == 0) {
      close_fd(fd);
      return read_fail(L, "link", "..");
    }
    next = openat(fd, name, (last ? READ_OPEN : DIR_OPEN | O_CLOEXEC) | O_NOFOLLOW);
    if (next < 0) {
      /* O_NOFOLLOW on a link: ELOOP for the last component, ENOTDIR with
       * O_DIRECTORY on Linux; ask the directory what the name is */
      int e = errno;
      struct stat ln;
      int known = fstatat(fd, name, &ln, AT_SYMLINK_NOFOLLOW) == 0;
      close_fd(fd);
      if (e == ELOOP || (known && S_ISLNK(ln.st_mode))) return read_fail(L, "link", "");
      return open_fail(L, e, known ? &ln : NULL);
    }
    close_fd(fd);
    fd = next;
  }
  return read_open(L, fd, limit);
}

static const luaL_Reg fs_funcs[] = {
  {"realpath", realpath_l},
  {"file_kind", file_kind},
  {"file_mtime", file_mtime},
  {"read_file", read_file},
  {"read_beneath", read_beneath},
  {NULL, NULL}
};

void anim_lua_open_fs(lua_State *L) {
  luaL_setfuncs(L, fs_funcs, 0);
}
