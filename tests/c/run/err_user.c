/* klee_report_error with a suffix of the program's choice: the error kind
 * and the .err file name are that suffix, the location the one it names.
 *
 * Paths: x == 4 reports (a "bad" error), or not (exit).
 * expect: exit=1 bad=1
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  if (x == 4)
    klee_report_error(__FILE__, __LINE__, "x must not be 4", "bad"); // ERROR: bad
  return 0;
}
