/* Every output function of the model, to both streams, with concrete and
 * symbolic arguments: the per-test .stdout and .stderr files must be what
 * the native run prints.
 *
 * Paths: only `x > 100` forks: 2. Printing a symbolic value never forks.
 * expect: exit=2
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned char x;
  klee_make_symbolic(&x, sizeof x, "x");
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("x=%d hex=%#x pad=[%5u] char=%c\n", x, x, x, 'A' + x % 26);
  fprintf(stderr, "to stderr: %03d%%\n", x);
  puts("a line");
  putchar('!');
  putc('\n', stdout);
  fputc('#', stderr);
  fputs("fputs\n", stderr);
  fwrite("raw bytes\n", 1, 10, stdout);
  fflush(stdout);
  if (x > 100)
    printf("%s %ld\n", "big", (long)x * 1000000000L);
  else
    fprintf(stdout, "%-6s|%+d\n", "small", x - 50);
  return 0;
}
