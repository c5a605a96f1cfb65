/* ctype classification of a symbolic character: glibc's macros read the
 * model's class table (__ctype_b_loc) at a symbolic index, which does not
 * fork; only the tests of the results do, and toupper (a call at -O0, to
 * the model's range test).
 *
 * Paths: digit, space, none of them (3), and a letter, which toupper finds
 * lower case or not (2): 5.
 * expect: exit=5
 * enumerate: 1 model
 */
#include <ctype.h>
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, sizeof c, "c");
  if (isdigit(c))
    puts("digit");
  else if (isalpha(c))
    printf("letter %c\n", toupper(c));
  else if (isspace(c))
    puts("space");
  else
    puts("other");
  return 0;
}
