/* Test support: runs a program natively on every input of a box-shaped
 * domain, in one process.
 *
 * Why not the fork server (forkserver.c): a fork and a ktest file per input
 * cost about half a millisecond, so a domain of a million inputs takes
 * minutes per revision; a call takes microseconds. The price is what the
 * program may do: it must keep no state from one call of main to the next
 * and must not crash (either would stop or spoil the sweep). Tests that use
 * it check it against the fork server on a sample of the domain.
 *
 * Built with the program compiled with -Dmain=swept_main and linked with
 * -Wl,--wrap=exit, in place of psychic's native runtime. The arguments are
 * the domain, one per klee_make_symbolic call in call order:
 * NAME:WIDTH:LO:HI, a little-endian integer of WIDTH bytes taking every
 * value from LO to HI (signed, inclusive). Every combination is run, the
 * last object varying fastest; per input, on stdout, the fork server's
 * record: "<exit status> 0 <stdout length>\n" then the bytes. A failed
 * klee_assume ends the input with status 120, as the replay runtime does.
 * A sweep that runs over two minutes is killed by SIGALRM, so that a
 * revision that loops forever fails its test instead of hanging it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "klee/klee.h"

#define STATUS_ASSUME 120
#define MAX_OBJECTS 8

int swept_main(void);

struct object {
  char name[64];
  size_t width;
  long long lo, hi, value;
};

static struct object objects[MAX_OBJECTS];
static size_t num_objects, next_object;
static jmp_buf done;
static int status;

static void die(const char *what, const char *arg) {
  fprintf(stderr, "sweep: %s: %s\n", what, arg);
  fflush(stderr);
  _exit(2);
}

void klee_make_symbolic(void *addr, size_t nbytes, const char *name) {
  struct object *o;
  if (next_object == num_objects)
    die("more klee_make_symbolic calls than objects", name);
  o = &objects[next_object++];
  if (strcmp(o->name, name) != 0 || o->width != nbytes)
    die("object out of order or of another size", name);
  /* x86-64 is little-endian: the low bytes of the value are the object. */
  memcpy(addr, &o->value, nbytes);
}

void klee_assume(uintptr_t condition) {
  if (!condition) {
    status = STATUS_ASSUME;
    longjmp(done, 1);
  }
}

void __wrap_exit(int code) {
  status = code & 0xff;
  longjmp(done, 1);
}

static void parse(const char *arg, struct object *o) {
  char *copy = strdup(arg), *width, *lo, *hi;
  width = strchr(copy, ':');
  lo = width ? strchr(width + 1, ':') : NULL;
  hi = lo ? strchr(lo + 1, ':') : NULL;
  if (!hi || (size_t)(width - copy) >= sizeof o->name)
    die("not NAME:WIDTH:LO:HI", arg);
  *width++ = *lo++ = *hi++ = 0;
  strcpy(o->name, copy);
  o->width = strtoul(width, NULL, 10);
  o->lo = strtoll(lo, NULL, 10);
  o->hi = strtoll(hi, NULL, 10);
  if (o->width < 1 || o->width > 8 || o->lo > o->hi)
    die("bad width or range", arg);
  o->value = o->lo;
  free(copy);
}

/* The next combination, odometer style; 0 after the last. */
static int next(void) {
  size_t i = num_objects;
  while (i-- > 0) {
    if (objects[i].value < objects[i].hi) {
      objects[i].value++;
      return 1;
    }
    objects[i].value = objects[i].lo;
  }
  return 0;
}

int main(int argc, char **argv) {
  static char outbuf[1 << 16];
  FILE *real = fdopen(dup(STDOUT_FILENO), "w");
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  int i;
  if (!real || !mem || argc - 1 > MAX_OBJECTS)
    die("cannot start", argc > 1 ? argv[1] : "no domain");
  setvbuf(real, outbuf, _IOFBF, sizeof outbuf);
  alarm(120);
  for (i = 1; i < argc; i++)
    parse(argv[i], &objects[num_objects++]);
  /* glibc's stdout is a variable: printf, puts and putchar follow it. */
  stdout = mem;
  do {
    long start;
    fflush(mem);
    start = ftell(mem);
    next_object = 0;
    if (setjmp(done) == 0)
      status = swept_main() & 0xff;
    fflush(mem);
    fprintf(real, "%d 0 %ld\n", status, ftell(mem) - start);
    fwrite(text + start, 1, (size_t)(ftell(mem) - start), real);
  } while (next());
  fflush(real);
  _exit(ferror(real) ? 2 : 0);
}
