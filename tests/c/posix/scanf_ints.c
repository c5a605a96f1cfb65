/* scanf("%d %d"): the sign of the sum of two numbers from stdin.
 * flags: --sym-stdin 4
 * expect: exit=3
 * Token mode: each %d is one typed input (the 4 stdin bytes leave room for
 * both tokens' separators), so scanf never fails; then the sum is negative,
 * zero or positive (3 paths). The exit status is a select: no fork.
 */
#include <stdio.h>

int main(void) {
  int a, b;
  if (scanf("%d %d", &a, &b) != 2)
    return 1;
  long s = (long)a + b;
  if (s < 0)
    printf("negative %ld\n", s);
  else if (s == 0)
    printf("zero\n");
  else
    printf("positive %d %d\n", a, b);
  return a > b ? 2 : 0;
}
