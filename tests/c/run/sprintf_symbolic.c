/* sprintf of a symbolic value into memory is exact: the text's length
 * depends on the input, so the path forks once per length, and the bytes
 * written are the digits as expressions that later code reads back.
 *
 * Paths: "%d" of a signed char: non-negative with 1, 2 or 3 digits, and
 * negative with 1, 2 or 3 digits: 6. buf[1] == '-' and strlen() are then
 * decided on each (the sign and the length are fixed).
 * expect: exit=6
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  signed char x;
  klee_make_symbolic(&x, sizeof x, "x");
  char buf[16];
  int n = sprintf(buf, "[%d]", x);
  if (buf[1] == '-')
    printf("negative %s %d\n", buf, n);
  else
    printf("non-negative %s %zu\n", buf, strlen(buf));
  return n;
}
