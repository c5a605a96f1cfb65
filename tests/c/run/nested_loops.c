/* Nested loops with symbolic bounds a, b in [0, 3), from one input byte.
 *
 * Paths: a == 0 never enters the inner loop, whatever b (1 path); for
 * a == 1 and a == 2 the first inner loop forks on b (3 paths each) and
 * later rounds repeat decisions already made: 1 + 3 + 3 = 7.
 * expect: exit=7
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  unsigned a = x % 3, b = (x / 3) % 3;
  int count = 0;
  for (unsigned i = 0; i < a; i++)
    for (unsigned j = 0; j < b; j++)
      count++;
  printf("%d\n", count);
  return count;
}
