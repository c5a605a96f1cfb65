/* The symbolic environment, KLEE's POSIX runtime in small: a symbolic command
 * line (--sym-arg, --sym-args), stdin (--sym-stdin) and files (--sym-files),
 * and the input half of stdio over them (getchar, fgets, getline, read, the
 * scanf family). The engine starts in __psychic_posix_main instead of main
 * when a symbolic option is given; without one, stdin is empty.
 *
 * Objects are named as KLEE names them (argNN, n_args, A-data, A-data-stat,
 * stdin, stdin-stat, model_version), so the native replay feeds them back.
 *
 * stdin models (--stdin-model): `bytes` parses the N symbolic bytes of stdin
 * as glibc does, one byte at a time. `tokens` (the default) gives each integer
 * or float conversion and %s of scanf on stdin a fresh typed input, the token,
 * named stdin-tok-POS-KIND, placed before raw byte POS; psychic renders the
 * tokens' text into the `stdin` object when it writes a test (src/posix.rs). The byte
 * after a token (its separator) must not continue it; a conversion or a
 * whitespace directive that skips it requires it to be whitespace. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "klee/klee.h"
#include "model.h"

/* Ends the path with a `model` error at the program's call (engine special). */
void __psychic_model_error(const char *message) __attribute__((noreturn));

/* stdio reads `pos` up to `buffered`; like glibc it fills its buffer with
 * one read() of up to BUFSIZ bytes, so read() on the descriptor goes on
 * from `raw`, past what stdio buffered. */
struct vfile {
  unsigned char *data;
  unsigned size, pos, buffered, raw;
  int ungot; /* a byte pushed back by ungetc, or -1 */
  int eof;
  int pending; /* tokens: data[pos] is the separator of a token */
  int open;
};

#define MAX_FILES 26
#define FIRST_FD 3
static struct vfile vstdin = {0, 0, 0, 0, 0, -1, 0, 0, 1};
static struct vfile vfiles[MAX_FILES];
static FILE file_streams[MAX_FILES];
static unsigned num_files;
static int tokens = 1;

extern int main(int argc, char **argv, char **envp);

static int streq(const char *a, const char *b) {
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

static unsigned number(const char *s) {
  unsigned n = 0;
  if (!s || !*s)
    __psychic_model_error("a symbolic environment option lacks its number");
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      __psychic_model_error("a symbolic environment option has a non-numeric argument");
    n = n * 10 + (unsigned)(*s - '0');
  }
  return n;
}

/* A symbolic file of n bytes and its stat, whose st_size is the length. */
static void make_file(struct vfile *f, unsigned n, const char *name, const char *stat_name) {
  struct stat st;
  f->data = malloc(n ? n : 1);
  klee_make_symbolic(f->data, n, name);
  klee_make_symbolic(&st, sizeof st, stat_name);
  klee_assume(st.st_size == (off_t)n);
  f->size = n;
  f->open = 0;
}

static void rewind_file(struct vfile *f) {
  f->pos = f->buffered = f->raw = 0;
  f->ungot = -1;
  f->eof = 0;
  f->pending = 0;
}

static char *sym_arg(unsigned n, unsigned k) {
  char name[6] = "arg00";
  char *s = malloc(n + 1);
  name[3] = (char)('0' + k / 10 % 10);
  name[4] = (char)('0' + k % 10);
  klee_make_symbolic(s, n + 1, name);
  s[n] = 0;
  return s;
}

#define MAX_ARGS 1024

