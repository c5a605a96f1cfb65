/* A write at a symbolic offset: the object becomes an array term, and a
 * later read at a constant offset depends on the index.
 *
 * Paths: a[2] == 7 exactly when i == 2: 2 exits.
 * expect: exit=2
 */
#include <klee/klee.h>

int main(void) {
  int a[4] = {0, 0, 0, 0};
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 4);
  a[i] = 7;
  a[3] += 1;
  if (a[2] == 7) return 1;
  return a[3];
}
