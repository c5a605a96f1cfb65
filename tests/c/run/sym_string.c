/* A string in a heap buffer of input-sized length, terminated at an index
 * the input decides: printf's %s ends it at the byte the path makes 0, and
 * reading past the buffer for its NUL is out of bounds (ASan's printf
 * check reports the heap-buffer-overflow).
 *
 * Paths: the byte loop of memset forks per n = 1..3; then t != 0 writes the
 * NUL at s[n - 1] (3 exits) and t == 0 leaves the string unterminated
 * within the buffer (3 ptr errors).
 * expect: exit=3 ptr=3
 */
#include <klee/klee.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  unsigned char n, t;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_make_symbolic(&t, sizeof t, "t");
  klee_assume(n >= 1);
  klee_assume(n <= 3);
  char *s = malloc(n);
  memset(s, 'a', n - 1);
  s[n - 1] = t ? 0 : 'b';
  printf("%s\n", s); // ERROR: ptr
  free(s);
  return 0;
}
