/* An argv program: print argument 1 unless it is "-n". */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  if (strcmp(argv[1], "-n") == 0)
    return 0;
  printf("%s\n", argv[1]);
  return 0;
}
