/* atoi (the model's strtol) of a one-character symbolic string.
 *
 * Paths through the model's convert(): a leading space (' ' or '\t'..'\r')
 * is skipped, leaving no digits (2 paths); c < '\t' is no sign and no
 * digit (1); otherwise '-' and '+' are signs without digits (2), and an
 * other character is classified by digit_value's three range tests: below
 * '0', a digit, ':'..'@', an upper-case letter, '['..'`', a lower-case
 * letter, above 'z' (7): 12. The digit path then forks on v > 5 in main: 13.
 * expect: exit=13
 * enumerate: 1 model
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char s[2];
  klee_make_symbolic(s, 1, "s");
  s[1] = 0;
  int v = atoi(s);
  if (v > 5)
    printf("big %d\n", v);
  else
    printf("small %d\n", v);
  return 0;
}
