/* Division and remainder by zero, and INT_MIN / -1.
 *
 * Paths: op 0 divides by d: d == 0 is an error (1), else exit (1); op 1
 * takes the remainder: d == 0 (1 error), else exit (1); other ops divide
 * INT_MIN by d: d == 0 is an error, then d == -1 is another (the dividend
 * of the first two is not INT_MIN, so they have no such path), else exit
 * (1). 4 div errors, 3 exits.
 * expect: exit=3 div=4
 */
#include <klee/klee.h>
#include <limits.h>
#include <stdio.h>

int main(void) {
  unsigned char op;
  klee_make_symbolic(&op, sizeof op, "op");
  int d = klee_int("d");
  int r;
  if (op == 0)
    r = 100 / d; // ERROR: div
  else if (op == 1)
    r = 100 % d; // ERROR: div
  else
    r = INT_MIN / d; // ERROR: div
  printf("%d\n", r);
  return 0;
}
