/* free() of what malloc did not return: a stack address, or a pointer into
 * the middle of a block.
 *
 * Paths: mode 0 frees a stack array, mode 1 an interior pointer (2 free
 * errors); other modes free the block itself (exit).
 * expect: exit=1 free=2
 */
#include <klee/klee.h>
#include <stdlib.h>

int main(void) {
  unsigned char mode;
  klee_make_symbolic(&mode, sizeof mode, "mode");
  char local[8];
  char *block = malloc(16);
  if (mode == 0)
    free(local); // ERROR: free
  else if (mode == 1)
    free(block + 4); // ERROR: free
  else
    free(block);
  return 0;
}
