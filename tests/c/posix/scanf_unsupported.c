/* An unsupported scanf conversion ends its path with a `model` error at the
 * call; the other path goes on.
 * flags: --sym-stdin 4
 * expect: exit=1 model=1
 * The first token decides: 0 reads a pointer (unsupported: model), else exit.
 */
#include <stdio.h>

int main(void) {
  int k;
  void *p;
  if (scanf("%d", &k) != 1)
    return 9;
  if (k == 0)
    scanf("%p", &p); // ERROR: model
  return 0;
}
