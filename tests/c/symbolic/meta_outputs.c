/* Revisions that differ only in data: nothing is decided on the revision,
 * so one state runs to the end and its outputs split by revision at halt.
 *
 * Paths: the ?: on site 1 (a branch at -O0) splits {0,1,2} from {3}: 2
 * exits, with structured output.
 * expect: exit=2
 */
#include <klee/klee.h>
#include <psychic.h>
#include <stdio.h>

const int __psychic_revisions = 4;

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int scale = __klee_meta(1) == 3 ? 1 : 2; /* revisions 0-2 agree */
  int y = x * scale;
  printf("y=%d\n", y);
  psychic_output("y", y);
  return 0;
}
