/* A read of freed memory on one path.
 *
 * Paths: x == 1 reads the freed block (ptr error), or not (exit).
 * expect: exit=1 ptr=1
 */
#include <klee/klee.h>
#include <stdlib.h>

int main(void) {
  int x = klee_int("x");
  int *p = malloc(sizeof *p);
  *p = 7;
  free(p);
  if (x == 1)
    return *p; // ERROR: ptr
  return 0;
}
