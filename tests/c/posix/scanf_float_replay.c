/* Float conversions over symbolic stdin in the byte model, for
 * tests/posix.rs: every test replays natively to the recorded output (glibc
 * gathers and converts the same text to the same bits). */
#include <stdio.h>
#include <string.h>

int main(void) {
  float f = -7;
  double d = -7;
  unsigned fb;
  unsigned long long db;
  int n = -1, r = scanf("%f%n", &f, &n), r2 = scanf("%3lg", &d);
  memcpy(&fb, &f, sizeof fb);
  memcpy(&db, &d, sizeof db);
  printf("%d %d %x %d %llx %d\n", r, n, fb, r2, db, getchar());
  return 0;
}
