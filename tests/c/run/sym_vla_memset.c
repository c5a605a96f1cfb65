/* sizeof an input-sized array: memset and memcpy over it run the libc
 * model's byte loop, which forks per feasible length (as klee-libc's does),
 * instead of fixing the size.
 *
 * Paths: n = 1..4: memset forks once per size (4 paths); on each path the
 * size is fixed, so memcpy does not fork. 4 exits.
 * expect: exit=4
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n >= 1);
  klee_assume(n <= 4);
  int a[n], b[n];
  memset(a, 0, sizeof a);
  a[n - 1] = 7;
  memcpy(b, a, sizeof b);
  printf("%d %d\n", b[0], b[n - 1]);
  return 0;
}
