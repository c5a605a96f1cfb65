/* KLEE tutorial 1: three paths (x == 0, x < 0, x > 0), each an exit.
 * expect: exit=3
 */
#include <klee/klee.h>

int get_sign(int x) {
  if (x == 0) return 0;
  if (x < 0) return -1;
  return 1;
}

int main(void) {
  int a;
  klee_make_symbolic(&a, sizeof(a), "a");
  return get_sign(a);
}
