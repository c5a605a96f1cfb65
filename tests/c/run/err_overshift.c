/* A shift by the width or more is an error with --check-overshift.
 *
 * Paths: n >= 32 (overshift error) or not (exit); the value shifted is
 * symbolic and printed.
 * expect: exit=1 overshift=1
 * flags: --check-overshift
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char n;
  klee_make_symbolic(&n, sizeof n, "n");
  unsigned v = 1u << n; // ERROR: overshift
  printf("%u\n", v);
  return 0;
}
