/* A negative count times sizeof is a size over AddressSanitizer's 1 TiB
 * limit: ASan aborts (allocation-size-too-big), and so does the path, with
 * an alloc error. glibc alone would return NULL; psychic replays under ASan.
 *
 * Paths: x < 0: alloc error; x = 0..999 is one size kept symbolic (malloc(0)
 * serves one byte, as under ASan), then x > 0 forks: 2 exits.
 * expect: exit=2 alloc=1
 */
#include <klee/klee.h>
#include <stdlib.h>

int main(void) {
  int x = klee_int("x");
  klee_assume(x < 1000);
  int *p = malloc(x * sizeof *p); // ERROR: alloc
  if (x > 0)
    p[x - 1] = 1;
  free(p);
  return 0;
}
