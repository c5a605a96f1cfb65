/* A write past the end of a stack array at a symbolic index.
 *
 * Paths: indices 0..3 are in bounds (one path, the store does not fork
 * further), 4..7 are past the end (one ptr error).
 * expect: exit=1 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char i;
  klee_make_symbolic(&i, sizeof i, "i");
  int a[4] = {0};
  a[i & 7] = 1; // ERROR: ptr
  printf("%d\n", a[0] + a[1] + a[2] + a[3]);
  return 0;
}
