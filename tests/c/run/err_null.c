/* A null dereference on one path.
 *
 * Paths: x == 3 reads through the null pointer (ptr error), or not (exit).
 * expect: exit=1 ptr=1
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  int *p = 0;
  if (x == 3)
    return *p; // ERROR: ptr
  return 0;
}
