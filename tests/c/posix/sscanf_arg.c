/* sscanf over a symbolic argument of 1 byte: glibc's %d, byte by byte.
 * argv: -- --sym-arg 1
 * expect: exit=6
 * The byte is NUL (sscanf sees end of input: EOF), white space (skipped, then
 * end of input: EOF), a sign (no digits: 0), a digit (1) or else (0): 5
 * paths, of which the digit splits at x > 5: 6.
 */
#include <stdio.h>

int main(int argc, char **argv) {
  int x;
  int r = sscanf(argv[1], "%d", &x);
  if (r != 1) {
    printf("r = %d\n", r);
    return 1;
  }
  if (x > 5)
    return 2;
  return argc;
}
