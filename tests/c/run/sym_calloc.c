/* calloc(n, sizeof *a) with n an input byte: zeroed, of symbolic size.
 * Reading a[n - 1] is in bounds for every n >= 1; n == 0 is ASan's one-byte
 * allocation for a request of 0, where a 4-byte read overflows.
 *
 * Paths: n == 0: the read of a[-1] is out of bounds (ptr); n = 1..4: the
 * loop counts the zero elements, once per n (4 exits). The read of
 * a[n - 1] does not fork.
 * expect: exit=4 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n <= 4);
  int *a = calloc(n, sizeof *a);
  int last = a[n - 1]; // ERROR: ptr
  int zeros = 0;
  for (int i = 0; i < n; i++)
    zeros += a[i] == 0;
  printf("%d %d\n", zeros, last);
  free(a);
  return 0;
}
