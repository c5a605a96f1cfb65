/* A grade from a score read with scanf: the original. */
#include <stdio.h>

int main(void) {
  int score;
  if (scanf("%d", &score) != 1) {
    printf("no score\n");
    return 1;
  }
  if (score >= 90)
    printf("A\n");
  else if (score >= 80)
    printf("B\n");
  else
    printf("C\n");
  return 0;
}
