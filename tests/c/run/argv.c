/* Program arguments are concrete, as passed after the program: the ktest
 * records them, and replay passes them again.
 *
 * Paths: the symbolic byte equals argv[1][0] or not: 2.
 * expect: exit=2
 * argv: hello world
 */
#include <klee/klee.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  printf("%d %s %zu\n", argc, argv[argc - 1], strlen(argv[1]));
  if (argc > 1 && c == argv[1][0])
    puts("first letter");
  else
    puts("another letter");
  return argc;
}
