/* Meta branches as `psychic unify` writes them: `||` chains of
 * `__klee_meta(S) == r` tests. Revisions 0 and 2 share a variant at site 1
 * and must stay one state; revision 1 has its own. Site 2 is a `?:` on a
 * chain that parts the same groups.
 *
 * Paths: {0,2} and {1}, each forking on y > 0: 4 exits.
 * expect: exit=4
 */
#include <klee/klee.h>
#include <stdio.h>

const int __psychic_revisions = 3;

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int y;
  if (__klee_meta(1) == 0 || __klee_meta(1) == 2) {
    y = x + 1;
  } else if (__klee_meta(1) == 1) {
    y = x - 1;
  }
  int k = (__klee_meta(2) == 2 || __klee_meta(2) == 0) ? 10 : 20;
  if (y > 0)
    printf("positive %d\n", k);
  else
    printf("other %d\n", k);
  return 0;
}
