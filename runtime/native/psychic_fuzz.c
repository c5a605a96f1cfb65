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
 *   PSYCHIC_FUZZ_MS           the time limit of one run, in milliseconds;
 *   PSYCHIC_FUZZ_STDERR       set: stderr is compared, so the children's is
 *                             kept and hashed (else it goes to /dev/null).
 *
 * Protocol, on the server's own stdin and stdout (the children's are their
 * own): at start the server writes "PSYF", then the shape of the input, as
 * revision 0 asks for it on an input of zeros with "0" on stdin: u32 count,
 * then per object u32 size, u32 name length, name; then u32 1 if that run
 * read stdin, else 0. Then per request it reads u32 length and the
 * input, and writes per revision: i32 wait status (-1: timed out), the
 * u64 FNV-1a hash of its stdout (of a run that timed out, of the first 4096
 * bytes, or 0 if it printed fewer) and that of its stderr (of nothing
 * without PSYCHIC_FUZZ_STDERR). Integers are little-endian.
 *
 * A request whose length is 0xfffffffe sets the words after argv[0] that
 * later runs get: u32 count, then per word u32 length and its bytes (the
 * fuzzer varies symbolic arguments). It has no answer.
 *
 * A request whose length is 0xffffffff asks for an enumeration instead: every
 * input of a box run on every revision (see `enumerate` below). It is
 * followed by u32 flags (1: the exit status counts, 2: stdout, 4:
 * psychic_output records, 8: psychic waits for it, so it runs at psychic's
 * priority), u32 revisions to run at once, u64 milliseconds after which no
 * run starts (0: no limit), u32 S, the meta-branch sites to watch (ids
 * 0 to S - 1), u32 count, then per object u32 size, i64 first value, u64
 * number of values. The server answers per revision: u32 inputs whose run
 * crashed or ran out of time, u32 1 if some run asked for more symbolic
 * bytes than the box has, (S + 63) / 64 u64 words with a bit per site some
 * run reached, u64 the inputs it ran (all of them unless time ran out), then
 * a u64 outcome per input it ran, the first object's values varying
 * slowest.
 */
#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "psychic_io.h"

int __psychic_user_main(int argc, char **argv, char **envp);
/* In psychic_native.c. */
void __psychic_stream(const unsigned char *bytes, size_t len);
void __psychic_record_shape(int fd);
size_t __psychic_stream_asked(void);
extern void (*__psychic_on_output)(const char *name, const void *addr, size_t nbytes);
extern void (*__psychic_on_meta)(int site);

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

static void die(const char *what) __attribute__((noreturn));
static void die(const char *what) {
  perror(what);
  _exit(125);
}

static void write_all(int fd, const void *buf, size_t n) {
  if (!__psychic_write_all(fd, buf, n))
    die("psychic fuzz server: write");
}

static void put_u32(int fd, uint32_t v) { write_all(fd, &v, 4); }
static void put_u64(int fd, uint64_t v) { write_all(fd, &v, 8); }

/* Fuzzing takes what the engine leaves: a core the engine does not use,
 * not half of the one it does. Its runs, that is; the server itself must
 * not be niced, or an enumeration psychic waits for would be too. */
static void yield_to_the_engine(void) {
  if (nice(10) == -1)
    perror("psychic fuzz server: nice");
}

/* The FNV-1a hash of the first `limit` bytes of fd (all of them: -1). */
static uint64_t fnv1a(int fd, off_t limit) {
  uint64_t h = 0xcbf29ce484222325ull;
  unsigned char buf[4096];
  ssize_t r, i;
  lseek(fd, 0, SEEK_SET);
  while (limit != 0 && (r = read(fd, buf, limit > 0 && limit < (off_t)sizeof buf ? (size_t)limit : sizeof buf)) > 0) {
    for (i = 0; i < r; i++)
      h = (h ^ buf[i]) * 0x100000001b3ull;
    if (limit > 0)
      limit -= r;
  }
  return h;
}

/* What a run that ran out of time printed, where it says something: the
 * hash of its first HUNG_PREFIX bytes (a run killed at any time has written
 * a start of its whole output, so two that differ there differ), or 0 when
 * it printed fewer. */
