/* sprintf of one symbolic value through every integer conversion, with
 * flags, widths and precisions: the bytes written must be glibc's for every
 * input (replay compares them).
 *
 * Paths: each conversion's text fixes the value's number of digits in its
 * base (and, under a precision or '#', whether it is zero); the path forks
 * at every boundary some conversion has below 300: 1 (zero under "%.3u",
 * "%#o", "%5.2d"), 8 (octal), 10, 16, 64, 100, 256, and 272, where v & 0xff
 * (what "%hhx" prints) reaches 16 again. The intervals [0, 1), [1, 8),
 * [8, 10), [10, 16), [16, 64), [64, 100), [100, 256), [256, 272),
 * [272, 300): 9 paths. "%c" of a symbolic byte never forks.
 * expect: exit=9
 */
#include <klee/klee.h>
#include <stdio.h>

int main(void) {
  unsigned short v;
  klee_make_symbolic(&v, sizeof v, "v");
  klee_assume(v < 300);
  char buf[128];
  int n = sprintf(buf, "%d|%x|%X|%o|%+06d|%-5x|%.3u|%#o|%5.2d|%hhx|%c", v, v, v, v, v, v, v, v, v, v, 'a' + v % 26);
  puts(buf);
  return n;
}
