/* klee_range and klee_int inputs, replayed by the native runtime.
 *
 * Paths: klee_range constrains without forking (z is 3); y > x * z or not:
 * 2 exits.
 * expect: exit=2
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 5, "x");
  int y = klee_int("y");
  int z = klee_range(3, 4, "z");
  if (y > x * z) return 1;
  return 0;
}
