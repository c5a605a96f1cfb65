/* Short-circuit logic: (a > 10 && b < 2) || c == 3, with a, b and c
 * independent bit fields of one input byte.
 *
 * Paths: a <= 10, then c == 3 or not (2); a > 10 and b < 2 (1); a > 10 and
 * b >= 2, then c == 3 or not (2): 5.
 * expect: exit=5
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  unsigned a = x >> 4, b = x & 3, c = (x >> 2) & 3;
  if ((a > 10 && b < 2) || c == 3) {
    puts("yes");
    return 1;
  }
  puts("no");
  return 0;
}
