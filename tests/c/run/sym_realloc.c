/* realloc of a block of 3 ints to m ints, m an input byte: the contents
 * are kept up to the smaller size, and an access past the new size is an
 * error (ASan's heap-buffer-overflow).
 *
 * Paths: m == 0 frees the block and returns NULL (exit 1). Otherwise k == 1
 * reads a[m], past the end for every m (1 ptr error; the size does not
 * fork there). Else the fill loop forks on m: m = 1..3 do not enter it
 * (1 exit, printing the kept a[m - 1]), m = 4, 5, 6 fill the new elements
 * (3 exits).
 * expect: exit=5 ptr=1
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  unsigned char m, k;
  klee_make_symbolic(&m, sizeof m, "m");
  klee_make_symbolic(&k, sizeof k, "k");
  klee_assume(m <= 6);
  int *a = malloc(3 * sizeof *a);
  for (int i = 0; i < 3; i++)
    a[i] = 10 * (i + 1);
  a = realloc(a, m * sizeof *a);
  if (!a)
    return 1;
  if (k == 1)
    printf("%d\n", a[m]); // ERROR: ptr
  for (int i = 3; i < m; i++)
    a[i] = i;
  printf("%d\n", a[m - 1]);
  free(a);
  return 0;
}
