/* sprintf of a symbolic string and of a value whose zero prints
 * differently, into memory that is then read back.
 *
 * Paths: "%s" of a string of up to 2 symbolic characters ends at the first
 * 0 byte: lengths 0, 1 or 2 (3); "%.1s" reads at most the first byte, whose
 * zero-ness is already decided. "%#x" of b & 1 prints "0" or "0x1": one
 * digit either way, but zero has no prefix (2). 3 * 2 = 6; strlen of the
 * result is decided on each.
 * expect: exit=6
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char name[3];
  unsigned char b;
  klee_make_symbolic(name, 2, "name");
  klee_make_symbolic(&b, sizeof b, "b");
  name[2] = 0;
  char buf[32];
  int n = sprintf(buf, "<%s|%.1s|%#x>", name, name, b & 1);
  printf("%s %d %zu\n", buf, n, strlen(buf));
  return 0;
}
