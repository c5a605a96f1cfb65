/* sscanf's %[a-c] over a 1-byte argument, and fscanf of %x from file A.
 * flags: --sym-files 1 1
 * argv: -- --sym-arg 1
 * expect: exit=9
 * sscanf: the byte is NUL (end of input: EOF), in a-c (1) or not (0): 3
 * paths. fscanf("%x") over A's one byte, after the %[ match only: white
 * space (then end of input: EOF), a sign (no digits: 0), '0' (the start of
 * a 0x prefix: 1), another hex digit (1; strtoull's digit value splits it
 * into 0-9, a-f and A-F) or else (0): 7 paths; 2 + 7 = 9.
 */
#include <stdio.h>

int main(int argc, char **argv) {
  char set[4];
  int r = sscanf(argv[1], "%[a-c]", set);
  if (r != 1) {
    printf("sscanf %d\n", r);
    return 1;
  }
  FILE *f = fopen("A", "r");
  unsigned x;
  r = fscanf(f, "%x", &x);
  printf("fscanf %d\n", r);
  return argc + r;
}
