/* A pointer that selects one of two heap blocks, then a write at a symbolic
 * index into it, and output of the symbolic values.
 *
 * Paths: block a (4 ints): every index 0..3 is in bounds (1 path); block b
 * (2 ints): indices 0 and 1 are in bounds (1 path), 2 and 3 are past its
 * end (1 ptr error).
 * expect: exit=2 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int *a = calloc(4, sizeof *a), *b = calloc(2, sizeof *b);
  unsigned char k;
  klee_make_symbolic(&k, sizeof k, "k");
  int *p = (k & 1) ? a : b;
  p[(k >> 1) & 3] = 5; // ERROR: ptr
  printf("%d %d %d\n", a[0], a[3], b[1]);
  free(a);
  free(b);
  return 0;
}