/* klee_init_env: the words after argv[0] become the command line. */
MODEL int __psychic_posix_main(int argc, char **argv) {
  static char *nargv[MAX_ARGS + 1];
  static char *envp[1];
  unsigned nargc = 0, sym = 0, stdin_len = 0, file_len = 0, model_version;
  int i, has_stdin = 0;
  nargv[nargc++] = argv[0];
  for (i = 1; i < argc; i++) {
    const char *w = argv[i];
    if (streq(w, "--sym-arg") && i + 1 < argc) {
      unsigned n = number(argv[++i]);
      if (nargc < MAX_ARGS)
        nargv[nargc++] = sym_arg(n, sym++);
    } else if (streq(w, "--sym-args") && i + 3 < argc) {
      unsigned lo = number(argv[i + 1]), hi = number(argv[i + 2]), n = number(argv[i + 3]);
      unsigned k, count;
      i += 3;
      count = (unsigned)klee_range((int)lo, (int)hi + 1, "n_args");
      for (k = 0; k < count && nargc < MAX_ARGS; k++)
        nargv[nargc++] = sym_arg(n, sym++);
    } else if (streq(w, "--sym-stdin") && i + 1 < argc) {
      stdin_len = number(argv[++i]);
      has_stdin = 1;
    } else if (streq(w, "--sym-files") && i + 2 < argc) {
      num_files = number(argv[i + 1]);
      file_len = number(argv[i + 2]);
      i += 2;
      if (num_files > MAX_FILES)
        __psychic_model_error("--sym-files: at most 26 files (A to Z)");
    } else if (streq(w, "--stdin-model") && i + 1 < argc) {
      tokens = streq(argv[++i], "tokens");
    } else if (nargc < MAX_ARGS) {
      nargv[nargc++] = argv[i];
    }
  }
  nargv[nargc] = 0;
  for (unsigned k = 0; k < num_files; k++) {
    char name[7] = "A-data", stat_name[12] = "A-data-stat";
    name[0] = stat_name[0] = (char)('A' + k);
    make_file(&vfiles[k], file_len, name, stat_name);
  }
  if (has_stdin)
    make_file(&vstdin, stdin_len, "stdin", "stdin-stat");
  vstdin.open = 1;
  klee_make_symbolic(&model_version, sizeof model_version, "model_version");
  klee_assume(model_version == 1);
  return main((int)nargc, nargv, envp);
}

/* Streams and descriptors. */

static struct vfile *vfile_of(FILE *f) {
  if (f == stdin)
    return &vstdin;
  for (unsigned k = 0; k < num_files; k++)
    if (f == &file_streams[k])
      return vfiles[k].open ? &vfiles[k] : 0;
  return 0;
}

static struct vfile *vfile_of_fd(int fd) {
  if (fd == 0)
    return &vstdin;
  if (fd >= FIRST_FD && (unsigned)(fd - FIRST_FD) < num_files && vfiles[fd - FIRST_FD].open)
    return &vfiles[fd - FIRST_FD];
  return 0;
}

/* The symbolic file a path names: "A", "./A" or any path ending in "/A". */
static int file_index(const char *path) {
  const char *base = path;
  for (const char *p = path; *p; p++)
    if (*p == '/')
      base = p + 1;
  if (base[0] >= 'A' && base[0] < 'A' + (int)num_files && base[1] == 0)
    return base[0] - 'A';
  return -1;
}

/* Makes data[pos] a buffered byte, refilling as glibc does; 0 at EOF. */
static int fill(struct vfile *v) {
  if (v->pos < v->buffered)
    return 1;
  if (v->raw >= v->size) {
    v->eof = 1;
    return 0;
  }
  v->pos = v->raw;
  v->buffered = v->raw = v->size - v->raw < BUFSIZ ? v->size : v->raw + BUFSIZ;
  return 1;
}

static int vgetc(struct vfile *v) {
  int c = v->ungot;
  if (c >= 0) {
    v->ungot = -1;
    return c;
  }
  if (!fill(v))
    return EOF;
  v->pending = 0;
  return v->data[v->pos++];
}

MODEL FILE *fopen(const char *restrict path, const char *restrict mode) {
  int k = file_index(path);
  (void)mode;
  if (k < 0) {
    errno = ENOENT;
    return 0;
  }
  vfiles[k].open = 1;
  rewind_file(&vfiles[k]);
  return &file_streams[k];
}

MODEL int fclose(FILE *f) {
  struct vfile *v = vfile_of(f);
  if (v && v != &vstdin)
    v->open = 0;
  return 0;
}

MODEL int open(const char *path, int flags, ...) {
  int k = file_index(path);
  (void)flags;
  if (k < 0) {
    errno = ENOENT;
    return -1;
  }
  fopen(path, "r");
  return FIRST_FD + k;
}

MODEL int close(int fd) {
  struct vfile *v = vfile_of_fd(fd);
  if (v && v != &vstdin)
    v->open = 0;
  return 0;
}

