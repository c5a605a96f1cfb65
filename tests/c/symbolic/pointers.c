/* A symbolic pointer into several objects: the engine forks one path per
 * object it may point into.
 *
 * Paths: each klee_assume's && branches on its first operand at -O0, and
 * a negative which or idx makes the argument 0: 2 silent paths. The
 * pointer then resolves to a, b or pts: 3 exits.
 * expect: exit=3 silent=2
 */
#include <klee/klee.h>
#include <stdio.h>

struct point { int x, y; };

int a[3] = {1, 2, 3};
int b[2] = {40, 50};
struct point pts[2] = {{7, 8}, {9, 10}};

int main(void) {
  int which, idx;
  klee_make_symbolic(&which, sizeof which, "which");
  klee_make_symbolic(&idx, sizeof idx, "idx");
  klee_assume(which >= 0 && which < 3);
  klee_assume(idx >= 0 && idx < 2);
  int *tables[3] = {a, b, &pts[0].y};
  int *p = tables[which] + idx;
  *p += 100;
  printf("%d %d %d %d %d %d %d\n", a[0], a[1], b[0], b[1], pts[0].y, pts[1].x, *p);
  return 0;
}
