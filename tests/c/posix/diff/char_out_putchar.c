/* The same text with putchar: equivalent. */
#include <stdio.h>

int main(void) {
  int x;
  if (scanf("%d", &x) != 1)
    return 1;
  printf("sum ");
  putchar(x % 64 + 32);
  putchar('\n');
  return 0;
}