#define HUNG_PREFIX 4096
static uint64_t hung_stdout(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_size >= HUNG_PREFIX ? fnv1a(fd, HUNG_PREFIX) : 0;
}

static long run_ms = 1000;
static int out_fd, in_fd, null_fd, err_fd = -1;

/* A fuzzing run's time limit, AFL's way (five times the calibrated run, at
 * least 20 ms): SLOW_FACTOR times the slowest run that ended, at least
 * FLOOR_US, at most run_ms. Waiting a full run_ms on every hang ran 20
 * inputs in 14.5 s where revisions hang on most inputs (hang-budget). A run
 * cut there is -1 as at the full limit, a candidate that confirmation
 * replays under its own limits; an input on which every revision was cut
 * runs again at run_ms, since a slow input is slow on every revision. */
#define SLOW_FACTOR 10
#define FLOOR_US 50000
static long long slowest_us;

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static long long short_limit_us(void) {
  long long us = slowest_us * SLOW_FACTOR, cap = (long long)run_ms * 1000;
  us = us < FLOOR_US ? FLOOR_US : us;
  return us < cap ? us : cap;
}

/* Runs the program as `revision` on the input for at most `limit_us`;
 * returns its wait status, or -1 when it ran out of time. Its stdout is left
 * in out_fd, its stderr in err_fd when that is kept. */
static int run(int revision, const unsigned char *objects, size_t nobjects, const unsigned char *text,
               size_t ntext, int argc, char **argv, char **envp, long long limit_us) {
  int status;
  pid_t pid;
  long long started = now_us();
  if (ftruncate(out_fd, 0) != 0 || ftruncate(in_fd, 0) != 0 || lseek(in_fd, 0, SEEK_SET) != 0)
    die("psychic fuzz server: memfd");
  if (err_fd >= 0 && (ftruncate(err_fd, 0) != 0 || lseek(err_fd, 0, SEEK_SET) != 0))
    die("psychic fuzz server: memfd");
  write_all(in_fd, text, ntext);
  lseek(in_fd, 0, SEEK_SET);
  lseek(out_fd, 0, SEEK_SET);
  pid = fork();
  if (pid < 0)
    die("psychic fuzz server: fork");
  if (pid == 0) {
    char rev[16];
    struct itimerval t = {{0, 0}, {limit_us / 1000000, limit_us % 1000000}};
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd >= 0 ? err_fd : null_fd, 2);
    yield_to_the_engine();
    snprintf(rev, sizeof rev, "%d", revision);
    setenv("PSYCHIC_REVISION", rev, 1);
    revision_salt = (uint32_t)revision * 40503u;
    __psychic_stream(objects, nobjects);
    setitimer(ITIMER_REAL, &t, NULL);
    exit(__psychic_user_main(argc, argv, envp));
  }
  if (waitpid(pid, &status, 0) != pid)
    die("psychic fuzz server: waitpid");
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return -1;
  started = now_us() - started; /* what the run took */
  if (started > slowest_us)
    slowest_us = started;
  return status;
}

/* On the heap: enumeration copies the program's .bss back before every run. */
static int *revisions;
static int nrevisions;

/* Enumeration: every input of a small box, on one revision, in one process.
 *
 * A fork per run costs about 0.5 ms; a domain of a million inputs needs runs
 * of microseconds. So one child runs the program's main again and again, and
 * before each run puts back the writable memory of the program as it was
 * before the first (its .data and .bss: globals and static locals; the heap
 * only leaks). exit() returns to the loop by longjmp (the build wraps it),
 * stdout is a stream that hashes what it is given. A run that crashes or
 * hangs ends the child: its outcome says so, and a new child goes on from
 * the next input. What this cannot put back (libc's own state: rand, strtok,
 * open files) psychic rules out before it trusts an enumeration as a proof:
 * see src/fuzz/sweep.rs. */

#define OUT_OF_DOMAIN 0x5053594348494e00ull /* every status-120 run */
#define CRASHED 0x5053594348494e10ull       /* | the wait status's low byte */
#define TIMED_OUT 0x5053594348494e20ull

