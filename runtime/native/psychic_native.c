/* psychic's native runtime: makes a (meta) program that calls the KLEE API
 * runnable natively, replaying inputs from a .ktest file.
 *
 * Environment:
 *   KTEST_FILE           the KLEE ktest (v1-v3) whose objects feed
 *                        klee_make_symbolic, in order, matched by name;
 *   PSYCHIC_REVISION     the revision __klee_meta returns (default 0);
 *   PSYCHIC_ANNOTATIONS  where psychic_output appends its records.
 *
 * Exit statuses of its own (also in src/runtime.rs):
 *   120  the input violates klee_assume or klee_range: it lies outside the
 *        program's input domain;
 *   121  the test cannot be replayed (no KTEST_FILE, unreadable, out of
 *        objects, name or size mismatch).
 * Set KLEE_RUN_TEST_ERRORS_NON_FATAL to continue past either, as KLEE does.
 *
 * The fuzz server (psychic_fuzz.c) feeds klee_make_symbolic from a stream of
 * bytes instead of a ktest: __psychic_stream.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "klee/klee.h"
#include "psychic.h"

#define STATUS_ASSUME 120
#define STATUS_REPLAY 121

struct object {
  char *name;
  unsigned char *bytes;
  uint32_t size;
};

static struct object *objects;
static uint32_t num_objects, next_object;
static int loaded;

static void fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(int status, const char *fmt, ...) {
  va_list ap;
  fputs("KLEE_RUN_TEST_ERROR: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (getenv("KLEE_RUN_TEST_ERRORS_NON_FATAL"))
    return;
  fflush(stdout);
  exit(status);
}

static int read_u32(FILE *f, uint32_t *out) {
  unsigned char b[4];
  if (fread(b, 1, 4, f) != 4)
    return 0;
  *out = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
  return 1;
}

/* Reads a length-prefixed byte string; NUL-terminates it for names. */
static unsigned char *read_blob(FILE *f, uint32_t *len) {
  unsigned char *buf;
  if (!read_u32(f, len) || *len > (1u << 30))
    return NULL;
  buf = malloc((size_t)*len + 1);
  if (!buf || fread(buf, 1, *len, f) != *len) {
    free(buf);
    return NULL;
  }
  buf[*len] = 0;
  return buf;
}

static int load_ktest(const char *path) {
  FILE *f = fopen(path, "rb");
  char magic[5];
  uint32_t version, n, i, len;
  if (!f)
    return 0;
  if (fread(magic, 1, 5, f) != 5 ||
      (memcmp(magic, "KTEST", 5) != 0 && memcmp(magic, "BOUT\n", 5) != 0))
    goto bad;
  if (!read_u32(f, &version) || version < 1 || version > 3)
    goto bad;
  if (!read_u32(f, &n))
    goto bad;
  for (i = 0; i < n; i++) { /* program arguments: not ours to use here */
    unsigned char *arg = read_blob(f, &len);
    if (!arg)
      goto bad;
    free(arg);
  }
  if (version >= 2) {
    uint32_t sym_argvs, sym_argv_len;
    if (!read_u32(f, &sym_argvs) || !read_u32(f, &sym_argv_len))
      goto bad;
  }
  if (!read_u32(f, &num_objects) || num_objects > (1u << 20))
    goto bad;
  objects = calloc(num_objects ? num_objects : 1, sizeof *objects);
  if (!objects)
    goto bad;
  for (i = 0; i < num_objects; i++) {
    objects[i].name = (char *)read_blob(f, &len);
    if (!objects[i].name)
      goto bad;
    objects[i].bytes = read_blob(f, &objects[i].size);
    if (!objects[i].bytes)
      goto bad;
  }
  fclose(f);
  return 1;
bad:
  fclose(f);
  return 0;
}

/* The objects of KLEE's POSIX runtime (argNN, n_args, stdin, stdin-stat,
 * A-data, A-data-stat, model_version): psychic replay feeds them to the
 * program as its command line, stdin and files, so klee_make_symbolic skips
 * them unless asked for one by name. */
static int is_posix_object(const char *n) {
  size_t len = strlen(n);
  if (len == 5 && strncmp(n, "arg", 3) == 0 && n[3] >= '0' && n[3] <= '9' && n[4] >= '0' &&
      n[4] <= '9')
    return 1;
  if (n[0] >= 'A' && n[0] <= 'Z' && (strcmp(n + 1, "-data") == 0 || strcmp(n + 1, "-data-stat") == 0))
    return 1;
  return strcmp(n, "n_args") == 0 || strcmp(n, "stdin") == 0 || strcmp(n, "stdin-stat") == 0 ||
         strcmp(n, "model_version") == 0 || strncmp(n, "stdin-tok-", 10) == 0;
}

/* The fuzz server's input: klee_make_symbolic takes the next bytes, zeros
 * once they run out, and no names are checked. */
