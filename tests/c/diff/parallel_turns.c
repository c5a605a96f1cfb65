/* Three revisions: 0 and 1 count the same bytes along the same code, 2 has
 * its own copy of the loop and also counts in[0] == 7. Revisions 0 and 1 keep
 * meeting at the same instructions; the parallel searcher prefers such pairs,
 * but must still give revision 2 its turns, or 2 is never told apart. */
#include <klee/klee.h>
#include <stdio.h>
const int __psychic_revisions = 3;
int main(void) {
  unsigned char in[16];
  int count = 0;
  klee_make_symbolic(in, sizeof in, "in");
  if (__klee_meta(1) == 2) {
    count = in[0] == 7;
    for (int i = 0; i < 16; i++)
      if (in[i] > 100)
        count++;
  } else {
    if (__klee_meta(2) == 0)
      count = 0;
    else
      count = -0;
    for (int i = 0; i < 16; i++)
      if (in[i] > 100)
        count++;
  }
  printf("%d\n", count);
  return 0;
}
