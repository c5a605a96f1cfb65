/* A symbolic index into an array: in-bounds reads are symbolic, and an
 * out-of-bounds path is found. */
#include <klee/klee.h>
#include <stdio.h>

int table[5] = {10, 20, 30, 40, 50};

int main(void) {
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 7);
  int v = table[i];
  if (v > 25)
    printf("big %d\n", v);
  else
    printf("small %d\n", v);
  return 0;
}
