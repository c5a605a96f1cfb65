/* Bit-fields of a union over one symbolic byte.
 *
 * Paths: three independent tests of disjoint bit-fields: 2^3 = 8.
 * expect: exit=8
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

union byte {
  unsigned char raw;
  struct {
    unsigned char lo : 3, mid : 2, hi : 3;
  } f;
};

int main(void) {
  union byte v;
  klee_make_symbolic(&v.raw, sizeof v.raw, "byte");
  int r = 0;
  if (v.f.lo == 5)
    r |= 1;
  if (v.f.mid == 2)
    r |= 2;
  if (v.f.hi > 5)
    r |= 4;
  printf("%d\n", r);
  return r;
}
