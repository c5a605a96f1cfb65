/* An argv program: a concrete word and a symbolic one.
 * argv: -- -n --sym-arg 2
 * expect: exit=5
 * argv[1] is the concrete "-n"; argv[2] is symbolic, up to 2 bytes. Paths:
 * argv[2] empty (1); its first byte 'x' (1); another first byte, with a
 * second byte below '0', a digit, or above '9' (3).
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 3 || strcmp(argv[1], "-n") != 0)
    return 9;
  const char *w = argv[2];
  if (w[0] == 0)
    return 1;
  if (w[0] == 'x')
    return 2;
  if (w[1] >= '0' && w[1] <= '9')
    printf("digit %c\n", w[1]);
  return 3;
}
