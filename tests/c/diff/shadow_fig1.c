/* Shadow's Fig. 1 as a hand-written meta program: `y = x - 1` became
 * `y = x + 1`. They differ for x in {7, 8} (x = 7 writes arr[-1] in the new
 * version) and at 32-bit wrap-around. */
#include <klee/klee.h>
const int __psychic_revisions = 2;
char arr[4];
int foo(int x) {
  int y = __klee_meta(1) == 0 ? x - 1 : x + 1;
  if (y > 7) {
    int z = x - 8;
    if (z < 4)
      arr[z] = 'A';
    return 0;
  }
  return 1;
}
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  return foo(x);
}