struct sweep_ctl {
  uint64_t next;  /* the input the child runs now, or the first it has not */
  uint64_t hash;  /* of the current run's stdout and records */
  uint64_t annotations;
  int asked_more; /* some run asked for bytes the box has not */
  int stopped;    /* it stopped at the time limit, before input `next` */
};

/* The time limit of an enumeration: no run starts after it. */
static struct timespec stop_at;
static int has_stop;

static int past_stop(void) {
  struct timespec now;
  if (!has_stop)
    return 0;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > stop_at.tv_sec || (now.tv_sec == stop_at.tv_sec && now.tv_nsec >= stop_at.tv_nsec);
}

static struct sweep_ctl *ctl;

/* The sites the runs of this child's revision reached, a bit each. */
static uint64_t *reached;
static uint32_t nsites, site_words;

static void mark_site(int site) {
  if (site >= 0 && (uint32_t)site < nsites)
    reached[site / 64] |= 1ull << (site % 64);
}
static uint64_t *outcomes;
static int in_sweep;
static jmp_buf sweep_exit;

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) {
  if (in_sweep)
    longjmp(sweep_exit, (status & 0xff) + 1);
  __real_exit(status);
}

static void fnv_bytes(uint64_t *h, const void *buf, size_t n) {
  const unsigned char *p = buf;
  size_t i;
  for (i = 0; i < n; i++)
    *h = (*h ^ p[i]) * 0x100000001b3ull;
}

static ssize_t hash_write(void *cookie, const char *buf, size_t n) {
  (void)cookie;
  fnv_bytes(&ctl->hash, buf, n);
  return (ssize_t)n;
}

static void hash_output(const char *name, const void *addr, size_t nbytes) {
  fnv_bytes(&ctl->annotations, name ? name : "unnamed", strlen(name ? name : "unnamed") + 1);
  fnv_bytes(&ctl->annotations, &nbytes, sizeof nbytes);
  fnv_bytes(&ctl->annotations, addr, nbytes);
}

/* The program's writable memory outside RELRO (which is read-only once
 * relocated), and a copy of it. */
static struct {
  char *at;
  size_t len;
  char *copy;
} segments[8];
static int nsegments;

