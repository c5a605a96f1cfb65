/* scanf of mixed conversions in the token model: %d, %s, %c, %x.
 * flags: --sym-stdin 6
 * expect: exit=5
 * Tokens: %d a number, %3s a word of 1-3 bytes, %x a number; %c reads the
 * raw separator after the word, which must be white space. Paths: n < 0 (1);
 * else the word starts with 'q' (1); else the separator is '\n' (1) or other
 * white space (1)... and h == 255 splits the last (1 more).
 */
#include <stdio.h>

int main(void) {
  int n;
  unsigned h;
  char w[4], sep;
  if (scanf("%d %3s%c%x", &n, w, &sep, &h) != 4)
    return 9;
  if (n < 0)
    return 1;
  if (w[0] == 'q')
    return 2;
  if (sep == '\n')
    return 3;
  if (h == 255)
    printf("ff after %s\n", w);
  return 0;
}
