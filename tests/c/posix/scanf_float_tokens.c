/* scanf of a float and a double in the token model: each token is the bits
 * of its value, constrained to those glibc reads back from the rendered text.
 * flags: --sym-stdin 3
 * expect: exit=5
 * The program tests the bits with integer operations only (so no float
 * arithmetic concretises them): the float is negative (1); else the double
 * is a NaN (1: only the quiet "nan" of either sign can be a token) or an
 * infinity (1); else the double is negative zero (1) or anything else (1).
 * Each test's native run prints the bits glibc read from the rendered text,
 * which must be the bits the engine had.
 */
#include <stdio.h>
#include <string.h>

int main(void) {
  float f;
  double d;
  unsigned fb;
  unsigned long long db;
  if (scanf("%f%lf", &f, &d) != 2)
    return 9;
  memcpy(&fb, &f, sizeof fb);
  memcpy(&db, &d, sizeof db);
  if (fb >> 31)
    return 1;
  if ((db >> 52 & 0x7ff) == 0x7ff) {
    printf("special %llx\n", db);
    if (db << 12)
      return 2;
    return 3;
  }
  if (db == 1ull << 63)
    return 4;
  printf("%x %llx\n", fb, db);
  return 0;
}
