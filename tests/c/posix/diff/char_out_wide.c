/* %c prints the low byte only: 288 is 256 + ' ', equivalent. */
#include <stdio.h>

int main(void) {
  int x;
  if (scanf("%d", &x) != 1)
    return 1;
  printf("sum %c\n", x % 64 + 288);
  return 0;
}
