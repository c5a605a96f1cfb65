/* Off by one: '!' for ' '. */
#include <stdio.h>

int main(void) {
  int x;
  if (scanf("%d", &x) != 1)
    return 1;
  printf("sum %c\n", x % 64 + '!');
  return 0;
}