/* The file A..Z a descriptor reads; stdin and the other descriptors
 * are what the environment does not say (a terminal, a pipe?). */
static struct vfile *named_file(int fd) {
  struct vfile *v = vfile_of_fd(fd);
  if (v == &vstdin)
    __psychic_unmodelled("a seek or stat of stdin");
  if (!v && fd >= 0 && fd < FIRST_FD)
    __psychic_unmodelled("a seek or stat of stdout or stderr");
  return v;
}

/* Moves the descriptor's offset; what stdio buffered is dropped, as after
 * glibc's fseek. */
MODEL off_t lseek(int fd, off_t off, int whence) {
  struct vfile *v = named_file(fd);
  off_t at;
  if (!v) {
    errno = EBADF;
    return -1;
  }
  at = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off_t)v->raw : (off_t)v->size;
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) {
    errno = EINVAL;
    return -1;
  }
  if (off < -at || off > (off_t)0x7fffffff - at) {
    errno = EINVAL;
    return -1;
  }
  at += off;
  v->raw = v->pos = v->buffered = (unsigned)at;
  v->eof = 0;
  return at;
}

/* A regular file of the symbolic size: what the native replay writes. */
static void file_stat(const struct vfile *v, struct stat *st) {
  memset(st, 0, sizeof *st);
  st->st_mode = S_IFREG | 0644;
  st->st_nlink = 1;
  st->st_size = (off_t)v->size;
  st->st_blksize = 4096;
}

MODEL int fstat(int fd, struct stat *st) {
  struct vfile *v = named_file(fd);
  if (!v) {
    errno = EBADF;
    return -1;
  }
  file_stat(v, st);
  return 0;
}

MODEL int stat(const char *restrict path, struct stat *restrict st) {
  int k = file_index(path);
  if (k < 0) {
    errno = ENOENT;
    return -1;
  }
  file_stat(&vfiles[k], st);
  return 0;
}

MODEL ssize_t read(int fd, void *buf, size_t n) {
  struct vfile *v = vfile_of_fd(fd);
  size_t i = 0;
  if (!v) {
    errno = EBADF;
    return -1;
  }
  for (; i < n && v->raw < v->size; i++)
    ((unsigned char *)buf)[i] = v->data[v->raw++];
  return (ssize_t)i;
}

MODEL int fgetc(FILE *f) {
  struct vfile *v = vfile_of(f);
  return v ? vgetc(v) : EOF;
}
MODEL int getc(FILE *f) { return fgetc(f); }
MODEL int _IO_getc(FILE *f) { return fgetc(f); }
MODEL int getc_unlocked(FILE *f) { return fgetc(f); }
MODEL int fgetc_unlocked(FILE *f) { return fgetc(f); }
MODEL int getchar(void) { return fgetc(stdin); }
MODEL int getchar_unlocked(void) { return fgetc(stdin); }

MODEL int ungetc(int c, FILE *f) {
  struct vfile *v = vfile_of(f);
  if (!v || c == EOF)
    return EOF;
  v->ungot = (unsigned char)c;
  v->eof = 0;
  return (unsigned char)c;
}

MODEL int feof(FILE *f) {
  struct vfile *v = vfile_of(f);
  return v ? v->eof : 0;
}
MODEL int ferror(FILE *f) { return (void)f, 0; }
MODEL void clearerr(FILE *f) {
  struct vfile *v = vfile_of(f);
  if (v)
    v->eof = 0;
}
/* One thread: the unlocked forms are the same. */
MODEL int feof_unlocked(FILE *f) { return feof(f); }
MODEL int ferror_unlocked(FILE *f) { return ferror(f); }
MODEL void clearerr_unlocked(FILE *f) { clearerr(f); }
MODEL int fileno_unlocked(FILE *f) { return fileno(f); }
MODEL int fileno(FILE *f) {
  if (f == stdin)
    return 0;
  for (unsigned k = 0; k < num_files; k++)
    if (f == &file_streams[k])
      return FIRST_FD + (int)k;
  if (f == stdout)
    return 1;
  if (f == stderr)
    return 2;
  errno = EBADF;
  return -1;
}

