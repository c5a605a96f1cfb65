/* A switch on an input byte: one path per distinct target block, with
 * cases 1 and 2 sharing a block and case 7 falling through into case 8.
 *
 * Paths: op == 0; op in {1, 2}; op == 7 (runs the blocks of 7 and 8);
 * op == 8; any other value (default): 5.
 * expect: exit=5
 * enumerate: 1
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char op;
  klee_make_symbolic(&op, sizeof op, "op");
  int r = 0;
  switch (op) {
  case 0:
    r = 10;
    break;
  case 1:
  case 2:
    r = 20;
    break;
  case 7:
    r = 30;
    /* fall through */
  case 8:
    r += 1;
    break;
  default:
    r = -1;
  }
  printf("%d\n", r);
  return r < 0;
}
