/* fgets a line of 4 symbolic stdin bytes: a comment or code.
 * flags: --sym-stdin 4
 * expect: exit=9
 * fgets stops after a '\n' at byte 0, 1, 2 or 3, or at EOF after 4 bytes
 * (5 paths). A line that is only "\n" cannot start with '#' (1 path); the 4
 * others start with '#' or not (8 paths).
 */
#include <stdio.h>

int main(void) {
  char buf[16];
  if (!fgets(buf, sizeof buf, stdin))
    return 1;
  if (buf[0] == '#') {
    puts("comment");
    return 2;
  }
  puts("code");
  return 0;
}
