/* A loop with a symbolic bound: one path per trip count, n = 0..10.
 * expect: exit=11
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n <= 10);
  int sum = 0;
  for (unsigned i = 0; i < n; i++) sum += i;
  printf("%d\n", sum);
  return sum > 20;
}