MODEL char *fgets(char *restrict s, int n, FILE *restrict f) {
  struct vfile *v = vfile_of(f);
  int i = 0;
  if (!v || n <= 0)
    return 0;
  if (n == 1) { /* glibc: room for the terminator only */
    s[0] = 0;
    return s;
  }
  while (i < n - 1) {
    int c = vgetc(v);
    if (c == EOF)
      break;
    s[i++] = (char)c;
    if (c == '\n')
      break;
  }
  if (i == 0)
    return 0;
  s[i] = 0;
  return s;
}

MODEL size_t fread(void *restrict p, size_t size, size_t n, FILE *restrict f) {
  struct vfile *v = vfile_of(f);
  size_t total = size * n, i = 0;
  if (!v || !total)
    return 0;
  for (; i < total; i++) {
    int c = vgetc(v);
    if (c == EOF)
      break;
    ((unsigned char *)p)[i] = (unsigned char)c;
  }
  return i / size;
}

MODEL ssize_t getdelim(char **restrict line, size_t *restrict cap, int delim, FILE *restrict f) {
  struct vfile *v = vfile_of(f);
  size_t len = 0;
  if (!v || !line || !cap) {
    errno = EINVAL;
    return -1;
  }
  for (;;) {
    int c = vgetc(v);
    if (c == EOF)
      break;
    if (!*line || len + 2 > *cap) {
      size_t ncap = *cap < 60 ? 120 : 2 * *cap;
      char *p = realloc(*line, ncap);
      if (!p)
        return -1;
      *line = p;
      *cap = ncap;
    }
    (*line)[len++] = (char)c;
    if (c == delim)
      break;
  }
  if (len == 0)
    return -1;
  (*line)[len] = 0;
  return (ssize_t)len;
}

MODEL ssize_t getline(char **restrict line, size_t *restrict cap, FILE *restrict f) {
  return getdelim(line, cap, '\n', f);
}

/* scanf */

/* One branch per test: `|` instead of `||` keeps symbolic bytes from forking. */
static int is_space(int c) { return (c == ' ') | ((unsigned)(c - '\t') < 5); }
static int is_alnum(int c) {
  return ((unsigned)(c - '0') < 10) | ((unsigned)((c | 0x20) - 'a') < 26);
}
static int is_digit_in(int c, int base) {
  if (base == 16)
    return ((unsigned)(c - '0') < 10) | ((unsigned)((c | 0x20) - 'a') < 6);
  return (unsigned)(c - '0') < (unsigned)base;
}

/* What scanf reads from: a stream, or a string (sscanf). */
struct src {
  struct vfile *v;
  const unsigned char *str;
  unsigned count; /* bytes consumed, for %n */
  int tokens;
};

static int sgetc(struct src *s) {
  int c;
  if (s->v)
    c = vgetc(s->v);
  else
    c = *s->str ? *s->str++ : EOF;
  if (c != EOF)
    s->count++;
  return c;
}

static void sunget(struct src *s, int c) {
  if (c == EOF)
    return;
  s->count--;
  if (s->v)
    s->v->ungot = c;
  else
    s->str--;
}

static void skip_space(struct src *s) {
  int c;
  if (s->tokens) {
    /* The separator of a token is skipped; nothing else is. */
    if (s->v->pending) {
      klee_assume(is_space(s->v->data[s->v->pos]));
      sgetc(s);
    }
    return;
  }
  do
    c = sgetc(s);
  while (c != EOF && is_space(c));
  sunget(s, c);
}

static void unsupported(const char *fmt, const char *spec, unsigned len) {
  char msg[160];
  unsigned n = 0;
  const char *head = "scanf: unsupported conversion \"";
  while (*head && n < 60)
    msg[n++] = *head++;
  for (unsigned i = 0; i < len && n < 80; i++)
    msg[n++] = spec[i];
  head = "\" in format \"";
  while (*head && n < 100)
    msg[n++] = *head++;
  while (*fmt && n < 150)
    msg[n++] = *fmt++;
  msg[n++] = '"';
  msg[n] = 0;
  __psychic_model_error(msg);
}

