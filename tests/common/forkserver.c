/* Test support: runs a program natively on many tests in one process start.
 *
 * Linked into a program together with psychic's native runtime. When
 * PSYCHIC_FORKSERVER names a file of ktest paths (one a line), this
 * constructor forks once per test before main runs: the child sets KTEST_FILE,
 * sends its stdout into a pipe and returns into main, so the runtime replays
 * the test exactly as in a run of its own; the parent records the outcome.
 * A fork costs far less than starting a process, which makes exhaustive runs
 * over a whole input domain cheap. Without the variable, the program runs as
 * usual.
 *
 * Output, per test, on the real stdout:
 *   "<exit status or -1> <signal or 0> <stdout length>\n" then the bytes.
 * A test that runs longer than PSYCHIC_FORKSERVER_SECS (default 10) is
 * killed by SIGALRM.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc 2.34's fork without the atfork handlers: AddressSanitizer's unlock
 * its whole stack depot in each child, most of a sanitized run's cost (as in
 * psychic's own confirmation server). This process has no other thread. */
extern pid_t _Fork(void) __attribute__((weak));

static void write_all(int fd, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w <= 0)
      _exit(125);
    buf += w;
    n -= (size_t)w;
  }
}

/* Runs the test in `ktest` in a child; returns only in the child. */
static void run_one(const char *ktest, unsigned secs) {
  int fds[2];
  char *out = NULL, header[64];
  size_t len = 0, cap = 0;
  int status = 0;
  pid_t pid;
  if (pipe(fds) != 0)
    _exit(125);
  pid = _Fork ? _Fork() : fork();
  if (pid < 0)
    _exit(125);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    close(fds[1]);
    freopen("/dev/null", "w", stderr);
    setenv("KTEST_FILE", ktest, 1);
    unsetenv("PSYCHIC_FORKSERVER");
    alarm(secs);
    return;
  }
  close(fds[1]);
  for (;;) {
    ssize_t r;
    if (len == cap) {
      cap = cap ? 2 * cap : 4096;
      out = realloc(out, cap);
      if (!out)
        _exit(125);
    }
    r = read(fds[0], out + len, cap - len);
    if (r <= 0)
      break;
    len += (size_t)r;
  }
  close(fds[0]);
  if (waitpid(pid, &status, 0) != pid)
    _exit(125);
  snprintf(header, sizeof header, "%d %d %zu\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           WIFSIGNALED(status) ? WTERMSIG(status) : 0, len);
  write_all(STDOUT_FILENO, header, strlen(header));
  write_all(STDOUT_FILENO, out, len);
  free(out);
}

__attribute__((constructor)) static void forkserver(void) {
  const char *list = getenv("PSYCHIC_FORKSERVER");
  const char *secs = getenv("PSYCHIC_FORKSERVER_SECS");
  char *text = NULL, *line, *next;
  size_t cap = 0;
  pid_t parent = getpid();
  FILE *f;
  if (!list)
    return;
  /* Read the whole list first: a child must not share a stream with us. */
  f = fopen(list, "r");
  if (!f || getdelim(&text, &cap, 0, f) < 0)
    _exit(125);
  fclose(f);
  for (line = text; *line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = 0;
    else
      next = line + strlen(line);
    if (!*line)
      continue;
    run_one(line, secs ? (unsigned)atoi(secs) : 10);
    if (getpid() != parent)
      return; /* the child: on into main */
  }
  _exit(0);
}
