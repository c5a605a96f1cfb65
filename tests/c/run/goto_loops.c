/* A loop with continue, break and goto over the bits of one byte.
 *
 * Paths: bits are tested from the lowest; a clear bit continues, a set
 * bit 5 jumps out (goto), and the third set bit stops the loop (break). A
 * path is the sequence of bits tested until it stops:
 *   goto at bit 5: at most 2 of bits 0..4 set: 1 + 5 + 10 = 16;
 *   break at the third set bit i, 2 set before it (bit 5 clear): i = 2, 3,
 *   4: C(2,2) + C(3,2) + C(4,2) = 10; i = 6: C(5,2) = 10; i = 7: C(6,2) = 15;
 *   the loop runs out: bit 5 clear, at most 2 of the 7 others set:
 *   1 + 7 + 21 = 29.
 * 16 + 35 + 29 = 80.
 * expect: exit=80
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  int seen = 0, i;
  for (i = 0; i < 8; i++) {
    if (!(x >> i & 1))
      continue;
    if (i == 5)
      goto found_five;
    if (++seen == 3)
      break;
  }
  printf("stopped at %d after %d\n", i, seen);
  return 0;
found_five:
  printf("bit five after %d\n", seen);
  return 5;
}