static void store_int(void *p, int size, unsigned long long v) {
  switch (size) {
  case 1: *(unsigned char *)p = (unsigned char)v; break;
  case 2: *(unsigned short *)p = (unsigned short)v; break;
  case 4: *(unsigned *)p = (unsigned)v; break;
  default: *(unsigned long long *)p = v; break;
  }
}

/* The name of a token before raw byte `pos`: stdin-tok-POS-KIND. */
static void token_name(char name[32], unsigned pos, char kind) {
  unsigned n = 10, digits = 0;
  memcpy(name, "stdin-tok-", 10);
  for (unsigned q = pos; digits == 0 || q; q /= 10)
    digits++;
  for (unsigned k = digits; k > 0; k--, pos /= 10)
    name[n + k - 1] = (char)('0' + pos % 10);
  n += digits;
  name[n++] = '-';
  name[n++] = kind;
  name[n] = 0;
}

/* Token mode: a typed input, whose kind says how its text renders (d: signed
 * decimal, u: unsigned decimal, x: hex, o: octal, f: a float or a double by
 * its size, as the shortest text that reads back to its bits). There must be a raw byte
 * left for its separator, which bounds the tokens by the stdin size. */
static int token_int(struct src *s, int size, char kind, unsigned long long *out) {
  struct vfile *v = s->v;
  char name[32];
  unsigned long long value = 0;
  skip_space(s);
  if (v->ungot >= 0 || !fill(v))
    return 0;
  token_name(name, v->pos, kind);
  klee_make_symbolic(&value, (size_t)size, name);
  klee_assume(!is_alnum(v->data[v->pos]));
  v->pending = 1;
  *out = value;
  return 1;
}

/* Byte mode: glibc's way, the text collected and handed to strtoll/strtoull.
 * base 0 is %i. Returns 1, 0 (matching failure) or EOF. */
static int scan_int(struct src *s, int base, int is_signed, unsigned width, unsigned long long *out) {
  char buf[72];
  unsigned n = 0, digits = 0;
  int c;
  skip_space(s);
  if (!width || width > 70)
    width = 70;
  c = sgetc(s);
  if (c == EOF)
    return EOF;
  if ((c == '-') | (c == '+')) {
    buf[n++] = (char)c;
    c = n < width ? sgetc(s) : EOF;
  }
  if ((base == 0 || base == 16) && c == '0' && n < width) {
    buf[n++] = '0';
    digits++;
    c = n < width ? sgetc(s) : EOF;
    if ((c | 0x20) == 'x' && n < width) {
      base = 16;
      buf[n++] = (char)c;
      c = n < width ? sgetc(s) : EOF;
    } else if (base == 0) {
      base = 8;
    }
  }
  if (base == 0)
    base = 10;
  while (c != EOF && n < width && is_digit_in(c, base)) {
    buf[n++] = (char)c;
    digits++;
    c = n < width ? sgetc(s) : EOF;
  }
  sunget(s, c);
  if (!digits)
    return 0;
  buf[n] = 0;
  *out = is_signed ? (unsigned long long)strtoll(buf, 0, base) : strtoull(buf, 0, base);
  return 1;
}

/* A float token's bits: a value whose text glibc reads back to the same
 * bits (src/posix.rs renders it): finite, an infinity, or the quiet NaN
 * without payload that "nan" and "-nan" give. */
static int renders(unsigned long long b, int size) {
  unsigned long long sign = size == 4 ? 1ull << 31 : 1ull << 63;
  unsigned long long inf = size == 4 ? 0x7f800000ull : 0x7ff0000000000000ull;
  unsigned long long nan = size == 4 ? 0x7fc00000ull : 0x7ff8000000000000ull;
  return ((b & inf) != inf) | ((b & ~sign) == inf) | ((b & ~sign) == nan);
}

/* glibc's `width == 0 || (c = inchar ()) == EOF` (then the width shrinks);
 * `left` is the width left, -1 without one. */
static int more(struct src *s, int *left, int *c) {
  if (*left == 0)
    return 0;
  *c = sgetc(s);
  if (*c == EOF)
    return 0;
  if (*left > 0)
    --*left;
  return 1;
}

/* The rest of "nan", "inf" or "infinity", in either case: a byte that does
 * not match is a matching failure, and glibc does not push it back. */
