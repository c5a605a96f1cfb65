/* A symbolic index into a stack array, with another array beside it. KLEE
 * resolves such an address to every object it may fall into, so a far index
 * "reads" `b`; C does not allow it, and natively the address lands wherever
 * the binary's layout puts it. An address computed from `a` is in `a`, or
 * the access is out of bounds.
 *
 * Paths: indices 0..3 read `a` (one path: the read does not fork); indices
 * within ASan's redzone of `a` (-4..-1, 4..7) are one ptr error; farther ones
 * another, an `undefined` approximation, since natively ASan may not see them.
 * expect: exit=1 ptr=2
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  int i;
  klee_make_symbolic(&i, sizeof i, "i");
  int a[4] = {1, 2, 3, 4};
  int b[4] = {5, 6, 7, 8};
  printf("%d %d\n", a[i], b[0]); // ERROR: ptr
  return 0;
}
