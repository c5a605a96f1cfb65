/* A failing assert() (glibc's macro, which calls __assert_fail).
 *
 * Paths: x == 42 fails the assertion (assert error), or not (exit).
 * expect: exit=1 assert=1
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  assert(x != 42); // ERROR: assert
  return 0;
}