static int letters(struct src *s, int *left, char *buf, unsigned *n, const char *rest) {
  int c;
  for (; *rest; rest++) {
    if (!more(s, left, &c) || (c | 0x20) != *rest)
      return 0;
    buf[(*n)++] = (char)c;
  }
  return 1;
}

#define FLOAT_TEXT 64

/* Byte mode: glibc's way (vfscanf's case 'f'), the text gathered as glibc
 * gathers it, then converted by the model's strtof/strtod/strtold, which may
 * take only a prefix ("1e" reads as 1, the 'e' consumed). Returns 1, 0
 * (matching failure) or EOF. */
static int scan_float(struct src *s, unsigned width, unsigned size, void *dst) {
  char buf[FLOAT_TEXT + 1];
  unsigned n = 0;
  int left = width ? (int)width : -1, c;
  int got_digit = 0, got_dot = 0, got_e = 0, got_sign = 0, hex = 0, after_e = 0, exp_char = 'e';
  skip_space(s);
  c = sgetc(s);
  if (c == EOF)
    return EOF;
  if (left > 0)
    left--;
  if ((c == '-') | (c == '+')) {
    got_sign = 1;
    buf[n++] = (char)c;
    if (!more(s, &left, &c))
      return 0;
  }
  if ((c | 0x20) == 'n') {
    buf[n++] = (char)c;
    if (!letters(s, &left, buf, &n, "an"))
      return 0;
    buf[n] = 0;
    return __psychic_scan_float(buf, size, dst);
  }
  if ((c | 0x20) == 'i') {
    buf[n++] = (char)c;
    if (!letters(s, &left, buf, &n, "nf"))
      return 0;
    if (more(s, &left, &c)) {
      if ((c | 0x20) != 'i')
        sunget(s, c);
      else if (buf[n++] = (char)c, !letters(s, &left, buf, &n, "nity"))
        return 0;
    }
    buf[n] = 0;
    return __psychic_scan_float(buf, size, dst);
  }
  if (left != 0 && c == '0') {
    buf[n++] = '0';
    c = sgetc(s);
    if (left > 0)
      left--;
    if (left != 0 && (c | 0x20) == 'x') {
      buf[n++] = (char)c;
      hex = 1;
      exp_char = 'p';
      c = sgetc(s);
      if (left > 0)
        left--;
    } else {
      got_digit = 1;
    }
  }
  for (;;) {
    int sign_may_follow = after_e;
    after_e = 0;
    if (n >= FLOAT_TEXT)
      __psychic_model_error("scanf: a float's text longer than 64 bytes");
    if (is_digit_in(c, hex && !got_e ? 16 : 10)) {
      buf[n++] = (char)c;
      got_digit = 1;
    } else if (sign_may_follow && ((c == '-') | (c == '+'))) {
      buf[n++] = (char)c;
    } else if (got_digit && !got_e && (c | 0x20) == exp_char) {
      buf[n++] = (char)exp_char;
      got_e = got_dot = after_e = 1;
    } else if (!got_dot && c == '.') {
      buf[n++] = '.';
      got_dot = 1;
    } else {
      sunget(s, c);
      break;
    }
    if (!more(s, &left, &c))
      break;
  }
  if (n == (unsigned)got_sign || (hex && n == 2u + (unsigned)got_sign))
    return 0;
  buf[n] = 0;
  return __psychic_scan_float(buf, size, dst);
}

/* A %[ set: its end, or 0 if unterminated. */
static const char *scan_set(const char *p, int *negate) {
  *negate = *p == '^';
  if (*negate)
    p++;
  if (*p == ']')
    p++;
  while (*p && *p != ']')
    p++;
  return *p ? p : 0;
}

static int in_set(int c, const char *set, const char *end, int negate) {
  int m = 0;
  const char *p = set;
  if (*p == '^')
    p++;
  for (const char *first = p; p < end; p++) {
    if (p[0] == '-' && p != first && p + 1 < end) {
      m |= (unsigned)(c - (unsigned char)p[-1]) <= (unsigned)((unsigned char)p[1] - (unsigned char)p[-1]);
      p++;
    } else {
      m |= c == (unsigned char)*p;
    }
  }
  return m ^ negate;
}

