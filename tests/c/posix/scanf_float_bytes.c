/* scanf("%lf") over 1 symbolic stdin byte, in the byte-exact model: glibc's
 * gathering (vfscanf), then the model's strtod.
 * flags: --sym-stdin 1 --stdin-model bytes
 * expect: exit=8
 * The byte is white space (skipped, then end of input: EOF); a sign (the end
 * follows it: 0); 'n' or 'N' (the rest of "nan" is missing: 0); 'i' or 'I'
 * (likewise "inf": 0); '0' (glibc's hex check reads on, to the end: 1, 0.0);
 * another digit (1, its value: one path, which the program does not branch
 * on); '.' (no digit: strtod converts nothing, 0); anything else (pushed
 * back, nothing gathered: 0). 8 paths, each printing what glibc does.
 */
#include <stdio.h>
#include <string.h>

int main(void) {
  double d = -7;
  unsigned long long b;
  int n = -1, r = scanf("%lf%n", &d, &n);
  memcpy(&b, &d, sizeof b);
  printf("%d %d %llx %d\n", r, n, b, getchar());
  return 0;
}
