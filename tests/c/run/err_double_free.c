/* A double free on one path.
 *
 * Paths: x == 2 frees the block again (free error), or not (exit).
 * expect: exit=1 free=1
 */
#include <klee/klee.h>
#include <stdlib.h>

int main(void) {
  int x = klee_int("x");
  char *p = malloc(8);
  free(p);
  if (x == 2)
    free(p); // ERROR: free
  return 0;
}
