/* qsort (the libc model's insertion sort) with a comparator callback, on
 * three symbolic values.
 *
 * Paths: only `cmp(...) > 0` in qsort forks (the comparator returns a
 * difference). Insertion sort of (a, b, c): a > b? then the inserted third
 * element moves 0, 1 or 2 places, and the second comparison depends on the
 * first outcome: every leaf of the comparison tree is a distinct order,
 * 3! = 6 paths.
 * expect: exit=6
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *x, const void *y) { return *(const unsigned char *)x - *(const unsigned char *)y; }

int main(void) {
  unsigned char v[3];
  klee_make_symbolic(v, sizeof v, "v");
  qsort(v, 3, 1, cmp);
  printf("%d %d %d\n", v[0], v[1], v[2]);
  return 0;
}
