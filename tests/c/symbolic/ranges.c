/* klee_range and klee_int inputs, replayed by the native runtime. */
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 5, "x");
  int y = klee_int("y");
  int z = klee_range(3, 4, "z");
  if (y > x * z) return 1;
  return 0;
}
