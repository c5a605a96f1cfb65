/* Floating point on concrete values is exact; a symbolic integer chooses
 * which computation runs.
 *
 * Paths: mode < 2 or not: 2.
 * expect: exit=2
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char mode;
  klee_make_symbolic(&mode, sizeof mode, "mode");
  double acc = 1.0;
  for (int i = 1; i <= 10; i++)
    acc = acc * 1.5 + 1.0 / i;
  float f = (float)acc;
  if (mode < 2)
    printf("%.6f %g %e\n", acc, (double)f, acc / 3.0);
  else
    printf("%d %.3f\n", (int)(acc * 100), acc - (long)acc);
  return 0;
}
