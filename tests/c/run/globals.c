/* Global state changed by calls that depend on the input.
 *
 * Paths: bump() runs for each set bit of the low two bits of x: both bits
 * fork independently: 4. The counter is concrete on each path.
 * expect: exit=4
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

static int counter;
int total = 100;

static void bump(int by) {
  counter++;
  total += by;
}

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (x & 1)
    bump(1);
  if (x & 2)
    bump(10);
  printf("%d %d\n", counter, total);
  return counter;
}
