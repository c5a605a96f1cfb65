/* strcmp of a symbolic two-character string with "ab", then the sign of
 * the result.
 *
 * Paths: the model's loop `while (*x && *x == *y)` leaves at: s[0] == 0
 * (result -'a': "less"); s[0] != 'a' (result s[0] - 'a', which is less or
 * greater: 2 paths); s[1] == 0 (-'b': "less"); s[1] != 'b' (2 paths);
 * "ab" itself ("equal"): 1 + 2 + 1 + 2 + 1 = 7.
 * expect: exit=7
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char s[3];
  klee_make_symbolic(s, 2, "s");
  s[2] = 0;
  int r = strcmp(s, "ab");
  if (r == 0)
    puts("equal");
  else if (r < 0)
    puts("less");
  else
    puts("greater");
  return 0;
}
