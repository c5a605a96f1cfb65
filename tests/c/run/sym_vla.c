/* A variable-length array sized by an input byte. The size stays symbolic,
 * so the fill loop runs once per feasible size, and an index past the size
 * is an out-of-bounds error (natively ASan's dynamic-stack-buffer-overflow;
 * k < 8 keeps every such index inside ASan's red zone).
 *
 * Paths: n = 1..6, each fills a[0..n) and reads a[k]: k < n exits (6 paths,
 * one per n; the read does not fork), k in n..7 is a ptr error (6 paths).
 * Concretising n would leave one size: 1 exit and 1 error.
 * expect: exit=6 ptr=6
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char n, k;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_make_symbolic(&k, sizeof k, "k");
  klee_assume(n >= 1);
  klee_assume(n <= 6);
  klee_assume(k < 8);
  int a[n];
  for (int i = 0; i < n; i++)
    a[i] = i * i;
  printf("%d\n", a[k]); // ERROR: ptr
  return 0;
}
