/* getline, then read(0, ...) of what is left: 3 symbolic stdin bytes.
 * flags: --sym-stdin 3
 * expect: exit=4
 * getline stops after a '\n' at byte 0, 1 or 2, or at EOF (4 paths); read
 * then finds nothing: stdio buffered all of stdin (glibc fills its buffer
 * with one read of up to BUFSIZ bytes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  char *line = NULL, rest[8];
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  ssize_t r = read(0, rest, sizeof rest);
  printf("line %zd, then %zd\n", n, r);
  free(line);
  return (int)n;
}