static int vscan(struct src *s, const char *format, va_list ap) {
  const char *f = format;
  int assigned = 0, done = 0;
  for (; *f; f++) {
    const char *spec = f;
    int suppress = 0, size = 4, is_long = 0;
    /* A float's size: glibc's LONGDBL (ll, L, q) is long double, LONG (l,
     * and j, z, t on x86-64) double. */
    unsigned fsize = 4;
    unsigned width = 0;
    unsigned long long value;
    void *dst;
    if (is_space((unsigned char)*f)) {
      skip_space(s);
      continue;
    }
    if (*f != '%' || f[1] == '%') {
      int c;
      if (*f == '%') {
        f++;
        skip_space(s);
      }
      c = sgetc(s);
      if (c != (unsigned char)*f) {
        sunget(s, c);
        return c == EOF && !done ? EOF : assigned;
      }
      continue;
    }
    f++;
    if (*f == '*')
      suppress = 1, f++;
    while (*f >= '0' && *f <= '9')
      width = width * 10 + (unsigned)(*f++ - '0');
    if (f[0] == 'h' && f[1] == 'h')
      size = 1, f += 2;
    else if (*f == 'h')
      size = 2, f++;
    else if (f[0] == 'l' && f[1] == 'l')
      size = 8, fsize = 16, f += 2;
    else if (*f == 'l' || *f == 'j' || *f == 'z' || *f == 't' || *f == 'q' || *f == 'L')
      size = 8, fsize = *f == 'q' || *f == 'L' ? 16 : 8, is_long = 1, f++;
    dst = suppress ? 0 : va_arg(ap, void *);
    switch (*f) {
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
      int base = *f == 'd' || *f == 'u' ? 10 : *f == 'i' ? 0 : *f == 'o' ? 8 : 16;
      int r;
      if (s->tokens && !width) {
        char kind = *f == 'd' || *f == 'i' ? 'd' : *f == 'u' ? 'u' : *f == 'o' ? 'o' : 'x';
        r = token_int(s, size, kind, &value);
        if (!r)
          return done ? assigned : EOF;
      } else {
        r = scan_int(s, base, *f == 'd' || *f == 'i', width, &value);
        if (r != 1)
          return r == EOF && !done ? EOF : assigned;
      }
      if (dst)
        store_int(dst, size, value), assigned++;
      done++;
      break;
    }
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A': {
      /* Token mode has no x87 value to render: long double reads bytes.
       * A float reads a double token, rounded: revisions that read one
       * number as a float and as a double then share the token, and
       * src/posix.rs renders text that strtof reads as that rounding. */
      if (s->tokens && !width && fsize != 16) {
        if (!token_int(s, 8, 'f', &value))
          return done ? assigned : EOF;
        klee_assume(renders(value, 8));
        if (dst && fsize == 4) {
          double d;
          float f;
          memcpy(&d, &value, sizeof d);
          f = (float)d;
          memcpy(dst, &f, sizeof f);
          assigned++;
        } else if (dst) {
          store_int(dst, 8, value), assigned++;
        }
      } else {
        unsigned char scratch[16];
        int r = scan_float(s, width, fsize, dst ? dst : scratch);
        if (r != 1)
          return r == EOF && !done ? EOF : assigned;
        if (dst)
          assigned++;
      }
      done++;
      break;
    }
    case 'c': {
      unsigned i;
      if (is_long)
        unsupported(format, spec, (unsigned)(f - spec + 1));
      if (!width)
        width = 1;
      for (i = 0; i < width; i++) {
        int c = sgetc(s);
        if (c == EOF)
          break;
        if (dst)
          ((char *)dst)[i] = (char)c;
      }
      if (i == 0)
        return done ? assigned : EOF;
      if (dst)
        assigned++;
      done++;
      break;
    }
    case 's': case '[': {
      const char *set = f + 1, *end = f;
      int negate = 0, c;
      unsigned i = 0, max;
      if (is_long)
        unsupported(format, spec, (unsigned)(f - spec + 1));
      if (*f == '[') {
        end = scan_set(set, &negate);
        if (!end)
          unsupported(format, spec, (unsigned)strlen(spec));
      } else {
        skip_space(s);
      }
      max = width ? width : s->tokens && *f == 's' ? s->v->size : ~0u;
      if (s->tokens && *f == 's') {
        /* A token of up to `max` non-space bytes, NUL-padded. */
        struct vfile *v = s->v;
        char name[32];
        unsigned char *t;
        if (v->ungot >= 0 || !fill(v))
          return done ? assigned : EOF;
        token_name(name, v->pos, 's');
        t = malloc(max + 1);
        klee_make_symbolic(t, max, name);
        t[max] = 0;
        klee_assume(t[0] != 0);
        for (unsigned k = 0; k < max; k++)
          klee_assume((t[k] == 0) | (!is_space(t[k]) & (k == 0 || t[k - 1] != 0)));
        /* With a width the buffer has room for it: copying every byte does
         * not fork on the length. */
        if (width) {
          for (i = 0; i < max; i++)
            if (dst)
              ((char *)dst)[i] = (char)t[i];
        } else {
          for (; t[i]; i++)
            if (dst)
              ((char *)dst)[i] = (char)t[i];
        }
        klee_assume(is_space(v->data[v->pos]));
        v->pending = 1;
      } else {
        for (; i < max; i++) {
          c = sgetc(s);
          if (c == EOF)
            break;
          if (*f == 's' ? is_space(c) : !in_set(c, set, end, negate)) {
            sunget(s, c);
            break;
          }
          if (dst)
            ((char *)dst)[i] = (char)c;
        }
        if (i == 0)
          return c == EOF && !done ? EOF : assigned;
      }
      if (dst)
        ((char *)dst)[i] = 0, assigned++;
      done++;
      f = end;
      break;
    }
    case 'n':
      if (dst)
        store_int(dst, size, s->count);
      break;
    default:
      unsupported(format, spec, (unsigned)(f - spec + (*f ? 1 : 0)));
    }
  }
  return assigned;
}

