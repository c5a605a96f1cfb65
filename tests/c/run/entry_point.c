/* A program without main, run from another entry point.
 *
 * Paths: x < 0 or not: 2.
 * expect: exit=2
 * flags: --entry-point start
 * native: -Dstart=main
 */
#include <klee/klee.h>
#include <stdio.h>

int start(void) {
  int x = klee_int("x");
  if (x < 0)
    puts("negative");
  else
    puts("non-negative");
  return 3;
}
