/* A loop that stops at the first zero byte of a symbolic buffer.
 *
 * Paths: the first zero is at index 0, 1, 2 or 3, or there is none: 5.
 * expect: exit=5
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char buf[4];
  klee_make_symbolic(buf, sizeof buf, "buf");
  int i;
  for (i = 0; i < 4; i++)
    if (buf[i] == 0)
      break;
  printf("first zero at %d\n", i);
  return i;
}
