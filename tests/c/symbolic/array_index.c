/* A symbolic index into an array: in-bounds reads are symbolic, and an
 * out-of-bounds path is found.
 *
 * Paths: i in 5..6 reads past the end (ptr error); in bounds, the value
 * read is above 25 (i in 2..4) or not (i in 0..1).
 * expect: exit=2 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>

int table[5] = {10, 20, 30, 40, 50};

int main(void) {
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 7);
  int v = table[i]; // ERROR: ptr
  if (v > 25)
    printf("big %d\n", v);
  else
    printf("small %d\n", v);
  return 0;
}
