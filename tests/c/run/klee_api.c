/* The KLEE API: klee_int, klee_range, klee_assume, klee_is_symbolic,
 * klee_is_replay, klee_prefer_cex and klee_silent_exit.
 *
 * Paths: at -O0 the && in klee_assume's argument branches on its first
 * operand only (the second flows into a phi): where y <= -100 the argument
 * is 0, a contradiction that ends the path silently (1); otherwise
 * y < 100 is assumed. Then r == 0 or not (2), and on each, y == r + 10
 * ends the path silently (2) or not (2 exits).
 * expect: exit=2 silent=3
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  int y = klee_int("y");
  int r = klee_range(0, 4, "r");
  klee_assume(y > -100 && y < 100);
  klee_prefer_cex(&y, y == 7);
  /* Symbolic under the engine, replayed natively: 1 either way. */
  printf("%u\n", klee_is_symbolic(y) + klee_is_replay() - klee_is_symbolic(42));
  if (r == 0)
    puts("zero");
  if (y == r + 10)
    klee_silent_exit(0);
  return 0;
}
