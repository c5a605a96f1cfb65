/* scanf("%d") over 1 symbolic stdin byte, in the byte-exact model.
 * flags: --sym-stdin 1 --stdin-model bytes
 * expect: exit=5
 * The byte is white space (skipped, then end of input: EOF), a sign (no
 * digits: 0), a digit (1) or else (0): 4 paths, of which the digit splits at
 * x > 5: 5.
 */
#include <stdio.h>

int main(void) {
  int x;
  int r = scanf("%d", &x);
  if (r != 1) {
    printf("r = %d\n", r);
    return 1;
  }
  if (x > 5) {
    printf("big %d\n", x);
    return 2;
  }
  return 0;
}
