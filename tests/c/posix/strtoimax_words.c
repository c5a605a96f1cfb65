/* strtoimax and strtoumax, which coreutils' option parsers (xstrtoumax)
 * call: the model's strtoll and strtoull under <inttypes.h>'s names, with
 * overflow, a negative text for the unsigned one, and base 0's prefixes.
 * argv: -- -9223372036854775809 18446744073709551616 -1 0x1fz 017
 * expect: exit=1
 * The words are concrete: one path, whose output and end offsets a native
 * run prints too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv) {
  char *end;
  for (int i = 1; i < argc; i++) {
    errno = 0;
    intmax_t s = strtoimax(argv[i], &end, 0);
    int se = errno, sn = (int)(end - argv[i]);
    errno = 0;
    uintmax_t u = strtoumax(argv[i], &end, 0);
    printf("%jd %d %d / %ju %d %d\n", s, se, sn, u, errno, (int)(end - argv[i]));
  }
  return 0;
}
