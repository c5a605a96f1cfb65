/* scanf("%s") without a width in the token model, then getchar.
 * flags: --sym-stdin 3
 * expect: exit=8
 * The word is a token of 1 to 3 (= N) non-space bytes; copying it forks on
 * its length (3). Length 1: 'a' or not, then word[1] is the NUL (2 paths);
 * lengths 2 and 3: not 'a', 'a' then not 'b', "ab" (3 paths each, and "ab"
 * of length 3 goes on to print). getchar reads the separator after the
 * word, white space, which is printed as its code: no fork.
 */
#include <stdio.h>

int main(void) {
  char word[8];
  if (scanf("%s", word) != 1)
    return 9;
  int sep = getchar();
  if (word[0] == 'a' && word[1] == 'b' && word[2] == 0)
    return 1;
  printf("%s %d\n", word, sep);
  return 0;
}
