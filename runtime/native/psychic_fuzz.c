/* psychic's fuzz server: the native side of differential fuzzing (src/fuzz).
 *
 * Linked, instead of the program's own `main`, into a build of the meta
 * program whose `main` is renamed `__psychic_user_main` and whose code is
 * instrumented with -fsanitize-coverage=trace-pc-guard. psychic starts it once
 * and then sends it inputs; for each input it forks one child per revision
 * asked for, so that every run starts from the program's pristine state, as a
 * process of its own would (exit, crashes and global variables are the
 * child's alone), at the cost of a fork instead of a process start.
 *
 * An input is the bytes that klee_make_symbolic hands out, in call order,
 * followed by the text of stdin; the first part is as long as the objects of
 * the shape (below).
 *
 * Environment:
 *   PSYCHIC_FUZZ_MAP          a file of PSYCHIC_FUZZ_MAP_SIZE bytes (a power of
 *                             two), mapped shared: each child counts the edges it
 *                             runs there, hashed with its revision;
 *   PSYCHIC_FUZZ_REVISIONS    the revisions to run, comma-separated;
 *   PSYCHIC_FUZZ_MS           the time limit of one run, in milliseconds.
 *
 * Protocol, on the server's own stdin and stdout (the children's are their
 * own): at start the server writes "PSYF", then the shape of the input, as
 * revision 0 asks for it on an input of zeros with "0" on stdin: u32 count,
 * then per object u32 size, u32 name length, name; then u32 1 if that run
 * read stdin, else 0. Then per request it reads u32 length and the
 * input, and writes per revision: i32 wait status (-1: timed out) and the
 * u64 FNV-1a hash of its stdout. Integers are little-endian.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

int __psychic_user_main(int argc, char **argv, char **envp);
/* In psychic_native.c. */
void __psychic_stream(const unsigned char *bytes, size_t len);
void __psychic_record_shape(int fd);

static uint8_t *map;
static uint32_t map_mask, revision_salt;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  static uint32_t n;
  uint32_t *g;
  if (start == stop || *start)
    return;
  for (g = start; g < stop; g++)
    *g = ++n;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  if (map)
    map[(*guard * 2654435761u + revision_salt) & map_mask]++;
}

static void die(const char *what) {
  perror(what);
  _exit(125);
}

static void write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0)
      die("psychic fuzz server: write");
    p += w;
    n -= (size_t)w;
  }
}

static int read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r <= 0)
      return 0;
    p += r;
    n -= (size_t)r;
  }
  return 1;
}

static void put_u32(int fd, uint32_t v) { write_all(fd, &v, 4); }

static uint64_t fnv1a(int fd) {
  uint64_t h = 0xcbf29ce484222325ull;
  unsigned char buf[4096];
  ssize_t r, i;
  lseek(fd, 0, SEEK_SET);
  while ((r = read(fd, buf, sizeof buf)) > 0)
    for (i = 0; i < r; i++)
      h = (h ^ buf[i]) * 0x100000001b3ull;
  return h;
}

static long run_ms = 1000;
static int out_fd, in_fd, null_fd;

/* Runs the program as `revision` on the input; returns its wait status, or
 * -1 when it ran out of time. Its stdout is left in out_fd. */
static int run(int revision, const unsigned char *objects, size_t nobjects, const unsigned char *text,
               size_t ntext, int argc, char **argv, char **envp) {
  int status;
  pid_t pid;
  if (ftruncate(out_fd, 0) != 0 || ftruncate(in_fd, 0) != 0 || lseek(in_fd, 0, SEEK_SET) != 0)
    die("psychic fuzz server: memfd");
  write_all(in_fd, text, ntext);
  lseek(in_fd, 0, SEEK_SET);
  lseek(out_fd, 0, SEEK_SET);
  pid = fork();
  if (pid < 0)
    die("psychic fuzz server: fork");
  if (pid == 0) {
    char rev[16];
    struct itimerval t = {{0, 0}, {run_ms / 1000, (run_ms % 1000) * 1000}};
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(null_fd, 2);
    snprintf(rev, sizeof rev, "%d", revision);
    setenv("PSYCHIC_REVISION", rev, 1);
    revision_salt = (uint32_t)revision * 40503u;
    __psychic_stream(objects, nobjects);
    setitimer(ITIMER_REAL, &t, NULL);
    exit(__psychic_user_main(argc, argv, envp));
  }
  if (waitpid(pid, &status, 0) != pid)
    die("psychic fuzz server: waitpid");
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? -1 : status;
}

static int revisions[4096];
static int nrevisions;

