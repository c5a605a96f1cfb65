/* strlen (the libc model's byte loop) of a symbolic string of up to 3
 * characters.
 *
 * Paths: the loop forks at each symbolic byte being 0 or not: lengths 0,
 * 1, 2 and 3 (buf[3] is 0): 4.
 * expect: exit=4
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char buf[4];
  klee_make_symbolic(buf, 3, "buf");
  buf[3] = 0;
  size_t n = strlen(buf);
  printf("%zu\n", n);
  return (int)n;
}
