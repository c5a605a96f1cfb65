/* A write and a read at symbolic indices of one array.
 *
 * Paths: the read hits the written cell (i == j) or not: 2. Neither
 * access forks: both indices are in bounds (masked to 0..3).
 * expect: exit=2
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  int a[4] = {1, 2, 3, 4};
  unsigned i = x & 3, j = (x >> 2) & 3;
  a[i] = 7;
  if (a[j] == 7)
    puts("same cell");
  else
    puts("another cell");
  return a[j];
}
