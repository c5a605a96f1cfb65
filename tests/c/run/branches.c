/* Nested branches and && chains on one input byte.
 *
 * Paths, by the branch decisions each range of c makes:
 *   c < '0'            fails the digit test at once, then both letter tests: other
 *   '0' <= c <= '9'    digit
 *   ':' .. '@'         fails digit (second test), lower (first), upper (first): other
 *   'A' .. 'Z'         upper
 *   '[' .. '`'         fails upper at its second test: other
 *   'a' .. 'z'         lower
 *   c > 'z'            fails lower (second test), upper (second test): other
 * expect: exit=7
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, sizeof c, "c");
  if (c >= '0' && c <= '9')
    puts("digit");
  else if (c >= 'a' && c <= 'z')
    puts("lower");
  else if (c >= 'A' && c <= 'Z')
    puts("upper");
  else
    puts("other");
  return 0;
}