static void parse_revisions(const char *s) {
  while (s && *s && nrevisions < 4096) {
    char *end;
    revisions[nrevisions++] = (int)strtol(s, &end, 10);
    s = *end == ',' ? end + 1 : NULL;
  }
}

/* The input's shape: revision 0 on an input of zeros, its klee_make_symbolic
 * calls recorded, and whether it reads stdin (the offset of the open file
 * it shares with the child moves). Returns the bytes of its objects. */
static size_t send_shape(int argc, char **argv, char **envp) {
  int shape = memfd_create("psychic-shape", 0), text_in = memfd_create("psychic-probe", 0), status;
  pid_t pid;
  struct stat st;
  char *text;
  uint32_t count = 0;
  size_t i, total = 0;
  if (shape < 0 || text_in < 0)
    die("psychic fuzz server: memfd");
  write_all(text_in, "0\n", 2);
  lseek(text_in, 0, SEEK_SET);
  pid = fork();
  if (pid == 0) {
    struct itimerval t = {{0, 0}, {run_ms / 1000, (run_ms % 1000) * 1000}};
    dup2(text_in, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    setenv("PSYCHIC_REVISION", "0", 1);
    __psychic_stream(NULL, 0);
    __psychic_record_shape(shape);
    setitimer(ITIMER_REAL, &t, NULL);
    exit(__psychic_user_main(argc, argv, envp));
  }
  waitpid(pid, &status, 0);
  fstat(shape, &st);
  text = malloc((size_t)st.st_size + 1);
  lseek(shape, 0, SEEK_SET);
  if (!text || !read_all(shape, text, (size_t)st.st_size))
    st.st_size = 0;
  for (i = 0; i < (size_t)st.st_size; i++)
    count += text[i] == '\n';
  write_all(1, "PSYF", 4);
  put_u32(1, count);
  /* Lines "SIZE NAME\n". */
  for (i = 0; i < (size_t)st.st_size;) {
    char *nl = memchr(text + i, '\n', (size_t)st.st_size - i), *name;
    unsigned long size = strtoul(text + i, &name, 10);
    name++;
    total += size;
    put_u32(1, (uint32_t)size);
    put_u32(1, (uint32_t)(nl - name));
    write_all(1, name, (size_t)(nl - name));
    i = (size_t)(nl - text) + 1;
  }
  put_u32(1, lseek(text_in, 0, SEEK_CUR) > 0);
  free(text);
  close(shape);
  close(text_in);
  return total;
}

int main(int argc, char **argv, char **envp) {
  const char *path = getenv("PSYCHIC_FUZZ_MAP");
  const char *size = getenv("PSYCHIC_FUZZ_MAP_SIZE");
  const char *ms = getenv("PSYCHIC_FUZZ_MS");
  size_t nobjects;
  unsigned char *input = NULL;
  uint32_t cap = 0;
  int i;
  if (!path || !size) {
    fputs("psychic fuzz server: run by psychic only (PSYCHIC_FUZZ_MAP is not set)\n", stderr);
    return 125;
  }
  {
    int fd = open(path, O_RDWR);
    size_t n = strtoul(size, NULL, 10);
    if (fd < 0)
      die(path);
    map = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
      die("psychic fuzz server: mmap");
    close(fd);
    map_mask = (uint32_t)n - 1;
  }
  if (ms)
    run_ms = strtol(ms, NULL, 10);
  /* Fuzzing takes what the engine leaves: a core the engine does not use,
   * not half of the one it does. */
  if (nice(10) == -1)
    perror("psychic fuzz server: nice");
  parse_revisions(getenv("PSYCHIC_FUZZ_REVISIONS"));
  out_fd = memfd_create("psychic-stdout", 0);
  in_fd = memfd_create("psychic-stdin", 0);
  null_fd = open("/dev/null", O_RDWR);
  if (out_fd < 0 || in_fd < 0 || null_fd < 0)
    die("psychic fuzz server: memfd");
  nobjects = send_shape(argc, argv, envp);
  for (;;) {
    uint32_t len;
    size_t k;
    if (!read_all(0, &len, 4))
      return 0;
    if (len > cap) {
      cap = len;
      input = realloc(input, cap);
      if (!input)
        die("psychic fuzz server: realloc");
    }
    if (!read_all(0, input, len))
      return 0;
    k = nobjects < len ? nobjects : len;
    for (i = 0; i < nrevisions; i++) {
      int status = run(revisions[i], input, k, input + k, len - k, argc, argv, envp);
      uint64_t h = fnv1a(out_fd);
      put_u32(1, (uint32_t)status);
      write_all(1, &h, 8);
    }
  }
}
