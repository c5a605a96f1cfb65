/* atexit handlers run when the program exits, last registered first, both
 * after exit() and after a return from main; _exit runs none. (coreutils
 * registers close_stdout so in every main.)
 * flags: --sym-stdin 1
 * expect: exit=3
 * The byte is 'x' (exit(4) from inside a function: both handlers print),
 * 'q' (_exit(5): no handler prints), or anything else (return 0 from main:
 * both handlers print): 3 paths, each replayed natively with its stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void first(void) { puts("first registered, last run"); }
static void second(void) { printf("second registered, first run\n"); }

static void leave(int c) {
  if (c == 'x')
    exit(4);
  if (c == 'q') {
    fflush(stdout);
    _exit(5);
  }
}

int main(void) {
  atexit(first);
  atexit(second);
  puts("main");
  leave(getchar());
  return 0;
}
