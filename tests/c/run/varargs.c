/* A variadic function of the program reads symbolic arguments with va_arg.
 *
 * Paths: the sum of three symbolic bytes is above 300 or not: 2.
 * expect: exit=2
 */
#include <klee/klee.h>
#include <stdarg.h>
#include <stdio.h>

static int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  va_end(ap);
  return s;
}

int main(void) {
  unsigned char v[3];
  klee_make_symbolic(v, sizeof v, "v");
  int s = sum(3, v[0], v[1], v[2]);
  if (s > 300)
    printf("large %d\n", s);
  else
    printf("small %d\n", s);
  return 0;
}
