/* strtod over a symbolic argument of 1 byte: the model's grammar, byte by
 * byte, and its value.
 * argv: -- --sym-arg 1
 * expect: exit=11
 * The byte is ' ' or one of '\t'..'\r' (the model's isspace tests them
 * apart: 2 paths; skipped, then nothing converts), '-' or '+' (1 each:
 * nothing after the sign), 'i'/'I' or 'n'/'N' (1 each: "inf" and "nan" stop
 * at the NUL), '0' (1: the hex check reads the NUL, then the digit), another
 * digit (1: its value, which the program does not branch on), '.' (1: no
 * digit, nothing converts), or anything else, which isspace's range test
 * splits into below '\t' (NUL among them) and above '\r' (2). 11 paths;
 * natively each prints the same bits and length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  char *end;
  double d = strtod(argv[1], &end);
  unsigned long long b;
  memcpy(&b, &d, sizeof b);
  printf("%llx %d\n", b, (int)(end - argv[1]));
  return argc == 2 ? 0 : 1;
}
