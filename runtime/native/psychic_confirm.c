/* The confirmation server: one process of a native replay build runs one
 * test on many revisions, forking a child per run (src/replay.rs,
 * `replay::Server`).
 *
 * Why: confirmation runs every candidate test on every revision, twice
 * (plainly and perturbed). One process per run costs an exec of an ASan
 * binary, milliseconds each; at a thousand revisions that was nearly all of a
 * run's time. A fork of a process that has not yet entered main costs a
 * fraction of it, and the child is what a fresh process would be at main:
 * the server's loop runs in a constructor, before the program's code, and
 * each child returns from it into the program's own start.
 *
 * Asked for by PSYCHIC_REPLAY_SERVER=1 in the environment (taken out of it,
 * so the program never sees it). Protocol, on the server's stdin and stdout:
 *   first:   u32 length, then the bytes every run gets on stdin;
 *   request: u32 revision, u32 limit in ms, u32 length + the path the run's
 *            psychic_output records go to (empty: none), u32 length + the
 *            directory the run works in (empty: the server's own), u32
 *            length + the path the sites it reaches go to (empty: none);
 *   answer:  u32 kind (0 exited, 1 killed by a signal, 2 out of time),
 *            i32 exit status or signal, u64 microseconds it took,
 *            then stdout and stderr: each u32 length, u8 cut, the bytes.
 * The server ends at the end of its input. A child's stdin is a pipe the
 * server fills (a program sees the pipe `psychic replay` gives it), its
 * stdout and stderr are pipes the server drains, keeping the first
 * MAX_CAPTURE bytes of each as replay.rs does. A child leads a process group
 * of its own: at its limit the group is killed, with whatever it started.
 * Nothing revision-specific enters the environment: the revision and the
 * records' path are set in the child's memory (`__psychic_serve_as`).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "psychic_io.h"

#define MAX_CAPTURE (1 << 20)

/* glibc 2.34's fork without the atfork handlers. ASan's (LLVM 19) unlocks
 * every bucket of its stack depot in the child, a copy-on-write fault per
 * page of a 4 MiB table: 1.6 of the 1.9 ms a run took. They keep ASan's
 * locks whole where another thread may hold one at the fork; the server has
 * no other thread, and forks outside ASan's code. */
extern pid_t _Fork(void) __attribute__((weak));

/* psychic_native.c: the revision __klee_meta returns and where records go. */
void __psychic_serve_as(int revision, const char *annotations, const char *sites);

struct capture {
  int fd;
  unsigned char *bytes;
  uint32_t len;
  uint8_t cut;
};

static void die(const char *what) {
  static const char prefix[] = "psychic confirmation server: ";
  if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, what, strlen(what)) < 0 ||
      write(2, "\n", 1) < 0)
    _exit(122);
  _exit(122);
}

int __psychic_read_all(int fd, void *buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, (char *)buf + got, len - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    got += (size_t)n;
  }
  return 1;
}

int __psychic_write_all(int fd, const void *buf, size_t len) {
  size_t put = 0;
  while (put < len) {
    ssize_t n = write(fd, (const char *)buf + put, len - put);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    put += (size_t)n;
  }
  return 1;
}

static void write_all(int fd, const void *buf, size_t len) {
  if (!__psychic_write_all(fd, buf, len))
    die("write");
}

/* A length-prefixed string, NUL-terminated; NULL at the end of input. */
static char *read_string(int fd, uint32_t *len) {
  char *s;
  if (!__psychic_read_all(fd, len, 4))
    return NULL;
  if (*len > (1u << 30) || !(s = malloc((size_t)*len + 1)) || !__psychic_read_all(fd, s, *len))
    die("request");
  s[*len] = 0;
  return s;
}

static uint64_t now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Reads what is there; 0 at the end of the stream. */
static int drain(struct capture *c) {
  unsigned char buf[1 << 16];
  ssize_t n = read(c->fd, buf, sizeof buf);
  size_t room = MAX_CAPTURE - c->len, keep;
  if (n < 0)
    return errno == EINTR || errno == EAGAIN;
  if (n == 0)
    return 0;
  keep = (size_t)n < room ? (size_t)n : room;
  memcpy(c->bytes + c->len, buf, keep);
  c->len += (uint32_t)keep;
  c->cut |= (size_t)n > room;
  return 1;
}

static void send_capture(int out, const struct capture *c) {
  write_all(out, &c->len, 4);
  write_all(out, &c->cut, 1);
  write_all(out, c->bytes, c->len);
}

