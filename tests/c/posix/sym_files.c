/* A file opened by name: --sym-files 1 2 makes file A of 2 symbolic bytes.
 * flags: --sym-files 1 2
 * argv: -- A
 * expect: exit=3
 * Opening a file that does not exist fails (concretely: no fork); fopen of
 * argv[1] finds A; fgetc reads its 2 bytes, then EOF. Paths: the first byte
 * is 'k' (1); else the second is 'k' (1) or not (1).
 */
#include <stdio.h>

int main(int argc, char **argv) {
  FILE *none = fopen("missing.txt", "r");
  if (none)
    return 9;
  FILE *f = fopen(argv[1], "r");
  if (!f)
    return 8;
  int a = fgetc(f), b = fgetc(f), c = fgetc(f);
  fclose(f);
  if (c != EOF)
    return 7;
  if (a == 'k')
    return 1;
  if (b == 'k')
    return 2;
  printf("neither\n");
  return argc;
}
