/* Doubles printed by printf stay symbolic and compare by value, as a
 * hand-written meta program. Revisions:
 * 0: prints x with %.2f;
 * 1: the same text another way (`%.2lf`, and the newline by a second
 *    printf): no test can tell it from 0;
 * 2: prints the constant 0.5 instead when n == 7: differs from 0 and 1
 *    exactly where n == 7 and x does not print "0.50";
 * 3: prints another input, y, instead when n == 3: differs where n == 3
 *    and x and y print differently.
 * x and y lie in [1, 2) (assumed on their bits), where most pairs of
 * distinct doubles print alike: a test must find two that do not. */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>
const int __psychic_revisions = 4;
int main(void) {
  double x, y;
  int n;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&y, sizeof y, "y");
  klee_make_symbolic(&n, sizeof n, "n");
  unsigned long long xb, yb;
  memcpy(&xb, &x, sizeof x);
  memcpy(&yb, &y, sizeof y);
  klee_assume(xb >= 0x3ff0000000000000ULL && xb < 0x3ff028f5c28f5c29ULL);
  klee_assume(yb >= 0x3ff0000000000000ULL && yb < 0x3ff028f5c28f5c29ULL);
  int r = __klee_meta(1);
  if (r == 1) {
    printf("%.2lf", x);
    printf("\n");
  } else if (r == 2 && n == 7) {
    printf("%.2f\n", 0.5);
  } else if (r == 3 && n == 3) {
    printf("%.2f\n", y);
  } else {
    printf("%.2f\n", x);
  }
  return 0;
}
