/* Execution errors: reaching `unreachable`, and a call through a pointer
 * that is no function.
 *
 * Paths: x == 11 reaches __builtin_unreachable (exec error); x == 77 calls
 * address 77 (exec error); other values exit.
 * expect: exit=1 exec=2
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  int (*f)(void) = (int (*)(void))(long)x;
  if (x == 11)
    __builtin_unreachable(); // ERROR: exec
  if (x == 77)
    return f(); // ERROR: exec
  return 0;
}
