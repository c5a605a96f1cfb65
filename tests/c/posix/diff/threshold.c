/* A pass mark read with scanf("%lf"): the original passes above 2.5. */
#include <stdio.h>

int main(void) {
  double x;
  if (scanf("%lf", &x) != 1) {
    printf("no mark\n");
    return 1;
  }
  if (x > 2.5)
    printf("pass\n");
  else
    printf("fail\n");
  return 0;
}