static const unsigned char *stream;
static size_t stream_len, stream_pos, stream_asked;
static int streaming, shape_fd = -1;

void __psychic_stream(const unsigned char *bytes, size_t len) {
  streaming = 1;
  stream = bytes;
  stream_len = len;
  stream_pos = 0;
  stream_asked = 0;
}

/* The bytes klee_make_symbolic asked of the stream, whether it had them or
 * not: more than the input's length means objects the input did not cover. */
size_t __psychic_stream_asked(void) { return stream_asked; }

/* Where psychic_output_bytes goes instead of PSYCHIC_ANNOTATIONS when set:
 * the fuzz server's enumeration hashes the records. */
void (*__psychic_on_output)(const char *name, const void *addr, size_t nbytes);

/* Each klee_make_symbolic call appends "SIZE NAME\n" to fd. */
void __psychic_record_shape(int fd) { shape_fd = fd; }

static void take_from_stream(void *addr, size_t nbytes, const char *name) {
  size_t n = stream_len - stream_pos < nbytes ? stream_len - stream_pos : nbytes;
  if (n)
    memcpy(addr, stream + stream_pos, n);
  memset((char *)addr + n, 0, nbytes - n);
  stream_pos += n;
  stream_asked += nbytes;
  if (shape_fd >= 0)
    dprintf(shape_fd, "%zu %s\n", nbytes, name);
}

static void ensure_loaded(void) {
  const char *path;
  if (loaded)
    return;
  loaded = 1;
  path = getenv("KTEST_FILE");
  if (!path)
    fail(STATUS_REPLAY, "KTEST_FILE is not set: name the .ktest file to replay");
  else if (!load_ktest(path))
    fail(STATUS_REPLAY, "cannot read '%s' as a KLEE ktest file", path);
}

void klee_make_symbolic(void *addr, size_t nbytes, const char *name) {
  if (!name)
    name = "unnamed";
  if (streaming) {
    take_from_stream(addr, nbytes, name);
    return;
  }
  ensure_loaded();
  for (;; next_object++) {
    struct object *o;
    if (next_object >= num_objects) {
      fail(STATUS_REPLAY, "out of inputs: no object left for \"%s\"", name);
      memset(addr, 0, nbytes);
      return;
    }
    o = &objects[next_object];
    if (is_posix_object(o->name) && strcmp(o->name, name) != 0)
      continue;
    if (strcmp(o->name, name) != 0)
      fail(STATUS_REPLAY, "object name mismatch: requesting \"%s\" but the test has \"%s\"",
           name, o->name);
    memcpy(addr, o->bytes, nbytes < o->size ? nbytes : o->size);
    if (nbytes != o->size) {
      fail(STATUS_REPLAY, "object \"%s\" has %u bytes in the test, the program asks for %zu",
           name, o->size, nbytes);
      if (o->size < nbytes)
        memset((char *)addr + o->size, 0, nbytes - o->size);
    }
    next_object++;
    return;
  }
}

int klee_int(const char *name) {
  int x;
  klee_make_symbolic(&x, sizeof x, name);
  return x;
}

int klee_range(int begin, int end, const char *name) {
  int x;
  klee_make_symbolic(&x, sizeof x, name);
  if (x < begin || x >= end)
    fail(STATUS_ASSUME, "invalid klee_range(%d, %d, %s) value, got %d", begin, end,
         name ? name : "unnamed", x);
  return x;
}

void klee_assume(uintptr_t condition) {
  if (!condition)
    fail(STATUS_ASSUME, "invalid klee_assume: the input lies outside the assumed domain");
}

void klee_silent_exit(int status) { exit(status); }

void klee_abort(void) { abort(); }

void klee_report_error(const char *file, int line, const char *message, const char *suffix) {
  fprintf(stderr, "KLEE: ERROR: %s:%d: %s (%s)\n", file ? file : "?", line,
          message ? message : "", suffix ? suffix : "user");
  abort();
}

unsigned klee_is_symbolic(uintptr_t n) {
  (void)n;
  return 0;
}

unsigned klee_is_replay(void) { return 1; }

void klee_prefer_cex(void *object, uintptr_t condition) {
  (void)object;
  (void)condition;
}

void klee_warning(const char *message) { fprintf(stderr, "KLEE: WARNING: %s\n", message); }

void klee_warning_once(const char *message) {
  static int once;
  if (!once++)
    klee_warning(message);
}

#define GET_VALUE(suffix, type)                                                \
  type klee_get_value##suffix(type expr) { return expr; }
GET_VALUE(f, float)
GET_VALUE(d, double)
GET_VALUE(l, long)
GET_VALUE(ll, long long)
GET_VALUE(_i32, int32_t)
GET_VALUE(_i64, int64_t)
#undef GET_VALUE

