/* A symbolic double printed to stdout stays structured, as its 64 bits:
 * printing never forks and never concretises it, and each test's stdout is
 * glibc's text of the double the test holds. The branches are over the
 * bits as an integer (symbolic floating-point comparisons are not exact
 * yet), so each path's double lies in one class of values.
 *
 * Paths: sign bit set; NaN (magnitude above infinity's); at least 1.0;
 * below 1.0: 4.
 * expect: exit=4
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  unsigned long long b;
  klee_make_symbolic(&b, sizeof b, "b");
  double x;
  memcpy(&x, &b, sizeof x);
  if (b >> 63)
    printf("%.2f|%e|%g|%a|%+08.3f\n", x, x, x, x, x);
  else if (b > 0x7ff0000000000000ULL)
    printf("%f %F %10.3e|\n", x, x, x);
  else if (b >= 0x3ff0000000000000ULL)
    printf("%.3e %10.4f %-#12g| %.20f %A\n", x, x, x, x, x);
  else
    printf("%.17g %a %G %.0f\n", x, x, x, x);
  return 0;
}
