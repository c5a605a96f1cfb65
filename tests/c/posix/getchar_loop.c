/* A getchar loop over 3 symbolic stdin bytes: count the 'a's of a line.
 * flags: --sym-stdin 3
 * expect: exit=15
 * Each byte read is '\n' (the loop ends), 'a' or another byte; after 3 bytes
 * getchar returns EOF. Paths P(k) over k bytes left: P(0) = 1,
 * P(k) = 1 + 2 P(k-1): P(3) = 15.
 */
#include <stdio.h>

int main(void) {
  int c, n = 0;
  while ((c = getchar()) != EOF) {
    if (c == '\n')
      break;
    if (c == 'a')
      n++;
  }
  printf("%d a\n", n);
  return n;
}
