/* --sym-args: between 0 and 2 arguments of 1 byte each.
 * argv: -- --sym-args 0 2 1
 * expect: exit=5
 * n_args is 0 (1 path), 1 or 2; with an argument, its byte is '-' or not
 * (2 paths each).
 */
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == '-')
    return 1;
  printf("%d arguments\n", argc - 1);
  return 0;
}
