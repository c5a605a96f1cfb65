/* exit() with a symbolic status: one path, whose status tests.csv gives
 * under the test's input, and a path that exits from a nested call.
 *
 * Paths: x & 4 set calls exit() in leave() (1), else main returns x & 3
 * (1): 2.
 * expect: exit=2
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

static void leave(int status) {
  puts("leaving");
  exit(status);
}

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (x & 4)
    leave(x);
  return x & 3;
}
