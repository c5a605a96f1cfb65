/* Unbounded recursion on one path exhausts the stack.
 *
 * Paths: x == 1 recurses without end (exec error: stack overflow), or not.
 * expect: exit=1 exec=1
 */
#include <klee/klee.h>

static int down(int n) {
  volatile char pad[64];
  pad[0] = (char)n;
  return down(n + 1) + pad[0]; // ERROR: exec
}

int main(void) {
  int x = klee_int("x");
  if (x == 1)
    return down(0);
  return 0;
}