/* Defined by meta programs (`psychic unify`): the number of revisions. */
extern const int __psychic_revisions __attribute__((weak));

/* Set by the fuzz server's enumeration: told of every site a run reaches. */
void (*__psychic_on_meta)(int site);

/* The revision __klee_meta returns, from PSYCHIC_REVISION at its first call
 * unless the confirmation server set it; where psychic_output records go, if
 * the server set it (else PSYCHIC_ANNOTATIONS). */
static int revision = -1;
static const char *annotations_path;
/* Where the confirmation server asked for the sites a run reaches, if it did
 * (a native recheck of an enumeration: src/diff/recheck.rs). */
static const char *sites_path;

/* Set in a confirmation server's child. */
static int serving;

void __psychic_serve_as(int r, const char *annotations, const char *sites) {
  revision = r;
  annotations_path = annotations;
  sites_path = sites;
  serving = 1;
}

/* AddressSanitizer calls this as it finds an error, before its report. A
 * server's child ends there as abort_on_error would end it after the report
 * (SIGABRT, stdio unflushed), without the report: it took 1.5 of the 2.6 ms
 * of a run that reads past an array, and its addresses differ in every run,
 * so no two runs' stderr matched with it either. A replay outside the
 * server keeps the report, for the reader. */
void __asan_on_error(void);
void __asan_on_error(void) {
  if (serving)
    abort();
}

/* Each site once, written through: a run that crashes keeps what it wrote. */
static void note_site(int site) {
  static unsigned char seen[1 << 13];
  static int fd = -1;
  char line[16];
  int n;
  if (site >= 0 && site < (1 << 16)) {
    if (seen[site >> 3] & (1 << (site & 7)))
      return;
    seen[site >> 3] |= (unsigned char)(1 << (site & 7));
  }
  if (fd < 0 && (fd = open(sites_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) < 0)
    fail(STATUS_REPLAY, "cannot open the sites file '%s'", sites_path);
  n = snprintf(line, sizeof line, "%d\n", site);
  if (write(fd, line, (size_t)n) != n)
    fail(STATUS_REPLAY, "cannot write the sites file '%s'", sites_path);
}

void __psychic_replay_server(void);

/* First of the constructors: a confirmation server (psychic_confirm.c) forks
 * its runs before any of the program's own start. */
__attribute__((constructor(101))) static void serve_if_asked(void) {
  if (getenv("PSYCHIC_REPLAY_SERVER")) {
    unsetenv("PSYCHIC_REPLAY_SERVER");
    __psychic_replay_server();
  }
}

int __klee_meta(int site) {
  if (__psychic_on_meta)
    __psychic_on_meta(site);
  if (sites_path)
    note_site(site);
  if (revision < 0) {
    const char *s = getenv("PSYCHIC_REVISION");
    char *end;
    long r = s ? strtol(s, &end, 10) : 0;
    if (s && (*s == 0 || *end != 0 || r < 0 || r > 1000000))
      fail(STATUS_REPLAY, "PSYCHIC_REVISION=\"%s\" is not a revision number", s);
    revision = (int)r;
    if (&__psychic_revisions && revision >= __psychic_revisions)
      fail(STATUS_REPLAY, "PSYCHIC_REVISION=%d, but this meta program has revisions 0 to %d",
           revision, __psychic_revisions - 1);
  }
  return revision;
}

/* A set ends where its digits do: revisions past its end are not in it
 * (strnlen, not an index, as a hand-written set may be short). */
int __klee_meta_in(int site, const char *revisions) {
  int r = __klee_meta(site);
  char c;
  if (strnlen(revisions, (size_t)r / 4 + 1) <= (size_t)r / 4)
    return 0;
  c = revisions[r / 4];
  if (c >= '0' && c <= '9')
    return ((c - '0') >> (r % 4)) & 1;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
    return (((c | 0x20) - 'a' + 10) >> (r % 4)) & 1;
  fail(STATUS_REPLAY, "__klee_meta_in: the revision set \"%s\" has '%c', which is not a hex digit", revisions, c);
  return 0;
}

void psychic_output_bytes(const char *name, const void *addr, size_t nbytes) {
  static FILE *out;
  const char *path = annotations_path ? annotations_path : getenv("PSYCHIC_ANNOTATIONS");
  size_t i;
  if (__psychic_on_output) {
    __psychic_on_output(name, addr, nbytes);
    return;
  }
  if (!path)
    return;
  if (!out && !(out = fopen(path, "a")))
    fail(STATUS_REPLAY, "cannot open PSYCHIC_ANNOTATIONS file '%s'", path);
  fprintf(out, "%s %zu ", name ? name : "unnamed", nbytes);
  for (i = 0; i < nbytes; i++)
    fprintf(out, "%02x", ((const unsigned char *)addr)[i]);
  fputc('\n', out);
  fflush(out);
}
