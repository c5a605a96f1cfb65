/* Recursion with a symbolic depth: factorial of n < 6.
 *
 * Paths: fact(n) tests n <= 1 once per call, so n = 0 and n = 1 share a
 * path (the first call stops), and n = 2..5 each recurse to their own depth:
 * 1 + 4 = 5.
 * expect: exit=5
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

static int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n < 6);
  int f = fact(n);
  printf("%d! = %d\n", n, f);
  return f > 100;
}
