/* An argv program: print argument 1 unless it starts with "-". */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  if (argv[1][0] == '-')
    return 0;
  printf("%s\n", argv[1]);
  return 0;
}
