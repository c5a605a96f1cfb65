/* A heap array whose element count is an input byte: malloc(n * sizeof *a)
 * keeps the size symbolic. The fill loop runs once per feasible size, and a
 * write past the size is an out-of-bounds error (ASan's
 * heap-buffer-overflow; k < n + 4 keeps it inside ASan's least heap red zone,
 * 16 bytes: farther out the engine adds an `undefined` approximation).
 *
 * Paths: n = 1..5, each fills a[0..n) and writes a[k]: k < n exits (5
 * paths; the write does not fork), k in n..n+3 is a ptr error (5 paths).
 * expect: exit=5 ptr=5
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  unsigned char n, k;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_make_symbolic(&k, sizeof k, "k");
  klee_assume(n >= 1);
  klee_assume(n <= 5);
  klee_assume(k < n + 4);
  int *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = i + 1;
  a[k] = 0; // ERROR: ptr
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum += a[i];
  printf("%d\n", sum);
  free(a);
  return 0;
}
