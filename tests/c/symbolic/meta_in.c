/* Meta branches as `psychic unify` writes them for long revision sets:
 * `__klee_meta_in(S, "hex")`, bit r % 4 of digit r / 4 for revision r.
 * "a5" is revisions 1, 3 (a = 1010) and 4, 6 (5 = 0101); "002" is
 * revision 9 (digit 2 is 0010); revisions past the last digit are not in a
 * set, so 0, 2, 5, 7 and 8 take the else. Site 2 tests "A5", the same set
 * in upper case.
 *
 * Paths: {1,3,4,6}, {9} and {0,2,5,7,8}, each forking on y > 0: 6 exits.
 * expect: exit=6
 */
#include <klee/klee.h>
#include <stdio.h>

const int __psychic_revisions = 10;

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int y;
  if (__klee_meta_in(1, "a5")) {
    y = x + 1;
  } else if (__klee_meta_in(1, "002")) {
    y = x - 1;
  } else {
    y = x;
  }
  int k = __klee_meta_in(2, "A5") ? 10 : 20;
  if (y > 0)
    printf("positive %d\n", k);
  else
    printf("other %d\n", k);
  return 0;
}