/* Runs one child to its end or its limit and answers for it. */
static void watch(int out, pid_t pid, int in_fd, const unsigned char *text, uint32_t text_len,
                  struct capture *cap, uint64_t limit_us, uint64_t start) {
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0, exited = 0, timed_out = 0;
  uint32_t put = 0, kind;
  int32_t value;
  uint64_t took;
  if (text_len == 0) {
    close(in_fd);
    in_fd = -1;
  }
  while (cap[0].fd >= 0 || cap[1].fd >= 0 || !exited) {
    struct pollfd p[4];
    int n = 0, i, wait_ms;
    uint64_t at = now_us();
    if (at >= start + limit_us) {
      timed_out = !exited;
      break;
    }
    wait_ms = (int)((start + limit_us - at + 999) / 1000);
    for (i = 0; i < 2; i++)
      if (cap[i].fd >= 0)
        p[n++] = (struct pollfd){cap[i].fd, POLLIN, 0};
    if (in_fd >= 0)
      p[n++] = (struct pollfd){in_fd, POLLOUT, 0};
    if (!exited && pidfd >= 0)
      p[n++] = (struct pollfd){pidfd, POLLIN, 0};
    /* Without a pidfd (before Linux 5.3) the child's end is looked for
     * every millisecond. */
    if (!exited && pidfd < 0 && wait_ms > 1)
      wait_ms = 1;
    if (poll(p, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
      die("poll");
    for (i = 0; i < 2; i++)
      if (cap[i].fd >= 0 && !drain(&cap[i])) {
        close(cap[i].fd);
        cap[i].fd = -1;
      }
    if (in_fd >= 0) {
      ssize_t w = write(in_fd, text + put, text_len - put);
      if (w > 0)
        put += (uint32_t)w;
      /* EPIPE: the program closed stdin unread, as a pipe lets it. */
      if (put == text_len || (w < 0 && errno != EAGAIN && errno != EINTR)) {
        close(in_fd);
        in_fd = -1;
      }
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid)
      exited = 1;
  }
  took = now_us() - start;
  /* Out of time, or done but for what its group still holds open. */
  if (!exited || cap[0].fd >= 0 || cap[1].fd >= 0)
    kill(-pid, SIGKILL);
  if (!exited) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  }
  if (pidfd >= 0)
    close(pidfd);
  if (in_fd >= 0)
    close(in_fd);
  for (int i = 0; i < 2; i++)
    if (cap[i].fd >= 0) {
      close(cap[i].fd);
      cap[i].fd = -1;
    }
  if (timed_out) {
    kind = 2;
    value = 0;
  } else if (WIFSIGNALED(status)) {
    kind = 1;
    value = WTERMSIG(status);
  } else {
    kind = 0;
    value = WEXITSTATUS(status);
  }
  write_all(out, &kind, 4);
  write_all(out, &value, 4);
  write_all(out, &took, 8);
  send_capture(out, &cap[0]);
  send_capture(out, &cap[1]);
}

/* Serves requests until the end of input; returns only in a child, which
 * goes on into the program's main. */
void __psychic_replay_server(void) {
  int in = fcntl(0, F_DUPFD_CLOEXEC, 3), out = fcntl(1, F_DUPFD_CLOEXEC, 3);
  uint32_t text_len, len;
  unsigned char *text;
  struct capture cap[2];
  int i;
  if (in < 0 || out < 0)
    die("descriptors");
  text = (unsigned char *)read_string(in, &text_len);
  if (!text)
    die("stdin");
  for (i = 0; i < 2; i++)
    if (!(cap[i].bytes = malloc(MAX_CAPTURE)))
      die("malloc");
  /* A child that exits before reading stdin must not end the server; each
   * child takes the default back. */
  signal(SIGPIPE, SIG_IGN);
  write_all(out, "PSYR", 4);
  for (;;) {
    uint32_t req[2];
    char *annotations, *dir, *sites;
    int pin[2], pout[2], perr[2];
    pid_t pid;
    uint64_t start;
    if (!__psychic_read_all(in, req, 8))
      _exit(0);
    if (!(annotations = read_string(in, &len)) || !(dir = read_string(in, &len)) ||
        !(sites = read_string(in, &len)))
      die("request");
    if (pipe2(pin, O_CLOEXEC) < 0 || pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0)
      die("pipe");
    start = now_us();
    pid = _Fork ? _Fork() : fork();
    if (pid < 0)
      die("fork");
    if (pid == 0) {
      signal(SIGPIPE, SIG_DFL);
      setpgid(0, 0);
      if (dup2(pin[0], 0) < 0 || dup2(pout[1], 1) < 0 || dup2(perr[1], 2) < 0)
        _exit(122);
      /* The dups lost O_CLOEXEC; the originals keep it, and go now. */
      close(pin[0]), close(pin[1]), close(pout[0]), close(pout[1]), close(perr[0]), close(perr[1]);
      close(in), close(out);
      free(text), free(cap[0].bytes), free(cap[1].bytes);
      if (*dir && chdir(dir) < 0)
        _exit(122);
      free(dir);
      __psychic_serve_as((int)req[0], *annotations ? annotations : NULL, *sites ? sites : NULL);
      return;
    }
    close(pin[0]), close(pout[1]), close(perr[1]);
    fcntl(pin[1], F_SETFL, O_NONBLOCK);
    for (i = 0; i < 2; i++) {
      cap[i].fd = i ? perr[0] : pout[0];
      fcntl(cap[i].fd, F_SETFL, O_NONBLOCK);
      cap[i].len = 0;
      cap[i].cut = 0;
    }
    watch(out, pid, pin[1], text, text_len, cap, (uint64_t)req[1] * 1000u, start);
    free(annotations);
    free(dir);
    free(sites);
  }
}