static int vscan_stream(FILE *f, const char *fmt, va_list ap) {
  struct src s = {vfile_of(f), 0, 0, 0};
  if (!s.v)
    return EOF;
  s.tokens = tokens && s.v == &vstdin && s.v->data;
  return vscan(&s, fmt, ap);
}

static int vscan_string(const char *str, const char *fmt, va_list ap) {
  struct src s = {0, (const unsigned char *)str, 0, 0};
  return vscan(&s, fmt, ap);
}

/* Under every name glibc's headers may give them. */
#define VARIADIC(name, params, call)                                                               \
  MODEL int name##_model params __asm__(#name);                                                    \
  MODEL int name##_model params {                                                                  \
    va_list ap;                                                                                    \
    int r;                                                                                         \
    va_start(ap, fmt);                                                                             \
    r = call;                                                                                      \
    va_end(ap);                                                                                    \
    return r;                                                                                      \
  }
#define SCANF(name) VARIADIC(name, (const char *restrict fmt, ...), vscan_stream(stdin, fmt, ap))
#define FSCANF(name)                                                                               \
  VARIADIC(name, (FILE *restrict f, const char *restrict fmt, ...), vscan_stream(f, fmt, ap))
#define SSCANF(name)                                                                               \
  VARIADIC(name, (const char *restrict str, const char *restrict fmt, ...), vscan_string(str, fmt, ap))
SCANF(scanf)
SCANF(__isoc99_scanf)
SCANF(__isoc23_scanf)
FSCANF(fscanf)
FSCANF(__isoc99_fscanf)
FSCANF(__isoc23_fscanf)
SSCANF(sscanf)
SSCANF(__isoc99_sscanf)
SSCANF(__isoc23_sscanf)

#define VSSCANF(name)                                                                              \
  MODEL int name##_model(const char *restrict str, const char *restrict fmt, va_list ap)           \
      __asm__(#name);                                                                              \
  MODEL int name##_model(const char *restrict str, const char *restrict fmt, va_list ap) {         \
    return vscan_string(str, fmt, ap);                                                             \
  }
VSSCANF(vsscanf)
VSSCANF(__isoc99_vsscanf)
VSSCANF(__isoc23_vsscanf)
