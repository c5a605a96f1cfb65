/* An instruction psychic does not run (inline assembly) ends only the path
 * that reaches it.
 *
 * Paths: x == 5 reaches the asm (unhandled error), or not (exit).
 * expect: exit=1 unhandled=1
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  if (x == 5)
    __asm__ volatile("nop"); // ERROR: unhandled
  return 0;
}
