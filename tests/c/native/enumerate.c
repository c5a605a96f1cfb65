/* Ground truth for path counts: runs a fixture (compiled with
 * -Dmain=fixture_main -fsanitize-coverage=trace-pc-guard) on every value of
 * its N input bytes (argv[1]), each run in a child process, and prints the
 * number of distinct (basic-block trace, terminating signal) pairs among the
 * inputs that satisfy its klee_assume and klee_range calls: the paths a
 * symbolic executor must find, when only branches fork it. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parse_float_hook.c"
#include "traces.h"

int fixture_main(void);

struct shared {
  uint64_t trace;
  int feasible;
};
static struct shared *sh;
static unsigned char input[8];
static unsigned used, nbytes;

void klee_make_symbolic(void *addr, size_t n, const char *name) {
  (void)name;
  if (used + n > nbytes) {
    fprintf(stderr, "enumerate: the fixture reads more than %u input bytes\n", nbytes);
    _exit(99);
  }
  memcpy(addr, input + used, n);
  used += n;
}
int klee_int(const char *name) {
  int x;
  klee_make_symbolic(&x, sizeof x, name);
  return x;
}
void klee_assume(uintptr_t c) {
  if (!c) {
    sh->feasible = 0;
    _exit(0);
  }
}
int klee_range(int lo, int hi, const char *name) {
  int x = klee_int(name);
  klee_assume(x >= lo && x < hi);
  return x;
}
void klee_silent_exit(int s) { _exit(s); }
void klee_abort(void) { abort(); }
void klee_report_error(const char *f, int l, const char *m, const char *s) {
  (void)f, (void)l, (void)m, (void)s;
  abort();
}
unsigned klee_is_symbolic(uintptr_t n) {
  (void)n;
  return 0;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  if (sh) /* the traced model may run before main maps it */
    sh->trace = trace_step(sh->trace, *guard);
}

int main(int argc, char **argv) {
  if (argc != 2 || (nbytes = (unsigned)(argv[1][0] - '0')) > 3) return 2;
  sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 2;
  unsigned distinct = 0;
  for (uint32_t v = 0; v < (1u << (8 * nbytes)); v++) {
    sh->trace = TRACE_START;
    sh->feasible = 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      for (unsigned i = 0; i < nbytes; i++) input[i] = (unsigned char)(v >> (8 * i));
      int fd = open("/dev/null", O_WRONLY);
      dup2(fd, 1), dup2(fd, 2);
      exit(fixture_main());
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 2;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 99) return 3;
    if (!sh->feasible) continue;
    distinct += insert_key(sh->trace ^ (uint64_t)(WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  }
  printf("%u\n", distinct);
  return 0;
}
