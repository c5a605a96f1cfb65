/* The heap model: malloc of a symbolic size, calloc, realloc that keeps the
 * contents, and free.
 *
 * Paths: the allocation does not fork (its size stays symbolic); memset's
 * byte loop forks once per length, n = 0..15 (16 paths); on each, the
 * copied symbolic byte is then tested: 32.
 * expect: exit=32
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  unsigned char n, c;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_make_symbolic(&c, sizeof c, "c");
  klee_assume(n < 16);
  char *p = malloc(n + 2u);
  memset(p, 'x', n + 1u);
  p[n + 1u] = 0;
  int *z = calloc(4, sizeof *z);
  char *q = realloc(p, 64);
  q[0] = (char)c;
  printf("%zu %d\n", strlen(q + 1), z[3]);
  if (q[0] == 'q')
    puts("q");
  else
    puts("not q");
  free(q);
  free(z);
  return 0;
}
