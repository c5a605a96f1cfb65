/* A two-dimensional array read at symbolic row and column, 0..3 each, of a
 * 3x3 array: row 3, and row 2 with column 3, lie past its end.
 *
 * Paths: the out-of-bounds read (1 ptr error); in bounds, the cell value
 * r*3+c is above 4 or not (2).
 * expect: exit=2 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>

int m[3][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}};

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  unsigned r = x & 3, c = (x >> 2) & 3;
  int v = m[r][c]; // ERROR: ptr
  if (v > 4)
    puts("high");
  else
    puts("low");
  return 0;
}
