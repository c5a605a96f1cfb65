/* abort() and klee_abort().
 *
 * Paths: x == 9 aborts, x == 10 calls klee_abort (2 abort errors), other
 * values exit.
 * expect: exit=1 abort=2
 */
#include <klee/klee.h>
#include <stdlib.h>

int main(void) {
  int x = klee_int("x");
  if (x == 9)
    abort(); // ERROR: abort
  if (x == 10)
    klee_abort(); // ERROR: abort
  return 0;
}
