/* strchr of a symbolic character in "hello" (the model's loop).
 *
 * Paths: found at 'h', 'e', the first 'l' or 'o' (the second 'l' cannot be
 * the first match), at the terminator (c == 0), or not found: 6.
 * expect: exit=6
 * enumerate: 1 model
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  const char *s = "hello";
  const char *p = strchr(s, c);
  printf("%d\n", p ? (int)(p - s) : -1);
  return 0;
}
