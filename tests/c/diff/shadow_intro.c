/* Shadow's introduction, as a hand-written meta program: `x > 10` became
 * `x > 20`. The revisions differ exactly for x in [11, 20]. */
#include <klee/klee.h>
#include <stdio.h>
const int __psychic_revisions = 2;
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (__klee_meta(1) == 0 ? x > 10 : x > 20)
    printf("big\n");
  else
    printf("small\n");
  return 0;
}
