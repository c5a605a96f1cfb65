/* A call to a function that has no body and no model (getppid) ends its
 * path with an `external` error; --external-calls all would call it.
 *
 * Paths: x == 12 calls it (external error), or not (exit).
 * expect: exit=1 external=1
 */
#include <klee/klee.h>
#include <unistd.h>

int main(void) {
  int x = klee_int("x");
  if (x == 12)
    return getppid() > 0; // ERROR: external
  return 0;
}
