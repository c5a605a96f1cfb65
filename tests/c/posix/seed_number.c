/* A number read byte by byte, one value of which has a line of its own: a
 * run seeded with its text follows it first (tests/posix.rs,
 * a_fuzz_text_seeds_a_byte_mode_run). */
#include <stdio.h>

int main(void) {
  int x;
  if (scanf("%d", &x) != 1)
    return 1;
  if (x == -73)
    puts("the seed's");
  else
    printf("%d\n", x > 0);
  return 0;
}
