/* A write into a string literal on one path.
 *
 * Paths: x == 5 writes into the literal (readonly error), or not (exit).
 * expect: exit=1 readonly=1
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  char *s = "abc";
  if (x == 5)
    s[0] = 'x'; // ERROR: readonly
  return s[1];
}