static int find_segments(struct dl_phdr_info *info, size_t size, void *data) {
  uintptr_t relro_end = 0, page = (uintptr_t)sysconf(_SC_PAGESIZE);
  int i;
  (void)size;
  (void)data;
  for (i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
      relro_end = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
  for (i = 0; i < info->dlpi_phnum && nsegments < 8; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
      continue;
    if (start < relro_end)
      start = relro_end < end ? relro_end : end;
    if (start < end) {
      segments[nsegments].at = (char *)start;
      segments[nsegments].len = end - start;
      nsegments++;
    }
  }
  return 1; /* the first object is the program itself */
}

static void snapshot(void) {
  int i;
  dl_iterate_phdr(find_segments, NULL);
  /* All copies allocated first: `segments` itself lies in what is copied. */
  for (i = 0; i < nsegments; i++)
    if (!(segments[i].copy = malloc(segments[i].len)))
      die("psychic fuzz server: malloc");
  for (i = 0; i < nsegments; i++)
    memcpy(segments[i].copy, segments[i].at, segments[i].len);
}

/* One run of main in this process: its exit status. */
static int run_in_process(int argc, char **argv, char **envp) {
  int r = setjmp(sweep_exit);
  if (r == 0)
    return __psychic_user_main(argc, argv, envp) & 0xff;
  return r - 1;
}

/* Runs inputs ctl->next to n of the box on `revision`, one after the other;
 * returns only by _exit. */
static void sweep_child(int revision, const uint32_t *sizes, const int64_t *first, const uint64_t *counts,
                        uint32_t nobjects, uint64_t n, uint32_t flags, int argc, char **argv, char **envp) {
  unsigned char input[64 * 8];
  size_t total = 0;
  uint32_t k;
  char rev[16];
  FILE *hashed;
  cookie_io_functions_t io = {NULL, hash_write, NULL, NULL};
  struct itimerval on = {{0, 0}, {run_ms / 1000, (run_ms % 1000) * 1000}}, off = {{0, 0}, {0, 0}};
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  dup2(null_fd, 0);
  /* A file of its own: fd 1 holds only what this child's runs write to it. */
  if (dup2(memfd_create("psychic-sweep", 0), 1) != 1)
    die("psychic fuzz server: memfd");
  dup2(null_fd, 2);
  snprintf(rev, sizeof rev, "%d", revision);
  setenv("PSYCHIC_REVISION", rev, 1);
  for (k = 0; k < nobjects; k++)
    total += sizes[k];
  hashed = fopencookie(NULL, "w", io);
  if (!hashed || total > sizeof input)
    die("psychic fuzz server: enumeration");
  setvbuf(hashed, NULL, _IOFBF, 1 << 16);
  if (!(flags & 8))
    yield_to_the_engine();
  map = NULL; /* no coverage: every input runs anyway */
  __psychic_on_output = (flags & 4) ? hash_output : NULL;
  __psychic_on_meta = mark_site;
  in_sweep = 1;
  snapshot();
  for (; ctl->next < n; ctl->next++) {
    int status;
    uint64_t rest = ctl->next, raw, h;
    size_t at = total;
    /* The clock costs a few dozen nanoseconds, a run microseconds. */
    if (ctl->next % 64 == 0 && past_stop()) {
      ctl->stopped = 1;
      break;
    }
    for (k = nobjects; k-- > 0;) {
      uint64_t v = (uint64_t)first[k] + rest % counts[k];
      rest /= counts[k];
      at -= sizes[k];
      memcpy(input + at, &v, sizes[k]); /* little-endian */
    }
    for (k = 0; k < (uint32_t)nsegments; k++)
      memcpy(segments[k].at, segments[k].copy, segments[k].len);
    stdout = hashed;
    ctl->hash = 0xcbf29ce484222325ull;
    ctl->annotations = 0xcbf29ce484222325ull;
    __psychic_stream(input, total);
    setitimer(ITIMER_REAL, &on, NULL);
    status = run_in_process(argc, argv, envp);
    setitimer(ITIMER_REAL, &off, NULL);
    fflush(hashed);
    if (__psychic_stream_asked() > total)
      ctl->asked_more = 1;
    /* Bytes the program wrote to fd 1 itself. */
    raw = (uint64_t)lseek(1, 0, SEEK_CUR);
    if (raw > 0) {
      uint64_t rh = fnv1a(1, -1);
      fnv_bytes(&ctl->hash, &rh, sizeof rh);
      if (ftruncate(1, 0) != 0 || lseek(1, 0, SEEK_SET) != 0)
        die("psychic fuzz server: memfd");
    }
    if (status == 120) {
      outcomes[ctl->next] = OUT_OF_DOMAIN;
      continue;
    }
    h = 0xcbf29ce484222325ull;
    if (flags & 1)
      fnv_bytes(&h, (const void *)&status, sizeof status);
    if (flags & 2)
      fnv_bytes(&h, &ctl->hash, sizeof ctl->hash);
    if (flags & 4)
      fnv_bytes(&h, &ctl->annotations, sizeof ctl->annotations);
    /* Never one of the markers. */
    outcomes[ctl->next] = (h & ~0xffull) == (OUT_OF_DOMAIN & ~0xffull) ? h ^ 0x100 : h;
  }
  _exit(0);
}

/* Answers an enumeration request (see the protocol above). */
static void enumerate(int argc, char **argv, char **envp) {
  uint32_t flags, jobs, nobjects, k, sizes[64], *abnormal;
  uint64_t *reach;
  int64_t first[64];
  uint64_t counts[64], n = 1, stop_ms;
  struct sweep_ctl *ctls;
  uint64_t *all;
  pid_t *pids;
  int i, started = 0, running = 0;
  if (!__psychic_read_all(0, &flags, 4) || !__psychic_read_all(0, &jobs, 4) ||
      !__psychic_read_all(0, &stop_ms, 8) || !__psychic_read_all(0, &nsites, 4) ||
      !__psychic_read_all(0, &nobjects, 4) || nobjects > 64)
    die("psychic fuzz server: enumeration request");
  site_words = (nsites + 63) / 64;
  has_stop = stop_ms > 0;
  clock_gettime(CLOCK_MONOTONIC, &stop_at);
  stop_at.tv_sec += (time_t)(stop_ms / 1000);
  stop_at.tv_nsec += (long)(stop_ms % 1000) * 1000000;
  if (stop_at.tv_nsec >= 1000000000) {
    stop_at.tv_sec++;
    stop_at.tv_nsec -= 1000000000;
  }
  for (k = 0; k < nobjects; k++) {
    if (!__psychic_read_all(0, &sizes[k], 4) || !__psychic_read_all(0, &first[k], 8) ||
        !__psychic_read_all(0, &counts[k], 8) || sizes[k] > 8 || counts[k] == 0)
      die("psychic fuzz server: enumeration request");
    n *= counts[k];
  }
  ctls = mmap(NULL, nrevisions * sizeof *ctls, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  all = mmap(NULL, nrevisions * n * 8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  reach = mmap(NULL, nrevisions * site_words * 8 + 8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pids = calloc((size_t)nrevisions, sizeof *pids);
  abnormal = calloc((size_t)nrevisions, sizeof *abnormal);
  if (ctls == MAP_FAILED || all == MAP_FAILED || reach == MAP_FAILED || !pids || !abnormal)
    die("psychic fuzz server: mmap");
  /* Up to `jobs` children at once, each a revision from ctls[i].next on. */
  for (;;) {
    int status;
    pid_t pid;
    int child = -1; /* in a child: the revision it runs */
    while (running < (int)(jobs ? jobs : 1) && started < nrevisions && !past_stop()) {
      pids[started] = fork();
      if (pids[started] < 0)
        die("psychic fuzz server: fork");
      if (pids[started] == 0) {
        child = started;
        break;
      }
      started++;
      running++;
    }
    if (child >= 0)
      i = child;
    else if (running == 0)
      break;
    else {
      pid = waitpid(-1, &status, 0);
      if (pid < 0)
        die("psychic fuzz server: waitpid");
      for (i = 0; i < nrevisions && pids[i] != pid; i++)
        ;
      if (i == nrevisions)
        continue;
      running--;
      if (ctls[i].next >= n || ctls[i].stopped)
        continue;
      /* The run of input ctls[i].next ended the child: a new one goes on. */
      all[(size_t)i * n + ctls[i].next] = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM
                                              ? TIMED_OUT
                                              : CRASHED | (uint64_t)(status & 0xff);
      abnormal[i]++;
      if (++ctls[i].next >= n || past_stop())
        continue;
      pids[i] = fork();
      if (pids[i] < 0)
        die("psychic fuzz server: fork");
      if (pids[i] != 0) {
        running++;
        continue;
      }
    }
    ctl = &ctls[i];
    outcomes = all + (size_t)i * n;
    reached = reach + (size_t)i * site_words;
    sweep_child(revisions[i], sizes, first, counts, nobjects, n, flags, argc, argv, envp);
  }
  for (i = 0; i < nrevisions; i++) {
    put_u32(1, abnormal[i]);
    put_u32(1, (uint32_t)ctls[i].asked_more);
    write_all(1, reach + (size_t)i * site_words, site_words * 8);
    put_u64(1, ctls[i].next);
    write_all(1, all + (size_t)i * n, ctls[i].next * 8);
  }
  free(pids);
  free(abnormal);
  munmap(all, nrevisions * n * 8);
  munmap(reach, nrevisions * site_words * 8 + 8);
  munmap(ctls, nrevisions * sizeof *ctls);
}

static void parse_revisions(const char *s) {
  /* As many as the list holds: a repair tool's pool has thousands. */
  size_t most = 1;
  for (const char *c = s; c && *c; c++)
    most += *c == ',';
  revisions = calloc(most, sizeof *revisions);
  if (!revisions)
    die("psychic fuzz server: calloc");
  while (s && *s && (size_t)nrevisions < most) {
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
  if (!text || !__psychic_read_all(shape, text, (size_t)st.st_size))
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

/* Reads a request that sets the words after argv[0]; returns the new argv,
 * argv[0] kept, and frees the one it replaces (`owned`: not main's). */
static char **set_args(char **argv, int *argc, int owned) {
  uint32_t count, i, len;
  char **out;
  if (!__psychic_read_all(0, &count, 4) || count > 4096)
    die("psychic fuzz server: arguments");
  out = calloc(count + 2, sizeof *out);
  if (!out)
    die("psychic fuzz server: calloc");
  out[0] = argv[0];
  for (i = 0; i < count; i++) {
    if (!__psychic_read_all(0, &len, 4) || !(out[i + 1] = calloc(len + 1, 1)) ||
        !__psychic_read_all(0, out[i + 1], len))
      die("psychic fuzz server: arguments");
  }
  if (owned) {
    for (i = 1; argv[i]; i++)
      free(argv[i]);
    free(argv);
  }
  *argc = (int)count + 1;
  return out;
}

/* Runs a fuzzing input on every revision and answers: per revision its
 * status, the hash of its stdout and that of its stderr. */
static void fuzz_input(const unsigned char *objects, size_t nobjects, const unsigned char *text, size_t ntext,
                       int argc, char **argv, char **envp) {
  int status[nrevisions > 0 ? nrevisions : 1], i, ended = 0;
  uint64_t out[nrevisions > 0 ? nrevisions : 1], err[nrevisions > 0 ? nrevisions : 1];
  long long limit = short_limit_us(), full = (long long)run_ms * 1000;
  for (int pass = 0; pass < 2 && !ended; pass++) {
    for (i = 0; i < nrevisions; i++) {
      status[i] = run(revisions[i], objects, nobjects, text, ntext, argc, argv, envp, pass ? full : limit);
      out[i] = status[i] == -1 ? hung_stdout(out_fd) : fnv1a(out_fd, -1);
      err[i] = err_fd >= 0 ? fnv1a(err_fd, -1) : 0;
      ended |= status[i] != -1;
    }
    if (limit >= full)
      break;
  }
  for (i = 0; i < nrevisions; i++) {
    put_u32(1, (uint32_t)status[i]);
    write_all(1, &out[i], 8);
    write_all(1, &err[i], 8);
  }
}

int main(int argc, char **argv, char **envp) {
  const char *path = getenv("PSYCHIC_FUZZ_MAP");
  const char *size = getenv("PSYCHIC_FUZZ_MAP_SIZE");
  const char *ms = getenv("PSYCHIC_FUZZ_MS");
  size_t nobjects;
  unsigned char *input = NULL;
  uint32_t cap = 0;
  int owned = 0;
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
  parse_revisions(getenv("PSYCHIC_FUZZ_REVISIONS"));
  out_fd = memfd_create("psychic-stdout", 0);
  in_fd = memfd_create("psychic-stdin", 0);
  null_fd = open("/dev/null", O_RDWR);
  if (getenv("PSYCHIC_FUZZ_STDERR") && (err_fd = memfd_create("psychic-stderr", 0)) < 0)
    die("psychic fuzz server: memfd");
  if (out_fd < 0 || in_fd < 0 || null_fd < 0)
    die("psychic fuzz server: memfd");
  nobjects = send_shape(argc, argv, envp);
  for (;;) {
    uint32_t len;
    size_t k;
    if (!__psychic_read_all(0, &len, 4))
      return 0;
    if (len == 0xffffffffu) {
      enumerate(argc, argv, envp);
      continue;
    }
    if (len == 0xfffffffeu) {
      argv = set_args(argv, &argc, owned);
      owned = 1;
      continue;
    }
    if (len > cap) {
      cap = len;
      input = realloc(input, cap);
      if (!input)
        die("psychic fuzz server: realloc");
    }
    if (!__psychic_read_all(0, input, len))
      return 0;
    k = nobjects < len ? nobjects : len;
    fuzz_input(input, k, input + k, len - k, argc, argv, envp);
  }
}
