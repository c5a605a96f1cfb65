/* A meta program of three revisions: 0 and 1 share the variant at site 1
 * (one switch case list), revision 2 differs; site 2 only changes what
 * revision 2 prints.
 *
 * Paths: the && in klee_assume branches on x > -1000 at -O0, and its false
 * side contradicts the assumption (1 silent). Site 1 splits {0,1} from {2}
 * without the solver, and each forks on y > 10: 4 exits. Site 2 then
 * decides k == 2 alike for 0 and 1, so nothing splits further.
 * expect: exit=4 silent=1
 */
#include <klee/klee.h>
#include <stdio.h>

const int __psychic_revisions = 3;

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_assume(x > -1000 && x < 1000);
  int y;
  switch (__klee_meta(1)) {
  case 0:
  case 1:
    y = x + 1;
    break;
  default:
    y = x - 1;
  }
  if (y > 10)
    printf("big\n");
  else
    printf("small\n");
  int k = __klee_meta(2);
  printf("%d\n", y * (k == 2 ? 3 : 2));
  return 0;
}
