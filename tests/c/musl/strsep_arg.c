/* musl's strsep (the model has none) explored on a symbolic argument: its
 * paths are the model's strcspn forks, byte by byte.
 * argv: -- --sym-arg 2
 * expect: exit=7
 * The argument is 2 bytes and a NUL. Each byte up to the first NUL is NUL,
 * the separator ',' or another byte, and the string ends at the first NUL:
 * byte 0 NUL (1 path: one empty token); byte 0 ',' or another, then byte 1
 * NUL, ',' or another (2 x 3 paths). 1 + 6 = 7.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  char *rest = argv[1], *token;
  int n = 0;
  (void)argc;
  while ((token = strsep(&rest, ",")))
    printf("token %d: \"%s\"\n", n++, token);
  return n;
}
