/* The system-call layer beneath musl (src/compile/musl.rs): musl's members
 * make every system call through __psychic_syscall, which serves it from the
 * symbolic environment of posix.c, through the model's own functions, so
 * that musl and the model see the same files and offsets. It returns what
 * the kernel would: a result, or -errno. A call it does not serve ends the
 * path as an unmodelled call naming it; none is silently answered. */
#define _GNU_SOURCE /* AT_EMPTY_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "model.h"

/* The kernel's convention from the model's libc one. */
static long result(long r) { return r < 0 ? -(long)errno : r; }

/* The engine records what reaches stdout and stderr, as from fwrite; the
 * files of the environment are inputs only. */
static long write_fd(int fd, const void *buf, size_t n) {
  if (fd != 1 && fd != 2)
    __psychic_unmodelled("a write to a descriptor other than stdout and stderr");
  return (long)fwrite(buf, 1, n, fd == 1 ? stdout : stderr);
}

/* Names of the calls musl's built members make that are not served. */
static const struct {
  long number;
  const char *name;
} names[] = {
    {SYS_mmap, "the system call mmap"},
    {SYS_munmap, "the system call munmap"},
    {SYS_brk, "the system call brk"},
    {SYS_rt_sigprocmask, "the system call rt_sigprocmask"},
    {SYS_rt_sigaction, "the system call rt_sigaction"},
    {SYS_clock_gettime, "the system call clock_gettime"},
    {SYS_gettimeofday, "the system call gettimeofday"},
    {SYS_getpid, "the system call getpid"},
    {SYS_getuid, "the system call getuid"},
    {SYS_geteuid, "the system call geteuid"},
    {SYS_getgid, "the system call getgid"},
    {SYS_getegid, "the system call getegid"},
    {SYS_getcwd, "the system call getcwd"},
    {SYS_getdents64, "the system call getdents64"},
    {SYS_uname, "the system call uname"},
    {SYS_access, "the system call access"},
    {SYS_faccessat, "the system call faccessat"},
    {SYS_readlink, "the system call readlink"},
    {SYS_fcntl, "the system call fcntl"},
    {SYS_dup, "the system call dup"},
    {SYS_dup2, "the system call dup2"},
    {SYS_pipe, "the system call pipe"},
    {SYS_unlink, "the system call unlink"},
    {SYS_rename, "the system call rename"},
    {SYS_mkdir, "the system call mkdir"},
    {SYS_chdir, "the system call chdir"},
    {SYS_kill, "the system call kill"},
    {SYS_nanosleep, "the system call nanosleep"},
    {SYS_readv, "the system call readv"},
    {SYS_writev, "the system call writev"},
    {SYS_pread64, "the system call pread64"},
    {SYS_pwrite64, "the system call pwrite64"},
    {SYS_statx, "the system call statx"},
    {SYS_getrandom, "the system call getrandom"},
};

static void unmodelled(long n) {
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].number == n)
      __psychic_unmodelled(names[i].name);
  __psychic_unmodelled("a system call (number unknown to psychic's table, see <asm/unistd_64.h>)");
}

MODEL long __psychic_syscall(long n, long a, long b, long c, long d, long e, long f) {
  (void)e, (void)f;
  switch (n) {
  case SYS_read:
    return result(read((int)a, (void *)b, (size_t)c));
  case SYS_write:
    return write_fd((int)a, (const void *)b, (size_t)c);
  case SYS_open:
    return result(open((const char *)a, (int)b, (int)c));
  case SYS_openat:
    if ((int)a != AT_FDCWD && ((const char *)b)[0] != '/')
      unmodelled(n);
    return result(open((const char *)b, (int)c, (int)d));
  case SYS_close:
    return result(close((int)a));
  case SYS_lseek:
    return result(lseek((int)a, (off_t)b, (int)c));
  case SYS_fstat:
    return result(fstat((int)a, (struct stat *)b));
  case SYS_stat:
    return result(stat((const char *)a, (struct stat *)b));
  case SYS_newfstatat:
    if ((d & AT_EMPTY_PATH) && ((const char *)b)[0] == 0)
      return result(fstat((int)a, (struct stat *)c));
    if ((int)a != AT_FDCWD && ((const char *)b)[0] != '/')
      unmodelled(n);
    return result(stat((const char *)b, (struct stat *)c));
  case SYS_ioctl:
    /* No descriptor is a terminal (isatty is false), as under replay. */
    return -ENOTTY;
  case SYS_fadvise64: {
    /* Advice changes nothing a program sees, but the kernel's checks; stdin
     * is a pipe under replay (src/replay.rs). */
    struct stat st;
    if ((int)a == 0)
      return -ESPIPE;
    if (fstat((int)a, &st) != 0)
      return -errno;
    return S_ISFIFO(st.st_mode) ? -ESPIPE : 0;
  }
  }
  unmodelled(n);
  return -ENOSYS;
}
